//! `dancehall submit`, `status`, `jobs`, `cancel`: the user side of a running coordinator.

use std::path::PathBuf;

use anyhow::Context;
use proto::client::{self, JobsClient};
use proto::v1 as pb;

use super::exit::user_error;
use crate::spec;
use worker::bench::Status;

/// Where the coordinator is and how to prove we may talk to it.
#[derive(clap::Args, Debug, Clone)]
pub struct Connection {
    /// The coordinator's URL: http://HOST:PORT, or https://HOST:PORT with --tls-ca.
    #[arg(long, env = "DANCEHALL_COORDINATOR", default_value_t = default_url())]
    pub coordinator: String,
    /// File holding the coordinator's bearer token (default: $DANCEHALL_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// CA certificate (PEM) that signed the coordinator's TLS certificate.
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
}

fn default_url() -> String {
    format!("http://{}", coordinator::config::DEFAULT_LISTEN_ADDR)
}

impl Connection {
    pub async fn jobs_client(&self) -> anyhow::Result<JobsClient> {
        let token = coordinator::load_token(self.token_file.as_deref())
            .map_err(|e| user_error(e.to_string()))?;
        let channel = client::connect(&self.coordinator, self.tls_ca.as_deref())
            .await
            .map_err(|e| match e {
                client::ClientError::Connect(_) => {
                    anyhow::anyhow!("cannot reach the coordinator at {}: {e}", self.coordinator)
                }
                e => user_error(e.to_string()),
            })?;
        client::jobs(channel, &token).map_err(|e| user_error(e.to_string()))
    }
}

/// A failed call, with a user error for what the user can fix (token, job id, version).
pub fn rpc_error(what: &str, status: tonic::Status) -> anyhow::Error {
    use tonic::Code;
    let msg = format!("{what}: {} ({:?})", status.message(), status.code());
    match status.code() {
        Code::Unauthenticated
        | Code::PermissionDenied
        | Code::NotFound
        | Code::InvalidArgument
        | Code::FailedPrecondition => user_error(msg),
        _ => anyhow::anyhow!(msg),
    }
}

#[derive(clap::Args, Debug)]
pub struct SubmitArgs {
    /// The bench spec (TOML; see bench-specs/README.md).
    pub spec: PathBuf,
    #[command(flatten)]
    pub connection: Connection,
}

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// The job (default: every job).
    pub job: Option<u64>,
    /// One JSON object per job on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub connection: Connection,
}

#[derive(clap::Args, Debug)]
pub struct JobsArgs {
    /// One JSON object per job on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub connection: Connection,
}

#[derive(clap::Args, Debug)]
pub struct CancelArgs {
    pub job: u64,
    #[command(flatten)]
    pub connection: Connection,
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

pub fn submit(args: SubmitArgs) -> anyhow::Result<()> {
    let file = match spec::load_any(&args.spec)? {
        spec::AnySpec::Count(file) => file,
        spec::AnySpec::Bench(bench) => return submit_bench(&args.connection, &bench),
    };
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        for job in &file.jobs {
            let resp = jobs
                .submit_job(job.submit_request(&file.text))
                .await
                .map_err(|s| rpc_error("submit", s))?
                .into_inner();
            for w in &resp.warnings {
                eprintln!("warning: job {}: {w}", job.name);
            }
            if !resp.sizing.is_empty() {
                eprintln!("job {}: {}", job.name, resp.sizing);
            }
            if resp.resumed {
                println!(
                    "job {} ({}) resumed: {} units finished before, {} to go",
                    resp.job_id, job.name, resp.units_skipped, resp.units
                );
            } else {
                println!("job {} ({}): {} units", resp.job_id, job.name, resp.units);
            }
        }
        Ok(())
    })
}

/// Submits a benchmark spec; returns the job id and a line saying what happened (a new job,
/// or the same benchmark resumed).
pub(crate) async fn submit_bench_spec(
    jobs: &mut JobsClient,
    bench: &crate::bench_spec::BenchSpec,
) -> anyhow::Result<(u64, String)> {
    let resp = jobs
        .submit_job(bench.submit_request())
        .await
        .map_err(|s| rpc_error("submit", s))?
        .into_inner();
    let line = if resp.resumed {
        format!(
            "job {} ({}) resumed: {} recorded runs skipped, {} queued again",
            resp.job_id, bench.name, resp.units_skipped, resp.units
        )
    } else {
        format!("job {} ({}): {} runs", resp.job_id, bench.name, resp.units)
    };
    Ok((resp.job_id, line))
}

