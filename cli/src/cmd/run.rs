//! `dancehall run`: the embedded default. Starts a coordinator on a random loopback port with a
//! fresh token (in this process), spawns local `dancehall worker` processes that talk gRPC to
//! it, submits the job(s), shows progress, restarts a local worker that dies while work is
//! left, prints the result and leaves everything in the SQLite file.

use cores::label::Label;
use std::io::Write as _;
use std::path::PathBuf;

use coordinator::job::AlarmKind;
use cores::bench::Status;
use cores::count::Count;
use proto::v1 as pb;

use super::problem::CountReport;
use crate::cluster::LocalCluster;
use crate::exit::user_error;
use crate::remote::{self, factor, state_name};
use crate::report::{self as report_mod, Report};
use crate::spec::{self, BenchSpec, JobSpec, Partition, Spec};

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
    #[arg(long, value_name = "STATUSES", value_delimiter = ',', global = true,
          value_parser = remote::status_arg)]
    pub retry: Option<Vec<Status>>,
    #[command(flatten)]
    pub partition: PartitionArgs,
    /// With a problem: the counting core of its units (default: the family's specialised core
    /// where there is one, n queens; else the Dancing Links engine). Specs name theirs in
    /// `[units]`.
    #[arg(long, value_enum, global = true)]
    pub core: Option<crate::core_arg::CoreArg>,
    /// Let the local workers run command templates (`[[config]]` with `engine = "command"`:
    /// arbitrary programs named by the spec); without it those runs are `unavailable`.
    #[arg(long, global = true)]
    pub allow_commands: bool,
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
            core: None,
        };
        p.check()
            .map_err(|m| user_error(format!("partition flags: {m}")))?;
        Ok(p)
    }
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    // Everything the user gave is checked before anything starts or is written.
    let problem_given = args.problem.family.is_some() || args.problem.dlx.is_some();
    let mut spec =
        match (&args.spec, problem_given) {
            (Some(_), true) => {
                return Err(user_error("give either a spec file or a problem, not both"))
            }
            (Some(_), false) if args.core.is_some() => {
                return Err(user_error(
                    "--core applies to a problem given on the command line; a spec names its core \
                     in [units] or [partition]",
                ))
            }
            (Some(path), false) => {
                let mut s = spec::load(path)?;
                s.expand_units()?;
                s
            }
            (None, true) => {
                let built = args.problem.build()?;
                let name = built.label.clone();
                let core = crate::core_arg::choose(
                    args.core,
                    args.problem.family.as_ref(),
                    &built.problem,
                    None,
                )?;
                let job = JobSpec::from_built(name, built, Partition::default(), core);
                let line: Vec<String> = std::env::args().collect();
                Spec {
                    text: line.join(" "),
                    jobs: vec![job],
                    benchmarks: Vec::new(),
                }
            }
            (None, false) => return Err(user_error(
                "nothing to run: give a spec file (e.g. bench-specs/default.toml) or a problem \
                 (e.g. `dancehall run queens 10`)",
            )),
        };
    let flags = args.partition.to_partition()?;
    if flags != Partition::default() && spec.jobs.is_empty() {
        return Err(user_error(
            "partition flags (--unit-seconds, ...) apply to counting jobs only",
        ));
    }
    if args.retry.is_some() && spec.benchmarks.is_empty() {
        return Err(user_error("--retry applies to benchmark specs only"));
    }
    for job in &mut spec.jobs {
        job.partition = flags.or(&job.partition);
    }
    let workers = match args.workers {
        Some(0) => return Err(user_error("--workers must be at least 1")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let runtime = crate::runtime::multi_thread()?;
    let (counted, benched) = runtime.block_on(run_jobs(&args, workers, &spec))?;
    // A job left with units held after failing ended the wait unfinished: said first. Every
    // alarm, of a kind known here or not, is among the problems below.
    for i in counted.iter().chain(&benched) {
        if i.units_held + i.audits_held > 0 {
            let failed = |a: &&pb::Alarm| AlarmKind::parse(&a.kind).is_some_and(AlarmKind::holds);
            for a in i.alarms.iter().filter(failed) {
                eprintln!("HELD job {} ({}): {}", i.job_id, i.name, a.message);
            }
        }
    }
    let ids: Vec<u64> = counted.iter().chain(&benched).map(|i| i.job_id).collect();
    let full = runtime.block_on(report_mod::load(&args.db, &ids))?;
    let mut problems = full.problems();
    if !spec.jobs.is_empty() {
        problems.extend(report(&spec.jobs, &counted, args.json, &args.db, &full)?);
    }
    let benchmarks = !spec.benchmarks.is_empty();
    if !args.json {
        let mut out = std::io::stdout().lock();
        // A benchmark's verdict first (a counting job's report already opened with it), and
        // again as the last line when it checks.
        if benchmarks && spec.jobs.is_empty() {
            writeln!(out, "{}", crate::report::text::verdict(&full))?;
        }
        for job in &full.jobs {
            if let crate::report::model::JobReport::Benchmark(b) = job {
                writeln!(out, "{}", crate::report::text::bench_table(b))?;
            }
        }
    }
    let html = args.db.with_file_name("report.html");
    let title = format!(
        "dancehall run {}",
        args.spec
            .as_deref()
            .map_or("".into(), |p| p.display().to_string())
    );
    report_mod::write(
        Some(&html),
        &report_mod::render(&full, report_mod::Format::Html, &title)?,
    )?;
    if args.json {
        eprintln!("report: {}", html.display());
    } else {
        println!("report: {}", html.display());
    }
    for i in counted.iter().chain(&benched) {
        if i.state() != pb::JobState::Done
            && !problems
                .iter()
                .any(|p| p.contains(&format!("job {} ", i.job_id)))
        {
            problems.push(format!("job {} ended {}", i.job_id, state_name(i.state())));
        }
    }
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("PROBLEM {p}");
        }
        anyhow::bail!("{} problem(s): the results may be wrong", problems.len());
    }
    if benchmarks && !args.json {
        println!("{}", crate::report::text::verdict(&full));
    }
    Ok(())
}

