//! Unit and property tests of the pane-byte tokenizer.

use super::*;
use proptest::prelude::*;

fn tokens(chunks: &[&[u8]]) -> Vec<Token> {
    let mut p = Parser::new();
    let mut out = Vec::new();
    for c in chunks {
        p.feed(c, &mut out);
    }
    out
}

fn text_of(tokens: &[Token]) -> Vec<u8> {
    tokens
        .iter()
        .filter_map(|t| match t {
            Token::Text(b) => Some(b.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn mark(kind: MarkKind, aid: Option<&str>, cmdline: Option<&str>) -> Token {
    Token::Mark(Mark {
        kind,
        source: MarkSource::Osc133,
        aid: aid.map(str::to_owned),
        nonce: None,
        cmdline: cmdline.map(str::to_owned),
    })
}

const BASH_LS: &[u8] = b"\x1b]133;B;aid=7\x07ls /nope\r\n\x1b[?2004l\r\x1b]133;C;aid=7;cmdline_url=ls%20/nope\x07ls: cannot access '/nope': No such file or directory\r\n\x1b]133;D;2;aid=7\x07\x1b]7;file://vm/tmp/a%20b/%C3%BC\x1b\\\x1b[?2004h\x1b]133;A;aid=7\x07bash# ";

#[test]
fn bash_command_layout() {
    let out = tokens(&[BASH_LS]);
    assert_eq!(
        out,
        vec![
            mark(MarkKind::InputStart, Some("7"), None),
            Token::Text(b"ls /nope\r\n\x1b[?2004l\r".to_vec()),
            mark(MarkKind::CommandStart, Some("7"), Some("ls /nope")),
            Token::Text(b"ls: cannot access '/nope': No such file or directory\r\n".to_vec()),
            mark(MarkKind::CommandEnd { exit: Some(2) }, Some("7"), None),
            Token::Cwd(Cwd {
                host: Some("vm".into()),
                path: "/tmp/a b/ü".into()
            }),
            Token::Text(b"\x1b[?2004h".to_vec()),
            mark(MarkKind::PromptStart, Some("7"), None),
            Token::Text(b"bash# ".to_vec()),
        ]
    );
}

#[test]
fn any_chunking_gives_the_same_tokens() {
    let whole = tokens(&[BASH_LS]);
    for cut in 0..BASH_LS.len() {
        let (a, b) = BASH_LS.split_at(cut);
        assert_eq!(tokens(&[a, b]), whole, "cut at {cut}");
    }
    let bytes: Vec<&[u8]> = BASH_LS.chunks(1).collect();
    assert_eq!(tokens(&bytes), whole);
}

#[test]
fn alt_screen_and_other_sequences_stay_text() {
    let out = tokens(&[b"a\x1b[?1049hfull\x1b]0;title\x07\x1b[?1049lb\x1b[?47h"]);
    assert_eq!(
        out,
        vec![
            Token::Text(b"a\x1b[?1049h".to_vec()),
            Token::AltScreen(true),
            Token::Text(b"full\x1b]0;title\x07\x1b[?1049l".to_vec()),
            Token::AltScreen(false),
            Token::Text(b"b\x1b[?47h".to_vec()),
            Token::AltScreen(true),
        ]
    );
}

#[test]
fn the_scripts_cwd_mark_is_decoded_with_its_nonce() {
    let out = tokens(&[b"\x1b]133;P;aid=7;wta=ab;cwd_url=/h%20i/%C3%BC\x07"]);
    assert_eq!(
        out,
        vec![Token::Mark(Mark {
            kind: MarkKind::Cwd("/h i/\u{fc}".into()),
            source: MarkSource::Osc133,
            aid: Some("7".into()),
            cmdline: None,
            nonce: Some("ab".into()),
        })]
    );
}

#[test]
fn osc_633_marks_cmdline_and_cwd() {
    let out = tokens(&[b"\x1b]633;E;echo a\\x3bb \\\\ c;nonce\x07\x1b]633;C\x07x\x1b]633;D;130\x07\x1b]633;P;Cwd=/h\\x20i\x07"]);
    assert_eq!(
        out,
        vec![
            Token::Mark(Mark {
                kind: MarkKind::CommandLine,
                source: MarkSource::Osc633,
                aid: None,
                nonce: None,
                cmdline: Some("echo a;b \\ c".into())
            }),
            Token::Mark(Mark {
                kind: MarkKind::CommandStart,
                source: MarkSource::Osc633,
                aid: None,
                nonce: None,
                cmdline: None
            }),
            Token::Text(b"x".to_vec()),
            Token::Mark(Mark {
                kind: MarkKind::CommandEnd { exit: Some(130) },
                source: MarkSource::Osc633,
                aid: None,
                nonce: None,
                cmdline: None
            }),
            Token::Cwd(Cwd {
                host: None,
                path: "/h i".into()
            }),
        ]
    );
}

#[test]
fn d_without_exit_and_unknown_letters() {
    let out = tokens(&[b"\x1b]133;D\x07\x1b]133;Z\x07\x1b]133;D;;aid=1\x07"]);
    assert_eq!(
        out[0],
        mark(MarkKind::CommandEnd { exit: None }, None, None)
    );
    assert_eq!(out[1], Token::Text(b"\x1b]133;Z\x07".to_vec()));
    assert_eq!(
        out[2],
        mark(MarkKind::CommandEnd { exit: None }, Some("1"), None)
    );
}

#[test]
fn cancelled_osc_is_not_a_mark() {
    let out = tokens(&[b"\x1b]133;D;0\x18after"]);
    assert!(out.iter().all(|t| !matches!(t, Token::Mark(_))), "{out:?}");
}

#[test]
fn over_long_osc_is_abandoned_and_memory_stays_bounded() {
    let mut p = Parser::new();
    let mut out = Vec::new();
    p.feed(b"\x1b]133;C;cmdline_url=", &mut out);
    let junk = vec![b'x'; 1024];
    for _ in 0..200 {
        p.feed(&junk, &mut out);
        assert!(p.pending_len() <= MAX_SEQUENCE + SLICE);
    }
    p.feed(b"\x07\x1b]133;D;0\x07", &mut out);
    assert!(
        !out.iter()
            .any(|t| matches!(t, Token::Mark(m) if m.kind == MarkKind::CommandStart))
    );
    assert!(
        out.iter().any(
            |t| matches!(t, Token::Mark(m) if m.kind == MarkKind::CommandEnd { exit: Some(0) })
        )
    );
}

/// A generator biased towards escape-sequence fragments.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..20),
        Just(b"\x1b]133;A;aid=1\x07".to_vec()),
        Just(b"\x1b]133;C;aid=1;cmdline_url=a%20b\x1b\\".to_vec()),
        Just(b"\x1b]133;D;0;aid=1\x07".to_vec()),
        Just(b"\x1b]7;file://h/x\x07".to_vec()),
        Just(b"\x1b[?1049h".to_vec()),
        Just(b"\x1b]".to_vec()),
        Just(b"\x1b".to_vec()),
        Just("héllo\r\n".as_bytes().to_vec()),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn text_is_a_subsequence_of_the_input(data in stream(), cut in any::<prop::sample::Index>()) {
        let at = cut.index(data.len() + 1);
        let (a, b) = data.split_at(at);
        let out = tokens(&[a, b]);
        let text = text_of(&out);
        prop_assert!(text.len() <= data.len());
        // Text is the input with marks removed: every text byte appears in order.
        let mut it = data.iter();
        for byte in &text {
            prop_assert!(it.any(|x| x == byte));
        }
    }

    #[test]
    fn chunking_does_not_change_marks(data in stream(), cut in any::<prop::sample::Index>()) {
        let at = cut.index(data.len() + 1);
        let (a, b) = data.split_at(at);
        let marks = |t: Vec<Token>| t.into_iter().filter(|t| !matches!(t, Token::Text(_))).collect::<Vec<_>>();
        prop_assert_eq!(marks(tokens(&[a, b])), marks(tokens(&[&data])));
    }

    #[test]
    fn arbitrary_bytes_keep_the_parsers_buffer_bounded(data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let mut p = Parser::new();
        let mut out = Vec::new();
        p.feed(&data, &mut out);
        prop_assert!(p.pending_len() <= MAX_SEQUENCE + SLICE);
    }
}
