//! The problem families a benchmark can run: the tag of every task, record and answer.

use crate::label::Label;
use std::fmt;
use strum::{EnumString, IntoStaticStr, VariantArray};

use serde::{Deserialize, Serialize};

/// A problem family whose instances can be benchmarked. The default is `domino`, the one
/// family of benchmark tasks stored before families were named.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[derive(IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Family {
    /// Seed 001's maximum placement of three-cell valued tiles.
    #[default]
    Domino,
    /// Seed 000's Sudoku puzzles, solved with the uniqueness check.
    Sudoku,
    /// Any MiniZinc model on its data files (`super::mzn_suite`); named so that it is never
    /// taken for a configuration (a Sudoku configuration is called `minizinc`).
    #[serde(rename = "mzn-suite")]
    MznSuite,
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_round_trip_through_their_names() {
        for &f in Family::ALL {
            assert_eq!(Family::parse(f.as_str()), Some(f));
            assert_eq!(serde_json::to_string(&f).unwrap(), format!("\"{f}\""));
        }
        assert_eq!(Family::parse("chess"), None);
    }
}
