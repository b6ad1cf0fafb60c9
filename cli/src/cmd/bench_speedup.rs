//! `dancehall bench speedup SPEC... [--workers N] [--reps R]`: what a user gains from `dancehall
//! run` over counting in one process. For each counting job of each spec, in turn and `R`
//! times: the job counted in this process by the core its units are counted with (one CPU
//! core; the problem and its prefix, or each weighted unit, as `dancehall count` would),
//! then `dancehall run SPEC --workers N` as a child process on a fresh database (the whole
//! command: start-up, partition, workers, result). Prints both wall times (median of the
//! repetitions), the speed-up, the units and the sizing warnings, and fails when the two
//! counts differ.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use cores::count::Count;
use cores::count_core::CoreError;
use cores::xcc::Dlx;

use crate::exit::user_error;
use crate::spec::{self, JobSpec};

#[derive(clap::Args, Debug)]
pub struct SpeedupArgs {
    /// Counting specs (one job each).
    #[arg(required = true)]
    pub specs: Vec<PathBuf>,
    /// Local workers of `dancehall run`.
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Repetitions (the median is shown).
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
}

/// The job counted in this process by the job's core (the engine when the core counts no
/// whole prefix): its total (weighted, times the symmetry factor).
fn count_here(job: &JobSpec) -> anyhow::Result<Count> {
    let stop = std::sync::atomic::AtomicBool::new(false);
    let units: Vec<(Vec<u32>, Count)> = match &job.units {
        Some(u) => u.units.clone(),
        None => vec![(job.prefix.clone(), Count::one())],
    };
    let mut sum = Count::zero();
    for (prefix, weight) in units {
        let count = match job.core.count_prefix(&job.problem, &prefix, &stop) {
            Ok(Some(c)) => c.solutions,
            // The engine's job (`stop` is never set, so no count is cut short here).
            Ok(None) | Err(CoreError::NotSpecialised) => {
                let mut dlx = Dlx::new(&job.problem);
                dlx.apply_prefix(&prefix)
                    .map_err(|e| user_error(format!("{}: {e}", job.name)))?;
                dlx.count()
            }
            Err(e) => return Err(user_error(format!("{}: {e}", job.name))),
        };
        sum += weight * Count::from(count);
    }
    Ok(sum * &job.symmetry_factor)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(a: SpeedupArgs) -> anyhow::Result<()> {
    if a.workers == 0 || a.reps == 0 {
        return Err(user_error("--workers and --reps must be at least 1"));
    }
    let exe = std::env::current_exe().context("finding the dancehall binary")?;
    let dir = tempfile::tempdir()?;
    println!(
        "{:<28} {:>10} {:>10} {:>8} {:>6}  warnings",
        "job",
        "1 proc s",
        format!("run {}w s", a.workers),
        "speed-up",
        "units"
    );
    for path in &a.specs {
        let file = spec::load_count(path)?;
        let [job] = &file.jobs[..] else {
            return Err(user_error(format!(
                "{}: give specs of one job each",
                path.display()
            )));
        };
        let (mut here, mut there) = (Vec::new(), Vec::new());
        let mut units = 0;
        let mut warnings = Vec::new();
        for rep in 0..a.reps {
            let t = Instant::now();
            let want = count_here(job)?;
            here.push(t.elapsed().as_secs_f64());

            let db = dir.path().join(format!("{}-{rep}.db", job.name));
            let t = Instant::now();
            let out = Command::new(&exe)
                .arg("run")
                .arg(path)
                .arg("--workers")
                .arg(a.workers.to_string())
                .arg("--json")
                .arg("--db")
                .arg(&db)
                .output()
                .context("running dancehall run")?;
            there.push(t.elapsed().as_secs_f64());
            let stderr = String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                anyhow::bail!("dancehall run {} failed: {stderr}", path.display());
            }
            let v: serde_json::Value = serde_json::from_slice(&out.stdout)
                .context("reading the JSON line of dancehall run")?;
            let got = v["total_solutions"]
                .as_str()
                .or(v["solutions"].as_str())
                .and_then(|s| s.parse::<Count>().ok());
            if got.as_ref() != Some(&want) {
                anyhow::bail!(
                    "{}: dancehall run counted {got:?}, one process {want}",
                    job.name
                );
            }
            units = v["units"].as_u64().unwrap_or(0);
            warnings = stderr
                .lines()
                .filter(|l| l.starts_with("warning:"))
                .map(|l| l.to_string())
                .collect();
        }
        let (h, t) = (median(here), median(there));
        println!(
            "{:<28} {:>10.2} {:>10.2} {:>7.2}x {:>6}  {}",
            job.name,
            h,
            t,
            h / t,
            units,
            if warnings.is_empty() {
                "-".to_string()
            } else {
                warnings.join(" | ")
            }
        );
    }
    Ok(())
}
