//! The answers of the master's calls as the session machine reads them:
//! typed shapes the ACP schema crate does not carry. The `models` state
//! agents still send with `session/new` (the schema's model selection was
//! dropped for config options, but agents such as claude-code-acp answer
//! with it and take `session/set_model`), and tolerant replies for calls
//! whose answer WTA only reads options from. Data only: the connection
//! (`crate::connection`) decodes into them, the machine reads them.

use agent_client_protocol::v1::schema::{NewSessionResponse, SessionConfigOption};
use serde::{Deserialize, Serialize};

/// The `session/new` reply: the schema's response plus `models`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SessionOpened {
    #[serde(flatten)]
    pub response: NewSessionResponse,
    #[serde(default)]
    pub models: Option<ModelState>,
}

impl SessionOpened {
    /// The name of the session MCP server the master gave this session
    /// (`_meta.wta.mcpServer`), if it has one.
    pub fn mcp_server(&self) -> Option<String> {
        let meta = self.response.meta.as_ref()?;
        wta_protocol::helper_master::WtaMeta::from_meta(meta)?.mcp_server
    }
}

/// `models` of a `session/new` reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelState {
    #[serde(default)]
    pub available_models: Vec<ModelInfo>,
    #[serde(default)]
    pub current_model_id: Option<String>,
}

/// One entry of `availableModels`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub model_id: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// A reply read only for its `configOptions` (`session/set_config_option`,
/// `session/set_model`): absent or unreadable options are `None`, since
/// agents answer these with anything from `{}` to the full option list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OptionsReply {
    pub config_options: Option<Vec<SessionConfigOption>>,
}

impl OptionsReply {
    /// Reads `value`'s `configOptions`; never fails.
    pub fn from_value(value: &serde_json::Value) -> Self {
        let config_options = value
            .get("configOptions")
            .cloned()
            .and_then(|v| serde_json::from_value(v).ok());
        Self { config_options }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn session_new_keeps_models_beside_the_schema_fields() {
        let reply = json!({"sessionId": "s1", "models": {"availableModels":
            [{"modelId": "m1", "name": "Model one"}, {"modelId": "m2"}], "currentModelId": "m1"},
            "configOptions": [{"id": "mode", "name": "Mode", "type": "select",
                "currentValue": "a", "options": [{"value": "a", "name": "A"}]}]});
        let opened: SessionOpened = serde_json::from_value(reply).unwrap();
        assert_eq!(&*opened.response.session_id.0, "s1");
        let models = opened.models.unwrap();
        assert_eq!(models.current_model_id.as_deref(), Some("m1"));
        assert_eq!(models.available_models[1].name, None);
        assert_eq!(opened.response.config_options.unwrap().len(), 1);
        let plain: SessionOpened = serde_json::from_value(json!({"sessionId": "s2"})).unwrap();
        assert!(plain.models.is_none());
    }

    #[test]
    fn options_replies_are_read_leniently() {
        assert_eq!(
            OptionsReply::from_value(&json!({})),
            OptionsReply::default()
        );
        assert_eq!(
            OptionsReply::from_value(&json!(null)),
            OptionsReply::default()
        );
        let bad = OptionsReply::from_value(&json!({"configOptions": "nope"}));
        assert!(bad.config_options.is_none());
        let good = OptionsReply::from_value(&json!({"configOptions": []}));
        assert_eq!(good.config_options, Some(Vec::new()));
    }
}
