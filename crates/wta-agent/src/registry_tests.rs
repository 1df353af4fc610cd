use std::os::unix::fs::PermissionsExt;

use super::*;

struct Fixture {
    _tmp: tempfile::TempDir,
    bin: PathBuf,
    paths: RegistryPaths,
}

fn fixture(config: &str, policy: &str, programs: &[&str]) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for p in programs {
        let path = bin.join(p);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let wta_dir = tmp.path().join("wta-bin");
    std::fs::create_dir_all(&wta_dir).unwrap();
    let config_file = tmp.path().join("config.toml");
    let policy_file = tmp.path().join("policy.toml");
    std::fs::write(&config_file, config).unwrap();
    std::fs::write(&policy_file, policy).unwrap();
    let paths = RegistryPaths {
        config_file,
        policy_file,
        wta_exe: wta_dir.join("wta"),
        path_var: Some(bin.clone().into_os_string()),
    };
    Fixture {
        _tmp: tmp,
        bin,
        paths,
    }
}

fn id(s: &str) -> AgentId {
    AgentId::parse(s).unwrap()
}

#[test]
fn built_ins_resolve_on_path_with_fallback() {
    let f = fixture("", "", &["copilot", "claude-code-acp", "opencode"]);
    let reg = Registry::load(f.paths.clone()).unwrap();
    let copilot = reg.resolve(&id("copilot")).unwrap();
    assert_eq!(copilot.key.argv[1..], ["--acp", "--stdio"]);
    assert_eq!(copilot.key.argv[0], f.bin.join("copilot").to_string_lossy());
    let claude = reg.resolve(&id("claude")).unwrap();
    assert!(
        claude.key.argv[0].ends_with("/claude-code-acp"),
        "fallback used: {:?}",
        claude.key.argv
    );
    assert_eq!(reg.resolve(&id("opencode")).unwrap().key.argv[1..], ["acp"]);
    let err = reg.resolve(&id("codex")).unwrap_err().to_string();
    assert!(
        err.contains("not installed") && err.contains("codex-acp"),
        "{err}"
    );
}

#[test]
fn agent_env_puts_wta_dir_first_and_sets_cli_path() {
    let f = fixture("", "", &["gemini"]);
    let reg = Registry::load(f.paths.clone()).unwrap();
    let spec = reg.resolve(&id("gemini")).unwrap();
    let env: BTreeMap<_, _> = spec.env.into_iter().collect();
    let path = env
        .get(&OsString::from("PATH"))
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let first = path.split(':').next().unwrap();
    assert_eq!(Path::new(first), f.paths.wta_exe.parent().unwrap());
    assert_eq!(
        env.get(&OsString::from("WTA_CLI_PATH")).unwrap(),
        f.paths.wta_exe.as_os_str()
    );
}

#[test]
fn custom_agents_come_from_config_only() {
    let config = r#"
[custom_agents.test]
argv = ["my-agent", "--stdio", "two words"]
env = { FOO = "bar" }
"#;
    let f = fixture(config, "", &["my-agent"]);
    let reg = Registry::load(f.paths).unwrap();
    let spec = reg.resolve(&id("custom:test")).unwrap();
    assert_eq!(spec.key.source, AgentSource::UserConfig);
    assert_eq!(spec.key.argv[1..], ["--stdio", "two words"]);
    assert!(spec.env.contains(&("FOO".into(), "bar".into())));
    let err = reg.resolve(&id("custom:other")).unwrap_err().to_string();
    assert!(err.contains("unknown agent `custom:other`"), "{err}");
}

#[test]
fn allowlist_policy_cannot_be_widened_by_config() {
    let f = fixture(
        "allowed_agents = [\"copilot\", \"gemini\"]",
        "allowed_agents = [\"copilot\", \"demo\"]",
        &["copilot", "gemini"],
    );
    let reg = Registry::load(f.paths).unwrap();
    assert!(reg.resolve(&id("copilot")).is_ok());
    let err = reg.resolve(&id("gemini")).unwrap_err();
    assert!(matches!(err, AgentError::NotAllowed { .. }), "{err}");
    assert!(matches!(
        reg.resolve(&id("demo")).unwrap_err(),
        AgentError::NotAllowed { .. }
    ));
    assert_eq!(reg.default_agent().as_str(), "copilot");
}

#[test]
fn default_agent_prefers_config_then_installed_then_demo() {
    let f = fixture("default_agent = \"gemini\"", "", &["gemini", "copilot"]);
    assert_eq!(
        Registry::load(f.paths).unwrap().default_agent().as_str(),
        "gemini"
    );
    let f = fixture("", "", &["opencode"]);
    assert_eq!(
        Registry::load(f.paths).unwrap().default_agent().as_str(),
        "opencode"
    );
    let f = fixture("", "", &[]);
    let reg = Registry::load(f.paths.clone()).unwrap();
    assert_eq!(reg.default_agent().as_str(), "demo");
    let demo = reg.resolve(&id("demo")).unwrap();
    assert_eq!(
        demo.key.argv,
        [
            f.paths.wta_exe.to_string_lossy().into_owned(),
            DEMO_FLAG.to_owned()
        ]
    );
}

