#!/usr/bin/env python3
"""Writes filewright's packages, other than the wheel and the crate, from a built binary.

Run by `scripts/dist.sh`, which builds the binary once and gives it here. Each subcommand
writes into the output directory:

- `npm`: `filewright-<version>.tgz`, the main package (a JavaScript shim as its `bin`, the
  platform packages as optionalDependencies), and `filewright-<platform>-<version>.tgz`, the
  package that carries the binary for this platform;
- `bundle`: `filewright-<version>-<platform>.mcpb`, the bundle Claude Desktop installs;
- `server-json`: `server.json` for the MCP Registry, naming every package, with the sha256 of
  each bundle in the output directory (a release gathers all platforms' bundles there first).

Everything a package says about filewright (version, description, licence, repository, MCP
name) is read from Cargo.toml through `cargo metadata`: it is written nowhere else. Only the
standard library is used, so that a fresh machine with python3 runs it.
"""

import argparse
import base64
import hashlib
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The platforms filewright is released for: the name used in package and file names, the
# values of npm's `os` and `cpu`, the Node.js `process.platform-process.arch` keys the shim
# maps to the package, and the MCPB platform. macOS gets one universal binary (both CPUs), as
# an MCPB bundle has no CPU selector. The release workflow builds each on its own runner.
PLATFORMS = {
    "linux-x64": {"os": "linux", "cpu": ["x64"], "mcpb": "linux"},
    "linux-arm64": {"os": "linux", "cpu": ["arm64"], "mcpb": "linux"},
    "darwin-universal": {"os": "darwin", "cpu": ["x64", "arm64"], "mcpb": "darwin"},
}

# The version of the MCP Registry's server.json format written (the `$id` of its schema).
SERVER_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"


def metadata():
    """`cargo metadata` of the repository, without its dependencies."""
    out = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1", "--locked",
         "--manifest-path", str(ROOT / "Cargo.toml")],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


def crate():
    """The package's fields from Cargo.toml."""
    package = next(p for p in metadata()["packages"] if p["name"] == "filewright")
    mcp = (package.get("metadata") or {}).get("mcp") or {}
    for key in ("name", "title"):
        if not mcp.get(key):
            sys.exit(f"Cargo.toml: [package.metadata.mcp] has no `{key}`")
    for key in ("description", "license", "repository", "authors"):
        if not package.get(key):
            sys.exit(f"Cargo.toml: [package] has no `{key}`")
    return {
        "name": package["name"],
        "version": package["version"],
        "description": package["description"],
        "license": package["license"],
        "repository": package["repository"],
        "author": package["authors"][0],
        "keywords": package.get("keywords") or [],
        "mcp_name": mcp["name"],
        "title": mcp["title"],
    }


def linkage(binary):
    """How an ELF binary finds its C library: "static" (no program interpreter: it runs on
    any Linux of its CPU, whatever its C library), "glibc" or "musl"; None when it is no ELF
    file (macOS, Windows)."""
    data = Path(binary).read_bytes()
    if data[:4] != b"\x7fELF":
        return None
    is64, little = data[4] == 2, data[5] == 1
    end = "<" if little else ">"
    if is64:
        phoff, = struct.unpack_from(end + "Q", data, 0x20)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 0x36)
    else:
        phoff, = struct.unpack_from(end + "I", data, 0x1C)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 0x2A)
    for i in range(phnum):
        at = phoff + i * phentsize
        p_type, = struct.unpack_from(end + "I", data, at)
        if p_type != 3:  # PT_INTERP
            continue
        if is64:
            offset, = struct.unpack_from(end + "Q", data, at + 8)
            size, = struct.unpack_from(end + "Q", data, at + 32)
        else:
            offset, = struct.unpack_from(end + "I", data, at + 4)
            size, = struct.unpack_from(end + "I", data, at + 16)
        interpreter = data[offset:offset + size].rstrip(b"\0").decode()
        return "musl" if "musl" in interpreter else "glibc"
    return "static"


def wheel_tags(binary):
    """The maturin `--compatibility` value true for `binary` (empty: maturin's own choice,
    from the symbols a dynamically linked binary needs; on macOS and Windows, its platform's).
    A static binary needs no C library of the system: the oldest glibc tag pip knows for its
    CPU (CentOS 7) runs it, and [`add_musl_tag`] adds musl's."""
    return ["manylinux_2_17"] if linkage(binary) == "static" else []