/// Runs every job of `spec` on one local cluster: counting jobs first, then benchmarks (a
/// benchmark of the same name and contents as an earlier one is resumed). Returns the final
/// status of each, in spec order.
async fn run_jobs(
    args: &RunArgs,
    workers: usize,
    spec: &Spec,
) -> anyhow::Result<(Vec<pb::JobInfo>, Vec<pb::JobInfo>)> {
    let mut cluster = LocalCluster::start(&args.db, workers).await?;
    cluster.allow_commands = args.allow_commands;
    let outcome = async {
        let counting = cluster.submit(&spec.jobs, &spec.text).await?;
        let mut benchmarks = Vec::new();
        for bench in &spec.benchmarks {
            benchmarks.push(submit_bench(&mut cluster, bench, args.retry.as_deref()).await?);
        }
        cluster.spawn_workers()?;
        let counted = cluster.wait(&counting, true).await?;
        let benched = cluster.wait(&benchmarks, true).await?;
        Ok::<_, anyhow::Error>((counted, benched))
    }
    .await;
    let stopped = cluster.stop().await;
    let infos = outcome?;
    stopped?;
    Ok(infos)
}

/// Submits a benchmark and queues again the recorded runs with `retry`'s statuses.
async fn submit_bench(
    cluster: &mut LocalCluster,
    bench: &BenchSpec,
    retry: Option<&[Status]>,
) -> anyhow::Result<u64> {
    let (job, line) = remote::submit_bench(&mut cluster.jobs, bench).await?;
    eprintln!("{line}");
    if let Some(statuses) = retry {
        let queued = remote::retry(&mut cluster.jobs, job, statuses).await?;
        eprintln!("job {job}: {queued} runs queued again");
    }
    Ok(job)
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
        // Read by `unreadable` first: a total that is not a decimal count is reported as such
        // and never shown as this 0.
        solutions: solutions.parse().unwrap_or_default(),
        symmetry_factor: job.symmetry_factor.clone(),
        nodes: info.nodes,
        updates: info.updates,
        seconds: info.elapsed_seconds,
        complete: info.state() == pb::JobState::Done,
    }
}

