//! Small host facts for the status line: whether this agent pane is
//! visible, the target pane's cwd, whether its tab still exists (blocking
//! tmux calls), and the clipboard.

use wta_host::{HostError, TerminalHost};
use wta_protocol::{PaneId, WindowId};

pub use crate::machine::Probe;

/// Runs one probe (blocking host calls: run it off the UI task).
pub fn probe(
    host: &dyn TerminalHost,
    target: &PaneId,
    own: Option<&PaneId>,
    owner: Option<&WindowId>,
) -> Probe {
    let visible = own.is_none_or(|own| match host.visible(own) {
        Ok(visible) => visible,
        Err(err) => {
            tracing::debug!("visibility probe failed: {err}");
            true
        }
    });
    // The target is gone (or tmux is): keep refreshing, show no cwd.
    let cwd = host
        .pane(target)
        .ok()
        .map(|p| p.cwd.to_string_lossy().into_owned());
    // A remote shell over `wta ssh`: where commands run is over there
    // (`host:dir`, as scp writes it), never the local directory.
    let cwd = match wta_shell::remote::read_remote_shell(host, target) {
        Some(remote) => Some(format!(
            "{}:{}",
            remote.host,
            remote.cwd.unwrap_or_default()
        )),
        None => cwd,
    };
    let owner_gone = owner.is_some_and(|tab| host.window_exists(tab).is_ok_and(|exists| !exists));
    Probe {
        cwd,
        visible,
        owner_gone,
    }
}

/// Copies `text` to the clipboard through the host (tmux: `set-buffer -w`, OSC 52).
pub fn copy_to_clipboard(host: &dyn TerminalHost, text: &str) -> Result<(), HostError> {
    host.copy_to_clipboard(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_reads_visibility_and_cwd_from_the_host() {
        let host = wta_host::FakeHost::new();
        let target = PaneId::from_number(0);
        let tab = WindowId::from_number(0);
        let seen = probe(&host, &target, Some(&target), Some(&tab));
        assert_eq!(seen.cwd.as_deref(), Some("/home/user"));
        assert!(seen.visible && !seen.owner_gone);
        let gone = probe(
            &host,
            &PaneId::from_number(9),
            Some(&PaneId::from_number(8)),
            Some(&WindowId::from_number(7)),
        );
        assert_eq!(gone.cwd, None);
        // While a watcher follows a remote shell there: its host and directory.
        let place = r#"{"host":"me@lab","cwd":"/srv"}"#;
        host.set_option(&target, wta_shell::remote::REMOTE_SHELL_OPTION, place)
            .unwrap();
        let remote = probe(&host, &target, Some(&target), Some(&tab));
        assert_eq!(remote.cwd.as_deref(), Some("me@lab:/srv"));
        assert!(gone.visible, "unknown counts as visible");
        assert!(gone.owner_gone, "the tab @7 does not exist");
    }
}
