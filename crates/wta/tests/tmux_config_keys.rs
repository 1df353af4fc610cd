//! `wta tmux-config` against the installed tmux's own key tables: its lines
//! load, add WTA's keys to the prefix table, and leave every binding tmux
//! has by default as it was (none is replaced), so a user who pastes them
//! loses nothing of tmux.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;

use support::wta_named;
use wta_testkit::TmuxServer;

/// Every binding of every key table: (table, key) → the whole line, as
/// `list-keys` prints it.
fn key_tables(server: &TmuxServer) -> BTreeMap<(String, String), String> {
    let listing = server.tmux(&["list-keys"]);
    let mut tables = BTreeMap::new();
    for line in listing.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words
            .iter()
            .position(|w| *w == "-T")
            .unwrap_or_else(|| panic!("no table in {line:?}"));
        let (table, key) = (words[at + 1], words[at + 2]);
        let command = words[at + 3..].join(" ");
        tables.insert((table.to_owned(), key.to_owned()), command);
    }
    tables
}

#[test]
fn the_bindings_take_no_key_tmux_binds_by_default() {
    // A server with no configuration: tmux's defaults only.
    let server = TmuxServer::start();
    let defaults = key_tables(&server);
    let prefix = |k: &str| defaults.get(&("prefix".to_owned(), k.to_owned()));
    assert!(
        defaults.len() > 100 && prefix("c").is_some_and(|c| c.contains("new-window")),
        "tmux's default tables: {defaults:?}"
    );
    // What the output's header says of tmux's own keys is so here.
    assert!(prefix("f").is_some_and(|c| c.contains("find-window")));
    assert!(prefix("D").is_some_and(|c| c.contains("choose-client")));

    let out = wta_named(&server, &["tmux-config"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("tmux's own prefix + f (find-window)")
            && text.contains("prefix + D (choose-client) stay as they are"),
        "{text}"
    );
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("wta.tmux.conf");
    std::fs::write(&conf, &text).unwrap();
    server.tmux(&["source-file", conf.to_str().unwrap()]);
    let after = key_tables(&server);

    let replaced: Vec<String> = defaults
        .iter()
        .filter(|(key, command)| after.get(*key) != Some(command))
        .map(|((table, key), command)| {
            format!(
                "{table} {key}: tmux's `{command}` became `{}`",
                after.get(&(table.clone(), key.clone())).map_or("", |c| c)
            )
        })
        .collect();
    assert!(
        replaced.is_empty(),
        "wta tmux-config replaces tmux defaults:\n{}",
        replaced.join("\n")
    );

    // WTA's keys are there, each in the prefix table and new to it.
    let added: Vec<&(String, String)> = after
        .keys()
        .filter(|k| !defaults.contains_key(*k))
        .collect();
    let want: Vec<(String, String)> = ["A", "F", "H", "P", "S", "T", "a"]
        .iter()
        .map(|k| ("prefix".to_owned(), (*k).to_owned()))
        .collect();
    assert_eq!(added, want.iter().collect::<Vec<_>>(), "{text}");
    for (key, needle) in [
        ("a", "pane toggle"),
        ("A", "pane close"),
        ("F", "fix -t"),
        ("T", "delegate -t"),
        ("S", "sessions pick"),
        ("H", "ssh --host-buffer"),
        ("P", "popup -t"),
    ] {
        let command = &after[&("prefix".to_owned(), key.to_owned())];
        assert!(command.contains(needle), "prefix {key}: {command}");
    }
}
