//! Incremental tokenizer over raw pane bytes (from `pipe-pane -O`).
//!
//! Yields shell-integration marks (OSC 133 and VS Code's OSC 633), OSC 7 cwd,
//! alternate-screen switches and everything else as raw [`Token::Text`] bytes
//! (escape sequences included, so output can be re-rendered faithfully).
//! Marks are cut out of the text exactly, so text between a `C` and a `D`
//! is the command's output and nothing else.
//!
//! Invariants: any byte sequence is accepted without panicking; memory stays
//! bounded (an unterminated escape sequence longer than [`MAX_SEQUENCE`] is
//! abandoned and passed through as text). This module does no I/O.

use percent_encoding::percent_decode;

/// Longest escape sequence (OSC payload included) that is interpreted.
/// A card's command is ≤ 8000 characters, ≤ 4 bytes each, and each byte
/// percent-encoded takes 3: 96,000 bytes in a `C` mark, plus headroom.
pub const MAX_SEQUENCE: usize = 128 * 1024;
/// Longest `aid` kept; longer ones are cut (they are compared, never executed).
const MAX_AID: usize = 64;
/// Bytes handed to vte per call; bounds the work between sequence-length checks.
const SLICE: usize = 16 * 1024;

/// The four OSC 133 / 633 marks, plus 633's separate command line and
/// WTA's own cwd report and end of a remote shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkKind {
    /// `A`: prompt starts.
    PromptStart,
    /// `B`: prompt ends, user input starts.
    InputStart,
    /// `C`: command accepted, output starts.
    CommandStart,
    /// `D[;exit]`: command finished.
    CommandEnd { exit: Option<i32> },
    /// OSC 633 `E;<cmdline>`: the command line of the command about to run.
    CommandLine,
    /// OSC 133 `P;cwd_url=<percent-encoded path>`: the shell's cwd, sent by
    /// WTA's scripts with the nonce before each prompt. Unlike OSC 7 (which
    /// any output can print, and which tmux takes as `pane_path`), it counts
    /// only with its shell's nonce, like every other mark.
    Cwd(String),
    /// WTA's `X`: the shell this `aid` names is gone. `wta ssh` prints it
    /// (with the nonce it gave the remote shell) when its ssh session ends,
    /// so a command pending there ends at once ([`crate::tracker`]'s hops).
    ShellGone,
}

/// Which protocol a mark came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkSource {
    Osc133,
    Osc633,
}

/// One shell-integration mark. All fields are untrusted hints from the pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub kind: MarkKind,
    pub source: MarkSource,
    /// `aid=` (the emitting shell's pid in WTA scripts).
    pub aid: Option<String>,
    /// Decoded `cmdline_url=` / `cmdline=` (C) or the 633 `E` command line.
    pub cmdline: Option<String>,
    /// `wta=`: the nonce a WTA script puts in every mark ([`crate::trust`]).
    pub nonce: Option<String>,
}

/// A cwd reported with OSC 7 (`file://host/path`) or OSC 633 `P;Cwd=`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cwd {
    pub host: Option<String>,
    /// Percent-decoded path (lossy UTF-8).
    pub path: String,
}

/// What the tokenizer yields, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Raw bytes that are not a shell-integration mark (may hold escapes).
    Text(Vec<u8>),
    Mark(Mark),
    Cwd(Cwd),
    /// `CSI ?1049/?1047/?47 h` (true) or `l` (false). The CSI bytes themselves
    /// are also part of the preceding `Text`.
    AltScreen(bool),
}

/// What the vte callbacks saw during one unit.
#[derive(Debug, Default)]
struct Collector {
    fired: bool,
    found: Option<Found>,
    /// Final byte of an ESC dispatch (to recognise the `\` of an ST).
    esc_final: Option<u8>,
}

#[derive(Debug)]
enum Found {
    Mark(Mark),
    Cwd(Cwd),
    AltScreen(bool),
}

impl Collector {
    fn reset(&mut self) {
        self.fired = false;
        self.found = None;
        self.esc_final = None;
    }
}

