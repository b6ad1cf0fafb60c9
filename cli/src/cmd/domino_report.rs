//! `dancehall domino report`: the results of a benchmark job straight from the SQLite file:
//! the configuration x difficulty table (runs proven optimal, median and total wall time), wrong
//! answers, contradictions between configurations, and where the native solver stands; with
//! `--out DIR`, a picture of the best verified placement per instance (`DIR/<id>.svg`) and every
//! current run as CSV (`DIR/runs.csv`, seed 001's "CSV results").
//!
//! Tables count each task's current run only (a retried run replaces the one it re-runs). A
//! run's time is its wall time, whatever its status: an unproven run counts the time it was
//! given, so a total is the time a configuration needed for the whole suite.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use coordinator::store::{self, BenchRun};
use cores::domino::{self, Instance};
use worker::bench::{cross_check, RunRecord, Status};

use super::exit::user_error;

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// The benchmark job (default: the latest benchmark job in the database).
    pub job: Option<u64>,
    /// The coordinator's database.
    #[arg(long, default_value = "results/dancehall.db")]
    pub db: PathBuf,
    /// Write DIR/<id>.svg (best placement per instance) and DIR/runs.csv.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the table as JSON (one object per configuration and difficulty).
    #[arg(long)]
    pub json: bool,
}

/// One cell group of the table: a configuration on the instances of one difficulty.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Row {
    pub config: String,
    /// `easy`, `medium`, `hard`, or `all`.
    pub difficulty: String,
    pub runs: usize,
    pub optimal: usize,
    pub feasible: usize,
    pub timeout: usize,
    pub unavailable: usize,
    pub error: usize,
    pub wrong: usize,
    pub median_seconds: f64,
    pub total_seconds: f64,
}

const DIFFICULTIES: [&str; 3] = ["easy", "medium", "hard"];

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn row(config: &str, difficulty: &str, runs: &[&BenchRun]) -> Row {
    let count = |s: &str| runs.iter().filter(|r| r.status == s).count();
    Row {
        config: config.to_string(),
        difficulty: difficulty.to_string(),
        runs: runs.len(),
        optimal: count("optimal"),
        feasible: count("feasible"),
        timeout: count("timeout"),
        unavailable: count("unavailable"),
        error: count("error"),
        wrong: count("wrong"),
        median_seconds: median(runs.iter().map(|r| r.wall_seconds).collect()),
        total_seconds: runs.iter().map(|r| r.wall_seconds).sum(),
    }
}

/// The table over the current runs: per configuration (in first-seen order), one row per
/// difficulty present and one for all.
pub fn table(runs: &[BenchRun]) -> Vec<Row> {
    let current: Vec<&BenchRun> = runs.iter().filter(|r| r.current).collect();
    let mut configs: Vec<&str> = Vec::new();
    for r in &current {
        if !configs.contains(&r.config.as_str()) {
            configs.push(&r.config);
        }
    }
    let mut rows = Vec::new();
    for c in configs {
        let mine: Vec<&BenchRun> = current.iter().copied().filter(|r| r.config == c).collect();
        for d in DIFFICULTIES {
            let part: Vec<&BenchRun> = mine.iter().copied().filter(|r| r.difficulty == d).collect();
            if !part.is_empty() {
                rows.push(row(c, d, &part));
            }
        }
        rows.push(row(c, "all", &mine));
    }
    rows
}

/// Instances some configuration proved optimal but `config` did not.
pub fn proven_elsewhere(runs: &[BenchRun], config: &str) -> Vec<String> {
    let proven = |pred: &dyn Fn(&BenchRun) -> bool| -> BTreeSet<&str> {
        runs.iter()
            .filter(|r| r.current && r.status == "optimal" && pred(r))
            .map(|r| r.instance_id.as_str())
            .collect()
    };
    let by_any = proven(&|_| true);
    let by_it = proven(&|r| r.config == config);
    by_any.difference(&by_it).map(|s| s.to_string()).collect()
}

/// Renders the table as aligned text.
pub fn render(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<19} {:<7} {:>5} {:>7} {:>8} {:>7} {:>6} {:>6} {:>10} {:>10}\n",
        "configuration",
        "diff",
        "runs",
        "proven",
        "feasible",
        "timeout",
        "error",
        "wrong",
        "median s",
        "total s"
    );
    for r in rows {
        if r.unavailable == r.runs {
            out.push_str(&format!(
                "{:<19} {:<7} {:>5}  unavailable on the workers\n",
                r.config, r.difficulty, r.runs
            ));
            continue;
        }
        out.push_str(&format!(
            "{:<19} {:<7} {:>5} {:>7} {:>8} {:>7} {:>6} {:>6} {:>10.3} {:>10.2}\n",
            r.config,
            r.difficulty,
            r.runs,
            r.optimal,
            r.feasible,
            r.timeout,
            r.error + r.unavailable,
            r.wrong,
            r.median_seconds,
            r.total_seconds
        ));
    }
    out
}

