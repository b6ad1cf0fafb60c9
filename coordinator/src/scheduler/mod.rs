//! The scheduler: a plain state machine (no I/O, no clock, no tokio) that owns jobs, units,
//! leases and accepted results. Every operation takes the current time in milliseconds;
//! lease tokens come from a generator handed in at construction (random in the server,
//! seeded in tests). Each operation records what it changed; the server takes those
//! [`ChangeSet`]s with [`Scheduler::take_changes`] and writes each one to the store in one
//! transaction, and a restart rebuilds the scheduler from the store's [`Snapshot`].
//!
//! Invariants (checked by the seeded model test in `model_test.rs`):
//! - exactly once: a unit has at most one accepted result, and a job's count is the u128
//!   sum of the accepted results of its work units, each times its unit's weight (audit
//!   re-runs are compared, never added; re-split children and audits inherit the weight);
//!   sums and products are checked, an overflow is `None` in [`JobStatus`], never wrapped;
//! - a lease token is valid from its grant until its deadline passes (strictly later than the
//!   deadline), it is released, its result is reported, or its job is cancelled; never again;
//! - the queue holds exactly the queued units that are not held, in (job, unit id) order:
//!   oldest first, so an expired unit goes back ahead of the newer ones;
//! - a unit is held when its runs failed `failures_limit` times or more (leases its workers
//!   released with a failure, reports rejected as malformed; expiries do not count), or when
//!   its leases ended with their worker's death `deaths_limit` times or more (expiries, except
//!   of leases granted before a restart, and leases of a worker known dead: a unit that kills
//!   its worker would otherwise be leased forever): it stays queued, out of the queue, so it
//!   is never leased again;
//! - every held unit has its alarm (`failed`, `died`: one for each limit it reached), raised
//!   once per unit when it becomes held (with the last reason), also when a restart under a
//!   lower limit holds it (then with the first operation after the restart, which the server
//!   makes at once);
//! - a unit with a death is leased alone: to a worker holding no lease, which is leased
//!   nothing else while it holds it, so that a death is the unit's own, never shared with
//!   the units a worker held beside the one that killed it;
//! - a job is done exactly when none of its work units is queued or leased (a held unit keeps
//!   its job running: its count is incomplete, and [`JobStatus::units_held`] says so).
//!
//! The design follows the lessons of preusser/q27 (re-issue expired units, log unknown
//! results) and Paracooba's re-split (see /work/shared/REFERENCES.md).

mod bench;
mod lease;
#[cfg(test)]
mod model_test;
mod report;

use cores::label::Label;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::job::{
    Accepted, Alarm, AlarmKind, BenchTask, Capabilities, Count, FrozenFile, Job, JobId, JobKind,
    JobSettings, JobState, LeaseEnd, LeaseToken, Millis, Prefix, Unit, UnitEstimate, UnitId,
    UnitResult, UnitState, UnitTerm, Verdict, WeightedSum, WorkerId, WorkerInfo,
};

pub use bench::Resumed;

pub use lease::{Granted, HeartbeatOutcome, LeaseOutcome};
pub use report::ReportOutcome;

/// Lease rules.
#[derive(Clone, Debug)]
pub struct SchedulerConfig {
    /// A lease lasts this long after its grant or its last heartbeat.
    pub lease_duration_ms: u64,
    /// Raise an alarm when a unit is leased for the this-many-th time (0: never).
    pub attempts_alarm: u32,
    /// Hold a unit (never lease it again) once its runs failed this many times (0: never).
    pub failures_limit: u32,
    /// Hold a unit once its leases ended with their worker's death this many times (0:
    /// never).
    pub deaths_limit: u32,
    /// Cap on the units of one lease call.
    pub max_units_per_lease: u32,
    /// Hint to a worker that got no unit.
    pub retry_after_ms: u64,
}

/// A unit whose runs failed on workers this many times is held (never leased again).
pub const DEFAULT_FAILURES_LIMIT: u32 = 3;
/// A unit whose leases ended with their worker's death this many times is held. Higher than
/// the failures limit: workers also die for reasons of their own (preemption, a kill).
pub const DEFAULT_DEATHS_LIMIT: u32 = 10;

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            lease_duration_ms: 60_000,
            attempts_alarm: 5,
            failures_limit: DEFAULT_FAILURES_LIMIT,
            deaths_limit: DEFAULT_DEATHS_LIMIT,
            max_units_per_lease: 64,
            retry_after_ms: 1_000,
        }
    }
}

