//! One line from parts that each know how to give way: when the line is
//! narrower than all of them, parts take their shorter forms or go, one
//! step at a time in the order their call site writes down (each step's
//! rank: a part's `rank`, or per step with `then`; the lowest goes first,
//! among equal ranks the rightmost part). A part
//! that is `kept` (the way to cancel, what Enter does) never goes: it only
//! takes its shortest form. When even that is too wide, the `flexible`
//! part (a title; else the first part shown) is cut with `…`: call sites
//! put the way to cancel last, so it is the one thing never cut.
//! Widths are display widths (unicode-width), never bytes or chars.

use ratatui::style::Style;
use ratatui::text::Span;

use crate::wrap::{spans_width, truncate};

/// One part of a line: its forms, widest first.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    forms: Vec<Vec<Span<'static>>>,
    rank: u8,
    /// Ranks of the steps after the first, when they differ (`then`).
    later: Vec<u8>,
    kept: bool,
    flexible: bool,
}

impl Part {
    /// A part that gives way at `rank` (lowest first), each form one text.
    pub(crate) fn new(rank: u8, style: Style, forms: &[String]) -> Self {
        Part {
            forms: forms
                .iter()
                .map(|f| vec![Span::styled(f.clone(), style)])
                .collect(),
            rank,
            later: Vec::new(),
            kept: false,
            flexible: false,
        }
    }

    /// A part whose forms are spans of their own.
    pub(crate) fn spans(rank: u8, forms: Vec<Vec<Span<'static>>>) -> Self {
        Part {
            forms,
            rank,
            later: Vec::new(),
            kept: false,
            flexible: false,
        }
    }

    /// Its later steps (to the third form, to the fourth, …, to gone) give
    /// way at these ranks instead: a part can shorten early and go late.
    pub(crate) fn then(mut self, ranks: &[u8]) -> Self {
        self.later = ranks.to_vec();
        self
    }

    /// The rank of step `n` (from form `n` to the next, or to gone).
    fn step_rank(&self, n: usize) -> u8 {
        match n.checked_sub(1) {
            None => self.rank,
            Some(i) => self.later.get(i).copied().unwrap_or(self.rank),
        }
    }

    /// Never dropped: at its rank it only takes its shorter forms.
    pub(crate) fn kept(mut self) -> Self {
        self.kept = true;
        self
    }

    /// Cut with `…` when nothing else can give way (one per line).
    pub(crate) fn flexible(mut self) -> Self {
        self.flexible = true;
        self
    }
}

/// Where a part stands: showing form `n`, or gone.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shown {
    Form(usize),
    Gone,
}

