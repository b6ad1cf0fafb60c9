//! Leases: grant (oldest queued unit first), heartbeat (extend), expire (requeue, counting a
//! death), release (requeue), release as failed (requeue, or hold a unit whose runs failed
//! `failures_limit` times), a worker known dead (its leases end, each counting a death; a
//! unit whose leases ended so `deaths_limit` times is held).
//!
//! Deaths: a worker killed by the unit it runs (an abort, out of memory, a stack overflow)
//! takes the units it held beside it down too, and its leases all end alike. So a unit with a
//! death is leased alone, to a worker that holds no other lease and gets none while it holds
//! that one: an innocent unit has at most the one death it shared, and runs alone after it,
//! while the unit that kills its workers dies alone until it is held. Workers also die for
//! reasons of their own (preemption, a kill), hence a deaths limit of its own, higher than the
//! failures limit. Leases granted before a restart are no deaths when they expire: the
//! coordinator's downtime (or `run` killed with its workers) may have ended them.
//!
//! Routing: a benchmark unit goes to a worker that can run it (`Capabilities::can_run`: its
//! configuration's solver installed, its memory limit within the machine's). When no worker
//! seen within the last lease duration can, any worker takes it (and records the run as
//! `unavailable`), so that a configuration nobody has never holds a job open forever.
//!
//! Invariant: a unit is leased by at most one live lease; a lease is live from its grant
//! until `now > deadline`, release, report or cancellation, and its token is never valid
//! again afterwards. Every operation first expires the leases whose deadline has passed, so
//! that validity never depends on how often the server's expiry timer runs.

use std::collections::HashMap;

use super::{LeaseRecord, SchedError, Scheduler};
use crate::job::{
    AlarmKind, BenchTask, JobState, Lease, LeaseEnd, LeaseToken, Millis, Unit, UnitId, UnitState,
    WorkerId,
};

