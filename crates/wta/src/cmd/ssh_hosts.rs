//! Hosts for completing `wta ssh DESTINATION`: the `Host` names of the
//! user's `~/.ssh/config` and the files it `Include`s (one level of
//! includes, globs in their last part), without patterns (`*`, `?`, `!`).
//! Read only when the shell asks for a completion; never fails.

use std::path::{Path, PathBuf};

use clap_complete::CompletionCandidate;

/// Most files read (the config and what it includes).
const MAX_FILES: usize = 32;

/// The hosts named in `text` (one ssh config file), in order, and the
/// files it includes (as written).
pub fn parse(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut hosts, mut includes) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let line = line.trim();
        // `Keyword value…` or `Keyword=value…`, keywords case-insensitive.
        let (keyword, rest) = match line.find(|c: char| c.is_whitespace() || c == '=') {
            Some(at) => (&line[..at], line[at..].trim_start_matches(['=', ' ', '\t'])),
            None => continue,
        };
        let words = rest.split_whitespace().map(|w| w.trim_matches('"'));
        if keyword.eq_ignore_ascii_case("host") {
            hosts.extend(
                words
                    .filter(|w| !w.is_empty() && !w.contains(['*', '?', '!']))
                    .map(str::to_owned),
            );
        } else if keyword.eq_ignore_ascii_case("include") {
            includes.extend(words.map(str::to_owned));
        }
    }
    (hosts, includes)
}

/// The files an `Include` names: relative to `~/.ssh`, `~` expanded, a
/// glob (`*`) allowed in the file name only.
fn included(dir: &Path, home: &Path, pattern: &str) -> Vec<PathBuf> {
    let path = match pattern.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None => dir.join(pattern),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let Some(name) = name.filter(|n| n.contains('*')) else {
        return vec![path];
    };
    let (before, after) = name.split_once('*').unwrap_or((&name, ""));
    let Some(parent) = path.parent() else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(parent)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .map(|n| n.to_string_lossy())
                        .is_some_and(|n| n.starts_with(before) && n.ends_with(after))
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Every host of `~/.ssh/config` (under `home`) and its includes, once each.
pub fn hosts_under(home: &Path) -> Vec<String> {
    let dir = home.join(".ssh");
    let mut files = vec![dir.join("config")];
    let mut hosts: Vec<String> = Vec::new();
    let mut read = 0;
    while let Some(file) = files.pop() {
        read += 1;
        if read > MAX_FILES {
            break;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let (found, includes) = parse(&text);
        for host in found {
            if !hosts.contains(&host) {
                hosts.push(host);
            }
        }
        if file == dir.join("config") {
            for pattern in includes {
                files.extend(included(&dir, home, &pattern));
            }
        }
    }
    hosts
}

/// Completion candidates for `wta ssh`'s words: the user's hosts.
pub fn hosts() -> Vec<CompletionCandidate> {
    let Some(home) = std::env::var_os("HOME") else {
        return Vec::new();
    };
    hosts_under(Path::new(&home))
        .into_iter()
        .map(CompletionCandidate::new)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_includes_are_read_as_ssh_reads_them() {
        let text = "\
# comment
Host build-box db.example.com *.internal !bad
  HostName 10.0.0.2
host=jump
HOST \"quoted\"
Match host foo
Include config.d/* ~/.ssh/extra
";
        let (hosts, includes) = parse(text);
        assert_eq!(hosts, ["build-box", "db.example.com", "jump", "quoted"]);
        assert_eq!(includes, ["config.d/*", "~/.ssh/extra"]);
    }

    #[test]
    fn included_files_add_their_hosts_once() {
        let home = tempfile::tempdir().unwrap();
        let ssh = home.path().join(".ssh");
        std::fs::create_dir_all(ssh.join("config.d")).unwrap();
        std::fs::write(
            ssh.join("config"),
            "Include config.d/*.conf\nHost a b\nInclude ~/.ssh/more\n",
        )
        .unwrap();
        std::fs::write(ssh.join("config.d/1.conf"), "Host c a\n").unwrap();
        std::fs::write(ssh.join("config.d/skip.txt"), "Host nope\n").unwrap();
        std::fs::write(ssh.join("more"), "Host d\n").unwrap();
        let mut hosts = hosts_under(home.path());
        hosts.sort();
        assert_eq!(hosts, ["a", "b", "c", "d"]);
        assert!(hosts_under(&home.path().join("missing")).is_empty());
    }
}
