//! What you confirm is what runs, in the settings people use (issue 25), in
//! real bash, zsh and fish, each in its emacs, vi-insert and vi-command key
//! map, with Debian's `HISTCONTROL=ignoreboth` and a `HISTIGNORE` pattern
//! (zsh: `HIST_IGNORE_SPACE`, `HISTORY_IGNORE`), with and without text
//! typed at the prompt. For generated commands (the fidelity pieces plus
//! `!!`, `!$`, `^a^b`, `$'…'`, leading spaces, `\` continuations and
//! here-docs):
//! - the line the shell executes equals the card's text byte for byte (its
//!   `C` mark, and what it printed), and the reported status is what happened;
//! - what was typed at the prompt is back at the next prompt, and runs as it was;
//! - what `capture-pane --last-command` reads (`@wta_last_command`) is what ran;
//! - a command the user types with a leading space (not kept by history) is
//!   reported as itself, not as the previous command.
//!
//! Each shell goes through it twice: by its inbox file, and by the hex
//! digits after its RunHex key in the C locale (`hex_keys`: how a card
//! reaches a remote shell over `wta ssh`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use wta_protocol::PaneId;
use wta_shell::{EndReason, Shell, State};

#[macro_use]
mod common;
use common::*;

/// The key map a shell is in when the command arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    Emacs,
    ViInsert,
    ViCommand,
}

/// rc lines for `shell` in `keys`, with history settings users have. Each
/// shell shows its vi mode in the prompt, so a test can wait for it.
fn settings(shell: Shell, keys: Keys) -> String {
    let vi = keys != Keys::Emacs;
    match shell {
        Shell::Bash => format!(
            "HISTCONTROL=ignoreboth\nHISTIGNORE='ls *:echo ignored*'\n{}",
            if vi {
                "set -o vi\nbind 'set show-mode-in-prompt on'\n"
            } else {
                ""
            }
        ),
        Shell::Zsh => format!(
            "setopt HIST_IGNORE_SPACE HIST_IGNORE_DUPS\nHISTORY_IGNORE='(ls *|echo ignored*)'\n{}",
            if vi {
                "bindkey -v\nfunction zle-keymap-select { printf '\\e]2;%s\\a' $KEYMAP }\nfunction zle-line-finish { printf '\\e]2;read\\a' }\nzle -N zle-keymap-select\nzle -N zle-line-init zle-keymap-select\nzle -N zle-line-finish\n"
            } else {
                "bindkey -e\n"
            }
        ),
        Shell::Fish => if vi {
            "fish_vi_key_bindings\n"
        } else {
            "fish_default_key_bindings\n"
        }
        .to_owned(),
        Shell::Pwsh => unreachable!("pwsh is not installed"),
    }
}

/// Whether the pane shows `shell` in its vi `command` mode (else insert):
/// bash and fish say so in the prompt, zsh (its keymap hook, above) in the
/// pane title.
fn in_vi_mode(p: &Pane, shell: Shell, command: bool) -> bool {
    let screen = || p.server.capture(&p.pane);
    let last = |s: String| s.lines().last().unwrap_or_default().to_owned();
    match (shell, command) {
        (Shell::Bash, true) => last(screen()).contains("(cmd)"),
        (Shell::Bash, false) => last(screen()).contains("(ins)"),
        (Shell::Zsh, true) => p.server.display(&p.pane, "#{pane_title}") == "vicmd",
        (Shell::Zsh, false) => {
            matches!(
                p.server.display(&p.pane, "#{pane_title}").as_str(),
                "main" | "viins"
            )
        }
        (Shell::Fish, true) => last(screen()).contains("[N]"),
        (Shell::Fish, false) => last(screen()).contains("[I]"),
        (Shell::Pwsh, _) => unreachable!(),
    }
}

/// One command a card could carry, and what running it must show.
#[derive(Debug, Clone)]
struct Case {
    input: String,
    output: String,
    exit: i32,
}

