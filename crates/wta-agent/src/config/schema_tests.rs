//! The schema against the config it fills: every key, set alone to a
//! value other than its default, reaches the config; every default is in
//! its own range; the pane settings (follow focus, popup sizes).

use super::schema::{Kind, Shape, TABLES, TOP};
use super::tests::one;
use super::*;

/// A valid value for `kind` that is not its default.
fn sample(kind: Kind) -> &'static str {
    match kind {
        Kind::Bool { default: false } => "true",
        Kind::Bool { default: true } => "false",
        // The smallest value in range that is not the default.
        Kind::Int { min, default, .. } => {
            let value = if default == min { min + 1 } else { min };
            Box::leak(value.to_string().into_boxed_str())
        }
        Kind::Choice { default, choices } => {
            let other = choices.iter().find(|c| **c != default).unwrap();
            Box::leak(format!("\"{other}\"").into_boxed_str())
        }
        Kind::Str => "\"x\"",
        Kind::AgentId => "\"claude\"",
        Kind::AgentList => "[\"claude\"]",
        Kind::Language => "\"ja\"",
        Kind::Argv => "[\"/bin/agent\", \"--acp\"]",
        Kind::StrMap => "{ A = \"1\" }",
    }
}

/// Every key of the schema, set alone to a valid value other than its
/// default, is accepted and changes the config: no key is checked
/// without being read.
#[test]
fn every_key_of_the_schema_reaches_the_config() {
    let mut texts: Vec<String> = TOP
        .iter()
        .map(|k| format!("{} = {}\n", k.name, sample(k.kind)))
        .collect();
    for table in TABLES {
        let (header, required) = match table.shape {
            Shape::Section => (format!("[{}]", table.name), None),
            Shape::Whole { required } => (format!("[{}]", table.name), Some(required)),
            Shape::Named { required } => (format!("[{}.x]", table.name), Some(required)),
        };
        for key in table.keys {
            let mut text = format!("{header}\n{} = {}\n", key.name, sample(key.kind));
            if let Some(required) = required.filter(|r| *r != key.name) {
                let k = table.keys.iter().find(|k| k.name == required).unwrap();
                text.push_str(&format!("{required} = {}\n", sample(k.kind)));
            }
            texts.push(text);
        }
    }
    for text in &texts {
        let (config, problems) = parse(text);
        assert!(problems.is_empty(), "{text}: {problems:?}");
        assert_ne!(config, Config::default(), "{text} sets nothing");
    }
    assert_eq!(texts.len(), keys().len());
    assert!(keys().contains(&"custom_agents.NAME.argv".to_owned()));
}

#[test]
fn defaults_are_within_their_own_ranges() {
    let all = TOP.iter().chain(TABLES.iter().flat_map(|t| t.keys));
    for key in all {
        match key.kind {
            Kind::Int { min, max, default } => {
                assert!(min <= default && default <= max, "{}", key.name);
            }
            Kind::Choice { choices, default } => assert!(choices.contains(&default)),
            _ => {}
        }
    }
    for word in AutofixMode::WORDS {
        assert_eq!(
            AutofixMode::from_word(word).map(AutofixMode::word),
            Some(*word)
        );
    }
    for word in Placement::WORDS {
        assert_eq!(Placement::from_word(word).map(Placement::word), Some(*word));
    }
}

/// `[pane] follow_focus` is off unless set; a value that is not a boolean
/// is a problem and leaves it off.
#[test]
fn follow_focus_is_opt_in() {
    assert!(!parse("").0.pane.follow_focus);
    let (config, problems) = parse("[pane]\nfollow_focus = true\n");
    assert!(problems.is_empty(), "{problems:?}");
    assert!(config.pane.follow_focus);
    let (config, problem) = one("[pane]\nfollow_focus = \"yes\"\n");
    assert!(!config.pane.follow_focus, "{problem:?}");
}

/// `[pane] popup_width`/`popup_height` are percents of the terminal from
/// 10 to 100: one outside is named with its range, in every language, and
/// the default applies to it alone.
#[test]
fn popup_sizes_are_percents_of_the_terminal() {
    let (config, problems) = parse("[pane]\npopup_width = 100\npopup_height = 10\n");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        (config.pane.popup_width, config.pane.popup_height),
        (100, 10)
    );
    for (text, width, height) in [
        ("[pane]\npopup_width = 9\npopup_height = 50\n", 80, 50),
        ("[pane]\npopup_width = 60\npopup_height = 101\n", 60, 80),
        ("[pane]\npopup_width = 60\npopup_height = -1\n", 60, 80),
        ("[pane]\npopup_width = 300\n", 80, 80),
    ] {
        let (config, p) = one(text);
        assert!(matches!(p.kind, ProblemKind::OutOfRange { .. }), "{text}");
        assert_eq!(
            (config.pane.popup_width, config.pane.popup_height),
            (width, height),
            "{text}"
        );
        for locale in wta_i18n::LOCALES {
            let lookup = |key: &str, args: &[(&str, &str)]| {
                problem::fill(wta_i18n::tr_in(locale, key), args)
            };
            let said = p.render(&lookup);
            assert!(
                said.contains("10") && said.contains("100") && !said.contains("%{"),
                "{locale}: {said}"
            );
        }
    }
    assert_eq!(
        one("[pane]\npopup_widht = 50\n").1.english(),
        "unknown key `popup_widht` in [pane]: did you mean `popup_width`? (ignored)"
    );
}