impl vte::Perform for Collector {
    fn print(&mut self, _c: char) {
        self.fired = true;
    }
    fn execute(&mut self, _byte: u8) {
        self.fired = true;
    }
    fn hook(&mut self, _p: &vte::Params, _i: &[u8], _ignore: bool, _a: char) {
        self.fired = true;
    }
    fn put(&mut self, _byte: u8) {
        self.fired = true;
    }
    fn unhook(&mut self) {
        self.fired = true;
    }
    fn osc_dispatch(&mut self, params: &[&[u8]], _bell: bool) {
        self.fired = true;
        self.found = parse_osc(params);
    }
    fn csi_dispatch(&mut self, params: &vte::Params, inter: &[u8], ignore: bool, action: char) {
        self.fired = true;
        if ignore || inter != b"?" || !(action == 'h' || action == 'l') {
            return;
        }
        let alt = params
            .iter()
            .flat_map(|p| p.iter())
            .any(|&p| p == 1049 || p == 1047 || p == 47);
        if alt {
            self.found = Some(Found::AltScreen(action == 'h'));
        }
    }
    fn esc_dispatch(&mut self, inter: &[u8], _ignore: bool, byte: u8) {
        self.fired = true;
        if inter.is_empty() {
            self.esc_final = Some(byte);
        }
    }
    fn terminated(&self) -> bool {
        self.fired
    }
}

/// The incremental tokenizer. Feed it pane bytes in any chunking.
pub struct Parser {
    vte: vte::Parser,
    collector: Collector,
    /// Bytes of a sequence not complete yet (bounded by [`MAX_SEQUENCE`]).
    pending: Vec<u8>,
    /// The previous mark ended with ESC: its `\` (ST) follows and is dropped.
    swallow_st: bool,
}

impl std::fmt::Debug for Parser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parser")
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

impl Parser {
    pub fn new() -> Self {
        Parser {
            vte: vte::Parser::new(),
            collector: Collector::default(),
            pending: Vec::new(),
            swallow_st: false,
        }
    }

    /// Bytes currently held back as an incomplete escape sequence.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Tokenizes `bytes`, appending tokens to `out` (adjacent text is merged).
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Token>) {
        let mut i = 0;
        while i < bytes.len() {
            let end = bytes.len().min(i + SLICE);
            self.collector.reset();
            let n = self
                .vte
                .advance_until_terminated(&mut self.collector, &bytes[i..end]);
            let seg = &bytes[i..i + n];
            i += n;
            if n == 0 && !self.collector.fired {
                // Cannot happen with vte 0.15, but never loop forever. (n == 0 with a
                // callback does happen: vte ends a broken partial UTF-8 char that way.)
                break;
            }
            if !self.collector.fired {
                self.pending.extend_from_slice(seg);
                if self.pending.len() > MAX_SEQUENCE {
                    self.abandon_sequence(out);
                }
                continue;
            }
            self.unit_done(seg, out);
        }
    }

    /// An over-long sequence: reset vte with CAN and pass the bytes on as text.
    fn abandon_sequence(&mut self, out: &mut Vec<Token>) {
        self.collector.reset();
        self.vte.advance(&mut self.collector, &[0x18]);
        self.collector.reset();
        let pending = std::mem::take(&mut self.pending);
        push_text(out, &pending);
        self.swallow_st = false;
    }

    /// One unit (a text run or a complete sequence) ended with `seg`.
    fn unit_done(&mut self, seg: &[u8], out: &mut Vec<Token>) {
        let found = self.collector.found.take();
        let swallow = std::mem::take(&mut self.swallow_st);
        let mut unit = std::mem::take(&mut self.pending);
        let unit_ref: &[u8] = if unit.is_empty() {
            seg
        } else {
            unit.extend_from_slice(seg);
            &unit
        };
        match found {
            Some(Found::Mark(mark)) => self.cut_osc(unit_ref, Token::Mark(mark), out),
            Some(Found::Cwd(cwd)) => self.cut_osc(unit_ref, Token::Cwd(cwd), out),
            Some(Found::AltScreen(on)) => {
                push_text(out, unit_ref);
                out.push(Token::AltScreen(on));
            }
            None => {
                if !(swallow && unit_ref == b"\\" && self.collector.esc_final == Some(b'\\')) {
                    // vte consumes the ESC that starts the next sequence together with
                    // a text run: hold it back so the sequence's bytes stay together.
                    let (text, esc) = match unit_ref.split_last() {
                        Some((0x1b, head)) => (head, true),
                        _ => (unit_ref, false),
                    };
                    push_text(out, text);
                    if esc {
                        self.pending.push(0x1b);
                    }
                }
            }
        }
        if self.pending.is_empty() && unit.capacity() <= MAX_SEQUENCE * 2 {
            unit.clear();
            self.pending = unit;
        }
    }

    /// Emits the text before an OSC, then `token`; drops the OSC's own bytes.
    fn cut_osc(&mut self, unit: &[u8], token: Token, out: &mut Vec<Token>) {
        let last = unit.last().copied();
        if !matches!(last, Some(0x07) | Some(0x1b)) {
            // Cancelled by CAN/SUB: not a real OSC, keep the bytes as text.
            push_text(out, unit);
            return;
        }
        let start = unit.windows(2).rposition(|w| w == b"\x1b]").unwrap_or(0);
        push_text(out, &unit[..start]);
        out.push(token);
        self.swallow_st = last == Some(0x1b);
    }
}

