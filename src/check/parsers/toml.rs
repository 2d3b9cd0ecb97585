//! TOML by toml_edit, the parser behind Cargo's own manifest editing.

use std::str::FromStr;

use super::{Failure, Parsed, hash_comments_end, sentence};

/// The first syntax error of `text`, None when it parses.
///
/// Duplicate keys and tables are errors too: the TOML specification calls such a
/// document invalid, and every reader rejects it.
pub(crate) fn parse(text: &str) -> Parsed {
    Parsed::whole(first_failure(text))
}

/// The first problem of `text`, None when it parses.
fn first_failure(text: &str) -> Option<Failure> {
    let error = toml_edit::DocumentMut::from_str(text).err()?;
    let at = error.span().map_or(text.len(), |span| span.start).min(text.len());
    let message = sentence(error.message().trim().lines().next().unwrap_or("invalid TOML"));
    Some(Failure::new(at, at >= hash_comments_end(text), message))
}

/// What a `Cargo.toml` says about the edition of the crate it describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManifestEdition {
    /// A package in this edition (2015 when `edition` is not given, as Cargo reads it).
    Package(super::rust::RustEdition),
    /// A package whose edition is its workspace's (`edition.workspace = true`): read
    /// `[workspace.package]` in the workspace's manifest.
    FromWorkspace,
    /// No `[package]`: a workspace's own manifest, whose `[workspace.package]` edition, if
    /// any, is given for its members.
    Workspace(Option<super::rust::RustEdition>),
    /// Not a manifest that can be read (or an edition Cargo would refuse): the check keeps
    /// its default.
    Unknown,
}

/// The edition a `Cargo.toml` gives its crate.
pub fn rust_edition_of_manifest(text: &str) -> ManifestEdition {
    use super::rust::RustEdition;
    let Ok(doc) = toml_edit::DocumentMut::from_str(text) else { return ManifestEdition::Unknown };
    let named = |item: Option<&toml_edit::Item>| item.and_then(|i| i.as_str()).and_then(RustEdition::named);
    match doc.get("package") {
        Some(package) => match package.get("edition") {
            None => ManifestEdition::Package(RustEdition::E2015),
            Some(edition) if edition.get("workspace").and_then(|w| w.as_bool()) == Some(true) => {
                ManifestEdition::FromWorkspace
            }
            Some(edition) => named(Some(edition)).map_or(ManifestEdition::Unknown, ManifestEdition::Package),
        },
        None => ManifestEdition::Workspace(named(
            doc.get("workspace").and_then(|w| w.get("package")).and_then(|p| p.get("edition")),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::RustEdition;

    #[test]
    fn a_manifest_gives_its_edition_and_2015_when_it_names_none() {
        let of = rust_edition_of_manifest;
        assert_eq!(
            of("[package]\nname = \"a\"\nedition = \"2018\"\n"),
            ManifestEdition::Package(RustEdition::E2018)
        );
        assert_eq!(of("[package]\nname = \"a\"\n"), ManifestEdition::Package(RustEdition::E2015));
        assert_eq!(of("[package]\nedition.workspace = true\n"), ManifestEdition::FromWorkspace);
        assert_eq!(
            of("[workspace]\nmembers = [\"a\"]\n[workspace.package]\nedition = \"2024\"\n"),
            ManifestEdition::Workspace(Some(RustEdition::E2024))
        );
        assert_eq!(of("[workspace]\n"), ManifestEdition::Workspace(None));
        assert_eq!(of("[package\n"), ManifestEdition::Unknown);
        assert_eq!(of("[package]\nedition = \"2077\"\n"), ManifestEdition::Unknown);
    }

    #[test]
    fn valid_toml_parses() {
        assert_eq!(first_failure("[package]\nname = \"a\"\n# done\n"), None);
    }

    #[test]
    fn an_open_array_or_string_at_the_end_is_unfinished() {
        for text in ["a = [1,\n2,\n", "a = \"\"\"\nline\n", "[pack", "a = "] {
            let f = first_failure(text).expect("an error");
            assert!(f.at_end, "{text:?}: {f:?}");
        }
    }

    #[test]
    fn a_bad_line_mid_file_is_broken() {
        let f = first_failure("a = 1\nb = = 2\nc = 3\n").expect("an error");
        assert!(!f.at_end, "{f:?}");
    }
}
