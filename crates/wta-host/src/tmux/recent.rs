//! Which session a command run outside tmux means when it names none: the
//! one attached last, never WTA's own stash (nor a popup's session). tmux's own choice for a
//! command client without a target (its "best" session: the most recently
//! *active*) can be the stash, which every stash and restore makes active,
//! so a new tab would open out of sight.
//!
//! The rule, as a pure function of the listing ([`choose`]): among the
//! sessions that are not the stash, the one with the latest
//! `session_last_attached` (ties: the one tmux lists first); when none was
//! ever attached, the only one if there is exactly one; else none, and the
//! caller asks the user to name one.

use wta_protocol::TmuxSessionId;

use crate::HostError;

/// One session as [`FORMAT`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    pub id: TmuxSessionId,
    /// Seconds since the epoch; `None` for a session never attached.
    pub last_attached: Option<u64>,
    pub name: String,
}

/// The `list-sessions -F` format [`parse`] reads. The name is last: tmux
/// escapes control characters in names, so no separator can be inside it.
pub(crate) const FORMAT: &str = "#{session_id}\x1f#{session_last_attached}\x1f#{session_name}\x1e";

/// Parses `list-sessions -F FORMAT` output.
pub(crate) fn parse(output: &str) -> Result<Vec<Listed>, HostError> {
    output
        .split('\x1e')
        .map(|r| r.strip_prefix('\n').unwrap_or(r))
        .filter(|r| !r.is_empty())
        .map(|record| {
            let mut f = record.splitn(3, '\x1f');
            let (Some(id), Some(attached), Some(name)) = (f.next(), f.next(), f.next()) else {
                return Err(HostError::Parse("a session record is short".into()));
            };
            let last_attached = match attached {
                "" => None,
                n => Some(
                    n.parse()
                        .map_err(|_| HostError::Parse(format!("session_last_attached = {n:?}")))?,
                ),
            };
            Ok(Listed {
                id: TmuxSessionId::parse(id).map_err(|e| HostError::Parse(e.to_string()))?,
                last_attached,
                name: name.to_owned(),
            })
        })
        .collect()
}

/// How [`choose`] picked a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recency {
    /// It is the session attached last.
    AttachedLast,
    /// No session was ever attached and it is the only one.
    Only,
}

