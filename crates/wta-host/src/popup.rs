//! A popup over the user's terminal that shows a stashed pane (the agent
//! pane of a tab, `wta popup`): what the caller asks for ([`Popup`]), the
//! terminal it is shown on ([`ClientName`]), and the cells it takes there
//! ([`cells`], pure).
//!
//! The pane stays stashed the whole time: a popup only shows it, the way a
//! second terminal attached to the stash would. [`crate::TerminalHost::show_popup`]
//! returns once the popup is closed; [`crate::TerminalHost::visible`] counts
//! a popup showing the pane as the user seeing it.

use std::fmt;
use std::str::FromStr;

use wta_protocol::PaneId;

use crate::HostError;

/// The smallest `width_percent` / `height_percent` of a popup.
pub const MIN_POPUP_PERCENT: u8 = 10;
/// The largest: the whole terminal.
pub const MAX_POPUP_PERCENT: u8 = 100;
/// Fewer cells leave no room inside the border.
const MIN_CELLS: u16 = 3;
/// Longer than any tty path or tmux client name.
const MAX_CLIENT_NAME: usize = 256;

/// A terminal attached to the host (a tmux client), by the name the host
/// gives it (`/dev/pts/3`): what a key binding passes as `#{client_name}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClientName(String);

impl ClientName {
    /// A client name: printable, not empty, not a flag.
    pub fn parse(name: &str) -> Result<Self, HostError> {
        let bad = name.is_empty()
            || name.len() > MAX_CLIENT_NAME
            || name.starts_with('-')
            || name.chars().any(char::is_control);
        if bad {
            return Err(HostError::InvalidArgument(format!(
                "{name:?} is not a terminal's name (tmux shows them with `list-clients`, \
                 a key binding passes `#{{client_name}}`)"
            )));
        }
        Ok(Self(name.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClientName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for ClientName {
    type Err = HostError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// A popup to show a stashed pane in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Popup {
    /// The terminal to show it on; `None`: the one that used the tab of
    /// `over` last.
    pub client: Option<ClientName>,
    /// A pane of the tab the popup is shown over.
    pub over: PaneId,
    /// Of the terminal's columns, border included
    /// ([`MIN_POPUP_PERCENT`]..=[`MAX_POPUP_PERCENT`]).
    pub width_percent: u8,
    /// Of the terminal's rows, border included.
    pub height_percent: u8,
    /// The popup's left column on the terminal; `None`: centred.
    pub column: Option<u16>,
    /// The popup's top row on the terminal; `None`: centred.
    pub row: Option<u16>,
}

/// Where a popup goes on a terminal, as tmux's `display-popup` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cells {
    /// Border included.
    pub width: u16,
    pub height: u16,
    /// `-x`: the left column.
    pub x: Option<u16>,
    /// `-y`: tmux places a popup *above* this row (its bottom edge), so a
    /// top row is given as that row plus the height.
    pub y: Option<u32>,
}

/// The cells `popup` takes on a terminal of `cols` × `rows`: its percent
/// of each (never below 3, so the border leaves a cell inside; tmux clamps
/// a popup that does not fit and refuses one larger than the terminal).
pub(crate) fn cells(popup: &Popup, cols: u16, rows: u16) -> Result<Cells, HostError> {
    for (what, percent) in [
        ("width", popup.width_percent),
        ("height", popup.height_percent),
    ] {
        if !(MIN_POPUP_PERCENT..=MAX_POPUP_PERCENT).contains(&percent) {
            return Err(HostError::InvalidArgument(format!(
                "a popup's {what} must be {MIN_POPUP_PERCENT}–{MAX_POPUP_PERCENT} percent of the terminal, got {percent}"
            )));
        }
    }
    let part = |whole: u16, percent: u8| {
        let n = u32::from(whole) * u32::from(percent) / 100;
        u16::try_from(n).unwrap_or(u16::MAX).max(MIN_CELLS)
    };
    let height = part(rows, popup.height_percent);
    Ok(Cells {
        width: part(cols, popup.width_percent),
        height,
        x: popup.column,
        y: popup.row.map(|row| u32::from(row) + u32::from(height)),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    fn popup(width_percent: u8, height_percent: u8) -> Popup {
        Popup {
            client: None,
            over: PaneId::from_number(0),
            width_percent,
            height_percent,
            column: None,
            row: None,
        }
    }

    #[test]
    fn percent_of_the_terminal_and_a_top_row_as_tmux_wants_it() {
        let c = cells(&popup(80, 80), 160, 40).unwrap();
        assert_eq!((c.width, c.height, c.x, c.y), (128, 32, None, None));
        let placed = Popup {
            column: Some(4),
            row: Some(2),
            ..popup(50, 50)
        };
        let c = cells(&placed, 100, 30).unwrap();
        assert_eq!((c.width, c.height, c.x, c.y), (50, 15, Some(4), Some(17)));
        assert_eq!(cells(&popup(10, 10), 12, 5).unwrap().height, 3);
        for bad in [(9, 50), (50, 101), (0, 0)] {
            let err = cells(&popup(bad.0, bad.1), 80, 24).unwrap_err().to_string();
            assert!(err.contains("percent of the terminal"), "{err}");
        }
    }

    #[test]
    fn client_names_are_printable_words() {
        assert_eq!(
            ClientName::parse("/dev/pts/3").unwrap().as_str(),
            "/dev/pts/3"
        );
        for bad in ["", "-c", "a\nb", "\u{1b}[2J"] {
            assert!(ClientName::parse(bad).is_err(), "{bad:?}");
        }
        assert!(ClientName::parse(&"x".repeat(257)).is_err());
    }

    proptest! {
        /// Any text: a client name exactly when it is 1–256 bytes, not a
        /// flag and free of control characters, and then kept as given.
        #[test]
        fn any_text_is_a_client_name_or_refused(name in "\\PC{0,8}|-.{0,4}|.{0,3}[\\x00-\\x1f\\x7f].{0,3}|x{250,260}") {
            let fine = !name.is_empty()
                && name.len() <= MAX_CLIENT_NAME
                && !name.starts_with('-')
                && !name.chars().any(char::is_control);
            match ClientName::parse(&name) {
                Ok(client) => {
                    prop_assert!(fine, "{name:?} accepted");
                    prop_assert_eq!(client.as_str(), name.as_str());
                }
                Err(err) => {
                    prop_assert!(!fine, "{name:?} refused: {err}");
                    prop_assert!(err.to_string().contains("not a terminal's name"));
                }
            }
        }

        /// Any terminal and valid percents: the popup is that share of it
        /// (at least 3 cells), and a top row comes out as its bottom edge.
        #[test]
        fn cells_are_the_share_asked_for(
            cols in 0u16..=u16::MAX,
            rows in 0u16..=u16::MAX,
            w in MIN_POPUP_PERCENT..=MAX_POPUP_PERCENT,
            h in MIN_POPUP_PERCENT..=MAX_POPUP_PERCENT,
            row in proptest::option::of(any::<u16>()),
        ) {
            let c = cells(&Popup { row, ..popup(w, h) }, cols, rows).unwrap();
            prop_assert!(c.width >= MIN_CELLS && c.height >= MIN_CELLS);
            prop_assert!(c.width <= cols.max(MIN_CELLS) && c.height <= rows.max(MIN_CELLS));
            let want = (u32::from(cols) * u32::from(w) / 100).max(u32::from(MIN_CELLS));
            prop_assert_eq!(u32::from(c.width), want);
            prop_assert_eq!(c.y, row.map(|r| u32::from(r) + u32::from(c.height)));
        }
    }
}
