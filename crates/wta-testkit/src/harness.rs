//! The `main` of a test binary that also plays another role in a child
//! process (`harness = false` in its Cargo.toml): the binary picks its role
//! from its arguments, and only the real tests are run and counted. A role
//! is never a `#[test]` that returns early when an env var is absent, which
//! would pass instantly and be counted as a test.
//!
//! [`run`] speaks enough of libtest's command line for `cargo test` and
//! `cargo nextest`: name filters, `--exact`, `--skip`, `--list`, `--ignored`
//! (there are none) and `--bench` (nothing to run); other flags are
//! accepted and ignored. Tests run one after another on the main thread.

use std::panic::{AssertUnwindSafe, catch_unwind};

/// One test: its name and its body (which panics on failure).
pub type Test = (&'static str, fn());

/// What the command line selects.
#[derive(Debug, Default, PartialEq, Eq)]
struct Selection {
    filters: Vec<String>,
    skip: Vec<String>,
    exact: bool,
    list: bool,
    /// `--ignored` or `--bench`: none of these tests qualifies.
    none: bool,
}

/// Flags that take the next argument as their value.
const WITH_VALUE: &[&str] = &[
    "--test-threads",
    "--format",
    "--color",
    "--logfile",
    "--shuffle-seed",
    "--report-time",
    "-Z",
];

fn parse(args: &[String]) -> Selection {
    let mut sel = Selection::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--exact" => sel.exact = true,
            "--list" => sel.list = true,
            "--ignored" | "--bench" => sel.none = true,
            "--skip" => sel.skip.extend(args.next().cloned()),
            flag if WITH_VALUE.contains(&flag) => {
                args.next();
            }
            flag if flag.starts_with('-') => {}
            filter => sel.filters.push(filter.to_owned()),
        }
    }
    sel
}

impl Selection {
    fn selects(&self, name: &str) -> bool {
        let matches = |pattern: &str| {
            if self.exact {
                name == pattern
            } else {
                name.contains(pattern)
            }
        };
        !self.none
            && (self.filters.is_empty() || self.filters.iter().any(|f| matches(f)))
            && !self.skip.iter().any(|s| matches(s))
    }
}

/// Runs the `tests` the command line selects, libtest style, and exits
/// with 101 if one failed.
pub fn run(tests: &[Test]) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sel = parse(&args);
    let chosen: Vec<&Test> = tests.iter().filter(|(name, _)| sel.selects(name)).collect();
    if sel.list {
        for (name, _) in &chosen {
            println!("{name}: test");
        }
        return;
    }
    let plural = if chosen.len() == 1 { "" } else { "s" };
    println!("\nrunning {} test{plural}", chosen.len());
    let mut failed = Vec::new();
    for (name, body) in &chosen {
        let ok = catch_unwind(AssertUnwindSafe(body)).is_ok();
        println!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
        if !ok {
            failed.push(*name);
        }
    }
    let passed = chosen.len() - failed.len();
    let filtered = tests.len() - chosen.len();
    if !failed.is_empty() {
        println!("\nfailures:\n    {}", failed.join("\n    "));
    }
    let verdict = if failed.is_empty() { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {verdict}. {passed} passed; {} failed; 0 ignored; 0 measured; {filtered} filtered out\n",
        failed.len()
    );
    if !failed.is_empty() {
        std::process::exit(101);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_command_line_selects_like_libtest() {
        let select = |line: &str, name: &str| parse(&args(line)).selects(name);
        assert!(select("", "flood"));
        assert!(select("--test-threads 1 --nocapture -q", "flood"));
        assert!(select("loo", "flood"));
        assert!(!select("other", "flood"));
        assert!(select("other loo", "flood"));
        assert!(!select("--exact loo", "flood"));
        assert!(select("--exact flood", "flood"));
        assert!(!select("--skip loo", "flood"));
        assert!(select("--skip other", "flood"));
        assert!(!select("--ignored", "flood"));
        assert!(!select("--bench", "flood"));
        // A flag's value is not a filter.
        assert!(select("--format terse --color never", "flood"));
        assert!(select("--format=terse", "flood"));
        assert!(parse(&args("--list --format terse")).list);
    }
}