/// Which of a job's totals is not a decimal count, if one is not (counts travel exact, of
/// any size: a total that does not parse is the coordinator's fault, e.g. an older one that
/// still says `overflow`).
fn unreadable(info: &pb::JobInfo) -> Option<&'static str> {
    let bad = |s: &str| s.parse::<Count>().is_err();
    if bad(&info.solutions) {
        Some("the sum of the unit counts")
    } else if info.weighted && bad(&info.weighted_solutions) {
        Some("the sum of weight x count")
    } else if bad(&info.solutions_times_symmetry) {
        Some("the symmetry factor x the weighted sum")
    } else {
        None
    }
}

fn json(job: &JobSpec, info: &pb::JobInfo) -> serde_json::Value {
    let mut v = count_report(job, info).to_json();
    if let Some(what) = unreadable(info) {
        // Never a number that is not the count: the totals as the coordinator said them.
        v["solutions"] = if info.weighted {
            &info.weighted_solutions
        } else {
            &info.solutions
        }
        .clone()
        .into();
        v["total_solutions"] = info.solutions_times_symmetry.clone().into();
        v["unreadable"] = format!("{what} is not a decimal count").into();
    }
    v["state"] = state_name(info.state()).into();
    if info.state() != pb::JobState::Done {
        // Never a partial sum where a count is read: the sums so far under their own names.
        let so_far = |v: &mut serde_json::Value, key: &str| {
            let x = v[key].take();
            if !x.is_null() {
                v[format!("{key}_so_far")] = x;
            }
        };
        so_far(&mut v, "solutions");
        so_far(&mut v, "total_solutions");
        v["solutions"] = serde_json::Value::Null;
        v["units_counted"] = info.units_done.into();
    }
    v["name"] = job.name.clone().into();
    v["job"] = info.job_id.into();
    v["units"] = info.units_total.into();
    if info.units_held > 0 {
        v["units_held"] = info.units_held.into();
    }
    if let Some(e) = &job.expected_total {
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
            let want = job.expected_total.as_ref()?;
            let got = &i.solutions_times_symmetry;
            (got.parse::<Count>().ok().as_ref() != Some(want)).then(|| {
                format!(
                    "job {} ({}): total {got} differs from the spec's expected_total {want}",
                    i.job_id, job.name
                )
            })
        })
        .collect()
}

/// An orbit count's result: `sum(class size x term) / |G|` from a finished job's weighted
/// sum, or why it is no count (the sum does not divide, or differs from `expected_orbits`).
fn orbits(job: &JobSpec, info: &pb::JobInfo) -> Option<Result<OrbitResult, String>> {
    let o = job.units.as_ref()?.orbits.as_ref()?;
    if info.state() != pb::JobState::Done {
        return None;
    }
    let name = format!("job {} ({})", info.job_id, job.name);
    let sum = match info.weighted_solutions.parse::<Count>() {
        Ok(sum) => sum,
        Err(e) => return Some(Err(format!("{name}: the Burnside sum: {e}"))),
    };
    // One term of size 1: the job's weighted sum is already sum(class size x term).
    let got = match cores::orbit_term::burnside_quotient(&o.group_order, [(Count::one(), sum)]) {
        Ok(n) => n,
        Err(e) => return Some(Err(format!("{name}: {e}"))),
    };
    let grids = orbit_total(job);
    if let Some((total, side)) = &grids {
        let bound = orbit_bound(total, &o.group_order, *side);
        if got < bound {
            return Some(Err(format!(
                "{name}: orbits {got} below the bound N / (|G| side!) = {bound}: a term is wrong"
            )));
        }
    }
    match &job.expected_orbits {
        Some(want) if *want != got => Some(Err(format!(
            "{name}: orbits {got} differ from the spec's expected_orbits {want}"
        ))),
        _ => Some(Ok(OrbitResult { orbits: got, grids })),
    }
}

/// A finished orbit count: its orbits, and its number of grids N with the grid's side
/// ([`orbit_total`]).
struct OrbitResult {
    orbits: Count,
    grids: Option<(Count, usize)>,
}

