//! The one tmux argument encoder: every string WTA hands to tmux goes
//! through here, so tmux takes it literally wherever it would otherwise
//! split, expand or parse it (DESIGN §4.9).
//!
//! tmux's own rules (3.2+, checked against 3.3a):
//! - **Command separators**: an argument that *ends* in `;` ends the command
//!   (the `;` is dropped); one ending in `\;` is kept with a plain `;`.
//!   Every word is escaped so the separator rule hands it back unchanged;
//!   [`Cmd::then`] adds a real separator.
//! - **Formats**: at some positions tmux expands `#{…}`, `#(…)` (a shell
//!   command!), `#S`-style aliases and `##`: window and session names, pane
//!   titles, start directories, `pipe-pane`'s command, `display-message`'s
//!   message. Text at such a position is added with [`Cmd::opt_text`] /
//!   [`Cmd::arg_timed_text`], which double every run of `#` so the expansion
//!   yields the text itself — except a run followed by `[`, which tmux keeps
//!   as it is (a style, left for drawing), so it is kept as it is too. A position tmux takes verbatim (targets, buffer and option
//!   names, option values, `send-keys -l`, `set-buffer`, a new pane's argv)
//!   uses [`Cmd::opt`] / [`Cmd::arg`]; formats of our own use
//!   [`Cmd::opt_format`] / [`Cmd::arg_format`].
//! - **Time**: two of those positions, `display-message`'s message and
//!   `pipe-pane`'s command, first go through `strftime` (tmux's
//!   `format_expand_time`), so `%Y` there would become the year. tmux 3.3a
//!   has no flag to turn that off (`display-message -l` came in 3.4), so
//!   [`Cmd::arg_timed_text`] also doubles every `%`, which `strftime` turns
//!   back into one. Names, titles and directories are not time-expanded: a
//!   `%` there stays single.
//! - **Drawing**: a status message is then drawn (`format_draw`), which
//!   halves every run of `#` once more and starts a style at an odd run
//!   before `[`. [`Cmd::arg_status_text`] doubles every run first (an even
//!   run before `[` is drawn as that many halved and a plain `[`), then
//!   escapes the result as a timed text.
//! - **Flags**: a positional word starting with `-` would be read as flags,
//!   so the first positional word of a command is preceded by `--`. (A flag's
//!   own value is never read as a flag.)
//!
//! Nothing outside `wta-host` builds tmux command lines: callers use the
//! typed operations of [`super::TmuxHost`] and [`crate::AsyncHost`].

/// One or more tmux commands, every word escaped for its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cmd {
    words: Vec<String>,
    name: &'static str,
    /// The current command already has a positional word (and its `--`).
    positional: bool,
}

impl Cmd {
    /// Starts a command line with tmux command `name`.
    pub(crate) fn new(name: &'static str) -> Self {
        Self {
            words: vec![name.to_owned()],
            name,
            positional: false,
        }
    }

    /// A flag without a value, e.g. `-d`.
    pub(crate) fn flag(mut self, flag: &'static str) -> Self {
        debug_assert!(flag.starts_with('-') && !self.positional);
        self.words.push(flag.to_owned());
        self
    }

    /// A flag whose value tmux takes verbatim (a target, a name, a size).
    pub(crate) fn opt(self, flag: &'static str, value: &str) -> Self {
        self.flag(flag).word(verbatim(value))
    }

    /// A flag whose value tmux expands as a format (a window or session name,
    /// a title, a start directory): `text` arrives as it is.
    pub(crate) fn opt_text(self, flag: &'static str, text: &str) -> Self {
        self.flag(flag).word(expanded(text))
    }

    /// A flag whose value is a format of ours (`-F '#{pane_id}'`).
    pub(crate) fn opt_format(self, flag: &'static str, format: &str) -> Self {
        self.flag(flag).word(verbatim(format))
    }

    /// A positional word tmux takes verbatim.
    pub(crate) fn arg(self, value: &str) -> Self {
        self.positional_word(verbatim(value))
    }

