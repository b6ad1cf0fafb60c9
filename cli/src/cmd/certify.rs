//! `dancehall domino certify`: a bound of the native optimiser checked outside it. Native
//! proves "`k` tiles do not fit" with CaDiCaL in process, whose refutations leave no proof.
//! Here the same formula (`cores::domino::FitCnf`, DIMACS) goes to another solver binary,
//! Debian's `cadical`, which refutes it and writes a DRAT proof, and the proof goes to an
//! independent checker, `rate` (crates.io), which replays it: only its `s VERIFIED` makes the
//! bound certified. Should the solver find a model instead, it is decoded to a placement and
//! judged by `cores::domino::verify`: `k` tiles then fit, and the claim is wrong. Both tools
//! are installed by `scripts/install-solvers.sh`.
//!
//! With `--db FILE`, what was found is also recorded in that results database
//! (`bound_certificates`, a `cores::domino::Certificate`), where the report shows it beside the
//! benchmark runs on the same instance: a certified refutation, or a verified placement of the
//! tiles (which contradicts any bound below it). A rejected proof or a time limit proves
//! nothing and records nothing. The database must exist; `certify` holds its lock from start
//! to end, as a coordinator does, so one in use by a running coordinator is refused before
//! anything runs, and brings its schema up to date (its migrations), as a coordinator does.
//!
//! With `--job N` (and `--db`), the claims come from a benchmark job of that database: for
//! each instance whose best bound `B` (the report's gap table, any configuration) is below
//! its count bound and not yet certified, "`B + 1` tiles do not fit", certified one after the
//! other and each recorded as it ends, so that an overnight run's bounds are checked the next
//! morning by one command. Any claim not certified makes the command exit 1, naming them; a
//! claim whose tiles fit is a wrong bound of the run that proved it, and the command says so
//! first (`WRONG BOUND`), the placement recorded so that the report fails on it too.
//!
//! Both tools run through the benchmark's process runner (`worker::bench::process`): each in a
//! process group of its own, stopped at its wall-time limit (`--time-limit` for the solver,
//! `--check-time-limit` for the checker), under `--memory-limit` as a benchmark run is, and
//! measured (wall time, peak memory, kept in the record).
//!
//! Exit: 0 certified; 1 not certified (the tiles fit, the proof is rejected, a tool stopped at
//! a limit or ended without a verdict), said first on stderr; 2 bad input or a missing tool.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use coordinator::store;
use cores::domino::{self, Certificate, FitCnf, Placement, Verdict};

use worker::bench::process::{run_process, LineSink, ProcessLimits, ProcessOutcome};

use crate::exit::user_error;
use crate::report::gap::{GapInstance, GapTable};

/// The solver that writes the proof, and the checker that replays it.
const SOLVER: &str = "cadical";
const CHECKER: &str = "rate";

