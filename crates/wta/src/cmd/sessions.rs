//! `wta sessions list [--json] [--master-socket PATH]`: the master's live sessions.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use wta_agent::wire::{ClientKind, SESSIONS_TABLE_HEADER};
use wta_helper::connection::{ConnectOptions, MasterConnection};

use super::Ctx;
use crate::output::{self, Table};

#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub command: SessionsCommand,
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List live ACP sessions: agent, session id, owning helper and tab, state.
    List(ListArgs),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The master's socket (default: the one for this tmux server).
    #[arg(long, value_name = "PATH")]
    pub master_socket: Option<PathBuf>,
}

pub fn run(ctx: &Ctx, args: &SessionsArgs) -> anyhow::Result<ExitCode> {
    let SessionsCommand::List(list) = &args.command;
    let socket = list
        .master_socket
        .clone()
        .unwrap_or_else(wta_master::paths::default_socket_path);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let sessions = runtime.block_on(async {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let options = ConnectOptions {
            socket: socket.clone(),
            client: ClientKind::Cli,
            ..ConnectOptions::default()
        };
        // The error already names the socket and its cause: said once.
        let conn = MasterConnection::connect(options, tx).await.map_err(|e| {
            anyhow::anyhow!(
                "{e} (a master starts with the first agent pane: `wta up` or `wta pane open`)"
            )
        })?;
        conn.sessions()
            .await
            .context("the master did not list its sessions")
    })?;
    if ctx.json {
        output::json(&sessions)?;
        return Ok(ExitCode::SUCCESS);
    }
    if sessions.sessions.is_empty() {
        println!("no live sessions");
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::new(&SESSIONS_TABLE_HEADER);
    for s in &sessions.sessions {
        table.row(s.table_cells().to_vec());
    }
    table.print()?;
    Ok(ExitCode::SUCCESS)
}
