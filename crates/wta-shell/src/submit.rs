//! The submit decision: [`decide_submit`] says whether a command may be sent
//! now (pure). Typing it is the host's job ([`wta_host::AsyncHost::type_text`]).
//! Typeahead is never sent: a pane whose command is still running refuses
//! with [`SubmitRefusal::Busy`].

use serde::Serialize;

use crate::tracker::{Integration, State};

/// Why a submission was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum SubmitRefusal {
    #[error("a command is still running in the pane")]
    Busy,
    #[error("the shell is not waiting at a prompt")]
    NotAtPrompt,
    #[error("the pane's shell has no WTA shell integration (run `wta shell-integration --help`)")]
    IntegrationAbsent,
    #[error("the pane is dead")]
    PaneDead,
}

/// Only `Idle` accepts a submission.
pub fn decide_submit(state: &State, integration: Integration) -> Result<(), SubmitRefusal> {
    match state {
        State::Idle if integration != Integration::Absent => Ok(()),
        State::Idle | State::Absent => Err(SubmitRefusal::IntegrationAbsent),
        State::Running | State::Submitted { .. } => Err(SubmitRefusal::Busy),
        State::Dead { .. } => Err(SubmitRefusal::PaneDead),
        State::Unknown | State::Prompt | State::Finished => {
            if integration == Integration::Absent {
                Err(SubmitRefusal::IntegrationAbsent)
            } else {
                Err(SubmitRefusal::NotAtPrompt)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracker::SubmitId;

    #[test]
    fn only_idle_with_integration_accepts() {
        use Integration::*;
        let submitted = State::Submitted {
            id: SubmitId(1),
            text: "x".into(),
            at: 0,
        };
        let dead = State::Dead { status: Some(1) };
        let table: [(&State, Integration, Result<(), SubmitRefusal>); 12] = [
            (&State::Idle, Present, Ok(())),
            (&State::Idle, Unknown, Ok(())),
            (&State::Idle, Absent, Err(SubmitRefusal::IntegrationAbsent)),
            (&State::Running, Present, Err(SubmitRefusal::Busy)),
            (&submitted, Present, Err(SubmitRefusal::Busy)),
            (&State::Prompt, Present, Err(SubmitRefusal::NotAtPrompt)),
            (&State::Unknown, Unknown, Err(SubmitRefusal::NotAtPrompt)),
            (&State::Finished, Present, Err(SubmitRefusal::NotAtPrompt)),
            (
                &State::Unknown,
                Absent,
                Err(SubmitRefusal::IntegrationAbsent),
            ),
            (
                &State::Absent,
                Absent,
                Err(SubmitRefusal::IntegrationAbsent),
            ),
            (&dead, Present, Err(SubmitRefusal::PaneDead)),
            (&dead, Absent, Err(SubmitRefusal::PaneDead)),
        ];
        for (state, integration, want) in table {
            assert_eq!(
                decide_submit(state, integration),
                want,
                "{state:?} {integration:?}"
            );
        }
    }
}
