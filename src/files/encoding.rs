//! Text in any encoding: which encoding a file's bytes are in, the text they hold, and the
//! bytes a text becomes again. The one place where filewright turns a file's bytes into text
//! and text into bytes: read, edit, append, write, search, the syntax check, the stub scan and
//! outline all go through here. The tables are the browsers': `encoding_rs` decodes and
//! encodes, and `chardetng` (Firefox's detector) guesses a legacy encoding.
//!
//! # Detection
//! In this order:
//! 1. a byte order mark: UTF-8 (`EF BB BF`), UTF-16LE (`FF FE`) or UTF-16BE (`FE FF`);
//! 2. otherwise a NUL byte anywhere means binary, as git and ripgrep decide (so UTF-16
//!    without a BOM is binary too);
//! 3. valid UTF-8 (plain ASCII included) is UTF-8 (so is 7-bit text such as ISO-2022-JP, which
//!    is then kept byte for byte as ASCII);
//! 4. anything else is legacy text whose encoding chardetng guesses from the content:
//!    windows-1252 (which also decodes Latin-1), Shift_JIS, EUC-JP, GBK (GB18030 when only
//!    that encodes the bytes back), Big5, EUC-KR, KOI8-U (the superset it names for KOI8-R
//!    text), windows-1251, ISO-8859-2 and the like.
//!
//! chardetng judges by the statistics of the non-ASCII bytes: it needs enough of them. A
//! file of a sentence or more of text is detected as its language says, but a file with only
//! a few non-ASCII bytes (one accented word, a short name) may be taken for another legacy
//! encoding that spells the same bytes as other letters. Such a file reads with the wrong
//! letters, and is written back byte for byte all the same wherever it was not changed.
//!
//! # Byte-exactness
//! A BOM is part of the text, as U+FEFF at its start (as for UTF-8 before): an edit keeps it
//! there, and encoding the text gives the same BOM back. A legacy decode is verified: the text
//! must encode to the very bytes it came from. When it does not (malformed bytes, or a
//! character the encoding can spell two ways), the text is still shown, but
//! [`Decoded::writable`] refuses to change the file, rather than risk a byte.

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{EncoderResult, GB18030, GBK, UTF_8, UTF_16BE, UTF_16LE};

use crate::error::{Error, Result};

/// A BOM in a text: U+FEFF at its start.
const BOM: char = '\u{feff}';

/// An encoding a text file is stored in, and whether it starts with a byte order mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoding {
    whatwg: &'static encoding_rs::Encoding,
    bom: bool,
}

impl Encoding {
    /// UTF-8 without a BOM: a new file's encoding.
    pub const UTF_8: Encoding = Encoding { whatwg: &encoding_rs::UTF_8_INIT, bom: false };

    /// The encoding's name as the WHATWG Encoding Standard spells it: `"UTF-8"`,
    /// `"UTF-16LE"`, `"Shift_JIS"`, `"windows-1252"`.
    pub fn name(self) -> &'static str {
        self.whatwg.name()
    }

    /// The file starts with a byte order mark (always, in UTF-16).
    pub fn bom(self) -> bool {
        self.bom
    }

    /// A text's own bytes are its bytes in this encoding: UTF-8, with a BOM or without.
    pub fn is_utf8(self) -> bool {
        self.whatwg == UTF_8
    }

    /// Plain UTF-8, without a BOM: what a result need not mention.
    pub fn is_plain_utf8(self) -> bool {
        self.is_utf8() && !self.bom
    }

    /// The name, with `" with a BOM"` when the file has one: `"UTF-16LE with a BOM"`.
    pub fn describe(self) -> String {
        match self.bom {
            true => format!("{} with a BOM", self.name()),
            false => self.name().to_owned(),
        }
    }

    /// The encoding a WHATWG label names (`"utf-8"`, `"utf-16le"`, `"shift_jis"`, `"latin1"`,
    /// `"gbk"`, `"koi8-r"`...; case and surrounding spaces do not matter). UTF-16 is written
    /// with a BOM. An unknown label is an error that lists some known ones.
    pub fn for_label(label: &str) -> Result<Encoding> {
        match encoding_rs::Encoding::for_label_no_replacement(label.trim().as_bytes()) {
            Some(whatwg) => Ok(Encoding { whatwg, bom: whatwg == UTF_16LE || whatwg == UTF_16BE }),
            None => Err(Error::InvalidArgument {
                name: "encoding",
                reason: format!(
                    "{label:?} is not an encoding filewright knows; name one by its WHATWG label, such as \
                     \"utf-8\", \"utf-16le\", \"utf-16be\", \"shift_jis\", \"euc-jp\", \"gb18030\", \"gbk\", \
                     \"big5\", \"euc-kr\", \"koi8-r\", \"windows-1251\" or \"windows-1252\" (also \"latin1\"), \
                     or omit it to keep the file's own encoding (UTF-8 for a new file)"
                ),
            }),
        }
    }

    /// `text` as a whole file in this encoding holds it: with the BOM (U+FEFF) first when the
    /// encoding has one and `text` lacks it; without one in a legacy encoding, which cannot
    /// spell it. Otherwise `text` itself (a UTF-8 text may start with a BOM of its own).
    pub fn whole_text(self, text: &str) -> Cow<'_, str> {
        match text.strip_prefix(BOM) {
            None if self.bom => Cow::Owned(format!("{BOM}{text}")),
            Some(rest) if !self.bom && !self.is_utf8() => Cow::Borrowed(rest),
            _ => Cow::Borrowed(text),
        }
    }

    fn is_utf16(self) -> bool {
        self.whatwg == UTF_16LE || self.whatwg == UTF_16BE
    }
}

