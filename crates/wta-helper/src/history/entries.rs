//! A history record made back into a proposal, for `/history`'s Enter: a
//! new card for this pane that the user confirms like any other (it never
//! runs by itself).
//!
//! The re-proposal goes through the proposal engine's normal path: a turn
//! of the pane's own is issued for its trusted target (the one every turn
//! of this pane gets), the payload is validated on it as a proposal of the
//! session's own (the user, not the agent, asked for it), and the turn is
//! ended at once, so nothing else can propose on it; the card stays until
//! the user decides. While an agent's turn is running it is refused (its
//! channel would be superseded).

use std::time::Instant;

use wta_env::history::{ActionRecord, HistoryRecord};
use wta_protocol::{
    Action, Choice, Direction, OpenTarget, Origin, PaneId, ProposalPayload, ValidationStatus,
};

use crate::proposals::ProposalService;
use crate::proposals::types::TurnContext;

/// Why an entry could not be proposed again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReproposeError {
    #[error("the entry has an action this version cannot read ({0})")]
    Unreadable(String),
    #[error("the agent's turn is still running; propose it again once it ends")]
    TurnRunning,
    #[error("the proposal was refused: {0}")]
    Refused(String),
}

/// The payload of a one-choice card with `record`'s choice (its title and
/// actions as recorded).
pub fn payload_of(record: &HistoryRecord) -> Result<ProposalPayload, ReproposeError> {
    let actions = record
        .actions
        .iter()
        .map(action_of)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ProposalPayload {
        schema_version: 1,
        origin: Origin::TerminalAgent,
        recommended_choice: 1,
        choices: vec![Choice {
            choice: 1,
            title: record.title.clone(),
            rationale: String::new(),
            actions,
        }],
    })
}

fn action_of(a: &ActionRecord) -> Result<Action, ReproposeError> {
    let unreadable = || ReproposeError::Unreadable(a.kind.clone());
    let target = || match a.target.as_deref() {
        Some("tab") => Ok(OpenTarget::Tab),
        Some("panel") => Ok(OpenTarget::Panel),
        _ => Err(unreadable()),
    };
    let command = || a.command.clone().ok_or_else(unreadable);
    Ok(match a.kind.as_str() {
        "send" => Action::Send { input: command()? },
        "open" => Action::Open {
            target: target()?,
            cwd: a.cwd.clone(),
            title: a.title.clone(),
            direction: match a.direction.as_deref() {
                None => None,
                Some(d) => Some(direction(d).ok_or_else(unreadable)?),
            },
        },
        "open_and_send" => Action::OpenAndSend {
            target: target()?,
            input: command()?,
            delegate: a.delegate.unwrap_or(false),
            cwd: a.cwd.clone(),
        },
        _ => return Err(unreadable()),
    })
}

fn direction(name: &str) -> Option<Direction> {
    Some(match name {
        "right" => Direction::Right,
        "left" => Direction::Left,
        "up" => Direction::Up,
        "down" => Direction::Down,
        "auto" => Direction::Auto,
        _ => return None,
    })
}

/// Proposes `payload` again in this pane (targeting `target`, never
/// `own`): on success a card comes through the engine's events as for any
/// proposal. The lines that would go to a CLI are read and dropped.
pub fn repropose(
    service: &ProposalService,
    payload: &ProposalPayload,
    target: Option<PaneId>,
    own: Option<PaneId>,
) -> Result<(), ReproposeError> {
    if service.live_channel().is_some() {
        return Err(ReproposeError::TurnRunning);
    }
    let json =
        serde_json::to_string(payload).map_err(|e| ReproposeError::Refused(e.to_string()))?;
    service
        .issue_turn(TurnContext::agent_turn(target, own))
        .map_err(|e| ReproposeError::Refused(e.to_string()))?;
    let validated = service.validate_session(json, Instant::now());
    service.turn_ended();
    let (line, lines) = validated.map_err(|e| ReproposeError::Refused(e.to_string()))?;
    if line.status != ValidationStatus::Accepted {
        return Err(ReproposeError::Refused(
            line.reason
                .unwrap_or_else(|| line.status.as_str().to_owned()),
        ));
    }
    if let Some(mut lines) = lines {
        tokio::spawn(async move { while lines.recv().await.is_some() {} });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::history::record_actions;

    #[test]
    fn every_action_kind_comes_back_as_recorded() {
        let actions = vec![
            Action::Send {
                input: "cargo test".into(),
            },
            Action::Open {
                target: OpenTarget::Panel,
                cwd: Some("/tmp".into()),
                title: Some("logs".into()),
                direction: Some(Direction::Down),
            },
            Action::OpenAndSend {
                target: OpenTarget::Tab,
                input: "htop".into(),
                delegate: false,
                cwd: None,
            },
        ];
        let record = HistoryRecord {
            version: 1,
            time: "t".into(),
            agent: None,
            session_id: None,
            tab: None,
            pane: None,
            host: None,
            remote: false,
            proposal_id: "p".into(),
            origin: None,
            choice: 2,
            title: "Again".into(),
            decision: wta_env::history::Decision::Cancelled,
            reason: None,
            actions: record_actions(&actions),
        };
        let payload = payload_of(&record).unwrap();
        assert_eq!(payload.choices.len(), 1);
        assert_eq!(payload.choices[0].title, "Again");
        assert_eq!(payload.choices[0].actions, actions);
        let mut odd = record;
        odd.actions[0].kind = "teleport".into();
        assert_eq!(
            payload_of(&odd),
            Err(ReproposeError::Unreadable("teleport".into()))
        );
    }
}
