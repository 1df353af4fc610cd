//! The last finished command of a pane, as recorded by a watcher.
//!
//! Design: a watcher (`wta listen`, later the helper) stores each finished
//! run as compact JSON in the pane option `@wta_last_command`. The option
//! lives on the pane's own tmux server, is scoped to the pane and disappears
//! with it, so no state file needs cleanup. `wta capture-pane --last-command`
//! reads it back. The rendered output is capped at [`MAX_RECORDED_OUTPUT`].

use serde::{Deserialize, Serialize};
use wta_host::TerminalHost;
use wta_protocol::PaneId;

use crate::error::ShellError;
use crate::tracker::Run;

/// Pane option holding the last finished command as JSON.
pub const LAST_COMMAND_OPTION: &str = "@wta_last_command";
/// Rendered output kept in the record (chars; longer text keeps its tail).
pub const MAX_RECORDED_OUTPUT: usize = 16 * 1024;

/// What `capture-pane --last-command` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastCommand {
    pub pane: String,
    pub cmdline: Option<String>,
    pub exit_code: Option<i32>,
    pub end_reason: String,
    pub duration_ms: Option<u64>,
    pub output: String,
    pub truncated: bool,
    pub interactive: bool,
    pub output_bytes: u64,
}

impl LastCommand {
    pub fn from_run(pane: &PaneId, run: &Run) -> Self {
        let rendered = run.render();
        let mut output = rendered.text;
        let mut truncated = rendered.truncated;
        if output.chars().count() > MAX_RECORDED_OUTPUT {
            let skip = output.chars().count() - MAX_RECORDED_OUTPUT;
            output = output.chars().skip(skip).collect();
            truncated = true;
        }
        let end_reason = run
            .end_reason
            .and_then(|r| serde_json::to_value(r).ok())
            .and_then(|v| v.get("reason").and_then(|r| r.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "running".to_owned());
        LastCommand {
            pane: pane.to_string(),
            cmdline: run.cmdline.clone(),
            exit_code: run.exit,
            end_reason,
            duration_ms: run.duration_ms(),
            output,
            truncated,
            interactive: run.alt_screen,
            output_bytes: run.output.total(),
        }
    }
}

/// A command that just finished in a followed pane, as a watcher announces
/// it to its subscribers ([`crate::PaneWatcher::finished_commands`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    pub record: LastCommand,
    /// WTA typed it (a confirmed card): its result already went to the agent.
    pub dispatched: bool,
    /// The shell's cwd when it finished, if the shell reported it.
    pub cwd: Option<String>,
}

/// Reads the last finished command recorded on `pane`.
pub fn read_last_command(
    host: &dyn TerminalHost,
    pane: &PaneId,
) -> Result<LastCommand, ShellError> {
    let value = host.option(pane, LAST_COMMAND_OPTION)?;
    if value.is_empty() {
        return Err(ShellError::NoTrackedCommand {
            pane: pane.to_string(),
        });
    }
    serde_json::from_str(&value).map_err(|e| ShellError::StateFile {
        path: format!("pane {pane}").into(),
        message: format!("{LAST_COMMAND_OPTION} on {pane} is not a WTA record: {e}"),
    })
}