/// What the scheduler refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchedError {
    #[error("unknown worker {0}; register again")]
    UnknownWorker(WorkerId),
    #[error("unknown job {0}")]
    UnknownJob(JobId),
    #[error("job {0} is not a benchmark job")]
    NotBenchmark(JobId),
    /// The job's accepted results do not add up (a class's parts disagree): a broken
    /// invariant, never a total.
    #[error("job {0}: {1}")]
    Sum(JobId, String),
}

/// One lease ever granted (kept after it ends, so that a late report can be classified).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseRecord {
    pub token: LeaseToken,
    pub unit: UnitId,
    pub job: JobId,
    pub attempt: u32,
    pub worker: WorkerId,
    pub granted_at: Millis,
    /// When and why it ended.
    pub ended: Option<(Millis, LeaseEnd)>,
}

/// A line of the event log.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub at: Millis,
    pub job: Option<JobId>,
    pub unit: Option<UnitId>,
    pub kind: &'static str,
    pub message: String,
}

/// Every report, accepted or not, with the reason (the `report_audit` table).
#[derive(Clone, Debug, PartialEq)]
pub struct ReportRecord {
    pub at: Millis,
    pub worker: WorkerId,
    pub token: LeaseToken,
    /// The unit the token belongs to (`None` for an unknown token).
    pub unit: Option<UnitId>,
    pub job: Option<JobId>,
    /// The unit id the worker named.
    pub claimed_unit: UnitId,
    pub verdict: Verdict,
    pub reason: String,
    pub result: UnitResult,
}

/// The texts of a new job, which only the store keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct JobTexts {
    pub job: JobId,
    pub dlx: String,
    pub spec: String,
    /// A benchmark job's frozen batch and model files.
    pub files: Vec<FrozenFile>,
}

/// A job to add: its units come from `partition`.
#[derive(Clone, Debug)]
pub struct NewJob {
    pub name: String,
    pub kind: JobKind,
    /// Benchmark jobs: see [`Job::manifest`].
    pub manifest: Option<String>,
    pub files: Vec<FrozenFile>,
    pub prefix: Prefix,
    pub symmetry_factor: Count,
    pub settings: JobSettings,
    pub dlx: String,
    pub spec: String,
    pub units: Vec<NewUnit>,
}

#[derive(Clone, Debug)]
pub struct NewUnit {
    pub prefix: Prefix,
    /// The unit's weight in its job's total (1 unless the job was submitted weighted).
    pub weight: Count,
    pub estimate: Option<UnitEstimate>,
    /// A benchmark job's task (then `prefix` is empty).
    pub task: Option<BenchTask>,
    /// A count by classes: the class the unit counts (then `prefix` is the job's).
    pub term: Option<UnitTerm>,
    /// Counted by the partitioner itself (a solved or dead prefix), or imported from the job
    /// a submission resumes: the unit starts done (split when `split`).
    pub counted: Option<UnitResult>,
    /// With `counted`: the count covers only the part outside the units that name this one
    /// as `parent` (an imported split unit); it starts `Split`.
    pub split: bool,
    /// The index, among its job's new units, of the (earlier) unit it was split from.
    pub parent: Option<usize>,
}

/// Everything that changed since the last [`Scheduler::take_changes`], as full rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChangeSet {
    pub jobs: Vec<Job>,
    pub job_texts: Vec<JobTexts>,
    pub units: Vec<Unit>,
    pub results: Vec<Accepted>,
    pub leases: Vec<LeaseRecord>,
    pub reports: Vec<ReportRecord>,
    pub workers: Vec<WorkerInfo>,
    pub events: Vec<Event>,
    pub alarms: Vec<Alarm>,
}

impl ChangeSet {
    pub fn is_empty(&self) -> bool {
        *self == ChangeSet::default()
    }
}

#[derive(Default)]
struct Dirty {
    jobs: BTreeSet<JobId>,
    job_texts: Vec<JobTexts>,
    units: BTreeSet<UnitId>,
    results: Vec<UnitId>,
    leases: BTreeSet<LeaseToken>,
    reports: Vec<ReportRecord>,
    workers: BTreeSet<WorkerId>,
    events: Vec<Event>,
    alarms: Vec<Alarm>,
}

/// What the store holds and a restart starts from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub jobs: Vec<Job>,
    pub units: Vec<Unit>,
    pub results: Vec<Accepted>,
    pub leases: Vec<LeaseRecord>,
    pub workers: Vec<WorkerInfo>,
    pub alarms: Vec<Alarm>,
}

