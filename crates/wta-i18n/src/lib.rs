//! WTA's user-visible text in the user's language (issue 20).
//!
//! - Translations: `locales/<domain>/<tag>.yml` (`tui`: the agent pane's
//!   chrome, …), compiled by `build.rs` into one static table (`catalog`):
//!   no text is copied or indexed at run time. English is the source and
//!   the fallback for a missing key.
//! - [`resolve`]: which locale, from `--language`, then the config's
//!   `language`, then `LC_ALL` / `LC_MESSAGES` / `LANG`, normalised with
//!   fallbacks (`de_DE.UTF-8` → `de`, `zh-HK` → `zh-TW`, `C`/`POSIX` → `en`).
//! - [`set_language`] once at start; [`tr`] / the [`tr!`] macro look text up.
//! - The pseudo-locale `pseudo` lengthens every English text by about 40 %
//!   and brackets it, so truncation and text that bypasses [`tr`] show.
//!
//! Machine output (`--json`, protocol lines, golden files) never goes
//! through here.

mod catalog;
mod resolve;

pub use resolve::{LOCALES, PSEUDO, resolve, supported};

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static PSEUDO_ON: AtomicBool = AtomicBool::new(false);
/// The current locale, as an index into the catalog.
static CURRENT: AtomicUsize = AtomicUsize::new(catalog::SOURCE);

/// Makes `tag` (a [`resolve`]d locale) the one every later [`tr`] uses.
pub fn set_language(tag: &str) {
    let pseudo = tag == PSEUDO;
    PSEUDO_ON.store(pseudo, Ordering::Relaxed);
    let tag = if pseudo { "en" } else { tag };
    CURRENT.store(catalog::locale_index(tag), Ordering::Relaxed);
    // `wta --help`'s own catalog (the `wta` crate) follows rust-i18n's locale.
    rust_i18n::set_locale(tag);
}

/// The locale in use.
pub fn language() -> String {
    if PSEUDO_ON.load(Ordering::Relaxed) {
        return PSEUDO.to_owned();
    }
    catalog::tag(CURRENT.load(Ordering::Relaxed)).to_owned()
}

/// `key`'s text in the current language, `%{name}` placeholders filled
/// from `args`. An unknown key comes back as itself.
pub fn tr(key: &str, args: &[(&str, &str)]) -> String {
    let mut text = catalog::text(CURRENT.load(Ordering::Relaxed), key).to_owned();
    // The pseudo form is made before the values go in: they keep their shape.
    if PSEUDO_ON.load(Ordering::Relaxed) {
        text = pseudo(&text);
    }
    for (name, value) in args {
        text = text.replace(&format!("%{{{name}}}"), value);
    }
    text
}

/// `key`'s text in `locale` (English for a locale not shipped; for tests
/// and the parity check), unfilled.
pub fn tr_in(locale: &str, key: &str) -> String {
    catalog::text(catalog::locale_index(locale), key).to_owned()
}

/// `tr!("key")`, `tr!("key", name = value, …)`.
#[macro_export]
macro_rules! tr {
    ($key:expr) => {
        $crate::tr($key, &[])
    };
    ($key:expr, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::tr($key, &[$((stringify!($name), &$value.to_string())),+])
    };
}

/// The pseudo-locale's form of `text`: accented vowels, about 40 % longer,
/// bracketed; `%{placeholders}` are left as they are, for their values.
pub fn pseudo(text: &str) -> String {
    let chars = text.chars().count();
    let mut accented = String::with_capacity(text.len() * 2);
    let mut in_placeholder = false;
    let mut previous = '\0';
    for c in text.chars() {
        if previous == '%' && c == '{' {
            in_placeholder = true;
        } else if in_placeholder && c == '}' {
            in_placeholder = false;
        }
        previous = c;
        accented.push(if in_placeholder { c } else { accent(c) });
    }
    let pad = "~".repeat((chars * 2).div_ceil(5));
    format!("[{accented}{pad}]")
}

fn accent(c: char) -> char {
    match c {
        'a' => 'á',
        'e' => 'é',
        'i' => 'í',
        'o' => 'ó',
        'u' => 'ú',
        'A' => 'Á',
        'E' => 'É',
        'O' => 'Ó',
        other => other,
    }
}

#[cfg(test)]
mod tests;
