//! tmux format strings and the parsers of their output.
//!
//! Fields are separated by US (`\x1f`) and records end with RS (`\x1e`) plus
//! tmux's newline. The raw `pane_current_path` can hold any byte but NUL
//! (tabs, newlines, even RS and newline together), so it is the last field of
//! a pane record and is preceded by its length in bytes (`#{n:…}`): the parser
//! takes exactly that many bytes and never searches the path for a separator.
//! Names arrive with control
//! characters escaped by tmux and titles with them stripped, so neither can
//! hold a separator.
//!
//! The cwd is `pane_current_path` (the foreground process's own cwd), never
//! `pane_path`: tmux sets that from OSC 7, which anything printed in the
//! pane can send, so it would let output choose the cwd cards show.

use std::path::PathBuf;

use wta_protocol::{PaneId, TmuxSessionId, WindowId};

use crate::{HostError, Integration, PaneInfo, PaneSize, SessionInfo, WindowInfo};

const US: char = '\x1f';
const RECORD_END: &str = "\x1e\n";

/// Fields of [`PANE_FORMAT`], in order.
const PANE_FIELDS: [&str; 21] = [
    "session_id",
    "session_name",
    "window_id",
    "window_index",
    "window_name",
    "window_active",
    "pane_id",
    "pane_index",
    "pane_active",
    "pane_width",
    "pane_height",
    "pane_pid",
    "pane_current_command",
    "pane_title",
    "pane_dead",
    "pane_dead_status",
    "pane_in_mode",
    "alternate_on",
    "pane_pipe",
    "@wta_integration",
    "@wta_integration_state",
];

fn join_format(fields: &[&str], last: Option<&str>) -> String {
    let mut out = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(US);
        }
        out.push_str("#{");
        out.push_str(f);
        out.push('}');
    }
    if let Some(last) = last {
        out.push(US);
        out.push_str("#{");
        out.push_str(last);
        out.push('}');
    }
    out.push('\x1e');
    out
}

/// The `-F` format for panes: [`PANE_FIELDS`], the byte length of the raw
/// current path, then the path itself.
pub fn pane_format() -> String {
    let mut fields = PANE_FIELDS.to_vec();
    fields.push("n:pane_current_path");
    join_format(&fields, Some("pane_current_path"))
}

/// The `-F` format for sessions.
pub fn session_format() -> String {
    join_format(
        &[
            "session_id",
            "session_windows",
            "session_attached",
            "session_name",
        ],
        None,
    )
}

/// The `-F` format for windows.
pub fn window_format() -> String {
    join_format(
        &[
            "window_id",
            "session_id",
            "window_index",
            "window_active",
            "window_panes",
            "session_name",
            "window_name",
        ],
        None,
    )
}

/// Splits tmux output into records. Tolerates a missing final newline.
fn records(output: &str) -> impl Iterator<Item = &str> {
    output
        .split(RECORD_END)
        .map(|r| r.strip_suffix('\x1e').unwrap_or(r))
        .filter(|r| !r.is_empty() && *r != "\n")
}

fn num<T: std::str::FromStr>(field: &str, name: &str) -> Result<T, HostError> {
    field
        .parse()
        .map_err(|_| HostError::Parse(format!("{name} = {field:?}")))
}

fn flag(field: &str) -> bool {
    field == "1"
}

fn id<T>(
    parse: impl Fn(&str) -> Result<T, wta_protocol::IdError>,
    field: &str,
) -> Result<T, HostError> {
    parse(field).map_err(|e| HostError::Parse(e.to_string()))
}

/// One pane record: the [`PANE_FIELDS`] (lossy UTF-8) and the raw path bytes.
struct PaneRecord<'a> {
    fields: Vec<std::borrow::Cow<'a, str>>,
    path: &'a [u8],
}