#[test]
fn a_bad_custom_agent_is_reported_and_refused_by_name() {
    let f = fixture("[custom_agents.x]\nargv = []\n", "", &[]);
    let reg = Registry::load(f.paths).unwrap();
    assert_eq!(reg.config_problems().len(), 1);
    assert_eq!(reg.config_problems()[0].line, 2);
    let err = reg.resolve(&id("custom:x")).unwrap_err().to_string();
    assert!(
        err.contains("must name a program") && err.contains("config.toml:2:"),
        "{err}"
    );
    // An unknown key is reported with its line, and has no effect.
    let f = fixture(
        "[custom_agents.x]\nargv = [\"a\"]\ncommand = \"rm -rf /\"\n",
        "",
        &["a"],
    );
    let reg = Registry::load(f.paths).unwrap();
    let problem = &reg.config_problems()[0];
    assert_eq!(
        (problem.line, problem.key.as_str()),
        (3, "custom_agents.x.command")
    );
    let spec = reg.resolve(&id("custom:x")).unwrap();
    assert!(spec.key.argv[0].ends_with("/a") && spec.key.argv.len() == 1);
}

#[test]
fn a_config_that_is_not_toml_is_an_error_that_says_where() {
    let f = fixture("default_agent = \"claude\"\n[custom_agents.x\n", "", &[]);
    let err = Registry::load(f.paths).unwrap_err().to_string();
    assert!(
        err.contains("config.toml is not valid: line 2, column 17: not valid TOML"),
        "{err}"
    );
}

#[test]
fn list_reports_installed_and_allowed() {
    let f = fixture(
        "",
        "allowed_agents = [\"codex\"]",
        &["codex-acp", "copilot"],
    );
    let reg = Registry::load(f.paths).unwrap();
    let list = reg.list();
    let copilot = list.iter().find(|e| e.id == "copilot").unwrap();
    assert!(copilot.installed && !copilot.allowed);
    let codex = list.iter().find(|e| e.id == "codex").unwrap();
    assert!(codex.installed && codex.allowed);
}

proptest::proptest! {
    #[test]
    fn agent_id_parse_accepts_only_text_that_round_trips(text in ".{0,80}") {
        if let Ok(id) = AgentId::parse(&text) {
            proptest::prop_assert_eq!(id.as_str(), text.as_str());
            proptest::prop_assert!(!text.contains(' ') && !text.contains('/'));
        }
    }
}

#[test]
fn yolo_settings_come_from_config_and_policy() {
    let f = fixture("", "", &[]);
    let reg = Registry::load(f.paths.clone()).unwrap();
    assert!(!reg.auto_approve_tools());
    assert_eq!(reg.yolo_policy(), crate::yolo::YoloPolicy::Allowed);

    let f = fixture(
        "auto_approve_tools = true\n",
        "allow_yolo_mode = true\n",
        &[],
    );
    let reg = Registry::load(f.paths.clone()).unwrap();
    assert!(reg.auto_approve_tools());
    assert_eq!(reg.yolo_policy(), crate::yolo::YoloPolicy::Allowed);

    // The user's config cannot loosen the policy.
    let f = fixture(
        "auto_approve_tools = true\n",
        "allow_yolo_mode = false\n",
        &[],
    );
    let reg = Registry::load(f.paths.clone()).unwrap();
    assert_eq!(reg.yolo_policy(), crate::yolo::YoloPolicy::Blocked);
    assert!(!crate::yolo::effective(
        reg.yolo_policy(),
        reg.auto_approve_tools(),
        Some(true)
    ));
}

#[test]
fn delegate_comes_from_the_config() {
    let f = fixture("", "", &[]);
    assert_eq!(Registry::load(f.paths.clone()).unwrap().delegate(), None);
    let f = fixture(
        "[delegate]\nargv = [\"/usr/local/bin/claude\", \"--verbose\"]\n",
        "",
        &[],
    );
    let reg = Registry::load(f.paths.clone()).unwrap();
    let d = reg.delegate().unwrap();
    assert_eq!((d.name.as_str(), d.argv.len()), ("claude", 2));
    let f = fixture(
        "[delegate]\nname = \"Codex\"\nargv = [\"codex\"]\n",
        "",
        &[],
    );
    assert_eq!(
        Registry::load(f.paths.clone())
            .unwrap()
            .delegate()
            .unwrap()
            .name,
        "Codex"
    );
    // No program: no delegate, and the problem names the key.
    let f = fixture("[delegate]\nargv = []\n", "", &[]);
    let reg = Registry::load(f.paths.clone()).unwrap();
    assert_eq!(reg.delegate(), None);
    assert_eq!(reg.config_problems()[0].key, "delegate.argv");
    // An unknown key is reported and ignored; the table applies.
    let f = fixture(
        "[delegate]\nargv = [\"x\"]\ncommand = \"rm -rf /\"\n",
        "",
        &[],
    );
    let reg = Registry::load(f.paths.clone()).unwrap();
    assert_eq!(reg.delegate().unwrap().argv, ["x"]);
    assert_eq!(reg.config_problems()[0].key, "delegate.command");
}
