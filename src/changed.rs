//! Where two versions of a text start and stop differing: the bytes they share at the start
//! and at the end. An edit's diff is shown around that span and the check after an edit
//! parses again only the statements around it, so both ask here.
//!
//! Compared a block at a time (slice equality, which is `memcmp`): byte by byte, the shared
//! end of a 20 KB file took more of an edit than its diff did.

/// Bytes compared at once before the last block is compared byte by byte.
const BLOCK: usize = 64;

/// How many bytes `a` and `b` share at the start.
pub fn same_start(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= n && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + a[at..n].iter().zip(&b[at..n]).take_while(|(x, y)| x == y).count()
}

/// How many bytes `a` and `b` share at the end.
pub fn same_end(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut shared = 0;
    while shared + BLOCK <= n && a[n - shared - BLOCK..n - shared] == b[n - shared - BLOCK..n - shared] {
        shared += BLOCK;
    }
    let (a, b) = (&a[..n - shared], &b[..n - shared]);
    shared + a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive_start(a: &[u8], b: &[u8]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }

    fn naive_end(a: &[u8], b: &[u8]) -> usize {
        a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count()
    }

    #[test]
    fn the_shared_start_and_end_of_a_one_byte_change_in_a_long_text() {
        let old = "x".repeat(1000) + "a" + &"y".repeat(300);
        let new = "x".repeat(1000) + "bc" + &"y".repeat(300);
        assert_eq!(same_start(old.as_bytes(), new.as_bytes()), 1000);
        assert_eq!(same_end(old.as_bytes(), new.as_bytes()), 300);
        assert_eq!(same_start(b"", b"abc"), 0);
        assert_eq!(same_end(b"abc", b"abc"), 3);
    }

    proptest! {
        /// Texts made of one shared part and two different ones, of every length around the
        /// block size, agree with a comparison byte by byte.
        #[test]
        fn agrees_with_a_comparison_byte_by_byte(
            head in prop::collection::vec(0u8..3, 0..300),
            a in prop::collection::vec(0u8..3, 0..200),
            b in prop::collection::vec(0u8..3, 0..200),
            tail in prop::collection::vec(0u8..3, 0..300),
        ) {
            let x = [head.as_slice(), &a, &tail].concat();
            let y = [head.as_slice(), &b, &tail].concat();
            prop_assert_eq!(same_start(&x, &y), naive_start(&x, &y));
            prop_assert_eq!(same_end(&x, &y), naive_end(&x, &y));
        }
    }
}
