//! Reports: the one place where a result is counted.
//!
//! Invariant (exactly once): a result is accepted only through a live lease of a unit that
//! has none yet, and accepting ends that lease; so each unit gains at most one accepted
//! result. A report through a lease that has ended is classified and logged, never added:
//! `duplicate` (the unit's accepted result agrees), `mismatch` (it disagrees: an alarm),
//! `stale` (the unit has no accepted result: it was requeued), or `stale` for an unknown
//! token. A stopped unit's report counts its finished part and turns each `remaining`
//! subtree into a new queued unit (dynamic re-split, after Paracooba's `--resplit`); the
//! subtrees must strictly extend the unit's prefix and none may contain another, or the
//! report is `rejected`. An audit re-run is compared with the result it checks and never
//! added.

use super::{audit_selected, ReportRecord, Scheduler};
use crate::job::{
    prefixes_text, Accepted, AlarmKind, BenchRecord, CountCore, JobId, LeaseEnd, LeaseToken,
    Millis, Prefix, UnitId, UnitResult, UnitState, Verdict, WorkerId,
};
use cores::label::Label;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportOutcome {
    pub verdict: Verdict,
    pub message: String,
    /// The unit the token belongs to, if known.
    pub unit: Option<UnitId>,
}

/// Checks a stopped unit's subtrees: each strictly extends `prefix`, none contains another.
fn check_remaining(prefix: &[u32], remaining: &[Prefix]) -> Result<(), String> {
    for r in remaining {
        if r.len() <= prefix.len() || !r.starts_with(prefix) {
            return Err(format!(
                "remaining subtree [{}] does not extend the unit's prefix [{}]",
                crate::job::prefix_text(r),
                crate::job::prefix_text(prefix)
            ));
        }
    }
    let mut sorted: Vec<&Prefix> = remaining.iter().collect();
    sorted.sort();
    // In lexicographic order, a prefix that contains others is directly followed by one.
    for w in sorted.windows(2) {
        if w[1].starts_with(w[0]) {
            return Err(format!(
                "remaining subtrees [{}] and [{}] overlap",
                crate::job::prefix_text(w[0]),
                crate::job::prefix_text(w[1])
            ));
        }
    }
    Ok(())
}

impl Scheduler {
    /// Takes a worker's result for the lease `token`. `claimed_unit` is only logged.
    pub fn report(
        &mut self,
        now: Millis,
        worker: WorkerId,
        token: &LeaseToken,
        claimed_unit: UnitId,
        result: UnitResult,
    ) -> ReportOutcome {
        if let Some(w) = self.workers.get_mut(&worker) {
            w.last_seen = now;
            self.dirty.workers.insert(worker);
        }
        self.expire(now);
        let outcome = match self.live.get(token).copied() {
            // A live lease answers only to its own worker (as heartbeats and releases do): a
            // report naming another worker is not counted, and the lease runs on.
            Some(uid) => match self.units[&uid].lease.as_ref().map(|l| l.worker) {
                Some(holder) if holder != worker => ReportOutcome {
                    verdict: Verdict::Stale,
                    message: format!(
                        "the lease belongs to worker {holder}, not to worker {worker}"
                    ),
                    unit: Some(uid),
                },
                _ => self.report_live(now, worker, uid, &result),
            },
            None => self.report_ended(now, token, &result),
        };
        let job = outcome.unit.map(|u| self.units[&u].job);
        // An accepted benchmark record that the judge left as it was is stored once, as the
        // judged record (`bench_runs.record`); the audit keeps the received text otherwise.
        let mut result = result;
        if outcome.verdict == Verdict::Accepted {
            let unamended = outcome
                .unit
                .and_then(|u| self.accepted.get(&u))
                .is_some_and(|a| a.bench.is_some() && a.result.run_record_json.is_empty());
            if unamended {
                result.run_record_json.clear();
            }
        }
        tracing::debug!(
            ?token,
            unit = outcome.unit,
            verdict = outcome.verdict.as_str(),
            "report"
        );
        self.dirty.reports.push(ReportRecord {
            at: now,
            worker,
            token: token.clone(),
            unit: outcome.unit,
            job,
            claimed_unit,
            verdict: outcome.verdict,
            reason: outcome.message.clone(),
            result,
        });
        outcome
    }

