//! wta-shell: see Cargo.toml description.
