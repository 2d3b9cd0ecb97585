//! A moment as the store keeps it (milliseconds since the Unix epoch) and as people and
//! programs read it: RFC 3339 in structured results, "2026-11-22 12:03:11 UTC" in text.
//! Formatted here and nowhere else.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::Serialize;

/// Milliseconds since the Unix epoch, in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// Now, by the system clock (the epoch itself when the clock is before it).
    pub fn now() -> Self {
        Timestamp(SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0))
    }

    /// The moment `ms` milliseconds after the epoch (as stored).
    pub fn from_millis(ms: i64) -> Self {
        Timestamp(ms)
    }

    /// Milliseconds since the epoch (as stored).
    pub fn as_millis(self) -> i64 {
        self.0
    }

    /// The moment `d` later.
    pub fn after(self, d: Duration) -> Self {
        Timestamp(self.0.saturating_add(d.as_millis() as i64))
    }

    /// RFC 3339 in UTC to the second, e.g. `2026-11-22T12:03:11Z`.
    pub fn rfc3339(self) -> String {
        let t = UNIX_EPOCH + Duration::from_millis(self.0.max(0) as u64);
        humantime::format_rfc3339_seconds(t).to_string()
    }
}

impl std::fmt::Display for Timestamp {
    /// For people: `2026-11-22 12:03:11 UTC`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let iso = self.rfc3339();
        let (date, time) = iso.trim_end_matches('Z').split_once('T').unwrap_or((&iso, ""));
        write!(f, "{date} {time} UTC")
    }
}

impl Serialize for Timestamp {
    /// For programs: RFC 3339.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.rfc3339())
    }
}

impl JsonSchema for Timestamp {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timestamp".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "format": "date-time",
            "description": "RFC 3339, UTC, to the second."
        })
    }

    fn inline_schema() -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_get_rfc3339_and_people_get_a_readable_utc_time() {
        let t = Timestamp::from_millis(1_763_812_991_000);
        assert_eq!(t.rfc3339(), "2025-11-22T12:03:11Z");
        assert_eq!(t.to_string(), "2025-11-22 12:03:11 UTC");
        assert_eq!(serde_json::to_string(&t).ok().as_deref(), Some("\"2025-11-22T12:03:11Z\""));
    }

    #[test]
    fn a_time_before_the_epoch_reads_as_the_epoch() {
        assert_eq!(Timestamp::from_millis(-5).rfc3339(), "1970-01-01T00:00:00Z");
    }
}
