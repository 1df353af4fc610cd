//! The manual's own sections, beside clap_mangen's: FILES (where WTA keeps
//! its files: the paths `wta-env` and `wta-agent` compute), ENVIRONMENT
//! (every variable WTA reads that a user may set or should know of), KEYS
//! (the agent pane's keys, as its `/help` says them, the cards' keys, and
//! the tmux keys of `wta tmux-config`), and which page gets which.
//!
//! Prose here is English, like clap_mangen's section names; the texts the
//! agent pane itself shows (its `/help` keys, the sessions list's keys)
//! come from wta-i18n, in the manual's language.

use clap_mangen::roff::{Inline, Roff, bold, italic, roman};

use crate::cmd::tmux_config::BINDINGS;

/// A section of WTA's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Files,
    Environment,
    Keys,
}

/// The sections of the page `name`, in order.
pub fn of(name: &str) -> &'static [Section] {
    use Section::{Environment, Files, Keys};
    match name {
        "wta" => &[Files, Environment, Keys],
        "wta-up" => &[Files, Keys],
        "wta-pane" | "wta-pane-open" | "wta-pane-toggle" | "wta-tmux-config" => &[Keys],
        "wta-doctor" => &[Files, Environment],
        "wta-hooks" | "wta-hooks-install" => &[Files],
        _ => &[],
    }
}

/// Pages besides its parent and subcommands that the page `name` sends its
/// reader on to (SEE ALSO).
pub fn related(name: &str) -> &'static [&'static str] {
    match name {
        "wta" => &[
            "wta-up",
            "wta-tmux-config",
            "wta-shell-integration",
            "wta-doctor",
        ],
        "wta-up" => &["wta-pane", "wta-tmux-config", "wta-doctor"],
        "wta-pane" => &["wta-up", "wta-tmux-config"],
        "wta-tmux-config" => &[
            "wta-pane-toggle",
            "wta-pane-close",
            "wta-fix",
            "wta-delegate",
            "wta-sessions-pick",
        ],
        "wta-fix" => &["wta-tmux-config", "wta-listen", "wta-shell-integration"],
        "wta-delegate" => &["wta-tmux-config"],
        "wta-listen" => &["wta-shell-integration", "wta-fix"],
        "wta-shell-integration" => &["wta-doctor", "wta-listen"],
        "wta-doctor" => &["wta-shell-integration", "wta-hooks"],
        "wta-sessions" => &["wta-tmux-config"],
        "wta-sessions-pick" => &["wta-tmux-config"],
        _ => &[],
    }
}

/// What the FILES section lists: (path, what is there).
fn files() -> Vec<(&'static str, String)> {
    let rotate_mib = wta_env::logging::ROTATE_AT >> 20;
    let stale_days = wta_env::logging::STALE_AFTER.as_secs() / 86_400;
    vec![
        (
            "$XDG_CONFIG_HOME/wta/config.toml",
            "Your configuration (default ~/.config/wta/config.toml): the agents, the default \
             agent, language, autofix, the delegate. It is checked as WTA starts: unknown keys, \
             wrong types and values out of range are reported with file:line (wta doctor lists \
             them too) and their defaults used."
                .to_owned(),
        ),
        (
            "/etc/wta/policy.toml",
            "The system policy ($WTA_POLICY_FILE instead when set): allowed_agents and \
             allow_yolo_mode; your configuration cannot loosen it."
                .to_owned(),
        ),
        (
            "$XDG_STATE_HOME/wta/",
            format!(
                "Logs (default ~/.local/state/wta/), yours alone (the directory 0700, each file \
                 0600): master.log, helper-<pid>.log for each agent pane, hook.log for the agent \
                 CLIs' hooks. A log over {rotate_mib} MiB is moved to <name>.1 when it is next \
                 opened; the master removes helper logs nobody wrote to for {stale_days} days. \
                 WTA_LOG filters what is logged."
            ),
        ),
        (
            "$XDG_RUNTIME_DIR/wta/",
            "Sockets (default /tmp/wta-<uid>/), in a directory WTA uses only when it is yours \
             with mode 0700: master-<tmux server>-<hash>.sock, the master of one tmux server \
             (started on demand, it ends with that server), and the sockets of the pane \
             watchers, agent terminals and proposals. Processes WTA starts get it as \
             $WTA_RUNTIME_DIR."
                .to_owned(),
        ),
        (
            "$XDG_DATA_HOME/wta/agent-hooks/",
            "The hook bundles wta hooks install writes for agent CLIs (default \
             ~/.local/share/wta/agent-hooks/)."
                .to_owned(),
        ),
        (
            "~/.tmux.conf",
            "Where the lines wta tmux-config prints go (see KEYS).".to_owned(),
        ),
    ]
}

