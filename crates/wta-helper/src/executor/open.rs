//! Opening panes for a confirmed choice. `open` and `open_and_send` start
//! the integrated shell the same way: behind a `wait-for` gate, with a
//! watcher attached before the gate opens, so the new shell's first prompt
//! marks cannot be missed (the pane is followed, and its
//! `@wta_integration_state` is set, without any keypress). `open_and_send`
//! then submits once that prompt shows; `delegate: true` starts the
//! configured delegate agent CLI with the task instead of a shell.
//!
//! Every wait is bounded by the readiness timeout and by the proposal's
//! execution deadline. Nothing here sleeps.

use std::path::PathBuf;

use tokio::time::Instant;
use wta_host::{AsyncHost, NewTab, PaneCommand, PaneInfo, Split, SplitDirection, TerminalHost};
use wta_protocol::{Direction, OpenTarget, PaneId};
use wta_shell::{PaneWatcher, gated_command};

use super::follow;
use super::outcome::ActionOutcome;
use super::{Executor, Progress, unavailable, unique};
use crate::proposals::ConfirmMode;

/// Where and how to open a pane.
pub(super) struct OpenSpec {
    pub place: OpenTarget,
    pub direction: Option<Direction>,
    pub cwd: Option<String>,
    pub title: Option<String>,
}

impl OpenSpec {
    fn place_name(&self) -> &'static str {
        match self.place {
            OpenTarget::Tab => "tab",
            OpenTarget::Panel => "panel",
        }
    }
}

/// A pane this executor opened with a gated, followed shell.
struct Gated {
    pane: PaneId,
    /// The gate wrapper's pid (the shell is its child).
    pid: u32,
    watcher: PaneWatcher,
    /// Whether the shell showed its first prompt in time; `Err` says why not.
    ready: Result<(), String>,
}

impl<H: TerminalHost + AsyncHost> Executor<H> {
    /// `open`: a tab or panel with the integrated shell, started gated and
    /// followed from its first prompt. A shell that does not show a prompt
    /// in time still leaves the pane open (reported `opened`, logged).
    pub(super) async fn open_shell(
        &self,
        target: &PaneId,
        open: &OpenSpec,
        progress: &mut Progress,
    ) -> ActionOutcome {
        let gated = match self.open_gated(target, open, progress).await {
            Ok(gated) => gated,
            Err(reason) => return unavailable(reason),
        };
        if let (Some(title), OpenTarget::Panel) = (&open.title, open.place) {
            let (host, pane, title) = (self.host.clone(), gated.pane.clone(), title.clone());
            let _ = tokio::task::spawn_blocking(move || host.set_title(&pane, &title)).await;
        }
        if let Err(why) = &gated.ready {
            tracing::warn!(pane = %gated.pane, "opened, but {why}");
        }
        let pane = gated.pane.as_str().to_owned();
        self.keep(gated.watcher).await;
        ActionOutcome::Opened { pane }
    }

    /// `open_and_send`: a gated shell as for `open`, then, once its first
    /// prompt shows, submit `input` (or type it, for Insert) and follow it.
    pub(super) async fn open_and_send(
        &self,
        target: &PaneId,
        open: &OpenSpec,
        input: &str,
        mode: ConfirmMode,
        progress: &mut Progress,
    ) -> ActionOutcome {
        let Gated {
            pane,
            pid,
            mut watcher,
            ready,
        } = match self.open_gated(target, open, progress).await {
            Ok(gated) => gated,
            Err(reason) => return unavailable(reason),
        };
        if let Err(reason) = ready {
            self.keep(watcher).await;
            return unavailable(reason);
        }
        let outcome = match mode {
            ConfirmMode::Insert => match self.type_text(&pane, input, false).await {
                Ok(()) => ActionOutcome::Inserted {
                    pane: pane.as_str().to_owned(),
                },
                Err(reason) => unavailable(reason),
            },
            ConfirmMode::Run | ConfirmMode::Open => match watcher.submit(input).await {
                Ok(Ok(())) => {
                    let limits = self.config.limits(pid, progress.deadline);
                    let followed = follow::follow_run(&mut watcher, limits).await;
                    progress.run_opened(followed.run);
                    followed.outcome
                }
                Ok(Err(refusal)) => unavailable(format!("{pane}: {refusal}; nothing was sent")),
                Err(err) => unavailable(format!("{pane}: {err}")),
            },
        };
        self.keep(watcher).await;
        outcome
    }

