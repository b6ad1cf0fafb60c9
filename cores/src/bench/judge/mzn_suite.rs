//! What runs of a MiniZinc suite claim, judged: [`fault`] checks one record against its
//! instance (the model's sense, the statuses a sense allows, the checker's verdicts),
//! [`cross_check`] the records of one instance against each other (mzn-bench's
//! `check-statuses`: an objective better than a proven optimum, a solution against a proof of
//! unsatisfiability). `super::judge` calls them for MiniZinc suite instances.
//!
//! The suite's verifier is its checker (`.mzc`), which MiniZinc runs beside the solver on the
//! worker: its verdicts travel in the record ([`MznAnswer::checked`], [`MznAnswer::rejected`]),
//! and a record with a rejected solution is `wrong` wherever it is judged. Without a checker
//! nothing verifies a solution: such answers are unchecked (the report says so first), and
//! [`cross_check`] still flags the contradictions between them.
//!
//! Invariants:
//! - after [`fault`] finds nothing, an `optimal` or `feasible` record answers an optimisation
//!   model with an objective, a `solved` record a satisfaction model with a solution, an
//!   `unsatisfiable` record printed no solution, and, when the suite has a checker, the
//!   checker called every printed solution correct;
//! - `wrong` records are neither evidence nor checked in [`cross_check`].

use crate::bench::conflict::Conflict;
use crate::bench::mzn_suite::{MznInstance, Sense};
use crate::bench::record::{MznAnswer, RunRecord, Status};

/// Why `record`'s claim does not hold on `instance` (`None`: it holds, or it claims nothing).
pub fn fault(instance: &MznInstance, record: &RunRecord) -> Option<String> {
    let Some(a) = record.mzn() else {
        return Some("not a MiniZinc suite answer".into());
    };
    if record.status == Status::Wrong {
        return None;
    }
    if let Some(why) = a.rejected.first() {
        return Some(format!(
            "the checker rejects {} of {} solutions: {why}",
            a.rejected.len(),
            a.solutions
        ));
    }
    // A run that claims nothing (an error, a timeout, a run that never started and carries
    // a blank answer) has nothing to judge.
    if !record.status.is_solved() && record.status != Status::Unsatisfiable {
        return None;
    }
    if a.sense != instance.sense {
        return Some(format!(
            "answers a {} problem, the model says {}",
            a.sense, instance.sense
        ));
    }
    if instance.checker.is_some() && a.checked < a.solutions {
        return Some(format!(
            "{} of {} solutions unchecked, but the suite has a checker",
            a.solutions - a.checked,
            a.solutions
        ));
    }
    let status = record.status;
    match (status, instance.sense) {
        (Status::Unsatisfiable, _) if a.solutions > 0 => Some(format!(
            "claims unsatisfiable but printed {} solutions",
            a.solutions
        )),
        (Status::Solved, Sense::Satisfy) | (Status::Optimal | Status::Feasible, _)
            if a.solutions == 0 =>
        {
            Some(format!("status {status} without a solution"))
        }
        (Status::Solved, Sense::Minimize | Sense::Maximize) => {
            Some("status solved for an optimisation problem (optimal or feasible)".into())
        }
        (Status::Optimal | Status::Feasible, Sense::Satisfy) => Some(format!(
            "status {status} for a satisfaction problem (solved)"
        )),
        (Status::Optimal | Status::Feasible, _) if a.objective.is_none() => {
            Some(format!("status {status} without an objective"))
        }
        _ => None,
    }
}

/// A record's answer as evidence: not refuted and with a solution.
fn found(r: &RunRecord) -> Option<&MznAnswer> {
    let a = r.mzn()?;
    (r.status.is_solved() && a.solutions > 0).then_some(a)
}

/// Whether the evidence of `a` was verified by a checker.
fn verified(a: &MznAnswer) -> &'static str {
    if a.checked > 0 && a.checked == a.solutions {
        "checked"
    } else {
        "unchecked"
    }
}

