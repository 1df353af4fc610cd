//! Which locale WTA speaks: the first of `--language`, the config's
//! `language` and the environment (`LC_ALL`, `LC_MESSAGES`, `LANG`) that
//! names one, normalised (`de_DE.UTF-8` → `de-DE`) and matched with
//! fallbacks: the exact tag, a script or region sibling (`zh-HK`/`zh-MO`/
//! `zh-Hant` → `zh-TW`, `zh-SG`/`zh-Hans` → `zh-CN`, `pt`/`pt-PT` →
//! `pt-BR`), then the language alone (`es-419` → `es`); `C`, `POSIX` and
//! anything unknown → `en`.

/// The locales WTA ships.
pub const LOCALES: [&str; 8] = ["en", "de", "es", "fr", "ja", "zh-CN", "zh-TW", "pt-BR"];
/// The pseudo-locale (English, lengthened and bracketed).
pub const PSEUDO: &str = "pseudo";

/// Whether `tag` is a shipped locale or the pseudo-locale.
pub fn supported(tag: &str) -> bool {
    tag == PSEUDO || LOCALES.contains(&tag)
}

/// The locale for the first of `flag`, `config` and the environment
/// (`env` reads a variable) that names one.
pub fn resolve(
    flag: Option<&str>,
    config: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> &'static str {
    let from_env = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .into_iter()
        .filter_map(&env)
        .find(|v| !v.trim().is_empty());
    let chosen = flag
        .map(str::to_owned)
        .or_else(|| config.map(str::to_owned))
        .or(from_env);
    chosen.as_deref().map_or("en", matched)
}

/// The shipped locale for one tag.
fn matched(raw: &str) -> &'static str {
    let tag = normalise(raw);
    if tag == PSEUDO {
        return PSEUDO;
    }
    if let Some(exact) = LOCALES.iter().find(|l| l.eq_ignore_ascii_case(&tag)) {
        return exact;
    }
    let lower = tag.to_ascii_lowercase();
    let mut parts = lower.split('-');
    let language = parts.next().unwrap_or_default();
    let rest: Vec<&str> = parts.collect();
    match language {
        "zh" if rest
            .iter()
            .any(|p| matches!(*p, "tw" | "hk" | "mo" | "hant")) =>
        {
            "zh-TW"
        }
        "zh" => "zh-CN",
        "pt" => "pt-BR",
        "c" | "posix" | "" => "en",
        other => LOCALES
            .iter()
            .find(|l| l.eq_ignore_ascii_case(other))
            .copied()
            .unwrap_or("en"),
    }
}

/// `de_DE.UTF-8@euro` → `de-DE`.
fn normalise(raw: &str) -> String {
    let raw = raw.trim();
    let raw = raw.split(['.', '@']).next().unwrap_or_default();
    raw.replace('_', "-")
}
