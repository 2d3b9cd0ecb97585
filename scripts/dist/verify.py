#!/usr/bin/env python3
"""Checks filewright's packages as a user gets them. Run by `scripts/dist-test.sh`.

- `session --root DIR -- COMMAND...`: starts the server through an installed entry point and
  speaks MCP to it over stdio: initialize, list the tools, write a Python file, check it, and
  that the file holds exactly the bytes sent;
- `versions DIST`: every package in DIST says Cargo.toml's version (file names, metadata, the
  npm dependencies between the two packages, the bundle's manifest, server.json's entries);
- `crate DIST --tools DIR`: the crate holds what `cargo install` needs (the sources, every
  tool's schema, the lock file) and none of the tests, benches, fuzz targets or packaging;
- `server-json DIST [--schema FILE]`: server.json is what the MCP Registry accepts: against
  its JSON schema when one is given, and always against the rules checked here;
- `readme DIST --binary FILE`: every JSON and TOML snippet of the README parses, and each
  client configuration in it starts an entry point that the packages provide, with flags the
  binary knows; the README carries the `mcp-name:` line and a row for every tool.

Only the standard library, but for `jsonschema` under `server-json --schema`.
"""

import argparse
import ast
import hashlib
import json
import os
import queue
import re
import shlex
import subprocess
import sys
import tarfile
import threading
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import make  # noqa: E402  (the same reading of Cargo.toml as the packages were made with)

# How long one reply may take: a cold start on a busy 2-core machine is well under a second.
REPLY_SECONDS = 60

# A file that parses, and the verdict check_files gives it.
SAMPLE_PATH = "pkg/hello.py"
SAMPLE = 'def greet(name):\n    return f"hello, {name}"\n\n\nprint(greet("filewright"))\n'


class Failed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failed(message)


# ---------------------------------------------------------------------------------- session

