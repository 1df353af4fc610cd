//! The user's config file (`~/.config/wta/config.toml`) as this process
//! sees it: read at most once, at the first need, and the agent registry
//! made from that same reading (with the system policy file). This module
//! owns the one handle of the process ([`user`]); commands reach it through
//! [`crate::cmd::Ctx::config`] and hand it down to what they call.
//!
//! Invariants: no other code of this crate reads the config file, so every
//! report of the validator's problems here (`wta doctor`, the registry's
//! errors) is of this one reading; a file that changes while the process
//! runs is not read again; nothing is read before something asks. (The
//! master reads it each time it needs the registry, so edits apply
//! without a restart; the agent pane's runtime gets this reading through
//! `RuntimeConfig::user_config` and reads again only what must apply at
//! once: the delegate agent, `[terminals]`, the registry before `/agent`.)

use std::sync::OnceLock;

use wta_agent::config::{Config, Loaded};
use wta_agent::{AgentError, Registry, RegistryPaths};

/// The config file and the registry, each made once, lazily.
#[derive(Debug, Default)]
pub struct UserConfig {
    /// Where the files are: from the environment at the first need (or given).
    paths: OnceLock<RegistryPaths>,
    loaded: OnceLock<Loaded>,
    registry: OnceLock<Registry>,
}

/// The process's handle (read from the environment's paths).
pub fn user() -> &'static UserConfig {
    static USER: OnceLock<UserConfig> = OnceLock::new();
    USER.get_or_init(UserConfig::default)
}

impl UserConfig {
    /// A handle on the files at `paths` instead of the environment's.
    #[cfg(test)]
    pub fn at(paths: RegistryPaths) -> Self {
        Self {
            paths: OnceLock::from(paths),
            ..Self::default()
        }
    }

    /// Where the config, the policy file and this binary are. Finding them
    /// fails only when the binary cannot name itself; that is asked again
    /// next time (it reads no file).
    pub fn paths(&self) -> Result<&RegistryPaths, AgentError> {
        if let Some(paths) = self.paths.get() {
            return Ok(paths);
        }
        let paths = RegistryPaths::from_env()?;
        Ok(self.paths.get_or_init(|| paths))
    }

    /// The config file as read and checked (every default when there is
    /// none), with its problems.
    pub fn loaded(&self) -> Result<&Loaded, AgentError> {
        let paths = self.paths()?;
        Ok(self
            .loaded
            .get_or_init(|| wta_agent::config::load(&paths.config_file)))
    }

    /// The agent registry of that reading: [`Registry::load`]'s errors (a
    /// config that is not TOML, a bad policy file) without reading the
    /// config again.
    pub fn registry(&self) -> Result<&Registry, AgentError> {
        if let Some(registry) = self.registry.get() {
            return Ok(registry);
        }
        let registry = Registry::from_loaded(self.paths()?.clone(), self.loaded()?)?;
        Ok(self.registry.get_or_init(|| registry))
    }

    /// The file's `language`, when it names one WTA speaks (the
    /// validator drops any other and reports it).
    pub fn language(&self) -> Option<&str> {
        self.loaded().ok()?.config.language.as_deref()
    }

    /// What `from` makes of the settings, and the problems of `table` (and
    /// of the file as a whole) in English for the log, each
    /// `path:line: message`; `None` when the files cannot be found.
    pub fn table<T>(
        &self,
        table: &str,
        from: impl FnOnce(&Config) -> T,
    ) -> Option<(T, Option<String>)> {
        let loaded = self.loaded().ok()?;
        let problems: Vec<String> = loaded
            .problems_in(table)
            .map(|p| p.located_english(&loaded.path))
            .collect();
        let warning = (!problems.is_empty()).then(|| problems.join("; "));
        Some((from(&loaded.config), warning))
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
