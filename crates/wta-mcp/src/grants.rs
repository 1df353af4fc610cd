//! Bearer capabilities for the session MCP endpoint (DESIGN §4.5).
//!
//! Each ACP session gets its own server name and bearer. A grant is
//! *prepared* before `session/new|load` is sent, *bound* to the session
//! when that call succeeds and *discarded* when it fails; it is revoked
//! when its session or its agent instance (the grant's group) dies.
//!
//! Invariants: only the SHA-256 of a bearer is stored; a bearer is never
//! logged or shown by `Debug`/`Display`; lookups compare every stored hash
//! in constant time, so timing says nothing about which byte differed or
//! which grant was close. Binding a second grant to a session replaces the
//! first (a `session/load` replacement keeps the old one until it succeeds).

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use sha2::{Digest, Sha256};

use crate::error::McpError;

/// The session a bearer speaks for: the master's name for one ACP session
/// (unique across agent instances; the master picks the spelling).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct McpSessionId(String);

impl McpSessionId {
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for McpSessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What revokes many grants at once: one agent instance (process), so
/// that every session of a dead agent loses its bearers together.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GrantGroup(String);

impl GrantGroup {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A bearer token: 32 lowercase hex digits from the OS RNG. Shown nowhere
/// except in the `Authorization` header the agent is given.
pub struct Bearer(String);

impl Bearer {
    /// The token itself, for the `Authorization` header of `session/new`.
    /// Never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Bearer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Bearer(<redacted>)")
    }
}

impl fmt::Display for Bearer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// A grant made but not yet bound: its server name and bearer go into
/// `session/new|load`; until [`Grants::bind`] it opens nothing.
#[derive(Debug)]
pub struct PendingGrant {
    server_name: String,
    bearer: Bearer,
}

impl PendingGrant {
    /// `wta_<20 hex>`: a fresh name per session, because some agents cache
    /// an MCP server's configuration by its name.
    pub fn server_name(&self) -> &str {
        &self.server_name
    }

    pub fn bearer(&self) -> &Bearer {
        &self.bearer
    }

    fn hash(&self) -> TokenHash {
        TokenHash::of(self.bearer.expose())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct TokenHash([u8; 32]);

impl TokenHash {
    fn of(token: &str) -> Self {
        Self(Sha256::digest(token.as_bytes()).into())
    }

    /// Compares all 32 bytes whatever they hold.
    fn ct_eq(&self, other: &Self) -> bool {
        let diff = self
            .0
            .iter()
            .zip(other.0.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        std::hint::black_box(diff) == 0
    }
}

struct Bound {
    hash: TokenHash,
    session: McpSessionId,
    group: GrantGroup,
}

/// The registry of bound grants, shared by the master (which binds and
/// revokes) and the endpoint (which authenticates). Cheap to clone.
#[derive(Clone, Default)]
pub struct Grants {
    bound: Arc<Mutex<Vec<Bound>>>,
}

impl fmt::Debug for Grants {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grants")
            .field("bound", &self.table().len())
            .finish()
    }
}

fn random_hex<const N: usize>() -> Result<String, McpError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|err| McpError::Random {
        detail: err.to_string(),
    })?;
    Ok(hex::encode(bytes))
}

impl Grants {
    pub fn new() -> Self {
        Self::default()
    }

    fn table(&self) -> MutexGuard<'_, Vec<Bound>> {
        // A panic while holding the lock cannot leave the table half
        // written (every change is one push or one retain), so a poisoned
        // lock still holds a consistent table.
        self.bound
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A fresh server name and bearer, bound to nothing yet.
    pub fn prepare(&self) -> Result<PendingGrant, McpError> {
        Ok(PendingGrant {
            server_name: format!("wta_{}", random_hex::<10>()?),
            bearer: Bearer(random_hex::<16>()?),
        })
    }

    /// `session/new|load` succeeded: the grant now opens `session`, and
    /// the grants that session held before are revoked.
    pub fn bind(&self, grant: &PendingGrant, session: McpSessionId, group: GrantGroup) {
        let hash = grant.hash();
        let mut table = self.table();
        table.retain(|b| b.session != session && !b.hash.ct_eq(&hash));
        table.push(Bound {
            hash,
            session,
            group,
        });
    }

