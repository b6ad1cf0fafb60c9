//! What one run of one solver configuration on one benchmark instance produced, for every
//! problem family: the [`RunRecord`], the one description of a benchmark run that the worker
//! writes, the coordinator checks and stores, and the reports read (one typed record). What is
//! common to every family (status, termination, times, memory, solver, host) is a field of the
//! record; what the solver answered is its family's [`Answer`] (a domino placement with its
//! objective and bound; a Sudoku slice's per-puzzle results; what MiniZinc printed on a
//! MiniZinc suite's data file, [`MznAnswer`]).
//!
//! It crosses the wire as JSON (`UnitResult.run_record_json`) and sits in the database as JSON
//! (`bench_runs.record`): [`RunRecord::to_json`] is the only writer of that text and
//! [`RunRecord::from_json`] the only reader, so a renamed field is a compile error in every
//! crate that reads it, and a record missing a field is refused, never read as an empty value.
//! Only `models`, `config_sha256`, `stats` and a domino answer's `bound_by` may be absent
//! (records of workers older than them: no model hashes, no definition hash, no solver
//! statistics, and a bound whose provenance was not recorded).
//!
//! Invariant (kept by [`super::judge()`]): a record whose `status` is `optimal`, `feasible` or
//! `solved` carries an answer its family's verifier accepted (a domino placement of
//! `objective` tiles within its `bound`; a verified grid for every Sudoku puzzle claimed
//! solved, two distinct ones for `multiple`; a MiniZinc suite's solutions, each called correct
//! by the suite's checker when it has one, with a status that fits the model's sense);
//! anything else that claims to be solved is `wrong`.

use crate::label::Label;
use serde::{Deserialize, Serialize};
use strum::{EnumString, IntoStaticStr, VariantArray};

use super::family::Family;
use super::mzn_suite::Sense;
use crate::domino::{BoundBy, Placement};
use crate::sudoku::bench::PuzzleRun;

/// The outcome of a run, as a benchmark table counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Status {
    /// The solver proved its (verified) placement maximum.
    Optimal,
    /// A verified placement without a proof of optimality (a limit or a failure ended the run).
    Feasible,
    /// Every item of the run answered, each answer verified (a family with nothing to
    /// optimise: a Sudoku slice whose every puzzle was answered).
    Solved,
    /// The solver proved that the instance has no solution (a MiniZinc suite's instance;
    /// a domino instance always has one, the empty placement).
    Unsatisfiable,
    /// A limit ended the run before any solution was reported (a Sudoku slice: before every
    /// puzzle was answered; the answered ones are kept).
    Timeout,
    /// The configuration's solver is not installed here (never counted as a failure).
    Unavailable,
    /// The solver failed without a solution (crash, bad exit, memory exhausted, unreadable output).
    Error,
    /// The solver's answer failed the verifier, or its objective or bound disagrees with its
    /// placement.
    Wrong,
}

impl Status {
    /// `optimal`, `feasible` or `solved`: the record claims a verified answer.
    pub fn is_solved(self) -> bool {
        matches!(self, Status::Optimal | Status::Feasible | Status::Solved)
    }

    /// `optimal`, `solved` or `unsatisfiable`: the run answered everything it was given and
    /// its answer is complete (nothing is left to run again; a benchmark's proven runs).
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            Status::Optimal | Status::Solved | Status::Unsatisfiable
        )
    }

    /// The names of every status, comma-separated (for messages).
    pub fn names() -> String {
        Status::ALL
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
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

/// The machine a run ran on ("each run also stores the host (CPU model, cores,
/// memory, kernel) and the dancehall version"); the worker reads it from `/proc`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostInfo {
    pub hostname: String,
    /// `model name` of the first processor.
    pub cpu_model: String,
    /// Processors the worker may run on.
    pub cores: u32,
    /// Total memory, in bytes.
    pub memory_bytes: u64,
    /// The kernel release (`6.1.0-18-amd64`).
    pub kernel: String,
    /// The dancehall version that ran the benchmark.
    pub dancehall_version: String,
}

/// A model file a run used, by content hash (lowercase hex SHA-256 of its text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelHash {
    pub name: String,
    pub sha256: String,
}

