//! The integration scripts' promises (issue 3 item 1), checked in real bash,
//! zsh and fish on private tmux servers by reading the pane's raw byte stream
//! (`pipe-pane` into a file, attached before the gated shell starts):
//! - idempotent: sourced twice, exactly one A/B per prompt and C/D per command;
//! - the user's own PROMPT_COMMAND / precmd / preexec / fish_prompt still run;
//! - silent: sourcing writes nothing to the terminal;
//! - unforgeable: every mark carries the nonce the shell announced in its
//!   `@wta_nonce_<pid>` pane option (one nonce, sourced twice or not), and
//!   the nonce is in no environment a command can read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use wta_shell::Shell;
use wta_testkit::{TmuxServer, wait_for_value, wait_until};

const T: Duration = Duration::from_secs(15);

struct Raw {
    server: TmuxServer,
    pane: String,
    raw: PathBuf,
    home: tempfile::TempDir,
}

/// A gated pane running `shell` with `rc` as its startup file, its output
/// copied raw into a file from before the shell starts. In `rc`, `SCRIPT`
/// stands for the path of the integration script.
fn start(shell: Shell, rc: &str) -> Raw {
    let server = TmuxServer::start();
    let home = tempfile::tempdir().unwrap();
    let dir = home.path();
    let script = dir.join(format!("integration.{}", shell.name()));
    std::fs::write(&script, shell.script()).unwrap();
    let rc = rc.replace("SCRIPT", &script.to_string_lossy());
    let h = format!("HOME={}", dir.display());
    let argv: Vec<String> = match shell {
        Shell::Bash => {
            let file = dir.join("bashrc");
            std::fs::write(&file, rc).unwrap();
            vec![
                "env".into(),
                h,
                "bash".into(),
                "--noprofile".into(),
                "--rcfile".into(),
                file.to_string_lossy().into_owned(),
                "-i".into(),
            ]
        }
        Shell::Zsh => {
            std::fs::write(dir.join(".zshrc"), rc).unwrap();
            let z = format!("ZDOTDIR={}", dir.display());
            vec!["env".into(), h, z, "zsh".into(), "-i".into()]
        }
        Shell::Fish => {
            let file = dir.join("rc.fish");
            std::fs::write(&file, rc).unwrap();
            vec![
                "env".into(),
                h,
                "fish".into(),
                "--no-config".into(),
                "-C".into(),
                format!("source {}", file.display()),
            ]
        }
        Shell::Pwsh => unreachable!("pwsh is not installed"),
    };
    let gate = wta_shell::new_gate_name();
    let mut cmd = vec!["new-window", "-d", "-P", "-F", "#{pane_id}", "--"];
    let gated = wta_shell::gated_argv(&gate, &argv);
    cmd.extend(gated.iter().map(String::as_str));
    let pane = server.tmux(&cmd).trim().to_owned();
    let raw = dir.join("raw.bin");
    let sink = format!("exec cat >> '{}'", raw.display());
    server.tmux(&["pipe-pane", "-O", "-t", &pane, &sink]);
    wait_until("the pipe", T, || {
        server.display(&pane, "#{pane_pipe}") == "1"
    })
    .unwrap();
    server.tmux(&["wait-for", "-S", &gate]);
    Raw {
        server,
        pane,
        raw,
        home,
    }
}

impl Raw {
    fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.raw).unwrap_or_default()
    }

    fn count(&self, mark: &str) -> usize {
        count(&self.bytes(), mark)
    }

    /// Waits until the stream holds `n` input-start (B) marks.
    fn wait_prompts(&self, n: usize) {
        wait_until(&format!("{n} prompt(s)"), T, || self.count("133;B") >= n).unwrap_or_else(|e| {
            panic!(
                "{e}\nscreen:\n{}\nraw: {:?}",
                self.server.capture(&self.pane),
                String::from_utf8_lossy(&self.bytes())
            )
        });
    }

    fn type_line(&self, line: &str) {
        self.server.type_line(&self.pane, line);
    }

    fn home(&self) -> &Path {
        self.home.path()
    }
}

