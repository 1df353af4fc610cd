//! The main screens in German, Japanese (wide characters) and the
//! pseudo-locale (every text about 40 % longer and bracketed), at 80 and 40
//! columns: chat (with system lines), a run proposal's card (full and
//! compact; its pane busy; its pane typed into as keys over typed text), a
//! permission card and the setup screen. One test walks every
//! locale in turn (the language is process-wide). Besides the snapshots,
//! the status line's activity word is always shown whole, and in the
//! pseudo-locale no word of the English `chat`/`tui` texts is on screen:
//! text that bypassed `wta_i18n::tr` would show up there unaccented.

mod common;

use std::collections::BTreeSet;

use common::Fixture;
use wta_protocol::{Action, Choice, OpenTarget, Origin, ProposalId, ProposalPayload};
use wta_state::*;

const LOCALES: [&str; 3] = ["de", "ja", "pseudo"];
const WIDTHS: [u16; 2] = [80, 40];

/// What the fixtures put on screen themselves (user, agent and shell
/// content, names), which no locale translates.
const FIXTURE_TEXT: &[&str] = &[
    "build it",
    "Done.",
    "test it",
    "cargo test --workspace",
    "cargo watch -x test",
    "sleep 15",
    "Run the tests",
    "Watch them in a panel",
    "The build is green; the tests say what broke.",
    "Allow",
    "Reject",
    "claude",
    "npm install -g @zed-industries/claude-code-acp",
    "demo demo-1 /src /home/ada/src/wta",
    "wta",
];

fn permission() -> PermissionRequest {
    PermissionRequest {
        id: PermissionRequestId(1),
        title: "cargo test".into(),
        kind: ToolKind::Execute,
        target: Some("cargo test --workspace".into()),
        options: vec![
            PermissionOption {
                id: "allow".into(),
                name: "Allow".into(),
                kind: PermissionOptionKind::AllowOnce,
            },
            PermissionOption {
                id: "reject".into(),
                name: "Reject".into(),
                kind: PermissionOptionKind::RejectOnce,
            },
        ],
    }
}

/// A run proposal: run a command here (recommended), or in a new panel.
fn proposal() -> AcceptedProposal {
    AcceptedProposal {
        id: ProposalId::from_bytes([7; 16]),
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::TerminalAgent,
            recommended_choice: 1,
            choices: vec![
                Choice {
                    choice: 1,
                    title: "Run the tests".into(),
                    rationale: "The build is green; the tests say what broke.".into(),
                    actions: vec![Action::Send {
                        input: "cargo test --workspace".into(),
                    }],
                },
                Choice {
                    choice: 2,
                    title: "Watch them in a panel".into(),
                    rationale: String::new(),
                    actions: vec![Action::OpenAndSend {
                        target: OpenTarget::Panel,
                        input: "cargo watch -x test".into(),
                        delegate: false,
                        cwd: None,
                    }],
                },
            ],
        },
        target_pane: "%3".into(),
        target_cwd: Some("/home/ada/src/wta".into()),
        origin: Origin::TerminalAgent,
        armed: true,
        delegate_agent: None,
    }
}

/// A prompt and the run proposal the agent answered it with.
fn run_card() -> Fixture {
    let mut run = Fixture::ready();
    run.prompt("test it");
    run.domain(DomainEvent::ProposalAccepted(Box::new(proposal())));
    run.at(1000).send(Event::Tick);
    run
}

/// The run proposal's card, its pane (`%3`) as the helper told it.
fn card_on_pane(facts: PaneFacts) -> Fixture {
    let mut card = run_card();
    card.domain(DomainEvent::PaneFacts {
        pane: "%3".into(),
        facts,
    });
    // What the card says changed: armed again after the grace period.
    card.at(2000).send(Event::Tick);
    card
}

/// (name, fixture, rows) of every screen.
fn screens() -> Vec<(&'static str, Fixture, u16)> {
    let mut chat = Fixture::ready();
    chat.domain(DomainEvent::TargetPane {
        pane: "%1".into(),
        cwd: Some("/src".into()),
    });
    chat.turn("build it", "Done.");
    chat.prompt("/stop");
    let mut card = Fixture::ready();
    card.prompt("test it");
    card.domain(DomainEvent::PermissionRequest(permission()));
    // Armed: the keys line shows the keys.
    card.at(1000).send(Event::Tick);
    let mut setup = Fixture::ready();
    setup.domain(DomainEvent::AgentMissing {
        agent: "claude".into(),
        install_hint: "npm install -g @zed-industries/claude-code-acp".into(),
    });
    let busy = card_on_pane(PaneFacts {
        busy: Some(Busy::Running {
            command: "sleep 15".into(),
        }),
        ..PaneFacts::default()
    });
    let keys = card_on_pane(PaneFacts {
        busy: None,
        typed_text: true,
        keys: KeyPath::TypedKeys,
        untracked: None,
    });
    vec![
        ("chat", chat, 12),
        ("card", run_card(), 12),
        ("card_busy", busy, 14),
        ("card_keys", keys, 16),
        ("card_compact", run_card(), 7),
        ("permission", card, 12),
        ("setup", setup, 12),
    ]
}

/// Words of `text` (ASCII letters, three or more) that the pseudo-locale
/// would change (they hold a vowel it accents).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| w.len() >= 3 && w.contains(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'O']))
}

/// Every such word of the English `chat` and `tui` texts, placeholders
/// left out, less the fixtures' own words.
fn english_words() -> BTreeSet<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../wta-i18n/locales");
    let fixture: BTreeSet<String> = FIXTURE_TEXT
        .iter()
        .flat_map(|t| words(t))
        .map(str::to_lowercase)
        .collect();
    let mut out = BTreeSet::new();
    for domain in ["chat", "tui"] {
        let path = root.join(domain).join("en.yml");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        for line in text.lines() {
            let Some((_, value)) = line.split_once(": \"") else {
                continue;
            };
            let mut plain = String::new();
            let mut rest = value;
            while let Some((before, after)) = rest.split_once("%{") {
                plain.push_str(before);
                rest = after.split_once('}').map_or("", |(_, a)| a);
            }
            plain.push_str(rest);
            out.extend(
                words(&plain)
                    .map(str::to_lowercase)
                    .filter(|w| !fixture.contains(w)),
            );
        }
    }
    out
}

#[test]
fn main_screens_in_three_locales() {
    let english = english_words();
    assert!(english.len() > 200, "{}", english.len());
    for locale in LOCALES {
        wta_i18n::set_language(locale);
        let ready = wta_i18n::tr("status.ready", &[]);
        for (name, fixture, rows) in screens() {
            for width in WIDTHS {
                let screen = fixture.render(width, rows);
                insta::assert_snapshot!(format!("{name}_{locale}_{width}"), screen);
                if name == "chat" {
                    let status = screen.lines().last().unwrap_or_default();
                    assert!(status.contains(&ready), "{locale} {width}: {status}");
                }
                if locale == "pseudo" {
                    let leaked: Vec<&str> = words(&screen)
                        .filter(|w| english.contains(&w.to_lowercase()))
                        .collect();
                    assert!(
                        leaked.is_empty(),
                        "{name} {width}: English {leaked:?} bypassed tr:\n{screen}"
                    );
                }
            }
        }
    }
    wta_i18n::set_language("en");
}
