//! Yolo in the pane's runtime (DESIGN §5): which sessions auto-approve the
//! agent's own tool permissions, and the two layers that do it.
//!
//! The decision itself is `wta_agent::yolo::decide` (pure, tested over the
//! whole matrix); this file keeps the per-session state and carries it out:
//! - Layer 1: an agent advertising a Select option with id exactly
//!   `allow_all` (values `on`/`off`) is reconciled both ways: when a session
//!   opens, its `currentValue` is set to the effective value if it differs
//!   (an agent that starts with `on` is turned off when yolo is off or
//!   blocked), and on every `/yolo`. A failed disable fails closed: the
//!   pane's agent stack is restarted; if the fresh session cannot turn it
//!   off either, the pane drops its session rather than keep approving.
//! - Layer 2: in the permission path, after the proposal preflight, an
//!   AllowOnce option is selected silently and a visible line says so.
//!
//! The session override is dropped by `/new`, `/restart`, an agent switch and
//! any session replacement; the global default and the policy stay.

use serde_json::Value;
use wta_agent::yolo::{self, ALLOW_ALL, Decision, OfferedOption, OptionKind, Request, YoloPolicy};
use wta_protocol::helper_master::{METHOD_SESSION_STATE, SessionStateParams, YoloReport};

use super::engine::{Call, Runtime};
use super::map;
use wta_state::{ConnectionState, DomainEvent, PermissionOptionKind, PermissionRequest};

/// Yolo settings of one pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YoloControl {
    pub policy: YoloPolicy,
    /// `--auto-approve-tools` or `auto_approve_tools = true`.
    pub global: bool,
    /// `/yolo on|off` for the current session.
    pub session_override: Option<bool>,
    /// The current session's agent offers a usable `allow_all` option.
    pub agent_allow_all: bool,
    /// A failed disable already restarted the agent stack and no session
    /// has opened with `allow_all` matching since: the next failure stops.
    pub restarted_for_disable: bool,
}

impl YoloControl {
    pub fn new(policy: YoloPolicy, global: bool) -> Self {
        Self {
            policy,
            global,
            session_override: None,
            agent_allow_all: false,
            restarted_for_disable: false,
        }
    }

    pub fn effective(&self) -> bool {
        yolo::effective(self.policy, self.global, self.session_override)
    }

    /// The status-line event.
    pub fn event(&self) -> DomainEvent {
        DomainEvent::Yolo {
            on: self.effective(),
            blocked: self.policy == YoloPolicy::Blocked,
        }
    }

    fn report(&self) -> YoloReport {
        YoloReport {
            on: self.effective(),
            blocked_by_policy: self.policy == YoloPolicy::Blocked,
        }
    }

    /// Layer 2's decision for an ordinary tool permission.
    pub fn decide(&self, request: &PermissionRequest) -> Decision {
        let options = request
            .options
            .iter()
            .map(|o| OfferedOption {
                id: o.id.clone(),
                kind: match o.kind {
                    PermissionOptionKind::AllowOnce => OptionKind::AllowOnce,
                    PermissionOptionKind::AllowAlways => OptionKind::AllowAlways,
                    PermissionOptionKind::RejectOnce => OptionKind::RejectOnce,
                    PermissionOptionKind::RejectAlways => OptionKind::RejectAlways,
                },
            })
            .collect();
        yolo::decide(
            self.policy,
            self.global,
            self.session_override,
            &Request::Tool(options),
        )
    }
}

/// The current value of a Select option with id exactly `allow_all` whose
/// values include `on` and `off` (Copilot's shape), when `configOptions`
/// holds one.
pub fn allow_all_value(config_options: Option<&Value>) -> Option<String> {
    map::config_options(config_options)
        .into_iter()
        .find(|o| {
            o.id == ALLOW_ALL
                && o.values.iter().any(|(v, _)| v == "on")
                && o.values.iter().any(|(v, _)| v == "off")
        })
        .map(|o| o.current)
}

/// True when the agent offers a usable `allow_all` option.
pub fn offers_allow_all(config_options: Option<&Value>) -> bool {
    allow_all_value(config_options).is_some()
}

impl Runtime {
    /// `/yolo on|off` for the current session.
    pub(super) fn set_yolo(&mut self, on: bool) -> Vec<DomainEvent> {
        if on && let Err(why) = yolo::may_enable(self.yolo.policy) {
            return vec![DomainEvent::Error(why.to_owned()), self.yolo.event()];
        }
        self.yolo.session_override = Some(on);
        self.after_yolo_change(Call::SetYolo(on), true)
    }

    /// A new session starts without the `/yolo` override.
    pub(super) fn reset_session_yolo(&mut self) -> Vec<DomainEvent> {
        self.yolo.session_override = None;
        vec![self.yolo.event()]
    }

