//! Benchmark runs of every family, one task (instance, configuration) to one verified
//! [`RunRecord`] ([`run_task`]). Synchronous and blocking: it runs on a worker's blocking
//! thread (or the CLI's main thread).
//!
//! - The domino benchmark (seed 001): the native optimiser, MiniZinc with Gecode (seed 001's
//!   model with its four searches, and a placement-based model), Chuffed where installed,
//!   clingo, OR-Tools' CP-SAT (a Python script on the placement model), each on one instance
//!   under a time and memory limit, measured, and verified ([`run()`]).
//! - Sudoku (seed 000): each solver over a slice of a puzzle file, every puzzle timed and
//!   verified ([`sudoku`]); minisat, gprolog and MiniZinc run as processes
//!   ([`sudoku_external`], also used by `dancehall solve sudoku`).
//!
//! - [`config`](mod@config): the configuration registry ([`CONFIGS`], each of one family) and what this
//!   machine has of each.
//! - [`models`]: the model files, compiled in from `bench-specs/domino/models/`.
//! - [`run()`]: one (domino instance, configuration) pair to one [`RunRecord`].
//! - [`process`]: the external process under limits (own process group, SIGTERM then SIGKILL
//!   to the group, cgroup v2 or rusage measurement); [`cgroup`] the cgroup v2 part.
//! - [`output`]: readers of MiniZinc's, clingo's and the CP-SAT script's output.
//! - [`mzn`]: any MiniZinc model on a data file: its sense from the model interface, a run
//!   read from MiniZinc's JSON stream (objective, times to best and to proof, statistics,
//!   a `.mzc` checker's verdict on every solution).
//! - [`mzn_suite`]: a task of the MiniZinc suite family (`mzn-suite`): the job's frozen model,
//!   checker and data run by [`mzn`], read into a judged [`RunRecord`].
//! - [`host`]: the machine description stored with each run.
//!
//! The record itself ([`RunRecord`], [`Status`], [`Termination`], ...) and the one judge of
//! its claims live in `cores::bench` (`record`, `judge`), shared with the coordinator and
//! the CLI; they are re-exported here.
//!
//! # The fields of a [`RunRecord`]
//! | field | meaning |
//! | --- | --- |
//! | `instance`, `config` | the instance id and the configuration name |
//! | `status` | `optimal` (verified and proven), `feasible` (verified, not proven), `solved` (a Sudoku slice: every puzzle answered and verified; a MiniZinc suite's satisfaction problem: a solution), `unsatisfiable` (a MiniZinc suite: proven to have no solution), `timeout` (a limit hit before any solution; a Sudoku slice: before every puzzle), `unavailable` (solver not installed: not a failure), `error` (no usable answer: crash, unreadable output), `wrong` (the answer failed the verifier, or the claimed objective is not the placement's size) |
//! | `termination` | `none` (ended by itself), `walltime`, `cputime` (the limit stopped it, or the solver stopped itself at it: CP-SAT), `memory` (out-of-memory kill, or an allocation failure under a memory limit), `killed` (a signal we did not send), `failed` (an exit status the solver does not use for success; a failed start) |
//! | `answer` | tagged by `family`: domino `objective` (tiles in the best verified placement), `bound` (a proven upper bound: the objective when optimal; otherwise the native solver's or CP-SAT's bound; `None` when the solver gives none), `bound_by` (how the bound was proven, `cores::domino::BoundBy`: native's `count`, `sides`, `cell-search`, `tile-search` or `sat`; `solver` for an external solver's proof or printed bound; `None` without a bound, and in records stored before it) and `placement` (the best verified placement; for `wrong`, the rejected one); Sudoku `puzzles` (per puzzle: line, status, seconds, grids, difficulty); MiniZinc suite (`mzn-suite`) `sense`, `objective`, `solutions`, `checked`, `rejected` (the checker's complaints), `seconds_to_best`, `seconds_to_proof`, `best` (the best solution's output) |
//! | `wall_seconds` | spawn to exit (MiniZinc's compilation included) |
//! | `cpu_seconds`, `cpu_measure` | CPU (user + system) of the whole process tree; `cgroup-v2`, `rusage` (the solver and the descendants it waited for) or `thread` (native) |
//! | `peak_memory_bytes`, `memory_measure` | `cgroup-v2` (`memory.peak` of the tree) or `rusage` (largest single process's peak RSS); none for native |
//! | `time_limit_seconds`, `memory_limit_bytes` | the limits the run had |
//! | `solver`, `solver_version` | `gecode` and `Gecode 6.2.0, MiniZinc 2.6.4`; `clingo` and `clingo 5.8.3 (python3 -m clingo)`; `cp-sat` and `OR-Tools 9.15.6755 (/path/to/python3)`; `native` and the dancehall version |
//! | `command` | the exact argv (its files lived in a temporary directory) |
//! | `exit_code`, `signal` | how the process ended |
//! | `message` | why: the verifier's complaint, the solver's error lines |
//! | `host` | host name, CPU model, cores, memory, kernel, dancehall version |
//! | `models` | each model file the solver ran, with the SHA-256 of its text (the frozen one in a benchmark job) |

