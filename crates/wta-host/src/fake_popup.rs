//! Popups on the in-memory [`FakeHost`]: a popup shows a stashed pane and
//! counts as the user seeing it ([`TerminalHost::visible`]).
//!
//! [`TerminalHost::show_popup`] on tmux returns once the user closed the
//! popup; here the user closes it at once, so the call is logged
//! (`popup %N 80%x80% on /dev/pts/0`) and returns. A popup that stays open
//! while a test looks (what a `wta popup` blocked in tmux is) is made with
//! [`FakeHost::hold_popup`] and closed with [`TerminalHost::close_popup`].

use wta_protocol::PaneId;

use crate::popup::cells;
use crate::{FakeHost, HostError, Popup};

/// The terminal the fake's popups are measured against.
const SCREEN: (u16, u16) = (160, 40);

impl FakeHost {
    /// A popup that stays open shows the stashed `pane` (until
    /// [`crate::TerminalHost::close_popup`]).
    pub fn hold_popup(&self, pane: &PaneId) -> Result<(), HostError> {
        self.check_stashed(pane)?;
        self.with(|w| {
            w.popups.push(pane.clone());
            w.log.push(format!("popup {pane} held"));
        });
        Ok(())
    }

    fn check_stashed(&self, pane: &PaneId) -> Result<(), HostError> {
        self.check_pane(pane)?;
        if self.with(|w| w.stashed.iter().any(|r| &r.pane == pane)) {
            Ok(())
        } else {
            Err(HostError::InvalidArgument(format!(
                "pane {pane} is not stashed, so it cannot be shown in a popup"
            )))
        }
    }

    pub(crate) fn popup_show(&self, pane: &PaneId, popup: &Popup) -> Result<(), HostError> {
        self.check_stashed(pane)?;
        self.check_pane(&popup.over)?;
        cells(popup, SCREEN.0, SCREEN.1)?;
        let on = popup
            .client
            .as_ref()
            .map_or_else(|| "the tab's terminal".to_owned(), ToString::to_string);
        self.with(|w| {
            w.log.push(format!(
                "popup {pane} {}%x{}% on {on}",
                popup.width_percent, popup.height_percent
            ))
        });
        Ok(())
    }

    pub(crate) fn popup_close(&self, pane: &PaneId) -> Result<bool, HostError> {
        self.check_pane(pane)?;
        Ok(self.with(|w| {
            let before = w.popups.len();
            w.popups.retain(|p| p != pane);
            let closed = w.popups.len() != before;
            if closed {
                w.log.push(format!("close-popup {pane}"));
            }
            closed
        }))
    }

    pub(crate) fn popup_shown(&self, pane: &PaneId) -> bool {
        self.with(|w| w.popups.contains(pane))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::TerminalHost;

    fn popup(over: &PaneId) -> Popup {
        Popup {
            client: None,
            over: over.clone(),
            width_percent: 80,
            height_percent: 60,
            column: None,
            row: None,
        }
    }

    #[test]
    fn a_popup_shows_a_stashed_pane_and_counts_as_seen() {
        let host = FakeHost::new();
        let shell = PaneId::from_number(0);
        let agent = host
            .split(&crate::Split {
                target: shell.clone(),
                direction: crate::SplitDirection::Right,
                percent: Some(40),
                command: None,
                cwd: None,
                env: Vec::new(),
                full: true,
                focus: false,
            })
            .unwrap()
            .id;
        let err = host.show_popup(&agent, &popup(&shell)).unwrap_err();
        assert!(err.to_string().contains("not stashed"), "{err}");

        assert!(host.visible(&agent).unwrap());
        host.stash(&agent, &shell).unwrap();
        assert!(!host.visible(&agent).unwrap(), "stashed: out of sight");
        host.show_popup(&agent, &popup(&shell)).unwrap();
        assert!(
            host.log()
                .contains(&format!("popup {agent} 80%x60% on the tab's terminal")),
            "{:?}",
            host.log()
        );
        assert!(
            !host.in_popup(&agent).unwrap(),
            "closed by the time it returns"
        );

        host.hold_popup(&agent).unwrap();
        assert!(host.in_popup(&agent).unwrap() && host.visible(&agent).unwrap());
        assert!(host.close_popup(&agent).unwrap());
        assert!(!host.in_popup(&agent).unwrap() && !host.visible(&agent).unwrap());
        assert!(!host.close_popup(&agent).unwrap(), "nothing left to close");
        let bad = Popup {
            width_percent: 5,
            ..popup(&shell)
        };
        assert!(host.show_popup(&agent, &bad).is_err());
    }
}
