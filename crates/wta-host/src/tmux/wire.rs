//! tmux's client protocol (version 8: tmux 3.2 to 3.5), as much of it as a
//! command client needs: identify, send one command, answer the server's
//! requests to open the client's stdout and stderr, collect what it writes,
//! read the exit status. Pure: bytes in, bytes and a verdict out.
//!
//! A message is an imsg: a 16-byte header (type u32, total length u16,
//! flags u16, peer id u32 — the protocol version in its low byte — and pid
//! u32, all native-endian) and at most 16 KiB in all. The server checks the
//! version on every message and answers a mismatch with `MSG_VERSION`, which
//! [`Reply::step`] reports as [`Step::VersionMismatch`] so the caller can run
//! the `tmux` binary instead.
//!
//! What WTA sends is what `tmux <command>` run from a script sends, minus the
//! file descriptors (the server then treats the client as a plain command
//! client, never as a terminal): flags (UTF-8), `TERM`, the tty name, the
//! cwd, the pid, the environment (so `new-session` sees the same
//! `update-environment` values), done; then the command's argv.

/// The protocol version tmux 3.2–3.5 speak.
pub(crate) const PROTOCOL_VERSION: u32 = 8;
/// Largest message, header included (`MAX_IMSGSIZE`).
pub(crate) const MAX_MESSAGE: usize = 16384;
const HEADER: usize = 16;

// Message types (tmux-protocol.h).
const MSG_VERSION: u32 = 12;
const MSG_IDENTIFY_FLAGS: u32 = 100;
const MSG_IDENTIFY_TERM: u32 = 101;
const MSG_IDENTIFY_TTYNAME: u32 = 102;
const MSG_IDENTIFY_STDIN: u32 = 104;
const MSG_IDENTIFY_ENVIRON: u32 = 105;
const MSG_IDENTIFY_DONE: u32 = 106;
const MSG_IDENTIFY_CLIENTPID: u32 = 107;
const MSG_IDENTIFY_CWD: u32 = 108;
const MSG_IDENTIFY_FEATURES: u32 = 109;
const MSG_IDENTIFY_STDOUT: u32 = 110;
const MSG_IDENTIFY_LONGFLAGS: u32 = 111;
const MSG_COMMAND: u32 = 200;
const MSG_DETACH: u32 = 201;
const MSG_DETACHKILL: u32 = 202;
const MSG_EXIT: u32 = 203;
const MSG_EXITED: u32 = 204;
const MSG_EXITING: u32 = 205;
const MSG_SHUTDOWN: u32 = 210;
const MSG_OLDSTDERR: u32 = 211;
const MSG_OLDSTDOUT: u32 = 213;
const MSG_READ_OPEN: u32 = 300;
const MSG_READ_DONE: u32 = 302;
const MSG_WRITE_OPEN: u32 = 303;
const MSG_WRITE: u32 = 304;
const MSG_WRITE_READY: u32 = 305;
const MSG_WRITE_CLOSE: u32 = 306;

/// `CLIENT_UTF8`: names and output arrive as UTF-8, never sanitised.
const CLIENT_UTF8: u64 = 0x10000;
/// `EBADF`, the answer to a request to read (WTA's commands never read).
const EBADF: i32 = 9;

/// Who the client is, for the identify messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    pub term: String,
    pub tty: String,
    pub cwd: String,
    pub pid: i32,
    /// `NAME=value` entries.
    pub environ: Vec<Vec<u8>>,
}

impl Identity {
    /// This process as `tmux` would describe it.
    pub(crate) fn current() -> Self {
        use std::os::unix::ffi::OsStrExt;
        let tty = nix::unistd::ttyname(std::io::stdin())
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        Self {
            term: std::env::var("TERM").unwrap_or_default(),
            tty,
            cwd: std::env::current_dir()
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_else(|_| "/".to_owned()),
            pid: i32::try_from(std::process::id()).unwrap_or(0),
            environ: std::env::vars_os()
                .map(|(k, v)| {
                    let mut entry = k.as_bytes().to_vec();
                    entry.push(b'=');
                    entry.extend_from_slice(v.as_bytes());
                    entry
                })
                .collect(),
        }
    }
}

/// One message: header and data.
fn message(kind: u32, data: &[u8]) -> Option<Vec<u8>> {
    let len = HEADER + data.len();
    if len > MAX_MESSAGE {
        return None;
    }
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(&kind.to_ne_bytes());
    out.extend_from_slice(&u16::try_from(len).ok()?.to_ne_bytes());
    out.extend_from_slice(&0u16.to_ne_bytes());
    out.extend_from_slice(&PROTOCOL_VERSION.to_ne_bytes());
    out.extend_from_slice(&u32::MAX.to_ne_bytes());
    out.extend_from_slice(data);
    Some(out)
}