fn count(haystack: &[u8], needle: &str) -> usize {
    let needle = format!("\x1b]{needle}");
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle.as_bytes())
        .count()
}

/// The prompt text each shell is given, and a command that prints `done`.
fn prompt_line(shell: Shell) -> &'static str {
    match shell {
        Shell::Bash => "PS1='$ '\n",
        Shell::Zsh => "PS1='%# '\n",
        _ => "",
    }
}

fn sourced_twice_marks_once(shell: Shell) {
    let rc = format!("{}source SCRIPT\nsource SCRIPT\n", prompt_line(shell));
    let r = start(shell, &rc);
    r.wait_prompts(1);
    r.type_line("echo done-$HOME");
    let done = format!("done-{}", r.home().display());
    // bash's Enter records the line (a `bind -x` function), after which
    // readline redraws the prompt's last line, marks and all: one more A/B.
    let prompts = if shell == Shell::Bash { 3 } else { 2 };
    wait_until("the command and the next prompt", T, || {
        let raw = r.bytes();
        let text = String::from_utf8_lossy(&raw);
        text.contains(&format!("{done}\r\n")) && count(&raw, "133;B") >= prompts
    })
    .unwrap();
    let raw = r.bytes();
    let counts: Vec<usize> = ["133;A", "133;B", "133;C", "133;D"]
        .iter()
        .map(|m| count(&raw, m))
        .collect();
    assert_eq!(
        counts,
        [prompts, prompts, 1, 1],
        "A/B per prompt, C/D per command; raw: {:?}",
        String::from_utf8_lossy(&raw)
    );
    assert!(
        String::from_utf8_lossy(&raw).contains("133;D;0;aid="),
        "exit code 0"
    );
}

fn users_hooks_keep_running(shell: Shell) {
    let user = match shell {
        Shell::Bash => concat!(
            "PROMPT_COMMAND='echo prompt-command >> \"$HOME/hooks\"'\n",
            "PS0='$(echo ps0 >> \"$HOME/hooks\")'\n",
        ),
        Shell::Zsh => concat!(
            "precmd() { echo precmd >> $HOME/hooks }\n",
            "preexec() { echo \"preexec $1\" >> $HOME/hooks }\n",
            "autoload -Uz add-zsh-hook\n",
            "__user_hook() { echo hooked >> $HOME/hooks }\n",
            "add-zsh-hook precmd __user_hook\n",
        ),
        Shell::Fish => concat!(
            "function fish_prompt; printf 'user-prompt> '; end\n",
            "function __user_pre --on-event fish_preexec; echo \"preexec $argv\" >> $HOME/hooks; end\n",
            "function __user_post --on-event fish_postexec; echo postexec >> $HOME/hooks; end\n",
        ),
        Shell::Pwsh => unreachable!(),
    };
    let rc = format!("{}{user}source SCRIPT\n", prompt_line(shell));
    let r = start(shell, &rc);
    r.wait_prompts(1);
    r.type_line("echo hi");
    wait_until("the next prompt", T, || {
        r.count("133;D") >= 1 && r.count("133;B") >= 2
    })
    .unwrap();
    let hooks = r.home().join("hooks");
    let want: &[&str] = match shell {
        Shell::Bash => &["prompt-command", "ps0"],
        Shell::Zsh => &["precmd", "hooked", "preexec echo hi"],
        _ => &["preexec echo hi", "postexec"],
    };
    wait_until("the user's hooks", T, || {
        let text = std::fs::read_to_string(&hooks).unwrap_or_default();
        want.iter().all(|w| text.lines().any(|l| l == *w))
    })
    .unwrap_or_else(|e| panic!("{e}: {:?}", std::fs::read_to_string(&hooks)));
    if shell == Shell::Fish {
        assert!(
            r.server.capture(&r.pane).contains("user-prompt> "),
            "the user's fish_prompt still draws the prompt"
        );
    }
    // Ours still ran too.
    assert_eq!(r.count("133;C"), 1);
}