    /// A session just opened (`configOptions` of its `session/new` reply):
    /// layer 1 reconciles the agent's `allow_all` with the effective value,
    /// both ways.
    pub(super) fn session_yolo(&mut self, config_options: Option<&Value>) -> Vec<DomainEvent> {
        let current = allow_all_value(config_options);
        self.yolo.agent_allow_all = current.is_some();
        let wanted = if self.yolo.effective() { "on" } else { "off" };
        let in_sync = current.as_deref().is_none_or(|v| v == wanted);
        if in_sync {
            self.yolo.restarted_for_disable = false;
        }
        let mut events = vec![self.yolo.event()];
        events.extend(self.after_yolo_change(Call::SetYolo(self.yolo.effective()), !in_sync));
        events
    }

    /// Applies the effective value: layer 2 at once, layer 1 when `sync`.
    fn after_yolo_change(&mut self, call: Call, sync: bool) -> Vec<DomainEvent> {
        if self.yolo.effective() {
            self.proposals.service().agent_may_run_unasked();
        }
        self.report_yolo();
        let mut events = vec![self.yolo.event()];
        if sync && self.yolo.agent_allow_all {
            let value = if self.yolo.effective() { "on" } else { "off" };
            events.extend(self.set_config(call, ALLOW_ALL.into(), value.into()));
        }
        events
    }

    /// Tells the master, so `wta sessions list` shows it.
    fn report_yolo(&self) {
        let (Some(conn), Some(session)) = (self.conn.clone(), self.session.clone()) else {
            return;
        };
        let params = SessionStateParams {
            session_id: session,
            yolo: self.yolo.report(),
        };
        let Ok(params) = serde_json::to_value(params) else {
            return;
        };
        tokio::spawn(async move {
            if let Err(err) = conn.raw_request(METHOD_SESSION_STATE, params).await {
                tracing::debug!("reporting yolo to the master: {err}");
            }
        });
    }

    /// Layer 1 could not turn `allow_all` off: the agent may keep approving on
    /// its own (fail closed). The first time, the pane's agent stack is
    /// restarted and the user's "off" carries over to the fresh session; if
    /// that session cannot turn it off either, the pane drops its session
    /// instead of restarting in a loop.
    pub(super) fn yolo_disable_failed(&mut self, err: &str) -> Vec<DomainEvent> {
        self.abandon_turn();
        let off_asked = self.yolo.session_override == Some(false);
        if self.yolo.restarted_for_disable {
            if let Some(session) = self.session.take() {
                self.close_session(session);
            }
            self.report_yolo();
            return vec![
                DomainEvent::Error(format!(
                    "The restarted agent still refuses to turn off its allow_all option ({err}), so this pane closed its session rather than let the agent approve tools on its own."
                )),
                DomainEvent::Connection(ConnectionState::Failed(
                    "No session: the agent keeps allow_all on. Use /agent to pick another agent, or /restart to try again.".into(),
                )),
            ];
        }
        self.yolo.restarted_for_disable = true;
        let mut events = vec![DomainEvent::Error(format!(
            "The agent did not turn off its allow_all option ({err}). Restarting this pane's agent so nothing keeps approving tools."
        ))];
        events.extend(self.restart_agent_stack());
        if off_asked {
            // Session replacement drops the override; a failed "off" must
            // not come back on through the global default.
            self.yolo.session_override = Some(false);
            events.push(self.yolo.event());
        }
        events
    }

    /// Layer 2, after the proposal preflight: approve silently or ask.
    pub(super) fn yolo_permission(&self, card: &PermissionRequest) -> Option<String> {
        match self.yolo.decide(card) {
            Decision::AutoApprove(option) => Some(option),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn allow_all_must_be_exact_and_offer_on_and_off() {
        let opt = |id: &str, values: &[&str]| {
            json!([{"id": id, "name": id, "type": "select", "currentValue": values.first(),
                    "options": values.iter().map(|v| json!({"value": v, "name": v})).collect::<Vec<_>>()}])
        };
        assert!(offers_allow_all(Some(&opt("allow_all", &["off", "on"]))));
        assert!(!offers_allow_all(Some(&opt(
            "allow_all_tools",
            &["off", "on"]
        ))));
        assert!(!offers_allow_all(Some(&opt("allow_all", &["yes", "no"]))));
        assert!(!offers_allow_all(Some(&opt("mode", &["off", "on"]))));
        assert!(!offers_allow_all(None));
    }

    #[test]
    fn control_follows_policy_global_and_override() {
        let mut c = YoloControl::new(YoloPolicy::Allowed, true);
        assert!(c.effective());
        c.session_override = Some(false);
        assert!(!c.effective());
        let blocked = YoloControl {
            session_override: Some(true),
            ..YoloControl::new(YoloPolicy::Blocked, true)
        };
        assert!(!blocked.effective());
        assert_eq!(
            blocked.event(),
            DomainEvent::Yolo {
                on: false,
                blocked: true
            }
        );
    }
}
