//! `/history` and `/export` on the app's side. `/history` asks for the
//! action history (`HistoryEffect::Read`); the helper reads it and answers
//! with [`crate::DomainEvent::HistoryList`], newest first, which opens a
//! picker; Enter asks for the entry to be proposed again
//! (`HistoryEffect::Repropose`): the helper makes it a new card through
//! the normal card path, so nothing runs until the user confirms that
//! card. Esc closes the picker as any other. `/export [FILE]` hands the
//! transcript as Markdown (`crate::export`) to the helper to write.

use wta_i18n::tr;

use super::commands::info;
use super::effects::Effect;
use super::state::{AppState, Picker, PickerItem, PickerKind};

/// What `/history` and `/export` ask the helper for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryEffect {
    /// Read the action history for the picker.
    Read,
    /// Propose entry `entry` (a [`PickerItem::id`] of the picker) again,
    /// as a new card for this pane.
    Repropose { entry: String },
    /// Write `markdown` to `file` (relative to the pane's directory; the
    /// default name when `None`) and say where.
    Export {
        file: Option<String>,
        markdown: String,
    },
}

/// The helper's answer to `Read`: the picker over `items` (newest first),
/// or a line saying there is nothing yet.
pub(crate) fn open(state: &mut AppState, items: Vec<PickerItem>) {
    if items.is_empty() {
        return info(state, &tr("history.picker_empty", &[]));
    }
    state.picker = Some(Picker {
        kind: PickerKind::History,
        title: tr("history.picker_title", &[]),
        items,
        selected: 0,
    });
}

/// Enter on an entry: ask for it as a new card.
pub(crate) fn picked(item: &PickerItem, fx: &mut Vec<Effect>) {
    fx.push(Effect::History(HistoryEffect::Repropose {
        entry: item.id.clone(),
    }));
}

/// `/export [FILE]`.
pub(crate) fn export(state: &AppState, file: Option<String>, fx: &mut Vec<Effect>) {
    fx.push(Effect::History(HistoryEffect::Export {
        file,
        markdown: super::export::markdown(state),
    }));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::events::{DomainEvent, KeyCode};
    use crate::test_pane::Pane;

    fn item(id: &str, label: &str) -> PickerItem {
        PickerItem {
            id: id.into(),
            label: label.into(),
            detail: "run · exit 0 · %1".into(),
            current: false,
        }
    }

    #[test]
    fn slash_history_reads_and_its_answer_opens_the_picker() {
        let mut pane = Pane::ready();
        pane.typed("/history");
        assert_eq!(pane.enter(), vec![Effect::History(HistoryEffect::Read)]);
        pane.domain(DomainEvent::HistoryList(vec![
            item("p2", "cargo test"),
            item("p1", "ls"),
        ]));
        let picker = pane.state.picker.as_ref().unwrap();
        assert_eq!(picker.kind, PickerKind::History);
        assert_eq!(picker.items.len(), 2);
    }

    #[test]
    fn enter_asks_for_a_new_card_and_runs_nothing() {
        let mut pane = Pane::ready();
        pane.domain(DomainEvent::HistoryList(vec![
            item("p2", "cargo test"),
            item("p1", "ls"),
        ]));
        pane.code(KeyCode::Down);
        let fx = pane.enter();
        assert_eq!(
            fx,
            vec![Effect::History(HistoryEffect::Repropose {
                entry: "p1".into()
            })]
        );
        assert!(pane.state.picker.is_none());
    }

    #[test]
    fn esc_closes_it_without_asking_anything() {
        let mut pane = Pane::ready();
        pane.domain(DomainEvent::HistoryList(vec![item("p1", "ls")]));
        assert!(pane.code(KeyCode::Esc).is_empty());
        assert!(pane.state.picker.is_none());
    }

    #[test]
    fn an_empty_history_says_so() {
        let mut pane = Pane::ready();
        pane.domain(DomainEvent::HistoryList(Vec::new()));
        assert!(pane.state.picker.is_none());
        let (_, text) = pane.last_system().unwrap();
        assert_eq!(text, "No decided actions in the history yet.");
    }

    #[test]
    fn slash_export_hands_over_the_markdown_and_the_file() {
        let mut pane = Pane::ready();
        pane.typed("/export notes.md");
        let fx = pane.enter();
        let [Effect::History(HistoryEffect::Export { file, markdown })] = fx.as_slice() else {
            panic!("{fx:?}");
        };
        assert_eq!(file.as_deref(), Some("notes.md"));
        assert!(
            markdown.starts_with("# Agent pane transcript"),
            "{markdown}"
        );
        pane.typed("/export");
        let fx = pane.enter();
        assert!(
            matches!(
                fx.as_slice(),
                [Effect::History(HistoryEffect::Export { file: None, .. })]
            ),
            "{fx:?}"
        );
    }
}
