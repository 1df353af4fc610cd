//! One wta process reads the user's config file once: the language, the
//! config check, the default agent and the agent list of `wta doctor` all
//! come from that one reading. The config file is a FIFO that gives its
//! text to the first reader only, so a second reading waits for a writer
//! that never comes; the test then fails at its deadline (and stops the
//! process) instead of passing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

const TEXT: &str = "language = \"de\"\n\
    default_agent = \"demo\"\n\
    [execution]\n\
    timout_secs = 5\n";

/// Makes `path` a FIFO and hands `text` to its first reader (on a thread).
fn fifo_once(path: &Path, text: &'static str) -> std::thread::JoinHandle<()> {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let path = path.to_owned();
    std::thread::spawn(move || {
        // The write end opens without blocking only once a reader has it open.
        let mut file = wta_testkit::wait_for_value("wta to open its config", TIMEOUT, || {
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

const TIMEOUT: Duration = Duration::from_secs(30);

#[test]
fn wta_doctor_reads_the_config_file_once() {
    let user = support::User::new(&[]);
    let writer = fifo_once(&user.path("config/wta/config.toml"), TEXT);
    let child = user
        .command()
        .args(["doctor", "--json", "--version-timeout", "2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output().unwrap()));
    let out = match rx.recv_timeout(TIMEOUT) {
        Ok(out) => out,
        Err(_) => {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            panic!("wta doctor did not finish: it opened its config file (a FIFO) a second time");
        }
    };
    writer.join().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let check = |id: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no check {id}: {report:#}"))
            .clone()
    };
    // Each of them saw the file's text.
    let config = check("config");
    assert_eq!(config["status"], "fail", "{config:#}");
    assert_eq!(
        config["data"]["problems"][0]["key"],
        "execution.timout_secs"
    );
    let language = check("language");
    assert_eq!(
        (&language["data"]["source"], &language["data"]["given"]),
        (&Value::from("config"), &Value::from("de"))
    );
    assert_eq!(check("default_agent")["data"]["configured"], "demo");
    assert_eq!(check("agent:demo")["status"], "ok");
}
