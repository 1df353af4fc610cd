//! `wta fix` reaching the helper of a tab, and its answer: the request is a
//! pane option on the agent pane ([`FIX_REQUEST_OPTION`], JSON), and a tmux
//! `wait-for` channel of that pane ([`fix_channel`]) wakes the helper to read
//! it. No socket: whoever can set options on the user's tmux server is the
//! user.
//!
//! A request that carries a [`ReplyToken`] is answered: the helper puts a
//! [`FixAnswer`] (JSON) in the agent pane's option [`reply_option`] and
//! signals [`reply_channel`], on which `wta fix` waits, so the command can
//! say whether the fix turn started or why the pane cannot act (no master,
//! nothing failed, a turn running). The token only keeps two `wta fix`
//! calls apart; it is no secret.

use serde::{Deserialize, Serialize};
use wta_host::TerminalHost;
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
    /// Answer under this token (`None`: nobody waits for an answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<ReplyToken>,
}

/// Names one `wta fix` call's answer: 8 to 32 lowercase hex digits, so the
/// option and channel named after it are always valid tmux names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ReplyToken(String);

impl ReplyToken {
    /// A fresh token from the OS RNG.
    pub fn random() -> std::io::Result<Self> {
        let bytes = crate::proposals::service::random_bytes()?;
        Ok(Self(
            bytes[..8].iter().map(|b| format!("{b:02x}")).collect(),
        ))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ReplyToken {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        let ok = (8..=32).contains(&text.len())
            && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if ok {
            Ok(Self(text))
        } else {
            Err(format!(
                "{text:?} is not a reply token (8 to 32 hex digits)"
            ))
        }
    }
}

impl From<ReplyToken> for String {
    fn from(token: ReplyToken) -> Self {
        token.0
    }
}

/// The agent-pane option the answer to `token` goes in.
pub fn reply_option(token: &ReplyToken) -> String {
    format!("@wta_fix_reply_{}", token.as_str())
}

/// The channel signalled once the answer to `token` is there.
pub fn reply_channel(token: &ReplyToken) -> String {
    format!("wta-fix-reply-{}", token.as_str())
}

/// What became of a fix request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case", deny_unknown_fields)]
pub enum FixAnswer {
    /// The fix turn started for the failure in `pane`.
    Started { pane: PaneId },
    /// The pane is not linked to a master (it went away and none runs).
    NoMaster,
    /// No failure was seen since the last fix.
    NothingToFix,
    /// The last failure is in `last`, not in the pane asked about.
    OtherPane { last: PaneId },
    /// A turn runs; the fix waits for the user to try again.
    TurnRunning,
    /// Linked, but no session is ready yet (starting, signing in).
    NotReady,
}

/// Puts `answer` where `wta fix` waiting on `token` reads it, then wakes
/// it. Blocking (tmux calls).
pub fn answer(
    host: &wta_host::TmuxHost,
    own: &PaneId,
    token: &ReplyToken,
    answer: &FixAnswer,
) -> Result<(), String> {
    let json = serde_json::to_string(answer).map_err(|e| e.to_string())?;
    host.set_option(own, &reply_option(token), &json)
        .map_err(|e| e.to_string())?;
    host.signal_channel(&reply_channel(token))
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn requests_round_trip_and_refuse_strangers() {
        let r = FixRequest {
            pane: Some(PaneId::parse("%3").unwrap()),
            hint: Some("use sudo".into()),
            reply: None,
        };
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"pane":"%3","hint":"use sudo"}"#);
        assert_eq!(serde_json::from_str::<FixRequest>(&json).unwrap(), r);
        assert!(serde_json::from_str::<FixRequest>(r#"{"argv":["rm"]}"#).is_err());
        assert!(serde_json::from_str::<FixRequest>(r#"{"pane":"@3"}"#).is_err());
        assert_eq!(fix_channel(&PaneId::parse("%12").unwrap()), "wta-fix-12");
        let with_reply: FixRequest =
            serde_json::from_str(r#"{"pane":"%3","reply":"0123456789abcdef"}"#).unwrap();
        let token = with_reply.reply.unwrap();
        assert_eq!(reply_option(&token), "@wta_fix_reply_0123456789abcdef");
        assert_eq!(reply_channel(&token), "wta-fix-reply-0123456789abcdef");
        for bad in [
            r#"{"reply":"short"}"#,
            r#"{"reply":"0123456789ABCDEF"}"#,
            r#"{"reply":"0123456789abcdef;kill-server"}"#,
            r#"{"reply":7}"#,
        ] {
            assert!(serde_json::from_str::<FixRequest>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn answers_are_tagged_and_random_tokens_are_valid() {
        let started = FixAnswer::Started {
            pane: PaneId::parse("%4").unwrap(),
        };
        let json = serde_json::to_string(&started).unwrap();
        assert_eq!(json, r#"{"outcome":"started","pane":"%4"}"#);
        assert_eq!(serde_json::from_str::<FixAnswer>(&json).unwrap(), started);
        assert_eq!(
            serde_json::to_string(&FixAnswer::NoMaster).unwrap(),
            r#"{"outcome":"no_master"}"#
        );
        assert!(serde_json::from_str::<FixAnswer>(r#"{"outcome":"started"}"#).is_err());
        let a = ReplyToken::random().unwrap();
        let b = ReplyToken::random().unwrap();
        assert_ne!(a, b);
        assert!(ReplyToken::try_from(a.as_str().to_owned()).is_ok());
    }

    proptest! {
        /// Whatever a same-user process puts in the request option, a token
        /// is accepted only when it names a valid tmux option and channel
        /// (lowercase hex, 8 to 32 digits), and then round-trips.
        #[test]
        fn a_token_is_accepted_only_as_hex(text in prop_oneof!["[0-9a-fA-F]{0,40}", ".{0,40}"]) {
            let json = serde_json::json!({ "reply": text }).to_string();
            let parsed = serde_json::from_str::<FixRequest>(&json);
            let hex = (8..=32).contains(&text.len())
                && text.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase());
            prop_assert_eq!(parsed.is_ok(), hex);
            if let Ok(request) = parsed {
                let token = request.reply.unwrap();
                prop_assert_eq!(token.as_str(), text.as_str());
                let option = reply_option(&token);
                prop_assert!(option[1..].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
            }
        }
    }
}