/// A file's text, decoded in its encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text; starts with U+FEFF when the file starts with a BOM.
    pub text: String,
    /// The file's encoding.
    pub encoding: Encoding,
    /// The file's bytes, when they are not `text`'s own (any encoding but valid UTF-8).
    pub other_bytes: Option<Vec<u8>>,
    /// The first byte that does not come back unchanged when the text is encoded again
    /// (malformed there, or spelling a character its encoding can spell two ways); None when
    /// every byte does. The text then holds U+FFFD where the bytes were malformed.
    pub inexact_at: Option<usize>,
}

impl Decoded {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.other_bytes.as_deref().unwrap_or(self.text.as_bytes())
    }

    /// Refuses a change of this file when its text does not encode back to its bytes
    /// ([`Decoded::inexact_at`]): writing it could change bytes the change did not touch.
    pub fn writable(&self, path: &str) -> Result<()> {
        match self.inexact_at {
            None => Ok(()),
            Some(offset) => {
                Err(Error::Inexact { path: path.to_owned(), encoding: self.encoding.name(), offset })
            }
        }
    }
}

/// A file that is not text: it holds a NUL byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    /// Where the first NUL is (in UTF-16: the first U+0000).
    pub nul_at: usize,
    /// The file's bytes, given back.
    pub bytes: Vec<u8>,
}

impl Binary {
    /// The error of a tool that needs text, for the file at `path`.
    pub fn error(&self, path: &str) -> Error {
        Error::Binary { path: path.to_owned(), detail: format!("NUL byte at offset {}", self.nul_at) }
    }
}

/// The text of a file's `bytes`, in the encoding detected (see the module's docs); a binary
/// file is given back. Valid UTF-8 is not copied.
pub fn decode(bytes: Vec<u8>) -> std::result::Result<Decoded, Binary> {
    if let Some(encoding) = utf16_bom(&bytes) {
        let (text, inexact_at) = decode_checked(&bytes, encoding.whatwg);
        if let Some(nul_at) = nul_in_utf16(&text) {
            return Err(Binary { nul_at, bytes });
        }
        return Ok(Decoded { text, encoding, other_bytes: Some(bytes), inexact_at });
    }
    if let Some(nul_at) = memchr::memchr(0, &bytes) {
        return Err(Binary { nul_at, bytes });
    }
    let bom = bytes.starts_with(b"\xEF\xBB\xBF");
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => {
            return Ok(Decoded {
                text,
                encoding: Encoding { whatwg: UTF_8, bom },
                other_bytes: None,
                inexact_at: None,
            });
        }
        Err(not_utf8) => not_utf8.into_bytes(),
    };
    let (encoding, text, inexact_at) = if bom {
        // The BOM says UTF-8: broken UTF-8 is shown as such, not guessed at.
        let valid = std::str::from_utf8(&bytes).map_err(|e| e.valid_up_to()).err();
        (Encoding { whatwg: UTF_8, bom }, String::from_utf8_lossy(&bytes).into_owned(), valid)
    } else {
        decode_legacy(&bytes)
    };
    Ok(Decoded { text, encoding, other_bytes: Some(bytes), inexact_at })
}

