//! What a report says about a job, computed from the database: for a counting job
//! the totals, the units' estimates against their measurements, the balance and the workers;
//! for a benchmark job the gap table (domino, `super::gap`), the configuration x difficulty
//! table, each instance's best objective and who reached it (a Sudoku job: the configuration
//! x puzzle file table, puzzles/s and difficulty), and every claim that does not hold (wrong
//! runs, contradictions between configurations, alarms).
//!
//! Tables count each task's current run only (a retried run replaces the one it re-runs). A
//! run's time is its wall time whatever its status: an unproven run counts the time it was
//! given, so a total is the time a configuration needed for the whole suite. PAR2 counts an
//! unproven run as twice its time limit (SAT competitions' penalised average).

use cores::label::Label;
use std::collections::{BTreeMap, BTreeSet};

use coordinator::job::FrozenFile;
use coordinator::job::{JobKind, JobState};
use coordinator::store::{self, BenchRun, CountUnit, JobHead};
use cores::bench::{cross_check, ConfigDef, EngineDef, Family, FileKind, RunRecord, Sense, Status};
use cores::count::Count;
use cores::domino::{self, Difficulty, Instance};
use cores::sudoku::bench::{puzzles_per_second, PuzzleDifficulty, PuzzleRun, PuzzleStatus};
use serde::Serialize;
use sqlx::SqlitePool;

use super::gap::{gap_table, GapTable};

/// A report: its jobs and the problems found in any of them.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub jobs: Vec<JobReport>,
}

impl Report {
    /// Every claim of the report's jobs that does not hold: wrong runs, contradictions,
    /// alarms, unfinished jobs. Empty when everything checks.
    pub fn problems(&self) -> Vec<String> {
        self.jobs.iter().flat_map(JobReport::problems).collect()
    }

