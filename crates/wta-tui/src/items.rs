//! One transcript entry → its lines at a given width. Pure and cacheable:
//! the output depends only on the entry (id, revision), the width and
//! whether the entry has fold focus (and the language, which is set once
//! before the first frame). [`entry_height`] runs the same layout into a
//! line counter, so it always equals `render_entry(..).len()`.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;
use wta_i18n::tr;
use wta_state::{
    Entry, Item, PlanEntry, PlanStatus, StopReason, SystemLevel, ToolCall, ToolKind, ToolStatus,
};

use crate::markdown;
use crate::sink::{Count, Sink};
use crate::theme;
use crate::wrap::{truncate, wrap_chars_into, wrap_into};

/// Output lines previewed under a tool call.
pub const TOOL_PREVIEW_LINES: usize = 4;
/// Lines of a live thought shown while it streams.
const LIVE_THOUGHT_LINES: usize = 3;

pub fn render_entry(entry: &Entry, width: usize, focused: bool) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    layout(entry, width, focused, &mut lines);
    if focused && let Some(line) = lines.iter_mut().find(|l| l.width() > 0) {
        line.style = line.style.patch(theme::selected());
    }
    lines
}

/// The number of lines `render_entry` returns, without building them.
pub fn entry_height(entry: &Entry, width: usize, focused: bool) -> usize {
    let mut count = Count::default();
    layout(entry, width, focused, &mut count);
    count.len()
}

fn layout<S: Sink>(entry: &Entry, width: usize, focused: bool, out: &mut S) {
    let width = width.max(10);
    match &entry.item {
        Item::User(text) => user(text, width, out),
        Item::Agent(text) => agent(text, width, out),
        Item::Thought {
            text,
            expanded,
            live,
        } => thought(text, *expanded, *live, width, out),
        Item::Tool(call) => tool(call, width, out),
        Item::Plan(plan) => plan_lines(plan, width, out),
        Item::System { level, text } => system(*level, text, width, out),
        Item::Divider(label) => divider(label, width, out),
        Item::TurnEnd {
            stop,
            collapsed,
            items,
        } => turn_end(*stop, *collapsed, *items, focused, out),
    }
}

fn blank() -> Line<'static> {
    Line::default()
}

fn user<S: Sink>(text: &str, width: usize, out: &mut S) {
    out.line(blank);
    let first = [Span::styled("› ", theme::user_prefix())];
    let rest = [Span::raw("  ")];
    for (i, line) in text.split('\n').enumerate() {
        let prefix = if i == 0 { &first } else { &rest };
        wrap_into(
            &[Span::styled(line, theme::bold())],
            width,
            prefix,
            &rest,
            out,
        );
    }
}

fn agent<S: Sink>(text: &str, width: usize, out: &mut S) {
    out.line(blank);
    let mut body = S::default();
    markdown::render_into(text, width - 2, &mut body);
    out.append_indented(body, Span::styled("• ", theme::dim()), Span::raw("  "));
}

fn thought<S: Sink>(text: &str, expanded: bool, live: bool, width: usize, out: &mut S) {
    let text = text.trim();
    let rows: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    out.line(blank);
    if !expanded && !live {
        let first = rows.first().copied().unwrap_or("");
        let more = if rows.len() > 1 {
            format!("  ({})", tr!("transcript.more_lines", n = rows.len() - 1))
        } else {
            String::new()
        };
        out.line(|| {
            let summary = truncate(first, width.saturating_sub(4 + more.width()));
            Line::from(vec![
                Span::styled("∴ ", theme::thought()),
                Span::styled(summary, theme::thought()),
                Span::styled(more, theme::dim()),
            ])
        });
        return;
    }
    let shown = if live {
        &rows[rows.len().saturating_sub(LIVE_THOUGHT_LINES)..]
    } else {
        &rows[..]
    };
    let header = if live {
        format!("∴ {}", tr!("transcript.thinking"))
    } else {
        format!("∴ {}", tr!("transcript.thought"))
    };
    out.line(|| Line::from(Span::styled(header, theme::thought())));
    let indent = [Span::raw("  ")];
    for row in shown {
        wrap_into(
            &[Span::styled(*row, theme::thought())],
            width,
            &indent,
            &indent,
            out,
        );
    }
}

