//! Reading one table's settings from `~/.config/wta/config.toml`, the same
//! way for every table ([`table`] picks it out of the file's text): a missing file gives the defaults; an unreadable
//! file or a bad table gives the defaults and the message to show the user.

use std::path::Path;

use serde::de::DeserializeOwned;

/// The `[name]` table of a whole config file's `text` as `T`, `T`'s
/// defaults when the file has no such table; the other tables are not
/// looked at (but the file must be TOML).
pub fn table<T: DeserializeOwned + Default>(text: &str, name: &str) -> Result<T, String> {
    let message = |e: toml::de::Error| format!("[{name}] settings: {}", e.message());
    let mut file: toml::Table = toml::from_str(text).map_err(message)?;
    match file.remove(name) {
        Some(value) => value.try_into().map_err(message),
        None => Ok(T::default()),
    }
}

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

    #[derive(Debug, Default, PartialEq, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Knob {
        level: Option<u8>,
    }

    #[test]
    fn one_table_by_name_the_others_unread() {
        assert_eq!(table::<Knob>("", "knob"), Ok(Knob::default()));
        let text = "[other]\nanything = [1, \"x\"]\n[knob]\nlevel = 3\n";
        assert_eq!(table::<Knob>(text, "knob"), Ok(Knob { level: Some(3) }));
        let wrong = table::<Knob>("[knob]\nlevel = \"high\"\n", "knob").unwrap_err();
        assert!(wrong.starts_with("[knob] settings: "), "{wrong}");
        let unknown = table::<Knob>("[knob]\nlevle = 1\n", "knob").unwrap_err();
        assert!(unknown.contains("levle"), "{unknown}");
        let broken = table::<Knob>("[knob\n", "knob").unwrap_err();
        assert!(broken.starts_with("[knob] settings: "), "{broken}");
    }

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
