//! Comparing text shown on a pane regardless of where the pane wrapped it.

/// `text` without whitespace and without the vertical borders a card draws
/// at both ends of each row (`│`), so a phrase wrapped across rows (or across
/// a card's rows) compares as one: `squeezed(screen).contains(&squeezed(s))`.
pub fn squeezed(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && *c != '│')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_inside_a_card_does_not_split_a_phrase() {
        let card = "│   in %0 · cwd        │\n│   /tmp/a/long/path   │";
        assert!(squeezed(card).contains(&squeezed("cwd /tmp/a/long/path")));
        assert!(!squeezed(card).contains(&squeezed("cwd /tmp/other")));
    }
}
