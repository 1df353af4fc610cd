//! One transcript entry → its lines at a given width. Pure and cacheable:
//! the output depends only on the entry (id, revision), the width and
//! whether the entry has fold focus.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use wta_state::{
    Entry, Item, PlanEntry, PlanStatus, StopReason, SystemLevel, ToolCall, ToolKind, ToolStatus,
};

use crate::markdown;
use crate::theme;
use crate::wrap::{truncate, wrap, wrap_chars};

/// Output lines previewed under a tool call.
pub const TOOL_PREVIEW_LINES: usize = 4;
/// Lines of a live thought shown while it streams.
const LIVE_THOUGHT_LINES: usize = 3;

pub fn render_entry(entry: &Entry, width: usize, focused: bool) -> Vec<Line<'static>> {
    let width = width.max(10);
    let mut lines = match &entry.item {
        Item::User(text) => user(text, width),
        Item::Agent(text) => agent(text, width),
        Item::Thought {
            text,
            expanded,
            live,
        } => thought(text, *expanded, *live, width),
        Item::Tool(call) => tool(call, width),
        Item::Plan(plan) => plan_lines(plan, width),
        Item::System { level, text } => system(*level, text, width),
        Item::Divider(label) => divider(label, width),
        Item::TurnEnd {
            stop,
            collapsed,
            items,
        } => turn_end(*stop, *collapsed, *items, focused),
    };
    if focused && let Some(line) = lines.iter_mut().find(|l| l.width() > 0) {
        line.style = line.style.patch(theme::selected());
    }
    lines
}

fn blank() -> Line<'static> {
    Line::default()
}

fn user(text: &str, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![blank()];
    let first = [Span::styled("› ", theme::user_prefix())];
    let rest = [Span::raw("  ")];
    for (i, line) in text.split('\n').enumerate() {
        let prefix = if i == 0 { &first } else { &rest };
        lines.extend(wrap(
            &[Span::styled(line.to_owned(), theme::bold())],
            width,
            prefix,
            &rest,
        ));
    }
    lines
}

fn agent(text: &str, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![blank()];
    let body = markdown::render(text, width - 2);
    for (i, line) in body.into_iter().enumerate() {
        let mut spans = vec![if i == 0 {
            Span::styled("• ", theme::dim())
        } else {
            Span::raw("  ")
        }];
        spans.extend(line.spans);
        lines.push(Line::from(spans).style(line.style));
    }
    lines
}

fn thought(text: &str, expanded: bool, live: bool, width: usize) -> Vec<Line<'static>> {
    let text = text.trim();
    let rows: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut lines = vec![blank()];
    if !expanded && !live {
        let first = rows.first().copied().unwrap_or("");
        let more = if rows.len() > 1 {
            format!("  (+{} lines)", rows.len() - 1)
        } else {
            String::new()
        };
        let summary = truncate(first, width.saturating_sub(4 + more.len()));
        lines.push(Line::from(vec![
            Span::styled("∴ ", theme::thought()),
            Span::styled(summary, theme::thought()),
            Span::styled(more, theme::dim()),
        ]));
        return lines;
    }
    let shown = if live {
        &rows[rows.len().saturating_sub(LIVE_THOUGHT_LINES)..]
    } else {
        &rows[..]
    };
    let header = if live {
        "∴ Thinking…"
    } else {
        "∴ Thought"
    };
    lines.push(Line::from(Span::styled(header, theme::thought())));
    let indent = [Span::raw("  ")];
    for row in shown {
        lines.extend(wrap(
            &[Span::styled((*row).to_owned(), theme::thought())],
            width,
            &indent,
            &indent,
        ));
    }
    lines
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

