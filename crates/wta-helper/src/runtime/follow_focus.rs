//! Follow focus's I/O (`machine/focus.rs` decides): which shell pane of the
//! owner tab is active, read from tmux off the UI task, and the runtime's
//! target moved when the machine says so (the proposal glue reads it for
//! each new turn; the executor starts following the pane at once).

use wta_host::{PaneInfo, TerminalHost};
use wta_protocol::PaneId;

use super::Runtime;
use crate::machine::Input;

impl Runtime {
    /// Answers `Command::ReadFocus`: `Input::Focused` when the tab's
    /// focused shell pane is not the target.
    pub(super) fn read_focus(&self) {
        let (Some(host), Some(tab)) = (self.host.clone(), self.config.owner_tab.clone()) else {
            return;
        };
        let own = self.config.own_pane.clone();
        let target = self.config.target_pane.clone();
        self.spawn_blocking(move || {
            let panes = match host.window_panes(&tab) {
                Ok(panes) => panes,
                Err(err) => {
                    tracing::debug!("reading the focus of {tab}: {err}");
                    return None;
                }
            };
            let pane = focused_shell(&panes, own.as_ref())?;
            (Some(&pane) != target.as_ref()).then_some(Input::Focused { pane })
        });
    }

    /// Later turns and terminals go to `pane`; its watcher starts now so its prompt
    /// state is known when a card for it is confirmed.
    pub(super) fn retarget(&mut self, pane: PaneId) {
        self.config.target_pane = Some(pane.clone());
        // The agent's terminals made from now on go beside the new target.
        self.terminals.retarget(pane.clone());
        if let Some(executor) = self.cards.executor() {
            tokio::spawn(async move {
                if let Err(err) = executor.watch(&pane).await {
                    tracing::debug!("following the new target {pane}: {err}");
                }
            });
        }
    }
}

/// The tab's active pane when it is a live shell other than the agent pane
/// `own` (focus on the agent pane, or on a program that is not a shell,
/// leaves the target where it was). Pure.
pub(crate) fn focused_shell(panes: &[PaneInfo], own: Option<&PaneId>) -> Option<PaneId> {
    let active = panes.iter().find(|p| p.active)?;
    let wanted =
        Some(&active.id) != own && !active.dead && crate::executor::is_shell(&active.command);
    wanted.then(|| active.id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane(n: u32, active: bool, command: &str) -> PaneInfo {
        let host = wta_host::FakeHost::new();
        let mut info = host
            .pane(&PaneId::from_number(0))
            .expect("the fake host's first pane");
        info.id = PaneId::from_number(n);
        info.active = active;
        info.command = command.to_owned();
        info
    }

    #[test]
    fn the_focused_shell_is_the_active_pane_unless_it_is_the_agent_or_no_shell() {
        let own = PaneId::from_number(1);
        let tab = [
            pane(0, false, "bash"),
            pane(1, false, "wta"),
            pane(2, true, "zsh"),
        ];
        assert_eq!(
            focused_shell(&tab, Some(&own)),
            Some(PaneId::from_number(2))
        );
        let on_agent = [pane(0, false, "bash"), pane(1, true, "wta")];
        assert_eq!(focused_shell(&on_agent, Some(&own)), None);
        let on_vim = [pane(0, false, "bash"), pane(2, true, "vim")];
        assert_eq!(focused_shell(&on_vim, Some(&own)), None);
        let mut dead = pane(2, true, "bash");
        dead.dead = true;
        assert_eq!(focused_shell(&[dead], Some(&own)), None);
        assert_eq!(focused_shell(&[], Some(&own)), None);
    }
}
