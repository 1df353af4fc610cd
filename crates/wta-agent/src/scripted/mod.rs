//! One core for scripted ACP agents: the built-in demo agent and the test agent.

#[cfg(test)]
pub(crate) mod probe;