    /// A report that could not be read (a malformed token, a count that is not a number):
    /// rejected and audited like every other verdict. Through a live lease of its own worker
    /// the unit is queued again with a `rejected` alarm, as a malformed result is
    /// (`Self::reject`); otherwise only the audit row is written. The audit keeps no result
    /// (there is none to keep): its reason says what could not be read.
    pub fn report_unreadable(
        &mut self,
        now: Millis,
        worker: WorkerId,
        token: &str,
        claimed_unit: UnitId,
        why: &str,
    ) -> ReportOutcome {
        if let Some(w) = self.workers.get_mut(&worker) {
            w.last_seen = now;
            self.dirty.workers.insert(worker);
        }
        self.expire(now);
        // The audit row keeps at most the length of a readable token.
        let token = LeaseToken(token.chars().take(256).collect());
        let why = format!("unreadable report: {why}");
        let outcome = match self.live.get(&token).copied() {
            Some(uid) if self.units[&uid].lease.as_ref().map(|l| l.worker) == Some(worker) => {
                let job = self.units[&uid].job;
                self.reject(now, job, uid, why)
            }
            unit => ReportOutcome {
                verdict: Verdict::Rejected,
                message: why,
                unit,
            },
        };
        self.dirty.reports.push(ReportRecord {
            at: now,
            worker,
            token,
            unit: outcome.unit,
            job: outcome.unit.map(|u| self.units[&u].job),
            claimed_unit,
            verdict: Verdict::Rejected,
            reason: outcome.message.clone(),
            result: UnitResult::default(),
        });
        outcome
    }

    fn report_live(
        &mut self,
        now: Millis,
        worker: WorkerId,
        uid: UnitId,
        result: &UnitResult,
    ) -> ReportOutcome {
        let unit = &self.units[&uid];
        let job = unit.job;
        if let Err(why) = check_remaining(&unit.prefix, &result.remaining) {
            return self.reject(now, job, uid, why);
        }
        if result.core != CountCore::Dlx && !result.remaining.is_empty() {
            return self.reject(
                now,
                job,
                uid,
                format!(
                    "a unit counted by the {} core cannot hand back subtrees",
                    result.core
                ),
            );
        }
        // A class (an orbit term, a two- or three-band class) is a count of its own kind, by its own
        // core: the whole subtree of its prefix is not it. A worker that does not know the
        // kind (an older one) would count the prefix instead.
        let term_cores = [
            CountCore::SudokuOrbitTerm,
            CountCore::TwoBandClass,
            CountCore::ThreeBandClass,
        ];
        let why = match &unit.term {
            Some(t) if t.core() != result.core => Some(format!(
                "class {} was counted by the {} core, not {} (a worker that does not know \
                 this kind of class?)",
                t.class(),
                result.core,
                t.core()
            )),
            // A whole two-band class counts B(C)^2: anything else is malformed.
            Some(t) => t.malformed_count(&result.solutions),
            None if term_cores.contains(&result.core) => Some(format!(
                "a unit without a class was counted by the {} core",
                result.core
            )),
            None => None,
        };
        if let Some(why) = why {
            return self.reject(now, job, uid, why);
        }
        if let Some(of) = unit.audit_of {
            return self.accept_audit(now, worker, uid, of, result);
        }
        if unit.task.is_some() {
            return self.report_bench(now, worker, uid, result);
        }
        self.end_lease(now, uid, LeaseEnd::Reported);
        let split = !result.remaining.is_empty();
        self.set_unit_state(
            uid,
            if split {
                UnitState::Split
            } else {
                UnitState::Done
            },
        );
        self.record_accepted(now, job, worker, uid, result, None);
        let mut message = "accepted".to_string();
        if split {
            // The children cover the rest of the parent's subtree: they keep its weight.
            let (weight, term) = (
                self.units[&uid].weight.clone(),
                self.units[&uid].term.clone(),
            );
            for r in &result.remaining {
                let child = self.new_unit(
                    now,
                    job,
                    Some(uid),
                    None,
                    r.clone(),
                    weight.clone(),
                    None,
                    None,
                );
                self.set_term(child, term.clone());
            }
            message = format!(
                "accepted; {} subtrees queued as new units",
                result.remaining.len()
            );
            self.event(now, Some(job), Some(uid), "unit-split", message.clone());
        } else {
            let settings = &self.jobs[&job].settings;
            if audit_selected(settings.seed, uid, settings.audit_share) {
                let u = &self.units[&uid];
                let (prefix, weight, estimate) = (u.prefix.clone(), u.weight.clone(), u.estimate);
                let term = u.term.clone();
                let audit = self.new_unit(
                    now,
                    job,
                    Some(uid),
                    Some(uid),
                    prefix,
                    weight,
                    estimate,
                    None,
                );
                self.set_term(audit, term);
            }
        }
        self.check_done(now, job);
        ReportOutcome {
            verdict: Verdict::Accepted,
            message,
            unit: Some(uid),
        }
    }

