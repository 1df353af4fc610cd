//! The rules of payload schema v1 that serde cannot express: counts, unique
//! choice numbers, text lengths, control characters, the autofix shape.
//!
//! Control characters are refused because the card must show the user
//! exactly what will be typed into their shell: an ESC, CR or C1 byte would
//! be invisible on the card and act on the terminal. `input` and `rationale`
//! may contain `\n` and `\t` (multi-line scripts, paragraphs); single-line
//! fields may not.

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
    if let Some(what) = forbidden_control(text, rule.lines) {
        return Err(ProtocolError::ControlCharacter {
            field: field(),
            what,
        });
    }
    Ok(())
}

/// The first character a card could not show faithfully, named for the user.
fn forbidden_control(text: &str, lines: Lines) -> Option<&'static str> {
    text.chars().find_map(|c| match c {
        '\n' | '\t' if lines == Lines::Many => None,
        '\n' => Some("line break"),
        '\t' => Some("tab"),
        '\r' => Some("carriage return"),
        '\u{1b}' => Some("escape"),
        '\0' => Some("NUL"),
        '\u{7f}' => Some("DEL"),
        c if c.is_ascii_control() => Some("C0 control"),
        '\u{80}'..='\u{9f}' => Some("C1 control"),
        // Bidi overrides and isolates can make shown text differ from what runs.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => Some("bidirectional override"),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_named() {
        assert_eq!(forbidden_control("a\nb", Lines::Many), None);
        assert_eq!(forbidden_control("a\nb", Lines::One), Some("line break"));
        assert_eq!(
            forbidden_control("a\rb", Lines::Many),
            Some("carriage return")
        );
        assert_eq!(forbidden_control("\u{1b}[2J", Lines::Many), Some("escape"));
        assert_eq!(
            forbidden_control("x\u{9b}y", Lines::Many),
            Some("C1 control")
        );
        assert_eq!(
            forbidden_control("rm \u{202e}fdp", Lines::Many),
            Some("bidirectional override")
        );
        assert_eq!(forbidden_control("héllo ✓", Lines::One), None);
    }
}
