//! What domino runs claim, judged: [`fault`] checks one record against its instance with the
//! family's verifier (`crate::domino::verify`), [`cross_check`] the records of one instance
//! against each other (mzn-bench's `check-statuses`). `super::judge` calls them for domino
//! instances; [`judge`] is the same for a domino instance at hand.
//!
//! Invariants:
//! - after [`judge`], a record claiming `optimal` or `feasible` has a placement that
//!   [`crate::domino::verify()`] accepts, an objective equal to its size and no bound below it (an
//!   `optimal` record's bound is its objective), and a bound it says counting or the side
//!   count gives (`bound_by`) no lower than the independent bound checker's figure for that
//!   argument ([`crate::domino::argued_bound`]); a record that fails any of these is `wrong`;
//! - [`cross_check`] takes only verified placements as evidence: a proven bound below another
//!   configuration's verified placement refutes that bound, so of two different claimed optima
//!   the smaller is refuted. `wrong` records are neither evidence nor checked.

use crate::bench::conflict::Conflict;
use crate::bench::record::{RunRecord, Status};
use crate::domino::{argued_bound, verify, Instance};

/// Why `record`'s claim does not hold on `instance` (`None`: it holds, or it claims nothing).
pub fn fault(instance: &Instance, record: &RunRecord) -> Option<String> {
    if record.status == Status::Unsatisfiable {
        return Some("claims no placement exists (the empty one does)".into());
    }
    if !record.status.is_solved() {
        return None;
    }
    if record.status == Status::Solved {
        return Some("status solved for an optimisation problem (optimal or feasible)".into());
    }
    let Some(objective) = record.objective() else {
        return Some(format!("status {} without an objective", record.status));
    };
    if let Err(v) = verify(instance, record.placement()) {
        return Some(format!("the verifier rejects the placement: {v}"));
    }
    if objective as usize != record.placement().len() {
        return Some(format!(
            "claims objective {objective} but places {} tiles",
            record.placement().len()
        ));
    }
    match record.bound() {
        Some(b) if b < objective => Some(format!(
            "bound {b} is below its own placement of {objective} tiles"
        )),
        Some(b) if record.status == Status::Optimal && b != objective => {
            Some(format!("claims optimality of {objective} with bound {b}"))
        }
        None if record.status == Status::Optimal => {
            Some("claims optimality without a bound".into())
        }
        Some(b) => {
            let by = record.bound_by()?;
            let argued = argued_bound(instance, by)?;
            (b < argued).then(|| {
                format!(
                    "claims bound {b} by {by}, which gives {argued} (recomputed by the bound \
                     checker): a bound that argument does not prove"
                )
            })
        }
        None => None,
    }
}

/// Judges `record` on `instance`: a claim that does not hold makes it `wrong`
/// ([`RunRecord::refute`], the reason prefixed by `who`, e.g. "the coordinator's verifier").
/// Returns the reason, or `None` when the record stands as it is.
pub fn judge(instance: &Instance, record: &mut RunRecord, who: &str) -> Option<String> {
    let fault = fault(instance, record);
    record.judged(who, fault)
}