def add_musl_tag(args):
    """Adds the `musllinux_1_1` tag (Alpine 3.12 and later) to a wheel whose binary is static:
    it runs there as on any Linux of its CPU. maturin gives a glibc target's wheel only glibc
    tags; the tag set is widened as `wheel tags` would, in the WHEEL file, its RECORD line and
    the file name."""
    wheel = Path(args.wheel)
    if linkage(args.binary) != "static":
        print(wheel)
        return
    name, version, python, abi, platforms = wheel.stem.split("-")
    cpus = {p.split("_", 3)[-1] if p.startswith(("manylinux_", "musllinux_")) else p.split("_", 1)[-1]
            for p in platforms.split(".")}
    if len(cpus) != 1:
        sys.exit(f"{wheel.name}: cannot tell its CPU from {platforms}")
    musl = f"musllinux_1_1_{cpus.pop()}"
    tags = platforms.split(".") + ([musl] if musl not in platforms.split(".") else [])
    target = wheel.with_name(f"{name}-{version}-{python}-{abi}-{'.'.join(tags)}.whl")
    with zipfile.ZipFile(wheel) as old, zipfile.ZipFile(target.with_suffix(".tmp"), "w") as new:
        info_dir = next(n.split("/")[0] for n in old.namelist() if n.endswith(".dist-info/WHEEL"))
        lines = old.read(f"{info_dir}/WHEEL").decode().splitlines()
        lines = [l for l in lines if not l.startswith("Tag: ")] + [f"Tag: {python}-{abi}-{t}" for t in tags]
        wheel_file = ("\n".join(lines) + "\n").encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(wheel_file).digest()).rstrip(b"=").decode()
        for item in old.infolist():
            data = old.read(item)
            if item.filename == f"{info_dir}/WHEEL":
                data = wheel_file
            elif item.filename == f"{info_dir}/RECORD":
                data = "".join(
                    f"{info_dir}/WHEEL,sha256={digest},{len(wheel_file)}\n"
                    if line.startswith(f"{info_dir}/WHEEL,") else line + "\n"
                    for line in data.decode().splitlines()
                ).encode()
            new.writestr(item, data)
    wheel.unlink()
    target.with_suffix(".tmp").rename(target)
    print(target)


def first_sentence(text):
    """The first sentence of a tool's description, on one line."""
    flat = " ".join(text.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def tools(schemas):
    """Each tool's name and first sentence, from the files `filewright schemas DIR` wrote."""
    listed = []
    for file in sorted(Path(schemas).glob("*.json")):
        tool = json.loads(file.read_text())
        listed.append({"name": tool["name"], "description": first_sentence(tool["description"])})
    if not listed:
        sys.exit(f"{schemas}: no tool schemas (run `filewright schemas {schemas}` first)")
    return listed


def bundle_name(meta, platform):
    return f"{meta['name']}-{meta['version']}-{platform}.mcpb"


def npm(args):
    meta = crate()
    out = Path(args.out).resolve()
    version = meta["version"]
    repository = {"type": "git", "url": f"git+{meta['repository']}.git"}
    with tempfile.TemporaryDirectory() as tmp:
        main = Path(tmp, "main")
        (main / "bin").mkdir(parents=True)
        keys = {}
        for platform, spec in PLATFORMS.items():
            for cpu in spec["cpu"]:
                keys[f"{spec['os']}-{cpu}"] = f"{meta['name']}-{platform}"
        shim = (ROOT / "packaging/npm/filewright.js").read_text()
        marker = "/* PLATFORM PACKAGES */ {}"
        if marker not in shim:
            sys.exit("packaging/npm/filewright.js: the platform table marker is missing")
        shim = shim.replace(marker, json.dumps(keys, indent=2))
        (main / "bin/filewright.js").write_text(shim)
        (main / "bin/filewright.js").chmod(0o755)
        for name in ("README.md", "LICENSE-MIT", "LICENSE-APACHE"):
            shutil.copy(ROOT / name, main / name)
        write_json(main / "package.json", {
            "name": meta["name"],
            "version": version,
            "description": meta["description"],
            "keywords": meta["keywords"],
            "license": meta["license"],
            "repository": repository,
            "mcpName": meta["mcp_name"],
            "bin": {meta["name"]: "bin/filewright.js"},
            "files": ["bin/", "README.md", "LICENSE-MIT", "LICENSE-APACHE"],
            "engines": {"node": ">=14"},
            "optionalDependencies": {f"{meta['name']}-{p}": version for p in PLATFORMS},
        })
        pack(main, out)

        spec = PLATFORMS[args.platform]
        part = Path(tmp, "platform")
        (part / "bin").mkdir(parents=True)
        exe = "filewright.exe" if spec["os"] == "win32" else "filewright"
        shutil.copy(args.binary, part / "bin" / exe)
        (part / "bin" / exe).chmod(0o755)
        for name in ("LICENSE-MIT", "LICENSE-APACHE"):
            shutil.copy(ROOT / name, part / name)
        platform_package = {
            "name": f"{meta['name']}-{args.platform}",
            "version": version,
            "description": f"The {meta['name']} server binary for {args.platform}, "
                           f"started by the `{meta['name']}` package",
            "license": meta["license"],
            "repository": repository,
            "os": [spec["os"]],
            "cpu": spec["cpu"],
            "files": ["bin/", "LICENSE-MIT", "LICENSE-APACHE"],
            "preferUnplugged": True,
        }
        # A dynamically linked binary runs only with the C library it was linked against.
        libc = linkage(args.binary)
        if libc in ("glibc", "musl"):
            platform_package["libc"] = [libc]
        write_json(part / "package.json", platform_package)
        pack(part, out)


def pack(directory, out):
    """`npm pack` of `directory` into `out` (no registry is asked)."""
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(out)],
                   cwd=directory, check=True, stdout=subprocess.DEVNULL)


