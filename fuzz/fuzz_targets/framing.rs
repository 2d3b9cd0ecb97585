//! The request-line scan in front of rmcp: any bytes, fed in two pieces, never panic; on a
//! line serde_json accepts as an object, the scan finds no lone surrogate and the same id.
#![no_main]

use filewright::server::framing::Scan;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, line)) = data.split_first() else { return };
    let cut = (cut as usize * line.len() / 255).min(line.len());
    let mut scan = Scan::default();
    scan.feed(&line[..cut]);
    scan.feed(&line[cut..]);
    if let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(line) {
        assert!(scan.lone_surrogate.is_none(), "serde_json accepted it");
        if let Some(id @ (Value::Number(_) | Value::String(_))) = message.get("id") {
            // Only an unescaped key, once: serde keeps the last of repeated keys and decodes
            // escaped ones; the scan reads the first, literally.
            if std::str::from_utf8(line).is_ok_and(|t| t.matches("\"id\"").count() == 1 && !t.contains("\\u")) {
                assert_eq!(&scan.id(), id);
            }
        }
    }
});
