//! Domain types of the coordinator: jobs, units, leases, results, alarms. Plain data; the
//! gRPC edge converts `proto` messages to and from these by hand (`server::convert`), and
//! the store maps them to rows (`store`).
//!
//! Invariant: a unit's prefix is the full list of option ids applied to its job's problem
//! (it starts with the job's own prefix); the units of a job with an accepted result cover
//! disjoint subtrees whose union is the job's whole tree, so the job's count is the u128 sum
//! of their accepted `solutions`, each times its unit's `weight` (1 unless the job was
//! submitted as weighted units), overflow checked.
//!
//! A benchmark job's units are [`BenchTask`]s instead (one instance under one solver
//! configuration, prefix empty); each accepted result carries a [`BenchRecord`] that the
//! coordinator verified itself ([`crate::bench`]). Re-running a task (`retry`) makes a new unit
//! whose `parent` is the unit it supersedes: a task's *current* unit is the one no other unit
//! names as parent, and every unit keeps its own, never-updated result.

use std::collections::BTreeSet;
use std::fmt;
use strum::{EnumString, IntoStaticStr, VariantArray};

pub use cores::bench::{Family, FileKind, RunRecord, Status as RunStatus};
pub use cores::count::Count;
pub use cores::count_core::{CoreSpec, CountCore};
pub use cores::domino::Difficulty;
pub use cores::grids::two_band::TwoBandClass;
pub use cores::orbit_term::{GroupChoice, OrbitTerm};
pub use cores::unit_term::{UnitTerm, WeightedSum};

pub type JobId = u64;
pub type UnitId = u64;
pub type WorkerId = u64;
/// Milliseconds since the Unix epoch (deadlines survive a restart, so they are wall-clock).
pub type Millis = u64;
/// Option ids, as in `cores::xcc::OptionId`.
pub type Prefix = Vec<u32>;

/// The secret that names one lease (unguessable: 128 random bits, hex).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LeaseToken(pub String);

impl fmt::Debug for LeaseToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Enough to tell tokens apart in logs without printing the secret.
        let short: String = self.0.chars().take(6).collect();
        write!(f, "LeaseToken({short}..)")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum JobState {
    Running,
    Done,
    Cancelled,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum UnitState {
    Queued,
    Leased,
    /// Finished: its accepted result covers its whole subtree.
    Done,
    /// Stopped at its budget: its accepted result covers the part outside its children.
    Split,
    Cancelled,
}

impl UnitState {
    /// Whether the unit has an accepted result.
    pub fn has_result(self) -> bool {
        matches!(self, UnitState::Done | UnitState::Split)
    }
}

/// Why an alarm was raised on a job (`alarms.kind`, `pb::Alarm.kind`: its name,
/// `Label::as_str`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum AlarmKind {
    /// A late report of an accepted unit counts other solutions than the accepted result.
    Mismatch,
    /// An audit re-run counted other solutions than the result it checks.
    AuditMismatch,
    /// A report through a live lease was malformed; the unit is queued again.
    Rejected,
    /// A unit was leased `attempts_alarm` times without a result.
    Attempts,
    /// A benchmark run's answer fails the coordinator's verifier; stored as `wrong`.
    WrongAnswer,
    /// A unit's runs failed `failures_limit` times; it is held.
    Failed,
    /// A unit's leases ended with its worker's death (an expiry, or a worker known dead)
    /// `deaths_limit` times; it is held.
    Died,
}

impl AlarmKind {
    /// Whether an alarm of this kind says that its unit is held (never leased again): each
    /// held unit has one, raised once, when it becomes held.
    pub fn holds(self) -> bool {
        matches!(self, AlarmKind::Failed | AlarmKind::Died)
    }
}

/// How a lease ended (`leases.end_reason`: its name, `Label::as_str`).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    IntoStaticStr,
    EnumString,
    VariantArray,
)]
#[strum(serialize_all = "kebab-case")]
pub enum LeaseEnd {
    /// Its deadline passed without a heartbeat; the unit was queued again.
    Expired,
    /// Its worker handed the unit back without a failure (a drain, a shutdown).
    Released,
    /// Its worker released it with a failure (the run failed there); counts as a failure.
    Failed,
    /// A report through it was accepted (a count, an audit to compare, a benchmark run).
    Reported,
    /// Its worker's report through it was refused as malformed; counts as a failure.
    Rejected,
    /// Its job was cancelled while it ran.
    Cancelled,
    /// Its worker was known to die while it held it (a local worker process of `run` that
    /// ended); counts as a death, as an expiry does.
    Died,
}

/// What a job's units are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum JobKind {
    /// Subtrees of a DLX problem; results are counts.
    Count,
    /// Benchmark runs; results are verified run records.
    Benchmark,
}