    /// The jobs whose answers nothing verified (a MiniZinc suite without a checker): not a
    /// problem, but never `CHECKED` either.
    pub fn unchecked(&self) -> Vec<String> {
        self.jobs
            .iter()
            .filter_map(|j| match j {
                JobReport::Benchmark(b) if b.unchecked => Some(format!(
                    "job {} ({}): its MiniZinc suite has no solution checker, so nothing \
                     verified its answers",
                    b.head.id, b.head.name
                )),
                _ => None,
            })
            .collect()
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum JobReport {
    Count(CountReport),
    Benchmark(BenchReport),
}

impl JobReport {
    pub fn head(&self) -> &Head {
        match self {
            JobReport::Count(c) => &c.head,
            JobReport::Benchmark(b) => &b.head,
        }
    }

    pub fn problems(&self) -> Vec<String> {
        let head = self.head();
        let job = format!("job {} ({})", head.id, head.name);
        let mut out: Vec<String> = head
            .alarms
            .iter()
            .map(|a| format!("{job}: alarm {a}"))
            .collect();
        if head.state != JobState::Done {
            out.push(format!("{job}: {}", head.state.as_str()));
        }
        if let JobReport::Benchmark(b) = self {
            out.extend(b.wrong.iter().map(|w| format!("{job}: wrong run {w}")));
            out.extend(
                b.disagreements
                    .iter()
                    .map(|d| format!("{job}: contradiction {d}")),
            );
        }
        out
    }
}

/// What every job's report starts with.
#[derive(Debug, Clone, Serialize)]
pub struct Head {
    pub id: u64,
    pub name: String,
    #[serde(serialize_with = "serialize_state")]
    pub state: JobState,
    /// Submission to the last accepted result (or to now for a running job), seconds.
    pub wall_seconds: f64,
    /// `kind on unit N: message`.
    pub alarms: Vec<String>,
    /// Leases of the job's units that ended with their worker.
    pub deaths: store::JobDeaths,
}

impl Head {
    /// `11 worker deaths on 2 units (the most: unit 1, 10)`, or `None` without a death.
    pub fn deaths_line(&self) -> Option<String> {
        let d = &self.deaths;
        let store::UnitDeaths { unit, deaths: n } = d.most?;
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        Some(format!(
            "{} worker death{} on {} unit{} (the most: unit {unit}, {n})",
            d.deaths,
            plural(d.deaths),
            d.units,
            plural(d.units)
        ))
    }
}

fn serialize_state<S: serde::Serializer>(state: &JobState, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(state.as_str())
}

/// The sums over a counting job's counted units, exact (`Count`: of any size), in decimal.
#[derive(Debug, Clone, Serialize)]
pub struct Sums {
    /// Sum of the accepted counts.
    pub counted: String,
    /// Sum of weight x count (equal to `counted` without weights).
    pub weighted_total: String,
    /// Symmetry factor x weighted total.
    pub total: String,
}

/// A counting job.
#[derive(Debug, Clone, Serialize)]
pub struct CountReport {
    pub head: Head,
    /// The job's count: its sums when the job is done (every unit counted), else `None`.
    pub count: Option<Sums>,
    /// An unfinished job's sums over the units counted so far: never its count.
    pub so_far: Option<Sums>,
    /// Whether units carry weights other than 1.
    pub weighted: bool,
    pub symmetry_factor: String,
    pub units: u64,
    pub units_counted: u64,
    pub nodes: u64,
    pub updates: u64,
    /// Estimated over measured nodes per unit with an estimate: quantiles.
    pub estimate_ratio: Option<Quantiles>,
    /// Per-unit (estimate, measured) nodes, for the chart.
    #[serde(skip)]
    pub estimates: Vec<(f64, f64)>,
    /// Per-unit wall seconds.
    pub unit_seconds: Option<Quantiles>,
    /// Longest over median unit time.
    pub balance: Option<f64>,
    pub workers: Vec<WorkerShare>,
    /// Sum of the unit wall times.
    pub sum_unit_seconds: f64,
    /// Sum of unit times over the job's wall time.
    pub speedup: Option<f64>,
    /// An orbit count's figures (its units are class terms).
    pub orbits: Option<OrbitFigures>,
    /// What the job's spec expects (`expected_total`, `expected_orbits`), decimal.
    pub expected_total: Option<String>,
    pub expected_orbits: Option<String>,
}

/// An orbit count's figures: the group's order (the sum of its class sizes) and, for a
/// finished job, the orbits, `sum(class size x term) / |G|`, or why there are none.
#[derive(Debug, Clone, Serialize)]
pub struct OrbitFigures {
    pub group_order: String,
    pub orbits: Option<String>,
    /// Why a finished job has no orbit count (its sum does not divide).
    pub error: Option<String>,
}

impl CountReport {
    /// What the spec expected, in words (`total 288, orbits 2`), if anything.
    pub fn expected(&self) -> Option<String> {
        let figures: Vec<String> = [
            ("total", &self.expected_total),
            ("orbits", &self.expected_orbits),
        ]
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v}")))
        .collect();
        (!figures.is_empty()).then(|| figures.join(", "))
    }

    /// The job's result against its spec's expectation: `Some(true)` when it matched,
    /// `Some(false)` when it did not, `None` when nothing was expected or the job has no
    /// result yet. An orbit count is judged by its orbits, others by their total.
    pub fn matched(&self) -> Option<bool> {
        match (&self.orbits, &self.expected_orbits, &self.expected_total) {
            (Some(o), Some(want), _) => {
                let done = self.count.is_some();
                done.then(|| o.orbits.as_deref() == Some(want.as_str()))
            }
            (_, _, Some(want)) => Some(self.count.as_ref()?.total == *want),
            _ => None,
        }
    }

    /// The sums over the counted units, and whether they are the job's count.
    pub fn sums(&self) -> (&Sums, bool) {
        match (&self.count, &self.so_far) {
            (Some(c), _) => (c, true),
            (None, Some(s)) => (s, false),
            (None, None) => unreachable!("count_report sets one of count and so_far"),
        }
    }
}

/// Min, quartiles, max.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Quantiles {
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub max: f64,
}

impl Quantiles {
    pub fn of(values: &[f64]) -> Option<Quantiles> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let pos = q * (v.len() - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
        };
        Some(Quantiles {
            min: v[0],
            q1: at(0.25),
            median: at(0.5),
            q3: at(0.75),
            max: v[v.len() - 1],
        })
    }
}

/// One worker's part of a counting job.
#[derive(Debug, Clone, Serialize)]
pub struct WorkerShare {
    /// The worker's name (`coordinator` for units counted at partition time).
    pub worker: String,
    pub host: String,
    pub units: u64,
    pub seconds: f64,
    /// Its share of the units' total time.
    pub share: f64,
}

