//! One core for scripted ACP agents: the built-in demo agent and the test agent.

pub mod probe;
