//! wta-master: see Cargo.toml description.
