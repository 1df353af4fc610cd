//! Frame time of a ~10,000-line transcript at 120x40. Budgets (medians):
//! the cold frame (a fresh `View`, nothing cached) ≤ 10 ms; streaming
//! frames (the last reply grows every frame) and frames while reading
//! history (pinned in the middle, content arriving below) ≤ 5 ms.
//! Run: `cargo bench -p wta-tui --bench render` (a median over budget fails
//! it). Prints the medians with their ratio to the budget and where the
//! cold frame's time goes, each phase timed on its own with the functions
//! the frame calls. `cargo test -p wta-tui --bench render` is the quick run
//! (3 cold frames, 20 of each other kind, budgets not enforced).
//!
//! Every frame is checked, in both runs: drawing succeeds, the cold frame
//! shows the transcript's end, each streaming frame shows the chunk just
//! streamed, and each pinned frame shows history, not the chunks arriving.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use wta_state::*;
use wta_testkit::bench::{Budgets, Mode};
use wta_tui::View;
use wta_tui::items::{entry_height, render_entry};
use wta_tui::markdown;

const COLD_BUDGET: Duration = Duration::from_millis(10);
const FRAME_BUDGET: Duration = Duration::from_millis(5);
const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
/// Cold frames measured (each with a fresh view and terminal): full, quick.
const COLD_SAMPLES: (usize, usize) = (21, 3);
/// Streaming frames and pinned frames measured: full, quick.
const FRAMES: (usize, usize) = (300, 20);

const REPLY: &str = "Here is what I found in **the build**:\n\n- the `wrap` module breaks long words\n- tables degrade to records when narrow\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nA longer paragraph follows so that wrapping has real work to do at this width, with *emphasis* and a [link](https://example.com).\n";

fn transcript(now: Instant) -> AppState {
    let mut state = AppState::new("demo");
    let send = |state: &mut AppState, e: DomainEvent| update(state, Event::Domain(e), now);
    send(
        &mut state,
        DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: None,
        },
    );
    for turn in 0..480 {
        state.input.set_text(&format!("question {turn}"));
        state.popup_dismissed = true;
        update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
        send(&mut state, DomainEvent::AgentMessageChunk(REPLY.into()));
        send(
            &mut state,
            DomainEvent::ToolCall(ToolCall {
                id: ToolCallId(format!("t{turn}")),
                title: "Run tests".into(),
                kind: ToolKind::Execute,
                status: ToolStatus::Completed,
                target: Some("cargo test".into()),
                output: vec!["ok".into(); 3],
                exit_code: Some(0),
                ..ToolCall::default()
            }),
        );
        send(&mut state, DomainEvent::TurnEnded(StopReason::EndTurn));
    }
    state
}

fn terminal() -> Terminal<TestBackend> {
    match Terminal::new(TestBackend::new(WIDTH, HEIGHT)) {
        Ok(t) => t,
        Err(e) => panic!("test backend: {e}"),
    }
}

fn draw(terminal: &mut Terminal<TestBackend>, state: &AppState, view: &mut View) -> Duration {
    let start = Instant::now();
    let drawn = terminal.draw(|f| view.render(state, f));
    let elapsed = start.elapsed();
    if let Err(err) = drawn {
        panic!("drawing a frame failed: {err}");
    }
    elapsed
}

/// The text on the terminal's screen.
fn screen(terminal: &Terminal<TestBackend>) -> String {
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            text.push_str(buffer[(x, y)].symbol());
        }
        text.push('\n');
    }
    text
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
}