def bundle(args):
    meta = crate()
    spec = PLATFORMS[args.platform]
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    exe = "filewright.exe" if spec["mcpb"] == "win32" else "filewright"
    manifest = {
        "manifest_version": "0.3",
        "name": meta["name"],
        "display_name": meta["title"],
        "version": meta["version"],
        "description": meta["description"],
        "author": {"name": meta["author"], "url": meta["repository"]},
        "repository": {"type": "git", "url": meta["repository"]},
        "homepage": meta["repository"],
        "license": meta["license"],
        "keywords": meta["keywords"],
        "icon": "icon.png",
        "server": {
            "type": "binary",
            "entry_point": f"server/{exe}",
            "mcp_config": {
                # The client appends `.exe` on Windows.
                "command": "${__dirname}/server/filewright",
                "args": ["--root", "${user_config.root}"],
                "env": {},
            },
        },
        "tools": tools(args.schemas),
        "user_config": {
            "root": {
                "type": "directory",
                "title": "Project folder",
                "description": "The folder filewright serves: every path is relative to it, "
                               "and nothing outside it can be read or written.",
                "required": True,
            }
        },
        "compatibility": {"platforms": [spec["mcpb"]]},
    }
    files = {
        "manifest.json": (json.dumps(manifest, indent=2) + "\n").encode(),
        f"server/{exe}": Path(args.binary).read_bytes(),
        "icon.png": (ROOT / "packaging/icon.png").read_bytes(),
        "README.md": (ROOT / "README.md").read_bytes(),
        "LICENSE-MIT": (ROOT / "LICENSE-MIT").read_bytes(),
        "LICENSE-APACHE": (ROOT / "LICENSE-APACHE").read_bytes(),
    }
    target = out / bundle_name(meta, args.platform)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            # A fixed date, and the executable bit kept for the binary (Unix mode in the
            # high half of external_attr), so the same input makes the same bundle.
            info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
            mode = 0o755 if name.startswith("server/") else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    print(target)


def unpack(args):
    """Unpacks a bundle as a client does, keeping each file's Unix mode (the binary's
    executable bit), and prints the command its manifest says to start, one word a line,
    with `${__dirname}` and `${user_config.root}` filled in as the client fills them."""
    to = Path(args.to)
    with zipfile.ZipFile(args.bundle) as archive:
        for info in archive.infolist():
            path = archive.extract(info, to)
            mode = info.external_attr >> 16 & 0o777
            if mode:
                os.chmod(path, mode)
    config = json.loads((to / "manifest.json").read_text())["server"]["mcp_config"]
    for word in [config["command"], *config["args"]]:
        print(word.replace("${__dirname}", str(to.resolve())).replace("${user_config.root}", args.root))


