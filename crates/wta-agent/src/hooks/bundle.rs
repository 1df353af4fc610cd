//! Each CLI's hook bundle as data: which of its native hook events WTA
//! listens to (and as which [`HookEventKind`]), the one guarded shell command
//! every hook runs, and the files of the bundle with their contents and modes.
//!
//! Invariants: a hook never fails its CLI and never prints into it. The
//! command exits 0 outside tmux and when wta is missing, sends wta's output
//! to /dev/null and ends in `|| true`; where the CLI's format has a timeout
//! the hook gets [`HOOK_TIMEOUT_SECS`].

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wta_protocol::agent_sessions::{HookCli, HookEventKind};

use super::{BUNDLE_VERSION, MARKETPLACE_NAME, OPENCODE_MARKER, OPENCODE_PLUGIN_FILE, PLUGIN_NAME};

/// The timeout every hook gets where the CLI's format has one.
pub const HOOK_TIMEOUT_SECS: u64 = 5;
/// A file at the top of each CLI's bundle directory holding [`BUNDLE_VERSION`].
pub const VERSION_FILE: &str = ".wta-version";

/// One native hook event of a CLI and what it means to WTA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativeHook {
    /// The CLI's own name for the event (`SessionStart`, `sessionStart`, …).
    pub native: &'static str,
    /// A matcher the CLI's format takes for the event, if any.
    pub matcher: Option<&'static str>,
    pub kind: HookEventKind,
}

const fn hook(native: &'static str, kind: HookEventKind) -> NativeHook {
    NativeHook {
        native,
        matcher: None,
        kind,
    }
}

use HookEventKind as K;

const CLAUDE: &[NativeHook] = &[
    hook("SessionStart", K::SessionStart),
    hook("SessionEnd", K::SessionEnd),
    hook("UserPromptSubmit", K::PromptSubmit),
    hook("Notification", K::Notification),
    hook("Stop", K::Stop),
    hook("StopFailure", K::Error),
];
const COPILOT: &[NativeHook] = &[
    hook("sessionStart", K::SessionStart),
    hook("sessionEnd", K::SessionEnd),
    hook("userPromptSubmitted", K::PromptSubmit),
    hook("agentStop", K::Stop),
    hook("errorOccurred", K::Error),
];
const CODEX: &[NativeHook] = &[
    NativeHook {
        native: "SessionStart",
        matcher: Some("startup|resume"),
        kind: K::SessionStart,
    },
    hook("SessionEnd", K::SessionEnd),
    hook("UserPromptSubmit", K::PromptSubmit),
    hook("PermissionRequest", K::Notification),
    hook("Stop", K::Stop),
];
const GEMINI: &[NativeHook] = &[
    hook("SessionStart", K::SessionStart),
    hook("SessionEnd", K::SessionEnd),
    hook("BeforeAgent", K::PromptSubmit),
    hook("BeforeTool", K::ToolStarting),
    hook("Notification", K::Notification),
    hook("AfterAgent", K::Stop),
];
/// OpenCode's plugin listens to bus events and plugin hooks by these names.
const OPENCODE: &[NativeHook] = &[
    hook("session.created", K::SessionStart),
    hook("session.deleted", K::SessionEnd),
    hook("chat.message", K::PromptSubmit),
    hook("tool.execute.before", K::ToolStarting),
    hook("permission.asked", K::Notification),
    hook("permission.updated", K::Notification),
    hook("session.idle", K::Stop),
    hook("session.error", K::Error),
];

/// The native events WTA hooks for `cli`.
pub fn native_hooks(cli: HookCli) -> &'static [NativeHook] {
    match cli {
        HookCli::Claude => CLAUDE,
        HookCli::Copilot => COPILOT,
        HookCli::Codex => CODEX,
        HookCli::Gemini => GEMINI,
        HookCli::Opencode => OPENCODE,
    }
}

