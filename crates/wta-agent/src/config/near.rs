//! The known word a mistyped one was probably meant as: the closest by edit
//! distance (transpositions count once), `-` read as `_` and case ignored,
//! within a bound that grows with the word (1 up to 4 characters, 2 up to
//! 8, else 3), so that a short word is not "corrected" into an unrelated one.

/// The candidate closest to `word`, if one is close enough; ties go to the
/// earlier candidate.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = normal(word);
    let bound = match word.len() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    candidates
        .into_iter()
        .map(|c| (distance(&word, &normal(c)), c))
        .filter(|(d, _)| *d <= bound)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn normal(word: &str) -> Vec<char> {
    word.chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// Optimal string alignment distance.
fn distance(a: &[char], b: &[char]) -> usize {
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=m).collect();
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[n][m]
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: [&str; 3] = ["timeout_secs", "output_max_bytes", "interactive_after_secs"];

    #[test]
    fn typos_find_their_key_and_unrelated_words_find_none() {
        for (typo, want) in [
            ("timout_secs", Some("timeout_secs")),
            ("timeout-secs", Some("timeout_secs")),
            ("Timeout_Secs", Some("timeout_secs")),
            ("tiemout_secs", Some("timeout_secs")),
            ("output_max_byte", Some("output_max_bytes")),
            ("interactive_secs", None),
            ("colour", None),
            ("", None),
        ] {
            assert_eq!(nearest(typo, KEYS), want, "{typo}");
        }
        assert_eq!(
            nearest("cluade", ["copilot", "claude", "codex"]),
            Some("claude")
        );
        assert_eq!(nearest("aut", ["off", "suggest", "auto"]), Some("auto"));
        assert_eq!(nearest("x", ["off", "suggest", "auto"]), None);
    }
}