    /// Several positional words tmux takes verbatim (a new pane's argv).
    pub(crate) fn args<'a>(mut self, values: impl IntoIterator<Item = &'a str>) -> Self {
        for v in values {
            self = self.arg(v);
        }
        self
    }

    /// A positional word tmux passes through `strftime` and then expands
    /// as a format (`display-message`'s message, `pipe-pane`'s command).
    pub(crate) fn arg_timed_text(self, text: &str) -> Self {
        self.positional_word(timed(text))
    }

    /// A status message: passed through `strftime`, expanded as a format,
    /// then drawn (`display-message`'s message without `-p`).
    pub(crate) fn arg_status_text(self, text: &str) -> Self {
        self.positional_word(timed(&every_run_doubled(text)))
    }

    /// A positional format of ours (`display-message -p`'s format).
    pub(crate) fn arg_format(self, format: &str) -> Self {
        self.positional_word(verbatim(format))
    }

    /// Chains another tmux command.
    pub(crate) fn then(mut self, name: &'static str) -> Self {
        self.words.push(";".to_owned());
        self.words.push(name.to_owned());
        self.positional = false;
        self
    }

    /// Chains the commands of `next` after these.
    pub(crate) fn chain(mut self, next: Cmd) -> Self {
        self.words.push(";".to_owned());
        self.words.extend(next.words);
        self.positional = next.positional;
        self
    }

    /// The argv after `tmux [-L|-S …]`.
    pub(crate) fn argv(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(String::as_str)
    }

    /// The first command's name, for error messages.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    fn word(mut self, word: String) -> Self {
        self.words.push(word);
        self
    }

    fn positional_word(mut self, word: String) -> Self {
        if !self.positional {
            self.words.push("--".to_owned());
            self.positional = true;
        }
        self.word(word)
    }
}

/// The word that tmux's separator rule turns back into `value`.
pub(crate) fn verbatim(value: &str) -> String {
    match value.strip_suffix(';') {
        // tmux drops the final `;` and then turns a final `\` into `;`.
        Some(head) => format!("{head}\\;"),
        None => value.to_owned(),
    }
}

/// The word that tmux's separator rule and then its format expansion turn
/// back into `text`. tmux expands `##` to `#`, but copies a run of `#`s
/// followed by `[` unchanged (`#[…]` and `##[…]` are styles for drawing);
/// every other `#` starts a format. So each run of `#` is doubled unless a
/// `[` follows it.
pub(crate) fn expanded(text: &str) -> String {
    verbatim(&hashes_doubled(text))
}

/// The word that tmux's separator rule, then `strftime`, then its format
/// expansion turn back into `text`: [`expanded`] with every `%` doubled
/// (`strftime` gives `%%` back as `%` and leaves `#` alone; format
/// expansion leaves `%` alone).
pub(crate) fn timed(text: &str) -> String {
    verbatim(&hashes_doubled(text).replace('%', "%%"))
}

/// Each run of `#` doubled, `[` or not: what drawing halves back
/// (see [`Cmd::arg_status_text`]).
fn every_run_doubled(text: &str) -> String {
    text.replace('#', "##")
}

