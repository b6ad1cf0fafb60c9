//! One worker's life against one coordinator: register, then lease, run, heartbeat and report
//! until told to stop or idle for long enough.
//!
//! Invariants:
//! - CPU work never runs on the async runtime: each unit runs in `spawn_blocking`.
//! - A finished result stays in the [`Outbox`] until the coordinator answers its report (any
//!   verdict); transport failures are retried with back-off, so a coordinator restart loses
//!   no finished work.
//! - A unit whose lease the coordinator declares invalid (heartbeat) is stopped and its result
//!   dropped: someone else owns that unit now.
//! - On shutdown the worker leases nothing more, stops its running units (each hands back its
//!   unexplored subtrees with the part it finished, or is released when it had not started;
//!   a unit of the Sudoku core, which cannot hand back subtrees, is released whole), reports,
//!   and returns; after [`DRAIN_LIMIT`] it returns anyway (leases then expire).
//! - Batches: the worker talks to the coordinator through `Exchange`, which delivers the
//!   finished results and leases more in one call (one transaction on the coordinator). While
//!   units run, a result waits up to [`REPORT_DELAY`] to share a call with others; leases are
//!   asked for when a thread is free or the reserve is down to half its target.
//! - Prefetch: while it runs only counting units, a worker holds leased units in reserve
//!   beyond its threads, about a quarter second of work by the average unit so far (one when
//!   units are long, up to [`MAX_RESERVE`] when they are trivial: [`reserve_target`]), and
//!   starts one the moment a thread is free, so the round trip hides behind running units.
//!   When units turn out longer than the first ones, a reserve above twice its new target is
//!   handed back down to it ([`reserve_excess`]), so that idle workers count those units.
//!   A benchmark unit is never held in reserve: leased without a free thread, it is released
//!   at once for another worker. Reserved units are heartbeated like running ones and
//!   released on shutdown; a worker killed outright costs the units it held (running and
//!   reserved), which return to the queue when their leases expire.
//! - Capabilities: the worker registers with the benchmark configurations its machine can
//!   run, its memory and CPUs; the coordinator routes benchmark units accordingly.
//! - A counting job's units are counted with the core its `GetJob` names (DLX unless it says
//!   `COUNT_CORE_SUDOKU_BANDS`), and each report names the core that counted it.
//! - A run that fails is never handed back as if unrun: a counting unit whose count fails (an
//!   error or a panic) is released as failed, with why (the coordinator holds a unit that
//!   fails too often); a benchmark run that panics is an `error` record, reported like any.

use cores::label::Label;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cores::bench::FileKind;
use cores::count::Count;
use cores::count_core::CoreSpec;
use cores::xcc::{parse_dlx, Problem};
use proto::v1::{self as pb, ReportVerdict};
use tokio::task::JoinSet;
use tokio::time::{sleep_until, Instant};
use tracing::{debug, info, warn};

use crate::backoff::Backoff;
use crate::bench::{failed, run_caught, Family, RunLimits, RunRecord};
use crate::outbox::Outbox;
use crate::unit::{run_core_unit, run_term_unit, run_unit, UnitRun, UnitWork};
use crate::{Config, Error, Summary};
use cores::unit_term::UnitTerm;
use proto::client::{self, disposition, header, Disposition, WorkerClient};
use proto::core::{core_spec, count_core_pb};

/// How long a draining worker keeps trying to report before it gives up.
pub const DRAIN_LIMIT: Duration = Duration::from_secs(90);
/// Jobs whose problems or models are kept in memory.
const JOB_CACHE: usize = 8;
/// Ask again for work at least this often when the coordinator had none.
const MAX_LEASE_WAIT: Duration = Duration::from_secs(5);
/// The reserve of leased counting units holds about this much work (by the average unit).
const RESERVE_SECONDS: f64 = 0.25;
/// At most this many units in reserve.
const MAX_RESERVE: usize = 32;
/// While units run, a finished result waits up to this long to share a call with others.
const REPORT_DELAY: Duration = Duration::from_millis(50);
/// Reports per `Exchange` call at most.
const MAX_REPORTS_PER_CALL: usize = 256;

/// A unit being run on a blocking thread.
struct Running {
    unit_id: u64,
    prefix: Vec<u32>,
    estimate_nodes: f64,
    stop: Arc<AtomicBool>,
    /// The coordinator said the lease is gone: drop the result.
    abandoned: bool,
    /// A benchmark run (no prefetch while one runs).
    bench: bool,
}

/// What a unit's thread produced: a count, a benchmark run's record, or nothing (a count
/// of the Sudoku core stopped by the shutdown).
enum Done {
    Count(UnitRun),
    Bench(Box<RunRecord>),
    Stopped,
}

