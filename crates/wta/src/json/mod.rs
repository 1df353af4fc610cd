//! The one JSON vocabulary of `wta … --json`: every command's JSON is
//! written through [`crate::output::json`] (or [`crate::output::json_line`]
//! for a stream), which puts [`SCHEMA_VERSION`] first in each top-level
//! object ([`Versioned`]); the objects that name terminal things or agent
//! sessions are the views of [`tmux`] and [`agents`], so the same thing has
//! the same key in every command. Plain data, no I/O.
//!
//! The words, as the tables say them:
//! - `session` is a tmux session id (`$N`, the SESSION column), `tab` a tmux
//!   window id (`@N`, TAB), `pane` a pane id (`%N`, PANE). Ids, never names:
//!   names are `session_name` and `tab_name`. A pane in a role is
//!   `<role>_pane` (`shell_pane`, `agent_pane`, `failed_pane`).
//! - A session's and a tab's attributes carry their prefix wherever they
//!   appear (`tab_index`, `tab_active`); a pane's are plain in a pane's own
//!   object (`index`, `active`, `size`, `pid`).
//! - `agent` is an agent id (`claude`, `custom:NAME`); `session_id` is the
//!   agent's own session id (ACP's, or the CLI's), never a tmux `$N`.
//! - `state` is what a thing is now (a pane `running`/`dead`/`gone`, an agent
//!   session `active`/`idle`/`ended`, shell integration `present`/`absent`).
//!   `status` is only a check's verdict (`wta doctor`'s checks,
//!   `resolve-command`'s sources); `exit_status` is a program's exit code.
//! - Lists are objects too: `{"schema_version": 2, "panes": […]}`.
//!
//! `propose-terminal-actions` is not a `--json` command: it prints the
//! proposal socket's own lines (README, "the socket protocol").

pub mod agents;
pub mod tmux;

use serde::Serialize;

/// The version of this vocabulary, in every top-level object. 2: ids named
/// as the tables name them (`tab`, not `window`), lists wrapped in objects,
/// one set of keys for agent sessions (see CHANGELOG.md).
pub const SCHEMA_VERSION: u32 = 2;

/// `body`'s fields after `"schema_version"`. `body` must serialize as a
/// struct or a map: anything else (a list, a string) is an error, never
/// JSON without its version.
#[derive(Debug, Serialize)]
#[serde(bound = "T: Serialize")]
pub struct Versioned<'a, T: ?Sized> {
    schema_version: u32,
    #[serde(flatten)]
    body: &'a T,
}

impl<'a, T: ?Sized> Versioned<'a, T> {
    pub fn new(body: &'a T) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            body,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[derive(Serialize)]
    struct Body {
        pane: &'static str,
        killed: bool,
    }

    #[test]
    fn the_version_comes_first_then_the_fields_in_order() {
        let text = serde_json::to_string(&Versioned::new(&Body {
            pane: "%1",
            killed: true,
        }))
        .unwrap();
        assert_eq!(text, r#"{"schema_version":2,"pane":"%1","killed":true}"#);
        let map = serde_json::json!({"bindings": "x"});
        assert_eq!(
            serde_json::to_string(&Versioned::new(&map)).unwrap(),
            r#"{"schema_version":2,"bindings":"x"}"#
        );
    }

    #[test]
    fn a_list_or_a_scalar_cannot_go_out_without_its_version() {
        assert!(serde_json::to_string(&Versioned::new(&vec![1, 2])).is_err());
        assert!(serde_json::to_string(&Versioned::new("text")).is_err());
        assert!(serde_json::to_string(&Versioned::new(&serde_json::json!([1]))).is_err());
    }
}
