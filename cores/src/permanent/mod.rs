//! Permanents of 0-1 matrices, exact, and their classical bounds (seed 000 section 2.2).
//!
//! The number of exact hitting sets of a permutation constraint (n variables, n values) is the
//! permanent of its 0-1 representation matrix (Marcus and Minc, "Permanents", 1965):
//! `per A = sum over permutations s of prod_i a[i][s(i)]`. The number of ways to fill the next
//! row of a partial Sudoku or Latin square is the permanent of the row's cells x values
//! availability matrix ([`rows`]).
//!
//! [`permanent`] is exact. It splits the matrix into its connected blocks (the permanent of a
//! direct sum is the product of the blocks' permanents; a block that is not square makes it 0)
//! and counts each block by the cheapest of three methods ([`Method`]): Ryser's formula in
//! Gray-code order (`2^n n` steps, the general method); Ryser's formula over classes of equal
//! columns (all subsets of a class of `m` equal columns with `t` chosen give the same row sums,
//! so they are one term weighted by `C(m, t)`: `prod (m_j + 1)` terms); and inclusion-exclusion
//! over the rook polynomial of the zeros, `per A = sum_k (-1)^k r_k (n - k)!`, the rook
//! polynomial being the product of those of the zeros' own connected blocks. The second row of a
//! Sudoku with 6x6 boxes is a 36 x 36 matrix of 6 x 6 equal blocks: `7^6` class terms, or six
//! 6 x 6 blocks of zeros (`2^6` states each), instead of `2^36 36` Gray-code steps.
//!
//! Exactness: every method is a sum of integer terms, so it is exact modulo `2^128` in wrapping
//! `u128` arithmetic, and exact outright when the permanent is below `2^128`. That is known
//! beforehand: the permanent of a 0-1 matrix is at most `n!` (below `2^128` up to n = 34) and at
//! most its Bregman bound ([`bounds::bregman`]). Above, the sums run in `BigInt`.
//!
//! Invariant: the functions here never panic on any matrix they accept; a permanent beyond
//! reach (every method above [`MAX_COST`] steps) is [`PermanentError::OutOfReach`].

pub mod bounds;
mod classes;
pub mod known;
mod rook;
pub mod rows;
mod ryser;

#[cfg(test)]
mod tests;

use std::fmt;

pub use num_bigint::BigUint;
use num_traits::Zero;

pub use bounds::{bregman, van_der_waerden};
pub use ryser::ryser_gray;

/// Largest order of a matrix: a row is one `u64` bit mask.
pub const MAX_ORDER: usize = 64;

/// The most steps (row sums updated, products taken) [`permanent`] will spend on one block.
pub const MAX_COST: f64 = (1u64 << 38) as f64;

/// Why no permanent was computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PermanentError {
    #[error("a {n} x {n} matrix is larger than {MAX_ORDER} x {MAX_ORDER}")]
    TooLarge { n: usize },
    #[error("row {row} of the matrix has {len} entries, not {n}")]
    Ragged { row: usize, len: usize, n: usize },
    #[error(
        "the permanent of this {n} x {n} block is beyond reach: its cheapest method needs about \
         2^{log2_cost:.0} steps"
    )]
    OutOfReach { n: usize, log2_cost: f64 },
    #[error("internal error: {0}")]
    Internal(&'static str),
}

/// A square 0-1 matrix of order at most [`MAX_ORDER`]; bit `j` of `rows[i]` is entry (i, j).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Matrix01 {
    n: usize,
    rows: Vec<u64>,
}

impl Matrix01 {
    /// The matrix with entry (i, j) = `f(i, j)`.
    pub fn from_fn(n: usize, f: impl Fn(usize, usize) -> bool) -> Result<Self, PermanentError> {
        if n > MAX_ORDER {
            return Err(PermanentError::TooLarge { n });
        }
        let rows = (0..n)
            .map(|i| (0..n).filter(|&j| f(i, j)).fold(0u64, |m, j| m | 1 << j))
            .collect();
        Ok(Matrix01 { n, rows })
    }

