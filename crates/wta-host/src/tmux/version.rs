//! tmux version parsing (`tmux -V` / `#{version}`): "3.3a", "next-3.5", "master".

use std::fmt;
use std::path::Path;
use std::process::Command;

use crate::HostError;

/// A tmux version as far as WTA cares: major.minor, or a development build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmuxVersion {
    raw: String,
    number: Option<(u32, u32)>,
}

impl TmuxVersion {
    /// Parses "tmux 3.3a", "3.3a", "next-3.5", "openbsd-7.4" or "master".
    pub fn parse(text: &str) -> Self {
        let raw = text
            .trim()
            .strip_prefix("tmux ")
            .unwrap_or(text.trim())
            .to_owned();
        let digits = raw.trim_start_matches(|c: char| !c.is_ascii_digit());
        let mut parts = digits.split(|c: char| !c.is_ascii_digit());
        let major = parts.next().and_then(|p| p.parse().ok());
        let minor = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let number = if raw.starts_with("openbsd") {
            None
        } else {
            major.map(|m| (m, minor))
        };
        Self { raw, number }
    }

    /// tmux ≥ 3.2, or a development build.
    pub fn is_supported(&self) -> bool {
        match self.number {
            Some(n) => n >= (3, 2),
            None => !self.raw.is_empty(),
        }
    }
}

impl fmt::Display for TmuxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.raw.is_empty() {
            "(unknown version)"
        } else {
            &self.raw
        })
    }
}

/// Runs `tmux -V`.
pub fn query(binary: &Path) -> Result<TmuxVersion, HostError> {
    let out = Command::new(binary)
        .arg("-V")
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => HostError::TmuxMissing,
            _ => HostError::Spawn(e),
        })?;
    Ok(TmuxVersion::parse(&String::from_utf8_lossy(&out.stdout)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert!(TmuxVersion::parse("tmux 3.3a\n").is_supported());
        assert!(TmuxVersion::parse("3.2").is_supported());
        assert!(TmuxVersion::parse("next-3.5").is_supported());
        assert!(TmuxVersion::parse("master").is_supported());
        assert!(!TmuxVersion::parse("tmux 3.1c").is_supported());
        assert!(!TmuxVersion::parse("2.9a").is_supported());
        assert!(!TmuxVersion::parse("").is_supported());
        assert_eq!(TmuxVersion::parse("tmux 3.3a").to_string(), "3.3a");
    }
}
