//! The one judge of what benchmark runs claim, for every family: [`judge`] checks one record
//! against its instance with the family's verifier, [`cross_check`] the records of one
//! instance against each other (mzn-bench's `check-statuses`). The worker judges every record
//! it makes and the coordinator judges it again on the job's frozen instance before storing
//! it; both call [`judge`].
//!
//! Each family's rules sit here, above the families (`domino`, `sudoku`, `mzn_suite`), so the
//! domain modules know nothing of the benchmark layer: they keep their verifiers
//! (`crate::domino::verify`, `crate::problems::sudoku::verify`), which the rules call.
//! Files depend one way: `family` <- `record` <- the families' rules <- this module.
//!
//! Invariant: after [`judge`], a record claiming a solved status carries only answers its
//! family's verifier accepted (a MiniZinc suite with a checker: that the checker accepted);
//! a record of another family than its instance is `wrong`. [`cross_check`] takes only
//! answers that were not refuted as evidence.

pub mod domino;
pub mod mzn_suite;
pub mod sudoku;

use super::conflict::Conflict;
use super::record::RunRecord;
use super::Instance;
use crate::label::Label;

/// Judges `record` on `instance` with its family's rules: a claim that does not hold makes it
/// `wrong` ([`RunRecord::judged`], the reason prefixed by `who`, e.g. "the coordinator's
/// verifier"); a Sudoku slice's refuted puzzles are each marked `wrong` too. A record of
/// another family than its instance is `wrong`. Returns the reason, or `None` when the record
/// stands as it is.
pub fn judge(instance: &Instance, record: &mut RunRecord, who: &str) -> Option<String> {
    let fault = if record.family() != instance.family() {
        Some(format!(
            "a {} answer for a {} instance",
            record.family(),
            instance.family()
        ))
    } else {
        match instance {
            Instance::Domino(i) => domino::fault(i, record),
            Instance::Sudoku(s) => sudoku::fault(s, record),
            Instance::MznSuite(i) => mzn_suite::fault(i, record),
        }
    };
    record.judged(who, fault)
}

/// Cross-checks the records of one instance, each family by its own rules
/// ([`domino::cross_check`], [`sudoku::cross_check`], [`mzn_suite::cross_check`]); one
/// [`Conflict`] per refuted record.
pub fn cross_check<'r>(records: impl IntoIterator<Item = &'r RunRecord>) -> Vec<Conflict> {
    let records: Vec<&RunRecord> = records.into_iter().collect();
    let mut conflicts = Vec::new();
    for &family in super::Family::ALL {
        let of: Vec<&RunRecord> = records
            .iter()
            .copied()
            .filter(|r| r.family() == family)
            .collect();
        if of.is_empty() {
            continue;
        }
        conflicts.extend(match family {
            super::Family::Domino => domino::cross_check(of),
            super::Family::Sudoku => sudoku::cross_check(of),
            super::Family::MznSuite => mzn_suite::cross_check(of),
        });
    }
    conflicts
}