/// A benchmark job.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub head: Head,
    /// The family of its instances.
    pub family: Family,
    pub instances: usize,
    pub hosts: Vec<String>,
    /// Contradictions between configurations (`instance: config: why`).
    pub disagreements: Vec<String>,
    /// Current runs recorded `wrong` (`instance under config: why`).
    pub wrong: Vec<String>,
    /// Domino: the gap between the best objectives and the best proven bounds, which opens
    /// the report (`super::gap`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<GapTable>,
    /// Domino: configuration x difficulty.
    pub rows: Vec<Row>,
    /// Domino and MiniZinc suite: each instance's best objective.
    pub best: Vec<Best>,
    /// A MiniZinc suite without a solution checker: nothing verified its answers, which the
    /// report's first line says (never `CHECKED`). Left out of the JSON when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unchecked: bool,
    /// Sudoku: configuration x puzzle file.
    pub puzzle_rows: Vec<PuzzleRow>,
    /// Sudoku: the hardest puzzles of each file by the Monte Carlo tree estimate (three per
    /// file).
    pub hardest: Vec<HardPuzzle>,
    /// The current runs, in unit order.
    #[serde(skip)]
    pub runs: Vec<Run>,
    /// Instances of the frozen batch files, by id.
    #[serde(skip)]
    pub frozen: BTreeMap<String, Instance>,
    /// The definition of each configuration the job froze (none for jobs submitted before
    /// definitions were frozen), with the mean of its runs' solver statistics.
    pub definitions: Vec<Definition>,
}

/// A current run with what the charts need of its instance.
#[derive(Debug, Clone)]
pub struct Run {
    pub record: RunRecord,
    pub batch: String,
    /// A domino instance's difficulty.
    pub difficulty: Option<Difficulty>,
    pub n: Option<u32>,
    pub tiles: Option<usize>,
}

/// A configuration on the instances of one difficulty (or `all`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub config: String,
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
    /// Mean of the wall time of proven runs and twice the limit for the others, over the runs
    /// that ran (an `unavailable` run is no measurement); `None` when none ran.
    pub par2: Option<f64>,
}

/// A configuration on the puzzles of one Sudoku file (or `all`), from the current runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PuzzleRow {
    pub config: String,
    pub file: String,
    /// Units (slices) run, and those whose configuration was unavailable.
    pub units: usize,
    pub unavailable_units: usize,
    pub puzzles: usize,
    /// Puzzles answered (unique, solved, multiple or none).
    pub answered: usize,
    pub unique: usize,
    pub multiple: usize,
    pub none: usize,
    pub timeout: usize,
    pub error: usize,
    pub wrong: usize,
    /// Answered puzzles per second of solving (`cores::sudoku::bench::puzzles_per_second`).
    pub puzzles_per_second: Option<f64>,
    /// Solving time per answered puzzle, milliseconds.
    pub median_ms: Option<f64>,
    pub max_ms: Option<f64>,
    /// Mean PS-1-2 search count and Monte Carlo tree estimate of the puzzles measured.
    pub mean_searches: Option<f64>,
    pub mean_tree_nodes: Option<f64>,
}

/// One of the hardest puzzles of a Sudoku job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HardPuzzle {
    pub file: String,
    pub line: usize,
    pub tree_nodes: f64,
    pub searches: u64,
    /// The slowest configuration's seconds on it, and that configuration.
    pub slowest_seconds: f64,
    pub slowest: String,
}

/// An instance's best verified objective and the configurations that reached it.
#[derive(Debug, Clone, Serialize)]
pub struct Best {
    pub instance: String,
    pub difficulty: String,
    /// Domino: the most tiles; a MiniZinc suite: the best `_objective` in the model's sense.
    pub objective: Option<i64>,
    /// Domino: the smallest proven bound of any configuration (a MiniZinc suite: none).
    pub bound: Option<i64>,
    pub proven: bool,
    pub reached_by: Vec<String>,
}

/// Reads `job` from `pool` into its report.
pub async fn job_report(pool: &SqlitePool, head: &JobHead) -> anyhow::Result<JobReport> {
    let alarms = store::job_alarms(pool, head.id)
        .await?
        .into_iter()
        .map(|(kind, unit, message)| match unit {
            Some(u) => format!("{kind} on unit {u}: {message}"),
            None => format!("{kind}: {message}"),
        })
        .collect();
    let mut h = Head {
        id: head.id,
        name: head.name.clone(),
        state: head.state,
        wall_seconds: 0.0,
        alarms,
        deaths: store::job_deaths(pool, head.id).await?,
    };
    Ok(match head.kind {
        JobKind::Count => {
            let units = store::count_units(pool, head.id).await?;
            h.wall_seconds = wall(head, None);
            let spec = store::job_texts(pool, head.id).await?.map(|t| t.spec);
            let expected = spec
                .and_then(|t| crate::spec::count::expected(&t, &head.name))
                .unwrap_or_default();
            JobReport::Count(count_report(
                h,
                head.symmetry_factor.clone(),
                &units,
                expected,
            ))
        }
        JobKind::Benchmark => {
            let runs = store::bench_runs(pool, head.id).await?;
            let files = store::job_files(pool, head.id).await?;
            let last = runs.iter().map(|r| r.accepted_at).max();
            h.wall_seconds = wall(head, last);
            let family = store::bench_family(pool, head.id).await?;
            let mut frozen = BTreeMap::new();
            let domino_batches = files
                .iter()
                .filter(|f| f.kind == FileKind::Batch && family == Family::Domino);
            for f in domino_batches {
                let batch = domino::parse_batch(&f.text)
                    .map_err(|e| anyhow::anyhow!("frozen {}:{}: {}", f.name, e.line, e.problem))?;
                frozen.extend(batch.into_iter().map(|i| (i.id.clone(), i)));
            }
            let shas: Vec<String> = frozen.values().map(domino::instance_sha256).collect();
            let certs = store::certificates(pool, &shas).await?;
            let mut report = bench_report(h, family, &runs, frozen);
            if let Some(g) = report.gap.as_mut() {
                let problems = g.add_certificates(&certs, &report.frozen);
                report.disagreements.extend(problems);
            }
            report.definitions = definitions(&files, &report.runs)?;
            // A MiniZinc suite's checker is one of its model files (a configuration's own
            // files are frozen under its name, `NAME/FILE`).
            report.unchecked = family == Family::MznSuite
                && !files.iter().any(|f| {
                    f.kind == FileKind::Model
                        && !f.name.contains('/')
                        && (f.name.ends_with(".mzc") || f.name.ends_with(".mzc.mzn"))
                });
            JobReport::Benchmark(report)
        }
    })
}

