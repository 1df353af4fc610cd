//! Shell-integration scripts (bash, zsh, fish; pwsh untested) and shell detection.
//!
//! The scripts live in `crates/wta-shell/scripts/` and are compiled in as text.
//! Every script emits OSC 133 `A`, `B`, `C;cmdline_url=…`, `D;<exit>` with
//! `aid=<shell pid>`, OSC 7 with a percent-encoded path, exports
//! `WTA_SHELL_INTEGRATION=<shell>` and sets the tmux pane option
//! `@wta_integration` to `"<shell> <pid>"`. This module only hands out text;
//! it never runs a shell.

use std::fmt;
use std::str::FromStr;

use crate::error::ShellError;

/// Name of the tmux pane option each script sets to `"<shell> <pid>"`.
pub const INTEGRATION_OPTION: &str = "@wta_integration";
/// Environment variable each script exports (value: the shell name).
pub const INTEGRATION_ENV: &str = "WTA_SHELL_INTEGRATION";

/// A shell WTA ships an integration script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    /// PowerShell 7+. The script follows the standard prompt/PSReadLine approach
    /// and is **untested** (pwsh is not installable on the development machines).
    Pwsh,
}

impl Shell {
    /// Every supported shell, in help order.
    pub const ALL: [Shell; 4] = [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::Pwsh];

    /// The lowercase name used on the command line and in `@wta_integration`.
    pub fn name(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::Zsh => "zsh",
            Shell::Fish => "fish",
            Shell::Pwsh => "pwsh",
        }
    }

    /// The private keys the script binds: every one in bash, zsh and fish
    /// (the pwsh script binds none, so its commands are typed).
    pub fn private_keys(self) -> &'static [wta_host::PrivateKey] {
        match self {
            Shell::Bash | Shell::Zsh | Shell::Fish => &wta_host::PrivateKey::ALL,
            Shell::Pwsh => &[],
        }
    }

    /// The integration script text.
    pub fn script(self) -> &'static str {
        match self {
            Shell::Bash => include_str!("../scripts/bash.sh"),
            Shell::Zsh => include_str!("../scripts/zsh.zsh"),
            Shell::Fish => include_str!("../scripts/fish.fish"),
            Shell::Pwsh => include_str!("../scripts/pwsh.ps1"),
        }
    }

    /// The rc file a user edits for this shell.
    pub fn rc_file(self) -> &'static str {
        match self {
            Shell::Bash => "~/.bashrc",
            Shell::Zsh => "~/.zshrc",
            Shell::Fish => "~/.config/fish/config.fish",
            Shell::Pwsh => "$PROFILE",
        }
    }

    /// The one line to add to [`Shell::rc_file`], given how to invoke `wta`.
    pub fn rc_line(self, wta: &str) -> String {
        match self {
            Shell::Bash | Shell::Zsh => {
                format!("eval \"$({wta} shell-integration {})\"", self.name())
            }
            Shell::Fish => format!("{wta} shell-integration fish | source"),
            Shell::Pwsh => {
                format!("{wta} shell-integration pwsh | Out-String | Invoke-Expression")
            }
        }
    }

    /// Whether the script has been exercised against a real shell.
    pub fn tested(self) -> bool {
        !matches!(self, Shell::Pwsh)
    }

    /// Recognises a shell from a program name or path (`/usr/bin/zsh`, `-bash`, `pwsh.exe`).
    pub fn from_program(program: &str) -> Option<Shell> {
        let base = program.rsplit('/').next().unwrap_or(program);
        let base = base.trim_start_matches('-').trim_end_matches(".exe");
        match base {
            "bash" => Some(Shell::Bash),
            "zsh" => Some(Shell::Zsh),
            "fish" => Some(Shell::Fish),
            "pwsh" | "powershell" => Some(Shell::Pwsh),
            _ => None,
        }
    }

    /// Picks the shell from the parent process name, else from `$SHELL`.
    pub fn detect(parent_program: Option<&str>, shell_env: Option<&str>) -> Option<Shell> {
        parent_program
            .and_then(Shell::from_program)
            .or_else(|| shell_env.and_then(Shell::from_program))
    }

    /// [`Shell::detect`] with the real parent process (`/proc/<ppid>/comm`) and `$SHELL`.
    pub fn detect_current() -> Option<Shell> {
        let ppid = std::os::unix::process::parent_id();
        let comm = std::fs::read_to_string(format!("/proc/{ppid}/comm")).ok();
        let shell = std::env::var("SHELL").ok();
        Shell::detect(comm.as_deref().map(str::trim), shell.as_deref())
    }
}

