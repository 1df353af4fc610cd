//! 128-bit random ids written as 32 lowercase hex digits: the helper
//! instance, the turn nonce, proposals and executions.
//!
//! Randomness is an input: callers pass 16 bytes they drew from the OS
//! (the helper has `rand`). That keeps this crate free of I/O and lets tests
//! pin ids. The parser accepts lowercase only, so each id has exactly one
//! spelling and byte comparison of channel strings is sound.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::ProtocolError;

/// Number of hex digits in every id of this module.
pub const HEX_ID_LEN: usize = 32;

/// Parses exactly 32 lowercase hex digits.
pub(crate) fn parse_hex16(text: &str, kind: &'static str) -> Result<[u8; 16], ProtocolError> {
    let malformed = |reason| ProtocolError::MalformedId { kind, reason };
    if text.len() != HEX_ID_LEN {
        return Err(malformed("expected exactly 32 hex digits"));
    }
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(malformed("expected lowercase hex digits 0-9 and a-f only"));
    }
    let mut out = [0u8; 16];
    hex::decode_to_slice(text, &mut out).map_err(|_| malformed("expected hex digits"))?;
    Ok(out)
}

macro_rules! hex_id {
    ($(#[$doc:meta])* $name:ident, $kind:literal, redact = $redact:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name([u8; 16]);

        impl $name {
            /// What the id is called in error messages.
            pub const KIND: &'static str = $kind;

            /// The id made of these 16 bytes (draw them from a CSPRNG).
            pub const fn from_bytes(bytes: [u8; 16]) -> Self {
                Self(bytes)
            }

            /// Parses exactly 32 lowercase hex digits.
            pub fn parse(text: &str) -> Result<Self, ProtocolError> {
                parse_hex16(text, $kind).map(Self)
            }

            pub const fn as_bytes(&self) -> &[u8; 16] {
                &self.0
            }

            /// The 32-digit lowercase spelling.
            pub fn to_hex(&self) -> String {
                hex::encode(self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.to_hex())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if $redact {
                    // A secret: show enough to tell two apart in a test, no more.
                    write!(f, "{}({}…)", stringify!($name), &self.to_hex()[..4])
                } else {
                    write!(f, "{}({})", stringify!($name), self.to_hex())
                }
            }
        }

        impl FromStr for $name {
            type Err = ProtocolError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_hex())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                Self::parse(&text).map_err(serde::de::Error::custom)
            }
        }
    };
}

hex_id!(
    /// One helper process (one agent pane). Survives stash/restore and `/new`;
    /// names the helper's proposal socket.
    HelperId, "helper id", redact = false
);
hex_id!(
    /// The per-turn secret half of a channel. Debug output is redacted.
    TurnNonce, "turn nonce", redact = true
);
hex_id!(
    /// One accepted proposal (one recommendation card).
    ProposalId, "proposal id", redact = false
);
hex_id!(
    /// One dispatched action of a confirmed proposal.
    ExecutionId, "execution id", redact = false
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_bytes_and_text() {
        let id = HelperId::from_bytes([0xab; 16]);
        assert_eq!(id.to_string(), "ab".repeat(16));
        assert_eq!(HelperId::parse(&id.to_string()).unwrap(), id);
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(serde_json::from_str::<HelperId>(&json).unwrap(), id);
    }

    #[test]
    fn rejects_uppercase_short_long_and_non_hex() {
        let upper = "AB".repeat(16);
        let short = "ab".repeat(15);
        let long = "ab".repeat(17);
        let nonhex = format!("{}zz", "ab".repeat(15));
        let spaced = format!(" {}", &"ab".repeat(16)[1..]);
        for bad in [upper.as_str(), &short, &long, &nonhex, &spaced, ""] {
            let err = TurnNonce::parse(bad).unwrap_err();
            assert!(err.to_string().starts_with("malformed turn nonce"), "{err}");
        }
    }

    #[test]
    fn nonce_debug_is_redacted() {
        let nonce = TurnNonce::from_bytes([0x5c; 16]);
        let debug = format!("{nonce:?}");
        assert_eq!(debug, "TurnNonce(5c5c…)");
        assert!(!debug.contains(&nonce.to_hex()));
    }
}
