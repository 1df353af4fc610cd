//! The main screens in German, Japanese (wide characters) and the
//! pseudo-locale (every text about 40 % longer and bracketed), at 80 and 40
//! columns: chat, a permission card and the setup screen. One test walks
//! every locale in turn (the language is process-wide). Besides the
//! snapshots, the status line's activity word is always shown whole.

mod common;

use common::Fixture;
use wta_state::*;

const LOCALES: [&str; 3] = ["de", "ja", "pseudo"];
const WIDTHS: [u16; 2] = [80, 40];

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

fn screens() -> Vec<(&'static str, Fixture)> {
    let mut chat = Fixture::ready();
    chat.domain(DomainEvent::TargetPane {
        pane: "%1".into(),
        cwd: Some("/src".into()),
    });
    chat.turn("build it", "Done.");
    let mut card = Fixture::ready();
    card.prompt("test it");
    card.domain(DomainEvent::PermissionRequest(permission()));
    let mut setup = Fixture::ready();
    setup.domain(DomainEvent::AgentMissing {
        agent: "claude".into(),
        install_hint: "npm install -g @zed-industries/claude-code-acp".into(),
    });
    vec![("chat", chat), ("permission", card), ("setup", setup)]
}

#[test]
fn main_screens_in_three_locales() {
    for locale in LOCALES {
        wta_i18n::set_language(locale);
        let ready = wta_i18n::tr("status.ready", &[]);
        for (name, fixture) in screens() {
            for width in WIDTHS {
                let screen = fixture.render(width, 12);
                insta::assert_snapshot!(format!("{name}_{locale}_{width}"), screen);
                if name == "chat" {
                    let status = screen.lines().last().unwrap_or_default();
                    assert!(status.contains(&ready), "{locale} {width}: {status}");
                }
            }
        }
    }
    wta_i18n::set_language("en");
}
