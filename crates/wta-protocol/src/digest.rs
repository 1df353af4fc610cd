//! SHA-256 digests of payload bytes and channel strings, and the armed
//! lease a permission preflight grants. Pure: the clock is an argument.

use std::fmt;
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

use crate::channel::Channel;

/// SHA-256 of the exact payload bytes the agent wrote.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PayloadDigest([u8; 32]);

impl PayloadDigest {
    pub fn of(payload: &[u8]) -> Self {
        Self(Sha256::digest(payload).into())
    }

    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Whether `payload` hashes to this digest (a full-length comparison;
    /// timing does not matter here, the digest is not a secret).
    pub fn matches(&self, payload: &[u8]) -> bool {
        Self::of(payload) == *self
    }
}

impl fmt::Display for PayloadDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for PayloadDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PayloadDigest({self})")
    }
}

/// SHA-256 of a channel's string form: what a tombstone keeps instead of
/// the channel itself, so a dead channel's capability is not held in memory.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChannelDigest([u8; 32]);

impl ChannelDigest {
    pub fn of(channel: &Channel) -> Self {
        Self(Sha256::digest(channel.to_string().as_bytes()).into())
    }
}

impl fmt::Debug for ChannelDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChannelDigest({}…)", &hex::encode(self.0)[..8])
    }
}

/// A channel armed by a canonical permission preflight: this digest, until
/// `expires_at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Armed {
    pub digest: PayloadDigest,
    pub expires_at: Instant,
}

/// Result of checking a request's payload against an armed lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmCheck {
    Ok,
    /// The lease ran out (checked first: an expired lease proves nothing).
    Expired,
    DigestMismatch,
}

impl Armed {
    /// Arms `payload` at `now` for `lease` (normally [`crate::limits::ARMED_LEASE`]).
    pub fn arm(payload: &[u8], now: Instant, lease: Duration) -> Self {
        Self {
            digest: PayloadDigest::of(payload),
            expires_at: now + lease,
        }
    }

    /// Valid up to and including `expires_at`, expired after it.
    pub fn check(&self, payload: &[u8], now: Instant) -> ArmCheck {
        if now > self.expires_at {
            ArmCheck::Expired
        } else if self.digest.matches(payload) {
            ArmCheck::Ok
        } else {
            ArmCheck::DigestMismatch
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::ARMED_LEASE;

    #[test]
    fn digest_is_sha256_of_the_exact_bytes() {
        // Known answer: SHA-256("abc").
        assert_eq!(
            PayloadDigest::of(b"abc").to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // Same JSON, other key order: other bytes, other digest.
        let a = PayloadDigest::of(br#"{"a":1,"b":2}"#);
        assert!(!a.matches(br#"{"b":2,"a":1}"#));
        assert!(a.matches(br#"{"a":1,"b":2}"#));
    }

    #[test]
    fn lease_expires_strictly_after_its_instant() {
        let t0 = Instant::now();
        let armed = Armed::arm(b"p", t0, ARMED_LEASE);
        assert_eq!(armed.check(b"p", t0), ArmCheck::Ok);
        assert_eq!(armed.check(b"p", t0 + ARMED_LEASE), ArmCheck::Ok);
        assert_eq!(
            armed.check(b"p", t0 + ARMED_LEASE + Duration::from_nanos(1)),
            ArmCheck::Expired
        );
        assert_eq!(armed.check(b"q", t0), ArmCheck::DigestMismatch);
        assert_eq!(armed.check(b"q", t0 + ARMED_LEASE * 2), ArmCheck::Expired);
    }

    #[test]
    fn channel_digest_differs_per_channel() {
        let a = Channel::parse(&format!("v1.{}.{}", "a".repeat(32), "b".repeat(32))).unwrap();
        let b = Channel::parse(&format!("v1.{}.{}", "a".repeat(32), "c".repeat(32))).unwrap();
        assert_ne!(ChannelDigest::of(&a), ChannelDigest::of(&b));
        assert_eq!(ChannelDigest::of(&a), ChannelDigest::of(&a));
    }
}
