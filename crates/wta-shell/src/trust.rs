//! Which marks are genuine: a mark counts only when it carries the nonce its
//! shell announced through the pane option `@wta_nonce_<pid>`.
//!
//! Anything can print an OSC 133 mark (`cat` of a file, a program, a remote
//! host over ssh), so a `D;0` in a command's output could otherwise end that
//! command as "completed, exit 0" before it really ended. Each WTA script
//! draws a random nonce when it is sourced, keeps it in a shell variable
//! children do not inherit, puts it in every mark (`wta=<nonce>`) and
//! announces it only through the pane option, never through output. Output
//! cannot know it; pane options can only be set through the tmux server.
//!
//! The watcher learns nonces lazily: a mark whose `aid` (the shell's pid)
//! has no known nonce, or a different one (a shell `exec`'d with the same
//! pid draws a new one), asks for a lookup of that pid's option. Lookups are
//! bounded so a flood of forged marks costs little: the same pid at most
//! once per [`LOOKUP_INTERVAL_MS`], and pids not seen before at most
//! [`NEW_PIDS_PER_SECOND`] a second (a forger cannot crowd out the real
//! shell's first lookup with one mark). A mark that cannot be checked now is
//! dropped like any forged one. Pure: time is an input.

use std::collections::BTreeMap;

use crate::parser::Mark;
use crate::tracker::Millis;

/// Shortest time between two lookups of one pid's nonce.
pub const LOOKUP_INTERVAL_MS: Millis = 100;
/// Most lookups of pids not looked up before, per second.
pub const NEW_PIDS_PER_SECOND: usize = 8;
/// Most shells whose nonce one pane remembers (nested shells, `exec`s).
const MAX_SHELLS: usize = 16;
/// Longest accepted `aid`: a pid.
const MAX_PID_DIGITS: usize = 10;

/// The pane option in which the shell with pid `pid` announces its nonce.
pub fn nonce_option(pid: u32) -> String {
    format!("@wta_nonce_{pid}")
}

/// The nonces of the shells of one pane.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkTrust {
    /// Shell pid → its announced nonce; oldest first when full.
    nonces: BTreeMap<u32, (Millis, String)>,
    /// Pid → when it was last looked up (bounded like `nonces`).
    looked_up: BTreeMap<u32, Millis>,
    /// When the recent first lookups of new pids happened.
    first_lookups: Vec<Millis>,
}

/// The pid a mark names, when it is a plain decimal pid.
fn pid_of(mark: &Mark) -> Option<u32> {
    let aid = mark.aid.as_deref()?;
    if aid.is_empty() || aid.len() > MAX_PID_DIGITS || !aid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    aid.parse().ok().filter(|pid| *pid > 0)
}

impl MarkTrust {
    /// Whether `mark` carries the nonce its shell announced.
    /// The nonce the shell with pid `pid` announced, once learned.
    pub fn nonce_of(&self, pid: u32) -> Option<&str> {
        self.nonces.get(&pid).map(|(_, nonce)| nonce.as_str())
    }

    pub fn accepts(&self, mark: &Mark) -> bool {
        match (pid_of(mark), mark.nonce.as_deref()) {
            (Some(pid), Some(nonce)) => self
                .nonces
                .get(&pid)
                .is_some_and(|(_, known)| known == nonce),
            _ => false,
        }
    }

    /// The shell pid whose announced nonce should be read before `mark` is
    /// judged, if a lookup may run `now`. `None` for a mark that is already
    /// accepted or can never be (no nonce, no pid).
    pub fn lookup_for(&self, mark: &Mark, now: Millis) -> Option<u32> {
        if mark.nonce.is_none() || self.accepts(mark) {
            return None;
        }
        let pid = pid_of(mark)?;
        let due = match self.looked_up.get(&pid) {
            Some(at) => now.saturating_sub(*at) >= LOOKUP_INTERVAL_MS,
            None => {
                let recent = self
                    .first_lookups
                    .iter()
                    .filter(|at| now.saturating_sub(**at) < 1000)
                    .count();
                recent < NEW_PIDS_PER_SECOND
            }
        };
        due.then_some(pid)
    }

    /// Records what a lookup of `pid`'s option found at `now` (`None`: nothing
    /// announced, or not a nonce).
    pub fn learned(&mut self, pid: u32, nonce: Option<String>, now: Millis) {
        if self.looked_up.insert(pid, now).is_none() {
            self.first_lookups
                .retain(|at| now.saturating_sub(*at) < 1000);
            self.first_lookups.push(now);
        }
        if self.looked_up.len() > 4 * MAX_SHELLS {
            let oldest = self
                .looked_up
                .iter()
                .min_by_key(|(_, at)| **at)
                .map(|(p, _)| *p);
            if let Some(pid) = oldest {
                self.looked_up.remove(&pid);
            }
        }
        match nonce.filter(|n| valid_nonce(n)) {
            Some(nonce) => {
                self.nonces.insert(pid, (now, nonce));
                while self.nonces.len() > MAX_SHELLS {
                    let oldest = self
                        .nonces
                        .iter()
                        .min_by_key(|(_, (at, _))| *at)
                        .map(|(pid, _)| *pid);
                    if let Some(pid) = oldest {
                        self.nonces.remove(&pid);
                    }
                }
            }
            None => {
                self.nonces.remove(&pid);
            }
        }
    }
}

