//! `dancehall bench load`: how far one coordinator goes. A `dancehall coordinator` process on
//! loopback (so that its CPU time and peak memory are its own, read from /proc) serves:
//!
//! 1. a job of `--units` trivial units (distinct sets of four givens of the 4x4 Sudoku,
//!    counted by the completion core in microseconds) to `--workers` simulated workers: real
//!    `worker::run` clients in this process, each with its own gRPC connection; it prints the
//!    units/s, the coordinator's CPU seconds and peak memory, and checks the total against
//!    counts made here;
//! 2. with `--restart-units N`, a second coordinator on a fresh database given a job of `N`
//!    queued units, then killed and started again: the time until it serves again (loading
//!    every unit) and its peak memory.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Context;
use cores::count::Count;
use cores::problems::sudoku::{Sudoku, SudokuConfig};
use cores::xcc::write_dlx;
use proto::client;
use proto::v1 as pb;

use crate::exit::user_error;
use crate::runtime::multi_thread as runtime;

#[derive(clap::Args, Debug)]
pub struct LoadArgs {
    /// Simulated workers (in-process clients, one connection each).
    #[arg(long, default_value_t = 1000)]
    pub workers: usize,
    /// Trivial units of the load job.
    #[arg(long, default_value_t = 100_000)]
    pub units: usize,
    /// Also time a coordinator restart on a job of this many queued units (0: skip).
    #[arg(long, default_value_t = 0)]
    pub restart_units: usize,
}

/// A coordinator process, killed when dropped.
struct CoordProc {
    child: Child,
    url: String,
}

impl Drop for CoordProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl CoordProc {
    fn start(db: &Path, token: &Path) -> anyhow::Result<(CoordProc, Duration)> {
        let started = Instant::now();
        let mut child = Command::new(std::env::current_exe()?)
            .args(["coordinator", "--listen", "127.0.0.1:0", "--db"])
            .arg(db)
            .arg("--token-file")
            .arg(token)
            .env("DANCEHALL_LOG", "error")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .context("starting a coordinator")?;
        let stderr = child.stderr.take().expect("piped");
        let mut lines = BufReader::new(stderr).lines();
        let url = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(rest) = line.split("listening on ").nth(1) {
                        break rest.split_whitespace().next().unwrap_or("").to_string();
                    }
                }
                _ => anyhow::bail!("the coordinator exited before it listened"),
            }
        };
        // Keep draining its stderr so that it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines.by_ref() {});
        Ok((CoordProc { child, url }, started.elapsed()))
    }

    /// CPU seconds (user + system) and peak resident MiB, from /proc.
    fn usage(&self) -> (f64, f64) {
        let pid = self.child.id();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Fields after the command name (which may hold spaces): utime and stime are 14, 15.
        let after = stat.rsplit(')').next().unwrap_or("");
        let f: Vec<&str> = after.split_whitespace().collect();
        let ticks = clock_ticks();
        let cpu = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        let secs = (cpu(11) + cpu(12)) / ticks;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let hwm = status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0;
        (secs, hwm)
    }
}