/// The shell command a hook runs: quiet and harmless when wta is missing or
/// the CLI runs outside tmux; the CLI's hook JSON arrives on its stdin.
pub fn hook_command(cli: HookCli, kind: HookEventKind) -> String {
    format!(
        "[ -n \"$TMUX_PANE\" ] || exit 0; w=\"${{WTA_CLI_PATH:-wta}}\"; \
         command -v \"$w\" >/dev/null 2>&1 || exit 0; \
         \"$w\" hook --cli-source {} --event {} >/dev/null 2>&1 || true",
        cli.as_str(),
        kind.as_str()
    )
}

/// One file of a bundle, its path relative to the CLI's bundle directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleFile {
    pub path: PathBuf,
    pub contents: String,
    pub mode: u32,
}

fn file(path: &str, value: &Value) -> BundleFile {
    BundleFile {
        path: PathBuf::from(path),
        contents: format!("{value:#}\n"),
        mode: 0o644,
    }
}

const DESCRIPTION: &str = "Tells WTA (tmux agent bridge) when this CLI's sessions start, work, wait and stop. \
Sends ids, cwd and tool names only; never prompts or tool input/output.";

/// Claude-style hook tables (claude, codex): `{event: [{matcher?, hooks: [command]}]}`.
fn claude_style_hooks(cli: HookCli) -> Value {
    let mut events = serde_json::Map::new();
    for h in native_hooks(cli) {
        let mut group = json!({"hooks": [{
            "type": "command",
            "command": hook_command(cli, h.kind),
            "timeout": HOOK_TIMEOUT_SECS,
        }]});
        if let (Some(m), Some(obj)) = (h.matcher, group.as_object_mut()) {
            obj.insert("matcher".into(), Value::from(m));
        }
        events.insert(h.native.into(), Value::Array(vec![group]));
    }
    json!({ "description": DESCRIPTION, "hooks": events })
}

fn copilot_hooks() -> Value {
    let mut events = serde_json::Map::new();
    for h in native_hooks(HookCli::Copilot) {
        events.insert(
            h.native.into(),
            json!([{
                "type": "command",
                "bash": hook_command(HookCli::Copilot, h.kind),
                "timeoutSec": HOOK_TIMEOUT_SECS,
            }]),
        );
    }
    json!({ "version": 1, "hooks": events })
}

fn gemini_hooks() -> Value {
    let mut events = serde_json::Map::new();
    for h in native_hooks(HookCli::Gemini) {
        events.insert(
            h.native.into(),
            json!([{ "hooks": [{
                "type": "command",
                "name": format!("wta-{}", h.kind.as_str()),
                "command": hook_command(HookCli::Gemini, h.kind),
                "timeout": HOOK_TIMEOUT_SECS * 1000,
            }]}]),
        );
    }
    json!({ "hooks": events })
}

fn manifest() -> Value {
    json!({
        "name": PLUGIN_NAME,
        "version": BUNDLE_VERSION,
        "description": DESCRIPTION,
        "author": { "name": "WTA" },
    })
}

fn marketplace(source: Value) -> Value {
    json!({
        "name": MARKETPLACE_NAME,
        "owner": { "name": "WTA" },
        "plugins": [{
            "name": PLUGIN_NAME,
            "source": source,
            "version": BUNDLE_VERSION,
            "description": DESCRIPTION,
        }],
    })
}

/// OpenCode's plugin: a module that runs `wta hook` for its events.
pub fn opencode_plugin() -> String {
    include_str!("opencode_plugin.js")
        .replace("@MARKER@", OPENCODE_MARKER)
        .replace("@VERSION@", BUNDLE_VERSION)
}

/// The version an OpenCode plugin file says it is, if it is WTA's.
pub fn opencode_plugin_version(text: &str) -> Option<&str> {
    let first = text.lines().next()?;
    let rest = first.strip_prefix(OPENCODE_MARKER)?;
    rest.trim().strip_prefix("version ").map(str::trim)
}

