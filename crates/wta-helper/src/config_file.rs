//! The helper's settings tables from `~/.config/wta/config.toml`, each
//! taken from the one loader and validator (`wta_agent::config`): the
//! helper reads no key the validator does not know, and a bad key is at its
//! default while the rest of the file applies. The problems are shown once,
//! when the agent pane starts ([`startup_notice`]); a table's loader also
//! hands back its own problems in English, for the log.
//!
//! The agent pane's runtime reads the file once: the `wta` binary hands
//! down its reading ([`ConfigRead`], in `RuntimeConfig::user_config`), and
//! a runtime given none reads it once at its start. What reads the file
//! again does so on purpose, each time at the use, so an edit applies
//! without a restart: the delegate agent at each launch, `[terminals]` at
//! each `terminal/create`, the registry before `/agent ID` switches.

use std::path::Path;

use wta_agent::RegistryPaths;
use wta_agent::config::{self, Config, Loaded};

/// One settings table of the config file: its name and what the helper
/// makes of the checked config. Reading, parsing and the table's problems
/// are the same for every table, here; the keys, ranges and defaults are
/// the validator's (`wta_agent::config`).
pub trait SettingsTable: Sized {
    /// The table's name, as in `[name]`.
    const TABLE: &'static str;

    /// This table's settings of a checked config.
    fn from_config(config: &Config) -> Self;

    /// Parses a whole config file's text (other tables are ignored); the
    /// table's problems are the error.
    fn from_toml(text: &str) -> Result<Self, String> {
        from_text(text, Self::TABLE, Self::from_config)
    }

    /// The settings in `path` (a missing file is the defaults, a bad key at
    /// its default), and a warning naming what was wrong.
    fn load(path: &Path) -> (Self, Option<String>) {
        load(path, Self::TABLE, Self::from_config)
    }
}

/// The user's config file as read once, and where it and the policy file
/// are.
#[derive(Debug, Clone)]
pub struct ConfigRead {
    pub paths: RegistryPaths,
    pub loaded: Loaded,
}

impl ConfigRead {
    /// Reads the file at the environment's paths (every default when there
    /// is none); `Err` only when the paths cannot be found.
    pub fn from_env() -> Result<Self, wta_agent::AgentError> {
        let paths = RegistryPaths::from_env()?;
        let loaded = config::load(&paths.config_file);
        Ok(Self { paths, loaded })
    }

    /// What `from` makes of the settings, and the problems of `table` (and
    /// of the file as a whole) for the log.
    pub fn table<T>(&self, table: &str, from: impl FnOnce(&Config) -> T) -> (T, Option<String>) {
        (from(&self.loaded.config), problems_of(&self.loaded, table))
    }

    /// The settings of table `T`, and its problems for the log.
    pub fn settings<T: SettingsTable>(&self) -> (T, Option<String>) {
        self.table(T::TABLE, T::from_config)
    }

    /// What the agent pane says once at start about this reading, in the
    /// user's language: every problem with its line, or `None` when the
    /// file is fine (or there is none).
    pub fn notice(&self) -> Option<String> {
        self.loaded.notice()
    }

    /// The agent registry of this reading (the policy file read now).
    pub fn registry(&self) -> Result<wta_agent::Registry, wta_agent::AgentError> {
        wta_agent::Registry::from_loaded(self.paths.clone(), &self.loaded)
    }
}

/// The problems of `table` (and of the file as a whole), each
/// `path:line: message` in English; `None` when there are none.
fn problems_of(loaded: &Loaded, table: &str) -> Option<String> {
    let lines: Vec<String> = loaded
        .problems_in(table)
        .map(|p| p.located_english(&loaded.path))
        .collect();
    (!lines.is_empty()).then(|| lines.join("; "))
}

/// The settings `from` makes of the file at `path` (every default when it
/// is missing), and the problems of its `[table]` for the log.
pub fn load<T>(path: &Path, table: &str, from: impl FnOnce(&Config) -> T) -> (T, Option<String>) {
    let loaded = config::load(path);
    let warning = problems_of(&loaded, table);
    (from(&loaded.config), warning)
}

/// The settings `from` makes of a whole file's `text`, or the problems of
/// its `[table]` (other tables are not looked at).
pub fn from_text<T>(text: &str, table: &str, from: impl FnOnce(&Config) -> T) -> Result<T, String> {
    let (config, problems) = config::parse(text);
    let loaded = Loaded {
        path: "config.toml".into(),
        exists: true,
        config,
        problems,
    };
    match problems_of(&loaded, table) {
        Some(problems) => Err(problems),
        None => Ok(from(&loaded.config)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_table_with_its_problems_the_others_unread() {
        let per_turn = |c: &Config| c.proposals.per_turn;
        assert_eq!(from_text("", "proposals", per_turn), Ok(10));
        let text = "[autofix]\nmode = \"x\"\n[proposals]\nper_turn = 3\n";
        assert_eq!(from_text(text, "proposals", per_turn), Ok(3));
        let wrong = from_text("[proposals]\nper_turn = \"high\"\n", "proposals", per_turn);
        assert!(
            wrong
                .as_ref()
                .is_err_and(|e| e.starts_with("config.toml:2: `per_turn` must be")),
            "{wrong:?}"
        );
        let unknown = from_text("[proposals]\nper_trun = 1\n", "proposals", per_turn);
        assert!(
            unknown
                .as_ref()
                .is_err_and(|e| e.contains("did you mean `per_turn`")),
            "{unknown:?}"
        );
        // A file that is not TOML is every table's problem.
        let broken = from_text("[proposals\n", "proposals", per_turn);
        assert!(
            broken.as_ref().is_err_and(|e| e.contains("not valid TOML")),
            "{broken:?}"
        );
    }

    #[test]
    fn missing_bad_and_good_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let per_turn = |c: &Config| c.proposals.per_turn;
        assert_eq!(load(&file, "proposals", per_turn), (10, None));
        std::fs::write(&file, "[proposals]\nper_turn = 7\n").unwrap();
        assert_eq!(load(&file, "proposals", per_turn), (7, None));
        std::fs::write(
            &file,
            "[proposals]\nper_turn = 0\n[autofix]\nmode = \"auto\"\n",
        )
        .unwrap();
        let (value, warning) = load(&file, "proposals", per_turn);
        assert_eq!(value, 10);
        assert!(warning.unwrap().contains("config.toml:2:"));
        // Another table's problem is not this table's.
        assert_eq!(load(&file, "autofix", |c| c.autofix.prewarm), (false, None));
    }
}
