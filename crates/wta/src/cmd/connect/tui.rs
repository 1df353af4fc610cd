//! The agent pane's terminal loop: crossterm raw mode + alternate screen +
//! bracketed paste + mouse capture (restored on every exit path, panics
//! included), one `tokio::select!` over terminal input, the runtime's inputs,
//! a tick interval that only runs while the app animates, and a slow status
//! refresh that only runs while the pane is visible.
//!
//! Redraws happen only after an event reached the reducer, so an idle pane
//! sleeps in `select!` and costs no CPU. Terminal input is read on a thread
//! of its own ([`TerminalInput`]) and everything already read is applied
//! before the next draw, so typed-ahead text (thousands of keys without
//! bracketed paste) costs one frame, not one per key. After each draw, what the frame
//! showed of a proposal card is fed back (`View::card_feedback`) before the
//! next input is read. Nothing is printed outside the alternate screen
//! while it is active; logs go to the state dir (tracing).
//!
//! The master going away does not end the loop: the pane keeps its
//! transcript and offers to reconnect (the runtime and the app handle it).
//! Every way out of the loop (Ctrl+C twice, SIGTERM/SIGHUP — tmux hangs up a
//! killed pane —, the terminal gone, an error) restores the terminal, then
//! stops the pane watchers the helper started, bounded by
//! [`SHUTDOWN_GRACE`], so no pane keeps a pipe to a sink nobody reads.

use std::io::{self, Stdout};
use std::time::{Duration, Instant};

use anyhow::Context;
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::{cursor, execute, terminal};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::time::MissedTickBehavior;
use wta_helper::machine::{Input, Machine};
use wta_helper::runtime::{Runtime, RuntimeConfig};
use wta_host::TmuxHost;
use wta_i18n::tr;
use wta_state::Event;
use wta_tui::View;

/// Animation clock while `AppState::needs_tick()`.
const TICK: Duration = Duration::from_millis(100);
/// Target-pane cwd refresh while the pane is visible.
const STATUS_EVERY: Duration = Duration::from_secs(2);
/// New shell panes of the tab looked for (autofix), seen or not.
const TAB_SCAN_EVERY: Duration = Duration::from_secs(2);
/// How long the exiting helper may spend stopping its pane watchers.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// Terminal events read ahead of the loop; the reader waits when it is full.
const INPUT_BUFFER: usize = 4096;
/// Most terminal events applied between two draws, so a long typed-ahead
/// text still shows progress.
const INPUT_BATCH: usize = 2048;

/// Puts the terminal back: mouse, paste, screen, cursor, cooked mode.
/// Idempotent; every step is attempted even if an earlier one fails.
fn restore_terminal() {
    let mut out = io::stdout();
    let _ = execute!(
        out,
        DisableMouseCapture,
        DisableBracketedPaste,
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
    let _ = terminal::disable_raw_mode();
}

/// Holds the terminal in TUI mode; dropping it restores the terminal.
struct TerminalGuard;

impl TerminalGuard {
    fn enter() -> anyhow::Result<Self> {
        terminal::enable_raw_mode().with_context(|| tr!("cli.connect.needs_terminal"))?;
        let guard = TerminalGuard;
        execute!(
            io::stdout(),
            terminal::EnterAlternateScreen,
            EnableBracketedPaste,
            EnableMouseCapture
        )
        .with_context(|| tr!("cli.connect.terminal_setup"))?;
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// A panic anywhere (UI or a background task) restores the terminal, reports
/// through the previous hook (after leaving the alternate screen), and ends
/// the helper: a half-working pane is worse than a closed one.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        tracing::error!("panic: {info}");
        previous(info);
        std::process::exit(101);
    }));
}

/// Terminal events from a reader thread: crossterm's blocking `read` (its
/// level-triggered `/dev/tty` reader, see wta-tui's Cargo.toml) in a loop,
/// into a bounded channel the loop drains without waiting.
struct TerminalInput {
    rx: tokio::sync::mpsc::Receiver<io::Result<crossterm::event::Event>>,
}

impl TerminalInput {
    /// Starts the reader. It ends after a read error or once the loop is
    /// gone; a read that is still blocked then ends with the process.
    fn spawn() -> anyhow::Result<Self> {
        let (tx, rx) = tokio::sync::mpsc::channel(INPUT_BUFFER);
        std::thread::Builder::new()
            .name("terminal-input".into())
            .spawn(move || {
                loop {
                    let event = crossterm::event::read();
                    let failed = event.is_err();
                    if tx.blocking_send(event).is_err() || failed {
                        return;
                    }
                }
            })
            .with_context(|| tr!("cli.connect.terminal_reader"))?;
        Ok(Self { rx })
    }

    /// The next event; `None` once the reader ended.
    async fn next(&mut self) -> Option<io::Result<crossterm::event::Event>> {
        self.rx.recv().await
    }

    /// An event already read, if any (never waits).
    fn ready(&mut self) -> Option<io::Result<crossterm::event::Event>> {
        self.rx.try_recv().ok()
    }
}

