//! wta-helper: see Cargo.toml description.

pub mod app;
