//! `wta tmux-config`: key bindings to paste into `~/.tmux.conf`, and the
//! status-line marks of a card waiting in an agent pane nobody sees (the
//! helper sets [`CARD_WAITING_OPTION`] on its tab while one waits).

use std::process::ExitCode;

use anyhow::Context;

use wta_protocol::helper_master::CARD_WAITING_OPTION;

use super::Ctx;
use crate::output;

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The window-list marks: appended to the tab's entry in the status line
/// (the current tab's names the key that shows the pane), never cut like a
/// long `status-right`. The value is one of WTA's own words.
fn card_marks() -> String {
    let o = CARD_WAITING_OPTION;
    format!(
        "# A card (proposal, permission, question) waiting in an agent pane nobody sees\n\
         # marks its tab in the status line until the pane is shown (prefix + a shows it)\n\
         set-option -ga window-status-format '#{{?{o}, #[reverse] wta: #{{{o}}} waits #[noreverse],}}'\n\
         set-option -ga window-status-current-format '#{{?{o}, #[reverse] wta: #{{{o}}} waits · prefix a #[noreverse],}}'\n"
    )
}

/// The bindings text for the wta binary at `wta`.
pub fn bindings(wta: &str) -> String {
    let w = quote(wta);
    let marks = card_marks();
    format!(
        "# WTA key bindings (paste into ~/.tmux.conf, then `tmux source ~/.tmux.conf`).\n\
         # prefix + a : show or hide the agent pane of this tab (it keeps running while hidden)\n\
         bind-key a run-shell -b \"{w} -S '#{{socket_path}}' pane toggle --pane '#{{pane_id}}' >/dev/null\"\n\
         # prefix + A : close the agent pane of this tab\n\
         bind-key A run-shell -b \"{w} -S '#{{socket_path}}' pane close --pane '#{{pane_id}}' >/dev/null\"\n\
         # prefix + f : ask the agent pane to fix the last command that failed in this pane\n\
         bind-key f run-shell -b \"{w} -S '#{{socket_path}}' fix -t '#{{pane_id}}' >/dev/null\"\n\
         # prefix + D : hand a task to a delegate agent in a new tab (asks for the task)\n\
         bind-key D command-prompt -p 'delegate:' \"set-buffer -b wta-delegate -- \\\"%%%\\\" ; run-shell -b \\\"{w} -S '#{{socket_path}}' delegate --pane '#{{pane_id}}' --task-buffer wta-delegate >/dev/null\\\"\"\n\
         # prefix + S : every agent session of this server: type to search, Enter goes to or resumes one, Ctrl+D closes one\n\
         bind-key S display-popup -E -w 90% -h 60% \"{w} sessions pick\"\n\
         {marks}"
    )
}

pub fn run(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe().context(wta_i18n::tr!("cli.no_binary"))?;
    let text = bindings(&exe.to_string_lossy());
    if ctx.json {
        output::json(&serde_json::json!({ "bindings": text }))?;
    } else {
        output::line(text.trim_end())?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_quote_the_binary_and_pass_the_pane() {
        let text = bindings("/opt/my wta/it's/wta");
        assert!(
            text.contains(
                r"'/opt/my wta/it'\''s/wta' -S '#{socket_path}' pane toggle --pane '#{pane_id}'"
            ),
            "{text}"
        );
        assert!(
            text.contains(r"fix -t '#{pane_id}'"),
            "prefix f fixes the pane it is pressed in: {text}"
        );
        assert!(
            text.contains("--task-buffer wta-delegate"),
            "the task goes through a buffer, never a shell: {text}"
        );
        assert_eq!(
            text.lines().filter(|l| l.starts_with("bind-key")).count(),
            5
        );
        let marks: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("set-option -ga window-status"))
            .collect();
        assert_eq!(marks.len(), 2, "{text}");
        assert!(
            marks
                .iter()
                .all(|l| l.contains("#{?@wta_card_waiting,") && l.contains("#{@wta_card_waiting}")),
            "{marks:?}"
        );
    }
}
