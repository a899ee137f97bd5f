//! Values that a million records hold, in five bytes rather than eight: a moment and a place
//! in a file (docs/scale.md#clocks-in-five-bytes, docs/scale.md#narrower-lines).

/// Forty bits, little-endian.
fn pack(value: u64) -> Option<[u8; 5]> {
    let b = value.to_le_bytes();
    (value < 1 << 40).then_some([b[0], b[1], b[2], b[3], b[4]])
}

fn unpack(bytes: [u8; 5]) -> u64 {
    let mut b = [0u8; 8];
    b[..5].copy_from_slice(&bytes);
    u64::from_le_bytes(b)
}

/// A moment in five bytes, not eight (16 bytes a store record, 16 MB at a million:
/// docs/scale.md#clocks-in-five-bytes). Every moment a `YYYY-MM-DDTHH:MM:SSZ` can write, years
/// 1 to 9999, lies within 2^39 seconds after the first, so the seconds since
/// `0001-01-01T00:00:00Z` fit in 40 bits with room to spare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clock([u8; 5]);

impl Clock {
    /// `0001-01-01T00:00:00Z`, in seconds since the Unix epoch.
    pub const FIRST: i64 = -62_135_596_800;

    /// `None` outside the 40 bits (no parsed timestamp is).
    pub fn new(secs: i64) -> Option<Clock> {
        let since = u64::try_from(secs.checked_sub(Self::FIRST)?).ok()?;
        pack(since).map(Clock)
    }

    pub fn secs(self) -> i64 {
        // Below 2^40: the cast is exact.
        unpack(self.0) as i64 + Self::FIRST
    }
}

/// A number below 2^40 in five bytes: where a line starts in the gate's ledger (under 1 TiB,
/// docs/scale.md#narrower-lines), a store record's seq or block height
/// (docs/scale.md#narrower-lines).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct U40([u8; 5]);

impl U40 {
    /// The first number past what five bytes hold: 2^40 (as a place, 1 TiB).
    pub const LIMIT: u64 = 1 << 40;

    /// `None` at [`U40::LIMIT`] or past it.
    pub fn new(n: u64) -> Option<U40> {
        pack(n).map(U40)
    }

    pub fn get(self) -> u64 {
        unpack(self.0)
    }
}

/// Where a line starts in the gate's ledger.
pub type Offset = U40;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published::encode::timestamp_of;
    use exhibit_protocol::days;

    #[test]
    fn a_clock_keeps_every_moment_a_timestamp_can_write() {
        // Catches a five-byte clock that cuts the top bits (the last moment of 9999 is past
        // 2^38 seconds after the first), loses the sign (moments before 1970), or shifts by a
        // wrong first moment (docs/scale.md#clocks-in-five-bytes).
        for t in [
            "0001-01-01T00:00:00Z",
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:00:00Z",
            "2026-12-03T15:04:05Z",
            "2106-02-07T06:28:16Z",
            "9999-12-31T23:59:59Z",
        ] {
            let secs = days::parse_timestamp(t).unwrap();
            let c = Clock::new(secs).unwrap();
            assert_eq!((c.secs(), timestamp_of(c.secs())), (secs, t.to_string()));
        }
        assert_eq!(Clock::new(Clock::FIRST - 1), None);
        assert_eq!(Clock::new(Clock::FIRST + (1 << 40)), None);
        assert!(Clock::new(Clock::FIRST + (1 << 40) - 1).is_some());
        assert_eq!(Clock::new(i64::MIN), None);
        assert_eq!(Clock::new(i64::MAX), None);
    }

    #[test]
    fn an_offset_keeps_every_place_below_a_tebibyte_and_refuses_the_rest() {
        // Catches an offset that drops its fifth byte or wraps at the limit instead of refusing.
        for at in [0, 1, 255, 256, u64::from(u32::MAX) + 1, Offset::LIMIT - 1] {
            assert_eq!(Offset::new(at).map(Offset::get), Some(at));
        }
        assert_eq!(Offset::new(Offset::LIMIT), None);
        assert_eq!(Offset::new(u64::MAX), None);
    }
}
