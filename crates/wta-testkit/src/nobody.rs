//! Running a program as another user (`nobody`), for the peer-uid tests of
//! every socket: `setpriv --reuid=nobody --regid=<its group> --clear-groups`,
//! in the scrubbed environment of [`crate::env`].
//!
//! What such a run needs (root, `setpriv`, a `nobody` user) is checked
//! first. Under `CI=true` (`.ci/run` sets it, and runs as root) a missing
//! piece fails the test; elsewhere the test may skip, and says on the
//! terminal exactly what to install or run, never silently.

use std::ffi::OsStr;
use std::io::Write;
use std::process::Command;

use crate::env::clean;

/// A command that runs `program` as `nobody`, or `None` (with the reason
/// and the fix printed) when this machine cannot, outside CI. Panics under
/// `CI=true` instead: CI never skips it.
///
/// The command's environment is the scrubbed one of [`crate::env::base`],
/// as `nobody` (`USER`, `LOGNAME`, `HOME=/nonexistent`) and no XDG dirs:
/// set the ones the run needs (e.g. the socket's `XDG_RUNTIME_DIR`).
pub fn as_nobody(program: impl AsRef<OsStr>) -> Option<Command> {
    let group = match missing() {
        Ok(group) => group,
        Err(fix) => {
            let why = format!("running as `nobody` is not possible here: {fix}");
            if under_ci() {
                panic!("{why}; CI must run every test");
            }
            // Straight to the stream, past the test harness's capture, so
            // the skip shows on the terminal even when the test passes.
            let _ = writeln!(std::io::stderr(), "SKIPPED (not under CI=true): {why}");
            return None;
        }
    };
    let mut cmd = clean("setpriv");
    cmd.envs([
        ("USER", "nobody"),
        ("LOGNAME", "nobody"),
        ("HOME", "/nonexistent"),
    ]);
    cmd.args(["--reuid", "nobody", "--regid"])
        .arg(group.to_string())
        .args(["--clear-groups", "--"])
        .arg(program);
    Some(cmd)
}

/// Whether this run is CI's (`CI=true`).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The gid to run as, or what is missing and the exact line that fixes it.
fn missing() -> Result<u32, String> {
    if !nix::unistd::geteuid().is_root() {
        return Err("switching users needs root; run the suite as root: \
             `sudo env \"PATH=$PATH\" scripts/test` (CI does, with .ci/run)"
            .to_owned());
    }
    if !on_path("setpriv") {
        return Err("`setpriv` is missing; install it: \
             `apt-get install util-linux` (scripts/test does this as root)"
            .to_owned());
    }
    match nix::unistd::User::from_name("nobody") {
        Ok(Some(user)) => Ok(user.gid.as_raw()),
        _ => Err("there is no user `nobody`; add one: \
             `useradd --system --no-create-home --shell /usr/sbin/nologin nobody`"
            .to_owned()),
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever this machine is, `as_nobody` either runs as `nobody` or
    /// says why not; under CI it must run.
    #[test]
    fn runs_as_nobody_or_says_what_is_missing() {
        match missing() {
            Ok(_) => {
                let out = as_nobody("id").unwrap().arg("-un").output().unwrap();
                assert!(out.status.success(), "{out:?}");
                assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "nobody");
            }
            Err(fix) => {
                assert!(fix.contains('`'), "names the exact command: {fix}");
                assert!(!under_ci(), "CI must be able to run as nobody: {fix}");
                assert!(as_nobody("id").is_none());
            }
        }
    }
}