pub fn kind_glyph(kind: ToolKind) -> &'static str {
    match kind {
        ToolKind::Read => "≡",
        ToolKind::Edit => "✎",
        ToolKind::Delete => "⌫",
        ToolKind::Move => "⇄",
        ToolKind::Search => "⌕",
        ToolKind::Execute => "$",
        ToolKind::Think => "∴",
        ToolKind::Fetch => "⇣",
        ToolKind::SwitchMode => "⇋",
        ToolKind::Other => "◆",
    }
}

fn status_glyph(status: ToolStatus) -> Span<'static> {
    match status {
        ToolStatus::Pending => Span::styled("○", theme::dim()),
        ToolStatus::InProgress => Span::styled("◐", theme::attention()),
        ToolStatus::Completed => Span::styled("✓", theme::ok()),
        ToolStatus::Failed => Span::styled("✗", theme::error()),
    }
}

fn tool<S: Sink>(call: &ToolCall, width: usize, out: &mut S) {
    let untitled;
    let title = if call.title.is_empty() {
        untitled = tr!("transcript.tool_call");
        untitled.as_str()
    } else {
        call.title.as_str()
    };
    let mut head = vec![
        status_glyph(call.status),
        Span::raw(" "),
        Span::styled(format!("{} ", kind_glyph(call.kind)), theme::dim()),
        Span::styled(title, theme::bold()),
    ];
    if let Some(code) = call.exit_code {
        let style = if code == 0 {
            theme::dim()
        } else {
            theme::error()
        };
        head.push(Span::styled(
            format!(" · {}", tr!("transcript.exit", code = code)),
            style,
        ));
    }
    if call.status == ToolStatus::Pending || call.status == ToolStatus::InProgress {
        let label = if call.status == ToolStatus::Pending {
            format!(" · {}", tr!("transcript.pending"))
        } else {
            format!(" · {}", tr!("transcript.running"))
        };
        head.push(Span::styled(label, theme::dim()));
    }
    out.line(blank);
    wrap_into(&head, width, &[], &[Span::raw("    ")], out);
    if let Some(target) = call.target.as_deref().filter(|t| *t != title) {
        let bar = [Span::styled("  └ ", theme::dim())];
        let indent = [Span::raw("    ")];
        let first = target.lines().next().unwrap_or("");
        let mut wrapped = S::default();
        wrap_chars_into(first, theme::accent(), width, &bar, &indent, &mut wrapped);
        out.append(wrapped, 3);
    }
    let output = &call.output;
    let start = output.len().saturating_sub(TOOL_PREVIEW_LINES);
    let hidden = start + call.output_dropped;
    let gutter = Span::styled("    │ ", theme::dim());
    if hidden > 0 {
        out.line(|| {
            Line::from(vec![
                gutter.clone(),
                Span::styled(tr!("transcript.earlier_lines", n = hidden), theme::dim()),
            ])
        });
    }
    for row in &output[start..] {
        out.line(|| {
            let text = truncate(row, width.saturating_sub(6));
            Line::from(vec![gutter.clone(), Span::styled(text, theme::dim())])
        });
    }
}

fn plan_lines<S: Sink>(plan: &[PlanEntry], width: usize, out: &mut S) {
    let done = plan
        .iter()
        .filter(|e| e.status == PlanStatus::Completed)
        .count();
    out.line(blank);
    out.line(|| {
        Line::from(vec![
            Span::styled("☰ ", theme::dim()),
            Span::styled(tr!("transcript.plan"), theme::bold()),
            Span::styled(
                format!(
                    " · {}",
                    tr!("transcript.plan_done", done = done, total = plan.len())
                ),
                theme::dim(),
            ),
        ])
    });
    for entry in plan {
        let (mark, style) = match entry.status {
            PlanStatus::Completed => ("  ✓ ", theme::dim().add_modifier(Modifier::CROSSED_OUT)),
            PlanStatus::InProgress => ("  ▸ ", theme::attention().add_modifier(Modifier::BOLD)),
            PlanStatus::Pending => ("  ○ ", Style::new()),
        };
        let mark_style = if entry.status == PlanStatus::Completed {
            theme::ok()
        } else {
            style
        };
        let first = [Span::styled(mark, mark_style)];
        wrap_into(
            &[Span::styled(entry.text.as_str(), style)],
            width,
            &first,
            &[Span::raw("    ")],
            out,
        );
    }
}