/// Seconds from submission to `last` (a finished job: its end).
fn wall(head: &JobHead, last: Option<u64>) -> f64 {
    let end = head.finished_at.or(last).unwrap_or(head.created_at);
    end.saturating_sub(head.created_at) as f64 / 1000.0
}

/// The counting report of a job's units.
/// `expected`: the spec's `expected_total` and `expected_orbits`.
pub fn count_report(
    head: Head,
    factor: Count,
    units: &[CountUnit],
    expected: (Option<Count>, Option<Count>),
) -> CountReport {
    let counted_units: Vec<(&CountUnit, &store::CountResult)> = units
        .iter()
        .filter_map(|u| u.result.as_ref().map(|r| (u, r)))
        .collect();
    // Exact sums (`Count`), summed here in Rust, never in SQL.
    let counted: Count = counted_units.iter().map(|(_, r)| &r.solutions).sum();
    let weighted_total: Count = counted_units
        .iter()
        .map(|(u, r)| &u.weight * &r.solutions)
        .sum();
    let total = &weighted_total * &factor;
    let estimates: Vec<(f64, f64)> = counted_units
        .iter()
        .filter_map(|(u, r)| Some((u.estimate_nodes?, r.nodes as f64)))
        .filter(|(e, m)| *e > 0.0 && *m > 0.0)
        .collect();
    let ratios: Vec<f64> = estimates.iter().map(|(e, m)| e / m).collect();
    let times: Vec<f64> = counted_units.iter().map(|(_, r)| r.wall_seconds).collect();
    let unit_seconds = Quantiles::of(&times);
    let sum_unit_seconds: f64 = times.iter().sum();
    let mut by_worker: BTreeMap<(String, String), (u64, f64)> = BTreeMap::new();
    for (_, r) in &counted_units {
        let name = r.worker.clone().unwrap_or_else(|| "coordinator".into());
        let e = by_worker.entry((name, r.host.clone())).or_default();
        e.0 += 1;
        e.1 += r.wall_seconds;
    }
    let workers = by_worker
        .into_iter()
        .map(|((worker, host), (units, seconds))| WorkerShare {
            worker,
            host,
            units,
            seconds,
            share: if sum_unit_seconds > 0.0 {
                seconds / sum_unit_seconds
            } else {
                0.0
            },
        })
        .collect();
    let balance = unit_seconds
        .filter(|q| q.median > 0.0)
        .map(|q| q.max / q.median);
    let speedup = (head.wall_seconds > 0.0).then(|| sum_unit_seconds / head.wall_seconds);
    let sums = Sums {
        counted: counted.to_string(),
        weighted_total: weighted_total.to_string(),
        total: total.to_string(),
    };
    // Only a finished job whose every unit is counted has a count.
    let complete = head.state == JobState::Done && counted_units.len() == units.len();
    let orbits = orbit_figures(units, complete.then_some(&weighted_total));
    CountReport {
        count: complete.then(|| sums.clone()),
        so_far: (!complete).then_some(sums),
        weighted: units.iter().any(|u| u.weight != Count::one()),
        symmetry_factor: factor.to_string(),
        units: units.len() as u64,
        units_counted: counted_units.len() as u64,
        nodes: counted_units.iter().map(|(_, r)| r.nodes).sum(),
        updates: counted_units.iter().map(|(_, r)| r.updates).sum(),
        estimate_ratio: Quantiles::of(&ratios),
        estimates,
        unit_seconds,
        balance,
        workers,
        sum_unit_seconds,
        speedup,
        orbits,
        expected_total: expected.0.map(|e| e.to_string()),
        expected_orbits: expected.1.map(|e| e.to_string()),
        head,
    }
}

