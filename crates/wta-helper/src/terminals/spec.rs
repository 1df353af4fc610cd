//! What an agent terminal is, as data: the command line it runs, how its
//! exit reads back from the pane, and the output buffer with ACP's limit.
//! Pure; the pane and the child process that run it are `pane.rs` and
//! `child.rs`.
//!
//! `command` is a shell command line, as the agents send it and as Zed
//! runs it (claude-code-acp sends `{"command": "echo hi"}` and no `args`):
//! it goes to `bash -c` (else `/bin/sh -c`) once, and each of `args` is
//! appended single-quoted, so an argument is never split or expanded. No
//! other layer parses either: tmux gets the argv literally.
//!
//! The command runs in the agent's environment as far as WTA sets it
//! (`PATH` with wta's directory first and `WTA_CLI_PATH`, so the canonical
//! proposal invocation works from an agent's shell tool too), with the
//! request's `env` on top. A relative `cwd` is taken against the session's.

use agent_client_protocol::v1::schema::{CreateTerminalRequest, TerminalExitStatus};

/// Pane option where the wrapper (`wta terminal-exec`) records how the
/// command ended: `exit N` or `signal NAME`.
pub const EXIT_OPTION: &str = "@wta_terminal_exit";
/// Pane option where the wrapper records the command's process group.
pub const PGID_OPTION: &str = "@wta_terminal_pgid";
/// Output kept when the agent sets no `outputByteLimit`.
pub const DEFAULT_OUTPUT_LIMIT: usize = 1024 * 1024;
/// The most output kept whatever the agent asks (bytes).
pub const MAX_OUTPUT_LIMIT: usize = 16 * 1024 * 1024;

/// One command to run, from `terminal/create`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalSpec {
    /// The argv that runs the command (a shell and its `-c` script).
    pub argv: Vec<String>,
    /// What the transcript shows as the command.
    pub display: String,
    pub env: Vec<(String, String)>,
    pub cwd: std::path::PathBuf,
    /// Bytes of output kept (the newest).
    pub output_limit: usize,
}

/// The shell that runs agents' command lines: `bash` on `PATH`, else `/bin/sh`.
pub fn shell() -> String {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("bash").is_file()));
    if on_path { "bash" } else { "/bin/sh" }.to_owned()
}

/// `s` single-quoted for a POSIX shell.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl TerminalSpec {
    /// The spec for `request`: in `default_cwd` when the request names no
    /// directory (and under it when it names a relative one), with
    /// `base_env` and then the request's `env` (which wins on a clash).
    pub fn from_request(
        request: &CreateTerminalRequest,
        default_cwd: &std::path::Path,
        shell: &str,
        base_env: &[(String, String)],
    ) -> Self {
        let mut script = request.command.clone();
        for arg in &request.args {
            script.push(' ');
            script.push_str(&quote(arg));
        }
        let output_limit = request
            .output_byte_limit
            .map_or(DEFAULT_OUTPUT_LIMIT, |l| {
                usize::try_from(l).unwrap_or(usize::MAX)
            })
            .min(MAX_OUTPUT_LIMIT);
        Self {
            argv: vec![shell.to_owned(), "-c".to_owned(), script.clone()],
            display: script,
            env: merged_env(base_env, request),
            cwd: match &request.cwd {
                Some(cwd) => default_cwd.join(cwd),
                None => default_cwd.to_path_buf(),
            },
            output_limit,
        }
    }
}

/// `base` with the request's variables set over it, in order, each name once.
fn merged_env(base: &[(String, String)], request: &CreateTerminalRequest) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = base.to_vec();
    for var in &request.env {
        env.retain(|(name, _)| *name != var.name);
        env.push((var.name.clone(), var.value.clone()));
    }
    env
}

/// The environment WTA gives an agent, for its terminals: `wta_exe` as
/// `WTA_CLI_PATH` and its directory first on `PATH` (this process's).
pub fn agent_env(wta_exe: &std::path::Path) -> Vec<(String, String)> {
    wta_agent::cli_env(wta_exe, std::env::var_os("PATH").as_deref())
        .into_iter()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.to_string_lossy().into_owned(),
            )
        })
        .collect()
}

