//! `wta sessions pick`: every agent session of this tmux server in a
//! full-screen list (the `prefix S` popup): type to search, Enter goes to a
//! live session or resumes an ended one, Ctrl+D closes one, Esc leaves; it
//! reads the list again every second while no key comes. The
//! view is data ([`view::View`]); this file reads keys, draws it and does
//! what it says through [`super::sessions_actions`].

mod render;
pub mod view;

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, terminal};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use super::Ctx;
use super::sessions_actions as actions;
use super::sessions_registry::rows;
use view::{Action, PickKey, View};

/// How often the list is read again while no key comes.
const REFRESH: Duration = Duration::from_secs(1);

#[derive(Debug, Args)]
pub struct PickArgs {
    /// The master's socket (default: the one of the tmux server the flags name).
    #[arg(long, value_name = "PATH")]
    pub master_socket: Option<PathBuf>,
}

/// The key a terminal event stands for.
fn key(event: &KeyEvent) -> Option<PickKey> {
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    Some(match event.code {
        KeyCode::Char('c') if ctrl => PickKey::Quit,
        KeyCode::Char('d') if ctrl => PickKey::Close,
        KeyCode::Char(c) if !ctrl => PickKey::Char(c),
        KeyCode::Delete => PickKey::Close,
        KeyCode::Up => PickKey::Up,
        KeyCode::Down | KeyCode::Tab => PickKey::Down,
        KeyCode::Enter => PickKey::Enter,
        KeyCode::Esc => PickKey::Esc,
        KeyCode::Backspace => PickKey::Backspace,
        _ => return None,
    })
}

/// Raw mode and the alternate screen while the list shows.
struct Screen;

impl Screen {
    fn enter() -> anyhow::Result<Self> {
        terminal::enable_raw_mode().context(wta_i18n::tr("sessions.pick.needs_terminal", &[]))?;
        let screen = Screen;
        execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        Ok(screen)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = execute!(io::stdout(), terminal::LeaveAlternateScreen, cursor::Show);
        let _ = terminal::disable_raw_mode();
    }
}

pub fn run(ctx: &Ctx, args: &PickArgs) -> anyhow::Result<ExitCode> {
    let socket = args.master_socket.as_deref();
    let host = ctx.host()?;
    let mut view = View::new(rows(ctx, socket)?);
    let screen = Screen::enter()?;
    let mut term = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let done = loop {
        term.draw(|frame| render::draw(frame, &view))?;
        if !crossterm::event::poll(REFRESH)? {
            // Sessions change on their own (a turn starts, a pane closes).
            match rows(ctx, socket) {
                Ok(fresh) => view.refresh(fresh),
                Err(err) => view.tell(format!("{err:#}"), true),
            }
            continue;
        }
        let Event::Key(event) = crossterm::event::read()? else {
            continue;
        };
        if event.kind == KeyEventKind::Release {
            continue;
        }
        let Some(key) = key(&event) else {
            continue;
        };
        let outcome = match view.step(key) {
            Action::Stay => continue,
            Action::Quit => break None,
            Action::Focus(row) => actions::focus(&host, &row),
            Action::Resume(row) => actions::resume(ctx.config(), &host, &row),
            Action::Close(row) => match actions::close(ctx, socket, &row) {
                Ok(done) => {
                    view.refresh(rows(ctx, socket)?);
                    view.tell(done.line, false);
                    continue;
                }
                Err(err) => Err(err),
            },
        };
        match outcome {
            // Gone to or resumed elsewhere: the list has done its job.
            Ok(done) => break Some(done),
            Err(err) => view.tell(format!("{err:#}"), true),
        }
    };
    drop(term);
    drop(screen);
    match done {
        Some(done) => done.print(ctx.json),
        None => Ok(ExitCode::SUCCESS),
    }
}
