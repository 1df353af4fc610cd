//! [`AsyncHost`] on tmux: every operation one `tmux` process, built with the
//! literal encoder ([`Cmd`]). A submission (leave copy mode, clear the line,
//! type, Enter) is one command chain, so nothing can come between its steps.

use wta_protocol::PaneId;

use super::{Cmd, TmuxHost, unique_name};
use crate::async_host::{check_option_name, check_payload, check_typed_text};
use crate::{AsyncHost, HostError, HostFuture, Key, PaneProbe, PrivateKey, Typing, sh_quote};

/// Fields of a probe before the options, `\x1f`-separated.
const PROBE_FORMAT: &str = "#{pane_width}\x1f#{pane_pid}\x1f#{pane_current_command}\x1f#{pane_dead}\x1f#{pane_dead_status}\x1f#{pane_in_mode}\x1f#{alternate_on}\x1f#{pane_pipe}";
const PROBE_FIELDS: usize = 8;

impl TmuxHost {
    /// `display-message` of `format` for a pane proven to exist (tmux 3.3a
    /// expands a missing pane's format to empty fields and exits 0).
    pub(crate) async fn display_async(
        &self,
        pane: &PaneId,
        format: &str,
    ) -> Result<String, HostError> {
        let out = self.run_async(&display_cmd(pane, format)).await?;
        checked_display(pane, &out)
    }
}

/// The command of a checked display: the pane id first.
pub(super) fn display_cmd(pane: &PaneId, format: &str) -> Cmd {
    Cmd::new("display-message")
        .flag("-p")
        .opt("-t", pane.as_str())
        .arg_format(&format!("#{{pane_id}}\x1f{format}"))
}

/// The answer of [`display_cmd`], or `PaneNotFound` when tmux answered for no pane.
pub(super) fn checked_display(pane: &PaneId, out: &str) -> Result<String, HostError> {
    let out = out.strip_suffix('\n').unwrap_or(out);
    match out.split_once('\x1f') {
        Some((id, rest)) if id == pane.as_str() => Ok(rest.to_owned()),
        _ => Err(HostError::PaneNotFound(pane.to_string())),
    }
}

fn probe_format(options: &[&str]) -> Result<String, HostError> {
    let mut format = PROBE_FORMAT.to_owned();
    for name in options {
        check_option_name(name)?;
        format.push_str(&format!("\x1f#{{{name}}}"));
    }
    Ok(format)
}

fn parse_probe(pane: &PaneId, out: &str, options: usize) -> Result<PaneProbe, HostError> {
    let f: Vec<&str> = out.splitn(PROBE_FIELDS + options, '\x1f').collect();
    if f.len() != PROBE_FIELDS + options {
        return Err(HostError::Parse(format!(
            "display-message printed {} of {} fields",
            f.len(),
            PROBE_FIELDS + options
        )));
    }
    let bad = |what: &str, value: &str| HostError::Parse(format!("{what} {value:?}"));
    Ok(PaneProbe {
        pane: pane.clone(),
        width: f[0].parse().map_err(|_| bad("pane_width", f[0]))?,
        pid: f[1].parse().map_err(|_| bad("pane_pid", f[1]))?,
        command: f[2].to_owned(),
        dead: f[3] == "1",
        dead_status: f[4].parse().ok(),
        in_mode: f[5] == "1",
        alternate_screen: f[6] == "1",
        pipe_open: f[7] == "1",
        options: f[PROBE_FIELDS..].iter().map(|s| (*s).to_owned()).collect(),
    })
}

/// `set-option -p -t PANE -- NAME VALUE`.
pub(super) fn set_option_cmd(pane: &PaneId, name: &str, value: &str) -> Result<Cmd, HostError> {
    check_option_name(name)?;
    Ok(Cmd::new("set-option")
        .flag("-p")
        .opt("-t", pane.as_str())
        .arg(name)
        .arg(value))
}

/// `set-option -p -u -t PANE -- NAME`.
pub(super) fn unset_option_cmd(pane: &PaneId, name: &str) -> Result<Cmd, HostError> {
    check_option_name(name)?;
    Ok(Cmd::new("set-option")
        .flag("-p")
        .flag("-u")
        .opt("-t", pane.as_str())
        .arg(name))
}