def server_json(args):
    meta = crate()
    out = Path(args.out).resolve()
    version = meta["version"]
    stdio = {"type": "stdio"}
    root = [{
        "type": "named",
        "name": "--root",
        "description": "The project folder to serve: every path is relative to it, and nothing "
                       "outside it can be read or written.",
        "format": "filepath",
        "isRequired": True,
        "placeholder": "/absolute/path/to/project",
    }]
    packages = [
        {"registryType": "pypi", "identifier": meta["name"], "version": version,
         "runtimeHint": "uvx", "transport": stdio, "packageArguments": root},
        {"registryType": "npm", "identifier": meta["name"], "version": version,
         "runtimeHint": "npx", "transport": stdio, "packageArguments": root},
        {"registryType": "cargo", "identifier": meta["name"], "version": version,
         "transport": stdio, "packageArguments": root},
    ]
    bundles = sorted(out.glob(f"{meta['name']}-{version}-*.mcpb"))
    if not bundles:
        sys.exit(f"{out}: no bundle of version {version} to list (build it first)")
    for path in bundles:
        packages.append({
            "registryType": "mcpb",
            "identifier": f"{meta['repository']}/releases/download/v{version}/{path.name}",
            "version": version,
            "fileSha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "transport": stdio,
        })
    write_json(out / "server.json", {
        "$schema": SERVER_SCHEMA,
        "name": meta["mcp_name"],
        "title": meta["title"],
        "description": meta["description"],
        "version": version,
        "repository": {"url": meta["repository"], "source": "github"},
        "packages": packages,
        "remotes": [remote()],
    })
    print(out / "server.json")


def remote():
    """The entry for a filewright a team serves itself over HTTP (`--http`, README "Serving over
    HTTP"): there is no public instance, so the address and the token are the user's."""
    return {
        "type": "streamable-http",
        "url": "https://{host}/mcp",
        "variables": {
            "host": {
                "description": "Where your `filewright --http` is reachable (host, and :port "
                               "when not 443), e.g. files.example.com",
                "isRequired": True,
                "placeholder": "files.example.com",
            },
        },
        "headers": [{
            "name": "Authorization",
            "description": "Bearer and a token of the server's --token-file, or an OAuth access "
                           "token for the server's --oauth-audience",
            "value": "Bearer {token}",
            "isRequired": True,
            "isSecret": True,
            "variables": {"token": {"description": "Your token", "isRequired": True, "isSecret": True}},
        }],
    }


def write_json(path, value):
    Path(path).write_text(json.dumps(value, indent=2) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("npm", help="the main npm package and this platform's")
    p.add_argument("--binary", required=True)
    p.add_argument("--platform", required=True, choices=PLATFORMS)
    p.add_argument("--out", required=True)
    p.set_defaults(run=npm)
    p = commands.add_parser("bundle", help="the MCPB bundle")
    p.add_argument("--binary", required=True)
    p.add_argument("--platform", required=True, choices=PLATFORMS)
    p.add_argument("--schemas", required=True, help="the directory `filewright schemas` wrote")
    p.add_argument("--out", required=True)
    p.set_defaults(run=bundle)
    p = commands.add_parser("unpack", help="unpack a bundle; print the command it starts")
    p.add_argument("bundle")
    p.add_argument("to")
    p.add_argument("--root", default="ROOT", help="the folder the user picks for `root`")
    p.set_defaults(run=unpack)
    p = commands.add_parser("server-json", help="server.json for the MCP Registry")
    p.add_argument("--out", required=True)
    p.set_defaults(run=server_json)
    p = commands.add_parser("wheel-tags", help="maturin --compatibility values for a binary")
    p.add_argument("binary")
    p.set_defaults(run=lambda a: print(" ".join(wheel_tags(a.binary))))
    p = commands.add_parser("add-musl-tag", help="widen a static binary's wheel to musl systems")
    p.add_argument("wheel")
    p.add_argument("binary")
    p.set_defaults(run=add_musl_tag)
    p = commands.add_parser("version", help="Cargo.toml's version")
    p.set_defaults(run=lambda a: print(crate()["version"]))
    p = commands.add_parser("target-dir", help="where cargo builds (CARGO_TARGET_DIR or target/)")
    p.set_defaults(run=lambda a: print(metadata()["target_directory"]))
    p = commands.add_parser("platform", help="this machine's platform name, if released")
    p.set_defaults(run=lambda a: print(this_platform()))
    args = parser.parse_args()
    args.run(args)


def this_platform():
    """The PLATFORMS name of the machine running this (macOS: the universal build)."""
    system = os.uname().sysname.lower() if hasattr(os, "uname") else "win32"
    machine = os.uname().machine.lower() if hasattr(os, "uname") else ""
    if system == "darwin":
        return "darwin-universal"
    cpu = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    name = f"{system}-{cpu}"
    if name not in PLATFORMS:
        sys.exit(f"filewright is not released for {system} on {machine}: it runs on "
                 f"{', '.join(PLATFORMS)}")
    return name


if __name__ == "__main__":
    main()
