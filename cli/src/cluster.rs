//! A local cluster: a coordinator in this process on a random loopback port with a fresh
//! token, and local `dancehall worker` processes talking gRPC to it (`run`, `bench
//! distributed`). Local workers die with this process, even when it is killed (-9), and one
//! that dies while work is left is replaced.
//!
//! A local worker that dies is told to the coordinator at once, in-process
//! (`coordinator::server::Control`), with how it ended (a signal such as SIGABRT, SIGKILL or
//! SIGSEGV, or an exit status): its leases end then as deaths with that reason, rather than
//! at their deadline, and a unit that keeps killing its workers is held at the deaths limit
//! (its alarm `died` names the signal), so the job goes on and `run` ends. Replacing a
//! worker whose death ended a lease makes progress (each such death counts towards a unit's
//! limit); replacements after deaths that ended none are bounded ([`IDLE_DEATHS`]).
//!
//! One coordinator per database: [`lock_database`] takes the database's lock before anything
//! starts, so that a second `run` (or `dancehall coordinator`) on a database in use says so
//! and starts nothing.

use std::io::Write as _;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context;
use cores::count::Count;
use indicatif::{ProgressBar, ProgressStyle};
use proto::client::{self, JobsClient};
use proto::v1 as pb;
use tokio::process::{Child, Command};

use crate::remote;
use crate::spec::JobSpec;

/// How long a local worker's lease lasts: short, so that a dead worker's units come back soon.
const LOCAL_LEASE: Duration = Duration::from_secs(6);
/// Local workers that may die holding no lease, per worker, before `run` gives up (they die
/// for reasons of their own, and a replacement would too).
const IDLE_DEATHS: usize = 5;

type ServerTask = tokio::task::JoinHandle<Result<(), coordinator::Error>>;

/// A coordinator in this process on a random loopback port with a fresh token, and local
/// `dancehall worker` processes talking gRPC to it.
pub struct LocalCluster {
    /// Whether the local workers run command templates (`run --allow-commands`).
    pub allow_commands: bool,
    pub url: String,
    pub token: String,
    pub jobs: JobsClient,
    /// Local worker processes to keep running.
    pub workers: usize,
    token_file: tempfile::NamedTempFile,
    children: Vec<Child>,
    /// Replacements of workers whose death ended no lease.
    idle_deaths: usize,
    control: coordinator::server::Control,
    server: ServerTask,
    stop_server: Option<tokio::sync::oneshot::Sender<()>>,
}

/// Takes the lock of database `db` for this process (a coordinator that listens at `url`, or
/// `dancehall migrate` with none); when another coordinator holds it, a user error naming
/// that one (its pid and address).
pub fn lock_database(db: &Path, url: Option<&str>) -> anyhow::Result<coordinator::store::DbLock> {
    use coordinator::store::{self, StoreError};
    store::lock(db, url).map_err(|e| match e {
        e @ StoreError::InUse { .. } => {
            crate::exit::user_error(format!("{e}: use another --db, or wait until it ends"))
        }
        e => anyhow::Error::new(e).context("locking the database"),
    })
}

impl LocalCluster {
    /// Starts the coordinator on `db`; no worker yet. Refused, with nothing started, when
    /// another coordinator uses `db`.
    pub async fn start(db: &Path, workers: usize) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .context("binding a loopback port")?;
        let addr = listener.local_addr()?;
        let url = coordinator::server::listen_url(addr, false);
        let lock = lock_database(db, Some(&url))?;
        let token = coordinator::generate_token();
        // NamedTempFile is created with mode 0600: only this user can read the token.
        let mut token_file = tempfile::Builder::new()
            .prefix("dancehall-token-")
            .tempfile()
            .context("creating the token file")?;
        token_file.write_all(token.as_bytes())?;
        token_file.flush()?;

