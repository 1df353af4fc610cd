//! The typing-fidelity corpus (issue 11): generated commands full of what
//! tmux or a shell could take apart (`#(…)`, `#{…}`, `#[…]`, `;`, `\;`,
//! quotes, `$(…)`, backticks, `!`, unicode, long lines), and how to make one
//! a single word of a shell. Shared by the local shells' fidelity proptest
//! (`typing_fidelity.rs`) and the one over `wta ssh` (`crates/wta`'s
//! `ssh_fidelity.rs`), so both run the same inputs.

#![allow(dead_code)]

use std::path::Path;

use proptest::prelude::*;
use wta_shell::Shell;

/// Text made of the pieces that tmux or the shell could take apart; a piece
/// that ran would create `sentinel` (or `sentinel.2`).
pub fn tricky(sentinel: &Path) -> impl Strategy<Value = String> {
    let job = format!("#(touch {})", sentinel.display());
    let piece = prop_oneof![
        Just(job),
        Just("#{pane_id}".to_owned()),
        Just("#[fg=red]".to_owned()),
        Just("##".to_owned()),
        Just(";".to_owned()),
        Just("\\;".to_owned()),
        Just("\\".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just(format!("$(touch {}.2)", sentinel.display())),
        Just("`id`".to_owned()),
        Just("!x".to_owned()),
        Just("ünï 日本 ☃".to_owned()),
        Just("-n".to_owned()),
        "[a-z0-9 %~=+,._-]{1,24}",
        "[a-z]{100,200}",
    ];
    prop::collection::vec(piece, 1..6).prop_map(|p| p.concat())
}

/// `text` as one single-quoted word of `shell`.
pub fn quoted(shell: Shell, text: &str) -> String {
    match shell {
        // fish: `\` and `'` are the only escapes inside single quotes.
        Shell::Fish => format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'")),
        _ => format!("'{}'", text.replace('\'', r"'\''")),
    }
}

/// The command a fidelity case runs: `printf` prints `text` back exactly.
pub fn printf_command(shell: Shell, text: &str) -> String {
    format!("printf '%s\\n' {}", quoted(shell, text))
}