/// Splits `list-panes -F pane_format()` output into records. Each record is
/// read front to back: the fixed fields up to their US, the path length, then
/// exactly that many path bytes and the RS (and newline) that end the record.
/// Output that went through a lossy UTF-8 conversion can hold a path longer
/// than tmux counted; then the path runs to the first RS (+ newline or end)
/// after the counted length. A path shorter than counted (it changed while
/// tmux printed the record) runs to the first record end.
fn pane_records(output: &[u8]) -> Result<Vec<PaneRecord<'_>>, HostError> {
    const RS: u8 = 0x1e;
    let want = PANE_FIELDS.len() + 2;
    let mut records = Vec::new();
    let mut pos = 0;
    while pos < output.len() {
        if output[pos] == b'\n' {
            pos += 1;
            continue;
        }
        let mut fields = Vec::with_capacity(PANE_FIELDS.len());
        let mut len_field = None;
        for _ in 0..=PANE_FIELDS.len() {
            let Some(end) = output[pos..].iter().position(|&b| b == US as u8) else {
                let got = fields.len() + 1;
                return Err(HostError::Parse(format!(
                    "a pane record has {got} fields, expected {want}"
                )));
            };
            let field = &output[pos..pos + end];
            pos += end + 1;
            if fields.len() < PANE_FIELDS.len() {
                fields.push(String::from_utf8_lossy(field));
            } else {
                len_field = Some(field);
            }
        }
        let len_text = String::from_utf8_lossy(len_field.unwrap_or_default());
        let len: usize = num(&len_text, "the length of pane_current_path")?;
        let ends_here = |at: usize| {
            output.get(at) == Some(&RS) && matches!(output.get(at + 1), None | Some(b'\n'))
        };
        // tmux evaluates the path twice (value and length); a pane whose
        // process changes directory in between (a pane just starting, before
        // its chdir) prints a path of another length. Then the path runs to
        // the first record end.
        let path_end = pos
            .checked_add(len)
            .filter(|&at| at <= output.len())
            .and_then(|at| (at..output.len()).find(|&i| ends_here(i)))
            .or_else(|| (pos..output.len()).find(|&i| ends_here(i)))
            .ok_or_else(|| {
                HostError::Parse(format!(
                    "a pane record's path has no end (its length is {len} bytes)"
                ))
            })?;
        records.push(PaneRecord {
            fields,
            path: &output[pos..path_end],
        });
        pos = path_end + 1;
    }
    Ok(records)
}

/// Parses `list-panes -F pane_format()` output. Panes of linked windows appear
/// once per session in tmux's output; only the first listing is kept.
pub fn parse_panes(output: &str) -> Result<Vec<PaneInfo>, HostError> {
    parse_pane_bytes(output.as_bytes())
}

/// [`parse_panes`] on raw tmux output (the path keeps bytes that are not UTF-8).
pub fn parse_pane_bytes(output: &[u8]) -> Result<Vec<PaneInfo>, HostError> {
    let mut seen = std::collections::HashSet::new();
    let mut panes = Vec::new();
    for record in pane_records(output)? {
        let f: Vec<&str> = record.fields.iter().map(AsRef::as_ref).collect();
        let pid: u32 = num(f[11], "pane_pid")?;
        let cwd = PathBuf::from(bytes_to_os(record.path.to_vec()));
        let pane = PaneInfo {
            session: id(TmuxSessionId::parse, f[0])?,
            session_name: f[1].to_owned(),
            window: id(WindowId::parse, f[2])?,
            window_index: num(f[3], "window_index")?,
            window_name: f[4].to_owned(),
            window_active: flag(f[5]),
            id: id(PaneId::parse, f[6])?,
            index: num(f[7], "pane_index")?,
            active: flag(f[8]),
            size: PaneSize {
                cols: num(f[9], "pane_width")?,
                rows: num(f[10], "pane_height")?,
            },
            pid,
            command: f[12].to_owned(),
            title: f[13].to_owned(),
            dead: flag(f[14]),
            dead_status: if flag(f[14]) {
                f[15].parse().ok()
            } else {
                None
            },
            in_mode: flag(f[16]),
            alternate_screen: flag(f[17]),
            pipe_open: flag(f[18]),
            integration: Integration::from_pane(
                f[19],
                f[20],
                pid,
                Integration::announcer_to_check(f[19], pid).and_then(crate::parent_pid),
            ),
            cwd,
        };
        if seen.insert(pane.id.clone()) {
            panes.push(pane);
        }
    }
    Ok(panes)
}