/// The session a command without a target means (see the module docs).
pub(crate) fn choose(sessions: &[Listed]) -> Option<(&Listed, Recency)> {
    let mine: Vec<&Listed> = sessions
        .iter()
        .filter(|s| !super::is_private_session(&s.name))
        .collect();
    let mut last: Option<(&Listed, u64)> = None;
    for s in &mine {
        if let Some(t) = s.last_attached
            && last.is_none_or(|(_, best)| t > best)
        {
            last = Some((s, t));
        }
    }
    match (last, mine.as_slice()) {
        (Some((s, _)), _) => Some((s, Recency::AttachedLast)),
        (None, [only]) => Some((only, Recency::Only)),
        (None, _) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::STASH_SESSION;
    use super::*;
    use proptest::prelude::*;

    fn listed(id: u32, attached: Option<u64>, name: &str) -> Listed {
        Listed {
            id: TmuxSessionId::parse(&format!("${id}")).unwrap(),
            last_attached: attached,
            name: name.to_owned(),
        }
    }

    #[test]
    fn never_a_popup_session_attached_later() {
        // A popup's client attaches to its private session after the user's.
        let sessions = [
            listed(0, Some(10), "main"),
            listed(5, Some(20), "_wta_popup_3"),
        ];
        let (chosen, how) = choose(&sessions).unwrap();
        assert_eq!((chosen.name.as_str(), how), ("main", Recency::AttachedLast));
    }

    #[test]
    fn the_session_attached_last_and_never_the_stash() {
        let stash = listed(9, Some(500), STASH_SESSION);
        /// The listing, and the session chosen from it (by number) and why.
        type Row = (Vec<Listed>, Option<(u32, Recency)>);
        let rows: [Row; 7] = [
            (vec![], None),
            (vec![stash.clone()], None),
            (
                vec![listed(0, None, "only"), stash.clone()],
                Some((0, Recency::Only)),
            ),
            (
                vec![listed(0, None, "a"), listed(1, None, "b"), stash.clone()],
                None,
            ),
            (
                vec![
                    listed(0, Some(10), "a"),
                    listed(1, None, "b"),
                    stash.clone(),
                ],
                Some((0, Recency::AttachedLast)),
            ),
            (
                vec![
                    listed(0, Some(10), "a"),
                    stash.clone(),
                    listed(1, Some(20), "b"),
                ],
                Some((1, Recency::AttachedLast)),
            ),
            (
                vec![listed(3, Some(20), "a"), listed(1, Some(20), "b")],
                Some((3, Recency::AttachedLast)),
            ),
        ];
        for (sessions, want) in rows {
            let got = choose(&sessions).map(|(s, how)| (s.id.clone(), how));
            let want =
                want.map(|(id, how)| (TmuxSessionId::parse(&format!("${id}")).unwrap(), how));
            assert_eq!(got, want, "{sessions:?}");
        }
    }

    #[test]
    fn tmux_listings_parse() {
        let out = "$0\x1f\x1fmain\x1e\n$2\x1f1796164779\x1fwe\\037ird ünï\x1e\n";
        assert_eq!(
            parse(out).unwrap(),
            [
                listed(0, None, "main"),
                listed(2, Some(1_796_164_779), "we\\037ird ünï")
            ]
        );
        // tmux escapes control characters in names (`\037`): a raw record
        // end inside one is a broken listing, refused, not a session named
        // with half of it.
        assert!(parse("$0\x1f\x1fha\x1elf\x1e\n").is_err());
        assert!(parse("$0\x1fsoon\x1fx\x1e\n").is_err());
        assert!(parse("$0\x1e\n").is_err());
        assert!(parse("").unwrap().is_empty());
    }

    proptest! {
        /// Whatever the listing: the stash is never chosen; a chosen
        /// session was attached no earlier than any other, or is the only
        /// one; nothing is chosen only when no session was ever attached
        /// and there is not exactly one.
        #[test]
        fn never_the_stash_and_always_the_latest(
            rows in proptest::collection::vec((proptest::option::of(0u64..5), any::<bool>()), 0..6)
        ) {
            let sessions: Vec<Listed> = rows
                .iter()
                .enumerate()
                .map(|(i, (t, stash))| {
                    let name = if *stash { STASH_SESSION.to_owned() } else { format!("s{i}") };
                    listed(u32::try_from(i).unwrap(), *t, &name)
                })
                .collect();
            let mine: Vec<&Listed> = sessions.iter().filter(|s| s.name != STASH_SESSION).collect();
            let latest = mine.iter().filter_map(|s| s.last_attached).max();
            match choose(&sessions) {
                Some((s, Recency::AttachedLast)) => {
                    prop_assert!(s.name != STASH_SESSION);
                    prop_assert_eq!(s.last_attached, latest);
                }
                Some((s, Recency::Only)) => {
                    prop_assert!(s.name != STASH_SESSION);
                    prop_assert_eq!(mine.len(), 1);
                    prop_assert_eq!(latest, None);
                }
                None => prop_assert!(latest.is_none() && mine.len() != 1),
            }
        }

        /// A listing as tmux prints it (names hold no control character:
        /// tmux escapes them) reads back session for session.
        #[test]
        fn listings_read_back_as_printed(
            rows in proptest::collection::vec(
                (0u32..1000, proptest::option::of(any::<u64>()), "[^\\p{Cc}]{0,12}"), 0..5)
        ) {
            let mut out = String::new();
            let mut want = Vec::new();
            for (id, attached, name) in rows {
                let t = attached.map(|t| t.to_string()).unwrap_or_default();
                out.push_str(&format!("${id}\x1f{t}\x1f{name}\x1e\n"));
                want.push(listed(id, attached, &name));
            }
            prop_assert_eq!(parse(&out).unwrap(), want);
        }
    }
}
