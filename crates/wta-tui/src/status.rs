//! The status line: what the pane waits for (the agent or the connection,
//! with spinner and elapsed time; the user, with what to answer), agent and
//! model on the left;
//! scroll state, yolo, target pane and cwd, and usage/cost on the right,
//! dropped from the far right first when the pane is narrow; on the left
//! the model goes, then the agent, never the activity (`fit.rs`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;
use wta_state::{Activity, AppState, Scroll, Usage, UserWait, YoloBlock};

use wta_i18n::tr;

use crate::fit::{Part, fit};
use crate::theme;
use crate::wrap::spans_width;

pub(crate) const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

fn left(state: &AppState, width: usize) -> Vec<Span<'static>> {
    if state.quit_armed() {
        return vec![Span::styled(
            format!(" {}", tr!("status.quit_armed")),
            theme::attention().add_modifier(Modifier::BOLD),
        )];
    }
    let spinner = SPINNER[(state.frame % SPINNER.len() as u64) as usize];
    // What the pane waits for: the agent and the connection with the
    // time they have taken, the user with what to answer.
    let elapsed = |secs: u64| Span::styled(format!(" {secs}s"), theme::dim());
    let spans = match state.activity() {
        Activity::MasterLost => vec![Span::styled(
            format!(" ✗ {}", tr!("status.master_gone")),
            theme::error(),
        )],
        Activity::Connecting {
            elapsed: e,
            reconnect,
        } => {
            let word = if reconnect {
                tr!("status.reconnecting")
            } else {
                tr!("status.connecting")
            };
            vec![
                Span::styled(format!(" {spinner} {word}"), theme::dim()),
                elapsed(e.as_secs()),
            ]
        }
        Activity::Ready => vec![
            Span::styled(" ● ", theme::ok()),
            Span::raw(tr!("status.ready")),
        ],
        Activity::Thinking { elapsed: e } => vec![
            Span::styled(format!(" {spinner} "), theme::accent()),
            Span::raw(tr!("status.thinking")),
            elapsed(e.as_secs()),
        ],
        Activity::WaitingForYou(what) => {
            let key = match what {
                UserWait::Permission => "status.waiting_permission",
                UserWait::Question => "status.waiting_question",
                UserWait::Card => "status.waiting_card",
            };
            vec![Span::styled(format!(" ◆ {}", tr!(key)), theme::attention())]
        }
        Activity::Failed(_) => vec![Span::styled(
            format!(" ✗ {}", tr!("status.disconnected")),
            theme::error(),
        )],
        Activity::Setup => vec![Span::styled(
            format!(" ◆ {}", tr!("status.setup")),
            theme::attention(),
        )],
    };
    // When narrow, the model goes first, then the agent; the activity is
    // kept (cut only when nothing else is left).
    let mut parts = vec![Part::spans(9, vec![spans]).kept().flexible()];
    parts.push(Part::spans(
        1,
        vec![vec![Span::styled(state.agent.clone(), theme::bold())]],
    ));
    if let Some(model) = &state.model {
        parts.push(Part::spans(0, vec![vec![Span::raw(model.clone())]]));
    }
    fit(&parts, &Span::styled(" · ", theme::dim()), width)
}

fn usage_text(usage: &Usage) -> String {
    let tokens = match usage.used_tokens {
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1}k", n as f64 / 1e3),
        n => n.to_string(),
    };
    let counted = tr!("status.tokens", count = tokens);
    let mut text = match usage.context_tokens {
        Some(size) if size > 0 => format!("{counted} ({}%)", usage.used_tokens * 100 / size),
        _ => counted,
    };
    if let Some((amount, currency)) = &usage.cost {
        let symbol = if currency == "USD" {
            "$".to_owned()
        } else {
            format!("{currency} ")
        };
        text.push_str(&format!(" · {symbol}{amount:.2}"));
    }
    text
}

/// One right-hand segment: its forms, widest first (the first that fits is shown).
type Segment = Vec<Vec<Span<'static>>>;

