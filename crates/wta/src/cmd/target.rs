//! The session a command works in when it runs outside tmux and names none
//! (`new-tab` without `-w`, `delegate` without `-t`, `active-pane`):
//! the one attached last, never WTA's own stash
//! (`TmuxHost::recent_session`). Which one is said on stderr, so `--json`
//! output stays the same; when wta cannot tell, the error says how to name
//! one with the flag the command takes.

use wta_host::{Recency, TmuxHost};
use wta_i18n::tr;
use wta_protocol::TmuxSessionId;

/// How the user names a session to the command asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NameIt {
    /// `-w SESSION` (`new-tab`).
    WindowFlag,
    /// `-t %N`: the tab opens in that pane's session (`delegate`).
    PaneFlag,
    /// No flag: run it in a pane (`active-pane`).
    Inside,
}

/// The session a command outside tmux means; says which on stderr.
pub(super) fn outside_tmux(host: &TmuxHost, name_it: NameIt) -> anyhow::Result<TmuxSessionId> {
    let Some(session) = host.recent_session()? else {
        let how = tr!(match name_it {
            NameIt::WindowFlag => "cli.target.how_window",
            NameIt::PaneFlag => "cli.target.how_pane",
            NameIt::Inside => "cli.target.how_inside",
        });
        anyhow::bail!(tr!("cli.target.none", how = how));
    };
    let key = match session.how {
        Recency::AttachedLast => "cli.target.attached_last",
        Recency::Only => "cli.target.only",
    };
    eprintln!(
        "wta: {}",
        tr!(key, name = session.name, id = session.id.as_str())
    );
    Ok(session.id)
}