class Server:
    """A server process spoken to in JSON-RPC lines."""

    def __init__(self, command, env):
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read, args=(self.process.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, self.stderr.append), daemon=True).start()
        self.next_id = 0

    @staticmethod
    def _read(stream, put):
        for line in stream:
            put(line)
        put(None)

    def send(self, message):
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            try:
                line = self.lines.get(timeout=REPLY_SECONDS)
            except queue.Empty:
                raise Failed(f"no reply to {method} within {REPLY_SECONDS} s") from None
            if line is None:
                raise Failed(f"the server exited before answering {method}: {self.log()}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                expect("error" not in reply, f"{method} failed: {reply.get('error')}")
                return reply["result"]

    def call(self, tool, arguments):
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        text = "".join(c.get("text", "") for c in result.get("content", []))
        expect(not result.get("isError"), f"{tool} answered with an error: {text}")
        return result, text

    def log(self):
        return b"".join(l for l in self.stderr if l).decode(errors="replace").strip() or "(nothing on stderr)"

    def stop(self):
        """Closes stdin, as a client does, and waits for the server to exit."""
        self.process.stdin.close()
        try:
            code = self.process.wait(timeout=REPLY_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise Failed("the server did not exit when its stdin closed") from None
        expect(code == 0, f"the server exited with {code}: {self.log()}")


def session(args):
    root = Path(args.root)
    root.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    # Its state (claims, journal) in the test's own directory, not the user's.
    env["HOME"] = env["XDG_STATE_HOME"] = str(root.parent / (root.name + "-home"))
    server = Server(args.argv, env)
    try:
        init = server.request("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "filewright-dist-test", "version": "1"},
        })
        info = init.get("serverInfo", {})
        meta = make.crate()
        expect(info.get("name") == meta["name"], f"serverInfo.name is {info.get('name')!r}")
        expect(info.get("version") == meta["version"],
               f"serverInfo.version is {info.get('version')!r}, Cargo.toml says {meta['version']}")
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = server.request("tools/list", {})
        names = sorted(t["name"] for t in listed["tools"])
        expect({"write_file", "append_file", "check_files"} <= set(names), f"tools listed: {names}")
        if args.tools:
            expected = sorted(json.loads(p.read_text())["name"] for p in Path(args.tools).glob("*.json"))
            expect(names == expected, f"tools listed {names}, the binary's schemas {expected}")
        half = SAMPLE.index("\n\n") + 1
        server.call("write_file", {"path": SAMPLE_PATH, "content": SAMPLE[:half]})
        server.call("append_file", {"path": SAMPLE_PATH, "content": SAMPLE[half:], "expected_size": half})
        on_disk = (root / SAMPLE_PATH).read_bytes()
        expect(on_disk == SAMPLE.encode(), f"{SAMPLE_PATH} holds {on_disk!r}")
        result, text = server.call("check_files", {"paths": [SAMPLE_PATH]})
        expect("1 file complete" in text, f"check_files said: {text}")
        server.stop()
    except BaseException:
        if server.process.poll() is None:
            server.process.kill()
        raise
    print(f"{len(names)} tools; wrote and checked {SAMPLE_PATH} ({len(SAMPLE)} bytes): {text.splitlines()[0]}")


# --------------------------------------------------------------------------------- versions

def read_npm(tarball):
    with tarfile.open(tarball) as archive:
        return json.load(archive.extractfile("package/package.json"))


def versions(args):
    dist = Path(args.dist)
    meta = make.crate()
    v, name = meta["version"], meta["name"]
    found = sorted(p.name for p in dist.iterdir())
    problems = []

    def agree(what, value):
        if value != v:
            problems.append(f"{what} says {value!r}, Cargo.toml {v!r}")

    wheels = list(dist.glob("*.whl"))
    expect(len(wheels) == 1, f"one wheel expected in {dist}: {found}")
    agree(f"{wheels[0].name} (file name)", wheels[0].name.split("-")[1])
    with zipfile.ZipFile(wheels[0]) as archive:
        metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        fields = dict(line.split(": ", 1) for line in archive.read(metadata).decode().splitlines()
                      if ": " in line and not line.startswith(" "))
    agree(f"{wheels[0].name} METADATA Version", fields.get("Version"))

    main = read_npm(dist / f"{name}-{v}.tgz") if (dist / f"{name}-{v}.tgz").exists() else None
    expect(main is not None, f"no {name}-{v}.tgz in {dist}: {found}")
    agree(f"{name}-{v}.tgz package.json", main["version"])
    expect(main.get("mcpName") == meta["mcp_name"], f"npm mcpName is {main.get('mcpName')!r}")
    for dependency, wanted in main.get("optionalDependencies", {}).items():
        agree(f"npm optionalDependencies {dependency}", wanted)
    platforms = [p for p in dist.glob(f"{name}-*-{v}.tgz")]
    expect(platforms, f"no platform npm package in {dist}: {found}")
    for tarball in platforms:
        package = read_npm(tarball)
        agree(f"{tarball.name} package.json", package["version"])
        expect(package["name"] in main["optionalDependencies"],
               f"{package['name']} is not among {name}'s optionalDependencies")

    bundles = list(dist.glob("*.mcpb"))
    expect(bundles, f"no bundle in {dist}: {found}")
    for bundle in bundles:
        with zipfile.ZipFile(bundle) as archive:
            agree(f"{bundle.name} manifest.json", json.loads(archive.read("manifest.json"))["version"])

    crates = list(dist.glob("*.crate"))
    expect(len(crates) == 1, f"one crate expected in {dist}: {found}")
    with tarfile.open(crates[0]) as archive:
        manifest = tomllib.load(archive.extractfile(f"{name}-{v}/Cargo.toml"))
    agree(f"{crates[0].name} Cargo.toml", manifest["package"]["version"])

    server = json.loads((dist / "server.json").read_text())
    agree("server.json", server["version"])
    for package in server["packages"]:
        agree(f"server.json {package['registryType']} package", package["version"])
    if problems:
        raise Failed("; ".join(problems))
    print(f"every package says {v}: {', '.join(found)}")


# ------------------------------------------------------------------------------------ crate

# What the crate must not carry: tests and their data, benches, fuzz targets, the packaging.
NOT_IN_CRATE = ("tests/", "benches/", "fuzz/", "examples/", "scripts/", "packaging/", "dist/",
                "docs/", "proptest-regressions/", "src/check/testdata/", ".github/", ".ci/", "target/")


def crate_files(args):
    dist = Path(args.dist)
    meta = make.crate()
    top = f"{meta['name']}-{meta['version']}/"
    with tarfile.open(dist / f"{top[:-1]}.crate") as archive:
        files = sorted(m.name[len(top):] for m in archive.getmembers() if m.isfile())
    extra = [f for f in files if f.startswith(NOT_IN_CRATE)]
    expect(not extra, f"the crate carries what `cargo install` does not need: {extra}")
    tools = sorted(f"schemas/{p.name}" for p in Path(args.tools).glob("*.json"))
    needed = ["Cargo.toml", "Cargo.lock", "build.rs", "src/main.rs", "src/lib.rs", "README.md",
              "LICENSE-MIT", "LICENSE-APACHE", *tools]
    missing = [f for f in needed if f not in files]
    expect(not missing, f"the crate lacks {missing}")
    print(f"the crate holds {len(files)} files: sources, {len(tools)} tool schemas, the lock file, "
          "README and licences, and nothing of " + ", ".join(d.rstrip("/") for d in NOT_IN_CRATE))


# ------------------------------------------------------------------------------ server.json

def server_json(args):
    dist = Path(args.dist)
    meta = make.crate()
    server = json.loads((dist / "server.json").read_text())
    if args.schema:
        import jsonschema  # from the tools' environment (scripts/dist.sh installs it)
        schema = json.loads(Path(args.schema).read_text())
        errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(server), key=str)
        expect(not errors, "server.json against the schema: " + "; ".join(e.message for e in errors))
        expect(server["$schema"] == schema.get("$id"),
               f"server.json names the schema {server['$schema']}, the schema given is {schema.get('$id')}")
    # What the registry checks beyond the schema, and what we promise.
    expect(re.fullmatch(r"io\.github\.[A-Za-z0-9-]+/[A-Za-z0-9._-]+", server["name"]),
           f"name {server['name']!r} is not io.github.OWNER/NAME")
    expect(server["name"] == meta["mcp_name"], "server.json's name is not Cargo.toml's MCP name")
    expect(1 <= len(server["description"]) <= 100, "description must be 1 to 100 characters")
    kinds = sorted(p["registryType"] for p in server["packages"])
    expect(kinds[:3] == ["cargo", "mcpb", "npm"] and "pypi" in kinds, f"packages listed: {kinds}")
    for package in server["packages"]:
        expect(package["transport"] == {"type": "stdio"}, f"{package['registryType']}: not stdio")
        if package["registryType"] == "mcpb":
            file = dist / package["identifier"].rsplit("/", 1)[1]
            expect(package["identifier"].startswith(f"{meta['repository']}/releases/download/v{meta['version']}/"),
                   f"mcpb identifier {package['identifier']} is not a release asset of v{meta['version']}")
            expect(file.exists(), f"server.json names {file.name}, which is not in {dist}")
            sha = hashlib.sha256(file.read_bytes()).hexdigest()
            expect(package.get("fileSha256") == sha, f"{file.name}: fileSha256 is not the file's sha256")
        else:
            expect(package["identifier"] == meta["name"], f"{package['registryType']} identifier")
    remotes = server.get("remotes") or []
    expect([r["type"] for r in remotes] == ["streamable-http"], f"remotes: {remotes}")
    expect(remotes[0]["url"].endswith("/mcp"), "the remote's URL must end at /mcp, where --http serves")
    expect(any(h["name"] == "Authorization" and h.get("isSecret") for h in remotes[0].get("headers", [])),
           "the remote must ask for a secret Authorization header")
    print(f"server.json: {server['name']} {server['version']}, packages {', '.join(kinds)}, a remote"
          + ("" if args.schema else " (the registry's schema was not given: its rules checked here only)"))


