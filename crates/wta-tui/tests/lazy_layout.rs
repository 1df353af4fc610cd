//! The transcript lays out only the entries in view and measures the rest
//! with `items::entry_height`. These tests hold it to the straightforward
//! full layout (every visible entry rendered with `render_entry`, the lines
//! concatenated, the window cut out), so a lazy-layout bug fails here: a
//! measured height that differs from the drawn one, an entry in view that
//! was never built, a cache entry kept past a change.
//!
//! - heights: `entry_height` and `markdown::height` equal the rendered line
//!   counts, over random markdown, items, widths and focus;
//! - screens: random transcripts drawn at random sizes and scroll offsets,
//!   by a fresh view and by one view kept across frames (scrolling through
//!   the whole history, streaming, folding, resizing), equal the full
//!   layout's window cell for cell, with the same `total_lines`;
//! - a long transcript paged through with PageUp, and a selection reaching
//!   off-screen text, the same way.

use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use ratatui::text::Line;
use wta_state::*;
use wta_tui::View;
use wta_tui::items::{entry_height, render_entry};
use wta_tui::markdown;

// ---------------------------------------------------------------- inputs

/// Markdown pieces that exercise every construct the renderer knows,
/// including ones a stream leaves half-written.
fn md_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,9}( [a-z]{1,9}){0,12}",
        "[a-z]{20,70}",
        Just("世界の 文字 と全角".to_owned()),
        Just("👍🏽 ❤️ 👩‍💻 e\u{301} tab\there".to_owned()),
        "# [a-z ]{1,30}",
        "### [a-z ]{1,30}",
        "- [a-z ]{1,40}\n- [a-z ]{1,40}",
        "- [a-z]{1,8}\n  - [a-z ]{1,30}\n    - [a-z ]{1,30}",
        "1\\. [a-z ]{1,30}\n2\\. [a-z ]{1,30}",
        "- \\[[ x]\\] [a-z ]{1,30}",
        "> [a-z ]{1,60}",
        "```rust\n[a-z(){};\t ]{0,90}\n[a-z ]{0,20}\n```",
        "```\n[a-z ]{0,50}",
        "\\| [a-z]{1,12} \\| [a-z]{1,30} \\|\n\\|---\\|---\\|\n\\| [a-z]{1,12} \\| [a-z ]{1,40} \\|",
        Just("---".to_owned()),
        "\\*\\*[a-z ]{1,20}\\*\\* and \\*[a-z ]{1,20}\\* and ~~[a-z]{1,9}~~",
        "`[a-z ]{1,30}`",
        "\\[[a-z ]{1,20}\\]\\(https://[a-z]{1,12}\\.com/[a-z]{0,20}\\)",
        Just("<https://example.com/auto>".to_owned()),
        Just("![alt text](https://example.com/i.png)".to_owned()),
        Just("<b>inline html</b>\n\n<div>\nblock\n</div>".to_owned()),
        Just("a note[^1]\n\n[^1]: the note".to_owned()),
        Just("line one  \nline two\\\nline three".to_owned()),
        Just("**unclosed *emphasis `code".to_owned()),
    ]
}

fn markdown_text() -> impl Strategy<Value = String> {
    prop::collection::vec((md_piece(), prop_oneof![" ", "\n", "\n\n"]), 0..6)
        .prop_map(|parts| parts.into_iter().map(|(piece, sep)| piece + &sep).collect())
}

fn plain_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,9}( [a-z]{1,9}){0,10}",
        "[a-z ]{0,20}\n[a-z ]{0,40}\n\n[a-z]{30,60}",
        Just(String::new()),
        Just("  世界 👍🏽 wide\ttab".to_owned()),
    ]
}

fn tool_call() -> impl Strategy<Value = ToolCall> {
    (
        "[a-z ]{0,30}",
        prop::sample::select(vec![ToolKind::Read, ToolKind::Execute, ToolKind::Other]),
        prop::sample::select(vec![
            ToolStatus::Pending,
            ToolStatus::InProgress,
            ToolStatus::Completed,
            ToolStatus::Failed,
        ]),
        prop::option::of("[a-z /-]{0,150}(\n[a-z]{0,10})?"),
        prop::collection::vec("[a-z ]{0,90}", 0..7),
        0usize..3,
        prop::option::of(-1i32..3),
    )
        .prop_map(
            |(title, kind, status, target, output, output_dropped, exit_code)| ToolCall {
                id: ToolCallId(title.clone()),
                title,
                kind,
                status,
                target,
                output,
                output_dropped,
                exit_code,
                terminal: None,
            },
        )
}

