//! `dancehall run`: the embedded default. Starts a coordinator on a random loopback port with a
//! fresh token (in this process), spawns local `dancehall worker` processes that talk gRPC to
//! it, submits the job(s), shows progress, restarts a local worker that dies while work is
//! left, prints the result and leaves everything in the SQLite file.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use proto::client::{self, JobsClient};
use proto::v1 as pb;
use tokio::process::{Child, Command};

use super::exit::user_error;
use super::problem::CountReport;
use super::submit::{factor, rpc_error, state_name};
use crate::bench_spec::BenchSpec;
use crate::spec::{self, AnySpec, JobSpec, Partition};

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// A bench spec (TOML; see bench-specs/README.md). Without it, give a problem as for
    /// `dancehall count` (e.g. `dancehall run queens 10`).
    #[arg(value_name = "SPEC")]
    pub spec: Option<PathBuf>,
    #[command(flatten)]
    pub problem: super::problem::ProblemArgs,
    /// Local worker processes to start (default: the number of cores).
    #[arg(long, value_name = "N", global = true)]
    pub workers: Option<usize>,
    /// Print one JSON object per job on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// The SQLite database the coordinator writes (jobs, units, results, events).
    #[arg(long, default_value = "results/dancehall.db", global = true)]
    pub db: PathBuf,
    /// Benchmark specs: also queue again the recorded runs with these statuses (e.g.
    /// `timeout,error`) of the resumed job.
    #[arg(long, value_name = "STATUSES", value_delimiter = ',', global = true)]
    pub retry: Option<Vec<String>>,
    #[command(flatten)]
    pub partition: PartitionArgs,
}

/// How a counting job is cut into units: the keys of a spec's `[partition]` as flags (a flag
/// wins over the spec).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PartitionArgs {
    /// Target seconds of search per unit on one core (default 1; shorter for small jobs).
    #[arg(long, value_name = "S", global = true)]
    pub unit_seconds: Option<f64>,
    /// Split units whose estimate exceeds this many nodes (raised when below 20 ms of search).
    #[arg(long, value_name = "NODES", global = true)]
    pub unit_node_budget: Option<u64>,
    /// A unit running longer hands its unexplored subtrees back (default: ten target units).
    #[arg(long, value_name = "S", global = true)]
    pub unit_time_budget: Option<f64>,
    /// A unit stops after about this many nodes and hands the rest back (deterministic).
    #[arg(long, value_name = "NODES", global = true)]
    pub unit_node_limit: Option<u64>,
    /// At most this many units at submission.
    #[arg(long, value_name = "N", global = true)]
    pub max_units: Option<u32>,
    /// Share of units re-run on another worker and compared (0 to 1).
    #[arg(long, value_name = "SHARE", global = true)]
    pub audit_share: Option<f64>,
    /// Random paths per Monte Carlo estimate.
    #[arg(long, value_name = "N", global = true)]
    pub estimate_samples: Option<u32>,
    /// Seed of the estimates.
    #[arg(long = "partition-seed", value_name = "SEED", global = true)]
    pub seed: Option<u64>,
}

impl PartitionArgs {
    /// The flags as a spec's `[partition]` (unset flags stay unset).
    pub fn to_partition(&self) -> anyhow::Result<Partition> {
        let p = Partition {
            unit_seconds: self.unit_seconds,
            unit_node_budget: self.unit_node_budget,
            unit_time_budget_seconds: self.unit_time_budget,
            unit_node_limit: self.unit_node_limit,
            audit_share: self.audit_share,
            max_units: self.max_units,
            estimate_samples: self.estimate_samples,
            seed: self.seed,
        };
        p.check()
            .map_err(|m| user_error(format!("partition flags: {m}")))?;
        Ok(p)
    }
}

