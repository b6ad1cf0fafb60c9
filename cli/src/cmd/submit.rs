//! `dancehall submit`, `status`, `jobs`, `cancel`, `retry`: the user side of a running
//! coordinator (the calls themselves are `crate::remote`'s).

use std::path::PathBuf;

use cores::bench::Status;
use proto::v1 as pb;

use crate::remote::{self, factor, state_name, Connection};
use crate::runtime::current_thread as runtime;
use crate::spec;

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

pub fn submit(args: SubmitArgs) -> anyhow::Result<()> {
    let mut spec = spec::load(&args.spec)?;
    spec.expand_units()?;
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        for job in &spec.jobs {
            let resp = remote::submit_count(&mut jobs, job, &spec.text).await?;
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
        for bench in &spec.benchmarks {
            let (_, line) = remote::submit_bench(&mut jobs, bench).await?;
            println!("{line}");
        }
        Ok(())
    })
}

#[derive(clap::Args, Debug)]
pub struct RetryArgs {
    /// The benchmark job.
    pub job: u64,
    /// Statuses of the runs to queue again, comma-separated; default: every run that is not
    /// finished (optimal, or solved for a Sudoku slice).
    #[arg(long, value_name = "STATUSES", value_delimiter = ',', value_parser = remote::status_arg)]
    pub status: Vec<Status>,
    #[command(flatten)]
    pub connection: Connection,
}

pub fn retry(args: RetryArgs) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        let queued = remote::retry(&mut jobs, args.job, &args.status).await?;
        println!("job {}: {queued} runs queued again", args.job);
        Ok(())
    })
}

pub fn status(args: StatusArgs) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        let infos = match args.job {
            Some(job_id) => remote::status(&mut jobs, job_id)
                .await?
                .into_iter()
                .collect(),
            None => remote::list(&mut jobs).await?,
        };
        print_jobs(&infos, args.json, args.job.is_some())
    })
}

pub fn jobs(args: JobsArgs) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        let infos = remote::list(&mut jobs).await?;
        print_jobs(&infos, args.json, false)
    })
}

pub fn cancel(args: CancelArgs) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut jobs = args.connection.jobs_client().await?;
        let infos: Vec<pb::JobInfo> = remote::cancel(&mut jobs, args.job)
            .await?
            .into_iter()
            .collect();
        print_jobs(&infos, false, true)
    })
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
            } else if i.state() == pb::JobState::Done {
                i.solutions.clone()
            } else {
                // Not a count: the sum of the units counted so far.
                format!("{} so far", i.solutions)
            },
            i.elapsed_seconds
        )?;
    }
    Ok(())
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
    if i.units_held > 0 {
        let _ = writeln!(
            s,
            "  held        {} queued units failed or died too often and are not leased: the \
             job cannot finish (see the alarms)",
            i.units_held
        );
    }
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
                "  weighted    {} (sum of unit weight x count){so_far}",
                i.weighted_solutions
            );
        }
        if i.state() != pb::JobState::Done {
            let _ = writeln!(
                s,
                "  total       incomplete: {} of {} units counted, the job is {}; the sums \
                 above are not the count",
                i.units_done,
                i.units_total,
                state_name(i.state())
            );
        }
    }
    if let Some(f) = factor(i).filter(|_| i.state() == pb::JobState::Done) {
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
            "  audits      {} of {} done{}",
            i.audits_done,
            i.audits_total,
            if i.audits_held > 0 {
                format!(", {} held", i.audits_held)
            } else {
                String::new()
            }
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
    let mut v = serde_json::json!({
        "job": i.job_id,
        "name": i.name,
        "kind": if i.kind() == pb::JobKind::Benchmark { "benchmark" } else { "count" },
        "run_statuses": i.run_statuses,
        "state": state_name(i.state()),
        "units_total": i.units_total,
        "units_done": i.units_done,
        "units_leased": i.units_leased,
        "units_queued": i.units_queued,
        "units_held": i.units_held,
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
        "audits_held": i.audits_held,
        "alarms": i.alarms.iter().map(|a| serde_json::json!({
            "unit": a.unit_id, "kind": a.kind, "message": a.message,
        })).collect::<Vec<_>>(),
    });
    if i.kind() == pb::JobKind::Count && i.state() != pb::JobState::Done {
        // An unfinished job's sums are no count: they go under names that say so.
        for key in ["solutions", "weighted_solutions", "total_solutions"] {
            let x = v[key].take();
            v[format!("{key}_so_far")] = x;
        }
    }
    v
}