fn tool(call: &ToolCall, width: usize) -> Vec<Line<'static>> {
    let title = if call.title.is_empty() {
        "Tool call"
    } else {
        call.title.as_str()
    };
    let mut head = vec![
        status_glyph(call.status),
        Span::raw(" "),
        Span::styled(format!("{} ", kind_glyph(call.kind)), theme::dim()),
        Span::styled(title.to_owned(), theme::bold()),
    ];
    if let Some(code) = call.exit_code {
        let style = if code == 0 {
            theme::dim()
        } else {
            theme::error()
        };
        head.push(Span::styled(format!(" · exit {code}"), style));
    }
    if call.status == ToolStatus::Pending || call.status == ToolStatus::InProgress {
        let label = if call.status == ToolStatus::Pending {
            " · pending"
        } else {
            " · running"
        };
        head.push(Span::styled(label, theme::dim()));
    }
    let mut lines = vec![blank()];
    lines.extend(wrap(&head, width, &[], &[Span::raw("    ")]));
    if let Some(target) = call.target.as_deref().filter(|t| *t != title) {
        let bar = [Span::styled("  └ ", theme::dim())];
        let indent = [Span::raw("    ")];
        let first = target.lines().next().unwrap_or("");
        lines.extend(
            wrap_chars(first, theme::accent(), width, &bar, &indent)
                .into_iter()
                .take(3),
        );
    }
    let output = &call.output;
    let start = output.len().saturating_sub(TOOL_PREVIEW_LINES);
    let hidden = start + call.output_dropped;
    let gutter = Span::styled("    │ ", theme::dim());
    if hidden > 0 {
        lines.push(Line::from(vec![
            gutter.clone(),
            Span::styled(format!("… {hidden} earlier lines"), theme::dim()),
        ]));
    }
    for row in &output[start..] {
        let text = truncate(row, width.saturating_sub(6));
        lines.push(Line::from(vec![
            gutter.clone(),
            Span::styled(text, theme::dim()),
        ]));
    }
    lines
}

fn plan_lines(plan: &[PlanEntry], width: usize) -> Vec<Line<'static>> {
    let done = plan
        .iter()
        .filter(|e| e.status == PlanStatus::Completed)
        .count();
    let mut lines = vec![
        blank(),
        Line::from(vec![
            Span::styled("☰ ", theme::dim()),
            Span::styled("Plan", theme::bold()),
            Span::styled(format!(" · {done}/{} done", plan.len()), theme::dim()),
        ]),
    ];
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
        lines.extend(wrap(
            &[Span::styled(entry.text.clone(), style)],
            width,
            &first,
            &[Span::raw("    ")],
        ));
    }
    lines
}

fn system(level: SystemLevel, text: &str, width: usize) -> Vec<Line<'static>> {
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
    let mut lines = vec![blank()];
    let rest = [Span::raw("  ")];
    for (i, row) in text.split('\n').enumerate() {
        let first = if i == 0 {
            vec![Span::styled(mark, mark_style)]
        } else {
            rest.to_vec()
        };
        lines.extend(wrap(
            &[Span::styled(row.to_owned(), text_style)],
            width,
            &first,
            &rest,
        ));
    }
    lines
}

/// `── label ───…` across the width, after a blank line.
fn divider(label: &str, width: usize) -> Vec<Line<'static>> {
    let text = truncate(&format!("── {label} "), width);
    let fill = width.saturating_sub(unicode_width::UnicodeWidthStr::width(text.as_str()));
    vec![
        blank(),
        Line::from(vec![
            Span::styled(text, theme::accent()),
            Span::styled("─".repeat(fill), theme::accent()),
        ]),
    ]
}

fn turn_end(stop: StopReason, collapsed: bool, items: usize, focused: bool) -> Vec<Line<'static>> {
    let reason = match stop {
        StopReason::EndTurn => None,
        StopReason::Cancelled => Some(("⊘ cancelled", theme::attention())),
        StopReason::MaxTokens => Some((
            "! stopped: the agent hit its token limit",
            theme::attention(),
        )),
        StopReason::MaxTurnRequests => Some((
            "! stopped: too many model requests in one turn",
            theme::attention(),
        )),
        StopReason::Refusal => Some(("! the agent refused to continue", theme::error())),
    };
    let mut spans = Vec::new();
    if collapsed {
        let noun = if items == 1 { "item" } else { "items" };
        spans.push(Span::styled(
            format!("▸ {items} {noun} folded"),
            theme::dim(),
        ));
    } else if focused {
        spans.push(Span::styled("▾ fold this turn (Enter)", theme::dim()));
    }
    if let Some((text, style)) = reason {
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", theme::dim()));
        }
        spans.push(Span::styled(text, style));
    }
    if spans.is_empty() {
        return Vec::new();
    }
    spans.insert(0, Span::raw("  "));
    vec![Line::from(spans)]
}