fn c_string(s: &[u8]) -> Vec<u8> {
    let mut v: Vec<u8> = s.iter().copied().filter(|b| *b != 0).collect();
    v.push(0);
    v
}

/// The command is too long for one message (tmux's own limit too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLong;

/// Everything the client sends: identify, then the command `argv`.
pub(crate) fn request(identity: &Identity, argv: &[&str]) -> Result<Vec<u8>, TooLong> {
    let mut out = Vec::with_capacity(2048);
    let mut push = |kind: u32, data: &[u8]| {
        if let Some(m) = message(kind, data) {
            out.extend_from_slice(&m);
        }
    };
    push(MSG_IDENTIFY_FLAGS, &(CLIENT_UTF8 as i32).to_ne_bytes());
    push(MSG_IDENTIFY_LONGFLAGS, &CLIENT_UTF8.to_ne_bytes());
    push(MSG_IDENTIFY_TERM, &c_string(identity.term.as_bytes()));
    push(MSG_IDENTIFY_FEATURES, &0i32.to_ne_bytes());
    push(MSG_IDENTIFY_TTYNAME, &c_string(identity.tty.as_bytes()));
    push(MSG_IDENTIFY_CWD, &c_string(identity.cwd.as_bytes()));
    push(MSG_IDENTIFY_STDIN, &[]);
    push(MSG_IDENTIFY_STDOUT, &[]);
    push(MSG_IDENTIFY_CLIENTPID, &identity.pid.to_ne_bytes());
    for entry in &identity.environ {
        // tmux skips what does not fit in one message, and so do we.
        push(MSG_IDENTIFY_ENVIRON, &c_string(entry));
    }
    push(MSG_IDENTIFY_DONE, &[]);
    let mut command = Vec::with_capacity(256);
    command.extend_from_slice(
        &i32::try_from(argv.len())
            .map_err(|_| TooLong)?
            .to_ne_bytes(),
    );
    for arg in argv {
        if arg.as_bytes().contains(&0) {
            return Err(TooLong);
        }
        command.extend_from_slice(arg.as_bytes());
        command.push(0);
    }
    out.extend_from_slice(&message(MSG_COMMAND, &command).ok_or(TooLong)?);
    Ok(out)
}

/// Splits a byte stream into messages.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    buf: Vec<u8>,
}

/// A message from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Message {
    pub kind: u32,
    pub peer: u32,
    pub data: Vec<u8>,
}

/// The server sent something that is not a tmux message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Garbled(pub String);

impl Decoder {
    /// Adds bytes; returns the messages now complete.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<Vec<Message>, Garbled> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        loop {
            if self.buf.len() < HEADER {
                return Ok(out);
            }
            let word = |at: usize| {
                u32::from_ne_bytes([
                    self.buf[at],
                    self.buf[at + 1],
                    self.buf[at + 2],
                    self.buf[at + 3],
                ])
            };
            let kind = word(0);
            let len = usize::from(u16::from_ne_bytes([self.buf[4], self.buf[5]]));
            let peer = word(8);
            if !(HEADER..=MAX_MESSAGE).contains(&len) {
                return Err(Garbled(format!("a message of {len} bytes")));
            }
            if self.buf.len() < len {
                return Ok(out);
            }
            let data = self.buf[HEADER..len].to_vec();
            self.buf.drain(..len);
            out.push(Message { kind, peer, data });
        }
    }
}

/// What the command printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Outcome {
    pub status: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// What to do after a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Send these bytes (may be empty) and read on.
    Send(Vec<u8>),
    /// The command is done.
    Done(Outcome),
    /// The server speaks another protocol version.
    VersionMismatch { server: u32 },
    /// The server asked for something a command client cannot do.
    Refused(String),
}

/// The client's side of one command: which of its streams the server
/// opened, what arrived on them.
#[derive(Debug, Default)]
pub(crate) struct Reply {
    outcome: Outcome,
    /// Stream number → 1 (stdout) or 2 (stderr), as the server opened them.
    streams: Vec<(i32, i32)>,
}

