//! WTA wire types: serde only, no I/O, no async runtime.
//!
//! Every type that crosses a process boundary lives here so that each side
//! (CLI, helper, master) agrees on one definition, and golden tests pin it.

pub mod ids;

pub use ids::{IdError, PaneId, SessionId, WindowId};
