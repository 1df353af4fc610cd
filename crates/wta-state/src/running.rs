//! Commands a card ran that outlived their proposal's execution time
//! limit and are still followed (issue 30), as the helper last told: the
//! status line shows the oldest with its elapsed time (`▶ cargo build ·
//! 2m 10s`). The helper decides what runs; this only keeps its list.

use std::time::{Duration, Instant};

use super::state::AppState;

/// One command still running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningCommand {
    /// Its first line, as the card typed it.
    pub command: String,
    /// The pane it runs in (`%N`).
    pub pane: String,
    /// When it started.
    pub since: Instant,
}

/// What the status line shows of the running commands: the oldest, how
/// long it has run (to the latest event) and how many run in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningShown<'a> {
    pub oldest: &'a RunningCommand,
    pub elapsed: Duration,
    pub count: usize,
}

impl AppState {
    /// The running commands for the status line; `None` when none runs.
    pub fn running_shown(&self) -> Option<RunningShown<'_>> {
        let oldest = self.running.iter().min_by_key(|r| r.since)?;
        let elapsed = self.clock.map_or(Duration::ZERO, |now| {
            now.saturating_duration_since(oldest.since)
        });
        Some(RunningShown {
            oldest,
            elapsed,
            count: self.running.len(),
        })
    }
}

/// `2m 10s`, `45s`, `1h 02m`: an elapsed time as the status line says it.
pub fn elapsed_text(elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3599 => format!("{}m {:02}s", secs / 60, secs % 60),
        _ => format!("{}h {:02}m", secs / 3600, secs % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_reads_in_the_largest_units() {
        let t = |s| elapsed_text(Duration::from_secs(s));
        assert_eq!(t(0), "0s");
        assert_eq!(t(59), "59s");
        assert_eq!(t(130), "2m 10s");
        assert_eq!(t(605), "10m 05s");
        assert_eq!(t(3725), "1h 02m");
    }

    #[test]
    fn the_oldest_is_shown_with_the_time_to_the_latest_event() {
        let start = Instant::now();
        let mut state = AppState::new("demo");
        assert_eq!(state.running_shown(), None);
        state.running = vec![
            RunningCommand {
                command: "make".into(),
                pane: "%2".into(),
                since: start + Duration::from_secs(5),
            },
            RunningCommand {
                command: "cargo build".into(),
                pane: "%1".into(),
                since: start,
            },
        ];
        state.clock = Some(start + Duration::from_secs(130));
        let shown = state.running_shown().unwrap();
        assert_eq!(shown.oldest.command, "cargo build");
        assert_eq!((shown.elapsed, shown.count), (Duration::from_secs(130), 2));
    }
}
