//! The client side of ACP `fs/read_text_file` and `fs/write_text_file`: the
//! helper advertises both in `initialize`, so it serves them. The agent runs
//! as the same user and can touch the same files with its own tools; what this
//! adds is bounds (absolute paths only, a size cap) and clear errors.
//! `terminal/*` is not served here (see `on_client_request`).

use std::path::Path;

use serde_json::{Value, json};
use wta_protocol::limits::MAX_FS_ANSWER_BYTES;

/// Largest file read (then sliced by `line`/`limit`) or written (bytes).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// JSON-RPC invalid params.
const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC internal error (I/O failed).
const INTERNAL: i32 = -32603;

/// A failed request: (code, message).
pub type FsError = (i32, String);

fn path_param(params: &Value) -> Result<&Path, FsError> {
    let path = params
        .get("path")
        .and_then(Value::as_str)
        .ok_or((INVALID_PARAMS, "missing `path`".to_owned()))?;
    let path = Path::new(path);
    if !path.is_absolute() {
        return Err((
            INVALID_PARAMS,
            format!("`{}` is not an absolute path", path.display()),
        ));
    }
    Ok(path)
}

/// Lines `line` (1-based) .. `line + limit` of `text`, ACP semantics.
pub fn slice_lines(text: &str, line: Option<u64>, limit: Option<u64>) -> String {
    if line.is_none() && limit.is_none() {
        return text.to_owned();
    }
    let skip = line.unwrap_or(1).saturating_sub(1) as usize;
    let take = limit.map_or(usize::MAX, |l| l as usize);
    text.split_inclusive('\n').skip(skip).take(take).collect()
}

/// Whether this module serves `method`.
pub fn serves(method: &str) -> bool {
    matches!(method, "fs/read_text_file" | "fs/write_text_file")
}

/// Serves `method` with `params`; `None` for methods this module does not own.
pub fn serve(method: &str, params: &Value) -> Option<Result<Value, FsError>> {
    match method {
        "fs/read_text_file" => Some(read(params)),
        "fs/write_text_file" => Some(write(params)),
        _ => None,
    }
}

fn read(params: &Value) -> Result<Value, FsError> {
    let path = path_param(params)?;
    let io = |e: std::io::Error| (INTERNAL, format!("cannot read {}: {e}", path.display()));
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > MAX_FILE_BYTES {
        return Err((
            INTERNAL,
            format!(
                "{} is {size} bytes; this pane serves files up to {MAX_FILE_BYTES} bytes",
                path.display()
            ),
        ));
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let line = params.get("line").and_then(Value::as_u64);
    let limit = params.get("limit").and_then(Value::as_u64);
    let content = slice_lines(&text, line, limit);
    // The answer travels as one JSON-RPC line to the master, which ends a
    // connection that sends more than its cap: refuse here, with a way out.
    let encoded = serde_json::to_string(&content).map_or(usize::MAX, |s| s.len());
    if encoded > MAX_FS_ANSWER_BYTES {
        return Err((
            INTERNAL,
            format!(
                "the text read from {} is {encoded} bytes as JSON; this pane answers with at \
                 most {MAX_FS_ANSWER_BYTES}: read fewer lines at a time (`line` and `limit`)",
                path.display()
            ),
        ));
    }
    Ok(json!({"content": content}))
}

fn write(params: &Value) -> Result<Value, FsError> {
    let path = path_param(params)?;
    let content = params
        .get("content")
        .and_then(Value::as_str)
        .ok_or((INVALID_PARAMS, "missing `content`".to_owned()))?;
    if content.len() as u64 > MAX_FILE_BYTES {
        return Err((
            INVALID_PARAMS,
            format!("content is over {MAX_FILE_BYTES} bytes"),
        ));
    }
    std::fs::write(path, content)
        .map_err(|e| (INTERNAL, format!("cannot write {}: {e}", path.display())))?;
    Ok(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_lines_like_acp() {
        let text = "a\nb\nc\nd";
        assert_eq!(slice_lines(text, None, None), text);
        assert_eq!(slice_lines(text, Some(2), Some(2)), "b\nc\n");
        assert_eq!(slice_lines(text, Some(3), None), "c\nd");
        assert_eq!(slice_lines(text, None, Some(1)), "a\n");
        assert_eq!(slice_lines(text, Some(9), Some(1)), "");
        assert_eq!(slice_lines(text, Some(0), Some(1)), "a\n");
    }

    #[test]
    fn an_answer_over_the_line_cap_is_refused_with_a_way_out() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big.txt");
        // 5 MiB of quotes: 10 MiB as JSON.
        let line = format!("{}\n", "\"".repeat(1024 * 1024 - 1));
        std::fs::write(&file, line.repeat(5)).unwrap();
        let path = file.to_string_lossy();
        let all = serve("fs/read_text_file", &json!({"path": path}));
        assert!(
            matches!(&all, Some(Err((INTERNAL, m))) if m.contains("read fewer lines")),
            "{all:?}"
        );
        let one = serve(
            "fs/read_text_file",
            &json!({"path": path, "line": 2, "limit": 1}),
        );
        assert!(
            matches!(&one, Some(Ok(v)) if v["content"].as_str().map(str::len) == Some(line.len()))
        );
    }

    #[test]
    fn reads_and_writes_absolute_paths_only() {
        let dir = std::env::temp_dir().join(format!("wta-fs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f.txt");
        let path = file.to_string_lossy();
        let wrote = serve(
            "fs/write_text_file",
            &json!({"sessionId": "s", "path": path, "content": "one\ntwo\n"}),
        );
        assert_eq!(wrote, Some(Ok(Value::Null)));
        let read = serve(
            "fs/read_text_file",
            &json!({"sessionId": "s", "path": path, "line": 2}),
        );
        assert_eq!(read, Some(Ok(json!({"content": "two\n"}))));
        let relative = serve("fs/read_text_file", &json!({"path": "f.txt"}));
        assert!(matches!(relative, Some(Err((INVALID_PARAMS, _)))));
        let missing = serve("fs/read_text_file", &json!({"path": "/nonexistent/x"}));
        assert!(matches!(missing, Some(Err((INTERNAL, m))) if m.contains("/nonexistent/x")));
        assert!(serve("terminal/create", &json!({})).is_none());
        assert!(serves("fs/read_text_file") && !serves("terminal/create"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
