//! `/export [FILE]`: the transcript as Markdown. Pure: this builds the
//! text; the helper writes it (relative names and the default name,
//! [`default_file_name`], land in the agent pane's directory) and the
//! transcript says where it went.
//!
//! Prompts and replies are kept as written (replies are Markdown
//! already); tool calls become one line each, system lines a quote,
//! thoughts and plans are left out (they are the agent's working, not
//! the conversation).

use wta_i18n::tr;

use super::state::AppState;
use super::transcript::Item;

/// The transcript of `state` as a Markdown document.
pub fn markdown(state: &AppState) -> String {
    let mut out = format!("# {}\n", tr("history.md_title", &[]));
    for entry in state.transcript.entries() {
        match &entry.item {
            Item::User(text) => {
                out.push_str(&format!(
                    "\n## {}\n\n{}\n",
                    tr("history.md_you", &[]),
                    text.trim_end()
                ));
            }
            Item::Agent(text) => {
                out.push_str(&format!(
                    "\n## {}\n\n{}\n",
                    tr("history.md_agent", &[]),
                    text.trim_end()
                ));
            }
            Item::Tool(call) => {
                let target = call
                    .target
                    .as_deref()
                    .map(|t| format!(": `{t}`"))
                    .unwrap_or_default();
                out.push_str(&format!("\n- {}{target}\n", call.title));
            }
            Item::System { text, .. } => {
                let quoted: Vec<String> = text.lines().map(|l| format!("> {l}")).collect();
                out.push_str(&format!(
                    "\n> **{}:**\n{}\n",
                    tr("history.md_note", &[]),
                    quoted.join("\n")
                ));
            }
            Item::Divider(label) => out.push_str(&format!("\n---\n\n*{label}*\n")),
            Item::Thought { .. } | Item::Plan(_) | Item::TurnEnd { .. } => {}
        }
    }
    out
}

/// `wta-transcript-<YYYYMMDD-HHMMSS>.md` for a UTC time given as RFC 3339
/// (`2026-12-02T04:30:00Z`).
pub fn default_file_name(rfc3339: &str) -> String {
    let stamp: String = rfc3339
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == 'T')
        .map(|c| if c == 'T' { '-' } else { c })
        .collect();
    format!("wta-transcript-{stamp}.md")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::events::DomainEvent;

    #[test]
    fn prompts_and_replies_in_order_as_markdown() {
        let mut pane = crate::test_pane::Pane::ready();
        pane.typed("what is **up**?");
        let fx = pane.enter();
        assert!(
            fx.contains(&crate::Effect::SendPrompt("what is **up**?".into())),
            "{fx:?}"
        );
        pane.domain(DomainEvent::AgentMessageChunk(
            "Nothing much:\n\n- a\n- b\n".into(),
        ));
        let md = markdown(&pane.state);
        let you = md.find("## You\n\nwhat is **up**?").unwrap();
        let agent = md.find("## Agent\n\nNothing much:\n\n- a\n- b\n").unwrap();
        assert!(md.starts_with("# Agent pane transcript\n"), "{md}");
        assert!(you < agent, "{md}");
    }

    #[test]
    fn the_default_name_is_stamped() {
        assert_eq!(
            default_file_name("2026-12-02T04:30:09Z"),
            "wta-transcript-20261202-043009.md"
        );
    }
}
