//! `Command::History` carried out: the action history read for the
//! picker, an entry proposed again (through the engine's normal path, so
//! it is a card the user confirms: `crate::history::entries`), the
//! transcript written. File work runs on blocking threads; the answers
//! come back as `Input::History`, worded by the machine.
//!
//! `/export`: a relative FILE, and the default
//! `wta-transcript-<UTC stamp>.md`, are taken in the agent pane's
//! directory (where it was started, `RuntimeConfig::cwd`); the file is
//! made 0600 (a transcript holds what the user and the agent said).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use wta_state::history_picker::HistoryEffect;

use super::Runtime;
use crate::history::entries;
use crate::machine::Input;
use crate::machine::history::HistoryNews;

impl Runtime {
    pub(super) fn history_command(&mut self, effect: HistoryEffect) {
        match effect {
            HistoryEffect::Read => self.spawn_blocking(|| {
                let listed = wta_env::history::default_store()
                    .read()
                    .map(|listing| {
                        for skipped in &listing.skipped {
                            tracing::warn!(
                                "action history: skipped line {} of {}: {}",
                                skipped.line,
                                skipped.file.display(),
                                skipped.why
                            );
                        }
                        listing.records.into_iter().rev().collect()
                    })
                    .map_err(|e| e.to_string());
                Some(Input::History(HistoryNews::Listed(listed)))
            }),
            HistoryEffect::Repropose { entry } => {
                let service = self.proposals.service().clone();
                let (target, own) = (
                    self.config.target_pane.clone(),
                    self.config.own_pane.clone(),
                );
                self.spawn_blocking(move || {
                    let result = wta_env::history::default_store()
                        .read()
                        .map_err(|e| e.to_string())
                        .and_then(|listing| {
                            let record = listing
                                .records
                                .into_iter()
                                .rev()
                                .find(|r| r.proposal_id == entry)
                                .ok_or_else(|| format!("no entry {entry}"))?;
                            let payload =
                                entries::payload_of(&record).map_err(|e| e.to_string())?;
                            entries::repropose(&service, &payload, target, own)
                                .map_err(|e| e.to_string())
                        });
                    Some(Input::History(HistoryNews::Reproposed(result)))
                });
            }
            HistoryEffect::Export { file, markdown } => {
                let dir = self.config.cwd.clone();
                self.spawn_blocking(move || {
                    let path = export_path(&dir, file.as_deref());
                    let shown = path.display().to_string();
                    let result = write_private(&path, &markdown)
                        .map(|()| shown.clone())
                        .map_err(|e| (shown, e.to_string()));
                    Some(Input::History(HistoryNews::Exported(result)))
                });
            }
        }
    }
}

/// Where `/export FILE` writes: FILE (relative to `dir`), else the
/// default name in `dir`.
fn export_path(dir: &Path, file: Option<&str>) -> PathBuf {
    let name = file.map_or_else(
        || {
            let now = wta_env::history::rfc3339(std::time::SystemTime::now());
            PathBuf::from(wta_state::export::default_file_name(&now))
        },
        PathBuf::from,
    );
    dir.join(name)
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.flush()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn relative_and_default_names_land_in_the_panes_directory() {
        let dir = Path::new("/work/here");
        assert_eq!(
            export_path(dir, Some("notes.md")),
            PathBuf::from("/work/here/notes.md")
        );
        assert_eq!(
            export_path(dir, Some("/tmp/abs.md")),
            PathBuf::from("/tmp/abs.md")
        );
        let default = export_path(dir, None);
        let name = default.file_name().unwrap().to_string_lossy().into_owned();
        assert!(default.starts_with(dir), "{default:?}");
        assert!(
            name.starts_with("wta-transcript-") && name.ends_with(".md"),
            "{name}"
        );
    }
}