type UnitDone = (String, Result<Done, String>);

/// A task's wall-time limit as the worker applies it: within the protocol's bounds (NaN and
/// out-of-range values, which a current coordinator refuses, are clamped).
fn wall_limit(seconds: f64) -> f64 {
    if seconds.is_nan() {
        return proto::limits::MAX_TIME_LIMIT_SECONDS;
    }
    seconds.clamp(0.001, proto::limits::MAX_TIME_LIMIT_SECONDS)
}

/// What a job's units need, cached per job.
#[derive(Clone)]
enum JobData {
    /// A counting job's problem and the core to count its units with.
    Count(Arc<Problem>, CoreSpec),
    /// A benchmark job's frozen model files and configuration definitions, or why they
    /// cannot be read ([`frozen_models`]).
    Bench(Result<Arc<crate::bench::Frozen>, String>),
}

struct Session<S> {
    client: WorkerClient,
    config: Config,
    host: String,
    worker_id: u64,
    heartbeat_every: Duration,
    running: HashMap<String, Running>,
    /// Leased counting units waiting for a free thread (prefetch).
    reserve: VecDeque<pb::Unit>,
    tasks: JoinSet<UnitDone>,
    outbox: Outbox<String, pb::UnitReport>,
    /// What this machine can run, sent when registering.
    capabilities: pb::Capabilities,
    /// Moving average of a counting unit's wall time (seconds; 0 before the first one): sets
    /// the depth of the reserve.
    unit_seconds: f64,
    jobs: Vec<(u64, JobData)>,
    lease_backoff: Backoff,
    next_lease: Instant,
    next_heartbeat: Instant,
    /// Since when the worker has held nothing and found nothing to lease.
    idle_since: Option<Instant>,
    /// Set once shutdown was asked for: the time after which the worker gives up.
    drain_deadline: Option<Instant>,
    summary: Summary,
    shutdown: S,
}

/// Runs a worker until `shutdown` completes (then drains) or it has been idle for
/// `config.exit_when_idle`. Errors only when the coordinator refuses the worker (token,
/// protocol version) or the configuration is unusable.
pub async fn run(config: Config, shutdown: impl Future<Output = ()>) -> Result<Summary, Error> {
    if config.threads == 0 {
        return Err(Error::NoThreads);
    }
    // Lazily connected: a worker may start before its coordinator is up (the first calls
    // fail with UNAVAILABLE and are retried).
    let channel = client::endpoint(&config.coordinator, config.tls_ca.as_deref())?
        .timeout(Duration::from_secs(60))
        .connect_lazy();
    let client = client::worker(channel, &config.token)?;
    let host = hostname::get()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
        ^ u64::from(std::process::id()).rotate_left(32);
    let now = Instant::now();
    let capabilities = capabilities(config.allow_commands).await;
    let mut session = Session {
        client,
        config,
        host,
        worker_id: 0,
        heartbeat_every: Duration::from_secs(10),
        running: HashMap::new(),
        reserve: VecDeque::new(),
        tasks: JoinSet::new(),
        outbox: Outbox::new(seed),
        capabilities,
        unit_seconds: 0.0,
        jobs: Vec::new(),
        lease_backoff: Backoff::for_worker(seed.rotate_left(7)),
        next_lease: now,
        next_heartbeat: now,
        idle_since: None,
        drain_deadline: None,
        summary: Summary::default(),
        shutdown: Box::pin(shutdown),
    };
    session.main().await
}

/// Counting units to hold in reserve beyond the threads: about [`RESERVE_SECONDS`] of work for
/// the whole worker by the average unit so far (`unit_seconds`, 0 before the first: then one),
/// at least one, at most [`MAX_RESERVE`]; none while a benchmark unit runs (a benchmark unit is
/// never held back from a worker that could start it now).
fn reserve_target(threads: usize, unit_seconds: f64, bench_running: bool) -> usize {
    if bench_running {
        return 0;
    }
    if unit_seconds <= 0.0 {
        return 1;
    }
    let n = (threads as f64 * RESERVE_SECONDS / unit_seconds).ceil();
    (n as usize).clamp(1, MAX_RESERVE)
}

/// How many of a reserve of `held` units to hand back when its target is now `target`: the
/// units beyond the target once the reserve holds more than twice it (the target falls when
/// units turn out longer than the first ones: a 12x12 two-band job's first class counts in
/// microseconds a unit, its next in minutes, and a reserve of 20 such units would keep them
/// from idle workers for hours); none otherwise, so that a target moving a little does not
/// churn leases (the reserve is refilled below half the target).
fn reserve_excess(held: usize, target: usize) -> usize {
    if held > 2 * target {
        held - target
    } else {
        0
    }
}

