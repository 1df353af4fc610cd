//! The command line of a shell that loads WTA shell integration on start,
//! without touching the user's rc files.
//!
//! - bash: `--rcfile` pointing at a small file that sources `~/.bashrc` and
//!   then `wta shell-integration bash`.
//! - zsh: `ZDOTDIR` pointing at a directory whose `.zshenv`/`.zshrc` source
//!   the user's own (from `$WTA_USER_ZDOTDIR`, else `$HOME`) and then load ours.
//! - fish: `--init-command`, which runs after the user's config.
//! - anything else: the shell as it is (no integration; WTA reports it Absent).

use std::path::{Path, PathBuf};

use anyhow::Context;

/// argv and extra environment for an integrated shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellLaunch {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
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

/// Builds the launch for `shell`, writing helper rc files under `dir`.
pub fn integrated(shell: &str, wta: &Path, dir: &Path) -> anyhow::Result<ShellLaunch> {
    let name = Path::new(shell)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let wta_q = quote(&wta.to_string_lossy());
    let write = |path: PathBuf, text: String| -> anyhow::Result<String> {
        std::fs::create_dir_all(path.parent().unwrap_or(dir))
            .with_context(|| format!("cannot create {}", dir.display()))?;
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path.to_string_lossy().into_owned())
    };
    Ok(match name.as_str() {
        "bash" => {
            let rc = write(
                dir.join("bashrc"),
                format!(
                    "# written by wta: your ~/.bashrc, then WTA shell integration\n\
                     [ -f ~/.bashrc ] && . ~/.bashrc\n\
                     eval \"$({wta_q} shell-integration bash)\"\n"
                ),
            )?;
            ShellLaunch {
                argv: vec![shell.into(), "--rcfile".into(), rc],
                env: vec![],
            }
        }
        "zsh" => {
            let zdir = dir.join("zsh");
            write(
                zdir.join(".zshenv"),
                "# written by wta\n__wta_zd=$ZDOTDIR; ZDOTDIR=${WTA_USER_ZDOTDIR:-$HOME}\n\
                 [[ -f $ZDOTDIR/.zshenv ]] && source $ZDOTDIR/.zshenv\nZDOTDIR=$__wta_zd; unset __wta_zd\n"
                    .into(),
            )?;
            write(
                zdir.join(".zshrc"),
                format!(
                    "# written by wta: your .zshrc, then WTA shell integration\n\
                     ZDOTDIR=${{WTA_USER_ZDOTDIR:-$HOME}}\n\
                     [[ -f $ZDOTDIR/.zshrc ]] && source $ZDOTDIR/.zshrc\n\
                     eval \"$({wta_q} shell-integration zsh)\"\n"
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
                format!("{wta_q} shell-integration fish | source"),
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
    use super::*;

    #[test]
    fn bash_zsh_fish_and_others() {
        let dir = tempfile::tempdir().unwrap();
        let wta = Path::new("/opt/it's/wta");
        let bash = integrated("/bin/bash", wta, dir.path()).unwrap();
        assert_eq!(bash.argv[1], "--rcfile");
        let rc = std::fs::read_to_string(&bash.argv[2]).unwrap();
        assert!(
            rc.contains(r#"eval "$('/opt/it'\''s/wta' shell-integration bash)""#),
            "{rc}"
        );
        let zsh = integrated("/usr/bin/zsh", wta, dir.path()).unwrap();
        assert_eq!(zsh.env[0].0, "ZDOTDIR");
        assert!(Path::new(&zsh.env[0].1).join(".zshrc").exists());
        let fish = integrated("/usr/bin/fish", wta, dir.path()).unwrap();
        assert!(fish.argv[2].ends_with("shell-integration fish | source"));
        assert_eq!(
            integrated("/bin/dash", wta, dir.path()).unwrap().argv,
            ["/bin/dash"]
        );
    }
}
