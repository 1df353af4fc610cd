//! Autofix's eyes: every shell pane of the agent pane's tab is followed by
//! a watcher (the executor's, so the one pipe per pane serves both), and
//! each command that finishes there becomes an [`Input::CommandFinished`].
//! The cards' eyes too: each change of a followed pane's facts (a command
//! running, a full-screen program, text typed at the prompt, how commands
//! reach its shell, and whether it has WTA's integration at all) becomes an
//! [`Input::PaneFacts`].
//! Panes are looked for on the machine's `ScanTab` (a slow timer), so a
//! split made later is followed too, and so is a pane that runs `wta ssh`
//! from its start (no local shell in it, once the remote shell announced
//! its integration); a pane another helper's watcher
//! follows is left alone, and one a `wta listen` follows is taken over (the
//! listen goes on as a listener of ours, [`wta_shell::fanout`]).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast::error::RecvError;
use wta_host::TerminalHost;
use wta_protocol::PaneId;

use super::Runtime;
use crate::machine::Input;

/// The panes followed for autofix.
pub(super) type Followed = Arc<Mutex<HashSet<PaneId>>>;

impl Runtime {
    /// Follows the tab's shell panes not followed yet.
    pub(super) fn scan_tab(&self) {
        let (Some(host), Some(tab), Some(executor)) = (
            self.host.clone(),
            self.config.owner_tab.clone(),
            self.cards.executor(),
        ) else {
            return;
        };
        let own = self.config.own_pane.clone();
        let followed = self.followed.clone();
        let inputs = self.inputs_tx.clone();
        tokio::spawn(async move {
            let listed = {
                let host = host.clone();
                tokio::task::spawn_blocking(move || host.window_panes(&tab)).await
            };
            let Ok(Ok(panes)) = listed else {
                return;
            };
            for pane in panes {
                let new = pane.id.clone();
                let candidate = Some(&new) != own.as_ref() && !pane.dead;
                let shell = crate::executor::is_shell(&pane.command);
                // Asked of tmux only for a pane no shell holds (rare).
                let hop = candidate && !shell && wta_ssh_session(&host, &pane).await;
                let wanted = candidate && (shell || hop) && lock(&followed).insert(new.clone());
                if !wanted {
                    continue;
                }
                let runs = match executor.watch(&new).await {
                    Ok(()) => executor.finished_commands(&new).await,
                    Err(err) => {
                        tracing::debug!("autofix does not follow {new}: {err}");
                        None
                    }
                };
                if let Some(facts) = executor.pane_facts(&new).await {
                    // A `wta ssh` session announced its remote shell's integration.
                    let untracked = !hop && untracked_at_start(&host, &pane).await;
                    let shell = pane.command.clone();
                    tokio::spawn(report_facts(
                        new.clone(),
                        facts,
                        UntrackedVerdict::new(shell, untracked),
                        inputs.clone(),
                    ));
                }
                let Some(mut runs) = runs else {
                    // Not ours to follow: never asked again for this pane.
                    continue;
                };
                let (inputs, followed) = (inputs.clone(), followed.clone());
                tokio::spawn(async move {
                    loop {
                        match runs.recv().await {
                            Ok(finished) => {
                                let input = Input::CommandFinished {
                                    pane: new.clone(),
                                    finished: Box::new(finished),
                                };
                                if inputs.send(input).is_err() {
                                    return;
                                }
                            }
                            Err(RecvError::Lagged(missed)) => {
                                tracing::debug!("autofix missed {missed} commands of {new}");
                            }
                            Err(RecvError::Closed) => break,
                        }
                    }
                    // The watcher ended (the pane went): a new pane of the
                    // same id may be followed again.
                    lock(&followed).remove(&new);
                });
            }
        });
    }
}

/// Whether a shell pane, when first followed, has no WTA integration: no
/// valid announcement of it (`@wta_integration` naming its shell), and not
/// a shell `wta up` started with integration that has not announced yet.
async fn untracked_at_start(host: &wta_host::TmuxHost, pane: &wta_host::PaneInfo) -> bool {
    if pane.integration.state == "present" {
        return false;
    }
    let (host, id) = (host.clone(), pane.id.clone());
    let expected = tokio::task::spawn_blocking(move || {
        host.option(&id, wta_shell::INTEGRATION_EXPECTED_OPTION)
    })
    .await;
    !matches!(expected, Ok(Ok(v)) if v == "1")
}

/// The pane option an agent pane carries (`@wta_role agent`, set where
/// `wta` opens it).
const ROLE_OPTION: &str = "@wta_role";

