//! The keys line in the bottom border of every card: what Enter does (as
//! `wta_state::card_enter` decides it, so the line and the key agree), the
//! way to cancel, the card's other keys, and that the draft in the editor
//! is kept when it is. Until the card is armed the line says to read it
//! first instead (`card::guard_hint`).
//!
//! When the pane is narrow, parts give way in this order (first listed,
//! first to go; each takes its shorter form before it goes):
//! 1. the moving keys (`↑↓ choice`, `↑↓ choose`),
//! 2. the button keys (`←→ button`), `y allow` then `n reject`,
//! 3. `v card` (the full view's way back),
//! 4. the draft note (`your draft is kept`, then `draft kept`),
//! 5. Esc shortens to `Esc` (never goes: the way to cancel),
//! 6. Enter shortens (permission: to `Enter`; never goes).

use ratatui::text::{Line, Span};
use wta_i18n::tr;
use wta_state::permission::PendingPermission;
use wta_state::proposal_card::{ProposalCard, mode_label};
use wta_state::{AppState, CardEnter, PendingQuestion, ProposalEnter, QuestionEnter};

use crate::fit::{Part, fit};
use crate::theme;

/// Ranks: the order in which parts give way (lowest first; see above).
const MOVE: u8 = 0;
const BUTTON: u8 = 1;
const YES: u8 = 2;
const NO: u8 = 3;
const READ: u8 = 4;
const DRAFT: u8 = 5;
const ESC: u8 = 6;
const ENTER: u8 = 7;

fn part(rank: u8, forms: &[String]) -> Part {
    Part::new(rank, theme::dim(), forms)
}

fn esc(key: &str) -> Part {
    part(ESC, &[tr!(key), tr!("keys.esc")]).kept()
}

/// The draft note, when the card keeps a draft.
fn draft(state: &AppState) -> Option<Part> {
    let now = state.clock?;
    state.draft_kept(now).then(|| {
        Part::new(
            DRAFT,
            theme::accent(),
            &[tr!("keys.draft_kept"), tr!("keys.draft_kept_short")],
        )
    })
}

/// What Enter does on the card on top, as its keys line says it; for a
/// proposal card, `read`: every action row is seen once this frame is.
/// Its short form is a bare `Enter` (the highlighted option or button
/// shows what it takes).
fn enter(state: &AppState, read: bool) -> Option<Part> {
    let now = state.clock?;
    let text = match state.card_enter(now)? {
        CardEnter::Permission => {
            let name = state
                .permissions
                .front()
                .and_then(|p| p.request.options.get(p.selected))
                .map_or(String::new(), |o| o.name.clone());
            tr!("keys.enter_option", option = name)
        }
        CardEnter::Question(QuestionEnter::Choice | QuestionEnter::Typed) => {
            tr!("keys.enter_answer")
        }
        CardEnter::Question(QuestionEnter::NeedsText) => tr!("keys.enter_type"),
        CardEnter::Proposal(_) => {
            let card = state.proposals.front()?;
            let facts = state.facts_of(&card.proposal.target_pane);
            match card.enter_action_read(now, facts, read) {
                ProposalEnter::Confirm(mode) => tr!("keys.enter_mode", mode = mode_label(mode)),
                ProposalEnter::ReadAll | ProposalEnter::ReadOn => tr!("keys.enter_read"),
                ProposalEnter::ShowWhy => tr!("keys.enter_why"),
                ProposalEnter::Dismiss => tr!("keys.enter_dismiss"),
                ProposalEnter::Blocked => {
                    tr!("keys.enter_blocked", pane = card.proposal.target_pane)
                }
                ProposalEnter::Nothing => return None,
            }
        }
    };
    Some(part(ENTER, &[text, tr!("keys.enter")]).kept())
}

