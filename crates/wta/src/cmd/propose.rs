//! `wta propose-terminal-actions --channel C --payload-json JSON`: the
//! short-lived CLI an agent runs to put a recommendation card in front of
//! the user (DESIGN §4.2).
//!
//! It derives `proposal-<helper-id>.sock` from the channel, connects with a
//! short backoff (sleeping only *between* attempts), sends one request line
//! and prints every line it gets back as one compact JSON line, flushing
//! after each: validation, then (after `accepted`) final, then execution
//! lines. Stdout carries only protocol lines. Exit 0 after any
//! protocol-complete answer; 2 for usage errors, 1 for transport errors,
//! each with a message on stderr and nothing on stdout.
//!
//! Startup budget is 10 ms: plain std I/O, no async runtime, no logging setup.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use wta_protocol::limits::{CONNECT_BACKOFF_MS, MAX_REQUEST_LINE_BYTES, MAX_RESPONSE_LINE_BYTES};
use wta_protocol::lines::encode_line;
use wta_protocol::{
    Channel, FinalStatus, FrameReader, ProposalRequest, ResponseLine, ValidationStatus,
};

const AFTER_HELP: &str = "\
Agents run this exactly as their prompt context shows it:
  \"$WTA_CLI_PATH\" propose-terminal-actions --channel <channel> --payload-json '<json>'
It prints JSON lines: {\"phase\":\"validation\",…}, then after \"accepted\" a
{\"phase\":\"final\",…} line, then one {\"phase\":\"execution\",…} line per executed
command. Exit 0 after a complete answer; 2 for usage errors; 1 if the agent pane
cannot be reached.";

#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct ProposeArgs {
    /// The turn's channel, v1.<helper id>.<turn nonce>, from the prompt context.
    #[arg(long, value_name = "CHANNEL")]
    pub channel: String,
    /// The proposal payload (schema v1) as one JSON argument.
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    pub payload_json: String,
}

/// Runs the command; errors are printed here so the exit code is exact.
pub fn run(args: &ProposeArgs) -> ExitCode {
    let channel = match Channel::parse(&args.channel) {
        Ok(channel) => channel,
        Err(err) => return fail(2, &format!("--channel: {err}")),
    };
    let request = ProposalRequest::new(channel, args.payload_json.as_str());
    // Not `to_line`: an oversize payload goes to the helper, which answers a
    // retryable `invalid_schema` the agent can act on. Only a line the helper
    // could not even read is a usage error.
    let line = match encode_line(&request, MAX_REQUEST_LINE_BYTES) {
        Ok(line) => line,
        Err(err) => {
            return fail(
                2,
                &format!("--payload-json is far too large to send: {err}"),
            );
        }
    };
    let socket = socket_path(&channel);
    let mut stream = match connect(&socket) {
        Ok(stream) => stream,
        Err(err) => {
            return fail(
                1,
                &format!(
                    "cannot reach the agent pane at {}: {err} (is the agent pane still open?)",
                    socket.display()
                ),
            );
        }
    };
    if let Err(err) = stream.write_all(&line) {
        return fail(1, &format!("cannot send the proposal: {err}"));
    }
    match relay(&mut stream) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => fail(1, &why),
    }
}

/// `<runtime dir>/proposal-<helper-id>.sock`.
pub fn socket_path(channel: &Channel) -> PathBuf {
    wta_env::dirs::runtime_dir().join(channel.socket_file_name())
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("wta propose-terminal-actions: {message}");
    ExitCode::from(code)
}

/// Connects, retrying a missing or refusing socket with the backoff of
/// [`CONNECT_BACKOFF_MS`] between attempts, never after the last one.
fn connect(socket: &Path) -> std::io::Result<UnixStream> {
    let mut delays = CONNECT_BACKOFF_MS.iter();
    loop {
        match UnixStream::connect(socket) {
            Ok(stream) => return Ok(stream),
            Err(err) if retryable(&err) => match delays.next() {
                Some(ms) => std::thread::sleep(Duration::from_millis(*ms)),
                None => return Err(err),
            },
            Err(err) => return Err(err),
        }
    }
}

fn retryable(err: &std::io::Error) -> bool {
    matches!(
        err.kind(),
        ErrorKind::NotFound | ErrorKind::ConnectionRefused | ErrorKind::WouldBlock
    )
}

/// Where the conversation is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Progress {
    AwaitValidation,
    AwaitFinal,
    /// `confirmed`: execution lines until the helper closes.
    Executions,
    Done,
}

/// Prints lines until the answer is complete. `Err` is a message for stderr.
fn relay(stream: &mut UnixStream) -> Result<(), String> {
    let mut reader = FrameReader::new(MAX_RESPONSE_LINE_BYTES);
    let mut progress = Progress::AwaitValidation;
    let mut buf = vec![0u8; 64 * 1024];
    let stdout = std::io::stdout();
    loop {
        let n = match stream.read(&mut buf) {
            Ok(n) => n,
            Err(err) if err.kind() == ErrorKind::Interrupted => continue,
            Err(err) => return Err(format!("lost the agent pane's answer: {err}")),
        };
        if n == 0 {
            return match progress {
                Progress::Done | Progress::Executions => Ok(()),
                Progress::AwaitValidation => {
                    Err("the agent pane closed the connection without answering".into())
                }
                Progress::AwaitFinal => {
                    Err("the agent pane closed the connection before the card was decided".into())
                }
            };
        }
        let frames = reader
            .push(&buf[..n])
            .map_err(|e| format!("bad answer from the agent pane: {e}"))?;
        for frame in frames {
            let line = ResponseLine::from_frame(&frame)
                .map_err(|e| format!("bad answer from the agent pane: {e}"))?;
            progress = advance(progress, &line)?;
            let bytes = line
                .to_line()
                .map_err(|e| format!("cannot print the answer: {e}"))?;
            let mut out = stdout.lock();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write to stdout: {e}"))?;
            if progress == Progress::Done {
                return Ok(());
            }
        }
    }
}

/// The next state after a line; lines out of order are a protocol error.
fn advance(progress: Progress, line: &ResponseLine) -> Result<Progress, String> {
    match (progress, line) {
        (Progress::AwaitValidation, ResponseLine::Validation(v)) => {
            Ok(if v.status == ValidationStatus::Accepted {
                Progress::AwaitFinal
            } else {
                Progress::Done
            })
        }
        (Progress::AwaitFinal, ResponseLine::Final(f)) => {
            Ok(if f.status == FinalStatus::Confirmed {
                Progress::Executions
            } else {
                Progress::Done
            })
        }
        (Progress::Executions, ResponseLine::Execution(_)) => Ok(Progress::Executions),
        // The exchange is complete: a fresh channel for the turn, or why not.
        (Progress::Executions, ResponseLine::Next(_) | ResponseLine::End(_)) => Ok(Progress::Done),
        _ => Err("the agent pane sent lines out of order".into()),
    }
}
