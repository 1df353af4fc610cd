//! wta-helper: the agent pane without drawing, in two halves.
//!
//! - [`machine`]: the pane as one pure state machine, `step(machine, input,
//!   now) -> commands`, over the chat app (`wta_state`) and its session side.
//! - [`runtime`]: the I/O layer that carries out the machine's commands and
//!   turns the outside into its inputs.
//! - [`connection`]: the typed ACP client of the master, with its wire tap.
//! - [`proposals`]: the terminal-action proposal engine (its channel state
//!   machine, permission preflight and socket server).
//! - [`executor`]: confirmed cards run in the user's pane.
//! - [`history`]: each decided card recorded in the action history; `/history`'s re-proposal.
//! - [`autofix`]: a failed command in the tab offers a fix (settings, the fix turn's words).
//! - [`config_file`]: one table's settings from the config file.
//! - [`context`]: what each prompt tells the agent about the terminal.
//! - [`delegate`]: `?TASK` starts a delegate through `wta delegate`.
//! - [`session_tools`]: the session MCP endpoint's proposals, helper side.
//! - [`terminals`]: ACP `terminal/*` served in tmux panes the user can see.
//! - [`driver`]: the headless front end (line commands, JSON events).

pub mod autofix;
pub mod config_file;
pub mod connection;
pub mod context;
pub mod delegate;
pub mod driver;
pub mod executor;
pub mod history;
pub mod machine;
pub mod proposals;
pub mod runtime;
pub mod session_tools;
pub mod terminals;
