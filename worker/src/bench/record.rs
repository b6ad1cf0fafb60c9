//! What one run of one configuration on one instance produced: the [`RunRecord`] stored per
//! (instance, configuration) pair, and [`cross_check`], which flags answers that contradict
//! each other across the runs of one instance (mzn-bench's `check-statuses`).
//!
//! Invariant: a record whose `status` is `optimal` or `feasible` carries a placement that
//! passed `cores::domino::verify` and whose length is `objective`; a placement that fails the
//! verifier makes the record `wrong`, whatever the solver claimed.

use cores::domino::Placement;
use serde::{Deserialize, Serialize};

use super::host::HostInfo;

/// The outcome of a run, as a benchmark table counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The solver proved its (verified) placement maximum.
    Optimal,
    /// A verified placement without a proof of optimality (a limit or a failure ended the run).
    Feasible,
    /// A limit ended the run before any solution was reported.
    Timeout,
    /// The configuration's solver is not installed here (never counted as a failure).
    Unavailable,
    /// The solver failed without a solution (crash, bad exit, memory exhausted, unreadable output).
    Error,
    /// The solver's answer failed the verifier, or its objective disagrees with its placement.
    Wrong,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::Feasible => "feasible",
            Status::Timeout => "timeout",
            Status::Unavailable => "unavailable",
            Status::Error => "error",
            Status::Wrong => "wrong",
        }
    }

    /// Parses what [`Status::as_str`] writes (for `--status timeout,error` filters).
    pub fn parse(text: &str) -> Option<Status> {
        Some(match text {
            "optimal" => Status::Optimal,
            "feasible" => Status::Feasible,
            "timeout" => Status::Timeout,
            "unavailable" => Status::Unavailable,
            "error" => Status::Error,
            "wrong" => Status::Wrong,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the solver stopped (BenchExec's termination reasons, plus `none`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Termination {
    /// It ended by itself (answered, or exited): no limit and no foreign signal.
    #[serde(rename = "none")]
    Normal,
    /// The wall-time limit: the harness stopped it.
    Walltime,
    /// The CPU-time limit.
    Cputime,
    /// The memory limit (an out-of-memory kill, or an allocation failure under the limit).
    Memory,
    /// A signal the harness did not send.
    Killed,
    /// A non-zero exit status the solver does not use for success, or a failed start.
    Failed,
}

impl Termination {
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "none",
            Termination::Walltime => "walltime",
            Termination::Cputime => "cputime",
            Termination::Memory => "memory",
            Termination::Killed => "killed",
            Termination::Failed => "failed",
        }
    }
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a figure was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// A cgroup v2 child created for the run: the whole process tree, however it forked.
    CgroupV2,
    /// `wait4` rusage of the solver's process: it includes only descendants that were waited
    /// for, and peak memory is the largest single process's resident set, not the tree's sum.
    Rusage,
    /// The calling thread's CPU clock (the in-process native solver).
    Thread,
    /// Not measured (no solver ran, or nothing here can measure it).
    None,
}

/// One run of one configuration on one instance. The distributed path stores it in SQLite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The instance's id (`b01-e1`).
    pub instance: String,
    /// The configuration's name (`gecode-placement`).
    pub config: String,
    pub status: Status,
    pub termination: Termination,
    /// Tiles placed by the best verified placement (`None` without one).
    pub objective: Option<u32>,
    /// A proven upper bound on the optimum, when the solver gives one (`objective` if optimal).
    pub bound: Option<u32>,
    /// Wall seconds from spawn to reaping (the MiniZinc compilation included).
    pub wall_seconds: f64,
    /// CPU seconds (user + system) of the whole process tree, see `cpu_measure`.
    pub cpu_seconds: Option<f64>,
    /// Peak memory in bytes, see `memory_measure`.
    pub peak_memory_bytes: Option<u64>,
    pub cpu_measure: Measure,
    pub memory_measure: Measure,
    /// The wall-time limit the run had, in seconds.
    pub time_limit_seconds: f64,
    /// The memory limit the run had, in bytes.
    pub memory_limit_bytes: Option<u64>,
    /// The solver program (`gecode`, `chuffed`, `clingo`, `native`).
    pub solver: String,
    /// Its version as it reports it (`Gecode 6.2.0, MiniZinc 2.6.4`).
    pub solver_version: String,
    /// The exact command line (empty for the in-process native solver); file arguments name
    /// files in a temporary directory that is gone after the run.
    pub command: Vec<String>,
    /// The process's exit code, or the signal that ended it.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// The best verified placement (empty when none; for `wrong`, the rejected one).
    pub placement: Vec<Placement>,
    /// Why the status is what it is when that is not obvious: the verifier's complaint, the
    /// solver's error output (its last lines), a failed start.
    pub message: Option<String>,
    /// The machine, and the dancehall version that ran the benchmark.
    pub host: HostInfo,
    /// The model files the solver ran (name and lowercase hex SHA-256 of the text); empty for
    /// the native solver.
    #[serde(default)]
    pub models: Vec<ModelHash>,
}