fn sourcing_prints_nothing(shell: Shell) {
    let rc = format!(
        "{}printf 'BEFORE-WTA\\n'\nsource SCRIPT\nsource SCRIPT\nprintf 'AFTER-WTA\\n'\n",
        prompt_line(shell)
    );
    let r = start(shell, &rc);
    r.wait_prompts(1);
    let raw = r.bytes();
    let text = String::from_utf8_lossy(&raw);
    let start = text.find("BEFORE-WTA").expect("rc ran") + "BEFORE-WTA".len();
    let end = text.find("AFTER-WTA").expect("rc finished");
    assert_eq!(&text[start..end], "\r\n", "sourcing wrote: {text:?}");
}

macro_rules! per_shell {
    ($($name:ident),* $(,)?) => {
        mod bash { $( #[test] fn $name() { super::$name(wta_shell::Shell::Bash) } )* }
        mod zsh { $( #[test] fn $name() { super::$name(wta_shell::Shell::Zsh) } )* }
        mod fish { $( #[test] fn $name() { super::$name(wta_shell::Shell::Fish) } )* }
    };
}

per_shell!(
    sourced_twice_marks_once,
    users_hooks_keep_running,
    sourcing_prints_nothing,
    marks_carry_the_announced_nonce,
);

#[test]
fn bash_keeps_a_prompt_command_array() {
    let rc = concat!(
        "PS1='$ '\n",
        "PROMPT_COMMAND=('echo first >> \"$HOME/hooks\"' 'echo second >> \"$HOME/hooks\"')\n",
        "source SCRIPT\n",
    );
    let r = start(Shell::Bash, rc);
    r.wait_prompts(1);
    let hooks = r.home().join("hooks");
    wait_until("both array entries", T, || {
        std::fs::read_to_string(&hooks).is_ok_and(|t| t == "first\nsecond\n")
    })
    .unwrap_or_else(|e| panic!("{e}: {:?}", std::fs::read_to_string(&hooks)));
    assert_eq!(r.count("133;A"), 1);
}

/// Every mark carries `wta=<nonce>` with the nonce the shell announced for
/// its pid, sourcing twice draws no second one, and the nonce is in no
/// environment: a child process sees nothing of it.
fn marks_carry_the_announced_nonce(shell: Shell) {
    let rc = format!("{}source SCRIPT\nsource SCRIPT\n", prompt_line(shell));
    let r = start(shell, &rc);
    r.wait_prompts(1);
    let pid = wait_for_value("the announced shell", T, || {
        let announced = r.server.display(&r.pane, "#{@wta_integration}");
        let pid = announced
            .strip_prefix(&format!("{} ", shell.name()))?
            .to_owned();
        (!pid.is_empty()).then_some(pid)
    })
    .unwrap();
    let nonce = r.server.display(&r.pane, &format!("#{{@wta_nonce_{pid}}}"));
    assert_eq!(nonce.len(), 32, "{nonce:?}");
    assert!(nonce.bytes().all(|b| b.is_ascii_hexdigit()), "{nonce:?}");
    r.type_line("env | grep -c __wta_nonce; sh -c 'echo child-sees-[${__wta_nonce-}]'");
    wait_until("the command and the next prompt", T, || {
        r.count("133;D") >= 1 && r.count("133;B") >= 2
    })
    .unwrap();
    let text = String::from_utf8_lossy(&r.bytes()).into_owned();
    assert!(
        text.contains("0\r\nchild-sees-[]"),
        "neither the environment nor a child sees the nonce: {text:?}"
    );
    let marks: Vec<&str> = text.split("\x1b]133;").skip(1).collect();
    assert!(marks.len() >= 6, "{text:?}");
    for mark in marks {
        let mark = &mark[..mark.find('\x07').unwrap_or(mark.len())];
        assert!(
            mark.contains(&format!("aid={pid};wta={nonce}")),
            "{mark:?} lacks the announced nonce"
        );
    }
}
