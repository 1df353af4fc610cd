//! Quoting one word for POSIX `sh`, for the few command lines that go
//! through a shell (a pipe's sink, a gated pane's wrapper).

/// Quotes one word for POSIX `sh`: bare when it is plainly safe, else in
/// single quotes (`'` → `'\''`).
pub fn sh_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"%+,-./:=@_".contains(&b))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_what_needs_it() {
        assert_eq!(sh_quote("%3"), "%3");
        assert_eq!(sh_quote("a b'c"), r"'a b'\''c'");
        assert_eq!(sh_quote(""), "''");
        assert_eq!(sh_quote("#x"), "'#x'");
    }
}
