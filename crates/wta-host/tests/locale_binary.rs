//! The `tmux` binary as WTA's client under every kind of locale (issue 26
//! item 1): `C`, `POSIX`, none set, a UTF-8 one that is not installed
//! (`ja_JP.UTF-8`) and a non-UTF-8 one (`en_US.ISO-8859-1`). A tmux client
//! that thinks its terminal is not UTF-8 replaces every byte of a command's
//! output outside printable ASCII with `_`, our field separators included;
//! `wta up` then could not read the pane `new-session` printed. Here every
//! exchange reads back exactly: names, titles and paths with non-ASCII and
//! hostile bytes.
//!
//! The binary is what `wta up` runs when no server is up yet (and for a
//! tmux of another protocol). To drive every operation through it, this
//! test binary first meets a server speaking a future protocol, which makes
//! the host use the binary for the rest of the process (the switch is
//! process-wide, so this is its own test binary); each host then runs a
//! wrapper that sets the locale and execs `tmux`, and logs that it ran.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::Duration;

use wta_host::{
    HostError, NewSession, NewTab, PaneCommand, PaneSize, ServerLocation, TerminalHost, TmuxHost,
};
use wta_protocol::PaneId;
use wta_testkit::TmuxServer;

const T: Duration = Duration::from_secs(10);

/// Makes this process use the tmux binary from now on: one command meets a
/// server that answers with another protocol version.
fn binary_only() {
    static SWITCHED: Once = Once::new();
    SWITCHED.call_once(|| {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("future");
        let listener = UnixListener::bind(&socket).unwrap();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let mut version = Vec::new();
            version.extend_from_slice(&12u32.to_ne_bytes());
            version.extend_from_slice(&16u16.to_ne_bytes());
            version.extend_from_slice(&0u16.to_ne_bytes());
            version.extend_from_slice(&9u32.to_ne_bytes());
            version.extend_from_slice(&0u32.to_ne_bytes());
            stream.write_all(&version).unwrap();
        });
        let host =
            TmuxHost::new(ServerLocation::Socket(socket), None).with_binary("/nonexistent/tmux");
        assert!(matches!(host.list_sessions(), Err(HostError::TmuxMissing)));
        server.join().unwrap();
    });
}

/// A `tmux` that runs under `lang` (`None`: no locale variable at all),
/// logging each command name to `log`; `filter` (a shell pipeline stage)
/// rewrites what `new-session` prints, when given.
fn wrapper(dir: &Path, lang: Option<&str>, filter: Option<&str>) -> (PathBuf, PathBuf) {
    let mut tag = lang.unwrap_or("unset").replace(['.', '-'], "_");
    if filter.is_some() {
        tag.push_str("-filtered");
    }
    let script = dir.join(format!("tmux-{tag}"));
    let log = dir.join(format!("log-{tag}"));
    let export = lang.map_or(String::new(), |l| format!("LANG='{l}'; export LANG\n"));
    let run = match filter {
        Some(filter) => format!(
            "case \"$*\" in *new-session*) tmux \"$@\" | {filter} ;; *) exec tmux \"$@\" ;; esac\n"
        ),
        None => "exec tmux \"$@\"\n".to_owned(),
    };
    let body = format!(
        "#!/bin/sh\nunset LC_ALL LC_CTYPE LC_MESSAGES LANG LANGUAGE\n{export}\
         for a; do case $a in -*|/*) ;; *) echo \"$a\" >> '{}'; break ;; esac; done\n{run}",
        log.display()
    );
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, log)
}

fn host(server: &TmuxServer, binary: &Path) -> TmuxHost {
    TmuxHost::new(ServerLocation::Socket(server.socket().to_path_buf()), None).with_binary(binary)
}

/// The pane's cwd once its process has started (empty until then).
fn cwd(host: &TmuxHost, pane: &PaneId) -> PathBuf {
    wta_testkit::wait_for_value("the pane's cwd", T, || {
        let cwd = host.pane(pane).ok()?.cwd;
        (!cwd.as_os_str().is_empty()).then_some(cwd)
    })
    .unwrap()
}

const LOCALES: [Option<&str>; 5] = [
    Some("C"),
    Some("POSIX"),
    None,
    Some("ja_JP.UTF-8"),
    Some("en_US.ISO-8859-1"),
];