/// A task's family as the wire names it (empty: domino, as before families were named).
fn family(name: &str) -> Result<crate::bench::Family, String> {
    match name {
        "" => Ok(crate::bench::Family::Domino),
        f => crate::bench::Family::parse(f)
            .ok_or_else(|| format!("unknown benchmark family {f:?} (known: domino, sudoku)")),
    }
}

/// A benchmark job's frozen model files and configuration definitions by name, from its
/// files as `GetJob` sends them. A file of a kind this worker does not know (from a newer
/// coordinator) is an error naming it, never left out: it may be a model that a run needs.
fn frozen_models(files: Vec<pb::FrozenFile>) -> Result<crate::bench::Frozen, String> {
    let mut frozen = crate::bench::Frozen::default();
    for f in files {
        match FileKind::parse(&f.kind) {
            Some(FileKind::Model) => {
                frozen.models.insert(f.name, f.text);
            }
            Some(FileKind::Config) => {
                frozen.configs.insert(f.name, f.text);
            }
            Some(FileKind::Batch) => {}
            None => {
                return Err(format!(
                    "frozen file {}: unknown kind {:?} (known: {})",
                    f.name,
                    f.kind,
                    FileKind::ALL
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
    }
    Ok(frozen)
}

/// What this machine can run: the benchmark configurations whose solvers are installed
/// (detected once per process, off the async threads), its memory and CPUs.
async fn capabilities(allow_commands: bool) -> pb::Capabilities {
    let configs = tokio::task::spawn_blocking(move || {
        let mut c = crate::bench::available_configs();
        c.extend(crate::bench::engine_capabilities(allow_commands));
        c
    })
    .await
    .unwrap_or_default();
    let host = crate::bench::host::current();
    pb::Capabilities {
        bench_configs: configs,
        memory_bytes: host.memory_bytes,
        cpus: host.cores,
    }
}

impl<S: Future<Output = ()> + Unpin> Session<S> {
    async fn main(&mut self) -> Result<Summary, Error> {
        if !self.register().await? {
            return Ok(self.summary.clone());
        }
        loop {
            if self.drain_deadline.is_some() && !self.reserve.is_empty() {
                let tokens = self.reserve.drain(..).map(|u| u.lease_token).collect();
                self.release(tokens).await;
            }
            while self.running.len() < self.config.threads {
                let Some(unit) = self.reserve.pop_front() else {
                    break;
                };
                self.start(unit).await?;
            }
            // Units that turned out long: the newest of the reserve go back to the queue.
            let excess = reserve_excess(self.reserve.len(), self.reserve_target());
            if excess > 0 {
                let keep = self.reserve.len() - excess;
                let tokens = self
                    .reserve
                    .split_off(keep)
                    .into_iter()
                    .map(|u| u.lease_token)
                    .collect();
                debug!("handing back {excess} reserved units: the units got longer");
                self.release(tokens).await;
            }
            // Reports go out in the same call as the lease: a finished unit's lease ends
            // before another begins.
            self.exchange().await?;
            if !self.lease_wanted() {
                self.idle_since = None;
            }
            if Instant::now() >= self.next_heartbeat {
                self.heartbeat().await?;
            }

            let holding =
                !self.running.is_empty() || !self.outbox.is_empty() || !self.reserve.is_empty();
            if let Some(deadline) = self.drain_deadline {
                if !holding {
                    break;
                }
                if Instant::now() >= deadline {
                    warn!(
                        "gave up draining after {DRAIN_LIMIT:?}: {} results unreported",
                        self.outbox.len()
                    );
                    self.summary.unreported = self.outbox.len() as u64;
                    break;
                }
            }
            if let (Some(limit), Some(since)) = (self.config.exit_when_idle, self.idle_since) {
                if !holding && Instant::now() >= since + limit {
                    info!("idle for {limit:?}: exiting");
                    break;
                }
            }

            let wake = self.next_wake();
            let draining = self.drain_deadline.is_some();
            tokio::select! {
                _ = &mut self.shutdown, if !draining => self.start_drain(),
                Some(done) = self.tasks.join_next(), if !self.tasks.is_empty() => {
                    match done {
                        Ok((token, result)) => self.finished(token, result).await,
                        Err(e) => warn!("a unit's thread failed: {e}"),
                    }
                }
                _ = sleep_until(wake) => {}
            }
        }
        // Nothing we still hold will be reported: hand the leases back so that others can
        // take the units at once instead of after the lease expires.
        let leftover: Vec<String> = self.outbox.keys().cloned().collect();
        if !leftover.is_empty() {
            self.release(leftover).await;
        }
        Ok(self.summary.clone())
    }

    /// The earliest moment something is due.
    fn next_wake(&self) -> Instant {
        let mut wake = Instant::now() + Duration::from_secs(60);
        if self.lease_wanted() {
            wake = wake.min(self.next_lease);
        }
        if !self.running.is_empty() || !self.outbox.is_empty() || !self.reserve.is_empty() {
            wake = wake.min(self.next_heartbeat);
        }
        if let Some(due) = self.outbox.next_due() {
            let due = Instant::from_std(due);
            let batched = !self.running.is_empty() && self.drain_deadline.is_none();
            wake = wake.min(if batched { due + REPORT_DELAY } else { due });
        }
        if let (Some(limit), Some(since)) = (self.config.exit_when_idle, self.idle_since) {
            wake = wake.min(since + limit);
        }
        if let Some(deadline) = self.drain_deadline {
            wake = wake.min(deadline);
        }
        wake
    }

    fn start_drain(&mut self) {
        info!(
            "shutting down: stopping {} running units and reporting",
            self.running.len()
        );
        self.drain_deadline = Some(Instant::now() + DRAIN_LIMIT);
        for r in self.running.values() {
            r.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Registers (again), retrying while the coordinator is away. Returns false when shutdown
    /// came first.
    async fn register(&mut self) -> Result<bool, Error> {
        let mut backoff = Backoff::for_worker(std::process::id() as u64);
        loop {
            let req = pb::RegisterRequest {
                header: header(),
                host: self.host.clone(),
                name: self.config.worker_id.clone().unwrap_or_default(),
                threads: self.config.threads as u32,
                software_version: env!("CARGO_PKG_VERSION").to_string(),
                capabilities: Some(self.capabilities.clone()),
            };
            let attempt = tokio::select! {
                r = self.client.register(req) => r,
                _ = &mut self.shutdown, if self.drain_deadline.is_none() => return Ok(false),
            };
            match attempt {
                Ok(resp) => {
                    let resp = resp.into_inner();
                    self.worker_id = resp.worker_id;
                    self.summary.worker_id = resp.worker_id;
                    if resp.heartbeat_interval_ms > 0 {
                        self.heartbeat_every = Duration::from_millis(resp.heartbeat_interval_ms);
                    }
                    info!(
                        worker_id = resp.worker_id,
                        "registered; heartbeat every {:?}", self.heartbeat_every
                    );
                    return Ok(true);
                }
                Err(status) => match disposition(&status) {
                    Disposition::Fatal => return Err(Error::Refused(status)),
                    _ => {
                        let delay = backoff.next_delay();
                        debug!("register failed ({status}); retrying in {delay:?}");
                        if backoff.failures() == 3 {
                            warn!(
                                "cannot reach the coordinator at {} ({}); still trying",
                                self.config.coordinator,
                                status.message()
                            );
                        }
                        tokio::select! {
                            _ = tokio::time::sleep(delay) => {}
                            _ = &mut self.shutdown, if self.drain_deadline.is_none() => return Ok(false),
                        }
                    }
                },
            }
        }
    }

    /// Handles a failed call shared by all RPCs: returns Err for a fatal one.
    async fn on_failure(&mut self, what: &str, status: &tonic::Status) -> Result<(), Error> {
        match disposition(status) {
            Disposition::Fatal => Err(Error::Refused(status.clone())),
            Disposition::Register => {
                info!("{what}: the coordinator does not know this worker; registering again");
                self.register().await.map(|_| ())
            }
            Disposition::Retry | Disposition::Drop => {
                debug!("{what} failed: {status}");
                Ok(())
            }
        }
    }

    fn reserve_target(&self) -> usize {
        let bench = self.running.values().any(|r| r.bench);
        reserve_target(self.config.threads, self.unit_seconds, bench)
    }

    /// Units to lease now: a free thread each, and the reserve filled up to its target.
    fn wanted(&self) -> usize {
        (self.config.threads + self.reserve_target())
            .saturating_sub(self.running.len() + self.reserve.len())
    }

    /// Whether to lease once the back-off allows: not draining, and a thread is free or the
    /// reserve is down to half its target (so that leases come in batches).
    fn lease_wanted(&self) -> bool {
        self.drain_deadline.is_none()
            && self.wanted() > 0
            && (self.running.len() < self.config.threads
                || self.reserve.len() * 2 <= self.reserve_target())
    }

    fn lease_due(&self, now: Instant) -> bool {
        self.lease_wanted() && now >= self.next_lease
    }

    /// A leased unit: started on a free thread, kept in reserve (a counting unit), or handed
    /// back (a benchmark unit with no thread free).
    async fn place(&mut self, unit: pb::Unit) -> Result<(), Error> {
        if self.running.len() < self.config.threads {
            self.start(unit).await
        } else if unit.bench.is_none() {
            self.reserve.push_back(unit);
            Ok(())
        } else {
            self.release(vec![unit.lease_token]).await;
            Ok(())
        }
    }

    /// What a job's units need (its problem, or its frozen models), from the cache or the
    /// coordinator (one `GetJob` per job and worker).
    async fn job(&mut self, job_id: u64) -> Result<JobData, String> {
        if let Some((_, d)) = self.jobs.iter().find(|(j, _)| *j == job_id) {
            return Ok(d.clone());
        }
        let req = pb::GetJobRequest {
            header: header(),
            job_id,
        };
        let job = self
            .client
            .get_job(req)
            .await
            .map_err(|s| format!("GetJob({job_id}): {s}"))?
            .into_inner();
        let data = if job.kind() == pb::JobKind::Benchmark {
            JobData::Bench(
                frozen_models(job.files)
                    .map(Arc::new)
                    .map_err(|e| format!("job {job_id}: {e}")),
            )
        } else {
            let core = core_spec(job.core.as_ref()).map_err(|e| format!("job {job_id}: {e}"))?;
            let problem = tokio::task::spawn_blocking(move || parse_dlx(&job.dlx))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| format!("job {job_id}'s DLX text: {e}"))?;
            JobData::Count(Arc::new(problem), core)
        };
        if self.jobs.len() >= JOB_CACHE {
            self.jobs.remove(0);
        }
        self.jobs.push((job_id, data.clone()));
        Ok(data)
    }

    /// Starts a benchmark unit: one solver run on a blocking thread.
    async fn start_bench(&mut self, unit: pb::Unit, task: pb::BenchTask) -> Result<(), Error> {
        let got = self.job(unit.job_id).await.and_then(|d| match d {
            JobData::Bench(m) => Ok(m),
            JobData::Count(..) => Err("a benchmark unit of a counting job".to_string()),
        });
        let models = match got {
            Ok(m) => m,
            Err(e) => {
                warn!("unit {}: cannot load its job: {e}", unit.unit_id);
                self.release(vec![unit.lease_token]).await;
                return Ok(());
            }
        };
        let stop = Arc::new(AtomicBool::new(self.drain_deadline.is_some()));
        let limits = RunLimits {
            memory: (task.memory_limit_bytes > 0).then_some(task.memory_limit_bytes),
            stop: Some(stop.clone()),
            allow_commands: self.config.allow_commands,
            // Clamped: a limit past the bounds (an old coordinator did not check) must not
            // panic the worker.
            ..RunLimits::with_wall(Duration::from_secs_f64(wall_limit(task.time_limit_seconds)))
        };
        debug!(
            unit = unit.unit_id,
            "running {} on {}", task.config, task.instance_id
        );
        let token = unit.lease_token.clone();
        self.tasks.spawn_blocking(move || {
            // A run that cannot start (its family or a kind of its job's files unknown here),
            // or that panics, is an `error` record, not a released unit: it would fail the
            // same way on every worker like this one.
            let (id, config) = (&task.instance_id, &task.config);
            let record = match (family(&task.family), models) {
                (Ok(family), Ok(models)) => run_caught(family, id, config, &limits, || {
                    crate::bench::run_task(
                        family,
                        id,
                        &task.instance_json,
                        config,
                        &limits,
                        &models,
                    )
                }),
                (Ok(family), Err(why)) => failed(family, id, config, &limits, why),
                (Err(why), _) => failed(Family::default(), id, config, &limits, why),
            };
            (token, Ok(Done::Bench(Box::new(record))))
        });
        self.running.insert(
            unit.lease_token,
            Running {
                unit_id: unit.unit_id,
                prefix: Vec::new(),
                estimate_nodes: 0.0,
                stop,
                abandoned: false,
                bench: true,
            },
        );
        Ok(())
    }

    async fn start(&mut self, mut unit: pb::Unit) -> Result<(), Error> {
        if let Some(task) = unit.bench.take() {
            return self.start_bench(unit, task).await;
        }
        crate::fault::abort_if_asked(unit.unit_id);
        let got = self.job(unit.job_id).await.and_then(|d| match d {
            JobData::Count(p, core) => Ok((p, core)),
            JobData::Bench(_) => Err("a counting unit of a benchmark job".to_string()),
        });
        let (problem, core) = match got {
            Ok(p) => p,
            Err(e) => {
                warn!("unit {}: cannot load its problem: {e}", unit.unit_id);
                self.release(vec![unit.lease_token]).await;
                return Ok(());
            }
        };
        let stop = Arc::new(AtomicBool::new(self.drain_deadline.is_some()));
        let work = UnitWork {
            prefix: unit.prefix.clone(),
            node_budget: unit.node_budget,
            time_budget: Duration::from_millis(unit.time_budget_ms),
        };
        debug!(
            unit = unit.unit_id,
            attempt = unit.attempt,
            "running prefix {:?}",
            unit.prefix
        );
        let token = unit.lease_token.clone();
        let flag = stop.clone();
        // A unit of a count by classes: its class (a malformed one fails its run).
        let term = match unit.term_json.as_str() {
            "" => None,
            json => Some(UnitTerm::from_json(json).map_err(|e| e.to_string())),
        };
        self.tasks.spawn_blocking(move || {
            let result = crate::panic::catch(|| match (core, term) {
                (core, Some(term)) => run_term_unit(core, &problem, &term?, &flag)
                    .map(|run| run.map_or(Done::Stopped, Done::Count)),
                (CoreSpec::Dlx, None) => run_unit(&problem, &work, flag)
                    .map(Done::Count)
                    .map_err(|e| format!("bad prefix: {e}")),
                // No budgets: a specialised core counts a unit whole or not at all.
                (core, None) => run_core_unit(core, &problem, &work.prefix, &flag)
                    .map(|run| run.map_or(Done::Stopped, Done::Count))
                    .map_err(|e| format!("core {} cannot count the prefix: {e}", core.text())),
            })
            .unwrap_or_else(|m| Err(format!("the search panicked: {m}")));
            (token, result)
        });
        self.running.insert(
            unit.lease_token,
            Running {
                unit_id: unit.unit_id,
                prefix: unit.prefix,
                estimate_nodes: unit.estimate_nodes,
                stop,
                abandoned: false,
                bench: false,
            },
        );
        Ok(())
    }

    /// A unit's thread has returned.
    async fn finished(&mut self, token: String, result: Result<Done, String>) {
        let Some(unit) = self.running.remove(&token) else {
            return;
        };
        // A slot is free: ask for more work at once.
        self.next_lease = Instant::now();
        if unit.abandoned {
            self.summary.abandoned += 1;
            return;
        }
        let run = match result {
            Ok(Done::Count(run)) => run,
            Ok(Done::Bench(record)) => return self.finished_bench(token, &unit, *record).await,
            Ok(Done::Stopped) => {
                info!(
                    "unit {}: count stopped by the shutdown; releasing it",
                    unit.unit_id
                );
                self.release(vec![token]).await;
                return;
            }
            Err(e) => {
                // It would likely fail again anywhere: handed back as failed, so that the
                // coordinator stops leasing it once it has failed too often.
                warn!("unit {}: {e}; handing it back as failed", unit.unit_id);
                self.hand_back(vec![token], e).await;
                return;
            }
        };
        self.summary.units_run += 1;
        self.summary.nodes += run.nodes;
        self.unit_seconds = if self.unit_seconds > 0.0 {
            0.8 * self.unit_seconds + 0.2 * run.wall_seconds
        } else {
            run.wall_seconds.max(1e-6)
        };
        if run.remaining.len() == 1 && run.remaining[0] == unit.prefix {
            // Stopped before it branched at all: hand it back whole.
            self.release(vec![token]).await;
            return;
        }
        let report = pb::UnitReport {
            lease_token: token.clone(),
            unit_id: unit.unit_id,
            result: Some(pb::UnitResult {
                solutions: run.solutions.to_string(),
                nodes: run.nodes,
                updates: run.updates,
                estimate_nodes: unit.estimate_nodes,
                wall_seconds: run.wall_seconds,
                cpu_seconds: run.cpu_seconds.unwrap_or(0.0),
                host: self.host.clone(),
                remaining: run
                    .remaining
                    .into_iter()
                    .map(|options| pb::Prefix { options })
                    .collect(),
                core: count_core_pb(run.core) as i32,
                ..Default::default()
            }),
        };
        self.outbox.push(token, report, Instant::now().into_std());
    }

    /// A benchmark run has returned: report its record, or hand the unit back when the run
    /// was cut short by a drain (no measurement).
    async fn finished_bench(&mut self, token: String, unit: &Running, record: RunRecord) {
        if unit.stop.load(Ordering::Relaxed)
            && record.termination == crate::bench::Termination::Killed
        {
            info!(
                "unit {}: run stopped by the shutdown; releasing it",
                unit.unit_id
            );
            self.release(vec![token]).await;
            return;
        }
        self.summary.units_run += 1;
        let json = match serde_json::to_string(&record) {
            Ok(j) => j,
            Err(e) => {
                warn!(
                    "unit {}: cannot encode its record ({e}); releasing it",
                    unit.unit_id
                );
                self.release(vec![token]).await;
                return;
            }
        };
        let report = pb::UnitReport {
            lease_token: token.clone(),
            unit_id: unit.unit_id,
            result: Some(pb::UnitResult {
                solutions: "0".into(),
                wall_seconds: record.wall_seconds,
                cpu_seconds: record.cpu_seconds.unwrap_or(0.0),
                host: self.host.clone(),
                run_record_json: json,
                ..Default::default()
            }),
        };
        self.outbox.push(token, report, Instant::now().into_std());
    }

    /// Whether to call the coordinator now: a lease is due (the reserve ran low), or reports
    /// are waiting and either no unit runs (nothing to batch them with) or the oldest has
    /// waited [`REPORT_DELAY`].
    fn exchange_due(&self, now: Instant) -> bool {
        if self.lease_due(now) {
            return true;
        }
        match self.outbox.next_due() {
            None => false,
            Some(due) => {
                let due = Instant::from_std(due);
                due <= now
                    && (self.running.is_empty()
                        || self.drain_deadline.is_some()
                        || now >= due + REPORT_DELAY)
            }
        }
    }

    /// Sends the due reports and leases more, in one call (`Exchange`); each report leaves
    /// the outbox once it has a verdict.
    async fn exchange(&mut self) -> Result<(), Error> {
        let now = Instant::now();
        if !self.exchange_due(now) {
            return Ok(());
        }
        let tokens: Vec<String> = self
            .outbox
            .due(now.into_std())
            .into_iter()
            .take(MAX_REPORTS_PER_CALL)
            .collect();
        let reports: Vec<pb::UnitReport> = tokens
            .iter()
            .filter_map(|t| self.outbox.get(t).cloned())
            .collect();
        let (lease_max, bench_max) = if self.lease_due(now) {
            let free = self.config.threads.saturating_sub(self.running.len());
            (self.wanted() as u32, free as u32)
        } else {
            (0, 0)
        };
        let req = pb::ExchangeRequest {
            header: header(),
            worker_id: self.worker_id,
            reports,
            lease_max_units: lease_max,
            lease_max_bench_units: bench_max,
        };
        match self.client.exchange(req).await {
            Ok(resp) => {
                let resp = resp.into_inner();
                for (token, verdict) in tokens.iter().zip(&resp.verdicts) {
                    if let Some(report) = self.outbox.ack(token) {
                        self.tally(&report, verdict);
                    }
                }
                if lease_max > 0 {
                    self.lease_backoff.reset();
                    let now = Instant::now();
                    if resp.units.is_empty() {
                        let wait = Duration::from_millis(resp.retry_after_ms.max(20));
                        self.next_lease = now + wait.min(MAX_LEASE_WAIT);
                        if self.running.is_empty() && self.outbox.is_empty() {
                            self.idle_since.get_or_insert(now);
                        }
                    } else {
                        self.idle_since = None;
                        self.next_lease = now;
                        for unit in resp.units {
                            self.place(unit).await?;
                        }
                    }
                }
                Ok(())
            }
            Err(status) => {
                let now = Instant::now();
                if disposition(&status) == Disposition::Drop {
                    warn!("exchange refused ({status}); dropping its reports");
                    for t in &tokens {
                        self.outbox.ack(t);
                    }
                } else {
                    for t in &tokens {
                        self.outbox.failed(t, now.into_std());
                    }
                }
                if lease_max > 0 {
                    self.next_lease = now + self.lease_backoff.next_delay();
                    // An unreachable coordinator counts as nothing to do.
                    if self.running.is_empty() && self.outbox.is_empty() {
                        self.idle_since.get_or_insert(now);
                    }
                }
                self.on_failure("exchange", &status).await
            }
        }
    }

    /// Counts a report's verdict in the summary (and logs the ones worth a look).
    fn tally(&mut self, report: &pb::UnitReport, resp: &pb::ReportResponse) {
        match resp.verdict() {
            ReportVerdict::Accepted => {
                self.summary.accepted += 1;
                // The worker sent this report itself, from a `Count`: it parses.
                if let Some(n) = report
                    .result
                    .as_ref()
                    .and_then(|r| r.solutions.parse::<Count>().ok())
                {
                    self.summary.solutions += n;
                }
            }
            ReportVerdict::Duplicate => self.summary.duplicate += 1,
            ReportVerdict::Stale => {
                self.summary.stale += 1;
                debug!("report not counted: {}", resp.message);
            }
            ReportVerdict::Mismatch => {
                self.summary.mismatch += 1;
                warn!("report disagrees with an accepted one: {}", resp.message);
            }
            ReportVerdict::Rejected => {
                self.summary.rejected += 1;
                warn!("report rejected as malformed: {}", resp.message);
            }
            ReportVerdict::Unspecified => {
                warn!("report answered without a verdict: {}", resp.message)
            }
        }
    }

    async fn heartbeat(&mut self) -> Result<(), Error> {
        self.next_heartbeat = Instant::now() + self.heartbeat_every;
        let tokens: Vec<String> = self
            .running
            .iter()
            .filter(|(_, r)| !r.abandoned)
            .map(|(t, _)| t.clone())
            .chain(self.reserve.iter().map(|u| u.lease_token.clone()))
            .chain(self.outbox.keys().cloned())
            .collect();
        if tokens.is_empty() {
            return Ok(());
        }
        let req = pb::HeartbeatRequest {
            header: header(),
            worker_id: self.worker_id,
            lease_tokens: tokens,
        };
        match self.client.heartbeat(req).await {
            Ok(resp) => {
                for token in resp.into_inner().invalid {
                    if let Some(i) = self.reserve.iter().position(|u| u.lease_token == token) {
                        self.reserve.remove(i);
                    } else if let Some(r) = self.running.get_mut(&token) {
                        info!("unit {}: lease gone; abandoning it", r.unit_id);
                        r.abandoned = true;
                        r.stop.store(true, Ordering::Relaxed);
                    } else if self.outbox.ack(&token).is_some() {
                        self.summary.stale += 1;
                    }
                }
                Ok(())
            }
            Err(status) => self.on_failure("heartbeat", &status).await,
        }
    }

    /// Hands leases back unrun or unfinished, to be leased again (a drain, no free thread, a
    /// job that could not be loaded: nothing says the unit itself is at fault).
    async fn release(&mut self, tokens: Vec<String>) {
        self.hand_back(tokens, String::new()).await;
    }

    /// Hands leases back, as failed runs when `failure` (why they failed) is not empty (best
    /// effort: if the coordinator is away they expire instead).
    async fn hand_back(&mut self, tokens: Vec<String>, failure: String) {
        let n = tokens.len() as u64;
        for t in &tokens {
            self.outbox.ack(t);
        }
        let failed = !failure.is_empty();
        let req = pb::ReleaseRequest {
            header: header(),
            worker_id: self.worker_id,
            lease_tokens: tokens,
            failure,
        };
        match self.client.release(req).await {
            Ok(_) if failed => self.summary.failed += n,
            Ok(_) => self.summary.released += n,
            Err(status) => debug!("release failed ({status}); the leases will expire"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserve_holds_a_quarter_second_of_work() {
        // Before the first unit: one.
        assert_eq!(reserve_target(4, 0.0, false), 1);
        // Units of a second or more: one, whatever the threads (the tail of a job stays short).
        assert_eq!(reserve_target(1, 2.0, false), 1);
        assert_eq!(reserve_target(2, 1.0, false), 1);
        // 10 ms units on 2 threads: 50 units = 0.25 s of work for the worker.
        assert_eq!(reserve_target(2, 0.01, false), MAX_RESERVE.min(50));
        assert_eq!(reserve_target(1, 0.05, false), 5);
        // Trivial units: capped.
        assert_eq!(reserve_target(8, 1e-5, false), MAX_RESERVE);
        // While a benchmark run holds a thread: nothing in reserve.
        assert_eq!(reserve_target(4, 0.01, true), 0);
    }

    #[test]
    fn a_reserve_far_above_its_target_is_handed_back_down_to_it() {
        // Twenty units leased while they were trivial; now a unit lasts minutes.
        let target = reserve_target(1, 120.0, false);
        assert_eq!(reserve_excess(20, target), 19);
        // Within twice the target: kept.
        assert_eq!(reserve_excess(10, 5), 0);
        assert_eq!(reserve_excess(11, 5), 6);
        assert_eq!(reserve_excess(0, 0), 0);
        // A benchmark run holds a thread: the counting reserve goes back.
        assert_eq!(reserve_excess(3, reserve_target(2, 0.01, true)), 3);
    }

    #[test]
    fn the_models_are_the_model_files_and_an_unknown_kind_is_named() {
        let file = |kind: &str, name: &str| pb::FrozenFile {
            kind: kind.into(),
            name: name.into(),
            sha256: String::new(),
            text: format!("{name} text"),
        };
        let frozen = frozen_models(vec![
            file("batch", "b.txt"),
            file("model", "m.mzn"),
            file("config", "mine"),
        ])
        .unwrap();
        let want =
            std::collections::BTreeMap::from([("m.mzn".to_string(), "m.mzn text".to_string())]);
        assert_eq!(frozen.models, want);
        let want =
            std::collections::BTreeMap::from([("mine".to_string(), "mine text".to_string())]);
        assert_eq!(frozen.configs, want);
        let e = frozen_models(vec![file("model", "m.mzn"), file("solver", "s.py")]).unwrap_err();
        assert!(
            e.contains("s.py") && e.contains("unknown kind \"solver\""),
            "{e}"
        );
    }
}