impl Snapshot {
    /// Sorts every list by id, so that two snapshots of the same state compare equal.
    pub fn normalize(&mut self) {
        self.jobs.sort_by_key(|j| j.id);
        self.units.sort_by_key(|u| u.id);
        self.results.sort_by_key(|r| r.unit);
        self.leases.sort_by(|a, b| a.token.cmp(&b.token));
        self.workers.sort_by_key(|w| w.id);
        self.alarms.sort_by_key(|a| a.id);
    }
}

/// Progress of one job, computed from its units.
#[derive(Clone, Debug, PartialEq)]
pub struct JobStatus {
    pub job: Job,
    /// Sum of the accepted results of its work units, unweighted (exact: a `Count`).
    pub solutions: Count,
    /// Sum of weight x solutions over the accepted results of its work units (exact;
    /// `cores::unit_term::WeightedSum`: a two-band class counted in parts adds its
    /// `E(C) B(C)^2` once every part is in). Equal to `solutions` when every weight is 1.
    pub weighted_solutions: Count,
    /// Some work unit has a weight other than 1.
    pub weighted: bool,
    pub nodes: u64,
    pub updates: u64,
    pub unit_wall_seconds: f64,
    pub unit_cpu_seconds: f64,
    pub units_total: u64,
    pub units_done: u64,
    pub units_leased: u64,
    /// Queued work units, the held ones included.
    pub units_queued: u64,
    /// Queued work units that are held (their runs failed `failures_limit` times, or their
    /// leases ended with their worker's death `deaths_limit` times): never leased again, so a
    /// running job whose open units are all held will not finish.
    pub units_held: u64,
    pub audits_total: u64,
    pub audits_done: u64,
    /// Audit re-runs held the same way.
    pub audits_held: u64,
    pub workers: u64,
    pub alarms: Vec<Alarm>,
    /// Benchmark jobs: the current runs' records by status.
    pub run_statuses: BTreeMap<String, u64>,
}

type TokenGen = Box<dyn FnMut() -> LeaseToken + Send>;

pub struct Scheduler {
    config: SchedulerConfig,
    jobs: BTreeMap<JobId, Job>,
    /// Units of each job, in creation order.
    job_units: HashMap<JobId, Vec<UnitId>>,
    /// Work units of each job that are queued or leased.
    open: HashMap<JobId, usize>,
    alarms: BTreeMap<u64, Alarm>,
    units: BTreeMap<UnitId, Unit>,
    accepted: HashMap<UnitId, Accepted>,
    queue: BTreeSet<(JobId, UnitId)>,
    live: HashMap<LeaseToken, UnitId>,
    /// (deadline, unit) of every live lease, so that expiry looks only at the leases due
    /// (every operation expires first: a scan of all live leases would cost each call as
    /// much as the leases held, thousands with many workers holding reserves).
    deadlines: BTreeSet<(Millis, UnitId)>,
    /// The units each worker holds a live lease on.
    holding: HashMap<WorkerId, BTreeSet<UnitId>>,
    /// Live leases granted before this scheduler was restored: their expiry is no death (the
    /// coordinator's restart, not the unit, may have cost their workers).
    inherited: HashSet<LeaseToken>,
    history: HashMap<LeaseToken, LeaseRecord>,
    workers: BTreeMap<WorkerId, WorkerInfo>,
    /// The alarms that hold units (`AlarmKind::holds`) raised so far, by unit: each is
    /// raised once.
    hold_alarms: HashSet<(UnitId, AlarmKind)>,
    /// Units a restart found held without their alarm (a lower limit than before): the next
    /// expiry raises it (a restore has no clock).
    unalarmed: Vec<UnitId>,
    next_job: JobId,
    next_unit: UnitId,
    next_worker: WorkerId,
    next_alarm: u64,
    tokens: TokenGen,
    dirty: Dirty,
}

impl Scheduler {
    pub fn new(
        config: SchedulerConfig,
        tokens: impl FnMut() -> LeaseToken + Send + 'static,
    ) -> Self {
        Self::restore(config, Snapshot::default(), tokens)
    }