fn plan() -> impl Strategy<Value = Vec<PlanEntry>> {
    let status = prop::sample::select(vec![
        PlanStatus::Pending,
        PlanStatus::InProgress,
        PlanStatus::Completed,
    ]);
    prop::collection::vec(
        ("[a-z ]{1,70}", status).prop_map(|(text, status)| PlanEntry { text, status }),
        0..4,
    )
}

fn stop_reason() -> impl Strategy<Value = StopReason> {
    prop::sample::select(vec![
        StopReason::EndTurn,
        StopReason::EndTurn,
        StopReason::Cancelled,
        StopReason::MaxTokens,
        StopReason::MaxTurnRequests,
        StopReason::Refusal,
    ])
}

fn level() -> impl Strategy<Value = SystemLevel> {
    prop::sample::select(vec![
        SystemLevel::Info,
        SystemLevel::Warn,
        SystemLevel::Error,
    ])
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        plain_text().prop_map(Item::User),
        markdown_text().prop_map(Item::Agent),
        (plain_text(), any::<bool>(), any::<bool>()).prop_map(|(text, expanded, live)| {
            Item::Thought {
                text,
                expanded,
                live,
            }
        }),
        tool_call().prop_map(Item::Tool),
        plan().prop_map(Item::Plan),
        (level(), plain_text()).prop_map(|(level, text)| Item::System { level, text }),
        "[a-z ]{0,50}".prop_map(Item::Divider),
        (stop_reason(), any::<bool>(), 0usize..4).prop_map(|(stop, collapsed, items)| {
            Item::TurnEnd {
                stop,
                collapsed,
                items,
            }
        }),
    ]
}

/// What happens inside a turn.
#[derive(Debug, Clone)]
enum Part {
    Reply(String),
    Thought(String),
    Tool(ToolCall),
    Plan(Vec<PlanEntry>),
    System(SystemLevel, String),
}

#[derive(Debug, Clone)]
enum Step {
    Turn {
        prompt: String,
        parts: Vec<Part>,
        stop: Option<StopReason>,
    },
    Divider(String),
    Replayed(String),
}

fn part() -> impl Strategy<Value = Part> {
    prop_oneof![
        3 => markdown_text().prop_map(Part::Reply),
        1 => plain_text().prop_map(Part::Thought),
        2 => tool_call().prop_map(Part::Tool),
        1 => plan().prop_map(Part::Plan),
        1 => (level(), plain_text()).prop_map(|(l, t)| Part::System(l, t)),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (plain_text(), prop::collection::vec(part(), 0..5), prop::option::of(stop_reason()))
            .prop_map(|(prompt, parts, stop)| Step::Turn { prompt, parts, stop }),
        1 => "[a-z ]{0,30}".prop_map(Step::Divider),
        1 => plain_text().prop_map(Step::Replayed),
    ]
}

fn build(steps: &[Step]) -> AppState {
    let mut state = AppState::new("demo");
    let t = &mut state.transcript;
    for step in steps {
        match step {
            Step::Turn {
                prompt,
                parts,
                stop,
            } => {
                t.begin_turn(prompt);
                for part in parts {
                    match part {
                        Part::Reply(text) => t.append_agent(text),
                        Part::Thought(text) => t.append_thought(text),
                        Part::Tool(call) => t.upsert_tool(call.clone()),
                        Part::Plan(plan) => t.set_plan(plan.clone()),
                        Part::System(level, text) => t.push_system(*level, text),
                    }
                }
                if let Some(stop) = stop {
                    t.end_turn(*stop);
                }
            }
            Step::Divider(label) => t.push_divider(label),
            Step::Replayed(text) => t.push_replayed_user(text),
        }
    }
    state
}

// ------------------------------------------------------------- reference