/// Clock ticks per second (sysconf).
fn clock_ticks() -> f64 {
    // SAFETY: sysconf reads a constant of the system.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// A 4x4 Sudoku placement: row, column, digit.
type Placement = (usize, usize, usize);

/// `n` distinct sets of clash-free givens of the 4x4 Sudoku (four each, five when four do not
/// give enough), as option prefixes.
fn trivial_units(n: usize) -> Vec<Vec<u32>> {
    let cells: Vec<Placement> = (0..16)
        .flat_map(|cell| (1..=4).map(move |d| (cell / 4, cell % 4, d)))
        .collect();
    let clash = |a: &Placement, b: &Placement| {
        let same_cell = a.0 == b.0 && a.1 == b.1;
        let same_group = a.0 == b.0 || a.1 == b.1 || (a.0 / 2 == b.0 / 2 && a.1 / 2 == b.1 / 2);
        same_cell || (a.2 == b.2 && same_group)
    };
    fn pick(
        cells: &[Placement],
        clash: &dyn Fn(&Placement, &Placement) -> bool,
        k: usize,
        from: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<u32>>,
        n: usize,
    ) {
        if out.len() == n {
            return;
        }
        if cur.len() == k {
            out.push(cur.iter().map(|&i| i as u32).collect());
            return;
        }
        for i in from..cells.len() {
            if cur.iter().all(|&j| !clash(&cells[j], &cells[i])) {
                cur.push(i);
                pick(cells, clash, k, i + 1, cur, out, n);
                cur.pop();
                if out.len() == n {
                    return;
                }
            }
        }
    }
    let mut out = Vec::with_capacity(n);
    for k in [4, 5] {
        out.clear();
        pick(&cells, &clash, k, 0, &mut Vec::new(), &mut out, n);
        if out.len() == n {
            break;
        }
    }
    out
}

fn submit_request(units: &[Vec<u32>], dlx: &str) -> pb::SubmitJobRequest {
    pb::SubmitJobRequest {
        header: client::header(),
        name: format!("load-{}", units.len()),
        dlx: dlx.to_string(),
        symmetry_factor: "1".into(),
        units: units
            .iter()
            .map(|p| pb::WeightedPrefix {
                options: p.clone(),
                weight: "1".into(),
                ..Default::default()
            })
            .collect(),
        core: Some(proto::core::core_spec_pb(
            cores::count_core::CoreSpec::SudokuBands {
                box_rows: 2,
                box_cols: 2,
            },
        )),
        ..Default::default()
    }
}

pub fn run(a: LoadArgs) -> anyhow::Result<()> {
    if a.workers == 0 || a.units == 0 {
        return Err(user_error("--workers and --units must be at least 1"));
    }
    let dir = tempfile::tempdir()?;
    let token_path = dir.path().join("token");
    let token = coordinator::generate_token();
    std::fs::write(&token_path, &token)?;
    let dlx = write_dlx(&Sudoku::build(&SudokuConfig::new(2, 2))?.problem);
    let units = trivial_units(a.units);
    if units.len() < a.units {
        return Err(user_error(format!(
            "--units: only {} distinct trivial units exist",
            units.len()
        )));
    }
    let stop = AtomicBool::new(false);
    let mut expected = Count::zero();
    for p in &units {
        let g = cores::grids::givens_from_prefix(2, 2, p)?;
        expected += Count::from(
            cores::grids::count_completions(2, 2, &g, &stop)?
                .context("not stopped")?
                .solutions,
        );
    }

    let (coord, _) = CoordProc::start(&dir.path().join("load.db"), &token_path)?;
    let rt = runtime()?;
    let (seconds, total) = rt.block_on(async {
        let ch = client::connect(&coord.url, None).await?;
        let mut jobs = client::jobs(ch, &token)?;
        let job = jobs
            .submit_job(submit_request(&units, &dlx))
            .await
            .map_err(|s| crate::remote::rpc_error("submit", s))?
            .into_inner()
            .job_id;
        super::fleet::detect_capabilities();
        let started = Instant::now();
        let fleet = super::fleet::Fleet::start(&coord.url, &token, a.workers, "sim");
        let info = loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let info = jobs
                .job_status(pb::JobStatusRequest {
                    header: client::header(),
                    job_id: job,
                })
                .await
                .map_err(|s| crate::remote::rpc_error("status", s))?
                .into_inner()
                .job
                .context("a job")?;
            if crate::remote::settled(&info) {
                break info;
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        fleet.stop().await?;
        let total: Count = info.solutions.parse().context("the load job's total")?;
        Ok::<_, anyhow::Error>((seconds, total))
    })?;
    let (cpu, mib) = coord.usage();
    drop(coord);
    if total != expected {
        anyhow::bail!("the load job counted {total}, expected {expected}");
    }
    println!(
        "load: {} units, {} simulated workers: {:.1} s, {:.0} units/s; coordinator CPU {:.1} s \
         ({:.0}% of one core), peak memory {:.0} MiB; total exact ({expected})",
        a.units,
        a.workers,
        seconds,
        a.units as f64 / seconds,
        cpu,
        100.0 * cpu / seconds,
        mib
    );

    if a.restart_units > 0 {
        let big = trivial_units(a.restart_units);
        if big.len() < a.restart_units {
            return Err(user_error(format!(
                "--restart-units: only {} distinct trivial units exist",
                big.len()
            )));
        }
        let db = dir.path().join("restart.db");
        let (coord, _) = CoordProc::start(&db, &token_path)?;
        let t = Instant::now();
        rt.block_on(async {
            let ch = client::connect(&coord.url, None).await?;
            let mut jobs = client::jobs(ch, &token)?;
            jobs.submit_job(submit_request(&big, &dlx))
                .await
                .map_err(|s| crate::remote::rpc_error("submit", s))?;
            Ok::<_, anyhow::Error>(())
        })?;
        let submit_s = t.elapsed().as_secs_f64();
        let (_, before_mib) = coord.usage();
        // SIGKILL; the next one prints its address before it loads the database, so it serves
        // once a call answers.
        drop(coord);
        let t = Instant::now();
        let (coord, _) = CoordProc::start(&db, &token_path)?;
        let (total, queued) = rt.block_on(async {
            loop {
                if let Ok(ch) = client::connect(&coord.url, None).await {
                    let mut jobs = client::jobs(ch, &token)?;
                    let req = pb::JobStatusRequest {
                        header: client::header(),
                        job_id: 1,
                    };
                    if let Ok(r) = jobs.job_status(req).await {
                        let j = r.into_inner().job.context("a job")?;
                        return Ok::<_, anyhow::Error>((j.units_total, j.units_queued));
                    }
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })?;
        let serving = t.elapsed();
        if total != a.restart_units as u64 {
            anyhow::bail!(
                "after the restart the job has {total} units, not {}",
                a.restart_units
            );
        }
        let (_, after_mib) = coord.usage();
        let size = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0) as f64 / (1 << 20) as f64;
        println!(
            "restart: a job of {} queued units (submitted in {submit_s:.1} s, coordinator peak \
             {before_mib:.0} MiB, database {size:.0} MiB; {queued} queued, the rest dead ends \
             counted at submission); killed and started again: serving after {:.2} s, peak \
             memory {after_mib:.0} MiB",
            a.restart_units,
            serving.as_secs_f64()
        );
    }
    Ok(())
}