/// How long a local worker's lease lasts: short, so that a dead worker's units come back soon.
const LOCAL_LEASE: Duration = Duration::from_secs(6);

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    // Everything the user gave is checked before anything starts or is written.
    let problem_given = args.problem.family.is_some() || args.problem.dlx.is_some();
    let spec =
        match (&args.spec, problem_given) {
            (Some(_), true) => {
                return Err(user_error("give either a spec file or a problem, not both"))
            }
            (Some(path), false) => spec::load_any(path)?,
            (None, true) => {
                let built = args.problem.build()?;
                let name = built.label.clone();
                let job = JobSpec::from_built(name, built, Partition::default());
                let line: Vec<String> = std::env::args().collect();
                AnySpec::Count(spec::SpecFile {
                    jobs: vec![job],
                    text: line.join(" "),
                })
            }
            (None, false) => return Err(user_error(
                "nothing to run: give a spec file (e.g. bench-specs/default.toml) or a problem \
                 (e.g. `dancehall run queens 10`)",
            )),
        };
    if let Some(statuses) = &args.retry {
        super::submit::check_statuses("--retry", statuses)?;
    }
    let flags = args.partition.to_partition()?;
    let spec = match spec {
        AnySpec::Count(mut file) => {
            for job in &mut file.jobs {
                job.partition = flags.or(&job.partition);
            }
            AnySpec::Count(file)
        }
        AnySpec::Bench(_) if flags != Partition::default() => {
            return Err(user_error(
                "partition flags (--unit-seconds, ...) apply to counting jobs only",
            ));
        }
        other => other,
    };
    let workers = match args.workers {
        Some(0) => return Err(user_error("--workers must be at least 1")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    match spec {
        AnySpec::Count(file) => {
            if args.retry.is_some() {
                return Err(user_error("--retry applies to benchmark specs only"));
            }
            run_count(&args, workers, file)
        }
        AnySpec::Bench(bench) => run_bench(&args, workers, &bench),
    }
}

fn run_count(args: &RunArgs, workers: usize, file: spec::SpecFile) -> anyhow::Result<()> {
    let runtime = runtime()?;
    let infos = runtime.block_on(async {
        let mut cluster = LocalCluster::start(&args.db, workers).await?;
        let outcome = async {
            let ids = cluster.submit(&file.jobs, &file.text).await?;
            cluster.spawn_workers()?;
            cluster.wait(&ids, true).await
        }
        .await;
        let stopped = cluster.stop().await;
        let infos = outcome?;
        stopped?;
        Ok::<_, anyhow::Error>(infos)
    })?;
    report(&file.jobs, &infos, args.json, &args.db)
}

/// A benchmark spec: one unit per (instance, configuration), run by the local workers; then
/// the table from the database. A job of the same name and contents is resumed.
fn run_bench(args: &RunArgs, workers: usize, bench: &BenchSpec) -> anyhow::Result<()> {
    let runtime = runtime()?;
    let info = runtime.block_on(async {
        let mut cluster = LocalCluster::start(&args.db, workers).await?;
        let outcome = async {
            let (job, line) = super::submit::submit_bench_spec(&mut cluster.jobs, bench).await?;
            eprintln!("{line}");
            if let Some(statuses) = &args.retry {
                let queued = retry(&mut cluster.jobs, job, statuses).await?;
                eprintln!("job {job}: {queued} runs queued again");
            }
            cluster.spawn_workers()?;
            cluster.wait(&[job], true).await
        }
        .await;
        let stopped = cluster.stop().await;
        let infos = outcome?;
        stopped?;
        Ok::<_, anyhow::Error>(infos.into_iter().next().expect("one job"))
    })?;
    let report = runtime.block_on(super::domino_report::load(&args.db, Some(info.job_id)))?;
    report.print(None, args.json)?;
    if !args.json {
        println!(
            "results in {} (dancehall domino report {} --db {} --out DIR: pictures and CSV)",
            args.db.display(),
            info.job_id,
            args.db.display()
        );
    }
    alarms(std::slice::from_ref(&info))?;
    if info.state() != pb::JobState::Done {
        anyhow::bail!("job {} ended {}", info.job_id, state_name(info.state()));
    }
    Ok(())
}

/// Queues the runs of benchmark job `job` with one of `statuses` again.
pub(crate) async fn retry(
    jobs: &mut JobsClient,
    job: u64,
    statuses: &[String],
) -> anyhow::Result<u64> {
    let req = pb::RetryRunsRequest {
        header: client::header(),
        job_id: job,
        statuses: statuses.to_vec(),
    };
    Ok(jobs
        .retry_runs(req)
        .await
        .map_err(|s| rpc_error("retry", s))?
        .into_inner()
        .queued)
}

pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")
}

type ServerTask = tokio::task::JoinHandle<Result<(), coordinator::Error>>;

/// A coordinator in this process on a random loopback port with a fresh token, and local
/// `dancehall worker` processes talking gRPC to it.
pub(crate) struct LocalCluster {
    pub url: String,
    pub token: String,
    pub jobs: JobsClient,
    /// Local worker processes to keep running.
    pub workers: usize,
    token_file: tempfile::NamedTempFile,
    children: Vec<Child>,
    restarts: usize,
    server: ServerTask,
    stop_server: Option<tokio::sync::oneshot::Sender<()>>,
}

