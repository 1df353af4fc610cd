//! Reading one table's settings from `~/.config/wta/config.toml`, the same
//! way for every table: a missing file gives the defaults; an unreadable
//! file or a bad table gives the defaults and the message to show the user.

use std::path::Path;

/// `parse`d settings from `config_file`, and a warning when unusable.
pub fn load<T: Default>(
    config_file: &Path,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> (T, Option<String>) {
    match std::fs::read_to_string(config_file) {
        Ok(text) => match parse(&text) {
            Ok(settings) => (settings, None),
            Err(e) => (
                T::default(),
                Some(format!("{}: {e}", config_file.display())),
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (T::default(), None),
        Err(e) => (
            T::default(),
            Some(format!("cannot read {}: {e}", config_file.display())),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_bad_and_good_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let parse = |t: &str| t.trim().parse::<u32>().map_err(|e| e.to_string());
        assert_eq!(load(&file, parse), (0, None));
        std::fs::write(&file, "7").unwrap();
        assert_eq!(load(&file, parse), (7, None));
        std::fs::write(&file, "x").unwrap();
        let (value, warning) = load(&file, parse);
        assert_eq!(value, 0);
        assert!(warning.unwrap().contains("config.toml"));
    }
}
