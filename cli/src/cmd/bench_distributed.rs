//! `dancehall bench distributed`: figures of the distributed path.
//!
//! - coordinator throughput: units completed per second by many concurrent in-process workers
//!   on a job of trivial units (each a couple of thousand nodes), so that the coordinator's
//!   lease / report / SQLite path is what is measured;
//! - speed-up of 2 local worker processes over 1 on a real count (a bench spec);
//! - overhead per unit: the 1-worker run's wall time (submission to end, workers already
//!   started) not spent inside units, per unit;
//! - balance: max / median unit wall time, and how far the Monte Carlo estimates were from
//!   the measured nodes.
//!
//! Each run uses a fresh database (kept with --db-dir for inspection).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use cores::count::Count;
use proto::client;
use proto::v1 as pb;

use crate::cluster::LocalCluster;
use crate::exit::user_error;
use crate::runtime::multi_thread as runtime;
use crate::spec::{self, JobSpec};

#[derive(clap::Args, Debug)]
pub struct DistributedArgs {
    /// Trivial units in the throughput job.
    #[arg(long, default_value_t = 2000)]
    pub units: u32,
    /// Concurrent in-process workers (one thread each) in the throughput job.
    #[arg(long, default_value_t = 32)]
    pub concurrency: usize,
    /// The real count for speed-up, overhead and balance (a one-job bench spec).
    #[arg(long, default_value = "bench-specs/queens-13.toml")]
    pub spec: PathBuf,
    /// Keep the databases in this directory (default: a temporary one).
    #[arg(long, value_name = "DIR")]
    pub db_dir: Option<PathBuf>,
    /// One JSON object on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DistributedArgs) -> anyhow::Result<()> {
    if args.units < 2 || args.concurrency == 0 {
        return Err(user_error(
            "--units must be at least 2 and --concurrency at least 1",
        ));
    }
    let file = spec::load_count(&args.spec)?;
    let [job] = &file.jobs[..] else {
        return Err(user_error(format!(
            "{}: the benchmark needs a spec with one job",
            args.spec.display()
        )));
    };
    let tmp = tempfile::tempdir()?;
    let dir = args
        .db_dir
        .clone()
        .unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;

    let rt = runtime()?;
    eprintln!(
        "throughput: {} trivial units, {} in-process workers ...",
        args.units, args.concurrency
    );
    let throughput = rt.block_on(throughput(
        &dir.join("throughput.db"),
        args.units,
        args.concurrency,
    ))?;
    let mut runs = Vec::new();
    for workers in [1, 2] {
        eprintln!("{}: {workers} worker(s) ...", job.name);
        let db = dir.join(format!("{}-{workers}.db", job.name));
        runs.push(rt.block_on(real_count(&db, job, &file.text, workers))?);
    }
    let (one, two) = (&runs[0], &runs[1]);
    if one.solutions != two.solutions {
        anyhow::bail!(
            "the counts disagree: {} with 1 worker, {} with 2",
            one.solutions,
            two.solutions
        );
    }
    let speedup = one.wall / two.wall;
    let overhead_ms = (one.wall - one.unit_wall) / one.units as f64 * 1e3;
    let b = balance(&two.units_info);

    if args.json {
        let v = serde_json::json!({
            "throughput_units_per_second": throughput.units_per_second,
            "throughput_units": args.units,
            "throughput_workers": args.concurrency,
            "throughput_seconds": throughput.seconds,
            "spec": job.name,
            "solutions": one.solutions.to_string(),
            "units": one.units,
            "seconds_1_worker": one.wall,
            "seconds_2_workers": two.wall,
            "speedup_2_over_1": speedup,
            "overhead_ms_per_unit": overhead_ms,
            "balance_max_over_median": b.max_over_median,
            "unit_wall_median_seconds": b.median,
            "unit_wall_max_seconds": b.max,
            "estimate_ratio_median": b.estimate_ratio_median,
            "estimate_ratio_p90": b.estimate_ratio_p90,
        });
        println!("{v}");
        return Ok(());
    }
    println!(
        "coordinator throughput  {:>9.0} units/s  ({} trivial units, {} concurrent workers, {:.2} s)",
        throughput.units_per_second, args.units, args.concurrency, throughput.seconds
    );
    println!(
        "speed-up 2 over 1       {:>9.2}x       ({}: {} solutions, {} units; 1 worker {:.2} s, 2 workers {:.2} s)",
        speedup, job.name, one.solutions, one.units, one.wall, two.wall
    );
    println!(
        "overhead per unit       {:>9.2} ms      (1 worker: {:.2} s wall, {:.2} s inside units)",
        overhead_ms, one.wall, one.unit_wall
    );
    println!(
        "balance max/median      {:>9.2}         (unit wall: median {:.1} ms, max {:.1} ms, {} units)",
        b.max_over_median,
        b.median * 1e3,
        b.max * 1e3,
        two.units_info.len()
    );
    println!(
        "estimate / measured     {:>9.2} median  (nodes; 90% of units within a factor {:.1})",
        b.estimate_ratio_median, b.estimate_ratio_p90
    );
    Ok(())
}

struct Throughput {
    seconds: f64,
    units_per_second: f64,
}

