//! Fidelity of the literal argument encoder against real tmux (issue 11):
//! tab titles, pane titles, session names and start directories read back
//! from tmux exactly as given, and nothing in them ever runs: every string
//! carries `#(touch <sentinel>)` pieces, and the sentinel file never appears.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use wta_host::{
    HostError, NewSession, NewTab, PaneSize, ServerLocation, Split, SplitDirection, TerminalHost,
    TmuxHost,
};
use wta_protocol::PaneId;
use wta_testkit::TmuxServer;

/// Text built from the pieces tmux would expand or split, around a job that
/// would create `sentinel`.
fn tricky(sentinel: &Path) -> impl Strategy<Value = String> {
    let job = format!("#(touch {})", sentinel.display());
    let piece = prop_oneof![
        Just(job.clone()),
        Just(format!("##{job}")),
        Just("#{pane_id}".to_owned()),
        Just("#{?pane_active,yes,no}".to_owned()),
        Just("#[fg=red]".to_owned()),
        Just("#".to_owned()),
        Just(";".to_owned()),
        Just("\\;".to_owned()),
        Just("'\"".to_owned()),
        Just("$(touch x)".to_owned()),
        Just("`id`".to_owned()),
        Just("-d".to_owned()),
        Just("ünï 日本".to_owned()),
        "[a-zA-Z0-9 _+=,-]{1,12}",
    ];
    prop::collection::vec(piece, 1..7).prop_map(|p| p.concat())
}

struct Rig {
    server: TmuxServer,
    host: TmuxHost,
    dirs: tempfile::TempDir,
    sentinel: PathBuf,
}

fn rig() -> Rig {
    let server = TmuxServer::start();
    let host = TmuxHost::new(
        ServerLocation::Socket(server.socket().to_path_buf()),
        Some(PaneId::parse(server.first_pane()).unwrap()),
    );
    let dirs = tempfile::tempdir().unwrap();
    let sentinel = dirs.path().join("pwned");
    Rig {
        server,
        host,
        dirs,
        sentinel,
    }
}

impl Rig {
    /// The pane's cwd, once its process has started (tmux reads it from
    /// `/proc`, empty until then).
    /// The pane's cwd once it is `want`, else the last one read (for the
    /// assertion to show). Right after the pane starts, tmux may read its
    /// process's directory before the process changed to `want` (the
    /// server's own directory then).
    fn cwd(&self, pane: &PaneId, want: &Path) -> PathBuf {
        let mut last = PathBuf::new();
        let _ =
            wta_testkit::wait_until("the pane's cwd", std::time::Duration::from_secs(10), || {
                if let Ok(info) = self.host.pane(pane) {
                    last = info.cwd;
                }
                last == want
            });
        last
    }

    /// A directory whose name is `text` (slashes, which cannot be in a name, become `_`).
    fn dir_named(&self, text: &str, n: usize) -> PathBuf {
        let dir = self
            .dirs
            .path()
            .join(format!("{n}-{}", text.replace('/', "_")));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// tmux runs `#()` jobs in the background: give one a moment to show.
    fn assert_nothing_ran(&self) {
        self.server.tmux(&["run-shell", "true"]);
        assert!(!self.sentinel.exists(), "a tmux job ran");
        let pwned = self.dirs.path().join("x");
        assert!(!pwned.exists(), "a shell substitution ran");
    }
}

/// One tab, one panel and one session per generated string, on one server.
fn round_trips(r: &Rig, name: &str, n: usize) -> Result<(), TestCaseError> {
    let dir = r.dir_named(name, n);
    let sleep = || {
        Some(wta_host::PaneCommand::Argv(vec![
            "sleep".into(),
            "60".into(),
        ]))
    };
    let tab = r
        .host
        .new_tab(&NewTab {
            after: None,
            title: Some(name.to_owned()),
            cwd: Some(dir.clone()),
            command: sleep(),
            ..NewTab::default()
        })
        .unwrap();
    let windows = r.host.list_windows(None).unwrap();
    let window = windows.iter().find(|w| w.id == tab.window).unwrap();
    prop_assert_eq!(&window.name, name);
    prop_assert_eq!(&r.cwd(&tab.id, &dir), &dir);

    let panel = r
        .host
        .split(&Split {
            target: tab.id.clone(),
            direction: SplitDirection::Right,
            percent: None,
            command: sleep(),
            cwd: Some(dir.clone()),
            env: vec![("WTA_FIDELITY".into(), name.to_owned())],
            full: false,
            focus: false,
        })
        .unwrap();
    r.host.set_title(&panel.id, name).unwrap();
    let panel = r.host.pane(&panel.id).unwrap();
    prop_assert_eq!(&panel.title, name);
    prop_assert_eq!(&r.cwd(&panel.id, &dir), &dir);

    // Unique per case (tmux refuses a duplicate); `:`, `.` and `\` are refused
    // by design (tmux would change them).
    let session_name = format!("{n}{}", name.replace([':', '.', '\\'], "_"));
    let first = r
        .host
        .new_session(&NewSession {
            name: session_name.clone(),
            size: PaneSize { cols: 80, rows: 24 },
            cwd: Some(dir.clone()),
            env: vec![],
            argv: vec!["sleep".into(), "60".into()],
        })
        .unwrap();
    let found = r.host.session_named(&session_name).unwrap();
    prop_assert_eq!(found.map(|s| s.id), Some(first.session.clone()));
    prop_assert_eq!(&first.session_name, &session_name);
    prop_assert_eq!(&r.cwd(&first.id, &dir), &dir);
    Ok(())
}

#[test]
fn tabs_panels_and_sessions_read_back_as_given_and_nothing_runs() {
    let r = rig();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 32,
        ..ProptestConfig::default()
    });
    let n = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&tricky(&r.sentinel), |name| {
            let i = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            round_trips(&r, &name, i)
        })
        .unwrap();
    r.assert_nothing_ran();
}

