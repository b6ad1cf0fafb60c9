//! One run of one configuration on one instance, from the instance to a verified
//! [`RunRecord`]: write the data and models to a temporary directory, run the solver under its
//! limits ([`super::process`]), read its output ([`super::output`]), verify its placement
//! (`cores::domino::verify`) and decide the status.
//!
//! Invariant: every record leaves through `cores::bench::judge::domino::judge` (`cores::bench::judge` on a
//! domino instance) (the judge the coordinator
//! applies again), so `optimal` and `feasible` records carry a placement that passed the
//! verifier, whose size is the objective the solver claimed and within its bound; anything
//! else is `wrong` (a bad placement, a claimed objective or bound that disagrees with it) or
//! `error` (unreadable output, a crash before any solution).

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cores::bench::judge::domino::judge;
use cores::bench::{
    Answer, ConfigDef, DataFormat, EngineDef, Family, Measure, ModelHash, OutputFormat, RunRecord,
    Status, Termination,
};
use cores::domino::{self, BoundBy, Instance, SolveLimits, SolveStatus};

use super::config::{
    config, def_availability, minizinc_solver_id, sha256_hex, Availability, Engine, CONFIGS,
};
use super::host;
use super::models;
use super::output::{ClingoOutput, CpSatOutput, MiniZincOutput, Parsed};
use super::process::{run_process, ProcessLimits, ProcessOutcome};

/// Who judges a record on the worker (the coordinator's judgement says so too).
const JUDGE: &str = "the worker's verifier";

/// The limits of one run.
#[derive(Debug, Clone)]
pub struct RunLimits {
    /// Wall time (the spec default is 300 s).
    pub wall: Duration,
    /// CPU time of the whole process tree (the native solver: its thread, as a deadline).
    pub cpu: Option<Duration>,
    /// Bytes (external solvers only).
    pub memory: Option<u64>,
    /// Between SIGTERM and SIGKILL at a limit.
    pub grace: Duration,
    /// Raised by the caller to end the run early (a draining worker, a lost lease): the solver
    /// is stopped as at a limit, with termination `killed`. Such a run is no measurement.
    pub stop: Option<Arc<AtomicBool>>,
    /// Whether command templates may run (the worker's `--allow-commands`); without it a
    /// configuration of engine `command` is `unavailable`.
    pub allow_commands: bool,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            wall: Duration::from_secs(300),
            cpu: None,
            memory: None,
            grace: Duration::from_secs(2),
            stop: None,
            allow_commands: false,
        }
    }
}

impl RunLimits {
    /// The limits of the solver's process.
    pub fn process(&self) -> ProcessLimits {
        ProcessLimits {
            wall: self.wall,
            cpu: self.cpu,
            memory: self.memory,
            grace: self.grace,
            stop: self.stop.clone(),
            stop_signal: libc::SIGTERM,
        }
    }

    pub fn with_wall(wall: Duration) -> Self {
        RunLimits {
            wall,
            ..RunLimits::default()
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("unknown solver configuration `{name}` (known: {known})")]
    UnknownConfig { name: String, known: String },
}

/// The format of an external solver's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    MiniZinc,
    Clingo,
    /// `domino-cpsat.py` (python3 with OR-Tools): MiniZinc data in, its own lines out.
    CpSat,
}

/// An external solver invocation: everything [`run_external`] needs. Built from a
/// configuration by [`external_for`]; tests build their own (a deliberately broken model).
#[derive(Debug, Clone)]
pub struct External {
    pub solver: String,
    pub version: String,
    /// The program and its leading arguments (`minizinc --solver org.gecode.gecode ...`).
    pub program: Vec<String>,
    pub syntax: Syntax,
    /// Model files (name, text) written next to the data and passed in this order.
    pub models: Vec<(String, String)>,
    /// Arguments after the files and the data (a CP-SAT configuration's options).
    pub trailing: Vec<String>,
    /// A command template: `program` is its argv with placeholders, filled in instead of
    /// program + files + data (see [`fill_template`]).
    pub template: Option<Template>,
}

