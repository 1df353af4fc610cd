//! The `TerminalHost` trait: every terminal operation WTA performs.
//!
//! Implementations must not type into an existing pane except through
//! [`TerminalHost::send_text`], which only confirmed proposals reach.

use wta_protocol::{PaneId, TmuxSessionId, WindowId};

use crate::{
    HostError, NewTab, PaneInfo, PaneStatus, Popup, ServerInfo, SessionInfo, Split, StashRecord,
    WindowInfo,
};

/// A terminal that hosts sessions, windows (tabs) and panes.
pub trait TerminalHost {
    /// The server and the caller's place in it.
    fn server_info(&self) -> Result<ServerInfo, HostError>;
    /// Every session (WT window), except the host's private stash.
    fn list_sessions(&self) -> Result<Vec<SessionInfo>, HostError>;
    /// Windows (tabs) of one session, or of every session when `None`; the
    /// private stash's windows are never listed.
    fn list_windows(&self, session: Option<&TmuxSessionId>) -> Result<Vec<WindowInfo>, HostError>;
    /// Every pane of the server, each listed once even when its window is linked
    /// into several sessions; stashed panes (in the private stash) are not listed.
    fn list_panes(&self) -> Result<Vec<PaneInfo>, HostError>;
    /// Whether the window (tab) exists.
    fn window_exists(&self, window: &WindowId) -> Result<bool, HostError>;
    /// Panes of one window.
    fn window_panes(&self, window: &WindowId) -> Result<Vec<PaneInfo>, HostError>;
    /// One pane; [`HostError::PaneNotFound`] names it when it does not exist.
    fn pane(&self, pane: &PaneId) -> Result<PaneInfo, HostError>;
    /// The caller's pane, if the caller runs inside the host.
    fn caller_pane(&self) -> Option<PaneId>;
    /// The pane the user is looking at: the caller's pane, else the host's current one.
    fn active_pane(&self) -> Result<PaneInfo, HostError>;
    /// Text of the pane, wrapped lines joined; `lines` = how many lines of
    /// history above the visible screen to include (`None` = visible screen only).
    fn capture(&self, pane: &PaneId, lines: Option<u32>) -> Result<String, HostError>;
    /// Opens a tab; returns the new pane.
    fn new_tab(&self, spec: &NewTab) -> Result<PaneInfo, HostError>;
    /// Splits a pane; returns the new pane.
    fn split(&self, spec: &Split) -> Result<PaneInfo, HostError>;
    /// Closes a pane and its process.
    fn kill_pane(&self, pane: &PaneId) -> Result<(), HostError>;
    /// Running, dead with status, or gone.
    fn pane_status(&self, pane: &PaneId) -> Result<PaneStatus, HostError>;
    /// Whether the user can see `pane`: some client (terminal) shows its
    /// window, in a session of the user's or in a popup
    /// ([`TerminalHost::show_popup`]).
    fn visible(&self, pane: &PaneId) -> Result<bool, HostError>;
    /// Focuses a pane (and its window).
    fn focus(&self, pane: &PaneId) -> Result<(), HostError>;
    /// Sets a pane's title (shown in its border when the user enables that).
    fn set_title(&self, pane: &PaneId, title: &str) -> Result<(), HostError>;
    /// Moves a side pane out of sight, its program still running at the same
    /// size, remembering that it sat beside `neighbour`.
    fn stash(&self, pane: &PaneId, neighbour: &PaneId) -> Result<StashRecord, HostError>;
    /// Puts a stashed pane back at the same side and size of its window.
    fn restore(&self, pane: &PaneId) -> Result<StashRecord, HostError>;
    /// Shows the stashed `pane` in a popup over a terminal and returns once
    /// the popup is closed ([`TerminalHost::close_popup`], or the user
    /// detaching it). The pane stays stashed: it takes the popup's size
    /// while shown and its stashed size again after.
    fn show_popup(&self, pane: &PaneId, popup: &Popup) -> Result<(), HostError>;
    /// Closes every popup showing `pane`; whether one did.
    fn close_popup(&self, pane: &PaneId) -> Result<bool, HostError>;
    /// Whether a popup shows `pane` now.
    fn in_popup(&self, pane: &PaneId) -> Result<bool, HostError>;
    /// Types `text` into the pane, then Enter when `enter`. Leaves copy mode first.
    /// Only the card executor calls this, after the user confirmed.
    /// Refuses control characters other than `\n` ([`crate::check_typed_text`]).
    fn send_text(&self, pane: &PaneId, text: &str, enter: bool) -> Result<(), HostError>;
    /// A pane user option (`@name`); empty when unset.
    fn option(&self, pane: &PaneId, name: &str) -> Result<String, HostError>;
    /// Sets a pane user option.
    fn set_option(&self, pane: &PaneId, name: &str, value: &str) -> Result<(), HostError> {
        self.set_options(pane, &[(name, value)])
    }
    /// Sets several pane user options in one round trip.
    fn set_options(&self, pane: &PaneId, options: &[(&str, &str)]) -> Result<(), HostError>;
    /// Whether the pane stays (dead) after its program exits, so its exit
    /// status can be read; off, it closes with its program.
    fn keep_when_dead(&self, pane: &PaneId, keep: bool) -> Result<(), HostError>;
    /// A tab (window) user option; empty when unset.
    fn tab_option(&self, window: &WindowId, name: &str) -> Result<String, HostError>;
    /// Sets (`Some`) or unsets (`None`) a tab user option.
    fn set_tab_option(
        &self,
        window: &WindowId,
        name: &str,
        value: Option<&str>,
    ) -> Result<(), HostError>;
    /// Unsets a pane user option.
    fn unset_option(&self, pane: &PaneId, name: &str) -> Result<(), HostError>;
    /// Every pane's value of the user option `name` (empty when unset).
    fn options_of_all_panes(&self, name: &str) -> Result<Vec<(PaneId, String)>, HostError>;
    /// Closes the pane's output pipe and unsets its owner option.
    fn close_pipe(&self, pane: &PaneId, owner_option: &str) -> Result<(), HostError>;
    /// Wakes whoever waits on `channel` (a readiness gate).
    fn signal(&self, channel: &str) -> Result<(), HostError>;
    /// Puts `text` on the clipboard (the host's, and the terminal's where it can).
    fn copy_to_clipboard(&self, text: &str) -> Result<(), HostError>;
}