/// A job of `units` trivial units: item `a` has `units` options, item `b` one more, so the
/// root branches on `a` and each unit counts the `units + 1` options of `b` (a few thousand
/// nodes at most).
fn trivial_dlx(units: u32) -> String {
    let mut s = String::from("| trivial units for the coordinator throughput benchmark\na b\n");
    for _ in 0..units {
        s.push_str("a\n");
    }
    for _ in 0..=units {
        s.push_str("b\n");
    }
    s
}

async fn throughput(
    db: &std::path::Path,
    units: u32,
    concurrency: usize,
) -> anyhow::Result<Throughput> {
    let mut cluster = LocalCluster::start(db, 0).await?;
    let req = pb::SubmitJobRequest {
        header: client::header(),
        name: "trivial-units".into(),
        spec: String::new(),
        dlx: trivial_dlx(units),
        prefix: Vec::new(),
        symmetry_factor: "1".into(),
        partition: Some(pb::PartitionSettings {
            unit_node_budget: u64::MAX / 2,
            max_units: units,
            ..Default::default()
        }),
        ..Default::default()
    };
    let resp = proto::client::submit_job(&mut cluster.jobs, req, proto::client::SUBMIT_CHUNK_BYTES)
        .await
        .map_err(|s| crate::remote::rpc_error("submit", s))?;
    super::fleet::detect_capabilities();
    let started = Instant::now();
    let fleet = super::fleet::Fleet::start(&cluster.url, &cluster.token, concurrency, "bench");
    let infos = cluster.wait(&[resp.job_id], false).await?;
    let seconds = started.elapsed().as_secs_f64();
    fleet.stop().await?;
    cluster.stop().await?;
    let expected = Count::from(units) * Count::from(units + 1);
    let got: Count = infos[0]
        .solutions
        .parse()
        .context("the throughput job's total")?;
    if got != expected {
        anyhow::bail!("the throughput job counted {got}, expected {expected}");
    }
    Ok(Throughput {
        seconds,
        units_per_second: f64::from(units) / seconds,
    })
}

struct RealRun {
    solutions: Count,
    units: u64,
    wall: f64,
    unit_wall: f64,
    units_info: Vec<pb::UnitInfo>,
}

async fn real_count(
    db: &std::path::Path,
    job: &JobSpec,
    text: &str,
    workers: usize,
) -> anyhow::Result<RealRun> {
    let mut cluster = LocalCluster::start(db, workers).await?;
    let outcome = async {
        // Workers first, so that the time measured is the job's, not the processes' start.
        cluster.spawn_workers()?;
        let started = Instant::now();
        let ids = cluster.submit(std::slice::from_ref(job), text).await?;
        let infos = cluster.wait(&ids, false).await?;
        let wall = started.elapsed().as_secs_f64();
        let units_info = cluster.units(ids[0]).await?;
        Ok::<_, anyhow::Error>((infos, wall, units_info))
    }
    .await;
    cluster.stop().await?;
    let (infos, wall, units_info) = outcome?;
    let info = &infos[0];
    Ok(RealRun {
        solutions: info.solutions.parse().context("the job's total")?,
        units: info.units_total,
        wall,
        unit_wall: info.unit_wall_seconds,
        units_info: units_info
            .into_iter()
            .filter(|u| u.has_result && !u.audit && u.worker_id != 0)
            .collect(),
    })
}

struct Balance {
    median: f64,
    max: f64,
    max_over_median: f64,
    estimate_ratio_median: f64,
    estimate_ratio_p90: f64,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn balance(units: &[pb::UnitInfo]) -> Balance {
    let mut walls: Vec<f64> = units.iter().map(|u| u.wall_seconds).collect();
    walls.sort_by(f64::total_cmp);
    let median = quantile(&walls, 0.5);
    let max = walls.last().copied().unwrap_or(f64::NAN);
    // Estimate / measured nodes, and the factor (>= 1) by which they differ.
    let mut ratios: Vec<f64> = units
        .iter()
        .filter(|u| u.estimate_nodes > 0.0 && u.nodes > 0)
        .map(|u| u.estimate_nodes / u.nodes as f64)
        .collect();
    ratios.sort_by(f64::total_cmp);
    let mut factors: Vec<f64> = ratios.iter().map(|r| r.max(1.0 / r)).collect();
    factors.sort_by(f64::total_cmp);
    Balance {
        median,
        max,
        max_over_median: max / median,
        estimate_ratio_median: quantile(&ratios, 0.5),
        estimate_ratio_p90: quantile(&factors, 0.9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trivial_job_branches_on_a() {
        let p = cores::xcc::parse_dlx(&trivial_dlx(5)).unwrap();
        let mut dlx = cores::xcc::Dlx::new(&p);
        match dlx.branching() {
            cores::xcc::Branching::Branch { item, options } => {
                assert_eq!(p.item_name(item), "a");
                assert_eq!(options.len(), 5);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(dlx.count(), 30);
    }

    #[test]
    fn balance_of_known_units() {
        let unit = |wall: f64, est: f64, nodes: u64| pb::UnitInfo {
            wall_seconds: wall,
            estimate_nodes: est,
            nodes,
            ..Default::default()
        };
        let b = balance(&[unit(1.0, 10.0, 10), unit(2.0, 40.0, 20), unit(6.0, 5.0, 20)]);
        assert_eq!((b.median, b.max, b.max_over_median), (2.0, 6.0, 3.0));
        assert_eq!(b.estimate_ratio_median, 1.0);
        assert_eq!(b.estimate_ratio_p90, 4.0);
    }
}
