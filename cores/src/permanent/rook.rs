//! The permanent by inclusion-exclusion over the zeros (Riordan, "An Introduction to
//! Combinatorial Analysis", 1958, ch. 7-8; the "problème des rencontres" of seed 000 section
//! 2.2): with `r_k` the number of ways to put `k` non-attacking rooks on the zeros of `A`,
//! `per A = sum_k (-1)^k r_k (n - k)!`. The rook polynomial `sum_k r_k x^k` of a board is the
//! product of those of its connected blocks, and a block's is counted row by row over the
//! subsets of its columns (`2^q` states for `q` columns, the smaller side). `J - I_n` has `n`
//! single-cell blocks, `r(x) = (1 + x)^n`; a Sudoku's second row given the first has `R` blocks
//! of `C x C` zeros.
//!
//! Invariant: used only when every block of zeros has a side of at most [`MAX_SIDE`], which
//! keeps each block's counts below `2^128` (at most `C(64, k) C(20, k) k! < 2^116`).

use num_bigint::BigInt;
use num_traits::{One, Zero};

use super::{factorial, BigUint, Matrix01, PermanentError};

/// Largest smaller side of a block of zeros: `2^20` states.
pub const MAX_SIDE: usize = 20;

/// The blocks of zeros of a matrix, each as one row mask per board row over its `q` columns.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    n: usize,
    blocks: Vec<(Vec<u64>, usize)>,
}

impl Plan {
    /// `None` when a block of zeros is too large on both sides.
    pub(crate) fn new(m: &Matrix01) -> Option<Plan> {
        let n = m.order();
        let zeros = Matrix01::from_fn(n, |i, j| !m.get(i, j)).ok()?;
        let mut blocks = Vec::new();
        let mut seen = 0u64;
        for start in 0..n {
            if seen >> start & 1 == 1 || zeros.row_mask(start) == 0 {
                continue;
            }
            let (mut rows, mut cols) = (1u64 << start, 0u64);
            loop {
                let new_cols = (0..n)
                    .filter(|&i| rows >> i & 1 == 1)
                    .fold(cols, |c, i| c | zeros.row_mask(i));
                let new_rows = (0..n)
                    .filter(|&i| zeros.row_mask(i) & new_cols != 0)
                    .fold(rows, |r, i| r | 1 << i);
                if (new_rows, new_cols) == (rows, cols) {
                    break;
                }
                (rows, cols) = (new_rows, new_cols);
            }
            seen |= rows;
            // Board rows along the larger side, states over the smaller.
            let (board, other) = if rows.count_ones() >= cols.count_ones() {
                (zeros.clone(), (rows, cols))
            } else {
                (zeros.transpose(), (cols, rows))
            };
            let (outer, inner) = other;
            let inner_list: Vec<usize> = (0..n).filter(|&j| inner >> j & 1 == 1).collect();
            if inner_list.len() > MAX_SIDE {
                return None;
            }
            let masks = (0..n)
                .filter(|&i| outer >> i & 1 == 1)
                .map(|i| {
                    inner_list
                        .iter()
                        .enumerate()
                        .filter(|&(_, &j)| board.get(i, j))
                        .fold(0u64, |m, (k, _)| m | 1 << k)
                })
                .collect();
            blocks.push((masks, inner_list.len()));
        }
        Some(Plan { n, blocks })
    }

    /// Steps: every state of a block visited once per board row and cell.
    pub(crate) fn cost(&self) -> f64 {
        self.blocks
            .iter()
            .map(|(rows, q)| {
                let cells: u32 = rows.iter().map(|r| r.count_ones()).sum();
                (*q as f64).exp2() * f64::from(cells.max(1))
            })
            .sum::<f64>()
            + (self.n * self.n) as f64
    }

    /// The permanent and the number of states visited.
    pub(crate) fn run(&self) -> Result<(BigUint, u64), PermanentError> {
        let mut poly = vec![BigUint::one()];
        let mut steps = 0u64;
        for (rows, q) in &self.blocks {
            let (block, s) = rook_polynomial(rows, *q)?;
            steps += s;
            let mut product = vec![BigUint::zero(); poly.len() + block.len() - 1];
            for (i, a) in poly.iter().enumerate() {
                for (j, &b) in block.iter().enumerate() {
                    product[i + j] += a * b;
                }
            }
            poly = product;
        }
        let mut total = BigInt::zero();
        for (k, r) in poly.iter().enumerate() {
            if k > self.n {
                // More rooks than rows: never, since a board has at most n rows.
                return Err(PermanentError::Internal("rook polynomial above the order"));
            }
            let term = BigInt::from(r * factorial(self.n - k));
            if k % 2 == 0 {
                total += term;
            } else {
                total -= term;
            }
        }
        total
            .to_biguint()
            .map(|v| (v, steps))
            .ok_or(PermanentError::Internal("a negative permanent"))
    }
}

/// `r_k` for k = 0..=q of the board whose rows are `rows` (masks over `q` columns).
fn rook_polynomial(rows: &[u64], q: usize) -> Result<(Vec<u128>, u64), PermanentError> {
    let states = 1usize << q;
    let mut dp = vec![0u128; states];
    dp[0] = 1;
    let mut steps = 0u64;
    for &row in rows {
        // Descending: a rook goes from `mask` to a larger mask, visited already this row.
        for mask in (0..states).rev() {
            let ways = dp[mask];
            if ways == 0 {
                continue;
            }
            let mut free = row & !(mask as u64);
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free &= free - 1;
                let to = mask | bit as usize;
                dp[to] = dp[to]
                    .checked_add(ways)
                    .ok_or(PermanentError::Internal("rook count above 2^128"))?;
                steps += 1;
            }
        }
    }
    let mut poly = vec![0u128; q + 1];
    for (mask, &ways) in dp.iter().enumerate() {
        poly[mask.count_ones() as usize] += ways;
    }
    Ok((poly, steps))
}
