//! Benchmark jobs in the scheduler: accepting a run record, resuming a resubmitted job, and
//! queueing chosen runs again.
//!
//! Invariants:
//! - a benchmark unit's result is accepted only with a record that [`crate::bench::check_record`]
//!   accepted for the unit's own task; a record the coordinator's verifier refutes is stored as
//!   `wrong` (and raises a `wrong-answer` alarm), a malformed one is `rejected` and the unit runs
//!   again;
//! - a re-run never touches an old result: it is a new unit whose `parent` is the unit it
//!   supersedes. The *current* run of a task is the unit no other unit of the job names as
//!   parent; tables and statuses count current runs only.

use std::collections::BTreeSet;

use super::{NewJob, ReportOutcome, SchedError, Scheduler};
use crate::bench::check_record;
use crate::job::RunStatus;
use crate::job::{
    Accepted, AlarmKind, Count, JobId, JobKind, JobState, LeaseEnd, Millis, Unit, UnitId,
    UnitResult, UnitState, Verdict, WorkerId,
};

/// What submitting a benchmark job did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resumed {
    pub job: JobId,
    /// An earlier job with the same name and manifest was resumed.
    pub resumed: bool,
    /// Runs queued by this call.
    pub queued: u64,
    /// Runs of the resumed job that already had a record.
    pub skipped: u64,
}

impl Scheduler {
    /// The current run of every task of a benchmark job (see the module invariants), in unit
    /// order, each with its accepted result.
    pub fn current_runs(&self, job: JobId) -> Vec<(&Unit, Option<&Accepted>)> {
        let units = self.job_units(job);
        let superseded: BTreeSet<UnitId> = units
            .iter()
            .filter(|(u, _)| u.task.is_some())
            .filter_map(|(u, _)| u.parent)
            .collect();
        units
            .into_iter()
            .filter(|(u, _)| u.task.is_some() && !superseded.contains(&u.id))
            .collect()
    }

    /// Resumes the newest *running* counting job of this name and manifest, if there is one
    /// (a `dancehall run` killed and started again): nothing is queued anew, its finished
    /// units are kept and counted as skipped.
    pub fn resume_count(&mut self, now: Millis, name: &str, manifest: &str) -> Option<Resumed> {
        let job = self
            .jobs
            .values()
            .filter(|j| {
                j.kind == JobKind::Count
                    && j.state == JobState::Running
                    && j.name == name
                    && j.manifest.as_deref() == Some(manifest)
            })
            .map(|j| j.id)
            .max()?;
        let (mut open, mut done) = (0u64, 0u64);
        for (u, acc) in self.job_units(job) {
            if u.audit_of.is_some() {
                continue;
            }
            if acc.is_some() {
                done += 1;
            } else if matches!(u.state, UnitState::Queued | UnitState::Leased) {
                open += 1;
            }
        }
        self.event(
            now,
            Some(job),
            None,
            "job-resumed",
            format!("{open} units open, {done} finished units kept"),
        );
        Some(Resumed {
            job,
            resumed: true,
            queued: open,
            skipped: done,
        })
    }

    /// Adds a benchmark job, or resumes the job of the same name and manifest: its cancelled
    /// runs are queued again and its recorded runs are kept (skipped).
    pub fn submit_benchmark(&mut self, now: Millis, new: NewJob) -> Resumed {
        let existing = self
            .jobs
            .values()
            .filter(|j| {
                j.kind == JobKind::Benchmark && j.name == new.name && j.manifest == new.manifest
            })
            .map(|j| j.id)
            .max();
        let Some(job) = existing else {
            let queued = new.units.len() as u64;
            let job = self.add_job(now, new);
            return Resumed {
                job,
                resumed: false,
                queued,
                skipped: 0,
            };
        };
        let mut requeue = Vec::new();
        let mut skipped = 0;
        for (u, acc) in self.current_runs(job) {
            if acc.is_some() {
                skipped += 1;
            } else if u.state == UnitState::Cancelled {
                requeue.push(u.id);
            }
        }
        for &uid in &requeue {
            self.requeue(now, uid, None);
        }
        self.reopen(now, job, requeue.len());
        self.event(
            now,
            Some(job),
            None,
            "job-resumed",
            format!(
                "{} runs queued again, {skipped} recorded runs skipped",
                requeue.len()
            ),
        );
        Resumed {
            job,
            resumed: true,
            queued: requeue.len() as u64,
            skipped,
        }
    }

