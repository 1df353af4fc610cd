//! The transcript: an append-mostly list of entries grouped into turns.
//!
//! Every entry has a stable id and a revision that changes whenever its
//! rendering could change, so views can cache wrapped lines per
//! (id, revision, width). This module owns folding (completed turns and
//! thoughts) and where streamed chunks land; it never renders.

use super::domain::{PlanEntry, StopReason, TerminalView, ToolCall, ToolCallUpdate};

/// Stable id of a transcript entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemId(pub u64);

/// Sequence number of a prompt turn in this pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TurnId(pub u64);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemLevel {
    Info,
    Warn,
    Error,
}

/// What an entry shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A prompt the user sent (or one replayed by `session/load`).
    User(String),
    /// Agent reply, markdown source, grows while streaming.
    Agent(String),
    /// Agent reasoning: dimmed; folded to one line unless expanded or live.
    Thought {
        text: String,
        expanded: bool,
        live: bool,
    },
    Tool(ToolCall),
    Plan(Vec<PlanEntry>),
    System {
        level: SystemLevel,
        text: String,
    },
    /// A rule across the transcript with a label: what came before belongs
    /// to an earlier connection (e.g. "reconnected to a new master").
    Divider(String),
    /// Closes a turn; when `collapsed`, the turn shows only its prompt and this line.
    TurnEnd {
        stop: StopReason,
        collapsed: bool,
        items: usize,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: ItemId,
    /// Changes whenever the entry's rendering may change.
    pub rev: u64,
    pub turn: Option<TurnId>,
    pub item: Item,
}

#[derive(Debug, Clone, Default)]
pub struct Transcript {
    entries: Vec<Entry>,
    next_id: u64,
    next_rev: u64,
    next_turn: u64,
    open_turn: Option<TurnId>,
}

impl Transcript {
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// True between a sent prompt and its `TurnEnded`.
    pub fn turn_running(&self) -> bool {
        self.open_turn.is_some()
    }

