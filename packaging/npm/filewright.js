#!/usr/bin/env node
// The `filewright` command of the npm package: starts the server binary that the package for
// this platform brought (one of this package's optionalDependencies: npm installs only the
// one whose `os` and `cpu` match), with the same arguments and the same stdin, stdout and
// stderr, and exits as it exits. Nothing is downloaded: the binary travels inside that
// package. `scripts/dist.sh` writes the table below from its list of platforms.
"use strict";

const { spawn } = require("child_process");
const path = require("path");

// process.platform + "-" + process.arch -> the package that holds the binary for it.
const PACKAGES = /* PLATFORM PACKAGES */ {};

const key = `${process.platform}-${process.arch}`;
const name = PACKAGES[key];
if (!name) {
  fail(
    `filewright has no binary for ${key}: it runs on ${Object.keys(PACKAGES).join(", ")}. ` +
      "Other systems can build it from source with Rust: `cargo install --locked filewright`."
  );
}

let binary;
try {
  const manifest = require.resolve(`${name}/package.json`);
  binary = path.join(path.dirname(manifest), "bin", process.platform === "win32" ? "filewright.exe" : "filewright");
} catch (e) {
  fail(
    `the package ${name}, which holds filewright's binary for ${key}, is not installed. ` +
      "npm leaves optional dependencies out when installed with --omit=optional or --no-optional: " +
      "install again without it."
  );
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
// A client stops a server with a signal as often as by closing stdin: pass it on.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (e) => fail(`cannot start ${binary}: ${e.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, as the shell and the client expect of the server itself.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code === null ? 1 : code);
  }
});

function fail(message) {
  process.stderr.write(`filewright: error: ${message}\n`);
  process.exit(1);
}
