//! Yolo mode: auto-approve the agent's *own* tool permissions (DESIGN §5).
//!
//! `effective = !policy_blocks && session_override.unwrap_or(global_default)`.
//! The decision for one permission request is [`decide`], a pure function
//! tested over the whole policy × global × override × request matrix.
//! Terminal-action cards, the silent cancel of non-canonical proposal
//! commands and `request_user_input` are never decided here: they are
//! classified before and pass through unchanged. Only AllowOnce is ever
//! picked, so `/yolo off` takes effect on the next request (AllowAlways
//! would outlive it).

use serde::Serialize;

pub use wta_protocol::acp_options::ALLOW_ALL;

/// The system policy (`allow_yolo_mode` in the policy file; absent = allowed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum YoloPolicy {
    #[default]
    Allowed,
    Blocked,
}

/// The kind of one permission option, as ACP names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
}

/// One option the agent offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedOption {
    pub id: String,
    pub kind: OptionKind,
}

/// What the request is, as classified before yolo is consulted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// An ordinary tool permission (run a command, edit a file, …).
    Tool(Vec<OfferedOption>),
    /// A permission for the canonical proposal command of the live channel:
    /// the proposal preflight allows it; yolo does not change that.
    CanonicalProposal,
    /// A proposal-looking command that is not canonical: always cancelled.
    NonCanonicalProposal,
    /// A question for the user (`request_user_input`): always asked.
    UserInput,
}

/// What to do with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Select this option without showing a card (post a visible system line).
    AutoApprove(String),
    /// Show the normal card.
    Ask,
    /// Cancel silently (non-canonical proposal commands).
    Reject,
    /// Leave it to the proposal preflight (silent AllowOnce + arm).
    Preflight,
}

/// Yolo as the status line and `wta sessions list` show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct YoloState {
    pub on: bool,
    pub blocked_by_policy: bool,
    /// `session` when `/yolo` set it for this session, else `global`.
    pub source: YoloSource,
}

/// Where the effective value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum YoloSource {
    Global,
    Session,
    Policy,
}

/// Yolo is on for a session.
pub fn effective(policy: YoloPolicy, global: bool, session_override: Option<bool>) -> bool {
    policy == YoloPolicy::Allowed && session_override.unwrap_or(global)
}

/// The full state for display.
pub fn state(policy: YoloPolicy, global: bool, session_override: Option<bool>) -> YoloState {
    let source = match (policy, session_override) {
        (YoloPolicy::Blocked, _) => YoloSource::Policy,
        (_, Some(_)) => YoloSource::Session,
        (_, None) => YoloSource::Global,
    };
    YoloState {
        on: effective(policy, global, session_override),
        blocked_by_policy: policy == YoloPolicy::Blocked,
        source,
    }
}

/// The decision for one request.
pub fn decide(
    policy: YoloPolicy,
    global: bool,
    session_override: Option<bool>,
    request: &Request,
) -> Decision {
    match request {
        Request::NonCanonicalProposal => Decision::Reject,
        Request::CanonicalProposal => Decision::Preflight,
        Request::UserInput => Decision::Ask,
        Request::Tool(options) => {
            if !effective(policy, global, session_override) {
                return Decision::Ask;
            }
            match options.iter().find(|o| o.kind == OptionKind::AllowOnce) {
                Some(once) => Decision::AutoApprove(once.id.clone()),
                None => Decision::Ask,
            }
        }
    }
}

/// Whether turning yolo on for a session is permitted; the refusal text is
/// shown to the user as is.
pub fn may_enable(policy: YoloPolicy) -> Result<(), &'static str> {
    match policy {
        YoloPolicy::Allowed => Ok(()),
        YoloPolicy::Blocked => Err("Yolo mode is disabled by your organization's policy."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(id: &str, kind: OptionKind) -> OfferedOption {
        OfferedOption {
            id: id.into(),
            kind,
        }
    }

    const KINDS: [OptionKind; 4] = [
        OptionKind::AllowOnce,
        OptionKind::AllowAlways,
        OptionKind::RejectOnce,
        OptionKind::RejectAlways,
    ];

    /// Every subset of option kinds, in a fixed order.
    fn option_sets() -> Vec<Vec<OfferedOption>> {
        (0u8..16)
            .map(|mask| {
                KINDS
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1 << i) != 0)
                    .map(|(i, k)| opt(&format!("o{i}"), *k))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn whole_matrix() {
        for policy in [YoloPolicy::Allowed, YoloPolicy::Blocked] {
            for global in [false, true] {
                for ov in [None, Some(false), Some(true)] {
                    let on = policy == YoloPolicy::Allowed && ov.unwrap_or(global);
                    assert_eq!(effective(policy, global, ov), on);
                    for options in option_sets() {
                        let got = decide(policy, global, ov, &Request::Tool(options.clone()));
                        let once = options.iter().find(|o| o.kind == OptionKind::AllowOnce);
                        let want = match (on, once) {
                            (true, Some(o)) => Decision::AutoApprove(o.id.clone()),
                            _ => Decision::Ask,
                        };
                        assert_eq!(got, want, "{policy:?} {global} {ov:?} {options:?}");
                        if let Decision::AutoApprove(id) = &got {
                            let picked = options.iter().find(|o| &o.id == id);
                            assert_eq!(
                                picked.map(|o| o.kind),
                                Some(OptionKind::AllowOnce),
                                "never AllowAlways"
                            );
                        }
                    }
                    // Never bypassed, whatever yolo says.
                    assert_eq!(
                        decide(policy, global, ov, &Request::NonCanonicalProposal),
                        Decision::Reject
                    );
                    assert_eq!(
                        decide(policy, global, ov, &Request::CanonicalProposal),
                        Decision::Preflight
                    );
                    assert_eq!(
                        decide(policy, global, ov, &Request::UserInput),
                        Decision::Ask
                    );
                }
            }
        }
    }

    #[test]
    fn override_beats_global_and_policy_beats_both() {
        assert!(effective(YoloPolicy::Allowed, false, Some(true)));
        assert!(!effective(YoloPolicy::Allowed, true, Some(false)));
        assert!(effective(YoloPolicy::Allowed, true, None));
        assert!(!effective(YoloPolicy::Blocked, true, Some(true)));
        let s = state(YoloPolicy::Blocked, true, Some(true));
        assert_eq!(
            (s.on, s.blocked_by_policy, s.source),
            (false, true, YoloSource::Policy)
        );
        assert_eq!(
            state(YoloPolicy::Allowed, false, Some(true)).source,
            YoloSource::Session
        );
        assert!(
            may_enable(YoloPolicy::Blocked)
                .unwrap_err()
                .contains("policy")
        );
    }

    #[test]
    fn first_allow_once_wins() {
        let options = vec![
            opt("always", OptionKind::AllowAlways),
            opt("once-a", OptionKind::AllowOnce),
            opt("once-b", OptionKind::AllowOnce),
        ];
        assert_eq!(
            decide(YoloPolicy::Allowed, true, None, &Request::Tool(options)),
            Decision::AutoApprove("once-a".into())
        );
    }
}
