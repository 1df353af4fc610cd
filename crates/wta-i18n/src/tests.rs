//! Locale resolution, every locale's keys and placeholders against
//! English, and the pseudo-locale.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

fn env(vars: &[(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    let vars: Vec<(&str, &str)> = vars.to_vec();
    move |k: &str| {
        vars.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| (*v).to_owned())
    }
}

#[test]
fn the_flag_then_the_config_then_the_environment() {
    assert_eq!(
        resolve(Some("fr"), Some("de"), env(&[("LANG", "ja_JP.UTF-8")])),
        "fr"
    );
    assert_eq!(
        resolve(None, Some("de"), env(&[("LANG", "ja_JP.UTF-8")])),
        "de"
    );
    assert_eq!(resolve(None, None, env(&[("LANG", "ja_JP.UTF-8")])), "ja");
    assert_eq!(
        resolve(
            None,
            None,
            env(&[("LC_ALL", "es_MX.UTF-8"), ("LANG", "de_DE")])
        ),
        "es"
    );
    assert_eq!(
        resolve(None, None, env(&[("LC_MESSAGES", "pt_PT"), ("LANG", "")])),
        "pt-BR"
    );
    assert_eq!(resolve(None, None, env(&[])), "en");
}

#[test]
fn tags_are_normalised_with_fallbacks() {
    for (tag, want) in [
        ("C", "en"),
        ("POSIX", "en"),
        ("C.UTF-8", "en"),
        ("en_AU", "en"),
        ("zh_HK.UTF-8", "zh-TW"),
        ("zh-Hant-TW", "zh-TW"),
        ("zh_SG", "zh-CN"),
        ("zh", "zh-CN"),
        ("es-419", "es"),
        ("de_AT@euro", "de"),
        ("fr_CA", "fr"),
        ("pt_BR.utf8", "pt-BR"),
        ("tlh", "en"),
        ("pseudo", "pseudo"),
    ] {
        assert_eq!(resolve(Some(tag), None, env(&[])), want, "{tag}");
    }
}

/// Every key of `value`, flattened (`status.ready`), with its text.
fn flatten(prefix: &str, value: &serde_yaml_ng::Value, out: &mut BTreeMap<String, String>) {
    match value {
        serde_yaml_ng::Value::Mapping(map) => {
            for (k, v) in map {
                let key = k.as_str().unwrap_or_default();
                let full = if prefix.is_empty() {
                    key.to_owned()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&full, v, out);
            }
        }
        other => {
            out.insert(
                prefix.to_owned(),
                other.as_str().unwrap_or_default().to_owned(),
            );
        }
    }
}

/// Every `locales/<domain>/<locale>.yml`, one per domain.
fn files_of(locale: &str) -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("locales");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path().join(format!("{locale}.yml")))
        .filter(|p| p.exists())
        .collect();
    files.sort();
    files
}

/// `locale`'s keys over every domain; a key in two files is an error.
fn keys_of(locale: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for path in files_of(locale) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
        let mut keys = BTreeMap::new();
        flatten("", &value, &mut keys);
        for (key, text) in keys {
            let again = out.insert(key.clone(), text);
            assert!(again.is_none(), "{locale}: {key} again in {path:?}");
        }
    }
    out
}

#[test]
fn every_domain_has_every_locale() {
    let domains = files_of("en").len();
    assert!(domains >= 1);
    for locale in LOCALES {
        assert_eq!(files_of(locale).len(), domains, "{locale}");
    }
}

fn placeholders(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = text
        .match_indices("%{")
        .filter_map(|(i, _)| text[i..].find('}').map(|j| &text[i..i + j + 1]))
        .collect();
    found.sort_unstable();
    found
}

#[test]
fn every_locale_has_every_key_with_the_same_placeholders() {
    let english = keys_of("en");
    assert!(english.len() > 20, "{english:?}");
    for locale in LOCALES.iter().filter(|l| **l != "en") {
        let theirs = keys_of(locale);
        let missing: Vec<&String> = english
            .keys()
            .filter(|k| !theirs.contains_key(*k))
            .collect();
        let extra: Vec<&String> = theirs
            .keys()
            .filter(|k| !english.contains_key(*k))
            .collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{locale}: missing {missing:?}, extra {extra:?}"
        );
        for (key, text) in &english {
            assert_eq!(
                placeholders(text),
                placeholders(&theirs[key]),
                "{locale}: {key}"
            );
            assert!(!theirs[key].trim().is_empty(), "{locale}: {key} is empty");
            assert_eq!(
                tr_in(locale, key),
                theirs[key],
                "{locale}: {key} is compiled in"
            );
        }
    }
}

#[test]
fn the_pseudo_locale_brackets_and_lengthens() {
    let p = pseudo("Ready");
    assert!(p.starts_with('[') && p.ends_with(']'), "{p}");
    assert!(p.chars().count() >= "Ready".chars().count() * 7 / 5, "{p}");
    assert_eq!(pseudo(""), "[]");
    assert!(pseudo("Ask %{agent} anything").starts_with("[Ásk %{agent} ány"));
}

#[test]
fn pseudo_text_keeps_the_values_as_they_are() {
    set_language(PSEUDO);
    let text = tr("input.ask", &[("agent", "claude-code")]);
    set_language("en");
    assert!(text.contains(" claude-code "), "{text}");
    assert!(text.starts_with("[Ásk "), "{text}");
}

proptest! {
    #[test]
    fn any_tag_resolves_to_a_shipped_locale(tag in ".{0,40}") {
        let locale = resolve(Some(&tag), None, |_| None);
        prop_assert!(supported(locale));
    }
}
