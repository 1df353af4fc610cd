//! A tmux command line built from arguments, safe for arbitrary text.
//!
//! tmux splits commands on an argument that *ends* in `;` (and turns a
//! trailing `\;` into `;`). Every argument added with [`Cmd::arg`] is escaped
//! so that it reaches tmux unchanged; [`Cmd::then`] adds a real separator.

/// One or more tmux commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cmd {
    args: Vec<String>,
    name: String,
}

impl Cmd {
    /// Starts a command line with tmux command `name`.
    pub fn new(name: &str) -> Self {
        Self {
            args: vec![name.to_owned()],
            name: name.to_owned(),
        }
    }

    /// Adds one argument, escaped.
    pub fn arg(mut self, arg: &str) -> Self {
        self.args.push(escape(arg));
        self
    }

    /// Adds several arguments, escaped.
    pub fn args<'a>(mut self, args: impl IntoIterator<Item = &'a str>) -> Self {
        for a in args {
            self.args.push(escape(a));
        }
        self
    }

    /// Chains another tmux command.
    pub fn then(mut self, name: &str) -> Self {
        self.args.push(";".to_owned());
        self.args.push(name.to_owned());
        self
    }

    /// The argv after `tmux [-L|-S …]`.
    pub fn args_slice(&self) -> &[String] {
        &self.args
    }

    pub(crate) fn argv(&self) -> impl Iterator<Item = &str> {
        self.args.iter().map(String::as_str)
    }

    /// The first command's name, for error messages.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Makes tmux's argument parser hand `arg` through unchanged.
fn escape(arg: &str) -> String {
    match arg.strip_suffix(';') {
        // tmux drops the final `;` and then turns a final `\` into `;`.
        Some(head) => format!("{head}\\;"),
        None => arg.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_semicolons_are_escaped_and_separators_are_real() {
        let cmd = Cmd::new("send-keys")
            .arg("echo a;")
            .arg(";")
            .arg("find . -exec rm {} \\;")
            .then("kill-pane");
        assert_eq!(
            cmd.args_slice(),
            [
                "send-keys",
                "echo a\\;",
                "\\;",
                "find . -exec rm {} \\\\;",
                ";",
                "kill-pane"
            ]
        );
    }
}
