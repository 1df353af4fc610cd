//! The card and the facts of its pane, through the real reducer: a busy
//! pane disables Run and Insert of a choice that types into it (Enter only
//! makes the reason stand out, Open still works), an idle pane brings Run
//! back without re-reading, no key sequence confirms while busy, and
//! unknown or foreign facts change nothing.

use std::time::{Duration, Instant};

use wta_protocol::{Action, Choice, OpenTarget, Origin, ProposalId, ProposalPayload};

use crate::proposal_card::{CardSight, FullViewFrame};
use crate::{
    AcceptedProposal, Busy, ConfirmMode, DomainEvent, Effect, Event, Key, KeyCode, KeyPath,
    PaneFacts, PermissionOption, PermissionOptionKind, PermissionRequest, PermissionRequestId,
    ToolKind, TypedText, update,
};

use super::state::AppState;

/// Card `id` on pane `%3`, choice `recommended` first.
fn accepted(id: u8, recommended: u64, choices: Vec<Choice>) -> AcceptedProposal {
    AcceptedProposal {
        id: ProposalId::from_bytes([id; 16]),
        payload: ProposalPayload {
            schema_version: 1,
            origin: Origin::TerminalAgent,
            recommended_choice: recommended,
            choices,
        },
        target_pane: "%3".into(),
        target_cwd: None,
        origin: Origin::TerminalAgent,
        armed: true,
        delegate_agent: None,
    }
}

fn send_choice(n: u64, input: &str) -> Choice {
    Choice {
        choice: n,
        title: format!("send {n}"),
        rationale: String::new(),
        actions: vec![Action::Send {
            input: input.into(),
        }],
    }
}

fn open_choice(n: u64) -> Choice {
    Choice {
        choice: n,
        title: format!("open {n}"),
        rationale: String::new(),
        actions: vec![Action::Open {
            target: OpenTarget::Tab,
            cwd: None,
            title: None,
            direction: None,
        }],
    }
}

fn busy(command: &str) -> PaneFacts {
    PaneFacts {
        busy: Some(Busy::Running {
            command: command.into(),
        }),
        ..PaneFacts::default()
    }
}

fn idle() -> PaneFacts {
    PaneFacts::default()
}

/// A pane whose target is `%3`, a card on `%3` (send first, open second),
/// at `t0`.
struct F {
    state: AppState,
    t0: Instant,
    ms: u64,
}

impl F {
    fn new(choices: Vec<Choice>) -> Self {
        let mut f = F {
            state: AppState::new("demo"),
            t0: Instant::now(),
            ms: 0,
        };
        f.domain(DomainEvent::TargetPane {
            pane: "%3".into(),
            cwd: None,
        });
        f.domain(DomainEvent::ProposalAccepted(Box::new(accepted(
            1, 1, choices,
        ))));
        // The whole card was on screen.
        let total = 9;
        f.send(Event::CardShown(CardSight {
            id: ProposalId::from_bytes([1; 16]),
            width: 40,
            total,
            first: 0,
            shown: total,
            full_view: None,
        }));
        f
    }

    fn send_then_open() -> Self {
        Self::new(vec![send_choice(1, "make"), open_choice(2)])
    }

    fn now(&self) -> Instant {
        self.t0 + Duration::from_millis(self.ms)
    }

    fn send(&mut self, event: Event) -> Vec<Effect> {
        let now = self.now();
        update(&mut self.state, event, now)
    }

    fn domain(&mut self, event: DomainEvent) -> Vec<Effect> {
        self.send(Event::Domain(event))
    }

    fn facts(&mut self, pane: &str, facts: PaneFacts) -> Vec<Effect> {
        self.domain(DomainEvent::PaneFacts {
            pane: pane.into(),
            facts,
        })
    }

    /// A key `ms` after the last event.
    fn key_after(&mut self, code: KeyCode, ms: u64) -> Vec<Effect> {
        self.ms += ms;
        self.send(Event::Key(Key::plain(code)))
    }

    /// A key a second after the last event: the card is armed.
    fn key(&mut self, code: KeyCode) -> Vec<Effect> {
        self.key_after(code, 1000)
    }

    fn card(&self) -> &crate::ProposalCard {
        self.state.proposals.front().expect("a card")
    }

