//! [`MasterStarter`]: how the pane gets a master when the user reconnects
//! and none runs (the machine decides when: `Command::StartMaster`).

use std::path::Path;
use std::sync::Arc;

/// Makes sure a master listens on the pane's socket, starting one when none
/// does (the error says why it could not). The `wta` binary supplies it (its
/// launcher knows how to start a master for this tmux server); blocking.
#[derive(Clone)]
pub struct MasterStarter(Arc<Start>);

/// The starter's function: the socket → started (or already running), or why not.
type Start = dyn Fn(&Path) -> Result<(), String> + Send + Sync;

impl MasterStarter {
    pub fn new(start: impl Fn(&Path) -> Result<(), String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(start))
    }

    /// Runs the starter for `socket`.
    pub fn ensure(&self, socket: &Path) -> Result<(), String> {
        (self.0)(socket)
    }
}

impl std::fmt::Debug for MasterStarter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MasterStarter")
    }
}
