//! `dancehall report`: what a database says about its jobs, without writing SQL.
//! Counting jobs: the totals (counted, weighted, times the symmetry factor, labelled), units,
//! nodes, updates, Knuth's estimate against the measured nodes per unit, balance, workers and
//! their shares, wall time and speed-up. Benchmark jobs: disagreements and wrong answers
//! first; a domino job then opens with its gap table (best objective against best proven
//! bound per instance and configuration, how each best bound was proven, the summed gap per
//! configuration, the instances no configuration closes; one line when every instance is
//! closed), then the configuration x difficulty table (proven, feasible, timeouts, errors,
//! wrong, median and total time, PAR2) and each instance's best objective and who reached
//! it. As a table, CSV, JSON or one self-contained HTML file with charts and board pictures;
//! `report compare A B` puts two benchmark jobs side by side.
//!
//! Invariant: every report opens with its verdict (`text::verdict`), and a report with
//! problems (a wrong run, a contradiction between configurations, an alarm, an unfinished job)
//! makes the command fail, after the report is written.
//!
//! The database is opened read-only: a report never changes it.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use coordinator::store::{self, JobHead};

use crate::exit::user_error;

pub mod charts;
pub mod compare;
mod figures;
pub mod gap;
pub mod html;
mod markup;
pub mod model;
pub mod text;

pub use model::Report;

/// How a report is written.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned text for a terminal.
    Table,
    /// The rows behind the report: one per current benchmark run, one per counting job.
    Csv,
    /// The whole report as one JSON object.
    Json,
    /// One self-contained HTML file: tables, charts, board pictures.
    Html,
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ReportArgs {
    #[command(subcommand)]
    pub command: Option<ReportCmd>,
    /// The jobs to report (default: the latest job of the database).
    #[arg(value_name = "JOB")]
    pub jobs: Vec<u64>,
    /// Report the latest job of the database.
    #[arg(long, conflicts_with = "jobs")]
    pub latest: bool,
    #[command(flatten)]
    pub output: Output,
}

/// Where the report comes from and goes to.
#[derive(clap::Args, Debug, Clone)]
pub struct Output {
    /// The coordinator's database (opened read-only).
    #[arg(long, default_value = store::DEFAULT_DB_PATH)]
    pub db: PathBuf,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
}

#[derive(clap::Subcommand, Debug)]
pub enum ReportCmd {
    /// Two benchmark jobs side by side: per-instance time ratios, regressions flagged.
    Compare(CompareArgs),
}

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// The baseline benchmark job.
    pub a: u64,
    /// The benchmark job compared with it.
    pub b: u64,
    /// A proven run of B more than this many times slower than A's is a regression.
    #[arg(long, default_value_t = 1.5)]
    pub threshold: f64,
    /// Runs under this many seconds in B never count as slower (timer noise).
    #[arg(long, default_value_t = 0.1)]
    pub min_seconds: f64,
    #[command(flatten)]
    pub output: Output,
}

/// Reads the jobs `ids` (every id must exist) from the database at `db`.
pub async fn load(db: &Path, ids: &[u64]) -> anyhow::Result<Report> {
    let pool = crate::database::open_read_only(db).await?;
    let jobs = async {
        let heads = store::job_heads(&pool).await?;
        let mut jobs = Vec::with_capacity(ids.len());
        for &id in ids {
            let head = find(&heads, db, id)?;
            jobs.push(model::job_report(&pool, head).await?);
        }
        Ok(jobs)
    }
    .await;
    let jobs = crate::database::explain(&pool, db, jobs).await;
    pool.close().await;
    Ok(Report { jobs: jobs? })
}

fn find<'h>(heads: &'h [JobHead], db: &Path, id: u64) -> anyhow::Result<&'h JobHead> {
    heads
        .iter()
        .find(|h| h.id == id)
        .ok_or_else(|| user_error(format!("{}: no job {id}", db.display())))
}

/// The latest job's id.
async fn latest(db: &Path) -> anyhow::Result<u64> {
    let pool = crate::database::open_read_only(db).await?;
    let heads = store::job_heads(&pool).await.map_err(anyhow::Error::from);
    let heads = crate::database::explain(&pool, db, heads).await;
    pool.close().await;
    let heads = heads?;
    heads
        .last()
        .map(|h| h.id)
        .ok_or_else(|| user_error(format!("{}: no job", db.display())))
}

/// The report in `format`; `title` names the HTML page.
pub fn render(report: &Report, format: Format, title: &str) -> anyhow::Result<String> {
    Ok(match format {
        Format::Table => text::table(report),
        Format::Csv => text::csv(report),
        Format::Json => {
            let mut v = serde_json::to_value(report)?;
            v["verdict"] = text::verdict(report).into();
            v["problems"] = report.problems().into();
            format!("{}\n", serde_json::to_string_pretty(&v)?)
        }
        Format::Html => html::page(report, title),
    })
}

/// Writes `text` to `out` (a file) or stdout.
pub fn write(out: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match out {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
            }
            std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            Ok(stdout.flush()?)
        }
    }
}

/// An error when the report found problems (after it was written).
pub fn check(report: &Report) -> anyhow::Result<()> {
    let problems = report.problems();
    if problems.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "{} problem(s) in the results: {}",
        problems.len(),
        problems.join("; ")
    )
}

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    if let Some(ReportCmd::Compare(c)) = args.command {
        return run_compare(c);
    }
    let o = &args.output;
    let rt = crate::runtime::current_thread()?;
    let ids = if args.jobs.is_empty() {
        vec![rt.block_on(latest(&o.db))?]
    } else {
        args.jobs.clone()
    };
    let report = rt.block_on(load(&o.db, &ids))?;
    // The file's name, not its path (a page is read on other machines than it was made on).
    let name = o.db.file_name().map_or_else(
        || o.db.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let title = format!("dancehall report: {name}");
    write(o.out.as_deref(), &render(&report, o.format, &title)?)?;
    check(&report)
}

fn run_compare(c: CompareArgs) -> anyhow::Result<()> {
    if !(c.threshold.is_finite() && c.threshold >= 1.0) {
        return Err(user_error("--threshold must be a ratio of at least 1"));
    }
    let o = &c.output;
    let rt = crate::runtime::current_thread()?;
    let report = rt.block_on(load(&o.db, &[c.a, c.b]))?;
    let bench = |i: usize| match &report.jobs[i] {
        model::JobReport::Benchmark(b) => Ok(b),
        model::JobReport::Count(x) => Err(user_error(format!(
            "job {} is a counting job; compare takes benchmark jobs",
            x.head.id
        ))),
    };
    let cmp = compare::compare(bench(0)?, bench(1)?, c.threshold, c.min_seconds);
    let text = match o.format {
        Format::Table => compare::table(&cmp),
        Format::Csv => compare::csv(&cmp),
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&cmp)?),
        Format::Html => {
            return Err(user_error(
                "compare writes table, csv or json (the HTML report is per job)",
            ))
        }
    };
    write(o.out.as_deref(), &text)?;
    let n = cmp.regressions().len();
    if n > 0 {
        anyhow::bail!("{n} regression(s) of job {} against job {}", c.b, c.a);
    }
    Ok(())
}
