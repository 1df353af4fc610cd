//! A test's fish starts as if it had run before: no first-start job that
//! generates completions from every man page (minutes of CPU, reparented to
//! init, outliving the test and slowing every test after it on a 2-core
//! machine). The sandbox's data dirs hold the directory fish checks for.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use wta_testkit::{TmuxServer, wait_until};

/// Processes whose environment names `needle` (as a `HOME=` value).
fn processes_with_home(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let home = format!("HOME={needle}");
        if environ.split(|b| *b == 0).any(|v| v == home.as_bytes()) {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push(String::from_utf8_lossy(&cmdline).replace('\0', " "));
        }
    }
    found
}

#[test]
fn fish_starts_without_generating_completions() {
    let server =
        TmuxServer::start_with("fish -C 'function fish_prompt; printf \"fish-ready> \"; end'");
    let pane = server.first_pane().to_owned();
    // The prompt is drawn after fish's interactive setup, which starts the
    // job (in the background) when it is going to.
    wait_until("fish's prompt", Duration::from_secs(20), || {
        server.capture(&pane).contains("fish-ready>")
    })
    .unwrap();
    let home = server.sandbox().path("home");
    let running = processes_with_home(&home.display().to_string());
    assert!(
        !running
            .iter()
            .any(|c| c.contains("create_manpage_completions")),
        "{running:#?}"
    );
    assert!(
        running.iter().any(|c| c.contains("fish")),
        "the probe sees the test's own fish: {running:#?}"
    );
}