    /// Queues the current runs of benchmark job `job` again whose record has one of `statuses`
    /// (when empty, every run that is not finished: not `optimal`, nor `solved` for a Sudoku
    /// slice). Returns how many.
    pub fn retry(
        &mut self,
        now: Millis,
        job: JobId,
        statuses: &[RunStatus],
    ) -> Result<u64, SchedError> {
        let j = self.jobs.get(&job).ok_or(SchedError::UnknownJob(job))?;
        if j.kind != JobKind::Benchmark {
            return Err(SchedError::NotBenchmark(job));
        }
        let chosen = |status: RunStatus| {
            if statuses.is_empty() {
                !status.is_finished()
            } else {
                statuses.contains(&status)
            }
        };
        let again: Vec<(UnitId, crate::job::BenchTask)> = self
            .current_runs(job)
            .into_iter()
            .filter_map(|(u, acc)| {
                let status = acc?.bench.as_ref()?.record.status;
                chosen(status).then(|| (u.id, u.task.clone().expect("benchmark unit")))
            })
            .collect();
        for (parent, task) in &again {
            self.new_unit(
                now,
                job,
                Some(*parent),
                None,
                Vec::new(),
                Count::one(),
                None,
                Some(task.clone()),
            );
        }
        self.reopen(now, job, again.len());
        if !again.is_empty() {
            self.event(
                now,
                Some(job),
                None,
                "job-retry",
                format!("{} runs queued again", again.len()),
            );
        }
        Ok(again.len() as u64)
    }

    /// A job that got `queued` new or requeued runs is running again.
    fn reopen(&mut self, now: Millis, job: JobId, queued: usize) {
        if queued == 0 {
            return;
        }
        let j = self.jobs.get_mut(&job).expect("job exists");
        if j.state != JobState::Running {
            j.state = JobState::Running;
            j.finished_at = None;
            self.dirty.jobs.insert(job);
            self.event(now, Some(job), None, "job-reopened", String::new());
        }
    }

