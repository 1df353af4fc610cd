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

/// `payload_of` reads `history.jsonl`, a file the user (or anything with
/// their rights) may have edited: a trust boundary. Whatever a record
/// holds, the payload either passes the engine's own parse and validation
/// (as `repropose` sends it) or is refused with a message; nothing panics,
/// and a valid record's commands come back byte for byte.
#[cfg(test)]
mod props {
    #![allow(clippy::unwrap_used)]
    use proptest::prelude::*;
    use wta_env::history::Decision;
    use wta_protocol::parse_payload;

    use super::*;

    fn decision() -> impl Strategy<Value = Decision> {
        prop_oneof![
            Just(Decision::Confirmed),
            Just(Decision::Inserted),
            Just(Decision::Cancelled),
            Just(Decision::TimedOut),
        ]
    }

    /// Any text, control and bidi characters included, sometimes long.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => any::<String>(),
            2 => "[ -~\\t\\n\\r\u{1b}\u{202e}\u{200b}é漢]{0,40}",
            1 => Just(String::new()),
            1 => "[a-z]{1,4}".prop_map(|s| s.repeat(2100)),
        ]
    }

    fn kind() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => prop_oneof![Just("send"), Just("open"), Just("open_and_send")]
                .prop_map(str::to_owned),
            1 => any::<String>(),
        ]
    }

    fn word(known: &'static [&'static str]) -> impl Strategy<Value = Option<String>> {
        prop_oneof![
            Just(None),
            proptest::sample::select(known).prop_map(|s| Some(s.to_owned())),
            any::<String>().prop_map(Some),
        ]
    }

    fn action() -> impl Strategy<Value = ActionRecord> {
        (
            kind(),
            proptest::option::of(text()),
            word(&["tab", "panel"]),
            proptest::option::of(text()),
            proptest::option::of(text()),
            word(&["right", "left", "up", "down", "auto"]),
            proptest::option::of(any::<bool>()),
            proptest::option::of(any::<i32>()),
        )
            .prop_map(
                |(kind, command, target, cwd, title, direction, delegate, exit_status)| {
                    ActionRecord {
                        kind,
                        command,
                        target,
                        cwd,
                        title,
                        direction,
                        delegate,
                        exit_status,
                        ..ActionRecord::default()
                    }
                },
            )
    }

    fn record(
        actions: impl Strategy<Value = Vec<ActionRecord>>,
    ) -> impl Strategy<Value = HistoryRecord> {
        (
            text(),
            any::<u64>(),
            decision(),
            actions,
            proptest::option::of(text()),
            any::<bool>(),
        )
            .prop_map(
                |(title, choice, decision, actions, host, remote)| HistoryRecord {
                    version: 1,
                    time: "2026-12-02T05:00:00Z".into(),
                    agent: None,
                    session_id: None,
                    tab: None,
                    pane: None,
                    host,
                    remote,
                    proposal_id: "p".into(),
                    origin: None,
                    choice,
                    title,
                    decision,
                    reason: None,
                    actions,
                },
            )
    }

    /// A command a shell could be handed: printable text, newlines,
    /// any Unicode letters, never what validation refuses.
    fn command() -> impl Strategy<Value = String> {
        "[!-~][ -~\\né漢ß]{0,60}"
    }

    fn valid_action() -> impl Strategy<Value = ActionRecord> {
        (0..3usize, command(), any::<bool>()).prop_map(|(k, command, tab)| {
            let target = Some(if tab { "tab" } else { "panel" }.to_owned());
            match k {
                0 => ActionRecord {
                    kind: "send".into(),
                    command: Some(command),
                    ..ActionRecord::default()
                },
                1 => ActionRecord {
                    kind: "open".into(),
                    target,
                    cwd: Some(format!("/srv/{}", command.replace('\n', "_"))),
                    direction: Some("down".into()),
                    ..ActionRecord::default()
                },
                _ => ActionRecord {
                    kind: "open_and_send".into(),
                    target,
                    command: Some(command),
                    delegate: Some(tab),
                    ..ActionRecord::default()
                },
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn any_record_is_a_valid_payload_or_a_clear_error(
            record in record(proptest::collection::vec(action(), 0..5)),
        ) {
            match payload_of(&record) {
                Err(ReproposeError::Unreadable(kind)) => {
                    prop_assert!(record.actions.iter().any(|a| a.kind == kind));
                    prop_assert!(!ReproposeError::Unreadable(kind).to_string().is_empty());
                }
                Err(other) => prop_assert!(false, "payload_of can only be unreadable: {other}"),
                Ok(payload) => {
                    prop_assert_eq!(payload.choices.len(), 1);
                    prop_assert_eq!(&payload.choices[0].title, &record.title);
                    prop_assert_eq!(payload.choices[0].actions.len(), record.actions.len());
                    // What repropose hands the engine, checked the engine's way.
                    let json = serde_json::to_string(&payload).unwrap();
                    match parse_payload(json.as_bytes())
                        .and_then(|p| p.check_origin(Origin::TerminalAgent).map(|()| p))
                    {
                        Ok(parsed) => prop_assert_eq!(parsed, payload),
                        Err(refused) => {
                            let (status, _) = refused.validation_answer();
                            prop_assert_ne!(status, ValidationStatus::Accepted);
                            prop_assert!(!refused.to_string().is_empty());
                        }
                    }
                }
            }
        }

        #[test]
        fn a_valid_record_comes_back_byte_for_byte(
            record in record(proptest::collection::vec(valid_action(), 1..=3)),
            title in "[A-Za-z][ -~]{0,50}",
        ) {
            let record = HistoryRecord { title, ..record };
            let payload = payload_of(&record).unwrap();
            let json = serde_json::to_string(&payload).unwrap();
            let parsed = parse_payload(json.as_bytes()).unwrap();
            parsed.check_origin(Origin::TerminalAgent).unwrap();
            prop_assert_eq!(&parsed.choices[0].title, &record.title);
            for (action, recorded) in parsed.choices[0].actions.iter().zip(&record.actions) {
                match action {
                    Action::Send { input } | Action::OpenAndSend { input, .. } => {
                        prop_assert_eq!(Some(input.as_bytes()), recorded.command.as_deref().map(str::as_bytes));
                    }
                    Action::Open { cwd, .. } => prop_assert_eq!(cwd, &recorded.cwd),
                }
            }
        }
    }
}
