//! Follow focus (`[pane] follow_focus = true`, issue 30): the agent's target
//! pane is the tab's focused shell pane. At each tab scan (a slow timer that
//! runs whether or not the pane is seen, so a popup opened from another
//! pane finds it the target) the machine asks which shell pane has the
//! focus (`Command::ReadFocus`; the
//! runtime answers only when it is another pane than the target, never
//! this agent pane); a new one becomes the target: the status line names
//! it, and later turns' context and cards go there (`Command::Retarget`).
//!
//! A card already proposed stays bound to the pane of its turn (the turn
//! context the proposal machine keeps): moving the focus before confirming
//! never sends it elsewhere. Pure.

use wta_protocol::PaneId;
use wta_state::DomainEvent;

use super::{Command, Machine, Out};

impl Machine {
    /// With follow focus on, each tab scan reads the focus too.
    pub(super) fn focus_due(&self, out: &mut Out) {
        if self.pane.config.follow_focus && self.pane.config.owner_tab.is_some() {
            out.cmd(Command::ReadFocus);
        }
    }

    /// `pane` has the focus: it becomes the target unless it already is,
    /// is this agent pane, or follow focus is off.
    pub(super) fn focused(&mut self, pane: PaneId, out: &mut Out) {
        let config = &self.pane.config;
        if !config.follow_focus
            || config.target_pane.as_ref() == Some(&pane)
            || config.own_pane.as_ref() == Some(&pane)
        {
            return;
        }
        self.pane.config.target_pane = Some(pane.clone());
        // The next probe reads the new target's directory and says it.
        self.pane.probed_cwd = None;
        out.cmd(Command::Retarget { pane: pane.clone() });
        out.event(DomainEvent::TargetPane {
            pane: pane.to_string(),
            cwd: None,
        });
        // What the new target is doing, as its watcher last said (the app
        // keeps the facts of the target only).
        self.card_pane_facts(pane.as_str(), out);
        out.cmd(Command::ProbeStatus);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use wta_protocol::{PaneId, WindowId};

    use crate::machine::{Command, Input, Machine, PaneConfig, step};

    fn machine(follow_focus: bool) -> (Machine, Instant) {
        let mut m = Machine::new(PaneConfig {
            has_host: true,
            owner_tab: Some(WindowId::from_number(1)),
            target_pane: Some(PaneId::from_number(0)),
            own_pane: Some(PaneId::from_number(1)),
            follow_focus,
            ..PaneConfig::default()
        });
        let now = Instant::now();
        m.start(now);
        (m, now)
    }

    fn focused(m: &mut Machine, n: u32, now: Instant) -> Vec<Command> {
        let pane = PaneId::from_number(n);
        step(m, Input::Focused { pane }, now)
    }

    #[test]
    fn a_focused_shell_becomes_the_target_and_the_status_line_says_so() {
        let (mut m, now) = machine(true);
        assert!(step(&mut m, Input::TabScanDue, now).contains(&Command::ReadFocus));
        let commands = focused(&mut m, 2, now);
        assert!(
            commands.contains(&Command::Retarget {
                pane: PaneId::from_number(2)
            }),
            "{commands:?}"
        );
        assert!(commands.contains(&Command::ProbeStatus), "{commands:?}");
        assert_eq!(m.app.target.as_ref().map(|t| t.pane.as_str()), Some("%2"));
        // The same pane again, or this agent pane: nothing moves.
        assert!(focused(&mut m, 2, now).is_empty());
        assert!(focused(&mut m, 1, now).is_empty());
        assert_eq!(m.app.target.as_ref().map(|t| t.pane.as_str()), Some("%2"));
    }

    #[test]
    fn the_new_target_brings_what_its_watcher_last_said() {
        let (mut m, now) = machine(true);
        let busy = wta_state::PaneFacts {
            busy: Some(wta_state::Busy::Running {
                command: "make".into(),
            }),
            ..m.app.facts_of("%2").clone()
        };
        let pane = PaneId::from_number(2);
        let facts = busy.clone();
        step(&mut m, Input::PaneFacts { pane, facts }, now);
        assert_ne!(m.app.facts_of("%2"), &busy, "not the target yet");
        focused(&mut m, 2, now);
        assert_eq!(m.app.facts_of("%2"), &busy);
    }

    #[test]
    fn a_key_in_a_pane_shown_again_reads_the_focus_at_once() {
        let (mut m, now) = machine(true);
        let unseen = crate::machine::Probe {
            cwd: Some("/src".into()),
            visible: false,
            owner_gone: false,
        };
        let seen = crate::machine::Probe {
            visible: true,
            ..unseen.clone()
        };
        step(&mut m, Input::Status(seen), now);
        step(&mut m, Input::Status(unseen), now);
        assert!(m.app.pane_hidden);
        let key = wta_state::Event::Key(wta_state::Key::ch('x'));
        assert!(step(&mut m, Input::App(key), now).contains(&Command::ReadFocus));
    }

    #[test]
    fn without_follow_focus_the_target_stays() {
        let (mut m, now) = machine(false);
        assert!(!step(&mut m, Input::TabScanDue, now).contains(&Command::ReadFocus));
        assert!(focused(&mut m, 2, now).is_empty());
        assert_eq!(m.app.target.as_ref().map(|t| t.pane.as_str()), Some("%0"));
    }
}
