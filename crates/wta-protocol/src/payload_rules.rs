//! The rules of payload schema v1 that serde cannot express: counts, unique
//! choice numbers, text lengths, forbidden characters, the autofix shape.
//!
//! Characters are refused (never escaped or shown as symbols) because the
//! card must show the user every character that will be typed into their
//! shell or handed to tmux: a TAB completes, a CR or ESC acts on the
//! terminal, a bidi override or zero-width character makes the shown text
//! differ from what runs. `input` and `rationale` may span lines with `\n`;
//! `title` and `cwd` may not. Nothing else invisible is allowed anywhere:
//! see [`forbidden`] for the exact set. The refusal names the field, the
//! character (`U+0009 (TAB)`), its position and a fix, so the agent can
//! send a corrected payload.

use crate::error::ProtocolError;
use crate::limits::{
    MAX_ACTIONS_PER_CHOICE, MAX_CHOICES, MAX_CWD_CHARS, MAX_INPUT_CHARS, MAX_RATIONALE_CHARS,
    MAX_TITLE_CHARS, SCHEMA_VERSION,
};
use crate::payload::{Action, Choice, Origin, ProposalPayload};

/// Whether a text field may span lines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lines {
    One,
    Many,
}

/// What a text field allows.
struct TextRule {
    max: usize,
    lines: Lines,
    may_be_empty: bool,
}

const TITLE: TextRule = TextRule {
    max: MAX_TITLE_CHARS,
    lines: Lines::One,
    may_be_empty: false,
};
const RATIONALE: TextRule = TextRule {
    max: MAX_RATIONALE_CHARS,
    lines: Lines::Many,
    may_be_empty: true,
};
const INPUT: TextRule = TextRule {
    max: MAX_INPUT_CHARS,
    lines: Lines::Many,
    may_be_empty: false,
};
const CWD: TextRule = TextRule {
    max: MAX_CWD_CHARS,
    lines: Lines::One,
    may_be_empty: false,
};
/// A tab title follows the same rule as a choice title.
const TAB_TITLE: TextRule = TITLE;

/// Checks one text field that is not part of a payload (the session tools'
/// questions and answers) by the payload's character rules: at most `max`
/// characters, on one line unless `multi_line`, never empty.
pub(crate) fn check_field(
    text: &str,
    max: usize,
    multi_line: bool,
    field: &str,
) -> Result<(), ProtocolError> {
    let rule = TextRule {
        max,
        lines: if multi_line { Lines::Many } else { Lines::One },
        may_be_empty: false,
    };
    check_text(text, &rule, || field.to_owned())
}

impl ProposalPayload {
    /// Checks every schema-v1 rule; the first violation wins.
    pub fn validate(&self) -> Result<(), ProtocolError> {
        if self.schema_version != SCHEMA_VERSION {
            return Err(ProtocolError::UnsupportedSchemaVersion {
                found: self.schema_version,
            });
        }
        let count = self.choices.len();
        if count == 0 || count > MAX_CHOICES {
            return Err(ProtocolError::ChoiceCount { count });
        }
        let mut seen = [false; MAX_CHOICES + 1];
        for choice in &self.choices {
            let number = choice.choice;
            let slot = usize::try_from(number)
                .ok()
                .filter(|n| (1..=MAX_CHOICES).contains(n));
            let Some(slot) = slot else {
                return Err(ProtocolError::ChoiceNumberOutOfRange { choice: number });
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(ProtocolError::DuplicateChoice { choice: number });
            }
        }
        if !self
            .choices
            .iter()
            .any(|c| c.choice == self.recommended_choice)
        {
            return Err(ProtocolError::RecommendedChoiceMissing {
                recommended: self.recommended_choice,
            });
        }
        for choice in &self.choices {
            validate_choice(choice)?;
        }
        if self.origin == Origin::Autofix {
            let [only] = self.choices.as_slice() else {
                return Err(ProtocolError::AutofixShape);
            };
            if !matches!(only.actions.as_slice(), [Action::Send { .. }]) {
                return Err(ProtocolError::AutofixShape);
            }
        }
        Ok(())
    }
}

fn validate_choice(choice: &Choice) -> Result<(), ProtocolError> {
    let n = choice.choice;
    let count = choice.actions.len();
    if count == 0 || count > MAX_ACTIONS_PER_CHOICE {
        return Err(ProtocolError::ActionCount { choice: n, count });
    }
    check_text(&choice.title, &TITLE, || format!("choice {n} title"))?;
    check_text(&choice.rationale, &RATIONALE, || {
        format!("choice {n} rationale")
    })?;
    for (index, action) in choice.actions.iter().enumerate() {
        let at = |field: &str| {
            format!(
                "choice {n} action {} ({}) {field}",
                index + 1,
                action.kind()
            )
        };
        match action {
            Action::Send { input } => check_text(input, &INPUT, || at("input"))?,
            Action::Open { cwd, title, .. } => {
                if let Some(cwd) = cwd {
                    check_text(cwd, &CWD, || at("cwd"))?;
                }
                if let Some(title) = title {
                    check_text(title, &TAB_TITLE, || at("title"))?;
                }
            }
            Action::OpenAndSend { input, cwd, .. } => {
                check_text(input, &INPUT, || at("input"))?;
                if let Some(cwd) = cwd {
                    check_text(cwd, &CWD, || at("cwd"))?;
                }
            }
        }
    }
    Ok(())
}

