//! What a helper leaves behind when it dies without cleaning up (SIGKILL, a
//! crash), reaped by the master, which knows each helper's pid from its
//! socket's peer credentials and its owner tab from `_meta.wta`:
//!
//! - the `pipe-pane` sinks of its pane watchers: every pane whose pipe owner
//!   (`@wta_pipe`, a socket path) is in the helper's own watch directory
//!   `<runtime dir>/watch/helper-<pid>/` has its pipe closed (the sink sees
//!   EOF and exits) and the directory goes;
//! - its card indicator on the owner tab ([`CARD_WAITING_OPTION`]);
//! - `proposal-*.sock` files nobody listens on (a helper's proposal socket
//!   is named for a random id the master never learns, so a socket is
//!   judged by whether it answers; one made in the last
//!   [`FRESH_SOCKET`] may be a helper between `bind` and `listen`, and is
//!   looked at again once that much has passed).
//!
//! A helper that only disconnected (its pid still runs after [`DYING`])
//! keeps everything. A helper that exits normally has cleaned up already;
//! reaping after it finds nothing. The master also sweeps dead proposal
//! sockets once when it starts (helpers killed while no master ran).
//!
//! It must not touch a pipe owned by anyone else (another helper, `wta
//! listen`): only owner paths inside the dead helper's directory count.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use wta_host::{TerminalHost, TmuxHost};
use wta_protocol::WindowId;
use wta_protocol::helper_master::CARD_WAITING_OPTION;

/// Pane option naming the socket of the watcher that owns the pane's pipe
/// (`wta_shell::PIPE_OWNER_OPTION`).
const PIPE_OWNER_OPTION: &str = "@wta_pipe";
/// How long a helper whose connection ended may take to be gone.
pub(crate) const DYING: Duration = Duration::from_secs(2);
/// A dead-looking proposal socket younger than this is left alone.
const FRESH_SOCKET: Duration = Duration::from_secs(2);

/// The directory a helper of `pid` keeps its watcher sockets in (the
/// helper's `Runtime::watch_dir`).
pub(crate) fn watch_dir(runtime_dir: &Path, pid: u32) -> PathBuf {
    runtime_dir.join("watch").join(format!("helper-{pid}"))
}

/// What one reaping did, for the log and tests.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Reaped {
    pub pipes: usize,
    pub sockets: Sweep,
    pub indicator: bool,
}

/// What a sweep of proposal sockets did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sweep {
    pub removed: usize,
    /// Dead but too young to be sure: to be looked at again.
    pub fresh: usize,
}

/// Reaps what the dead helper `pid` left: its pipes (on the tmux server at
/// `tmux`), its watch directory, the card indicator on `owner_tab`, and
/// dead proposal sockets in `runtime_dir`. Blocking (tmux calls, files).
pub(crate) fn reap_helper(
    tmux: Option<&TmuxHost>,
    runtime_dir: &Path,
    pid: u32,
    owner_tab: Option<&WindowId>,
) -> Reaped {
    let dir = watch_dir(runtime_dir, pid);
    let mut reaped = Reaped::default();
    if let Some(host) = tmux {
        match host.options_of_all_panes(PIPE_OWNER_OPTION) {
            Ok(owners) => {
                for (pane, owner) in owners {
                    if !owned_by(&owner, &dir) {
                        continue;
                    }
                    match host.close_pipe(&pane, PIPE_OWNER_OPTION) {
                        Ok(()) => reaped.pipes += 1,
                        Err(err) => tracing::debug!("cannot close the pipe of {pane}: {err}"),
                    }
                }
            }
            Err(err) => tracing::debug!("cannot list the panes' pipe owners: {err}"),
        }
        if let Some(tab) = owner_tab {
            let shown = host
                .tab_option(tab, CARD_WAITING_OPTION)
                .is_ok_and(|v| !v.is_empty());
            if shown && host.set_tab_option(tab, CARD_WAITING_OPTION, None).is_ok() {
                reaped.indicator = true;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    reaped.sockets = remove_dead_proposal_sockets(runtime_dir, SystemTime::now());
    reaped
}

/// Whether the pipe owner `owner` (a socket path) is in `dir`.
fn owned_by(owner: &str, dir: &Path) -> bool {
    !owner.is_empty() && Path::new(owner).parent() == Some(dir)
}

/// Removes `proposal-*.sock` files in `dir` that refuse connections and are
/// older than [`FRESH_SOCKET`] at `now`; says how many went, and how many
/// dead ones were too young.
pub(crate) fn remove_dead_proposal_sockets(dir: &Path, now: SystemTime) -> Sweep {
    let mut sweep = Sweep::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return sweep;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with("proposal-") && name.ends_with(".sock")) {
            continue;
        }
        let path = entry.path();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|made| {
                now.duration_since(made)
                    .is_ok_and(|age| age >= FRESH_SOCKET)
            });
        if !refuses(&path) {
            continue;
        }
        if !old {
            sweep.fresh += 1;
        } else if std::fs::remove_file(&path).is_ok() {
            sweep.removed += 1;
        }
    }
    sweep
}