#[derive(clap::Args, Debug)]
pub struct CertifyArgs {
    /// A batch file: one JSON instance per line.
    #[arg(required_unless_present = "job", conflicts_with = "job")]
    pub file: Option<PathBuf>,
    /// The instance (needed when the file holds more than one).
    #[arg(long, conflicts_with = "job")]
    pub id: Option<String>,
    /// The claim to certify: this many tiles do not fit (so the optimum is at most one
    /// fewer).
    #[arg(
        long,
        value_name = "K",
        required_unless_present = "job",
        conflicts_with = "job"
    )]
    pub tiles: Option<u32>,
    /// Certify the bounds of this benchmark job of --db instead: for each instance whose
    /// best bound B (of any configuration) is below its count bound min(tiles, n^2/3) and
    /// not yet certified, the claim "B + 1 tiles do not fit", one after the other, each
    /// recorded as it ends.
    #[arg(long, value_name = "N", requires = "db")]
    pub job: Option<u64>,
    /// Give the solver at most this many seconds of wall time (default: no limit); with
    /// --job, each claim's solver.
    #[arg(long, value_name = "S")]
    pub time_limit: Option<u32>,
    /// Give the proof checker at most this many seconds of wall time (default: no limit).
    #[arg(long, value_name = "S")]
    pub check_time_limit: Option<u32>,
    /// Memory limit of the solver and of the checker, each, in MiB (the run's cgroup
    /// `memory.max` where this machine allows it, else `RLIMIT_AS`; default: none).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    pub memory_limit: Option<u64>,
    /// CaDiCaL's configuration: `unsat` for a claim you expect to be refuted, `sat` or
    /// `default` for one you expect to fit (CaDiCaL's `--unsat` is slow to find a model:
    /// on the tight suite's b01-t1, 32 tiles were placed in 194 s by the default
    /// configuration and not within 400 s by `--unsat`). A placement is verified and a proof
    /// checked whichever it is; the certificate's solver names it.
    #[arg(long, value_enum, value_name = "CONFIG", default_value_t = SolverConfig::Unsat)]
    pub solver_config: SolverConfig,
    /// Check this DRAT proof of the formula instead of running the solver.
    #[arg(long, value_name = "FILE", conflicts_with = "job")]
    pub proof: Option<PathBuf>,
    /// Keep the formula (K.cnf) and the proof (K.drat) in DIR (default: a temporary folder,
    /// removed at the end); with --job, ID-K.cnf and ID-K.drat.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Record what was found (a certified refutation, or a verified placement of the tiles)
    /// in this results database, which must exist; the report shows it.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
}

/// The configuration `cadical` runs in (`--solver-config`).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolverConfig {
    /// `--unsat`: tuned to refute.
    Unsat,
    /// `--sat`: tuned to find a model.
    Sat,
    /// CaDiCaL's defaults.
    Default,
}

impl SolverConfig {
    /// The option selecting it, if any.
    fn flag(self) -> Option<&'static str> {
        match self {
            SolverConfig::Unsat => Some("--unsat"),
            SolverConfig::Sat => Some("--sat"),
            SolverConfig::Default => None,
        }
    }

    /// `tool` (`cadical`, or its name and version for the certificate) and the option.
    fn named(self, tool: String) -> String {
        match self.flag() {
            Some(flag) => format!("{tool} {flag}"),
            None => tool,
        }
    }
}

/// One claim and what came of it: the verdict line.
enum Outcome {
    Certified(String),
    /// Neither certified nor refuted: a limit, a rejected proof, a tool without a verdict.
    NotCertified(String),
    /// The claim is false: a verified placement of the tiles.
    Fits(String),
}

pub fn certify(a: CertifyArgs) -> anyhow::Result<()> {
    let Some(job) = a.job else {
        let file = a.file.as_deref().expect("clap: FILE without --job");
        let tiles = a.tiles.expect("clap: --tiles without --job");
        let inst = super::domino::one_instance(file, a.id.as_deref())?;
        let cnf = FitCnf::new(&inst, tiles)
            .map_err(|e| user_error(format!("{}: {}: {e}", file.display(), inst.id)))?;
        tools_present(a.proof.is_none())?;
        // The database first: one that cannot take the record is refused before anything runs.
        let db = a.db.as_deref().map(ResultsDb::open).transpose()?;
        let stem = tiles.to_string();
        return match claim(&a, &inst, tiles, &cnf, &stem, db.as_ref())? {
            Outcome::Certified(line) => {
                println!("{line}");
                Ok(())
            }
            Outcome::NotCertified(why) | Outcome::Fits(why) => Err(anyhow::anyhow!(why)),
        };
    };
    tools_present(true)?;
    let db = ResultsDb::open(a.db.as_deref().expect("clap: --job requires --db"))?;
    certify_job(&a, job, &db)
}

