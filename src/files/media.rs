//! Images a model can look at: which kind a file holds, told from its first bytes (never from
//! its name), and its size in pixels, read from its headers alone.
//!
//! A file named `logo.png` that holds a JPEG is a JPEG: a client shows an image by the MIME
//! type it is given, and a wrong one makes it fail to decode. The pixel size comes from the
//! header each format puts first (PNG's `IHDR`, GIF's logical screen, JPEG's start-of-frame
//! segment, WebP's `VP8 `/`VP8L`/`VP8X` chunk); nothing is decoded, so no image crate is needed
//! and a damaged image costs nothing: its size is simply unknown.

use schemars::JsonSchema;
use serde::Serialize;

/// An image format a model can be shown (what MCP clients and model APIs accept).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub enum ImageKind {
    /// `image/png`.
    #[serde(rename = "image/png")]
    Png,
    /// `image/jpeg`.
    #[serde(rename = "image/jpeg")]
    Jpeg,
    /// `image/gif`.
    #[serde(rename = "image/gif")]
    Gif,
    /// `image/webp`.
    #[serde(rename = "image/webp")]
    Webp,
}

impl ImageKind {
    /// Every kind, for messages that list what is accepted.
    pub const ALL: [ImageKind; 4] = [ImageKind::Png, ImageKind::Jpeg, ImageKind::Gif, ImageKind::Webp];

    /// The MIME type, as on the wire.
    pub fn mime_type(self) -> &'static str {
        match self {
            ImageKind::Png => "image/png",
            ImageKind::Jpeg => "image/jpeg",
            ImageKind::Gif => "image/gif",
            ImageKind::Webp => "image/webp",
        }
    }

    /// The format's common name (`PNG`).
    pub fn name(self) -> &'static str {
        match self {
            ImageKind::Png => "PNG",
            ImageKind::Jpeg => "JPEG",
            ImageKind::Gif => "GIF",
            ImageKind::Webp => "WebP",
        }
    }

    /// Whether a file named `path` is expected to hold this kind, by its extension (for the
    /// warning about a misnamed file). An unknown extension expects nothing.
    pub fn named_otherwise(self, path: &str) -> bool {
        let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
        let named = match extension.as_str() {
            "png" | "apng" => ImageKind::Png,
            "jpg" | "jpeg" | "jpe" | "jfif" => ImageKind::Jpeg,
            "gif" => ImageKind::Gif,
            "webp" => ImageKind::Webp,
            _ => return false,
        };
        named != self
    }
}

/// The image format `bytes` hold, by their signature; None for anything else.
pub fn sniff(bytes: &[u8]) -> Option<ImageKind> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(ImageKind::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(ImageKind::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(ImageKind::Gif)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(ImageKind::Webp)
    } else {
        None
    }
}

/// What a file that is not one of [`ImageKind`] holds, when its signature says so: a few
/// formats agents meet in a project, named so that an error can say what to do instead. None
/// for anything else.
pub fn other_format(bytes: &[u8]) -> Option<&'static str> {
    let starts = |prefix: &[u8]| bytes.starts_with(prefix);
    let ftyp = bytes.get(4..8) == Some(b"ftyp");
    if starts(b"%PDF-") {
        Some("a PDF document")
    } else if starts(b"PK\x03\x04") || starts(b"PK\x05\x06") {
        Some("a ZIP archive (or a format built on one: docx, xlsx, jar...)")
    } else if starts(&[0x1F, 0x8B]) {
        Some("gzip-compressed data")
    } else if starts(b"BM") && bytes.len() >= 26 && bytes.get(6..10) == Some(&[0, 0, 0, 0]) {
        Some("a BMP image, which models are not sent: convert it to PNG")
    } else if starts(b"II*\0") || starts(b"MM\0*") {
        Some("a TIFF image, which models are not sent: convert it to PNG")
    } else if starts(&[0, 0, 1, 0]) {
        Some("an ICO icon, which models are not sent: convert it to PNG")
    } else if ftyp && matches!(bytes.get(8..12), Some(b"avif" | b"avis")) {
        Some("an AVIF image, which models are not sent: convert it to PNG")
    } else if ftyp && matches!(bytes.get(8..12), Some(b"heic" | b"heix" | b"mif1")) {
        Some("a HEIC image, which models are not sent: convert it to PNG or JPEG")
    } else {
        None
    }
}