/// What the ENVIRONMENT section lists: (variables, what WTA does with them).
const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "WTA_LOG",
        "Filter of the logs in the state directory, in tracing's EnvFilter syntax \
         (debug, or info,wta_helper=trace). Default: info for everything, the ACP crate \
         included.",
    ),
    (
        "WTA_POLICY_FILE",
        "The system policy file to read instead of /etc/wta/policy.toml.",
    ),
    (
        "WTA_AGENT_INIT_TIMEOUT_SECS",
        "Seconds an agent may take to answer initialize (read by the master; default 60).",
    ),
    (
        "WTA_TMUX_CLIENT",
        "binary: run the tmux binary for every tmux command instead of speaking tmux's \
         client protocol (an escape hatch).",
    ),
    (
        "WTA_RUNTIME_DIR",
        "Set by WTA for the processes it starts (agents and their terminals) so they reach \
         the same sockets; an absolute path here is the runtime directory.",
    ),
    (
        "WTA_CLI_PATH",
        "Set by WTA for the agents it starts: the path of the wta binary (its directory also \
         comes first on their PATH).",
    ),
    (
        "WTA_SHELL_INTEGRATION",
        "Exported by the shell-integration script: the shell it was loaded into.",
    ),
    (
        "WTA_COMPLETE",
        "Set by the completion scripts of wta completions when they ask wta for candidates.",
    ),
    (
        "XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_RUNTIME_DIR, XDG_DATA_HOME, HOME",
        "Where the files of FILES are. An empty value counts as unset.",
    ),
    (
        "TMUX, TMUX_PANE",
        "Set by tmux: the server and the pane a command runs in (a -t left out means \
         $TMUX_PANE). Outside tmux, -L or -S names the server, else tmux's default one.",
    ),
    ("TMUX_TMPDIR", "Where tmux keeps its sockets, as for tmux."),
    (
        "LC_ALL, LC_MESSAGES, LANG",
        "The language, when neither --language nor the configuration's language says.",
    ),
    (
        "SHELL, ZDOTDIR",
        "The shell WTA starts in the panes it opens (with its integration loaded), and \
         zsh's configuration directory.",
    ),
    (
        "PATH",
        "Where agent CLIs are found; agents get the wta binary's directory first on it.",
    ),
    (
        "COLUMNS, LINES",
        "The size of a session wta up creates before a terminal attaches (default 200x50).",
    ),
];

fn item(roff: &mut Roff, head: Vec<Inline>, body: &str) {
    roff.control("TP", []);
    roff.text(head);
    roff.text([roman(body)]);
}

/// Each line of `text` on a line of its own (`.br` between).
fn lines(roff: &mut Roff, text: &str) {
    for (i, line) in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        if i > 0 {
            roff.control("br", []);
        }
        roff.text([roman(line)]);
    }
}

fn keys(roff: &mut Roff) {
    roff.control("SS", ["In the agent pane"]);
    // The agent pane's /help says its keys; its first line is a heading.
    let help = wta_i18n::tr!("chat.help.keys");
    let body: String = help.lines().skip(1).collect::<Vec<_>>().join("\n");
    lines(roff, &body);
    roff.control("br", []);
    roff.text([roman(
        "Ctrl+F fix the last command that failed in this tab's shells (as /fix) \u{b7} \
         Ctrl+A/Ctrl+E start/end of line \u{b7} Alt+B/Alt+F word left/right \u{b7} \
         Ctrl+W delete a word \u{b7} Ctrl+U/Ctrl+K delete to the start/end of the line",
    )]);
    roff.control("SS", ["Select mode and paste chips (agent pane)"]);
    roff.text([roman(
        "Alt+V enters select mode over the transcript: h/j/k/l (or the arrows), w/b, 0/$, \
         g/G move the cursor as in vi; v selects characters, V whole lines; y (or Enter) \
         copies the selection through OSC 52 and the tmux buffer; / searches down and ? up \
         (Enter finds, Esc cancels the query), n goes to the next match that way and N back; \
         Esc or q leaves the mode.",
    )]);
    roff.control("br", []);
    roff.text([roman(
        "A paste of more than a few lines shows in the prompt as one chip ([Pasted 40 lines]) \
         and Enter sends it whole; Backspace removes it; Ctrl+O expands the chip before the \
         cursor into its text for editing.",
    )]);
    roff.control("SS", ["On a card"]);
    roff.text([roman(
        "A card (a proposed terminal action, a permission, a question) owns Enter and Esc \
         while it is up, whatever the prompt holds; a draft you were typing is kept. Its \
         keys line says what Enter does there (run, confirm, answer, allow) and how Esc \
         cancels, dismisses or rejects. Left/Right or Tab move between buttons, Up/Down \
         between choices, 1-9 pick one by number; v shows the whole card (Up, Down, PgUp, \
         PgDn, Home, End scroll it); on a permission y allows and n rejects. A card's keys \
         do nothing until it has been on screen, unchanged, for a moment (the card says \
         so).",
    )]);
    roff.control("SS", ["In the sessions list (wta sessions pick)"]);
    lines(roff, &wta_i18n::tr!("sessions.pick.keys"));
    roff.control("SS", ["In tmux (the lines of wta tmux-config)"]);
    for b in &BINDINGS {
        item(roff, vec![bold("prefix"), roman(" "), bold(b.key)], b.does);
    }
    roff.control("PP", []);
    roff.text([roman(
        "Only keys tmux leaves free by default: tmux's own prefix f (find-window) and \
         prefix D (choose-client) keep working.",
    )]);
}

impl Section {
    pub fn roff(self) -> Roff {
        let mut roff = Roff::new();
        match self {
            Self::Files => {
                roff.control("SH", ["FILES"]);
                for (path, what) in files() {
                    item(&mut roff, vec![italic(path)], &what);
                }
            }
            Self::Environment => {
                roff.control("SH", ["ENVIRONMENT"]);
                for (names, what) in ENVIRONMENT {
                    item(&mut roff, vec![bold(*names)], what);
                }
            }
            Self::Keys => {
                roff.control("SH", ["KEYS"]);
                keys(&mut roff);
            }
        }
        roff
    }
}
