//! The command line of a shell that loads WTA shell integration on start,
//! without touching the user's rc files. Pure argv/env building plus the
//! small rc files it points at; starting the shell is the caller's job.
//!
//! - bash: `--rcfile` pointing at a small file that sources `~/.bashrc` and
//!   then the integration.
//! - zsh: `ZDOTDIR` pointing at a directory whose `.zshenv`/`.zshrc` source
//!   the user's own (from `$WTA_USER_ZDOTDIR`, else `$HOME`) and then ours.
//! - fish: `--init-command`, which runs after the user's config.
//! - anything else: the shell as it is (no integration; WTA reports it Absent).
//!
//! The integration comes either from `wta shell-integration <shell>` (the
//! launcher, so an upgraded binary brings its script) or from a script file
//! written next to the rc files ([`ScriptSource::Embedded`], no extra
//! process per shell start; used by the card executor and tests).
//!
//! A shell WTA opens also starts behind a readiness gate ([`gated_argv`]):
//! it waits on a `tmux wait-for` channel until a watcher has attached its
//! pipe, so the first prompt's marks are never missed (tmux-host.md §3.4).
//! Whoever opens the pane either releases the gate itself after attaching,
//! or leaves the channel name in [`GATE_OPTION`] for the pane's future
//! watcher, which releases it on attach ([`crate::PaneWatcher::attach`]).

use std::path::{Path, PathBuf};

use crate::error::ShellError;
use crate::scripts::Shell;

/// argv and extra environment for an integrated shell.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShellLaunch {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Where the shell gets the integration script from.
#[derive(Debug, Clone, Copy)]
pub enum ScriptSource<'a> {
    /// Run this `wta` binary's `shell-integration` subcommand.
    Binary(&'a Path),
    /// Source the script this crate embeds, written under the launch dir.
    Embedded,
}

/// Pane option naming the `wait-for` channel a gated pane waits on, for the
/// watcher that will follow it (it releases the gate when it attaches).
pub const GATE_OPTION: &str = "@wta_gate";

/// A fresh gate channel name.
pub fn new_gate_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("wta-ready-{}-{nanos:x}", std::process::id())
}

/// The pane command that waits on tmux channel `gate`, then `exec`s `argv`
/// (so the shell is the pane's own process, as without a gate). `tmux` in
/// the pane reaches its server through `$TMUX`; if it cannot, the shell
/// simply starts at once. Release with `tmux wait-for -S <gate>`.
pub fn gated_argv(gate: &str, argv: &[String]) -> Vec<String> {
    let mut out: Vec<String> = vec![
        "/bin/sh".into(),
        "-c".into(),
        r#"tmux wait-for "$1" 2>/dev/null; shift; exec "$@""#.into(),
        "wta-gate".into(),
        gate.into(),
    ];
    out.extend(argv.iter().cloned());
    out
}