/// The transcript as the straightforward full layout draws it: every
/// visible entry laid out, the leading separator blank dropped.
fn full_layout(state: &AppState, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut skip = None;
    for entry in state.transcript.visible() {
        let entry_lines = render_entry(entry, width, state.fold_focus == Some(entry.id));
        skip.get_or_insert(usize::from(!entry_lines.is_empty()));
        lines.extend(entry_lines);
    }
    lines.split_off(skip.unwrap_or(0))
}

struct Pane {
    terminal: Terminal<TestBackend>,
    view: View,
}

impl Pane {
    fn new(width: u16, height: u16) -> Self {
        Pane {
            terminal: Terminal::new(TestBackend::new(width, height)).unwrap(),
            view: View::new(),
        }
    }

    /// Draws a frame and checks the transcript part of it (and the measured
    /// geometry) against the full layout. With a selection drawn only the
    /// text is compared (the highlight is `selection.rs`'s subject).
    fn check(&mut self, state: &AppState) -> Result<(), TestCaseError> {
        let view = &mut self.view;
        // The frame as drawn (the backend's copy keeps stale cells under
        // wide characters, which the diff skips).
        let drawn = self
            .terminal
            .draw(|f| view.render(state, f))
            .unwrap()
            .buffer
            .clone();
        let Some(area) = state.transcript_area.get() else {
            return Err(TestCaseError::fail("the frame drew no transcript"));
        };
        let area = Rect::new(area.x, area.y, area.width, area.height);
        let lines = full_layout(state, area.width as usize);
        let viewport = state.viewport.get();
        prop_assert_eq!(viewport.total_lines, lines.len(), "total lines");
        prop_assert_eq!(viewport.rows, area.height as usize);
        let top = viewport.top(state.scroll);
        let mut expected = Buffer::empty(area);
        for (y, line) in lines
            .iter()
            .skip(top)
            .take(area.height as usize)
            .enumerate()
        {
            expected.set_line(area.x, area.y + y as u16, line, area.width);
        }
        let text_only = state.selection.is_some_and(|s| s.dragged);
        for y in area.top()..area.bottom() {
            for x in area.left()..area.right() {
                let cell = |c: &Cell| (c.symbol().to_owned(), (!text_only).then(|| c.style()));
                prop_assert_eq!(
                    cell(&drawn[(x, y)]),
                    cell(&expected[(x, y)]),
                    "cell ({}, {}) at top {} of {} lines, {:?}",
                    x,
                    y,
                    top,
                    lines.len(),
                    state.scroll
                );
            }
        }
        Ok(())
    }

    fn resize(&mut self, width: u16, height: u16) {
        self.terminal.backend_mut().resize(width, height);
        self.terminal
            .resize(Rect::new(0, 0, width, height))
            .unwrap();
    }
}

