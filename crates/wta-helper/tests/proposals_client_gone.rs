//! A proposal whose CLI hangs up while its card waits (the agent killed
//! `wta propose-terminal-actions`, e.g. its tool call timed out) goes stale
//! like a superseded card: the card side hears why, and it can no longer be
//! confirmed. A CLI that stays connected keeps its card confirmable.
//! Real proposal socket, real Unix-socket clients.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::mpsc::UnboundedReceiver;
use wta_helper::proposals::service::CLIENT_GONE_REASON;
use wta_helper::proposals::{
    ClaimError, ProposalEvent, ProposalServer, ProposalService, TurnContext,
};
use wta_protocol::{FinalStatus, PaneId, ProposalId, ProposalRequest};

const GOOD: &str = r#"{"schema_version":1,"origin":"terminal_agent","recommended_choice":1,"choices":[{"choice":1,"title":"List","actions":[{"type":"send","input":"ls"}]}]}"#;
const T: Duration = Duration::from_secs(10);

struct Fixture {
    service: ProposalService,
    events: UnboundedReceiver<ProposalEvent>,
    server: ProposalServer,
    _dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let service = ProposalService::with_random_id().unwrap();
        let events = service.attach_ui();
        let server = ProposalServer::bind(service.clone(), &dir.path().join("wta")).unwrap();
        Self {
            service,
            events,
            server,
            _dir: dir,
        }
    }

    /// A client that sends a proposal on a fresh turn and reads `accepted`;
    /// returns its open connection and the card's id.
    async fn accepted_client(&mut self) -> (BufReader<UnixStream>, ProposalId) {
        let channel = self
            .service
            .issue_turn(TurnContext::agent_turn(Some(PaneId::from_number(1)), None))
            .unwrap();
        let line = ProposalRequest::new(channel, GOOD).to_line().unwrap();
        let mut stream = UnixStream::connect(self.server.path()).await.unwrap();
        stream.write_all(&line).await.unwrap();
        let mut client = BufReader::new(stream);
        let mut first = String::new();
        client.read_line(&mut first).await.unwrap();
        let validation: serde_json::Value = serde_json::from_str(&first).unwrap();
        assert_eq!(validation["status"], "accepted", "{first}");
        let id = match self.next_event().await {
            ProposalEvent::Accepted(card) => card.id,
            other => panic!("expected a card, got {other:?}"),
        };
        (client, id)
    }

    async fn next_event(&mut self) -> ProposalEvent {
        tokio::time::timeout(T, self.events.recv())
            .await
            .expect("a card event in time")
            .expect("the engine is alive")
    }
}

#[tokio::test]
async fn a_cli_that_hangs_up_makes_its_card_stale_and_unconfirmable() {
    let mut f = Fixture::new();
    let (client, id) = f.accepted_client().await;
    drop(client);
    assert_eq!(
        f.next_event().await,
        ProposalEvent::Ended {
            id,
            status: FinalStatus::Cancelled,
            reason: Some(CLIENT_GONE_REASON.to_owned()),
        }
    );
    assert!(matches!(
        f.service.confirm(id, 1),
        Err(ClaimError::NotLive(_))
    ));
}

#[tokio::test]
async fn a_cli_still_waiting_keeps_its_card_confirmable_and_hears_confirmed() {
    let mut f = Fixture::new();
    let (mut client, id) = f.accepted_client().await;
    assert!(f.events.try_recv().is_err(), "no event while the CLI waits");
    let confirmed = f.service.confirm(id, 1).expect("the card is still live");
    let mut line = String::new();
    tokio::time::timeout(T, client.read_line(&mut line))
        .await
        .unwrap()
        .unwrap();
    let final_line: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(final_line["status"], "confirmed", "{line}");
    assert!(confirmed.executions.is_connected());
}

#[tokio::test]
async fn a_hang_up_after_the_card_was_confirmed_changes_nothing() {
    let mut f = Fixture::new();
    let (client, id) = f.accepted_client().await;
    let confirmed = f.service.confirm(id, 1).expect("the card is live");
    assert!(matches!(
        f.next_event().await,
        ProposalEvent::Ended {
            status: FinalStatus::Confirmed,
            reason: None,
            ..
        }
    ));
    drop(client);
    tokio::time::timeout(T, async {
        while confirmed.executions.is_connected() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the connection task lets go of the sink");
    assert!(f.events.try_recv().is_err(), "no second end for the card");
}
