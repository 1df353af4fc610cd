//! `wta up --agent demo` shows the whole proposal loop: asked `run echo hi`,
//! the demo agent proposes the command through the real path (permission
//! for the canonical invocation, the CLI via `sh -c`), the card appears, Run
//! runs it in the launcher's integrated shell, and the demo reports the
//! result from the execution line. Private tmux server, temp HOME/XDG env.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::time::Duration;

use launch_common::Launch;
use launch_common::card::Card;
use wta_testkit::{squeezed, wait_for_value};

const T: Duration = Duration::from_secs(20);

#[test]
fn demo_agent_runs_a_command_through_the_card_and_reports_its_result() {
    let mut launch = Launch::new();
    let up = launch.up(&["--agent", "demo"]);
    let tmux = &launch.tmux;
    let agent = up["agent_pane"].as_str().unwrap().to_owned();
    let shell = up["shell_pane"].as_str().unwrap().to_owned();
    tmux.wait_for_text(&agent, "Ready", T);

    tmux.type_line(&agent, "run echo hi-from-$((20+1))");
    let card = launch.wait_card(&agent, &Card::proposal("Run"));
    assert!(card.contains("echo hi-from-$((20+1))"), "{card}");
    assert!(
        !card.contains("Reject"),
        "the canonical command is allowed without a permission card:\n{card}"
    );
    tmux.tmux(&["send-keys", "-t", &agent, "Enter"]);

    tmux.wait_for_text(&shell, "hi-from-21", T);
    // Markdown renders the backticks as a code span.
    let want = squeezed("echo hi-from-$((20+1)) completed with exit code 0.");
    let screen = wait_for_value("the demo's completion message", T, || {
        let screen = tmux.capture(&agent);
        squeezed(&screen).contains(&want).then_some(screen)
    })
    .unwrap_or_else(|e| panic!("{e}; screen was:\n{}", tmux.capture(&agent)));
    assert!(
        screen.contains("hi-from-21"),
        "the reply shows the output's tail:\n{screen}"
    );
}

/// The demo runs the canonical invocation as given, like any agent: started
/// without `WTA_CLI_PATH` (a custom agent entry that empties it) it says
/// why it cannot propose instead of finding the CLI some other way.
#[test]
fn the_demo_without_wta_cli_path_says_so_instead_of_proposing() {
    let wta = env!("CARGO_BIN_EXE_wta");
    let mut launch = Launch::with_config(&format!(
        "[custom_agents.bare]\nargv = [{wta:?}, {flag:?}]\nenv = {{ WTA_CLI_PATH = \"\" }}\n",
        flag = wta_agent::registry::DEMO_FLAG
    ));
    let up = launch.up(&["--agent", "custom:bare"]);
    let tmux = &launch.tmux;
    let agent = up["agent_pane"].as_str().unwrap().to_owned();
    tmux.wait_for_text(&agent, "Ready", T);
    tmux.type_line(&agent, "run echo hi");
    let screen = wait_for_value("the demo's refusal", T, || {
        let screen = tmux.capture(&agent);
        squeezed(&screen)
            .contains(&squeezed("WTA_CLI_PATH is not set"))
            .then_some(screen)
    })
    .unwrap_or_else(|e| panic!("{e}; screen was:\n{}", tmux.capture(&agent)));
    assert!(!screen.contains("[ Run ]"), "no card:\n{screen}");
}
