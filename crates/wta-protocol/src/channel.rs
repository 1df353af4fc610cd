//! The per-turn proposal channel `v1.<helper-id>.<turn-nonce>` and the
//! socket file name derived from it.
//!
//! The parser is strict so that a channel has exactly one spelling: three
//! dot-separated parts, version `v1`, two 32-digit lowercase hex ids, no
//! whitespace, nothing before or after. The channel is a bearer capability:
//! its Debug output hides the nonce and errors never echo it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::ProtocolError;
use crate::hexid::{HEX_ID_LEN, HelperId, TurnNonce, parse_hex16};
use crate::limits::CHANNEL_VERSION;

/// Length of every valid channel string: `v1` + 2 dots + 2 × 32 hex digits.
pub const CHANNEL_LEN: usize = CHANNEL_VERSION.len() + 2 + 2 * HEX_ID_LEN;

/// A proposal channel: which helper owns it and which turn issued it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Channel {
    helper: HelperId,
    nonce: TurnNonce,
}

impl Channel {
    pub const fn new(helper: HelperId, nonce: TurnNonce) -> Self {
        Self { helper, nonce }
    }

    /// Parses `v1.<32 lowercase hex>.<32 lowercase hex>` and nothing else.
    pub fn parse(text: &str) -> Result<Self, ProtocolError> {
        let malformed = |reason| ProtocolError::MalformedChannel { reason };
        if text.len() != CHANNEL_LEN {
            return Err(malformed(
                "expected v1.<32 hex digits>.<32 hex digits>, 68 characters",
            ));
        }
        let mut parts = text.split('.');
        let (Some(version), Some(helper), Some(nonce), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(malformed("expected exactly three dot-separated parts"));
        };
        if version != CHANNEL_VERSION {
            return Err(malformed("unsupported channel version (expected v1)"));
        }
        let helper = parse_hex16(helper, HelperId::KIND)
            .map_err(|_| malformed("helper id must be 32 lowercase hex digits"))?;
        let nonce = parse_hex16(nonce, TurnNonce::KIND)
            .map_err(|_| malformed("turn nonce must be 32 lowercase hex digits"))?;
        Ok(Self::new(
            HelperId::from_bytes(helper),
            TurnNonce::from_bytes(nonce),
        ))
    }

    pub const fn helper(&self) -> HelperId {
        self.helper
    }

    pub const fn nonce(&self) -> TurnNonce {
        self.nonce
    }

    /// The helper's proposal socket, relative to the runtime dir
    /// (`$XDG_RUNTIME_DIR/wta/` or `/tmp/wta-<uid>/`).
    pub fn socket_file_name(&self) -> String {
        socket_file_name(self.helper)
    }
}

/// `proposal-<helper-id>.sock`: one socket per helper, shared by its turns.
pub fn socket_file_name(helper: HelperId) -> String {
    format!("proposal-{helper}.sock")
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{CHANNEL_VERSION}.{}.{}", self.helper, self.nonce)
    }
}

impl fmt::Debug for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Channel({CHANNEL_VERSION}.{}.{:?})",
            self.helper, self.nonce
        )
    }
}

impl FromStr for Channel {
    type Err = ProtocolError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for Channel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Channel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "0123456789abcdef0123456789abcdef";
    const N: &str = "fedcba9876543210fedcba9876543210";

    fn good() -> String {
        format!("v1.{H}.{N}")
    }

    #[test]
    fn parses_and_displays_the_same_bytes() {
        let ch = Channel::parse(&good()).unwrap();
        assert_eq!(ch.to_string(), good());
        assert_eq!(ch.helper().to_string(), H);
        assert_eq!(ch.nonce().to_string(), N);
        assert_eq!(ch.socket_file_name(), format!("proposal-{H}.sock"));
    }

    #[test]
    fn rejects_every_other_spelling() {
        let g = good();
        let cases = [
            String::new(),
            g.to_uppercase(),
            format!("v1.{}.{N}", H.to_uppercase()),
            format!("v1.{H}.{}", N.to_uppercase()),
            format!("v2.{H}.{N}"),
            format!("V1.{H}.{N}"),
            format!("{g}\n"),
            format!(" {g}"),
            format!("{g} "),
            format!("{g}."),
            format!("{g}.00"),
            format!("v1.{H}"),
            format!("v1.{H}{N}."),
            format!("v1..{H}{N}"),
            format!("v1.{H}.{}g", &N[..31]),
            format!("v1.{}.{N}0", &H[..31]),
            format!("v1-{H}.{N}"),
            g.replace('.', ":"),
        ];
        for bad in &cases {
            assert!(Channel::parse(bad).is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn debug_and_errors_hide_the_nonce() {
        let ch = Channel::parse(&good()).unwrap();
        assert!(!format!("{ch:?}").contains(N));
        let err = Channel::parse(&format!("v1.{H}.{}", N.to_uppercase())).unwrap_err();
        assert!(!err.to_string().to_lowercase().contains(N), "{err}");
    }

    #[test]
    fn serde_is_the_string_form() {
        let ch = Channel::parse(&good()).unwrap();
        let json = serde_json::to_string(&ch).unwrap();
        assert_eq!(json, format!("\"{}\"", good()));
        assert_eq!(serde_json::from_str::<Channel>(&json).unwrap(), ch);
        assert!(serde_json::from_str::<Channel>("\"v1.x.y\"").is_err());
    }
}
