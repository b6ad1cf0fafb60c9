//! Solving Sudoku puzzles: seed 000's formulations side by side, each a solver.
//!
//! - [`ps12`]: PS-1-2 (seed 000 sections 1.2-1.3): bit-set domains, propagation of
//!   singletons, hidden singles per group, binary search on pair domains, with the seed's
//!   trace table; [`bands`] does PS-1-2's rules bit-parallel on digit bands for plain 9x9
//!   puzzles, with tdoku-style triad reasoning and branching on top (the fast path of
//!   [`Solver::Ps12`]; its search, and so its guess counts, are not the seed's).
//! - [`dlx`]: the exact-cover engine (`crate::xcc`, seed 000 section 2.3), givens as prefix.
//! - [`sat`]: the naive and extended CNF encodings (seed 000 section 1.4) as DIMACS text,
//!   solved in-process by CaDiCaL.
//! - [`alldiff`]: alldifferent filtering in a small propagate-and-search solver, at three
//!   levels of consistency (seed 000 sections 1.5-1.6): Régin's hyperarc consistency
//!   ([`regin`]), Leconte's range consistency ([`range`]) and bounds consistency
//!   (López-Ortiz et al., [`bounds`]), with its search statistics ([`SearchStats`]).
//! - [`bench`](mod@bench): puzzle files as benchmark instances (slices) and the per-puzzle
//!   results of a run; [`crate::bench::judge::sudoku`] judges what runs claim about them.
//! - [`minimal`]: redundant givens and minimal puzzle generation; [`difficulty`]: the PS-1-2
//!   search count and a Monte Carlo tree-size estimate.
//!
//! Invariant: every solution leaves this module through [`solve`], which checks it with the
//! independent verifier ([`Puzzle::verify`]) first; a solver that returns a grid failing it is
//! a [`SolveError::Wrong`], never an answer. Uniqueness is "count up to two": every solver
//! continues its search (or, for SAT, blocks the first grid and solves again).

pub mod alldiff;
pub mod bands;
pub mod bench;
mod bounds;
pub mod difficulty;
pub mod dlx;
pub mod minimal;
pub mod ps12;
pub mod puzzle;
mod range;
mod regin;
pub mod sat;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use alldiff::Level;
pub use minimal::MinimalError;
pub use puzzle::{Geometry, Group, LineError, Puzzle, PuzzleError, PuzzleReader, Shape, MAX_SIDE};

/// The in-process solvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Solver {
    /// PS-1-2: [`bands`] for plain 9x9 puzzles, [`ps12`] for every other shape.
    Ps12,
    /// [`ps12`] only (any shape; the seed-faithful statistics).
    Ps12Generic,
    Dlx,
    /// The extended CNF encoding.
    Sat,
    /// Seed 000's naive CNF encoding.
    SatNaive,
    /// [`alldiff`]'s propagate-and-search shell with its filters at one level.
    Alldiff(Level),
}

impl Solver {
    pub const ALL: [Solver; 8] = [
        Solver::Ps12,
        Solver::Ps12Generic,
        Solver::Dlx,
        Solver::Sat,
        Solver::SatNaive,
        Solver::Alldiff(Level::Hyperarc),
        Solver::Alldiff(Level::Range),
        Solver::Alldiff(Level::Bounds),
    ];

    pub fn name(self) -> &'static str {
        match self {
            Solver::Ps12 => "ps12",
            Solver::Ps12Generic => "ps12-generic",
            Solver::Dlx => "dlx",
            Solver::Sat => "sat",
            Solver::SatNaive => "sat-naive",
            Solver::Alldiff(Level::Hyperarc) => "alldiff",
            Solver::Alldiff(Level::Range) => "alldiff-range",
            Solver::Alldiff(Level::Bounds) => "alldiff-bounds",
        }
    }
}

impl fmt::Display for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A solver name we do not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown Sudoku solver `{0}` (known: ps12, ps12-generic, dlx, sat, sat-naive, alldiff, \
     alldiff-range, alldiff-bounds)"
)]
pub struct UnknownSolver(pub String);

impl FromStr for Solver {
    type Err = UnknownSolver;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Solver::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownSolver(s.to_string()))
    }
}

/// What a puzzle turned out to have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Exactly one solution (uniqueness was checked).
    Unique,
    /// At least one solution (uniqueness was not asked).
    Solved,
    /// Two or more solutions.
    Multiple,
    /// No solution.
    None,
}