/// The sanity bound of an orbit count: `ceil(N / (|G| side!))` (every orbit has at most
/// `|G| side!` grids), exact at any size (`cores::grids::orbits::lower_bound` is the
/// in-process core's, in u128).
fn orbit_bound(total: &Count, group_order: &Count, side: usize) -> Count {
    let fact = cores::problems::factorial(side).map(Count::from);
    match fact.and_then(|f| total.checked_div_rem(&(f * group_order))) {
        Some((q, r)) if r.is_zero() => q,
        Some((q, _)) => q + Count::one(),
        None => Count::from(u8::from(!total.is_zero())),
    }
}

/// An orbit count's number of grids N and the grid's side: the total imported with the
/// identity's term, or, where the identity is counted like the other classes (grids up to
/// `IDENTITY_ENUMERATED_UP_TO`), its term counted again here times side! (milliseconds).
fn orbit_total(job: &JobSpec) -> Option<(Count, usize)> {
    let o = job.units.as_ref()?.orbits.as_ref()?;
    let coordinator::job::CoreSpec::SudokuOrbits { box_rows, box_cols } = job.core else {
        return None;
    };
    let side = box_rows * box_cols;
    if let Some((_, t)) = &o.identity {
        return Some((t.total.clone(), side));
    }
    let groups = cores::grids::groups::read_groups(box_rows, box_cols, &job.problem).ok()?;
    let identity = cores::grids::orbits::GridSymmetry::identity(side);
    let term = cores::grids::orbits::class_term(&groups, &identity, None).ok()?;
    // In-process: grids up to IDENTITY_ENUMERATED_UP_TO, whose counts fit u128.
    let fact = cores::problems::factorial(side)?;
    Some((Count::from(term) * Count::from(fact), side))
}

/// The lines that say an orbit count's result: orbits beside the total, the group, the
/// sanity bound and the expected figure.
fn orbit_lines(job: &JobSpec, result: &OrbitResult) -> Option<String> {
    let orbits = &result.orbits;
    let o = job.units.as_ref()?.orbits.as_ref()?;
    let mut s = format!(
        "orbits (essentially different grids): {orbits} under the {} group of order {} and \
         relabelling",
        o.group.as_str(),
        o.group_order
    );
    if let Some((total, side)) = &result.grids {
        match &o.identity {
            Some((_, t)) => s.push_str(&format!(
                "\n  total grids {total} (imported from {})",
                t.file
            )),
            None => s.push_str(&format!(
                "\n  total grids {total} (the identity's term x {side}!)"
            )),
        }
        let bound = orbit_bound(total, &o.group_order, *side);
        s.push_str(&format!(
            "; bound orbits >= N / (|G| {side}!) = {bound}: {}",
            if *orbits >= bound { "holds" } else { "FAILS" }
        ));
    }
    if let Some(want) = &job.expected_orbits {
        s.push_str(&format!(
            "\n  expected_orbits {want}: {}",
            if want == orbits { "matched" } else { "DIFFERS" }
        ));
    }
    Some(s)
}

