//! `dancehall coordinator`: serve counting jobs to workers over gRPC, keeping everything in
//! one SQLite file. Loopback only unless another address is asked for with --allow-remote.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::exit::user_error;

#[derive(clap::Args, Debug)]
pub struct CoordinatorArgs {
    /// Address to listen on. Anything but a loopback address needs --allow-remote.
    #[arg(long, default_value = coordinator::config::DEFAULT_LISTEN_ADDR)]
    pub listen: SocketAddr,
    /// Allow listening on a non-loopback address (use TLS on networks you do not trust).
    #[arg(long)]
    pub allow_remote: bool,
    /// The SQLite database (created if missing; jobs in it resume).
    #[arg(long, default_value = "results/dancehall.db")]
    pub db: PathBuf,
    /// File holding the bearer token every client must present (default: $DANCEHALL_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// TLS certificate chain (PEM); with --tls-key, serve TLS.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// How long a lease lasts without a heartbeat; a dead worker's units return to the queue
    /// this long after its last heartbeat.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub lease_seconds: f64,
    /// Connections kept open at most (workers and users); past it new ones wait in the
    /// kernel's backlog until one closes.
    #[arg(long, value_name = "N", default_value_t = coordinator::config::ConnLimits::default().max_connections)]
    pub max_connections: usize,
    /// Hold a unit, never leasing it again, once its runs failed on workers this many times
    /// (an alarm `failed` names it; 0: never hold). A held unit stays queued: restarted with a
    /// higher limit, the coordinator leases it again.
    #[arg(long, value_name = "N", default_value_t = coordinator::scheduler::DEFAULT_FAILURES_LIMIT)]
    pub failures_limit: u32,
    /// Hold a unit, never leasing it again, once its leases ended with their worker's death
    /// this many times: expired (a worker killed, out of memory, preempted, cut off) or, for
    /// `run`'s local workers, ended with the worker process (an alarm `died` names it; 0: never
    /// hold). A unit with a death is leased alone, so that a death is its own. Higher than
    /// --failures-limit: workers also die for reasons of their own.
    #[arg(long, value_name = "N", default_value_t = coordinator::scheduler::DEFAULT_DEATHS_LIMIT)]
    pub deaths_limit: u32,
    /// Refuse a submission larger than this many MiB, summed over a stream's messages as they
    /// arrive: a client cannot make the coordinator hold more of an unfinished submission.
    #[arg(long, value_name = "MIB", default_value_t = coordinator::config::MAX_SUBMISSION_BYTES >> 20,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_submission_mib: u64,
}

pub fn run(args: CoordinatorArgs) -> anyhow::Result<()> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        return Err(user_error(format!(
            "--listen {}: not a loopback address; add --allow-remote to accept workers from \
             other machines (and --tls-cert/--tls-key on a network you do not trust)",
            args.listen
        )));
    }
    if !(args.lease_seconds >= 1.0 && args.lease_seconds.is_finite()) {
        return Err(user_error("--lease-seconds must be at least 1"));
    }
    let token = coordinator::load_token(args.token_file.as_deref())
        .map_err(|e| user_error(e.to_string()))?;
    let mut config = coordinator::Config::new(token);
    config.db_path = args.db.clone();
    config.lease_duration = Duration::from_secs_f64(args.lease_seconds);
    config.heartbeat_interval = config.lease_duration / 4;
    if args.max_connections == 0 {
        return Err(user_error("--max-connections must be at least 1"));
    }
    config.connections.max_connections = args.max_connections;
    config.failures_limit = args.failures_limit;
    config.deaths_limit = args.deaths_limit;
    config.max_submission_bytes = args.max_submission_mib << 20;
    config.tls = match (args.tls_cert, args.tls_key) {
        (Some(cert), Some(key)) => Some(coordinator::TlsConfig { cert, key }),
        _ => None,
    };
    if !args.listen.ip().is_loopback() && config.tls.is_none() {
        eprintln!(
            "warning: listening on {} without TLS: the bearer token and every count travel in \
             clear text; give --tls-cert/--tls-key unless this network is trusted",
            args.listen
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let url = coordinator::server::listen_url(listener.local_addr()?, config.tls.is_some());
        // Refused before it says it listens when another coordinator uses the database.
        let lock = crate::cluster::lock_database(&args.db, Some(&url))?;
        // Tests and scripts read this line to learn the port of `--listen 127.0.0.1:0`.
        eprintln!(
            "dancehall coordinator listening on {url} (database {})",
            args.db.display()
        );
        coordinator::serve_locked(
            listener,
            config,
            lock,
            None,
            super::worker::shutdown_signal(),
        )
        .await
        .context("coordinator")
    })
}