/// Width and height in pixels of an image of `kind`, read from its header; None when the
/// header is cut short or damaged (or says 0).
pub fn pixel_size(bytes: &[u8], kind: ImageKind) -> Option<(u32, u32)> {
    let size = match kind {
        ImageKind::Png => png_size(bytes),
        ImageKind::Jpeg => jpeg_size(bytes),
        ImageKind::Gif => Some((u32::from(le16(bytes, 6)?), u32::from(le16(bytes, 8)?))),
        ImageKind::Webp => webp_size(bytes),
    }?;
    (size.0 > 0 && size.1 > 0).then_some(size)
}

/// The `IHDR` chunk, which the format requires first: width and height, big-endian.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    (bytes.get(12..16)? == b"IHDR").then_some(())?;
    Some((be32(bytes, 16)?, be32(bytes, 20)?))
}

/// The first start-of-frame segment (SOF0 to SOF15, less the three markers in that range that
/// are not frames), found by walking the segments from the start.
fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    loop {
        // Each segment starts with 0xFF, which may be repeated as fill.
        (*bytes.get(at)? == 0xFF).then_some(())?;
        while *bytes.get(at)? == 0xFF {
            at += 1;
        }
        let marker = *bytes.get(at)?;
        match marker {
            // Markers without a length: start of image, restarts, TEM.
            0xD8 | 0xD0..=0xD7 | 0x01 => {
                at += 1;
                continue;
            }
            // End of image, or the scan started with no frame before it.
            0xD9 | 0xDA => return None,
            _ => {}
        }
        let length = usize::from(be16(bytes, at + 1)?);
        if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            // Length, sample precision, height, width.
            let height = be16(bytes, at + 4)?;
            let width = be16(bytes, at + 6)?;
            return Some((u32::from(width), u32::from(height)));
        }
        if length < 2 {
            return None;
        }
        at += 1 + length;
    }
}

/// The first chunk after `RIFF....WEBP`: lossy (`VP8 `), lossless (`VP8L`) or extended
/// (`VP8X`, whose canvas size is the image's).
fn webp_size(bytes: &[u8]) -> Option<(u32, u32)> {
    match bytes.get(12..16)? {
        b"VP8 " => {
            // A frame tag of 3 bytes, the start code 9d 01 2a, then 14-bit sizes.
            (bytes.get(23..26)? == [0x9D, 0x01, 0x2A]).then_some(())?;
            Some((u32::from(le16(bytes, 26)? & 0x3FFF), u32::from(le16(bytes, 28)? & 0x3FFF)))
        }
        b"VP8L" => {
            (*bytes.get(20)? == 0x2F).then_some(())?;
            let bits = u32::from_le_bytes(bytes.get(21..25)?.try_into().ok()?);
            Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        b"VP8X" => Some((le24(bytes, 24)? + 1, le24(bytes, 27)? + 1)),
        _ => None,
    }
}

fn be16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn le16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 3)?;
    Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
}