/// A nonce as the scripts draw it: 16 to 64 hex digits.
fn valid_nonce(nonce: &str) -> bool {
    (16..=64).contains(&nonce.len()) && nonce.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::{MarkKind, MarkSource};
    use proptest::prelude::*;

    const NONCE: &str = "0123456789abcdef0123456789abcdef";

    fn mark(aid: Option<&str>, nonce: Option<&str>) -> Mark {
        Mark {
            kind: MarkKind::CommandEnd { exit: Some(0) },
            source: MarkSource::Osc133,
            aid: aid.map(str::to_owned),
            cmdline: None,
            nonce: nonce.map(str::to_owned),
        }
    }

    #[test]
    fn only_the_announced_nonce_of_that_pid_is_accepted() {
        let mut trust = MarkTrust::default();
        let genuine = mark(Some("42"), Some(NONCE));
        assert!(!trust.accepts(&genuine));
        assert_eq!(trust.lookup_for(&genuine, 0), Some(42));
        trust.learned(42, Some(NONCE.into()), 0);
        assert!(trust.accepts(&genuine));
        assert_eq!(trust.lookup_for(&genuine, 1), None);
        for forged in [
            mark(Some("42"), None),
            mark(Some("42"), Some("ffffffffffffffffffffffffffffffff")),
            mark(Some("43"), Some(NONCE)),
            mark(None, Some(NONCE)),
            mark(Some("042x"), Some(NONCE)),
        ] {
            assert!(!trust.accepts(&forged), "{forged:?}");
        }
        // No nonce, or no pid: never worth a lookup.
        assert_eq!(trust.lookup_for(&mark(Some("42"), None), 1000), None);
        assert_eq!(trust.lookup_for(&mark(Some("x"), Some("1")), 1000), None);
    }

    #[test]
    fn a_strangers_lookup_never_delays_the_shells_first_one() {
        let mut trust = MarkTrust::default();
        let stranger = mark(Some("99"), Some(NONCE));
        assert_eq!(trust.lookup_for(&stranger, 0), Some(99));
        trust.learned(99, None, 0);
        assert_eq!(trust.lookup_for(&stranger, 1), None, "the same pid waits");
        let shell = mark(Some("42"), Some(NONCE));
        assert_eq!(trust.lookup_for(&shell, 1), Some(42));
        // A flood of new pids: a handful of lookups a second, no more.
        let mut looked = 0;
        for pid in 1000..1100u32 {
            let m = mark(Some(&pid.to_string()), Some(NONCE));
            if let Some(p) = trust.lookup_for(&m, 500) {
                trust.learned(p, None, 500);
                looked += 1;
            }
        }
        assert_eq!(looked, NEW_PIDS_PER_SECOND - 1);
    }

    #[test]
    fn lookups_are_rate_limited_and_a_new_nonce_replaces_the_old() {
        let mut trust = MarkTrust::default();
        trust.learned(7, Some(NONCE.into()), 1000);
        let other = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        let exec_d = mark(Some("7"), Some(other));
        assert_eq!(
            trust.lookup_for(&exec_d, 1000 + LOOKUP_INTERVAL_MS - 1),
            None
        );
        assert_eq!(
            trust.lookup_for(&exec_d, 1000 + LOOKUP_INTERVAL_MS),
            Some(7)
        );
        trust.learned(7, Some(other.into()), 1100);
        assert!(trust.accepts(&exec_d));
        assert!(!trust.accepts(&mark(Some("7"), Some(NONCE))));
        // An option that vanished, or is not a nonce, trusts nothing.
        trust.learned(7, Some("not hex!".into()), 1200);
        assert!(!trust.accepts(&exec_d));
    }

    #[test]
    fn memory_is_bounded_oldest_shell_first() {
        let mut trust = MarkTrust::default();
        for pid in 1..=40u32 {
            trust.learned(pid, Some(NONCE.into()), Millis::from(pid));
        }
        assert_eq!(trust.nonces.len(), MAX_SHELLS);
        assert!(trust.accepts(&mark(Some("40"), Some(NONCE))));
        assert!(!trust.accepts(&mark(Some("1"), Some(NONCE))));
    }

    proptest! {
        /// Whatever a forger prints, without the announced nonce no mark is
        /// accepted, one pid is never looked up twice within the interval,
        /// and new pids are looked up a few times a second at most.
        #[test]
        fn forged_marks_are_never_accepted(
            marks in proptest::collection::vec(
                (proptest::option::of("[0-9]{1,12}"), proptest::option::of("[0-9a-f]{0,40}")),
                0..60,
            ),
        ) {
            let mut trust = MarkTrust::default();
            trust.learned(42, Some(NONCE.into()), 0);
            let mut last: BTreeMap<u32, Millis> = BTreeMap::from([(42, 0)]);
            let mut lookups = Vec::new();
            for (i, (aid, nonce)) in marks.into_iter().enumerate() {
                let now = i as Millis * 7;
                let m = mark(aid.as_deref(), nonce.as_deref());
                if nonce.as_deref() != Some(NONCE) {
                    prop_assert!(!trust.accepts(&m));
                }
                if let Some(pid) = trust.lookup_for(&m, now) {
                    match last.insert(pid, now) {
                        Some(at) => prop_assert!(now - at >= LOOKUP_INTERVAL_MS),
                        None => lookups.push(now),
                    }
                    let new_in_a_second = lookups.iter().filter(|at| now - **at < 1000).count();
                    prop_assert!(new_in_a_second <= NEW_PIDS_PER_SECOND);
                    // The lookup finds what was announced: nothing for a forged pid.
                    let found = (pid == 42).then(|| NONCE.to_owned());
                    trust.learned(pid, found, now);
                }
            }
        }
    }
}
