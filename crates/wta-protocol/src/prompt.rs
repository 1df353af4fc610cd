//! The prompt text a WTA pane sends its agent: the user's request, then
//! [`CONTEXT_SEPARATOR`], then the turn's context block. The helper writes
//! it; agents that act on it (the demo agent, the scripted test agent) read
//! it back with [`split_context`] and [`channel_in`]. One definition, so the
//! writer and the readers cannot drift apart.

use serde_json::Value;

use crate::Channel;

/// Separates the user's words from the context WTA appends.
pub const CONTEXT_SEPARATOR: &str = "\n\n---\n<!-- WTA context: the user's request is above -->\n";

/// The text blocks of `session/prompt` params, joined by newlines.
pub fn prompt_text(params: &Value) -> String {
    params
        .get("prompt")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The user's request and the context WTA appended after it (empty when
/// there is none).
pub fn split_context(text: &str) -> (&str, &str) {
    text.split_once(CONTEXT_SEPARATOR).unwrap_or((text, ""))
}

/// The user's request and the context of `session/prompt` params, owned
/// (what an agent acting on WTA's prompt reads).
pub fn request_and_context(params: &Value) -> (String, String) {
    let text = prompt_text(params);
    let (request, context) = split_context(&text);
    (request.to_owned(), context.to_owned())
}

/// The channel named in a turn's context block: its canonical invocation
/// line carries it after `--channel `.
pub fn channel_in(context: &str) -> Option<Channel> {
    context.lines().find_map(|line| {
        let (_, after) = line.split_once("propose-terminal-actions --channel ")?;
        Channel::parse(after.split_whitespace().next()?).ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn splits_the_request_from_the_context() {
        let text = format!("run ls{CONTEXT_SEPARATOR}## ctx\nmore");
        assert_eq!(split_context(&text), ("run ls", "## ctx\nmore"));
        assert_eq!(split_context("just words"), ("just words", ""));
    }

    #[test]
    fn joins_the_text_blocks_of_a_prompt() {
        let params = json!({"prompt": [
            {"type": "text", "text": "a"},
            {"type": "image", "data": "x"},
            {"type": "text", "text": "b"}
        ]});
        assert_eq!(prompt_text(&params), "a\nb");
        assert_eq!(prompt_text(&json!({})), "");
        let params =
            json!({"prompt": [{"type": "text", "text": format!("hi{CONTEXT_SEPARATOR}ctx")}]});
        assert_eq!(
            request_and_context(&params),
            ("hi".to_owned(), "ctx".to_owned())
        );
    }
}
