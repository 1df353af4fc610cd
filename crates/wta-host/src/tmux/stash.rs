//! Stashing a side pane out of sight and restoring it at the same side and
//! size (tmux-host.md §2): `break-pane` into a private session created with
//! `destroy-unattached off` in the same command, `resize-window` so the
//! program keeps its size, and `join-pane -f` back as a full-height column.
//! The record lives in the pane's `@wta_stash` option, so it survives the
//! process that stashed it.

use wta_protocol::{PaneId, WindowId};

use super::{Cmd, TmuxHost};
use crate::{HostError, PaneInfo, Split, SplitDirection, StashRecord, StashSide, TerminalHost};

/// The private session that holds stashed panes.
pub const STASH_SESSION: &str = "_wta_stash";
pub(super) const STASH_OPTION: &str = "@wta_stash";
/// Columns (or rows) always left to the other panes when restoring.
const MIN_OTHER: u16 = 20;

impl TmuxHost {
    pub(super) fn stash_pane(
        &self,
        pane: &PaneId,
        neighbour: &PaneId,
    ) -> Result<StashRecord, HostError> {
        let geo = self.display(
            pane,
            "#{window_id}\x1f#{pane_at_left}\x1f#{pane_at_right}\x1f#{pane_at_top}\x1f#{pane_at_bottom}\x1f#{pane_width}\x1f#{pane_height}",
        )?;
        let f: Vec<&str> = geo.split('\x1f').collect();
        if f.len() != 7 {
            return Err(HostError::Parse("stash geometry".into()));
        }
        let window = WindowId::parse(f[0]).map_err(|e| HostError::Parse(e.to_string()))?;
        let (left, right, top, bottom) = (f[1] == "1", f[2] == "1", f[3] == "1", f[4] == "1");
        let width: u16 = f[5]
            .parse()
            .map_err(|_| HostError::Parse("pane_width".into()))?;
        let height: u16 = f[6]
            .parse()
            .map_err(|_| HostError::Parse("pane_height".into()))?;
        let side = match (left, right, top, bottom) {
            (true, false, _, _) => StashSide::Left,
            (false, true, _, _) => StashSide::Right,
            (_, _, true, false) => StashSide::Top,
            (_, _, false, true) => StashSide::Bottom,
            _ => StashSide::Right,
        };
        let size = if side.is_horizontal() { width } else { height };
        let record = StashRecord {
            pane: pane.clone(),
            window,
            neighbour: neighbour.clone(),
            side,
            size,
        };

        self.ensure_stash_session()?;
        let stash_window = self.run(
            &Cmd::new("break-pane")
                .flag("-d")
                .opt("-s", pane.as_str())
                .opt("-t", &format!("{STASH_SESSION}:"))
                .opt_text("-n", "wta-stash")
                .flag("-P")
                .opt_format("-F", "#{window_id}"),
        )?;
        self.park(stash_window.trim(), &record, width, height)?;
        Ok(record)
    }

    /// Creates the stash session unless it exists.
    fn ensure_stash_session(&self) -> Result<(), HostError> {
        if self
            .run(&Cmd::new("has-session").opt("-t", &format!("={STASH_SESSION}")))
            .is_ok()
        {
            return Ok(());
        }
        // destroy-unattached must be off in the same command, or a user's
        // global `on` destroys the session (and the stashed pane) at once.
        let create = Cmd::new("new-session")
            .flag("-d")
            .opt_text("-s", STASH_SESSION)
            .opt_text("-n", "keep")
            .arg("tail -f /dev/null")
            .then("set-option")
            .opt("-t", STASH_SESSION)
            .args(["destroy-unattached", "off"]);
        self.run(&create).map(drop)
    }

    /// Gives the stash window holding `record.pane` the pane's size (so its
    /// program keeps its layout) and records where the pane belongs.
    fn park(
        &self,
        stash_window: &str,
        record: &StashRecord,
        width: u16,
        height: u16,
    ) -> Result<(), HostError> {
        let resize = Cmd::new("resize-window")
            .opt("-t", stash_window)
            .opt("-x", &width.to_string())
            .opt("-y", &height.to_string())
            .then("set-option")
            .flag("-p")
            .opt("-t", record.pane.as_str())
            .arg(STASH_OPTION)
            .arg(&record.encode());
        self.run(&resize).map(drop)
    }