/// The permission card's keys.
pub(crate) fn permission(state: &AppState, p: &PendingPermission) -> Vec<Part> {
    let mut parts = vec![part(MOVE, &[tr!("keys.choose"), "↑↓".to_owned()])];
    parts.extend(enter(state, true));
    if p.shortcut_index(true).is_some() {
        parts.push(part(YES, &[tr!("keys.allow")]));
    }
    if p.shortcut_index(false).is_some() {
        parts.push(part(NO, &[tr!("keys.reject")]));
    }
    parts.push(esc("keys.esc_reject"));
    parts.extend(draft(state));
    parts
}

/// The question card's keys.
pub(crate) fn question(state: &AppState, q: &PendingQuestion) -> Vec<Part> {
    let mut parts = Vec::new();
    if !q.request.choices.is_empty() {
        parts.push(part(MOVE, &[tr!("keys.choose"), "↑↓".to_owned()]));
    }
    parts.extend(enter(state, true));
    parts.push(esc("keys.esc_dismiss"));
    parts.extend(draft(state));
    parts
}

/// The proposal card's keys (`unread`: action rows not seen yet).
pub(crate) fn proposal(state: &AppState, card: &ProposalCard, unread: usize) -> Vec<Part> {
    let mut parts = Vec::new();
    if card.stale.is_none() {
        if card.order.len() > 1 {
            parts.push(part(MOVE, &[tr!("keys.choice"), "↑↓".to_owned()]));
        }
        if unread == 0 && card.buttons().len() > 1 {
            parts.push(part(BUTTON, &[tr!("keys.button"), "←→".to_owned()]));
        }
    }
    // Enter reads all while rows are unread: `v` says nothing more.
    parts.extend(enter(state, unread == 0));
    let esc_key = if card.stale.is_some() {
        "keys.esc_dismiss"
    } else {
        "keys.esc_cancel"
    };
    parts.push(esc(esc_key));
    parts.extend(draft(state));
    parts
}

/// The bottom border's title of a card `cols` wide: its keys fitted to the
/// border, or the guard's hint while the card is not armed.
pub(crate) fn title(state: &AppState, parts: &[Part], cols: u16) -> Line<'static> {
    if let Some(hint) = crate::card::guard_hint(state) {
        return Line::from(vec![Span::raw(" "), hint, Span::raw(" ")]);
    }
    // Two corners and a space each side.
    let room = usize::from(cols).saturating_sub(4);
    let sep = Span::styled(" · ", theme::dim());
    let mut spans = vec![Span::raw(" ")];
    spans.extend(fit(parts, &sep, room));
    spans.push(Span::raw(" "));
    Line::from(spans)
}

/// The full view's keys while rows are unread: how many (and which way
/// they are), the scroll keys, `v` back to the card, Esc.
pub(crate) fn full_unread(state: &AppState, arrow: &str, unread: usize) -> Vec<Part> {
    let count = |key: &str| format!("{arrow} {}", tr!(key, n = unread));
    let mut parts = vec![
        Part::new(
            ENTER,
            theme::attention(),
            &[
                count("keys.rows_unread"),
                count("proposal.unread"),
                arrow.to_owned(),
            ],
        )
        .kept(),
        part(MOVE, &[tr!("keys.scroll"), "PgDn".to_owned()]),
        part(READ, &[tr!("keys.v_card")]),
        esc("keys.esc_cancel"),
    ];
    parts.extend(draft(state));
    parts
}

/// The full view's keys once every row was on screen: what Enter does,
/// `v` back to the card, Esc.
pub(crate) fn full_read(state: &AppState) -> Vec<Part> {
    let mut parts = Vec::new();
    parts.extend(enter(state, true));
    parts.push(part(READ, &[tr!("keys.v_card")]));
    parts.push(esc("keys.esc_cancel"));
    parts.extend(draft(state));
    parts
}

/// The keys line of a full view (no border): `parts` in `width` columns.
pub(crate) fn line(parts: &[Part], width: usize) -> Vec<Span<'static>> {
    fit(parts, &Span::styled(" · ", theme::dim()), width)
}
