//! Frame time of a ~10,000-line transcript (target: median ≤ 5 ms).
//! Run: `cargo bench -p wta-tui --bench render`. Prints medians for a cold
//! frame (nothing cached), streaming frames (the last reply grows every
//! frame) and frames while reading history (pinned in the middle).

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use wta_state::*;
use wta_tui::View;

const REPLY: &str = "Here is what I found in **the build**:\n\n- the `wrap` module breaks long words\n- tables degrade to records when narrow\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nA longer paragraph follows so that wrapping has real work to do at this width, with *emphasis* and a [link](https://example.com).\n";

fn transcript(now: Instant) -> AppState {
    let mut state = AppState::new("demo");
    let send = |state: &mut AppState, e: DomainEvent| update(state, Event::Domain(e), now);
    send(
        &mut state,
        DomainEvent::SessionStarted {
            session: "s1".into(),
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

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let now = Instant::now();
    let mut state = transcript(now);
    let mut terminal = match Terminal::new(TestBackend::new(120, 40)) {
        Ok(t) => t,
        Err(e) => panic!("test backend: {e}"),
    };
    let mut view = View::new();
    let mut frame = |state: &AppState, view: &mut View| {
        let start = Instant::now();
        let _ = terminal.draw(|f| view.render(state, f));
        start.elapsed()
    };
    let cold = frame(&state, &mut view);
    let lines = state.viewport.get().total_lines;

    // Streaming: start a turn, then one chunk per frame.
    state.input.set_text("stream please");
    update(&mut state, Event::Key(Key::plain(KeyCode::Enter)), now);
    let mut streaming = Vec::new();
    for i in 0..300 {
        let chunk = if i % 10 == 9 {
            "\n\n".to_owned()
        } else {
            format!("word{i} and more words ")
        };
        update(
            &mut state,
            Event::Domain(DomainEvent::AgentMessageChunk(chunk)),
            now,
        );
        streaming.push(frame(&state, &mut view));
    }

    // Reading history: pinned halfway up, content still arriving below.
    state.scroll = Scroll::Pinned { top: lines / 2 };
    let mut pinned = Vec::new();
    for i in 0..300 {
        update(
            &mut state,
            Event::Domain(DomainEvent::AgentMessageChunk(format!("more{i} "))),
            now,
        );
        pinned.push(frame(&state, &mut view));
    }

    println!("transcript: {lines} lines at 120x40");
    println!(
        "cold frame (nothing cached): {:.3} ms",
        cold.as_secs_f64() * 1e3
    );
    let (streaming, pinned) = (median(streaming), median(pinned));
    println!("streaming frame median:      {}", against_budget(streaming));
    println!("pinned frame median:         {}", against_budget(pinned));
}

/// Issue budget: a 10,000-line transcript frame renders in ≤ 5 ms (median).
const BUDGET: Duration = Duration::from_millis(5);

fn against_budget(t: Duration) -> String {
    let ratio = t.as_secs_f64() / BUDGET.as_secs_f64();
    let verdict = if t <= BUDGET { "within" } else { "OVER" };
    format!(
        "{:.3} ms = {ratio:.2}x of the {} ms budget ({verdict})",
        t.as_secs_f64() * 1e3,
        BUDGET.as_millis()
    )
}
