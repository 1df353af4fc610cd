//! The question put to a shell, and reading its framed answer back.
//!
//! The shell runs its rc files first (they may print anything), then one
//! script that prints sections, each after a marker line holding a random
//! nonce: `kinds` (how the shell resolves the name, one word a line),
//! `paths` (the executables it would find), `first` (its plain `type`/
//! `whence` answer, for an alias's value), `detail` (where a function came
//! from), `names` (its aliases, functions, builtins and keywords, for near
//! matches), then `end`. Only what follows the first marker is read, and an
//! answer without every section in order is no answer: a shell that stopped
//! half way was not asked successfully.
//!
//! The name reaches the shell as a positional argument, never inside the
//! script text, and every command of the script is one the rc files cannot
//! redefine by an alias (`\builtin …`). Pure: text in, text out.

use crate::scripts::Shell;

/// The sections of an answer, in the order the script prints them.
const SECTIONS: [&str; 6] = ["kinds", "paths", "first", "detail", "names", "end"];

/// The raw text of each section of a complete answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sections {
    pub kinds: String,
    pub paths: String,
    pub first: String,
    pub detail: String,
    pub names: String,
}

/// One question for one shell: its arguments and how to read the answer.
#[derive(Debug, Clone)]
pub struct Probe {
    shell: Shell,
    mark: String,
    args: Vec<String>,
}

const BASH: &str = r#"\builtin set +e +u +o pipefail
LC_ALL=C
\builtin unset HISTFILE
\builtin shopt -s extdebug
\builtin printf '\n%s\n' '@MARK@ kinds'
\builtin type -at -- "$1"
\builtin printf '\n%s\n' '@MARK@ paths'
\builtin type -aP -- "$1"
\builtin printf '\n%s\n' '@MARK@ first'
\builtin type -- "$1"
\builtin printf '\n%s\n' '@MARK@ detail'
\builtin declare -F -- "$1"
\builtin printf '\n%s\n' '@MARK@ names'
\builtin compgen -a -b -k -A function
\builtin printf '\n%s\n' '@MARK@ end'
\builtin exit 0
"#;

const ZSH: &str = r#"\builtin emulate -R zsh
LC_ALL=C
\builtin unset HISTFILE
\builtin printf '\n%s\n' '@MARK@ kinds'
\builtin whence -wa -- "$1"
\builtin printf '\n%s\n' '@MARK@ paths'
\builtin whence -ap -- "$1"
\builtin printf '\n%s\n' '@MARK@ first'
\builtin whence -- "$1"
\builtin printf '\n%s\n' '@MARK@ detail'
\builtin whence -va -- "$1"
\builtin printf '\n%s\n' '@MARK@ names'
\builtin print -rl -- ${(k)aliases} ${(k)functions} ${(k)builtins} ${(k)reswords}
\builtin printf '\n%s\n' '@MARK@ end'
\builtin exit 0
"#;

// fish has no aliases of its own (`alias` defines a function) and no way to
// stop a function shadowing `type`, which older fish ships as a function.
const FISH: &str = r#"set -g LC_ALL C
builtin printf '\n%s\n' '@MARK@ kinds'
type -at -- $argv[1]
builtin printf '\n%s\n' '@MARK@ paths'
type -aP -- $argv[1]
builtin printf '\n%s\n' '@MARK@ first'
builtin printf '\n%s\n' '@MARK@ detail'
builtin functions -Dv -- $argv[1]
builtin printf '\n%s\n' '@MARK@ names'
builtin builtin -n
builtin functions -n
builtin printf '\n%s\n' '@MARK@ end'
exit 0
"#;

impl Probe {
    /// The question about `name` for `shell`, marked with `nonce` (letters
    /// and digits); `None` for a shell WTA cannot ask (pwsh).
    pub fn new(shell: Shell, name: &str, nonce: &str) -> Option<Probe> {
        let nonce: String = nonce.chars().filter(char::is_ascii_alphanumeric).collect();
        let mark = format!("__wta_resolve_{nonce}");
        let template = match shell {
            Shell::Bash => BASH,
            Shell::Zsh => ZSH,
            Shell::Fish => FISH,
            Shell::Pwsh => return None,
        };
        let script = template.replace("@MARK@", &mark);
        let args: Vec<&str> = match shell {
            // `bash -c SCRIPT $0 $1`: the name is $1.
            Shell::Bash => vec!["-i", "-c", &script, "bash", name],
            Shell::Zsh => vec!["-i", "-c", &script, "zsh", name],
            // fish has no $0; `--` keeps a name like `-x` from being an option.
            // Private mode keeps the probe out of the history.
            Shell::Fish | Shell::Pwsh => vec!["--private", "-i", "-c", &script, "--", name],
        };
        let args = args.into_iter().map(str::to_owned).collect();
        Some(Probe { shell, mark, args })
    }

    pub fn shell(&self) -> Shell {
        self.shell
    }

    /// The shell's arguments (after the program).
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// True once `output` holds the end marker: the answer is complete and
    /// the shell need not be waited for.
    pub fn is_complete(&self, output: &[u8]) -> bool {
        let end = format!("\n{} end\n", self.mark);
        find(output, end.as_bytes(), 0).is_some()
    }