/// The latest benchmark job in the database.
async fn latest_benchmark(pool: &sqlx::SqlitePool) -> anyhow::Result<Option<u64>> {
    Ok(store::list_jobs(pool)
        .await?
        .into_iter()
        .filter(|(_, _, kind, _)| kind == "benchmark")
        .map(|(id, ..)| id)
        .max())
}

/// Everything the report shows, read from the database.
pub struct Report {
    pub job: u64,
    pub runs: Vec<BenchRun>,
    pub instances: BTreeMap<String, Instance>,
}

/// Reads benchmark job `job` (default: the latest) from the database at `db`.
pub async fn load(db: &Path, job: Option<u64>) -> anyhow::Result<Report> {
    if !db.exists() {
        return Err(user_error(format!("{}: no such database", db.display())));
    }
    let pool = store::open(db).await?;
    let job = match job {
        Some(j) => j,
        None => latest_benchmark(&pool)
            .await?
            .ok_or_else(|| user_error(format!("{}: no benchmark job", db.display())))?,
    };
    let runs = store::bench_runs(&pool, job).await?;
    let files = store::job_files(&pool, job).await?;
    if files.is_empty() && runs.is_empty() {
        return Err(user_error(format!(
            "{}: job {job} is not a benchmark job with results",
            db.display()
        )));
    }
    let mut instances = BTreeMap::new();
    for f in files.iter().filter(|f| f.kind == "batch") {
        let batch = domino::parse_batch(&f.text)
            .map_err(|e| anyhow::anyhow!("frozen {}:{}: {}", f.name, e.line, e.problem))?;
        instances.extend(batch.into_iter().map(|i| (i.id.clone(), i)));
    }
    pool.close().await;
    Ok(Report {
        job,
        runs,
        instances,
    })
}

impl Report {
    /// The current runs' records, parsed.
    fn records(&self) -> Vec<RunRecord> {
        self.runs
            .iter()
            .filter(|r| r.current)
            .filter_map(|r| serde_json::from_str(&r.record).ok())
            .collect()
    }

    /// Contradictions between the configurations' answers on one instance.
    pub fn conflicts(&self) -> Vec<String> {
        let mut by_instance: BTreeMap<String, Vec<RunRecord>> = BTreeMap::new();
        for r in self.records() {
            by_instance.entry(r.instance.clone()).or_default().push(r);
        }
        by_instance
            .iter()
            .flat_map(|(id, rs)| {
                cross_check(rs)
                    .into_iter()
                    .map(move |c| format!("{id}: {}: {}", c.config, c.reason))
            })
            .collect()
    }