/// Refused, named, when a tool is not on `PATH` (the solver only when it is to run).
fn tools_present(solver: bool) -> anyhow::Result<()> {
    for tool in [SOLVER, CHECKER] {
        if tool == SOLVER && !solver {
            continue;
        }
        if worker::bench::config::which(tool).is_none() {
            return Err(user_error(format!(
                "`{tool}` is not on PATH: scripts/install-solvers.sh installs it"
            )));
        }
    }
    Ok(())
}

/// `certify --job`: every bound of the job's instances below the count bound and not yet
/// certified, one claim after the other, each recorded as it ends; an error naming the claims
/// that were not certified.
fn certify_job(a: &CertifyArgs, job: u64, db: &ResultsDb) -> anyhow::Result<()> {
    let rt = crate::runtime::current_thread()?;
    let report = rt.block_on(crate::report::load(&db.path, &[job]))?;
    drop(rt);
    let not_domino = || {
        user_error(format!(
            "{}: job {job} is not a domino benchmark: it has no bound to certify",
            db.path.display()
        ))
    };
    let Some(crate::report::model::JobReport::Benchmark(bench)) = report.jobs.first() else {
        return Err(not_domino());
    };
    let gap = bench.gap.as_ref().ok_or_else(not_domino)?;
    let claims = job_claims(gap);
    if claims.is_empty() {
        println!(
            "nothing to certify in job {job}: every best bound is its instance's count bound \
             or certified already"
        );
        return Ok(());
    }
    let instances = gap.instances.len();
    println!(
        "certifying the bounds of job {job} below the count bound ({} of {instances} \
         instances): {}",
        claims.len(),
        claims
            .iter()
            .map(|(x, k)| format!("{k} tiles on {}", x.instance))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (mut failed, mut wrong) = (Vec::new(), Vec::new());
    for (x, tiles) in &claims {
        let id = x.instance.as_str();
        let inst = &bench.frozen[id];
        let cnf = FitCnf::new(inst, *tiles)
            .with_context(|| format!("job {job}'s frozen instance {id}"))?;
        match claim(a, inst, *tiles, &cnf, &format!("{id}-{tiles}"), Some(db))? {
            Outcome::Certified(line) => println!("{line}"),
            Outcome::NotCertified(why) => {
                println!("{why}");
                failed.push(format!("{tiles} tiles on {id}"));
            }
            Outcome::Fits(why) => {
                println!("{why}");
                wrong.push(format!(
                    "{tiles} tiles fit on {id}, above the bound {} that {} proved",
                    tiles - 1,
                    x.bound_config.as_deref().unwrap_or("a run")
                ));
            }
        }
    }
    let failed = (!failed.is_empty()).then(|| {
        format!(
            "NOT CERTIFIED: {} of job {job}'s {} claims: {}",
            failed.len(),
            claims.len(),
            failed.join(", ")
        )
    });
    if !wrong.is_empty() {
        // A refuted bound is a wrong answer of the run that proved it: said first.
        anyhow::bail!(
            "WRONG BOUND: {} (recorded; the report lists it among its problems){}",
            wrong.join("; "),
            failed.map_or(String::new(), |f| format!("; {f}"))
        );
    }
    if let Some(failed) = failed {
        anyhow::bail!(failed);
    }
    println!(
        "CERTIFIED: every bound of job {job} below the count bound ({} of {instances} instances)",
        claims.len()
    );
    Ok(())
}

/// The claims `certify --job` asks, `(instance, K)`: "K tiles do not fit" with `K` one more
/// than the best bound, where that bound is below the count bound (which needs no proof) and
/// no certificate proves it already.
fn job_claims(gap: &GapTable) -> Vec<(&GapInstance, u32)> {
    gap.instances
        .iter()
        .filter_map(|x| {
            let (bound, count) = (x.best_bound?, x.count_bound?);
            let open = bound < count && x.certified_bound.is_none_or(|c| c > bound);
            open.then_some((x, bound + 1))
        })
        .collect()
}

/// Certifies "`tiles` tiles do not fit on `inst`", `cnf` being that formula (written with its
/// proof as `stem.cnf` and `stem.drat` in the working folder), and records what was found in
/// `db` if any. An error only when the command cannot go on (a file that cannot be written, a
/// database that cannot take the record).
fn claim(
    a: &CertifyArgs,
    inst: &domino::Instance,
    tiles: u32,
    cnf: &FitCnf,
    stem: &str,
    db: Option<&ResultsDb>,
) -> anyhow::Result<Outcome> {
    use Outcome::{Certified, Fits, NotCertified};
    let temp = tempfile::tempdir().context("a temporary folder")?;
    let dir = match &a.keep {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
            d.clone()
        }
        None => temp.path().to_path_buf(),
    };
    let formula = dir.join(format!("{stem}.cnf"));
    let dimacs = cnf.dimacs();
    std::fs::write(&formula, &dimacs).with_context(|| format!("writing {}", formula.display()))?;
    let what = format!(
        "{tiles} tiles on {} ({} x {}, {} tiles)",
        inst.id,
        inst.n,
        inst.n,
        inst.tiles.len()
    );
    let mut cert = Certificate {
        instance: inst.id.clone(),
        instance_sha256: domino::instance_sha256(inst),
        tiles,
        verdict: Verdict::Certified,
        placement: Vec::new(),
        formula_sha256: cores::bench::sha256_hex(&dimacs),
        solver: None,
        solver_seconds: None,
        proof_bytes: None,
        checker: None,
        checker_seconds: None,
        solver_peak_memory_bytes: None,
        checker_peak_memory_bytes: None,
        host: worker::bench::host::detect().hostname,
        dancehall_version: env!("CARGO_PKG_VERSION").to_owned(),
    };
    let (proof, solved) = match &a.proof {
        Some(p) => (p.clone(), String::from("the proof given")),
        None => {
            let proof = dir.join(format!("{stem}.drat"));
            cert.solver = Some(a.solver_config.named(version(SOLVER)));
            let solver = a.solver_config.named(SOLVER.to_owned());
            let (ran, placed) = match refute(a, cnf, inst, &dir, &formula, &proof, &what)? {
                SolverAnswer::Refuted(ran) => (ran, None),
                SolverAnswer::Fits(ran, placement) => (ran, Some(placement)),
                SolverAnswer::NoVerdict(why) => return Ok(NotCertified(why)),
            };
            let secs = ran.seconds;
            cert.solver_seconds = Some(secs);
            cert.solver_peak_memory_bytes = ran.peak_memory;
            if let Some(placement) = placed {
                // The claim is false: `verify` accepted a placement of the tiles.
                let n = placement.len();
                cert.verdict = Verdict::Fits;
                cert.placement = placement;
                let recorded = record(db, &cert, inst)?;
                return Ok(Fits(format!(
                    "NOT CERTIFIED: {what} fit: {} found a placement of {n} tiles in \
                     {secs:.1} s, and the verifier accepts it{recorded}",
                    solver
                )));
            }
            (proof, format!("{solver} refuted it in {secs:.1} s"))
        }
    };
    let bytes = std::fs::metadata(&proof)
        .with_context(|| format!("reading {}", proof.display()))?
        .len();
    let argv = [CHECKER.to_owned(), path_arg(&formula), path_arg(&proof)];
    let out = run(&argv, &dir, a.check_time_limit, a.memory_limit)?;
    let checked = out.wall.as_secs_f64();
    if let Some(limit) = out.limit {
        return Ok(NotCertified(format!(
            "NOT CERTIFIED: {CHECKER} stopped at its {} limit after {checked:.1} s, before it \
             had checked the proof of {what}",
            limit_name(limit)
        )));
    }
    let verdict = out.sink.0.iter().find(|l| l.starts_with("s "));
    let Some(verdict) = verdict else {
        // No verdict: the checker failed (a crash, a memory limit it met as an allocation
        // failure), which says nothing of the proof.
        return Ok(NotCertified(format!(
            "NOT CERTIFIED: {CHECKER} ended without a verdict on the proof of {what} ({}{}{})",
            ended(&out),
            a.memory_limit
                .map_or(String::new(), |m| format!("; its memory limit was {m} MiB")),
            out.stderr_tail
                .lines()
                .last()
                .map_or(String::new(), |l| format!(": {l}"))
        )));
    };
    if verdict.trim() != "s VERIFIED" {
        return Ok(NotCertified(format!(
            "PROOF REJECTED: {CHECKER} did not verify {} as a refutation of {what} ({verdict}; \
             {}); the bound is not certified",
            proof.display(),
            ended(&out)
        )));
    }
    cert.proof_bytes = Some(bytes);
    cert.checker = Some(version(CHECKER));
    cert.checker_seconds = Some(checked);
    cert.checker_peak_memory_bytes = out.peak_memory;
    let recorded = record(db, &cert, inst)?;
    Ok(Certified(format!(
        "CERTIFIED: {what} do not fit, so its optimum is at most {}: {solved}, and its DRAT \
         proof ({bytes} bytes) was verified by {CHECKER} in {checked:.1} s{recorded}",
        tiles - 1
    )))
}

