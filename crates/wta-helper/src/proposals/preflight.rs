//! The permission preflight: what to do with an ACP `request_permission`
//! before it can become a permission card. Pure over the live channel and
//! the request's tool call JSON.
//!
//! - The exact canonical invocation for the live channel → answer AllowOnce
//!   silently and arm SHA-256(payload) for 30 s.
//! - A proposal-looking command that is not canonical (or canonical for a
//!   channel that is not live) → cancel silently, with a log line.
//! - An execute call whose shape we do not know but which mentions the CLI
//!   → fail closed: cancel, and show the integration problem.
//! - A call of one of *this session's* MCP tools, told by the structured
//!   fields the agent uses for MCP calls ([`super::own_tools`]; never by
//!   text found inside the call) → AllowOnce silently while a turn is
//!   live: the tool's own card (or question) is where the user decides.
//! - Anything else → the normal permission card.

use serde_json::Value;
use wta_protocol::{Channel, Extracted, Invocation, classify_invocation, extract_command};

/// What to do with one permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preflight {
    /// Answer AllowOnce without a card and arm this payload (when the
    /// channel is still unused).
    AllowAndArm { channel: Channel, payload: String },
    /// Answer Cancelled without a card; log `reason`.
    SilentCancel { reason: String },
    /// Answer Cancelled and say why (an integration problem: the proposal
    /// command in a request shape this pane cannot read).
    FailClosed { why: String },
    /// A session endpoint tool: answer AllowOnce without a card.
    AllowSessionTool { tool: &'static str },
    /// Not ours: the normal permission card.
    NormalCard,
}

/// Decides about the `toolCall` of a permission request. `live` is the
/// current turn's channel, if any; `own_server` the name of the session's
/// MCP server, if it has one.
pub fn preflight(live: Option<&Channel>, own_server: Option<&str>, tool_call: &Value) -> Preflight {
    if let Some(tool) = own_server.and_then(|server| super::own_tools::own_tool(tool_call, server))
    {
        return match live {
            Some(_) => Preflight::AllowSessionTool { tool },
            None => Preflight::SilentCancel {
                reason: format!("a call of {tool} outside a turn"),
            },
        };
    }
    let command = match extract_command(tool_call) {
        Extracted::Command(command) => command,
        Extracted::NotACommand => return Preflight::NormalCard,
        Extracted::UnknownShape(why) => {
            if mentions_cli(tool_call) {
                return Preflight::FailClosed {
                    why: why.to_owned(),
                };
            }
            return Preflight::NormalCard;
        }
    };
    match classify_invocation(&command) {
        Invocation::Canonical(canonical) if live == Some(&canonical.channel) => {
            Preflight::AllowAndArm {
                channel: canonical.channel,
                payload: canonical.payload,
            }
        }
        Invocation::Canonical(_) => Preflight::SilentCancel {
            reason: "a canonical proposal command for a channel that is not live".to_owned(),
        },
        Invocation::NonCanonical(why) => Preflight::SilentCancel {
            reason: format!("a proposal command that {why}"),
        },
        Invocation::Unrelated => Preflight::NormalCard,
    }
}

