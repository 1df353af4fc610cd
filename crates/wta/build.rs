//! The `--help` translations are compiled in by a macro that cannot tell
//! cargo which files it read: rebuild when anything under `locales/` changes.
//!
//! On Linux with glibc the binary is linked with packed relative
//! relocations (DT_RELR, glibc 2.36+): the table the loader walks at every
//! start to fix up the position-independent binary's pointers shrinks from
//! about 700 KiB to a few KiB, so each process (one agent pane's helper is
//! one) maps that much less. A linker that does not know the flag warns and
//! links as before.

fn main() {
    println!("cargo:rerun-if-changed=locales");
    let target = |name: &str| std::env::var(name).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
