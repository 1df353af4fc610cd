//! Turn policy applied to a schema-valid payload: what this turn may do.
//!
//! Pure. The payload never names a pane; here its actions are checked
//! against the turn's trusted context: `delegate: true` needs a configured
//! delegate agent, and a choice whose actions would land in the agent pane
//! itself (or need a target pane the turn does not have) is dropped.

use wta_protocol::{Action, Choice, OpenTarget, ProposalPayload};

use super::types::TurnContext;

/// The payload this turn may show, and the choice numbers it dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filtered {
    pub payload: ProposalPayload,
    pub dropped: Vec<u64>,
}

/// Applies the turn policy; `Err` is a reason for a `rejected` answer.
pub fn apply(payload: ProposalPayload, turn: &TurnContext) -> Result<Filtered, String> {
    if turn.delegate_agent.is_none() && payload.choices.iter().any(has_delegate) {
        return Err(
            "`delegate: true` needs a configured delegate agent, and this pane has none; \
             propose the command itself instead"
                .to_owned(),
        );
    }
    let (kept, dropped): (Vec<Choice>, Vec<Choice>) = payload
        .choices
        .into_iter()
        .partition(|choice| choice_usable(choice, turn));
    let dropped: Vec<u64> = dropped.iter().map(|c| c.choice).collect();
    let Some(first) = kept.first().map(|c| c.choice) else {
        let why = match &turn.target_pane {
            None => "this turn has no target pane to send to or split",
            Some(_) => "every choice would act on the agent pane itself",
        };
        return Err(format!(
            "no usable choice: {why}; propose an action in a new tab instead"
        ));
    };
    let recommended = if kept.iter().any(|c| c.choice == payload.recommended_choice) {
        payload.recommended_choice
    } else {
        first
    };
    Ok(Filtered {
        payload: ProposalPayload {
            schema_version: payload.schema_version,
            origin: payload.origin,
            recommended_choice: recommended,
            choices: kept,
        },
        dropped,
    })
}

fn has_delegate(choice: &Choice) -> bool {
    choice
        .actions
        .iter()
        .any(|a| matches!(a, Action::OpenAndSend { delegate: true, .. }))
}

/// Whether an action acts on the turn's target pane (types into it or splits it).
pub fn needs_target(action: &Action) -> bool {
    match action {
        Action::Send { .. } => true,
        Action::Open { target, .. } | Action::OpenAndSend { target, .. } => {
            *target == OpenTarget::Panel
        }
    }
}

/// Usable when every action that needs the target pane has one that is not
/// the agent pane.
fn choice_usable(choice: &Choice, turn: &TurnContext) -> bool {
    let target_ok = match (&turn.target_pane, &turn.agent_pane) {
        (None, _) => false,
        (Some(target), Some(agent)) => target != agent,
        (Some(_), None) => true,
    };
    target_ok || !choice.actions.iter().any(needs_target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wta_protocol::{Origin, PaneId, parse_payload};

    fn payload() -> ProposalPayload {
        parse_payload(
            br#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[
            {"choice":1,"title":"Run","actions":[{"type":"send","input":"ls"}]},
            {"choice":2,"title":"Tab","actions":[{"type":"open","target":"tab"}]}]}"#,
        )
        .unwrap()
    }

    fn turn(target: &str, agent: &str) -> TurnContext {
        TurnContext {
            origin: Origin::TerminalAgent,
            target_pane: Some(PaneId::parse(target).unwrap()),
            agent_pane: Some(PaneId::parse(agent).unwrap()),
            delegate_agent: None,
        }
    }

    #[test]
    fn keeps_everything_for_a_distinct_target() {
        let f = apply(payload(), &turn("%1", "%2")).unwrap();
        assert_eq!(f.payload.choices.len(), 2);
        assert!(f.dropped.is_empty());
    }

    #[test]
    fn drops_choices_that_would_type_into_the_agent_pane() {
        let f = apply(payload(), &turn("%2", "%2")).unwrap();
        assert_eq!(f.dropped, vec![1]);
        assert_eq!(f.payload.recommended_choice, 2);
        let mut no_target = turn("%1", "%2");
        no_target.target_pane = None;
        assert_eq!(apply(payload(), &no_target).unwrap().dropped, vec![1]);
    }

    #[test]
    fn rejects_when_nothing_is_left_or_delegate_is_unconfigured() {
        let only_send = parse_payload(
            br#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[
            {"choice":1,"title":"Run","actions":[{"type":"send","input":"ls"}]}]}"#,
        )
        .unwrap();
        assert!(apply(only_send, &turn("%2", "%2")).is_err());
        let delegate = parse_payload(
            br#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[
            {"choice":1,"title":"Hand off","actions":[{"type":"open_and_send","target":"tab","input":"fix it","delegate":true}]}]}"#,
        )
        .unwrap();
        let err = apply(delegate.clone(), &turn("%1", "%2")).unwrap_err();
        assert!(err.contains("delegate"), "{err}");
        let mut configured = turn("%1", "%2");
        configured.delegate_agent = Some("claude".into());
        assert!(apply(delegate, &configured).is_ok());
    }
}
