//! What a watcher learns about a pane and leaves on it for one-shot readers.
//!
//! - [`announced_for`]: whether a `@wta_integration` announcement belongs to
//!   the pane's shell (its own process, or a child of a gated wrapper).
//! - [`INTEGRATION_STATE_OPTION`]: the tracker's integration verdict
//!   (`present` from marks, `absent` from a quiet start or submit), written
//!   when it changes so `wta active-pane`/`list-panes` can report it.

use wta_host::parent_pid;
use wta_protocol::PaneId;

use crate::scripts::IntegrationMark;
use crate::tracker::Integration;
use crate::watcher::Host;

/// Pane option with the watcher's integration verdict: `present` or `absent`.
pub const INTEGRATION_STATE_OPTION: &str = "@wta_integration_state";

/// Set (to `1`) by whoever starts a shell with WTA integration loaded: until
/// its first marks arrive, that shell is still starting, not integration-less.
pub const INTEGRATION_EXPECTED_OPTION: &str = "@wta_integration_expected";

/// True when `mark` was written by the pane's shell: the pane's own process,
/// or a direct child of it (a gated pane's wrapper keeps `pane_pid` and runs
/// the shell as its child, see [`crate::gated_command`]).
pub fn announced_for(mark: &IntegrationMark, pane_pid: u32) -> bool {
    mark.valid_for(pane_pid) || (pane_pid != 0 && parent_pid(mark.pid) == Some(pane_pid))
}

/// The option value for `integration`; `None` leaves the option alone.
pub(crate) fn state_value(integration: Integration) -> Option<&'static str> {
    match integration {
        Integration::Present => Some("present"),
        Integration::Absent => Some("absent"),
        Integration::Unknown => None,
    }
}

/// Records the tracker's verdict on the pane (best effort: the pane may be gone).
pub(crate) async fn publish(host: &Host, pane: &PaneId, integration: Integration) {
    if let Some(value) = state_value(integration) {
        let _ = host.set_option(pane, INTEGRATION_STATE_OPTION, value).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scripts::Shell;

    #[test]
    fn a_child_of_the_pane_process_may_announce() {
        let me = std::process::id();
        let parent = parent_pid(me).expect("our parent");
        let mark = IntegrationMark {
            shell: Shell::Bash,
            pid: me,
        };
        assert!(announced_for(&mark, me));
        assert!(announced_for(&mark, parent));
        assert!(!announced_for(&mark, 0));
        assert!(!announced_for(&mark, me.wrapping_add(1_000_000)));
    }

    #[test]
    fn only_verdicts_are_published() {
        assert_eq!(state_value(Integration::Present), Some("present"));
        assert_eq!(state_value(Integration::Absent), Some("absent"));
        assert_eq!(state_value(Integration::Unknown), None);
    }
}
