//! The single entry point: `update(state, event, now) -> effects`.
//! Dispatches to the key, command and domain handlers, and owns scrolling.
//! Pure: no I/O, no clock reads (time is the `now` argument).

use std::time::Instant;

use super::effects::Effect;
use super::events::{DomainEvent, Event, Mouse};
use super::state::{AppState, Scroll};
use super::{commands, domain_events, guard, keys, proposal_card, selection};

/// Lines one wheel notch scrolls.
pub const WHEEL_LINES: usize = 3;

/// Applies one event and returns what the driver must do, in order.
pub fn update(state: &mut AppState, event: Event, now: Instant) -> Vec<Effect> {
    state.clock = Some(now);
    let mut effects = Vec::new();
    let relaid = matches!(event, Event::Resize { .. });
    // What the card on top says of its pane, before a fact about panes.
    let told = matches!(event, Event::Domain(DomainEvent::PaneFacts { .. }))
        .then(|| proposal_card::front_notes(state));
    match event {
        Event::Key(key) => keys::on_key(state, key, now, &mut effects),
        Event::Paste(text) => keys::on_paste(state, &text),
        Event::Mouse(Mouse::WheelUp) if state.proposals.full_view_open() => {
            state.proposals.scroll_full_view(-(WHEEL_LINES as isize));
        }
        Event::Mouse(Mouse::WheelDown) if state.proposals.full_view_open() => {
            state.proposals.scroll_full_view(WHEEL_LINES as isize);
        }
        Event::Mouse(Mouse::WheelUp) if state.debug.visible => state.debug.scroll_up(WHEEL_LINES),
        Event::Mouse(Mouse::WheelDown) if state.debug.visible => {
            state.debug.scroll_down(WHEEL_LINES);
        }
        Event::Mouse(Mouse::WheelUp) => scroll_up(state, WHEEL_LINES),
        Event::Mouse(Mouse::WheelDown) => scroll_down(state, WHEEL_LINES),
        Event::Mouse(Mouse::Down { col, row }) => selection::on_down(state, col, row, now),
        Event::Mouse(Mouse::Drag { col, row }) => selection::on_drag(state, col, row),
        Event::Mouse(Mouse::Up { .. }) => selection::on_up(state),
        Event::Resize { .. } => {
            // Wrapped heights change with width: a pinned line number (or a
            // selected one) no longer points at the same text, so return to
            // following and drop the selection.
            state.scroll = Scroll::Follow;
            state.debug.scroll = Scroll::Follow;
            state.selection = None;
            // The card re-wraps too: it confirms nothing until the next
            // frame reports what it shows at the new size, and its guard
            // starts over (below).
            state.proposals.remeasure();
        }
        Event::Tick => on_tick(state),
        Event::CardShown(sight) => proposal_card::on_shown(state, sight),
        Event::Script(script) => commands::scripted(state, script, now, &mut effects),
        Event::Domain(event) => domain_events::on_domain(state, event, now, &mut effects),
    }
    // Whatever the event did, the card on top and its guard follow it: a
    // card that now says something else of its pane is revealed anew.
    let retold = told.is_some_and(|before| before != proposal_card::front_notes(state));
    guard::settle(state, relaid || retold, now);
    settle_connecting(state, now);
    effects
}

/// After every event: a wait for a connection that just began starts its
/// clock; one that ended clears it (the status line counts from here).
fn settle_connecting(state: &mut AppState, now: Instant) {
    if !state.waits_for_connection() {
        state.connecting_since = None;
    } else if state.connecting_since.is_none() {
        state.connecting_since = Some(now);
    }
}

fn on_tick(state: &mut AppState) {
    state.frame = state.frame.wrapping_add(1);
    if !state.quit_armed() {
        state.quit_armed_at = None;
    }
}

/// Rows one PageUp/PageDown moves: a page minus two lines of overlap.
pub fn page_size(state: &AppState) -> usize {
    state.viewport.get().rows.saturating_sub(2).max(1)
}

pub fn scroll_up(state: &mut AppState, lines: usize) {
    let viewport = state.viewport.get();
    let bottom_top = viewport.total_lines.saturating_sub(viewport.rows);
    let top = viewport.top(state.scroll);
    if bottom_top == 0 {
        return;
    }
    state.scroll = Scroll::Pinned {
        top: top.saturating_sub(lines),
    };
}

pub fn scroll_down(state: &mut AppState, lines: usize) {
    let Scroll::Pinned { top } = state.scroll else {
        return;
    };
    let viewport = state.viewport.get();
    let top = top + lines;
    state.scroll = if top + viewport.rows >= viewport.total_lines {
        Scroll::Follow
    } else {
        Scroll::Pinned { top }
    };
}
