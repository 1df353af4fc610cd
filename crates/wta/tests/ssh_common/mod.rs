//! A real OpenSSH server on loopback for the `wta ssh` tests: the
//! distribution's `/usr/sbin/sshd` on 127.0.0.1 and a free port, with host
//! and user keys generated into a temp dir, its own `sshd_config` (no PAM,
//! no strict modes, the authorized keys, pid file and the remote user's
//! `HOME` in the temp dir, the login shell chosen by the test through
//! `SetEnv SHELL=…`), stopped by pid on drop. The client side is an
//! `ssh_config` in the same dir (`Host lab`: known hosts in the temp dir,
//! `accept-new`, the generated key, `BatchMode yes`), passed to `wta ssh`
//! with `-F`. Every process starts through the testkit's scrub. The tests'
//! session driver over it is `remote.rs` beside this file (declared by each
//! test with `#[path]`, so a bench can take the sshd alone).

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use wta_testkit::env::clean;
use wta_testkit::wait_until;

/// Where Debian's openssh-server puts the daemon.
pub const SSHD: &str = "/usr/sbin/sshd";
/// The `Host` the client config names.
pub const HOST: &str = "lab";

pub struct Sshd {
    pub dir: tempfile::TempDir,
    pub port: u16,
    child: Child,
}

fn keygen(path: &Path) {
    let out = clean("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", ""])
        .arg("-f")
        .arg(path)
        .output()
        .expect("ssh-keygen (openssh-client)");
    assert!(out.status.success(), "ssh-keygen: {out:?}");
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().unwrap().port()
}

impl Sshd {
    /// An sshd whose sessions run `shell` as the remote login shell
    /// (`$SHELL`, which WTA's bootstrap reads; sshd runs the user's
    /// passwd shell for the command itself, as it always does).
    pub fn start(shell: &str) -> Self {
        Self::start_with_env(shell, &[])
    }

    /// [`Sshd::start`] with more of the sessions' environment (`SetEnv`
    /// `NAME=value` words, no spaces).
    pub fn start_with_env(shell: &str, env: &[(&str, &str)]) -> Self {
        let extra: String = env.iter().map(|(k, v)| format!(" {k}={v}")).collect();
        assert!(
            Path::new(SSHD).is_file(),
            "{SSHD} is missing: apt-get install openssh-server openssh-client (scripts/test does)"
        );
        // Privilege separation wants its empty dir when sshd runs as root.
        if nix::unistd::geteuid().is_root() {
            std::fs::create_dir_all("/run/sshd").expect("/run/sshd");
        }
        let mut dir = tempfile::Builder::new()
            .prefix("wta-sshd-")
            .tempdir()
            .unwrap();
        let d = dir.path().to_path_buf();
        keygen(&d.join("host_key"));
        keygen(&d.join("user_key"));
        std::fs::copy(d.join("user_key.pub"), d.join("authorized_keys")).unwrap();
        std::fs::create_dir_all(d.join("remote-home")).unwrap();
        let user = nix::unistd::User::from_uid(nix::unistd::getuid())
            .unwrap()
            .unwrap()
            .name;
        for _ in 0..5 {
            let d = d.as_path();
            let port = free_port();
            std::fs::write(
                d.join("sshd_config"),
                format!(
                    "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\n\
                     UsePAM no\nStrictModes no\nAuthorizedKeysFile {d}/authorized_keys\n\
                     PasswordAuthentication no\nKbdInteractiveAuthentication no\n\
                     PermitRootLogin prohibit-password\nPrintMotd no\nPrintLastLog no\n\
                     SetEnv HOME={d}/remote-home SHELL={shell}{extra}\n",
                    d = d.display()
                ),
            )
            .unwrap();
            std::fs::write(
                d.join("ssh_config"),
                format!(
                    "Host {HOST}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n\
                     IdentityFile {d}/user_key\n  IdentitiesOnly yes\n\
                     UserKnownHostsFile {d}/known_hosts\n  StrictHostKeyChecking accept-new\n\
                     BatchMode yes\n  LogLevel ERROR\n",
                    d = d.display()
                ),
            )
            .unwrap();
            let child = clean(SSHD)
                .args(["-D", "-e", "-f"])
                .arg(d.join("sshd_config"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(d.join("sshd.log")).unwrap())
                .spawn()
                .expect("sshd");
            let mut sshd = Sshd { dir, port, child };
            let up = wait_until("sshd listens", Duration::from_secs(10), || {
                std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
                    || sshd.child.try_wait().ok().flatten().is_some()
            });
            if up.is_ok() && sshd.child.try_wait().ok().flatten().is_none() {
                return sshd;
            }
            // The port was taken in between: another one.
            let _ = sshd.child.wait();
            dir = sshd.into_dir();
        }
        panic!(
            "sshd did not start; its log:\n{}",
            std::fs::read_to_string(dir.path().join("sshd.log")).unwrap_or_default()
        );
    }

    fn into_dir(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let placeholder = tempfile::tempdir().unwrap();
        std::mem::replace(&mut self.dir, placeholder)
    }

    /// The client config for `wta ssh -F <it> lab`.
    pub fn client_config(&self) -> PathBuf {
        self.dir.path().join("ssh_config")
    }

    /// The daemon's pid (the listener; each session is a child of it).
    pub fn pid(&self) -> i32 {
        i32::try_from(self.child.id()).unwrap()
    }

    /// The daemon's log so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// Every process of the remote side: the daemon's descendants.
    pub fn remote_processes(&self) -> Vec<i32> {
        descendants(self.pid())
    }

    /// The per-connection sshd processes (children of the daemon).
    pub fn sessions(&self) -> Vec<i32> {
        children(self.pid())
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        // Our daemon only, by pid; its sessions end with their connections.
        for pid in self.sessions() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The parent pid of `pid`, from /proc.
pub fn parent(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Every pid whose parent is `pid`.
pub fn children(pid: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
                .filter(|p| parent(*p) == Some(pid))
                .collect()
        })
        .unwrap_or_default()
}

/// `pid`'s descendants, parents before children.
pub fn descendants(pid: i32) -> Vec<i32> {
    let mut found = Vec::new();
    let mut queue = vec![pid];
    while let Some(p) = queue.pop() {
        for child in children(p) {
            found.push(child);
            queue.push(child);
        }
    }
    found
}

/// A process's argv, its words joined by spaces.
pub fn cmdline(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            String::from_utf8_lossy(&b)
                .replace('\0', " ")
                .trim()
                .to_owned()
        })
        .unwrap_or_default()
}

/// A process's environment as it was exec'd (`NAME=value` joined by newlines).
pub fn environ(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', "\n"))
        .unwrap_or_default()
}
