//! The language WTA speaks to the user: `--language`, else the config's
//! `language`, else the environment (`wta_i18n::resolve`). Set once, at
//! start, for every role; machine output never changes with it.

use crate::config::UserConfig;

/// Picks and sets the language (`flag` is `--language`). The config's
/// `language` is the validator's: one WTA does not speak is ignored, and
/// the agent pane and `wta doctor` say so. With a flag the config is not
/// read here.
pub fn init(flag: Option<&str>, config: &UserConfig) {
    let configured = if flag.is_none() {
        config.language()
    } else {
        None
    };
    let locale = wta_i18n::resolve(flag, configured, |k| std::env::var(k).ok());
    wta_i18n::set_language(locale);
}
