//! wta-tui: see Cargo.toml description.