/// How a command ended, as the wrapper writes it in [`EXIT_OPTION`].
pub fn encode_exit(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("signal {}", signal_name(signal)),
        (None, None) => "exit 255".to_owned(),
    }
}

fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map_or_else(|_| signal.to_string(), |s| s.as_str().to_owned())
}

/// Reads [`EXIT_OPTION`] back; `None` while the command runs (empty) or for
/// text the wrapper does not write.
pub fn decode_exit(value: &str) -> Option<TerminalExitStatus> {
    let (kind, rest) = value.trim().split_once(' ')?;
    match kind {
        "exit" => rest
            .parse::<u32>()
            .ok()
            .map(|code| TerminalExitStatus::new().exit_code(code)),
        "signal" if !rest.is_empty() => Some(TerminalExitStatus::new().signal(rest.to_owned())),
        _ => None,
    }
}

/// The newest `limit` bytes of a terminal's output, as ACP's
/// `terminal/output` wants them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputBuffer {
    bytes: std::collections::VecDeque<u8>,
    limit: usize,
    truncated: bool,
}

impl OutputBuffer {
    pub fn new(limit: usize) -> Self {
        Self {
            bytes: std::collections::VecDeque::new(),
            limit,
            truncated: false,
        }
    }

    /// Appends output, dropping the oldest bytes past the limit.
    pub fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend(chunk);
        let over = self.bytes.len().saturating_sub(self.limit);
        if over > 0 {
            self.bytes.drain(..over);
            self.truncated = true;
        }
    }

    /// Records that output was lost before it reached the buffer.
    pub fn note_lost(&mut self) {
        self.truncated = true;
    }

    /// The text kept and whether anything was dropped: cut from the start
    /// on a character boundary (a split character is dropped whole).
    pub fn text(&self) -> (String, bool) {
        let (a, b) = self.bytes.as_slices();
        let mut bytes = Vec::with_capacity(self.bytes.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        let mut start = 0;
        let mut cut = false;
        if self.truncated {
            // Skip continuation bytes left by the cut (at most 3).
            while start < bytes.len().min(3) && bytes[start] & 0xC0 == 0x80 {
                start += 1;
                cut = true;
            }
        }
        let text = String::from_utf8_lossy(&bytes[start..]).into_owned();
        (text, self.truncated || cut)
    }

    /// The last `n` lines of the text (for the transcript).
    pub fn last_lines(&self, n: usize) -> Vec<String> {
        let (text, _) = self.text();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..]
            .iter()
            .map(|l| (*l).to_owned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn request(value: serde_json::Value) -> CreateTerminalRequest {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn the_command_line_goes_to_the_shell_once_and_args_stay_literal() {
        let r = request(json!({"sessionId": "s", "command": "echo hi && ls",
            "env": [{"name": "CLAUDECODE", "value": "1"}], "outputByteLimit": 32000}));
        let spec = TerminalSpec::from_request(&r, std::path::Path::new("/w"), "bash", &[]);
        assert_eq!(spec.argv, ["bash", "-c", "echo hi && ls"]);
        assert_eq!(spec.env, [("CLAUDECODE".to_owned(), "1".to_owned())]);
        assert_eq!(spec.cwd, std::path::Path::new("/w"));
        assert_eq!(spec.output_limit, 32000);
        let r = request(json!({"sessionId": "s", "command": "printf", "cwd": "/tmp",
            "args": ["%s|", "a b", "it's $HOME", "*"]}));
        let spec = TerminalSpec::from_request(&r, std::path::Path::new("/w"), "/bin/sh", &[]);
        assert_eq!(spec.argv[2], r#"printf '%s|' 'a b' 'it'\''s $HOME' '*'"#);
        assert_eq!(spec.cwd, std::path::Path::new("/tmp"));
        assert_eq!(spec.output_limit, DEFAULT_OUTPUT_LIMIT);
        let out = std::process::Command::new("/bin/sh")
            .args(&spec.argv[1..])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a b|it's $HOME|*|");
        let huge = request(json!({"sessionId": "s", "command": "x", "outputByteLimit": u64::MAX}));
        let spec = TerminalSpec::from_request(&huge, std::path::Path::new("/"), "sh", &[]);
        assert_eq!(spec.output_limit, MAX_OUTPUT_LIMIT);
    }

    #[test]
    fn the_agents_cli_env_comes_first_and_the_request_sets_over_it() {
        let base = agent_env(std::path::Path::new("/opt/wta/bin/wta"));
        let cli = base.iter().find(|(k, _)| k == "WTA_CLI_PATH").unwrap();
        assert_eq!(cli.1, "/opt/wta/bin/wta");
        let path = base.iter().find(|(k, _)| k == "PATH").unwrap();
        assert!(
            path.1.starts_with("/opt/wta/bin:") || path.1 == "/opt/wta/bin",
            "{path:?}"
        );
        let r = request(json!({"sessionId": "s", "command": "x",
            "env": [{"name": "CLAUDECODE", "value": "1"}, {"name": "PATH", "value": "/only"}]}));
        let spec = TerminalSpec::from_request(&r, std::path::Path::new("/w"), "sh", &base);
        let names: Vec<&str> = spec.env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            ["WTA_CLI_PATH", "WTA_RUNTIME_DIR", "CLAUDECODE", "PATH"],
            "each once, the request's last"
        );
        assert!(spec.env.contains(&("PATH".to_owned(), "/only".to_owned())));
    }

    #[test]
    fn a_relative_cwd_is_taken_against_the_sessions() {
        let r = request(json!({"sessionId": "s", "command": "x", "cwd": "sub/dir"}));
        let spec = TerminalSpec::from_request(&r, std::path::Path::new("/w"), "sh", &[]);
        assert_eq!(spec.cwd, std::path::Path::new("/w/sub/dir"));
    }

    #[test]
    fn exits_round_trip_through_the_pane_option() {
        use std::os::unix::process::ExitStatusExt;
        let code = std::process::ExitStatus::from_raw(3 << 8);
        assert_eq!(encode_exit(&code), "exit 3");
        assert_eq!(
            decode_exit("exit 3"),
            Some(TerminalExitStatus::new().exit_code(3))
        );
        let killed = std::process::ExitStatus::from_raw(9);
        assert_eq!(encode_exit(&killed), "signal SIGKILL");
        assert_eq!(
            decode_exit(&encode_exit(&killed)),
            Some(TerminalExitStatus::new().signal("SIGKILL".to_owned()))
        );
        for odd in ["", "exit", "exit x", "signal ", "gone 1"] {
            assert_eq!(decode_exit(odd), None, "{odd:?}");
        }
    }

    #[test]
    fn output_keeps_the_newest_bytes_on_a_character_boundary() {
        let mut out = OutputBuffer::new(5);
        out.push(b"abc");
        assert_eq!(out.text(), ("abc".to_owned(), false));
        out.push("déf".as_bytes());
        // 7 bytes kept to the newest 5 (é is 2 bytes).
        assert_eq!(out.text(), ("cdéf".to_owned(), true));
        out.push(b"g");
        assert_eq!(out.text().0, "défg");
        out.push(b"h");
        assert_eq!(out.text().0, "éfgh");
        // The cut falls inside é: its second byte is dropped, not garbled.
        out.push(b"i");
        assert_eq!(out.text(), ("fghi".to_owned(), true));
        out.push(b"\nlast line");
        assert_eq!(out.last_lines(2), [" line"]);
    }

    proptest! {
        #[test]
        fn output_text_is_a_suffix_of_the_input(
            chunks in proptest::collection::vec(".{0,12}", 0..12),
            limit in 1usize..40,
        ) {
            let mut out = OutputBuffer::new(limit);
            let mut all = String::new();
            for c in &chunks {
                out.push(c.as_bytes());
                all.push_str(c);
            }
            let (text, truncated) = out.text();
            prop_assert!(all.ends_with(&text), "{text:?} not a suffix of {all:?}");
            prop_assert!(text.len() <= limit);
            prop_assert_eq!(truncated, all.len() > limit);
            prop_assert!(all.len() <= limit || text.len() + 3 >= limit);
        }
    }
}