impl Status {
    /// What `found` solutions (of a search for up to two when `unique`) say.
    pub fn of_count(found: usize, unique: bool) -> Status {
        match found {
            0 => Status::None,
            1 if unique => Status::Unique,
            1 => Status::Solved,
            _ => Status::Multiple,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Status::Unique => "unique",
            Status::Solved => "solved",
            Status::Multiple => "multiple",
            Status::None => "none",
        }
    }
}

/// What a solver reports of its own search on one puzzle: for a search for up to two
/// solutions, the whole tree below the givens. Each solver counts in its own terms (the field
/// says whose); what it does not report is `None`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchStats {
    /// Nodes of the search tree: [`alldiff`], every call of its search (the root and each
    /// value tried); Gecode, its `nodes` (binary branching: `x = v`, then `x != v`).
    pub nodes: u64,
    /// Nodes whose propagation failed (Gecode: `failures`).
    pub failures: u64,
    /// Propagator runs: [`alldiff`], filterings of one group; Gecode, its `propagations`.
    pub propagations: u64,
    /// Values removed from domains by propagation ([`alldiff`] only).
    pub removed: Option<u64>,
    /// The solver's own search time in seconds, start-up excluded (Gecode: `solveTime`).
    pub solve_seconds: Option<f64>,
}

/// A verified answer: the status and, unless there is none, a solution (the first found).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: Status,
    pub solution: Option<Vec<u8>>,
}

/// Why a solver gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The solver cannot express this puzzle's shape.
    #[error("the {solver} solver cannot express {what}")]
    Unsupported { solver: &'static str, what: String },
    /// A returned grid failed the independent verifier: a bug in the solver.
    #[error("the {solver} solver returned a wrong grid: {reason}")]
    Wrong { solver: String, reason: String },
    /// The SAT back end failed.
    #[error("SAT solver: {0}")]
    Sat(String),
}

/// Up to `limit` solutions of `puzzle`, unverified (use [`solve`]).
pub fn solutions(
    puzzle: &Puzzle,
    solver: Solver,
    limit: usize,
) -> Result<Vec<Vec<u8>>, SolveError> {
    solutions_with_stats(puzzle, solver, limit).map(|(found, _)| found)
}

/// [`solutions`] with the search statistics of the solvers that keep them ([`alldiff`]).
pub fn solutions_with_stats(
    puzzle: &Puzzle,
    solver: Solver,
    limit: usize,
) -> Result<(Vec<Vec<u8>>, Option<SearchStats>), SolveError> {
    let found = match solver {
        Solver::Ps12 => {
            if puzzle.geometry().is_classic() {
                bands::solutions(puzzle.givens(), limit)
            } else {
                Ok(ps12::solutions(puzzle, limit))
            }
        }
        Solver::Ps12Generic => Ok(ps12::solutions(puzzle, limit)),
        Solver::Dlx => dlx::solutions(puzzle, limit),
        Solver::Sat => sat::solutions(puzzle, sat::Encoding::Extended, limit),
        Solver::SatNaive => sat::solutions(puzzle, sat::Encoding::Naive, limit),
        Solver::Alldiff(level) => {
            let o = alldiff::search(puzzle, level, limit);
            return Ok((o.solutions, Some(o.stats)));
        }
    };
    found.map(|f| (f, None))
}

/// Solves `puzzle` (checking uniqueness when `unique`) and verifies every solution found.
pub fn solve(puzzle: &Puzzle, solver: Solver, unique: bool) -> Result<Answer, SolveError> {
    let found = solutions(puzzle, solver, if unique { 2 } else { 1 })?;
    answer(puzzle, solver.name(), found, unique)
}

/// Turns the (up to two) solutions a solver found into a verified [`Answer`]; shared with
/// the external solvers run by the CLI.
pub fn answer(
    puzzle: &Puzzle,
    solver: &str,
    found: Vec<Vec<u8>>,
    unique: bool,
) -> Result<Answer, SolveError> {
    let wrong = |reason: String| SolveError::Wrong {
        solver: solver.to_string(),
        reason,
    };
    for grid in &found {
        puzzle.verify(grid).map_err(wrong)?;
    }
    if found.len() >= 2 && found[0] == found[1] {
        return Err(wrong("the same grid was reported as two solutions".into()));
    }
    let status = Status::of_count(found.len(), unique);
    Ok(Answer {
        status,
        solution: found.into_iter().next(),
    })
}

#[cfg(test)]
mod alldiff_tests;
#[cfg(test)]
mod tests;
