//! Wire shapes of calls the ACP schema crate does not carry
//! (`session/set_model`). The replies the machine reads live in
//! [`crate::machine::replies`].

use agent_client_protocol::v1::schema::SessionId;
use serde::Serialize;

/// Params of `session/set_model`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetModelRequest {
    pub session_id: SessionId,
    pub model_id: String,
}

/// `session/set_model`.
pub const SET_MODEL_METHOD: &str = "session/set_model";
