//! Sudoku puzzle files as benchmark instances: a [`Slice`] (consecutive puzzles of one file,
//! sized so that a unit lasts seconds, not microseconds) is the instance of a benchmark task;
//! a run's answer is one [`PuzzleRun`] per puzzle (status, solve seconds, grids, difficulty).
//! [`fault`] and [`cross_check`] judge what runs claim; `crate::bench::judge` calls them.
//!
//! Invariants:
//! - a run answers the slice's puzzles in order, one result per puzzle, on the slice's lines;
//! - a puzzle claimed `unique` or `solved` carries a grid, and one claimed `multiple` two
//!   distinct grids, that `crate::problems::sudoku::verify::check_grid` accepts with the
//!   puzzle's givens (that checker shares no code with any solver); a claim of `none` or of
//!   uniqueness is refuted only by verified grids of another run ([`cross_check`]);
//! - a record claiming `solved` has every puzzle answered.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::puzzle::{LineError, Puzzle, PuzzleReader, Shape};
use crate::bench::record::{RunRecord, Status};
use crate::bench::Conflict;
use crate::problems::sudoku::verify::check_grid;
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

impl Slice {
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
pub enum PuzzleStatus {
    /// Exactly one solution (uniqueness checked); the grid is verified.
    Unique,
    /// A verified solution (uniqueness not asked).
    Solved,
    /// Two distinct verified solutions.
    Multiple,
    /// No solution (a claim: refuted only by another run's verified grid).
    #[serde(rename = "none")]
    NoSolution,
    /// Not answered: the unit's time limit ended the run first.
    Timeout,
    /// The solver failed on this puzzle (its message says how).
    Error,
    /// A grid failed the verifier, or the claim contradicts the grids given.
    Wrong,
}

impl PuzzleStatus {
    pub const ALL: [PuzzleStatus; 7] = [
        PuzzleStatus::Unique,
        PuzzleStatus::Solved,
        PuzzleStatus::Multiple,
        PuzzleStatus::NoSolution,
        PuzzleStatus::Timeout,
        PuzzleStatus::Error,
        PuzzleStatus::Wrong,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PuzzleStatus::Unique => "unique",
            PuzzleStatus::Solved => "solved",
            PuzzleStatus::Multiple => "multiple",
            PuzzleStatus::NoSolution => "none",
            PuzzleStatus::Timeout => "timeout",
            PuzzleStatus::Error => "error",
            PuzzleStatus::Wrong => "wrong",
        }
    }