# ----------------------------------------------------------------------------------- README

def entry_points(dist):
    """What the packages in DIST let a user start, as command words: the wheel's scripts
    (on PATH after pip install; `uvx NAME` and `pipx run NAME` run the script named as the
    package), the npm package's bins (`npx -y NAME`), the crate's binary."""
    commands, pypi, npm = set(), set(), set()
    wheel = next(dist.glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            parts = member.split("/")
            if len(parts) == 3 and parts[0].endswith(".data") and parts[1] == "scripts":
                commands.add(parts[2])
        metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        project = re.search(r"^Name: (.+)$", archive.read(metadata).decode(), re.M).group(1).strip()
    if project in commands:
        pypi.add(project)
    meta = make.crate()
    main = read_npm(dist / f"{meta['name']}-{meta['version']}.tgz")
    commands |= set(main["bin"])
    if main["name"] in main["bin"]:
        npm.add(main["name"])
    with tarfile.open(next(dist.glob("*.crate"))) as archive:
        manifest = tomllib.load(archive.extractfile(f"{meta['name']}-{meta['version']}/Cargo.toml"))
    commands |= {b["name"] for b in manifest.get("bin", [])}
    return commands, pypi, npm


def server_command(command, args, provided):
    """The binary's arguments when `command args` starts an entry point of the packages;
    raises otherwise."""
    commands, pypi, npm = provided
    words = [command, *args]
    # A command named by its absolute path (as GUI clients may need) is that command.
    program = Path(command).name if Path(command).is_absolute() else command
    if program in commands:
        return words[1:]
    if program == "uvx" and len(words) > 1 and words[1] in pypi:
        return words[2:]
    if [program, *words[1:2]] == ["pipx", "run"] and len(words) > 2 and words[2] in pypi:
        return words[3:]
    if program == "npx":
        rest = [w for w in words[1:] if w not in ("-y", "--yes")]
        if rest and rest[0] in npm:
            return rest[1:]
    raise Failed(f"`{shlex.join(words)}` starts nothing the packages provide "
                 f"(commands {sorted(commands)}, uvx/pipx {sorted(pypi)}, npx {sorted(npm)})")


def known_flags(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"--[a-z][a-z-]+", out))


