//! The status vocabularies of the three response phases (validation, final,
//! execution) and what each one means for the agent.

use serde::{Deserialize, Serialize};

/// Answer to a proposal request, sent at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValidationStatus {
    /// A card is on screen; a `final` line follows.
    Accepted,
    /// No live or tombstoned channel with this value.
    UnknownChannel,
    /// The channel names another helper than the one that owns this socket.
    HelperMismatch,
    /// The channel belongs to an older turn or session epoch.
    Stale,
    /// A newer turn replaced this channel.
    Superseded,
    /// The channel was already used for a proposal.
    AlreadyConsumed,
    /// The helper requires a permission preflight and none armed this channel.
    NotArmed,
    /// The 30 s lease from the permission preflight ran out.
    Expired,
    /// The payload is not the one the permission preflight approved.
    DigestMismatch,
    /// The payload does not follow schema v1.
    InvalidSchema,
    /// The payload is well formed but this turn's policy refuses it.
    Rejected,
    /// The helper cannot show a card now (shutting down, UI gone).
    Unavailable,
}

impl ValidationStatus {
    pub const ALL: [Self; 12] = [
        Self::Accepted,
        Self::UnknownChannel,
        Self::HelperMismatch,
        Self::Stale,
        Self::Superseded,
        Self::AlreadyConsumed,
        Self::NotArmed,
        Self::Expired,
        Self::DigestMismatch,
        Self::InvalidSchema,
        Self::Rejected,
        Self::Unavailable,
    ];

    /// Whether sending again on the same channel can succeed, before the
    /// retry budget is counted. Only the statuses that leave the channel in
    /// `Issued` (a fixable payload, or a preflight to redo) are retryable;
    /// when the budget is spent the helper sends them with `retryable:false`.
    pub const fn can_retry(self) -> bool {
        matches!(
            self,
            Self::NotArmed | Self::Expired | Self::DigestMismatch | Self::InvalidSchema
        )
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Accepted => "accepted",
            Self::UnknownChannel => "unknown_channel",
            Self::HelperMismatch => "helper_mismatch",
            Self::Stale => "stale",
            Self::Superseded => "superseded",
            Self::AlreadyConsumed => "already_consumed",
            Self::NotArmed => "not_armed",
            Self::Expired => "expired",
            Self::DigestMismatch => "digest_mismatch",
            Self::InvalidSchema => "invalid_schema",
            Self::Rejected => "rejected",
            Self::Unavailable => "unavailable",
        }
    }
}

/// How the card ended, sent after `accepted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinalStatus {
    /// The user pressed Run, Insert or Open. Not "the command succeeded":
    /// execution lines follow for each executed send.
    Confirmed,
    /// The user pressed Esc, or `/stop`.
    Cancelled,
    /// A newer turn started before the user decided.
    Superseded,
    /// `/new` or a session load replaced the ACP session.
    SessionReplaced,
    /// Nobody decided within 10 minutes.
    TimedOut,
    /// The helper lost its transport or is shutting down.
    Unavailable,
}

impl FinalStatus {
    pub const ALL: [Self; 6] = [
        Self::Confirmed,
        Self::Cancelled,
        Self::Superseded,
        Self::SessionReplaced,
        Self::TimedOut,
        Self::Unavailable,
    ];

    /// The status as the wire spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Confirmed => "confirmed",
            Self::Cancelled => "cancelled",
            Self::Superseded => "superseded",
            Self::SessionReplaced => "session_replaced",
            Self::TimedOut => "timed_out",
            Self::Unavailable => "unavailable",
        }
    }
}

/// How one dispatched action ended (DESIGN §4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutionStatus {
    /// Exit code 0.
    Completed,
    /// Non-zero exit code (including 130 after Ctrl+C, with `interrupted`).
    Failed,
    /// Still running (or interactive) when the execution timeout hit; never
    /// killed implicitly.
    TimedOut,
    /// Never dispatched: an earlier action of the confirmed choice could
    /// not be done or is still running, or the proposal's execution time
    /// was used up; `reason` names which.
    Cancelled,
    /// The pane could not be used (nothing was sent), went away, or the run
    /// could not be followed.
    Unavailable,
    /// Insert: the text was typed without Enter; nothing ran.
    Inserted,
    /// The pane has no shell integration, so completion cannot be observed.
    CompletionUnavailable,
}

impl ExecutionStatus {
    pub const ALL: [Self; 7] = [
        Self::Completed,
        Self::Failed,
        Self::TimedOut,
        Self::Cancelled,
        Self::Unavailable,
        Self::Inserted,
        Self::CompletionUnavailable,
    ];

    /// The status as the wire spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::TimedOut => "timed_out",
            Self::Cancelled => "cancelled",
            Self::Unavailable => "unavailable",
            Self::Inserted => "inserted",
            Self::CompletionUnavailable => "completion_unavailable",
        }
    }

    /// `completed` for 0, `failed` for anything else.
    pub const fn from_exit_code(code: i32) -> Self {
        if code == 0 {
            Self::Completed
        } else {
            Self::Failed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_the_wire() {
        for status in ValidationStatus::ALL {
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
        }
        for status in FinalStatus::ALL {
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
        }
        for status in ExecutionStatus::ALL {
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
        }
    }

    #[test]
    fn only_payload_and_preflight_failures_are_retryable() {
        let retryable: Vec<_> = ValidationStatus::ALL
            .into_iter()
            .filter(|s| s.can_retry())
            .collect();
        assert_eq!(
            retryable,
            [
                ValidationStatus::NotArmed,
                ValidationStatus::Expired,
                ValidationStatus::DigestMismatch,
                ValidationStatus::InvalidSchema
            ]
        );
    }

    #[test]
    fn exit_code_maps_to_status() {
        assert_eq!(
            ExecutionStatus::from_exit_code(0),
            ExecutionStatus::Completed
        );
        assert_eq!(ExecutionStatus::from_exit_code(2), ExecutionStatus::Failed);
        assert_eq!(ExecutionStatus::from_exit_code(-1), ExecutionStatus::Failed);
    }
}
