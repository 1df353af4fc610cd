//! wta-helper: see Cargo.toml description.
