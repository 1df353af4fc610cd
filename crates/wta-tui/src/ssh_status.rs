//! The status line's target segment while the target pane runs a plain
//! `ssh` or `mosh` (issue 29): what the user types there, and what a card
//! sends there, runs on another host WTA cannot follow, so the segment
//! says so (`%3 ⚠ ssh: not followed`) in place of the local cwd, which no
//! longer says where commands run. Narrower forms drop the words, then the
//! pane. Suggesting `wta ssh` is the card's job (`proposal_card_pane.rs`),
//! not the status line's. It ranks before yolo's off state: it explains
//! why results and autofix have gone quiet.

use ratatui::text::Span;
use wta_i18n::tr;
use wta_state::AppState;

use crate::theme;

/// The remote login the watcher says holds the target pane, if any.
fn login(state: &AppState) -> Option<&str> {
    let target = state.target.as_ref()?;
    let untracked = state.facts_of(&target.pane).untracked.as_ref()?;
    matches!(untracked.program.as_str(), "ssh" | "mosh").then_some(untracked.program.as_str())
}

/// The segment's forms, widest first; `None` unless the target pane runs
/// a plain remote login.
pub(crate) fn segment(state: &AppState) -> Option<Vec<Vec<Span<'static>>>> {
    let login = login(state)?.to_owned();
    let pane = state.target.as_ref()?.pane.clone();
    let warning = |text: String| Span::styled(text, theme::attention());
    Some(vec![
        vec![
            Span::styled(pane.clone(), theme::accent()),
            warning(format!(
                " ⚠ {}",
                tr!("sshstatus.not_followed", login = login)
            )),
        ],
        vec![
            Span::styled(pane, theme::accent()),
            warning(format!(" ⚠ {login}")),
        ],
        vec![warning(format!("⚠ {login}"))],
    ])
}
