//! Seed 000's question of the fewest givens: which givens of a puzzle with one solution are
//! redundant (removing it alone keeps the solution unique), and minimal puzzles made from a
//! random grid.
//!
//! Generation, deterministic for a seed (ChaCha8): cells in random order, each given the
//! first digit, in random order, that leaves the puzzle solvable, until the givens have a
//! single solution: that solution is the random full grid. Then its cells are removed in
//! another random order whenever the puzzle stays unique. Removing givens only adds
//! solutions, so a given kept once stays needed: the result is minimal, which
//! [`redundant_givens`] confirms in the tests.

use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::puzzle::{Geometry, Puzzle, Shape};
use super::{solutions, solve, SolveError, Solver, Status};
use crate::problems::BuildError;

/// Why a puzzle's givens cannot be judged, or a puzzle not made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MinimalError {
    #[error("the puzzle must have exactly one solution, it has {}", match .0 {
        Status::None => "none",
        _ => "several",
    })]
    NotUnique(Status),
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error(transparent)]
    Shape(#[from] BuildError),
}

/// The cells (0-based, row by row) whose given can be removed, alone, without losing
/// uniqueness; empty for a minimal puzzle.
pub fn redundant_givens(puzzle: &Puzzle, solver: Solver) -> Result<Vec<usize>, MinimalError> {
    let status = solve(puzzle, solver, true)?.status;
    if status != Status::Unique {
        return Err(MinimalError::NotUnique(status));
    }
    let mut redundant = Vec::new();
    for (cell, &v) in puzzle.givens().iter().enumerate() {
        if v == 0 {
            continue;
        }
        let mut fewer = puzzle.givens().to_vec();
        fewer[cell] = 0;
        let fewer = puzzle
            .with_givens(fewer)
            .expect("removing a given keeps the givens consistent");
        if solutions(&fewer, solver, 2)?.len() == 1 {
            redundant.push(cell);
        }
    }
    Ok(redundant)
}

/// A random full grid of `shape` (deterministic for `seed`).
pub fn random_grid(shape: &Shape, seed: u64, solver: Solver) -> Result<Vec<u8>, MinimalError> {
    let geometry = Arc::new(Geometry::new(shape)?);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    grid_from(&geometry, &mut rng, solver)
}

fn grid_from(
    geometry: &Arc<Geometry>,
    rng: &mut ChaCha8Rng,
    solver: Solver,
) -> Result<Vec<u8>, MinimalError> {
    let n = geometry.cells();
    let side = geometry.side;
    let mut givens = vec![0u8; n];
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    for cell in order {
        let mut digits: Vec<u8> = (1..=side as u8).collect();
        digits.shuffle(rng);
        for d in digits {
            if geometry.peers[cell].iter().any(|&p| givens[p] == d) {
                continue;
            }
            givens[cell] = d;
            let puzzle = Puzzle::new(geometry.clone(), givens.clone())
                .expect("no given repeats a peer's digit");
            let found = solutions(&puzzle, solver, 2)?;
            match found.len() {
                0 => givens[cell] = 0,
                1 => {
                    let answer = super::answer(&puzzle, solver.name(), found, true)?;
                    return Ok(answer.solution.expect("a unique answer has its grid"));
                }
                _ => break,
            }
        }
        if givens[cell] == 0 {
            // Every digit was refused: only possible if the shape has no grid at all.
            return Err(MinimalError::NotUnique(Status::None));
        }
    }
    Err(MinimalError::NotUnique(Status::Multiple))
}

/// A minimal puzzle made from a random full grid of `shape` (deterministic for `seed`).
pub fn generate(shape: &Shape, seed: u64, solver: Solver) -> Result<Puzzle, MinimalError> {
    let geometry = Arc::new(Geometry::new(shape)?);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let grid = grid_from(&geometry, &mut rng, solver)?;
    let mut givens = grid.clone();
    let mut order: Vec<usize> = (0..givens.len()).collect();
    order.shuffle(&mut rng);
    for cell in order {
        let keep = givens[cell];
        givens[cell] = 0;
        let puzzle = Puzzle::new(geometry.clone(), givens.clone())
            .expect("a subset of a grid's cells never clashes");
        if solutions(&puzzle, solver, 2)?.len() != 1 {
            givens[cell] = keep;
        }
    }
    let puzzle = Puzzle::new(geometry, givens).expect("a subset of a grid's cells never clashes");
    let answer = solve(&puzzle, solver, true)?;
    if answer.status != Status::Unique || answer.solution.as_deref() != Some(&grid[..]) {
        return Err(MinimalError::NotUnique(answer.status));
    }
    Ok(puzzle)
}
