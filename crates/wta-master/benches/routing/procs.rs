//! The processes of the routing benchmark: the roles the bench binary plays
//! (the minimal agent, the scripted agent, the master), a child process that
//! is stopped when dropped, and CPU time read from `/proc`.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// Run time of the calling thread, in ns.
pub fn thread_cpu_ns() -> u64 {
    schedstat(Path::new("/proc/thread-self/schedstat"))
}

fn schedstat(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Run time of every thread of `pid`, in ns.
pub fn process_cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .map(|t| schedstat(&t.path().join("schedstat")))
        .sum()
}

/// The child of `parent` whose command line contains `needle`.
pub fn child_with(parent: u32, needle: &str) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            if ppid == Some(parent) && String::from_utf8_lossy(&cmdline).contains(needle) {
                return pid;
            }
        }
        assert!(Instant::now() < deadline, "no {needle} child of {parent}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A minimal ACP agent on stdio for the throughput run: it answers
/// `initialize`/`session/new` and streams `stream <n> <tag>` from pre-built
/// lines, so the agent is not what limits the measured rate. Like an agent
/// serving several turns at once, it interleaves the streams of every prompt
/// it has (a few lines of each in turn), instead of one whole stream after
/// the other.
pub fn serve_raw_agent() {
    struct Turn {
        id: Value,
        session: String,
        tag: String,
        next: u64,
        count: u64,
    }
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { return };
            if let Ok(msg) = serde_json::from_str::<Value>(&line)
                && tx.send(msg).is_err()
            {
                return;
            }
        }
    });
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut sessions = 0u64;
    let mut turns: Vec<Turn> = Vec::new();
    let answer = |out: &mut std::io::BufWriter<_>, id: &Value, result: Value| {
        writeln!(
            out,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "result": result})
        )
        .unwrap();
    };
    loop {
        let incoming: Vec<Value> = if turns.is_empty() {
            out.flush().unwrap();
            match rx.recv() {
                Ok(msg) => vec![msg],
                Err(_) => return,
            }
        } else {
            rx.try_iter().collect()
        };
        for msg in incoming {
            let Some(id) = msg.get("id").cloned() else {
                continue;
            };
            match msg["method"].as_str().unwrap_or_default() {
                "initialize" => answer(
                    &mut out,
                    &id,
                    json!({"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}),
                ),
                "session/new" => {
                    sessions += 1;
                    answer(
                        &mut out,
                        &id,
                        json!({"sessionId": format!("raw-{sessions}")}),
                    );
                }
                "session/prompt" => {
                    let text = msg["params"]["prompt"][0]["text"]
                        .as_str()
                        .unwrap_or_default();
                    let mut words = text.split_whitespace().skip(1);
                    turns.push(Turn {
                        id,
                        session: msg["params"]["sessionId"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                        count: words.next().and_then(|n| n.parse().ok()).unwrap_or(1),
                        tag: words.next().unwrap_or("x").to_owned(),
                        next: 0,
                    });
                }
                _ => answer(&mut out, &id, json!({})),
            }
        }
        for turn in &mut turns {
            for _ in 0..8 {
                if turn.next == turn.count {
                    break;
                }
                writeln!(
                    out,
                    r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{}","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"{}:{};"}}}}}}}}"#,
                    turn.session, turn.tag, turn.next
                )
                .unwrap();
                turn.next += 1;
            }
        }
        turns.retain(|turn| {
            let done = turn.next == turn.count;
            if done {
                answer(&mut out, &turn.id, json!({"stopReason": "end_turn"}));
            }
            !done
        });
    }
}

pub fn serve_test_agent() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _ = rt.block_on(wta_testkit::acp::serve(
        tokio::io::stdout().compat_write(),
        tokio::io::stdin().compat(),
    ));
}

/// The `--master` role: like `wta --master` (two worker threads), with the
/// relay counted; prints the counters as one JSON line when it stops.
pub fn serve_master(socket: PathBuf) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let stats = Arc::new(wta_master::RelayStats::default());
    let mut config = wta_master::MasterConfig::new(socket);
    config.stats = Some(stats.clone());
    rt.block_on(wta_master::run(config)).unwrap();
    println!("{}", serde_json::to_string(&stats.snapshot()).unwrap());
}

/// A child process stopped (SIGTERM, then SIGKILL) when dropped, so a failed
/// check never leaves a master or an agent behind.
pub struct Proc(pub Child);

impl Proc {
    pub fn pid(&self) -> u32 {
        self.0.id()
    }

    /// SIGTERM and wait; returns what it printed on stdout (if piped).
    pub fn stop(mut self) -> String {
        self.terminate();
        let mut out = String::new();
        if let Some(mut stdout) = self.0.stdout.take() {
            let _ = stdout.read_to_string(&mut out);
        }
        out
    }

    fn terminate(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.0.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(8);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            self.terminate();
        }
    }
}