enum Wake {
    Terminal(Option<io::Result<crossterm::event::Event>>),
    Runtime(Box<Input>),
    Tick,
    Status,
    TabScan,
    Signal,
}

/// SIGTERM and SIGHUP, watched from the start: once registered they no
/// longer kill the process, so the exit path always gets to stop watchers.
struct Signals {
    term: Signal,
    hup: Signal,
}

impl Signals {
    fn watch() -> anyhow::Result<Self> {
        Ok(Self {
            term: signal(SignalKind::terminate())
                .with_context(|| tr!("cli.connect.watch_signal", signal = "SIGTERM"))?,
            hup: signal(SignalKind::hangup())
                .with_context(|| tr!("cli.connect.watch_signal", signal = "SIGHUP"))?,
        })
    }
}

/// Runs the agent pane until the user closes it (Ctrl+C twice), its tab
/// goes, or SIGTERM/SIGHUP.
pub async fn run(config: RuntimeConfig) -> anyhow::Result<()> {
    let mut signals = Signals::watch()?;
    let host = TmuxHost::discover(None, None).ok();
    let mut runtime = Runtime::new(config, host);
    let mut machine = runtime.start(Instant::now());
    let exit = show(&mut runtime, &mut machine, &mut signals).await;
    // The terminal is restored by now; the user's panes are cleaned up last.
    if tokio::time::timeout(SHUTDOWN_GRACE, runtime.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "stopping the pane watchers took more than {SHUTDOWN_GRACE:?}; some may be left"
        );
    }
    exit
}

/// The terminal part: holds the TUI screen and runs the loop.
async fn show(
    runtime: &mut Runtime,
    machine: &mut Machine,
    signals: &mut Signals,
) -> anyhow::Result<()> {
    let guard = TerminalGuard::enter()?;
    install_panic_hook();
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))
        .with_context(|| tr!("cli.connect.cannot_draw_terminal"))?;
    terminal
        .clear()
        .with_context(|| tr!("cli.connect.cannot_clear"))?;
    let exit = event_loop(&mut terminal, runtime, machine, signals).await;
    drop(terminal);
    drop(guard);
    exit
}

async fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    runtime: &mut Runtime,
    machine: &mut Machine,
    signals: &mut Signals,
) -> anyhow::Result<()> {
    let mut view = View::new();
    let mut input = TerminalInput::spawn()?;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut status = tokio::time::interval(STATUS_EVERY);
    status.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut tab_scan = tokio::time::interval(TAB_SCAN_EVERY);
    tab_scan.set_missed_tick_behavior(MissedTickBehavior::Skip);

    let mut dirty = true;
    loop {
        if machine.quit_requested() {
            return Ok(());
        }
        if dirty {
            terminal
                .draw(|frame| view.render(&machine.app, frame))
                .with_context(|| tr!("cli.connect.cannot_draw_pane"))?;
            // What the frame showed of the proposal card goes back to the
            // reducer before any more input (a card confirms only once
            // every action row was on screen); only news is returned, so
            // this ends after one more draw.
            if let Some(shown) = view.card_feedback(&machine.app) {
                runtime.apply(machine, Input::App(shown), Instant::now());
                continue;
            }
        }
        let ticking = machine.app.needs_tick();
        let refreshing = machine.wants_status();
        let wake = tokio::select! {
            event = input.next() => Wake::Terminal(event),
            event = runtime.next() => Wake::Runtime(Box::new(event)),
            _ = tick.tick(), if ticking => Wake::Tick,
            _ = status.tick(), if refreshing => Wake::Status,
            _ = tab_scan.tick() => Wake::TabScan,
            _ = signals.term.recv() => Wake::Signal,
            _ = signals.hup.recv() => Wake::Signal,
        };
        // The timers only ask for I/O: its answer redraws.
        dirty = !matches!(wake, Wake::Status | Wake::TabScan);
        match wake {
            Wake::Terminal(Some(first)) => {
                // Everything read so far goes to the reducer before the next draw.
                let mut next = Some(first);
                let mut taken = 0;
                while let Some(event) = next {
                    let event = event.with_context(|| tr!("cli.connect.cannot_read_terminal"))?;
                    if let Some(event) = wta_tui::keymap::from_crossterm(event) {
                        runtime.apply(machine, Input::App(event), Instant::now());
                    }
                    taken += 1;
                    next = if taken < INPUT_BATCH {
                        input.ready()
                    } else {
                        None
                    };
                }
            }
            // The terminal is gone (pane killed): nothing left to show.
            Wake::Terminal(None) | Wake::Signal => return Ok(()),
            Wake::Runtime(input) => runtime.apply(machine, *input, Instant::now()),
            Wake::Tick => runtime.apply(machine, Input::App(Event::Tick), Instant::now()),
            Wake::Status => runtime.apply(machine, Input::StatusDue, Instant::now()),
            Wake::TabScan => runtime.apply(machine, Input::TabScanDue, Instant::now()),
        }
    }
}
