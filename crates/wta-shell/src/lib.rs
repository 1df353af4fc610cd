//! wta-shell: shell integration for command tracking.
//!
//! - [`scripts`]: the bash/zsh/fish/pwsh integration scripts and shell detection.
//! - [`parser`]: incremental tokenizer of raw pane bytes (OSC 133/633/7, alt screen, text).
//! - [`tracker`]: the per-pane command tracker, a pure state machine, and its run records.
//! - [`trust`]: which marks are genuine (the nonce each shell announces through a pane option).
//! - [`render`]: rendering a run's captured bytes to text through `vt100`.
//! - [`pane_state`]: integration verdicts and announcements as seen on the pane.
//! - [`launch`]: argv/env of a shell that loads the integration on start.
//! - [`submit`]: the pure decision whether a command may be sent to a pane.
//! - [`watcher`]: follows one pane through the host's async face ([`wta_host::AsyncHost`]).
//! - [`fanout`], [`fanout_wire`]: one watcher per pane, many listeners (its
//!   command events on a private socket, and how a reader joins a pane).
//! - [`sink`], [`sink_wire`]: the pipe-pane sink and its framing (output and gaps).
//! - [`remote`]: `wta ssh`'s remote bootstrap, rc text and marks.
//! - [`resolve`]: does a command exist (shell, cwd, `PATH`), and near matches if not.

pub mod bytes;
pub mod error;
pub mod fanout;
pub mod fanout_wire;
pub mod handoff;
pub mod last_command;
pub mod launch;
pub mod output;
pub mod pane_state;
pub mod parser;
pub mod remote;
pub mod resolve;
pub mod scripts;
pub mod sink;
pub mod sink_wire;
pub mod submit;
pub mod tracker;
pub mod trust;
pub mod watcher;

pub use error::ShellError;
pub use fanout::{Following, LISTENERS_OPTION, Subscription, follow};
pub use fanout_wire::{Fate, Hello, NoteIntegration, PaneNote};
pub use last_command::{Finished, LAST_COMMAND_OPTION, LastCommand, read_last_command};
pub use launch::{
    GATE_OPTION, ScriptSource, ShellLaunch, gated_argv, integrated, new_gate_name, user_shell,
};
pub use output::{CappedOutput, Rendered, render};
pub use pane_state::{INTEGRATION_EXPECTED_OPTION, INTEGRATION_STATE_OPTION, announced_for};
pub use parser::{Cwd, Mark, MarkKind, MarkSource, Parser, Token};
pub use scripts::{INTEGRATION_ENV, INTEGRATION_OPTION, IntegrationMark, Shell};
pub use sink::{EXIT_STATUS_OPTION, SinkStats, gated_command, run_pipe_sink, sh_quote};
pub use submit::{SubmitRefusal, decide_submit};
pub use tracker::{
    Effect, EndReason, Event, Integration, Millis, NotStarted, PaneFate, Run, RunId, State,
    SubmitId, Tracker, TrackerConfig, step,
};
pub use trust::{MarkTrust, nonce_option};
pub use watcher::{
    FinishedRun, Host, PIPE_OWNER_OPTION, PaneWatcher, ShellFacts, WatchEvent, WatchOptions,
};