/// The text of `bytes` to read, search or check, in the encoding detected; bytes that are
/// malformed in it show as U+FFFD. None for a binary file. Valid UTF-8 is not copied.
pub fn text_of(bytes: &[u8]) -> Option<Cow<'_, str>> {
    if let Some(encoding) = utf16_bom(bytes) {
        let text = encoding.whatwg.decode_without_bom_handling(bytes).0.into_owned();
        return nul_in_utf16(&text).is_none().then_some(Cow::Owned(text));
    }
    if memchr::memchr(0, bytes).is_some() {
        return None;
    }
    // SIMD validation: a search of a tree spends more time here than in its matcher.
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        return Some(Cow::Borrowed(text));
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Some(String::from_utf8_lossy(bytes));
    }
    // GBK and GB18030 decode alike: the guess is enough to read.
    Some(Cow::Owned(guess(bytes).decode_without_bom_handling(bytes).0.into_owned()))
}

/// Whether the start of a file shows that [`text_of`] will find the whole of it binary: a NUL
/// byte, without a UTF-16 BOM. A reader of many files can then leave the rest unread.
pub fn binary_at_start(start: &[u8]) -> bool {
    utf16_bom(start).is_none() && memchr::memchr(0, start).is_some()
}

/// `bytes` decoded in `encoding`, known already (part of a file whose encoding was
/// detected on the whole); malformed bytes show as U+FFFD.
pub fn text_in(bytes: &[u8], encoding: Encoding) -> Cow<'_, str> {
    match encoding.is_utf8() {
        true => String::from_utf8_lossy(bytes),
        false => Cow::Owned(encoding.whatwg.decode_without_bom_handling(bytes).0.into_owned()),
    }
}

/// [`text_of`], or for a binary file its bytes read as UTF-8 with U+FFFD for what is not:
/// the text the checks and the stub scan see of any file.
pub fn lossy_text(bytes: &[u8]) -> Cow<'_, str> {
    text_of(bytes).unwrap_or_else(|| String::from_utf8_lossy(bytes))
}

/// `text` in `encoding`, character for character: no BOM is added or taken away (see
/// [`Encoding::whole_text`] for a whole file). UTF-8 is the text's own bytes. A character the
/// encoding cannot hold is [`Error::Unrepresentable`], naming it and its line in `text`.
pub fn encode<'a>(path: &str, text: &'a str, encoding: Encoding) -> Result<Cow<'a, [u8]>> {
    encode_strict(text, encoding.whatwg).map_err(|(at, character)| Error::Unrepresentable {
        path: path.to_owned(),
        character,
        line: crate::lines::newlines(&text.as_bytes()[..at]) + 1,
        encoding: encoding.name(),
    })
}

/// The encoding a whole new text is written in when the call names none: the file's own
/// when it is text (its BOM kept), else UTF-8 (a new, empty or binary file). `existing` are
/// the file's bytes. A file whose text does not encode back to its bytes is refused: its
/// encoding is only a guess, and the caller should name the one to write.
pub fn kept(path: &str, existing: Option<Vec<u8>>) -> Result<Encoding> {
    match existing.filter(|bytes| !bytes.is_empty()).map(decode) {
        None | Some(Err(Binary { .. })) => Ok(Encoding::UTF_8),
        Some(Ok(decoded)) if decoded.encoding.is_utf8() || decoded.encoding.is_utf16() => {
            Ok(decoded.encoding)
        }
        Some(Ok(decoded)) => decoded.writable(path).map(|()| decoded.encoding),
    }
}

/// The encoding a BOM at the start of `bytes` names, without deciding anything else: UTF-8
/// with a BOM, UTF-16LE or UTF-16BE. None without a BOM.
pub fn bom_of(bytes: &[u8]) -> Option<Encoding> {
    match bytes {
        [0xEF, 0xBB, 0xBF, ..] => Some(Encoding { whatwg: UTF_8, bom: true }),
        _ => utf16_bom(bytes),
    }
}

fn utf16_bom(bytes: &[u8]) -> Option<Encoding> {
    match bytes {
        [0xFF, 0xFE, ..] => Some(Encoding { whatwg: UTF_16LE, bom: true }),
        [0xFE, 0xFF, ..] => Some(Encoding { whatwg: UTF_16BE, bom: true }),
        _ => None,
    }
}

