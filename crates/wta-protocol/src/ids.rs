//! Typed tmux object ids.
//!
//! tmux ids are stable for the server's lifetime: sessions `$N`, windows `@N`,
//! panes `%N`. They are never reused while the server runs, so they are the
//! only safe keys (indexes and names change under the user's hands).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A malformed id, with the text that was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{given}` is not a tmux {kind} id (expected `{sigil}` followed by digits, e.g. `{sigil}3`)"
)]
pub struct IdError {
    pub kind: &'static str,
    pub sigil: char,
    pub given: String,
}

macro_rules! tmux_id {
    ($(#[$doc:meta])* $name:ident, $sigil:literal, $kind:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// The sigil that starts every id of this kind.
            pub const SIGIL: char = $sigil;

            /// Parses `"<sigil><digits>"`; a bare number gets the sigil added.
            pub fn parse(text: &str) -> Result<Self, IdError> {
                let digits = text.strip_prefix($sigil).unwrap_or(text);
                if !digits.is_empty() && digits.len() <= 10 && digits.bytes().all(|b| b.is_ascii_digit()) {
                    Ok(Self(format!("{}{}", $sigil, digits)))
                } else {
                    Err(IdError { kind: $kind, sigil: $sigil, given: text.to_owned() })
                }
            }

            /// The id with this number, e.g. `from_number(3)` is `"<sigil>3"`.
            pub fn from_number(n: u32) -> Self {
                Self(format!("{}{}", $sigil, n))
            }

            /// The id as tmux spells it, e.g. for `-t`.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The numeric part, for ordering in listings.
            pub fn number(&self) -> u64 {
                self.0[1..].parse().unwrap_or(u64::MAX)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                Self::parse(&text).map_err(serde::de::Error::custom)
            }
        }
    };
}

tmux_id!(
    /// A tmux session (`$N`): what Windows Terminal called a window.
    TmuxSessionId, '$', "session"
);
tmux_id!(
    /// A tmux window (`@N`): what Windows Terminal called a tab.
    WindowId, '@', "window"
);
tmux_id!(
    /// A tmux pane (`%N`).
    PaneId, '%', "pane"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_with_and_without_sigil() {
        assert_eq!(PaneId::parse("%3").unwrap().as_str(), "%3");
        assert_eq!(PaneId::parse("12").unwrap().as_str(), "%12");
        assert_eq!(WindowId::parse("@0").unwrap().number(), 0);
        assert_eq!(TmuxSessionId::parse("$7").unwrap().to_string(), "$7");
    }

    #[test]
    fn rejects_other_kinds_and_garbage() {
        for bad in ["", "%", "@3", "%3a", "% 3", "%-1", "%99999999999", "%３"] {
            let err = PaneId::parse(bad).unwrap_err();
            assert_eq!(err.given, bad);
            assert!(err.to_string().contains("pane id"), "{err}");
        }
    }

    #[test]
    fn serde_round_trip_and_validation() {
        let id: PaneId = serde_json::from_str("\"%5\"").unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"%5\"");
        assert!(serde_json::from_str::<PaneId>("\"@5\"").is_err());
    }
}
