//! `wta ssh [ssh options…] DESTINATION [-- command]`: the user's own `ssh`
//! (their config, keys, agent and jump hosts), with WTA's integration in
//! the remote login shell, so the pane's watcher follows the commands that
//! run there as it follows a local shell's.
//!
//! Trust across the hop: the nonce is drawn here and reaches the remote
//! shell only through the session's terminal ([`wta_shell::remote`]), never
//! a remote argv or environment. It is announced on the pane under this
//! process's pid (`@wta_nonce_<pid>`, `@wta_remote_<pid>` = the
//! destination, and `@wta_integration` once the remote shell is known), so
//! the tracker accepts the remote shell's marks and follows it in place of
//! the local shell (`wta_shell::tracker`'s hops). When ssh ends, however it
//! ends, this process prints the nonce'd end mark (a command pending there
//! ends at once, `session_ended`) and puts the local shell's announcement
//! back. Outside tmux there is nothing to announce to: plain ssh runs.

use std::io::{Read, Write};
use std::process::{Command, ExitCode};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use wta_host::{PrivateKey, TerminalHost, TmuxHost};
use wta_i18n::tr;
use wta_protocol::PaneId;
use wta_shell::handoff::BY_KEYS;
use wta_shell::remote::{Bootstrap, EOF, ReadyFilter, RemoteLogin, gone_mark, rc};
use wta_shell::tracker::{remote_option, valid_host_label};
use wta_shell::{INTEGRATION_OPTION, Shell, nonce_option};

use super::Ctx;
use super::ssh_args::{Plan, Refusal, split, ssh_argv};
use super::ssh_pty::{RawMode, Session, pane_size};

/// `wta ssh`'s arguments: ssh's, as ssh takes them.
#[derive(Debug, Args)]
pub struct SshArgs {
    /// ssh options, then DESTINATION, then optionally `--` and a command to
    /// run first in the remote shell.
    #[arg(
        value_name = "SSH_ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        add = clap_complete::ArgValueCandidates::new(super::ssh_hosts::hosts)
    )]
    pub args: Vec<String>,
}

/// `wta ssh --host-buffer NAME`: ssh's words are in the tmux buffer NAME
/// (not an ssh option: ssh's are all single-dash).
pub const HOST_BUFFER_FLAG: &str = "--host-buffer";

/// How long the end of ssh's output may lag behind its exit.
const OUTPUT_DRAIN: Duration = Duration::from_millis(500);

/// Runs `wta ssh` when `argv` asks for it, with ssh's words exactly as
/// given (see [`ssh_argv`]); `None` for any other command.
pub fn intercept(argv: &[std::ffi::OsString]) -> Option<ExitCode> {
    let words: Vec<String> = argv
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let (own, ssh_words) = ssh_argv(&words)?;
    let cli = crate::cli_help::parse(&argv[..own]);
    let ctx = Ctx {
        server: cli.server,
        json: cli.json,
    };
    Some(match run(&ctx, &SshArgs { args: ssh_words }) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("wta: {}", crate::output::user_message(&err));
            ExitCode::from(super::exit_status(&err))
        }
    })
}

pub fn run(ctx: &Ctx, args: &SshArgs) -> Result<ExitCode> {
    let words = match args.args.as_slice() {
        // `prefix H` (`wta tmux-config`): what the user typed at tmux's
        // prompt, from a buffer, split into words (no shell reads it).
        [flag, buffer] if flag == HOST_BUFFER_FLAG => ctx
            .host()?
            .take_buffer(buffer)
            .context("reading the destination typed at the prompt")?
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
        _ => args.args.clone(),
    };
    let plan = match split(&words) {
        Ok(plan) => plan,
        Err(refusal) => {
            eprintln!("wta: {}", refusal_text(&refusal));
            return Ok(ExitCode::from(2));
        }
    };
    if !valid_host_label(&plan.destination) {
        eprintln!(
            "wta: {}",
            tr!("cli.ssh.bad_destination", destination = plan.destination)
        );
        return Ok(ExitCode::from(2));
    }
    let host = ctx.host().ok();
    let Some((host, pane)) = host.and_then(|h| h.caller_pane().map(|p| (h, p))) else {
        eprintln!("wta: {}", tr!("cli.ssh.outside_tmux"));
        return plain_ssh(&plan);
    };
    let announcement = Announcement::start(host, pane, &plan.destination)?;
    let status = session(&plan, &announcement);
    announcement.end();
    status
}

