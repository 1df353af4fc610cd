//! The recommendation card for the front terminal-action proposal: every
//! choice (recommended first, numbered as in the payload) with its title,
//! rationale and actions shown exactly — command text in full, where it
//! runs, what opens where — the unarmed note, and the buttons.
//!
//! What the user confirms is what the card showed. The card's *full text*
//! ([`full_text`]) is laid out at one width ([`text_width`]) by the card,
//! its compact form and the full view alike, and every draw reports which
//! of its action rows (what runs, where, in which directory, under which
//! title) were on screen ([`CardSight`]). When the pane is too short for
//! all of it, the rationales go first, then choices other than the
//! highlighted one shrink to their titles; while action rows are unread the
//! card says how many, and its buttons stay greyed out with the key that
//! opens the full view (`v`): the card over the whole pane, scrolled row by
//! row. Once every action row has been on screen, the buttons light up.
//! Until the card is armed (visible for the grace period,
//! `wta_state::guard`), its keys line says to read it first instead. Right
//! above the buttons, the card says what it knows of the pane it types
//! into (`proposal_card_pane.rs`): a busy pane darkens Run and Insert.
//! Draws only; the keys live in `wta_state::proposal_card`.

use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;
use wta_i18n::tr;
use wta_protocol::{Action, Choice};
use wta_state::AppState;
use wta_state::proposal_card::{CardSight, ConfirmMode, FullViewFrame, ProposalCard, mode_label};

use crate::wrap::{truncate, wrap, wrap_chars};
use crate::{panel, theme};

#[path = "proposal_card_compact.rs"]
mod compact;
#[path = "proposal_card_full.rs"]
mod full;
#[path = "proposal_card_pane.rs"]
mod pane;
#[path = "proposal_card_words.rs"]
mod words;
use compact::compact;
pub(crate) use full::render_full;
use words::{insert_hint, origin_name, place, with_cwd};

/// Indent of a choice's details under its title.
const INDENT: &str = "     ";

fn push_command(lines: &mut Vec<Line<'static>>, input: &str, width: usize) {
    for (i, row) in input.split('\n').enumerate() {
        let first = if i == 0 { "$ " } else { "  " };
        lines.extend(wrap_chars(
            row,
            theme::accent(),
            width,
            &[Span::raw(INDENT), Span::styled(first, theme::dim())],
            &[Span::raw(INDENT), Span::raw("  ")],
        ));
    }
}

/// Word-wraps text that may span lines, each line on its own rows
/// (ratatui would drop a `\n` inside a line, joining the two).
fn push_paragraphs(
    lines: &mut Vec<Line<'static>>,
    text: &str,
    style: Style,
    width: usize,
    prefix: &str,
) {
    for row in text.split('\n') {
        lines.extend(wrap(
            &[Span::styled(row.to_owned(), style)],
            width,
            &[Span::raw(prefix.to_owned())],
            &[Span::raw(prefix.to_owned())],
        ));
    }
}

fn push_detail(lines: &mut Vec<Line<'static>>, text: &str, width: usize) {
    lines.extend(wrap(
        &[Span::styled(text.to_owned(), theme::dim())],
        width,
        &[Span::raw(format!("{INDENT}  "))],
        &[Span::raw(format!("{INDENT}  "))],
    ));
}

fn action_lines(card: &ProposalCard, action: &Action, width: usize) -> Vec<Line<'static>> {
    let p = &card.proposal;
    let mut lines = Vec::new();
    match action {
        Action::Send { input } => {
            push_command(&mut lines, input, width);
            let here = tr!("proposal.in_pane", pane = p.target_pane);
            push_detail(&mut lines, &with_cwd(here, p.target_cwd.as_deref()), width);
        }
        Action::Open {
            target,
            cwd,
            title,
            direction,
        } => {
            let place = place(*target, *direction, &p.target_pane);
            let text = match title {
                Some(title) => tr!("proposal.open_titled", place = place, title = title),
                None => tr!("proposal.open", place = place),
            };
            lines.extend(wrap(
                &[Span::styled(with_cwd(text, cwd.as_deref()), theme::bold())],
                width,
                &[Span::raw(INDENT), Span::styled("+ ", theme::dim())],
                &[Span::raw(format!("{INDENT}  "))],
            ));
        }
        Action::OpenAndSend {
            target,
            input,
            delegate,
            cwd,
        } => {
            let place = place(*target, None, &p.target_pane);
            let head = if *delegate {
                let agent = p
                    .delegate_agent
                    .clone()
                    .unwrap_or_else(|| tr!("proposal.the_delegate"));
                tr!("proposal.open_delegate", place = place, agent = agent)
            } else {
                tr!("proposal.open_run", place = place)
            };
            let text = match cwd {
                Some(cwd) => format!("{head} ({})", tr!("proposal.cwd", cwd = cwd)),
                None => head,
            };
            lines.extend(wrap(
                &[Span::styled(text, theme::bold())],
                width,
                &[Span::raw(INDENT), Span::styled("+ ", theme::dim())],
                &[Span::raw(format!("{INDENT}  "))],
            ));
            if *delegate {
                push_paragraphs(
                    &mut lines,
                    input,
                    theme::accent(),
                    width,
                    &format!("{INDENT}  "),
                );
            } else {
                push_command(&mut lines, input, width);
            }
        }
    }
    lines
}

