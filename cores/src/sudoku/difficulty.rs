//! Difficulty of a puzzle, two ways: the PS-1-2 search count (seed 000 section 1.3: its
//! "11 searches" for Example 1; here over the whole search for two solutions, so that the
//! figure does not depend on where the solution happens to lie), and Knuth's Monte Carlo
//! estimate of the exact-cover search tree below the givens (`crate::xcc::estimate`, seed
//! 000's "Poor Man's Monte Carlo", section 2.3).

use crate::problems::sudoku::placements;
use crate::xcc::{estimate, MeanSe};

use super::ps12;
use super::puzzle::Puzzle;
use super::SolveError;

/// Random paths of the default estimate.
pub const DEFAULT_SAMPLES: u64 = 200;

/// Both measures of a puzzle's difficulty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difficulty {
    /// PS-1-2 totals of a search for two solutions.
    pub ps12: ps12::Stats,
    /// Estimated nodes of the Dancing Links tree (MRV rule) below the givens.
    pub tree_nodes: MeanSe,
    pub samples: u64,
}

/// Measures `puzzle` with `samples` random paths from `seed`.
pub fn difficulty(puzzle: &Puzzle, samples: u64, seed: u64) -> Result<Difficulty, SolveError> {
    let stats = ps12::run(puzzle, 2, false).stats;
    let sudoku = puzzle.geometry().exact_cover("dlx estimate")?;
    let prefix = placements(puzzle.givens(), puzzle.side());
    let est =
        estimate(&sudoku.problem, &prefix, samples, seed).map_err(|e| SolveError::Unsupported {
            solver: "dlx estimate",
            what: format!("the givens as a prefix: {e}"),
        })?;
    Ok(Difficulty {
        ps12: stats,
        tree_nodes: est.nodes,
        samples: est.samples,
    })
}
