//! The session MCP endpoint (DESIGN §4.5): a stateless Streamable HTTP
//! MCP server on `127.0.0.1:<ephemeral>/mcp` that gives each ACP session
//! its own bearer ([`Grants`]) and serves the session tools
//! (`run_command_in_current_shell`, `create_workspace`,
//! `delegate_task_in_new_workspace`, `get_proposal_result`,
//! `request_user_input`) by calling a [`Backend`] for the authenticated
//! session.
//!
//! How the master uses it:
//! 1. [`Endpoint::bind`] once, with its [`Backend`] and a shared [`Grants`].
//! 2. Per `session/new|load` (when the agent advertises
//!    `mcpCapabilities.http`): [`Grants::prepare`], put
//!    [`Endpoint::mcp_server`] in `mcpServers`; on success
//!    [`Grants::bind`] it to the session and its agent instance
//!    ([`GrantGroup`]), on failure [`Grants::discard`] it.
//! 3. [`Grants::revoke_session`] when a session dies,
//!    [`Grants::revoke_all_of`] when its agent process does.
//!
//! Built on `rmcp` (MCP) and `hyper` (HTTP): this crate writes no JSON-RPC
//! or HTTP parsing of its own, only the checks in front of rmcp.

mod backend;
mod error;
mod grants;
mod guard;
mod pool;
mod results;
mod schema;
mod server;
mod tools;

pub use backend::Backend;
pub use error::McpError;
pub use grants::{Bearer, GrantGroup, Grants, McpSessionId, PendingGrant};
pub use guard::MCP_PATH;
pub use server::{Endpoint, Limits};
