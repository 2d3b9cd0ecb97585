//! One integration-test binary: every module spawns the real `filewright` binary and speaks MCP
//! to it over stdio through rmcp's client.

mod util;

mod anchors;
mod append;
mod budget;
mod check_cache;
mod check_files;
mod claims;
mod cleanup;
mod cli;
mod copy;
#[cfg(target_os = "linux")]
mod descriptors;
mod directories;
mod edit;
mod encoding;
mod find;
mod framing;
mod guidance;
mod hooks;
mod http;
mod http_auth;
mod http_guard;
mod http_oauth;
mod http_util;
mod info;
mod kills;
mod links;
mod list;
mod media;
mod moves;
mod names_python;
mod names_script;
mod notebook_check;
mod outline;
mod patch;
mod paths;
mod portable;
mod postgres;
mod profiles;
mod protocol;
mod read;
mod read_many;
mod references;
mod roots;
mod sandbox;
mod scenarios;
mod schemas;
mod search;
mod stub_exemptions;
mod syntax;
mod truth;
mod undo;
mod write;