/// Every file of `cli`'s bundle (relative to its bundle directory), the
/// [`VERSION_FILE`] included.
pub fn files(cli: HookCli) -> Vec<BundleFile> {
    let mut out = match cli {
        HookCli::Claude => vec![
            file(
                ".claude-plugin/marketplace.json",
                &marketplace(Value::from(format!("./{PLUGIN_NAME}"))),
            ),
            file("wta-agent-hooks/.claude-plugin/plugin.json", &manifest()),
            file("wta-agent-hooks/hooks/hooks.json", &claude_style_hooks(cli)),
        ],
        HookCli::Copilot => {
            let mut m = manifest();
            if let Some(obj) = m.as_object_mut() {
                obj.insert("hooks".into(), Value::from("hooks/hooks.json"));
            }
            vec![
                file(
                    ".github/plugin/marketplace.json",
                    &marketplace(Value::from(format!("./{PLUGIN_NAME}"))),
                ),
                file("wta-agent-hooks/plugin.json", &m),
                file("wta-agent-hooks/hooks/hooks.json", &copilot_hooks()),
            ]
        }
        HookCli::Codex => {
            let mut m = manifest();
            if let Some(obj) = m.as_object_mut() {
                obj.insert("hooks".into(), Value::from("./hooks/hooks.json"));
            }
            vec![
                file(
                    ".agents/plugins/marketplace.json",
                    &marketplace(json!({"source": "local", "path": format!("./{PLUGIN_NAME}")})),
                ),
                file("wta-agent-hooks/.codex-plugin/plugin.json", &m),
                file("wta-agent-hooks/hooks/hooks.json", &claude_style_hooks(cli)),
            ]
        }
        HookCli::Gemini => vec![
            file("wta-agent-hooks/gemini-extension.json", &manifest()),
            file("wta-agent-hooks/hooks/hooks.json", &gemini_hooks()),
        ],
        HookCli::Opencode => vec![BundleFile {
            path: PathBuf::from(OPENCODE_PLUGIN_FILE),
            contents: opencode_plugin(),
            mode: 0o644,
        }],
    };
    out.push(BundleFile {
        path: PathBuf::from(VERSION_FILE),
        contents: format!("{BUNDLE_VERSION}\n"),
        mode: 0o644,
    });
    out
}