/// What the solver answered, in its family's terms; serialised with a `family` tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "lowercase")]
pub enum Answer {
    /// A domino instance (seed 001): the best placement and what is proved about the optimum.
    Domino {
        /// Tiles placed by the best verified placement (`None` without one).
        objective: Option<u32>,
        /// A proven upper bound on the optimum, when the solver gives one (`objective` if
        /// optimal).
        bound: Option<u32>,
        /// How `bound` was proven (`None` without a bound, and in records stored before it
        /// was recorded).
        #[serde(default)]
        bound_by: Option<BoundBy>,
        /// The best verified placement (empty when none; for `wrong`, the rejected one).
        placement: Vec<Placement>,
    },
    /// A slice of a Sudoku puzzle file: one result per puzzle, in file order.
    Sudoku { puzzles: Vec<PuzzleRun> },
    /// A data file of a MiniZinc suite, read from MiniZinc's JSON stream.
    #[serde(rename = "mzn-suite")]
    MznSuite(MznAnswer),
}

/// What MiniZinc printed on one data file of a suite (`--json-stream --intermediate
/// --output-mode json --output-time --statistics`, a checker's verdicts among them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MznAnswer {
    /// The model's sense, as the instance says it.
    pub sense: Sense,
    /// The best (last) solution's `_objective` (none for a satisfaction problem).
    pub objective: Option<i64>,
    /// Solutions printed.
    pub solutions: u32,
    /// Solutions the suite's checker called correct (0 without a checker).
    pub checked: u32,
    /// What the checker said of each solution it did not call correct.
    pub rejected: Vec<String>,
    /// Seconds from MiniZinc's start to the best solution (`--output-time`).
    pub seconds_to_best: Option<f64>,
    /// Seconds to the final status that proved the answer (optimality, all solutions, or
    /// unsatisfiability).
    pub seconds_to_proof: Option<f64>,
    /// The best solution's output variables (MiniZinc's `json` section), as evidence.
    pub best: Option<serde_json::Value>,
}

impl MznAnswer {
    /// An answer of nothing yet, for a model of `sense`.
    pub fn empty(sense: Sense) -> MznAnswer {
        MznAnswer {
            sense,
            objective: None,
            solutions: 0,
            checked: 0,
            rejected: Vec::new(),
            seconds_to_best: None,
            seconds_to_proof: None,
            best: None,
        }
    }
}

impl Answer {
    /// A domino answer with nothing in it yet.
    pub fn domino() -> Answer {
        Answer::Domino {
            objective: None,
            bound: None,
            bound_by: None,
            placement: Vec::new(),
        }
    }

    pub fn family(&self) -> Family {
        match self {
            Answer::Domino { .. } => Family::Domino,
            Answer::Sudoku { .. } => Family::Sudoku,
            Answer::MznSuite(_) => Family::MznSuite,
        }
    }

    /// The blank answer of `family`.
    pub fn blank(family: Family) -> Answer {
        match family {
            Family::Domino => Answer::domino(),
            Family::Sudoku => Answer::Sudoku {
                puzzles: Vec::new(),
            },
            Family::MznSuite => Answer::MznSuite(MznAnswer::empty(Sense::Satisfy)),
        }
    }
}

/// One run of one configuration on one instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The instance's id (`b01-e1`; a Sudoku slice: `royle_17clue_49151.txt:1-500`).
    pub instance: String,
    /// The configuration's name (`gecode-placement`, `ps12`).
    pub config: String,
    pub status: Status,
    pub termination: Termination,
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
    /// What the solver answered (its family's results).
    pub answer: Answer,
    /// Why the status is what it is when that is not obvious: the verifier's complaint, the
    /// solver's error output (its last lines), a failed start.
    pub message: Option<String>,
    /// The machine, and the dancehall version that ran the benchmark.
    pub host: HostInfo,
    /// The model files the solver ran (empty for the native solver).
    #[serde(default)]
    pub models: Vec<ModelHash>,
    /// The SHA-256 of the configuration's definition (`super::ConfigDef::to_json`, as the
    /// job froze it): two runs of configurations that share a name are the same
    /// configuration only when this is equal (`None` in records stored before it).
    #[serde(default)]
    pub config_sha256: Option<String>,
    /// The solver's own statistics, by its names (MiniZinc's `nodes`, `failures`,
    /// `restarts`, `solveTime`; clingo's `choices`, `conflicts`, `restarts`), numbers only.
    #[serde(default)]
    pub stats: std::collections::BTreeMap<String, f64>,
}

