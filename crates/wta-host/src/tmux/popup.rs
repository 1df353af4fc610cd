//! A stashed pane shown in a `display-popup` (tmux 3.2+; measured on 3.3a).
//!
//! A popup runs a command, never an existing pane, so the popup's command is
//! a second client of this same server (`tmux -S <socket> attach-session`,
//! with `TMUX` unset so tmux allows it) attached to a private session of
//! its own, `_wta_popup_<N>` for pane `%N`, whose one window is the stash
//! window holding the pane (linked, so the pane never leaves the stash).
//! A session per pane rather than the stash session itself: a session has
//! one current window for all its clients, so two popups attached to the
//! stash would show whichever pane was selected last.
//!
//! - The stash window is sized by hand (`resize-window` makes its
//!   `window-size` manual); while shown, it is `latest`, so the pane takes
//!   the popup's inner size, and after, the size it had is set again.
//! - `display-popup` from a command client returns only once the popup
//!   closes, so [`TmuxHost::show_popup_of`] blocks and then cleans up:
//!   the session goes (unless another terminal still shows it), the window
//!   gets its stashed size back. A cleanup that never ran (the caller was
//!   killed) is undone by the next popup of the pane.
//! - Keys typed in the popup go to the nested client, so the user's tmux
//!   key bindings work there with `#{pane_id}` the stashed pane and
//!   `#{client_name}` the nested client; Esc reaches the pane (tmux closes
//!   a popup on Esc only when it has no command running). Detaching the
//!   nested client ([`TmuxHost::close_popup_of`], or `prefix d`) ends its
//!   command, and `-E` closes the popup.
//! - The popup's command is run by `/bin/sh` whatever `default-shell` is,
//!   and tmux does not expand formats in it: words are only `sh`-quoted.

use wta_protocol::{PaneId, WindowId};

use super::{Cmd, STASH_SESSION, TmuxHost, format};
use crate::popup::{ClientName, Popup, cells};
use crate::{HostError, StashRecord, TerminalHost, sh_quote};

/// The private sessions of popups start with this (then the pane's number).
const POPUP_PREFIX: &str = "_wta_popup_";

/// Whether `name` is one of the host's private sessions (the stash, a
/// popup's): never listed, chosen or created by name for the user.
pub fn is_private_session(name: &str) -> bool {
    name == STASH_SESSION || name.starts_with(POPUP_PREFIX)
}

/// The popup session of `pane`.
fn session_of(pane: &PaneId) -> String {
    format!("{POPUP_PREFIX}{}", pane.as_str().trim_start_matches('%'))
}

/// An exact session target (`=name`: never a prefix or pattern match;
/// `set-option` wants `=name:`, its target being a pane's).
fn exact(session: &str) -> String {
    format!("={session}")
}

/// A terminal attached to the server, as `list-clients` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Client {
    name: String,
    cols: u16,
    rows: u16,
    /// The window its session shows.
    window: String,
    activity: u64,
    utf8: bool,
    control: bool,
}

const CLIENT_FORMAT: &str = "#{client_name}\x1f#{client_width}\x1f#{client_height}\x1f#{window_id}\x1f#{client_activity}\x1f#{client_utf8}\x1f#{client_control_mode}\x1e";

fn parse_clients(output: &str) -> Vec<Client> {
    output
        .split('\x1e')
        .filter_map(|record| {
            let f: Vec<&str> = record.trim_start_matches('\n').split('\x1f').collect();
            let [name, cols, rows, window, activity, utf8, control] = f[..] else {
                return None;
            };
            Some(Client {
                name: name.to_owned(),
                cols: cols.parse().ok()?,
                rows: rows.parse().ok()?,
                window: window.to_owned(),
                activity: activity.parse().unwrap_or(0),
                utf8: utf8 == "1",
                control: control == "1",
            })
        })
        .collect()
}

/// The terminal a popup over `window` goes to: the one named, else the
/// last active one that shows `window` (never a control-mode client, which
/// has no screen).
fn choose_client<'c>(
    clients: &'c [Client],
    named: Option<&ClientName>,
    window: &WindowId,
) -> Result<&'c Client, HostError> {
    match named {
        Some(name) => clients
            .iter()
            .find(|c| c.name == name.as_str() && !c.control)
            .ok_or_else(|| HostError::ClientNotFound(name.to_string())),
        None => clients
            .iter()
            .filter(|c| !c.control && c.window == window.as_str())
            .max_by_key(|c| c.activity)
            .ok_or_else(|| HostError::NoClient(window.to_string())),
    }
}

