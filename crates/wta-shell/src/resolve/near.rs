//! Near matches: which known command names the user probably meant.
//!
//! Pure: the candidates (executables on `PATH`, the shell's aliases,
//! functions, builtins and keywords) come in as strings. Ranking is by edit
//! distance ([`damerau_levenshtein`]); among equals a name made of the very
//! letters typed comes first (swapped letters are the commonest slip: `sl`
//! means `ls` more likely than `ll`), then alphabetical order, so the answer
//! is the same whatever order the candidates arrive in. The typed name itself is
//! never its own near match, and names starting with `_` (completion and
//! helper functions, thousands in some setups) only match a typed name that
//! starts with `_` too.

use std::collections::BTreeSet;

use serde::Serialize;

use super::distance::{damerau_levenshtein, max_distance};

/// How many near matches are reported at most.
pub const MAX_NEAR_MATCHES: usize = 5;

/// One name close to what was typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NearMatch {
    pub name: String,
    /// Edits (insert, delete, substitute, swap neighbours) from the typed name.
    pub distance: usize,
}

/// Up to `limit` candidates within [`max_distance`] of `typed`, closest
/// first, then those with the same letters as `typed`, then alphabetical;
/// duplicates count once.
pub fn near_matches<'a>(
    typed: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Vec<NearMatch> {
    let radius = max_distance(typed);
    let typed_len = typed.chars().count();
    let hidden_ok = typed.starts_with('_');
    let unique: BTreeSet<&str> = candidates
        .into_iter()
        .filter(|c| !c.is_empty() && *c != typed && (hidden_ok || !c.starts_with('_')))
        .collect();
    let mut found: Vec<NearMatch> = unique
        .into_iter()
        // The distance is at least the length gap: skip the table for most.
        .filter(|c| c.chars().count().abs_diff(typed_len) <= radius)
        .filter_map(|c| {
            let distance = damerau_levenshtein(typed, c);
            (distance <= radius).then(|| NearMatch {
                name: c.to_owned(),
                distance,
            })
        })
        .collect();
    let letters = sorted_letters(typed);
    found.sort_by_cached_key(|m| {
        (
            m.distance,
            sorted_letters(&m.name) != letters,
            m.name.clone(),
        )
    });
    found.truncate(limit);
    found
}

/// The characters of `name` in order: equal for two names that are
/// permutations of each other.
fn sorted_letters(name: &str) -> Vec<char> {
    let mut letters: Vec<char> = name.chars().collect();
    letters.sort_unstable();
    letters
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn names(found: &[NearMatch]) -> Vec<&str> {
        found.iter().map(|m| m.name.as_str()).collect()
    }

    const BIN: &[&str] = &[
        "git",
        "gitk",
        "gist",
        "python3",
        "python3.11",
        "python",
        "ls",
        "sh",
        "ss",
        "lsof",
        "sl2",
        "cargo",
        "cat",
        "_git",
        "make",
        "cmake",
    ];

    #[test]
    fn the_usual_typos() {
        let near = |typed| names(&near_matches(typed, BIN.iter().copied(), 5)).join(",");
        assert_eq!(near("gti"), "git");
        assert_eq!(near("pyhton3"), "python3,python");
        assert_eq!(near("sl"), "ls,sh,sl2,ss");
        // Swapped letters beat a substitution at the same distance.
        assert_eq!(names(&near_matches("sl", ["ll", "ls"], 5)), ["ls", "ll"]);
        assert_eq!(
            names(&near_matches("teh", ["ten", "the", "tea"], 5)),
            ["the", "tea", "ten"]
        );
        assert_eq!(near("gitt"), "gist,git,gitk");
        assert_eq!(near("carg"), "cargo");
        assert_eq!(near("mkae"), "make");
        assert_eq!(near("zzzzzz"), "");
    }

    #[test]
    fn the_typed_name_hidden_names_and_duplicates_are_left_out() {
        let found = near_matches("git", ["git", "gti", "gti", "_git", ""], 5);
        assert_eq!(
            found,
            vec![NearMatch {
                name: "gti".into(),
                distance: 1
            }]
        );
        assert_eq!(names(&near_matches("_gti", ["_git", "git"], 5)), ["_git"]);
    }

    #[test]
    fn at_most_the_limit() {
        let many = ["aa", "ab", "ac", "ad", "ae", "af", "ag"];
        assert_eq!(
            names(&near_matches("a", many, 5)),
            ["aa", "ab", "ac", "ad", "ae"]
        );
        assert!(near_matches("a", many, 0).is_empty());
    }

    proptest! {
        /// The answer is exactly the best `limit` qualifying candidates, in
        /// (distance, other letters, name) order, whatever order they came in.
        #[test]
        fn is_the_best_prefix_in_any_order(
            typed in "[a-d_]{0,6}",
            mut candidates in proptest::collection::vec("[a-d_]{0,7}", 0..40),
            limit in 0usize..8,
        ) {
            let found = near_matches(&typed, candidates.iter().map(String::as_str), limit);
            let mut all: Vec<(usize, bool, String)> = candidates
                .iter()
                .filter(|c| !c.is_empty() && **c != typed)
                .filter(|c| typed.starts_with('_') || !c.starts_with('_'))
                .map(|c| {
                    let d = damerau_levenshtein(&typed, c);
                    (d, sorted_letters(c) != sorted_letters(&typed), c.clone())
                })
                .filter(|(d, _, _)| *d <= max_distance(&typed))
                .collect();
            all.sort();
            all.dedup();
            all.truncate(limit);
            let got: Vec<(usize, bool, String)> = found
                .iter()
                .map(|m| {
                    let other = sorted_letters(&m.name) != sorted_letters(&typed);
                    (m.distance, other, m.name.clone())
                })
                .collect();
            prop_assert_eq!(&got, &all);
            candidates.reverse();
            let again = near_matches(&typed, candidates.iter().map(String::as_str), limit);
            prop_assert_eq!(again, found);
        }
    }
}
