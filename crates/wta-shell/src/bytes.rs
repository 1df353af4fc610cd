//! Byte searches for the filters that cut a mark out of a stream as it
//! passes (`wta ssh`'s ready mark, an agent terminal's end mark).

/// Where `needle` first starts in `data`.
pub fn find(data: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    data.windows(needle.len()).position(|w| w == needle)
}

/// The length of the longest proper suffix of `data` that begins `prefix`
/// (what a filter holds back: the mark may be completed by the next bytes).
pub fn partial_suffix(data: &[u8], prefix: &[u8]) -> usize {
    (1..prefix.len().min(data.len() + 1))
        .rev()
        .find(|n| data.ends_with(&prefix[..*n]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_place_and_the_longest_partial_end() {
        assert_eq!(find(b"abcabc", b"ca"), Some(2));
        assert_eq!(find(b"ab", b"abc"), None);
        assert_eq!(partial_suffix(b"xxab", b"abc"), 2);
        assert_eq!(
            partial_suffix(b"xxabc", b"abc"),
            0,
            "a whole mark is not partial"
        );
        assert_eq!(partial_suffix(b"", b"abc"), 0);
    }
}