/// A model file a run used, by content hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelHash {
    pub name: String,
    pub sha256: String,
}

impl ModelHash {
    pub fn of(name: &str, text: &str) -> ModelHash {
        use sha2::{Digest, Sha256};
        ModelHash {
            name: name.to_owned(),
            sha256: hex::encode(Sha256::digest(text.as_bytes())),
        }
    }
}

/// A contradiction among the records of one instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The configuration whose claim is refuted.
    pub config: String,
    pub reason: String,
}

/// Cross-checks the records of one instance: any verified placement (of an `optimal` or
/// `feasible` record) larger than another record's proven bound refutes that bound; an
/// `optimal` record's bound is its objective, so two different proofs of optimality refute the
/// smaller one. `wrong` records are neither evidence nor checked. Returns one [`Conflict`] per
/// refuted record.
pub fn cross_check(records: &[RunRecord]) -> Vec<Conflict> {
    let best = records
        .iter()
        .filter(|r| matches!(r.status, Status::Optimal | Status::Feasible))
        .filter_map(|r| r.objective.map(|o| (o, r)))
        .max_by_key(|(o, _)| *o);
    let Some((best_objective, best_record)) = best else {
        return Vec::new();
    };
    records
        .iter()
        .filter(|r| r.status != Status::Wrong)
        .filter_map(|r| {
            let bound = r.bound?;
            (bound < best_objective).then(|| Conflict {
                config: r.config.clone(),
                reason: format!(
                    "{} the optimum is at most {bound}, but {} placed {best_objective} tiles \
                     (verified)",
                    if r.status == Status::Optimal {
                        "proved"
                    } else {
                        "claims"
                    },
                    best_record.config
                ),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        config: &str,
        status: Status,
        objective: Option<u32>,
        bound: Option<u32>,
    ) -> RunRecord {
        RunRecord {
            instance: "t".into(),
            config: config.into(),
            status,
            termination: Termination::Normal,
            objective,
            bound,
            wall_seconds: 0.0,
            cpu_seconds: None,
            peak_memory_bytes: None,
            cpu_measure: Measure::None,
            memory_measure: Measure::None,
            time_limit_seconds: 1.0,
            memory_limit_bytes: None,
            solver: "s".into(),
            solver_version: "1".into(),
            command: vec![],
            exit_code: None,
            signal: None,
            placement: vec![],
            message: None,
            host: HostInfo::default(),
            models: vec![],
        }
    }

    #[test]
    fn agreeing_records_have_no_conflict() {
        let rs = [
            record("a", Status::Optimal, Some(5), Some(5)),
            record("b", Status::Optimal, Some(5), Some(5)),
            record("c", Status::Feasible, Some(4), None),
            record("d", Status::Timeout, None, None),
        ];
        assert_eq!(cross_check(&rs), vec![]);
    }

    #[test]
    fn a_proof_below_a_verified_placement_is_refuted() {
        let rs = [
            record("low", Status::Optimal, Some(4), Some(4)),
            record("high", Status::Feasible, Some(5), None),
        ];
        let c = cross_check(&rs);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].config, "low");
    }

    #[test]
    fn of_two_different_proofs_the_smaller_is_refuted() {
        let rs = [
            record("big", Status::Optimal, Some(6), Some(6)),
            record("small", Status::Optimal, Some(5), Some(5)),
        ];
        let c = cross_check(&rs);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].config, "small");
    }

    #[test]
    fn a_feasible_run_with_a_too_small_bound_is_refuted() {
        let rs = [
            record("native", Status::Feasible, Some(3), Some(4)),
            record("clingo", Status::Optimal, Some(5), Some(5)),
        ];
        let c = cross_check(&rs);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].config, "native");
    }

    #[test]
    fn wrong_records_are_no_evidence() {
        let rs = [
            record("bad", Status::Wrong, Some(9), None),
            record("good", Status::Optimal, Some(5), Some(5)),
        ];
        assert_eq!(cross_check(&rs), vec![]);
    }

    #[test]
    fn statuses_round_trip_through_their_names() {
        for s in [
            Status::Optimal,
            Status::Feasible,
            Status::Timeout,
            Status::Unavailable,
            Status::Error,
            Status::Wrong,
        ] {
            assert_eq!(Status::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{s}\""));
        }
        assert_eq!(
            serde_json::to_string(&Termination::Normal).unwrap(),
            "\"none\""
        );
        assert_eq!(
            serde_json::to_string(&Measure::CgroupV2).unwrap(),
            "\"cgroup-v2\""
        );
    }
}