/// Prints the counting jobs' results, the verdict first; returns what makes the run fail
/// beyond the report's problems (a total that differs from the spec's `expected_total`).
fn report(
    jobs: &[JobSpec],
    infos: &[pb::JobInfo],
    as_json: bool,
    db: &std::path::Path,
    full: &Report,
) -> anyhow::Result<Vec<String>> {
    let unreadable_totals: Vec<String> = jobs
        .iter()
        .zip(infos)
        .filter_map(|(job, i)| {
            let what = unreadable(i)?;
            Some(format!(
                "job {} ({}): {what} is not a decimal count",
                i.job_id, job.name
            ))
        })
        .collect();
    for o in &unreadable_totals {
        eprintln!("UNREADABLE TOTAL {o}");
    }
    let mut wrong = unexpected_totals(jobs, infos);
    for w in &wrong {
        eprintln!("WRONG TOTAL {w}");
    }
    let orbit_results: Vec<Option<Result<OrbitResult, String>>> =
        jobs.iter().zip(infos).map(|(j, i)| orbits(j, i)).collect();
    for e in orbit_results
        .iter()
        .flatten()
        .filter_map(|r| r.as_ref().err())
    {
        eprintln!("WRONG ORBITS {e}");
        wrong.push(e.clone());
    }
    let mut out = std::io::stdout().lock();
    if !as_json {
        if !unreadable_totals.is_empty() {
            writeln!(
                out,
                "PROBLEMS: {} total(s) are not decimal counts",
                unreadable_totals.len()
            )?;
        } else if !wrong.is_empty() {
            writeln!(
                out,
                "PROBLEMS: {} total(s) or orbit count(s) differ from the spec's expected_total \
                 or expected_orbits, or do not divide",
                wrong.len()
            )?;
        } else {
            writeln!(out, "{}", crate::report::text::verdict(full))?;
        }
    }
    if as_json {
        for ((job, info), orbits) in jobs.iter().zip(infos).zip(&orbit_results) {
            let mut v = json(job, info);
            if let Some(r) = orbits {
                v["orbits"] = match r {
                    Ok(n) => n.orbits.to_string().into(),
                    Err(_) => serde_json::Value::Null,
                };
            }
            if let Some(e) = &job.expected_orbits {
                v["expected_orbits"] = e.to_string().into();
            }
            writeln!(out, "{v}")?;
        }
    } else if jobs.len() == 1 {
        let (job, i) = (&jobs[0], &infos[0]);
        match unreadable(i) {
            Some(what) => writeln!(
                out,
                "{}\nsolutions: unreadable ({what} is not a decimal count)",
                job.label
            )?,
            // Never a partial sum shown as if it were the count.
            None if i.state() != pb::JobState::Done => writeln!(
                out,
                "{}\nsolutions: incomplete ({} of {} units counted{}; the job is {})",
                job.label,
                i.units_done,
                i.units_total,
                match i.units_held {
                    0 => String::new(),
                    n => format!(", {n} held after failing or dying too often"),
                },
                state_name(i.state())
            )?,
            None => writeln!(out, "{}", count_report(job, i).human())?,
        }
        if i.weighted && i.state() == pb::JobState::Done {
            writeln!(
                out,
                "  solutions above are sum(unit weight x unit count); the unit counts alone sum to {}",
                i.solutions
            )?;
        }
        if let Some(Ok(n)) = &orbit_results[0] {
            if let Some(lines) = orbit_lines(job, n) {
                writeln!(out, "{lines}")?;
            }
        }
        writeln!(
            out,
            "job {} ({}): {} units, {} workers",
            i.job_id, job.name, i.units_total, i.workers
        )?;
    } else {
        writeln!(
            out,
            "{:<30} {:<9} {:>14} {:>8} {:>16} {:>9} {:>12} {:>8}",
            "job", "state", "counted", "factor", "x factor", "units", "nodes", "seconds"
        )?;
        for i in infos {
            let done = i.state() == pb::JobState::Done;
            let f = factor(i).unwrap_or("");
            // An unfinished job's sums are not counts: its columns say so instead.
            let times = match (done, f.is_empty()) {
                (_, true) => "",
                (true, false) => i.solutions_times_symmetry.as_str(),
                (false, false) => "incomplete",
            };
            let counted = match (done, i.weighted) {
                (false, _) => "incomplete".to_string(),
                (true, true) => format!("{} (w)", i.weighted_solutions),
                (true, false) => i.solutions.clone(),
            };
            writeln!(
                out,
                "{:<30} {:<9} {:>14} {:>8} {:>16} {:>9} {:>12} {:>8.2}",
                i.name,
                state_name(i.state()),
                counted,
                f,
                times,
                format!("{}/{}", i.units_done, i.units_total),
                i.nodes,
                i.elapsed_seconds
            )?;
        }
    }
    if !as_json {
        writeln!(out, "results in {}", db.display())?;
    }
    // An overflow is also a problem of the report (`Report::problems`), which makes the run
    // fail.
    Ok(wrong
        .iter()
        .map(|w| format!("did not reach its expected result: {w}"))
        .collect())
}
