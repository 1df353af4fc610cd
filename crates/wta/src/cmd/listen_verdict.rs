//! Whether a pane that `wta listen` follows shows WTA shell integration.
//!
//! The watcher decides by itself for a pane it starts (a gated shell that
//! stays quiet) and for commands it types. `wta listen` types nothing, so on
//! a pane whose shell never announced itself it would wait forever. This
//! pure machine closes that gap: `listen` looks at the pane now and then
//! (foreground program and screen text) and feeds each [`Look`] with the
//! tracker's verdict to [`step`].
//!
//! Rule (the watcher's own for unverified commands): once a command ran —
//! the foreground program changed, or the screen gained or scrolled lines
//! (Enter; typing alone only changes the cursor's line) — and no trusted
//! mark made the tracker `Present` within `grace_ms`, the pane is `Absent`.
//! An integrated shell marks every prompt within milliseconds of Enter.
//!
//! Invariants: time is an input (`at`, milliseconds since listen attached);
//! `Present`/`Absent` from the tracker win at once and are final; evidence
//! is kept until the grace ends (a later look cannot erase it).

use wta_shell::Integration;

/// One look at the pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Look {
    /// The foreground program's name.
    pub foreground: String,
    /// The visible screen's text.
    pub screen: String,
}

/// Where the judgement stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// No look yet.
    Start,
    /// The pane as first seen; no command seen running since.
    Quiet {
        baseline: Look,
    },
    /// A command ran at `since`; its marks are awaited until `since + grace`.
    CommandSeen {
        since: u64,
    },
    /// Final verdicts.
    Present,
    Absent,
}

/// Feeds one look (taken at `at` ms, with the tracker's `integration`).
pub fn step(probe: Probe, at: u64, look: Look, integration: Integration, grace_ms: u64) -> Probe {
    match (probe, integration) {
        (Probe::Present, _) => Probe::Present,
        (Probe::Absent, _) => Probe::Absent,
        (_, Integration::Present) => Probe::Present,
        (_, Integration::Absent) => Probe::Absent,
        (Probe::Start, Integration::Unknown) => Probe::Quiet { baseline: look },
        (Probe::Quiet { baseline }, Integration::Unknown) => {
            if ran_a_command(&baseline, &look) {
                Probe::CommandSeen { since: at }
            } else {
                // Typing changes the baseline's last line: keep the newest.
                Probe::Quiet { baseline: look }
            }
        }
        (Probe::CommandSeen { since }, Integration::Unknown) => {
            if at.saturating_sub(since) >= grace_ms {
                Probe::Absent
            } else {
                Probe::CommandSeen { since }
            }
        }
    }
}

