//! A tmux that speaks another protocol version: the host falls back to the
//! `tmux` binary, and keeps doing so for the rest of the process (own test
//! binary: the switch is process-wide).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::os::unix::net::UnixListener;

use wta_host::{HostError, ServerLocation, TerminalHost, TmuxHost};

/// Answers every connection's first bytes with `MSG_VERSION` from protocol 9.
fn future_tmux(socket: &std::path::Path) -> std::thread::JoinHandle<usize> {
    let listener = UnixListener::bind(socket).unwrap();
    std::thread::spawn(move || {
        let mut served = 0;
        for stream in listener.incoming().take(1) {
            let mut stream = stream.unwrap();
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let mut version = Vec::new();
            version.extend_from_slice(&12u32.to_ne_bytes());
            version.extend_from_slice(&16u16.to_ne_bytes());
            version.extend_from_slice(&0u16.to_ne_bytes());
            version.extend_from_slice(&9u32.to_ne_bytes());
            version.extend_from_slice(&0u32.to_ne_bytes());
            stream.write_all(&version).unwrap();
            served += 1;
        }
        served
    })
}

#[test]
fn another_protocol_version_falls_back_to_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("future");
    let server = future_tmux(&socket);
    let host = TmuxHost::new(ServerLocation::Socket(socket), None).with_binary("/nonexistent/tmux");
    // The native attempt is answered with MSG_VERSION; the binary is tried.
    assert!(matches!(host.list_sessions(), Err(HostError::TmuxMissing)));
    assert_eq!(server.join().unwrap(), 1);
    // From now on the binary is used at once (nobody listens any more).
    assert!(matches!(host.list_sessions(), Err(HostError::TmuxMissing)));
}
