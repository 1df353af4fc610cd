//! What a helper can tell about a master whose connection ended, from what
//! the master leaves behind: its pid in the lock file next to the socket,
//! and the socket file, which a master removes when it shuts down (a killed
//! or crashed one leaves it). Blocking (it may wait up to [`DYING`] for the
//! process to finish exiting): call it off the UI task.

use std::path::Path;
use std::time::{Duration, Instant};

/// How long a master whose connection just closed may take to be gone.
pub const DYING: Duration = Duration::from_secs(1);

/// One sentence (no trailing period) for the pane, in the user's language.
pub fn why_master_went_away(socket: &Path) -> String {
    let pid = master_pid(socket);
    let alive = pid.is_some_and(|pid| {
        // The kernel closes a dying process's sockets before it is gone.
        let start = Instant::now();
        while wta_env::process::running(pid) {
            if start.elapsed() > DYING {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    });
    describe(pid, alive, socket.exists(), socket)
}

/// The sentence for what was seen (pure, so every case is tested).
pub fn describe(pid: Option<u32>, alive: bool, socket_left: bool, socket: &Path) -> String {
    let who = match pid {
        Some(pid) => wta_i18n::tr!("helper.master.who_pid", pid = pid),
        None => wta_i18n::tr!("helper.master.who"),
    };
    match (pid.is_some(), alive, socket_left) {
        (_, true, _) => wta_i18n::tr!("helper.master.still_running", who = who),
        (_, false, false) => wta_i18n::tr!("helper.master.shut_down", who = who),
        (true, false, true) => wta_i18n::tr!(
            "helper.master.crashed",
            who = who,
            socket = socket.display()
        ),
        (false, false, true) => wta_i18n::tr!("helper.master.no_lock", who = who),
    }
}

/// The pid the master wrote into its lock file (`<socket>.lock`).
fn master_pid(socket: &Path) -> Option<u32> {
    parse_pid(&std::fs::read_to_string(socket.with_extension("lock")).ok()?)
}

/// [`master_pid`] from async code: which master a new connection reached
/// (a reconnect says whether it is a new one).
pub async fn current_master_pid(socket: &Path) -> Option<u32> {
    parse_pid(
        &tokio::fs::read_to_string(socket.with_extension("lock"))
            .await
            .ok()?,
    )
}

fn parse_pid(text: &str) -> Option<u32> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_case_says_what_happened() {
        let socket = Path::new("/run/wta/master.sock");
        let cases = [
            (
                Some(7),
                true,
                true,
                "(pid 7) closed this pane's connection; it is still running",
            ),
            (
                Some(7),
                true,
                false,
                "(pid 7) closed this pane's connection; it is still running",
            ),
            (
                Some(7),
                false,
                false,
                "(pid 7) shut down (it removed its socket)",
            ),
            (
                None,
                false,
                false,
                "master shut down (it removed its socket)",
            ),
            (
                Some(7),
                false,
                true,
                "(pid 7) is gone without shutting down: it was killed or crashed, and its socket /run/wta/master.sock is left closed",
            ),
            (None, false, true, "no master holds its lock file any more"),
        ];
        for (pid, alive, left, want) in cases {
            let got = describe(pid, alive, left, socket);
            assert!(got.contains(want), "{pid:?} {alive} {left}: {got}");
            assert!(got.starts_with("the wta master"), "{got}");
        }
    }

    #[test]
    fn a_killed_master_is_told_from_one_that_shut_down() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("master.sock");
        // A process that is gone: a child that exited and was reaped.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        std::fs::write(socket.with_extension("lock"), pid.to_string()).unwrap();
        std::fs::write(&socket, "").unwrap();
        let why = why_master_went_away(&socket);
        assert!(why.contains("killed or crashed"), "{why}");
        std::fs::remove_file(&socket).unwrap();
        let why = why_master_went_away(&socket);
        assert!(why.contains("shut down"), "{why}");
        // This test process is alive: a master that only hung up.
        std::fs::write(
            socket.with_extension("lock"),
            std::process::id().to_string(),
        )
        .unwrap();
        let why = why_master_went_away(&socket);
        assert!(why.contains("still running"), "{why}");
    }
}
