//! Ids of agents' ACP session options that WTA recognises.

/// The id of the agent-native "allow all tools" switch (Copilot's shape): a
/// select config option with values `on` and `off`, matched by id, never by
/// category. Yolo drives it; pickers leave it out.
pub const ALLOW_ALL: &str = "allow_all";
