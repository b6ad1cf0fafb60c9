//! Sudoku as SAT (seed 000 section 1.4). Variable `cell * side + value` (1-based DIMACS
//! numbering: cell 0-based, value 1..=side) says that the cell holds the value.
//!
//! - [`Encoding::Naive`], the seed's "naive translation" of each alldifferent: for every
//!   cell, one clause "it holds some value" and, for every group, every pair of its cells
//!   and every value, the binary clause "not both". A cell may then hold several values in a
//!   model: each of them is absent from all its peers, so taking the smallest gives a valid
//!   grid. (The seed repeats the unary clause in each of a cell's alldifferents; we write it
//!   once.)
//! - [`Encoding::Extended`] adds "at most one value per cell" and, for every full group and
//!   value, "some cell of the group holds it" (the at-least-one clauses of Lynce and
//!   Ouaknine's extended encoding), which let unit propagation find hidden singles.
//!
//! [`Cnf::to_dimacs`] writes the formula as DIMACS text (the same text is fed to the
//! external `minisat` by the CLI). In-process solving uses CaDiCaL (A. Biere; actively
//! developed, among the strongest solvers of recent SAT competitions) through the `cadical`
//! crate: it bundles CaDiCaL 1.9.5's C++ source, built by `cc` with nothing else to install,
//! and takes DIMACS literals as they are. Weighed and left: `rustsat-cadical` (the binding
//! REFERENCES.md names, well kept) runs bindgen at build time and so needs libclang on every
//! machine; `splr`'s current release needs a newer Rust than ours; `varisat` has had no
//! release since 2020; `batsat` (a MiniSat port) is weaker. Uniqueness: after a model, a
//! clause forbidding its grid (some cell differs) is added and the formula solved again.
//!
//! Invariant: the models of either encoding, read as above, are exactly the solutions of
//! the puzzle, so "second model after blocking the first grid" means "second solution".

use std::fmt::Write as _;

use super::puzzle::Puzzle;
use super::SolveError;

/// Which CNF to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Naive,
    Extended,
}

/// A formula in conjunctive normal form: DIMACS literals, variables `1..=vars`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cnf {
    pub vars: u32,
    pub clauses: Vec<Vec<i32>>,
}

impl Cnf {
    /// The formula in DIMACS CNF text (`p cnf VARS CLAUSES`, one clause a line).
    pub fn to_dimacs(&self) -> String {
        let mut out = String::with_capacity(self.clauses.len() * 12);
        let _ = writeln!(out, "p cnf {} {}", self.vars, self.clauses.len());
        for clause in &self.clauses {
            for lit in clause {
                let _ = write!(out, "{lit} ");
            }
            out.push_str("0\n");
        }
        out
    }
}

/// The DIMACS variable "`cell` holds `value`" (value 1-based).
pub fn var(side: usize, cell: usize, value: usize) -> i32 {
    (cell * side + value) as i32
}

/// The CNF of a puzzle.
pub fn encode(puzzle: &Puzzle, encoding: Encoding) -> Cnf {
    let geo = puzzle.geometry();
    let s = geo.side;
    let n = geo.cells();
    let x = |cell: usize, value: usize| var(s, cell, value);
    let mut clauses = Vec::new();
    for (cell, &v) in puzzle.givens().iter().enumerate() {
        if v > 0 {
            clauses.push(vec![x(cell, v.into())]);
        }
    }
    for cell in 0..n {
        clauses.push((1..=s).map(|v| x(cell, v)).collect());
        if encoding == Encoding::Extended {
            for v in 1..=s {
                for w in v + 1..=s {
                    clauses.push(vec![-x(cell, v), -x(cell, w)]);
                }
            }
        }
    }
    for group in &geo.groups {
        let cells = &group.cells;
        for (k, &a) in cells.iter().enumerate() {
            for &b in &cells[k + 1..] {
                for v in 1..=s {
                    clauses.push(vec![-x(a, v), -x(b, v)]);
                }
            }
        }
        if encoding == Encoding::Extended && group.full {
            for v in 1..=s {
                clauses.push(cells.iter().map(|&c| x(c, v)).collect());
            }
        }
    }
    Cnf {
        vars: (n * s) as u32,
        clauses,
    }
}

/// Reads a grid from a model: the smallest true value of each cell (0 if none).
pub fn decode(side: usize, is_true: impl Fn(i32) -> bool) -> Vec<u8> {
    (0..side * side)
        .map(|cell| {
            (1..=side)
                .find(|&v| is_true(var(side, cell, v)))
                .map_or(0, |v| v as u8)
        })
        .collect()
}

/// The clause "some cell differs from `grid`".
pub fn blocking_clause(side: usize, grid: &[u8]) -> Vec<i32> {
    grid.iter()
        .enumerate()
        .map(|(cell, &v)| -var(side, cell, v.into()))
        .collect()
}

/// Up to `limit` solutions, by CaDiCaL.
pub fn solutions(
    puzzle: &Puzzle,
    encoding: Encoding,
    limit: usize,
) -> Result<Vec<Vec<u8>>, SolveError> {
    let cnf = encode(puzzle, encoding);
    let side = puzzle.side();
    let mut solver: cadical::Solver = cadical::Solver::new();
    for c in &cnf.clauses {
        solver.add_clause(c.iter().copied());
    }
    let mut found = Vec::new();
    while found.len() < limit {
        match solver.solve() {
            Some(true) => {}
            Some(false) => break,
            None => return Err(SolveError::Sat("CaDiCaL stopped without an answer".into())),
        }
        let grid = decode(side, |v| solver.value(v) == Some(true));
        solver.add_clause(blocking_clause(side, &grid));
        found.push(grid);
    }
    Ok(found)
}