/// One unit handed to a worker.
#[derive(Clone, Debug, PartialEq)]
pub struct Granted {
    pub unit: Unit,
    pub lease: Lease,
    /// Stop after this many nodes (from the job's settings; `None` for audits).
    pub node_limit: Option<u64>,
    /// Stop after this long (from the job's settings; `None` for audits).
    pub time_budget_ms: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LeaseOutcome {
    pub units: Vec<Granted>,
    /// No unit is queued or leased anywhere (after this call).
    pub idle: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeartbeatOutcome {
    pub extended: Vec<LeaseToken>,
    pub invalid: Vec<LeaseToken>,
}

impl Scheduler {
    fn touch_worker(&mut self, now: Millis, worker: WorkerId) -> Result<(), SchedError> {
        let w = self
            .workers
            .get_mut(&worker)
            .ok_or(SchedError::UnknownWorker(worker))?;
        w.last_seen = now;
        self.dirty.workers.insert(worker);
        Ok(())
    }

    /// Grants up to `max` queued units to `worker`, oldest first (by job, then unit id).
    /// An audit unit is never given to the worker whose result it checks.
    pub fn lease(
        &mut self,
        now: Millis,
        worker: WorkerId,
        max: u32,
    ) -> Result<LeaseOutcome, SchedError> {
        self.lease_limited(now, worker, max, max)
    }

    /// [`Scheduler::lease`], with at most `max_bench` of the units benchmark units (a worker
    /// runs those at once, never holds them in reserve).
    pub fn lease_limited(
        &mut self,
        now: Millis,
        worker: WorkerId,
        max: u32,
        max_bench: u32,
    ) -> Result<LeaseOutcome, SchedError> {
        self.touch_worker(now, worker)?;
        self.expire(now);
        let max = max.min(self.config.max_units_per_lease) as usize;
        let mut picked = Vec::new();
        let held = self.holding.get(&worker);
        let holds_any = held.is_some_and(|h| !h.is_empty());
        // A worker holding a unit with a death is leased nothing else.
        let holds_suspect = held.is_some_and(|h| h.iter().any(|u| self.units[u].deaths > 0));
        let mut bench_left = max_bench as usize;
        // Per (configuration, memory limit): may this worker take such a unit?
        let mut routed: HashMap<(&str, Option<u64>), bool> = HashMap::new();
        for &(job, uid) in &self.queue {
            if picked.len() >= max || holds_suspect {
                break;
            }
            if self.jobs[&job].state == JobState::Cancelled {
                continue;
            }
            let unit = &self.units[&uid];
            if let Some(task) = &unit.task {
                if bench_left == 0 {
                    continue;
                }
                let key = (task.config.as_str(), task.memory_limit_bytes);
                let ok = *routed
                    .entry(key)
                    .or_insert_with(|| self.may_run(now, worker, task));
                if !ok {
                    continue;
                }
            }
            if let Some(of) = unit.audit_of {
                if self.accepted.get(&of).and_then(|a| a.worker) == Some(worker) {
                    continue;
                }
            }
            if unit.deaths > 0 {
                // Alone: to a worker holding nothing, as the one unit of this call.
                if holds_any || !picked.is_empty() {
                    continue;
                }
                picked.push(uid);
                break;
            }
            if unit.task.is_some() {
                bench_left -= 1;
            }
            picked.push(uid);
        }
        let mut units = Vec::with_capacity(picked.len());
        for uid in picked {
            let token = (self.tokens)();
            self.set_unit_state(uid, UnitState::Leased);
            let unit = self.units.get_mut(&uid).expect("queued unit");
            unit.attempts += 1;
            let lease = Lease {
                token: token.clone(),
                worker,
                attempt: unit.attempts,
                granted_at: now,
                deadline: now + self.config.lease_duration_ms,
            };
            self.deadlines.insert((lease.deadline, uid));
            self.holding.entry(worker).or_default().insert(uid);
            unit.lease = Some(lease.clone());
            let (job, attempt, audit) = (unit.job, unit.attempts, unit.audit_of.is_some());
            let unit = unit.clone();
            self.live.insert(token.clone(), uid);
            self.history.insert(
                token.clone(),
                LeaseRecord {
                    token: token.clone(),
                    unit: uid,
                    job,
                    attempt,
                    worker,
                    granted_at: now,
                    ended: None,
                },
            );
            self.dirty.leases.insert(token);
            if self.config.attempts_alarm > 0 && attempt == self.config.attempts_alarm {
                self.alarm(
                    now,
                    job,
                    Some(uid),
                    AlarmKind::Attempts,
                    format!("unit {uid} leased {attempt} times without a result"),
                );
            }
            let settings = &self.jobs[&job].settings;
            let (node_limit, time_budget_ms) = if audit {
                (None, None)
            } else {
                (settings.unit_node_limit, settings.unit_time_budget_ms)
            };
            units.push(Granted {
                unit,
                lease,
                node_limit,
                time_budget_ms,
            });
        }
        let idle = self.live.is_empty() && !self.has_leasable();
        Ok(LeaseOutcome { units, idle })
    }

    /// Whether `worker` may take a unit of `task`: it can run it, or no worker seen within
    /// the last lease duration can.
    fn may_run(&self, now: Millis, worker: WorkerId, task: &BenchTask) -> bool {
        if self.workers[&worker].capabilities.can_run(task) {
            return true;
        }
        let recent = now.saturating_sub(self.config.lease_duration_ms);
        !self
            .workers
            .values()
            .any(|w| w.last_seen >= recent && w.capabilities.can_run(task))
    }

    fn has_leasable(&self) -> bool {
        self.queue
            .iter()
            .any(|(job, _)| self.jobs[job].state != JobState::Cancelled)
    }

    /// Extends the live leases among `tokens` that `worker` holds; lists the others.
    pub fn heartbeat(
        &mut self,
        now: Millis,
        worker: WorkerId,
        tokens: &[LeaseToken],
    ) -> Result<HeartbeatOutcome, SchedError> {
        self.touch_worker(now, worker)?;
        self.expire(now);
        let mut out = HeartbeatOutcome::default();
        for t in tokens {
            let held = self
                .live
                .get(t)
                .copied()
                .filter(|uid| self.units[uid].lease.as_ref().map(|l| l.worker) == Some(worker));
            match held {
                Some(uid) => {
                    let unit = self.units.get_mut(&uid).expect("leased unit");
                    let lease = unit.lease.as_mut().expect("leased unit has a lease");
                    self.deadlines.remove(&(lease.deadline, uid));
                    lease.deadline = now + self.config.lease_duration_ms;
                    self.deadlines.insert((lease.deadline, uid));
                    self.dirty.units.insert(uid);
                    out.extended.push(t.clone());
                }
                None => out.invalid.push(t.clone()),
            }
        }
        Ok(out)
    }

    /// Returns every unit whose lease deadline has passed (`deadline < now`) to the queue;
    /// their tokens stop being valid. Each such expiry counts a death on its unit (its worker
    /// is gone or cut off), unless the lease was granted before a restart; at `deaths_limit`
    /// deaths the unit is held, with one alarm `died`. Returns how many expired.
    ///
    /// Also raises the alarms of units that a restart found held without one (a lower limit
    /// than before): every operation and the server's start-up expire first.
    pub fn expire(&mut self, now: Millis) -> usize {
        self.raise_restored_hold_alarms(now);
        let mut expired: Vec<UnitId> = self
            .deadlines
            .iter()
            .take_while(|(deadline, _)| *deadline < now)
            .map(|&(_, uid)| uid)
            .collect();
        expired.sort_unstable();
        for &uid in &expired {
            let unit = &self.units[&uid];
            let job = unit.job;
            let lease = unit.lease.as_ref().expect("an expiring unit is leased");
            let worker = lease.worker;
            let inherited = self.inherited.contains(&lease.token);
            self.end_lease(now, uid, LeaseEnd::Expired);
            if inherited {
                let why = "granted before the coordinator restarted: no death";
                self.event(now, Some(job), Some(uid), "lease-expired", why.into());
                self.requeue(now, uid, None);
            } else {
                let why = format!("its lease expired without a word from worker {worker}");
                self.event(now, Some(job), Some(uid), "lease-expired", String::new());
                self.count_death(now, uid, &why);
            }
        }
        expired.len()
    }

    /// Hands back the live leases among `tokens` that `worker` holds; their units are queued
    /// again. With a `failure` (their runs failed on this worker, and why) each lease ends as
    /// `failed` rather than `released` and its unit's failures grow: a unit whose runs failed
    /// `failures_limit` times is held (`Scheduler::fail`). Returns how many were released.
    pub fn release(
        &mut self,
        now: Millis,
        worker: WorkerId,
        tokens: &[LeaseToken],
        failure: Option<&str>,
    ) -> Result<u32, SchedError> {
        self.touch_worker(now, worker)?;
        self.expire(now);
        let mut n = 0;
        for t in tokens {
            let Some(&uid) = self.live.get(t) else {
                continue;
            };
            if self.units[&uid].lease.as_ref().map(|l| l.worker) != Some(worker) {
                continue;
            }
            match failure {
                None => {
                    let job = self.units[&uid].job;
                    self.end_lease(now, uid, LeaseEnd::Released);
                    self.requeue(now, uid, None);
                    self.event(now, Some(job), Some(uid), "lease-released", String::new());
                }
                Some(why) => self.fail(now, uid, why),
            }
            n += 1;
        }
        Ok(n)
    }

    /// Ends the live lease of `uid` as failed (its run failed on its worker, `why`) and counts
    /// the failure. The unit is queued again, or held when this was its `failures_limit`-th
    /// failure: it stays queued outside the queue, so it is never leased again (its job runs
    /// on with its other units, and cannot finish), and one alarm `failed` says so.
    fn fail(&mut self, now: Millis, uid: UnitId, why: &str) {
        self.end_lease(now, uid, LeaseEnd::Failed);
        let job = self.units[&uid].job;
        self.event(now, Some(job), Some(uid), "lease-failed", why.to_string());
        self.count_failure(now, uid, why);
    }

    /// Counts a failed run of `uid`, whose lease has just ended (released as failed, or its
    /// report rejected), and queues the unit again: held once its failures reach
    /// `failures_limit`, with its alarm `failed` (raised once) naming `why`.
    pub(super) fn count_failure(&mut self, now: Millis, uid: UnitId, why: &str) {
        self.units.get_mut(&uid).expect("unit exists").failures += 1;
        // After the count: a unit that has failed out is queued outside the queue.
        self.requeue(now, uid, Some((AlarmKind::Failed, why)));
    }

    /// Counts a death of `uid`, whose lease has just ended with its worker (expired, or its
    /// worker known dead), and queues the unit again: held once its deaths reach
    /// `deaths_limit`, with its alarm `died` (raised once) naming `why`.
    fn count_death(&mut self, now: Millis, uid: UnitId, why: &str) {
        self.units.get_mut(&uid).expect("unit exists").deaths += 1;
        self.requeue(now, uid, Some((AlarmKind::Died, why)));
    }

    /// Ends every live lease of `worker`, which is known dead (`why`: e.g. its process was
    /// killed by a signal), at once rather than at its deadline: each ends as `died` and
    /// counts a death on its unit, as an expiry would. Returns how many ended.
    pub fn worker_died(
        &mut self,
        now: Millis,
        worker: WorkerId,
        why: &str,
    ) -> Result<usize, SchedError> {
        if !self.workers.contains_key(&worker) {
            return Err(SchedError::UnknownWorker(worker));
        }
        self.expire(now);
        let units: Vec<UnitId> = self
            .holding
            .get(&worker)
            .map(|h| h.iter().copied().collect())
            .unwrap_or_default();
        self.event(
            now,
            None,
            None,
            "worker-died",
            format!("worker {worker}: {why}"),
        );
        for &uid in &units {
            let job = self.units[&uid].job;
            self.end_lease(now, uid, LeaseEnd::Died);
            self.event(now, Some(job), Some(uid), "lease-died", why.to_string());
            self.count_death(now, uid, why);
        }
        Ok(units.len())
    }

    /// The workers registered under `name` (a worker registers again under the same name
    /// when the coordinator forgot it).
    pub fn workers_named(&self, name: &str) -> Vec<WorkerId> {
        self.workers
            .values()
            .filter(|w| w.name == name)
            .map(|w| w.id)
            .collect()
    }

    /// The earliest deadline of a live lease (for the server's expiry timer).
    pub fn next_deadline(&self) -> Option<Millis> {
        self.deadlines.first().map(|&(deadline, _)| deadline)
    }
}