        let mut config = coordinator::Config::new(token.clone());
        config.db_path = db.to_path_buf();
        config.lease_duration = LOCAL_LEASE;
        config.heartbeat_interval = LOCAL_LEASE / 4;
        // Idle local workers ask again soon, so that a job starts at once after submission.
        config.retry_after = Duration::from_millis(100);
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (control, inbox) = coordinator::server::control();
        let stop = async {
            let _ = stop_rx.await;
        };
        let server = tokio::spawn(coordinator::serve_locked(
            listener,
            config,
            lock,
            Some(inbox),
            stop,
        ));
        let channel = client::connect(&url, None).await?;
        let jobs = client::jobs(channel, &token)?;
        Ok(LocalCluster {
            allow_commands: false,
            url,
            token,
            jobs,
            workers,
            token_file,
            children: Vec::new(),
            idle_deaths: 0,
            control,
            server,
            stop_server: Some(stop_tx),
        })
    }

    /// Submits every job; returns their ids.
    pub async fn submit(&mut self, jobs: &[JobSpec], text: &str) -> anyhow::Result<Vec<u64>> {
        let mut ids = Vec::new();
        for job in jobs {
            let resp = tokio::select! {
                r = remote::submit_count(&mut self.jobs, job, text) => r?,
                r = &mut self.server => return Err(server_ended(r)),
            };
            if !resp.sizing.is_empty() {
                tracing::info!(job = %job.name, "{}", resp.sizing);
            }
            if resp.resumed {
                eprintln!(
                    "job {} ({}) resumed: {} units finished before, {} to go",
                    resp.job_id, job.name, resp.units_skipped, resp.units
                );
            }
            ids.push(resp.job_id);
        }
        Ok(ids)
    }

    fn spawn_worker(&self, index: usize) -> anyhow::Result<Child> {
        let exe = std::env::current_exe().context("finding the dancehall binary")?;
        let mut cmd = Command::new(exe);
        cmd.arg("worker")
            .arg("--coordinator")
            .arg(&self.url)
            .arg("--token-file")
            .arg(self.token_file.path())
            .arg("--threads")
            .arg("1")
            .arg("--worker-id")
            .arg(worker_name(index))
            .arg("--quiet")
            .args(self.allow_commands.then_some("--allow-commands"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .kill_on_drop(true);
        if std::env::var_os("DANCEHALL_LOG").is_none() {
            cmd.env("DANCEHALL_LOG", "error");
        }
        // A local worker dies with this process, even when it is killed (-9): its units come
        // back when their leases expire, and a restarted `run` resumes the job.
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd.spawn().context("starting a local worker")
    }

    /// Starts the local worker processes (one thread each).
    pub fn spawn_workers(&mut self) -> anyhow::Result<()> {
        for i in self.children.len()..self.workers {
            let child = self.spawn_worker(i)?;
            self.children.push(child);
        }
        Ok(())
    }

    /// Status of each job.
    pub async fn status(&mut self, ids: &[u64]) -> anyhow::Result<Vec<pb::JobInfo>> {
        let mut infos = Vec::with_capacity(ids.len());
        for &job_id in ids {
            infos.extend(remote::status(&mut self.jobs, job_id).await?);
        }
        Ok(infos)
    }

    /// Polls the jobs until none is running, drawing progress (when `progress` and stderr is a
    /// terminal) and replacing local workers that die.
    pub async fn wait(&mut self, ids: &[u64], progress: bool) -> anyhow::Result<Vec<pb::JobInfo>> {
        let bar = if progress {
            ProgressBar::new(0)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} units  {msg}  ETA {eta}",
            )
            .expect("a valid template"),
        );
        let started = Instant::now();
        let ctrl_c = tokio::signal::ctrl_c();
        tokio::pin!(ctrl_c);
        let mut units = 0u64;
        loop {
            // Short jobs are noticed done at once; long ones are not polled more than needed:
            // each status walks the job's units (about 0.4 us each, measured on a million
            // units of 12x12 classes cut into parts), so the pause grows with the job, 5 s
            // at a million units, where the coordinator then takes about 8% of a core.
            let pause = if started.elapsed() < Duration::from_secs(2) {
                Duration::from_millis(25)
            } else {
                Duration::from_micros(5 * units)
                    .clamp(Duration::from_millis(250), Duration::from_secs(5))
            };
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                r = &mut self.server => return Err(server_ended(r)),
                _ = &mut ctrl_c => {
                    bar.abandon();
                    anyhow::bail!(
                        "interrupted; the jobs stay in the database: resume them with \
                         `dancehall coordinator --db ...` and workers"
                    );
                }
            }
            // A local worker that died is told to the coordinator first (its leases end as
            // deaths), then replaced.
            if let Err(e) = self.replace_dead_workers(&bar).await {
                bar.abandon();
                return Err(e);
            }
            let infos = self.status(ids).await?;
            let done: u64 = infos.iter().map(|i| i.units_done).sum();
            let total: u64 = infos.iter().map(|i| i.units_total).sum();
            units = total;
            let nodes: u64 = infos.iter().map(|i| i.nodes).sum();
            // Progress only: the totals are read (and a bad one refused) after the wait.
            let solutions: Count = infos
                .iter()
                .filter_map(|i| i.solutions.parse::<Count>().ok())
                .sum();
            bar.set_length(total);
            bar.set_position(done);
            if infos.iter().all(|i| i.kind() == pb::JobKind::Benchmark) {
                let mut statuses: std::collections::BTreeMap<&str, u64> = Default::default();
                for i in &infos {
                    for (k, v) in &i.run_statuses {
                        *statuses.entry(k.as_str()).or_default() += v;
                    }
                }
                let text: Vec<String> = statuses.iter().map(|(k, v)| format!("{k} {v}")).collect();
                bar.set_message(text.join(", "));
            } else {
                let rate = nodes as f64 / started.elapsed().as_secs_f64().max(1e-3);
                bar.set_message(format!("{solutions} solutions, {} nodes/s", si(rate)));
            }
            // Every unit counted and every audit re-run compared (a cancelled job's audits
            // never run), or nothing left but units held after failing.
            if infos.len() == ids.len() && infos.iter().all(remote::settled) {
                bar.finish_and_clear();
                return Ok(infos);
            }
        }
    }

    /// Tells the coordinator of each local worker that has died, with how it ended (its leases
    /// end now as deaths), and starts another in its place. Gives up when workers keep dying
    /// without holding a lease.
    async fn replace_dead_workers(&mut self, bar: &ProgressBar) -> anyhow::Result<()> {
        for i in 0..self.children.len() {
            let pid = self.children[i].id().unwrap_or(0);
            let Some(status) = self.children[i].try_wait()? else {
                continue;
            };
            let name = worker_name(i);
            let why = format!("worker {name} (pid {pid}) {}", exit_reason(status));
            let ended = self
                .control
                .worker_died(&name, &why)
                .await
                .context("telling the coordinator of a dead local worker")?;
            if ended == 0 {
                self.idle_deaths += 1;
                if self.idle_deaths > IDLE_DEATHS * self.workers.max(1) {
                    anyhow::bail!("local workers keep dying (last: {why}); giving up");
                }
            }
            let leases = match ended {
                0 => "it held no lease".to_string(),
                1 => "its lease ended as a death".to_string(),
                n => format!("its {n} leases ended as deaths"),
            };
            bar.suspend(|| eprintln!("local {why}; {leases}; starting another"));
            self.children[i] = self.spawn_worker(i)?;
        }
        Ok(())
    }

    /// Every unit of a job (estimates and measurements).
    pub async fn units(&mut self, job_id: u64) -> anyhow::Result<Vec<pb::UnitInfo>> {
        remote::units(&mut self.jobs, job_id).await
    }

    /// Drains the workers (SIGTERM, then SIGKILL after a grace period) and stops the
    /// coordinator.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        for child in &self.children {
            if let Some(pid) = child.id() {
                // SAFETY: plain kill(2) on a child we spawned and have not reaped.
                unsafe {
                    libc::kill(pid as libc::pid_t, libc::SIGTERM);
                }
            }
        }
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        for child in &mut self.children {
            if tokio::time::timeout_at(deadline, child.wait())
                .await
                .is_err()
            {
                let _ = child.kill().await;
            }
        }
        if let Some(tx) = self.stop_server.take() {
            let _ = tx.send(());
        }
        match tokio::time::timeout(Duration::from_secs(10), &mut self.server).await {
            Ok(r) => flatten(r),
            Err(_) => {
                self.server.abort();
                anyhow::bail!("the coordinator did not stop within 10 s")
            }
        }
    }
}