    /// Prints the report; writes pictures and CSV into `out`.
    pub fn print(&self, out: Option<&Path>, json: bool) -> anyhow::Result<()> {
        let rows = table(&self.runs);
        let mut stdout = std::io::stdout().lock();
        if json {
            for r in &rows {
                writeln!(stdout, "{}", serde_json::to_string(r)?)?;
            }
        } else {
            let hosts: BTreeSet<(&str, &str)> = self
                .runs
                .iter()
                .map(|r| (r.host.as_str(), r.dancehall_version.as_str()))
                .collect();
            writeln!(
                stdout,
                "benchmark job {}: {} current runs on {} instances (hosts: {})",
                self.job,
                self.runs.iter().filter(|r| r.current).count(),
                self.runs
                    .iter()
                    .map(|r| r.instance_id.as_str())
                    .collect::<BTreeSet<_>>()
                    .len(),
                hosts
                    .iter()
                    .map(|(h, v)| format!("{h} dancehall {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
            write!(stdout, "{}", render(&rows))?;
            if rows.iter().any(|r| r.config == "native") {
                let missing = proven_elsewhere(&self.runs, "native");
                if missing.is_empty() {
                    writeln!(
                        stdout,
                        "native proves every instance that any configuration proves"
                    )?;
                } else {
                    writeln!(
                        stdout,
                        "proven by another configuration but not by native: {}",
                        missing.join(", ")
                    )?;
                }
            }
        }
        let conflicts = self.conflicts();
        for c in &conflicts {
            eprintln!("CONFLICT {c}");
        }
        let wrong: Vec<String> = self
            .runs
            .iter()
            .filter(|r| r.current && r.status == "wrong")
            .map(|r| format!("{} under {}", r.instance_id, r.config))
            .collect();
        if !wrong.is_empty() {
            eprintln!("WRONG answers (failed the verifier): {}", wrong.join(", "));
        }
        if let Some(dir) = out {
            self.write_files(dir)?;
            if !json {
                writeln!(stdout, "pictures and runs.csv in {}", dir.display())?;
            }
        }
        Ok(())
    }

    /// DIR/<id>.svg for each instance with a verified placement, and DIR/runs.csv.
    fn write_files(&self, dir: &Path) -> anyhow::Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut best: BTreeMap<String, RunRecord> = BTreeMap::new();
        for r in self.records() {
            let solved = matches!(r.status, Status::Optimal | Status::Feasible);
            let better = best
                .get(&r.instance)
                .is_none_or(|b| r.objective > b.objective);
            if solved && better {
                best.insert(r.instance.clone(), r);
            }
        }
        for (id, r) in &best {
            if let Some(inst) = self.instances.get(id) {
                // The stored placement passed the verifier already; a picture of something
                // else would be a lie, so check again on the frozen instance.
                if domino::verify(inst, &r.placement).is_ok() {
                    let path = dir.join(format!("{}.svg", super::domino::file_safe(id)));
                    std::fs::write(&path, domino::to_svg(inst, &r.placement))
                        .with_context(|| format!("cannot write {}", path.display()))?;
                }
            }
        }
        let mut csv = String::from(
            "instance,batch,difficulty,config,status,termination,objective,bound,wall_seconds,\
             cpu_seconds,time_limit_seconds,solver_version,host,dancehall_version\n",
        );
        for r in self.runs.iter().filter(|r| r.current) {
            let opt = |v: Option<u32>| v.map_or(String::new(), |v| v.to_string());
            csv.push_str(&format!(
                "{},{},{},{},{},{},{},{},{:.3},{},{},\"{}\",{},{}\n",
                r.instance_id,
                r.batch,
                r.difficulty,
                r.config,
                r.status,
                r.termination,
                opt(r.objective),
                opt(r.bound),
                r.wall_seconds,
                r.cpu_seconds.map_or(String::new(), |c| format!("{c:.3}")),
                r.time_limit_seconds,
                r.solver_version.replace('"', "'"),
                r.host,
                r.dancehall_version
            ));
        }
        let path = dir.join("runs.csv");
        std::fs::write(&path, csv).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }
}

pub fn report(a: ReportArgs) -> anyhow::Result<()> {
    let rt = super::run::runtime()?;
    let report = rt.block_on(load(&a.db, a.job))?;
    report.print(a.out.as_deref(), a.json)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(instance: &str, difficulty: &str, config: &str, status: &str, secs: f64) -> BenchRun {
        BenchRun {
            unit: 0,
            job: 1,
            instance_id: instance.into(),
            batch: "b".into(),
            difficulty: difficulty.into(),
            config: config.into(),
            status: status.into(),
            termination: "none".into(),
            objective: None,
            bound: None,
            wall_seconds: secs,
            cpu_seconds: None,
            time_limit_seconds: 5.0,
            solver_version: "v".into(),
            host: "h".into(),
            dancehall_version: "0".into(),
            record: String::new(),
            current: true,
        }
    }

    #[test]
    fn the_table_counts_current_runs_per_configuration_and_difficulty() {
        let mut old = run("a", "easy", "native", "timeout", 5.0);
        old.current = false;
        let runs = vec![
            old,
            run("a", "easy", "native", "optimal", 1.0),
            run("b", "easy", "native", "optimal", 3.0),
            run("c", "hard", "native", "feasible", 5.0),
            run("a", "easy", "clingo", "optimal", 2.0),
            run("b", "easy", "clingo", "timeout", 5.0),
            run("c", "hard", "clingo", "optimal", 4.0),
        ];
        let rows = table(&runs);
        let find = |c: &str, d: &str| {
            rows.iter()
                .find(|r| r.config == c && r.difficulty == d)
                .unwrap()
        };
        let r = find("native", "easy");
        assert_eq!(
            (r.runs, r.optimal, r.median_seconds, r.total_seconds),
            (2, 2, 2.0, 4.0)
        );
        let r = find("native", "all");
        assert_eq!(
            (r.runs, r.optimal, r.feasible, r.median_seconds),
            (3, 2, 1, 3.0)
        );
        assert_eq!(find("clingo", "all").timeout, 1);
        assert!(!rows.iter().any(|r| r.difficulty == "medium"));
        assert_eq!(proven_elsewhere(&runs, "native"), vec!["c".to_string()]);
        assert_eq!(proven_elsewhere(&runs, "clingo"), vec!["b".to_string()]);
        let text = render(&rows);
        assert!(text.lines().count() == rows.len() + 1, "{text}");
    }
}
