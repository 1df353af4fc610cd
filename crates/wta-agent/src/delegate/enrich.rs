//! Prompt enrichment: a delegated task plus the tail of the screen of the pane it came from
//! (first-implementation §2.9).
//!
//! Invariants: the task is always an unchanged prefix of the result; the screen part is at
//! most [`CONTEXT_LINES`] lines and [`CONTEXT_MAX_BYTES`] bytes, cut on a char boundary; a
//! blank screen adds nothing. The screen is untrusted (anything a program printed), so the
//! marker says so and the code fence is longer than any run of backticks inside it, so the
//! screen cannot close the fence early (the fence is the usual three backticks otherwise).

/// Lines of the pane's screen kept (the last ones).
pub const CONTEXT_LINES: usize = 30;
/// Bytes of those lines kept at most (the last ones).
pub const CONTEXT_MAX_BYTES: usize = 12 * 1024;
/// Starts the context block; titles use it to strip the echoed context.
pub const CONTEXT_MARKER: &str = "Terminal context (untrusted, from pane";

/// The task with the context of the pane it came from:
/// `<task>\n\n<marker> <pane>)\n```\n<screen tail>\n```` (nothing added when `screen` is blank).
/// Trailing blank lines of the screen (the unused rows of a capture) are dropped first.
pub fn enrich(task: &str, pane: &str, screen: &str) -> String {
    let tail = screen_tail(screen);
    if tail.trim().is_empty() {
        return task.to_owned();
    }
    let fence = "`".repeat(longest_backtick_run(tail).max(2) + 1);
    format!("{task}\n\n{CONTEXT_MARKER} {pane})\n{fence}\n{tail}\n{fence}")
}

/// The last [`CONTEXT_LINES`] lines of `screen` without trailing blank lines, then at most
/// the last [`CONTEXT_MAX_BYTES`] bytes of them, starting on a char boundary.
fn screen_tail(screen: &str) -> &str {
    let screen = screen.trim_end();
    // Walk back over line ends: the tail starts after the CONTEXT_LINES-th '\n' from the end.
    let start = screen
        .rmatch_indices('\n')
        .nth(CONTEXT_LINES - 1)
        .map_or(0, |(i, _)| i + 1);
    let lines = &screen[start..];
    let mut cut = lines.len().saturating_sub(CONTEXT_MAX_BYTES);
    while !lines.is_char_boundary(cut) {
        cut += 1;
    }
    &lines[cut..]
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}