/// `text` as one single-quoted word of `shell`.
fn quoted(shell: Shell, text: &str) -> String {
    match shell {
        Shell::Fish => format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'")),
        _ => format!("'{}'", text.replace('\'', r"'\''")),
    }
}

/// The commands every run of a shell goes through: history expansion
/// characters where the shell would expand them, leading spaces, ANSI-C
/// quoting, continuations and here-docs (fish has neither of the last two
/// kinds of quoting nor here-docs, nor history expansion).
fn corpus(shell: Shell) -> Vec<Case> {
    let case = |input: &str, output: &str, exit: i32| Case {
        input: input.to_owned(),
        output: output.to_owned(),
        exit,
    };
    let mut all = vec![
        case("   printf '%s\\n' leading-spaces", "leading-spaces", 0),
        case("printf '%s\\n' one \\\n  two", "one\ntwo", 0),
        case("^a^b", "", 127),
    ];
    if shell == Shell::Fish {
        all.push(case("printf '%s\\n' 'bang!!bang !$'", "bang!!bang !$", 0));
        all.push(case("echo \"日本語\" 'かな'", "日本語 かな", 0));
    } else {
        all.extend([
            case(
                "printf '%s\\n' \"bang!!bang !$ x!-1y\"",
                "bang!!bang !$ x!-1y",
                0,
            ),
            case("echo bang!!bang !$", "bang!!bang !$", 0),
            case("echo \"日本語!\" 'かな'", "日本語! かな", 0),
            case("printf '%s\\n' $'a\\x41b'", "aAb", 0),
            case("cat <<'EOF'\nhere !! $HOME\nEOF", "here !! $HOME", 0),
            case(
                "cat <<EOF\nunquoted-$((6*7))\nEOF\n(exit 3)",
                "unquoted-42",
                3,
            ),
        ]);
    }
    all
}