fn system<S: Sink>(level: SystemLevel, text: &str, width: usize, out: &mut S) {
    let (mark, mark_style, text_style) = match level {
        SystemLevel::Info => ("· ", theme::dim(), theme::dim()),
        SystemLevel::Warn => (
            "! ",
            theme::attention().add_modifier(Modifier::BOLD),
            theme::attention(),
        ),
        SystemLevel::Error => (
            "✗ ",
            theme::error().add_modifier(Modifier::BOLD),
            theme::error(),
        ),
    };
    out.line(blank);
    for (i, row) in text.split('\n').enumerate() {
        let (indent, hang) = hanging(row, width);
        let body = &row[indent..];
        let lead = if i == 0 {
            vec![
                Span::styled(mark, mark_style),
                Span::raw(" ".repeat(indent)),
            ]
        } else {
            vec![Span::raw(" ".repeat(2 + indent))]
        };
        let rest = [Span::raw(" ".repeat(2 + hang))];
        wrap_into(&[Span::styled(body, text_style)], width, &lead, &rest, out);
    }
}

/// How a row of a system line wraps: its leading spaces (`indent`, kept on
/// its first line) and the column its later lines start at (`hang`), both
/// after the line's mark. Later lines keep the row's indent; a row laid out
/// in two columns (`  /help    show commands`: two or more spaces after its
/// first words) hangs them under its second column, while that leaves a
/// third of the width for the text.
fn hanging(row: &str, width: usize) -> (usize, usize) {
    let indent = row.len() - row.trim_start_matches(' ').len();
    let body = &row[indent..];
    let column = body.find("  ").and_then(|gap| {
        let text = gap + body[gap..].len() - body[gap..].trim_start_matches(' ').len();
        (text < body.len()).then(|| indent + body[..text].width())
    });
    match column {
        Some(column) if width.saturating_sub(2 + column) >= width / 3 => (indent, column),
        _ => (indent, indent),
    }
}

/// `── label ───…` across the width, after a blank line.
fn divider<S: Sink>(label: &str, width: usize, out: &mut S) {
    out.line(blank);
    out.line(|| {
        let text = truncate(&format!("── {label} "), width);
        let fill = width.saturating_sub(unicode_width::UnicodeWidthStr::width(text.as_str()));
        Line::from(vec![
            Span::styled(text, theme::accent()),
            Span::styled("─".repeat(fill), theme::accent()),
        ])
    });
}

fn turn_end<S: Sink>(stop: StopReason, collapsed: bool, items: usize, focused: bool, out: &mut S) {
    let reason = match stop {
        StopReason::EndTurn => None,
        StopReason::Cancelled => Some(("⊘", "transcript.cancelled", theme::attention())),
        StopReason::MaxTokens => Some(("!", "transcript.max_tokens", theme::attention())),
        StopReason::MaxTurnRequests => Some(("!", "transcript.max_requests", theme::attention())),
        StopReason::Refusal => Some(("!", "transcript.refusal", theme::error())),
    }
    .map(|(glyph, key, style)| (format!("{glyph} {}", tr!(key)), style));
    let mut spans = Vec::new();
    if collapsed {
        let key = if items == 1 {
            "transcript.folded_one"
        } else {
            "transcript.folded_many"
        };
        spans.push(Span::styled(
            format!("▸ {}", tr!(key, n = items)),
            theme::dim(),
        ));
    } else if focused {
        spans.push(Span::styled(
            format!("▾ {}", tr!("transcript.fold_hint")),
            theme::dim(),
        ));
    }
    if let Some((text, style)) = reason {
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", theme::dim()));
        }
        spans.push(Span::styled(text, style));
    }
    if spans.is_empty() {
        return;
    }
    spans.insert(0, Span::raw("  "));
    out.line(|| Line::from(spans));
}
