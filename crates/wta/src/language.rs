//! The language WTA speaks to the user: `--language`, else the config's
//! `language`, else the environment (`wta_i18n::resolve`). Set once, at
//! start, for every role; machine output never changes with it.

/// The `language = "…"` of the user's config file, when it sets one WTA
/// speaks (the config validator's; one it does not speak is ignored, and
/// the agent pane and `wta doctor` say so).
fn configured() -> Option<String> {
    let paths = wta_agent::RegistryPaths::from_env().ok()?;
    wta_agent::config::load(&paths.config_file).config.language
}

/// Picks and sets the language (`flag` is `--language`).
pub fn init(flag: Option<&str>) {
    let config = if flag.is_none() { configured() } else { None };
    let locale = wta_i18n::resolve(flag, config.as_deref(), |k| std::env::var(k).ok());
    wta_i18n::set_language(locale);
}