    /// Parses what [`PuzzleStatus::as_str`] writes.
    pub fn parse(text: &str) -> Option<PuzzleStatus> {
        PuzzleStatus::ALL.into_iter().find(|s| s.as_str() == text)
    }

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

/// Why the grids of `run` do not hold for the puzzle `text` (`None`: they hold or there are
/// none to check).
fn puzzle_fault(slice: &Slice, text: &str, run: &PuzzleRun) -> Option<String> {
    let check = |grid: &Option<String>| -> Option<String> {
        let grid = grid.as_deref()?;
        check_grid(
            grid,
            slice.box_rows,
            slice.box_cols,
            &slice.variants,
            &[],
            Some(text.trim()),
        )
        .err()
    };
    match run.status {
        PuzzleStatus::Unique | PuzzleStatus::Solved => {
            if run.solution.is_none() {
                return Some(format!("{} without a grid", run.status));
            }
            check(&run.solution).map(|e| format!("the verifier rejects the grid: {e}"))
        }
        PuzzleStatus::Multiple => {
            if run.solution.is_none() || run.other.is_none() {
                return Some("multiple without two grids".into());
            }
            if run.solution == run.other {
                return Some("multiple with the same grid twice".into());
            }
            check(&run.solution)
                .or_else(|| check(&run.other))
                .map(|e| format!("the verifier rejects a grid: {e}"))
        }
        _ => None,
    }
}

/// Marks `wrong` every puzzle of `record` whose grids the verifier rejects (the reason in its
/// message); the record's own status is [`fault`]'s business.
pub fn mark_wrong_puzzles(slice: &Slice, record: &mut RunRecord) {
    let crate::bench::Answer::Sudoku { puzzles } = &mut record.answer else {
        return;
    };
    for (run, p) in puzzles.iter_mut().zip(&slice.puzzles) {
        if run.line != p.line {
            continue;
        }
        if let Some(why) = puzzle_fault(slice, &p.text, run) {
            run.status = PuzzleStatus::Wrong;
            run.message = Some(why);
        }
    }
}

/// Why `record`'s claims do not hold on `slice` (`None`: they hold).
pub fn fault(slice: &Slice, record: &RunRecord) -> Option<String> {
    let puzzles = record.puzzles();
    if record.status == Status::Optimal || record.status == Status::Feasible {
        return Some(format!(
            "status {} for a Sudoku slice (solved, or timeout)",
            record.status
        ));
    }
    if !record.status.is_solved() && puzzles.is_empty() {
        return None;
    }
    if puzzles.len() != slice.puzzles.len() {
        return Some(format!(
            "{} puzzle results for a slice of {} puzzles",
            puzzles.len(),
            slice.puzzles.len()
        ));
    }
    for (run, p) in puzzles.iter().zip(&slice.puzzles) {
        if run.line != p.line {
            return Some(format!(
                "a result for line {} where the slice has line {}",
                run.line, p.line
            ));
        }
        if run.status == PuzzleStatus::Wrong {
            let why = run.message.as_deref().unwrap_or("marked wrong");
            return Some(format!("{}:{}: {why}", slice.file, p.line));
        }
        if let Some(why) = puzzle_fault(slice, &p.text, run) {
            return Some(format!("{}:{}: {why}", slice.file, p.line));
        }
        if slice.unique && run.status == PuzzleStatus::Solved {
            return Some(format!(
                "{}:{}: solved without the uniqueness check the slice asks for",
                slice.file, p.line
            ));
        }
        if record.status == Status::Solved && !run.status.is_answer() {
            return Some(format!(
                "status solved, but line {} is {}",
                p.line, run.status
            ));
        }
    }
    None
}

/// Cross-checks the runs of one slice puzzle by puzzle: a verified grid refutes another run's
/// `none`, and two distinct verified grids refute a `unique`. `wrong` records and puzzles are
/// no evidence. One [`Conflict`] per refuted record, naming its first refuted line.
pub fn cross_check<'r>(records: impl IntoIterator<Item = &'r RunRecord>) -> Vec<Conflict> {
    let records: Vec<&RunRecord> = records
        .into_iter()
        .filter(|r| r.status != Status::Wrong)
        .collect();
    let mut grids: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    for r in &records {
        for p in r.puzzles() {
            if matches!(
                p.status,
                PuzzleStatus::Unique | PuzzleStatus::Solved | PuzzleStatus::Multiple
            ) {
                let e = grids.entry(p.line).or_default();
                e.extend(p.solution.as_deref());
                e.extend(p.other.as_deref());
            }
        }
    }
    let mut conflicts = Vec::new();
    for r in &records {
        let refuted: Vec<(usize, String)> = r
            .puzzles()
            .iter()
            .filter_map(|p| {
                let known = grids.get(&p.line).map_or(0, BTreeSet::len);
                match p.status {
                    PuzzleStatus::NoSolution if known >= 1 => Some((
                        p.line,
                        "says no solution, but another run's grid is verified".to_string(),
                    )),
                    PuzzleStatus::Unique if known >= 2 => Some((
                        p.line,
                        format!("says unique, but {known} different grids are verified"),
                    )),
                    _ => None,
                }
            })
            .collect();
        if let Some((line, why)) = refuted.first() {
            conflicts.push(Conflict {
                instance: r.instance.clone(),
                config: r.config.clone(),
                reason: format!(
                    "line {line} {why}{}",
                    match refuted.len() {
                        1 => String::new(),
                        n => format!(" ({} more lines refuted)", n - 1),
                    }
                ),
            });
        }
    }
    conflicts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{judge, Answer, HostInfo, Instance};

    /// Seed 000 section 1.3, Example 1, and its solution as printed under the trace.
    const EXAMPLE_1: &str =
        ".125.487..........75.....23..41.87...2..5..4...34.95..48.....17..........357.169.";
    const SOLUTION: &str =
        "612534879349287165758916423594128736827653941163479582486395217971862354235741698";
    /// A slice of `t.txt` whose puzzles start on line 3.
    fn slice(texts: &[&str]) -> Slice {
        Slice {
            id: Slice::id_of("t.txt", 3, 3 + texts.len() - 1),
            file: "t.txt".into(),
            box_rows: 3,
            box_cols: 3,
            variants: Vec::new(),
            unique: true,
            difficulty_samples: 0,
            puzzles: texts
                .iter()
                .enumerate()
                .map(|(i, t)| SlicePuzzle {
                    line: 3 + i,
                    text: t.to_string(),
                })
                .collect(),
        }
    }

    fn run(line: usize, status: PuzzleStatus, solution: Option<&str>) -> PuzzleRun {
        PuzzleRun {
            status,
            solution: solution.map(str::to_string),
            seconds: 0.001,
            ..PuzzleRun::timeout(line)
        }
    }

    fn record(config: &str, status: Status, puzzles: Vec<PuzzleRun>) -> RunRecord {
        let mut r = RunRecord::blank_of(
            crate::bench::Family::Sudoku,
            "t.txt:3-3",
            config,
            10.0,
            HostInfo::default(),
        );
        r.status = status;
        r.answer = Answer::Sudoku { puzzles };
        r
    }

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
    fn verified_grids_stand_and_a_wrong_grid_makes_the_puzzle_and_the_run_wrong() {
        let inst = Instance::Sudoku(slice(&[EXAMPLE_1]));
        let mut ok = record(
            "a",
            Status::Solved,
            vec![run(3, PuzzleStatus::Unique, Some(SOLUTION))],
        );
        assert_eq!(judge(&inst, &mut ok, "w"), None);
        assert_eq!(ok.status, Status::Solved);

        let mut swapped = SOLUTION.as_bytes().to_vec();
        swapped.swap(0, 1);
        let swapped = String::from_utf8(swapped).unwrap();
        let mut bad = record(
            "b",
            Status::Solved,
            vec![run(3, PuzzleStatus::Unique, Some(&swapped))],
        );
        let why = judge(&inst, &mut bad, "w").unwrap();
        assert!(why.starts_with("w: t.txt:3: the verifier rejects"), "{why}");
        assert_eq!(bad.status, Status::Wrong);
        assert_eq!(bad.puzzles()[0].status, PuzzleStatus::Wrong);
    }

    #[test]
    fn malformed_claims_are_wrong() {
        let inst = Instance::Sudoku(slice(&[EXAMPLE_1]));
        let cases = [
            (
                Status::Solved,
                vec![run(3, PuzzleStatus::Unique, None)],
                "without a grid",
            ),
            (
                Status::Solved,
                vec![run(3, PuzzleStatus::Multiple, Some(SOLUTION))],
                "two grids",
            ),
            (Status::Solved, vec![], "0 puzzle results"),
            (
                Status::Solved,
                vec![run(4, PuzzleStatus::NoSolution, None)],
                "line 4",
            ),
            (
                Status::Solved,
                vec![run(3, PuzzleStatus::Timeout, None)],
                "is timeout",
            ),
            (
                Status::Solved,
                vec![run(3, PuzzleStatus::Solved, Some(SOLUTION))],
                "uniqueness",
            ),
            (
                Status::Optimal,
                vec![run(3, PuzzleStatus::Unique, Some(SOLUTION))],
                "status optimal",
            ),
        ];
        for (status, puzzles, says) in cases {
            let mut r = record("c", status, puzzles);
            let why = judge(&inst, &mut r, "w").unwrap_or_else(|| panic!("{says}"));
            assert!(why.contains(says), "{why} (expected {says})");
            assert_eq!(r.status, Status::Wrong);
        }
        let mut domino = RunRecord::blank("t.txt:3-3", "d", 1.0, HostInfo::default());
        domino.status = Status::Timeout;
        let why = judge(&inst, &mut domino, "w").unwrap();
        assert!(
            why.contains("a domino answer for a sudoku instance"),
            "{why}"
        );
        let mut timeout = record(
            "t",
            Status::Timeout,
            vec![run(3, PuzzleStatus::Timeout, None)],
        );
        assert_eq!(judge(&inst, &mut timeout, "w"), None);
    }

    #[test]
    fn a_verified_grid_refutes_none_and_two_grids_refute_unique() {
        // The empty puzzle: every grid solves it.
        let open = ".".repeat(81);
        let a = SOLUTION.to_string();
        // Swapping digits 1 and 2 everywhere gives another valid grid of the empty puzzle.
        let b: String = SOLUTION
            .chars()
            .map(|c| match c {
                '1' => '2',
                '2' => '1',
                c => c,
            })
            .collect();
        let s = slice(&[&open]);
        let inst = Instance::Sudoku(s);
        let mut m = record(
            "m",
            Status::Solved,
            vec![run(3, PuzzleStatus::Multiple, Some(&a))],
        );
        if let Answer::Sudoku { puzzles } = &mut m.answer {
            puzzles[0].other = Some(b.clone());
        }
        assert_eq!(judge(&inst, &mut m, "w"), None);
        let u = record(
            "u",
            Status::Solved,
            vec![run(3, PuzzleStatus::Unique, Some(&a))],
        );
        let n = record(
            "n",
            Status::Solved,
            vec![run(3, PuzzleStatus::NoSolution, None)],
        );
        let c = cross_check([&m, &u, &n]);
        let refuted: Vec<&str> = c.iter().map(|c| c.config.as_str()).collect();
        assert_eq!(refuted, ["u", "n"], "{c:?}");
        assert!(
            c[0].reason.contains("line 3 says unique, but 2"),
            "{}",
            c[0]
        );
        // Agreeing runs have no conflict.
        let u2 = record(
            "u2",
            Status::Solved,
            vec![run(3, PuzzleStatus::Unique, Some(&a))],
        );
        assert_eq!(cross_check([&u, &u2]), vec![]);
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
}