/// Cross-checks the records of one instance (see the module invariants); one [`Conflict`]
/// per refuted record.
pub fn cross_check<'r>(records: impl IntoIterator<Item = &'r RunRecord>) -> Vec<Conflict> {
    let records: Vec<&RunRecord> = records.into_iter().collect();
    let best = records
        .iter()
        .filter(|r| r.status.is_solved())
        .filter_map(|r| r.objective().map(|o| (o, *r)))
        .max_by_key(|(o, _)| *o);
    let Some((best_objective, best_record)) = best else {
        return Vec::new();
    };
    records
        .iter()
        .filter(|r| r.status != Status::Wrong)
        .filter_map(|r| {
            let bound = r.bound()?;
            (bound < best_objective).then(|| Conflict {
                instance: r.instance.clone(),
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
    use crate::bench::HostInfo;
    use crate::domino::{parse_line, BoundBy, Orientation, Placement};

    /// A 3x3 board with two tiles: rows 0 and 2 hold both; rows 0 and 1 clash (seed 001, 1A).
    const INSTANCE: &str =
        r#"{"id": "t", "difficulty": "easy", "n": 3, "k": 2, "tiles": [[1,0,2],[2,2,0]]}"#;

    fn at(tile: u32, row: u32) -> Placement {
        Placement {
            tile,
            row,
            col: 0,
            orientation: Orientation::H,
            mirrored: false,
        }
    }

    fn record(
        config: &str,
        status: Status,
        objective: Option<u32>,
        bound: Option<u32>,
    ) -> RunRecord {
        let mut r = RunRecord {
            status,
            ..RunRecord::blank("t", config, 1.0, HostInfo::default())
        };
        r.set_objective(objective);
        r.set_bound(bound);
        r
    }

    #[test]
    fn a_verified_claim_stands_and_a_false_one_is_wrong() {
        let inst = parse_line(INSTANCE).unwrap();
        let mut ok = record("a", Status::Optimal, Some(2), Some(2));
        ok.set_placement(vec![at(0, 0), at(1, 2)]);
        assert_eq!(judge(&inst, &mut ok, "w"), None);
        assert_eq!(ok.status, Status::Optimal);
        let cases = [
            (
                vec![at(0, 0), at(1, 1)],
                Status::Optimal,
                Some(2),
                Some(2),
                "verifier",
            ),
            (vec![at(0, 0)], Status::Feasible, Some(2), None, "places 1"),
            (vec![at(0, 0)], Status::Feasible, Some(1), Some(0), "below"),
            (
                vec![at(0, 0)],
                Status::Optimal,
                Some(1),
                Some(2),
                "optimality of 1",
            ),
            (
                vec![at(0, 0)],
                Status::Optimal,
                Some(1),
                None,
                "without a bound",
            ),
            (vec![], Status::Feasible, None, None, "without an objective"),
        ];
        for (placement, status, objective, bound, says) in cases {
            let mut r = record("b", status, objective, bound);
            r.set_placement(placement);
            let why = judge(&inst, &mut r, "w").expect(says);
            assert!(why.starts_with("w: ") && why.contains(says), "{why}");
            assert_eq!((r.status, r.objective()), (Status::Wrong, None));
        }
        let mut timeout = record("c", Status::Timeout, None, Some(0));
        assert_eq!(judge(&inst, &mut timeout, "w"), None);
    }

    /// On the 3 x 3 board both tiles fit (rows 0 and 2), so neither counting (2 tiles) nor
    /// the side count gives the bound 1; a search may claim it (the cross-check then refutes
    /// it against the other configurations' placements), an argument that gives 2 may not.
    #[test]
    fn a_bound_below_what_its_argument_gives_is_wrong() {
        let inst = parse_line(INSTANCE).unwrap();
        for (by, wrong) in [
            (BoundBy::Count, true),
            (BoundBy::Sides, true),
            (BoundBy::Sat, false),
            (BoundBy::CellSearch, false),
        ] {
            let mut r = record("a", Status::Feasible, Some(1), Some(1));
            r.set_placement(vec![at(0, 0)]);
            r.set_bound_by(Some(by));
            let why = judge(&inst, &mut r, "w");
            assert_eq!(why.is_some(), wrong, "{by}: {why:?}");
            if let Some(why) = why {
                assert!(why.contains(&format!("by {by}, which gives 2")), "{why}");
                assert_eq!(r.status, Status::Wrong);
            }
            // The argument's own figure stands.
            let mut r = record("a", Status::Feasible, Some(1), Some(2));
            r.set_placement(vec![at(0, 0)]);
            r.set_bound_by(Some(by));
            assert_eq!(judge(&inst, &mut r, "w"), None, "{by}");
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
        assert!(c[0].to_string().starts_with("t: low: proved"), "{}", c[0]);
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
}
