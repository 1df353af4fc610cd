//! `View`: splits the pane and draws every part from `AppState`.
//!
//! ```text
//! transcript (or setup screen)      │ F12 traffic (right when wide,
//! permission card / master-gone     │  below when narrow)
//!   notice / picker / popup         │
//! ─────────────────────────────────
//! › prompt (1–8 rows)
//! status line
//! ```
//!
//! A proposal card's full view replaces all of it while open and on top.
//! The card drawn is the one keys go to (`AppState::top_card`). After each
//! draw the driver calls [`View::card_feedback`] and feeds the event it
//! returns (what of the card was on screen) back to the reducer.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;
use wta_state::proposal_card::CardSight;
use wta_state::{AppState, Event, TopCard};

use wta_i18n::tr;

use crate::transcript::TranscriptCache;
use crate::{
    card, debug, input, master_lost, popup, proposal_card, question, setup, status, theme,
};

/// Width at which the debug panel moves beside the transcript.
const SIDE_DEBUG_MIN_WIDTH: u16 = 100;

/// The pane's view. Holds only the wrapped-line cache and what the last
/// frame showed of the proposal card; all content comes from the state
/// passed to `render`.
#[derive(Debug, Default)]
pub struct View {
    transcript: TranscriptCache,
    card_sight: Option<CardSight>,
}

impl View {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn render(&mut self, state: &AppState, frame: &mut Frame) {
        self.card_sight = None;
        let area = frame.area();
        if area.height < 3 || area.width < 10 {
            let line = Line::from(Span::styled(
                format!("wta: {}", tr!("layout.too_small")),
                theme::dim(),
            ));
            frame
                .buffer_mut()
                .set_line(area.x, area.y, &line, area.width);
            return;
        }
        let top = state.top_card();
        if matches!(
            top,
            Some(TopCard::Proposal {
                full_view: true,
                ..
            })
        ) {
            state.transcript_area.set(None);
            self.card_sight = proposal_card::render_full(state, frame, area);
            return;
        }
        let status_area = Rect {
            y: area.bottom() - 1,
            height: 1,
            ..area
        };
        let input_rows = input::input_height(state, area.width as usize) as u16;
        let input_rows = input_rows.min(area.height.saturating_sub(3)).max(1);
        let input_area = Rect {
            y: status_area.y - input_rows,
            height: input_rows,
            ..area
        };
        let rule_area = Rect {
            y: input_area.y - 1,
            height: 1,
            ..area
        };
        let room = rule_area.y - area.y;
        let width = area.width as usize;
        let overlay_want = match top {
            Some(TopCard::Permission(_)) => card::card_height(state, width),
            Some(TopCard::Question(_)) => question::card_height(state, width),
            Some(TopCard::Proposal { .. }) => proposal_card::card_height(state, width),
            None if state.master_lost() => {
                master_lost::height(state, width, room.saturating_sub(1) as usize)
            }
            None => popup::popup_height(state, width),
        } as u16;
        // Keep at least one transcript row; the card falls back to compact.
        let overlay_rows = overlay_want.min(room.saturating_sub(1));
        let overlay_area = Rect {
            y: rule_area.y - overlay_rows,
            height: overlay_rows,
            ..area
        };
        let main = Rect {
            height: overlay_area.y - area.y,
            ..area
        };

        let (chat, debug_area) = split_debug(state, main);
        // Only a drawn transcript can be selected with the mouse.
        state.transcript_area.set(None);
        if state.setup.is_some() {
            setup::render(state, frame, chat);
        } else if state.transcript.is_empty() {
            welcome(state, frame, chat);
        } else {
            self.transcript.render(state, frame, chat);
        }
        if let Some(debug_area) = debug_area {
            debug::render(state, frame, debug_area);
        }
        if overlay_rows > 0 {
            match top {
                Some(TopCard::Permission(_)) => card::render(state, frame, overlay_area),
                Some(TopCard::Question(_)) => question::render(state, frame, overlay_area),
                Some(TopCard::Proposal { .. }) => {
                    self.card_sight = proposal_card::render(state, frame, overlay_area);
                }
                None if state.master_lost() => {
                    master_lost::render(state, frame, overlay_area);
                }
                None => popup::render(state, frame, overlay_area),
            }
        }
        let card_unshown = overlay_rows == 0 && matches!(top, Some(TopCard::Proposal { .. }));
        if card_unshown {
            self.card_sight = proposal_card::unshown(state, area.width);
        }
        let rule = match self.card_sight {
            Some(_) if card_unshown => card_waiting_rule(area.width as usize),
            _ => rule(state, area.width as usize),
        };
        frame
            .buffer_mut()
            .set_line(rule_area.x, rule_area.y, &rule, rule_area.width);
        input::render(state, frame, input_area);
        status::render(state, frame, status_area);
    }