/// The results database `certify --db` records into, locked while the command runs.
struct ResultsDb {
    path: PathBuf,
    _lock: store::DbLock,
}

impl ResultsDb {
    /// Refused, named, when the database does not exist or a coordinator holds it.
    fn open(path: &Path) -> anyhow::Result<Self> {
        if !path.exists() {
            return Err(user_error(format!("{}: no such database", path.display())));
        }
        let lock = crate::cluster::lock_database(path, None)?;
        Ok(ResultsDb {
            path: path.to_path_buf(),
            _lock: lock,
        })
    }
}

/// Records `cert` (checked against `inst` first) in `db`, if any: what to add to the verdict
/// line (`; recorded in FILE as certificate N`).
fn record(
    db: Option<&ResultsDb>,
    cert: &Certificate,
    inst: &domino::Instance,
) -> anyhow::Result<String> {
    let Some(db) = db else {
        return Ok(String::new());
    };
    cert.check(inst)
        .map_err(|e| anyhow::anyhow!("the certificate does not hold together: {e}"))?;
    let at = coordinator::Clock::System.now();
    let rt = crate::runtime::current_thread()?;
    let id = rt.block_on(async {
        let pool = store::open(&db.path)
            .await
            .with_context(|| format!("opening {}", db.path.display()))?;
        let id = store::add_certificate(&pool, cert, at).await;
        pool.close().await;
        id.with_context(|| format!("recording in {}", db.path.display()))
    })?;
    Ok(format!(
        "; recorded in {} as certificate {id}",
        db.path.display()
    ))
}

