//! `read_media_file` over stdio: an image as MCP image content (base64, the MIME type from its
//! bytes) beside its facts in `structuredContent`, and an error naming the right tool for
//! anything else.

use base64::Engine;
use serde_json::json;

use crate::util::{Root, Server, png};

/// A GIF of `width` x `height` pixels: its header and logical screen descriptor.
fn gif(width: u16, height: u16) -> Vec<u8> {
    let mut bytes = b"GIF89a".to_vec();
    bytes.extend_from_slice(&width.to_le_bytes());
    bytes.extend_from_slice(&height.to_le_bytes());
    bytes.extend_from_slice(&[0xF0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x3B]);
    bytes
}

/// A lossless WebP of `width` x `height` pixels.
fn webp(width: u32, height: u32) -> Vec<u8> {
    let bits = (width - 1) | ((height - 1) << 14);
    let mut data = vec![0x2F];
    data.extend_from_slice(&bits.to_le_bytes());
    let mut bytes = b"RIFF".to_vec();
    bytes.extend_from_slice(&(4 + 8 + data.len() as u32).to_le_bytes());
    bytes.extend_from_slice(b"WEBPVP8L");
    bytes.extend_from_slice(&(data.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&data);
    bytes
}

/// A baseline JPEG's start: SOI, an APP0 segment, then the frame header.
fn jpeg(width: u16, height: u16) -> Vec<u8> {
    let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
    bytes.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    bytes.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08]);
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]);
    bytes
}

#[tokio::test]
async fn each_image_kind_comes_back_as_image_content_with_its_facts() {
    let cases = [
        ("shot.png", png(800, 600), "image/png", 800, 600),
        ("photo.jpeg", jpeg(1024, 768), "image/jpeg", 1024, 768),
        ("anim.gif", gif(32, 16), "image/gif", 32, 16),
        ("icon.webp", webp(64, 48), "image/webp", 64, 48),
    ];
    let mut root = Root::new();
    for (name, bytes, ..) in &cases {
        root = root.file(name, bytes);
    }
    let server = Server::spawn(&root).await;
    for (name, bytes, mime, width, height) in cases {
        let reply = server.call("read_media_file", json!({"path": name})).await.ok();
        let images: Vec<_> = reply.0.content.iter().filter_map(|c| c.as_image()).collect();
        assert_eq!(images.len(), 1, "{name}: one image block");
        assert_eq!(images[0].mime_type, mime, "{name}");
        let decoded = base64::engine::general_purpose::STANDARD.decode(&images[0].data).unwrap();
        assert_eq!(decoded, bytes, "{name}: the bytes, exactly");
        let j = reply.json();
        assert_eq!(j["path"], name);
        assert_eq!(j["mime_type"], mime);
        assert_eq!(
            (j["size"].as_u64(), j["width"].as_u64(), j["height"].as_u64()),
            (Some(bytes.len() as u64), Some(width), Some(height))
        );
        assert_eq!(j["warnings"], json!([]));
        assert!(j.get("bytes").is_none(), "the bytes are not in structuredContent");
        assert!(
            reply.text().starts_with(&format!(
                "{name}: {mime}, {width}x{height} pixels, {} bytes, sha256 ",
                bytes.len()
            )),
            "{}",
            reply.text()
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn the_mime_type_comes_from_the_bytes_not_the_name() {
    let root = Root::new().file("screenshot.png", jpeg(10, 20)).file("noext", png(3, 4));
    let server = Server::spawn(&root).await;
    let reply = server.call("read_media_file", json!({"path": "screenshot.png"})).await.ok();
    assert_eq!(reply.0.content.iter().find_map(|c| c.as_image()).unwrap().mime_type, "image/jpeg");
    assert_eq!(
        reply.json()["warnings"],
        json!(["screenshot.png holds a JPEG image, whatever its name says"])
    );
    let reply = server.call("read_media_file", json!({"path": "noext"})).await.ok();
    assert_eq!(reply.json()["mime_type"], "image/png");
    server.stop().await;
}

#[tokio::test]
async fn anything_but_an_image_is_an_error_that_names_the_tool_to_use() {
    let mut huge = png(9000, 9000);
    huge.resize(4 * 1024 * 1024 + 1, 0);
    let root = Root::new()
        .file("notes.md", "# Notes\n")
        .file("logo.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n")
        .file("doc.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        .file("data.bin", [1u8, 0, 2, 0])
        .file("huge.png", &huge)
        .file("d/x.png", png(1, 1));
    let server = Server::spawn(&root).await;
    for (path, expected) in [
        (
            "notes.md",
            "notes.md is not an image read_media_file can show (PNG, JPEG, GIF or WebP, told from its bytes): it is a text file: read it with read_file.",
        ),
        ("logo.svg", "it is an SVG image, which is text: read_file shows its source."),
        ("doc.pdf", "it holds a PDF document. get_file_info tells its size and sha256."),
        ("data.bin", "it holds binary data of a kind filewright does not show."),
        (
            "huge.png",
            "huge.png is 4194305 bytes, over the 4194304 bytes (4 MiB) an image may have to be sent to the model, so it was not read.",
        ),
        ("d", "d is a directory"),
        ("missing.png", "missing.png does not exist"),
    ] {
        let text = server.call("read_media_file", json!({"path": path})).await.err();
        assert!(text.contains(expected), "{path}: {text}");
    }
    server.stop().await;
}

#[tokio::test]
async fn nothing_outside_the_root_is_read() {
    let root = Root::new();
    std::fs::write(root.outside().join("secret.png"), png(5, 5)).unwrap();
    let outside = root.outside();
    let root = root.symlink("out", &outside).symlink("out.png", outside.join("secret.png"));
    let server = Server::spawn(&root).await;
    let abs = outside.join("secret.png").display().to_string();
    for path in ["../outside/secret.png", "out/secret.png", "out.png", abs.as_str()] {
        let reply = server.call("read_media_file", json!({"path": path})).await;
        assert!(reply.0.content.iter().all(|c| c.as_image().is_none()), "{path}");
        assert!(reply.err().contains("outside the sandbox root"), "{path}");
    }
    server.stop().await;
}
