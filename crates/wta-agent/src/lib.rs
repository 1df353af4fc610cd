//! wta-agent: see Cargo.toml description.