/// What a command template needs beyond its argv.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    pub data: DataFormat,
    pub seed: u64,
}

/// Runs configuration `name` on `instance` with the model files built into this binary.
pub fn run(instance: &Instance, name: &str, limits: &RunLimits) -> Result<RunRecord, BenchError> {
    run_with_models(instance, name, limits, &BTreeMap::new())
}

/// Runs built-in configuration `name` on `instance`; model files named in `frozen` (name to
/// text: a benchmark job's frozen models) replace the built-in ones, so that every worker runs
/// the models the job was submitted with.
pub fn run_with_models(
    instance: &Instance,
    name: &str,
    limits: &RunLimits,
    frozen: &BTreeMap<String, String>,
) -> Result<RunRecord, BenchError> {
    let Some(cfg) = config(name).filter(|c| c.family == Family::Domino) else {
        return Err(BenchError::UnknownConfig {
            name: name.to_owned(),
            known: super::config::configs_of(Family::Domino)
                .map(|c| c.name)
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let def = cfg.definition_with(&|n| text_of(n, frozen).unwrap_or_default());
    let hash = sha256_hex(&def.to_json());
    Ok(run_def(instance, &def, &hash, limits, frozen))
}

/// A model file's text: the job's frozen one, else the one built in.
fn text_of(name: &str, frozen: &BTreeMap<String, String>) -> Option<String> {
    frozen
        .get(name)
        .cloned()
        .or_else(|| models::model(name).map(|m| m.text.to_owned()))
}

/// Runs configuration `def` (built in or declared; `def_sha256` the SHA-256 of its frozen
/// text) on a domino instance, with the job's `frozen` model files. The record names the
/// definition's hash and carries the solver's statistics.
pub fn run_def(
    instance: &Instance,
    def: &ConfigDef,
    def_sha256: &str,
    limits: &RunLimits,
    frozen: &BTreeMap<String, String>,
) -> RunRecord {
    let name = def.name.as_str();
    let availability = def_availability(def, limits.allow_commands);
    let mut record = if !availability.available {
        unavailable(instance, name, limits, &availability)
    } else {
        match &def.engine {
            EngineDef::BuiltIn => match def.base.as_deref().and_then(config).map(|c| c.engine) {
                Some(Engine::Native) => run_native(instance, name, limits, &availability),
                _ => failed(
                    Family::Domino,
                    &instance.id,
                    name,
                    limits,
                    format!(
                        "`{}` is no built-in domino configuration",
                        def.base.as_deref().unwrap_or("")
                    ),
                ),
            },
            _ => match external_from_def(def, &availability, &|n| text_of(n, frozen)) {
                Ok(ext) => run_external(instance, name, &ext, limits),
                Err(why) => failed(Family::Domino, &instance.id, name, limits, why),
            },
        }
    };
    record.config_sha256 = Some(def_sha256.to_owned());
    record
}

/// The invocation of an available built-in external configuration (with its embedded
/// models).
pub fn external_for(engine: Engine, availability: &Availability) -> Option<External> {
    let cfg = CONFIGS.iter().find(|c| c.engine == engine)?;
    let def = cfg.definition();
    external_from_def(&def, availability, &|n| {
        models::model(n).map(|m| m.text.to_owned())
    })
    .ok()
}

/// The invocation of an external definition: its program, flags, options and files (their
/// texts from `text_of`, a missing one an error naming it). A file's name within the job
/// may have a folder (`my-config/domino.mzn`); it is written under its last part.
pub fn external_from_def(
    def: &ConfigDef,
    availability: &Availability,
    text_of: &dyn Fn(&str) -> Option<String>,
) -> Result<External, String> {
    let mut models = Vec::new();
    for f in &def.files {
        let text =
            text_of(&f.name).ok_or_else(|| format!("the job has no frozen file {}", f.name))?;
        let short = f.name.rsplit('/').next().unwrap_or(&f.name).to_owned();
        models.push((short, text));
    }
    let mut program = availability.program.clone();
    let mut trailing = Vec::new();
    let mut template = None;
    let syntax = match &def.engine {
        EngineDef::BuiltIn => return Err(format!("`{}` runs in process", def.name)),
        EngineDef::MiniZinc {
            solver,
            flags,
            search,
            parameters,
        } => {
            program.extend(
                [
                    "--solver",
                    &minizinc_solver_id(solver),
                    "--json-stream",
                    "--intermediate",
                    "--statistics",
                ]
                .map(String::from),
            );
            program.extend(flags.iter().cloned());
            for (k, v) in parameters {
                program.extend(["-D".to_owned(), format!("{k}={v};")]);
            }
            if let Some(search) = search {
                models.push((
                    "search.mzn".into(),
                    format!("solve :: {search} maximize objective;\n"),
                ));
            }
            Syntax::MiniZinc
        }
        EngineDef::Clingo { options } => {
            program.extend(["--outf=2", "--stats"].map(String::from));
            program.extend(options.iter().cloned());
            Syntax::Clingo
        }
        EngineDef::CpSat { options } => {
            trailing.clone_from(options);
            Syntax::CpSat
        }
        EngineDef::Command {
            argv,
            data,
            output,
            seed,
        } => {
            program.clone_from(argv);
            template = Some(Template {
                data: *data,
                seed: *seed,
            });
            match output {
                OutputFormat::MinizincJson => Syntax::MiniZinc,
                OutputFormat::ClingoJson => Syntax::Clingo,
                OutputFormat::DancehallLines => Syntax::CpSat,
            }
        }
    };
    Ok(External {
        solver: availability.solver.clone(),
        version: availability.version.clone(),
        program,
        syntax,
        models,
        trailing,
        template,
    })
}

/// A command template's argv with its placeholders filled in: `{instance}` (the data file),
/// `{time_limit}` (seconds), `{time_limit_ms}`, `{seed}`, `{dir}` (the run's directory) and
/// `{file:NAME}` (a file of the configuration, by its name). An unknown placeholder is an
/// error naming it.
pub fn fill_template(
    argv: &[String],
    dir: &std::path::Path,
    data: &std::path::Path,
    seconds: f64,
    seed: u64,
) -> Result<Vec<String>, String> {
    argv.iter()
        .map(|arg| {
            let mut out = String::new();
            let mut rest = arg.as_str();
            while let Some(open) = rest.find('{') {
                out.push_str(&rest[..open]);
                let close = rest[open..]
                    .find('}')
                    .ok_or_else(|| format!("unclosed placeholder in `{arg}`"))?;
                let key = &rest[open + 1..open + close];
                match key {
                    "instance" => out.push_str(&data.display().to_string()),
                    "time_limit" => out.push_str(&seconds.to_string()),
                    "time_limit_ms" => {
                        out.push_str(&((seconds * 1000.0).round() as u64).to_string())
                    }
                    "seed" => out.push_str(&seed.to_string()),
                    "dir" => out.push_str(&dir.display().to_string()),
                    k => match k.strip_prefix("file:") {
                        Some(f) => {
                            let short = f.rsplit('/').next().unwrap_or(f);
                            out.push_str(&dir.join(short).display().to_string());
                        }
                        None => return Err(format!("unknown placeholder {{{k}}} in `{arg}`")),
                    },
                }
                rest = &rest[open + close + 1..];
            }
            out.push_str(rest);
            Ok(out)
        })
        .collect()
}

fn blank(instance_id: &str, name: &str, limits: &RunLimits) -> RunRecord {
    RunRecord {
        memory_limit_bytes: limits.memory,
        ..RunRecord::blank(
            instance_id,
            name,
            limits.wall.as_secs_f64(),
            host::current().clone(),
        )
    }
}

/// The record of a run that could not start at all (an unknown configuration, an instance
/// that does not parse) or that panicked: status `error`, termination `failed`, `family`'s
/// blank answer, and why.
pub fn failed(
    family: Family,
    instance_id: &str,
    config: &str,
    limits: &RunLimits,
    message: String,
) -> RunRecord {
    RunRecord {
        termination: Termination::Failed,
        message: Some(message),
        answer: Answer::blank(family),
        ..blank(instance_id, config, limits)
    }
}

/// Runs one benchmark run, `run`, of `config` on a `family` instance; a panic inside it
/// becomes the record of a failed run ([`failed`]) naming the panic's message. A panic is no
/// measurement, and it would happen again on every worker: it is reported like any run
/// (stored, shown as `error`), never handed back to be leased again.
pub fn run_caught(
    family: Family,
    instance_id: &str,
    config: &str,
    limits: &RunLimits,
    run: impl FnOnce() -> RunRecord,
) -> RunRecord {
    crate::panic::catch(run).unwrap_or_else(|m| {
        failed(
            family,
            instance_id,
            config,
            limits,
            format!("the run panicked: {m}"),
        )
    })
}

/// A model file by the SHA-256 of its text.
fn model_hash(name: &str, text: &str) -> ModelHash {
    ModelHash {
        name: name.to_owned(),
        sha256: sha256_hex(text),
    }
}

fn unavailable(instance: &Instance, name: &str, limits: &RunLimits, a: &Availability) -> RunRecord {
    RunRecord {
        status: Status::Unavailable,
        solver: a.solver.clone(),
        message: a.reason.clone(),
        ..blank(&instance.id, name, limits)
    }
}

/// The native solver in this thread, with the limit as its deadline.
pub fn run_native(
    instance: &Instance,
    name: &str,
    limits: &RunLimits,
    availability: &Availability,
) -> RunRecord {
    let (budget, limit_kind) = match limits.cpu {
        Some(cpu) if cpu < limits.wall => (cpu, Termination::Cputime),
        _ => (limits.wall, Termination::Walltime),
    };
    let timer = crate::cputime::CpuTimer::start();
    let start = Instant::now();
    let outcome = domino::solve(
        instance,
        &SolveLimits {
            deadline: Some(start + budget),
            stop: limits.stop.clone(),
        },
    );
    let wall = start.elapsed();
    let cpu = timer.elapsed_secs();
    let mut record = RunRecord {
        solver: availability.solver.clone(),
        solver_version: availability.version.clone(),
        wall_seconds: wall.as_secs_f64(),
        cpu_seconds: cpu,
        cpu_measure: if cpu.is_some() {
            Measure::Thread
        } else {
            Measure::None
        },
        ..blank(&instance.id, name, limits)
    };
    record.set_bound(Some(outcome.bound));
    record.set_bound_by(Some(outcome.bound_by));
    record.stats = outcome.stats.to_map();
    // Unproven means a limit stopped it, unless it gave up before its deadline (an instance
    // beyond what it handles): that is a failure, not a timeout.
    let finished = outcome.status == SolveStatus::Optimal;
    let stopped = limits
        .stop
        .as_ref()
        .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
    let gave_up = !finished && !stopped && wall < budget;
    record.termination = if finished {
        Termination::Normal
    } else if stopped && wall < budget {
        Termination::Killed
    } else if gave_up {
        record.message = Some("the native solver stopped before its limit".into());
        Termination::Failed
    } else {
        limit_kind
    };
    record.status = match outcome.status {
        SolveStatus::Optimal => Status::Optimal,
        SolveStatus::Feasible => Status::Feasible,
        SolveStatus::Unknown if gave_up => Status::Error,
        SolveStatus::Unknown => Status::Timeout,
    };
    if !outcome.placement.is_empty() || record.status.is_solved() {
        record.set_objective(Some(outcome.objective));
        record.set_placement(outcome.placement);
    }
    if let Some(fault) = outcome.fault {
        // The optimiser's own consistency check failed: none of its claims stands.
        record.refute(&format!(
            "the native optimiser's consistency check: {fault}"
        ));
        return record;
    }
    judge(instance, &mut record, JUDGE);
    record
}

/// An external solver on `instance` under `limits`.
pub fn run_external(
    instance: &Instance,
    name: &str,
    ext: &External,
    limits: &RunLimits,
) -> RunRecord {
    let mut record = RunRecord {
        solver: ext.solver.clone(),
        solver_version: ext.version.clone(),
        models: ext
            .models
            .iter()
            .map(|(file, text)| model_hash(file, text))
            .collect(),
        ..blank(&instance.id, name, limits)
    };
    let dir = match tempfile::Builder::new().prefix("dancehall-run-").tempdir() {
        Ok(d) => d,
        Err(e) => {
            record.termination = Termination::Failed;
            record.message = Some(format!("cannot create a temporary directory: {e}"));
            return record;
        }
    };
    let format = match (ext.template, ext.syntax) {
        (Some(t), _) => t.data,
        (None, Syntax::MiniZinc | Syntax::CpSat) => DataFormat::Dzn,
        (None, Syntax::Clingo) => DataFormat::Lp,
    };
    let data = match format {
        DataFormat::Dzn => domino::to_dzn(instance),
        DataFormat::Lp => domino::to_clingo(instance),
        DataFormat::Json => serde_json::to_string(instance).expect("an instance serialises"),
    };
    let data_name = format!("instance.{}", format.extension());
    let data_name = data_name.as_str();
    let mut argv = if ext.template.is_some() {
        Vec::new()
    } else {
        ext.program.clone()
    };
    for (file, text) in ext
        .models
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .chain([(data_name, data.as_str())])
    {
        let path = dir.path().join(file);
        if let Err(e) = std::fs::write(&path, text) {
            record.termination = Termination::Failed;
            record.message = Some(format!("cannot write {}: {e}", path.display()));
            return record;
        }
        argv.push(path.display().to_string());
    }
    // The limit the solver stops at by itself (MiniZinc and clingo get none: the process
    // runner stops them, MiniZinc by SIGINT so that Gecode prints its search's statistics),
    // and what kind of limit it is.
    let (own_limit, limit_kind) = match limits.cpu {
        Some(cpu) if cpu < limits.wall => (cpu, Termination::Cputime),
        _ => (limits.wall, Termination::Walltime),
    };
    if let Some(t) = ext.template {
        let data_path = dir.path().join(data_name);
        argv = match fill_template(
            &ext.program,
            dir.path(),
            &data_path,
            own_limit.as_secs_f64(),
            t.seed,
        ) {
            Ok(a) => a,
            Err(why) => {
                record.termination = Termination::Failed;
                record.message = Some(why);
                return record;
            }
        };
    } else if ext.syntax == Syntax::CpSat {
        // One search worker: a task has no thread count, and every other configuration
        // searches on one thread.
        let seconds = own_limit.as_secs_f64().to_string();
        argv.extend(["--time-limit", &seconds, "--workers", "1"].map(String::from));
    }
    argv.extend(ext.trailing.iter().cloned());
    record.command = argv.clone();
    let plimits = match ext.syntax {
        Syntax::MiniZinc => limits.process().interrupting(),
        Syntax::Clingo | Syntax::CpSat => limits.process(),
    };
    let outcome = match ext.syntax {
        Syntax::MiniZinc => run_process::<MiniZincOutput>(&argv, dir.path(), &plimits)
            .map(|o| o.map_sink(|s| s.parsed)),
        Syntax::Clingo => run_process::<ClingoOutput>(&argv, dir.path(), &plimits)
            .map(|o| o.map_sink(ClingoOutput::finish)),
        Syntax::CpSat => run_process::<CpSatOutput>(&argv, dir.path(), &plimits)
            .map(|o| o.map_sink(|s| s.parsed)),
    };
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => {
            let (status, termination) = if e.kind() == std::io::ErrorKind::NotFound {
                (Status::Unavailable, Termination::Normal)
            } else {
                (Status::Error, Termination::Failed)
            };
            record.status = status;
            record.termination = termination;
            record.message = Some(format!("cannot start {}: {e}", argv[0]));
            return record;
        }
    };
    record.wall_seconds = outcome.wall.as_secs_f64();
    record.cpu_seconds = outcome.cpu.map(|c| c.as_secs_f64());
    record.peak_memory_bytes = outcome.peak_memory;
    record.cpu_measure = outcome.cpu_measure;
    record.memory_measure = outcome.memory_measure;
    record.exit_code = outcome.exit_code;
    record.signal = outcome.signal;
    record.stats = outcome.sink.stats.clone();
    read_outcome(instance, ext.syntax, &outcome, limit_kind, &mut record);
    record
}

/// Decides status, termination, objective and bound from what the solver printed and how its
/// process ended, then has the claim judged. A bound is the solver's ([`BoundBy::Solver`]):
/// its proof of optimality or the bound it printed; a solver that prints none leaves the
/// record without a bound and without `bound_by`. A solver that stopped itself at the limit it was
/// given (CP-SAT) ended by `limit_kind`, as one the process runner stopped.
fn read_outcome(
    instance: &Instance,
    syntax: Syntax,
    outcome: &ProcessOutcome<Parsed>,
    limit_kind: Termination,
    record: &mut RunRecord,
) {
    let parsed = &outcome.sink;
    // clingo's exit code is a bit set: 10 satisfiable, 20 search space exhausted (30:
    // optimum), 1 interrupted; 33 memory, 65 error, 128 no run. MiniZinc and
    // domino-cpsat.py: 0 on success.
    let exit_ok = match syntax {
        Syntax::MiniZinc | Syntax::CpSat => outcome.exit_code == Some(0),
        Syntax::Clingo => outcome.exit_code.is_some_and(|c| c < 32),
    };
    record.termination = match outcome.limit {
        Some(limit) => limit,
        None if outcome.signal.is_some() => Termination::Killed,
        None if !exit_ok => Termination::Failed,
        None if parsed.stopped_at_limit => limit_kind,
        None => Termination::Normal,
    };
    let mut notes: Vec<String> = parsed.errors.clone();
    if let Some(line) = &parsed.malformed {
        notes.insert(0, format!("unreadable solver output: {line}"));
    }
    if record.termination == Termination::Failed || record.termination == Termination::Killed {
        let tail = last_lines(&outcome.stderr_tail, 8);
        if !tail.is_empty() {
            notes.push(tail);
        }
    }

    if parsed.malformed.is_some() {
        record.status = Status::Error;
    } else if let Some((placement, claimed)) = &parsed.best {
        // The solver's claim as it made it; the judge decides whether it stands.
        record.set_placement(placement.clone());
        record.set_objective(Some(*claimed));
        if parsed.proven {
            record.status = Status::Optimal;
            // The bound the solver printed with its proof, else the objective it proved.
            record.set_bound(parsed.bound.or(Some(*claimed)));
        } else {
            record.status = Status::Feasible;
            // Only the solver's own bound (CP-SAT's): none is made up by counting here.
            record.set_bound(parsed.bound);
        }
        record.set_bound_by(record.bound().map(|_| BoundBy::Solver));
    } else {
        record.status = match record.termination {
            Termination::Walltime | Termination::Cputime => Status::Timeout,
            _ => Status::Error,
        };
        if parsed.unsatisfiable {
            notes.insert(
                0,
                "the solver claims no placement exists (the empty one does)".into(),
            );
            record.status = Status::Wrong;
        }
    }
    if !notes.is_empty() {
        record.message = Some(notes.join("\n"));
    }
    judge(instance, record, JUDGE);
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
