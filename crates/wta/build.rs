//! The `--help` translations are compiled in by a macro that cannot tell
//! cargo which files it read: rebuild when anything under `locales/` changes.

fn main() {
    println!("cargo:rerun-if-changed=locales");
}
