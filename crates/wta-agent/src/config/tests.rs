//! The validator over every problem kind (with its line, column, nearest
//! key and what applies instead) and the README's examples against the
//! schema (the schema against the config it fills: `schema_tests.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use proptest::prelude::*;

use super::*;

/// The only problem of `text`.
pub(super) fn one(text: &str) -> (Config, Problem) {
    let (config, mut problems) = parse(text);
    assert_eq!(problems.len(), 1, "{text}: {problems:#?}");
    (config, problems.remove(0))
}

#[test]
fn an_empty_file_is_every_default() {
    let (config, problems) = parse("");
    assert!(problems.is_empty());
    assert_eq!(config, Config::default());
    assert_eq!(config.execution.timeout_secs, 120);
    assert_eq!(config.execution.output_max_bytes, 16384);
    assert_eq!(config.execution.interactive_after_secs, 3);
    assert_eq!(config.proposals.per_turn, 10);
    assert_eq!(config.terminals.placement, Placement::Split);
    assert!(!config.terminals.keep_after_exit);
    assert_eq!(config.autofix.mode, AutofixMode::Suggest);
    assert!(!config.autofix.prewarm);
    assert_eq!(
        (config.pane.popup_width, config.pane.popup_height),
        (80, 80)
    );
    assert!(!config.auto_approve_tools);
    assert_eq!(
        (
            &config.default_agent,
            &config.language,
            &config.allowed_agents
        ),
        (&None, &None, &None)
    );
    assert!(config.delegate.is_none() && config.custom_agents.is_empty());
}

#[test]
fn an_unknown_key_is_named_with_its_line_and_the_nearest_known_key() {
    let text = "[execution]\ntimeout_secs = 5\ntimout_secs = 7\n";
    let (config, p) = one(text);
    assert_eq!((p.line, p.column), (3, 1));
    assert_eq!(p.key, "execution.timout_secs");
    assert_eq!(
        p.kind,
        ProblemKind::UnknownKey {
            suggestion: Some(Suggestion::Key {
                key: "timeout_secs".into()
            })
        }
    );
    assert_eq!(p.fallback, Fallback::Ignored);
    assert_eq!(
        p.english(),
        "unknown key `timout_secs` in [execution]: did you mean `timeout_secs`? (ignored)"
    );
    // The good neighbour applies.
    assert_eq!(config.execution.timeout_secs, 5);
}

#[test]
fn an_unknown_key_far_from_every_known_one_has_no_suggestion() {
    let (_, p) = one("colour = \"blue\"\n");
    assert_eq!(p.kind, ProblemKind::UnknownKey { suggestion: None });
    assert_eq!(p.english(), "unknown key `colour` (ignored)");
    let (_, p) = one("\n\n[sessions]\nkeep = 3\n");
    assert_eq!((p.line, p.key.as_str()), (3, "sessions"));
}

#[test]
fn a_key_in_the_wrong_place_says_where_it_goes() {
    // A table's key at the top of the file.
    let (_, p) = one("timeout_secs = 5\n");
    assert_eq!(
        p.kind,
        ProblemKind::UnknownKey {
            suggestion: Some(Suggestion::InTable {
                table: "execution".into(),
                key: "timeout_secs".into()
            })
        }
    );
    assert_eq!(
        p.english(),
        "unknown key `timeout_secs`: did you mean `timeout_secs` in [execution]? (ignored)"
    );
    // A top-level key written after a table header.
    let (config, p) = one("[autofix]\nmode = \"auto\"\nlanguage = \"de\"\n");
    assert_eq!((p.line, p.key.as_str()), (3, "autofix.language"));
    assert_eq!(
        p.kind,
        ProblemKind::UnknownKey {
            suggestion: Some(Suggestion::TopLevel {
                key: "language".into()
            })
        }
    );
    assert_eq!(config.language, None);
    assert_eq!(config.autofix.mode, AutofixMode::Auto);
    // A misspelt table.
    let (_, p) = one("[autofx]\nmode = \"auto\"\n");
    assert_eq!(
        p.kind,
        ProblemKind::UnknownKey {
            suggestion: Some(Suggestion::Key {
                key: "autofix".into()
            })
        }
    );
}

