//! `read_media_file`: an image for the model to look at (a screenshot, a diagram, an icon), as
//! MCP image content beside its facts.
//!
//! The type is told from the bytes ([`media::sniff`]), never from the name, since a client
//! decodes by the MIME type it is given. Images past [`MAX_IMAGE_BYTES`] are refused before
//! they are read: model APIs take about 5 MB per image, and base64 makes the message a third
//! larger. A text file or another binary is an error that names the tool that reads it.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Session, required};
use crate::error::{Error, Result};
use crate::files::media::{self, ImageKind};
use crate::files::{encoding, sha256_hex};
use crate::workspace::FileKind;

/// The largest image sent (4 MiB: under the 5 MB a model API takes per image).
pub const MAX_IMAGE_BYTES: u64 = 4 * 1024 * 1024;

/// Result of `read_media_file`: the facts go in `structuredContent`, the image itself in the
/// result's content.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MediaOutcome {
    /// Root-relative path read.
    pub path: String,
    /// The image's MIME type, told from its bytes.
    pub mime_type: ImageKind,
    /// Size in bytes.
    pub size: u64,
    /// Width in pixels, from the header; absent when the header does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub width: Option<u32>,
    /// Height in pixels, from the header; absent when the header does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub height: Option<u32>,
    /// Hex sha256 of the file.
    pub sha256: String,
    /// Things the caller should know (a name whose extension says another type).
    pub warnings: Vec<String>,
    /// The image's bytes, sent as image content (not in `structuredContent`).
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

impl Session {
    /// `read_media_file`: the PNG, JPEG, GIF or WebP image at `path`.
    pub fn read_media_file(&self, path: Option<&str>) -> Result<MediaOutcome> {
        let path = self.target(required(path, "read_media_file", "path")?)?;
        let key = path.display();
        let info = self.ws.stat(&path)?.ok_or_else(|| Error::NotFound { path: key.clone() })?;
        if info.kind == FileKind::File && info.size > MAX_IMAGE_BYTES {
            return Err(Error::ImageTooLarge { path: key, size: info.size, limit: MAX_IMAGE_BYTES });
        }
        self.settle(&path);
        let bytes =
            self.ws.read(&path, MAX_IMAGE_BYTES.min(self.config.max_file_bytes)).map_err(|e| match e {
                // It grew past the limit since it was looked at.
                Error::TooLargeToRead { size, .. } if size > MAX_IMAGE_BYTES => {
                    Error::ImageTooLarge { path: key.clone(), size, limit: MAX_IMAGE_BYTES }
                }
                e => e,
            })?;
        let Some(kind) = media::sniff(&bytes) else {
            return Err(Error::NotAnImage { path: key, instead: what_instead(bytes) });
        };
        let (width, height) = media::pixel_size(&bytes, kind).unzip();
        let mut warnings = Vec::new();
        if kind.named_otherwise(&key) {
            warnings.push(format!("{key} holds a {} image, whatever its name says", kind.name()));
        }
        Ok(MediaOutcome {
            path: key,
            mime_type: kind,
            size: bytes.len() as u64,
            width,
            height,
            sha256: sha256_hex(&bytes),
            warnings,
            bytes,
        })
    }
}

/// What a file that is not an image holds, and the tool for it.
fn what_instead(bytes: Vec<u8>) -> String {
    if let Some(format) = media::other_format(&bytes) {
        return format!("it holds {format}. get_file_info tells its size and sha256.");
    }
    match encoding::decode(bytes) {
        Ok(decoded) if is_svg(&decoded.text) => {
            "it is an SVG image, which is text: read_file shows its source.".to_string()
        }
        Ok(_) => "it is a text file: read it with read_file.".to_string(),
        Err(_) => "it holds binary data of a kind filewright does not show. get_file_info tells its size \
                   and sha256."
            .to_string(),
    }
}

/// Whether `text` is an SVG document: its first element (after an XML declaration, comments
/// or a doctype) is `<svg`.
fn is_svg(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    while let Some(after) = rest.strip_prefix("<?").or_else(|| rest.strip_prefix("<!")) {
        match after.find('>') {
            Some(end) => rest = after[end + 1..].trim_start(),
            None => return false,
        }
    }
    rest.starts_with("<svg")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::tests::session;

    #[test]
    fn an_image_is_returned_with_its_type_from_its_bytes_and_its_size() {
        let (t, s) = session();
        let jpeg = media::samples::jpeg(640, 480);
        std::fs::write(t.path().join("root/shot.png"), &jpeg).unwrap();
        let out = s.read_media_file(Some("shot.png")).unwrap();
        assert_eq!((out.mime_type, out.width, out.height), (ImageKind::Jpeg, Some(640), Some(480)));
        assert_eq!((out.size, &out.bytes), (jpeg.len() as u64, &jpeg));
        assert_eq!(out.sha256, sha256_hex(&jpeg));
        assert_eq!(out.warnings, ["shot.png holds a JPEG image, whatever its name says"]);
    }

    #[test]
    fn text_other_binaries_and_large_images_are_errors_that_say_what_to_do() {
        let (t, s) = session();
        let root = t.path().join("root");
        std::fs::write(root.join("a.txt"), "hello\n").unwrap();
        std::fs::write(root.join("logo.svg"), "<?xml version=\"1.0\"?>\n<!-- logo -->\n<svg/>").unwrap();
        std::fs::write(root.join("doc.pdf"), b"%PDF-1.7\n\0").unwrap();
        std::fs::write(root.join("blob.bin"), b"\0\x01\x02").unwrap();
        let mut huge = media::samples::png(4000, 4000);
        huge.resize(MAX_IMAGE_BYTES as usize + 1, 0);
        std::fs::write(root.join("huge.png"), &huge).unwrap();
        std::fs::create_dir(root.join("d")).unwrap();
        for (path, expected) in [
            ("a.txt", "it is a text file: read it with read_file"),
            ("logo.svg", "it is an SVG image, which is text: read_file shows its source"),
            ("doc.pdf", "it holds a PDF document"),
            ("blob.bin", "binary data of a kind filewright does not show"),
            ("huge.png", "over the 4194304 bytes (4 MiB)"),
            ("d", "d is a directory"),
            ("nope.png", "nope.png does not exist"),
            ("../x.png", "outside the sandbox root"),
        ] {
            let err = s.read_media_file(Some(path)).unwrap_err().to_string();
            assert!(err.contains(expected), "{path}: {err}");
        }
    }

    #[test]
    fn svg_is_told_after_declarations_and_comments() {
        assert!(is_svg("\u{feff}<?xml version=\"1.0\"?><!DOCTYPE svg><svg width=\"1\"/>"));
        assert!(!is_svg("<html><svg/></html>"));
        assert!(!is_svg("no markup"));
    }
}