/// Where the first U+0000 of a UTF-16 text is, in bytes: such a text is binary.
fn nul_in_utf16(text: &str) -> Option<usize> {
    text.find('\0').map(|at| text[..at].encode_utf16().count() * 2)
}

/// chardetng's guess for bytes that are not UTF-8.
fn guess(bytes: &[u8]) -> &'static encoding_rs::Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    detector.guess(None, Utf8Detection::Deny)
}

/// Legacy text: guessed, decoded and verified. GBK's guess becomes GB18030 when only
/// GB18030 encodes the text back (the two decode alike; GB18030 also has four-byte forms).
fn decode_legacy(bytes: &[u8]) -> (Encoding, String, Option<usize>) {
    let guessed = guess(bytes);
    let (text, inexact_at) = decode_checked(bytes, guessed);
    if inexact_at.is_some() && guessed == GBK && encode_strict(&text, GB18030).is_ok_and(|b| b == bytes) {
        return (Encoding { whatwg: GB18030, bom: false }, text, None);
    }
    (Encoding { whatwg: guessed, bom: false }, text, inexact_at)
}

/// `bytes` decoded in `encoding` as they are (a BOM stays U+FEFF), and the first byte that
/// does not come back when the text is encoded again.
fn decode_checked(bytes: &[u8], encoding: &'static encoding_rs::Encoding) -> (String, Option<usize>) {
    let (text, malformed) = encoding.decode_without_bom_handling(bytes);
    let text = text.into_owned();
    let exact = (!malformed && (encoding == UTF_16LE || encoding == UTF_16BE))
        || encode_strict(&text, encoding).is_ok_and(|again| again == bytes);
    if exact {
        return (text, None);
    }
    let again = encode_lossy(&text, encoding);
    let differs = bytes.iter().zip(again.iter()).position(|(a, b)| a != b);
    (text, Some(differs.unwrap_or(bytes.len().min(again.len()))))
}

/// `text` in `encoding`, or the byte offset in `text` of the first character it cannot hold
/// and that character.
fn encode_strict<'a>(
    text: &'a str,
    encoding: &'static encoding_rs::Encoding,
) -> std::result::Result<Cow<'a, [u8]>, (usize, char)> {
    if encoding == UTF_8 {
        return Ok(Cow::Borrowed(text.as_bytes()));
    }
    if encoding == UTF_16LE || encoding == UTF_16BE {
        let mut out = Vec::with_capacity(text.len() * 2);
        for unit in text.encode_utf16() {
            out.extend_from_slice(&if encoding == UTF_16LE {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            });
        }
        return Ok(Cow::Owned(out));
    }
    let mut encoder = encoding.new_encoder();
    let room = encoder.max_buffer_length_from_utf8_without_replacement(text.len()).unwrap_or(text.len());
    let mut out = Vec::with_capacity(room);
    let mut read = 0;
    loop {
        let (result, step) =
            encoder.encode_from_utf8_to_vec_without_replacement(&text[read..], &mut out, true);
        read += step;
        match result {
            EncoderResult::InputEmpty => return Ok(Cow::Owned(out)),
            EncoderResult::OutputFull => out.reserve(room.max(16)),
            // The character has been read.
            EncoderResult::Unmappable(c) => return Err((read - c.len_utf8(), c)),
        }
    }
}

