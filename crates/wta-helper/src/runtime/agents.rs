//! The agents a pane may switch to, read from the local registry (the same
//! config and policy files as the master): every allowed agent, installed
//! or not, with the install line of those that are not. Blocking file
//! reads: call it off the UI task. The pane's start lists them from the
//! config as read once ([`listed`]); before `/agent ID` switches, the
//! registry is read again on purpose ([`known_agents`]), so an agent added
//! or installed since is found.

use wta_agent::{AgentId, Registry, RegistryPaths};

use crate::machine::acp_map as map;
use wta_state::AgentChoice;

/// Every allowed agent, in the registry's order; empty when the registry
/// cannot be read (the master still decides on a switch).
pub fn known_agents() -> Vec<AgentChoice> {
    match RegistryPaths::from_env().and_then(Registry::load) {
        Ok(registry) => choices(&registry),
        Err(err) => {
            tracing::warn!("cannot read the agent registry: {err}");
            Vec::new()
        }
    }
}

/// Every allowed agent of the config as read (`None`: the files' place is
/// unknown, read them now); empty when the registry cannot be made.
pub fn listed(read: Option<&crate::config_file::ConfigRead>) -> Vec<AgentChoice> {
    let Some(read) = read else {
        return known_agents();
    };
    match read.registry() {
        Ok(registry) => choices(&registry),
        Err(err) => {
            tracing::warn!("cannot read the agent registry: {err}");
            Vec::new()
        }
    }
}

fn choices(registry: &Registry) -> Vec<AgentChoice> {
    registry
        .list()
        .into_iter()
        .filter(|a| a.allowed)
        .map(|a| {
            let install = (!a.installed).then(|| install_line(registry, &a.id));
            AgentChoice {
                name: a.id.clone(),
                id: a.id,
                install,
            }
        })
        .collect()
}

/// How to install `id`: the registry's hint (a command line for a built-in,
/// what to fix for a custom agent).
fn install_line(registry: &Registry, id: &str) -> String {
    match AgentId::parse(id).map(|id| registry.resolve(&id)) {
        Ok(Err(err)) => map::install_hint(&err.to_string()),
        // Installed after all (a race with the list) or an id the registry
        // cannot parse: nothing better to say than its id.
        _ => format!("see the install notes for {id}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_agents_are_listed_with_their_install_line() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(
            &config,
            "[custom_agents.mine]\nargv = [\"/nonexistent/agent\"]\n",
        )
        .unwrap();
        let paths = RegistryPaths {
            config_file: config.clone(),
            policy_file: dir.path().join("policy.toml"),
            wta_exe: dir.path().join("wta"),
            // An empty PATH: no built-in agent is installed.
            path_var: Some(dir.path().join("bin").into_os_string()),
        };
        let registry = Registry::load(paths).unwrap();
        let agents = choices(&registry);
        let claude = agents.iter().find(|a| a.id == "claude").unwrap();
        assert_eq!(
            claude.install.as_deref(),
            Some("npm install -g @agentclientprotocol/claude-agent-acp")
        );
        let mine = agents.iter().find(|a| a.id == "custom:mine").unwrap();
        let hint = mine.install.as_deref().unwrap();
        assert!(hint.contains("custom_agents.mine.argv"), "{hint}");
        let demo = agents.iter().find(|a| a.id == "demo").unwrap();
        assert!(demo.installed(), "the demo agent is built into wta");
    }
}