    /// Drops everything shown; a running turn keeps streaming into new entries.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    fn rev(&mut self) -> u64 {
        self.next_rev += 1;
        self.next_rev
    }

    fn push(&mut self, turn: Option<TurnId>, item: Item) -> ItemId {
        self.next_id += 1;
        let id = ItemId(self.next_id);
        let rev = self.rev();
        self.settle_thoughts(&item);
        self.entries.push(Entry {
            id,
            rev,
            turn,
            item,
        });
        id
    }

    /// A thought stops being live once anything else follows it.
    fn settle_thoughts(&mut self, next: &Item) {
        if matches!(next, Item::Thought { .. }) {
            return;
        }
        let rev = self.next_rev;
        if let Some(entry) = self.entries.last_mut()
            && let Item::Thought { live, .. } = &mut entry.item
            && *live
        {
            *live = false;
            entry.rev = rev;
        }
    }

    fn touch_last(&mut self) {
        let rev = self.rev();
        if let Some(last) = self.entries.last_mut() {
            last.rev = rev;
        }
    }

    /// Starts a turn with the user's prompt.
    pub fn begin_turn(&mut self, prompt: &str) -> TurnId {
        self.next_turn += 1;
        let turn = TurnId(self.next_turn);
        self.open_turn = Some(turn);
        self.push(Some(turn), Item::User(prompt.to_owned()));
        turn
    }

    /// A replayed user message (session/load): shown, but opens no turn.
    pub fn push_replayed_user(&mut self, text: &str) {
        self.push(None, Item::User(text.to_owned()));
    }

    pub fn push_system(&mut self, level: SystemLevel, text: &str) {
        self.push(
            self.open_turn,
            Item::System {
                level,
                text: text.to_owned(),
            },
        );
    }

    /// A labelled rule; never part of a turn.
    pub fn push_divider(&mut self, label: &str) {
        self.push(None, Item::Divider(label.to_owned()));
    }

    /// Appends a reply chunk to the streaming message, or starts one.
    /// Chunks that arrive just after the turn ended (some agents do this)
    /// still join the reply they belong to.
    pub fn append_agent(&mut self, chunk: &str) {
        let n = self.entries.len();
        let target = match self.entries.last() {
            Some(Entry {
                item: Item::Agent(_),
                turn,
                ..
            }) if *turn == self.open_turn => Some(n - 1),
            Some(Entry {
                item: Item::TurnEnd { .. },
                ..
            }) if self.open_turn.is_none() && n >= 2 => {
                matches!(self.entries[n - 2].item, Item::Agent(_)).then_some(n - 2)
            }
            _ => None,
        };
        match target {
            Some(index) => {
                let rev = self.rev();
                let entry = &mut self.entries[index];
                if let Item::Agent(text) = &mut entry.item {
                    text.push_str(chunk);
                }
                entry.rev = rev;
            }
            None => {
                self.push(self.open_turn, Item::Agent(chunk.to_owned()));
            }
        }
    }

    pub fn append_thought(&mut self, chunk: &str) {
        if let Some(Entry {
            item: Item::Thought {
                text, live: true, ..
            },
            ..
        }) = self.entries.last_mut()
        {
            text.push_str(chunk);
            self.touch_last();
            return;
        }
        let item = Item::Thought {
            text: chunk.to_owned(),
            expanded: false,
            live: true,
        };
        self.push(self.open_turn, item);
    }

    fn find_tool(&mut self, id: &super::domain::ToolCallId) -> Option<&mut Entry> {
        self.entries
            .iter_mut()
            .rev()
            .find(|e| matches!(&e.item, Item::Tool(call) if &call.id == id))
    }

    /// A new tool call, or a full replacement of a known one.
    pub fn upsert_tool(&mut self, call: ToolCall) {
        let rev = self.rev();
        if let Some(entry) = self.find_tool(&call.id) {
            entry.item = Item::Tool(call);
            entry.rev = rev;
        } else {
            self.push(self.open_turn, Item::Tool(call));
        }
    }

    /// Applies an update; an update for an unknown id creates the row.
    pub fn update_tool(&mut self, update: ToolCallUpdate) {
        let rev = self.rev();
        if let Some(entry) = self.find_tool(&update.id) {
            if let Item::Tool(call) = &mut entry.item {
                call.apply(update);
            }
            entry.rev = rev;
        } else {
            let mut call = ToolCall {
                id: update.id.clone(),
                ..ToolCall::default()
            };
            call.apply(update);
            self.push(self.open_turn, Item::Tool(call));
        }
    }

    /// Shows an agent terminal on every tool call that runs in it.
    pub fn show_terminal(&mut self, view: &TerminalView) {
        let rev = self.rev();
        for entry in &mut self.entries {
            if let Item::Tool(call) = &mut entry.item
                && call.terminal.as_deref() == Some(view.id.as_str())
            {
                call.show_terminal(view);
                entry.rev = rev;
            }
        }
    }

    /// Replaces the current turn's plan in place, or adds one.
    pub fn set_plan(&mut self, plan: Vec<PlanEntry>) {
        let rev = self.rev();
        let turn = self.open_turn;
        let existing = self
            .entries
            .iter_mut()
            .rev()
            .take_while(|e| turn.is_some() && e.turn == turn)
            .find(|e| matches!(e.item, Item::Plan(_)));
        if let Some(entry) = existing {
            entry.item = Item::Plan(plan);
            entry.rev = rev;
        } else {
            self.push(turn, Item::Plan(plan));
        }
    }

    /// Closes the running turn (no-op when none is running).
    pub fn end_turn(&mut self, stop: StopReason) {
        let Some(turn) = self.open_turn.take() else {
            return;
        };
        let items = self
            .entries
            .iter()
            .filter(|e| e.turn == Some(turn) && !matches!(e.item, Item::User(_)))
            .count();
        self.push(
            Some(turn),
            Item::TurnEnd {
                stop,
                collapsed: false,
                items,
            },
        );
    }

    /// Folds or unfolds a completed turn or a thought. Returns false if `id`
    /// is not foldable.
    pub fn toggle(&mut self, id: ItemId) -> bool {
        let rev = self.rev();
        let Some(entry) = self.entries.iter_mut().find(|e| e.id == id) else {
            return false;
        };
        match &mut entry.item {
            Item::TurnEnd { collapsed, .. } => *collapsed = !*collapsed,
            Item::Thought { expanded, .. } => *expanded = !*expanded,
            _ => return false,
        }
        entry.rev = rev;
        true
    }

    fn collapsed_turns(&self) -> Vec<TurnId> {
        self.entries
            .iter()
            .filter_map(|e| match e.item {
                Item::TurnEnd {
                    collapsed: true, ..
                } => e.turn,
                _ => None,
            })
            .collect()
    }

    /// Entries to draw, in order: a collapsed turn keeps its prompt and end line.
    pub fn visible(&self) -> impl Iterator<Item = &Entry> {
        let collapsed = self.collapsed_turns();
        self.entries.iter().filter(move |e| match e.turn {
            Some(turn) if collapsed.contains(&turn) => {
                matches!(e.item, Item::User(_) | Item::TurnEnd { .. })
            }
            _ => true,
        })
    }

    /// Visible entries that can be folded (completed turns, settled thoughts).
    pub fn foldables(&self) -> Vec<ItemId> {
        self.visible()
            .filter(|e| match &e.item {
                Item::TurnEnd { .. } => true,
                Item::Thought { live, .. } => !live,
                _ => false,
            })
            .map(|e| e.id)
            .collect()
    }
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
