//! Two things a start would otherwise pay for at every launch:
//! - each tool's schema file from `schemas/`, written into `OUT_DIR/schemas/` as one line,
//!   without the whitespace between tokens: the form a `tools/list` reply sends. The server
//!   compiles those in (`src/server/schemas.rs`), so that its first `tools/list`, which comes
//!   right after a start, only joins them. Compacting them at run time took about 0.12 ms of
//!   that reply on the 2-core test machine.
//! - the binary's relative relocations packed (`-z pack-relative-relocs`, DT_RELR), where the
//!   C library that will load it understands them. The dynamic loader then reads a few KB
//!   instead of 500 KB of relocation entries: 246,000 cycles instead of 472,000
//!   (`LD_DEBUG=statistics`), the `initialize` reply about 0.1 ms sooner (BENCHMARKS.md). A
//!   static build (`.cargo/config.toml`) relocates itself and reads them the same way.
//!
//! And two things about where the build goes: a static build stops at once, saying what to
//! install, when the system has no static C library; and the binary's old path,
//! `target/<profile>/filewright`, is left as a link to where it now lands.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=schemas");
    require_static_libc();
    #[cfg(unix)]
    link_old_binary_path();
    compact_schemas();
    if packed_relocations_load() {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether a binary with packed relocations will load: built for Linux with glibc 2.36 or
/// later, on that same system (the linker marks the binary as needing that glibc, and one
/// built on a newer system would not start on an older one). In doubt (a cross build, no
/// `getconf`), no.
fn packed_relocations_load() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("HOST") != var("TARGET")
    {
        return false;
    }
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else { return false };
    // "glibc 2.36"
    let text = String::from_utf8_lossy(&out.stdout);
    let mut numbers = text.trim().strip_prefix("glibc ").unwrap_or_default().split('.');
    let mut next = || numbers.next().and_then(|n| n.parse::<u32>().ok());
    matches!((next(), next()), (Some(major), Some(minor)) if (major, minor) >= (2, 36))
}

/// A static build (`.cargo/config.toml` asks for one on Linux with glibc) needs the C
/// library's static archive, which some systems ship apart. Without it the link would fail at
/// the very end with "cannot find -lc"; this says what to do before filewright itself is
/// compiled.
fn require_static_libc() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let static_crt = var("CARGO_CFG_TARGET_FEATURE").split(',').any(|f| f == "crt-static");
    if !static_crt || var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    // `cc` is the linker rustc calls; it prints the archive's path when it finds one, else
    // the bare name.
    let Ok(out) = Command::new("cc").arg("-print-file-name=libc.a").output() else { return };
    if !PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).is_absolute() {
        panic!(
            "filewright links the C library statically (see .cargo/config.toml), and this system has \
             no libc.a: install it (Debian and Ubuntu: libc6-dev; Fedora: glibc-static), or build a \
             dynamically linked server with `RUSTFLAGS= cargo build --release`"
        );
    }
}

/// The build targets the host by name (`.cargo/config.toml`), so binaries land in
/// `target/<host>/<profile>/`. Where they used to be, `target/<profile>/filewright`, a link to
/// the new place is left: a script or an MCP client's configuration that names the old path
/// then starts the binary just built, not one an older build left there (which the link
/// replaces). Nothing is done when the build does not target the host by name: a cross build's
/// binary never belonged at the old path, which is the host's.
#[cfg(unix)]
fn link_old_binary_path() {
    let (Some(out), Ok(target)) = (std::env::var_os("OUT_DIR"), std::env::var("TARGET")) else { return };
    if std::env::var("HOST").as_deref() != Ok(target.as_str()) {
        return;
    }
    let out = PathBuf::from(out);
    // OUT_DIR is <target dir>/<target>/<profile>/build/<package>-<hash>/out.
    let Some(profile_dir) = out.ancestors().nth(3) else { return };
    let (Some(profile), Some(triple_dir)) = (profile_dir.file_name(), profile_dir.parent()) else { return };
    let Some(target_dir) = triple_dir.parent().filter(|_| triple_dir.file_name() == Some(target.as_ref()))
    else {
        return;
    };
    let old_dir = target_dir.join(profile);
    let link = old_dir.join("filewright");
    let new_place = PathBuf::from("..").join(&target).join(profile).join("filewright");
    if std::fs::read_link(&link).is_ok_and(|now| now == new_place)
        || std::fs::create_dir_all(&old_dir).is_err()
    {
        return;
    }
    // A binary an older build left (or a link elsewhere) goes; a directory stays.
    let _ = std::fs::remove_file(&link);
    let _ = std::os::unix::fs::symlink(&new_place, &link);
}

fn compact_schemas() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("schemas");
    std::fs::create_dir_all(&out).expect("OUT_DIR is writable");
    let entries = std::fs::read_dir("schemas").expect("the schemas/ directory");
    for entry in entries {
        let path = entry.expect("a schemas/ entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // In the file's order of keys (`preserve_order`), which is the order rmcp writes.
        let value: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        let compact = serde_json::to_string(&value).expect("a JSON value encodes");
        std::fs::write(out.join(path.file_name().expect("a file name")), compact)
            .expect("OUT_DIR is writable");
    }
}