/// Generated commands: the fidelity pieces, printed back.
fn generated(shell: Shell) -> impl Strategy<Value = Case> {
    let piece = prop_oneof![
        Just("#(touch /tmp/wta-never)".to_owned()),
        Just("#{pane_id}".to_owned()),
        Just(";".to_owned()),
        Just("\\".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just("!!".to_owned()),
        Just("!$".to_owned()),
        Just("^a^b".to_owned()),
        Just("$(id)".to_owned()),
        Just("ünï 日本".to_owned()),
        "[a-z0-9 %~=+,._-]{1,16}",
    ];
    prop::collection::vec(piece, 1..5).prop_map(move |pieces| {
        let text = pieces.concat();
        Case {
            input: format!("printf '%s\\n' {}", quoted(shell, &text)),
            output: text.trim_end().to_owned(),
            exit: 0,
        }
    })
}

impl Pane {
    /// Before each hand-off: the key map the case asks for (vi-command:
    /// Escape, then wait for the shell to show it), and typed text left
    /// at the prompt when `pending` is given.
    async fn prepare(&self, shell: Shell, keys: Keys, pending: Option<&str>) {
        self.wait_state("idle prompt", |s| *s == State::Idle).await;
        if keys != Keys::Emacs {
            // fish may start a prompt in its normal mode; bash and zsh
            // start each in insert mode (shown once the line is drawn).
            if shell == Shell::Fish && in_vi_mode(self, shell, true) {
                self.keys("i");
            }
            self.wait_for("vi insert mode", || in_vi_mode(self, shell, false));
        }
        if let Some(text) = pending {
            self.server
                .tmux(&["send-keys", "-t", &self.pane, "-l", "--", text]);
            // The cursor inside the text, where an editing key would split it.
            self.keys("Left");
            self.keys("Left");
            self.wait_for("the typed text at the prompt", || {
                let screen = self.server.capture(&self.pane);
                screen.lines().last().is_some_and(|l| l.contains(text))
            });
        }
        if keys == Keys::ViCommand {
            self.keys("Escape");
            self.wait_for("vi command mode", || in_vi_mode(self, shell, true));
        }
    }

    fn wait_for(&self, what: &str, done: impl Fn() -> bool) {
        tokio::task::block_in_place(|| wta_testkit::wait_until(what, T, done))
            .unwrap_or_else(|e| panic!("{e}; screen:\n{}", self.server.capture(&self.pane)));
    }

    /// The text typed before the hand-off is back on the line: Enter runs
    /// it, and the shell reports exactly it.
    async fn typed_text_comes_back(&self, pending: &str) {
        self.wait_state("idle prompt", |s| *s == State::Idle).await;
        let after = self.last_id().await;
        tokio::task::block_in_place(|| {
            wta_testkit::wait_until("the typed text back at the prompt", T, || {
                let screen = self.server.capture(&self.pane);
                screen.lines().last().is_some_and(|l| l.contains(pending))
            })
        })
        .unwrap_or_else(|e| panic!("{e}; screen:\n{}", self.server.capture(&self.pane)));
        self.keys("Enter");
        let ran = self.wait_run(after).await;
        assert_eq!(
            ran.cmdline.as_deref(),
            Some(pending),
            "the typed text ran as it was"
        );
    }
}

/// One case through the hand-off: exact line, exact output, exact status,
/// and what `capture-pane --last-command` reads.
async fn check(p: &Pane, case: &Case) -> Result<(), TestCaseError> {
    let ran = p.run(&case.input).await;
    prop_assert_eq!(ran.cmdline.as_deref(), Some(case.input.as_str()));
    prop_assert_eq!(
        (ran.exit, ran.end_reason),
        (Some(case.exit), Some(EndReason::Mark))
    );
    if !case.output.is_empty() {
        prop_assert_eq!(ran.render().text, case.output.clone());
    }
    let host = wta_host::TmuxHost::new(
        wta_host::ServerLocation::Socket(p.server.socket().to_path_buf()),
        None,
    );
    let pane = PaneId::parse(&p.pane).unwrap();
    // The record is written after the run is announced: wait for this
    // run's (a wrong command line never becomes it, and times out).
    let recorded = tokio::task::block_in_place(|| {
        wta_testkit::wait_for_value("this run recorded as the last command", T, || {
            wta_shell::read_last_command(&host, &pane)
                .ok()
                .filter(|l| l.cmdline.as_deref() == Some(case.input.as_str()))
        })
    });
    let last = recorded.map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(last.exit_code, Some(case.exit));
    Ok(())
}

/// [`check`] in `keys`, with `typed` left at the prompt first (and back
/// after).
async fn through(
    p: &Pane,
    shell: Shell,
    keys: Keys,
    case: &Case,
    typed: Option<&str>,
) -> Result<(), TestCaseError> {
    p.prepare(shell, keys, typed).await;
    check(p, case).await?;
    if let Some(text) = typed {
        p.typed_text_comes_back(text).await;
    }
    Ok(())
}

/// How the command reaches the shell in a run of [`in_settings`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// Its inbox file, in the user's locale.
    Inbox,
    /// After its RunHex key, as `wta ssh` announces for a remote shell (no
    /// file there), in the C locale a remote shell often has.
    HexKeysInTheCLocale,
}

async fn in_settings(shell: Shell, keys: Keys) {
    through_route(shell, keys, Route::Inbox).await;
}

