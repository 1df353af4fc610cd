//! `wta popup`'s decision and its steps, over any [`TerminalHost`]: what
//! to do about the tab's agent pane ([`plan`], pure, tested over every
//! case) and doing it ([`carry_out`]).
//!
//! The pane is never copied or restarted: it is the same helper with its
//! transcript and session. A pane beside the shell is stashed, shown in
//! the popup, and put back beside the shell (with the keyboard, if it had
//! it) once the popup closes; a stashed one is shown and stays stashed.
//! Closing is the popup binding's key pressed again (in the popup, it
//! runs `wta popup` for the stashed pane: [`Found::InPopup`]), or tmux's
//! detach (`prefix d`) in the popup. Esc is never taken: it goes to the
//! pane, where it cancels a card or a turn as it does beside the shell.

use wta_host::{HostError, Popup, TerminalHost};
use wta_protocol::{PaneId, WindowId};

/// Where the tab's agent pane is when `wta popup` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The tab has none.
    Nothing,
    /// In the tab, beside the shell; `focused` when it has the keyboard there.
    Beside { focused: bool },
    /// In the stash, no popup showing it.
    Stashed,
    /// A popup shows it now.
    InPopup,
}

/// What `wta popup` does to the agent pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Close the popup that shows it.
    Close,
    /// Stash it, show it, and put it back beside the shell after
    /// (focusing it again when `refocus`).
    ShowFromBeside { refocus: bool },
    /// Show it; it stays stashed.
    ShowFromStash,
}

/// What `wta popup` does: start a stashed agent pane for the tab first
/// (it has none), then the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub start_first: bool,
    pub step: Step,
}

/// The one decision: the same key opens and closes.
pub fn plan(found: Found) -> Plan {
    let (start_first, step) = match found {
        Found::Nothing => (true, Step::ShowFromStash),
        Found::Beside { focused } => (false, Step::ShowFromBeside { refocus: focused }),
        Found::Stashed => (false, Step::ShowFromStash),
        Found::InPopup => (false, Step::Close),
    };
    Plan { start_first, step }
}

/// Where the pane is once the popup closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Back {
    /// Beside the shell again.
    Beside,
    /// In the stash.
    Stash,
    /// It ended while shown (`/quit`, its helper exited).
    Gone,
}

impl Back {
    /// The JSON word.
    pub fn word(self) -> &'static str {
        match self {
            Self::Beside => "beside",
            Self::Stash => "stash",
            Self::Gone => "gone",
        }
    }
}

/// What `wta popup` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The popup that showed the pane was closed.
    Closed(PaneId),
    /// The pane was shown until the popup closed, and is now `back`.
    Shown { pane: PaneId, back: Back },
}

/// The agent pane and its tab, as the caller found them.
#[derive(Debug, Clone)]
pub struct Agent {
    pub pane: PaneId,
    /// The tab it belongs to.
    pub tab: WindowId,
    /// The pane it sits beside (stashed beside it, the popup over it).
    pub neighbour: PaneId,
}