/// One run of a benchmark job: an instance (as frozen) under a configuration.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BenchTask {
    /// The instance's problem family (tasks stored before families were named are domino).
    #[serde(default)]
    pub family: Family,
    pub instance_id: String,
    /// The instance as its family writes it (`cores::bench::Instance::parse`): one JSON line of
    /// a domino batch file, or a Sudoku slice (`cores::sudoku::bench::Slice`) as JSON.
    pub instance_json: String,
    /// Lowercase hex SHA-256 of `instance_json`.
    pub instance_sha256: String,
    /// The batch (domino) or puzzle (Sudoku) file it came from.
    pub batch: String,
    pub config: String,
    pub time_limit_seconds: f64,
    pub memory_limit_bytes: Option<u64>,
    /// The capability a worker needs to run it (`cores::bench::ConfigDef::needs`); `None`:
    /// the configuration's name (a built-in configuration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<String>,
}

/// A file a benchmark job was submitted with, frozen with its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrozenFile {
    pub kind: FileKind,
    pub name: String,
    pub sha256: String,
    pub text: String,
}

/// The run record of a benchmark unit as the coordinator judged and stores it.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchRecord {
    /// The worker's record, relabelled `wrong` where the coordinator's judge disagreed.
    pub record: RunRecord,
    /// The frozen domino instance's difficulty (read from the task, not from the worker);
    /// `None` for a family without one (a Sudoku slice's difficulty is per puzzle, in the
    /// record).
    pub difficulty: Option<Difficulty>,
}

/// How a job runs; fixed at submission. The default: no limits, no audits, seed 0.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobSettings {
    /// Workers stop a unit after this many nodes and hand back the rest (`None`: no limit).
    pub unit_node_limit: Option<u64>,
    /// Workers stop a unit after this long and hand back the rest (`None`: no limit).
    pub unit_time_budget_ms: Option<u64>,
    /// Share of finished units re-run on another worker and compared (0.0 ..= 1.0).
    pub audit_share: f64,
    /// Seed of the partition's estimates and of the audit choice.
    pub seed: u64,
    /// The core workers count the units with (`Dlx` unless the job asks for another).
    pub core: CoreSpec,
}

/// A job as the scheduler keeps it (the DLX and spec texts live only in the store).
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub id: JobId,
    pub name: String,
    pub kind: JobKind,
    /// Benchmark jobs: SHA-256 over the frozen files and the tasks (a resubmission with the
    /// same name and manifest resumes the job).
    pub manifest: Option<String>,
    pub state: JobState,
    pub prefix: Prefix,
    pub symmetry_factor: Count,
    pub settings: JobSettings,
    pub created_at: Millis,
    pub finished_at: Option<Millis>,
}

/// A live lease on a unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub token: LeaseToken,
    pub worker: WorkerId,
    pub attempt: u32,
    pub granted_at: Millis,
    pub deadline: Millis,
}

/// The Monte Carlo estimate of a unit's subtree (means of Knuth's estimator).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UnitEstimate {
    pub nodes: f64,
    pub nodes_std_err: f64,
    pub updates: f64,
    pub solutions: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    pub id: UnitId,
    pub job: JobId,
    /// The unit this one was split from (dynamic re-split), or audits (`audit_of`).
    pub parent: Option<UnitId>,
    /// For an audit re-run: the unit whose accepted result it checks.
    pub audit_of: Option<UnitId>,
    pub prefix: Prefix,
    /// What the unit's count is multiplied by in its job's total (1 unless the job was
    /// submitted as weighted units; re-split children and audits inherit it).
    pub weight: Count,
    pub estimate: Option<UnitEstimate>,
    /// Set for the units of a benchmark job.
    pub task: Option<BenchTask>,
    /// Set for the units of a count by classes (an orbit count's conjugacy class, a two-band
    /// count's configuration class): the class the unit counts (its prefix is the job's; its
    /// weight is the class size).
    pub term: Option<UnitTerm>,
    pub state: UnitState,
    /// Leases granted so far.
    pub attempts: u32,
    /// Leases that ended with a failed run (released by their worker with a failure, or a
    /// report rejected as malformed; an expired lease is not one). At the scheduler's
    /// `failures_limit` the unit is held.
    pub failures: u32,
    /// Leases that ended with their worker's death: expired (but not those granted by an
    /// earlier run of the coordinator), or ended because their worker was known dead (its
    /// process ended: `run`'s local workers). At the scheduler's `deaths_limit` the unit is
    /// held; a unit with a death is leased alone (see `scheduler::lease`).
    pub deaths: u32,
    pub lease: Option<Lease>,
    pub created_at: Millis,
}

impl Unit {
    /// Whether its runs failed `failures_limit` times (0: no limit); such a unit, queued, is
    /// held: never leased again.
    pub fn failed_out(&self, failures_limit: u32) -> bool {
        failures_limit > 0 && self.failures >= failures_limit
    }

    /// Whether its leases ended with their worker's death `deaths_limit` times (0: no limit);
    /// such a unit, queued, is held: never leased again.
    pub fn died_out(&self, deaths_limit: u32) -> bool {
        deaths_limit > 0 && self.deaths >= deaths_limit
    }
}

