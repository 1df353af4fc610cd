//! wta-host: see Cargo.toml description.