    /// Rebuilds a scheduler from a snapshot (a restart). Leases keep running until their
    /// deadline: a worker that finished while the coordinator was down can still report.
    pub fn restore(
        config: SchedulerConfig,
        snapshot: Snapshot,
        tokens: impl FnMut() -> LeaseToken + Send + 'static,
    ) -> Self {
        let mut s = Scheduler {
            config,
            jobs: BTreeMap::new(),
            job_units: HashMap::new(),
            open: HashMap::new(),
            alarms: BTreeMap::new(),
            units: BTreeMap::new(),
            accepted: HashMap::new(),
            queue: BTreeSet::new(),
            live: HashMap::new(),
            deadlines: BTreeSet::new(),
            holding: HashMap::new(),
            inherited: HashSet::new(),
            history: HashMap::new(),
            workers: BTreeMap::new(),
            hold_alarms: HashSet::new(),
            unalarmed: Vec::new(),
            next_job: 1,
            next_unit: 1,
            next_worker: 1,
            next_alarm: 1,
            tokens: Box::new(tokens),
            dirty: Dirty::default(),
        };
        for job in snapshot.jobs {
            s.next_job = s.next_job.max(job.id + 1);
            s.open.insert(job.id, 0);
            s.job_units.insert(job.id, Vec::new());
            s.jobs.insert(job.id, job);
        }
        for mut unit in snapshot.units {
            s.next_unit = s.next_unit.max(unit.id + 1);
            if unit.state == UnitState::Leased {
                match &unit.lease {
                    Some(lease) => {
                        s.live.insert(lease.token.clone(), unit.id);
                        s.deadlines.insert((lease.deadline, unit.id));
                        s.holding.entry(lease.worker).or_default().insert(unit.id);
                        s.inherited.insert(lease.token.clone());
                    }
                    // A leased unit without its lease cannot be reported: queue it.
                    None => unit.state = UnitState::Queued,
                }
            }
            if unit.state == UnitState::Queued && !s.held(&unit) {
                s.queue.insert((unit.job, unit.id));
            }
            if unit.audit_of.is_none()
                && matches!(unit.state, UnitState::Queued | UnitState::Leased)
            {
                *s.open.entry(unit.job).or_default() += 1;
            }
            s.job_units.entry(unit.job).or_default().push(unit.id);
            s.units.insert(unit.id, unit);
        }
        for list in s.job_units.values_mut() {
            list.sort_unstable();
        }
        for r in snapshot.results {
            s.accepted.insert(r.unit, r);
        }
        for l in snapshot.leases {
            s.history.insert(l.token.clone(), l);
        }
        for w in snapshot.workers {
            s.next_worker = s.next_worker.max(w.id + 1);
            s.workers.insert(w.id, w);
        }
        for a in snapshot.alarms {
            s.next_alarm = s.next_alarm.max(a.id + 1);
            if let (Some(unit), true) = (a.unit, a.kind.holds()) {
                s.hold_alarms.insert((unit, a.kind));
            }
            s.alarms.insert(a.id, a);
        }
        s.unalarmed = s
            .units
            .values()
            .filter(|u| !s.missing_hold_alarms(u).is_empty())
            .map(|u| u.id)
            .collect();
        s
    }

    /// The whole state, as the store would hold it after every change set was written.
    pub fn snapshot(&self) -> Snapshot {
        let mut snap = Snapshot {
            jobs: self.jobs.values().cloned().collect(),
            units: self.units.values().cloned().collect(),
            results: self.accepted.values().cloned().collect(),
            leases: self.history.values().cloned().collect(),
            workers: self.workers.values().cloned().collect(),
            alarms: self.alarms.values().cloned().collect(),
        };
        snap.normalize();
        snap
    }

    pub fn config(&self) -> &SchedulerConfig {
        &self.config
    }

    /// Takes the rows changed since the last call (to be written in one transaction).
    pub fn take_changes(&mut self) -> ChangeSet {
        let d = std::mem::take(&mut self.dirty);
        ChangeSet {
            jobs: d.jobs.iter().map(|id| self.jobs[id].clone()).collect(),
            job_texts: d.job_texts,
            units: d.units.iter().map(|id| self.units[id].clone()).collect(),
            results: d
                .results
                .iter()
                .map(|id| self.accepted[id].clone())
                .collect(),
            leases: d.leases.iter().map(|t| self.history[t].clone()).collect(),
            reports: d.reports,
            workers: d
                .workers
                .iter()
                .map(|id| self.workers[id].clone())
                .collect(),
            events: d.events,
            alarms: d.alarms,
        }
    }

    /// Records a new worker and returns its id.
    pub fn register(
        &mut self,
        now: Millis,
        name: &str,
        host: &str,
        threads: u32,
        software_version: &str,
    ) -> WorkerId {
        let id = self.next_worker;
        self.next_worker += 1;
        self.workers.insert(
            id,
            WorkerInfo {
                id,
                name: name.to_string(),
                host: host.to_string(),
                threads,
                software_version: software_version.to_string(),
                registered_at: now,
                last_seen: now,
                capabilities: Capabilities::default(),
            },
        );
        self.dirty.workers.insert(id);
        self.event(
            now,
            None,
            None,
            "worker-registered",
            format!("worker {id} on {host}"),
        );
        id
    }