/// What a worker measured on a unit (or what the partitioner counted directly).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitResult {
    pub solutions: Count,
    pub nodes: u64,
    pub updates: u64,
    /// The unit's estimate as the worker saw it (echo).
    pub estimate_nodes: f64,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    pub host: String,
    /// Unexplored subtrees handed back (each a full prefix extending the unit's).
    pub remaining: Vec<Prefix>,
    /// A benchmark unit's run record as the worker sent it (JSON; empty for counting units).
    pub run_record_json: String,
    /// The core that counted it.
    pub core: CountCore,
}

/// The accepted result of a unit, with who produced it.
#[derive(Clone, Debug, PartialEq)]
pub struct Accepted {
    pub unit: UnitId,
    pub job: JobId,
    /// `None` when the coordinator counted the unit itself at partition time.
    pub worker: Option<WorkerId>,
    pub result: UnitResult,
    /// Benchmark units: the record as checked and stored.
    pub bench: Option<BenchRecord>,
    pub accepted_at: Millis,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    Accepted,
    Duplicate,
    Stale,
    Mismatch,
    Rejected,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Duplicate => "duplicate",
            Verdict::Stale => "stale",
            Verdict::Mismatch => "mismatch",
            Verdict::Rejected => "rejected",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alarm {
    pub id: u64,
    pub job: JobId,
    pub unit: Option<UnitId>,
    pub kind: AlarmKind,
    pub message: String,
    pub raised_at: Millis,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerInfo {
    pub id: WorkerId,
    pub name: String,
    pub host: String,
    pub threads: u32,
    pub software_version: String,
    pub registered_at: Millis,
    pub last_seen: Millis,
    pub capabilities: Capabilities,
}

/// What a worker can run, as it said when it registered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// The benchmark configurations whose solvers it has; `None` when it did not say (any).
    pub bench_configs: Option<BTreeSet<String>>,
    /// Its machine's memory (0 = unknown).
    pub memory_bytes: u64,
    /// Its machine's logical CPUs (0 = unknown; for the record).
    pub cpus: u32,
}

impl Capabilities {
    /// Whether a worker with these capabilities can run `task` as asked: its configuration's
    /// solver is installed (a declared configuration's engine: `BenchTask::needs`), and the task's memory limit fits the machine (when both are known).
    pub fn can_run(&self, task: &BenchTask) -> bool {
        let config = self
            .bench_configs
            .as_ref()
            .is_none_or(|c| c.contains(task.needs.as_ref().unwrap_or(&task.config)));
        let memory = match (task.memory_limit_bytes, self.memory_bytes) {
            (Some(limit), have) if have > 0 => limit <= have,
            _ => true,
        };
        config && memory
    }

    /// The configurations as stored (`None`: not said).
    pub fn configs_text(&self) -> Option<String> {
        self.bench_configs
            .as_ref()
            .map(|c| c.iter().cloned().collect::<Vec<_>>().join(" "))
    }

    /// Reads what [`Capabilities::configs_text`] wrote.
    pub fn configs_from_text(text: Option<&str>) -> Option<BTreeSet<String>> {
        text.map(|t| t.split_whitespace().map(str::to_string).collect())
    }
}

/// Renders a list of prefixes canonically (`"1 5 9;1 5 10"`), for the store and to compare
/// two reports of the same unit.
pub fn prefixes_text(prefixes: &[Prefix]) -> String {
    let mut parts: Vec<String> = prefixes.iter().map(|p| prefix_text(p)).collect();
    parts.sort();
    parts.join(";")
}

/// `"1 5 9"`.
pub fn prefix_text(prefix: &[u32]) -> String {
    let words: Vec<String> = prefix.iter().map(u32::to_string).collect();
    words.join(" ")
}

/// Inverse of [`prefix_text`].
pub fn parse_prefix(text: &str) -> Option<Prefix> {
    text.split_whitespace().map(|w| w.parse().ok()).collect()
}

/// Inverse of [`prefixes_text`] (up to order).
pub fn parse_prefixes(text: &str) -> Option<Vec<Prefix>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(';').map(parse_prefix).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cores::label::Label;

    #[test]
    fn prefix_text_round_trips() {
        let ps = vec![vec![1, 5, 10], vec![1, 5, 9], vec![]];
        let t = prefixes_text(&ps);
        assert_eq!(t, ";1 5 10;1 5 9");
        let mut back = parse_prefixes(&t).unwrap();
        back.sort();
        let mut want = ps.clone();
        want.sort();
        assert_eq!(back, want);
        assert_eq!(parse_prefixes(""), Some(vec![]));
        assert_eq!(parse_prefix("1 x"), None);
    }

    #[test]
    fn alarm_kinds_round_trip() {
        for &k in AlarmKind::ALL {
            assert_eq!(AlarmKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(AlarmKind::parse("exploded"), None);
        assert_eq!(AlarmKind::parse("Failed"), None);
    }

    #[test]
    fn lease_ends_round_trip() {
        for &e in LeaseEnd::ALL {
            assert_eq!(LeaseEnd::parse(e.as_str()), Some(e));
        }
        assert_eq!(LeaseEnd::parse("vanished"), None);
        assert_eq!(LeaseEnd::parse(""), None);
    }
}