/// Whether `pane`, which no shell holds, is a `wta ssh` session from its
/// start (`tmux new-window 'wta ssh host'`: `#{pane_current_command}` is
/// `wta`): its `@wta_integration` names a pid under which a remote host
/// and a nonce are announced (`@wta_remote_<pid>`, `@wta_nonce_<pid>`), as
/// `wta ssh` does once the remote shell is integrated; never an agent pane.
/// Following it is safe for the same reason as following a shell: only
/// marks carrying the announced nonce are believed (`wta_shell::trust`).
async fn wta_ssh_session(host: &wta_host::TmuxHost, pane: &wta_host::PaneInfo) -> bool {
    let Some(pid) = pane.integration.pid.filter(|_| pane.command == "wta") else {
        return false;
    };
    let (host, id) = (host.clone(), pane.id.clone());
    let read = tokio::task::spawn_blocking(move || {
        let read = |name: &str| host.option(&id, name).unwrap_or_default();
        Announced {
            role: read(ROLE_OPTION),
            remote: read(&wta_shell::tracker::remote_option(pid)),
            nonce: read(&wta_shell::nonce_option(pid)),
        }
    })
    .await;
    read.is_ok_and(|announced| announced.is_wta_ssh())
}

/// What a pane says of itself, read to tell a `wta ssh` session.
#[derive(Debug, Default)]
struct Announced {
    role: String,
    remote: String,
    nonce: String,
}

impl Announced {
    fn is_wta_ssh(&self) -> bool {
        self.role != "agent"
            && wta_shell::tracker::valid_host_label(&self.remote)
            && !self.nonce.trim().is_empty()
    }
}

/// Whether a followed shell is known to have no integration: decided when
/// it is first followed, then by the watcher's verdicts (marks seen: it
/// has; a command sent without marks coming back: it has not).
#[derive(Debug, Clone)]
struct UntrackedVerdict {
    shell: String,
    now: bool,
}

impl UntrackedVerdict {
    fn new(shell: String, now: bool) -> Self {
        Self { shell, now }
    }

    /// The verdict after the watcher's `facts`: the shell's name when it
    /// has no integration; `ssh` or `mosh` while the followed shell runs
    /// one (plain, not `wta ssh`): what runs on the other side cannot be
    /// followed, and the card says so.
    fn step(&mut self, facts: &wta_shell::ShellFacts) -> Option<String> {
        match facts.integration {
            wta_shell::Integration::Present => self.now = false,
            wta_shell::Integration::Absent => self.now = true,
            wta_shell::Integration::Unknown => self.now &= !facts.hand_off,
        }
        if let Some(login) = facts.running.as_deref().and_then(remote_login) {
            return Some(login.to_owned());
        }
        self.now.then(|| self.shell.clone())
    }
}

/// The remote login a command line starts (`ssh host`, `env X=1 mosh
/// host`, `/usr/bin/ssh -p 2 host`), if it is one.
fn remote_login(cmdline: &str) -> Option<&'static str> {
    let program = cmdline
        .split_whitespace()
        .find(|w| !w.contains('=') && !matches!(*w, "exec" | "command" | "env" | "sudo"))?;
    match program.rsplit('/').next()? {
        "ssh" => Some("ssh"),
        "mosh" => Some("mosh"),
        _ => None,
    }
}

/// Sends `pane`'s facts to the machine now and at each change, until the
/// watcher or the runtime ends.
async fn report_facts(
    pane: PaneId,
    mut facts: tokio::sync::watch::Receiver<wta_shell::ShellFacts>,
    mut untracked: UntrackedVerdict,
    inputs: tokio::sync::mpsc::UnboundedSender<Input>,
) {
    loop {
        let now = facts.borrow_and_update().clone();
        let shell_untracked = untracked.step(&now);
        if now.known || shell_untracked.is_some() {
            let input = Input::PaneFacts {
                pane: pane.clone(),
                facts: wta_state::PaneFacts {
                    untracked: shell_untracked.map(untracked_fact),
                    ..card_facts(&now)
                },
            };
            if inputs.send(input).is_err() {
                return;
            }
        }
        if facts.changed().await.is_err() {
            return;
        }
    }
}

/// What the app is told of a program WTA cannot follow: its name and, for
/// a shell WTA integrates, the exact line for its rc file.
fn untracked_fact(program: String) -> wta_state::Untracked {
    let rc_line = wta_shell::Shell::from_program(&program)
        .map(|shell| format!("{}   # in {}", shell.rc_line("wta"), shell.rc_file()));
    wta_state::Untracked { program, rc_line }
}

/// The card's view of a shell's facts.
fn card_facts(shell: &wta_shell::ShellFacts) -> wta_state::PaneFacts {
    use wta_state::{Busy, KeyPath};
    let busy = match (&shell.running, shell.full_screen) {
        (_, true) => Some(Busy::FullScreen {
            command: shell.running.clone().unwrap_or_default(),
        }),
        (Some(command), false) => Some(Busy::Running {
            command: command.clone(),
        }),
        (None, false) => None,
    };
    wta_state::PaneFacts {
        busy,
        typed_text: shell.typed_text,
        keys: if shell.hand_off {
            KeyPath::Handoff
        } else {
            KeyPath::TypedKeys
        },
        untracked: None,
    }
}