/// The user's shell: `$SHELL`, else `/bin/sh`.
pub fn user_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/bin/sh".into())
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn write(path: PathBuf, text: &str) -> Result<String, ShellError> {
    let fail = |e: std::io::Error| ShellError::StateFile {
        path: path.clone(),
        message: e.to_string(),
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    std::fs::write(&path, text).map_err(fail)?;
    Ok(path.to_string_lossy().into_owned())
}

/// The line (in the shell's own language) that loads the integration.
fn load_line(shell: Shell, source: ScriptSource<'_>, dir: &Path) -> Result<String, ShellError> {
    Ok(match source {
        ScriptSource::Binary(wta) => {
            let wta = quote(&wta.to_string_lossy());
            match shell {
                Shell::Fish => format!("{wta} shell-integration fish | source"),
                _ => format!("eval \"$({wta} shell-integration {})\"", shell.name()),
            }
        }
        ScriptSource::Embedded => {
            let file = write(
                dir.join(format!("integration.{}", shell.name())),
                shell.script(),
            )?;
            format!("source {}", quote(&file))
        }
    })
}

/// Builds the launch for `shell` (a program name or path), writing helper
/// rc files under `dir`.
pub fn integrated(
    shell: &str,
    source: ScriptSource<'_>,
    dir: &Path,
) -> Result<ShellLaunch, ShellError> {
    let name = Path::new(shell)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(match name.as_str() {
        "bash" => {
            let load = load_line(Shell::Bash, source, dir)?;
            let rc = write(
                dir.join("bashrc"),
                &format!(
                    "# written by wta: your ~/.bashrc, then WTA shell integration\n\
                     [ -f ~/.bashrc ] && . ~/.bashrc\n{load}\n"
                ),
            )?;
            ShellLaunch {
                argv: vec![shell.into(), "--rcfile".into(), rc, "-i".into()],
                env: vec![],
            }
        }
        "zsh" => {
            let load = load_line(Shell::Zsh, source, dir)?;
            let zdir = dir.join("zsh");
            write(
                zdir.join(".zshenv"),
                "# written by wta\n__wta_zd=$ZDOTDIR; ZDOTDIR=${WTA_USER_ZDOTDIR:-$HOME}\n\
                 [[ -f $ZDOTDIR/.zshenv ]] && source $ZDOTDIR/.zshenv\nZDOTDIR=$__wta_zd; unset __wta_zd\n",
            )?;
            write(
                zdir.join(".zshrc"),
                &format!(
                    "# written by wta: your .zshrc, then WTA shell integration\n\
                     ZDOTDIR=${{WTA_USER_ZDOTDIR:-$HOME}}\n\
                     [[ -f $ZDOTDIR/.zshrc ]] && source $ZDOTDIR/.zshrc\n{load}\n"
                ),
            )?;
            let user = std::env::var("ZDOTDIR").ok().filter(|z| !z.is_empty());
            let mut env = vec![("ZDOTDIR".into(), zdir.to_string_lossy().into_owned())];
            if let Some(user) = user {
                env.push(("WTA_USER_ZDOTDIR".into(), user));
            }
            ShellLaunch {
                argv: vec![shell.into(), "-i".into()],
                env,
            }
        }
        "fish" => ShellLaunch {
            argv: vec![
                shell.into(),
                "--init-command".into(),
                load_line(Shell::Fish, source, dir)?,
            ],
            env: vec![],
        },
        _ => ShellLaunch {
            argv: vec![shell.into()],
            env: vec![],
        },
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn binary_source_for_bash_zsh_fish_and_others() {
        let dir = tempfile::tempdir().unwrap();
        let wta = Path::new("/opt/it's/wta");
        let src = ScriptSource::Binary(wta);
        let bash = integrated("/bin/bash", src, dir.path()).unwrap();
        assert_eq!(bash.argv[1], "--rcfile");
        let rc = std::fs::read_to_string(&bash.argv[2]).unwrap();
        assert!(
            rc.contains(r#"eval "$('/opt/it'\''s/wta' shell-integration bash)""#),
            "{rc}"
        );
        let zsh = integrated("/usr/bin/zsh", src, dir.path()).unwrap();
        assert_eq!(zsh.env[0].0, "ZDOTDIR");
        let zshrc = std::fs::read_to_string(Path::new(&zsh.env[0].1).join(".zshrc")).unwrap();
        assert!(zshrc.contains("shell-integration zsh"), "{zshrc}");
        let fish = integrated("/usr/bin/fish", src, dir.path()).unwrap();
        assert!(fish.argv[2].ends_with("shell-integration fish | source"));
        assert_eq!(
            integrated("/bin/dash", src, dir.path()).unwrap().argv,
            ["/bin/dash"]
        );
    }

    #[test]
    fn the_gate_waits_then_execs_the_argv_verbatim() {
        let argv = vec!["bash".to_owned(), "--rcfile".into(), "/a b/it's".into()];
        let gated = gated_argv("g-1", &argv);
        assert_eq!(&gated[..2], ["/bin/sh", "-c"]);
        assert_eq!(
            &gated[3..],
            ["wta-gate", "g-1", "bash", "--rcfile", "/a b/it's"]
        );
        // Without a tmux server the wait fails and the program still runs, with
        // its arguments intact.
        let out = std::process::Command::new(&gated[0])
            .args(&gated[1..3])
            .args(["wta-gate", "g", "printf", "%s|", "a b", "it's"])
            .env_remove("TMUX")
            .env("PATH", "/usr/bin:/bin")
            .env("TMUX_TMPDIR", "/nonexistent")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a b|it's|");
        assert_ne!(new_gate_name(), "");
    }

    #[test]
    fn embedded_source_writes_the_script_and_sources_it() {
        let dir = tempfile::tempdir().unwrap();
        for (shell, kind) in [
            ("bash", Shell::Bash),
            ("zsh", Shell::Zsh),
            ("fish", Shell::Fish),
        ] {
            integrated(shell, ScriptSource::Embedded, dir.path()).unwrap();
            let file = dir.path().join(format!("integration.{shell}"));
            assert_eq!(std::fs::read_to_string(&file).unwrap(), kind.script());
        }
        let fish = integrated("fish", ScriptSource::Embedded, dir.path()).unwrap();
        assert!(fish.argv[2].starts_with("source '"), "{:?}", fish.argv);
    }
}
