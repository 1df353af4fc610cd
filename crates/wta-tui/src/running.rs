//! The status line's running-command segment (issue 30): a command a card
//! ran that outlived its proposal's time limit, with how long it has run
//! (`▶ cargo build · 2m 10s`), and `+N` when more run. Narrower forms drop
//! the command's end, then the command. The helper sends the list about
//! once a second while anything runs, so the time moves only then.

use ratatui::text::Span;
use unicode_width::UnicodeWidthStr;
use wta_state::{AppState, elapsed_text};

use crate::theme;
use crate::wrap::truncate;

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
    let mut forms = vec![form(Some(truncate(command, COMMAND_WIDTH)))];
    if command.width() > 12 {
        forms.push(form(Some(truncate(command, 12))));
    }
    forms.push(form(None));
    Some(forms)
}