fn push_text(out: &mut Vec<Token>, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    if let Some(Token::Text(prev)) = out.last_mut() {
        prev.extend_from_slice(bytes);
    } else {
        out.push(Token::Text(bytes.to_vec()));
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn decode_url(bytes: &[u8]) -> String {
    percent_decode(bytes).decode_utf8_lossy().into_owned()
}

fn parse_osc(params: &[&[u8]]) -> Option<Found> {
    let (&code, rest) = params.split_first()?;
    match code {
        b"133" => parse_mark(rest, MarkSource::Osc133).map(Found::Mark),
        b"633" => parse_633(rest),
        b"7" => parse_osc7(&rest.join(&b';')).map(Found::Cwd),
        _ => None,
    }
}

fn kind_of(letter: &[u8], exit: Option<i32>) -> Option<MarkKind> {
    Some(match letter {
        b"A" => MarkKind::PromptStart,
        b"B" => MarkKind::InputStart,
        b"C" => MarkKind::CommandStart,
        b"D" => MarkKind::CommandEnd { exit },
        b"P" => MarkKind::Cwd(String::new()),
        b"X" => MarkKind::ShellGone,
        _ => return None,
    })
}

fn parse_mark(params: &[&[u8]], source: MarkSource) -> Option<Mark> {
    let (&letter, rest) = params.split_first()?;
    let mut mark = Mark {
        kind: kind_of(letter, None)?,
        source,
        aid: None,
        cmdline: None,
        nonce: None,
    };
    for (idx, &param) in rest.iter().enumerate() {
        match param.iter().position(|&b| b == b'=') {
            Some(eq) => {
                let (key, value) = (&param[..eq], &param[eq + 1..]);
                match key {
                    b"aid" => mark.aid = Some(lossy(&value[..value.len().min(MAX_AID)])),
                    b"cmdline_url" => mark.cmdline = Some(decode_url(value)),
                    b"cmdline" => mark.cmdline = Some(lossy(value)),
                    b"wta" => mark.nonce = Some(lossy(&value[..value.len().min(MAX_AID)])),
                    b"cwd_url" if matches!(mark.kind, MarkKind::Cwd(_)) => {
                        mark.kind = MarkKind::Cwd(decode_url(value));
                    }
                    _ => {}
                }
            }
            None if idx == 0 && letter == b"D" => {
                let exit = std::str::from_utf8(param).ok().and_then(|s| s.parse().ok());
                mark.kind = MarkKind::CommandEnd { exit };
            }
            None => {}
        }
    }
    Some(mark)
}

fn parse_633(params: &[&[u8]]) -> Option<Found> {
    let (&letter, rest) = params.split_first()?;
    match letter {
        b"E" => {
            let line = rest.first().map(|l| unescape_633(l)).unwrap_or_default();
            Some(Found::Mark(Mark {
                kind: MarkKind::CommandLine,
                source: MarkSource::Osc633,
                aid: None,
                cmdline: Some(line),
                nonce: None,
            }))
        }
        b"P" => {
            let prop = rest.first()?;
            let path = prop.strip_prefix(b"Cwd=")?;
            Some(Found::Cwd(Cwd {
                host: None,
                path: unescape_633(path),
            }))
        }
        _ => parse_mark(params, MarkSource::Osc633).map(Found::Mark),
    }
}

/// VS Code escapes `\` as `\\` and other bytes as `\xAB`.
fn unescape_633(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if bytes.get(i + 1) == Some(&b'x') {
                let hex = bytes
                    .get(i + 2..i + 4)
                    .and_then(|h| std::str::from_utf8(h).ok());
                if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    out.push(b);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    lossy(&out)
}

fn parse_osc7(url: &[u8]) -> Option<Cwd> {
    let rest = url
        .strip_prefix(b"file://")
        .or_else(|| url.strip_prefix(b"kitty-shell-cwd://"))?;
    let slash = rest.iter().position(|&b| b == b'/')?;
    let host = (slash > 0).then(|| lossy(&rest[..slash]));
    Some(Cwd {
        host,
        path: decode_url(&rest[slash..]),
    })
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;
