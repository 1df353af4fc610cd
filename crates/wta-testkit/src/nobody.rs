//! Running a program as another user (`nobody`), for the peer-uid tests of
//! every socket: `setpriv --reuid=nobody --regid=nogroup --clear-groups`.

use std::ffi::OsStr;
use std::process::Command;

/// A command that runs `program` as `nobody`. Switching users needs root:
/// without it this returns `None` and says why on stderr, so a developer's
/// run can skip the test; under `CI=true` (where `.ci/run` runs as root) it
/// panics instead, so CI never skips it silently.
pub fn as_nobody(program: impl AsRef<OsStr>) -> Option<Command> {
    if !nix::unistd::geteuid().is_root() {
        let why = "switching to `nobody` needs root";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{why}, and CI must run every test");
        }
        eprintln!("{why}; skipped (CI runs it as root)");
        return None;
    }
    let mut cmd = Command::new("setpriv");
    cmd.args([
        "--reuid",
        "nobody",
        "--regid",
        "nogroup",
        "--clear-groups",
        "--",
    ])
    .arg(program);
    Some(cmd)
}