/// Nobody listens on `socket`: a connection is refused (a socket file whose
/// process died), as opposed to accepted or failing for another reason.
fn refuses(socket: &Path) -> bool {
    matches!(
        std::os::unix::net::UnixStream::connect(socket),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused
    )
}

/// A helper connection ended: once its process is gone, reap what it left
/// (on a task of its own; a CLI client or a helper that only hung up is
/// left alone).
pub(crate) fn after_helper(
    tmux_socket: Option<PathBuf>,
    pid: Option<i32>,
    meta: &wta_protocol::helper_master::WtaMeta,
) {
    use wta_protocol::helper_master::ClientKind;
    let Some(pid) = pid.and_then(|p| u32::try_from(p).ok()) else {
        return;
    };
    if meta.client != ClientKind::Helper || tokio::runtime::Handle::try_current().is_err() {
        return;
    }
    let owner_tab = meta.owner_tab.clone();
    tokio::spawn(async move {
        if !gone(pid).await {
            return;
        }
        let reaped = tokio::task::spawn_blocking(move || {
            let host = tmux_socket
                .map(|socket| TmuxHost::new(wta_host::ServerLocation::Socket(socket), None));
            reap_helper(
                host.as_ref(),
                &wta_env::dirs::runtime_dir(),
                pid,
                owner_tab.as_ref(),
            )
        })
        .await;
        let fresh = match reaped {
            Ok(reaped) => {
                if reaped != Reaped::default() {
                    tracing::info!(
                        pid,
                        pipes = reaped.pipes,
                        sockets = reaped.sockets.removed,
                        indicator = reaped.indicator,
                        "reaped what a dead helper left"
                    );
                }
                reaped.sockets.fresh
            }
            Err(err) => {
                tracing::warn!(pid, "reaping a dead helper's leftovers failed: {err}");
                0
            }
        };
        if fresh > 0 {
            // A helper killed within FRESH_SOCKET of its start.
            tokio::time::sleep(FRESH_SOCKET).await;
            let _ = tokio::task::spawn_blocking(|| {
                remove_dead_proposal_sockets(&wta_env::dirs::runtime_dir(), SystemTime::now())
            })
            .await;
        }
    });
}

/// Waits (up to [`DYING`]) for `pid` to be gone; false when it still runs.
pub(crate) async fn gone(pid: u32) -> bool {
    let start = tokio::time::Instant::now();
    while wta_env::process::running(pid) {
        if start.elapsed() > DYING {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pipes_in_the_dead_helpers_own_dir_are_its() {
        let run = Path::new("/run/user/1/wta");
        let dir = watch_dir(run, 42);
        assert_eq!(dir, Path::new("/run/user/1/wta/watch/helper-42"));
        assert!(owned_by("/run/user/1/wta/watch/helper-42/w-3.sock", &dir));
        for other in [
            "",
            "/run/user/1/wta/watch/helper-420/w-3.sock",
            "/run/user/1/wta/watch/helper-4/w-3.sock",
            "/run/user/1/wta/listen/w-3.sock",
            "/run/user/1/wta/watch/helper-42",
            "/run/user/1/wta/watch/helper-42/deeper/w.sock",
        ] {
            assert!(!owned_by(other, &dir), "{other}");
        }
    }

    #[test]
    fn a_dead_old_proposal_socket_goes_and_a_live_or_fresh_one_stays() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dir.path().join("proposal-dead.sock");
        let live = dir.path().join("proposal-live.sock");
        let other = dir.path().join("master-x.sock");
        // A socket whose listener is gone: its file stays, connections are refused.
        drop(std::os::unix::net::UnixListener::bind(&dead).unwrap());
        drop(std::os::unix::net::UnixListener::bind(&other).unwrap());
        let _listening = std::os::unix::net::UnixListener::bind(&live).unwrap();
        let now = SystemTime::now();
        // Just made: left for next time (said), even when dead.
        let first = remove_dead_proposal_sockets(dir.path(), now);
        assert_eq!(
            first,
            Sweep {
                removed: 0,
                fresh: 1
            }
        );
        assert!(dead.exists());
        let later = now + FRESH_SOCKET + Duration::from_secs(1);
        let second = remove_dead_proposal_sockets(dir.path(), later);
        assert_eq!(
            second,
            Sweep {
                removed: 1,
                fresh: 0
            }
        );
        assert!(!dead.exists(), "the dead one went");
        assert!(live.exists(), "one that listens stays");
        assert!(other.exists(), "only proposal sockets are looked at");
    }

    #[tokio::test]
    async fn a_running_process_is_not_gone_and_a_reaped_child_is() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(gone(pid).await);
        let start = std::time::Instant::now();
        assert!(!gone(std::process::id()).await);
        assert!(start.elapsed() >= DYING, "it waited before saying so");
    }
}
