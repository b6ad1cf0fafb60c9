//! Problem builders: each family (Sudoku and its variants, Latin squares, n queens, Langford
//! pairings, pentominoes) becomes an exact-cover [`Problem`](crate::xcc::Problem), a prefix of
//! options already chosen (givens, fixed rows) and a symmetry factor by which a count must be
//! multiplied to give the full count. [`ProblemSpec`] is the serialisable description that the
//! CLI, the bench specs and the coordinator share.
//!
//! Invariant: builders validate their parameters and return a [`BuildError`]; they never panic
//! and never allocate more than their documented size bounds allow.

pub mod langford;
pub mod latin;
pub mod pentomino;
pub mod queens;
pub mod spec;
pub mod sudoku;

pub use spec::{Built, Picture, ProblemSpec};
pub use sudoku::{GivensError, Variant};

use crate::xcc::ProblemError;

/// Why a problem could not be built from its parameters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("{what} = {value} is out of range ({min}..={max})")]
    OutOfRange {
        what: &'static str,
        value: usize,
        min: usize,
        max: usize,
    },
    #[error("givens: {0}")]
    Givens(#[from] GivensError),
    #[error("fix-first-row cannot be combined with givens (it relabels the digits)")]
    FixFirstRowWithGivens,
    #[error(
        "the hyper variant needs room for a window: box {box_rows}x{box_cols} plus a gap \
         of one does not fit in side {side}"
    )]
    NoHyperWindow {
        box_rows: usize,
        box_cols: usize,
        side: usize,
    },
    #[error("variant `{0}` is given twice")]
    DuplicateVariant(Variant),
    #[error("extra group {group}: {reason}")]
    BadGroup { group: usize, reason: String },
    #[error("the 12 pentominoes cover 60 cells but a {width}x{height} rectangle has {}", width * height)]
    PentominoArea { width: usize, height: usize },
    #[error("the symmetry factor {what} does not fit in 128 bits")]
    FactorOverflow { what: String },
    #[error("internal error while building: {0}")]
    Problem(#[from] ProblemError),
}

/// Checks `min <= value <= max`.
pub(crate) fn check_range(
    what: &'static str,
    value: usize,
    min: usize,
    max: usize,
) -> Result<(), BuildError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(BuildError::OutOfRange {
            what,
            value,
            min,
            max,
        })
    }
}

/// `n!` as a `u128`, or `None` on overflow (from 35! on).
pub fn factorial(n: usize) -> Option<u128> {
    (1..=n as u128).try_fold(1u128, |acc, k| acc.checked_mul(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factorials() {
        assert_eq!(factorial(0), Some(1));
        assert_eq!(factorial(6), Some(720));
        assert!(factorial(34).is_some());
        assert_eq!(factorial(35), None);
    }

    #[test]
    fn range_errors_read_well() {
        assert_eq!(
            check_range("queens n", 0, 1, 256).unwrap_err().to_string(),
            "queens n = 0 is out of range (1..=256)"
        );
    }
}
