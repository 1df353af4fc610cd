//! The client side of ACP `fs/read_text_file` and `fs/write_text_file`: the
//! helper advertises both in `initialize`, so it serves them. The agent runs
//! as the same user and can touch the same files with its own tools; what this
//! adds is bounds (absolute paths only, a size cap) and clear errors.
//! `terminal/*` is not served here (the machine refuses it).

use std::path::Path;

use agent_client_protocol::v1::schema::{
    ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest, WriteTextFileResponse,
};
use wta_protocol::limits::MAX_FS_ANSWER_BYTES;

/// Largest file read (then sliced by `line`/`limit`) or written (bytes).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// JSON-RPC invalid params.
const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC internal error (I/O failed).
const INTERNAL: i32 = -32603;

/// A failed request: (code, message).
pub type FsError = (i32, String);

fn absolute(path: &Path) -> Result<&Path, FsError> {
    if !path.is_absolute() {
        return Err((
            INVALID_PARAMS,
            format!("`{}` is not an absolute path", path.display()),
        ));
    }
    Ok(path)
}

/// Lines `line` (1-based) .. `line + limit` of `text`, ACP semantics.
pub fn slice_lines(text: &str, line: Option<u32>, limit: Option<u32>) -> String {
    if line.is_none() && limit.is_none() {
        return text.to_owned();
    }
    let skip = line.unwrap_or(1).saturating_sub(1) as usize;
    let take = limit.map_or(usize::MAX, |l| l as usize);
    text.split_inclusive('\n').skip(skip).take(take).collect()
}

/// `fs/read_text_file`.
pub fn read(request: &ReadTextFileRequest) -> Result<ReadTextFileResponse, FsError> {
    let path = absolute(&request.path)?;
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
    let content = slice_lines(&text, request.line, request.limit);
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
    Ok(ReadTextFileResponse::new(content))
}

/// `fs/write_text_file`.
pub fn write(request: &WriteTextFileRequest) -> Result<WriteTextFileResponse, FsError> {
    let path = absolute(&request.path)?;
    if request.content.len() as u64 > MAX_FILE_BYTES {
        return Err((
            INVALID_PARAMS,
            format!("content is over {MAX_FILE_BYTES} bytes"),
        ));
    }
    std::fs::write(path, &request.content)
        .map_err(|e| (INTERNAL, format!("cannot write {}: {e}", path.display())))?;
    Ok(WriteTextFileResponse::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_req(path: &str, line: Option<u32>, limit: Option<u32>) -> ReadTextFileRequest {
        let mut r = ReadTextFileRequest::new("s", path);
        r.line = line;
        r.limit = limit;
        r
    }

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
        let all = read(&read_req(&path, None, None));
        assert!(
            matches!(&all, Err((INTERNAL, m)) if m.contains("read fewer lines")),
            "{all:?}"
        );
        let one = read(&read_req(&path, Some(2), Some(1))).unwrap();
        assert_eq!(one.content.len(), line.len());
    }

    #[test]
    fn reads_and_writes_absolute_paths_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        let path = file.to_string_lossy();
        let wrote = write(&WriteTextFileRequest::new("s", file.clone(), "one\ntwo\n"));
        assert!(wrote.is_ok(), "{wrote:?}");
        let got = read(&read_req(&path, Some(2), None)).unwrap();
        assert_eq!(got.content, "two\n");
        let relative = read(&read_req("f.txt", None, None));
        assert!(matches!(relative, Err((INVALID_PARAMS, _))));
        let missing = read(&read_req("/nonexistent/x", None, None));
        assert!(matches!(missing, Err((INTERNAL, m)) if m.contains("/nonexistent/x")));
        let relative = write(&WriteTextFileRequest::new("s", "f.txt", "x"));
        assert!(matches!(relative, Err((INVALID_PARAMS, _))));
    }
}