/// Longest text typed as keys in one go; longer, or several lines, goes
/// through a paste buffer.
const KEYS_MAX: usize = 4 * 1024;
/// Bytes of text per `set-buffer`: one tmux command must fit in 16 KiB.
const BUFFER_CHUNK: usize = 8 * 1024;

/// The commands that type `text` into `pane` (see [`AsyncHost::type_text`]),
/// run in order; `buffer` names the paste buffer a long or multi-line text
/// goes through (filled in chunks, since one tmux command holds 16 KiB).
/// The last command does all the typing, so nothing reaches the pane until
/// the whole text is in the buffer.
pub(super) fn typing_cmds(
    pane: &PaneId,
    text: &str,
    typing: Typing,
    buffer: &str,
) -> Result<Vec<Cmd>, HostError> {
    check_typed_text(text)?;
    let p = pane.as_str();
    let pasted = text.contains('\n') || text.len() > KEYS_MAX;
    let mut cmds = Vec::new();
    if pasted {
        for (i, chunk) in chunks(text, BUFFER_CHUNK).into_iter().enumerate() {
            let mut set = Cmd::new("set-buffer");
            if i > 0 {
                set = set.flag("-a");
            }
            cmds.push(set.opt("-b", buffer).arg(chunk));
        }
    }
    let mut cmd = Cmd::new("copy-mode").flag("-q").opt("-t", p);
    if typing.clear_line {
        cmd = cmd
            .then("send-keys")
            .opt("-t", p)
            .args([Key::CtrlE.label(), Key::CtrlU.label()]);
    }
    if pasted {
        cmd = cmd
            .then("paste-buffer")
            .flag("-p")
            .flag("-r")
            .flag("-d")
            .opt("-b", buffer)
            .opt("-t", p);
    } else if !text.is_empty() {
        cmd = cmd.then("send-keys").opt("-t", p).flag("-l").arg(text);
    }
    if typing.enter {
        cmd = cmd.then("send-keys").opt("-t", p).arg(Key::Enter.label());
    }
    cmds.push(cmd);
    Ok(cmds)
}

/// `text` cut into pieces of at most `max` bytes, on character boundaries.
fn chunks(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > max {
        let mut cut = max;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    out.push(rest);
    out
}

/// `exec <sink argv>` as the shell command `pipe-pane` runs.
pub(super) fn pipe_command(sink: &[String]) -> Result<String, HostError> {
    if sink.is_empty() {
        return Err(HostError::InvalidArgument(
            "a pipe needs a sink program".into(),
        ));
    }
    let words: Vec<String> = sink.iter().map(|w| sh_quote(w)).collect();
    Ok(format!("exec {}", words.join(" ")))
}

impl AsyncHost for TmuxHost {
    fn probe<'a>(&'a self, pane: &'a PaneId, options: &'a [&'a str]) -> HostFuture<'a, PaneProbe> {
        Box::pin(async move {
            let out = self.display_async(pane, &probe_format(options)?).await?;
            parse_probe(pane, &out, options.len())
        })
    }

    fn set_option<'a>(
        &'a self,
        pane: &'a PaneId,
        name: &'a str,
        value: &'a str,
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            self.run_async(&set_option_cmd(pane, name, value)?)
                .await
                .map(drop)
        })
    }

    fn unset_option<'a>(&'a self, pane: &'a PaneId, name: &'a str) -> HostFuture<'a, ()> {
        Box::pin(async move {
            self.run_async(&unset_option_cmd(pane, name)?)
                .await
                .map(drop)
        })
    }

    fn open_pipe<'a>(
        &'a self,
        pane: &'a PaneId,
        sink: &'a [String],
        owner: (&'a str, &'a str),
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            let (name, value) = owner;
            let cmd = set_option_cmd(pane, name, value)?
                .then("pipe-pane")
                .flag("-O")
                .opt("-t", pane.as_str())
                // tmux runs the command through `strftime` too: a `%` in
                // a path or a pane id stays itself.
                .arg_timed_text(&pipe_command(sink)?);
            self.run_async(&cmd).await.map(drop)
        })
    }

    fn close_pipe<'a>(&'a self, pane: &'a PaneId, owner_option: &'a str) -> HostFuture<'a, ()> {
        Box::pin(async move {
            check_option_name(owner_option)?;
            self.run_async(&close_pipe_cmd(pane, owner_option))
                .await
                .map(drop)
        })
    }

    fn signal<'a>(&'a self, channel: &'a str) -> HostFuture<'a, ()> {
        Box::pin(async move { self.run_async(&signal_cmd(channel)).await.map(drop) })
    }

    fn screen<'a>(&'a self, pane: &'a PaneId) -> HostFuture<'a, String> {
        Box::pin(async move {
            self.run_async(&Cmd::new("capture-pane").flag("-p").opt("-t", pane.as_str()))
                .await
        })
    }

    fn press<'a>(&'a self, pane: &'a PaneId, keys: &'a [Key]) -> HostFuture<'a, ()> {
        Box::pin(async move { self.run_async(&press_cmd(pane, keys)).await.map(drop) })
    }

    fn type_text<'a>(
        &'a self,
        pane: &'a PaneId,
        text: &'a str,
        typing: Typing,
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            let buffer = unique_name("wta-send");
            for cmd in typing_cmds(pane, text, typing, &buffer)? {
                self.run_async(&cmd).await?;
            }
            Ok(())
        })
    }

    fn press_with_payload<'a>(
        &'a self,
        pane: &'a PaneId,
        key: PrivateKey,
        payload: &'a str,
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            self.run_async(&payload_cmd(pane, key, payload)?)
                .await
                .map(drop)
        })
    }
}

