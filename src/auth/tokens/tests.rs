use super::*;

const ALICE: &str = "alice-token-0123456789";
const BOB: &str = "bob-token-abcdefghijkl";

fn file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// A token file that checks for changes on every call, so that a test need not wait.
fn open(path: &Path, server: Profile) -> Result<TokenFile, String> {
    TokenFile::open(path, server).map(|mut tokens| {
        tokens.recheck_every = Duration::ZERO;
        tokens
    })
}

/// Replaces the file's contents the way an editor that saves in place would.
fn rewrite(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn each_token_names_its_agent_and_profile_and_the_line_it_is_on() {
    let (_dir, path) = file(&format!("# who may call\n\n{ALICE} alice readonly\n  {BOB}\tbob\n"));
    let tokens = open(&path, Profile::Coding).unwrap();
    let alice = tokens.authenticate(ALICE).unwrap();
    assert_eq!(
        alice,
        Principal { agent: "alice".into(), profile: Profile::Readonly, via: "token file line 3".into() }
    );
    let bob = tokens.authenticate(BOB).unwrap();
    assert_eq!((bob.agent.as_str(), bob.profile), ("bob", Profile::Coding), "no PROFILE: the server's");
    assert!(matches!(tokens.authenticate("mallory-token-0000000"), Err(Denial::Invalid(_))));
    assert!(matches!(tokens.authenticate(&ALICE[..ALICE.len() - 1]), Err(Denial::Invalid(_))));
}

#[test]
fn a_line_asking_for_more_than_the_server_lists_gets_the_servers_profile() {
    let (_dir, path) = file(&format!("{ALICE} alice full\n{BOB} bob coding\n"));
    let tokens = open(&path, Profile::Readonly).unwrap();
    assert_eq!(tokens.authenticate(ALICE).unwrap().profile, Profile::Readonly);
    assert_eq!(tokens.authenticate(BOB).unwrap().profile, Profile::Readonly);
}

#[test]
fn parse_errors_name_the_line_and_the_fix_but_never_the_token() {
    let cases = [
        (format!("# ok\n{ALICE}\n"), "line 2: expected `TOKEN AGENT [PROFILE]`, found 1 fields"),
        (
            format!("{ALICE} alice coding # admin\n"),
            "line 1: expected `TOKEN AGENT [PROFILE]`, found 5 fields",
        ),
        (format!("{ALICE} alice admin\n"), "line 1: unknown profile \"admin\""),
        (format!("{ALICE} alice\n\n{ALICE} bob\n"), "line 3: the same token is already on line 1"),
        ("short-token alice\n".to_string(), "line 1: the token is shorter than 16 characters"),
        ("# nobody yet\n\n".to_string(), "no tokens: add lines of `TOKEN AGENT [PROFILE]`"),
    ];
    for (text, want) in cases {
        let (_dir, path) = file(&text);
        let error = TokenFile::open(&path, Profile::Full).unwrap_err();
        assert!(error.contains(want), "{error:?} should say {want:?}");
        assert!(!error.contains(ALICE) && !error.contains("short-token"), "{error:?} echoes a token");
    }
    let missing = TokenFile::open(Path::new("/nonexistent/tokens"), Profile::Full).unwrap_err();
    assert!(missing.contains("cannot read the token file"), "{missing}");
}

#[test]
fn no_token_or_digest_reaches_debug_output() {
    let (_dir, path) = file(&format!("{ALICE} alice\n"));
    let tokens = open(&path, Profile::Full).unwrap();
    let entries = format!("{:?}", tokens.state.lock().unwrap().entries);
    let shown = format!("{tokens:?} {entries}");
    assert!(shown.contains("1 tokens") && shown.contains("alice"), "{shown}");
    let digest: String = Sha256::digest(ALICE.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert!(!shown.contains(ALICE) && !shown.contains("digest") && !shown.contains(&digest[..8]), "{shown}");
}

#[test]
fn every_entry_is_compared_even_when_the_first_matches() {
    let entries: Vec<Entry> =
        parse(&format!("{ALICE} alice\n{BOB} bob\nthird-token-0123456789 carol\n"), Profile::Full).unwrap();
    let presented: [u8; 32] = Sha256::digest(ALICE.as_bytes()).into();
    let mut compared = 0;
    let hit = find_by(&entries, |entry| {
        compared += 1;
        entry.digest[..].ct_eq(&presented[..])
    });
    assert_eq!(hit.map(|e| e.agent.as_str()), Some("alice"));
    assert_eq!(compared, entries.len(), "the loop stopped at the match: its time says which entry matched");
    let last: [u8; 32] = Sha256::digest(b"third-token-0123456789").into();
    assert_eq!(find(&entries, &last).map(|e| e.agent.as_str()), Some("carol"));
    assert!(find(&entries, &[0; 32]).is_none());
}

#[test]
fn a_removed_line_is_revoked_without_a_restart() {
    let (_dir, path) = file(&format!("{ALICE} alice\n{BOB} bob\n"));
    let tokens = open(&path, Profile::Full).unwrap();
    assert!(tokens.authenticate(BOB).is_ok());
    rewrite(&path, &format!("{ALICE} alice\n"));
    assert!(matches!(tokens.authenticate(BOB), Err(Denial::Invalid(_))), "bob's token still works");
    assert_eq!(tokens.authenticate(ALICE).unwrap().via, "token file line 1");
    // And a line added is accepted, also through an editor's save by rename.
    let next = path.with_extension("new");
    std::fs::write(&next, format!("{BOB} bob readonly\n{ALICE} alice\n")).unwrap();
    std::fs::rename(&next, &path).unwrap();
    assert_eq!(tokens.authenticate(BOB).unwrap().profile, Profile::Readonly);
    assert_eq!(tokens.authenticate(ALICE).unwrap().via, "token file line 2");
}

#[test]
fn a_rewrite_that_does_not_parse_refuses_every_token_until_fixed() {
    let (_dir, path) = file(&format!("{ALICE} alice\n{BOB} bob\n"));
    let tokens = open(&path, Profile::Full).unwrap();
    rewrite(&path, &format!("{ALICE} alice\n{BOB} bob sudo\n"));
    for token in [ALICE, BOB] {
        let Err(Denial::Invalid(reason)) = tokens.authenticate(token) else {
            panic!("the old tokens were kept")
        };
        assert!(reason.contains("token file is invalid"), "{reason}");
    }
    std::fs::remove_file(&path).unwrap();
    assert!(
        matches!(tokens.authenticate(ALICE), Err(Denial::Invalid(_))),
        "a deleted file still lets tokens in"
    );
    rewrite(&path, &format!("{ALICE} alice\n"));
    assert_eq!(tokens.authenticate(ALICE).unwrap().agent, "alice");
}

#[test]
fn a_file_modified_long_ago_is_not_re_read_while_its_stamp_holds() {
    let (_dir, path) = file(&format!("{ALICE} alice\n"));
    let old = SystemTime::now() - Duration::from_secs(60);
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(old).unwrap();
    let tokens = open(&path, Profile::Full).unwrap();
    let stamp = tokens.state.lock().unwrap().stamp.unwrap();
    assert!(!stamp.is_racy());
    // Swap the entries behind the file's back: an unchanged stamp must not cost a re-read.
    tokens.state.lock().unwrap().entries = Ok(Vec::new());
    assert!(tokens.authenticate(ALICE).is_err(), "the file was re-read though its stamp did not change");
}
