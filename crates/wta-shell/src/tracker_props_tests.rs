//! The tracker against what it must never believe and over any input:
//! marks without the announced nonce never count, and proptests over
//! arbitrary events and arbitrarily cut pane bytes (every run closed at most
//! once, memory bounded, only genuine marks start runs).

use super::*;

/// A mark as command output could print it: the shell's pid, no nonce or a wrong one.
fn forged(kind: MarkKind, aid: &str) -> Token {
    Token::Mark(Mark {
        kind,
        source: MarkSource::Osc133,
        aid: Some(aid.to_owned()),
        cmdline: None,
        nonce: Some("ffffffffffffffff".into()),
    })
}

#[test]
fn marks_without_the_announced_nonce_never_count() {
    // A forged D (no nonce, or a wrong one) in a command's output does not
    // end the run; the shell's own D does.
    let mut bare = d("1", 0);
    if let Token::Mark(m) = &mut bare {
        m.nonce = None;
    }
    let (t, fx) = run(
        fresh(),
        toks(vec![
            a("1"),
            b("1"),
            c("1", "make"),
            text("building\r\n"),
            forged(MarkKind::CommandEnd { exit: Some(0) }, "1"),
            bare,
            forged(MarkKind::PromptStart, "1"),
            text("still building\r\n"),
        ]),
    );
    assert_eq!(t.state, State::Running);
    assert!(!fx.iter().any(|e| matches!(e, Effect::RunFinished { .. })));
    let (t, fx) = run(t, toks(vec![d("1", 1)]));
    assert!(fx.contains(&Effect::RunFinished { id: RunId(1) }));
    let last = t.last.as_ref().unwrap();
    assert_eq!(last.exit, Some(1));
    assert_eq!(last.render().text, "building\nstill building");
    // A tracker that has learned no nonce ignores every mark.
    let untrusted = Tracker::new(80, TrackerConfig::default());
    let (t, fx) = run(
        untrusted,
        toks(vec![a("1"), b("1"), c("1", "x"), d("1", 0)]),
    );
    assert_eq!(
        (t.state, t.integration),
        (State::Unknown, Integration::Unknown)
    );
    assert!(fx.is_empty());
}

fn arb_event() -> impl Strategy<Value = Event> {
    let aid = prop_oneof![Just("1"), Just("2")];
    prop_oneof![
        aid.clone().prop_map(|x| Event::Token(a(x))),
        aid.clone().prop_map(|x| Event::Token(b(x))),
        aid.clone().prop_map(|x| Event::Token(c(x, "cmd"))),
        (aid, -1..300i32).prop_map(|(x, e)| Event::Token(d(x, e))),
        (-1..3i32).prop_map(|e| Event::Token(forged(MarkKind::CommandEnd { exit: Some(e) }, "1"))),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(|v| Event::Token(Token::Text(v))),
        any::<bool>().prop_map(|on| Event::Token(Token::AltScreen(on))),
        Just(Event::Submitted { text: "cmd".into() }),
        (1..4u64, any::<bool>()).prop_map(|(i, changed)| Event::SubmitTimerExpired {
            id: SubmitId(i),
            changed
        }),
        Just(Event::PipeClosed {
            fate: PaneFate::Alive
        }),
        Just(Event::Detached),
        Just(Event::SubmittedUnverified { text: "cmd".into() }),
        (1..100_000u64).prop_map(|bytes| Event::OutputLost { bytes }),
    ]
}