fn check_text(
    text: &str,
    rule: &TextRule,
    field: impl Fn() -> String,
) -> Result<(), ProtocolError> {
    if !rule.may_be_empty && text.trim().is_empty() {
        return Err(ProtocolError::EmptyText { field: field() });
    }
    // Count lazily and stop early: a hostile string costs at most max + 1 steps here.
    let len = text.chars().take(rule.max + 1).count();
    if len > rule.max {
        return Err(ProtocolError::TextTooLong {
            field: field(),
            len: text.chars().count(),
            max: rule.max,
        });
    }
    if let Some((index, c, refusal)) = first_forbidden(text, rule.lines) {
        return Err(ProtocolError::ControlCharacter {
            field: field(),
            code: u32::from(c),
            name: refusal.name,
            position: index + 1,
            fix: refusal.fix,
        });
    }
    Ok(())
}

/// Why one character may not be in a field, for the agent to act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Refusal {
    /// Short name, shown as `U+0009 (TAB)`.
    name: &'static str,
    /// What to do instead.
    fix: &'static str,
}

const ONE_LINE: &str = "keep this field on one line";
const REMOVE: &str = "remove it";

/// The first character the card could not show faithfully, with its
/// 0-based character index.
fn first_forbidden(text: &str, lines: Lines) -> Option<(usize, char, Refusal)> {
    text.chars()
        .enumerate()
        .find_map(|(i, c)| forbidden(c, lines).map(|r| (i, c, r)))
}

/// Whether `c` is refused in a field that allows `lines`, and why.
///
/// Refused: every C0 control but `\n` in a multi-line field (TAB and CR
/// included), DEL, every C1 control, U+2028/U+2029, every character of
/// Unicode category Cf (format: bidi embeddings, overrides and isolates,
/// zero-width space and joiners, directional marks, the BOM, soft hyphen,
/// tags, ...), every variation selector (U+FE00–U+FE0F, U+E0100–U+E01EF
/// and the Mongolian ones: they draw as nothing, so `❤` and `❤\u{fe0f}`
/// look alike while they are different bytes to a shell), and the
/// default-ignorable fillers that draw as nothing (Hangul fillers, the
/// combining grapheme joiner, Khmer inherent vowels).
fn forbidden(c: char, lines: Lines) -> Option<Refusal> {
    let refusal = |name, fix| Some(Refusal { name, fix });
    match c {
        '\n' if lines == Lines::Many => None,
        '\n' => refusal("LF", ONE_LINE),
        '\t' => match lines {
            Lines::Many => refusal("TAB", "use spaces, or a real newline to start a line"),
            Lines::One => refusal("TAB", "use spaces"),
        },
        '\r' => match lines {
            Lines::Many => refusal("CR", "end lines with a real newline (\\n) only"),
            Lines::One => refusal("CR", ONE_LINE),
        },
        '\u{0}'..='\u{1f}' => refusal(C0_NAMES[c as usize], REMOVE),
        '\u{7f}' => refusal("DEL", REMOVE),
        '\u{80}'..='\u{9f}' => refusal("C1 control", REMOVE),
        '\u{2028}' | '\u{2029}' => {
            let name = if c == '\u{2028}' {
                "LINE SEPARATOR"
            } else {
                "PARAGRAPH SEPARATOR"
            };
            match lines {
                Lines::Many => refusal(name, "use a real newline (\\n) instead"),
                Lines::One => refusal(name, ONE_LINE),
            }
        }
        _ => named_format(c)
            .or_else(|| is_format(c).then_some("invisible format character"))
            .or_else(|| is_variation_selector(c).then_some("VARIATION SELECTOR"))
            .or_else(|| is_invisible_filler(c).then_some("invisible filler"))
            .map(|name| Refusal { name, fix: REMOVE }),
    }
}

/// ASCII names of the C0 controls, by code.
const C0_NAMES: [&str; 32] = [
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "TAB", "LF", "VT", "FF", "CR",
    "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
    "FS", "GS", "RS", "US",
];

