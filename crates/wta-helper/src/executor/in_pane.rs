//! Carrying out in one pane: a Run submitted through the pane's watcher
//! and followed (after waking a prompt drawn before the watcher came, and
//! not while the shell is still starting), an Insert typed without Enter,
//! and the pane facts both need. The choice-level steps are `mod.rs`'s.

use std::time::Duration;

use wta_host::{AsyncHost, PaneInfo, TerminalHost, Typing};
use wta_protocol::PaneId;
use wta_shell::{PaneWatcher, State, SubmitRefusal};

use super::progress::Progress;
use super::{ActionOutcome, Executor, SHELLS, follow, unavailable};

impl<H: TerminalHost + AsyncHost> Executor<H> {
    /// Run: submit `input` + Enter to a watched pane and follow the run.
    pub(super) async fn run_in(
        &self,
        pane: &PaneId,
        input: &str,
        progress: &mut Progress,
    ) -> ActionOutcome {
        if let Err(reason) = self.ensure_watched(pane).await {
            return unavailable(reason);
        }
        let info = match self.pane_info(pane).await {
            Ok(info) => info,
            Err(reason) => return unavailable(reason),
        };
        if info.alternate_screen {
            return unavailable(format!(
                "{pane} shows a full-screen program ({}); nothing was sent",
                info.command
            ));
        }
        let mut watchers = self.watchers.lock().await;
        let Some(watcher) = watchers.get_mut(pane.as_str()) else {
            return unavailable(format!("{pane} is not being followed"));
        };
        follow::drain(watcher).await;
        self.wake_prompt(watcher, &info).await;
        match watcher.submit(input).await {
            Ok(Ok(())) => {
                progress.dispatch(pane);
                let limits = self.config.limits(info.pid, progress.deadline);
                let followed = follow::follow_run(watcher, limits).await;
                progress.run_opened(followed.run);
                followed.outcome
            }
            Ok(Err(SubmitRefusal::NotAtPrompt)) if self.still_starting(watcher, &info).await => {
                unavailable(format!(
                    "the shell in {pane} is still starting (no prompt yet); nothing was sent"
                ))
            }
            Ok(Err(SubmitRefusal::IntegrationAbsent | SubmitRefusal::NotAtPrompt))
                if self.no_integration_at_shell(watcher, &info).await =>
            {
                // Typed without a verified prompt, but through the watcher: no
                // `C` within its timeout on a pane that reacted makes the pane
                // Absent (published for `wta active-pane`), instead of unknown forever.
                match watcher.submit_unverified(input).await {
                    Ok(Ok(())) => ActionOutcome::CompletionUnavailable {
                        pane: pane.as_str().to_owned(),
                    },
                    Ok(Err(refusal)) => unavailable(format!("{pane}: {refusal}; nothing was sent")),
                    Err(err) => unavailable(format!("{pane}: {err}")),
                }
            }
            Ok(Err(refusal)) => unavailable(format!("{pane}: {refusal}; nothing was sent")),
            Err(err) => unavailable(format!("{pane}: {err}")),
        }
    }

    /// A pane attached after its prompt was drawn stays `Unknown` until the
    /// shell redraws it. When the pane announces integration and its shell
    /// is in the foreground, Ctrl+L makes it redraw (bash, zsh and fish
    /// re-emit their marks); the visible screen moves into history.
    pub(super) async fn wake_prompt(&self, watcher: &mut PaneWatcher, info: &PaneInfo) {
        let (state, integration) = {
            let tracker = watcher.tracker();
            let t = tracker.lock().await;
            (t.state.clone(), t.integration)
        };
        let announced =
            integration == wta_shell::Integration::Present || info.integration.state == "present";
        if !matches!(state, State::Unknown | State::Prompt | State::Finished) {
            return;
        }
        // A command that just ended, or a shell just starting, draws its
        // prompt by itself.
        if follow::wait_idle(watcher, Duration::from_millis(500))
            .await
            .is_ok()
            || state != State::Unknown
            || !announced
            || !SHELLS.contains(&info.command.as_str())
        {
            return;
        }
        let _ = watcher.redraw_prompt().await;
        let _ = follow::wait_idle(watcher, Duration::from_secs(1)).await;
    }