/// Carries out `step` on the agent pane (started already when the plan
/// said so). Blocks while the popup is up. A pane taken from beside the shell goes back there even
/// when the popup failed, and that failure is returned after.
pub fn carry_out(
    host: &dyn TerminalHost,
    agent: &Agent,
    step: Step,
    popup: &Popup,
) -> anyhow::Result<Outcome> {
    let pane = &agent.pane;
    match step {
        Step::Close => {
            host.close_popup(pane)?;
            Ok(Outcome::Closed(pane.clone()))
        }
        Step::ShowFromStash => {
            let shown = host.show_popup(pane, popup);
            let back = match host.pane(pane) {
                Err(HostError::PaneNotFound(_)) => Back::Gone,
                Err(e) => return Err(e.into()),
                Ok(p) if p.window == agent.tab => Back::Beside,
                Ok(_) => Back::Stash,
            };
            shown?;
            Ok(Outcome::Shown {
                pane: pane.clone(),
                back,
            })
        }
        Step::ShowFromBeside { refocus } => {
            host.stash(pane, &agent.neighbour)?;
            let shown = host.show_popup(pane, popup);
            let back = match host.pane(pane) {
                Err(HostError::PaneNotFound(_)) => Back::Gone,
                Err(e) => return Err(e.into()),
                // Someone showed it there meanwhile (`wta pane toggle`).
                Ok(p) if p.window == agent.tab => Back::Beside,
                Ok(_) => {
                    host.restore(pane)?;
                    Back::Beside
                }
            };
            if refocus && back == Back::Beside {
                host.focus(pane)?;
            }
            shown?;
            Ok(Outcome::Shown {
                pane: pane.clone(),
                back,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use wta_host::{FakeHost, Split, SplitDirection};

    use super::*;

    #[test]
    fn the_same_key_shows_and_closes() {
        let rows = [
            (Found::Nothing, true, Step::ShowFromStash),
            (
                Found::Beside { focused: true },
                false,
                Step::ShowFromBeside { refocus: true },
            ),
            (
                Found::Beside { focused: false },
                false,
                Step::ShowFromBeside { refocus: false },
            ),
            (Found::Stashed, false, Step::ShowFromStash),
            (Found::InPopup, false, Step::Close),
        ];
        for (found, start_first, step) in rows {
            assert_eq!(plan(found), Plan { start_first, step }, "{found:?}");
        }
    }

    /// A fake tab: the shell `%0` and an agent pane beside it.
    fn tab() -> (FakeHost, Agent, Popup) {
        let host = FakeHost::new();
        let shell = PaneId::from_number(0);
        let pane = host
            .split(&Split {
                target: shell.clone(),
                direction: SplitDirection::Right,
                percent: Some(40),
                command: None,
                cwd: None,
                env: Vec::new(),
                full: true,
                focus: true,
            })
            .unwrap();
        let agent = Agent {
            pane: pane.id,
            tab: pane.window,
            neighbour: shell.clone(),
        };
        let popup = Popup {
            client: None,
            over: shell,
            width_percent: 70,
            height_percent: 60,
            column: None,
            row: None,
        };
        (host, agent, popup)
    }

    #[test]
    fn a_pane_beside_the_shell_goes_into_the_popup_and_back() {
        let (host, agent, popup) = tab();
        let done = carry_out(
            &host,
            &agent,
            Step::ShowFromBeside { refocus: true },
            &popup,
        )
        .unwrap();
        assert_eq!(
            done,
            Outcome::Shown {
                pane: agent.pane.clone(),
                back: Back::Beside
            }
        );
        let p = &agent.pane;
        assert_eq!(
            host.log(),
            [
                format!("split %0 Right -> {p} None"),
                format!("stash {p}"),
                format!("popup {p} 70%x60% on the tab's terminal"),
                format!("restore {p}"),
                format!("focus {p}"),
            ]
        );
        assert_eq!(host.pane(p).unwrap().window, agent.tab);
    }

    #[test]
    fn a_stashed_pane_is_shown_and_stays_stashed() {
        let (host, agent, popup) = tab();
        host.stash(&agent.pane, &agent.neighbour).unwrap();
        let done = carry_out(&host, &agent, Step::ShowFromStash, &popup).unwrap();
        assert_eq!(
            done,
            Outcome::Shown {
                pane: agent.pane.clone(),
                back: Back::Stash
            }
        );
        assert!(!host.log().iter().any(|l| l.starts_with("restore")));
        assert!(!host.visible(&agent.pane).unwrap());
    }

    #[test]
    fn closing_detaches_the_popup_and_leaves_the_pane_stashed() {
        let (host, agent, popup) = tab();
        host.stash(&agent.pane, &agent.neighbour).unwrap();
        host.hold_popup(&agent.pane).unwrap();
        assert!(host.visible(&agent.pane).unwrap(), "a popup shows it");
        let done = carry_out(&host, &agent, Step::Close, &popup).unwrap();
        assert_eq!(done, Outcome::Closed(agent.pane.clone()));
        assert!(!host.in_popup(&agent.pane).unwrap());
        assert!(!host.visible(&agent.pane).unwrap(), "stashed, unseen");
    }

    #[test]
    fn a_popup_that_fails_puts_the_pane_back_first() {
        let (host, agent, popup) = tab();
        let bad = Popup {
            width_percent: 1,
            ..popup
        };
        let err =
            carry_out(&host, &agent, Step::ShowFromBeside { refocus: false }, &bad).unwrap_err();
        assert!(err.to_string().contains("percent"), "{err}");
        assert_eq!(host.pane(&agent.pane).unwrap().window, agent.tab);
        assert!(host.log().contains(&format!("restore {}", agent.pane)));
    }
}
