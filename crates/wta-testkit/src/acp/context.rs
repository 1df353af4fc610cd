//! The test agent reading its turn's context (`context <json-pointer>`): it
//! says the value at that pointer of the turn block's Terminal Context JSON,
//! compact (`context /untrusted/long_running: [...]`), or `absent`. How an
//! end-to-end test sees what WTA told the agent this turn. Pure.

use serde_json::Value;

/// The Terminal Context JSON of a turn block, when it has one.
pub fn terminal_context(context: &str) -> Option<Value> {
    let after = context.split_once("### Terminal Context JSON")?.1;
    let body = after.split_once("```json\n")?.1;
    let json = body.split_once("\n```")?.0;
    serde_json::from_str(json).ok()
}

/// What the agent says for `pointer`.
pub fn said(context: &str, pointer: &str) -> String {
    let value = terminal_context(context).and_then(|v| v.pointer(pointer).cloned());
    match value {
        Some(v) => format!("context {pointer}: {v}"),
        None => format!("context {pointer}: absent"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_at_the_pointer_or_absent() {
        let block = "## WTA turn context\n### Terminal Context JSON\nEverything…\n```json\n{\n  \"untrusted\": {\"truncated\": false, \"x\": [1]}\n}\n```\n";
        assert_eq!(said(block, "/untrusted/x"), "context /untrusted/x: [1]");
        assert_eq!(said(block, "/untrusted/y"), "context /untrusted/y: absent");
        assert_eq!(said("no block", "/untrusted"), "context /untrusted: absent");
    }
}