    /// `session/new|load` failed: the grant is dropped unused.
    pub fn discard(&self, grant: PendingGrant) {
        let hash = grant.hash();
        self.table().retain(|b| !b.hash.ct_eq(&hash));
    }

    /// The session died or was replaced for good.
    pub fn revoke_session(&self, session: &McpSessionId) {
        self.table().retain(|b| &b.session != session);
    }

    /// The agent instance died: every session it had loses its grant.
    pub fn revoke_all_of(&self, group: &GrantGroup) {
        self.table().retain(|b| &b.group != group);
    }

    /// The session a bearer opens, if it is bound. Every stored hash is
    /// compared, in constant time, whichever matches.
    pub fn authenticate(&self, token: &str) -> Option<McpSessionId> {
        let hash = TokenHash::of(token);
        let table = self.table();
        let mut found = None;
        for bound in table.iter() {
            if bound.hash.ct_eq(&hash) {
                found = Some(bound.session.clone());
            }
        }
        found
    }

    /// How many grants are bound (for tests and stats).
    pub fn len(&self) -> usize {
        self.table().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(s: &str) -> McpSessionId {
        McpSessionId::new(s)
    }

    #[test]
    fn prepared_grants_have_the_documented_shape_and_differ() {
        let grants = Grants::new();
        let a = grants.prepare().unwrap();
        let b = grants.prepare().unwrap();
        assert!(a.server_name().starts_with("wta_"));
        assert_eq!(a.server_name().len(), 4 + 20);
        assert_eq!(a.bearer().expose().len(), 32);
        assert!(
            a.bearer()
                .expose()
                .bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(a.bearer().expose(), b.bearer().expose());
        assert_ne!(a.server_name(), b.server_name());
    }

    #[test]
    fn debug_and_display_never_show_the_bearer() {
        let grant = Grants::new().prepare().unwrap();
        let token = grant.bearer().expose().to_owned();
        assert!(!format!("{grant:?}").contains(&token));
        assert!(!format!("{}", grant.bearer()).contains(&token));
        assert!(!format!("{:?}", grant.bearer()).contains(&token));
    }

    #[test]
    fn a_pending_grant_opens_nothing_until_bound() {
        let grants = Grants::new();
        let grant = grants.prepare().unwrap();
        assert_eq!(grants.authenticate(grant.bearer().expose()), None);
        grants.bind(&grant, session("A"), GrantGroup::new("agent-1"));
        assert_eq!(
            grants.authenticate(grant.bearer().expose()),
            Some(session("A"))
        );
        assert_eq!(grants.authenticate("0".repeat(32).as_str()), None);
        assert_eq!(grants.authenticate(""), None);
    }

    #[test]
    fn discard_and_revocations_remove_exactly_their_grants() {
        let grants = Grants::new();
        let g1 = GrantGroup::new("agent-1");
        let g2 = GrantGroup::new("agent-2");
        let a = grants.prepare().unwrap();
        let b = grants.prepare().unwrap();
        let c = grants.prepare().unwrap();
        grants.bind(&a, session("A"), g1.clone());
        grants.bind(&b, session("B"), g1.clone());
        grants.bind(&c, session("C"), g2.clone());
        grants.revoke_session(&session("A"));
        assert_eq!(grants.authenticate(a.bearer().expose()), None);
        assert_eq!(grants.authenticate(b.bearer().expose()), Some(session("B")));
        grants.revoke_all_of(&g1);
        assert_eq!(grants.authenticate(b.bearer().expose()), None);
        assert_eq!(grants.authenticate(c.bearer().expose()), Some(session("C")));
        grants.discard(c);
        assert!(grants.is_empty());
    }

    #[test]
    fn binding_a_replacement_revokes_the_old_grant_only_then() {
        let grants = Grants::new();
        let group = GrantGroup::new("agent-1");
        let old = grants.prepare().unwrap();
        grants.bind(&old, session("A"), group.clone());
        let new = grants.prepare().unwrap();
        // Prepared, not yet bound: the old grant still works.
        assert_eq!(
            grants.authenticate(old.bearer().expose()),
            Some(session("A"))
        );
        grants.bind(&new, session("A"), group);
        assert_eq!(grants.authenticate(old.bearer().expose()), None);
        assert_eq!(
            grants.authenticate(new.bearer().expose()),
            Some(session("A"))
        );
        assert_eq!(grants.len(), 1);
    }
}
