//! The two ways WTA's benches run (every bench is `harness = false`), and
//! their budgets.
//!
//! - **Full**: `cargo bench` starts a bench binary with `--bench`. It runs
//!   its whole count (release profile), prints each figure against its
//!   budget, and exits non-zero when any is over.
//! - **Quick**: `cargo test --bench '*'` (or `--bench <name>`) starts it
//!   without `--bench` (dev profile; `scripts/test` runs every bench this
//!   way; `--benches` would run the unit tests too). A few iterations, every
//!   correctness assertion on (runs finished, lines parsed, notifications
//!   delivered), budgets printed but not enforced: timing a debug build on a
//!   loaded CI machine says nothing about the budget.
//!
//! `WTA_BENCH_QUICK=1` forces the quick run, `WTA_BENCH_QUICK=0` the full one.
//! What a bench measures it asserts in both modes, so a bench that measures
//! nothing fails in CI.

use std::fmt::Display;
use std::process::ExitCode;

/// How a bench was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A few iterations, correctness only.
    Quick,
    /// The whole count, budgets enforced.
    Full,
}

impl Mode {
    /// The mode of this process: `WTA_BENCH_QUICK` if set to 0 or 1, else
    /// [`Mode::Full`] exactly when `--bench` is among the arguments.
    pub fn from_env() -> Self {
        let forced = std::env::var("WTA_BENCH_QUICK").ok();
        let args: Vec<String> = std::env::args().skip(1).collect();
        Self::decide(forced.as_deref(), &args)
    }

    fn decide(forced: Option<&str>, args: &[String]) -> Self {
        match forced {
            Some("1") => Mode::Quick,
            Some("0") => Mode::Full,
            _ if args.iter().any(|a| a == "--bench") => Mode::Full,
            _ => Mode::Quick,
        }
    }

    pub fn is_quick(self) -> bool {
        self == Mode::Quick
    }

    /// An iteration count: `$var` when set to a number, else `quick` or
    /// `full` by mode.
    pub fn count(self, var: &str, quick: u64, full: u64) -> u64 {
        std::env::var(var)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(match self {
                Mode::Quick => quick,
                Mode::Full => full,
            })
    }

    /// [`Mode::count`] as a `usize`.
    pub fn count_usize(self, var: &str, quick: usize, full: usize) -> usize {
        let n = self.count(var, quick as u64, full as u64);
        usize::try_from(n).unwrap_or(usize::MAX)
    }
}

/// The budgets of one bench run: each check is printed where the bench
/// prints its figure, and [`Budgets::finish`] fails the run when a full run
/// was over any.
#[derive(Debug)]
pub struct Budgets {
    bench: &'static str,
    mode: Mode,
    over: Vec<String>,
    checked: usize,
}

impl Budgets {
    pub fn new(bench: &'static str, mode: Mode) -> Self {
        match mode {
            Mode::Quick => println!(
                "{bench}: quick run (a few iterations, budgets not enforced; \
                 `cargo bench` for the full run)"
            ),
            Mode::Full => println!("{bench}: full run (budgets enforced)"),
        }
        Self {
            bench,
            mode,
            over: Vec::new(),
            checked: 0,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Records whether `what` is within its budget; returns the verdict to
    /// print beside the figure.
    pub fn check(&mut self, within: bool, what: impl Display) -> &'static str {
        self.checked += 1;
        match (within, self.mode) {
            (true, Mode::Full) => "OK",
            (false, Mode::Full) => {
                self.over.push(what.to_string());
                "OVER BUDGET"
            }
            (true, Mode::Quick) => "OK (not enforced in a quick run)",
            (false, Mode::Quick) => "over (not enforced in a quick run)",
        }
    }

    /// The exit code: failure when a full run was over a budget. Panics if
    /// no budget was checked (a bench whose budgets were never reached).
    pub fn finish(self) -> ExitCode {
        assert!(self.checked > 0, "{}: no budget was checked", self.bench);
        if self.over.is_empty() {
            println!("{}: {} budget(s) checked", self.bench, self.checked);
            return ExitCode::SUCCESS;
        }
        for what in &self.over {
            eprintln!("{}: OVER BUDGET: {what}", self.bench);
        }
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn cargo_bench_is_full_cargo_test_is_quick() {
        assert_eq!(Mode::decide(None, &args(&["--bench"])), Mode::Full);
        assert_eq!(Mode::decide(None, &args(&[])), Mode::Quick);
        assert_eq!(Mode::decide(None, &args(&["filter"])), Mode::Quick);
        assert_eq!(Mode::decide(Some("1"), &args(&["--bench"])), Mode::Quick);
        assert_eq!(Mode::decide(Some("0"), &args(&[])), Mode::Full);
        assert_eq!(Mode::decide(Some("yes"), &args(&[])), Mode::Quick);
    }

    #[test]
    fn a_full_run_over_budget_fails_a_quick_one_does_not() {
        let mut full = Budgets::new("t", Mode::Full);
        assert_eq!(full.check(true, "a"), "OK");
        assert_eq!(full.check(false, "b"), "OVER BUDGET");
        assert_eq!(full.finish(), ExitCode::FAILURE);
        let mut quick = Budgets::new("t", Mode::Quick);
        quick.check(false, "b");
        assert_eq!(quick.finish(), ExitCode::SUCCESS);
        let mut ok = Budgets::new("t", Mode::Full);
        ok.check(true, "a");
        assert_eq!(ok.finish(), ExitCode::SUCCESS);
    }

    #[test]
    #[should_panic(expected = "no budget was checked")]
    fn a_run_that_checked_nothing_fails() {
        Budgets::new("t", Mode::Full).finish();
    }
}
