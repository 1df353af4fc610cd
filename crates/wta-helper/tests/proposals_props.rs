//! Property test of the proposal state machine (no panic, at most one claim
//! per proposal, one validation line per request) and a real-socket race:
//! two CLIs on one channel, exactly one accepted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use wta_helper::proposals::machine::{Effect, Event, ProposalState, Via, step};
use wta_helper::proposals::{ProposalServer, ProposalService, TurnContext};
use wta_protocol::{Channel, HelperId, PaneId, ProposalId, ProposalRequest, TurnNonce};

const HELPER: HelperId = HelperId::from_bytes([5; 16]);
const GOOD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"List","actions":[{"type":"send","input":"ls"}]}]}"#;

fn event(kind: u8, a: u8, b: u8, next: &mut u8) -> Event {
    let channel = Channel::new(
        if a.is_multiple_of(7) {
            HelperId::from_bytes([6; 16])
        } else {
            HELPER
        },
        TurnNonce::from_bytes([a % 4; 16]),
    );
    let payload = if b.is_multiple_of(3) { "{}" } else { GOOD };
    let id = ProposalId::from_bytes([b % 4; 16]);
    match kind % 12 {
        0 => Event::IssueChannel {
            nonce: TurnNonce::from_bytes([a % 4; 16]),
            turn: TurnContext::agent_turn(
                Some(PaneId::from_number(1)),
                Some(PaneId::from_number(u32::from(b % 3))),
            ),
        },
        1 => Event::Arm {
            channel,
            payload: payload.into(),
        },
        2 | 3 => {
            *next = next.wrapping_add(1);
            Event::Validate {
                request: ProposalRequest::new(channel, payload),
                proposal_id: ProposalId::from_bytes([*next % 4; 16]),
                ui_ready: !b.is_multiple_of(5),
                via: if b.is_multiple_of(7) {
                    Via::SessionEndpoint
                } else {
                    Via::Cli
                },
            }
        }
        4 | 5 => Event::Claim {
            proposal_id: id,
            choice: u64::from(b % 3),
        },
        6 => Event::CancelCard { proposal_id: id },
        7 => Event::TurnCancelled,
        8 => Event::TurnEnded,
        9 => Event::SessionReplaced,
        10 => Event::TransportLost,
        _ => Event::Tick,
    }
}

proptest! {
    #[test]
    fn the_machine_answers_each_request_once_and_claims_each_acceptance_at_most_once(
        ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), 0u64..700), 0..80)
    ) {
        let mut state = ProposalState::new(HELPER);
        let mut now = Instant::now();
        let mut next = 0u8;
        let mut accepted = 0usize;
        let mut claims = 0usize;
        for (kind, a, b, secs) in ops {
            now += Duration::from_secs(secs);
            let ev = event(kind, a, b, &mut next);
            let validates = matches!(ev, Event::Validate { .. });
            let (s, effects) = step(state, ev, now);
            state = s;
            let lines = effects.iter().filter(|e| matches!(e, Effect::Validation(_))).count();
            prop_assert_eq!(lines, usize::from(validates));
            accepted += effects.iter().filter(|e| matches!(e, Effect::Accepted(_))).count();
            claims += effects.iter().filter(|e| matches!(e, Effect::Claimed(_))).count();
            prop_assert!(claims <= accepted);
            prop_assert!(state.tombstone_count() <= 4);
        }
    }
}

#[test]
fn two_clients_racing_on_one_channel_get_exactly_one_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let service = ProposalService::with_random_id().unwrap();
        let _ui = service.attach_ui();
        let server = ProposalServer::bind(service.clone(), &dir.path().join("wta")).unwrap();
        let mode = std::fs::metadata(server.path()).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(mode.permissions().mode() & 0o777, 0o600);
        let channel = service
            .issue_turn(TurnContext::agent_turn(Some(PaneId::from_number(1)), None))
            .unwrap();
        let line = ProposalRequest::new(channel, GOOD).to_line().unwrap();
        let mut tasks = Vec::new();
        for _ in 0..2 {
            let (path, line) = (server.path().to_path_buf(), line.clone());
            tasks.push(tokio::spawn(async move {
                use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
                let mut s = tokio::net::UnixStream::connect(path).await.unwrap();
                s.write_all(&line).await.unwrap();
                let mut first = String::new();
                BufReader::new(s).read_line(&mut first).await.unwrap();
                serde_json::from_str::<serde_json::Value>(&first).unwrap()["status"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            }));
        }
        let mut statuses = Vec::new();
        for t in tasks {
            statuses.push(t.await.unwrap());
        }
        statuses.sort();
        assert_eq!(statuses, ["accepted", "already_consumed"]);
        let ids: HashSet<_> = statuses.iter().collect();
        assert_eq!(ids.len(), 2);
    });
}