fn lock(followed: &Followed) -> std::sync::MutexGuard<'_, HashSet<PaneId>> {
    followed.lock().unwrap_or_else(|p| p.into_inner())
}

impl Runtime {
    /// Waits for `wta fix` requests addressed to this agent pane, each one
    /// an [`Input::FixRequested`] (a thread blocked on the tmux channel; it
    /// ends with the tmux server or the helper).
    pub(super) fn listen_for_fix_requests(&self) {
        use crate::autofix::request::{FIX_REQUEST_OPTION, FixRequest, fix_channel};
        let (Some(host), Some(own)) = (self.host.clone(), self.config.own_pane.clone()) else {
            return;
        };
        let inputs = self.inputs_tx.clone();
        std::thread::Builder::new()
            .name("fix-requests".into())
            .spawn(move || {
                let channel = fix_channel(&own);
                while host.wait_for(&channel).is_ok() {
                    let value = host.option(&own, FIX_REQUEST_OPTION).unwrap_or_default();
                    let _ = host.unset_option(&own, FIX_REQUEST_OPTION);
                    let request = match serde_json::from_str::<FixRequest>(&value) {
                        Ok(request) => request,
                        Err(err) => {
                            tracing::debug!("ignoring a malformed fix request: {err}");
                            continue;
                        }
                    };
                    let input = Input::FixRequested {
                        pane: request.pane,
                        hint: request.hint,
                        reply: request.reply,
                    };
                    if inputs.send(input).is_err() {
                        return;
                    }
                }
            })
            .map_err(|err| tracing::warn!("no fix requests for this pane: {err}"))
            .ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ssh_and_mosh_are_untracked_remote_logins() {
        for (cmdline, login) in [
            ("ssh build-box", Some("ssh")),
            ("/usr/bin/ssh -p 2222 me@db", Some("ssh")),
            ("env TERM=xterm mosh host", Some("mosh")),
            ("exec ssh host", Some("ssh")),
            ("wta ssh host", None),
            ("sshfs host:/ /mnt", None),
            ("echo ssh", None),
            ("", None),
        ] {
            assert_eq!(remote_login(cmdline), login, "{cmdline}");
        }
        let mut untracked = UntrackedVerdict::new("bash".into(), false);
        let mut facts = wta_shell::ShellFacts {
            known: true,
            running: Some("ssh build-box".into()),
            integration: wta_shell::Integration::Present,
            ..wta_shell::ShellFacts::default()
        };
        assert_eq!(untracked.step(&facts).as_deref(), Some("ssh"));
        facts.running = None;
        assert_eq!(untracked.step(&facts), None, "back at the local prompt");
    }

    #[test]
    fn a_wta_ssh_session_is_told_by_its_host_and_nonce_never_an_agent_pane() {
        let session = || Announced {
            role: String::new(),
            remote: "lab".into(),
            nonce: "0123456789abcdef0123456789abcdef".into(),
        };
        assert!(session().is_wta_ssh());
        type Change = fn(&mut Announced);
        let cases: [(&str, Change); 5] = [
            ("an agent pane", |a| a.role = "agent".into()),
            ("no host", |a| a.remote.clear()),
            ("a host with a control character", |a| {
                a.remote = "lab\u{1b}]0;x".into()
            }),
            ("no nonce", |a| a.nonce.clear()),
            ("a blank nonce", |a| a.nonce = "  ".into()),
        ];
        for (what, change) in cases {
            let mut announced = session();
            change(&mut announced);
            assert!(!announced.is_wta_ssh(), "{what}");
        }
        assert!(!Announced::default().is_wta_ssh(), "nothing announced");
    }

    /// The line the pane gives for each shell is the one `wta
    /// shell-integration` documents, with the rc file it goes in.
    #[test]
    fn each_shell_gets_its_own_rc_line_and_others_none() {
        for (program, line) in [
            (
                "bash",
                r#"eval "$(wta shell-integration bash)"   # in ~/.bashrc"#,
            ),
            (
                "zsh",
                r#"eval "$(wta shell-integration zsh)"   # in ~/.zshrc"#,
            ),
            (
                "fish",
                "wta shell-integration fish | source   # in ~/.config/fish/config.fish",
            ),
            (
                "pwsh",
                "wta shell-integration pwsh | Out-String | Invoke-Expression   # in $PROFILE",
            ),
        ] {
            let fact = untracked_fact(program.into());
            assert_eq!(fact.program, program);
            assert_eq!(fact.rc_line.as_deref(), Some(line), "{program}");
        }
        for program in ["dash", "sh", "ssh", "mosh"] {
            assert_eq!(untracked_fact(program.into()).rc_line, None, "{program}");
        }
    }
}