    /// Records what a worker can run (benchmark units then go to workers that can run them).
    pub fn set_capabilities(
        &mut self,
        worker: WorkerId,
        capabilities: Capabilities,
    ) -> Result<(), SchedError> {
        let w = self
            .workers
            .get_mut(&worker)
            .ok_or(SchedError::UnknownWorker(worker))?;
        w.capabilities = capabilities;
        self.dirty.workers.insert(worker);
        Ok(())
    }

    /// Adds a job and its units; returns its id. A job whose units were all counted at
    /// partition time is done at once.
    pub fn add_job(&mut self, now: Millis, new: NewJob) -> JobId {
        let id = self.next_job;
        self.next_job += 1;
        let job = Job {
            id,
            name: new.name,
            kind: new.kind,
            manifest: new.manifest,
            state: JobState::Running,
            prefix: new.prefix,
            symmetry_factor: new.symmetry_factor,
            settings: new.settings,
            created_at: now,
            finished_at: None,
        };
        self.jobs.insert(id, job);
        self.job_units.insert(id, Vec::new());
        self.open.insert(id, 0);
        self.dirty.jobs.insert(id);
        self.dirty.job_texts.push(JobTexts {
            job: id,
            dlx: new.dlx,
            spec: new.spec,
            files: new.files,
        });
        let n = new.units.len();
        let mut ids: Vec<UnitId> = Vec::with_capacity(n);
        for u in new.units {
            // The partitioner names only earlier units as parents.
            let parent = u.parent.and_then(|i| ids.get(i).copied());
            let uid = self.new_unit(
                now, id, parent, None, u.prefix, u.weight, u.estimate, u.task,
            );
            self.set_term(uid, u.term);
            ids.push(uid);
            if let Some(result) = u.counted {
                let state = if u.split {
                    UnitState::Split
                } else {
                    UnitState::Done
                };
                self.set_unit_state(uid, state);
                self.accepted.insert(
                    uid,
                    Accepted {
                        unit: uid,
                        job: id,
                        worker: None,
                        result,
                        bench: None,
                        accepted_at: now,
                    },
                );
                self.dirty.results.push(uid);
            }
        }
        self.event(now, Some(id), None, "job-submitted", format!("{n} units"));
        self.check_done(now, id);
        id
    }

    /// Cancels a job: its queued and leased units are cancelled and their leases end. A done
    /// job stays done (its pending audits are cancelled).
    pub fn cancel(&mut self, now: Millis, job: JobId) -> Result<(), SchedError> {
        let state = self
            .jobs
            .get(&job)
            .ok_or(SchedError::UnknownJob(job))?
            .state;
        if state == JobState::Running {
            let j = self.jobs.get_mut(&job).expect("checked");
            j.state = JobState::Cancelled;
            j.finished_at = Some(now);
            self.dirty.jobs.insert(job);
            self.event(now, Some(job), None, "job-cancelled", String::new());
        }
        let ids = self.job_units[&job].clone();
        for uid in ids {
            let st = self.units[&uid].state;
            if st == UnitState::Leased {
                self.end_lease(now, uid, LeaseEnd::Cancelled);
            }
            if matches!(st, UnitState::Queued | UnitState::Leased) {
                self.set_unit_state(uid, UnitState::Cancelled);
            }
        }
        Ok(())
    }

    pub fn job(&self, job: JobId) -> Option<&Job> {
        self.jobs.get(&job)
    }

    pub fn jobs(&self) -> impl Iterator<Item = &Job> {
        self.jobs.values()
    }

    pub fn unit(&self, unit: UnitId) -> Option<&Unit> {
        self.units.get(&unit)
    }

    pub fn accepted(&self, unit: UnitId) -> Option<&Accepted> {
        self.accepted.get(&unit)
    }

