//! Sudoku puzzle files as benchmark instances: a [`Slice`] (consecutive puzzles of one file,
//! sized so that a unit lasts seconds, not microseconds) is the instance of a benchmark task;
//! a run's answer is one [`PuzzleRun`] per puzzle (status, solve seconds, grids, difficulty,
//! the solver's own search statistics).
//! Plain data: what runs claim is judged in `super::judge`.

use crate::label::Label;
use serde::{Deserialize, Serialize};
use strum::{EnumString, IntoStaticStr, VariantArray};

use super::puzzle::{LineError, Puzzle, PuzzleReader, Shape};
use crate::problems::{BuildError, Variant};

/// One puzzle of a slice: its line in the file and its text as written there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlicePuzzle {
    pub line: usize,
    pub text: String,
}

/// Consecutive puzzles of one puzzle file: the instance of one Sudoku benchmark task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slice {
    /// `file:first-last` (`royle_17clue_49151.txt:1-500`).
    pub id: String,
    /// The puzzle file's name (a frozen file of the job).
    pub file: String,
    pub box_rows: usize,
    pub box_cols: usize,
    #[serde(default)]
    pub variants: Vec<Variant>,
    /// Whether each puzzle is solved with the uniqueness check (count up to two).
    pub unique: bool,
    /// Random paths of each puzzle's Monte Carlo difficulty estimate (0: no difficulty).
    #[serde(default)]
    pub difficulty_samples: u64,
    pub puzzles: Vec<SlicePuzzle>,
}

/// A text that is not a slice, or a slice whose puzzles do not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SliceError {
    #[error("the Sudoku slice is malformed: {0}")]
    Malformed(String),
    #[error("the Sudoku slice has no puzzles")]
    Empty,
    #[error("the Sudoku slice's shape: {0}")]
    Shape(#[from] BuildError),
    #[error("{file}:{}: {}", error.line, error.error)]
    Puzzle { file: String, error: LineError },
}

impl SlicePuzzle {
    pub fn new(line: usize, text: &str) -> SlicePuzzle {
        SlicePuzzle {
            line,
            text: text.to_string(),
        }
    }
}

impl Slice {
    /// A slice of `file` holding `puzzles` (in file order) in a plain Sudoku of
    /// `box_rows x box_cols` boxes: its id from its first and last lines, the uniqueness check
    /// on, no variant, no difficulty measure (set those fields after).
    pub fn new(file: &str, box_rows: usize, box_cols: usize, puzzles: Vec<SlicePuzzle>) -> Slice {
        let first = puzzles.first().map_or(0, |p| p.line);
        let last = puzzles.last().map_or(0, |p| p.line);
        Slice {
            id: Slice::id_of(file, first, last),
            file: file.to_string(),
            box_rows,
            box_cols,
            variants: Vec::new(),
            unique: true,
            difficulty_samples: 0,
            puzzles,
        }
    }

    /// The id of the slice of `file` from line `first` to line `last`.
    pub fn id_of(file: &str, first: usize, last: usize) -> String {
        format!("{file}:{first}-{last}")
    }

    pub fn shape(&self) -> Shape {
        Shape {
            variants: self.variants.clone(),
            ..Shape::new(self.box_rows, self.box_cols)
        }
    }

    /// The slice as JSON: a task's `instance_json`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a Slice always serialises")
    }

    /// Reads what [`Slice::to_json`] writes; a slice without puzzles is refused.
    pub fn from_json(text: &str) -> Result<Slice, SliceError> {
        let slice: Slice =
            serde_json::from_str(text).map_err(|e| SliceError::Malformed(e.to_string()))?;
        if slice.puzzles.is_empty() {
            return Err(SliceError::Empty);
        }
        Ok(slice)
    }

    /// The slice's puzzles, read and checked (an error names the file and line).
    pub fn read(&self) -> Result<Vec<Puzzle>, SliceError> {
        let mut reader = PuzzleReader::new(Some(&self.shape()))?;
        self.puzzles
            .iter()
            .map(|p| {
                reader
                    .parse_line(p.line, p.text.trim())
                    .map_err(|error| SliceError::Puzzle {
                        file: self.file.clone(),
                        error,
                    })
            })
            .collect()
    }
}

/// What a run says of one puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum PuzzleStatus {
    /// Exactly one solution (uniqueness checked); the grid is verified.
    Unique,
    /// A verified solution (uniqueness not asked).
    Solved,
    /// Two distinct verified solutions.
    Multiple,
    /// No solution (a claim: refuted only by another run's verified grid).
    #[serde(rename = "none")]
    #[strum(serialize = "none")]
    NoSolution,
    /// Not answered: the unit's time limit ended the run first.
    Timeout,
    /// The solver failed on this puzzle (its message says how).
    Error,
    /// A grid failed the verifier, or the claim contradicts the grids given.
    Wrong,
}

impl PuzzleStatus {
    /// The solver answered the puzzle (`unique`, `solved`, `multiple` or `none`).
    pub fn is_answer(self) -> bool {
        matches!(
            self,
            PuzzleStatus::Unique
                | PuzzleStatus::Solved
                | PuzzleStatus::Multiple
                | PuzzleStatus::NoSolution
        )
    }

    /// The status of a verified answer of `cores::sudoku`.
    pub fn of(status: super::Status) -> PuzzleStatus {
        match status {
            super::Status::Unique => PuzzleStatus::Unique,
            super::Status::Solved => PuzzleStatus::Solved,
            super::Status::Multiple => PuzzleStatus::Multiple,
            super::Status::None => PuzzleStatus::NoSolution,
        }
    }
}