/// Image headers made by hand, for the tests.
#[cfg(test)]
pub(crate) mod samples {
    /// The start of a PNG of `width` x `height` pixels (signature and `IHDR`; nothing after
    /// it is read).
    pub fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend_from_slice(&width.to_be_bytes());
        bytes.extend_from_slice(&height.to_be_bytes());
        bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
        bytes
    }

    /// A JPEG with an APP0 segment before its baseline frame.
    pub fn jpeg(width: u16, height: u16) -> Vec<u8> {
        let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
        bytes.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        bytes.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08]);
        bytes.extend_from_slice(&height.to_be_bytes());
        bytes.extend_from_slice(&width.to_be_bytes());
        bytes.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]);
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn each_kind_is_told_by_its_signature_and_sized_from_its_header() {
        assert_eq!(sniff(&samples::png(3, 2)), Some(ImageKind::Png));
        assert_eq!(pixel_size(&samples::png(3, 2), ImageKind::Png), Some((3, 2)));
        assert_eq!(sniff(&samples::jpeg(640, 480)), Some(ImageKind::Jpeg));
        assert_eq!(pixel_size(&samples::jpeg(640, 480), ImageKind::Jpeg), Some((640, 480)));
        let gif = b"GIF89a\x0a\x00\x05\x00\xf0\x00\x00".to_vec();
        assert_eq!(sniff(&gif), Some(ImageKind::Gif));
        assert_eq!(pixel_size(&gif, ImageKind::Gif), Some((10, 5)));
    }

    #[test]
    fn each_webp_chunk_gives_its_size() {
        let riff = |chunk: &[u8], data: &[u8]| {
            let mut bytes = b"RIFF\0\0\0\0WEBP".to_vec();
            bytes.extend_from_slice(chunk);
            bytes.extend_from_slice(&(data.len() as u32).to_le_bytes());
            bytes.extend_from_slice(data);
            bytes
        };
        // Lossy: frame tag, start code, 14-bit width and height (the top bits are the scale).
        let lossy = riff(b"VP8 ", &[0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A, 0x90, 0x41, 0x2C, 0x01]);
        assert_eq!(sniff(&lossy), Some(ImageKind::Webp));
        assert_eq!(pixel_size(&lossy, ImageKind::Webp), Some((400, 300)));
        // Lossless: signature, then width-1 and height-1 in 14 bits each.
        let bits: u32 = 99 | (49 << 14);
        let mut data = vec![0x2F];
        data.extend_from_slice(&bits.to_le_bytes());
        assert_eq!(pixel_size(&riff(b"VP8L", &data), ImageKind::Webp), Some((100, 50)));
        // Extended: flags, reserved, then the canvas's width-1 and height-1 in 24 bits each.
        let data = [0x10, 0, 0, 0, 0x1F, 0x4E, 0x00, 0x0F, 0x27, 0x00];
        assert_eq!(pixel_size(&riff(b"VP8X", &data), ImageKind::Webp), Some((20000, 10000)));
    }

    #[test]
    fn a_jpeg_walks_past_fill_bytes_and_tables_to_its_progressive_frame() {
        let mut bytes =
            vec![0xFF, 0xD8, 0xFF, 0xFF, 0xC4, 0x00, 0x04, 0xAA, 0xBB, 0xFF, 0xC2, 0x00, 0x0B, 0x08];
        bytes.extend_from_slice(&[0x01, 0x00, 0x02, 0x00]);
        assert_eq!(pixel_size(&bytes, ImageKind::Jpeg), Some((512, 256)));
    }

    #[test]
    fn the_name_does_not_decide_the_kind() {
        assert_eq!(sniff(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), None);
        assert_eq!(sniff(b"RIFF\0\0\0\0WAVEfmt "), None, "a RIFF that is not WebP");
        assert!(ImageKind::Jpeg.named_otherwise("shot.png"));
        assert!(!ImageKind::Png.named_otherwise("shot.PNG"));
        assert!(!ImageKind::Png.named_otherwise("shot"), "no extension expects nothing");
        assert!(!ImageKind::Gif.named_otherwise("notes.txt"));
    }

    #[test]
    fn other_formats_are_named_and_images_are_not_among_them() {
        assert_eq!(other_format(b"%PDF-1.7\n"), Some("a PDF document"));
        assert!(other_format(b"PK\x03\x04\x14\0").unwrap().starts_with("a ZIP archive"));
        assert!(other_format(b"\0\0\0\x1cftypavif\0\0").unwrap().starts_with("an AVIF image"));
        assert!(other_format(b"hello").is_none());
        assert!(other_format(&samples::png(1, 1)).is_none());
    }

    #[test]
    fn a_header_cut_short_has_no_size() {
        for kind in ImageKind::ALL {
            assert_eq!(pixel_size(&[], kind), None);
        }
        assert_eq!(pixel_size(&samples::png(3, 2)[..20], ImageKind::Png), None);
        assert_eq!(pixel_size(&samples::png(0, 2), ImageKind::Png), None, "a zero size is damage");
        assert_eq!(
            pixel_size(&[0xFF, 0xD8, 0xFF, 0xDA, 0, 2], ImageKind::Jpeg),
            None,
            "a scan before a frame"
        );
        assert_eq!(pixel_size(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0], ImageKind::Jpeg), None, "a length under 2");
    }

    proptest! {
        /// Any bytes after a signature: an answer or None, never a panic or a hang.
        #[test]
        fn any_bytes_are_sized_or_not_without_a_panic(
            kind in proptest::sample::select(ImageKind::ALL.to_vec()),
            tail in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let mut bytes = match kind {
                ImageKind::Png => b"\x89PNG\r\n\x1a\n".to_vec(),
                ImageKind::Jpeg => vec![0xFF, 0xD8, 0xFF],
                ImageKind::Gif => b"GIF89a".to_vec(),
                ImageKind::Webp => b"RIFF\0\0\0\0WEBP".to_vec(),
            };
            bytes.extend_from_slice(&tail);
            prop_assert_eq!(sniff(&bytes), Some(kind));
            if let Some((w, h)) = pixel_size(&bytes, kind) {
                prop_assert!(w > 0 && h > 0);
            }
        }

        /// A PNG and a JPEG report the size their header was made with.
        #[test]
        fn the_size_read_is_the_size_written(w in 1u16.., h in 1u16..) {
            prop_assert_eq!(pixel_size(&samples::png(w.into(), h.into()), ImageKind::Png), Some((w.into(), h.into())));
            prop_assert_eq!(pixel_size(&samples::jpeg(w, h), ImageKind::Jpeg), Some((w.into(), h.into())));
        }
    }
}
