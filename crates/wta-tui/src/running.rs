//! The status line's running-command segment (issue 30): a command a card
//! ran that outlived its proposal's time limit, with how long it has run
//! (`▶ cargo build · 2m 10s`), and `+N` when more run. Narrower forms drop
//! the command's end, then the command. The helper sends the list about
//! once a second while anything runs, so the time moves only then.

use ratatui::text::Span;
use unicode_width::UnicodeWidthStr;
use wta_state::{AppState, elapsed_text};

use crate::theme;

/// Characters of the command kept in the widest form.
const COMMAND_WIDTH: usize = 32;

/// The segment's forms, widest first; `None` while nothing runs.
pub(crate) fn segment(state: &AppState) -> Option<Vec<Vec<Span<'static>>>> {
    let shown = state.running_shown()?;
    let time = elapsed_text(shown.elapsed);
    let more = match shown.count {
        0 | 1 => String::new(),
        n => format!(" +{}", n - 1),
    };
    let form = |command: Option<String>| {
        let mut spans = vec![Span::styled("▶ ", theme::accent())];
        if let Some(command) = command {
            spans.push(Span::raw(command));
            spans.push(Span::styled(format!("{more} · "), theme::dim()));
        } else if !more.is_empty() {
            spans.push(Span::styled(
                format!("{} · ", more.trim_start()),
                theme::dim(),
            ));
        }
        spans.push(Span::styled(time.clone(), theme::dim()));
        spans
    };
    let command = &shown.oldest.command;
    let mut forms = vec![form(Some(cut(command, COMMAND_WIDTH)))];
    if command.width() > 12 {
        forms.push(form(Some(cut(command, 12))));
    }
    forms.push(form(None));
    Some(forms)
}

/// `text` in at most `max` columns, `…` marking a cut.
fn cut(text: &str, max: usize) -> String {
    if text.width() <= max {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > max.saturating_sub(1) {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_command_is_cut_to_its_columns() {
        assert_eq!(cut("cargo build", 32), "cargo build");
        assert_eq!(cut("cargo build --release --workspace", 12), "cargo build…");
        assert_eq!(cut("ビルドを実行する", 7), "ビルド…");
    }
}
