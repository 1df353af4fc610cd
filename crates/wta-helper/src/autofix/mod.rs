//! Autofix: a command that fails in a shell pane of the agent pane's tab
//! offers a fix turn, whose one `send` proposal waits on a card like any
//! other.
//!
//! - [`settings`]: `[autofix] mode` (suggest, auto, off) and `prewarm`.
//! - [`request`]: how `wta fix` reaches the helper of a tab.
//! - [`prompt`]: the fix turn's text and the failed command's record under
//!   the context's untrusted key (pure).
//!
//! Detection is the runtime's (`runtime/tab_watch.rs`: a watcher on every
//! shell pane of the tab, each finished command an input); deciding what a
//! failure means and when a fix turn runs is the machine's
//! (`machine/autofix.rs`).

pub mod prompt;
pub mod request;
pub mod settings;

pub use settings::{AutofixMode, AutofixSettings};

/// What `wta resolve-command NAME --json` answers for a command the shell
/// could not find, asked of `shell` (the failing pane's) in `cwd`: whether
/// the name exists anywhere that shell would look, and the names close to
/// it. Blocking (it may wait up to the shell timeout for the shell).
pub fn resolve(name: &str, cwd: Option<&str>, shell: Option<&str>) -> Option<serde_json::Value> {
    use wta_shell::resolve::{DEFAULT_SHELL_TIMEOUT, Request, check_name};
    check_name(name).ok()?;
    let here = std::env::current_dir().ok();
    let cwd = cwd
        .map(std::path::PathBuf::from)
        .filter(|dir| dir.is_dir())
        .or(here)?;
    let path_var = std::env::var_os("PATH");
    let resolution = wta_shell::resolve::resolve(&Request {
        name,
        cwd: &cwd,
        path_var: path_var.as_deref(),
        shell,
        timeout: DEFAULT_SHELL_TIMEOUT,
    });
    serde_json::to_value(resolution).ok()
}