/// Cross-checks the records of one instance (see the module invariants); one [`Conflict`]
/// per refuted record: an `unsatisfiable` claim against another run's solution, and a proven
/// optimum that another run's objective beats (so of two different proven optima the worse
/// is refuted, naming the better).
pub fn cross_check<'r>(records: impl IntoIterator<Item = &'r RunRecord>) -> Vec<Conflict> {
    let records: Vec<&RunRecord> = records
        .into_iter()
        .filter(|r| r.status != Status::Wrong)
        .collect();
    let mut out = Vec::new();
    let conflict = |r: &RunRecord, reason: String| Conflict {
        instance: r.instance.clone(),
        config: r.config.clone(),
        reason,
    };
    for r in &records {
        if r.status == Status::Unsatisfiable {
            if let Some((other, a)) = records.iter().find_map(|o| Some((o, found(o)?))) {
                out.push(conflict(
                    r,
                    format!(
                        "claims unsatisfiable, but {} found a solution ({})",
                        other.config,
                        verified(a)
                    ),
                ));
            }
            continue;
        }
        if r.status != Status::Optimal {
            continue;
        }
        let (Some(mine), Some(proved)) = (r.mzn(), r.objective_value()) else {
            continue;
        };
        let beaten = records.iter().find_map(|o| {
            let a = found(o)?;
            let v = a.objective?;
            mine.sense.better(v, proved).then_some((o, v, a))
        });
        if let Some((other, v, a)) = beaten {
            let what = if other.status == Status::Optimal {
                "proved"
            } else {
                "found"
            };
            out.push(conflict(
                r,
                format!(
                    "proved the optimum is {proved} ({}), but {} {what} {v} ({})",
                    mine.sense,
                    other.config,
                    verified(a)
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::Answer;
    use crate::bench::HostInfo;

    fn instance(sense: Sense, checker: bool) -> MznInstance {
        MznInstance {
            id: "i".into(),
            data: "i.dzn".into(),
            text: String::new(),
            models: vec!["m.mzn".into()],
            checker: checker.then(|| "m.mzc".into()),
            sense,
        }
    }

    fn record(
        config: &str,
        status: Status,
        sense: Sense,
        objective: Option<i64>,
        solutions: u32,
        checked: u32,
    ) -> RunRecord {
        RunRecord {
            status,
            answer: Answer::MznSuite(MznAnswer {
                objective,
                solutions,
                checked,
                ..MznAnswer::empty(sense)
            }),
            ..RunRecord::blank("i", config, 1.0, HostInfo::default())
        }
    }

    #[test]
    fn claims_that_fit_the_sense_and_the_checker_stand() {
        let max = instance(Sense::Maximize, true);
        let ok = record("a", Status::Optimal, Sense::Maximize, Some(9), 3, 3);
        assert_eq!(fault(&max, &ok), None);
        let feasible = record("a", Status::Feasible, Sense::Maximize, Some(7), 1, 1);
        assert_eq!(fault(&max, &feasible), None);
        let sat = instance(Sense::Satisfy, false);
        assert_eq!(
            fault(
                &sat,
                &record("a", Status::Solved, Sense::Satisfy, None, 1, 0)
            ),
            None
        );
        let unsat = record("a", Status::Unsatisfiable, Sense::Satisfy, None, 0, 0);
        assert_eq!(fault(&sat, &unsat), None);
        let timeout = record("a", Status::Timeout, Sense::Maximize, None, 0, 0);
        assert_eq!(fault(&max, &timeout), None);
        // A run that never started carries a blank answer (of no sense in particular).
        let blank = RunRecord::blank_of(
            crate::bench::Family::MznSuite,
            "i",
            "a",
            1.0,
            HostInfo::default(),
        );
        assert_eq!(fault(&max, &blank), None);
    }

    #[test]
    fn false_claims_are_faults() {
        let max = instance(Sense::Maximize, true);
        let mut rejected = record("a", Status::Optimal, Sense::Maximize, Some(9), 2, 1);
        if let Answer::MznSuite(a) = &mut rejected.answer {
            a.rejected.push("INCORRECT: over capacity".into());
        }
        let cases = [
            (rejected, "checker rejects 1 of 2"),
            (
                record("a", Status::Optimal, Sense::Maximize, Some(9), 2, 1),
                "unchecked, but the suite has a checker",
            ),
            (
                record("a", Status::Optimal, Sense::Minimize, Some(9), 1, 1),
                "the model says maximize",
            ),
            (
                record("a", Status::Solved, Sense::Maximize, Some(9), 1, 1),
                "status solved for an optimisation",
            ),
            (
                record("a", Status::Feasible, Sense::Maximize, None, 1, 1),
                "without an objective",
            ),
            (
                record("a", Status::Optimal, Sense::Maximize, Some(1), 0, 0),
                "without a solution",
            ),
            (
                record("a", Status::Unsatisfiable, Sense::Maximize, None, 1, 1),
                "printed 1 solutions",
            ),
        ];
        for (mut r, says) in cases {
            let why = fault(&max, &r).expect(says);
            assert!(why.contains(says), "{why} ({says})");
            assert!(r.judged("w", Some(why)).is_some());
            assert_eq!((r.status, r.objective_value()), (Status::Wrong, None));
        }
        let sat = instance(Sense::Satisfy, false);
        let why = fault(
            &sat,
            &record("a", Status::Optimal, Sense::Satisfy, None, 1, 0),
        )
        .unwrap();
        assert!(why.contains("for a satisfaction problem"), "{why}");
    }

    #[test]
    fn agreeing_records_have_no_conflict() {
        let rs = [
            record("a", Status::Optimal, Sense::Minimize, Some(5), 2, 0),
            record("b", Status::Optimal, Sense::Minimize, Some(5), 1, 0),
            record("c", Status::Feasible, Sense::Minimize, Some(6), 1, 0),
            record("d", Status::Timeout, Sense::Minimize, None, 0, 0),
        ];
        assert_eq!(cross_check(&rs), vec![]);
    }

    #[test]
    fn a_proven_optimum_beaten_elsewhere_is_refuted_in_the_models_sense() {
        let rs = [
            record("low", Status::Optimal, Sense::Minimize, Some(4), 1, 0),
            record("lower", Status::Feasible, Sense::Minimize, Some(3), 1, 0),
        ];
        let c = cross_check(&rs);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].config, "low");
        assert!(
            c[0].reason.contains("lower found 3 (unchecked)"),
            "{}",
            c[0]
        );
        // Maximising, 3 does not beat 4.
        let rs = [
            record("a", Status::Optimal, Sense::Maximize, Some(4), 1, 1),
            record("b", Status::Feasible, Sense::Maximize, Some(3), 1, 1),
        ];
        assert_eq!(cross_check(&rs), vec![]);
    }

    #[test]
    fn of_two_different_proven_optima_the_worse_is_refuted() {
        let rs = [
            record("big", Status::Optimal, Sense::Maximize, Some(6), 1, 1),
            record("small", Status::Optimal, Sense::Maximize, Some(5), 1, 1),
        ];
        let c = cross_check(&rs);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].config, "small");
        assert!(c[0].reason.contains("big proved 6 (checked)"), "{}", c[0]);
    }

    #[test]
    fn unsatisfiable_against_a_solution_is_refuted_and_wrong_records_are_no_evidence() {
        let rs = [
            record("no", Status::Unsatisfiable, Sense::Satisfy, None, 0, 0),
            record("yes", Status::Solved, Sense::Satisfy, None, 1, 0),
        ];
        let c = cross_check(&rs);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].config, "no");
        let rs = [
            record("no", Status::Unsatisfiable, Sense::Satisfy, None, 0, 0),
            record("bad", Status::Wrong, Sense::Satisfy, None, 1, 0),
        ];
        assert_eq!(cross_check(&rs), vec![]);
    }
}
