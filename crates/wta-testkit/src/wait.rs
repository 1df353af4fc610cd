//! Condition waiting with a deadline. Polling interval starts tiny and backs
//! off, so fast conditions are seen fast and slow ones do not spin a core.

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
    fn times_out_with_a_message() {
        let err = wait_until("never", Duration::from_millis(20), || false).unwrap_err();
        assert!(err.contains("waiting for never"), "{err}");
    }
}