impl fmt::Display for Shell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Shell {
    type Err = ShellError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Shell::ALL
            .into_iter()
            .find(|sh| sh.name() == s)
            .ok_or_else(|| ShellError::UnknownShell(s.to_owned()))
    }
}

/// A parsed, plausible `@wta_integration` value: `"<shell> <pid>"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntegrationMark {
    pub shell: Shell,
    pub pid: u32,
}

impl IntegrationMark {
    /// Parses the pane option value; `None` when empty or malformed.
    pub fn parse(value: &str) -> Option<IntegrationMark> {
        let value = value.trim().trim_matches('"');
        let (shell, pid) = value.split_once(' ')?;
        Some(IntegrationMark {
            shell: shell.parse().ok()?,
            pid: pid.trim().parse().ok()?,
        })
    }

    /// The mark is valid for a pane whose shell process is `pane_pid`: the
    /// script ran in that very process (an `exec` into another program makes it stale).
    pub fn valid_for(&self, pane_pid: u32) -> bool {
        self.pid == pane_pid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_script_uses_our_names_and_all_marks() {
        for sh in Shell::ALL {
            let s = sh.script();
            assert!(s.contains(INTEGRATION_OPTION), "{sh}");
            assert!(s.contains(INTEGRATION_ENV), "{sh}");
            for mark in [
                "133;A;aid=",
                "133;B;aid=",
                "133;C;aid=",
                "cmdline_url=",
                "]7;file://",
            ] {
                assert!(s.contains(mark), "{sh} lacks {mark}");
            }
            assert!(!s.contains("TERMHOST") && !s.contains("@th_"), "{sh}");
        }
    }

    #[test]
    fn every_tested_script_binds_the_hand_off_keys_and_announces_its_inbox() {
        for sh in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let s = sh.script();
            assert!(s.contains("@wta_inbox_"), "{sh}");
            for key in sh.private_keys() {
                // `\e[17777~` in bash, `^[[17777~` in zsh, `\e\[17777\~` in fish.
                let digits = key
                    .sequence()
                    .trim_start_matches("\x1b[")
                    .trim_end_matches('~');
                assert!(s.contains(digits), "{sh} does not bind {key:?}");
            }
        }
    }

    #[test]
    fn detection_prefers_parent_then_shell_env() {
        assert_eq!(
            Shell::detect(Some("zsh"), Some("/bin/bash")),
            Some(Shell::Zsh)
        );
        assert_eq!(Shell::detect(Some("-bash"), None), Some(Shell::Bash));
        assert_eq!(
            Shell::detect(Some("tmux: server"), Some("/usr/bin/fish")),
            Some(Shell::Fish)
        );
        assert_eq!(Shell::detect(Some("python3"), None), None);
        assert_eq!(Shell::from_program("pwsh.exe"), Some(Shell::Pwsh));
        assert!("tcsh".parse::<Shell>().is_err());
    }

    #[test]
    fn rc_lines() {
        assert_eq!(
            Shell::Bash.rc_line("wta"),
            "eval \"$(wta shell-integration bash)\""
        );
        assert_eq!(
            Shell::Fish.rc_line("wta"),
            "wta shell-integration fish | source"
        );
    }

    #[test]
    fn integration_option_parses() {
        let m = IntegrationMark::parse("\"bash 123\"").unwrap();
        assert_eq!(
            m,
            IntegrationMark {
                shell: Shell::Bash,
                pid: 123
            }
        );
        assert!(m.valid_for(123) && !m.valid_for(124));
        assert_eq!(IntegrationMark::parse(""), None);
        assert_eq!(IntegrationMark::parse("tcsh 1"), None);
        assert_eq!(IntegrationMark::parse("zsh x"), None);
    }
}