/// The screen's lines without the blank ones at the bottom.
fn lines(screen: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// True when something beyond typing on the last line happened between two looks.
fn ran_a_command(before: &Look, now: &Look) -> bool {
    if before.foreground != now.foreground {
        return true;
    }
    let (old, new) = (lines(&before.screen), lines(&now.screen));
    if old.len() != new.len() {
        return true;
    }
    // Every line but the last (the one being typed on) must be unchanged.
    let above = old.len().saturating_sub(1);
    old[..above] != new[..above]
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const GRACE: u64 = 1000;

    fn look(foreground: &str, screen: &str) -> Look {
        Look {
            foreground: foreground.into(),
            screen: screen.into(),
        }
    }

    /// A look at a time, with the tracker's verdict then.
    type Timed = (u64, Look, Integration);

    fn run(looks: &[Timed]) -> Probe {
        looks.iter().fold(Probe::Start, |p, (at, l, i)| {
            step(p, *at, l.clone(), *i, GRACE)
        })
    }

    use Integration::{Absent, Present, Unknown};

    fn check(table: Vec<(&str, Vec<Timed>, Probe)>) {
        for (name, looks, want) in table {
            assert_eq!(run(&looks), want, "{name}");
        }
    }

    /// What counts as a command having run, and what does not.
    #[test]
    fn rows_of_what_a_command_is() {
        let prompt = look("bash", "$\n\n\n");
        let typing = look("bash", "$ echo hi\n\n");
        let entered = look("bash", "$ echo hi\nhi\n$\n");
        let running = look("sleep", "$ sleep 5\n");
        let scrolled = look("bash", "b\nc\n$\n");
        let full = look("bash", "a\nb\n$\n");
        check(vec![
            (
                "first look",
                vec![(0, prompt.clone(), Unknown)],
                Probe::Quiet {
                    baseline: prompt.clone(),
                },
            ),
            (
                "typing is not a command",
                vec![
                    (0, prompt.clone(), Unknown),
                    (400, typing.clone(), Unknown),
                    (5000, typing.clone(), Unknown),
                ],
                Probe::Quiet {
                    baseline: typing.clone(),
                },
            ),
            (
                "Enter is",
                vec![(0, typing.clone(), Unknown), (400, entered, Unknown)],
                Probe::CommandSeen { since: 400 },
            ),
            (
                "a foreground program is",
                vec![(0, prompt, Unknown), (400, running, Unknown)],
                Probe::CommandSeen { since: 400 },
            ),
            (
                "a full screen scrolling is",
                vec![(0, full, Unknown), (400, scrolled, Unknown)],
                Probe::CommandSeen { since: 400 },
            ),
        ]);
    }

    /// The grace after a command, and the verdicts that are final.
    #[test]
    fn rows_of_the_grace_and_the_verdicts() {
        let prompt = look("bash", "$\n\n\n");
        let typing = look("bash", "$ echo hi\n\n");
        let entered = look("bash", "$ echo hi\nhi\n$\n");
        let ran = |more: &[Timed]| {
            let mut looks = vec![
                (0, typing.clone(), Unknown),
                (400, entered.clone(), Unknown),
            ];
            looks.extend_from_slice(more);
            looks
        };
        check(vec![
            (
                "within the grace: still waiting",
                ran(&[(1399, entered.clone(), Unknown)]),
                Probe::CommandSeen { since: 400 },
            ),
            (
                "no marks by the end of the grace: absent",
                ran(&[(1400, entered.clone(), Unknown)]),
                Probe::Absent,
            ),
            (
                "a later look does not erase the evidence",
                ran(&[
                    (800, typing.clone(), Unknown),
                    (1400, typing.clone(), Unknown),
                ]),
                Probe::Absent,
            ),
            (
                "marks within the grace: present, for good",
                ran(&[
                    (500, entered.clone(), Present),
                    (9000, entered.clone(), Unknown),
                ]),
                Probe::Present,
            ),
            (
                "the tracker's absent wins",
                vec![(0, prompt, Absent)],
                Probe::Absent,
            ),
            (
                "absent is final",
                ran(&[
                    (1400, entered.clone(), Unknown),
                    (1500, entered.clone(), Present),
                ]),
                Probe::Absent,
            ),
        ]);
    }

    proptest! {
        /// Looks that only ever change the last line never conclude absent.
        #[test]
        fn typing_alone_never_concludes(typed in proptest::collection::vec("[a-z ]{0,20}", 1..20)) {
            let mut probe = Probe::Start;
            for (i, t) in typed.iter().enumerate() {
                let l = look("bash", &format!("earlier\n$ {t}\n"));
                probe = step(probe, i as u64 * 1000, l, Unknown, GRACE);
                prop_assert!(matches!(probe, Probe::Quiet { .. }), "{probe:?}");
            }
        }

        /// Whatever the looks, a tracker verdict decides.
        #[test]
        fn tracker_verdicts_win(screens in proptest::collection::vec("[a-z$\n]{0,30}", 1..10), present in any::<bool>()) {
            let mut probe = Probe::Start;
            for (i, s) in screens.iter().enumerate() {
                probe = step(probe, i as u64 * 700, look("bash", s), Unknown, GRACE);
            }
            let verdict = if present { Present } else { Absent };
            let end = step(probe.clone(), 99_999, look("bash", ""), verdict, GRACE);
            let want = match probe {
                Probe::Absent => Probe::Absent,
                Probe::Present => Probe::Present,
                _ if present => Probe::Present,
                _ => Probe::Absent,
            };
            prop_assert_eq!(end, want);
        }
    }
}
