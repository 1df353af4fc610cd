//! The compiled-in texts (`build.rs` writes the table from `locales/`):
//! a locale is an index into `TEXTS`, a key is found by binary search in
//! the sorted `KEYS`; both hold spans of one text blob. Nothing here
//! allocates or initialises at run time.

include!(concat!(env!("OUT_DIR"), "/catalog.rs"));

/// English's index: the source and every missing key's fallback.
pub(crate) const SOURCE: usize = source_index();

const fn source_index() -> usize {
    let mut i = 0;
    while i < LOCALE_TAGS.len() {
        let tag = LOCALE_TAGS[i].as_bytes();
        if tag.len() == 2 && tag[0] == b'e' && tag[1] == b'n' {
            return i;
        }
        i += 1;
    }
    panic!("the catalog has no en locale")
}

/// `tag`'s index, or English's for a locale not compiled in.
pub(crate) fn locale_index(tag: &str) -> usize {
    LOCALE_TAGS.iter().position(|t| *t == tag).unwrap_or(SOURCE)
}

/// The tag of locale `index`.
pub(crate) fn tag(index: usize) -> &'static str {
    LOCALE_TAGS
        .get(index)
        .copied()
        .unwrap_or(LOCALE_TAGS[SOURCE])
}

/// The blob's text at `span` (the build wrote every span on a boundary).
fn at((start, len): (u32, u32)) -> &'static str {
    let start = start as usize;
    BLOB.get(start..start + len as usize).unwrap_or_default()
}

/// `key`'s text in locale `index`; `key` itself when no locale has it.
pub(crate) fn text(index: usize, key: &str) -> &str {
    let texts = TEXTS.get(index).unwrap_or(&TEXTS[SOURCE]);
    match KEYS.binary_search_by(|span| at(*span).cmp(key)) {
        Ok(found) => at(texts[found]),
        Err(_) => key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_sorted_and_unique_so_the_search_finds_each() {
        let keys: Vec<&str> = KEYS.iter().map(|span| at(*span)).collect();
        assert!(keys.len() > 20);
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        for (i, key) in keys.iter().enumerate() {
            assert!(!key.is_empty());
            assert_eq!(KEYS.binary_search_by(|span| at(*span).cmp(key)), Ok(i));
        }
    }

    #[test]
    fn the_compiled_locales_are_the_shipped_ones() {
        let mut compiled = LOCALE_TAGS.to_vec();
        let mut shipped = crate::LOCALES.to_vec();
        compiled.sort_unstable();
        shipped.sort_unstable();
        assert_eq!(compiled, shipped);
    }

    #[test]
    fn an_unknown_locale_speaks_english_and_an_unknown_key_is_itself() {
        let key = at(KEYS[0]);
        assert_eq!(text(locale_index("tlh"), key), at(TEXTS[SOURCE][0]));
        assert_eq!(text(SOURCE, "no.such.key"), "no.such.key");
        assert_eq!(tag(usize::MAX), "en");
    }
}