fn int_at(data: &[u8], at: usize) -> Option<i32> {
    let b = data.get(at..at + 4)?;
    Some(i32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
}

impl Reply {
    /// Handles one message from the server.
    pub(crate) fn step(&mut self, msg: &Message) -> Step {
        match msg.kind {
            MSG_VERSION => Step::VersionMismatch {
                server: msg.peer & 0xff,
            },
            MSG_WRITE_OPEN => {
                // {stream, fd, flags} then an optional path: only the
                // client's own stdout (1) and stderr (2) are ever asked for.
                let (Some(stream), Some(fd)) = (int_at(&msg.data, 0), int_at(&msg.data, 4)) else {
                    return Step::Refused("a short request to open a stream".into());
                };
                let error = if msg.data.len() == 12 && (fd == 1 || fd == 2) {
                    self.streams.push((stream, fd));
                    0
                } else {
                    EBADF
                };
                let mut ready = stream.to_ne_bytes().to_vec();
                ready.extend_from_slice(&error.to_ne_bytes());
                Step::Send(message(MSG_WRITE_READY, &ready).unwrap_or_default())
            }
            MSG_WRITE => {
                let Some(stream) = int_at(&msg.data, 0) else {
                    return Step::Refused("a short write".into());
                };
                match self.streams.iter().find(|(s, _)| *s == stream) {
                    Some((_, 1)) => self.outcome.stdout.extend_from_slice(&msg.data[4..]),
                    Some(_) => self.outcome.stderr.extend_from_slice(&msg.data[4..]),
                    None => return Step::Refused(format!("a write to stream {stream}")),
                }
                Step::Send(Vec::new())
            }
            MSG_WRITE_CLOSE => Step::Send(Vec::new()),
            MSG_READ_OPEN => {
                let stream = int_at(&msg.data, 0).unwrap_or(0);
                let mut done = stream.to_ne_bytes().to_vec();
                done.extend_from_slice(&EBADF.to_ne_bytes());
                Step::Send(message(MSG_READ_DONE, &done).unwrap_or_default())
            }
            MSG_EXIT => {
                self.outcome.status = int_at(&msg.data, 0).unwrap_or(0);
                if let Some(text) = msg.data.get(4..).filter(|t| !t.is_empty()) {
                    let text: Vec<u8> = text.iter().copied().take_while(|b| *b != 0).collect();
                    self.outcome.stderr.extend_from_slice(&text);
                }
                Step::Done(std::mem::take(&mut self.outcome))
            }
            MSG_SHUTDOWN => {
                self.outcome.status = 1;
                self.outcome.stderr.extend_from_slice(b"server exited");
                Step::Done(std::mem::take(&mut self.outcome))
            }
            MSG_DETACH | MSG_DETACHKILL => {
                Step::Send(message(MSG_EXITING, &[]).unwrap_or_default())
            }
            MSG_EXITED => Step::Done(std::mem::take(&mut self.outcome)),
            MSG_OLDSTDOUT | MSG_OLDSTDERR => Step::VersionMismatch { server: 0 },
            // Anything else (MSG_READY, MSG_FLAGS, …) asks nothing of a
            // command client.
            _ => Step::Send(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn identity() -> Identity {
        Identity {
            term: "xterm".into(),
            tty: String::new(),
            cwd: "/home/u".into(),
            pid: 42,
            environ: vec![b"HOME=/home/u".to_vec(), b"TMUX_PANE=%3".to_vec()],
        }
    }

    fn decode_all(bytes: &[u8]) -> Vec<Message> {
        Decoder::default().push(bytes).unwrap()
    }

    #[test]
    fn a_request_is_identify_then_the_packed_command() {
        let bytes = request(&identity(), &["list-panes", "-F", "#{pane_id}"]).unwrap();
        let msgs = decode_all(&bytes);
        let kinds: Vec<u32> = msgs.iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            [
                100, 111, 101, 109, 102, 108, 104, 110, 107, 105, 105, 106, 200
            ]
        );
        assert!(msgs.iter().all(|m| m.peer == PROTOCOL_VERSION));
        assert_eq!(msgs[2].data, b"xterm\0");
        assert_eq!(msgs[5].data, b"/home/u\0");
        let command = &msgs.last().unwrap().data;
        assert_eq!(int_at(command, 0), Some(3));
        assert_eq!(&command[4..], b"list-panes\0-F\0#{pane_id}\0");
    }

    #[test]
    fn a_command_too_long_for_one_message_is_refused() {
        let long = "x".repeat(MAX_MESSAGE);
        assert_eq!(request(&identity(), &["set-buffer", &long]), Err(TooLong));
        let fits = "x".repeat(MAX_MESSAGE - 64);
        assert!(request(&identity(), &["a", &fits]).is_ok());
    }

    fn server(kind: u32, data: &[u8]) -> Message {
        Message {
            kind,
            peer: PROTOCOL_VERSION,
            data: data.to_vec(),
        }
    }

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|i| i.to_ne_bytes()).collect()
    }

    #[test]
    fn output_error_and_exit_status_are_collected() {
        let mut reply = Reply::default();
        let Step::Send(ready) = reply.step(&server(MSG_WRITE_OPEN, &ints(&[1, 1, 0]))) else {
            panic!()
        };
        let ready = decode_all(&ready);
        assert_eq!(
            (ready[0].kind, ready[0].data.clone()),
            (MSG_WRITE_READY, ints(&[1, 0]))
        );
        reply.step(&server(MSG_WRITE_OPEN, &ints(&[2, 2, 0])));
        let mut out = ints(&[1]);
        out.extend_from_slice(b"%0\n");
        reply.step(&server(MSG_WRITE, &out));
        let mut err = ints(&[2]);
        err.extend_from_slice(b"can't find pane: %9\n");
        reply.step(&server(MSG_WRITE, &err));
        let Step::Done(outcome) = reply.step(&server(MSG_EXIT, &ints(&[1]))) else {
            panic!()
        };
        assert_eq!(outcome.status, 1);
        assert_eq!(outcome.stdout, b"%0\n");
        assert_eq!(outcome.stderr, b"can't find pane: %9\n");
    }

    #[test]
    fn files_other_than_stdout_and_stderr_and_reads_are_refused() {
        let mut reply = Reply::default();
        let mut open = ints(&[3, -1, 0]);
        open.extend_from_slice(b"/etc/passwd\0");
        let Step::Send(answer) = reply.step(&server(MSG_WRITE_OPEN, &open)) else {
            panic!()
        };
        assert_eq!(decode_all(&answer)[0].data, ints(&[3, EBADF]));
        assert!(matches!(
            reply.step(&server(MSG_WRITE, &ints(&[3, 0]))),
            Step::Refused(_)
        ));
        let Step::Send(done) = reply.step(&server(MSG_READ_OPEN, &ints(&[4, 0]))) else {
            panic!()
        };
        assert_eq!(decode_all(&done)[0].kind, MSG_READ_DONE);
    }

    #[test]
    fn another_protocol_is_reported() {
        let mut reply = Reply::default();
        let msg = Message {
            kind: MSG_VERSION,
            peer: 9,
            data: vec![],
        };
        assert_eq!(reply.step(&msg), Step::VersionMismatch { server: 9 });
    }

    proptest! {
        /// Whatever the server sends, in whatever pieces: what is decoded
        /// from junk is no more than the junk, well-formed messages come out
        /// whole and in order, and whatever the client answers to any of
        /// them is whole messages.
        #[test]
        fn any_stream_decodes_within_its_bytes_and_answers_whole_messages(
            junk in proptest::collection::vec(any::<u8>(), 0..300),
            cut in 0usize..300,
            kinds in proptest::collection::vec((
                prop_oneof![any::<u32>(), Just(MSG_VERSION), Just(MSG_EXIT), Just(MSG_READ_OPEN),
                    Just(MSG_WRITE_OPEN), Just(MSG_WRITE), Just(MSG_WRITE_CLOSE)],
                proptest::collection::vec(any::<u8>(), 0..40),
            ), 0..6),
        ) {
            let size = |msgs: &[Message]| msgs.iter().map(|m| HEADER + m.data.len()).sum::<usize>();
            if let Ok(msgs) = Decoder::default().push(&junk) {
                prop_assert!(size(&msgs) <= junk.len());
            }
            let mut bytes = Vec::new();
            for (kind, data) in &kinds {
                bytes.extend_from_slice(&message(*kind, data).unwrap());
            }
            let cut = cut.min(bytes.len());
            let mut d = Decoder::default();
            let mut got = d.push(&bytes[..cut]).unwrap();
            got.extend(d.push(&bytes[cut..]).unwrap());
            let want: Vec<(u32, Vec<u8>)> = kinds;
            let seen: Vec<(u32, Vec<u8>)> = got.iter().map(|m| (m.kind, m.data.clone())).collect();
            prop_assert_eq!(seen, want);
            let mut reply = Reply::default();
            for m in Decoder::default().push(&junk).unwrap_or_default().iter().chain(&got) {
                if let Step::Send(out) = reply.step(m) {
                    let answers = Decoder::default().push(&out).unwrap();
                    prop_assert_eq!(size(&answers), out.len());
                }
            }
        }
    }
}
