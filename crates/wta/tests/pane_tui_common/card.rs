//! The agent pane's cards, read off a captured screen: which card is up and
//! whether it takes keys yet. Used by every end-to-end test that answers a
//! card, so none of them waits a fixed time for the key guard.
//!
//! A card is a bordered box (`╭ title ─╮`, `│ … │` rows, `╰ keys ─╯`). Until
//! the guard arms it (`wta_state::guard`) its bottom border says "read the
//! card first" instead of its keys; the view drops the hint only once the
//! card takes keys, so a box whose bottom shows its keys (they always keep
//! `Esc`) is an armed card.
//! A proposal card is found by its button row (`[ Run ]`, `[ Insert ]`,
//! `[ Open ]`, the last row inside the box), never by a bare label: the
//! transcript row of a proposal reads "Propose: Run …" too.
//!
//! A capture can land mid-frame (the new box drawn above an old bottom
//! border), so a card counts as armed once two captures in a row show the
//! same armed box. The texts come from the English translations (the test
//! panes run with `LANG=C.UTF-8`, see `wta_testkit::env`). Only the
//! bordered form is read: the test panes are 40 rows tall, the compact
//! forms are for panes of a few rows.

#![allow(dead_code)]

use std::time::Duration;

use wta_testkit::{TmuxServer, wait_for_value};

fn en(key: &str) -> String {
    wta_i18n::tr_in("en", key)
}

/// A card to wait for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Card {
    /// A proposal card offering this button (its label: `Run`, `Insert`, `Open`).
    Proposal(String),
    /// A tool permission card.
    Permission,
    /// The agent's question.
    Question,
}

impl Card {
    /// The proposal card offering `button`: `"Run"`, `" Run "` and
    /// `"[ Run ]"` all name the Run button. Panics on a label no card has.
    pub fn proposal(button: &str) -> Self {
        let label = button
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim();
        let labels = [
            "chat.proposal.run",
            "chat.proposal.insert",
            "chat.proposal.open",
        ]
        .map(en);
        assert!(
            labels.iter().any(|l| l == label),
            "{button:?} is not a proposal button; the buttons are {labels:?}"
        );
        Self::Proposal(label.to_owned())
    }

    fn describe(&self) -> String {
        match self {
            Self::Proposal(label) => format!("the proposal card with [ {label} ]"),
            Self::Permission => "the permission card".to_owned(),
            Self::Question => "the question card".to_owned(),
        }
    }

    /// Whether `b` is this card (armed or not).
    fn is(&self, b: &Bordered<'_>) -> bool {
        match self {
            Self::Proposal(label) => b.body.last().is_some_and(|row| {
                row.contains(&format!("[ {label} ]")) || row.contains(&format!("[{label}]"))
            }),
            Self::Permission => b.top.contains(&en("card.permission_title")),
            Self::Question => b.top.contains(&en("question.title")),
        }
    }
}

/// One bordered box of a screen.
#[derive(Debug, PartialEq, Eq)]
struct Bordered<'s> {
    top: &'s str,
    body: Vec<&'s str>,
    bottom: &'s str,
}

impl Bordered<'_> {
    fn text(&self) -> String {
        let mut rows = vec![self.top];
        rows.extend(&self.body);
        rows.push(self.bottom);
        rows.join("\n")
    }
}

/// The complete boxes of `screen`, top to bottom.
fn boxes(screen: &str) -> Vec<Bordered<'_>> {
    let mut found = Vec::new();
    let mut open: Option<Bordered<'_>> = None;
    for line in screen.lines() {
        let row = line.trim_end();
        if row.starts_with('╭') && row.ends_with('╮') {
            open = Some(Bordered {
                top: row,
                body: Vec::new(),
                bottom: "",
            });
        } else if let Some(mut b) = open.take() {
            if row.starts_with('│') && row.ends_with('│') {
                b.body.push(row);
                open = Some(b);
            } else if row.starts_with('╰') && row.ends_with('╯') {
                b.bottom = row;
                found.push(b);
            }
        }
    }
    found
}

/// Where `card` stands on `screen`.
#[derive(Debug, PartialEq, Eq)]
pub enum Seen {
    Absent,
    /// Drawn, its bottom still saying to read it first.
    Unarmed,
    /// Drawn with its keys: it takes them. The box's text.
    Armed(String),
}

/// Whether `card` is on `screen`, and armed.
pub fn seen(screen: &str, card: &Card) -> Seen {
    let hint = en("card.read_first");
    // Every armed card's keys line keeps the way to cancel (it is the last
    // part to give way), and no armed card says to read it first.
    let esc = en("keys.esc");
    let Some(b) = boxes(screen).into_iter().find(|b| card.is(b)) else {
        return Seen::Absent;
    };
    if !b.bottom.contains(&hint) && b.bottom.contains(&esc) {
        Seen::Armed(b.text())
    } else {
        Seen::Unarmed
    }
}

/// Waits until `card` is up in `pane` and takes keys (two captures in a
/// row show it armed, see the module docs); returns the screen.
pub fn wait_armed(tmux: &TmuxServer, pane: &str, card: &Card, timeout: Duration) -> String {
    let mut last: Option<String> = None;
    let what = format!("{} to be up and armed in pane {pane}", card.describe());
    wait_for_value(&what, timeout, || {
        let screen = tmux.capture(pane);
        match seen(&screen, card) {
            Seen::Armed(text) if last.as_deref() == Some(text.as_str()) => Some(screen),
            Seen::Armed(text) => {
                last = Some(text);
                None
            }
            Seen::Absent | Seen::Unarmed => {
                last = None;
                None
            }
        }
    })
    .unwrap_or_else(|e| panic!("{e}; screen was:\n{}", tmux.capture(pane)))
}

/// Whether `card` is still up and armed in `pane`.
pub fn still_armed(tmux: &TmuxServer, pane: &str, card: &Card) -> bool {
    matches!(seen(&tmux.capture(pane), card), Seen::Armed(_))
}