impl LocalCluster {
    /// Starts the coordinator on `db`; no worker yet.
    pub async fn start(db: &Path, workers: usize) -> anyhow::Result<Self> {
        let token = coordinator::generate_token();
        // NamedTempFile is created with mode 0600: only this user can read the token.
        let mut token_file = tempfile::Builder::new()
            .prefix("dancehall-token-")
            .tempfile()
            .context("creating the token file")?;
        token_file.write_all(token.as_bytes())?;
        token_file.flush()?;

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .context("binding a loopback port")?;
        let addr = listener.local_addr()?;
        let mut config = coordinator::Config::new(token.clone());
        config.db_path = db.to_path_buf();
        config.lease_duration = LOCAL_LEASE;
        config.heartbeat_interval = LOCAL_LEASE / 4;
        // Idle local workers ask again soon, so that a job starts at once after submission.
        config.retry_after = Duration::from_millis(100);
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(coordinator::serve(listener, config, async {
            let _ = stop_rx.await;
        }));
        let url = format!("http://{addr}");
        let channel = client::connect(&url, None).await?;
        let jobs = client::jobs(channel, &token)?;
        Ok(LocalCluster {
            url,
            token,
            jobs,
            workers,
            token_file,
            children: Vec::new(),
            restarts: 0,
            server,
            stop_server: Some(stop_tx),
        })
    }

