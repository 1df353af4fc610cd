//! Condition waiting with a deadline. Polling interval starts tiny and backs
//! off, so fast conditions are seen fast and slow ones do not spin a core.
//! And the other way round: a condition that must stay true for a window.

use std::time::{Duration, Instant};

/// Polls `cond` until it returns true or `timeout` passes.
/// Returns `Err` with `what` and the elapsed time when the deadline passes.
pub fn wait_until(
    what: &str,
    timeout: Duration,
    mut cond: impl FnMut() -> bool,
) -> Result<(), String> {
    wait_for_value(what, timeout, || cond().then_some(())).map(|_| ())
}

/// Polls `probe` until it yields `Some(value)` or `timeout` passes.
pub fn wait_for_value<T>(
    what: &str,
    timeout: Duration,
    mut probe: impl FnMut() -> Option<T>,
) -> Result<T, String> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        if let Some(value) = probe() {
            return Ok(value);
        }
        if start.elapsed() >= timeout {
            return Err(format!(
                "timed out after {:?} waiting for {what}",
                start.elapsed()
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Checks that `cond` stays true for all of `window`, polling it every
/// few milliseconds and once more at the end; `Err` names `what` the
/// first time it is false.
///
/// A negative check ("the card stays up", "nothing ran") means something
/// only when the window starts at a positive observation of the state that
/// would trigger the change (the card armed, the command running), not at
/// an arbitrary moment: start it there.
pub fn holds_for(
    what: &str,
    window: Duration,
    mut cond: impl FnMut() -> bool,
) -> Result<(), String> {
    let start = Instant::now();
    loop {
        let last = start.elapsed() >= window;
        if !cond() {
            return Err(format!(
                "{what} stopped holding after {:?} of {window:?}",
                start.elapsed()
            ));
        }
        if last {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(10).min(window.saturating_sub(start.elapsed())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_as_soon_as_true() {
        let mut n = 0;
        wait_until("n reaches 3", Duration::from_secs(5), || {
            n += 1;
            n >= 3
        })
        .unwrap();
        assert_eq!(n, 3);
    }

    #[test]
    fn holds_checks_until_the_window_ends_and_once_at_its_end() {
        let mut n = 0;
        let start = Instant::now();
        holds_for("n stays small", Duration::from_millis(30), || {
            n += 1;
            true
        })
        .unwrap();
        assert!(start.elapsed() >= Duration::from_millis(30));
        assert!(n >= 2, "{n}");
    }

    #[test]
    fn holds_fails_the_first_time_the_condition_is_false() {
        let mut n = 0;
        let err = holds_for("n stays below 3", Duration::from_secs(60), || {
            n += 1;
            n < 3
        })
        .unwrap_err();
        assert_eq!(n, 3);
        assert!(err.contains("n stays below 3 stopped holding"), "{err}");
    }

    #[test]
    fn times_out_with_a_message() {
        let err = wait_until("never", Duration::from_millis(20), || false).unwrap_err();
        assert!(err.contains("waiting for never"), "{err}");
    }
}
