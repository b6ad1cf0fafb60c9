//! Sudoku by the exact-cover engine (seed 000 section 2.3): the shape's exact-cover problem
//! (`problems::sudoku::Sudoku`, built once per shape, variants included) with the givens as
//! the prefix of chosen options, "the k rows initially added to the partial solution";
//! uniqueness by stopping the search at the second solution.

use crate::problems::sudoku::placements;
use crate::xcc::{Dlx, Flow, Limits};

use super::puzzle::Puzzle;
use super::SolveError;

/// Up to `limit` solutions.
pub fn solutions(puzzle: &Puzzle, limit: usize) -> Result<Vec<Vec<u8>>, SolveError> {
    let sudoku = puzzle.geometry().exact_cover("dlx")?;
    let side = puzzle.side();
    let mut found = Vec::new();
    if limit == 0 {
        return Ok(found);
    }
    let mut dlx = Dlx::new(&sudoku.problem);
    // A puzzle's givens never clash (checked when it was read), so the prefix applies.
    dlx.apply_prefix(&placements(puzzle.givens(), side))
        .map_err(|e| SolveError::Unsupported {
            solver: "dlx",
            what: format!("the givens as a prefix: {e}"),
        })?;
    dlx.run(&Limits::default(), |options| {
        let mut grid = vec![0u8; side * side];
        for &o in options {
            if let Some((r, c, d)) = sudoku.placement(o) {
                grid[r * side + c] = d as u8;
            }
        }
        found.push(grid);
        if found.len() >= limit {
            Flow::Stop
        } else {
            Flow::Continue
        }
    });
    Ok(found)
}
