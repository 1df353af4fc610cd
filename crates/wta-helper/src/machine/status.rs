//! The status probe's answer: pure facts for the machine (the probe itself
//! is I/O: `crate::runtime::status`).

/// What one status probe saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The target pane's current directory; `None` when it is gone.
    pub cwd: Option<String>,
    /// This agent pane is in an attached session's active window. Unknown
    /// counts as visible, so refreshing never stops by mistake.
    pub visible: bool,
    /// The tab this pane belongs to is gone (closed while the pane was
    /// stashed, say). Only a definite answer counts: a failed check is not gone.
    pub owner_gone: bool,
}