    /// The sections of a complete answer in `output`; `None` if any is
    /// missing, out of order, or if text after the first marker looks like
    /// a marker it is not.
    pub fn read(&self, output: &[u8]) -> Option<Sections> {
        let marker = format!("\n{} ", self.mark);
        let marker = marker.as_bytes();
        let mut at = find(output, marker, 0)?;
        let mut texts = Vec::with_capacity(SECTIONS.len());
        for (i, section) in SECTIONS.iter().enumerate() {
            let head = at + marker.len();
            let rest = output.get(head..)?;
            let title = format!("{section}\n");
            if !rest.starts_with(title.as_bytes()) {
                return None;
            }
            let body = head + title.len();
            if i + 1 == SECTIONS.len() {
                break;
            }
            let next = find(output, marker, body)?;
            texts.push(String::from_utf8_lossy(&output[body..next]).into_owned());
            at = next;
        }
        let mut texts = texts.into_iter();
        let mut next = || texts.next().unwrap_or_default();
        Some(Sections {
            kinds: next(),
            paths: next(),
            first: next(),
            detail: next(),
            names: next(),
        })
    }

    /// `sections` framed as this probe's script prints them (for tests of
    /// the reading side and of the shells' answers).
    #[cfg(test)]
    pub fn frame(&self, sections: &Sections) -> Vec<u8> {
        let bodies = [
            &sections.kinds,
            &sections.paths,
            &sections.first,
            &sections.detail,
            &sections.names,
        ];
        let mut out = String::new();
        for (i, section) in SECTIONS.iter().enumerate() {
            out.push_str(&format!("\n{} {section}\n", self.mark));
            if let Some(body) = bodies.get(i) {
                out.push_str(body);
            }
        }
        out.into_bytes()
    }
}

/// The first index of `needle` in `hay` at or after `from`.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    fn probe() -> Probe {
        Probe::new(Shell::Bash, "gti", "n0nce").unwrap()
    }

    fn sample() -> Sections {
        Sections {
            kinds: "alias\nfile\n".into(),
            paths: "/usr/bin/gti\n".into(),
            first: "gti is aliased to `git'\n".into(),
            detail: String::new(),
            names: "cd\ngti\n".into(),
        }
    }

    #[test]
    fn the_name_is_an_argument_never_script_text() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let name = "$(touch /tmp/x)'\"";
            let p = Probe::new(shell, name, "abc").unwrap();
            assert_eq!(p.args().last().unwrap(), name, "{shell}");
            let script = &p.args()[p.args().iter().position(|a| a == "-c").unwrap() + 1];
            assert!(!script.contains(name), "{shell}");
            assert!(script.contains("__wta_resolve_abc end"), "{shell}");
            assert!(p.args().contains(&"-i".to_owned()), "{shell}: interactive");
        }
        assert!(Probe::new(Shell::Pwsh, "x", "abc").is_none());
        let odd = Probe::new(Shell::Bash, "x", "a'b;c").unwrap();
        assert!(odd.args()[2].contains("__wta_resolve_abc kinds"));
    }

    #[test]
    fn rc_noise_before_the_answer_is_ignored() {
        let p = probe();
        let mut out = b"Welcome!\nno newline at the end".to_vec();
        out.extend(p.frame(&sample()));
        out.extend(b"logout noise\n");
        assert!(p.is_complete(&out));
        assert_eq!(p.read(&out).unwrap(), sample());
    }

    #[test]
    fn an_answer_cut_short_or_from_another_probe_is_none() {
        let p = probe();
        let full = p.frame(&sample());
        for cut in 0..full.len() {
            assert_eq!(p.read(&full[..cut]), None, "cut at {cut}");
        }
        let other = Probe::new(Shell::Bash, "gti", "other").unwrap();
        assert_eq!(other.read(&full), None);
        assert!(!other.is_complete(&full));
        let swapped = String::from_utf8(full.clone())
            .unwrap()
            .replace(" paths\n", " first\n");
        assert_eq!(p.read(swapped.as_bytes()), None);
    }

    fn sections() -> impl Strategy<Value = Sections> {
        let body = || proptest::string::string_regex("([a-z/ :`'_.-]{0,12}\n){0,4}").unwrap();
        (body(), body(), body(), body(), body()).prop_map(|(kinds, paths, first, detail, names)| {
            Sections {
                kinds,
                paths,
                first,
                detail,
                names,
            }
        })
    }

    proptest! {
        #[test]
        fn framing_round_trips_after_any_noise(
            s in sections(),
            noise in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let p = probe();
            let mut out = noise;
            out.extend(p.frame(&s));
            prop_assert_eq!(p.read(&out), Some(s));
        }

        /// Whatever the shell printed (noise, or an answer with a few bytes
        /// changed, cut or followed by more): an answer is read only when
        /// the output is complete, and it is framed in the output as read.
        #[test]
        fn an_answer_is_read_only_when_complete_and_as_framed(
            noise in proptest::collection::vec(any::<u8>(), 0..64),
            s in sections(),
            edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 0..3),
            cut in any::<prop::sample::Index>(),
            tail in proptest::collection::vec(any::<u8>(), 0..16),
        ) {
            let p = probe();
            let mut out = noise;
            out.extend(p.frame(&s));
            for (at, op, byte) in edits {
                let i = at.index(out.len() + 1);
                match op {
                    0 => out.insert(i, byte),
                    1 if i < out.len() => {
                        out.remove(i);
                    }
                    _ if i < out.len() => out[i] = byte,
                    _ => {}
                }
            }
            out.truncate(cut.index(out.len() + 1).max(out.len() / 2));
            out.extend(tail);
            if let Some(read) = p.read(&out) {
                prop_assert!(p.is_complete(&out));
                let framed = String::from_utf8_lossy(&p.frame(&read)).into_owned();
                prop_assert!(String::from_utf8_lossy(&out).contains(&framed), "{:?}", read);
            }
        }
    }
}
