//! The command line: startup errors are clear and exit non-zero; `schemas` writes the tool files.

use std::process::Command;

fn filewright() -> Command {
    Command::new(env!("CARGO_BIN_EXE_filewright"))
}

#[test]
fn missing_root_is_a_startup_error() {
    let out = filewright().args(["--root", "/definitely/not/here"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("does not exist"), "{stderr}");
    assert!(out.stdout.is_empty(), "stdout is the protocol channel: {:?}", out.stdout);
}

#[test]
fn a_file_as_root_is_a_startup_error() {
    let tmp = tempfile::NamedTempFile::new().unwrap();
    let out = filewright().arg("--root").arg(tmp.path()).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a directory"));
}

#[test]
fn version_and_help_work() {
    let out = filewright().arg("--version").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("filewright "));
    let out = filewright().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in ["--root", "--agent", "--max-file-bytes"] {
        assert!(help.contains(flag), "{help}");
    }
}

#[test]
fn schemas_command_writes_one_file_per_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let out = filewright().arg("schemas").arg(tmp.path()).output().unwrap();
    assert!(out.status.success());
    for tool in [
        "write_file",
        "append_file",
        "read_file",
        "edit_file",
        "check_files",
        "claim_files",
        "list_artifacts",
    ] {
        let text = std::fs::read_to_string(tmp.path().join(format!("{tool}.json"))).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["name"], tool);
        assert!(json["inputSchema"].is_object() && json["outputSchema"].is_object());
    }
}

#[test]
fn a_read_only_state_directory_is_a_clear_startup_error() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let (root, state) = (base.path().join("root"), base.path().join("state"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    for dir in [base.path(), root.as_path()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores permissions: run the server as nobody then.
    let is_root =
        std::process::Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let mut command = if is_root {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_filewright")]);
        c
    } else {
        std::process::Command::new(env!("CARGO_BIN_EXE_filewright"))
    };
    let out = command
        .arg("--root")
        .arg(&root)
        .arg("--state-dir")
        .arg(&state)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("is not writable") && stderr.contains("--state-dir"), "{stderr}");
}