    /// From rows of booleans; every row must have `rows.len()` entries.
    pub fn from_rows(rows: &[Vec<bool>]) -> Result<Self, PermanentError> {
        let n = rows.len();
        if let Some((row, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != n) {
            return Err(PermanentError::Ragged {
                row,
                len: r.len(),
                n,
            });
        }
        Self::from_fn(n, |i, j| rows[i][j])
    }

    /// `J_n`, every entry 1.
    pub fn ones(n: usize) -> Result<Self, PermanentError> {
        Self::from_fn(n, |_, _| true)
    }

    pub fn order(&self) -> usize {
        self.n
    }

    pub fn get(&self, i: usize, j: usize) -> bool {
        self.rows[i] >> j & 1 == 1
    }

    /// Row `i` as a bit mask over the columns.
    pub fn row_mask(&self, i: usize) -> u64 {
        self.rows[i]
    }

    /// Column `j` as a bit mask over the rows.
    pub fn column_mask(&self, j: usize) -> u64 {
        (0..self.n)
            .filter(|&i| self.get(i, j))
            .fold(0u64, |m, i| m | 1 << i)
    }

    pub fn row_sums(&self) -> Vec<usize> {
        self.rows.iter().map(|r| r.count_ones() as usize).collect()
    }

    pub fn column_sums(&self) -> Vec<usize> {
        (0..self.n)
            .map(|j| self.column_mask(j).count_ones() as usize)
            .collect()
    }

    pub fn transpose(&self) -> Matrix01 {
        Matrix01 {
            n: self.n,
            rows: (0..self.n).map(|j| self.column_mask(j)).collect(),
        }
    }

    /// `k` when every row and every column sums to `k`.
    pub fn regular_degree(&self) -> Option<usize> {
        let k = self.row_sums().first().copied().unwrap_or(0);
        (self.row_sums().iter().all(|&r| r == k) && self.column_sums().iter().all(|&c| c == k))
            .then_some(k)
    }

    /// The submatrix of the given rows and columns (in that order), square.
    fn submatrix(&self, rows: &[usize], cols: &[usize]) -> Matrix01 {
        Matrix01 {
            n: rows.len(),
            rows: rows
                .iter()
                .map(|&i| {
                    cols.iter()
                        .enumerate()
                        .filter(|&(_, &j)| self.get(i, j))
                        .fold(0u64, |m, (k, _)| m | 1 << k)
                })
                .collect(),
        }
    }
}

impl fmt::Debug for Matrix01 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Matrix01 {}x{}", self.n, self.n)?;
        for i in 0..self.n {
            let line: String = (0..self.n)
                .map(|j| if self.get(i, j) { '1' } else { '0' })
                .collect();
            writeln!(f, "  {line}")?;
        }
        Ok(())
    }
}

/// How a block's permanent was counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// A row or column of zeros, or a block that is not square: the permanent is 0.
    Zero,
    /// Ryser's formula in Gray-code order.
    Ryser,
    /// Ryser's formula over classes of equal columns (or rows), with binomial weights.
    Classes,
    /// Inclusion-exclusion over the rook polynomial of the zeros.
    Rook,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Zero => "zero",
            Method::Ryser => "ryser",
            Method::Classes => "ryser-classes",
            Method::Rook => "rook",
        }
    }
}

/// One connected block of the matrix and how it was counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Its rows (and columns, when square).
    pub order: usize,
    pub method: Method,
    /// Terms summed (Gray-code steps, class terms, or rook-polynomial cells).
    pub terms: u64,
}

/// An exact permanent and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permanent {
    pub value: BigUint,
    pub blocks: Vec<Block>,
}