proptest! {
    #[test]
    fn every_run_closed_at_most_once_and_memory_bounded(events in proptest::collection::vec(arb_event(), 0..200)) {
        let config = TrackerConfig { head_cap: 64, tail_cap: 64, submit_timeout_ms: 1000 };
        let mut t = trusting(Tracker::new(80, config));
        let mut started = std::collections::HashSet::new();
        let mut finished = std::collections::HashSet::new();
        for (i, e) in events.into_iter().enumerate() {
            let (n, fx) = step(t, e, i as Millis);
            t = n;
            for f in fx {
                match f {
                    Effect::RunStarted { id } => prop_assert!(started.insert(id)),
                    Effect::RunFinished { id } => {
                        prop_assert!(started.contains(&id));
                        prop_assert!(finished.insert(id), "run {id:?} closed twice");
                    }
                    _ => {}
                }
            }
            prop_assert!(t.earlier.len() <= EARLIER_RUNS);
            for run in t.earlier.iter().chain(&t.last) {
                prop_assert!(run.output.held() <= 128);
            }
            if let Some(run) = &t.current {
                prop_assert!(run.output.held() <= 128);
                prop_assert_eq!(&t.state, &State::Running);
            }
            if t.state == State::Running {
                prop_assert!(t.current.is_some());
            }
        }
    }

    /// Pane bytes through the parser into a tracker that trusts shell 1:
    /// the tracker ends the same however the bytes were cut, a run starts
    /// only on the shell's own `C` and ends at most once, and what a run
    /// renders is within the tracker's caps.
    #[test]
    fn pane_bytes_track_alike_however_cut_and_only_genuine_marks_start_runs(
        pieces in pane_stream(),
        cut in any::<prop::sample::Index>(),
    ) {
        let config = TrackerConfig { head_cap: 64, tail_cap: 64, submit_timeout_ms: 1000 };
        let data = pieces.concat();
        let track = |chunks: &[&[u8]]| {
            let mut p = Parser::new();
            let mut tokens = Vec::new();
            for chunk in chunks {
                p.feed(chunk, &mut tokens);
            }
            let mut fx = Vec::new();
            let t = step_all(trusting(Tracker::new(40, config)), tokens, 0, &mut fx);
            (t, fx)
        };
        let (whole, fx) = track(&[&data]);
        let (a, b) = data.split_at(cut.index(data.len() + 1));
        let (split, _) = track(&[a, b]);
        prop_assert_eq!(&split.state, &whole.state);
        prop_assert_eq!(&split.last, &whole.last);
        prop_assert_eq!(&split.current, &whole.current);
        let genuine_c = pieces.iter().filter(|p| p.starts_with(b"\x1b]133;C;aid=1;wta=1")).count();
        let started: Vec<RunId> = fx.iter().filter_map(|f| match f {
            Effect::RunStarted { id } => Some(*id),
            _ => None,
        }).collect();
        prop_assert!(started.len() <= genuine_c, "{} runs from {genuine_c} genuine C marks", started.len());
        let mut finished = std::collections::HashSet::new();
        for f in &fx {
            if let Effect::RunFinished { id } = f {
                prop_assert!(started.contains(id) && finished.insert(*id), "{id:?}");
            }
        }
        for run in whole.earlier.iter().chain(&whole.last) {
            let rendered = run.render();
            prop_assert!(run.output.held() <= 128);
            prop_assert!(rendered.text.len() <= 4 * 128 + 200, "{} bytes", rendered.text.len());
        }
    }
}

#[test]
fn the_pane_streams_own_marks_run_a_command() {
    let n = nonce("1");
    let data = format!(
        "\x1b]133;A;aid=1;wta={n}\x07$ \x1b]133;B;aid=1;wta={n}\x07\x1b]133;C;aid=1;wta={n};cmdline_url=make\x07out\r\n\x1b]133;D;2;aid=1;wta={n}\x07"
    );
    let mut p = Parser::new();
    let mut tokens = Vec::new();
    p.feed(data.as_bytes(), &mut tokens);
    let mut fx = Vec::new();
    let t = step_all(
        trusting(Tracker::new(40, TrackerConfig::default())),
        tokens,
        0,
        &mut fx,
    );
    assert!(fx.contains(&Effect::RunFinished { id: RunId(1) }), "{fx:?}");
    assert_eq!(
        t.last.map(|r| (r.exit, r.render().text)),
        Some((Some(2), "out".to_owned()))
    );
}

/// Pane bytes in pieces: shell 1's own marks (its nonce), forged and
/// nonce-less marks, output, and noise.
fn pane_stream() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let n = nonce("1");
    let mark = |body: &str| format!("\x1b]133;{body}\x07").into_bytes();
    let piece = prop_oneof![
        Just(mark(&format!("A;aid=1;wta={n}"))),
        Just(mark(&format!("B;aid=1;wta={n}"))),
        Just(mark(&format!("C;aid=1;wta={n};cmdline_url=make"))),
        (0..300i32).prop_map(move |e| mark(&format!("D;{e};aid=1;wta={}", nonce("1")))),
        Just(mark("D;0;aid=1;wta=ffffffffffffffff")),
        Just(mark("C;aid=1")),
        Just(b"out\r\n".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..40),
    ];
    proptest::collection::vec(piece, 0..40)
}