/// The session proper: ssh on its own terminal, the bootstrap typed on its
/// ready mark, the user's keys and screen proxied until ssh exits.
fn session(plan: &Plan, announcement: &Announcement) -> Result<ExitCode> {
    let bootstrap = Bootstrap::new(&random_hex(8)?)?;
    let mut ssh = Command::new("ssh");
    ssh.arg("-t")
        .args(&plan.options)
        .arg(&plan.destination)
        .arg(bootstrap.command());
    let raw = RawMode::enter().with_context(|| tr!("cli.ssh.needs_terminal"))?;
    let Session {
        mut child,
        output,
        input,
        resizer,
    } = Session::spawn(ssh, pane_size())?;
    Session::copy_keys(input.clone());
    super::ssh_pty::on_signals(resizer, child.id());
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let reader = Reader {
        filter: ReadyFilter::new(&bootstrap),
        input,
        announcement: announcement.clone(),
        plan: plan.clone(),
    };
    std::thread::spawn(move || {
        reader.run(output);
        let _ = done_tx.send(());
    });
    let status = child.wait().context("waiting for ssh")?;
    // What ssh wrote last reaches the screen before the end mark.
    let _ = done_rx.recv_timeout(OUTPUT_DRAIN);
    drop(raw);
    Ok(exit_code(status))
}

/// Copies ssh's output to the screen, minus the ready mark, and on that
/// mark types the remote shell's rc (and the first command).
struct Reader {
    filter: ReadyFilter,
    input: std::sync::Arc<std::sync::Mutex<std::fs::File>>,
    announcement: Announcement,
    plan: Plan,
}

impl Reader {
    fn run(mut self, mut output: std::fs::File) {
        let mut stdout = std::io::stdout();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // EOF or EIO: ssh (and every holder of its terminal) is gone.
            let n = match output.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let mut shown = Vec::with_capacity(n);
            let login = self.filter.feed(&buf[..n], &mut shown);
            if stdout
                .write_all(&shown)
                .and_then(|()| stdout.flush())
                .is_err()
            {
                break;
            }
            if let Some(login) = login {
                self.ready(login, &mut stdout);
            }
        }
        let _ = stdout.write_all(&self.filter.finish());
        let _ = stdout.flush();
    }

    fn ready(&mut self, login: RemoteLogin, stdout: &mut std::io::Stdout) {
        let mut typed = Vec::new();
        match &login {
            RemoteLogin::Integrated(shell) => {
                match rc(*shell, &self.announcement.nonce, self.announcement.aid) {
                    Ok(text) => typed.extend_from_slice(text.as_bytes()),
                    Err(err) => tracing::warn!("wta ssh: {err}"),
                }
                // The end of the rc file (the shell waits for it either way).
                typed.push(EOF);
                self.announcement.integrated(*shell);
            }
            RemoteLogin::Plain(name) => {
                let note = tr!(
                    "ssh.plain_shell",
                    host = self.plan.destination,
                    shell = if name.is_empty() { "?" } else { name }
                );
                let _ = write!(stdout, "\r\nwta ssh: {note}\r\n");
                let _ = stdout.flush();
            }
        }
        if let Some(command) = &self.plan.command {
            typed.extend_from_slice(command.as_bytes());
            typed.push(b'\r');
        }
        if let Ok(mut input) = self.input.lock() {
            let _ = input.write_all(&typed);
        }
    }
}