/// The name local worker `index` registers under (`--worker-id`); its replacements take the
/// same name, after the coordinator was told of its death.
fn worker_name(index: usize) -> String {
    format!("local-{index}")
}

/// How a worker process ended, for its death's alarm: "was killed by signal 6 (SIGABRT)",
/// "exited with status 101".
fn exit_reason(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => {
            let name = match signal {
                libc::SIGABRT => "SIGABRT",
                libc::SIGKILL => "SIGKILL",
                libc::SIGSEGV => "SIGSEGV",
                libc::SIGBUS => "SIGBUS",
                libc::SIGILL => "SIGILL",
                libc::SIGFPE => "SIGFPE",
                libc::SIGTERM => "SIGTERM",
                libc::SIGINT => "SIGINT",
                libc::SIGHUP => "SIGHUP",
                libc::SIGQUIT => "SIGQUIT",
                libc::SIGXCPU => "SIGXCPU",
                _ => return format!("was killed by signal {signal}"),
            };
            format!("was killed by signal {signal} ({name})")
        }
        _ => format!("ended ({status})"),
    }
}

fn flatten(
    r: Result<Result<(), coordinator::Error>, tokio::task::JoinError>,
) -> anyhow::Result<()> {
    r.context("the coordinator task")?
        .context("the coordinator")
}

fn server_ended(
    r: Result<Result<(), coordinator::Error>, tokio::task::JoinError>,
) -> anyhow::Error {
    match flatten(r) {
        Ok(()) => anyhow::anyhow!("the coordinator stopped unexpectedly"),
        Err(e) => e,
    }
}

/// 1234567.0 -> "1.23M".
fn si(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2}G", x / 1e9),
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e3 => format!("{:.1}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}
