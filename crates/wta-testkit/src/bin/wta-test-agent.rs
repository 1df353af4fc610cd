//! `wta-test-agent`: the scripted ACP test agent on stdin/stdout.
//! Behaviour per prompt text: see `wta_testkit::acp::script`.

use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let result = wta_testkit::acp::serve(
        tokio::io::stdout().compat_write(),
        tokio::io::stdin().compat(),
    )
    .await;
    if let Err(err) = result {
        eprintln!("wta-test-agent: {err}");
        std::process::exit(1);
    }
}