    /// What the last frame showed of the front proposal card, as the event
    /// the driver feeds back to the reducer, when it tells the reducer
    /// something new (so a redraw that shows nothing new ends the loop).
    /// Call after every draw; a card confirms only once every action row
    /// of every choice was reported this way.
    pub fn card_feedback(&self, state: &AppState) -> Option<Event> {
        self.card_sight
            .filter(|sight| state.proposals.is_news(sight))
            .map(Event::CardShown)
    }

    /// Cached transcript entries (for tests and the bench).
    pub fn cached_entries(&self) -> usize {
        self.transcript.len()
    }
}

/// The rule above the prompt box; it names a queued message when there is
/// one (first line, cut to fit).
fn rule(state: &AppState, width: usize) -> Line<'static> {
    let Some(queued) = &state.queued else {
        return Line::from(Span::styled("─".repeat(width), theme::dim()));
    };
    let first = queued.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let more = if queued.trim().lines().count() > 1 {
        " …"
    } else {
        ""
    };
    let queued_label = format!("{}: ", tr!("layout.queued"));
    let label_width = 2 + queued_label.width();
    let room_with =
        |hint: &str| width.saturating_sub(label_width + hint.width() + more.width() + 1);
    // The longest hint that still leaves the message some room.
    let want = first.trim().width().min(16);
    let sent = if state.waits_for_connection() {
        tr!("layout.queued_connected")
    } else {
        tr!("layout.queued_sent")
    };
    let hints = [
        format!(" · {sent} · {} ", tr!("layout.queued_back")),
        format!(" · {} ", tr!("layout.queued_back")),
    ];
    let hint = hints
        .iter()
        .map(String::as_str)
        .find(|h| room_with(h) >= want)
        .unwrap_or(" ");
    let room = room_with(hint);
    let text = crate::wrap::truncate(first.trim(), room);
    let used = label_width + text.width() + more.width() + hint.width();
    Line::from(vec![
        Span::styled("─ ", theme::dim()),
        Span::styled(queued_label, theme::accent()),
        Span::raw(format!("{text}{more}")),
        Span::styled(hint.to_owned(), theme::dim()),
        Span::styled("─".repeat(width.saturating_sub(used)), theme::dim()),
    ])
}

/// The rule when a proposal card waits but the pane has no row for it.
fn card_waiting_rule(width: usize) -> Line<'static> {
    let texts = [
        format!("─ {} ", tr!("layout.card_waiting")),
        format!("─ {} ", tr!("layout.card_waiting_short")),
        "─ v ".to_owned(),
    ];
    let text = texts
        .iter()
        .find(|t| t.width() <= width)
        .map_or("", String::as_str);
    Line::from(vec![
        Span::styled(text.to_owned(), theme::attention()),
        Span::styled("─".repeat(width.saturating_sub(text.width())), theme::dim()),
    ])
}

fn split_debug(state: &AppState, main: Rect) -> (Rect, Option<Rect>) {
    if !state.debug.visible || main.height < 2 {
        return (main, None);
    }
    if main.width >= SIDE_DEBUG_MIN_WIDTH {
        let side = main.width * 2 / 5;
        let chat = Rect {
            width: main.width - side,
            ..main
        };
        (
            chat,
            Some(Rect {
                x: chat.right(),
                width: side,
                ..main
            }),
        )
    } else {
        let below = (main.height * 2 / 5).max(1);
        let chat = Rect {
            height: main.height - below,
            ..main
        };
        (
            chat,
            Some(Rect {
                y: chat.bottom(),
                height: below,
                ..main
            }),
        )
    }
}

fn welcome(state: &AppState, frame: &mut Frame, area: Rect) {
    let mut lines = vec![Line::from(vec![
        Span::styled(" ◆ ", theme::accent()),
        Span::styled("wta", theme::bold()),
        Span::styled(format!(" · {}", state.agent), theme::dim()),
    ])];
    if let Some(target) = &state.target {
        lines.push(Line::from(Span::styled(
            format!("   {}", tr!("welcome.target", pane = target.pane)),
            theme::dim(),
        )));
    }
    lines.push(Line::from(Span::styled(
        format!("   {}", tr!("welcome.help")),
        theme::dim(),
    )));
    lines.push(Line::from(Span::styled(
        format!("   {}", tr!("welcome.debug")),
        theme::dim(),
    )));
    let buf = frame.buffer_mut();
    for (i, line) in lines.iter().take(area.height as usize).enumerate() {
        buf.set_line(area.x, area.y + i as u16, line, area.width);
    }
}
