//! Process facts the host needs to judge who wrote a pane option.

/// The parent of process `pid`, if it exists (Linux `/proc`, else `ps`).
///
/// An integration announcement written by a child of the pane's process (a
/// gated pane's shell under its wrapper) is the pane's own; this is how both
/// the host's pane listing and the shell watcher tell.
pub fn parent_pid(pid: u32) -> Option<u32> {
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
        let after = &stat[stat.rfind(')')? + 1..];
        return after.split_whitespace().nth(1)?.parse().ok();
    }
    let out = std::process::Command::new("ps")
        .args(["-o", "ppid=", "-p", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}