fn submit_bench(
    connection: &Connection,
    bench: &crate::bench_spec::BenchSpec,
) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut jobs = connection.jobs_client().await?;
        let (_, line) = submit_bench_spec(&mut jobs, bench).await?;
        println!("{line}");
        Ok(())
    })
}

#[derive(clap::Args, Debug)]
pub struct RetryArgs {
    /// The benchmark job.
    pub job: u64,
    /// Statuses of the runs to queue again, comma-separated (optimal, feasible, timeout,
    /// unavailable, error, wrong); default: every run that is not optimal.
    #[arg(long, value_name = "STATUSES", value_delimiter = ',')]
    pub status: Vec<String>,
    #[command(flatten)]
    pub connection: Connection,
}

/// A user error naming the first of `statuses` that is no run status.
pub(crate) fn check_statuses(flag: &str, statuses: &[String]) -> anyhow::Result<()> {
    match statuses.iter().find(|s| Status::parse(s).is_none()) {
        Some(bad) => Err(user_error(format!(
            "{flag}: unknown run status `{bad}` (known: optimal, feasible, timeout, \
             unavailable, error, wrong)"
        ))),
        None => Ok(()),
    }
}

pub fn retry(args: RetryArgs) -> anyhow::Result<()> {
    check_statuses("--status", &args.status)?;
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        let queued = super::run::retry(&mut jobs, args.job, &args.status).await?;
        println!("job {}: {queued} runs queued again", args.job);
        Ok(())
    })
}

pub fn status(args: StatusArgs) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        let infos = match args.job {
            Some(job_id) => {
                let req = pb::JobStatusRequest {
                    header: client::header(),
                    job_id,
                };
                let resp = jobs
                    .job_status(req)
                    .await
                    .map_err(|s| rpc_error("status", s))?;
                resp.into_inner().job.into_iter().collect()
            }
            None => list(&mut jobs).await?,
        };
        print_jobs(&infos, args.json, args.job.is_some())
    })
}

pub fn jobs(args: JobsArgs) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        let infos = list(&mut jobs).await?;
        print_jobs(&infos, args.json, false)
    })
}

pub fn cancel(args: CancelArgs) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        let req = pb::CancelJobRequest {
            header: client::header(),
            job_id: args.job,
        };
        let resp = jobs
            .cancel_job(req)
            .await
            .map_err(|s| rpc_error("cancel", s))?;
        let infos: Vec<pb::JobInfo> = resp.into_inner().job.into_iter().collect();
        print_jobs(&infos, false, true)
    })
}

async fn list(jobs: &mut JobsClient) -> anyhow::Result<Vec<pb::JobInfo>> {
    let req = pb::ListJobsRequest {
        header: client::header(),
    };
    let resp = jobs
        .list_jobs(req)
        .await
        .map_err(|s| rpc_error("jobs", s))?;
    Ok(resp.into_inner().jobs)
}

fn print_jobs(infos: &[pb::JobInfo], json: bool, detail: bool) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if json {
        for info in infos {
            writeln!(out, "{}", job_json(info))?;
        }
        return Ok(());
    }
    if detail {
        for info in infos {
            write!(out, "{}", job_detail(info))?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "{:>5}  {:<28} {:<9} {:>13} {:>22} {:>10}",
        "job", "name", "state", "units", "solutions", "seconds"
    )?;
    for i in infos {
        writeln!(
            out,
            "{:>5}  {:<28} {:<9} {:>13} {:>22} {:>10.1}",
            i.job_id,
            i.name,
            state_name(i.state()),
            format!("{}/{}", i.units_done, i.units_total),
            if i.kind() == pb::JobKind::Benchmark {
                format!("{} runs", i.run_statuses.values().sum::<u64>())
            } else {
                i.solutions.clone()
            },
            i.elapsed_seconds
        )?;
    }
    Ok(())
}

pub fn state_name(state: pb::JobState) -> &'static str {
    match state {
        pb::JobState::Running => "running",
        pb::JobState::Done => "done",
        pb::JobState::Cancelled => "cancelled",
        pb::JobState::Unspecified => "?",
    }
}