/// A text that is not a run record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the run record is malformed: {0}")]
pub struct RecordError(pub String);

impl RunRecord {
    /// A record of nothing yet: status `error`, termination `none`, no measurement, a domino
    /// answer (see [`RunRecord::blank_of`]). The starting point of every run's record.
    pub fn blank(instance: &str, config: &str, time_limit_seconds: f64, host: HostInfo) -> Self {
        Self::blank_of(Family::Domino, instance, config, time_limit_seconds, host)
    }

    /// [`RunRecord::blank`] for a run of `family`.
    pub fn blank_of(
        family: Family,
        instance: &str,
        config: &str,
        time_limit_seconds: f64,
        host: HostInfo,
    ) -> Self {
        RunRecord {
            instance: instance.to_owned(),
            config: config.to_owned(),
            status: Status::Error,
            termination: Termination::Normal,
            wall_seconds: 0.0,
            cpu_seconds: None,
            peak_memory_bytes: None,
            cpu_measure: Measure::None,
            memory_measure: Measure::None,
            time_limit_seconds,
            memory_limit_bytes: None,
            solver: String::new(),
            solver_version: String::new(),
            command: Vec::new(),
            exit_code: None,
            signal: None,
            answer: Answer::blank(family),
            message: None,
            host,
            models: Vec::new(),
            config_sha256: None,
            stats: Default::default(),
        }
    }

