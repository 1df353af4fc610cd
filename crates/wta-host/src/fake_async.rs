//! [`AsyncHost`] on the in-memory [`FakeHost`]: the same world the blocking
//! side models. A pipe is only recorded (its sink argv); a test plays tmux
//! by connecting where the sink would and writing the pane's bytes.

use wta_protocol::PaneId;

use crate::async_host::{check_option_name, check_payload, check_typed_text};
use crate::{
    AsyncHost, FakeHost, HostError, HostFuture, Key, PaneProbe, PrivateKey, TerminalHost, Typing,
};

impl AsyncHost for FakeHost {
    fn probe<'a>(&'a self, pane: &'a PaneId, options: &'a [&'a str]) -> HostFuture<'a, PaneProbe> {
        Box::pin(async move {
            for name in options {
                check_option_name(name)?;
            }
            let info = self.pane(pane)?;
            let values = options
                .iter()
                .map(|name| self.option(pane, name))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(PaneProbe {
                pane: info.id,
                width: info.size.cols,
                pid: info.pid,
                command: info.command,
                dead: info.dead,
                dead_status: info.dead_status,
                in_mode: info.in_mode,
                alternate_screen: info.alternate_screen,
                pipe_open: info.pipe_open,
                options: values,
            })
        })
    }

    fn set_option<'a>(
        &'a self,
        pane: &'a PaneId,
        name: &'a str,
        value: &'a str,
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            check_option_name(name)?;
            TerminalHost::set_option(self, pane, name, value)
        })
    }

    fn unset_option<'a>(&'a self, pane: &'a PaneId, name: &'a str) -> HostFuture<'a, ()> {
        Box::pin(async move {
            check_option_name(name)?;
            TerminalHost::unset_option(self, pane, name)
        })
    }

    fn open_pipe<'a>(
        &'a self,
        pane: &'a PaneId,
        sink: &'a [String],
        owner: (&'a str, &'a str),
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            check_option_name(owner.0)?;
            if sink.is_empty() {
                return Err(HostError::InvalidArgument(
                    "a pipe needs a sink program".into(),
                ));
            }
            self.check_pane(pane)?;
            self.with(|w| {
                w.options
                    .insert((pane.clone(), owner.0.to_owned()), owner.1.to_owned());
                w.pipes.insert(pane.clone(), sink.to_vec());
                if let Some(p) = w.panes.iter_mut().find(|p| &p.id == pane) {
                    p.pipe_open = true;
                }
                w.log.push(format!("open-pipe {pane}"));
            });
            Ok(())
        })
    }

    fn close_pipe<'a>(&'a self, pane: &'a PaneId, owner_option: &'a str) -> HostFuture<'a, ()> {
        Box::pin(async move { TerminalHost::close_pipe(self, pane, owner_option) })
    }

    fn signal<'a>(&'a self, channel: &'a str) -> HostFuture<'a, ()> {
        Box::pin(async move { TerminalHost::signal(self, channel) })
    }

    fn screen<'a>(&'a self, pane: &'a PaneId) -> HostFuture<'a, String> {
        Box::pin(async move { self.capture(pane, None) })
    }

    fn press<'a>(&'a self, pane: &'a PaneId, keys: &'a [Key]) -> HostFuture<'a, ()> {
        Box::pin(async move {
            self.check_pane(pane)?;
            let names: Vec<&str> = keys.iter().map(|k| k.label()).collect();
            self.with(|w| w.log.push(format!("keys {pane} {}", names.join(" "))));
            Ok(())
        })
    }

    fn type_text<'a>(
        &'a self,
        pane: &'a PaneId,
        text: &'a str,
        typing: Typing,
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            check_typed_text(text)?;
            self.check_pane(pane)?;
            self.with(|w| {
                w.typed.push((pane.clone(), text.to_owned()));
                w.log.push(format!(
                    "type {pane} {text:?}{}{}",
                    if typing.clear_line { " clear" } else { "" },
                    if typing.enter { " enter" } else { "" }
                ));
            });
            Ok(())
        })
    }

    fn press_with_payload<'a>(
        &'a self,
        pane: &'a PaneId,
        key: PrivateKey,
        payload: &'a str,
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            check_payload(payload)?;
            self.check_pane(pane)?;
            let label = Key::Private(key).label();
            self.with(|w| w.log.push(format!("keys {pane} {label} {payload}")));
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn pipes_options_and_typing_are_modelled() {
        let host = FakeHost::new();
        let pane = PaneId::from_number(0);
        let sink = vec!["wta".to_owned(), "pipe-sink".into(), "/run/s.sock".into()];
        host.open_pipe(&pane, &sink, ("@wta_pipe", "/run/s.sock"))
            .await
            .unwrap();
        let probe = host.probe(&pane, &["@wta_pipe", "@other"]).await.unwrap();
        assert!(probe.pipe_open);
        assert_eq!((probe.option(0), probe.option(1)), ("/run/s.sock", ""));
        assert_eq!(host.pipe(&pane), Some(sink));
        AsyncHost::close_pipe(&host, &pane, "@wta_pipe")
            .await
            .unwrap();
        assert!(!host.probe(&pane, &[]).await.unwrap().pipe_open);
        let run = Typing {
            clear_line: true,
            enter: true,
        };
        host.type_text(&pane, "ls", run).await.unwrap();
        assert!(host.type_text(&pane, "a\tb", run).await.is_err());
        assert_eq!(host.typed(&pane), ["ls"]);
        let missing = PaneId::from_number(9);
        assert!(matches!(
            host.probe(&missing, &[]).await,
            Err(HostError::PaneNotFound(_))
        ));
    }
}
