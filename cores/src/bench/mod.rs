//! Benchmarks of every problem family: what a benchmark instance is ([`Instance`], read from a
//! task's instance text by its [`Family`]), the one typed record of a run ([`record`]) and the
//! one judge of what runs claim ([`judge`]). A family brings its instance reader, its answer
//! (a variant of [`record::Answer`]) and its verifier; everything else (limits, measurement,
//! statuses, storage, routing) is shared.
//!
//! - Domino (seed 001): an instance is one JSON line of a batch file (`crate::domino`); the
//!   answer is a placement, judged by `crate::domino::verify`.
//! - Sudoku (seed 000): an instance is a slice of a puzzle file (`crate::sudoku::bench`); the
//!   answer is one result per puzzle, each grid judged by `crate::problems::sudoku::verify`.

pub mod judge;
pub mod record;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use judge::{cross_check, judge, Conflict};
pub use record::{
    Answer, HostInfo, Measure, ModelHash, RecordError, RunRecord, Status, Termination,
};

/// A problem family whose instances can be benchmarked. The default is `domino`, the one
/// family of benchmark tasks stored before families were named.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Seed 001's maximum placement of three-cell valued tiles.
    #[default]
    Domino,
    /// Seed 000's Sudoku puzzles, solved with the uniqueness check.
    Sudoku,
}

impl Family {
    pub const ALL: [Family; 2] = [Family::Domino, Family::Sudoku];

    pub fn as_str(self) -> &'static str {
        match self {
            Family::Domino => "domino",
            Family::Sudoku => "sudoku",
        }
    }

    /// Parses what [`Family::as_str`] writes.
    pub fn parse(text: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str() == text)
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One benchmark instance of some family, as a task carries it.
#[derive(Debug, Clone, PartialEq)]
pub enum Instance {
    Domino(crate::domino::Instance),
    Sudoku(crate::sudoku::bench::Slice),
}

impl Instance {
    /// Reads a task's instance text (`instance_json`) as an instance of `family`.
    pub fn parse(family: Family, text: &str) -> Result<Instance, String> {
        match family {
            Family::Domino => crate::domino::parse_line(text)
                .map(Instance::Domino)
                .map_err(|e| e.to_string()),
            Family::Sudoku => crate::sudoku::bench::Slice::from_json(text)
                .map(Instance::Sudoku)
                .map_err(|e| e.to_string()),
        }
    }

    pub fn family(&self) -> Family {
        match self {
            Instance::Domino(_) => Family::Domino,
            Instance::Sudoku(_) => Family::Sudoku,
        }
    }

    /// The instance's id (`b01-e1`, `royle_17clue_49151.txt:1-500`).
    pub fn id(&self) -> &str {
        match self {
            Instance::Domino(i) => &i.id,
            Instance::Sudoku(s) => &s.id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_round_trip_through_their_names() {
        for f in Family::ALL {
            assert_eq!(Family::parse(f.as_str()), Some(f));
            assert_eq!(serde_json::to_string(&f).unwrap(), format!("\"{f}\""));
        }
        assert_eq!(Family::parse("chess"), None);
    }
}