/// The orbit figures of a job whose units are class terms (`None` for any other job);
/// `weighted`: a finished job's sum of weight x count.
fn orbit_figures(units: &[CountUnit], weighted: Option<&Count>) -> Option<OrbitFigures> {
    if units.is_empty()
        || units
            .iter()
            .any(|u| u.term.as_ref().and_then(|t| t.orbit()).is_none())
    {
        return None;
    }
    let order: Count = units.iter().map(|u| &u.weight).sum();
    // One term of size 1: the weighted sum is already sum(class size x term).
    let result =
        weighted.map(|w| cores::orbit_term::burnside_quotient(&order, [(Count::one(), w.clone())]));
    Some(OrbitFigures {
        group_order: order.to_string(),
        orbits: result
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .map(Count::to_string),
        error: result.and_then(Result::err).map(|e| e.to_string()),
    })
}

/// The benchmark report of a job's stored runs.
pub fn bench_report(
    head: Head,
    family: Family,
    runs: &[BenchRun],
    frozen: BTreeMap<String, Instance>,
) -> BenchReport {
    let current: Vec<Run> = runs
        .iter()
        .filter(|r| r.current)
        .map(|r| {
            let inst = frozen.get(&r.run.record.instance);
            Run {
                record: r.run.record.clone(),
                batch: r.batch.clone(),
                difficulty: r.run.difficulty,
                n: inst.map(|i| i.n),
                tiles: inst.map(|i| i.tiles.len()),
            }
        })
        .collect();
    let mut by_instance: BTreeMap<&str, Vec<&Run>> = BTreeMap::new();
    for r in &current {
        by_instance.entry(&r.record.instance).or_default().push(r);
    }
    let disagreements = by_instance
        .values()
        .flat_map(|rs| cross_check(rs.iter().map(|r| &r.record)))
        .map(|c| c.to_string())
        .collect();
    let wrong = current
        .iter()
        .filter(|r| r.record.status == Status::Wrong)
        .map(|r| {
            let why = r.record.message.as_deref().unwrap_or("");
            let why = why.lines().next().unwrap_or("");
            format!("{} under {}: {why}", r.record.instance, r.record.config)
        })
        .collect();
    let sudoku = family == Family::Sudoku;
    let domino = family == Family::Domino;
    let best = if sudoku {
        Vec::new()
    } else {
        by_instance.iter().map(|(id, rs)| best_of(id, rs)).collect()
    };
    let hosts: BTreeSet<String> = current
        .iter()
        .map(|r| {
            let h = &r.record.host;
            format!("{} dancehall {}", h.hostname, h.dancehall_version)
        })
        .collect();
    let (puzzle_rows, hardest) = if sudoku {
        let known = difficulties(&current);
        (puzzle_table(&current, &known), hardest(&current, &known))
    } else {
        (Vec::new(), Vec::new())
    };
    BenchReport {
        head,
        family,
        instances: by_instance.len(),
        hosts: hosts.into_iter().collect(),
        disagreements,
        wrong,
        gap: domino.then(|| gap_table(&current, &frozen)),
        rows: if sudoku { Vec::new() } else { table(&current) },
        best,
        unchecked: false,
        puzzle_rows,
        hardest,
        runs: current,
        frozen,
        definitions: Vec::new(),
    }
}

/// A configuration of a benchmark job as it froze it, and its solver statistics.
#[derive(Debug, Clone, Serialize)]
pub struct Definition {
    pub name: String,
    /// The built-in configuration it is or starts from.
    pub base: Option<String>,
    /// Declared in the spec (not a built-in as it is).
    pub declared: bool,
    /// `built-in`, `minizinc SOLVER`, `clingo`, `cp-sat`, `command PROGRAM`.
    pub engine: String,
    pub about: String,
    /// The definition's SHA-256 (what its runs carry).
    pub sha256: String,
    /// Mean of each statistic over the current runs that report it, with how many did.
    pub stats: BTreeMap<String, (f64, usize)>,
}

/// The statistics a table shows, in order, when a run reports them (MiniZinc's and
/// clingo's names, then CP-SAT's and native's).
pub const SHOWN_STATS: &[&str] = &[
    "nodes",
    "failures",
    "restarts",
    "peakDepth",
    "choices",
    "conflicts",
    // CP-SAT's (`domino-cpsat.py`).
    "branches",
    // native (`cores::domino::NativeStats`): seconds per search, CaDiCaL's refutations.
    "search_s",
    "anneal_s",
    "improve_s",
    "sat_s",
    "sat_refuted",
];