fn main() -> ExitCode {
    let mode = Mode::from_env();
    let mut budgets = Budgets::new("render", mode);
    let pick = |(full, quick): (usize, usize)| if mode.is_quick() { quick } else { full };
    let (cold_samples, frames) = (pick(COLD_SAMPLES), pick(FRAMES));
    let now = Instant::now();
    let mut state = transcript(now);

    let cold: Vec<Duration> = (0..cold_samples)
        .map(|_| {
            let mut terminal = terminal();
            let took = draw(&mut terminal, &state, &mut View::new());
            let shown = screen(&terminal);
            assert!(
                shown.contains("question 479"),
                "the cold frame shows the transcript's end:\n{shown}"
            );
            took
        })
        .collect();
    assert_eq!(cold.len(), cold_samples);
    let cold = median(cold);
    let viewport = state.viewport.get();
    assert!(
        viewport.total_lines >= 10_000,
        "a 10k-line transcript: {} lines",
        viewport.total_lines
    );
    let breakdown = Breakdown::measure(&state, WIDTH as usize, viewport.rows, cold_samples);

    // Streaming: start a turn, then one chunk per frame.
    let mut terminal = terminal();
    let mut view = View::new();
    draw(&mut terminal, &state, &mut view);
    state.input.set_text("stream please");
    update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
    let mut streaming = Vec::new();
    let mut last_word = String::new();
    for i in 0..frames {
        let chunk = if i % 10 == 9 {
            "\n\n".to_owned()
        } else {
            last_word = format!("word{i} ");
            format!("word{i} and more words ")
        };
        update(
            &mut state,
            Event::Domain(DomainEvent::AgentMessageChunk(chunk)),
            now,
        );
        streaming.push(draw(&mut terminal, &state, &mut view));
        let shown = screen(&terminal);
        assert!(
            shown.contains(&last_word),
            "streaming frame {i} shows {last_word:?}:\n{shown}"
        );
    }

    // Reading history: pinned halfway up, content still arriving below.
    state.scroll = Scroll::Pinned {
        top: viewport.total_lines / 2,
    };
    let mut pinned = Vec::new();
    for i in 0..frames {
        update(
            &mut state,
            Event::Domain(DomainEvent::AgentMessageChunk(format!("more{i} "))),
            now,
        );
        pinned.push(draw(&mut terminal, &state, &mut view));
        let shown = screen(&terminal);
        assert!(
            shown.contains("question") && !shown.contains("more0 "),
            "pinned frame {i} shows history, not the new chunks:\n{shown}"
        );
    }
    assert_eq!((streaming.len(), pinned.len()), (frames, frames));

    println!(
        "transcript: {} lines, {} entries at {WIDTH}x{HEIGHT}",
        viewport.total_lines, breakdown.entries
    );
    let (streaming, pinned) = (median(streaming), median(pinned));
    println!(
        "cold frame median ({cold_samples} fresh views): {}",
        against(&mut budgets, "cold frame", cold, COLD_BUDGET)
    );
    println!(
        "streaming frame median ({frames}):       {}",
        against(&mut budgets, "streaming frame", streaming, FRAME_BUDGET)
    );
    println!(
        "pinned frame median ({frames}):          {}",
        against(&mut budgets, "pinned frame", pinned, FRAME_BUDGET)
    );
    breakdown.print(cold);
    budgets.finish()
}

fn against(budgets: &mut Budgets, what: &str, t: Duration, budget: Duration) -> String {
    let ratio = t.as_secs_f64() / budget.as_secs_f64();
    let verdict = budgets.check(
        t <= budget,
        format_args!("{what} median {:.3} ms > {} ms", ms(t), budget.as_millis()),
    );
    format!(
        "{:.3} ms = {ratio:.2}x of the {} ms budget: {verdict}",
        ms(t),
        budget.as_millis()
    )
}

/// The cold frame's phases, each the median of timing it alone.
struct Breakdown {
    entries: usize,
    in_view: usize,
    /// pulldown-cmark's events for every reply, nothing rendered.
    parse: Duration,
    /// `entry_height` of every entry: the parse plus counting line breaks.
    measure: Duration,
    /// `render_entry` of the entries the last screenful shows.
    layout_in_view: Duration,
    /// `render_entry` of every entry: what a frame costs that lays out the
    /// whole transcript.
    layout_all: Duration,
}

impl Breakdown {
    fn measure(state: &AppState, width: usize, rows: usize, samples: usize) -> Self {
        let entries: Vec<&Entry> = state.transcript.visible().collect();
        // The entries the bottom screenful covers, found from the end.
        let mut lines = 0;
        let in_view = entries
            .iter()
            .rev()
            .take_while(|e| {
                let more = lines < rows;
                lines += entry_height(e, width, false);
                more
            })
            .count();
        let replies: Vec<&str> = entries
            .iter()
            .filter_map(|e| match &e.item {
                Item::Agent(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let phase = |f: &dyn Fn() -> usize| {
            median(
                (0..samples)
                    .map(|_| timed(|| _ = std::hint::black_box(f())))
                    .collect(),
            )
        };
        Breakdown {
            entries: entries.len(),
            in_view,
            parse: phase(&|| {
                replies
                    .iter()
                    .map(|text| pulldown_cmark::Parser::new_ext(text, markdown::OPTIONS).count())
                    .sum()
            }),
            measure: phase(&|| entries.iter().map(|e| entry_height(e, width, false)).sum()),
            layout_in_view: phase(&|| {
                entries[entries.len() - in_view..]
                    .iter()
                    .map(|e| render_entry(e, width, false).len())
                    .sum()
            }),
            layout_all: phase(&|| {
                entries
                    .iter()
                    .map(|e| render_entry(e, width, false).len())
                    .sum()
            }),
        }
    }

    fn print(&self, cold: Duration) {
        let share = |t: Duration| 100.0 * t.as_secs_f64() / cold.as_secs_f64();
        let row = |name: &str, t: Duration| {
            println!("  {name:<56} {:>7.3} ms {:>5.1}%", ms(t), share(t));
        };
        println!("where the cold frame's time goes:");
        let counting = self.measure.saturating_sub(self.parse);
        row("markdown parse of every reply (pulldown-cmark)", self.parse);
        row(
            &format!("counting the lines of all {} entries", self.entries),
            counting,
        );
        row(
            &format!("laying out the {} entries in view", self.in_view),
            self.layout_in_view,
        );
        row(
            "the rest (cache, drawing, prompt, status, buffer diff)",
            cold.saturating_sub(self.measure + self.layout_in_view),
        );
        println!(
            "  for comparison, laying out all {} entries:               {:>7.3} ms",
            self.entries,
            ms(self.layout_all)
        );
    }
}