    /// A pane that starts out stashed: created in the stash session at the
    /// size `split` would give it beside `split.target` (a full-height or
    /// full-width column at the window's edge), recorded so that restoring
    /// it joins it there. It is never seen before that.
    pub fn spawn_stashed(&self, split: &Split) -> Result<PaneInfo, HostError> {
        let percent = split.percent.unwrap_or(50);
        if !(1..=99).contains(&percent) {
            return Err(HostError::InvalidArgument(format!(
                "split size must be 1–99 percent, got {percent}"
            )));
        }
        let cwd = Self::checked_cwd(split.cwd.as_deref())?;
        let geo = self.display(
            &split.target,
            "#{window_id}\x1f#{window_width}\x1f#{window_height}",
        )?;
        let f: Vec<&str> = geo.split('\x1f').collect();
        let (Some(window), Some(ww), Some(wh)) = (
            f.first().and_then(|w| WindowId::parse(w).ok()),
            f.get(1).and_then(|w| w.parse::<u32>().ok()),
            f.get(2).and_then(|h| h.parse::<u32>().ok()),
        ) else {
            return Err(HostError::Parse("window geometry".into()));
        };
        let side = match split.direction {
            SplitDirection::Left => StashSide::Left,
            SplitDirection::Right => StashSide::Right,
            SplitDirection::Up => StashSide::Top,
            SplitDirection::Down => StashSide::Bottom,
        };
        let part =
            |whole: u32| ((whole * u32::from(percent)) / 100).clamp(1, u32::from(u16::MAX)) as u16;
        let (width, height) = if side.is_horizontal() {
            (part(ww), u16::try_from(wh).unwrap_or(u16::MAX))
        } else {
            (u16::try_from(ww).unwrap_or(u16::MAX), part(wh))
        };
        self.ensure_stash_session()?;
        let cmd = Cmd::new("new-window")
            .flag("-d")
            .flag("-P")
            .opt_format("-F", &super::format::pane_format())
            .opt("-t", &format!("{STASH_SESSION}:"))
            .opt_text("-n", "wta-stash");
        let pane = self.spawn_pane(cmd, cwd, &split.env, split.command.as_ref())?;
        let record = StashRecord {
            pane: pane.id.clone(),
            window,
            neighbour: split.target.clone(),
            side,
            size: if side.is_horizontal() { width } else { height },
        };
        self.park(pane.window.as_str(), &record, width, height)?;
        Ok(pane)
    }

    pub(super) fn restore_pane(&self, pane: &PaneId) -> Result<StashRecord, HostError> {
        let raw = self.option(pane, STASH_OPTION)?;
        let record = StashRecord::decode(pane, &raw)
            .ok_or_else(|| HostError::InvalidArgument(format!("pane {pane} is not stashed")))?;
        let window_panes = self.window_panes(&record.window)?;
        let target = window_panes
            .iter()
            .find(|p| p.id == record.neighbour)
            .or_else(|| window_panes.first())
            .ok_or_else(|| HostError::WindowNotFound(record.window.to_string()))?;
        let window_size = self.display(&target.id, "#{window_width}\x1f#{window_height}")?;
        let (ww, wh) = window_size.split_once('\x1f').unwrap_or(("80", "24"));
        let available: u16 = if record.side.is_horizontal() {
            ww.parse().unwrap_or(80)
        } else {
            wh.parse().unwrap_or(24)
        };
        let size = record
            .size
            .min(available.saturating_sub(MIN_OTHER + 1))
            .max(1);
        let mut join = Cmd::new("join-pane").flag("-d").flag("-f");
        join = join.flag(if record.side.is_horizontal() {
            "-h"
        } else {
            "-v"
        });
        if matches!(record.side, StashSide::Left | StashSide::Top) {
            join = join.flag("-b");
        }
        join = join
            .opt("-l", &size.to_string())
            .opt("-s", pane.as_str())
            .opt("-t", target.id.as_str())
            .then("set-option")
            .flag("-p")
            .flag("-u")
            .opt("-t", pane.as_str())
            .arg(STASH_OPTION);
        self.run(&join)?;
        Ok(record)
    }
}