/// `parts` joined by `sep` in at most `width` columns (see the module
/// docs for the order in which they give way).
pub(crate) fn fit(parts: &[Part], sep: &Span<'static>, width: usize) -> Vec<Span<'static>> {
    let mut shown: Vec<Shown> = parts
        .iter()
        .map(|p| {
            if p.forms.is_empty() {
                Shown::Gone
            } else {
                Shown::Form(0)
            }
        })
        .collect();
    let sep_width = spans_width(std::slice::from_ref(sep));
    let total = |shown: &[Shown]| -> usize {
        let mut used = 0;
        let mut any = false;
        for (part, s) in parts.iter().zip(shown) {
            if let Shown::Form(n) = s {
                used += spans_width(&part.forms[*n]) + if any { sep_width } else { 0 };
                any = true;
            }
        }
        used
    };
    // One step at a time, the lowest-ranked step any part can still take
    // (among equal ranks, the rightmost part's).
    while total(&shown) > width {
        let next = (0..parts.len())
            .rev()
            .filter_map(|i| {
                let Shown::Form(n) = shown[i] else {
                    return None;
                };
                let can = n + 1 < parts[i].forms.len() || !parts[i].kept;
                can.then(|| (parts[i].step_rank(n), i, n))
            })
            .min_by_key(|(rank, _, _)| *rank);
        let Some((_, i, n)) = next else { break };
        shown[i] = if n + 1 < parts[i].forms.len() {
            Shown::Form(n + 1)
        } else {
            Shown::Gone
        };
    }
    let mut out: Vec<Span<'static>> = Vec::new();
    let over = total(&shown).saturating_sub(width);
    let first = shown.iter().position(|s| *s != Shown::Gone);
    let flexible = parts
        .iter()
        .zip(&shown)
        .position(|(p, s)| p.flexible && *s != Shown::Gone)
        .or(first);
    for (i, (part, s)) in parts.iter().zip(&shown).enumerate() {
        let Shown::Form(n) = s else { continue };
        if !out.is_empty() {
            out.push(sep.clone());
        }
        let form = &part.forms[*n];
        if Some(i) == flexible && over > 0 {
            let room = spans_width(form).saturating_sub(over);
            out.extend(cut(form, room));
        } else {
            out.extend(form.iter().cloned());
        }
    }
    // Still too wide (the cut part was narrower than the excess): cut at the end.
    if spans_width(&out) > width {
        out = cut(&out, width);
    }
    out
}

/// `spans` cut to `width` columns, the last one ending with `…`.
fn cut(spans: &[Span<'static>], width: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut used = 0;
    for span in spans {
        let w = spans_width(std::slice::from_ref(span));
        if used + w <= width {
            out.push(span.clone());
            used += w;
            continue;
        }
        let room = width.saturating_sub(used);
        if room > 0 {
            out.push(Span::styled(truncate(&span.content, room), span.style));
        }
        break;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn parts() -> Vec<Part> {
        let s = Style::new();
        vec![
            Part::new(0, s, &["↑↓ choice".into(), "↑↓".into()]),
            Part::new(3, s, &["Enter run".into()]).kept(),
            Part::new(1, s, &["your draft is kept".into(), "draft kept".into()]),
            Part::new(2, s, &["Esc cancel".into(), "Esc".into()]).kept(),
        ]
    }

    #[test]
    fn parts_give_way_in_rank_order_and_kept_ones_stay() {
        let sep = Span::raw(" · ");
        let at = |w| text(&fit(&parts(), &sep, w));
        assert_eq!(
            at(80),
            "↑↓ choice · Enter run · your draft is kept · Esc cancel"
        );
        assert_eq!(at(48), "↑↓ · Enter run · your draft is kept · Esc cancel");
        assert_eq!(at(43), "Enter run · your draft is kept · Esc cancel");
        assert_eq!(at(35), "Enter run · draft kept · Esc cancel");
        assert_eq!(at(26), "Enter run · Esc cancel");
        assert_eq!(at(15), "Enter run · Esc");
        assert_eq!(at(14), "Enter r… · Esc", "the first part is cut, never Esc");
        for w in 0..80 {
            assert!(spans_width(&fit(&parts(), &sep, w)) <= w, "{w}");
        }
    }

    #[test]
    fn a_part_can_shorten_early_and_give_way_late() {
        let s = Style::new();
        let line = [
            Part::new(
                1,
                s,
                &[
                    "Enter go or resume".into(),
                    "Enter go".into(),
                    "Enter".into(),
                ],
            )
            .then(&[3])
            .kept(),
            Part::new(2, s, &["Ctrl+D close".into()]),
            Part::new(4, s, &["Esc cancel".into(), "Esc".into()]).kept(),
        ];
        let sep = Span::raw(" · ");
        let at = |w| text(&fit(&line, &sep, w));
        assert_eq!(at(46), "Enter go or resume · Ctrl+D close · Esc cancel");
        assert_eq!(at(45), "Enter go · Ctrl+D close · Esc cancel");
        assert_eq!(at(35), "Enter go · Esc cancel");
        assert_eq!(at(20), "Enter · Esc cancel");
        assert_eq!(at(12), "Enter · Esc");
    }

    #[test]
    fn a_flexible_title_is_cut_before_kept_parts_go() {
        let s = Style::new();
        let line = [
            Part::new(9, s, &["Sessions of every tab".into()])
                .kept()
                .flexible(),
            Part::new(0, s, &["↑↓ choose".into()]),
            Part::new(5, s, &["Esc cancel".into(), "Esc".into()]).kept(),
        ];
        let sep = Span::raw("  ");
        assert_eq!(
            text(&fit(&line, &sep, 44)),
            "Sessions of every tab  ↑↓ choose  Esc cancel"
        );
        assert_eq!(
            text(&fit(&line, &sep, 40)),
            "Sessions of every tab  Esc cancel"
        );
        assert_eq!(text(&fit(&line, &sep, 30)), "Sessions of every tab  Esc");
        assert_eq!(text(&fit(&line, &sep, 16)), "Sessions o…  Esc");
        // Wide characters count two columns.
        let wide = [
            Part::new(9, s, &["セッション一覧".into()])
                .kept()
                .flexible(),
            Part::new(5, s, &["Esc キャンセル".into(), "Esc".into()]).kept(),
        ];
        assert_eq!(text(&fit(&wide, &sep, 20)), "セッション一覧  Esc");
        assert_eq!(text(&fit(&wide, &sep, 16)), "セッション…  Esc");
    }
}
