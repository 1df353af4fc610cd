//! Tests of `wta ssh`'s remote text: the bootstrap passes through every
//! login shell unchanged, the rc is the integration with the nonce and aid
//! baked in and nothing a terminal would edit, and the ready filter finds
//! its mark however the output is cut (proptest).

use super::*;
use crate::parser::{MarkKind, Parser, Token};
use proptest::prelude::*;

const TOKEN: &str = "00112233aabbccdd";
const NONCE: &str = "0123456789abcdef0123456789abcdef";
const AID: u32 = 4242;

fn bootstrap() -> Bootstrap {
    Bootstrap::new(TOKEN).unwrap()
}

fn ready(name: &str) -> Vec<u8> {
    format!("\x1b]7766;{TOKEN};{name}\x07").into_bytes()
}

fn installed(program: &str) -> bool {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|dir| dir.join(program).is_file())
}

#[test]
fn the_bootstrap_is_one_line_every_login_shell_passes_on() {
    let command = bootstrap().command();
    let inner = command
        .strip_prefix("exec /bin/sh -c '")
        .and_then(|s| s.strip_suffix('\''))
        .unwrap();
    // Inside single quotes: fish reads \' and \\, csh reads !, nobody a newline.
    for bad in ['\'', '!', '\n'] {
        assert!(!inner.contains(bad), "{bad:?} in {inner}");
    }
    assert!(!inner.contains("\\\\"), "{inner}");
    assert!(!command.contains(NONCE));
    // Each login shell parses the command line as it is.
    for shell in ["sh", "bash", "zsh", "fish", "dash"] {
        if !installed(shell) {
            continue;
        }
        let out = wta_testkit::env::clean(shell)
            .args(["-n", "-c", &command])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}: {out:?}");
    }
}

#[test]
fn the_bootstrap_names_the_login_shell_and_starts_it() {
    // Run by sh with a login shell that WTA does not integrate: the ready
    // mark names it and the plain login shell runs (here: `true`).
    let out = wta_testkit::env::clean("sh")
        .args(["-c", &bootstrap().command()])
        .env("SHELL", "/bin/true")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut filter = ReadyFilter::new(&bootstrap());
    let mut shown = Vec::new();
    let login = filter.feed(&out.stdout, &mut shown);
    assert_eq!(login, Some(RemoteLogin::Plain("true".into())));
    assert_eq!(shown, b"");
}

#[test]
fn the_rc_is_the_integration_with_the_nonce_and_aid_baked_in() {
    for shell in REMOTE_SHELLS {
        let text = rc(shell, NONCE, AID).unwrap();
        assert!(text.contains(NONCE), "{shell}");
        assert!(text.contains(&format!("aid={AID}")) || text.contains(&format!("{AID} ")));
        for drawn in ["/dev/urandom 2>/dev/null)", "$$", "$fish_pid"] {
            assert!(!text.contains(drawn), "{shell} still has {drawn:?}");
        }
        assert!(
            text.contains("if false"),
            "{shell}: the remote tmux is not told"
        );
        // zsh's first line (read without zle) reads the rest, which starts as the others'.
        let rest = match shell {
            Shell::Zsh => text.strip_prefix(" eval \"$(</dev/stdin)\"\n").unwrap(),
            _ => &text,
        };
        assert!(rest.starts_with("stty echo"), "{shell}");
        assert!(
            text.lines().all(|l| l.len() < 4000),
            "{shell}: a terminal line holds 4095 bytes"
        );
        let checker = match shell {
            Shell::Bash => ("bash", vec!["-n"]),
            Shell::Zsh => ("zsh", vec!["-n"]),
            _ => ("fish", vec!["--no-execute"]),
        };
        if installed(checker.0) {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("rc");
            std::fs::write(&file, &text).unwrap();
            let mut cmd = wta_testkit::env::clean(checker.0);
            cmd.args(&checker.1).arg(&file);
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{shell}: {out:?}");
        }
    }
    assert!(rc(Shell::Bash, "not hex", AID).is_err());
    assert!(rc(Shell::Pwsh, NONCE, AID).is_err());
}