    /// The units of a job (work and audit), oldest first, each with its accepted result.
    pub fn job_units(&self, job: JobId) -> Vec<(&Unit, Option<&Accepted>)> {
        self.job_units
            .get(&job)
            .map(|ids| {
                ids.iter()
                    .map(|id| (&self.units[id], self.accepted.get(id)))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn worker(&self, id: WorkerId) -> Option<&WorkerInfo> {
        self.workers.get(&id)
    }

    /// Progress of a job, computed from its units.
    pub fn status(&self, job: JobId) -> Result<JobStatus, SchedError> {
        let j = self.jobs.get(&job).ok_or(SchedError::UnknownJob(job))?;
        let mut st = JobStatus {
            job: j.clone(),
            solutions: Count::zero(),
            weighted_solutions: Count::zero(),
            weighted: false,
            nodes: 0,
            updates: 0,
            unit_wall_seconds: 0.0,
            unit_cpu_seconds: 0.0,
            units_total: 0,
            units_done: 0,
            units_leased: 0,
            units_queued: 0,
            units_held: 0,
            audits_total: 0,
            audits_done: 0,
            audits_held: 0,
            workers: 0,
            alarms: self
                .alarms
                .values()
                .filter(|a| a.job == job)
                .cloned()
                .collect(),
            run_statuses: BTreeMap::new(),
        };
        if j.kind == JobKind::Benchmark {
            for (_, acc) in self.current_runs(job) {
                if let Some(b) = acc.and_then(|a| a.bench.as_ref()) {
                    *st.run_statuses
                        .entry(b.record.status.as_str().to_owned())
                        .or_default() += 1;
                }
            }
        }
        let mut workers = BTreeSet::new();
        let mut sum = WeightedSum::default();
        // Walked in place, not collected: a 12x12 two-band job has a million units.
        let ids = self.job_units.get(&job).map_or(&[][..], |v| v.as_slice());
        for (unit, acc) in ids
            .iter()
            .map(|id| (&self.units[id], self.accepted.get(id)))
        {
            let held = u64::from(self.held(unit));
            if unit.audit_of.is_some() {
                st.audits_total += 1;
                st.audits_done += u64::from(acc.is_some());
                st.audits_held += held;
                continue;
            }
            st.units_total += 1;
            st.weighted |= unit.weight != Count::one();
            st.units_held += held;
            match unit.state {
                UnitState::Queued => st.units_queued += 1,
                UnitState::Leased => st.units_leased += 1,
                UnitState::Done | UnitState::Split => st.units_done += 1,
                UnitState::Cancelled => {}
            }
            if let Some(a) = acc {
                st.solutions += &a.result.solutions;
                sum.add(unit.term.as_ref(), &unit.weight, &a.result.solutions)
                    .map_err(|e| SchedError::Sum(job, e.to_string()))?;
                st.nodes = st.nodes.saturating_add(a.result.nodes);
                st.updates = st.updates.saturating_add(a.result.updates);
                st.unit_wall_seconds += a.result.wall_seconds;
                st.unit_cpu_seconds += a.result.cpu_seconds;
                if let Some(w) = a.worker {
                    workers.insert(w);
                }
            }
        }
        st.workers = workers.len() as u64;
        st.weighted_solutions = sum.total();
        Ok(st)
    }

    // ---- helpers shared by the operation modules ----

    /// Makes unit `uid` (just made, not yet written) count a class (an orbit term, a
    /// two-band class).
    fn set_term(&mut self, uid: UnitId, term: Option<UnitTerm>) {
        if let Some(u) = self.units.get_mut(&uid) {
            u.term = term;
        }
    }

    #[allow(clippy::too_many_arguments)] // one place makes units; each field is needed
    fn new_unit(
        &mut self,
        now: Millis,
        job: JobId,
        parent: Option<UnitId>,
        audit_of: Option<UnitId>,
        prefix: Prefix,
        weight: Count,
        estimate: Option<UnitEstimate>,
        task: Option<BenchTask>,
    ) -> UnitId {
        let id = self.next_unit;
        self.next_unit += 1;
        self.units.insert(
            id,
            Unit {
                id,
                job,
                parent,
                audit_of,
                prefix,
                weight,
                estimate,
                task,
                term: None,
                state: UnitState::Queued,
                attempts: 0,
                failures: 0,
                deaths: 0,
                lease: None,
                created_at: now,
            },
        );
        self.queue.insert((job, id));
        if audit_of.is_none() {
            *self.open.entry(job).or_default() += 1;
        }
        self.job_units.entry(job).or_default().push(id);
        self.dirty.units.insert(id);
        id
    }

    /// Whether `unit` is held: queued, but its runs failed `failures_limit` times or its
    /// leases ended with their worker's death `deaths_limit` times, so it is kept out of the
    /// queue.
    fn held(&self, unit: &Unit) -> bool {
        unit.state == UnitState::Queued && self.held_out(unit)
    }

    /// Whether `unit` reached a limit (held once it is queued).
    fn held_out(&self, unit: &Unit) -> bool {
        unit.failed_out(self.config.failures_limit) || unit.died_out(self.config.deaths_limit)
    }

    /// The hold alarms `unit` lacks: `failed` when it is held for its failures and has none,
    /// `died` when it is held for its deaths and has none.
    fn missing_hold_alarms(&self, unit: &Unit) -> Vec<AlarmKind> {
        let reached = [
            (
                AlarmKind::Failed,
                unit.failed_out(self.config.failures_limit),
            ),
            (AlarmKind::Died, unit.died_out(self.config.deaths_limit)),
        ];
        reached
            .into_iter()
            .filter(|&(kind, reached)| {
                reached
                    && unit.state == UnitState::Queued
                    && !self.hold_alarms.contains(&(unit.id, kind))
            })
            .map(|(kind, _)| kind)
            .collect()
    }

    /// Queues a unit again (its lease has ended, or a cancelled benchmark run is resumed); one
    /// that is held gets the alarms that say so, unless it has them. `cause`: the kind of
    /// what ended its last lease (a failure, a death) and why, when that made it held.
    fn requeue(&mut self, now: Millis, uid: UnitId, cause: Option<(AlarmKind, &str)>) {
        self.set_unit_state(uid, UnitState::Queued);
        self.raise_hold_alarms(now, uid, cause);
    }

    /// Raises the hold alarms `uid` lacks (see [`Scheduler::missing_hold_alarms`]), the one of
    /// `cause`'s kind with its reason.
    fn raise_hold_alarms(&mut self, now: Millis, uid: UnitId, cause: Option<(AlarmKind, &str)>) {
        let unit = &self.units[&uid];
        let kinds = self.missing_hold_alarms(unit);
        if kinds.is_empty() {
            return;
        }
        let (job, audit) = (unit.job, unit.audit_of.is_some());
        let (failures, deaths) = (unit.failures, unit.deaths);
        let lost = match (audit, self.jobs[&job].kind) {
            (true, _) => "its audit is not compared",
            (false, JobKind::Count) => "the count is incomplete",
            (false, JobKind::Benchmark) => "its run is missing",
        };
        for kind in kinds {
            let (times, limit, name) = match kind {
                AlarmKind::Failed => (failures, self.config.failures_limit, "failures limit"),
                AlarmKind::Died => (deaths, self.config.deaths_limit, "deaths limit"),
                _ => unreachable!("not a hold alarm: {kind:?}"),
            };
            let why = match cause {
                Some((k, why)) if k == kind => why.to_string(),
                _ => format!("at least the {name}, {limit}"),
            };
            self.alarm(
                now,
                job,
                Some(uid),
                kind,
                format!(
                    "unit {uid} {} {} ({why}); held, {lost}",
                    kind.as_str(),
                    match times {
                        1 => "once".to_string(),
                        n => format!("{n} times"),
                    }
                ),
            );
        }
    }

    /// Raises the hold alarms that a restart found missing (the first expiry does).
    fn raise_restored_hold_alarms(&mut self, now: Millis) {
        for uid in std::mem::take(&mut self.unalarmed) {
            self.raise_hold_alarms(now, uid, None);
        }
    }

    /// Moves a unit to `state`, keeping the queue and the open counts in step (a held unit
    /// is queued outside the queue).
    fn set_unit_state(&mut self, uid: UnitId, state: UnitState) {
        let held_out = self.held_out(&self.units[&uid]);
        let unit = self.units.get_mut(&uid).expect("unit exists");
        let was_open = matches!(unit.state, UnitState::Queued | UnitState::Leased);
        let is_open = matches!(state, UnitState::Queued | UnitState::Leased);
        if unit.state == UnitState::Queued {
            self.queue.remove(&(unit.job, uid));
        }
        if state == UnitState::Queued && !held_out {
            self.queue.insert((unit.job, uid));
        }
        if unit.audit_of.is_none() && was_open != is_open {
            let open = self.open.entry(unit.job).or_default();
            if is_open {
                *open += 1;
            } else {
                *open -= 1;
            }
        }
        unit.state = state;
        self.dirty.units.insert(uid);
    }

    /// Ends the live lease of a leased unit (the caller sets the unit's next state).
    fn end_lease(&mut self, now: Millis, uid: UnitId, why: LeaseEnd) {
        let unit = self.units.get_mut(&uid).expect("unit exists");
        if let Some(lease) = unit.lease.take() {
            self.live.remove(&lease.token);
            self.deadlines.remove(&(lease.deadline, uid));
            self.inherited.remove(&lease.token);
            if let Some(held) = self.holding.get_mut(&lease.worker) {
                held.remove(&uid);
                if held.is_empty() {
                    self.holding.remove(&lease.worker);
                }
            }
            if let Some(rec) = self.history.get_mut(&lease.token) {
                rec.ended = Some((now, why));
            }
            self.dirty.leases.insert(lease.token);
        }
        self.dirty.units.insert(uid);
    }

    fn check_done(&mut self, now: Millis, job: JobId) {
        let j = self.jobs.get_mut(&job).expect("job exists");
        if j.state == JobState::Running && self.open.get(&job).copied().unwrap_or(0) == 0 {
            j.state = JobState::Done;
            j.finished_at = Some(now);
            self.dirty.jobs.insert(job);
            self.event(now, Some(job), None, "job-done", String::new());
        }
    }

    fn event(
        &mut self,
        at: Millis,
        job: Option<JobId>,
        unit: Option<UnitId>,
        kind: &'static str,
        message: String,
    ) {
        self.dirty.events.push(Event {
            at,
            job,
            unit,
            kind,
            message,
        });
    }

    fn alarm(
        &mut self,
        at: Millis,
        job: JobId,
        unit: Option<UnitId>,
        kind: AlarmKind,
        message: String,
    ) {
        let id = self.next_alarm;
        self.next_alarm += 1;
        tracing::warn!(job, unit, kind = kind.as_str(), "alarm: {message}");
        let a = Alarm {
            id,
            job,
            unit,
            kind,
            message,
            raised_at: at,
        };
        if let (Some(unit), true) = (unit, kind.holds()) {
            self.hold_alarms.insert((unit, kind));
        }
        self.alarms.insert(id, a.clone());
        self.dirty.alarms.push(a);
    }

    #[cfg(test)]
    fn check_invariants(&self) {
        // The queue holds exactly the queued units that are not held.
        let queued: BTreeSet<(JobId, UnitId)> = self
            .units
            .values()
            .filter(|u| u.state == UnitState::Queued && !self.held(u))
            .map(|u| (u.job, u.id))
            .collect();
        assert_eq!(queued, self.queue, "queue out of step");
        // Every held unit has its alarms, or is waiting for them after a restart.
        for u in self.units.values() {
            if !self.missing_hold_alarms(u).is_empty() {
                assert!(
                    self.unalarmed.contains(&u.id),
                    "unit {} held silently",
                    u.id
                );
            }
        }
        // Live tokens are exactly the leases of leased units.
        let live: HashMap<LeaseToken, UnitId> = self
            .units
            .values()
            .filter_map(|u| u.lease.as_ref().map(|l| (l.token.clone(), u.id)))
            .collect();
        assert_eq!(live, self.live, "live leases out of step");
        let deadlines: BTreeSet<(Millis, UnitId)> = self
            .units
            .values()
            .filter_map(|u| u.lease.as_ref().map(|l| (l.deadline, u.id)))
            .collect();
        assert_eq!(deadlines, self.deadlines, "lease deadlines out of step");
        let mut holding: HashMap<WorkerId, BTreeSet<UnitId>> = HashMap::new();
        for u in self.units.values() {
            if let Some(l) = &u.lease {
                holding.entry(l.worker).or_default().insert(u.id);
            }
        }
        assert_eq!(holding, self.holding, "leases by worker out of step");
        assert!(
            self.inherited.iter().all(|t| self.live.contains_key(t)),
            "an inherited lease that ended"
        );
        // A worker holding a unit with a death holds nothing else.
        for held in self.holding.values() {
            if held.iter().any(|u| self.units[u].deaths > 0) {
                assert_eq!(
                    held.len(),
                    1,
                    "a unit with a death shares its worker: {held:?}"
                );
            }
        }
        for u in self.units.values() {
            // Split children and audits inherit the weight; no weight is 0.
            assert!(!u.weight.is_zero(), "unit {} has weight 0", u.id);
            if let Some(p) = u.parent {
                assert_eq!(
                    u.weight, self.units[&p].weight,
                    "unit {} vs parent {p}",
                    u.id
                );
            }
            assert_eq!(
                u.lease.is_some(),
                u.state == UnitState::Leased,
                "unit {}",
                u.id
            );
            assert_eq!(
                self.accepted.contains_key(&u.id),
                u.state.has_result(),
                "unit {} state {:?}",
                u.id,
                u.state
            );
        }
        for (job, open) in &self.open {
            let n = self.job_units[job]
                .iter()
                .filter(|id| {
                    let u = &self.units[id];
                    u.audit_of.is_none() && matches!(u.state, UnitState::Queued | UnitState::Leased)
                })
                .count();
            assert_eq!(n, *open, "open count of job {job}");
        }
    }
}

/// Whether a finished unit is chosen for an audit re-run: a deterministic function of the
/// job's seed and the unit id (splitmix64), true for about `share` of the units.
pub fn audit_selected(seed: u64, unit: UnitId, share: f64) -> bool {
    if share <= 0.0 {
        return false;
    }
    if share >= 1.0 {
        return true;
    }
    let mut z = seed ^ unit.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    ((z >> 11) as f64) / ((1u64 << 53) as f64) < share
}