#[test]
fn a_wrong_type_names_both_types_and_the_default_applies() {
    let (config, p) = one("[execution]\noutput_max_bytes = 4096\ntimeout_secs = \"x\"\n");
    assert_eq!((p.line, p.column), (3, 16));
    assert_eq!(
        p.kind,
        ProblemKind::WrongType {
            expected: Expected::Integer,
            found: Found::String
        }
    );
    assert_eq!(p.fallback, Fallback::Default("120".into()));
    assert_eq!(
        p.english(),
        "`timeout_secs` must be a whole number, not a string (the default applies: 120)"
    );
    assert_eq!(config.execution.timeout_secs, 120);
    assert_eq!(config.execution.output_max_bytes, 4096);
    for (text, expected, found) in [
        (
            "auto_approve_tools = \"yes\"\n",
            Expected::Boolean,
            Found::String,
        ),
        (
            "[proposals]\nper_turn = 2.5\n",
            Expected::Integer,
            Found::Float,
        ),
        ("language = 7\n", Expected::String, Found::Integer),
        (
            "allowed_agents = \"claude\"\n",
            Expected::Strings,
            Found::String,
        ),
        ("execution = 5\n", Expected::Table, Found::Integer),
        (
            "[terminals]\nplacement = true\n",
            Expected::String,
            Found::Boolean,
        ),
        (
            "[[autofix]]\nmode = \"off\"\n",
            Expected::Table,
            Found::Array,
        ),
        (
            "default_agent = 1979-05-27\n",
            Expected::String,
            Found::Datetime,
        ),
    ] {
        let (config, p) = one(text);
        assert_eq!(p.kind, ProblemKind::WrongType { expected, found }, "{text}");
        assert_eq!(config, Config::default(), "{text}");
    }
}

#[test]
fn an_out_of_range_number_names_the_range() {
    let (config, p) = one("[proposals]\nper_turn = 99\n");
    assert_eq!((p.line, p.column), (2, 12));
    assert_eq!(
        p.kind,
        ProblemKind::OutOfRange {
            min: 1,
            max: 50,
            found: "99".into()
        }
    );
    assert_eq!(
        p.english(),
        "`per_turn` must be from 1 to 50, not 99 (the default applies: 10)"
    );
    assert_eq!(config.proposals.per_turn, 10);
    for text in [
        "[execution]\ntimeout_secs = 0\n",
        "[execution]\ntimeout_secs = -1\n",
        "[execution]\ntimeout_secs = 86401\n",
        "[execution]\noutput_max_bytes = 10\n",
        "[execution]\noutput_max_bytes = 10000000\n",
        "[execution]\ninteractive_after_secs = 0\n",
    ] {
        let (config, p) = one(text);
        assert!(matches!(p.kind, ProblemKind::OutOfRange { .. }), "{text}");
        assert_eq!(config, Config::default(), "{text}");
    }
    // Other spellings of a number in range are numbers.
    let (config, problems) =
        parse("[execution]\ntimeout_secs = 1_000\noutput_max_bytes = 0x1000\n");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(config.execution.timeout_secs, 1000);
    assert_eq!(config.execution.output_max_bytes, 4096);
}

#[test]
fn a_word_outside_the_choices_names_them_and_the_nearest() {
    let (config, p) = one("[autofix]\nmode = \"always\"\nprewarm = true\n");
    assert_eq!((p.line, p.column), (2, 8));
    assert_eq!(
        p.english(),
        "`mode` must be one of off, suggest, auto, not `always` (the default applies: \"suggest\")"
    );
    assert_eq!(config.autofix.mode, AutofixMode::Suggest);
    assert!(config.autofix.prewarm);
    let (_, p) = one("[terminals]\nplacement = \"windw\"\n");
    assert_eq!(
        p.kind,
        ProblemKind::NotOneOf {
            choices: vec!["split".into(), "window".into()],
            found: "windw".into(),
            suggestion: Some("window".into())
        }
    );
    assert!(
        p.english().contains("did you mean `window`?"),
        "{}",
        p.english()
    );
}

#[test]
fn agent_ids_are_checked_with_the_nearest_id() {
    let (config, p) = one("default_agent = \"cluade\"\n");
    assert_eq!(
        p.kind,
        ProblemKind::BadAgentId {
            found: "cluade".into(),
            suggestion: Some("claude".into())
        }
    );
    assert_eq!(config.default_agent, None);
    let (_, p) = one("default_agent = \"custom:mine\"\n");
    assert_eq!(
        p.english(),
        "`custom:mine` names no [custom_agents.mine] table (ignored)"
    );
    let (config, problems) =
        parse("default_agent = \"custom:mine\"\n[custom_agents.mine]\nargv = [\"/bin/mine\"]\n");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(config.default_agent.as_deref(), Some("custom:mine"));
    // In the allowlist a bad element is dropped, the others kept.
    let (config, p) = one("allowed_agents = [\"claude\", \"gemni\", \"custom:*\"]\n");
    assert_eq!((p.line, p.column), (1, 29));
    assert_eq!(p.fallback, Fallback::Ignored);
    assert_eq!(
        config.allowed_agents,
        Some(vec!["claude".to_owned(), "custom:*".to_owned()])
    );
}

