//! The pane the reducer tests drive: an `AppState` with a session, a
//! clock the test moves, and keys and domain events through `update`.

use std::time::{Duration, Instant};

use super::*;

pub(crate) struct Pane {
    pub state: AppState,
    pub t0: Instant,
    pub now: Instant,
}

impl Pane {
    /// A session `s1` of the demo agent on model `m1`.
    pub fn ready() -> Self {
        Self::on_model(Some("m1"))
    }

    /// A session `s1` of the demo agent; `model` as the agent reported it.
    pub fn on_model(model: Option<&str>) -> Self {
        let t0 = Instant::now();
        let mut pane = Pane {
            state: AppState::new("demo"),
            t0,
            now: t0,
        };
        pane.domain(DomainEvent::SessionStarted {
            agent: "demo".into(),
            model: model.map(Into::into),
        });
        pane
    }

    pub fn at(&mut self, ms: u64) -> &mut Self {
        self.now = self.t0 + Duration::from_millis(ms);
        self
    }

    pub fn send(&mut self, event: Event) -> Vec<Effect> {
        update(&mut self.state, event, self.now)
    }

    pub fn key(&mut self, key: Key) -> Vec<Effect> {
        self.send(Event::Key(key))
    }

    pub fn code(&mut self, code: KeyCode) -> Vec<Effect> {
        self.key(Key::plain(code))
    }

    pub fn enter(&mut self) -> Vec<Effect> {
        self.code(KeyCode::Enter)
    }

    pub fn typed(&mut self, text: &str) -> Vec<Effect> {
        text.chars().flat_map(|c| self.key(Key::ch(c))).collect()
    }

    pub fn domain(&mut self, event: DomainEvent) -> Vec<Effect> {
        self.send(Event::Domain(event))
    }

    pub fn last_system(&self) -> Option<(SystemLevel, String)> {
        self.state
            .transcript
            .entries()
            .iter()
            .rev()
            .find_map(|e| match &e.item {
                Item::System { level, text } => Some((*level, text.clone())),
                _ => None,
            })
    }
}

pub(crate) fn permission(id: u64) -> PermissionRequest {
    let option = |id: &str, kind| PermissionOption {
        id: id.into(),
        name: format!("{id} name"),
        kind,
    };
    PermissionRequest {
        id: PermissionRequestId(id),
        title: "Run tests".into(),
        kind: ToolKind::Execute,
        target: Some("cargo test".into()),
        options: vec![
            option("allow", PermissionOptionKind::AllowOnce),
            option("always", PermissionOptionKind::AllowAlways),
            option("reject", PermissionOptionKind::RejectOnce),
        ],
    }
}
