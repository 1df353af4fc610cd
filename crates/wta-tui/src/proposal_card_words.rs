//! The proposal card's words in the user's language, shared by the card
//! and its full view: where an action runs or opens, the card's name, and
//! the Insert button's hint (which the full view drops by identity, not by
//! matching its text).

use wta_i18n::tr;
use wta_protocol::{Direction, OpenTarget, Origin};

/// Where an `Open` goes: a new tab, or a panel beside `pane`.
pub(super) fn place(target: OpenTarget, direction: Option<Direction>, pane: &str) -> String {
    let key = match (target, direction) {
        (OpenTarget::Tab, _) => "proposal.new_tab",
        (OpenTarget::Panel, Some(Direction::Right)) => "proposal.panel_right",
        (OpenTarget::Panel, Some(Direction::Left)) => "proposal.panel_left",
        (OpenTarget::Panel, Some(Direction::Up)) => "proposal.panel_above",
        (OpenTarget::Panel, Some(Direction::Down)) => "proposal.panel_below",
        (OpenTarget::Panel, Some(Direction::Auto) | None) => "proposal.panel_beside",
    };
    tr!(key, pane = pane)
}

/// `text · cwd DIR` when the action names a directory.
pub(super) fn with_cwd(text: String, cwd: Option<&str>) -> String {
    match cwd {
        Some(cwd) => format!("{text} · {}", tr!("proposal.cwd", cwd = cwd)),
        None => text,
    }
}

/// The card's name in its border and the full view's header.
pub(super) fn origin_name(origin: Origin) -> String {
    match origin {
        Origin::TerminalAgent => tr!("proposal.terminal_action"),
        Origin::Autofix => tr!("proposal.suggested_fix"),
    }
}

/// The hint after the buttons when one of them is Insert.
pub(super) fn insert_hint() -> String {
    format!(" {}", tr!("proposal.insert_hint"))
}