    fn notes(&self) -> crate::PaneNotes {
        let card = self.card();
        card.pane_notes(self.state.facts_of(&card.proposal.target_pane))
    }
}

fn confirmed(effects: &[Effect]) -> Option<(u64, ConfirmMode)> {
    effects.iter().find_map(|e| match e {
        Effect::ConfirmProposal { choice, mode, .. } => Some((*choice, *mode)),
        _ => None,
    })
}

#[test]
fn a_busy_pane_refuses_run_and_insert_and_open_still_works() {
    let mut f = F::send_then_open();
    f.facts("%3", busy("sleep 15"));
    let notes = f.notes();
    assert_eq!(
        notes.busy,
        Some(Busy::Running {
            command: "sleep 15".into()
        })
    );
    assert!(!notes.stand_out);
    assert!(f.state.proposals.front().unwrap().read_in_full());

    let lines = f.state.transcript.entries().len();
    assert!(f.key(KeyCode::Enter).is_empty(), "Run waits for the pane");
    assert_eq!(f.state.proposals.len(), 1, "the card stays");
    assert!(f.notes().stand_out, "the reason stands out");
    assert_eq!(f.state.transcript.entries().len(), lines, "no line said");
    assert!(f.state.input.is_empty(), "Enter did not reach the editor");

    f.key(KeyCode::Right);
    assert_eq!(f.card().selected_mode(), Some(ConfirmMode::Insert));
    assert!(f.key(KeyCode::Enter).is_empty(), "Insert waits too");

    // Another choice: the reason goes (it does not type into the pane).
    f.key(KeyCode::Down);
    assert!(f.notes().is_empty());
    assert_eq!(
        confirmed(&f.key(KeyCode::Enter)),
        Some((2, ConfirmMode::Open))
    );
    assert!(f.state.proposals.is_empty());
}

#[test]
fn a_full_screen_program_blocks_like_a_command() {
    let mut f = F::send_then_open();
    f.facts(
        "%3",
        PaneFacts {
            busy: Some(Busy::FullScreen {
                command: "vim".into(),
            }),
            typed_text: true,
            keys: KeyPath::TypedKeys,
            untracked: None,
        },
    );
    let notes = f.notes();
    assert!(matches!(notes.busy, Some(Busy::FullScreen { .. })));
    assert_eq!(
        notes.typed, None,
        "no prompt: nothing typed at it matters yet"
    );
    assert!(!notes.as_keys);
    assert!(f.key(KeyCode::Enter).is_empty());
    assert_eq!(f.state.proposals.len(), 1);
}

#[test]
fn the_pane_idle_again_brings_run_back_without_rereading() {
    let mut f = F::send_then_open();
    f.facts("%3", busy("sleep 15"));
    assert!(f.key(KeyCode::Enter).is_empty());
    assert!(f.notes().stand_out);

    f.ms += 5;
    f.facts("%3", idle());
    assert!(f.notes().is_empty(), "nothing left to say");
    assert!(!f.card().pane_pressed, "the stand-out went with the fact");
    assert!(f.card().read_in_full(), "nothing to read again");
    // What the card says changed: its guard starts over, so an Enter
    // pressed for the blocked Run is not taken for the new one.
    assert!(f.key_after(KeyCode::Enter, 100).is_empty());
    assert!(f.state.guard.refused());
    assert_eq!(f.state.proposals.len(), 1);
    assert_eq!(
        confirmed(&f.key_after(KeyCode::Enter, 300)),
        Some((1, ConfirmMode::Run))
    );
}

#[test]
fn the_same_fact_again_leaves_the_guard_and_the_stand_out() {
    let mut f = F::send_then_open();
    f.facts("%3", busy("sleep 15"));
    f.key(KeyCode::Enter);
    f.ms += 1;
    f.facts("%3", busy("sleep 15"));
    assert!(f.notes().stand_out, "the same fact is no news");
    assert!(f.state.card_armed(f.now()), "nor a reveal");
}