/// `text` in `encoding` with what it cannot hold replaced (only to find where bytes differ).
fn encode_lossy(text: &str, encoding: &'static encoding_rs::Encoding) -> Vec<u8> {
    match encode_strict(text, encoding) {
        Ok(bytes) => bytes.into_owned(),
        Err(_) => encoding.encode(text).0.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sentence-length text in each language, as a file in it would hold.
    const JAPANESE: &str = "吾輩は猫である。名前はまだ無い。\r\nどこで生れたかとんと見当がつかぬ。\
        何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。\n";
    const CHINESE: &str = "中华人民共和国是工人阶级领导的、以工农联盟为基础的人民民主专政的社会主义国家。\n\
        社会主义制度是中华人民共和国的根本制度。禁止任何组织或者个人破坏社会主义制度。\n";
    const TRADITIONAL: &str = "中華民國基於三民主義，為民有民治民享之民主共和國。\n\
        中華民國之主權屬於國民全體。具有中華民國國籍者為中華民國國民。\n";
    const KOREAN: &str = "대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, \
        모든 권력은 국민으로부터 나온다.\n대한민국의 국민이 되는 요건은 법률로 정한다.\n";
    const RUSSIAN: &str = "Все люди рождаются свободными и равными в своем достоинстве и правах.\n\
        Они наделены разумом и совестью и должны поступать в отношении друг друга в духе братства.\n";
    const FRENCH: &str = "Les élèves ont étudié la leçon à l'école; ça a été très intéressant.\r\n\
        Le professeur était fâché, mais la fenêtre du château restait ouverte.\r\n";
    const GERMAN: &str = "Größere Änderungen müssen über die Straße geführt werden.\n\
        Die Brücke über den Fluss ist schön, und die Bäume blühen früh.\n";

    fn whatwg(label: &str) -> &'static encoding_rs::Encoding {
        encoding_rs::Encoding::for_label(label.as_bytes()).unwrap()
    }

    fn legacy(label: &str, text: &str) -> Vec<u8> {
        encode_strict(text, whatwg(label)).unwrap().into_owned()
    }

    #[test]
    fn each_legacy_encoding_is_detected_from_sentence_length_text_and_decodes_exactly() {
        let cases = [
            ("shift_jis", JAPANESE, "Shift_JIS"),
            ("euc-jp", JAPANESE, "EUC-JP"),
            ("gbk", CHINESE, "GBK"),
            ("big5", TRADITIONAL, "Big5"),
            ("euc-kr", KOREAN, "EUC-KR"),
            ("koi8-r", RUSSIAN, "KOI8-U"),
            ("windows-1251", RUSSIAN, "windows-1251"),
            ("windows-1252", FRENCH, "windows-1252"),
            ("windows-1252", GERMAN, "windows-1252"),
        ];
        for (label, text, name) in cases {
            let bytes = legacy(label, text);
            let decoded = decode(bytes.clone()).unwrap();
            assert_eq!(decoded.encoding.name(), name, "{label}");
            assert_eq!(decoded.text, text, "{label}");
            assert_eq!(decoded.inexact_at, None, "{label}");
            assert_eq!(decoded.bytes(), bytes.as_slice(), "{label}");
            assert_eq!(encode("f", &decoded.text, decoded.encoding).unwrap(), bytes.as_slice(), "{label}");
            assert_eq!(text_of(&bytes).unwrap(), text, "{label}");
        }
    }

    #[test]
    fn utf16_with_a_bom_decodes_with_the_bom_as_u_feff_and_encodes_back() {
        for (bom, label) in [(&b"\xFF\xFE"[..], "UTF-16LE"), (&b"\xFE\xFF"[..], "UTF-16BE")] {
            let enc = Encoding::for_label(label).unwrap();
            let bytes = encode("f", &enc.whole_text("a = 1\r\nb = \"é🎉\"\r\n"), enc).unwrap().into_owned();
            assert!(bytes.starts_with(bom));
            let decoded = decode(bytes.clone()).unwrap();
            assert_eq!((decoded.encoding.name(), decoded.encoding.bom()), (label, true));
            assert_eq!(decoded.text, "\u{feff}a = 1\r\nb = \"é🎉\"\r\n");
            assert_eq!(decoded.inexact_at, None);
            assert_eq!(encode("f", &decoded.text, decoded.encoding).unwrap(), bytes.as_slice());
        }
    }

    #[test]
    fn utf8_stays_as_today_and_is_not_copied() {
        let decoded = decode(b"caf\xC3\xA9\n".to_vec()).unwrap();
        assert!(decoded.encoding.is_plain_utf8());
        assert_eq!(decoded.other_bytes, None);
        let decoded = decode(b"\xEF\xBB\xBFx\n".to_vec()).unwrap();
        assert_eq!((decoded.encoding.name(), decoded.encoding.bom()), ("UTF-8", true));
        assert_eq!(decoded.text, "\u{feff}x\n");
        assert!(matches!(text_of(b"plain"), Some(Cow::Borrowed("plain"))));
        assert_eq!(decode(Vec::new()).unwrap().encoding, Encoding::UTF_8);
    }

    #[test]
    fn a_nul_byte_is_binary_except_in_utf16_with_a_bom() {
        let bin = decode(b"PNG\x00\x01".to_vec()).unwrap_err();
        assert_eq!(bin.nul_at, 3);
        assert!(bin.error("img.png").to_string().contains("NUL byte at offset 3"));
        assert_eq!(text_of(b"a\x00b"), None);
        // UTF-16 text holds NUL bytes; a U+0000 character in it is binary.
        assert!(decode(b"\xFF\xFEa\x00b\x00".to_vec()).is_ok());
        assert_eq!(decode(b"\xFF\xFEa\x00\x00\x00".to_vec()).unwrap_err().nul_at, 4);
        // Without a BOM, UTF-16 is binary.
        assert!(decode(b"a\x00b\x00".to_vec()).is_err());
    }

    #[test]
    fn malformed_bytes_are_shown_but_the_file_is_not_writable() {
        // Shift_JIS with a character from the NEC-selected IBM extensions, which Shift_JIS
        // also spells elsewhere: the text encodes back to the other spelling.
        let mut bytes = legacy("shift_jis", JAPANESE);
        let at = bytes.len();
        bytes.extend_from_slice(b"\xED\x40\n");
        let decoded = decode(bytes.clone()).unwrap();
        assert_eq!(decoded.encoding.name(), "Shift_JIS");
        assert_eq!(decoded.inexact_at, Some(at));
        assert_eq!(decoded.bytes(), bytes.as_slice());
        let err = decoded.writable("a.txt").unwrap_err().to_string();
        assert!(err.contains("Shift_JIS") && err.contains("nothing was written"), "{err}");
        // A UTF-16 file of an odd length.
        let decoded = decode(b"\xFF\xFEa\x00b".to_vec()).unwrap();
        assert_eq!(decoded.inexact_at, Some(4));
        // Broken UTF-8 after a UTF-8 BOM stays UTF-8.
        let decoded = decode(b"\xEF\xBB\xBFok \xC3(".to_vec()).unwrap();
        assert_eq!((decoded.encoding.name(), decoded.inexact_at), ("UTF-8", Some(6)));
    }

    #[test]
    fn a_character_the_encoding_cannot_hold_is_named_with_its_line() {
        let enc = Encoding::for_label("shift_jis").unwrap();
        let err = encode("a.txt", "名前\n€ 5\n", enc).unwrap_err();
        match &err {
            Error::Unrepresentable { character, line, encoding, .. } => {
                assert_eq!((*character, *line, *encoding), ('€', 2, "Shift_JIS"));
            }
            other => panic!("{other:?}"),
        }
        let text = err.to_string();
        assert!(text.contains("'€' (U+20AC) on line 2") && text.contains("encoding: \"utf-8\""), "{text}");
        // windows-1252 holds the euro sign, but not Japanese.
        let enc = Encoding::for_label("latin1").unwrap();
        assert_eq!(enc.name(), "windows-1252");
        assert_eq!(encode("a", "€", enc).unwrap(), &b"\x80"[..]);
        assert!(matches!(encode("a", "x\ny\nz名", enc), Err(Error::Unrepresentable { line: 3, .. })));
    }

    #[test]
    fn labels_are_whatwg_and_an_unknown_one_lists_known_ones() {
        assert_eq!(Encoding::for_label(" Shift_JIS ").unwrap().name(), "Shift_JIS");
        assert_eq!(Encoding::for_label("utf-16be").unwrap().describe(), "UTF-16BE with a BOM");
        assert!(!Encoding::for_label("utf-8").unwrap().bom());
        let err = Encoding::for_label("klingon").unwrap_err().to_string();
        assert!(err.contains("\"klingon\"") && err.contains("\"shift_jis\""), "{err}");
        // The replacement encoding decodes only.
        assert!(Encoding::for_label("iso-2022-kr").is_err());
    }

    #[test]
    fn a_whole_text_gets_the_bom_its_encoding_has() {
        let utf16 = Encoding::for_label("utf-16le").unwrap();
        assert_eq!(utf16.whole_text("x"), "\u{feff}x");
        assert_eq!(utf16.whole_text("\u{feff}x"), "\u{feff}x");
        let sjis = Encoding::for_label("shift_jis").unwrap();
        assert_eq!(sjis.whole_text("\u{feff}x"), "x");
        assert_eq!(Encoding::UTF_8.whole_text("\u{feff}x"), "\u{feff}x");
        assert_eq!(Encoding::UTF_8.whole_text("x"), "x");
    }

    #[test]
    fn a_replaced_file_keeps_its_encoding_unless_it_is_not_text() {
        assert_eq!(kept("f", None).unwrap(), Encoding::UTF_8);
        assert_eq!(kept("f", Some(Vec::new())).unwrap(), Encoding::UTF_8);
        assert_eq!(kept("f", Some(b"\x00\x01".to_vec())).unwrap(), Encoding::UTF_8);
        assert_eq!(kept("f", Some(b"\xFE\xFF\x00a".to_vec())).unwrap().name(), "UTF-16BE");
        assert!(kept("f", Some(b"\xEF\xBB\xBFx".to_vec())).unwrap().bom());
        assert_eq!(kept("f", Some(legacy("euc-kr", KOREAN))).unwrap().name(), "EUC-KR");
        let mut broken = legacy("shift_jis", JAPANESE);
        broken.extend_from_slice(b"\xED\x40");
        assert!(matches!(kept("f", Some(broken)), Err(Error::Inexact { .. })));
    }

    #[test]
    fn gb18030_is_named_when_only_it_encodes_the_text_back() {
        // A character outside GBK: GB18030 spells it in four bytes.
        let text = format!("{CHINESE}表情符号：😀\n");
        let bytes = legacy("gb18030", &text);
        let decoded = decode(bytes.clone()).unwrap();
        assert_eq!((decoded.encoding.name(), decoded.inexact_at), ("gb18030", None));
        assert_eq!(decoded.text, text);
    }

    mod round_trip {
        use super::*;
        use proptest::prelude::*;

        /// Characters `label` encodes to bytes that decode back to them: the single bytes and
        /// two-byte sequences of the encoding, found by decoding every one of them.
        fn repertoire(label: &str) -> Vec<char> {
            let enc = whatwg(label);
            let mut chars = Vec::new();
            let mut keep = |bytes: &[u8]| {
                if let Some(text) = enc.decode_without_bom_handling_and_without_replacement(bytes)
                    && let [c] = text.chars().collect::<Vec<_>>()[..]
                    && encode_strict(&text, enc).is_ok_and(|again| again == bytes)
                {
                    chars.push(c);
                }
            };
            for lead in 0x80..=0xFFu8 {
                keep(&[lead]);
                for trail in 0x40..=0xFEu8 {
                    keep(&[lead, trail]);
                }
            }
            chars
        }

        fn text_in(chars: Vec<char>) -> impl Strategy<Value = String> {
            let pieces = prop_oneof![
                3 => proptest::sample::select(chars).prop_map(String::from),
                1 => "[ -~]{1,8}",
                1 => Just("\r\n".to_string()),
                1 => Just("\n".to_string()),
            ];
            proptest::collection::vec(pieces, 0..60).prop_map(|p| p.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            /// Any text, encoded in UTF-16 with its BOM, decodes to itself and encodes back to
            /// the same bytes.
            #[test]
            fn utf16_round_trips_any_text(text in "(\\PC|\r\n|\n|\t|\u{feff}){0,80}", big in any::<bool>()) {
                prop_assume!(!text.contains('\0'));
                let enc = Encoding::for_label(if big { "utf-16be" } else { "utf-16le" }).unwrap();
                let whole = enc.whole_text(&text);
                let bytes = encode("f", &whole, enc).unwrap().into_owned();
                let decoded = decode(bytes.clone()).unwrap();
                prop_assert_eq!(decoded.encoding, enc);
                prop_assert_eq!(decoded.inexact_at, None);
                prop_assert_eq!(&decoded.text, &*whole);
                prop_assert_eq!(encode("f", &decoded.text, enc).unwrap(), bytes.as_slice());
            }
        }

        /// Valid text in each legacy encoding decodes in it exactly and encodes back to the
        /// same bytes.
        #[test]
        fn valid_text_in_each_legacy_encoding_round_trips() {
            for label in ["shift_jis", "euc-jp", "gbk", "gb18030", "big5", "euc-kr", "koi8-r", "windows-1252"]
            {
                let enc = whatwg(label);
                let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(48));
                runner
                    .run(&text_in(repertoire(label)), |text| {
                        let bytes = encode_strict(&text, enc).unwrap().into_owned();
                        let (decoded, inexact_at) = decode_checked(&bytes, enc);
                        prop_assert_eq!(inexact_at, None);
                        prop_assert_eq!(&decoded, &text);
                        prop_assert_eq!(encode_strict(&decoded, enc).unwrap(), bytes.as_slice());
                        Ok(())
                    })
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
            }
        }
    }
}