#[test]
fn a_language_wta_does_not_speak_is_named() {
    let (config, p) = one("language = \"xx\"\n");
    assert_eq!(p.kind, ProblemKind::UnknownLanguage { found: "xx".into() });
    assert_eq!(
        p.english(),
        "`xx` is not a language WTA speaks (en, de, es, fr, ja, zh-CN, zh-TW, pt-BR) (ignored)"
    );
    assert_eq!(config.language, None);
    for good in [
        "de",
        "de_AT.UTF-8",
        "en",
        "en-GB",
        "zh-HK",
        "pt",
        "C",
        "pseudo",
    ] {
        let (config, problems) = parse(&format!("language = \"{good}\"\n"));
        assert!(problems.is_empty(), "{good}: {problems:?}");
        assert_eq!(config.language.as_deref(), Some(good));
    }
}

#[test]
fn tables_taken_whole_are_dropped_without_their_program() {
    let (config, p) = one("[delegate]\nname = \"x\"\n");
    assert_eq!((p.line, p.key.as_str()), (1, "delegate"));
    assert_eq!(
        p.english(),
        "[delegate] has no `argv` ([delegate] is ignored)"
    );
    assert_eq!(config.delegate, None);
    let (config, p) = one("[delegate]\nargv = []\n");
    assert_eq!(p.kind, ProblemKind::EmptyProgram);
    assert_eq!(p.fallback, Fallback::Table("delegate".into()));
    assert_eq!(config.delegate, None);
    let (config, p) = one("[custom_agents.x]\nargv = [\"a\", 3]\n");
    assert_eq!(
        (p.line, p.column, p.key.as_str()),
        (2, 14, "custom_agents.x.argv")
    );
    assert!(config.custom_agents.is_empty());
    let (config, p) = one("[custom_agents.\"bad name\"]\nargv = [\"a\"]\n");
    assert_eq!(
        p.kind,
        ProblemKind::BadCustomName {
            name: "bad name".into()
        }
    );
    assert!(config.custom_agents.is_empty());
    // An unknown key leaves the table usable.
    let (config, p) = one("[custom_agents.x]\nargv = [\"a\"]\ncommand = \"rm -rf /\"\n");
    assert_eq!((p.line, p.key.as_str()), (3, "custom_agents.x.command"));
    assert_eq!(config.custom_agents["x"].argv, ["a"]);
    // A bad env value is dropped, the rest kept.
    let (config, p) = one("[custom_agents.x]\nargv = [\"a\"]\nenv = { A = \"1\", B = 2 }\n");
    assert_eq!(p.key, "custom_agents.x.env.B");
    assert_eq!(
        config.custom_agents["x"].env.get("A").map(String::as_str),
        Some("1")
    );
    assert_eq!(config.custom_agents["x"].env.len(), 1);
}

#[test]
fn a_file_that_is_not_toml_says_where_and_everything_is_default() {
    let (config, p) = one("language = \"de\"\n[execution\ntimeout_secs = 5\n");
    assert_eq!((p.line, p.column), (2, 11));
    assert!(matches!(p.kind, ProblemKind::Syntax { .. }));
    assert_eq!(p.fallback, Fallback::Everything);
    assert_eq!(config, Config::default());
    let path = Path::new("/c/config.toml");
    assert!(
        p.located_english(path)
            .starts_with("/c/config.toml:2:11: not valid TOML: "),
        "{}",
        p.located_english(path)
    );
    assert!(
        p.english().ends_with("(every setting is at its default)"),
        "{}",
        p.english()
    );
    // A key twice is not TOML either.
    let (_, p) = one("language = \"de\"\nlanguage = \"fr\"\n");
    assert!(matches!(p.kind, ProblemKind::Syntax { .. }), "{p:?}");
    assert_eq!(p.line, 2);
}