/// Names of the format characters an attacker reaches for first.
fn named_format(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{ad}' => "SOFT HYPHEN",
        '\u{61c}' => "ARABIC LETTER MARK",
        '\u{200b}' => "ZERO WIDTH SPACE",
        '\u{200c}' => "ZERO WIDTH NON-JOINER",
        '\u{200d}' => "ZERO WIDTH JOINER",
        '\u{200e}' => "LEFT-TO-RIGHT MARK",
        '\u{200f}' => "RIGHT-TO-LEFT MARK",
        '\u{202a}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => "POP DIRECTIONAL FORMATTING",
        '\u{202d}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2060}' => "WORD JOINER",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{feff}' => "ZERO WIDTH NO-BREAK SPACE",
        _ => return None,
    })
}

/// Unicode general category Cf (format), as of Unicode 15.1. An explicit
/// table: the standard library has no category lookup, and this is the
/// whole category.
fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

/// Variation selectors: the standard ones, the supplement and the
/// Mongolian free variation selectors (general category Mn, not Cf).
fn is_variation_selector(c: char) -> bool {
    matches!(
        c,
        '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}' | '\u{180b}'..='\u{180d}' | '\u{180f}'
    )
}

/// Default-ignorable characters outside Cf that draw as nothing (or as a
/// blank that is not a space), so text with them looks like text without.
fn is_invisible_filler(c: char) -> bool {
    matches!(
        c,
        '\u{34f}' | '\u{115f}'..='\u{1160}' | '\u{17b4}'..='\u{17b5}' | '\u{3164}' | '\u{ffa0}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str, lines: Lines) -> Option<(usize, &'static str)> {
        first_forbidden(text, lines).map(|(i, _, r)| (i, r.name))
    }

    #[test]
    fn forbidden_characters_are_named_with_their_position() {
        assert_eq!(name("a\nb", Lines::Many), None);
        assert_eq!(name("a\nb", Lines::One), Some((1, "LF")));
        assert_eq!(name("a\tb", Lines::Many), Some((1, "TAB")));
        assert_eq!(name("a\rb", Lines::Many), Some((1, "CR")));
        assert_eq!(name("\u{1b}[2J", Lines::Many), Some((0, "ESC")));
        assert_eq!(name("\u{7}", Lines::One), Some((0, "BEL")));
        assert_eq!(name("\u{7f}", Lines::One), Some((0, "DEL")));
        assert_eq!(name("x\u{9b}y", Lines::Many), Some((1, "C1 control")));
        assert_eq!(
            name("rm \u{202e}fdp", Lines::Many),
            Some((3, "RIGHT-TO-LEFT OVERRIDE"))
        );
        assert_eq!(name("é\u{200b}", Lines::One), Some((1, "ZERO WIDTH SPACE")));
        assert_eq!(name("a\u{2028}b", Lines::Many), Some((1, "LINE SEPARATOR")));
        assert_eq!(
            name("\u{feff}ls", Lines::Many),
            Some((0, "ZERO WIDTH NO-BREAK SPACE"))
        );
        assert_eq!(
            name("a\u{e0041}", Lines::One),
            Some((1, "invisible format character"))
        );
        assert_eq!(
            name("a\u{3164}b", Lines::One),
            Some((1, "invisible filler"))
        );
        // Positions count characters, not bytes.
        assert_eq!(name("世界\t", Lines::One), Some((2, "TAB")));
        assert_eq!(name("héllo ✓ 世界 🦀 e\u{301} ❤", Lines::One), None);
        // Variation selectors change nothing the card can show: refused.
        for (text, at) in [
            ("❤\u{fe0f}", 1),
            ("a\u{fe00}", 1),
            ("x\u{e0100}y", 1),
            ("\u{e01ef}", 0),
        ] {
            assert_eq!(
                name(text, Lines::One),
                Some((at, "VARIATION SELECTOR")),
                "{text:?}"
            );
        }
        assert_eq!(
            name("\u{180b}", Lines::One),
            Some((0, "VARIATION SELECTOR"))
        );
    }

    #[test]
    fn each_refusal_says_how_to_fix_it() {
        let fix = |c, lines| forbidden(c, lines).map(|r| r.fix);
        assert_eq!(
            fix('\t', Lines::Many),
            Some("use spaces, or a real newline to start a line")
        );
        assert_eq!(fix('\t', Lines::One), Some("use spaces"));
        assert_eq!(fix('\n', Lines::One), Some(ONE_LINE));
        assert_eq!(fix('\u{2029}', Lines::One), Some(ONE_LINE));
        assert_eq!(
            fix('\u{2029}', Lines::Many),
            Some("use a real newline (\\n) instead")
        );
        assert_eq!(fix('\u{1b}', Lines::Many), Some(REMOVE));
    }

    #[test]
    fn every_c0_and_c1_control_but_newline_is_refused() {
        for c in ('\u{0}'..='\u{1f}')
            .chain(['\u{7f}'])
            .chain('\u{80}'..='\u{9f}')
        {
            assert!(forbidden(c, Lines::One).is_some(), "{:?}", c);
            assert_eq!(forbidden(c, Lines::Many).is_none(), c == '\n', "{:?}", c);
        }
    }
}
