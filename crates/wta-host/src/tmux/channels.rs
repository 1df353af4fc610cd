//! tmux `wait-for` channels: a pane's own process blocks on one until the
//! side that opened the pane has prepared it (a pipe attached) and signals
//! it (`AsyncHost::signal`).

use super::{Cmd, TmuxHost};
use crate::HostError;

impl TmuxHost {
    /// Blocks until `channel` is signalled (`tmux wait-for CHANNEL`).
    pub fn wait_for(&self, channel: &str) -> Result<(), HostError> {
        self.run(&Cmd::new("wait-for").arg(channel)).map(drop)
    }

    /// Wakes whoever waits on `channel` (`tmux wait-for -S CHANNEL`).
    pub fn signal_channel(&self, channel: &str) -> Result<(), HostError> {
        self.run(&Cmd::new("wait-for").flag("-S").arg(channel))
            .map(drop)
    }
}

impl TmuxHost {
    /// Takes the text of paste buffer `name` and deletes the buffer (a
    /// prompt's answer handed over without a shell: `command-prompt` puts
    /// it there with `set-buffer`).
    pub fn take_buffer(&self, name: &str) -> Result<String, HostError> {
        let text = self.run_binary(&Cmd::new("show-buffer").opt("-b", name))?;
        self.run(&Cmd::new("delete-buffer").opt("-b", name))?;
        Ok(text)
    }
}