#[test]
fn problems_come_in_file_order_and_located_names_the_line() {
    let text = "zeta = 1\n[autofix]\nmode = \"x\"\n[execution]\ntimeout_secs = 0\n";
    let (_, problems) = parse(text);
    let lines: Vec<u32> = problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, [1, 3, 5]);
    let path = Path::new("/home/me/.config/wta/config.toml");
    assert!(
        problems[2]
            .located_english(path)
            .starts_with("/home/me/.config/wta/config.toml:5: `timeout_secs` must be"),
        "{}",
        problems[2].located_english(path)
    );
}

#[test]
fn load_reads_a_missing_an_unreadable_and_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = load(&dir.path().join("none.toml"));
    assert!(!missing.exists && missing.problems.is_empty());
    assert_eq!(missing.config, Config::default());
    assert_eq!(missing.notice(), None);
    // A directory where the file should be cannot be read.
    let unreadable = load(dir.path());
    assert!(matches!(
        unreadable.unusable().map(|p| &p.kind),
        Some(ProblemKind::Unreadable { .. })
    ));
    let file = dir.path().join("config.toml");
    std::fs::write(
        &file,
        "[autofix]\nmode = \"always\"\n[execution]\ntimeout_secs = 0\n",
    )
    .unwrap();
    let bad = load(&file);
    assert!(bad.exists && bad.unusable().is_none());
    assert_eq!(bad.problems_in("autofix").count(), 1);
    assert_eq!(bad.problems_in("execution").count(), 1);
    assert_eq!(bad.problems_in("exec").count(), 0);
    // In whatever language the tests run: the header, then one line a problem.
    let notice = bad.notice().unwrap();
    let lines: Vec<&str> = notice.lines().collect();
    assert_eq!(lines.len(), 3, "{notice}");
    assert!(lines[0].contains("`wta doctor`"), "{notice}");
    assert!(
        lines[1].starts_with(&format!("{}:2: ", file.display())),
        "{notice}"
    );
    assert!(lines[1].contains("`mode`"), "{notice}");
    assert!(
        lines[2].starts_with(&format!("{}:4: ", file.display())),
        "{notice}"
    );
}

/// The README's config examples are valid as written.
#[test]
fn the_readme_examples_validate() {
    let readme = include_str!("../../../../README.md");
    let blocks: Vec<&str> = readme
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert!(blocks.len() >= 2, "{}", blocks.len());
    for block in blocks {
        let (_, problems) = parse(block);
        assert!(problems.is_empty(), "{block}: {problems:#?}");
    }
}

/// Every text a problem can show exists in every locale.
#[test]
fn every_problem_renders_in_every_locale() {
    let text = "zeta = 1\nlanguage = \"xx\"\ndefault_agent = \"custom:q\"\nallowed_agents = [\"cluade\"]\n\
                [autofix]\nmode = \"x\"\n[execution]\ntimeout_secs = 0\noutput_max_bytes = \"x\"\n\
                [delegate]\nname = \"d\"\n[custom_agents.\"b c\"]\nargv = [\"a\"]\n[custom_agents.y]\nargv = []\n";
    let (_, problems) = parse(text);
    assert_eq!(problems.len(), 10, "{problems:#?}");
    let (_, syntax) = parse("[x");
    // Not through set_language: other tests of this crate read the current one.
    for locale in wta_i18n::LOCALES {
        let lookup =
            |key: &str, args: &[(&str, &str)]| problem::fill(wta_i18n::tr_in(locale, key), args);
        for p in problems.iter().chain(&syntax) {
            let text = p.render(&lookup);
            assert!(
                !text.contains("%{") && !text.contains("config."),
                "{locale}: {text}"
            );
        }
    }
}

proptest! {
    /// Any text: every problem points into the text, and a value written
    /// in range is taken as written.
    #[test]
    fn any_text_gets_problems_inside_it(text in "[a-z_=\\[\\]\"\n 0-9.]{0,120}") {
        let (_, problems) = parse(&text);
        let lines = u32::try_from(text.lines().count()).unwrap() + 1;
        for p in &problems {
            prop_assert!(p.line >= 1 && p.line <= lines, "{p:?}");
            prop_assert!(p.column >= 1);
        }
    }

    #[test]
    fn a_timeout_in_range_is_taken_and_one_outside_is_refused(secs in -10i64..100_000) {
        let (config, problems) = parse(&format!("[execution]\ntimeout_secs = {secs}\n"));
        if (1..=86_400).contains(&secs) {
            prop_assert!(problems.is_empty());
            prop_assert_eq!(config.execution.timeout_secs, secs.unsigned_abs());
        } else {
            prop_assert_eq!(problems.len(), 1);
            prop_assert_eq!(config.execution.timeout_secs, 120);
        }
    }
}