fn title_line(card: &ProposalCard, row: usize, choice: &Choice, width: usize) -> Line<'static> {
    let chosen = row == card.selected;
    let marker = if chosen { "› " } else { "  " };
    let style = if chosen {
        theme::popup_selected()
    } else {
        theme::bold()
    };
    // The payload's own number: the agent's text and the final line say
    // "choice 2", and the digit key selects by it.
    let number = format!("{}. ", choice.choice);
    let fixed = 2 + number.width();
    // The whole title with the longest tag that leaves room for it; else a
    // narrow card keeps a few columns of the title before the tag.
    let title_min = choice.title.width().min(8);
    let tag = if !card.is_recommended(choice) {
        String::new()
    } else {
        let forms = [
            format!("  {}", tr!("proposal.recommended")),
            format!(" {}", tr!("proposal.recommended_short")),
        ];
        let fits = |tag: &String, title: usize| fixed + tag.width() + title <= width;
        let whole = forms.iter().find(|t| fits(t, choice.title.width()));
        whole
            .or_else(|| forms.iter().find(|t| fits(t, title_min)))
            .cloned()
            .unwrap_or_default()
    };
    let room = width.saturating_sub(fixed + tag.width());
    Line::from(vec![
        Span::styled(marker, theme::accent()),
        Span::styled(format!("{number}{}", truncate(&choice.title, room)), style),
        Span::styled(tag, theme::ok()),
    ])
}

/// How much of the card fits, most first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    /// Every choice with its rationale and actions.
    All,
    /// Every choice with its actions, without the rationales: what runs
    /// matters most.
    AllActions,
    /// Other choices shrink to their titles.
    Focused,
    /// As `Focused`, without the rationale: the actions matter most.
    ActionsOnly,
}

/// A laid-out card: its rows, and for each row that shows what an action
/// does its index among the *action rows* of the full text (the unit in
/// which reading is counted, the same in every shortened form).
#[derive(Default)]
pub(crate) struct Body {
    pub(crate) lines: Vec<Line<'static>>,
    action_row: Vec<Option<usize>>,
    /// Action rows of the full text (shown here or not).
    pub(crate) action_rows: usize,
}