/// Right-hand segments in priority order (most important first).
fn right(state: &AppState) -> Vec<Segment> {
    let mut segments = Vec::new();
    // A command still running after its time limit (`running.rs`).
    segments.extend(crate::running::segment(state));
    if matches!(state.scroll, Scroll::Pinned { .. }) {
        segments.push(vec![vec![Span::styled(
            format!("↑ {}", tr!("status.history")),
            theme::accent(),
        )]]);
    }
    // Yolo is a safety setting: "on" outranks everything, its other
    // states rank after the failure pill and before the target and usage.
    // The helper's machine decided it; this only says it.
    let yolo = vec![vec![match (state.yolo.on, state.yolo.blocked) {
        (true, _) => Span::styled(
            tr!("status.yolo_on"),
            theme::attention().add_modifier(Modifier::BOLD),
        ),
        (false, Some(YoloBlock::Policy)) => Span::styled(tr!("status.yolo_blocked"), theme::dim()),
        (false, None) => Span::styled(tr!("status.yolo_off"), theme::dim()),
    }]];
    if state.yolo.on {
        segments.push(yolo.clone());
    }
    // Autofix's pill: what failed, where, and the key that asks for a fix
    // (shorter where the line is narrow).
    if let Some(failure) = &state.failure {
        let pill = |what: String, key: String| {
            vec![
                Span::styled(what, theme::error()),
                Span::styled(key, theme::attention()),
            ]
        };
        segments.push(vec![
            pill(
                format!(
                    "✗ {}",
                    tr!(
                        "status.failure",
                        code = failure.exit_code,
                        pane = failure.pane
                    )
                ),
                format!(" · {}", tr!("status.fix_key")),
            ),
            pill(
                format!("✗ {} {}", failure.exit_code, failure.pane),
                " ^F".to_owned(),
            ),
        ]);
    }
    // A plain ssh in the target pane takes the target's place, before
    // yolo's off state (`ssh_status.rs`).
    let ssh = crate::ssh_status::segment(state);
    let plain_target = ssh.is_none();
    segments.extend(ssh);
    if !state.yolo.on {
        segments.push(yolo);
    }
    // The target: its pane and cwd, then a shorter cwd, then the pane
    // alone, so the pane cards run in stays named on a crowded line.
    if let Some(target) = state.target.as_ref().filter(|_| plain_target) {
        let pane = || Span::styled(target.pane.clone(), theme::accent());
        let mut forms: Segment = target
            .cwd
            .iter()
            .flat_map(|cwd| [28, 14].map(|max| shorten_path(cwd, max)))
            .map(|cwd| vec![pane(), Span::styled(format!(" {cwd}"), theme::dim())])
            .collect();
        forms.dedup_by(|a, b| spans_width(a) == spans_width(b));
        forms.push(vec![pane()]);
        segments.push(forms);
    }
    if let Some(usage) = &state.usage {
        segments.push(vec![vec![Span::styled(usage_text(usage), theme::dim())]]);
    }
    segments
}

/// Keeps the end of a long path: `…/src/wta`.
fn shorten_path(path: &str, max: usize) -> String {
    if path.width() <= max {
        return path.to_owned();
    }
    // The longest end of the path that fits beside `…`, by display width.
    let mut used = 0;
    let mut start = path.len();
    for (i, c) in path.char_indices().rev() {
        used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used > max.saturating_sub(1) {
            break;
        }
        start = i;
    }
    let tail = &path[start..];
    format!("…{tail}")
}

pub fn render(state: &AppState, frame: &mut Frame, area: Rect) {
    let width = area.width as usize;
    // One column stays free at the right edge.
    let left = left(state, width.saturating_sub(1));
    let mut used = spans_width(&left) + 1;
    let mut right_spans: Vec<Span<'static>> = Vec::new();
    let mut chosen: Vec<Vec<Span<'static>>> = Vec::new();
    for forms in right(state) {
        let fits = forms
            .into_iter()
            .map(|form| (spans_width(&form) + 3, form))
            .find(|(w, _)| used + w <= width);
        if let Some((w, form)) = fits {
            used += w;
            chosen.push(form);
        }
    }
    for (i, segment) in chosen.into_iter().enumerate() {
        if i > 0 {
            right_spans.push(Span::styled(" · ", theme::dim()));
        }
        right_spans.extend(segment);
    }
    right_spans.push(Span::raw(" "));
    let buf = frame.buffer_mut();
    buf.set_line(area.x, area.y, &Line::from(left), area.width);
    let rw = spans_width(&right_spans) as u16;
    if rw < area.width {
        buf.set_line(area.right() - rw, area.y, &Line::from(right_spans), rw);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_path_keeps_its_end_within_the_width() {
        assert_eq!(shorten_path("/home/ada/src/wta", 28), "/home/ada/src/wta");
        assert_eq!(shorten_path("/home/ada/src/wta", 8), "…src/wta");
        // Wide characters take two columns each.
        let wide = "/home/ada/作業/プロジェクト";
        let short = shorten_path(wide, 12);
        assert_eq!(short, "…ロジェクト");
        assert!(short.width() <= 12, "{short}");
    }
}