impl TmuxHost {
    pub(super) fn show_popup_of(&self, pane: &PaneId, popup: &Popup) -> Result<(), HostError> {
        if StashRecord::decode(pane, &self.option(pane, super::stash::STASH_OPTION)?).is_none() {
            return Err(HostError::InvalidArgument(format!(
                "pane {pane} is not stashed, so it cannot be shown in a popup"
            )));
        }
        let geo = self.display(pane, "#{window_id}\x1f#{window_width}\x1f#{window_height}")?;
        let mut f = geo.split('\x1f');
        let (Some(window), Some(width), Some(height)) = (f.next(), f.next(), f.next()) else {
            return Err(HostError::Parse("stash window geometry".into()));
        };
        let window = window.to_owned();
        let (width, height) = (width.to_owned(), height.to_owned());
        let over = self.pane(&popup.over)?.window;
        let listed = self.run(&Cmd::new("list-clients").opt_format("-F", CLIENT_FORMAT))?;
        let clients = parse_clients(&listed);
        let client = choose_client(&clients, popup.client.as_ref(), &over)?;
        let place = cells(popup, client.cols, client.rows)?;

        let session = session_of(pane);
        self.prepare(&session, &window)?;
        let mut cmd = Cmd::new("display-popup")
            .opt("-c", &client.name)
            .flag("-E")
            .opt("-w", &place.width.to_string())
            .opt("-h", &place.height.to_string());
        if let Some(x) = place.x {
            cmd = cmd.opt("-x", &x.to_string());
        }
        if let Some(y) = place.y {
            cmd = cmd.opt("-y", &y.to_string());
        }
        let cmd = cmd.arg(&self.attach_line(&session, client.utf8));
        let shown = self.run(&cmd);
        let cleaned = self.after_popup(pane, &session, &window, &width, &height);
        shown.and(cleaned)
    }

    /// The popup's command: a client of this server on `session`.
    fn attach_line(&self, session: &str, utf8: bool) -> String {
        let mut words = vec![
            "exec".to_owned(),
            "env".to_owned(),
            "-u".to_owned(),
            "TMUX".to_owned(),
            sh_quote(&self.binary.to_string_lossy()),
        ];
        if utf8 {
            // The outer terminal reads UTF-8, whatever the popup's locale says.
            words.push("-u".to_owned());
        }
        // The socket's path: a popup's environment may name another
        // `TMUX_TMPDIR`, which would move a `-L` name elsewhere.
        words.push("-S".to_owned());
        words.push(sh_quote(&self.location.socket_path().to_string_lossy()));
        words.extend(["attach-session".to_owned(), "-t".to_owned()]);
        words.push(sh_quote(&exact(session)));
        words.join(" ")
    }

    /// The popup session of a pane: its one window is `window`, sized by
    /// the terminals that show it.
    fn prepare(&self, session: &str, window: &str) -> Result<(), HostError> {
        if let Some(attached) = self.popup_session(session)? {
            if attached {
                // Another terminal shows it already: this one joins.
                return Ok(());
            }
            // Left by a popup whose cleanup never ran.
            self.run(&Cmd::new("kill-session").opt("-t", &exact(session)))?;
        }
        // destroy-unattached off in the same command, or a user's global
        // `on` ends the session before the popup's client attaches.
        let create = Cmd::new("new-session")
            .flag("-d")
            .opt_text("-s", session)
            .flag("-P")
            .opt_format("-F", "#{window_id}")
            .arg("tail -f /dev/null")
            .then("set-option")
            .opt("-t", &format!("{}:", exact(session)))
            .args(["destroy-unattached", "off"])
            .then("set-option")
            .opt("-t", &format!("{}:", exact(session)))
            .args(["status", "off"]);
        let keep = self.run(&create)?;
        let link = Cmd::new("link-window")
            .flag("-d")
            .opt("-s", window)
            .opt("-t", &format!("{}:", exact(session)))
            .then("kill-window")
            .opt("-t", keep.trim())
            .then("set-option")
            .flag("-w")
            .opt("-t", window)
            .args(["window-size", "latest"]);
        self.run(&link).map(drop)
    }

