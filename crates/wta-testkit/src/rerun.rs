//! Re-running the current test binary as one named test: how a test gives
//! tmux a helper program of its own (the pipe-pane sink) without building a
//! separate binary. The test binary must contain that test as an entry point
//! that acts only when `env` is set.

/// The argv prefix that runs this test binary as the single test `test` with
/// `env` set to the one argument the caller appends (`sh -c` sees it as `$1`).
pub fn rerun_self_argv(env: &str, test: &str) -> Vec<String> {
    let exe = std::env::current_exe()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|e| panic!("the test binary's path: {e}"));
    vec![
        "sh".into(),
        "-c".into(),
        format!("{env}=\"$1\" exec \"$0\" --exact {test} --quiet --test-threads=1"),
        exe,
    ]
}