    /// True for a shell started with integration (`wta up` sets
    /// `@wta_integration_expected` on its shell pane) that has not shown a mark
    /// yet: its rc files are still running, so typed text would wait in the
    /// terminal and run later, unobserved.
    pub(super) async fn still_starting(&self, watcher: &PaneWatcher, info: &PaneInfo) -> bool {
        if watcher.tracker().lock().await.integration != wta_shell::Integration::Unknown {
            return false;
        }
        let options = [wta_shell::INTEGRATION_EXPECTED_OPTION];
        self.host
            .probe(&info.id, &options)
            .await
            .is_ok_and(|p| p.option(0) == "1")
    }

    /// True when the pane's shell shows no integration and is in the
    /// foreground: text can be sent, but its end cannot be observed.
    pub(super) async fn no_integration_at_shell(
        &self,
        watcher: &PaneWatcher,
        info: &PaneInfo,
    ) -> bool {
        let integration = watcher.tracker().lock().await.integration;
        let none = match integration {
            wta_shell::Integration::Absent => true,
            wta_shell::Integration::Unknown => info.integration.state != "present",
            wta_shell::Integration::Present => false,
        };
        none && SHELLS.contains(&info.command.as_str()) && !info.dead
    }

    /// Insert: type without Enter. Refused while a command runs or a
    /// full-screen program shows; nothing runs either way.
    pub(super) async fn insert_in(
        &self,
        pane: &PaneId,
        input: &str,
        progress: &mut Progress,
    ) -> ActionOutcome {
        let info = match self.pane_info(pane).await {
            Ok(info) => info,
            Err(reason) => return unavailable(reason),
        };
        if info.dead {
            return unavailable(format!("{pane} is dead; nothing was typed"));
        }
        if info.alternate_screen {
            return unavailable(format!(
                "{pane} shows a full-screen program ({}); nothing was typed",
                info.command
            ));
        }
        if let Some(w) = self.watchers.lock().await.get(pane.as_str()) {
            let state = w.tracker().lock().await.state.clone();
            if matches!(state, State::Running | State::Submitted { .. }) {
                return unavailable(format!(
                    "{pane}: {}; nothing was typed",
                    SubmitRefusal::Busy
                ));
            }
            // Through the watcher: handed off when the shell takes it so
            // (what was typed comes back after the line runs).
            progress.dispatch(pane);
            return match w.insert(input).await {
                Ok(Ok(_)) => ActionOutcome::Inserted {
                    pane: pane.as_str().to_owned(),
                },
                Ok(Err(refusal)) => unavailable(format!("{pane}: {refusal}; nothing was typed")),
                Err(err) => unavailable(format!("{pane}: {err}")),
            };
        }
        progress.dispatch(pane);
        match self.type_text(pane, input, false).await {
            Ok(()) => ActionOutcome::Inserted {
                pane: pane.as_str().to_owned(),
            },
            Err(reason) => unavailable(reason),
        }
    }

    /// Clears the shell's line, then types `text` (Enter when `enter`).
    pub(super) async fn type_text(
        &self,
        pane: &PaneId,
        text: &str,
        enter: bool,
    ) -> Result<(), String> {
        let typing = Typing {
            clear_line: true,
            enter,
        };
        self.host
            .type_text(pane, text, typing)
            .await
            .map_err(|e| e.to_string())
    }

    pub(super) async fn pane_info(&self, pane: &PaneId) -> Result<PaneInfo, String> {
        let (host, id) = (self.host.clone(), pane.clone());
        tokio::task::spawn_blocking(move || host.pane(&id))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())
    }

    pub(super) async fn ensure_watched(&self, pane: &PaneId) -> Result<(), String> {
        self.watch(pane)
            .await
            .map_err(|e| format!("cannot follow {pane}: {e}"))
    }
}