def check_arguments(where, args, flags):
    for arg in args:
        flag = arg.split("=", 1)[0]
        if flag.startswith("--"):
            expect(flag in flags, f"{where}: the binary has no {flag}")
    expect("--root" in [a.split("=", 1)[0] for a in args], f"{where}: no --root (GUI clients start servers in /)")


def servers_in(value):
    """(name, command, args) of each stdio server a client configuration defines."""
    found = []
    if isinstance(value, dict):
        for key in ("mcpServers", "servers", "mcp_servers", "context_servers"):
            for name, server in (value.get(key) or {}).items():
                if isinstance(server, dict) and "command" in server:
                    found.append((name, server["command"], server.get("args", [])))
    return found


def readme(args):
    dist = Path(args.dist)
    text = (ROOT / "README.md").read_text()
    meta = make.crate()
    provided = entry_points(dist)
    flags = known_flags(args.binary)
    lines = text.splitlines()
    expect(f"mcp-name: {meta['mcp_name']}" in lines,
           f"the README has no line `mcp-name: {meta['mcp_name']}` (the MCP Registry reads it)")
    checked = {"json": 0, "toml": 0, "servers": 0, "claude mcp add": 0, "python": 0}
    for match in re.finditer(r"^```(\w+)\n(.*?)^```", text, re.M | re.S):
        language, body = match.group(1), match.group(2)
        line = text[: match.start()].count("\n") + 1
        where = f"README.md:{line}"
        if language in ("json", "toml"):
            try:
                value = json.loads(body) if language == "json" else tomllib.loads(body)
            except ValueError as e:
                raise Failed(f"{where}: the {language} snippet does not parse: {e}") from None
            checked[language] += 1
            for name, command, arguments in servers_in(value):
                check_arguments(f"{where} ({name})", server_command(command, arguments, provided), flags)
                checked["servers"] += 1
        elif language in ("sh", "bash", "shell", "console"):
            for command in body.splitlines():
                words = shlex.split(command, comments=True)
                if words[:3] == ["claude", "mcp", "add"]:
                    expect("--" in words, f"{where}: `claude mcp add` without `--` before the command")
                    at = words.index("--")
                    check_arguments(where, server_command(words[at + 1], words[at + 2:], provided), flags)
                    checked["claude mcp add"] += 1
        elif language == "python":
            for node in ast.walk(ast.parse(body)):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "StdioServerParameters":
                    given = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
                    check_arguments(where, server_command(given["command"], given.get("args", []), provided), flags)
                    checked["python"] += 1
    for kind in ("toml", "servers", "claude mcp add", "python"):
        expect(checked[kind] > 0, f"the README has no {kind} configuration to check")
    # The Tools table names every tool the binary lists.
    rows = set(re.findall(r"^\| `([a-z_]+)` \|", text, re.M))
    tools = {json.loads(p.read_text())["name"] for p in Path(args.tools).glob("*.json")}
    expect(tools <= rows, f"the README's Tools table lacks {sorted(tools - rows)}")
    print(f"README: {checked['json']} JSON and {checked['toml']} TOML snippets parse; "
          f"{checked['servers']} server entries, {checked['claude mcp add']} `claude mcp add` and "
          f"{checked['python']} Python SDK configurations start real entry points; "
          f"{len(tools)} tools in its table")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="subcommand", required=True)
    p = commands.add_parser("session")
    p.add_argument("--root", required=True)
    p.add_argument("--tools", help="the directory `filewright schemas` wrote: the tools to expect")
    p.add_argument("argv", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    p.set_defaults(run=session)
    p = commands.add_parser("versions")
    p.add_argument("dist")
    p.set_defaults(run=versions)
    p = commands.add_parser("crate")
    p.add_argument("dist")
    p.add_argument("--tools", required=True)
    p.set_defaults(run=crate_files)
    p = commands.add_parser("server-json")
    p.add_argument("dist")
    p.add_argument("--schema")
    p.set_defaults(run=server_json)
    p = commands.add_parser("readme")
    p.add_argument("dist")
    p.add_argument("--binary", required=True)
    p.add_argument("--tools", required=True)
    p.set_defaults(run=readme)
    args = parser.parse_args()
    if getattr(args, "argv", None) and args.argv[:1] == ["--"]:
        args.argv = args.argv[1:]
    try:
        args.run(args)
    except Failed as e:
        sys.exit(f"FAILED: {e}")


if __name__ == "__main__":
    main()
