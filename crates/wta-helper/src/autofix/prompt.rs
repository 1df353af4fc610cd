//! The fix turn's words: what the user sees as the turn's prompt, what the
//! agent gets (the auto-fix instructions, `prompts/auto-fix.md`, and the
//! user's hint), and the failed command's record, which goes under the
//! context's `untrusted` key: it is terminal output, never instructions.

use serde::Serialize;
use wta_protocol::PaneId;
use wta_shell::Finished;

/// The auto-fix instructions shipped with WTA.
pub const AUTO_FIX_PROMPT: &str = include_str!("../../../../prompts/auto-fix.md");
/// Output of the failed command given to the agent (its tail, in characters).
pub const MAX_FAILED_OUTPUT_CHARS: usize = 4000;
/// The exit code of a command the shell could not find.
pub const NOT_FOUND_EXIT: i32 = 127;

/// One failure a fix turn is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixTurn {
    /// Which failure (a card for an older one is dropped).
    pub generation: u64,
    /// Where it failed: the only pane the fix may type into.
    pub pane: PaneId,
    pub finished: Finished,
    /// What the user added (`/fix <hint>`, `wta fix --hint`).
    pub hint: Option<String>,
}

/// The failed command as the agent reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedCommand {
    pub pane: String,
    pub cmdline: Option<String>,
    pub exit_code: Option<i32>,
    pub output: String,
    pub truncated: bool,
    pub cwd: Option<String>,
    pub shell: Option<String>,
}

impl FixTurn {
    /// The record for the context (output bounded to its tail).
    pub fn failed_command(&self, shell: Option<String>) -> FailedCommand {
        let record = &self.finished.record;
        let (output, cut) = crate::context::tail_chars(&record.output, MAX_FAILED_OUTPUT_CHARS);
        FailedCommand {
            pane: self.pane.to_string(),
            cmdline: record.cmdline.clone(),
            exit_code: record.exit_code,
            output,
            truncated: cut || record.truncated,
            cwd: self.finished.cwd.clone(),
            shell,
        }
    }

    /// The command name to look up when the shell could not find it.
    pub fn missing_command(&self) -> Option<String> {
        let record = &self.finished.record;
        if record.exit_code != Some(NOT_FOUND_EXIT) {
            return None;
        }
        let first = record.cmdline.as_deref()?.split_whitespace().next()?;
        (!first.is_empty()).then(|| first.to_owned())
    }

    /// What the agent is asked (the context is appended after it).
    pub fn request(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{AUTO_FIX_PROMPT}\nThe user adds: {hint}\n"),
            None => AUTO_FIX_PROMPT.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use wta_shell::LastCommand;

    fn turn(cmdline: Option<&str>, exit: i32, output: &str) -> FixTurn {
        FixTurn {
            generation: 3,
            pane: PaneId::parse("%4").unwrap(),
            finished: Finished {
                record: LastCommand {
                    pane: "%4".into(),
                    cmdline: cmdline.map(str::to_owned),
                    exit_code: Some(exit),
                    end_reason: "exited".into(),
                    duration_ms: Some(5),
                    output: output.into(),
                    truncated: false,
                    interactive: false,
                    output_bytes: output.len() as u64,
                },
                dispatched: false,
                cwd: Some("/src".into()),
            },
            hint: None,
        }
    }

    #[test]
    fn the_record_is_bounded_and_a_missing_command_is_named() {
        let long = "x".repeat(MAX_FAILED_OUTPUT_CHARS + 10);
        let t = turn(Some("gti status"), 127, &long);
        let record = t.failed_command(Some("bash".into()));
        assert_eq!(record.output.chars().count(), MAX_FAILED_OUTPUT_CHARS);
        assert!(record.truncated);
        assert_eq!(record.pane, "%4");
        assert_eq!(record.cwd.as_deref(), Some("/src"));
        assert_eq!(t.missing_command().as_deref(), Some("gti"));
        assert_eq!(turn(Some("false"), 1, "").missing_command(), None);
        assert_eq!(turn(None, 127, "").missing_command(), None);
    }

    #[test]
    fn the_request_carries_the_instructions_and_the_hint() {
        let mut t = turn(Some("make"), 2, "");
        assert!(
            t.request()
                .starts_with("# Fix the command that just failed")
        );
        assert!(t.request().contains(r#"`"origin":"autofix"`"#));
        t.hint = Some("use the release profile".into());
        assert!(
            t.request()
                .ends_with("The user adds: use the release profile\n")
        );
    }
}