/// Each run of `#` doubled unless a `[` follows it (see [`expanded`]).
fn hashes_doubled(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut run = 0;
    for c in text.chars() {
        if c == '#' {
            run += 1;
            continue;
        }
        let hashes = if c == '[' { run } else { run * 2 };
        out.extend(std::iter::repeat_n('#', hashes));
        run = 0;
        out.push(c);
    }
    out.extend(std::iter::repeat_n('#', run * 2));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// tmux 3.3a's `cmd_parse_from_arguments` for one argv: splits commands
    /// on words ending in `;`, turns a final `\;` into `;`.
    fn tmux_split(words: &[String]) -> Vec<Vec<String>> {
        let mut commands = vec![Vec::new()];
        for word in words {
            let mut w = word.clone();
            let mut end = false;
            if w.ends_with(';') {
                w.pop();
                if w.ends_with('\\') {
                    w.pop();
                    w.push(';');
                } else {
                    end = true;
                }
            }
            if (!end || !w.is_empty())
                && let Some(current) = commands.last_mut()
            {
                current.push(w);
            }
            if end {
                commands.push(Vec::new());
            }
        }
        commands.retain(|c| !c.is_empty());
        commands
    }

    /// tmux 3.3a's format expansion (`format_expand1`) of text meant to
    /// hold no format: a run of two or more `#` before `[` is copied as it
    /// is, `##` gives `#`, `#[` stays; `None` if anything else after a `#`
    /// (a format, a job, an alias) would expand.
    fn tmux_expand_plain(text: &str) -> Option<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] != '#' {
                out.push(chars[i]);
                i += 1;
                continue;
            }
            match chars.get(i + 1) {
                Some('#') => {
                    let mut j = i + 1;
                    while chars.get(j) == Some(&'#') {
                        j += 1;
                    }
                    if chars.get(j) == Some(&'[') {
                        out.extend(&chars[i..=j]);
                        i = j + 1;
                    } else {
                        out.push('#');
                        i += 2;
                    }
                }
                Some('[') => {
                    out.push_str("#[");
                    i += 2;
                }
                // A trailing lone `#` stays; anything else is a format.
                None => {
                    out.push('#');
                    i += 1;
                }
                Some(_) => return None,
            }
        }
        Some(out)
    }

    /// glibc's `strftime` (what tmux 3.3a's `format_expand_time` runs
    /// first) on text meant to hold no conversion: `%%` gives `%`; `None` if
    /// any other `%` (a conversion, or one at the end) would be replaced.
    fn strftime_plain(text: &str) -> Option<String> {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('%') => out.push('%'),
                _ => return None,
            }
        }
        Some(out)
    }

    /// tmux 3.3a's `format_draw` on text meant to draw without a style: a
    /// run of n `#` draws ⌈n/2⌉ of them, and before `[` an even run draws
    /// n/2 and a plain `[`; `None` where an odd run before `[` would start
    /// a style.
    fn tmux_draw_plain(text: &str) -> Option<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] != '#' {
                out.push(chars[i]);
                i += 1;
                continue;
            }
            let mut n = 0;
            while chars.get(i + n) == Some(&'#') {
                n += 1;
            }
            if chars.get(i + n) == Some(&'[') {
                if n % 2 == 1 {
                    return None;
                }
                out.extend(std::iter::repeat_n('#', n / 2));
                out.push('[');
                i += n + 1;
            } else {
                out.extend(std::iter::repeat_n('#', n.div_ceil(2)));
                i += n;
            }
        }
        Some(out)
    }

    fn tricky() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("#(touch /tmp/wta-pwned)".to_owned()),
            Just("#{pane_id}".to_owned()),
            Just("#[fg=red]".to_owned()),
            Just("##".to_owned()),
            Just("#".to_owned()),
            Just("##[".to_owned()),
            Just("#[".to_owned()),
            Just("[".to_owned()),
            Just(";".to_owned()),
            Just("\\;".to_owned()),
            Just("\\".to_owned()),
            Just("'\"".to_owned()),
            Just("$(id)".to_owned()),
            Just("`id`".to_owned()),
            Just("-x".to_owned()),
            Just("--".to_owned()),
            Just("ünï 日本".to_owned()),
            Just("ls /nope-%Y-%H".to_owned()),
            Just("%".to_owned()),
            Just("%%".to_owned()),
            Just("#%".to_owned()),
            "[ -~]{0,12}",
        ];
        prop::collection::vec(piece, 0..8).prop_map(|p| p.concat())
    }

    #[test]
    fn separators_and_dashes_are_explicit() {
        let cmd = Cmd::new("send-keys")
            .opt("-t", "%1")
            .flag("-l")
            .arg("echo a;")
            .then("set-option")
            .opt("-t", "%1")
            .arg("@x")
            .arg(";")
            .then("kill-pane");
        let words: Vec<&str> = cmd.argv().collect();
        assert_eq!(
            words,
            [
                "send-keys",
                "-t",
                "%1",
                "-l",
                "--",
                "echo a\\;",
                ";",
                "set-option",
                "-t",
                "%1",
                "--",
                "@x",
                "\\;",
                ";",
                "kill-pane"
            ]
        );
        assert_eq!(cmd.name(), "send-keys");
    }

    #[test]
    fn text_positions_double_every_hash() {
        let cmd = Cmd::new("new-window").opt_text("-n", "x#(id)#{a};");
        assert_eq!(cmd.argv().nth(2), Some("x##(id)##{a}\\;"));
        // tmux keeps a run of `#` before `[` (a style): so do we.
        let cmd = Cmd::new("new-window").opt_text("-n", "#[a]##[b]###c#");
        assert_eq!(cmd.argv().nth(2), Some("#[a]##[b]######c##"));
    }

    #[test]
    fn time_expanded_positions_double_every_percent_too() {
        let cmd = Cmd::new("display-message").arg_timed_text("ls /nope-%Y-%H #{x};");
        assert_eq!(cmd.argv().nth(2), Some("ls /nope-%%Y-%%H ##{x}\\;"));
        // A status message is drawn too: every run of `#` doubled once more.
        let cmd = Cmd::new("display-message").arg_status_text("100% #[x] ##");
        assert_eq!(cmd.argv().nth(2), Some("100%% ##[x] ########"));
        // Names are not time-expanded: a `%` there stays single.
        let cmd = Cmd::new("new-window").opt_text("-n", "100%");
        assert_eq!(cmd.argv().nth(2), Some("100%"));
    }

    proptest! {
        /// Whatever the strings, tmux's separator rule gives back exactly
        /// the commands and words that were added.
        #[test]
        fn every_word_arrives_verbatim(a in tricky(), b in tricky(), c in tricky()) {
            let cmd = Cmd::new("set-option")
                .opt("-t", &a)
                .arg(&b)
                .then("send-keys")
                .flag("-l")
                .arg(&c);
            let words: Vec<String> = cmd.argv().map(str::to_owned).collect();
            let parsed = tmux_split(&words);
            prop_assert_eq!(parsed, vec![
                vec!["set-option".to_owned(), "-t".into(), a, "--".into(), b],
                vec!["send-keys".to_owned(), "-l".into(), "--".into(), c],
            ]);
        }

        /// At an expanded position, separator rule + format expansion give
        /// back the text, and nothing in it is ever run as a format or job.
        #[test]
        fn expanded_text_arrives_verbatim(text in tricky()) {
            let cmd = Cmd::new("new-window").opt_text("-n", &text);
            let words: Vec<String> = cmd.argv().map(str::to_owned).collect();
            let parsed = tmux_split(&words);
            prop_assert_eq!(parsed.len(), 1);
            prop_assert_eq!(parsed[0].len(), 3);
            prop_assert_eq!(tmux_expand_plain(&parsed[0][2]), Some(text));
        }

        /// At a time-expanded position (a status message, a pipe's
        /// command), separator rule + `strftime` + format expansion give
        /// back the text: no `%` conversion, format or job ever expands.
        #[test]
        fn timed_text_arrives_verbatim(text in tricky()) {
            let cmd = Cmd::new("display-message").opt("-t", "%1").arg_timed_text(&text);
            let words: Vec<String> = cmd.argv().map(str::to_owned).collect();
            let parsed = tmux_split(&words);
            prop_assert_eq!(parsed.len(), 1);
            prop_assert_eq!(parsed[0].len(), 5, "{:?}", parsed);
            let after_time = strftime_plain(&parsed[0][4]);
            prop_assert!(after_time.is_some(), "strftime would convert {:?}", parsed[0][4]);
            prop_assert_eq!(after_time.as_deref().and_then(tmux_expand_plain), Some(text));
        }

        /// A status message is drawn as given: separator rule, `strftime`,
        /// format expansion and drawing give back the text, with no
        /// conversion, format, job or style in it.
        #[test]
        fn a_status_message_draws_as_given(text in tricky()) {
            let cmd = Cmd::new("display-message").opt("-t", "%1").arg_status_text(&text);
            let words: Vec<String> = cmd.argv().map(str::to_owned).collect();
            let parsed = tmux_split(&words);
            prop_assert_eq!(parsed.len(), 1);
            prop_assert_eq!(parsed[0].len(), 5, "{:?}", parsed);
            let drawn = strftime_plain(&parsed[0][4])
                .as_deref()
                .and_then(tmux_expand_plain)
                .as_deref()
                .and_then(tmux_draw_plain);
            prop_assert_eq!(drawn, Some(text));
        }

        /// Any string at all (not only the tricky pieces) arrives as it is
        /// at every kind of position, in one command.
        #[test]
        fn any_string_arrives_verbatim_at_every_position(s in any::<String>()) {
            let cmd = Cmd::new("x")
                .opt("-t", &s)
                .opt_text("-n", &s)
                .arg(&s)
                .arg_timed_text(&s)
                .arg_status_text(&s);
            let words: Vec<String> = cmd.argv().map(str::to_owned).collect();
            let parsed = tmux_split(&words);
            prop_assert_eq!(parsed.len(), 1, "{:?}", words);
            let c: Vec<&str> = parsed[0].iter().map(String::as_str).collect();
            prop_assert_eq!(c.len(), 9, "{:?}", c);
            prop_assert_eq!([c[0], c[1], c[2], c[3], c[5], c[6]], ["x", "-t", &s, "-n", "--", &s]);
            prop_assert_eq!(tmux_expand_plain(c[4]), Some(s.clone()));
            let timed = strftime_plain(c[7]);
            prop_assert_eq!(timed.as_deref().and_then(tmux_expand_plain), Some(s.clone()));
            let drawn = strftime_plain(c[8])
                .as_deref()
                .and_then(tmux_expand_plain)
                .as_deref()
                .and_then(tmux_draw_plain);
            prop_assert_eq!(drawn, Some(s.clone()));
        }
    }
}
