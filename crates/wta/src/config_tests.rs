//! One reading per handle, whatever is asked and how often: the config
//! file is a FIFO that gives its text to the first reader only, so a second
//! reading waits for a writer that never comes (and the test fails at its
//! deadline instead of passing).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use super::*;

const TEXT: &str = "language = \"de\"\n\
    default_agent = \"custom:mine\"\n\
    [custom_agents.mine]\n\
    argv = [\"/bin/sh\"]\n\
    [proposals]\n\
    per_turn = 0\n\
    [autofix]\n\
    prewarm = true\n";

/// Makes `path` a FIFO and hands `text` to its first reader (on a thread).
fn fifo_once(path: &Path, text: &'static str) -> std::thread::JoinHandle<()> {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let path = path.to_owned();
    std::thread::spawn(move || {
        // Opening the write end without blocking fails until a reader has
        // the FIFO open.
        let mut file = wta_testkit::wait_for_value("a reader", Duration::from_secs(10), || {
            std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(nix::libc::O_NONBLOCK)
                .open(&path)
                .ok()
        })
        .unwrap();
        file.write_all(text.as_bytes()).unwrap();
    })
}

fn paths(dir: &Path) -> RegistryPaths {
    RegistryPaths {
        config_file: dir.join("config.toml"),
        policy_file: dir.join("policy.toml"),
        wta_exe: PathBuf::from("/usr/bin/wta"),
        path_var: None,
    }
}

/// What every accessor says, twice over; on a thread, so that a second
/// reading (which blocks) fails the test at its deadline.
#[test]
fn the_file_is_read_once_whatever_is_asked_and_how_often() {
    let dir = tempfile::tempdir().unwrap();
    let writer = fifo_once(&dir.path().join("config.toml"), TEXT);
    let config = UserConfig::at(paths(dir.path()));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        for _ in 0..2 {
            let registry = config.registry().unwrap();
            seen.push((
                config.language().map(str::to_owned),
                registry.configured_default_agent().map(str::to_owned),
                registry.config_problems().len(),
                config.loaded().unwrap().problems.len(),
                config.table("proposals", |c| c.proposals.per_turn),
                config.table("autofix", |c| c.autofix.prewarm),
            ));
        }
        tx.send(seen).unwrap();
    });
    let seen = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("a second reading of the config file waits on the FIFO for ever");
    writer.join().unwrap();
    let (language, default, in_registry, in_loaded, per_turn, prewarm) = &seen[0];
    assert_eq!(language.as_deref(), Some("de"));
    assert_eq!(default.as_deref(), Some("custom:mine"));
    // `per_turn = 0` is out of range: one problem, seen by every reader.
    assert_eq!((*in_registry, *in_loaded), (1, 1));
    let (value, warning) = per_turn.as_ref().unwrap();
    assert_eq!(*value, 10);
    assert!(
        warning.as_deref().unwrap().contains("config.toml:6:"),
        "{warning:?}"
    );
    assert_eq!(prewarm.as_ref(), Some(&(true, None)));
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn a_file_that_is_not_toml_is_every_readers_error_and_its_problem() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.toml"), "[autofix\n").unwrap();
    let config = UserConfig::at(paths(dir.path()));
    for _ in 0..2 {
        let err = config.registry().unwrap_err();
        assert!(matches!(err, AgentError::BadConfig { .. }), "{err:?}");
    }
    assert_eq!(config.loaded().unwrap().problems.len(), 1);
    assert_eq!(config.language(), None);
    let (value, warning) = config.table("autofix", |c| c.autofix.mode).unwrap();
    assert_eq!(value, wta_agent::config::AutofixMode::default());
    assert!(warning.unwrap().contains("not valid TOML"));
}

#[test]
fn a_missing_file_is_every_default_and_no_problem() {
    let dir = tempfile::tempdir().unwrap();
    let config = UserConfig::at(paths(dir.path()));
    let loaded = config.loaded().unwrap();
    assert!(!loaded.exists && loaded.problems.is_empty());
    assert_eq!(config.registry().unwrap().configured_default_agent(), None);
    assert_eq!(
        config.table("proposals", |c| c.proposals.per_turn),
        Some((10, None))
    );
}