// ----------------------------------------------------------------- tests

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn measured_heights_equal_rendered_lines(
        item in item(),
        width in 0usize..140,
        focused in any::<bool>(),
    ) {
        let entry = Entry { id: ItemId(1), rev: 1, turn: None, item };
        prop_assert_eq!(
            entry_height(&entry, width, focused),
            render_entry(&entry, width, focused).len()
        );
        if let Item::Agent(text) = &entry.item {
            prop_assert_eq!(markdown::height(text, width), markdown::render(text, width).len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_scroll_offset_shows_the_full_layout(
        steps in prop::collection::vec(step(), 1..14),
        (width, height) in (10u16..110, 4u16..40),
        tops in prop::collection::vec(0usize..400, 1..6),
        stride in 1usize..30,
        (resized_width, resized_height) in (10u16..110, 4u16..40),
        fold_picks in prop::collection::vec(any::<prop::sample::Index>(), 0..3),
        chunks in prop::collection::vec(markdown_text(), 1..4),
    ) {
        let mut state = build(&steps);
        // Cold frames: a fresh view at each offset, and following.
        for top in &tops {
            state.scroll = Scroll::Pinned { top: *top };
            Pane::new(width, height).check(&state)?;
        }
        state.scroll = Scroll::Follow;
        Pane::new(width, height).check(&state)?;

        // One view kept across frames: scroll from the top to the bottom.
        let mut pane = Pane::new(width, height);
        let total = state.viewport.get().total_lines;
        for top in (0..=total).step_by(stride) {
            state.scroll = Scroll::Pinned { top };
            pane.check(&state)?;
        }
        // Fold focus and folding change entries above the window.
        for pick in &fold_picks {
            let foldables = state.transcript.foldables();
            if foldables.is_empty() {
                break;
            }
            let id = foldables[pick.index(foldables.len())];
            state.fold_focus = Some(id);
            pane.check(&state)?;
            state.transcript.toggle(id);
            pane.check(&state)?;
        }
        state.fold_focus = None;
        // Streaming while reading history, then while following.
        state.scroll = Scroll::Pinned { top: tops[0] };
        state.transcript.begin_turn("more");
        for chunk in &chunks {
            state.transcript.append_agent(chunk);
            pane.check(&state)?;
        }
        state.scroll = Scroll::Follow;
        for chunk in &chunks {
            state.transcript.append_agent(chunk);
            pane.check(&state)?;
        }
        // A resize lays everything out again at the new width.
        pane.resize(resized_width, resized_height);
        pane.check(&state)?;
        state.scroll = Scroll::Pinned { top: tops[0] };
        pane.check(&state)?;
    }
}

const REPLY: &str = "Here is what I found in **the build**:\n\n- the `wrap` module breaks long words\n- tables degrade to records when narrow\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n| a | b |\n|---|---|\n| c | d |\n\nA longer paragraph follows so that wrapping has real work to do at this width, with *emphasis* and a [link](https://example.com).\n";

/// 150 turns, each reply a little different so that heights differ.
fn long_transcript() -> AppState {
    let now = std::time::Instant::now();
    let mut state = AppState::new("demo");
    for turn in 0..150 {
        state.input.set_text(&format!("question {turn}"));
        state.popup_dismissed = true;
        update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
        let reply = format!("{REPLY}{}", " extra words".repeat(turn % 13));
        let domain = |e| Event::Domain(e);
        update(
            &mut state,
            domain(DomainEvent::AgentMessageChunk(reply)),
            now,
        );
        update(
            &mut state,
            domain(DomainEvent::TurnEnded(StopReason::EndTurn)),
            now,
        );
    }
    state
}

#[test]
fn paging_up_through_a_long_transcript_shows_the_full_layout() -> Result<(), TestCaseError> {
    let now = std::time::Instant::now();
    let mut state = long_transcript();
    let mut pane = Pane::new(72, 30);
    pane.check(&state)?;
    let total = state.viewport.get().total_lines;
    assert!(total > 3000, "{total} lines");
    let mut pages = 0;
    while state.viewport.get().top(state.scroll) > 0 {
        update(&mut state, Event::Key(Key::plain(KeyCode::PageUp)), now);
        pane.check(&state)?;
        pages += 1;
    }
    assert!(pages > total / 30, "{pages} pages");
    for top in [0, 1, 7, total / 3, total / 2, total - 40, total] {
        state.scroll = Scroll::Pinned { top };
        Pane::new(72, 30).check(&state)?;
    }
    Ok(())
}

#[test]
fn a_selection_reaching_off_screen_copies_what_the_full_layout_shows() {
    let mut state = long_transcript();
    // A view that has laid out every entry: it scrolled through all of it.
    let mut warm = Pane::new(80, 24);
    warm.check(&state).unwrap();
    let total = state.viewport.get().total_lines;
    for top in (0..total).step_by(10) {
        state.scroll = Scroll::Pinned { top };
        warm.check(&state).unwrap();
    }
    state.scroll = Scroll::Follow;
    for unit in [Unit::Char, Unit::Word, Unit::Line] {
        // From far above the window to inside it.
        state.selection = Some(Selection {
            anchor: TextPoint {
                line: total - 400,
                col: 5,
            },
            head: TextPoint {
                line: total - 3,
                col: 9,
            },
            dragged: true,
            unit,
        });
        warm.check(&state).unwrap();
        let want = state.selected_text.borrow().clone().unwrap();
        Pane::new(80, 24).check(&state).unwrap();
        let got = state.selected_text.borrow().clone().unwrap();
        assert_eq!(got, want);
        assert!(got.text.lines().count() > 300, "{unit:?}");
    }
}