    /// Opens the pane with the shell waiting on a gate, attaches its
    /// watcher, opens the gate and waits (bounded) for the first prompt.
    /// The action is dispatched once the pane exists.
    async fn open_gated(
        &self,
        target: &PaneId,
        open: &OpenSpec,
        progress: &mut Progress,
    ) -> Result<Gated, String> {
        let gate = format!("wta-exec-{}", unique());
        let argv: Vec<&str> = self.config.shell.argv.iter().map(String::as_str).collect();
        let line = gated_command(&gate, &argv);
        let command = Some(PaneCommand::Argv(vec!["/bin/sh".into(), "-c".into(), line]));
        let info = self
            .open(target, open, command, self.config.shell.env.clone())
            .await?;
        let pane = info.id;
        progress.dispatch(&pane);
        let attached =
            PaneWatcher::attach(self.host.clone(), &pane, self.config.watch.clone()).await;
        let mut watcher = match attached {
            Ok(w) => w,
            Err(e) => {
                let _ = AsyncHost::signal(self.host.as_ref(), &gate).await;
                return Err(format!("cannot follow the new pane {pane}: {e}"));
            }
        };
        if let Err(e) = watcher.release_gate(&gate).await {
            self.keep(watcher).await;
            return Err(format!("cannot start the shell in {pane}: {e}"));
        }
        let left = progress
            .deadline
            .saturating_duration_since(Instant::now())
            .min(self.config.ready_timeout);
        let ready = follow::wait_idle(&mut watcher, left).await;
        Ok(Gated {
            pane,
            pid: info.pid,
            watcher,
            ready,
        })
    }

    /// `delegate: true`: the delegate agent CLI in a new tab or panel, with
    /// the task as its last argument.
    pub(super) async fn delegate(
        &self,
        target: &PaneId,
        open: &OpenSpec,
        task: &str,
        progress: &mut Progress,
    ) -> ActionOutcome {
        let delegate = match self.config.delegate.launch_for(task) {
            Ok(delegate) => delegate,
            Err(why) => return unavailable(why),
        };
        let argv = delegate.launch.argv.clone();
        match self
            .open(
                target,
                open,
                Some(PaneCommand::Argv(argv)),
                delegate.launch.env,
            )
            .await
        {
            Ok(pane) => {
                progress.dispatch(&pane.id);
                ActionOutcome::Delegated {
                    pane: pane.id.as_str().to_owned(),
                    agent: delegate.agent,
                }
            }
            Err(reason) => unavailable(reason),
        }
    }

    /// Keeps following a pane this executor opened.
    async fn keep(&self, watcher: PaneWatcher) {
        self.watchers
            .lock()
            .await
            .insert(watcher.pane.as_str().to_owned(), watcher);
    }

    /// Opens a tab (after the caller's) or a panel beside the target pane.
    async fn open(
        &self,
        target: &PaneId,
        open: &OpenSpec,
        command: Option<PaneCommand>,
        env: Vec<(String, String)>,
    ) -> Result<PaneInfo, String> {
        let cwd = open.cwd.as_ref().map(PathBuf::from);
        let host = self.host.clone();
        let result = match open.place {
            OpenTarget::Tab => {
                let spec = NewTab {
                    // After the shell's tab: this pane's own window may be
                    // the hidden stash.
                    after: Some(target.clone()),
                    session: None,
                    command,
                    cwd,
                    title: open.title.clone(),
                    env,
                    focus: false,
                };
                tokio::task::spawn_blocking(move || host.new_tab(&spec)).await
            }
            OpenTarget::Panel => {
                let direction = match open.direction {
                    Some(Direction::Right) => SplitDirection::Right,
                    Some(Direction::Left) => SplitDirection::Left,
                    Some(Direction::Up) => SplitDirection::Up,
                    Some(Direction::Down) => SplitDirection::Down,
                    Some(Direction::Auto) | None => {
                        let size = self.pane_info(target).await?.size;
                        // Cells are about twice as tall as wide.
                        if size.cols >= size.rows.saturating_mul(2) {
                            SplitDirection::Right
                        } else {
                            SplitDirection::Down
                        }
                    }
                };
                let spec = Split {
                    target: target.clone(),
                    direction,
                    percent: None,
                    command,
                    cwd,
                    env,
                    full: false,
                    focus: false,
                };
                tokio::task::spawn_blocking(move || host.split(&spec)).await
            }
        };
        result
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("cannot open a new {}: {e}", open.place_name()))
    }
}
