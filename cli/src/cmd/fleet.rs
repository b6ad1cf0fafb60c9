//! A fleet of in-process workers (`worker::run`, one thread each, each with its own gRPC
//! connection) for the benchmarks that load a coordinator (`bench distributed`, `bench load`).

use anyhow::Context;
use tokio::sync::watch;
use tokio::task::JoinSet;

pub struct Fleet {
    stop: watch::Sender<bool>,
    workers: JoinSet<Result<worker::Summary, worker::Error>>,
}

/// Detects what the workers of this process can run (installed solvers), as a worker process
/// does once when it starts; call it before timing a fleet, whose workers share the result.
pub fn detect_capabilities() {
    let _ = worker::bench::available_configs();
}

impl Fleet {
    /// Starts `n` one-thread workers named `{prefix}-{i}` against `url`.
    pub fn start(url: &str, token: &str, n: usize, prefix: &str) -> Fleet {
        let (stop, stop_rx) = watch::channel(false);
        let mut workers = JoinSet::new();
        for i in 0..n {
            let config = worker::Config {
                coordinator: url.to_string(),
                token: token.to_string(),
                threads: 1,
                worker_id: Some(format!("{prefix}-{i}")),
                exit_when_idle: None,
                tls_ca: None,
                allow_commands: false,
            };
            let mut rx = stop_rx.clone();
            workers.spawn(worker::run(config, async move {
                let _ = rx.wait_for(|s| *s).await;
            }));
        }
        Fleet { stop, workers }
    }

    /// Tells every worker to drain and waits for all of them; the first error, if any.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        let _ = self.stop.send(true);
        while let Some(r) = self.workers.join_next().await {
            r.context("a benchmark worker")??;
        }
        Ok(())
    }
}
