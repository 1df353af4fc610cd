//! What an agent line is, as far as the relay's routing needs to know
//! (a trust boundary: agent output): parsed only as far as `jsonrpc`,
//! `method`, `id` and `params.sessionId`, the rest checked to be JSON and
//! skipped, never built into a value.

use std::borrow::Cow;

use serde::Deserializer;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};

/// What an agent line is, as far as routing needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Peek<'a> {
    /// A well-formed `session/update` notification for this session id.
    Update(Cow<'a, str>),
    /// Anything else: the ACP connection handles it.
    Other,
}

/// Classifies one line (without its newline). Never fails: whatever is not
/// plainly a `session/update` notification is [`Peek::Other`]. Objects only
/// (serde would take a struct from an array too), each member at most once.
pub(crate) fn peek(line: &str) -> Peek<'_> {
    let mut de = serde_json::Deserializer::from_str(line);
    match de.deserialize_map(EnvelopeVisitor) {
        Ok(Some(session)) if de.end().is_ok() => Peek::Update(session),
        _ => Peek::Other,
    }
}

/// The top level of a line: `Some(session id)` for a plain update.
struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut jsonrpc, mut method, mut session) = (None, None, None);
        let mut params = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let fresh = match &*key {
                "jsonrpc" => jsonrpc
                    .replace(map.next_value::<Cow<'de, str>>()?)
                    .is_none(),
                "method" => method.replace(map.next_value::<Cow<'de, str>>()?).is_none(),
                "params" => {
                    session = map.next_value_seed(ParamsVisitor)?;
                    !std::mem::replace(&mut params, true)
                }
                // `id` (a request) or anything else: not ours to copy.
                _ => false,
            };
            if !fresh {
                return Err(serde::de::Error::custom("not a plain notification"));
            }
        }
        let plain =
            jsonrpc.as_deref() == Some("2.0") && method.as_deref() == Some("session/update");
        Ok(session.filter(|_| plain))
    }
}

/// `params`: an object; `Some(sessionId)` when it has exactly one string one.
struct ParamsVisitor;

impl<'de> DeserializeSeed<'de> for ParamsVisitor {
    type Value = Option<Cow<'de, str>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut session = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "sessionId" {
                if session.is_some() {
                    return Err(serde::de::Error::custom("two session ids"));
                }
                session = Some(map.next_value::<Cow<'de, str>>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(session)
    }
}
