//! `dancehall worker`: a stateless worker that leases units from a coordinator until it is
//! stopped (SIGTERM / Ctrl-C: it drains) or idle for `--exit-when-idle` seconds.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::exit::user_error;

#[derive(clap::Args, Debug)]
pub struct WorkerArgs {
    /// The coordinator's URL: http://HOST:PORT, or https://HOST:PORT with --tls-ca.
    #[arg(long, env = "DANCEHALL_COORDINATOR")]
    pub coordinator: String,
    /// File holding the coordinator's bearer token (default: $DANCEHALL_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Units to run at once, one thread each (default: the number of cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// A label for this worker in the coordinator's records.
    #[arg(long, value_name = "ID")]
    pub worker_id: Option<String>,
    /// Exit after this many seconds with nothing to run (the coordinator had no unit).
    #[arg(long, value_name = "SECONDS")]
    pub exit_when_idle: Option<f64>,
    /// CA certificate (PEM) that signed the coordinator's TLS certificate.
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
    /// Run benchmark configurations that are command templates (`[[config]]` with
    /// `engine = "command"` in a submitted spec): arbitrary programs, with this worker's user's
    /// rights. Off by default: without it such runs are recorded `unavailable`, and the
    /// coordinator leases them only to workers that allow them when one is connected.
    #[arg(long)]
    pub allow_commands: bool,
    /// Print no summary line at exit.
    #[arg(long, hide = true)]
    pub quiet: bool,
}

pub fn run(args: WorkerArgs) -> anyhow::Result<()> {
    let token = coordinator::load_token(args.token_file.as_deref())
        .map_err(|e| user_error(e.to_string()))?;
    let threads = match args.threads {
        Some(0) => return Err(user_error("--threads must be at least 1")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let exit_when_idle = match args.exit_when_idle {
        Some(s) if !(s >= 0.0 && s.is_finite()) => {
            return Err(user_error(format!(
                "--exit-when-idle {s}: give seconds >= 0"
            )))
        }
        Some(s) => Some(Duration::from_secs_f64(s)),
        None => None,
    };
    let quiet = args.quiet;
    let config = worker::Config {
        coordinator: args.coordinator,
        token,
        threads,
        worker_id: args.worker_id,
        exit_when_idle,
        tls_ca: args.tls_ca,
        allow_commands: args.allow_commands,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let summary = runtime.block_on(worker::run(config, shutdown_signal()));
    // Every way a worker stops early is something the user can fix (token, URL, version).
    let summary = summary.map_err(|e| user_error(e.to_string()))?;
    tracing::info!(?summary, "worker done");
    if quiet {
        return Ok(());
    }
    eprintln!(
        "dancehall worker {}: {} units run, {} accepted, {} released, {} failed, {} abandoned",
        summary.worker_id,
        summary.units_run,
        summary.accepted,
        summary.released,
        summary.failed,
        summary.abandoned
    );
    Ok(())
}

/// Completes on SIGTERM or SIGINT (Ctrl-C): the signal Slurm, Kubernetes and `dancehall run`
/// send to drain a process.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