/// `TOOL VERSION`, the version the last word of its `--version` line (the worker's own
/// detection), or the tool alone.
fn version(tool: &str) -> String {
    use worker::bench::config::{first_line, last_word, which};
    let v = which(tool).and_then(|p| last_word(&first_line(&p, &["--version"])?));
    v.map_or_else(|| tool.to_owned(), |v| format!("{tool} {v}"))
}

/// The lines a tool printed that `certify` reads: its verdict (`s ...`) and a model's values
/// (`v ...`); the rest (comments, statistics) is dropped.
#[derive(Default)]
struct Verdicts(Vec<String>);

impl LineSink for Verdicts {
    fn line(&mut self, line: &str) {
        if line.starts_with("s ") || line.starts_with("v ") {
            self.0.push(line.to_owned());
        }
    }
}

/// Runs `argv` in `dir` through the benchmark's process runner (its own process group, killed
/// at the wall-time limit, the memory limit as a benchmark run's), measured.
fn run(
    argv: &[String],
    dir: &Path,
    seconds: Option<u32>,
    mib: Option<u64>,
) -> anyhow::Result<ProcessOutcome<Verdicts>> {
    let limits = ProcessLimits {
        // No limit is a century.
        wall: Duration::from_secs(seconds.map_or(100 * 365 * 86_400, u64::from)),
        cpu: None,
        memory: mib.map(|m| m << 20),
        grace: Duration::from_secs(2),
        stop_signal: libc::SIGTERM,
        stop: None,
    };
    run_process(argv, dir, &limits).with_context(|| format!("running {}", argv[0]))
}

