//! Running a local command for a scripted agent (the proposal CLI, a shell
//! command): stdin closed, stdout and stderr collected, stdout lines passed
//! on as they arrive when asked, killed if the turn is dropped. [`Ran`] is
//! what it printed and how it ended; it reads the proposal CLI's lines.
//! Nothing here talks ACP: `turn.rs` turns streamed lines into chunks.

use std::ffi::OsString;
use std::process::Stdio;

use agent_client_protocol::v1::schema::ToolCallStatus;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use wta_protocol::ResponseLine;

/// A command to run: its argv, extra environment, and whether each stdout
/// line is said (as an `agent_message_chunk`) while it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub argv: Vec<String>,
    pub env: Vec<(OsString, OsString)>,
    pub say_lines: bool,
}

impl Command {
    /// `argv` with the agent's environment, saying nothing while it runs.
    pub fn new(argv: Vec<String>) -> Self {
        Self {
            argv,
            env: Vec::new(),
            say_lines: false,
        }
    }

    /// `sh -c <script>`.
    pub fn shell(script: impl Into<String>) -> Self {
        Self::new(vec!["sh".into(), "-c".into(), script.into()])
    }

    /// Sets `name` in the command's environment.
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Says each stdout line (with a `\n`) as it arrives.
    pub fn saying_lines(mut self) -> Self {
        self.say_lines = true;
        self
    }
}

/// What a command printed and how it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ran {
    /// Stdout as printed (invalid UTF-8 replaced).
    pub stdout: String,
    /// Stderr; `cannot start <program>: …` when it did not start.
    pub stderr: String,
    /// `None` when it did not start or a signal ended it.
    pub exit: Option<i32>,
}

impl Ran {
    /// Stdout's lines, without their line ends.
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.stdout.lines()
    }

    /// The proposal CLI's response lines in stdout, in order (other lines
    /// are skipped).
    pub fn response_lines(&self) -> Vec<ResponseLine> {
        self.lines()
            .filter_map(|line| ResponseLine::from_frame(line.as_bytes()).ok())
            .collect()
    }

    /// `completed` after exit 0, `failed` otherwise.
    pub fn tool_status(&self) -> ToolCallStatus {
        if self.exit == Some(0) {
            ToolCallStatus::Completed
        } else {
            ToolCallStatus::Failed
        }
    }
}

/// Runs `command`, calling `line` with each stdout line (its line end
/// stripped) as it arrives when the command says its lines. An error from
/// `line` stops reading and is returned (the child is killed).
pub(crate) async fn run<E>(
    command: &Command,
    mut line: impl FnMut(&str) -> Result<(), E>,
) -> Result<Ran, E> {
    let Some((program, args)) = command.argv.split_first() else {
        return Ok(Ran {
            stderr: "cannot start an empty command".to_owned(),
            ..Ran::default()
        });
    };
    let spawned = tokio::process::Command::new(program)
        .args(args)
        .envs(command.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            return Ok(Ran {
                stderr: format!("cannot start {program}: {err}"),
                ..Ran::default()
            });
        }
    };
    let (out, err) = (child.stdout.take(), child.stderr.take());
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let read_out = async {
        let Some(out) = out else {
            return Ok(());
        };
        let mut out = BufReader::new(out);
        let mut raw = Vec::new();
        loop {
            raw.clear();
            match out.read_until(b'\n', &mut raw).await {
                Ok(0) | Err(_) => return Ok(()),
                Ok(_) => {}
            }
            stdout.extend_from_slice(&raw);
            if command.say_lines {
                let text = String::from_utf8_lossy(&raw);
                let text = text.strip_suffix('\n').unwrap_or(&text);
                line(text.strip_suffix('\r').unwrap_or(text))?;
            }
        }
    };
    let read_err = async {
        if let Some(mut err) = err {
            let _ = err.read_to_end(&mut stderr).await;
        }
        Ok(())
    };
    // A failed line ends the run at once; dropping the child kills it.
    tokio::try_join!(read_out, read_err)?;
    let exit = child.wait().await.ok().and_then(|status| status.code());
    Ok(Ran {
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        exit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn collects_output_and_passes_lines_on() {
        let command = Command::shell(r"printf 'one\r\ntwo\nthree'; echo oops >&2; exit 3")
            .env("WTA_SCRIPTED_TEST", "x")
            .saying_lines();
        let mut lines = Vec::new();
        let ran = run(&command, |l| {
            lines.push(l.to_owned());
            Ok::<_, ()>(())
        })
        .await
        .unwrap();
        assert_eq!(lines, ["one", "two", "three"]);
        assert_eq!(
            ran,
            Ran {
                stdout: "one\r\ntwo\nthree".into(),
                stderr: "oops\n".into(),
                exit: Some(3)
            }
        );
        assert_eq!(ran.lines().collect::<Vec<_>>(), ["one", "two", "three"]);
        assert_eq!(ran.tool_status(), ToolCallStatus::Failed);
    }

    #[tokio::test]
    async fn quiet_commands_say_nothing_and_see_their_env() {
        let command = Command::shell("echo \"$WTA_SCRIPTED_TEST\"").env("WTA_SCRIPTED_TEST", "set");
        let ran = run(&command, |_| Err("said a line")).await.unwrap();
        assert_eq!(ran.stdout, "set\n");
        assert_eq!(ran.tool_status(), ToolCallStatus::Completed);
    }

    #[tokio::test]
    async fn a_failed_line_stops_the_run() {
        let command = Command::shell("echo a; echo b").saying_lines();
        assert_eq!(run(&command, |_| Err("gone")).await, Err("gone"));
    }

    #[tokio::test]
    async fn a_program_that_cannot_start_says_so() {
        let ran = run(&Command::new(vec!["/nonexistent/wta-x".into()]), |_| {
            Ok::<_, ()>(())
        })
        .await
        .unwrap();
        assert!(
            ran.stderr.starts_with("cannot start /nonexistent/wta-x: "),
            "{ran:?}"
        );
        assert_eq!(ran.exit, None);
        let empty = run(&Command::new(vec![]), |_| Ok::<_, ()>(()))
            .await
            .unwrap();
        assert_eq!(empty.exit, None);
    }

    #[test]
    fn reads_the_cli_lines() {
        let id = "0123456789abcdef0123456789abcdef";
        let ran = Ran {
            stdout: format!(
                "noise\n{{\"phase\":\"final\",\"status\":\"cancelled\",\"proposal_id\":\"{id}\"}}\n"
            ),
            ..Ran::default()
        };
        assert!(matches!(
            ran.response_lines().as_slice(),
            [ResponseLine::Final(_)]
        ));
    }
}