impl Body {
    fn push(&mut self, line: Line<'static>, action: bool) {
        self.lines.push(line);
        self.action_row.push(action.then_some(self.action_rows));
        if action {
            self.action_rows += 1;
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// The action rows among `rows` of this body, as one range of action
    /// indices. Titles and rationales between them do not break it: a
    /// window of any layout holds consecutive action rows (the first run is
    /// taken, should one ever not).
    pub(crate) fn actions_in(&self, rows: Range<usize>) -> Range<usize> {
        let mut found = self
            .action_row
            .get(rows)
            .unwrap_or_default()
            .iter()
            .flatten()
            .copied();
        let Some(first) = found.next() else {
            return 0..0;
        };
        let mut end = first + 1;
        for r in found {
            if r != end {
                break;
            }
            end += 1;
        }
        first..end
    }
}

fn body(card: &ProposalCard, width: usize, detail: Detail) -> Body {
    let mut b = Body::default();
    for (row, choice) in card.choices().enumerate() {
        b.push(title_line(card, row, choice, width), false);
        let open = matches!(detail, Detail::All | Detail::AllActions) || row == card.selected;
        let reasons = matches!(detail, Detail::All | Detail::Focused);
        if open && reasons && !choice.rationale.is_empty() {
            let mut lines = Vec::new();
            push_paragraphs(&mut lines, &choice.rationale, Style::new(), width, INDENT);
            for line in lines {
                b.push(line, false);
            }
        }
        for action in &choice.actions {
            let lines = action_lines(card, action, width);
            if open {
                for line in lines {
                    b.push(line, true);
                }
            } else {
                // Hidden here, but counted: indices stay those of the full text.
                b.action_rows += lines.len();
            }
        }
    }
    if !card.proposal.armed {
        for line in wrap(
            &[Span::styled(tr!("proposal.unarmed"), theme::attention())],
            width,
            &[Span::styled("! ", theme::attention())],
            &[Span::raw("  ")],
        ) {
            b.push(line, false);
        }
    }
    b
}

/// The stale reason, wrapped (empty for a live card).
fn stale_lines(card: &ProposalCard, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(stale) = card.stale.as_ref() {
        lines.extend(wrap(
            &[Span::styled(
                tr!("proposal.cannot_run", why = stale.describe()),
                theme::error(),
            )],
            width,
            &[Span::styled("✗ ", theme::error())],
            &[Span::raw("  ")],
        ));
    }
    lines
}

/// Columns of the card's text in a pane `cols` wide (border and one column
/// of padding each side). The card, its compact form and the full view all
/// wrap at this width, so rows seen in one count in the others.
pub(crate) fn text_width(cols: u16) -> u16 {
    cols.saturating_sub(4)
}

/// The card's full text at `width`: every choice with its rationale and
/// every action in full, and the unarmed note.
pub(crate) fn full_text(card: &ProposalCard, width: usize) -> Body {
    body(card, width, Detail::All)
}

/// Whether every row fits in `width`. Only in a pane a dozen columns wide
/// do the prefixes leave no room; a clipped row never counts as seen.
pub(crate) fn fits(lines: &[Line<'_>], width: usize) -> bool {
    lines.iter().all(|l| l.width() <= width)
}

/// The report of one frame: action rows `showing` of `total`.
pub(crate) fn sight(
    card: &ProposalCard,
    width: u16,
    total: usize,
    showing: Range<usize>,
    full_view: Option<FullViewFrame>,
) -> CardSight {
    CardSight {
        id: card.proposal.id,
        width,
        total,
        first: showing.start,
        shown: showing.len(),
        full_view,
    }
}

/// Action rows still unread once this frame is seen; 0 for a stale card
/// (it cannot confirm anyway).
fn unread(card: &ProposalCard, width: u16, total: usize, showing: Range<usize>) -> usize {
    if card.stale.is_some() {
        0
    } else {
        card.unseen_with(width, total, showing)
    }
}

/// The first hint that fits in `room` columns.
fn fitting(hints: &[String], room: usize) -> Option<String> {
    hints
        .iter()
        .find(|h| crate::wrap::spans_width(&[Span::raw(h.as_str())]) <= room)
        .cloned()
}

/// The buttons. While `unread` rows remain they are greyed out and name
/// the key that opens the full view instead.
fn buttons_line(
    state: &AppState,
    card: &ProposalCard,
    width: usize,
    unread: usize,
) -> Line<'static> {
    if card.stale.is_some() {
        return Line::from(Span::styled(tr!("proposal.nothing_will_run"), theme::dim()));
    }
    let active = unread == 0 && crate::card::armed(state);
    let buttons = card.buttons();
    let enabled = |mode| pane::enabled(state, card, mode);
    // Padded labels, unless that would cut the last button off.
    let padded: usize = buttons.iter().map(|m| mode_label(*m).width() + 5).sum();
    let pad = if padded <= width { " " } else { "" };
    let mut spans = Vec::new();
    for (i, mode) in buttons.into_iter().enumerate() {
        let label = format!("{pad}{}{pad}", mode_label(mode));
        let style = match (i == card.button, active, unread == 0) {
            // The pane cannot take it now (the notes say why).
            _ if !enabled(mode) => theme::dim(),
            (true, true, _) => theme::selected().add_modifier(Modifier::BOLD),
            (true, false, true) => theme::bold(),
            (_, _, false) => theme::dim(),
            (false, _, _) => Style::new(),
        };
        spans.push(Span::styled("[", theme::dim()));
        spans.push(Span::styled(label, style));
        spans.push(Span::styled("]", theme::dim()));
        spans.push(Span::raw(" "));
    }
    let room = width.saturating_sub(crate::wrap::spans_width(&spans));
    if unread > 0 {
        let hints = [
            format!(" {}", tr!("proposal.unread_whole", n = unread)),
            format!(" {}", tr!("proposal.unread_first", n = unread)),
            format!(" {}", tr!("proposal.unread_rows", n = unread)),
            format!(" {}", tr!("proposal.read_all")),
            " v".to_owned(),
        ];
        if let Some(hint) = fitting(&hints, room) {
            spans.push(Span::styled(hint, theme::attention()));
        }
        return Line::from(spans);
    }
    let hint = insert_hint();
    if card.buttons().contains(&ConfirmMode::Insert)
        && enabled(ConfirmMode::Insert)
        && hint.width() <= room
    {
        spans.push(Span::styled(hint, theme::dim()));
    }
    Line::from(spans)
}

/// Rows the card wants at this width (everything shown).
pub fn card_height(state: &AppState, width: usize) -> usize {
    state.proposals.front().map_or(0, |card| {
        let width = width.saturating_sub(4);
        stale_lines(card, width).len()
            + full_text(card, width).len()
            + pane::long_rows(state, card, width)
            + 3
    })
}

/// The card in `area`; returns which action rows were on screen.
pub fn render(state: &AppState, frame: &mut Frame, area: Rect) -> Option<CardSight> {
    let card = state.proposals.front()?;
    let text_cols = text_width(area.width);
    let width = text_cols as usize;
    let full = full_text(card, width);
    let total = full.action_rows;
    if area.height < 4 {
        compact(
            state,
            card,
            frame,
            area,
            unread(card, text_cols, total, 0..0),
        );
        return Some(sight(card, text_cols, total, 0..0, None));
    }
    let queued = state.proposals.len();
    let mut block = panel::block(
        &origin_name(card.proposal.origin),
        theme::attention(),
        queued,
    );
    let inner = panel::body_area(&block, area);
    let mut head = stale_lines(card, width);
    head.truncate((inner.height as usize).saturating_sub(1));
    let rows = (inner.height as usize).saturating_sub(head.len());
    let whole = fits(&full.lines, width);
    let (notes, rows, mut shown) = lay_out(state, card, width, rows, full);
    // The window of `shown` that goes on screen, above the buttons row.
    let n = shown.len();
    let room = rows.saturating_sub(1);
    let mut start = 0;
    if n > room {
        // Keep the highlighted choice's title in view.
        let title_row = shown
            .lines
            .iter()
            .position(|l| l.spans.first().is_some_and(|s| s.content == "› "))
            .unwrap_or(0);
        start = title_row.min(n.saturating_sub(room));
    }
    // Never let a cut command look complete: the last row says what is cut.
    let cut = n - start > room;
    let end = if cut {
        start + room.saturating_sub(1)
    } else {
        n
    };
    let showing = if whole {
        shown.actions_in(start..end)
    } else {
        0..0
    };
    let unread = unread(card, text_cols, total, showing.clone());
    let keys = crate::card_keys::proposal(state, card, unread);
    block = block.title_bottom(crate::card_keys::title(state, &keys, area.width));
    frame.render_widget(block, area);
    let mut lines: Vec<Line<'static>> = shown.lines.drain(start..end).collect();
    if cut && room > 0 {
        let hidden = n - end;
        let marks = [
            tr!("proposal.more_whole", n = hidden),
            tr!("proposal.more_all", n = hidden),
            tr!("proposal.more", n = hidden),
            "…".to_owned(),
        ];
        lines.push(Line::from(Span::styled(
            fitting(&marks, width).unwrap_or_default(),
            theme::attention(),
        )));
    }
    while lines.len() + 1 < rows {
        lines.push(Line::default());
    }
    lines.extend(notes);
    lines.push(buttons_line(state, card, width, unread));
    head.extend(lines);
    frame.render_widget(Paragraph::new(head), inner);
    Some(sight(card, text_cols, total, showing, None))
}

/// The body fitted to `rows` rows (with the buttons row): the most of it
/// that fits, rationales going first, then other choices' details; and
/// whether every action row is still in it.
fn fit_body(card: &ProposalCard, width: usize, rows: usize, full: Body) -> (Body, bool) {
    let mut shown = full;
    let mut every = true;
    for detail in [Detail::AllActions, Detail::Focused, Detail::ActionsOnly] {
        if shown.len() < rows {
            break;
        }
        shown = body(card, width, detail);
        every = detail == Detail::AllActions;
    }
    let every = every && shown.len() < rows;
    (shown, every)
}

/// What the card knows of its pane, above the buttons (at most half of
/// the `rows` it has), and the body in the rows left: the notes' longest
/// form that leaves every action row on the card, else their shortest.
/// Returns the notes, the rows left for the body and buttons, the body.
fn lay_out(
    state: &AppState,
    card: &ProposalCard,
    width: usize,
    rows: usize,
    full: Body,
) -> (Vec<Line<'static>>, usize, Body) {
    let mut forms = pane::forms(state, card, width, rows.saturating_sub(1) / 2);
    let shortest = forms.pop().unwrap_or_default();
    for notes in forms {
        let left = rows.saturating_sub(notes.len());
        if let (shown, true) = fit_body(card, width, left, full_text(card, width)) {
            return (notes, left, shown);
        }
    }
    let left = rows.saturating_sub(shortest.len());
    (shortest, left, fit_body(card, width, left, full).0)
}

/// The pane has no rows for the card: report its size (nothing shown), so
/// the reading knows the width it will be read at.
pub(crate) fn unshown(state: &AppState, cols: u16) -> Option<CardSight> {
    let card = state.proposals.front()?;
    let width = text_width(cols);
    let total = full_text(card, width as usize).action_rows;
    Some(sight(card, width, total, 0..0, None))
}
