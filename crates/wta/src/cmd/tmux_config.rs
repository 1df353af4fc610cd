//! `wta tmux-config`: key bindings to paste into `~/.tmux.conf`, and the
//! status-line marks of a card waiting in an agent pane nobody sees (the
//! helper sets [`CARD_WAITING_OPTION`] on its tab while one waits).
//!
//! Invariant: every key in [`BINDINGS`] is one tmux leaves free in its
//! default key tables, so pasting the lines takes nothing away from tmux
//! (`tests/tmux_config_keys.rs` holds this against the installed tmux's own
//! defaults). Older versions bound `f` and `D`, replacing tmux's
//! find-window and choose-client; the output says so, for those who pasted
//! them.

use std::process::ExitCode;

use anyhow::Context;

use wta_helper::machine::hidden_card::CARD_WAITING_TEXT_OPTION;
use wta_protocol::helper_master::CARD_WAITING_OPTION;

use super::Ctx;
use crate::output;

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// One WTA key in tmux's prefix table.
pub struct Binding {
    /// The key after the prefix, as tmux names it (`a`, `F`).
    pub key: &'static str,
    /// What it does, as the comment above it and `wta man` say it.
    pub does: &'static str,
    /// The `bind-key` line's command for the wta binary at the (quoted) path.
    command: fn(&str) -> String,
}

/// WTA's keys, in the order they are printed.
pub const BINDINGS: [Binding; 7] = [
    Binding {
        key: "a",
        does: "show or hide the agent pane of this tab (it keeps running while hidden)",
        command: |w| {
            format!(
                "run-shell -b \"{w} -S '#{{socket_path}}' pane toggle -t '#{{pane_id}}' >/dev/null\""
            )
        },
    },
    Binding {
        key: "A",
        does: "close the agent pane of this tab",
        command: |w| {
            format!(
                "run-shell -b \"{w} -S '#{{socket_path}}' pane close -t '#{{pane_id}}' >/dev/null\""
            )
        },
    },
    Binding {
        key: "P",
        does: "show the agent pane of this tab in a popup over this pane; in the popup, close it (Esc stays the pane's)",
        command: |w| {
            format!(
                "run-shell -b \"{w} -S '#{{socket_path}}' popup -t '#{{pane_id}}' --client '#{{client_name}}' >/dev/null\""
            )
        },
    },
    Binding {
        key: "F",
        does: "ask the agent pane to fix the last command that failed in this pane",
        command: |w| {
            format!("run-shell -b \"{w} -S '#{{socket_path}}' fix -t '#{{pane_id}}' >/dev/null\"")
        },
    },
    Binding {
        key: "T",
        does: "hand a task to a delegate agent in a new tab (asks for the task)",
        command: |w| {
            format!(
                "command-prompt -p 'delegate:' \"set-buffer -b wta-delegate -- \\\"%%%\\\" ; run-shell -b \\\"{w} -S '#{{socket_path}}' delegate -t '#{{pane_id}}' --task-buffer wta-delegate >/dev/null\\\"\""
            )
        },
    },
    Binding {
        key: "H",
        does: "open `wta ssh` to a host in a new tab (asks for the host): its commands are followed like local ones",
        command: |w| {
            format!(
                "command-prompt -p 'wta ssh to:' \"set-buffer -b wta-ssh -- \\\"%%%\\\" ; new-window -n ssh \\\"{w} ssh --host-buffer wta-ssh\\\"\""
            )
        },
    },
    Binding {
        key: "S",
        does: "every agent session of this server: type to search, Enter goes to or resumes one, Ctrl+D closes one",
        command: |w| format!("display-popup -E -w 90% -h 60% \"{w} sessions pick\""),
    },
];

/// The window-list marks: appended to the tab's entry in the status line
/// (the current tab's names the key that shows the pane), never cut like a
/// long `status-right`. Shown while the indicator is set; the text is the
/// helper's, what waits in the user's language.
fn card_marks() -> String {
    let o = CARD_WAITING_OPTION;
    let t = CARD_WAITING_TEXT_OPTION;
    format!(
        "# A card (proposal, permission, question) waiting in an agent pane nobody sees\n\
         # marks its tab in the status line until the pane is shown (prefix + a shows it)\n\
         set-option -ga window-status-format '#{{?{o}, #[reverse] wta: #{{{t}}} #[noreverse],}}'\n\
         set-option -ga window-status-current-format '#{{?{o}, #[reverse] wta: #{{{t}}} · prefix a #[noreverse],}}'\n"
    )
}

/// The bindings text for the wta binary at `wta`.
pub fn bindings(wta: &str) -> String {
    let w = quote(wta);
    let mut text = String::from(
        "# WTA key bindings (paste into ~/.tmux.conf, then `tmux source ~/.tmux.conf`).\n\
         # Only keys tmux leaves free by default: tmux's own prefix + f (find-window) and\n\
         # prefix + D (choose-client) stay as they are. Older WTA versions bound f and D:\n\
         # delete those two bind-key lines from ~/.tmux.conf to get tmux's back.\n",
    );
    for b in &BINDINGS {
        text.push_str(&format!(
            "# prefix + {} : {}\nbind-key {} {}\n",
            b.key,
            b.does,
            b.key,
            (b.command)(&w)
        ));
    }
    text.push_str(&card_marks());
    text
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
                r"'/opt/my wta/it'\''s/wta' -S '#{socket_path}' pane toggle -t '#{pane_id}'"
            ),
            "{text}"
        );
        assert!(
            text.contains(r"bind-key F run-shell -b") && text.contains(r"fix -t '#{pane_id}'"),
            "prefix F fixes the pane it is pressed in: {text}"
        );
        assert!(
            text.contains("bind-key T command-prompt")
                && text.contains("--task-buffer wta-delegate"),
            "prefix T asks for the task, which goes through a buffer, never a shell: {text}"
        );
        let keys: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("bind-key "))
            .filter_map(|l| l.split(' ').next())
            .collect();
        assert_eq!(keys, ["a", "A", "P", "F", "T", "H", "S"]);
        assert!(
            text.contains(r"bind-key P run-shell -b")
                && text.contains(r"popup -t '#{pane_id}' --client '#{client_name}'"),
            "prefix P shows the popup on the terminal it is pressed in: {text}"
        );
        assert!(
            text.contains("bind-key H command-prompt")
                && text.contains("ssh --host-buffer wta-ssh"),
            "prefix H asks for the host, which goes through a buffer, never a shell: {text}"
        );
        for b in &BINDINGS {
            assert!(
                text.contains(&format!("# prefix + {} : {}\n", b.key, b.does)),
                "{text}"
            );
        }
        let marks: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("set-option -ga window-status"))
            .collect();
        assert_eq!(marks.len(), 2, "{text}");
        assert!(
            marks
                .iter()
                .all(|l| l.contains("#{?@wta_card_waiting,")
                    && l.contains("#{@wta_card_waiting_text}")),
            "{marks:?}"
        );
    }
}
