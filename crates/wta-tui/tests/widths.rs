//! The screens issue 27 found broken in narrow panes, at 40, 60 and 80
//! columns, in English and in Japanese (wide characters): the fix card's
//! keys line (with a draft kept in the editor), `/help`, the `/agent`
//! picker and the sessions picker. Besides the snapshots: the way to
//! cancel is always on screen, the draft stays and the card says so, and
//! install lines are shown whole. One test walks both locales in turn (the
//! language is process-wide).

mod common;

use common::Fixture;
use wta_protocol::{Action, Choice, Origin, ProposalId, ProposalPayload};
use wta_state::*;

const WIDTHS: [u16; 3] = [40, 60, 80];
const LOCALES: [&str; 2] = ["en", "ja"];

const CLAUDE_INSTALL: &str = "npm install -g @agentclientprotocol/claude-agent-acp";

/// `/help me` failed and stays in the editor; Ctrl+F asked for a fix, and
/// its card is up and armed.
fn fix_card() -> Fixture {
    let mut f = Fixture::ready();
    f.typed("/help me");
    f.enter();
    f.domain(DomainEvent::Failure(FailureNotice {
        generation: 1,
        pane: "%3".into(),
        command: Some("ehco hi".into()),
        exit_code: 127,
    }));
    f.send(Event::Key(Key::ctrl('f')));
    f.domain(DomainEvent::ProposalAccepted(Box::new(AcceptedProposal {
        id: ProposalId::from_bytes([9; 16]),
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::Autofix,
            recommended_choice: 1,
            choices: vec![
                Choice {
                    choice: 1,
                    title: "Run it as intended".into(),
                    rationale: String::new(),
                    actions: vec![Action::Send {
                        input: "echo hi".into(),
                    }],
                },
                Choice {
                    choice: 2,
                    title: "Look it up".into(),
                    rationale: String::new(),
                    actions: vec![Action::Send {
                        input: "type ehco".into(),
                    }],
                },
            ],
        },
        target_pane: "%3".into(),
        target_cwd: None,
        origin: Origin::Autofix,
        armed: true,
        delegate_agent: None,
    })));
    f.at(1000).send(Event::Tick);
    f
}

fn help() -> Fixture {
    let mut f = Fixture::ready();
    f.typed("/help");
    f.enter();
    f
}

fn agent_picker() -> Fixture {
    let mut f = Fixture::ready();
    f.domain(DomainEvent::Agents(vec![
        AgentChoice {
            id: "copilot".into(),
            name: "copilot".into(),
            install: Some("npm install -g @github/copilot".into()),
        },
        AgentChoice {
            id: "claude".into(),
            name: "claude".into(),
            install: Some(CLAUDE_INSTALL.into()),
        },
        AgentChoice {
            id: "demo".into(),
            name: "demo".into(),
            install: None,
        },
    ]));
    f.typed("/agent");
    f.enter();
    f
}

/// The sessions picker, its rows as the helper words them in `locale`.
fn sessions(locale: &str) -> Fixture {
    let (working, ended) = match locale {
        "ja" => ("作業中 (Bash) %3 用", "終了 · 再開可能"),
        _ => ("working (Bash) for %3", "ended · resumable"),
    };
    let mut f = Fixture::ready();
    f.domain(DomainEvent::SessionList(vec![
        PickerItem {
            id: "k1".into(),
            label: format!("demo · {working}"),
            detail: "Fix the build · /home/ada/src/wta".into(),
            current: true,
        },
        PickerItem {
            id: "k2".into(),
            label: format!("claude · {ended}"),
            detail: "/home/ada/src/notes".into(),
            current: false,
        },
    ]));
    f
}

#[test]
fn narrow_panes_in_english_and_japanese() {
    for locale in LOCALES {
        wta_i18n::set_language(locale);
        let esc = wta_i18n::tr("keys.esc", &[]);
        let kept = [
            wta_i18n::tr("keys.draft_kept", &[]),
            wta_i18n::tr("keys.draft_kept_short", &[]),
        ];
        for width in WIDTHS {
            let card = fix_card().render(width, 16);
            insta::assert_snapshot!(format!("fix_card_{locale}_{width}"), card);
            let keys = card
                .lines()
                .find(|l| l.contains('╰'))
                .unwrap_or_default()
                .to_owned();
            assert!(keys.contains(&esc), "{locale} {width}: {keys}");
            assert!(
                kept.iter().any(|k| keys.contains(k.as_str())),
                "{locale} {width}: {keys}"
            );
            assert!(card.contains("/help me"), "the draft stays: {card}");

            let help = help().render(width, 72);
            insta::assert_snapshot!(format!("help_{locale}_{width}"), help);
            // A command's description wraps under its own column.
            let rows: Vec<&str> = help.lines().map(|l| l.trim_start_matches('"')).collect();
            let commands = rows.iter().position(|r| r.contains("/help ")).unwrap_or(0);
            let column = rows[commands].find("/help").unwrap_or(0) + 19;
            for row in rows[commands..].iter().take_while(|r| !r.contains("/yolo")) {
                let indent = row.len() - row.trim_start().len();
                assert!(
                    indent == column - 19 || indent == column,
                    "{locale} {width}: {row:?} in\n{help}"
                );
            }

            let agents = agent_picker().render(width, 14);
            insta::assert_snapshot!(format!("agent_picker_{locale}_{width}"), agents);
            // The install line is there whole, however it wraps.
            let flat: String = agents
                .lines()
                .map(|l| l.trim_matches('"').trim())
                .collect::<Vec<_>>()
                .join(" ");
            assert!(
                flat.contains("@agentclientprotocol/claude-agent-acp"),
                "{locale} {width}: {agents}"
            );

            let picker = sessions(locale).render(width, 10);
            insta::assert_snapshot!(format!("sessions_{locale}_{width}"), picker);
            for screen in [&agents, &picker] {
                let header = screen
                    .lines()
                    .find(|l| l.contains("↑↓") || l.contains(&esc));
                assert!(
                    header.is_some_and(|h| h.contains(&esc)),
                    "{locale} {width}: the picker keeps Esc:\n{screen}"
                );
            }
        }
    }
    wta_i18n::set_language("en");
}
