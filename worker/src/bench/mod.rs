//! The domino benchmark's solver runs (seed 001): every configuration — the native
//! optimiser, MiniZinc with Gecode (seed 001's model with its four searches, and a
//! placement-based model), Chuffed where installed, clingo — run on one instance under a time
//! and memory limit, measured, and verified. Synchronous and blocking: it runs on a worker's
//! blocking thread (or the CLI's main thread).
//!
//! - [`config`]: the configuration registry ([`CONFIGS`]) and what this machine has of each.
//! - [`models`]: the model files, compiled in from `bench-specs/domino/models/`.
//! - [`run()`]: one (instance, configuration) pair to one [`RunRecord`].
//! - [`process`]: the external process under limits (own process group, SIGTERM then SIGKILL
//!   to the group, cgroup v2 or rusage measurement); [`cgroup`] the cgroup v2 part.
//! - [`output`]: readers of MiniZinc's and clingo's output.
//! - [`host`]: the machine description stored with each run.
//!
//! The record itself ([`RunRecord`], [`Status`], [`Termination`], ...) and the one judge of
//! its claims live in `cores::domino` (`record`, `judge`), shared with the coordinator and
//! the CLI; they are re-exported here.
//!
//! # The fields of a [`RunRecord`]
//! | field | meaning |
//! | --- | --- |
//! | `instance`, `config` | the instance id and the configuration name |
//! | `status` | `optimal` (verified and proven), `feasible` (verified, not proven), `timeout` (a limit hit before any solution), `unavailable` (solver not installed: not a failure), `error` (no usable answer: crash, unreadable output), `wrong` (the answer failed the verifier, or the claimed objective is not the placement's size) |
//! | `termination` | `none` (ended by itself), `walltime`, `cputime`, `memory` (out-of-memory kill, or an allocation failure under a memory limit), `killed` (a signal we did not send), `failed` (an exit status the solver does not use for success; a failed start) |
//! | `objective` | tiles in the best verified placement |
//! | `bound` | a proven upper bound: the objective when optimal; the native solver's bound otherwise; `None` when the solver gives none |
//! | `wall_seconds` | spawn to exit (MiniZinc's compilation included) |
//! | `cpu_seconds`, `cpu_measure` | CPU (user + system) of the whole process tree; `cgroup-v2`, `rusage` (the solver and the descendants it waited for) or `thread` (native) |
//! | `peak_memory_bytes`, `memory_measure` | `cgroup-v2` (`memory.peak` of the tree) or `rusage` (largest single process's peak RSS); none for native |
//! | `time_limit_seconds`, `memory_limit_bytes` | the limits the run had |
//! | `solver`, `solver_version` | `gecode` and `Gecode 6.2.0, MiniZinc 2.6.4`; `clingo` and `clingo 5.8.3 (python3 -m clingo)`; `native` and the dancehall version |
//! | `command` | the exact argv (its files lived in a temporary directory) |
//! | `exit_code`, `signal` | how the process ended |
//! | `placement` | the best verified placement; for `wrong`, the rejected one |
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

pub use config::{available_configs, config, Availability, Config, Engine, MznSolver, CONFIGS};
pub use cores::domino::{
    cross_check, Conflict, HostInfo, Measure, ModelHash, RunRecord, Status, Termination,
};
pub use run::{
    external_for, failed, run, run_external, run_native, run_with_models, BenchError, External,
    RunLimits, Syntax,
};

#[cfg(test)]
mod tests;