#[test]
fn a_trailing_semicolon_and_a_leading_dash_survive() {
    let r = rig();
    for name in ["ends;", "ends\\;", "-n", "--", ";"] {
        let tab = r
            .host
            .new_tab(&NewTab {
                after: None,
                title: Some(name.into()),
                command: Some(wta_host::PaneCommand::Argv(vec![
                    "sleep".into(),
                    "60".into(),
                ])),
                ..NewTab::default()
            })
            .unwrap();
        let windows = r.host.list_windows(None).unwrap();
        let window = windows.iter().find(|w| w.id == tab.window).unwrap();
        assert_eq!(window.name, name);
    }
}

#[test]
fn names_that_would_not_read_back_are_refused_with_a_reason() {
    let r = rig();
    let bad = |e: HostError| e.to_string();
    let tab = r.host.new_tab(&NewTab {
        after: None,
        title: Some("tab\there".into()),
        ..NewTab::default()
    });
    assert!(bad(tab.unwrap_err()).contains("U+0009"));
    let session = r.host.new_session(&NewSession {
        name: "a:b".into(),
        size: PaneSize { cols: 80, rows: 24 },
        cwd: None,
        env: vec![],
        argv: vec!["true".into()],
    });
    assert!(bad(session.unwrap_err()).contains("':', '.' or '\\'"));
    assert!(r.host.session_named("a:b").unwrap().is_none());
}

/// The status message is literal too (issue 26 item 8): tmux runs it
/// through `strftime` before expanding formats, and draws it after, so a
/// failing `ls /nope-%Y-%H` must not be announced as `ls /nope-2026-18`,
/// nor `##x` as `#x` or `#[fg=red]` as a colour. Read off the status line
/// of a client attached to the server (in a pane of an outer one).
#[test]
fn a_status_message_shows_as_given() {
    let r = rig();
    let outer = TmuxServer::start_with(&format!(
        "env -u TMUX -u TMUX_PANE tmux -S {} attach -t main",
        wta_host::sh_quote(&r.server.socket().to_string_lossy())
    ));
    wta_testkit::wait_until(
        "the client attached",
        std::time::Duration::from_secs(10),
        || !r.server.tmux(&["list-clients"]).trim().is_empty(),
    )
    .unwrap();
    let job = format!("#(touch {})", r.sentinel.display());
    let text = format!("ls /nope-%Y-%H failed: 100% #{{pane_id}} ##x #[fg=red]##[y {job} ;");
    let pane = PaneId::parse(r.server.first_pane()).unwrap();
    r.host.notify(&pane, &text).unwrap();
    let shown = outer.wait_for_text(
        outer.first_pane(),
        &text,
        std::time::Duration::from_secs(10),
    );
    assert!(!shown.contains("/nope-20"), "{shown}");
    r.assert_nothing_ran();
}

/// A pipe's command goes through `strftime` too: a `%` in its sink's
/// arguments (a path, a pane id) reaches the sink unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipe_command_reaches_its_sink_as_given() {
    use wta_host::AsyncHost;
    let r = rig();
    let out = r.dirs.path().join("out-%Y-%H-#{pane_id}");
    let sink = vec![
        "/bin/sh".to_owned(),
        "-c".to_owned(),
        r#"cat > "$0""#.to_owned(),
        out.to_string_lossy().into_owned(),
    ];
    let pane = PaneId::parse(r.server.first_pane()).unwrap();
    r.host
        .open_pipe(&pane, &sink, ("@wta_test_pipe", "1"))
        .await
        .unwrap();
    r.server
        .tmux(&["send-keys", "-t", pane.as_str(), "echo piped", "Enter"]);
    wta_testkit::wait_until(
        "the sink's file",
        std::time::Duration::from_secs(10),
        || std::fs::read_to_string(&out).is_ok_and(|t| t.contains("piped")),
    )
    .unwrap_or_else(|e| {
        let names: Vec<_> = std::fs::read_dir(r.dirs.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        panic!("{e}: {names:?}")
    });
}