/// [`press_cmd`] of the private `key`, then `payload` as literal keys in
/// pieces of at most [`KEYS_MAX`] bytes, all in one command.
pub(super) fn payload_cmd(pane: &PaneId, key: PrivateKey, payload: &str) -> Result<Cmd, HostError> {
    check_payload(payload)?;
    let mut cmd = press_cmd(pane, &[Key::Private(key)]);
    for piece in chunks(payload, KEYS_MAX) {
        cmd = cmd
            .then("send-keys")
            .opt("-t", pane.as_str())
            .flag("-l")
            .arg(piece);
    }
    Ok(cmd)
}

/// `send-keys` of `keys`, in order, one command each: named keys by name,
/// private keys as their bytes (`-H`), after leaving copy mode when a
/// private key is among them (a hand-off must reach the shell, not the
/// copy-mode cursor).
pub(super) fn press_cmd(pane: &PaneId, keys: &[Key]) -> Cmd {
    let p = pane.as_str();
    let private = keys.iter().any(|k| matches!(k, Key::Private(_)));
    let mut cmd = private.then(|| Cmd::new("copy-mode").flag("-q").opt("-t", p));
    for key in keys {
        let send = match cmd.take() {
            Some(before) => before.then("send-keys"),
            None => Cmd::new("send-keys"),
        }
        .opt("-t", p);
        cmd = Some(match key {
            Key::Private(k) => {
                let hex: Vec<String> = k.sequence().bytes().map(|b| format!("{b:02x}")).collect();
                send.flag("-H").args(hex.iter().map(String::as_str))
            }
            named => send.arg(named.label()),
        });
    }
    cmd.unwrap_or_else(|| Cmd::new("send-keys").opt("-t", p))
}

/// `pipe-pane -t PANE` (no command: closes the pipe) and unsets the owner.
pub(super) fn close_pipe_cmd(pane: &PaneId, owner_option: &str) -> Cmd {
    Cmd::new("pipe-pane")
        .opt("-t", pane.as_str())
        .then("set-option")
        .flag("-p")
        .flag("-u")
        .opt("-t", pane.as_str())
        .arg(owner_option)
}