    /// Refuses a malformed report through a live lease: the lease ends, an alarm names why,
    /// and the unit is queued again. A rejected report counts as a failed run: a worker whose
    /// core answers the unit malformed would do so every time, so the unit is held at the
    /// failures limit like one whose runs fail.
    pub(super) fn reject(
        &mut self,
        now: Millis,
        job: JobId,
        uid: UnitId,
        why: String,
    ) -> ReportOutcome {
        self.end_lease(now, uid, LeaseEnd::Rejected);
        self.alarm(now, job, Some(uid), AlarmKind::Rejected, why.clone());
        self.count_failure(now, uid, &format!("report rejected: {why}"));
        ReportOutcome {
            verdict: Verdict::Rejected,
            message: why,
            unit: Some(uid),
        }
    }

    /// Stores `result` as the one accepted result of `uid` (written by the next change set).
    pub(super) fn record_accepted(
        &mut self,
        now: Millis,
        job: JobId,
        worker: WorkerId,
        uid: UnitId,
        result: &UnitResult,
        bench: Option<BenchRecord>,
    ) {
        self.accepted.insert(
            uid,
            Accepted {
                unit: uid,
                job,
                worker: Some(worker),
                result: result.clone(),
                bench,
                accepted_at: now,
            },
        );
        self.dirty.results.push(uid);
    }

    fn accept_audit(
        &mut self,
        now: Millis,
        worker: WorkerId,
        uid: UnitId,
        of: UnitId,
        result: &UnitResult,
    ) -> ReportOutcome {
        let job = self.units[&uid].job;
        self.end_lease(now, uid, LeaseEnd::Reported);
        self.set_unit_state(uid, UnitState::Done);
        self.record_accepted(now, job, worker, uid, result, None);
        let original = self.accepted[&of].result.solutions.clone();
        let (verdict, message) = if !result.remaining.is_empty() {
            (
                Verdict::Accepted,
                "audit stopped early; not compared".to_string(),
            )
        } else if result.solutions == original {
            (Verdict::Accepted, format!("audit of unit {of} agrees"))
        } else {
            let msg = format!(
                "audit of unit {of} counted {} solutions, the accepted result says {original}",
                result.solutions
            );
            self.alarm(now, job, Some(of), AlarmKind::AuditMismatch, msg.clone());
            (Verdict::Mismatch, msg)
        };
        self.event(now, Some(job), Some(uid), "audit-done", message.clone());
        ReportOutcome {
            verdict,
            message,
            unit: Some(uid),
        }
    }

    fn report_ended(
        &mut self,
        now: Millis,
        token: &LeaseToken,
        result: &UnitResult,
    ) -> ReportOutcome {
        let Some(rec) = self.history.get(token) else {
            return ReportOutcome {
                verdict: Verdict::Stale,
                message: "unknown lease token".to_string(),
                unit: None,
            };
        };
        let uid = rec.unit;
        let ended = rec
            .ended
            .as_ref()
            .map(|(_, why)| why.as_str())
            .unwrap_or_default();
        let Some(acc) = self.accepted.get(&uid) else {
            return ReportOutcome {
                verdict: Verdict::Stale,
                message: format!("lease {ended}; the unit was queued again"),
                unit: Some(uid),
            };
        };
        if acc.bench.is_some() {
            return ReportOutcome {
                verdict: Verdict::Duplicate,
                message: "benchmark run already recorded (runs are not compared)".to_string(),
                unit: Some(uid),
            };
        }
        if prefixes_text(&acc.result.remaining) != prefixes_text(&result.remaining) {
            return ReportOutcome {
                verdict: Verdict::Duplicate,
                message: "unit already accepted (stopped at another point; not compared)"
                    .to_string(),
                unit: Some(uid),
            };
        }
        if acc.result.solutions == result.solutions {
            return ReportOutcome {
                verdict: Verdict::Duplicate,
                message: "unit already accepted with the same count".to_string(),
                unit: Some(uid),
            };
        }
        let msg = format!(
            "late report of unit {uid} counts {} solutions, the accepted result says {}",
            result.solutions, acc.result.solutions
        );
        let job = self.units[&uid].job;
        self.alarm(now, job, Some(uid), AlarmKind::Mismatch, msg.clone());
        ReportOutcome {
            verdict: Verdict::Mismatch,
            message: msg,
            unit: Some(uid),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check_remaining;

    #[test]
    fn remaining_must_extend_the_prefix_and_not_overlap() {
        assert!(check_remaining(&[1, 2], &[vec![1, 2, 3], vec![1, 2, 4, 5]]).is_ok());
        assert!(check_remaining(&[1, 2], &[]).is_ok());
        assert!(check_remaining(&[1, 2], &[vec![1, 2]]).is_err());
        assert!(check_remaining(&[1, 2], &[vec![1, 3, 4]]).is_err());
        assert!(check_remaining(&[1], &[vec![1, 2], vec![1, 2, 5]]).is_err());
        assert!(check_remaining(&[1], &[vec![1, 2], vec![1, 2]]).is_err());
        assert!(check_remaining(&[1], &[vec![1, 2, 7], vec![1, 3], vec![1, 2]]).is_err());
    }
}
