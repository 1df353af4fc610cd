//! Yolo on the pane's machine (DESIGN §5): which sessions auto-approve the
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

use agent_client_protocol::v1::schema::SessionConfigOption;
use wta_agent::yolo::{self, ALLOW_ALL, Decision, OfferedOption, OptionKind, Request, YoloPolicy};
use wta_protocol::helper_master::YoloReport;
use wta_state::{
    ConnectionState, DomainEvent, PermissionOptionKind, PermissionRequest, YoloAnswer, YoloBlock,
    YoloState,
};

use super::acp_map;
use super::command::{Call, Command, ProposalNews};
use super::{Link, Machine, Out};

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

    /// What keeps yolo off whatever the user asks, if anything.
    pub fn blocked(&self) -> Option<YoloBlock> {
        match self.policy {
            YoloPolicy::Blocked => Some(YoloBlock::Policy),
            YoloPolicy::Allowed => None,
        }
    }

    /// Yolo as the pane shows it.
    pub fn state(&self) -> YoloState {
        YoloState {
            on: self.effective(),
            blocked: self.blocked(),
        }
    }

    /// The app's event: the state and, after the user's `/yolo`, the
    /// machine's answer to it.
    pub fn event(&self, answer: Option<YoloAnswer>) -> DomainEvent {
        DomainEvent::Yolo {
            state: self.state(),
            answer,
        }
    }

    pub fn report(&self) -> YoloReport {
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
/// values include `on` and `off` (Copilot's shape), when the agent offers one.
pub fn allow_all_value(config_options: &[SessionConfigOption]) -> Option<String> {
    acp_map::config_options(config_options)
        .into_iter()
        .find(|o| {
            o.id == ALLOW_ALL
                && o.values.iter().any(|(v, _)| v == "on")
                && o.values.iter().any(|(v, _)| v == "off")
        })
        .map(|o| o.current)
}

/// True when the agent offers a usable `allow_all` option.
pub fn offers_allow_all(config_options: &[SessionConfigOption]) -> bool {
    allow_all_value(config_options).is_some()
}

impl Machine {
    /// `/yolo on|off` for the current session: refused while blocked (the
    /// policy), else the session's override; the answer says which.
    pub(super) fn set_yolo(&mut self, on: bool, out: &mut Out) {
        if on && let Some(block) = self.pane.yolo.blocked() {
            return out.event(self.pane.yolo.event(Some(YoloAnswer::Refused(block))));
        }
        self.pane.yolo.session_override = Some(on);
        let answer = match on {
            true => YoloAnswer::TurnedOn,
            false => YoloAnswer::TurnedOff,
        };
        self.after_yolo_change(Call::SetYolo(on), true, Some(answer), out);
    }

    /// A new session starts without the `/yolo` override.
    pub(super) fn reset_session_yolo(&mut self, out: &mut Out) {
        self.pane.yolo.session_override = None;
        out.event(self.pane.yolo.event(None));
    }

    /// A session just opened (the `configOptions` of its `session/new`
    /// reply): layer 1 reconciles the agent's `allow_all` with the
    /// effective value, both ways.
    pub(super) fn session_yolo(&mut self, config_options: &[SessionConfigOption], out: &mut Out) {
        let current = allow_all_value(config_options);
        let control = &mut self.pane.yolo;
        control.agent_allow_all = current.is_some();
        let wanted = if control.effective() { "on" } else { "off" };
        let in_sync = current.as_deref().is_none_or(|v| v == wanted);
        if in_sync {
            control.restarted_for_disable = false;
        }
        let call = Call::SetYolo(control.effective());
        self.after_yolo_change(call, !in_sync, None, out);
    }

    /// Applies the effective value: layer 2 at once, layer 1 when `sync`;
    /// the app hears the state (with `answer`, for the user's `/yolo`).
    fn after_yolo_change(
        &mut self,
        call: Call,
        sync: bool,
        answer: Option<YoloAnswer>,
        out: &mut Out,
    ) {
        if self.pane.yolo.effective() {
            out.cmd(Command::Proposals(ProposalNews::AgentMayRunUnasked));
        }
        self.report_yolo(out);
        out.event(self.pane.yolo.event(answer));
        if sync && self.pane.yolo.agent_allow_all {
            let value = if self.pane.yolo.effective() {
                "on"
            } else {
                "off"
            };
            self.set_config(call, ALLOW_ALL.into(), value.into(), out);
        }
    }

    /// Tells the master, so `wta sessions list` shows it.
    fn report_yolo(&self, out: &mut Out) {
        if let (Link::Up, Some(session)) = (self.pane.link, &self.pane.session) {
            out.cmd(Command::ReportYolo {
                session: session.clone(),
                report: self.pane.yolo.report(),
            });
        }
    }

    /// Layer 1 could not turn `allow_all` off: the agent may keep approving on
    /// its own (fail closed). The first time, the pane's agent stack is
    /// restarted and the user's "off" carries over to the fresh session; if
    /// that session cannot turn it off either, the pane drops its session
    /// instead of restarting in a loop.
    pub(super) fn yolo_disable_failed(&mut self, err: &str, out: &mut Out) {
        self.abandon_turn(out);
        let off_asked = self.pane.yolo.session_override == Some(false);
        if self.pane.yolo.restarted_for_disable {
            if let Some(session) = self.pane.session.take() {
                out.cmd(Command::CloseSession { session });
            }
            out.error(wta_i18n::tr!("helper.yolo.still_refuses", err = err));
            return out.event(DomainEvent::Connection(ConnectionState::Failed(
                wta_i18n::tr!("helper.yolo.no_session"),
            )));
        }
        self.pane.yolo.restarted_for_disable = true;
        out.error(wta_i18n::tr!("helper.yolo.disable_failed", err = err));
        self.restart_agent_stack(out);
        if off_asked {
            // Session replacement drops the override; a failed "off" must
            // not come back on through the global default.
            self.pane.yolo.session_override = Some(false);
            out.event(self.pane.yolo.event(None));
        }
    }

    /// Layer 2, after the proposal preflight: the option to approve silently.
    pub(super) fn yolo_permission(&self, card: &PermissionRequest) -> Option<String> {
        match self.pane.yolo.decide(card) {
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
        let opt = |id: &str, values: &[&str]| -> Vec<SessionConfigOption> {
            serde_json::from_value(json!([{"id": id, "name": id, "type": "select", "currentValue": values.first(),
                    "options": values.iter().map(|v| json!({"value": v, "name": v})).collect::<Vec<_>>()}]))
            .unwrap()
        };
        assert!(offers_allow_all(&opt("allow_all", &["off", "on"])));
        assert!(!offers_allow_all(&opt("allow_all_tools", &["off", "on"])));
        assert!(!offers_allow_all(&opt("allow_all", &["yes", "no"])));
        assert!(!offers_allow_all(&opt("mode", &["off", "on"])));
        assert!(!offers_allow_all(&[]));
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
            blocked.state(),
            YoloState {
                on: false,
                blocked: Some(YoloBlock::Policy)
            }
        );
    }
}