impl Permanent {
    /// "rook, order 36" or "rook, 2 blocks of order 4; ryser, order 3": each block's method.
    pub fn describe(&self) -> String {
        let mut parts: Vec<(Method, usize, usize)> = Vec::new();
        for b in &self.blocks {
            match parts
                .iter_mut()
                .find(|(m, o, _)| *m == b.method && *o == b.order)
            {
                Some(p) => p.2 += 1,
                None => parts.push((b.method, b.order, 1)),
            }
        }
        parts
            .iter()
            .map(|&(m, o, k)| match k {
                1 => format!("{}, order {o}", m.name()),
                _ => format!("{}, {k} blocks of order {o}", m.name()),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The exact permanent of `a`: its connected blocks each by the cheapest method.
pub fn permanent(a: &Matrix01) -> Result<Permanent, PermanentError> {
    let n = a.n;
    let zero = |order| Permanent {
        value: BigUint::zero(),
        blocks: vec![Block {
            order,
            method: Method::Zero,
            terms: 0,
        }],
    };
    if a.rows.contains(&0) || a.column_sums().contains(&0) {
        return Ok(zero(n));
    }
    let mut value = BigUint::from(1u8);
    let mut blocks = Vec::new();
    for (rows, cols) in components(a) {
        if rows.len() != cols.len() {
            return Ok(zero(rows.len()));
        }
        let block = a.submatrix(&rows, &cols);
        let (v, b) = block_permanent(&block)?;
        value *= v;
        blocks.push(b);
    }
    Ok(Permanent { value, blocks })
}

/// The connected components of the bipartite graph of rows and columns joined by ones, each as
/// (rows, columns) in increasing order. Every row and column has a one.
fn components(a: &Matrix01) -> Vec<(Vec<usize>, Vec<usize>)> {
    let n = a.n;
    let mut row_seen = 0u64;
    let mut out = Vec::new();
    for start in 0..n {
        if row_seen >> start & 1 == 1 {
            continue;
        }
        let (mut rows, mut cols) = (1u64 << start, 0u64);
        loop {
            let new_cols = (0..n)
                .filter(|&i| rows >> i & 1 == 1)
                .fold(cols, |m, i| m | a.rows[i]);
            let new_rows = (0..n)
                .filter(|&i| a.rows[i] & new_cols != 0)
                .fold(rows, |m, i| m | 1 << i);
            if (new_rows, new_cols) == (rows, cols) {
                break;
            }
            (rows, cols) = (new_rows, new_cols);
        }
        row_seen |= rows;
        let list = |m: u64| (0..n).filter(|&i| m >> i & 1 == 1).collect::<Vec<_>>();
        out.push((list(rows), list(cols)));
    }
    out
}

/// One connected square block by the cheapest method.
fn block_permanent(m: &Matrix01) -> Result<(BigUint, Block), PermanentError> {
    let n = m.n;
    let ryser_cost = if n <= ryser::MAX_ORDER {
        (n as f64).exp2() * n.max(1) as f64
    } else {
        f64::INFINITY
    };
    let classes_plan = classes::Plan::cheapest(m);
    let rook_plan = rook::Plan::new(m);
    let rook_cost = rook_plan.as_ref().map_or(f64::INFINITY, |p| p.cost());
    let best = ryser_cost.min(classes_plan.cost()).min(rook_cost);
    if best > MAX_COST {
        return Err(PermanentError::OutOfReach {
            n,
            log2_cost: best.log2(),
        });
    }
    let (value, method, terms) = if ryser_cost == best {
        let (v, terms) =
            ryser::ryser_gray(m).ok_or(PermanentError::Internal("ryser beyond its order"))?;
        (BigUint::from(v), Method::Ryser, terms)
    } else if classes_plan.cost() == best {
        let (v, terms) = classes_plan.run(fits_u128(m))?;
        (v, Method::Classes, terms)
    } else {
        let plan = rook_plan.ok_or(PermanentError::Internal("rook plan vanished"))?;
        let (v, terms) = plan.run()?;
        (v, Method::Rook, terms)
    };
    Ok((
        value,
        Block {
            order: n,
            method,
            terms,
        },
    ))
}

/// True when the permanent is known to be below `2^128`: `n! < 2^128` or Bregman's bound is.
fn fits_u128(m: &Matrix01) -> bool {
    m.n <= 34 || bregman(&m.row_sums()).bits() <= 127
}

/// An integer ring for the sums: `u128` modulo `2^128` when the result is known to fit, else
/// `BigInt`. All methods compute integer sums, so the modular result is the exact one.
pub(crate) trait Ring: Clone {
    fn from_u128(x: u128) -> Self;
    fn add(&mut self, x: &Self);
    fn sub(&mut self, x: &Self);
    fn mul(&self, x: &Self) -> Self;
    /// The value, if it is a non-negative integer (always, for a permanent).
    fn into_biguint(self) -> Option<BigUint>;
}

impl Ring for std::num::Wrapping<u128> {
    fn from_u128(x: u128) -> Self {
        std::num::Wrapping(x)
    }
    fn add(&mut self, x: &Self) {
        *self += x;
    }
    fn sub(&mut self, x: &Self) {
        *self -= x;
    }
    fn mul(&self, x: &Self) -> Self {
        *self * x
    }
    fn into_biguint(self) -> Option<BigUint> {
        Some(BigUint::from(self.0))
    }
}

impl Ring for num_bigint::BigInt {
    fn from_u128(x: u128) -> Self {
        num_bigint::BigInt::from(x)
    }
    fn add(&mut self, x: &Self) {
        *self += x;
    }
    fn sub(&mut self, x: &Self) {
        *self -= x;
    }
    fn mul(&self, x: &Self) -> Self {
        self * x
    }
    fn into_biguint(self) -> Option<BigUint> {
        self.to_biguint()
    }
}

/// `n!` exactly.
pub fn factorial(n: usize) -> BigUint {
    (1..=n as u64).fold(BigUint::from(1u8), |acc, k| acc * k)
}

/// A decimal number for people: itself up to 15 digits, else `d.ddde<exponent>` (truncated).
pub fn approx(digits: &str) -> String {
    if digits.len() <= 15 || !digits.is_ascii() {
        return digits.to_string();
    }
    format!("{}.{}e{}", &digits[..1], &digits[1..4], digits.len() - 1)
}