/// The symmetry factor when it is not 1.
pub fn factor(info: &pb::JobInfo) -> Option<&str> {
    let f = info.symmetry_factor.as_str();
    (!f.is_empty() && f != "1").then_some(f)
}

/// A multi-line account of one job.
pub fn job_detail(i: &pb::JobInfo) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "job {} ({}): {}",
        i.job_id,
        i.name,
        state_name(i.state())
    );
    let _ = writeln!(
        s,
        "  units       {} done of {} ({} leased, {} queued)",
        i.units_done, i.units_total, i.units_leased, i.units_queued
    );
    let so_far = if i.state() == pb::JobState::Done {
        ""
    } else {
        " so far"
    };
    if i.kind() == pb::JobKind::Benchmark {
        let _ = writeln!(s, "  runs        {}{so_far}", run_statuses(i));
    } else {
        let _ = writeln!(s, "  solutions   {} counted{so_far}", i.solutions);
        if i.weighted {
            let _ = writeln!(
                s,
                "  weighted    {} (sum of unit weight x count)",
                i.weighted_solutions
            );
        }
    }
    if let Some(f) = factor(i) {
        let what = if i.weighted { "weighted" } else { "counted" };
        let _ = writeln!(
            s,
            "  total       {} ({what} x symmetry factor {f})",
            i.solutions_times_symmetry
        );
    }
    if let Some(core) = i
        .core
        .as_ref()
        .filter(|c| c.core() == pb::CountCore::SudokuBands)
    {
        let _ = writeln!(
            s,
            "  core        sudoku-bands {}x{}",
            core.box_rows, core.box_cols
        );
    }
    if i.kind() != pb::JobKind::Benchmark {
        let _ = writeln!(s, "  nodes       {}  updates {}", i.nodes, i.updates);
    }
    let _ = writeln!(
        s,
        "  time        {:.2} s elapsed, {:.2} s in units (CPU {:.2} s), {} workers",
        i.elapsed_seconds, i.unit_wall_seconds, i.unit_cpu_seconds, i.workers
    );
    if i.audits_total > 0 {
        let _ = writeln!(
            s,
            "  audits      {} of {} done",
            i.audits_done, i.audits_total
        );
    }
    for a in &i.alarms {
        let _ = writeln!(
            s,
            "  ALARM       {} on unit {}: {}",
            a.kind, a.unit_id, a.message
        );
    }
    s
}

/// "optimal 80, timeout 20" (a benchmark job's current runs by status).
fn run_statuses(i: &pb::JobInfo) -> String {
    let mut v: Vec<(&String, &u64)> = i.run_statuses.iter().collect();
    v.sort();
    let parts: Vec<String> = v.iter().map(|(k, n)| format!("{k} {n}")).collect();
    if parts.is_empty() {
        "none recorded".into()
    } else {
        parts.join(", ")
    }
}

/// One job as a JSON object (counts as decimal strings).
pub fn job_json(i: &pb::JobInfo) -> serde_json::Value {
    serde_json::json!({
        "job": i.job_id,
        "name": i.name,
        "kind": if i.kind() == pb::JobKind::Benchmark { "benchmark" } else { "count" },
        "run_statuses": i.run_statuses,
        "state": state_name(i.state()),
        "units_total": i.units_total,
        "units_done": i.units_done,
        "units_leased": i.units_leased,
        "units_queued": i.units_queued,
        "solutions": i.solutions,
        "weighted": i.weighted,
        "weighted_solutions": i.weighted_solutions,
        "symmetry_factor": i.symmetry_factor,
        "total_solutions": i.solutions_times_symmetry,
        "nodes": i.nodes,
        "updates": i.updates,
        "elapsed_seconds": i.elapsed_seconds,
        "unit_wall_seconds": i.unit_wall_seconds,
        "unit_cpu_seconds": i.unit_cpu_seconds,
        "workers": i.workers,
        "audits_total": i.audits_total,
        "audits_done": i.audits_done,
        "alarms": i.alarms.iter().map(|a| serde_json::json!({
            "unit": a.unit_id, "kind": a.kind, "message": a.message,
        })).collect::<Vec<_>>(),
    })
}