async fn through_route(shell: Shell, keys: Keys, route: Route) {
    let mut rc = settings(shell, keys);
    if route == Route::HexKeysInTheCLocale {
        rc.push_str("export LANG=C LC_ALL=C\n");
    }
    let p = open_with(shell, cfg(), true, ("", &rc)).await;
    if route == Route::HexKeysInTheCLocale {
        let options = p.server.tmux(&["show-options", "-p", "-t", &p.pane]);
        let inbox = options
            .lines()
            .find_map(|l| {
                l.split_once(' ')
                    .filter(|(k, _)| k.starts_with("@wta_inbox_"))
            })
            .unwrap_or_else(|| panic!("no inbox announced: {options}"))
            .0;
        p.server.tmux(&[
            "set-option",
            "-p",
            "-t",
            &p.pane,
            inbox,
            wta_shell::handoff::BY_KEYS,
        ]);
    }
    assert!(
        p.watcher.hands_off().await,
        "the shell announced its inbox or keys: a card's command is handed off, not typed"
    );
    let pending = "printf 'typed-%s\\n' before";
    for (i, case) in corpus(shell).iter().enumerate() {
        // Every other case with text typed at the prompt first.
        let typed = (i % 2 == 1).then_some(pending);
        through(&p, shell, keys, case, typed)
            .await
            .unwrap_or_else(|e| panic!("{case:?}: {e}; screen:\n{}", p.server.capture(&p.pane)));
    }
    let mut runner = TestRunner::new(Config {
        cases: 6,
        // A failed case leaves the shell as it was; shrinking on would
        // report the state it left, not the case.
        max_shrink_iters: 0,
        failure_persistence: None,
        ..Config::default()
    });
    let handle = tokio::runtime::Handle::current();
    let result = tokio::task::block_in_place(|| {
        runner.run(&(generated(shell), any::<bool>()), |(case, typed)| {
            let typed = typed.then_some(pending);
            handle.block_on(through(&p, shell, keys, &case, typed))
        })
    });
    result.unwrap_or_else(|e| panic!("{e}; screen:\n{}", p.server.capture(&p.pane)));
    assert!(
        !std::path::Path::new("/tmp/wta-never").exists(),
        "nothing in a command ran on its own"
    );
    // An Insert puts the command on the line by the same route; the
    // user's Enter runs exactly it.
    let inserted = "echo \"日本語\" 'inserted  here'";
    p.prepare(shell, keys, None).await;
    let after = p.last_id().await;
    assert_eq!(
        p.watcher.insert(inserted).await.unwrap(),
        Ok(true),
        "handed off"
    );
    p.wait_for("the inserted line", || {
        p.server.capture(&p.pane).contains("'inserted  here'")
    });
    p.keys("Enter");
    let ran = p.wait_run(after).await;
    assert_eq!(ran.cmdline.as_deref(), Some(inserted));
    assert_eq!(ran.render().text, "日本語 inserted  here");
}

/// A command the user types with a leading space (not kept in history
/// under ignorespace) is reported as itself.
async fn a_typed_command_history_drops_is_reported_as_itself(shell: Shell) {
    let p = open_with(shell, cfg(), true, ("", &settings(shell, Keys::Emacs))).await;
    for typed in [
        "echo kept-one",
        " echo unkept-two",
        "echo ignored-three",
        "echo kept-one",
    ] {
        p.wait_state("idle prompt", |s| *s == State::Idle).await;
        let after = p.last_id().await;
        p.server.type_line(&p.pane, typed);
        let ran = p.wait_run(after).await;
        assert_eq!(ran.cmdline.as_deref(), Some(typed), "{typed:?}");
    }
    if shell == Shell::Bash {
        // History off altogether.
        p.run("set +o history").await;
        p.wait_state("idle prompt", |s| *s == State::Idle).await;
        let after = p.last_id().await;
        p.server.type_line(&p.pane, "echo not-in-history");
        let ran = p.wait_run(after).await;
        assert_eq!(ran.cmdline.as_deref(), Some("echo not-in-history"));
    }
}