pub mod cgroup;
pub mod config;
pub mod host;
pub mod models;
pub mod mzn;
pub mod mzn_suite;
pub mod output;
pub mod process;
mod run;
pub mod sudoku;
pub mod sudoku_external;

use std::collections::BTreeMap;

pub use config::{
    available_configs, config, configs_of, def_availability, engine_capabilities, sha256_hex,
    Availability, Config, Engine, MznSolver, CONFIGS,
};
pub use cores::bench::{
    cross_check, Answer, ConfigDef, Conflict, EngineDef, Family, HostInfo, Instance, Measure,
    ModelHash, RunRecord, Status, Termination,
};
pub use run::{
    external_for, external_from_def, failed, fill_template, run, run_caught, run_def, run_external,
    run_native, run_with_models, BenchError, External, RunLimits, Syntax, Template,
};

/// A benchmark job's frozen files as a worker runs them: model files by name, and the
/// definitions of its configurations by configuration name (the text as frozen, whose
/// SHA-256 each run records).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frozen {
    pub models: BTreeMap<String, String>,
    pub configs: BTreeMap<String, String>,
}

/// Runs configuration `name` on a task's instance (`instance_json`, read as `family`'s), with
/// the job's `frozen` files: the configuration's frozen definition when the job has one,
/// else the built-in configuration of that name (jobs submitted before definitions were
/// frozen). A task that cannot start (unknown configuration, one of another family, a
/// definition or an instance that does not parse) is an `error` record: it would fail the
/// same way on every worker.
pub fn run_task(
    family: Family,
    instance_id: &str,
    instance_json: &str,
    name: &str,
    limits: &RunLimits,
    frozen: &Frozen,
) -> RunRecord {
    let fail = |why: String| failed(family, instance_id, name, limits, why);
    let (def, text) = match frozen.configs.get(name) {
        Some(text) => match ConfigDef::from_json(text) {
            Ok(d) if d.name == name => (d, text.clone()),
            Ok(d) => {
                return fail(format!(
                    "the frozen definition of `{name}` names `{}`",
                    d.name
                ))
            }
            Err(e) => return fail(format!("configuration `{name}`: {e}")),
        },
        None => match config(name) {
            Some(cfg) => {
                let def = cfg.definition_with(&|n| {
                    frozen
                        .models
                        .get(n)
                        .cloned()
                        .or_else(|| models::model(n).map(|m| m.text.to_owned()))
                        .unwrap_or_default()
                });
                let text = def.to_json();
                (def, text)
            }
            None => {
                let known: Vec<&str> = configs_of(family).map(|c| c.name).collect();
                return fail(format!(
                    "unknown {family} configuration `{name}` (known: {})",
                    known.join(", ")
                ));
            }
        },
    };
    if def.family != family {
        return fail(format!(
            "configuration `{name}` solves {} instances, the task is a {family} instance",
            def.family
        ));
    }
    let hash = sha256_hex(&text);
    match Instance::parse(family, instance_json) {
        Ok(Instance::Domino(instance)) => run_def(&instance, &def, &hash, limits, &frozen.models),
        Ok(Instance::Sudoku(slice)) => {
            let base = match def.engine {
                EngineDef::BuiltIn => def.base.as_deref().and_then(config),
                _ => None,
            };
            match base {
                Some(cfg) => RunRecord {
                    config: name.to_owned(),
                    config_sha256: Some(hash),
                    ..sudoku::run_slice(&slice, cfg, limits)
                },
                None => fail(format!(
                    "configuration `{name}`: a Sudoku benchmark runs built-in configurations only"
                )),
            }
        }
        Ok(Instance::MznSuite(instance)) => {
            mzn_suite::run_suite(&instance, &def, &hash, limits, &frozen.models)
        }
        Err(e) => fail(format!("the unit's instance does not parse: {e}")),
    }
}

#[cfg(test)]
mod tests;
