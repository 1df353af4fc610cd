//! Edit distance between command names: Damerau–Levenshtein, and how far a
//! name may be from what was typed to count as a near match.
//!
//! The distance is the unrestricted one (Lowrance–Wagner): insertions,
//! deletions, substitutions and transpositions of two characters, each
//! costing 1, with no limit on editing between transposed characters. Unlike
//! the "optimal string alignment" shortcut it is a metric (the triangle
//! inequality holds), which the tests check. Characters are Unicode scalar
//! values; nothing here allocates per candidate beyond one table.

use std::collections::HashMap;

/// The Damerau–Levenshtein distance between `a` and `b`, in characters.
pub fn damerau_levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return n.max(m);
    }
    // d is (n + 2) × (m + 2): row/column 0 hold the "infinite" sentinel,
    // row/column 1 the distances from the empty prefix.
    let width = m + 2;
    let inf = n + m;
    let mut d = vec![0usize; (n + 2) * width];
    let at = |i: usize, j: usize| i * width + j;
    d[at(0, 0)] = inf;
    for i in 0..=n {
        d[at(i + 1, 0)] = inf;
        d[at(i + 1, 1)] = i;
    }
    for j in 0..=m {
        d[at(0, j + 1)] = inf;
        d[at(1, j + 1)] = j;
    }
    // The last row (1-based) of `a` where each character was seen.
    let mut last_row: HashMap<char, usize> = HashMap::new();
    for i in 1..=n {
        // The last column (1-based) in this row where a[i] matched.
        let mut last_match_col = 0;
        for j in 1..=m {
            let i1 = last_row.get(&b[j - 1]).copied().unwrap_or(0);
            let j1 = last_match_col;
            let cost = if a[i - 1] == b[j - 1] {
                last_match_col = j;
                0
            } else {
                1
            };
            let substitute = d[at(i, j)] + cost;
            let insert = d[at(i + 1, j)] + 1;
            let delete = d[at(i, j + 1)] + 1;
            let transpose = d[at(i1, j1)] + (i - i1 - 1) + 1 + (j - j1 - 1);
            d[at(i + 1, j + 1)] = substitute.min(insert).min(delete).min(transpose);
        }
        last_row.insert(a[i - 1], i);
    }
    d[at(n + 1, m + 1)]
}

/// How far a near match of `typed` may be: 1 for names of up to 4
/// characters (`sl` → `ls`, `gti` → `git`), 2 for longer ones (`pyhton3`
/// → `python3`). Short names get a small radius because every other short
/// command is only a few edits away.
pub fn max_distance(typed: &str) -> usize {
    if typed.chars().count() <= 4 { 1 } else { 2 }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn known_distances() {
        for (a, b, d) in [
            ("", "", 0),
            ("", "git", 3),
            ("git", "", 3),
            ("git", "git", 0),
            ("gti", "git", 1),
            ("sl", "ls", 1),
            ("pyhton3", "python3", 1),
            ("pyton3", "python3", 1),
            ("gitk", "git", 1),
            ("kitten", "sitting", 3),
            // OSA would say 3: "ca" → "ac" then an insertion in between.
            ("ca", "abc", 2),
            ("a", "b", 1),
            ("ünï", "unï", 1),
            ("abcdef", "badcfe", 3),
        ] {
            assert_eq!(damerau_levenshtein(a, b), d, "{a:?} {b:?}");
        }
    }

    #[test]
    fn radius_grows_with_the_name() {
        assert_eq!(max_distance(""), 1);
        assert_eq!(max_distance("sl"), 1);
        assert_eq!(max_distance("make"), 1);
        assert_eq!(max_distance("cargo"), 2);
        assert_eq!(max_distance("ünïc"), 1, "characters, not bytes");
    }

    /// Plain Levenshtein, an upper bound of the distance.
    fn levenshtein(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for j in 0..b.len() {
                let next = (prev + usize::from(ca != b[j]))
                    .min(row[j] + 1)
                    .min(row[j + 1] + 1);
                prev = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    }

    fn name() -> impl Strategy<Value = String> {
        // A small alphabet so that names share letters and transpose often.
        proptest::string::string_regex("[abcü]{0,7}").unwrap()
    }

    proptest! {
        #[test]
        fn is_a_metric(a in name(), b in name(), c in name()) {
            let ab = damerau_levenshtein(&a, &b);
            prop_assert_eq!(ab == 0, a == b);
            prop_assert_eq!(ab, damerau_levenshtein(&b, &a));
            prop_assert!(
                damerau_levenshtein(&a, &c) <= ab + damerau_levenshtein(&b, &c)
            );
        }

        #[test]
        fn lies_between_the_length_gap_and_levenshtein(a in name(), b in name()) {
            let d = damerau_levenshtein(&a, &b);
            let (la, lb) = (a.chars().count(), b.chars().count());
            prop_assert!(d >= la.abs_diff(lb));
            prop_assert!(d <= levenshtein(&a, &b));
            prop_assert!(d <= la.max(lb));
        }

        #[test]
        fn one_swap_of_neighbours_costs_one(a in "[a-z]{2,8}", at in 0usize..7) {
            let mut chars: Vec<char> = a.chars().collect();
            let at = at % (chars.len() - 1);
            prop_assume!(chars[at] != chars[at + 1]);
            chars.swap(at, at + 1);
            let swapped: String = chars.into_iter().collect();
            prop_assert_eq!(damerau_levenshtein(&a, &swapped), 1);
        }
    }
}