/// Parses `list-sessions -F session_format()` output.
pub fn parse_sessions(output: &str) -> Result<Vec<SessionInfo>, HostError> {
    records(output)
        .map(|record| {
            let f: Vec<&str> = record.splitn(4, US).collect();
            if f.len() != 4 {
                return Err(HostError::Parse("a session record is short".into()));
            }
            Ok(SessionInfo {
                id: id(TmuxSessionId::parse, f[0])?,
                windows: num(f[1], "session_windows")?,
                attached: num::<u32>(f[2], "session_attached")? > 0,
                name: f[3].to_owned(),
            })
        })
        .collect()
}

/// Parses `list-windows -F window_format()` output. Windows of the private
/// sessions (the stash, popups: stashed agent panes) are left out.
pub fn parse_windows(output: &str) -> Result<Vec<WindowInfo>, HostError> {
    records(output)
        .filter_map(|record| {
            let f: Vec<&str> = record.splitn(7, US).collect();
            if f.len() != 7 {
                return Some(Err(HostError::Parse("a window record is short".into())));
            }
            if super::is_private_session(f[5]) {
                return None;
            }
            let window = || -> Result<WindowInfo, HostError> {
                Ok(WindowInfo {
                    id: id(WindowId::parse, f[0])?,
                    session: id(TmuxSessionId::parse, f[1])?,
                    index: num(f[2], "window_index")?,
                    active: flag(f[3]),
                    panes: num(f[4], "window_panes")?,
                    name: f[6].to_owned(),
                })
            };
            Some(window())
        })
        .collect()
}