#[test]
fn no_key_sequence_confirms_run_or_insert_while_the_pane_is_busy() {
    const KEYS: [KeyCode; 10] = [
        KeyCode::Enter,
        KeyCode::Right,
        KeyCode::Left,
        KeyCode::Tab,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Char('1'),
        KeyCode::Char('2'),
        KeyCode::Char('v'),
        KeyCode::End,
    ];
    let mut runs = 0;
    for n in 0..KEYS.len().pow(4) {
        let mut f = F::new(vec![send_choice(1, "make"), send_choice(2, "make install")]);
        f.facts("%3", busy("sleep 15"));
        let mut rest = n;
        for _ in 0..4 {
            let effects = f.key(KEYS[rest % KEYS.len()]);
            rest /= KEYS.len();
            assert_eq!(confirmed(&effects), None, "sequence {n}");
            if f.state.proposals.full_view_open() {
                // The driver reports what the full view shows.
                f.send(Event::CardShown(CardSight {
                    id: ProposalId::from_bytes([1; 16]),
                    width: 40,
                    total: 9,
                    first: 0,
                    shown: 9,
                    full_view: Some(FullViewFrame {
                        top: 0,
                        page: 9,
                        total: 9,
                    }),
                }));
            }
        }
        assert_eq!(f.state.proposals.len(), 1, "sequence {n}");
        runs += 1;
    }
    assert_eq!(runs, 10_000);
}

#[test]
fn text_typed_at_the_prompt_is_kept_or_replaced_and_typed_keys_say_so() {
    let mut f = F::send_then_open();
    f.facts(
        "%3",
        PaneFacts {
            typed_text: true,
            ..PaneFacts::default()
        },
    );
    let notes = f.notes();
    assert_eq!(notes.typed, Some(TypedText::Kept));
    assert!(!notes.as_keys && notes.busy.is_none());
    f.facts(
        "%3",
        PaneFacts {
            typed_text: true,
            keys: KeyPath::TypedKeys,
            busy: None,
            untracked: None,
        },
    );
    assert_eq!(f.notes().typed, Some(TypedText::Replaced));
    assert!(f.notes().as_keys);
    f.facts(
        "%3",
        PaneFacts {
            keys: KeyPath::TypedKeys,
            ..PaneFacts::default()
        },
    );
    assert_eq!(f.notes().typed, None);
    assert!(f.notes().as_keys);
    // Notes never disable anything: Run goes.
    assert_eq!(
        confirmed(&f.key(KeyCode::Enter)),
        Some((1, ConfirmMode::Run))
    );
}

#[test]
fn unknown_and_foreign_facts_change_nothing() {
    let mut f = F::send_then_open();
    assert!(f.notes().is_empty(), "no fact yet: nothing to say");
    assert_eq!(*f.state.facts_of("%3"), PaneFacts::default());
    // A pane neither the target nor any card's: dropped.
    f.facts("%9", busy("sleep 15"));
    assert!(!f.state.pane_facts.contains_key("%9"));
    assert!(f.notes().is_empty());
    assert_eq!(
        confirmed(&f.key(KeyCode::Enter)),
        Some((1, ConfirmMode::Run))
    );
}

#[test]
fn a_cards_own_pane_counts_and_is_let_go_with_it() {
    // An autofix card for %5 while the target is %3.
    let mut f = F::send_then_open();
    let mut fix = accepted(2, 1, vec![send_choice(1, "cargo test")]);
    fix.target_pane = "%5".into();
    f.domain(DomainEvent::ProposalAccepted(Box::new(fix)));
    f.facts("%5", busy("cargo build"));
    f.facts("%3", busy("sleep 15"));
    assert!(f.state.pane_facts.contains_key("%5"));
    // The first card (on %3) goes; the %5 card reaches the front.
    f.key(KeyCode::Esc);
    assert_eq!(f.card().proposal.target_pane, "%5");
    assert_eq!(
        f.notes().busy,
        Some(Busy::Running {
            command: "cargo build".into()
        })
    );
    f.key(KeyCode::Esc);
    assert!(f.state.proposals.is_empty());
    // The next fact lets %5 go; the target pane's stay.
    f.facts("%3", idle());
    assert!(!f.state.pane_facts.contains_key("%5"));
    assert!(f.state.pane_facts.contains_key("%3"));
}