/// What is handed to the CLI's registration command: the marketplace root
/// (claude, copilot, codex), the extension directory (gemini) or the plugin
/// file to copy (opencode).
pub fn registration_path(cli: HookCli, cli_dir: &Path) -> PathBuf {
    match cli {
        HookCli::Claude | HookCli::Copilot | HookCli::Codex => cli_dir.to_path_buf(),
        HookCli::Gemini => cli_dir.join(PLUGIN_NAME),
        HookCli::Opencode => cli_dir.join(OPENCODE_PLUGIN_FILE),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn hooks_json(cli: HookCli) -> Value {
        let f = files(cli)
            .into_iter()
            .find(|f| f.path.ends_with("hooks/hooks.json"))
            .unwrap();
        serde_json::from_str(&f.contents).unwrap()
    }

    #[test]
    fn every_hook_runs_the_guarded_command_for_its_event() {
        for cli in [HookCli::Claude, HookCli::Codex] {
            let v = hooks_json(cli);
            for h in native_hooks(cli) {
                let c = &v["hooks"][h.native][0]["hooks"][0];
                assert_eq!(c["command"], hook_command(cli, h.kind), "{cli:?} {h:?}");
                assert_eq!(c["timeout"], 5);
            }
            assert_eq!(
                v["hooks"].as_object().unwrap().len(),
                native_hooks(cli).len()
            );
        }
        assert_eq!(
            hooks_json(HookCli::Codex)["hooks"]["SessionStart"][0]["matcher"],
            "startup|resume"
        );
        let v = hooks_json(HookCli::Copilot);
        assert_eq!(v["version"], 1);
        assert_eq!(v["hooks"]["agentStop"][0]["timeoutSec"], 5);
        assert!(
            v["hooks"]["agentStop"][0]["bash"]
                .as_str()
                .unwrap()
                .contains("--event stop")
        );
        let v = hooks_json(HookCli::Gemini);
        assert_eq!(v["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"], 5000);
        assert!(
            v["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
                .as_str()
                .unwrap()
                .contains("--cli-source gemini --event tool_starting")
        );
    }

    #[test]
    fn the_command_is_guarded() {
        let c = hook_command(HookCli::Claude, HookEventKind::Stop);
        assert!(
            c.contains("command -v \"$w\" >/dev/null 2>&1 || exit 0"),
            "{c}"
        );
        assert!(c.contains("${WTA_CLI_PATH:-wta}"), "{c}");
        assert!(
            c.ends_with("hook --cli-source claude --event stop >/dev/null 2>&1 || true"),
            "{c}"
        );
        assert!(c.starts_with("[ -n \"$TMUX_PANE\" ] || exit 0;"), "{c}");
    }

    #[test]
    fn the_events_map_as_the_reference_says() {
        let kind = |cli, native| {
            native_hooks(cli)
                .iter()
                .find(|h| h.native == native)
                .map(|h| h.kind)
        };
        assert_eq!(kind(HookCli::Claude, "StopFailure"), Some(K::Error));
        assert_eq!(
            kind(HookCli::Claude, "UserPromptSubmit"),
            Some(K::PromptSubmit)
        );
        assert_eq!(kind(HookCli::Gemini, "BeforeAgent"), Some(K::PromptSubmit));
        assert_eq!(kind(HookCli::Gemini, "AfterAgent"), Some(K::Stop));
        assert_eq!(kind(HookCli::Gemini, "BeforeTool"), Some(K::ToolStarting));
        assert_eq!(
            kind(HookCli::Codex, "PermissionRequest"),
            Some(K::Notification)
        );
        assert_eq!(
            kind(HookCli::Opencode, "tool.execute.before"),
            Some(K::ToolStarting)
        );
    }

    #[test]
    fn manifests_carry_the_name_and_version() {
        for cli in HookCli::ALL {
            let fs = files(cli);
            assert!(fs.iter().all(|f| f.mode == 0o644 && f.path.is_relative()));
            let version = fs
                .iter()
                .find(|f| f.path == Path::new(VERSION_FILE))
                .unwrap();
            assert_eq!(version.contents.trim(), BUNDLE_VERSION);
            for f in fs
                .iter()
                .filter(|f| f.path.extension().is_some_and(|e| e == "json"))
            {
                let v: Value = serde_json::from_str(&f.contents).unwrap();
                if f.path.ends_with("plugin.json") || f.path.ends_with("gemini-extension.json") {
                    assert_eq!(v["name"], PLUGIN_NAME);
                    assert_eq!(v["version"], BUNDLE_VERSION);
                }
                if f.path.ends_with("marketplace.json") {
                    assert_eq!(v["name"], MARKETPLACE_NAME);
                    assert_eq!(v["plugins"][0]["name"], PLUGIN_NAME);
                }
            }
        }
    }

    #[test]
    fn the_opencode_plugin_is_marked_and_sends_no_prompt() {
        let js = opencode_plugin();
        assert_eq!(opencode_plugin_version(&js), Some(BUNDLE_VERSION));
        assert_eq!(opencode_plugin_version("export default {}"), None);
        for h in native_hooks(HookCli::Opencode) {
            assert!(js.contains(&format!("\"{}\"", h.native)), "{}", h.native);
            assert!(
                js.contains(&format!("\"{}\"", h.kind.as_str())),
                "{:?}",
                h.kind
            );
        }
        assert!(js.contains("OPENCODE_CLIENT"));
        assert!(
            !js.contains("parts"),
            "the plugin must not read message parts"
        );
    }
}