/// The definitions of a job's configurations, with their runs' statistics: those frozen with
/// it (`config` files: declared configurations), and for every other configuration its runs
/// name, the built-in one with the job's frozen models (what its workers ran and hashed).
pub fn definitions(files: &[FrozenFile], runs: &[Run]) -> anyhow::Result<Vec<Definition>> {
    let mut defs: Vec<(ConfigDef, String)> = Vec::new();
    for f in files.iter().filter(|f| f.kind == FileKind::Config) {
        let def = ConfigDef::from_json(&f.text)
            .map_err(|e| anyhow::anyhow!("frozen configuration {}: {e}", f.name))?;
        defs.push((def, f.sha256.clone()));
    }
    let model = |name: &str| {
        files
            .iter()
            .find(|f| f.kind == FileKind::Model && f.name == name)
            .map(|f| f.text.clone())
            .or_else(|| worker::bench::models::model(name).map(|m| m.text.to_owned()))
            .unwrap_or_default()
    };
    let names: BTreeSet<&str> = runs.iter().map(|r| r.record.config.as_str()).collect();
    for name in names {
        if defs.iter().any(|(d, _)| d.name == name) {
            continue;
        }
        if let Some(c) = worker::bench::config(name) {
            let def = c.definition_with(&model);
            let hash = worker::bench::sha256_hex(&def.to_json());
            defs.push((def, hash));
        }
    }
    defs.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let mut out = Vec::new();
    for (def, sha256) in defs {
        let engine = match &def.engine {
            EngineDef::BuiltIn => "built-in".to_owned(),
            EngineDef::MiniZinc { solver, .. } => format!("minizinc {solver}"),
            EngineDef::Clingo { .. } => "clingo".to_owned(),
            EngineDef::CpSat { .. } => "cp-sat".to_owned(),
            EngineDef::Command { argv, .. } => {
                format!("command {}", argv.first().map_or("", String::as_str))
            }
        };
        let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for r in runs.iter().filter(|r| r.record.config == def.name) {
            for (k, v) in &r.record.stats {
                let e = sums.entry(k.clone()).or_default();
                e.0 += v;
                e.1 += 1;
            }
        }
        let stats = sums
            .into_iter()
            .map(|(k, (sum, n))| (k, (sum / n as f64, n)))
            .collect();
        let declared = def.base.as_deref() != Some(def.name.as_str())
            || worker::bench::config(&def.name).is_none_or(|c| c.definition() != def);
        out.push(Definition {
            sha256,
            declared,
            engine,
            about: def.about,
            base: def.base,
            name: def.name,
            stats,
        });
    }
    Ok(out)
}

fn best_of(id: &str, rs: &[&Run]) -> Best {
    let solved = |r: &&&Run| r.record.status.is_solved();
    if let Some(a) = rs.iter().find_map(|r| r.record.mzn()) {
        return mzn_best_of(id, a.sense, rs);
    }
    let objective = rs
        .iter()
        .filter(solved)
        .filter_map(|r| r.record.objective_value())
        .max();
    let bound = rs
        .iter()
        .filter(|r| r.record.status != Status::Wrong)
        .filter_map(|r| r.record.bound().map(i64::from))
        .min();
    let reached_by = rs
        .iter()
        .filter(solved)
        .filter(|r| objective.is_some() && r.record.objective_value() == objective)
        .map(|r| r.record.config.clone())
        .collect();
    Best {
        instance: id.to_owned(),
        difficulty: rs[0].difficulty.map_or("-", Difficulty::as_str).to_owned(),
        objective,
        bound,
        proven: objective.is_some() && objective == bound,
        reached_by,
    }
}

/// A MiniZinc suite instance's best objective in the model's `sense` (a satisfaction
/// problem's: none), proven when a configuration proved it (optimal, a satisfaction problem
/// solved, or unsatisfiable), and the configurations that reached or proved it.
fn mzn_best_of(id: &str, sense: Sense, rs: &[&Run]) -> Best {
    let solved: Vec<&&Run> = rs.iter().filter(|r| r.record.status.is_solved()).collect();
    let objective = sense.best(solved.iter().filter_map(|r| r.record.objective_value()));
    let reached_by: Vec<String> = if sense == Sense::Satisfy {
        solved.iter().map(|r| r.record.config.clone()).collect()
    } else {
        solved
            .iter()
            .filter(|r| objective.is_some() && r.record.objective_value() == objective)
            .map(|r| r.record.config.clone())
            .collect()
    };
    let unsat: Vec<String> = rs
        .iter()
        .filter(|r| r.record.status == Status::Unsatisfiable)
        .map(|r| format!("{} (unsatisfiable)", r.record.config))
        .collect();
    let proven = rs.iter().any(|r| {
        r.record.status.is_finished()
            && (r.record.status == Status::Unsatisfiable || r.record.objective_value() == objective)
    });
    Best {
        instance: id.to_owned(),
        difficulty: "-".to_owned(),
        objective,
        bound: None,
        proven,
        reached_by: reached_by.into_iter().chain(unsat).collect(),
    }
}