#[test]
fn a_fact_under_a_permission_card_leaves_its_guard_alone() {
    let mut f = F::send_then_open();
    f.domain(DomainEvent::PermissionRequest(PermissionRequest {
        id: PermissionRequestId(1),
        title: "touch x".into(),
        kind: ToolKind::Execute,
        target: None,
        options: vec![PermissionOption {
            id: "ok".into(),
            name: "Allow".into(),
            kind: PermissionOptionKind::AllowOnce,
        }],
    }));
    f.ms += 1000;
    assert!(f.state.card_armed(f.now()));
    f.facts("%3", busy("sleep 15"));
    assert!(
        f.state.card_armed(f.now()),
        "the permission card on top did not change"
    );
}

#[test]
fn commands_are_shown_printable_and_bounded() {
    let mut f = F::send_then_open();
    let long = format!("\u{1b}[31mrm\u{202e} -rf\n{}", "x".repeat(100));
    f.facts("%3", busy(&long));
    let Some(Busy::Running { command }) = f.notes().busy else {
        panic!("busy");
    };
    assert!(command.starts_with("\u{fffd}[31mrm\u{fffd} -rf\u{fffd}x"));
    assert_eq!(command.chars().count(), crate::PANE_COMMAND_CHARS);
    assert!(command.ends_with('…'));
    assert!(!command.chars().any(char::is_control));
}

fn warnings(state: &AppState) -> Vec<String> {
    state
        .transcript
        .entries()
        .iter()
        .filter_map(|e| match &e.item {
            crate::transcript::Item::System {
                level: crate::SystemLevel::Warn,
                text,
            } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// A shell without integration as the watcher tells it: the line that
/// integrates it (the helper takes it from wta-shell), none for `dash`.
fn untracked(shell: &str) -> PaneFacts {
    let rc_line = match shell {
        "bash" | "zsh" => Some(format!(
            r#"eval "$(wta shell-integration {shell})"   # in ~/.{shell}rc"#
        )),
        "fish" => {
            Some("wta shell-integration fish | source   # in ~/.config/fish/config.fish".into())
        }
        _ => None,
    };
    PaneFacts {
        keys: KeyPath::TypedKeys,
        untracked: Some(crate::Untracked {
            program: shell.into(),
            rc_line,
        }),
        ..PaneFacts::default()
    }
}

#[test]
fn a_target_shell_without_integration_is_told_once_with_its_exact_line() {
    let mut f = F::send_then_open();
    assert!(warnings(&f.state).is_empty());
    f.facts("%3", untracked("bash"));
    let said = warnings(&f.state);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("%3") && said[0].contains("bash"),
        "{}",
        said[0]
    );
    assert!(
        said[0].contains(r#"eval "$(wta shell-integration bash)""#),
        "the exact line for bash: {}",
        said[0]
    );
    // The same fact again, or another change of the same pane: said once.
    f.facts("%3", untracked("bash"));
    f.facts(
        "%3",
        PaneFacts {
            typed_text: true,
            ..untracked("bash")
        },
    );
    assert_eq!(warnings(&f.state).len(), 1);
    // The card says so before it is confirmed, and still runs.
    let notes = f.notes();
    assert_eq!(notes.untracked.as_deref(), Some("bash"));
    assert!(f.card().enabled(f.state.facts_of("%3"), ConfirmMode::Run));
    // Integration found later: the card stops saying it.
    f.facts("%3", idle());
    assert_eq!(f.notes().untracked, None);
}

#[test]
fn each_shell_gets_its_own_line_and_a_shell_without_one_is_named() {
    for (shell, line) in [
        ("zsh", r#"eval "$(wta shell-integration zsh)""#),
        ("fish", "wta shell-integration fish | source"),
    ] {
        let mut f = F::send_then_open();
        f.facts("%3", untracked(shell));
        assert!(warnings(&f.state)[0].contains(line), "{shell}");
    }
    let mut f = F::send_then_open();
    f.facts("%3", untracked("dash"));
    let said = &warnings(&f.state)[0];
    assert!(
        said.contains("dash") && said.contains("bash, zsh and fish"),
        "{said}"
    );
    // Not the target pane (a card's other pane): no notice in the transcript.
    let mut f = F::send_then_open();
    f.facts("%9", untracked("bash"));
    assert!(warnings(&f.state).is_empty());
}