    /// Submits every job; returns their ids.
    pub async fn submit(&mut self, jobs: &[JobSpec], text: &str) -> anyhow::Result<Vec<u64>> {
        let mut ids = Vec::new();
        for job in jobs {
            let resp = tokio::select! {
                r = self.jobs.submit_job(job.submit_request(text)) => r,
                r = &mut self.server => return Err(server_ended(r)),
            };
            let resp = resp.map_err(|s| rpc_error("submit", s))?.into_inner();
            for w in &resp.warnings {
                eprintln!("warning: job {}: {w}", job.name);
            }
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
            .arg(format!("local-{index}"))
            .arg("--quiet")
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
            let req = pb::JobStatusRequest {
                header: client::header(),
                job_id,
            };
            let resp = self
                .jobs
                .job_status(req)
                .await
                .map_err(|s| rpc_error("status", s))?;
            infos.extend(resp.into_inner().job);
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
        loop {
            // Short jobs are noticed done at once; long ones are not polled more than needed
            // (each status walks the job's units).
            let pause = if started.elapsed() < Duration::from_secs(2) {
                Duration::from_millis(25)
            } else {
                Duration::from_millis(250)
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
            let infos = self.status(ids).await?;
            let done: u64 = infos.iter().map(|i| i.units_done).sum();
            let total: u64 = infos.iter().map(|i| i.units_total).sum();
            let nodes: u64 = infos.iter().map(|i| i.nodes).sum();
            let solutions: u128 = infos
                .iter()
                .map(|i| i.solutions.parse::<u128>().unwrap_or(0))
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
            // Done means every unit counted and every audit re-run compared (a cancelled job's
            // audits never run).
            let settled = |i: &pb::JobInfo| match i.state() {
                pb::JobState::Running => false,
                pb::JobState::Done => i.audits_done >= i.audits_total,
                _ => true,
            };
            if infos.len() == ids.len() && infos.iter().all(settled) {
                bar.finish_and_clear();
                return Ok(infos);
            }
            // A local worker that died while work is left is replaced.
            for i in 0..self.children.len() {
                if let Some(status) = self.children[i].try_wait()? {
                    if self.restarts >= 5 * self.workers.max(1) {
                        bar.abandon();
                        anyhow::bail!("local workers keep dying (last: {status}); giving up");
                    }
                    bar.suspend(|| {
                        eprintln!("local worker {i} exited ({status}); starting another")
                    });
                    self.restarts += 1;
                    self.children[i] = self.spawn_worker(i)?;
                }
            }
        }
    }

    /// Every unit of a job (estimates and measurements).
    pub async fn units(&mut self, job_id: u64) -> anyhow::Result<Vec<pb::UnitInfo>> {
        let req = pb::JobUnitsRequest {
            header: client::header(),
            job_id,
        };
        let resp = self
            .jobs
            .job_units(req)
            .await
            .map_err(|s| rpc_error("units", s))?;
        Ok(resp.into_inner().units)
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

/// A finished job as `count` reports a count (for a job of weighted units, `solutions` is
/// the weighted sum); `--json` adds `job`, `units` and `name`.
fn count_report(job: &JobSpec, info: &pb::JobInfo) -> CountReport {
    let solutions = if info.weighted {
        &info.weighted_solutions
    } else {
        &info.solutions
    };
    CountReport {
        label: job.label.clone(),
        solutions: solutions.parse().unwrap_or(0),
        symmetry_factor: job.symmetry_factor,
        nodes: info.nodes,
        updates: info.updates,
        seconds: info.elapsed_seconds,
        complete: info.state() == pb::JobState::Done,
    }
}

fn json(job: &JobSpec, info: &pb::JobInfo) -> serde_json::Value {
    let mut v = count_report(job, info).to_json();
    v["name"] = job.name.clone().into();
    v["job"] = info.job_id.into();
    v["units"] = info.units_total.into();
    if let Some(e) = job.expected_total {
        v["expected_total"] = e.to_string().into();
    }
    if info.weighted {
        v["weighted"] = true.into();
        v["counted_unweighted"] = info.solutions.clone().into();
    }
    if !info.alarms.is_empty() {
        v["alarms"] = info
            .alarms
            .iter()
            .map(|a| format!("{} on unit {}: {}", a.kind, a.unit_id, a.message))
            .collect::<Vec<_>>()
            .into();
    }
    v
}

/// The jobs whose final total differs from their spec's `expected_total`.
fn unexpected_totals(jobs: &[JobSpec], infos: &[pb::JobInfo]) -> Vec<String> {
    jobs.iter()
        .zip(infos)
        .filter(|(_, i)| i.state() == pb::JobState::Done)
        .filter_map(|(job, i)| {
            let want = job.expected_total?;
            let got = &i.solutions_times_symmetry;
            (got.parse::<u128>().ok() != Some(want)).then(|| {
                format!(
                    "job {} ({}): total {got} differs from the spec's expected_total {want}",
                    i.job_id, job.name
                )
            })
        })
        .collect()
}

fn report(
    jobs: &[JobSpec],
    infos: &[pb::JobInfo],
    as_json: bool,
    db: &std::path::Path,
) -> anyhow::Result<()> {
    let wrong = unexpected_totals(jobs, infos);
    for w in &wrong {
        eprintln!("WRONG TOTAL {w}");
    }
    let mut out = std::io::stdout().lock();
    if as_json {
        for (job, info) in jobs.iter().zip(infos) {
            writeln!(out, "{}", json(job, info))?;
        }
    } else if jobs.len() == 1 {
        let (job, i) = (&jobs[0], &infos[0]);
        writeln!(out, "{}", count_report(job, i).human())?;
        if i.weighted {
            writeln!(
                out,
                "  solutions above are sum(unit weight x unit count); the unit counts alone sum to {}",
                i.solutions
            )?;
        }
        writeln!(
            out,
            "job {} ({}): {} units, {} workers",
            i.job_id, job.name, i.units_total, i.workers
        )?;
    } else {
        writeln!(
            out,
            "{:<30} {:>14} {:>8} {:>16} {:>6} {:>12} {:>8}",
            "job", "counted", "factor", "x factor", "units", "nodes", "seconds"
        )?;
        for i in infos {
            let f = factor(i).unwrap_or("");
            let times = if f.is_empty() {
                ""
            } else {
                i.solutions_times_symmetry.as_str()
            };
            let counted = if i.weighted {
                format!("{} (w)", i.weighted_solutions)
            } else {
                i.solutions.clone()
            };
            writeln!(
                out,
                "{:<30} {:>14} {:>8} {:>16} {:>6} {:>12} {:>8.2}",
                i.name, counted, f, times, i.units_total, i.nodes, i.elapsed_seconds
            )?;
        }
    }
    if !as_json {
        writeln!(out, "results in {}", db.display())?;
    }
    if !wrong.is_empty() {
        anyhow::bail!(
            "{} job(s) did not reach their expected total: {}",
            wrong.len(),
            wrong.join("; ")
        );
    }
    alarms(infos)?;
    if let Some(i) = infos.iter().find(|i| i.state() != pb::JobState::Done) {
        anyhow::bail!("job {} ended {}", i.job_id, state_name(i.state()));
    }
    Ok(())
}

/// Prints the jobs' alarms; an error when there is any.
fn alarms(infos: &[pb::JobInfo]) -> anyhow::Result<()> {
    let alarms: Vec<String> = infos
        .iter()
        .flat_map(|i| {
            i.alarms.iter().map(move |a| {
                format!(
                    "job {}: {} on unit {}: {}",
                    i.job_id, a.kind, a.unit_id, a.message
                )
            })
        })
        .collect();
    if !alarms.is_empty() {
        for a in &alarms {
            eprintln!("ALARM {a}");
        }
        anyhow::bail!("{} alarms raised: the results may be wrong", alarms.len());
    }
    Ok(())
}