/// Each puzzle's difficulty, by (file, line), from whichever run measured it (a benchmark
/// measures it once, in one configuration's units).
fn difficulties(runs: &[Run]) -> BTreeMap<(&str, usize), PuzzleDifficulty> {
    let mut out = BTreeMap::new();
    for r in runs {
        for p in r.record.puzzles() {
            if let Some(d) = p.difficulty {
                out.insert((r.batch.as_str(), p.line), d);
            }
        }
    }
    out
}

/// The Sudoku table: per configuration (first-seen order), one row per puzzle file and one
/// for all files when there are several.
pub fn puzzle_table(
    runs: &[Run],
    known: &BTreeMap<(&str, usize), PuzzleDifficulty>,
) -> Vec<PuzzleRow> {
    let mut rows = Vec::new();
    for c in configs(runs) {
        let mine: Vec<&Run> = runs.iter().filter(|r| r.record.config == c).collect();
        let mut files: Vec<&str> = Vec::new();
        for r in &mine {
            if !files.contains(&r.batch.as_str()) {
                files.push(&r.batch);
            }
        }
        for f in &files {
            let part: Vec<&Run> = mine.iter().copied().filter(|r| r.batch == *f).collect();
            rows.push(puzzle_row(&c, f, &part, known));
        }
        if files.len() > 1 {
            rows.push(puzzle_row(&c, "all", &mine, known));
        }
    }
    rows
}

fn puzzle_row(
    config: &str,
    file: &str,
    runs: &[&Run],
    known: &BTreeMap<(&str, usize), PuzzleDifficulty>,
) -> PuzzleRow {
    let puzzles: Vec<(&str, &PuzzleRun)> = runs
        .iter()
        .flat_map(|r| r.record.puzzles().iter().map(|p| (r.batch.as_str(), p)))
        .collect();
    let count = |s: PuzzleStatus| puzzles.iter().filter(|(_, p)| p.status == s).count();
    let answered: Vec<f64> = puzzles
        .iter()
        .filter(|(_, p)| p.status.is_answer())
        .map(|(_, p)| p.seconds * 1e3)
        .collect();
    let measured: Vec<&PuzzleDifficulty> = puzzles
        .iter()
        .filter_map(|(f, p)| known.get(&(*f, p.line)))
        .collect();
    let mean = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let q = Quantiles::of(&answered);
    PuzzleRow {
        config: config.to_string(),
        file: file.to_string(),
        units: runs.len(),
        unavailable_units: runs
            .iter()
            .filter(|r| r.record.status == Status::Unavailable)
            .count(),
        puzzles: puzzles.len(),
        answered: answered.len(),
        unique: count(PuzzleStatus::Unique) + count(PuzzleStatus::Solved),
        multiple: count(PuzzleStatus::Multiple),
        none: count(PuzzleStatus::NoSolution),
        timeout: count(PuzzleStatus::Timeout),
        error: count(PuzzleStatus::Error),
        wrong: count(PuzzleStatus::Wrong),
        puzzles_per_second: puzzles_per_second(puzzles.iter().map(|(_, p)| *p)),
        median_ms: q.map(|q| q.median),
        max_ms: q.map(|q| q.max),
        mean_searches: mean(measured.iter().map(|d| d.ps12_searches as f64).collect()),
        mean_tree_nodes: mean(measured.iter().map(|d| d.tree_nodes).collect()),
    }
}

/// Hardest puzzles shown per file.
const HARDEST_PER_FILE: usize = 3;