    /// A live lease's report on a benchmark unit.
    pub(super) fn report_bench(
        &mut self,
        now: Millis,
        worker: WorkerId,
        uid: UnitId,
        result: &UnitResult,
    ) -> ReportOutcome {
        let unit = &self.units[&uid];
        let job = unit.job;
        let task = unit.task.as_ref().expect("a benchmark unit");
        let checked = if result.remaining.is_empty() {
            check_record(task, &result.run_record_json)
        } else {
            Err("a benchmark unit cannot hand back subtrees".to_string())
        };
        let (record, amended) = match checked {
            Ok(c) => c,
            Err(why) => return self.reject(now, job, uid, why),
        };
        if amended {
            let msg = format!(
                "unit {uid} ({}, {}): the worker's answer fails the coordinator's verifier; \
                 stored as wrong",
                task.instance_id, task.config
            );
            self.alarm(now, job, Some(uid), AlarmKind::WrongAnswer, msg);
        }
        let message = format!("accepted: {}", record.record.status);
        self.end_lease(now, uid, LeaseEnd::Reported);
        self.set_unit_state(uid, UnitState::Done);
        // The record as received is kept only when the judge amended it: otherwise it is the
        // stored record itself, and a second copy would double what a benchmark keeps (a
        // Sudoku slice's record holds a grid per puzzle).
        let kept = if amended {
            result.clone()
        } else {
            UnitResult {
                run_record_json: String::new(),
                ..result.clone()
            }
        };
        self.record_accepted(now, job, worker, uid, &kept, Some(record));
        self.check_done(now, job);
        ReportOutcome {
            verdict: Verdict::Accepted,
            message,
            unit: Some(uid),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{NewUnit, SchedulerConfig};
    use super::*;
    use crate::job::{BenchTask, Capabilities, JobSettings, LeaseToken, WorkerId};
    use cores::bench::sha256_hex;
    use cores::label::Label;
    use std::collections::BTreeMap;

    const INSTANCE: &str =
        r#"{"id": "t1", "difficulty": "easy", "n": 3, "k": 2, "tiles": [[1,0,2],[2,2,0]]}"#;

    fn sched() -> Scheduler {
        let mut n = 0u64;
        Scheduler::new(SchedulerConfig::default(), move || {
            n += 1;
            LeaseToken(format!("t{n}"))
        })
    }

    fn task(config: &str) -> BenchTask {
        BenchTask {
            family: Default::default(),
            instance_id: "t1".into(),
            instance_json: INSTANCE.into(),
            instance_sha256: sha256_hex(INSTANCE),
            batch: "b.txt".into(),
            config: config.into(),
            time_limit_seconds: 1.0,
            memory_limit_bytes: None,
            needs: None,
        }
    }

    fn bench_job(configs: &[&str]) -> NewJob {
        NewJob {
            name: "bench".into(),
            kind: JobKind::Benchmark,
            manifest: Some("m1".into()),
            files: vec![],
            prefix: vec![],
            symmetry_factor: Count::one(),
            settings: JobSettings::default(),
            dlx: String::new(),
            spec: String::new(),
            units: configs
                .iter()
                .map(|c| NewUnit {
                    prefix: vec![],
                    weight: Count::one(),
                    estimate: None,
                    task: Some(task(c)),
                    term: None,
                    counted: None,
                    split: false,
                    parent: None,
                })
                .collect(),
        }
    }

    fn result(config: &str, status: &str, placement: &str, objective: Option<u32>) -> UnitResult {
        let mut record = crate::job::RunRecord {
            status: RunStatus::parse(status).unwrap(),
            wall_seconds: 0.5,
            ..crate::job::RunRecord::blank("t1", config, 1.0, Default::default())
        };
        record.set_objective(objective);
        record.set_bound(objective);
        record.set_placement(serde_json::from_str(placement).unwrap());
        let json = record.to_json();
        UnitResult {
            solutions: Count::zero(),
            nodes: 0,
            updates: 0,
            estimate_nodes: 0.0,
            wall_seconds: 0.5,
            cpu_seconds: 0.5,
            host: "h".into(),
            remaining: vec![],
            run_record_json: json,
            core: Default::default(),
        }
    }

    const APART: &str = r#"[{"tile":0,"row":0,"col":0,"orientation":"H","mirrored":false},
                            {"tile":1,"row":2,"col":0,"orientation":"H","mirrored":false}]"#;
    const CLASH: &str = r#"[{"tile":0,"row":0,"col":0,"orientation":"H","mirrored":false},
                            {"tile":1,"row":1,"col":0,"orientation":"H","mirrored":false}]"#;

    /// Leases every queued unit to a new worker and reports `f(config)` for each.
    fn run_all(s: &mut Scheduler, now: Millis, f: impl Fn(&str) -> UnitResult) -> Vec<Verdict> {
        let w = s.register(now, "w", "h", 1, "0");
        let got = s.lease(now, w, 64).unwrap();
        got.units
            .iter()
            .map(|g| {
                let cfg = g.unit.task.as_ref().unwrap().config.clone();
                s.report(now, w, &g.lease.token, g.unit.id, f(&cfg)).verdict
            })
            .collect()
    }

