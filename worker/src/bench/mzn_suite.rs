//! One run of a MiniZinc suite's task (family `mzn-suite`, `cores::bench::mzn_suite`): the
//! suite's frozen model files (or the configuration's own, a model variant) and the data file
//! written to a temporary directory, run by [`super::mzn::run_model`] with the suite's checker
//! when it has one, and read into a [`RunRecord`] whose answer is a [`MznAnswer`].
//!
//! Invariant: the record leaves through `cores::bench::judge` (the judge the coordinator
//! applies again), so a solution the checker rejected makes the run `wrong`, and a status
//! that does not fit the model's sense never stands.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cores::bench::{
    judge, Answer, ConfigDef, EngineDef, Family, Instance, MznAnswer, MznInstance, RunRecord,
    Sense, Status, Termination,
};

use super::config::{def_availability, minizinc_solver_id, sha256_hex};
use super::host;
use super::mzn::{run_model, MznRun};
use super::run::RunLimits;

/// Who judges a record on the worker.
const JUDGE: &str = "the worker's verifier";

/// Runs configuration `def` (`def_sha256` the SHA-256 of its frozen text) on `instance` with
/// the job's frozen model files (`frozen`: name to text).
pub fn run_suite(
    instance: &MznInstance,
    def: &ConfigDef,
    def_sha256: &str,
    limits: &RunLimits,
    frozen: &BTreeMap<String, String>,
) -> RunRecord {
    let mut record = RunRecord {
        memory_limit_bytes: limits.memory,
        answer: Answer::MznSuite(MznAnswer::empty(instance.sense)),
        config_sha256: Some(def_sha256.to_owned()),
        ..RunRecord::blank_of(
            Family::MznSuite,
            &instance.id,
            &def.name,
            limits.wall.as_secs_f64(),
            host::current().clone(),
        )
    };
    let failed = |mut record: RunRecord, why: String| {
        record.termination = Termination::Failed;
        record.message = Some(why);
        record
    };
    let EngineDef::MiniZinc {
        solver,
        flags,
        search,
        parameters,
    } = &def.engine
    else {
        return failed(
            record,
            format!(
                "configuration `{}`: a MiniZinc suite runs MiniZinc configurations only",
                def.name
            ),
        );
    };
    if search.is_some() {
        return failed(
            record,
            "a MiniZinc suite's search is in its model, not `search`".into(),
        );
    }
    let availability = def_availability(def, limits.allow_commands);
    record.solver.clone_from(&availability.solver);
    if !availability.available {
        record.status = Status::Unavailable;
        record.message = availability.reason;
        return record;
    }
    record.solver_version.clone_from(&availability.version);
    let dir = match tempfile::Builder::new().prefix("dancehall-mzn-").tempdir() {
        Ok(d) => d,
        Err(e) => return failed(record, format!("cannot create a temporary directory: {e}")),
    };
    // The suite's models, or the configuration's own files (a model variant), each under its
    // frozen name; the data apart, so that it cannot take a model's place; the checker last.
    let write = |name: &str, under: &Path| -> Result<PathBuf, String> {
        let text = frozen
            .get(name)
            .ok_or_else(|| format!("the job has no frozen file {name}"))?;
        let path = under.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    };
    let mut files = Vec::new();
    // A configuration with files of its own runs them instead (a model variant).
    let names: Vec<String> = if def.files.is_empty() {
        instance.models.clone()
    } else {
        def.files.iter().map(|f| f.name.clone()).collect()
    };
    for name in names {
        match write(&name, dir.path()) {
            Ok(p) => {
                record.models.push(cores::bench::ModelHash {
                    sha256: sha256_hex(&frozen[&name]),
                    name,
                });
                files.push(p);
            }
            Err(why) => return failed(record, why),
        }
    }
    let data = dir.path().join("data").join(&instance.data);
    let wrote = std::fs::create_dir_all(dir.path().join("data"))
        .and_then(|()| std::fs::write(&data, &instance.text));
    if let Err(e) = wrote {
        return failed(record, format!("cannot write {}: {e}", data.display()));
    }
    files.push(data);
    let checker = match &instance.checker {
        None => None,
        Some(c) => match write(c, dir.path()) {
            Ok(p) => Some(p),
            Err(why) => return failed(record, why),
        },
    };
    let mut args = flags.clone();
    for (k, v) in parameters {
        args.extend(["-D".to_owned(), format!("{k}={v};")]);
    }
    // Interrupted at a limit, so that the solver prints its search's statistics.
    let plimits = limits.process().interrupting();
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let run = match run_model(
        Path::new(&availability.program[0]),
        &minizinc_solver_id(solver),
        &args,
        &paths,
        checker.as_deref(),
        dir.path(),
        &plimits,
    ) {
        Ok(r) => r,
        Err(e) => return failed(record, format!("cannot start minizinc: {e}")),
    };
    read_run(instance, &run, &mut record);
    judge(&Instance::MznSuite(instance.clone()), &mut record, JUDGE);
    record
}

/// Status, answer, measurements and statistics from what MiniZinc printed and how it ended.
fn read_run(instance: &MznInstance, run: &MznRun, record: &mut RunRecord) {
    let p = &run.parsed;
    record.command.clone_from(&run.argv);
    record.termination = run.termination;
    record.wall_seconds = run.wall_seconds;
    record.cpu_seconds = run.cpu_seconds;
    record.cpu_measure = run.cpu_measure;
    record.peak_memory_bytes = run.peak_memory;
    record.memory_measure = run.memory_measure;
    record.exit_code = run.exit_code;
    record.signal = run.signal;
    record.stats = p.stats.clone();
    let best = run.best();
    let answer = MznAnswer {
        sense: instance.sense,
        objective: best.and_then(|b| b.objective),
        solutions: p.solutions.len() as u32,
        checked: p
            .solutions
            .iter()
            .filter(|s| s.checked == Some(Ok(())))
            .count() as u32,
        rejected: run.checker_failures(),
        seconds_to_best: run.time_to_best(),
        seconds_to_proof: run.time_to_proof(),
        best: best.map(|b| b.values.clone()),
    };
    let found = answer.solutions > 0;
    let status = p.status.as_deref();
    record.status = if p.malformed.is_some() {
        Status::Error
    } else if status == Some("UNSATISFIABLE") && !found {
        Status::Unsatisfiable
    } else if found && instance.sense == Sense::Satisfy {
        Status::Solved
    } else if found && run.proven() {
        Status::Optimal
    } else if found {
        Status::Feasible
    } else {
        match run.termination {
            Termination::Walltime | Termination::Cputime => Status::Timeout,
            _ => Status::Error,
        }
    };
    record.answer = Answer::MznSuite(answer);
    let mut notes = p.errors.clone();
    if let Some(line) = &p.malformed {
        notes.insert(0, format!("unreadable MiniZinc output: {line}"));
    }
    if matches!(run.termination, Termination::Failed | Termination::Killed) {
        let tail: Vec<&str> = run
            .stderr_tail
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        let tail = tail[tail.len().saturating_sub(8)..].join("\n");
        if !tail.is_empty() {
            notes.push(tail);
        }
    }
    if !notes.is_empty() {
        record.message = Some(notes.join("\n"));
    }
}