/// How a process ended, for a message: `exit code 1`, `signal 9`.
fn ended<S>(out: &ProcessOutcome<S>) -> String {
    match (out.exit_code, out.signal) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(s)) => format!("signal {s}"),
        (None, None) => "no exit status".into(),
    }
}

/// A limit as a message names it: `time`, `memory`.
fn limit_name(t: cores::bench::Termination) -> &'static str {
    use cores::bench::Termination;
    match t {
        Termination::Walltime => "time",
        Termination::Cputime => "CPU time",
        Termination::Memory => "memory",
        other => other.as_str(),
    }
}

fn path_arg(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// What the solver's run measured.
struct SolverRun {
    /// Wall seconds.
    seconds: f64,
    peak_memory: Option<u64>,
}

/// What the solver said of "`k` tiles do not fit".
enum SolverAnswer {
    /// Refuted, its proof written.
    Refuted(SolverRun),
    /// The tiles fit: its model decoded to this placement, which `verify` accepts.
    Fits(SolverRun, Vec<Placement>),
    /// Neither (a limit, no verdict, a model the verifier refuses): the verdict line, not
    /// certified.
    NoVerdict(String),
}

/// Runs the solver on `formula`, writing its proof to `proof`; an error only when it cannot
/// be run.
fn refute(
    a: &CertifyArgs,
    cnf: &FitCnf,
    inst: &domino::Instance,
    dir: &Path,
    formula: &Path,
    proof: &Path,
    what: &str,
) -> anyhow::Result<SolverAnswer> {
    let argv: Vec<String> = [SOLVER, "-q"]
        .into_iter()
        .chain(a.solver_config.flag())
        .map(str::to_owned)
        .chain([path_arg(formula), path_arg(proof)])
        .collect();
    let out = run(&argv, dir, a.time_limit, a.memory_limit)?;
    let secs = out.wall.as_secs_f64();
    let solver = a.solver_config.named(SOLVER.to_owned());
    let ran = SolverRun {
        seconds: secs,
        peak_memory: out.peak_memory,
    };
    Ok(match (out.limit, out.exit_code) {
        (None, Some(20)) => SolverAnswer::Refuted(ran),
        (None, Some(10)) => {
            let true_lits: HashSet<i32> = out
                .sink
                .0
                .iter()
                .filter_map(|l| l.strip_prefix("v "))
                .flat_map(|l| l.split_whitespace().filter_map(|t| t.parse().ok()))
                .filter(|&l: &i32| l > 0)
                .collect();
            let placement = cnf.placement(&true_lits);
            match domino::verify(inst, &placement) {
                Ok(()) => SolverAnswer::Fits(ran, placement),
                Err(v) => SolverAnswer::NoVerdict(format!(
                    "NOT CERTIFIED: {solver} says {what} fit, but its model decodes to a \
                     placement the verifier refuses ({v})"
                )),
            }
        }
        (Some(limit), _) => SolverAnswer::NoVerdict(format!(
            "NOT CERTIFIED: {solver} stopped at its {} limit after {secs:.1} s, having \
             neither refuted {what} nor placed them",
            limit_name(limit)
        )),
        _ => SolverAnswer::NoVerdict(format!(
            "NOT CERTIFIED: {solver} neither refuted {what} nor placed them in {secs:.1} s \
             ({}: {})",
            ended(&out),
            out.stderr_tail.lines().last().unwrap_or("")
        )),
    })
}