    /// The record as JSON: the wire's `run_record_json` and the database's `record`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a RunRecord always serialises")
    }

    /// Reads what [`RunRecord::to_json`] writes; every field but `models`, `config_sha256`,
    /// `stats` and `bound_by` must be there.
    pub fn from_json(text: &str) -> Result<RunRecord, RecordError> {
        serde_json::from_str(text).map_err(|e| RecordError(e.to_string()))
    }

    pub fn family(&self) -> Family {
        self.answer.family()
    }

    /// The objective of a domino run (`None` for other families: see
    /// [`RunRecord::objective_value`]).
    pub fn objective(&self) -> Option<u32> {
        match &self.answer {
            Answer::Domino { objective, .. } => *objective,
            _ => None,
        }
    }

    /// The objective of a run of any family that optimises (a domino run's tiles, a MiniZinc
    /// suite run's `_objective`): the database's `bench_runs.objective`.
    pub fn objective_value(&self) -> Option<i64> {
        match &self.answer {
            Answer::Domino { objective, .. } => objective.map(i64::from),
            Answer::MznSuite(a) => a.objective,
            Answer::Sudoku { .. } => None,
        }
    }

    /// The answer of a MiniZinc suite run (`None` for other families).
    pub fn mzn(&self) -> Option<&MznAnswer> {
        match &self.answer {
            Answer::MznSuite(a) => Some(a),
            _ => None,
        }
    }

    /// The proven bound of a domino run (`None` for a family that does not optimise).
    pub fn bound(&self) -> Option<u32> {
        match &self.answer {
            Answer::Domino { bound, .. } => *bound,
            _ => None,
        }
    }

    /// How a domino run's bound was proven (`None` without one, or for other families).
    pub fn bound_by(&self) -> Option<BoundBy> {
        match &self.answer {
            Answer::Domino { bound_by, .. } => *bound_by,
            _ => None,
        }
    }

    /// The placement of a domino run (empty for other families).
    pub fn placement(&self) -> &[Placement] {
        match &self.answer {
            Answer::Domino { placement, .. } => placement,
            _ => &[],
        }
    }

    /// Sets a domino run's objective (nothing for other families).
    pub fn set_objective(&mut self, value: Option<u32>) {
        if let Answer::Domino { objective, .. } = &mut self.answer {
            *objective = value;
        }
    }

    /// Sets a domino run's bound (nothing for other families).
    pub fn set_bound(&mut self, value: Option<u32>) {
        if let Answer::Domino { bound, .. } = &mut self.answer {
            *bound = value;
        }
    }

    /// Sets how a domino run's bound was proven (nothing for other families).
    pub fn set_bound_by(&mut self, value: Option<BoundBy>) {
        if let Answer::Domino { bound_by, .. } = &mut self.answer {
            *bound_by = value;
        }
    }

    /// Sets a domino run's placement (nothing for other families).
    pub fn set_placement(&mut self, value: Vec<Placement>) {
        if let Answer::Domino { placement, .. } = &mut self.answer {
            *placement = value;
        }
    }

    /// The Sudoku puzzles of a slice's run (empty for other families).
    pub fn puzzles(&self) -> &[PuzzleRun] {
        match &self.answer {
            Answer::Sudoku { puzzles } => puzzles,
            _ => &[],
        }
    }

    /// A judge's verdict on the record: with a fault, the record is refuted, the reason
    /// prefixed by `who` (e.g. "the coordinator's verifier"), and that reason is returned;
    /// without one it stands (`None`).
    pub fn judged(&mut self, who: &str, fault: Option<String>) -> Option<String> {
        let why = format!("{who}: {}", fault?);
        self.refute(&why);
        Some(why)
    }

    /// Relabels the record `wrong`: no objective (the answer stays, as evidence), `why`
    /// first in the message.
    pub fn refute(&mut self, why: &str) {
        self.status = Status::Wrong;
        self.set_objective(None);
        if let Answer::MznSuite(a) = &mut self.answer {
            a.objective = None;
        }
        self.message = Some(match self.message.take() {
            Some(m) if !m.is_empty() => format!("{why}\n{m}"),
            _ => why.to_owned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_their_names() {
        for &s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{s}\""));
        }
        assert_eq!(Status::parse("proved"), None);
        assert_eq!(
            Status::names(),
            "optimal, feasible, solved, unsatisfiable, timeout, unavailable, error, wrong"
        );
        assert_eq!(
            serde_json::to_string(&Termination::Normal).unwrap(),
            "\"none\""
        );
        assert_eq!(
            serde_json::to_string(&Measure::CgroupV2).unwrap(),
            "\"cgroup-v2\""
        );
    }

    #[test]
    fn a_record_round_trips_and_a_missing_field_is_refused() {
        let mut r = RunRecord::blank("b01-e1", "native", 5.0, HostInfo::default());
        r.set_bound(Some(4));
        r.set_bound_by(Some(BoundBy::TileSearch));
        let text = r.to_json();
        assert!(text.contains(r#""bound_by":"tile-search""#), "{text}");
        assert_eq!(RunRecord::from_json(&text).unwrap(), r);
        assert_eq!(r.bound_by(), Some(BoundBy::TileSearch));
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v.as_object_mut().unwrap().remove("models");
        assert_eq!(RunRecord::from_json(&v.to_string()).unwrap(), r);
        // A record stored before `bound_by` existed reads as one without a provenance.
        v["answer"].as_object_mut().unwrap().remove("bound_by");
        let old = RunRecord::from_json(&v.to_string()).unwrap();
        assert_eq!((old.bound(), old.bound_by()), (Some(4), None));
        r.set_bound_by(None);
        assert_eq!(old, r);
        v.as_object_mut().unwrap().remove("termination");
        let e = RunRecord::from_json(&v.to_string()).unwrap_err();
        assert!(e.to_string().contains("termination"), "{e}");
        let e = RunRecord::from_json(&text.replace("\"error\"", "\"proved\"")).unwrap_err();
        assert!(e.to_string().contains("proved"), "{e}");
        let e = RunRecord::from_json(&text.replace("\"domino\"", "\"chess\"")).unwrap_err();
        assert!(e.to_string().contains("chess"), "{e}");
    }

    #[test]
    fn refuting_keeps_the_placement_and_says_why_first() {
        let mut r = RunRecord::blank("t", "c", 1.0, HostInfo::default());
        r.status = Status::Optimal;
        r.set_objective(Some(2));
        r.message = Some("solver said hi".into());
        r.refute("bad");
        assert_eq!((r.status, r.objective()), (Status::Wrong, None));
        assert_eq!(r.message.as_deref(), Some("bad\nsolver said hi"));
    }
}