impl std::fmt::Display for PuzzleStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A puzzle's difficulty (`super::difficulty`): the PS-1-2 search count of a search for two
/// solutions and the Monte Carlo estimate of the Dancing Links tree below the givens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PuzzleDifficulty {
    pub ps12_searches: u64,
    pub tree_nodes: f64,
    pub tree_nodes_std_err: f64,
    pub samples: u64,
}

impl From<super::difficulty::Difficulty> for PuzzleDifficulty {
    fn from(d: super::difficulty::Difficulty) -> Self {
        PuzzleDifficulty {
            ps12_searches: d.ps12.searches,
            tree_nodes: d.tree_nodes.mean,
            tree_nodes_std_err: d.tree_nodes.std_err,
            samples: d.samples,
        }
    }
}

/// One puzzle's result in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PuzzleRun {
    /// The puzzle's line in its file.
    pub line: usize,
    pub status: PuzzleStatus,
    /// Seconds the solver took on this puzzle (the uniqueness check included, the verifier
    /// and the difficulty measure not).
    pub seconds: f64,
    /// The (first) solution, as one line.
    pub solution: Option<String>,
    /// A second, different solution: the evidence of `multiple`.
    pub other: Option<String>,
    pub difficulty: Option<PuzzleDifficulty>,
    /// Why, when the status is `error` or `wrong`.
    pub message: Option<String>,
    /// What the solver reports of its search (the alldifferent levels, MiniZinc's Gecode);
    /// absent from records written before it.
    #[serde(default)]
    pub stats: Option<super::SearchStats>,
}

impl PuzzleRun {
    /// A puzzle the run did not reach.
    pub fn timeout(line: usize) -> PuzzleRun {
        PuzzleRun {
            line,
            status: PuzzleStatus::Timeout,
            seconds: 0.0,
            solution: None,
            other: None,
            difficulty: None,
            message: None,
            stats: None,
        }
    }
}

/// Puzzles answered per second of solving in `puzzles` (`None` when none was answered or no
/// time was measured).
pub fn puzzles_per_second<'a>(puzzles: impl IntoIterator<Item = &'a PuzzleRun>) -> Option<f64> {
    let (answered, seconds) = puzzles
        .into_iter()
        .filter(|p| p.status.is_answer())
        .fold((0usize, 0.0f64), |(n, s), p| (n + 1, s + p.seconds));
    (answered > 0 && seconds > 0.0).then(|| answered as f64 / seconds)
}

/// Slices and results for the tests of this module and of `crate::bench::judge::sudoku`.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    /// Seed 000 section 1.3, Example 1, and its solution as printed under the trace.
    pub const EXAMPLE_1: &str =
        ".125.487..........75.....23..41.87...2..5..4...34.95..48.....17..........357.169.";
    pub const SOLUTION: &str =
        "612534879349287165758916423594128736827653941163479582486395217971862354235741698";
    /// A slice of `t.txt` whose puzzles start on line 3.
    pub fn slice(texts: &[&str]) -> Slice {
        let puzzles = texts
            .iter()
            .enumerate()
            .map(|(i, t)| SlicePuzzle::new(3 + i, t))
            .collect();
        Slice::new("t.txt", 3, 3, puzzles)
    }

    pub fn run(line: usize, status: PuzzleStatus, solution: Option<&str>) -> PuzzleRun {
        PuzzleRun {
            status,
            solution: solution.map(str::to_string),
            seconds: 0.001,
            ..PuzzleRun::timeout(line)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn a_slice_round_trips_and_reads_its_puzzles_with_their_lines() {
        let s = slice(&[EXAMPLE_1, SOLUTION]);
        assert_eq!(Slice::from_json(&s.to_json()).unwrap(), s);
        assert_eq!(s.read().unwrap().len(), 2);
        let bad = slice(&[EXAMPLE_1, "12"]);
        let e = bad.read().unwrap_err().to_string();
        assert!(e.starts_with("t.txt:4: "), "{e}");
        let empty = Slice {
            puzzles: Vec::new(),
            ..s
        };
        assert_eq!(Slice::from_json(&empty.to_json()), Err(SliceError::Empty));
    }

    #[test]
    fn puzzles_per_second_counts_answered_puzzles_over_their_seconds() {
        let ps = [
            run(1, PuzzleStatus::Unique, Some(SOLUTION)),
            run(2, PuzzleStatus::NoSolution, None),
            run(3, PuzzleStatus::Timeout, None),
        ];
        let rate = puzzles_per_second(&ps).unwrap();
        assert!((rate - 1000.0).abs() < 1e-6, "{rate}");
        assert_eq!(puzzles_per_second(&ps[2..]), None);
    }

    #[test]
    fn search_statistics_round_trip_and_older_runs_have_none() {
        let r = PuzzleRun {
            stats: Some(crate::sudoku::SearchStats {
                nodes: 7,
                failures: 3,
                propagations: 40,
                removed: Some(120),
                solve_seconds: None,
            }),
            ..run(3, PuzzleStatus::Unique, Some(SOLUTION))
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<PuzzleRun>(&text).unwrap(), r);
        // A run written before the field: no statistics, not zeros.
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v.as_object_mut().unwrap().remove("stats");
        let old: PuzzleRun = serde_json::from_value(v).unwrap();
        assert_eq!(old.stats, None);
    }
}