/// `wait-for -S CHANNEL`.
pub(super) fn signal_cmd(channel: &str) -> Cmd {
    Cmd::new("wait-for").flag("-S").arg(channel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_is_keys_and_several_are_one_paste() {
        let pane = PaneId::from_number(3);
        let run = Typing {
            clear_line: true,
            enter: true,
        };
        let one: Vec<String> = typing_cmds(&pane, "ls -l", run, "b")
            .unwrap()
            .remove(0)
            .argv()
            .map(str::to_owned)
            .collect();
        assert_eq!(
            one.join(" "),
            "copy-mode -q -t %3 ; send-keys -t %3 -- C-e C-u ; send-keys -t %3 -l -- ls -l ; send-keys -t %3 -- Enter"
        );
        let insert = Typing {
            clear_line: false,
            enter: false,
        };
        let multi: Vec<Vec<String>> = typing_cmds(&pane, "a\nb;", insert, "wta-1")
            .unwrap()
            .iter()
            .map(|c| c.argv().map(str::to_owned).collect())
            .collect();
        assert_eq!(
            multi,
            [
                vec!["set-buffer", "-b", "wta-1", "--", "a\nb\\;"],
                vec![
                    "copy-mode",
                    "-q",
                    "-t",
                    "%3",
                    ";",
                    "paste-buffer",
                    "-p",
                    "-r",
                    "-d",
                    "-b",
                    "wta-1",
                    "-t",
                    "%3"
                ]
            ]
        );
        assert!(typing_cmds(&pane, "a\tb", run, "b").is_err());
        // A long text is filled in chunks that each fit one tmux command.
        let long = "日本".repeat(3000);
        let cmds = typing_cmds(&pane, &long, run, "b").unwrap();
        assert_eq!(cmds.len(), 4);
        let filled: String = cmds[..3]
            .iter()
            .map(|c| c.argv().last().unwrap().to_owned())
            .collect();
        assert_eq!(filled, long);
        assert!(
            cmds.iter()
                .all(|c| c.argv().map(str::len).sum::<usize>() < 16 * 1024)
        );
    }

    /// A key's payload follows it as literal keys, never as a paste (the
    /// shell's function would read a bracketed paste's marks as its own).
    #[test]
    fn a_payload_follows_its_key_as_literal_keys_in_one_command() {
        let pane = PaneId::from_number(3);
        let argv: Vec<String> = payload_cmd(&pane, PrivateKey::RunHex, "6c73.")
            .unwrap()
            .argv()
            .map(str::to_owned)
            .collect();
        assert_eq!(
            argv.join(" "),
            "copy-mode -q -t %3 ; send-keys -t %3 -H -- 1b 5b 31 37 37 37 34 7e ; send-keys -t %3 -l -- 6c73."
        );
        let long = "ab".repeat(5000) + ".";
        let cmd = payload_cmd(&pane, PrivateKey::RunHex, &long).unwrap();
        let pieces: Vec<&str> = cmd
            .argv()
            .collect::<Vec<_>>()
            .split(|a| *a == ";")
            .skip(2)
            .map(|c| *c.last().unwrap())
            .collect();
        assert_eq!(pieces.concat(), long);
        assert!(
            pieces.iter().all(|p| p.len() <= KEYS_MAX),
            "{}",
            pieces.len()
        );
        for bad in ["6c 73", "日本", "6c\n", "a\x1bb"] {
            assert!(
                payload_cmd(&pane, PrivateKey::RunHex, bad).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn probes_parse_and_refuse_short_answers() {
        let pane = PaneId::from_number(1);
        let p = parse_probe(
            &pane,
            "80\x1f42\x1fbash\x1f0\x1f\x1f1\x1f0\x1f1\x1fg-1\x1f",
            2,
        )
        .unwrap();
        assert_eq!((p.width, p.pid, p.command.as_str()), (80, 42, "bash"));
        assert!(p.in_mode && p.pipe_open && !p.dead && !p.alternate_screen);
        assert_eq!((p.option(0), p.option(1), p.option(7)), ("g-1", "", ""));
        assert!(parse_probe(&pane, "80\x1f42", 0).is_err());
        assert!(probe_format(&["@ok", "bad}"]).is_err());
    }

    #[test]
    fn the_pipe_command_quotes_each_word() {
        let cmd = pipe_command(&[
            "/opt/it's/wta".into(),
            "pipe-sink".into(),
            "/r/#x.sock".into(),
        ])
        .unwrap();
        assert_eq!(cmd, r"exec '/opt/it'\''s/wta' pipe-sink '/r/#x.sock'");
        assert!(pipe_command(&[]).is_err());
    }
}