#[test]
fn the_gone_mark_parses_as_the_end_of_that_shell() {
    let mut out = Vec::new();
    Parser::new().feed(gone_mark(AID, NONCE).as_bytes(), &mut out);
    let [Token::Mark(mark)] = out.as_slice() else {
        panic!("{out:?}")
    };
    assert_eq!(mark.kind, MarkKind::ShellGone);
    assert_eq!(mark.aid.as_deref(), Some("4242"));
    assert_eq!(mark.nonce.as_deref(), Some(NONCE));
}

#[test]
fn the_ready_filter_cuts_its_mark_and_passes_the_rest() {
    let long = ready(&"x".repeat(40));
    // Chunks of output, what is shown of them, the login shell found.
    type Case<'a> = (Vec<Vec<u8>>, &'a [u8], Option<RemoteLogin>);
    let cases: Vec<Case<'_>> = vec![
        (
            vec![
                b"Warning: added\r\n".to_vec(),
                ready("bash"),
                b"motd".to_vec(),
            ],
            b"Warning: added\r\nmotd",
            Some(RemoteLogin::Integrated(Shell::Bash)),
        ),
        (
            vec![ready("fish")[..5].to_vec(), ready("fish")[5..].to_vec()],
            b"",
            Some(RemoteLogin::Integrated(Shell::Fish)),
        ),
        (
            vec![ready("tcsh")],
            b"",
            Some(RemoteLogin::Plain("tcsh".into())),
        ),
        // Another token, or an overlong name: not ours, shown as it came.
        (
            vec![b"\x1b]7766;ffffffffffffffff;bash\x07".to_vec()],
            b"\x1b]7766;ffffffffffffffff;bash\x07",
            None,
        ),
        (vec![long.clone()], &long, None),
    ];
    for (chunks, shown, login) in cases {
        let mut filter = ReadyFilter::new(&bootstrap());
        let mut out = Vec::new();
        let mut seen = None;
        for chunk in &chunks {
            if let Some(l) = filter.feed(chunk, &mut out) {
                seen = Some(l);
            }
        }
        out.extend(filter.finish());
        assert_eq!((out.as_slice(), &seen), (shown, &login), "{chunks:?}");
    }
    // After the mark, even a second one passes untouched.
    let mut filter = ReadyFilter::new(&bootstrap());
    let mut out = Vec::new();
    filter.feed(&ready("bash"), &mut out);
    assert!(filter.done());
    assert_eq!(filter.feed(&ready("bash"), &mut out), None);
    assert_eq!(out, ready("bash"));
}

proptest! {
    /// Output with the ready mark somewhere, cut anywhere: the user sees
    /// exactly the output without the mark, and the shell is named once.
    #[test]
    fn the_ready_mark_is_found_however_the_output_is_cut(
        before in proptest::collection::vec(any::<u8>(), 0..200),
        after in proptest::collection::vec(any::<u8>(), 0..200),
        cuts in proptest::collection::vec(0usize..400, 0..8),
        with_mark in any::<bool>(),
    ) {
        let mut stream = before.clone();
        if with_mark {
            stream.extend(ready("bash"));
        }
        stream.extend(&after);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(stream.len())).collect();
        cuts.sort_unstable();
        let mut filter = ReadyFilter::new(&bootstrap());
        let mut out = Vec::new();
        let mut logins = Vec::new();
        let mut at = 0;
        for cut in cuts.into_iter().chain([stream.len()]) {
            if let Some(l) = filter.feed(&stream[at..cut], &mut out) {
                logins.push(l);
            }
            at = cut;
        }
        out.extend(filter.finish());
        // A mark could also be hidden in the random bytes: only ours counts.
        let ours = find(&before, &bootstrap().ready_prefix()).is_none();
        if with_mark && ours {
            let mut want = before.clone();
            want.extend(&after);
            prop_assert_eq!(out, want);
            prop_assert_eq!(logins, vec![RemoteLogin::Integrated(Shell::Bash)]);
        } else if !with_mark {
            prop_assert!(logins.len() <= 1);
            if logins.is_empty() {
                prop_assert_eq!(out, stream);
            }
        }
    }
}
