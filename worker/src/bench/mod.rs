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
//! - [`config`]: the configuration registry ([`CONFIGS`], each of one family) and what this
//!   machine has of each.
//! - [`models`]: the model files, compiled in from `bench-specs/domino/models/`.
//! - [`run()`]: one (domino instance, configuration) pair to one [`RunRecord`].
//! - [`process`]: the external process under limits (own process group, SIGTERM then SIGKILL
//!   to the group, cgroup v2 or rusage measurement); [`cgroup`] the cgroup v2 part.
//! - [`output`]: readers of MiniZinc's, clingo's and the CP-SAT script's output.
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
//! | `status` | `optimal` (verified and proven), `feasible` (verified, not proven), `solved` (a Sudoku slice: every puzzle answered and verified), `timeout` (a limit hit before any solution; a Sudoku slice: before every puzzle), `unavailable` (solver not installed: not a failure), `error` (no usable answer: crash, unreadable output), `wrong` (the answer failed the verifier, or the claimed objective is not the placement's size) |
//! | `termination` | `none` (ended by itself), `walltime`, `cputime` (the limit stopped it, or the solver stopped itself at it: CP-SAT), `memory` (out-of-memory kill, or an allocation failure under a memory limit), `killed` (a signal we did not send), `failed` (an exit status the solver does not use for success; a failed start) |
//! | `answer` | tagged by `family`: domino `objective` (tiles in the best verified placement), `bound` (a proven upper bound: the objective when optimal; otherwise the native solver's or CP-SAT's bound; `None` when the solver gives none), `bound_by` (how the bound was proven, `cores::domino::BoundBy`: native's `count`, `cell-search`, `tile-search` or `sat`; `solver` for an external solver's proof or printed bound; `None` without a bound, and in records stored before it) and `placement` (the best verified placement; for `wrong`, the rejected one); Sudoku `puzzles` (per puzzle: line, status, seconds, grids, difficulty) |
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
pub mod output;
pub mod process;
mod run;
pub mod sudoku;
pub mod sudoku_external;

use std::collections::BTreeMap;

pub use config::{
    available_configs, config, configs_of, Availability, Config, Engine, MznSolver, CONFIGS,
};
pub use cores::bench::{
    cross_check, Answer, Conflict, Family, HostInfo, Instance, Measure, ModelHash, RunRecord,
    Status, Termination,
};
pub use run::{
    external_for, failed, run, run_caught, run_external, run_native, run_with_models, BenchError,
    External, RunLimits, Syntax,
};

/// Runs configuration `name` on a task's instance (`instance_json`, read as `family`'s), with
/// the job's `frozen` model files. A task that cannot start (unknown configuration, one of
/// another family, an instance that does not parse) is an `error` record: it would fail the
/// same way on every worker.
pub fn run_task(
    family: Family,
    instance_id: &str,
    instance_json: &str,
    name: &str,
    limits: &RunLimits,
    frozen: &BTreeMap<String, String>,
) -> RunRecord {
    let fail = |why: String| failed(family, instance_id, name, limits, why);
    let Some(cfg) = config(name) else {
        let known: Vec<&str> = configs_of(family).map(|c| c.name).collect();
        return fail(format!(
            "unknown {family} configuration `{name}` (known: {})",
            known.join(", ")
        ));
    };
    if cfg.family != family {
        return fail(format!(
            "configuration `{name}` solves {} instances, the task is a {family} instance",
            cfg.family
        ));
    }
    match Instance::parse(family, instance_json) {
        Ok(Instance::Domino(instance)) => {
            run_with_models(&instance, name, limits, frozen).unwrap_or_else(|e| fail(e.to_string()))
        }
        Ok(Instance::Sudoku(slice)) => sudoku::run_slice(&slice, cfg, limits),
        Err(e) => fail(format!("the unit's instance does not parse: {e}")),
    }
}

#[cfg(test)]
mod tests;
