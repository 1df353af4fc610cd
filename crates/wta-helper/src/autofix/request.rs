//! `wta fix` reaching the helper of a tab: the request is a pane option on
//! the agent pane ([`FIX_REQUEST_OPTION`], JSON), and a tmux `wait-for`
//! channel of that pane ([`fix_channel`]) wakes the helper to read it. No
//! socket: whoever can set options on the user's tmux server is the user.

use serde::{Deserialize, Serialize};
use wta_protocol::PaneId;

/// Agent-pane option holding a pending fix request.
pub const FIX_REQUEST_OPTION: &str = "@wta_fix_request";

/// The channel the helper of agent pane `agent` waits on.
pub fn fix_channel(agent: &PaneId) -> String {
    format!("wta-fix-{}", agent.as_str().trim_start_matches('%'))
}

/// What `wta fix` asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixRequest {
    /// Fix the failure in this pane (`None`: the last one of the tab).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane: Option<PaneId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn requests_round_trip_and_refuse_strangers() {
        let r = FixRequest {
            pane: Some(PaneId::parse("%3").unwrap()),
            hint: Some("use sudo".into()),
        };
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"pane":"%3","hint":"use sudo"}"#);
        assert_eq!(serde_json::from_str::<FixRequest>(&json).unwrap(), r);
        assert!(serde_json::from_str::<FixRequest>(r#"{"argv":["rm"]}"#).is_err());
        assert!(serde_json::from_str::<FixRequest>(r#"{"pane":"@3"}"#).is_err());
        assert_eq!(fix_channel(&PaneId::parse("%12").unwrap()), "wta-fix-12");
    }
}