#[test]
fn every_exchange_reads_back_under_any_locale() {
    binary_only();
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    for (i, lang) in LOCALES.into_iter().enumerate() {
        let (binary, log) = wrapper(dir.path(), lang, None);
        let host = host(&server, &binary);
        let what = format!("LANG={lang:?}");
        // Names and titles keep non-ASCII and tmux's specials; the start
        // directory holds a tab, a record separator and a newline.
        let name = format!("ünï #(x) %Y 日本 {i}");
        let start = dir.path().join(format!("dir\tünï\x1e\n{i}"));
        std::fs::create_dir(&start).unwrap();
        let first = host
            .new_session(&NewSession {
                name: name.clone(),
                size: PaneSize { cols: 80, rows: 24 },
                cwd: Some(start.clone()),
                env: vec![],
                argv: vec!["sleep".into(), "600".into()],
            })
            .unwrap_or_else(|e| panic!("{what}: new-session: {e}"));
        assert_eq!(first.session_name, name, "{what}");
        assert_eq!(cwd(&host, &first.id), start, "{what}");
        let title = format!("títle 🚀 %H ##{{x}} {i}");
        host.set_title(&first.id, &title).unwrap();
        assert_eq!(host.pane(&first.id).unwrap().title, title, "{what}");

        // A path that is not UTF-8 comes back byte for byte.
        std::fs::create_dir(dir.path().join(format!("{i}"))).unwrap();
        let tab = host
            .new_tab(&NewTab {
                after: None,
                session: Some(first.session.clone()),
                title: Some(format!("tåb {i}")),
                command: Some(PaneCommand::Argv(vec![
                    "/bin/sh".into(),
                    "-c".into(),
                    r#"d="$(printf '%s/bad\377x' "$0")"; mkdir "$d" && cd "$d" && exec sleep 600"#
                        .into(),
                    dir.path()
                        .join(format!("{i}"))
                        .to_string_lossy()
                        .into_owned(),
                ])),
                ..NewTab::default()
            })
            .unwrap_or_else(|e| panic!("{what}: new-window: {e}"));
        let mut bad = dir
            .path()
            .join(format!("{i}"))
            .as_os_str()
            .as_bytes()
            .to_vec();
        bad.extend_from_slice(b"/bad\xffx");
        let tab_cwd = || {
            let panes = host.list_panes().unwrap();
            panes.into_iter().find(|p| p.id == tab.id).map(|p| p.cwd)
        };
        wta_testkit::wait_until("the tab's cwd", T, || {
            tab_cwd().is_some_and(|cwd| cwd.as_os_str().as_bytes() == bad.as_slice())
        })
        .unwrap_or_else(|e| panic!("{what}: {e}: {:?}", tab_cwd()));

        let panes = host.list_panes().unwrap();
        let listed = panes.iter().find(|p| p.id == first.id).unwrap();
        assert_eq!(
            (&listed.session_name, &listed.title, &listed.cwd),
            (&name, &title, &start),
            "{what}"
        );
        let sessions = host.list_sessions().unwrap();
        assert!(sessions.iter().any(|s| s.name == name), "{what}");
        let windows = host.list_windows(Some(&first.session)).unwrap();
        let names: Vec<&str> = windows.iter().map(|w| w.name.as_str()).collect();
        assert!(
            names.contains(&format!("tåb {i}").as_str()),
            "{what}: {names:?}"
        );
        assert!(host.server_info().unwrap().tmux_version.starts_with('3'));
        host.kill_session(&first.session).unwrap();
        assert!(host.session_named(&name).unwrap().is_none(), "{what}");
        // All of it went through the binary under that locale.
        let ran = std::fs::read_to_string(&log).unwrap();
        for command in ["new-session", "list-panes", "list-sessions", "new-window"] {
            assert!(ran.lines().any(|l| l == command), "{what}: {ran}");
        }
    }
}

/// A session tmux made but whose `new-session` answer cannot be read (here:
/// mangled as a non-UTF-8 client used to) is removed, not left behind.
#[test]
fn a_session_whose_answer_cannot_be_read_is_removed() {
    binary_only();
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (mangling, log) = wrapper(dir.path(), Some("C.UTF-8"), Some(r"tr '\037\036' '__'"));
    let err = host(&server, &mangling)
        .new_session(&NewSession {
            name: "half-built".into(),
            size: PaneSize { cols: 80, rows: 24 },
            cwd: None,
            env: vec![],
            argv: vec!["sleep".into(), "600".into()],
        })
        .unwrap_err();
    assert!(matches!(err, HostError::Parse(_)), "{err}");
    assert!(
        std::fs::read_to_string(&log)
            .unwrap()
            .contains("new-session")
    );
    let (clean, _) = wrapper(dir.path(), Some("C.UTF-8"), None);
    let sessions = host(&server, &clean).list_sessions().unwrap();
    assert!(
        sessions.iter().all(|s| s.name != "half-built"),
        "{sessions:?}"
    );
}