/// Whether any string in the tool call mentions the proposal CLI.
fn mentions_cli(value: &Value) -> bool {
    fn walk(value: &Value, depth: usize) -> bool {
        match value {
            _ if depth > 16 => true,
            Value::String(s) => wta_protocol::invocation::looks_like_proposal(s),
            Value::Array(items) => items.iter().any(|v| walk(v, depth + 1)),
            Value::Object(map) => map.values().any(|v| walk(v, depth + 1)),
            _ => false,
        }
    }
    walk(value, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wta_protocol::{HelperId, TurnNonce, build_invocation};

    fn channel(n: u8) -> Channel {
        Channel::new(
            HelperId::from_bytes([1; 16]),
            TurnNonce::from_bytes([n; 16]),
        )
    }

    const PAYLOAD: &str = r#"{"b":1,"a":"it's"}"#;
    const SERVER: &str = "wta_0123456789abcdef0123";

    #[test]
    fn canonical_for_the_live_channel_arms_in_every_envelope() {
        let live = channel(2);
        let cmd = build_invocation(&live, PAYLOAD);
        let shapes = [
            json!({"kind":"execute","title":"x","rawInput":{"command": cmd, "description":"d"}}),
            json!({"kind":"execute","title":"x","rawInput":{"command":["/bin/bash","-lc",cmd]}}),
            json!({"kind":"execute","title":"x","rawInput":{"command": cmd, "commands":[cmd]}}),
            json!({"kind":"execute","title": cmd}),
        ];
        for shape in shapes {
            assert_eq!(
                preflight(Some(&live), Some(SERVER), &shape),
                Preflight::AllowAndArm {
                    channel: live,
                    payload: PAYLOAD.to_owned()
                },
                "{shape}"
            );
        }
    }

    #[test]
    fn other_channels_and_variants_are_cancelled_silently() {
        let live = channel(2);
        let old = build_invocation(&channel(3), PAYLOAD);
        let call = |c: &str| json!({"kind":"execute","rawInput":{"command": c}});
        assert!(matches!(
            preflight(Some(&live), Some(SERVER), &call(&old)),
            Preflight::SilentCancel { .. }
        ));
        assert!(matches!(
            preflight(None, Some(SERVER), &call(&build_invocation(&live, PAYLOAD))),
            Preflight::SilentCancel { .. }
        ));
        let canonical = build_invocation(&live, PAYLOAD);
        for bad in [
            format!("{canonical} | cat"),
            format!("{canonical}; rm -rf ~"),
            format!("X=1 {canonical}"),
            canonical.replace("\"$WTA_CLI_PATH\"", "wta"),
            format!("{canonical} < /dev/null"),
        ] {
            assert!(
                matches!(
                    preflight(Some(&live), Some(SERVER), &call(&bad)),
                    Preflight::SilentCancel { .. }
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn own_session_tools_are_allowed_silently_during_a_turn_only() {
        let live = channel(2);
        let ours = json!({"title": format!("mcp__{SERVER}__run_command_in_current_shell"),
            "rawInput": {"command": "rm -rf build"}});
        assert_eq!(
            preflight(Some(&live), Some(SERVER), &ours),
            Preflight::AllowSessionTool {
                tool: "run_command_in_current_shell"
            }
        );
        assert!(matches!(
            preflight(None, Some(SERVER), &ours),
            Preflight::SilentCancel { .. }
        ));
        // Without a server of its own the session has no such tools: the
        // user decides, as for another server's tool of the same name.
        assert_eq!(preflight(Some(&live), None, &ours), Preflight::NormalCard);
        let theirs = json!({"title": "mcp__wta_ffffffffffffffffffff__run_command_in_current_shell",
            "rawInput": {"command": "rm -rf build"}});
        assert_eq!(
            preflight(Some(&live), Some(SERVER), &theirs),
            Preflight::NormalCard
        );
    }

    #[test]
    fn unknown_shapes_mentioning_the_cli_fail_closed_others_get_a_card() {
        let live = channel(2);
        let weird = json!({"kind":"execute","rawInput":{"argv": "propose-terminal-actions"}});
        assert!(matches!(
            preflight(Some(&live), Some(SERVER), &weird),
            Preflight::FailClosed { .. }
        ));
        let opencode = json!({"kind":"execute","title":"bash","rawInput":{}});
        assert_eq!(
            preflight(Some(&live), Some(SERVER), &opencode),
            Preflight::NormalCard
        );
        let edit = json!({"kind":"edit","title":"Edit a.rs","rawInput":{"path":"a.rs"}});
        assert_eq!(
            preflight(Some(&live), Some(SERVER), &edit),
            Preflight::NormalCard
        );
        let ls = json!({"kind":"execute","rawInput":{"command":"ls -la"}});
        assert_eq!(
            preflight(Some(&live), Some(SERVER), &ls),
            Preflight::NormalCard
        );
    }
}