    #[test]
    fn records_are_checked_and_wrong_answers_stored_as_wrong() {
        let mut s = sched();
        let r = s.submit_benchmark(0, bench_job(&["native", "gecode", "clingo"]));
        assert_eq!((r.resumed, r.queued), (false, 3));
        let verdicts = run_all(&mut s, 1, |cfg| match cfg {
            "native" => result(cfg, "optimal", APART, Some(2)),
            "gecode" => result(cfg, "optimal", CLASH, Some(2)),
            _ => result(cfg, "timeout", "[]", None),
        });
        assert_eq!(verdicts, vec![Verdict::Accepted; 3]);
        let st = s.status(r.job).unwrap();
        assert_eq!(st.job.state, JobState::Done);
        let want: BTreeMap<String, u64> = [("optimal", 1), ("timeout", 1), ("wrong", 1)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(st.run_statuses, want);
        assert!(st.alarms.iter().any(|a| a.kind == AlarmKind::WrongAnswer));
        s.check_invariants();
    }

    #[test]
    fn a_record_for_another_task_is_rejected_and_the_unit_runs_again() {
        let mut s = sched();
        let r = s.submit_benchmark(0, bench_job(&["native"]));
        let v = run_all(&mut s, 1, |_| result("clingo", "timeout", "[]", None));
        assert_eq!(v, vec![Verdict::Rejected]);
        assert_eq!(s.status(r.job).unwrap().units_queued, 1);
        s.check_invariants();
    }

    #[test]
    fn retry_queues_chosen_runs_as_new_units_and_keeps_the_old_records() {
        let mut s = sched();
        let r = s.submit_benchmark(0, bench_job(&["native", "gecode", "clingo"]));
        run_all(&mut s, 1, |cfg| match cfg {
            "native" => result(cfg, "optimal", APART, Some(2)),
            "gecode" => result(cfg, "error", "[]", None),
            _ => result(cfg, "timeout", "[]", None),
        });
        assert_eq!(s.retry(2, r.job, &[RunStatus::Timeout]).unwrap(), 1);
        assert_eq!(s.status(r.job).unwrap().job.state, JobState::Running);
        run_all(&mut s, 3, |cfg| result(cfg, "optimal", APART, Some(2)));
        let st = s.status(r.job).unwrap();
        assert_eq!(st.job.state, JobState::Done);
        assert_eq!(st.run_statuses["optimal"], 2);
        assert_eq!(st.run_statuses["error"], 1);
        // Four units, each with its own result: the superseded timeout is still there.
        assert_eq!(s.job_units(r.job).len(), 4);
        assert!(s.job_units(r.job).iter().all(|(_, a)| a.is_some()));
        // No status given: everything not optimal (the error) runs again.
        assert_eq!(s.retry(4, r.job, &[]).unwrap(), 1);
        s.check_invariants();
    }

    #[test]
    fn resubmitting_resumes_and_skips_recorded_runs() {
        let mut s = sched();
        let r = s.submit_benchmark(0, bench_job(&["native", "gecode", "clingo"]));
        let w = s.register(1, "w", "h", 1, "0");
        let g = s.lease(1, w, 1).unwrap().units.remove(0);
        let cfg = g.unit.task.as_ref().unwrap().config.clone();
        let ok = result(&cfg, "optimal", APART, Some(2));
        s.report(1, w, &g.lease.token, g.unit.id, ok);
        s.cancel(2, r.job).unwrap();
        let again = s.submit_benchmark(3, bench_job(&["native", "gecode", "clingo"]));
        assert_eq!(
            again,
            Resumed {
                job: r.job,
                resumed: true,
                queued: 2,
                skipped: 1
            }
        );
        assert_eq!(s.status(r.job).unwrap().job.state, JobState::Running);
        // Another manifest is another job.
        let mut other = bench_job(&["native"]);
        other.manifest = Some("m2".into());
        assert!(!s.submit_benchmark(4, other).resumed);
        assert!(matches!(
            s.retry(5, 99, &[]),
            Err(SchedError::UnknownJob(99))
        ));
        s.check_invariants();
    }

    fn configs(names: &[&str]) -> Capabilities {
        Capabilities {
            bench_configs: Some(names.iter().map(|n| n.to_string()).collect()),
            memory_bytes: 1 << 30,
            cpus: 2,
        }
    }

    fn leased_configs(s: &mut Scheduler, now: Millis, w: WorkerId) -> Vec<String> {
        let got = s.lease(now, w, 64).unwrap();
        let mut names: Vec<String> = got
            .units
            .iter()
            .map(|g| g.unit.task.as_ref().unwrap().config.clone())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn benchmark_units_go_to_workers_that_can_run_them() {
        let mut s = sched();
        let mut job = bench_job(&["native", "gecode", "clingo", "chuffed"]);
        // A memory limit above the small machine's: only the big one may take it.
        job.units[0].task.as_mut().unwrap().memory_limit_bytes = Some(2 << 30);
        s.submit_benchmark(0, job);
        let small = s.register(0, "small", "h", 1, "0");
        s.set_capabilities(small, configs(&["native", "gecode"]))
            .unwrap();
        let big = s.register(0, "big", "h", 1, "0");
        let mut caps = configs(&["native", "clingo"]);
        caps.memory_bytes = 4 << 30;
        s.set_capabilities(big, caps).unwrap();
        // chuffed: nobody has it, so whoever asks first takes it (to record `unavailable`).
        assert_eq!(leased_configs(&mut s, 1, small), ["chuffed", "gecode"]);
        assert_eq!(leased_configs(&mut s, 1, big), ["clingo", "native"]);
        s.check_invariants();
    }

    #[test]
    fn a_unit_only_absent_workers_can_run_goes_to_anyone() {
        let lease_ms = SchedulerConfig::default().lease_duration_ms;
        let mut s = sched();
        s.submit_benchmark(0, bench_job(&["clingo"]));
        let able = s.register(0, "able", "h", 1, "0");
        s.set_capabilities(able, configs(&["clingo"])).unwrap();
        let other = s.register(0, "other", "h", 1, "0");
        s.set_capabilities(other, configs(&["native"])).unwrap();
        // While the able worker was seen within a lease duration, the unit waits for it.
        assert!(leased_configs(&mut s, lease_ms, other).is_empty());
        // Gone for longer than that: the job must not hang on it.
        assert_eq!(leased_configs(&mut s, lease_ms + 1, other), ["clingo"]);
        assert!(matches!(
            s.set_capabilities(99, Capabilities::default()),
            Err(SchedError::UnknownWorker(99))
        ));
        s.check_invariants();
    }

    #[test]
    fn a_declared_configuration_goes_to_workers_with_its_engine() {
        let mut s = sched();
        let mut job = bench_job(&["mine", "native"]);
        job.units[0].task.as_mut().unwrap().needs = Some("engine:command".into());
        s.submit_benchmark(0, job);
        let plain = s.register(0, "plain", "h", 1, "0");
        s.set_capabilities(plain, configs(&["native", "mine"]))
            .unwrap();
        let allowed = s.register(0, "allowed", "h", 1, "0");
        s.set_capabilities(allowed, configs(&["engine:command"]))
            .unwrap();
        // The name alone is no capability: the worker must have the engine it needs.
        assert_eq!(leased_configs(&mut s, 1, plain), ["native"]);
        assert_eq!(leased_configs(&mut s, 1, allowed), ["mine"]);
        s.check_invariants();
    }

    #[test]
    fn a_lease_takes_no_more_benchmark_units_than_asked() {
        let mut s = sched();
        s.submit_benchmark(0, bench_job(&["native", "gecode", "clingo"]));
        let w = s.register(0, "w", "h", 2, "0");
        // A worker asking for a reserve of 8 with one free thread gets one benchmark unit.
        assert_eq!(s.lease_limited(1, w, 8, 1).unwrap().units.len(), 1);
        assert_eq!(s.lease_limited(1, w, 8, 0).unwrap().units.len(), 0);
        assert_eq!(s.lease_limited(1, w, 8, 8).unwrap().units.len(), 2);
        s.check_invariants();
    }
}