/// What this session announced on the pane, and what it puts back.
#[derive(Clone)]
struct Announcement {
    host: TmuxHost,
    pane: PaneId,
    aid: u32,
    nonce: String,
    /// The pane's `@wta_integration` before (the local shell's).
    saved: String,
}

impl Announcement {
    /// Announces the nonce and host under this process's pid (how a card's
    /// command gets there is announced once the remote shell is known).
    fn start(host: TmuxHost, pane: PaneId, destination: &str) -> Result<Self> {
        let aid = std::process::id();
        let nonce = random_hex(16)?;
        let saved = host.option(&pane, INTEGRATION_OPTION).unwrap_or_default();
        let (nonce_name, remote_name) = (nonce_option(aid), remote_option(aid));
        host.set_options(
            &pane,
            &[
                (nonce_name.as_str(), &nonce),
                (remote_name.as_str(), destination),
            ],
        )
        .context("announcing the remote shell on the pane")?;
        let _ = host.unset_option(&pane, &wta_shell::handoff::inbox_option(aid));
        Ok(Announcement {
            host,
            pane,
            aid,
            nonce,
            saved,
        })
    }

    /// The remote shell is `shell`: the pane's integration is it now, and
    /// a card's command reaches it after its RunHex key where it binds one.
    fn integrated(&self, shell: Shell) {
        let value = format!("{} {}", shell.name(), self.aid);
        let _ = self.host.set_option(&self.pane, INTEGRATION_OPTION, &value);
        if shell.private_keys().contains(&PrivateKey::RunHex) {
            let inbox = wta_shell::handoff::inbox_option(self.aid);
            let _ = self.host.set_option(&self.pane, &inbox, BY_KEYS);
        }
    }

    /// The session is over: the end mark for a command still pending there,
    /// then the local shell's announcement back (best effort: the pane may
    /// be gone).
    fn end(&self) {
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(gone_mark(self.aid, &self.nonce).as_bytes());
        let _ = stdout.flush();
        let _ = match self.saved.is_empty() {
            true => self.host.unset_option(&self.pane, INTEGRATION_OPTION),
            false => self
                .host
                .set_option(&self.pane, INTEGRATION_OPTION, &self.saved),
        };
        let _ = self.host.unset_option(&self.pane, &remote_option(self.aid));
        let _ = self.host.unset_option(&self.pane, &nonce_option(self.aid));
        let _ = self
            .host
            .unset_option(&self.pane, &wta_shell::handoff::inbox_option(self.aid));
    }
}

/// Outside tmux: the user's ssh as they asked for it, nothing added.
fn plain_ssh(plan: &Plan) -> Result<ExitCode> {
    let mut ssh = Command::new("ssh");
    ssh.args(&plan.options).arg(&plan.destination);
    if let Some(command) = &plan.command {
        ssh.arg(command);
    }
    let status = ssh.status().context("cannot start ssh")?;
    Ok(exit_code(status))
}

/// ssh's exit status as ours (a signal as 128 + its number).
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(255);
    ExitCode::from(u8::try_from(code & 0xff).unwrap_or(255))
}

/// `bytes` random bytes as hex, from the kernel.
fn random_hex(bytes: usize) -> Result<String> {
    let mut raw = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut raw))
        .context("reading /dev/urandom")?;
    if raw.iter().all(|b| *b == 0) {
        bail!("/dev/urandom gave only zeros");
    }
    Ok(raw.iter().map(|b| format!("{b:02x}")).collect())
}

fn refusal_text(refusal: &Refusal) -> String {
    match refusal {
        Refusal::NoDestination => tr!("cli.ssh.no_destination"),
        Refusal::MissingArgument(flag) => {
            tr!("cli.ssh.missing_argument", flag = flag.to_string())
        }
        Refusal::UnknownOption(flag) => tr!("cli.ssh.unknown_option", flag = flag.to_string()),
        Refusal::NotInteractive(flag) => {
            tr!("cli.ssh.not_interactive", flag = flag.to_string())
        }
        Refusal::BadCommand => tr!("cli.ssh.bad_command"),
    }
}