    /// Whether the popup session exists, and then whether a terminal shows it.
    fn popup_session(&self, session: &str) -> Result<Option<bool>, HostError> {
        let out =
            self.run(&Cmd::new("list-sessions").opt_format("-F", &format::session_format()))?;
        Ok(format::parse_sessions(&out)?
            .into_iter()
            .find(|s| s.name == session)
            .map(|s| s.attached))
    }

    /// Once a popup closed: its session goes unless another terminal still
    /// shows it, and the stash window (if the pane is still in it) gets
    /// back the size it had.
    fn after_popup(
        &self,
        pane: &PaneId,
        session: &str,
        window: &str,
        width: &str,
        height: &str,
    ) -> Result<(), HostError> {
        if self.popup_session(session)? == Some(true) {
            return Ok(());
        }
        let _ = self.run(&Cmd::new("kill-session").opt("-t", &exact(session)));
        let still_there = match self.display(pane, "#{window_id}") {
            Ok(now) => now == window,
            // Gone (its helper ended): nothing to size.
            Err(HostError::PaneNotFound(_)) => false,
            Err(e) => return Err(e),
        };
        if still_there {
            let resize = Cmd::new("resize-window")
                .opt("-t", window)
                .opt("-x", width)
                .opt("-y", height);
            self.run(&resize)?;
        }
        Ok(())
    }

    pub(super) fn in_popup_of(&self, pane: &PaneId) -> Result<bool, HostError> {
        Ok(self.popup_session(&session_of(pane))? == Some(true))
    }

    pub(super) fn close_popup_of(&self, pane: &PaneId) -> Result<bool, HostError> {
        let session = session_of(pane);
        if self.popup_session(&session)? != Some(true) {
            return Ok(false);
        }
        self.run(&Cmd::new("detach-client").opt("-s", &exact(&session)))?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn client(name: &str, window: &str, activity: u64, control: bool) -> Client {
        Client {
            name: name.into(),
            cols: 80,
            rows: 24,
            window: window.into(),
            activity,
            utf8: true,
            control,
        }
    }

    #[test]
    fn private_sessions_are_the_stash_and_popups() {
        assert!(is_private_session("_wta_stash"));
        assert!(is_private_session(&session_of(&PaneId::from_number(12))));
        assert_eq!(session_of(&PaneId::from_number(12)), "_wta_popup_12");
        for mine in ["wta", "main", "_wta", "_wta_stash2", "x_wta_popup_1"] {
            assert!(!is_private_session(mine), "{mine}");
        }
    }

    #[test]
    fn clients_are_read_as_tmux_lists_them() {
        let out = "/dev/pts/3\x1f160\x1f40\x1f@0\x1f1700\x1f1\x1f0\x1e\n\
                   client-9\x1f80\x1f24\x1f@2\x1f1800\x1f0\x1f1\x1e\n";
        let clients = parse_clients(out);
        assert_eq!(
            clients,
            [
                Client {
                    name: "/dev/pts/3".into(),
                    cols: 160,
                    rows: 40,
                    window: "@0".into(),
                    activity: 1700,
                    utf8: true,
                    control: false
                },
                Client {
                    utf8: false,
                    ..client("client-9", "@2", 1800, true)
                }
            ]
        );
        assert!(parse_clients("short\x1f1\x1e\n").is_empty());
    }

    #[test]
    fn the_popup_goes_to_the_last_terminal_on_the_tab_or_the_one_named() {
        let tab = WindowId::from_number(1);
        let clients = [
            client("/dev/pts/1", "@1", 10, false),
            client("/dev/pts/2", "@1", 30, false),
            client("/dev/pts/3", "@2", 99, false),
            client("ctl", "@1", 100, true),
        ];
        assert_eq!(
            choose_client(&clients, None, &tab).unwrap().name,
            "/dev/pts/2"
        );
        let named = ClientName::parse("/dev/pts/3").unwrap();
        assert_eq!(
            choose_client(&clients, Some(&named), &tab).unwrap().name,
            "/dev/pts/3"
        );
        let ctl = ClientName::parse("ctl").unwrap();
        assert!(matches!(
            choose_client(&clients, Some(&ctl), &tab),
            Err(HostError::ClientNotFound(_))
        ));
        assert!(matches!(
            choose_client(&clients, None, &WindowId::from_number(7)),
            Err(HostError::NoClient(t)) if t == "@7"
        ));
    }
}
