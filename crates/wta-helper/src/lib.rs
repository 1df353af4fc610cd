//! wta-helper: see Cargo.toml description.

pub mod connection;
pub mod context;
pub mod driver;
pub mod executor;
pub mod machine;
pub mod proposals;
pub mod runtime;