/// The puzzles of each file with the largest tree estimate (per file: one file's puzzles with
/// several solutions have far larger trees and would fill a global list), with the slowest
/// configuration on each.
fn hardest(runs: &[Run], known: &BTreeMap<(&str, usize), PuzzleDifficulty>) -> Vec<HardPuzzle> {
    let mut files: Vec<&str> = Vec::new();
    for r in runs {
        if !files.contains(&r.batch.as_str()) {
            files.push(&r.batch);
        }
    }
    let mut top: Vec<(&(&str, usize), &PuzzleDifficulty)> = Vec::new();
    for f in files {
        let mut of: Vec<_> = known.iter().filter(|((file, _), _)| *file == f).collect();
        of.sort_by(|a, b| b.1.tree_nodes.total_cmp(&a.1.tree_nodes));
        top.extend(of.into_iter().take(HARDEST_PER_FILE));
    }
    top.into_iter()
        .map(|(&(file, line), d)| {
            let slowest = runs
                .iter()
                .filter(|r| r.batch == file)
                .flat_map(|r| {
                    r.record
                        .puzzles()
                        .iter()
                        .filter(|p| p.line == line && p.status.is_answer())
                        .map(move |p| (p.seconds, &r.record.config))
                })
                .max_by(|a, b| a.0.total_cmp(&b.0));
            HardPuzzle {
                file: file.to_string(),
                line,
                tree_nodes: d.tree_nodes,
                searches: d.ps12_searches,
                slowest_seconds: slowest.map_or(0.0, |s| s.0),
                slowest: slowest.map_or(String::new(), |s| s.1.clone()),
            }
        })
        .collect()
}

/// Median of `v` (0 when empty).
pub fn median(v: &[f64]) -> f64 {
    Quantiles::of(v).map_or(0.0, |q| q.median)
}

fn row(config: &str, difficulty: &str, runs: &[&Run]) -> Row {
    let count = |s: Status| runs.iter().filter(|r| r.record.status == s).count();
    let times: Vec<f64> = runs.iter().map(|r| r.record.wall_seconds).collect();
    let ran: Vec<f64> = runs
        .iter()
        .filter(|r| r.record.status != Status::Unavailable)
        .map(|r| {
            if r.record.status.is_finished() {
                r.record.wall_seconds
            } else {
                2.0 * r.record.time_limit_seconds
            }
        })
        .collect();
    let par2 = (!ran.is_empty()).then(|| ran.iter().sum::<f64>() / ran.len() as f64);
    Row {
        config: config.to_string(),
        difficulty: difficulty.to_string(),
        runs: runs.len(),
        // Proven: optimal, and a MiniZinc suite's solved satisfaction problems and proofs of
        // unsatisfiability.
        optimal: runs
            .iter()
            .filter(|r| r.record.status.is_finished())
            .count(),
        feasible: count(Status::Feasible),
        timeout: count(Status::Timeout),
        unavailable: count(Status::Unavailable),
        error: count(Status::Error),
        wrong: count(Status::Wrong),
        median_seconds: median(&times),
        total_seconds: times.iter().sum(),
        par2,
    }
}

/// The configurations in first-seen order.
pub fn configs(runs: &[Run]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        if !out.contains(&r.record.config) {
            out.push(r.record.config.clone());
        }
    }
    out
}

/// Per configuration (in first-seen order), one row per difficulty present and one for all.
pub fn table(runs: &[Run]) -> Vec<Row> {
    let mut rows = Vec::new();
    for c in configs(runs) {
        let mine: Vec<&Run> = runs.iter().filter(|r| r.record.config == c).collect();
        for &d in Difficulty::ALL {
            let part: Vec<&Run> = mine
                .iter()
                .copied()
                .filter(|r| r.difficulty == Some(d))
                .collect();
            if !part.is_empty() {
                rows.push(row(&c, d.as_str(), &part));
            }
        }
        rows.push(row(&c, "all", &mine));
    }
    rows
}

impl BenchReport {
    /// Instances some configuration proved optimal but `config` did not.
    pub fn proven_elsewhere(&self, config: &str) -> Vec<String> {
        let proven = |pred: &dyn Fn(&Run) -> bool| -> BTreeSet<&str> {
            self.runs
                .iter()
                .filter(|r| r.record.status.is_finished() && pred(r))
                .map(|r| r.record.instance.as_str())
                .collect()
        };
        let by_any = proven(&|_| true);
        let by_it = proven(&|r| r.record.config == config);
        by_any.difference(&by_it).map(|s| s.to_string()).collect()
    }

    /// The best verified placement of each instance, checked again on its frozen instance.
    pub fn best_placements(&self) -> Vec<(&Instance, &RunRecord)> {
        let mut best: BTreeMap<&str, &RunRecord> = BTreeMap::new();
        for r in &self.runs {
            let rec = &r.record;
            let better = best
                .get(rec.instance.as_str())
                .is_none_or(|b| rec.objective() > b.objective());
            if rec.status.is_solved() && better {
                best.insert(&rec.instance, rec);
            }
        }
        best.into_iter()
            .filter_map(|(id, rec)| {
                let inst = self.frozen.get(id)?;
                // A picture of something the verifier refutes would be a lie.
                domino::verify(inst, rec.placement()).ok()?;
                Some((inst, rec))
            })
            .collect()
    }
}