/// A user who bound one of the private keys keeps the binding: the script
/// leaves the keys alone and says so (its inbox option reads `taken`),
/// and commands reach the shell typed as keys, as before.
async fn a_key_the_user_bound_is_left_alone(shell: Shell) {
    let user = match shell {
        Shell::Bash => "bind '\"\\e[17777~\": beginning-of-line'",
        Shell::Zsh => "bindkey -M emacs '^[[17777~' beginning-of-line",
        Shell::Fish => "bind \\e\\[17777\\~ beginning-of-line",
        Shell::Pwsh => unreachable!(),
    };
    let p = open_with(shell, cfg(), true, (user, "")).await;
    let options = p.server.tmux(&["show-options", "-p", "-t", &p.pane]);
    let inbox = options.lines().find(|l| l.starts_with("@wta_inbox_"));
    assert_eq!(
        inbox.map(|l| l.split_once(' ').map(|x| x.1)),
        Some(Some("taken")),
        "{options}"
    );
    assert!(!p.watcher.hands_off().await);
    let ran = p.run("echo typed-as-keys").await;
    assert_eq!(ran.cmdline.as_deref(), Some("echo typed-as-keys"));
}

async fn emacs(shell: Shell) {
    in_settings(shell, Keys::Emacs).await;
}

async fn vi_insert(shell: Shell) {
    in_settings(shell, Keys::ViInsert).await;
}

async fn vi_command(shell: Shell) {
    in_settings(shell, Keys::ViCommand).await;
}

/// The RunHex route: every shell, every key map, the C locale.
mod hex_keys {
    use super::*;

    macro_rules! hex_route {
        ($($name:ident: $shell:expr, $keys:expr;)*) => {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    through_route($shell, $keys, Route::HexKeysInTheCLocale).await;
                }
            )*
        };
    }

    hex_route! {
        bash_emacs: Shell::Bash, Keys::Emacs;
        bash_vi_insert: Shell::Bash, Keys::ViInsert;
        bash_vi_command: Shell::Bash, Keys::ViCommand;
        zsh_emacs: Shell::Zsh, Keys::Emacs;
        zsh_vi_insert: Shell::Zsh, Keys::ViInsert;
        zsh_vi_command: Shell::Zsh, Keys::ViCommand;
        fish_emacs: Shell::Fish, Keys::Emacs;
        fish_vi_insert: Shell::Fish, Keys::ViInsert;
        fish_vi_command: Shell::Fish, Keys::ViCommand;
    }
}

/// A RunHex payload whose digit count is wrong (as a key typed between the
/// key and its payload would make it) runs nothing, and the shell goes on:
/// the line typed next is the next command it runs. (Not fish: it reads
/// exactly the count it is given, so a wrong count runs nothing but leaves
/// the rest of the payload on its line.)
async fn a_payload_with_a_wrong_count_runs_nothing(shell: Shell) {
    let p = open_with(shell, cfg(), true, ("", "")).await;
    for bad in ["0000000a6c73.", "000000026c73.", "00000004zz41."] {
        p.wait_state("idle prompt", |s| *s == State::Idle).await;
        let after = p.last_id().await;
        let key: Vec<String> = wta_host::PrivateKey::RunHex
            .sequence()
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect();
        let mut press = vec!["send-keys", "-t", &p.pane, "-H"];
        press.extend(key.iter().map(String::as_str));
        p.server.tmux(&press);
        p.server.tmux(&["send-keys", "-t", &p.pane, "-l", bad]);
        p.server.type_line(&p.pane, "echo after-bad");
        let ran = p.wait_run(after).await;
        assert_eq!(
            (ran.id.0, ran.cmdline.as_deref()),
            (after + 1, Some("echo after-bad")),
            "{bad}: nothing ran before the next line; screen:\n{}",
            p.server.capture(&p.pane)
        );
    }
}

mod broken_payload {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn bash() {
        a_payload_with_a_wrong_count_runs_nothing(Shell::Bash).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn zsh() {
        a_payload_with_a_wrong_count_runs_nothing(Shell::Zsh).await;
    }
}

per_shell!(
    emacs,
    vi_insert,
    vi_command,
    a_typed_command_history_drops_is_reported_as_itself,
    a_key_the_user_bound_is_left_alone,
);
