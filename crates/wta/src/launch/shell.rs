//! The launcher's integrated shell: [`wta_shell::launch`] with the running
//! `wta` binary as the script source (an upgraded binary brings its script).

use std::path::Path;

use anyhow::Context;

pub use wta_shell::launch::{ShellLaunch, user_shell};

/// Builds the launch for `shell`, writing helper rc files under `dir`.
pub fn integrated(shell: &str, wta: &Path, dir: &Path) -> anyhow::Result<ShellLaunch> {
    wta_shell::launch::integrated(shell, wta_shell::ScriptSource::Binary(wta), dir)
        .with_context(|| format!("cannot prepare an integrated {shell}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launcher_loads_integration_from_this_binary() {
        let dir = tempfile::tempdir().unwrap();
        let bash = integrated("/bin/bash", Path::new("/opt/wta"), dir.path()).unwrap();
        let rc = std::fs::read_to_string(&bash.argv[2]).unwrap();
        assert!(rc.contains("'/opt/wta' shell-integration bash"), "{rc}");
    }
}
