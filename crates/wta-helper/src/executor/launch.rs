//! What a card starts besides keys: a program with its environment, and
//! the delegate agent `open_and_send` with `delegate: true` hands its task to.

/// A program and its extra environment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Launch {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// The delegate agent: `argv`, then its end of options (if it has one),
/// then the task as one more argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelegateLaunch {
    /// Agent id, for the transcript.
    pub agent: String,
    pub launch: Launch,
    /// Put before the task; `None`: a task starting with `-` is refused.
    pub end_of_options: Option<String>,
}

/// Where the delegate agent comes from when a card launches one.
#[derive(Debug, Clone, Default)]
pub enum DelegateSource {
    /// None is configured.
    #[default]
    None,
    /// This one (tests, embedders).
    Fixed(DelegateLaunch),
    /// The config file, read at each launch so an edit applies without
    /// restarting the pane: its `[delegate]` table, else the delegate CLI
    /// `wta delegate` would choose (`wta_agent::delegate::choose`).
    Config(wta_agent::RegistryPaths),
}

impl DelegateSource {
    /// The delegate to launch now with `task` (the full argv, the task in
    /// it as the agent CLI takes it); `Err` says why there is none.
    pub fn launch_for(&self, task: &str) -> Result<DelegateLaunch, String> {
        use wta_agent::delegate;
        match self {
            Self::None => Err(
                "no delegate agent is configured (add a [delegate] table with its argv to ~/.config/wta/config.toml)".into(),
            ),
            Self::Fixed(d) => {
                let mut fixed = d.clone();
                let marker = d.end_of_options.as_deref();
                delegate::append_task(&mut fixed.launch.argv, &d.agent, marker, task)
                    .map_err(|e| e.to_string())?;
                Ok(fixed)
            }
            Self::Config(paths) => {
                let registry = wta_agent::Registry::load(paths.clone())
                    .map_err(|e| format!("cannot read the delegate agent: {e}"))?;
                let choice = delegate::choose(&registry, None).map_err(|e| e.to_string())?;
                match delegate::plan(&choice, task).map_err(|e| e.to_string())? {
                    Some(plan) => Ok(DelegateLaunch {
                        agent: plan.agent,
                        launch: Launch {
                            argv: plan.argv,
                            env: Vec::new(),
                        },
                        // Already in the plan's argv.
                        end_of_options: None,
                    }),
                    None => Err(match &choice {
                        delegate::DelegateChoice::Missing { cli } => format!(
                            "no delegate agent is configured or installed: {}",
                            delegate::missing_notice(cli)
                        ),
                        other => format!("cannot start the delegate agent {}", other.name()),
                    }),
                }
            }
        }
    }
}
