//! Saying something to the user in their tmux client: `display-message` on
//! the client that shows a pane's session, the text literal (a `#` in it is
//! never a format or a style, a `%` never a date: tmux runs the message
//! through `strftime`, expands it and draws it, see `cmd`).

use wta_protocol::PaneId;

use super::{Cmd, TmuxHost};
use crate::HostError;

/// How long the message stays in the status line (ms).
pub const NOTIFY_MS: u32 = 8000;

impl TmuxHost {
    /// Shows `text` in the status line of the client that shows `pane`'s
    /// session (nothing when no client is attached).
    pub fn notify(&self, pane: &PaneId, text: &str) -> Result<(), HostError> {
        let cmd = Cmd::new("display-message")
            .opt("-d", &NOTIFY_MS.to_string())
            .opt("-t", pane.as_str())
            .arg_status_text(text);
        self.run(&cmd).map(drop)
    }
}
