//! `wta-test-agent`: the scripted ACP test agent on stdin/stdout.
//! Behaviour per prompt text: see `wta_testkit::acp::script`; per argv switch:
//! `wta_testkit::acp::switches` and the options in `wta_testkit::acp`.

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(err) = wta_testkit::acp::switches::run_binary().await {
        eprintln!("wta-test-agent: {err}");
        std::process::exit(1);
    }
}
