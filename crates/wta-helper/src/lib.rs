//! wta-helper: see Cargo.toml description.

pub mod app;
pub mod connection;
pub mod driver;
pub mod proposals;
pub mod runtime;
