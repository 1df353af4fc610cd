//! What the card says about the pane its highlighted choice types into
//! (`wta_state::PaneNotes`, from the helper's pane watcher): why Run and
//! Insert wait for a busy pane, what becomes of text typed at its prompt,
//! that the command is typed as keystrokes, and that nothing will come back
//! from a shell without integration. Shared by the card, its
//! compact form and the full view; the notes sit right above the buttons.
//!
//! Each note has a long form and a short one (both wrapped), and a single
//! row of the short one for a card with hardly any rows: the card takes the
//! longest form that still leaves room for every action it must show. The
//! busy reason comes first and goes last (it says why the buttons are dark;
//! its short form still names the pane and the program). Nothing known of
//! the pane: no rows at all.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use wta_i18n::tr;
use wta_state::proposal_card::{ConfirmMode, ProposalCard, mode_label};
use wta_state::{AppState, Busy, PaneNotes, TypedText};

use crate::theme;
use crate::wrap::{truncate, wrap};

/// What the card says of its pane now (nothing for a stale card: it
/// cannot run anyway).
pub(super) fn notes(state: &AppState, card: &ProposalCard) -> PaneNotes {
    if card.stale.is_some() {
        return PaneNotes::default();
    }
    card.pane_notes(state.facts_of(&card.proposal.target_pane))
}

/// Whether button `mode` of the highlighted choice can be confirmed now.
pub(super) fn enabled(state: &AppState, card: &ProposalCard, mode: ConfirmMode) -> bool {
    card.enabled(state.facts_of(&card.proposal.target_pane), mode)
}

/// One note: its mark, style, long text and short text.
struct Note {
    mark: &'static str,
    style: Style,
    long: String,
    short: String,
}

/// The notes, most important first.
fn all(notes: &PaneNotes, card: &ProposalCard) -> Vec<Note> {
    let pane = notes.pane.as_str();
    let mut out = Vec::new();
    if let Some(busy) = &notes.busy {
        let fact = busy_fact(busy, pane);
        let run = mode_label(ConfirmMode::Run);
        let then = if card.buttons().contains(&ConfirmMode::Insert) {
            let insert = mode_label(ConfirmMode::Insert);
            tr!("proposal.pane_then_run_insert", run = run, insert = insert)
        } else {
            tr!("proposal.pane_then_run", run = run)
        };
        let style = match notes.stand_out {
            true => theme::attention().add_modifier(Modifier::BOLD | Modifier::REVERSED),
            false => theme::attention(),
        };
        out.push(Note {
            mark: "! ",
            style,
            long: tr!("proposal.pane_reason", fact = fact, then = then),
            short: fact,
        });
    }
    if let Some(login @ ("ssh" | "mosh")) = notes.untracked.as_deref() {
        // A plain remote login: results cannot be followed over there.
        out.push(Note {
            mark: "! ",
            style: theme::attention(),
            long: tr!("proposal.untracked_ssh", pane = pane, login = login),
            short: tr!("proposal.untracked_ssh_short", pane = pane, login = login),
        });
    } else if notes.untracked.is_some() {
        // Typed as keystrokes too, but what matters is that nothing comes back.
        out.push(Note {
            mark: "! ",
            style: theme::attention(),
            long: tr!("proposal.untracked", pane = pane),
            short: tr!("proposal.untracked_short", pane = pane),
        });
    } else if notes.as_keys {
        out.push(Note {
            mark: "! ",
            style: theme::attention(),
            long: tr!("proposal.pane_keys", pane = pane),
            short: tr!("proposal.pane_keys_short", pane = pane),
        });
    }
    match notes.typed {
        Some(TypedText::Kept) => out.push(Note {
            mark: "· ",
            style: theme::dim(),
            long: tr!("proposal.pane_typed_kept", pane = pane),
            short: tr!("proposal.pane_typed_kept_short", pane = pane),
        }),
        Some(TypedText::Replaced) => out.push(Note {
            mark: "! ",
            style: theme::attention(),
            long: tr!("proposal.pane_typed_cleared", pane = pane),
            short: tr!("proposal.pane_typed_cleared_short", pane = pane),
        }),
        None => {}
    }
    out
}

/// `%3 is running `sleep 15`` / `%3 shows a full-screen program (`vim`)`.
fn busy_fact(busy: &Busy, pane: &str) -> String {
    match busy {
        Busy::Running { command } if command.is_empty() => {
            tr!("proposal.pane_running_unnamed", pane = pane)
        }
        Busy::Running { command } => tr!("proposal.pane_running", pane = pane, command = command),
        Busy::FullScreen { command } if command.is_empty() => {
            tr!("proposal.pane_full_screen_unnamed", pane = pane)
        }
        Busy::FullScreen { command } => {
            tr!("proposal.pane_full_screen", pane = pane, command = command)
        }
    }
}

fn long_lines(note: &Note, width: usize) -> Vec<Line<'static>> {
    wrap(
        &[Span::styled(note.long.clone(), note.style)],
        width,
        &[Span::styled(note.mark, note.style)],
        &[Span::raw("  ")],
    )
}

fn short_lines(note: &Note, width: usize) -> Vec<Line<'static>> {
    wrap(
        &[Span::styled(note.short.clone(), note.style)],
        width,
        &[Span::styled(note.mark, note.style)],
        &[Span::raw("  ")],
    )
}

fn short_line(note: &Note, width: usize) -> Line<'static> {
    Line::from(vec![
        Span::styled(note.mark, note.style),
        Span::styled(truncate(&note.short, width.saturating_sub(2)), note.style),
    ])
}

/// Every note in its long form at `width` (what the card asks room for).
pub(super) fn long_rows(state: &AppState, card: &ProposalCard, width: usize) -> usize {
    all(&notes(state, card), card)
        .iter()
        .map(|n| long_lines(n, width).len())
        .sum()
}

/// The forms the notes can take at `width` within `budget` rows, longest
/// first: every note long, every note short (wrapped), and one row each
/// (as many as fit, the first always). One empty form when there is
/// nothing to say.
pub(super) fn forms(
    state: &AppState,
    card: &ProposalCard,
    width: usize,
    budget: usize,
) -> Vec<Vec<Line<'static>>> {
    let notes = all(&notes(state, card), card);
    let long: Vec<Line<'static>> = notes.iter().flat_map(|n| long_lines(n, width)).collect();
    let short: Vec<Line<'static>> = notes.iter().flat_map(|n| short_lines(n, width)).collect();
    let rows: Vec<Line<'static>> = notes
        .iter()
        .map(|n| short_line(n, width))
        .take(budget.max(1))
        .collect();
    let mut out: Vec<Vec<Line<'static>>> = Vec::new();
    // The one-row form always fits (it takes at most `budget.max(1)`).
    for form in [long, short, rows] {
        if form.len() <= budget.max(1) && out.last() != Some(&form) {
            out.push(form);
        }
    }
    out
}

/// The one row a compact card has for the notes: the most important one,
/// short.
pub(super) fn first_short(
    state: &AppState,
    card: &ProposalCard,
    width: usize,
) -> Option<Line<'static>> {
    all(&notes(state, card), card)
        .first()
        .map(|note| short_line(note, width))
}

/// Whether the card's highlighted choice waits for its busy pane.
pub(super) fn waits(state: &AppState, card: &ProposalCard) -> bool {
    notes(state, card).busy.is_some()
}