fn bytes_to_os(bytes: Vec<u8>) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    std::ffi::OsString::from_vec(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pane record as tmux prints it: the path (last) preceded by its length.
    fn record(fields: &[&str]) -> String {
        let (path, rest) = fields.split_last().unwrap();
        let mut s = rest.join("\x1f");
        s.push_str(&format!("\x1f{}\x1f{path}", path.len()));
        s.push_str(RECORD_END);
        s
    }

    fn raw_record(fields: &[&str], path: &[u8]) -> Vec<u8> {
        let mut v = fields.join("\x1f").into_bytes();
        v.extend_from_slice(format!("\x1f{}\x1f", path.len()).as_bytes());
        v.extend_from_slice(path);
        v.extend_from_slice(RECORD_END.as_bytes());
        v
    }

    #[test]
    fn record_separators_inside_the_path_stay_in_the_path() {
        // The audit's case: a cwd holding RS + newline broke every record.
        let hostile = "/tmp/a\x1e\nb\x1f\x1e";
        let mut out = record(&pane_fields("%3", "s", "t", hostile));
        out += &record(&pane_fields("%4", "s", "t", "/next"));
        let panes = parse_panes(&out).unwrap();
        assert_eq!(panes.len(), 2);
        assert_eq!(panes[0].cwd, PathBuf::from(hostile));
        assert_eq!(panes[1].id.as_str(), "%4");
        assert_eq!(panes[1].cwd, PathBuf::from("/next"));
    }

    #[test]
    fn a_path_that_is_not_utf8_is_kept_byte_for_byte() {
        use std::os::unix::ffi::OsStrExt;
        let mut fields = pane_fields("%3", "s", "t", "");
        fields.pop();
        let path = b"/tmp/bad\xff\x1e\nz";
        let mut out = raw_record(&fields, path);
        out.extend(raw_record(&fields, b"/"));
        let panes = parse_pane_bytes(&out).unwrap();
        assert_eq!(panes[0].cwd.as_os_str().as_bytes(), path);
        // Through a lossy conversion the path grows; it still ends at its RS.
        let lossy = String::from_utf8_lossy(&out).into_owned();
        let panes = parse_panes(&lossy).unwrap();
        assert_eq!(panes.len(), 1, "the duplicate id is dropped");
        assert_eq!(panes[0].cwd, PathBuf::from("/tmp/bad\u{fffd}\x1e\nz"));
    }

    #[test]
    fn a_path_shorter_than_its_length_runs_to_its_record_end() {
        // tmux reads the cwd twice: a pane that changed directory in between
        // (one just starting) prints a path of another length.
        let mut fields = pane_fields("%3", "s", "t", "");
        fields.pop();
        let mut out = fields.join("\x1f");
        out.push_str("\x1f999\x1f/short\x1e\n");
        out += &record(&pane_fields("%4", "s", "t", "/next"));
        let panes = parse_panes(&out).unwrap();
        assert_eq!(panes.len(), 2);
        assert_eq!(panes[0].cwd, PathBuf::from("/short"));
        assert_eq!(panes[1].cwd, PathBuf::from("/next"));
    }

    #[test]
    fn a_record_without_an_end_or_a_length_is_an_error() {
        let mut fields = pane_fields("%3", "s", "t", "");
        fields.pop();
        let mut out = fields.join("\x1f");
        out.push_str("\x1f999\x1f/short");
        assert!(parse_panes(&out).is_err());
        out = fields.join("\x1f");
        out.push_str("\x1fnot-a-number\x1f/\x1e\n");
        assert!(parse_panes(&out).is_err());
    }

    proptest::proptest! {
        #[test]
        fn any_path_bytes_round_trip(
            paths in proptest::collection::vec(
                proptest::collection::vec(1u8..=255, 0..40), 1..4)
        ) {
            use std::os::unix::ffi::OsStrExt;
            let mut fields = pane_fields("%0", "s", "t", "");
            fields.pop();
            let mut out = Vec::new();
            let ids: Vec<String> = (0..paths.len()).map(|i| format!("%{i}")).collect();
            for (path, id) in paths.iter().zip(&ids) {
                fields[6] = id;
                out.extend(raw_record(&fields, path));
            }
            let panes = parse_pane_bytes(&out).unwrap();
            proptest::prop_assert_eq!(panes.len(), paths.len());
            for (pane, path) in panes.iter().zip(&paths) {
                proptest::prop_assert_eq!(pane.cwd.as_os_str().as_bytes(), &path[..]);
            }
        }

        /// Whatever tmux's output holds (noise, or a listing with a few
        /// bytes changed): it is refused, or read into at most one pane per
        /// record end, each pane once, with a cwd that is bytes of the output.
        #[test]
        fn output_is_refused_or_read_into_panes_it_holds(bytes in near_listing()) {
            use std::os::unix::ffi::OsStrExt;
            if let Ok(panes) = parse_pane_bytes(&bytes) {
                let ends = bytes.iter().filter(|&&b| b == 0x1e).count();
                proptest::prop_assert!(panes.len() <= ends, "{} panes, {ends} record ends", panes.len());
                let ids: std::collections::HashSet<_> = panes.iter().map(|p| p.id.clone()).collect();
                proptest::prop_assert_eq!(ids.len(), panes.len());
                for pane in &panes {
                    let cwd = pane.cwd.as_os_str().as_bytes();
                    proptest::prop_assert!(
                        cwd.is_empty() || bytes.windows(cwd.len()).any(|w| w == cwd),
                        "{:?} is not in the output", pane.cwd
                    );
                }
            }
        }
    }

    /// Noise, or a listing of one to three valid pane records with up to
    /// three bytes inserted, removed or replaced.
    fn near_listing() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let paths = proptest::collection::vec(proptest::collection::vec(1u8..=255, 0..20), 1..4);
        let edits =
            proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 0..4);
        let listing = (paths, edits).prop_map(|(paths, edits)| {
            let mut fields = pane_fields("%0", "s", "t", "");
            fields.pop();
            let ids: Vec<String> = (0..paths.len()).map(|i| format!("%{i}")).collect();
            let mut out = Vec::new();
            for (path, id) in paths.iter().zip(&ids) {
                fields[6] = id;
                out.extend(raw_record(&fields, path));
            }
            for (at, op, byte) in edits {
                let i = at.index(out.len() + 1);
                match op {
                    0 => out.insert(i, byte),
                    1 if i < out.len() => {
                        out.remove(i);
                    }
                    _ if i < out.len() => out[i] = byte,
                    _ => {}
                }
            }
            out
        });
        prop_oneof![proptest::collection::vec(any::<u8>(), 0..300), listing]
    }

    fn pane_fields<'a>(id: &'a str, name: &'a str, title: &'a str, cwd: &'a str) -> Vec<&'a str> {
        vec![
            "$0",
            name,
            "@1",
            "0",
            "we\\011ird\\037name",
            "1",
            id,
            "0",
            "1",
            "80",
            "24",
            "4242",
            "bash",
            title,
            "0",
            "",
            "0",
            "0",
            "0",
            "bash 4242",
            "",
            cwd,
        ]
    }

    #[test]
    fn a_watcher_verdict_is_read_from_its_pane_option() {
        let mut f = pane_fields("%5", "s", "t", "/");
        f[19] = "";
        f[20] = "absent";
        assert_eq!(
            parse_panes(&record(&f)).unwrap()[0].integration.state,
            "absent"
        );
        f[20] = "present";
        assert_eq!(
            parse_panes(&record(&f)).unwrap()[0].integration.state,
            "present"
        );
        f[20] = "";
        assert_eq!(
            parse_panes(&record(&f)).unwrap()[0].integration.state,
            "unknown"
        );
    }

    #[test]
    fn hostile_paths_titles_and_names() {
        let out = record(&pane_fields(
            "%3",
            "sess\\037ion",
            "títle \"q\" ünï 🚀",
            "/tmp/dir\ttab\nnewline",
        ));
        let panes = parse_panes(&out).unwrap();
        assert_eq!(panes.len(), 1);
        let p = &panes[0];
        assert_eq!(p.id.as_str(), "%3");
        assert_eq!(p.cwd, PathBuf::from("/tmp/dir\ttab\nnewline"));
        assert_eq!(p.title, "títle \"q\" ünï 🚀");
        assert_eq!(p.session_name, "sess\\037ion");
        assert_eq!(p.window_name, "we\\011ird\\037name");
        assert_eq!(p.integration.state, "present");
        assert_eq!(p.size, PaneSize { cols: 80, rows: 24 });
    }

    #[test]
    fn a_separator_in_the_raw_path_stays_in_the_path() {
        let out = record(&pane_fields("%3", "s", "t", "/tmp/a\x1fb"));
        assert_eq!(
            parse_panes(&out).unwrap()[0].cwd,
            PathBuf::from("/tmp/a\x1fb")
        );
    }

    #[test]
    fn linked_windows_are_listed_once() {
        let mut out = record(&pane_fields("%3", "a", "t", "/"));
        out += &record(&pane_fields("%4", "a", "t", "/"));
        let mut dup = pane_fields("%3", "b", "t", "/");
        dup[0] = "$1";
        out += &record(&dup);
        let panes = parse_panes(&out).unwrap();
        assert_eq!(
            panes.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
            ["%3", "%4"]
        );
        assert_eq!(panes[0].session.as_str(), "$0");
    }

    #[test]
    fn dead_panes_carry_status() {
        let mut f = pane_fields("%9", "s", "t", "/");
        f[14] = "1";
        f[15] = "7";
        let p = &parse_panes(&record(&f)).unwrap()[0];
        assert!(p.dead);
        assert_eq!(p.dead_status, Some(7));
    }

    #[test]
    fn short_or_garbled_records_are_errors_not_panics() {
        assert!(parse_panes("%3\x1fbash\x1e\n").is_err());
        let mut f = pane_fields("%3", "s", "t", "/");
        f[9] = "eighty";
        assert!(parse_panes(&record(&f)).is_err());
        assert!(parse_panes("").unwrap().is_empty());
        assert!(parse_sessions("$0\x1f1\x1e\n").is_err());
        assert!(parse_windows("garbage").is_err());
    }

    #[test]
    fn sessions_and_windows() {
        let s =
            parse_sessions("$0\x1f2\x1f1\x1fmain\x1e\n$3\x1f1\x1f0\x1fna\\037me\x1e\n").unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].attached && !s[1].attached);
        assert_eq!(s[1].name, "na\\037me");
        let w = parse_windows(
            "@1\x1f$0\x1f0\x1f1\x1f2\x1fmain\x1fünï code\x1e\n\
             @5\x1f$9\x1f0\x1f1\x1f1\x1f_wta_stash\x1fwta-stash\x1e\n",
        )
        .unwrap();
        assert_eq!(w.len(), 1, "the stash's windows are not listed");
        assert_eq!(
            (w[0].index, w[0].panes, w[0].name.as_str()),
            (0, 2, "ünï code")
        );
    }
}
