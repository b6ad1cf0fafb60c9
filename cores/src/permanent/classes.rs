//! Ryser's formula over classes of equal columns. In
//! `per A = sum over column sets S of (-1)^(n - |S|) prod_i (row sum of i over S)`, a row's
//! sum over S depends only on how many columns `t_j` of each class `j` of equal columns S
//! holds; the `prod_j C(m_j, t_j)` sets with the same counts are one term:
//! `per A = sum over (t_j) of (-1)^(n - sum t) prod_j C(m_j, t_j) prod_i (sum_j a[i][j] t_j)`,
//! and equal rows make one factor raised to their number. The terms are `prod_j (m_j + 1)`;
//! the matrix or its transpose (same permanent), whichever has fewer.
//!
//! A Sudoku's second row given the first (R x C boxes) has R classes of C equal columns (the
//! digits of one box's segment of row 1) and R classes of C equal rows: `(C+1)^R` terms, 117,649
//! for 6x6 boxes where plain Ryser takes `2^36 36` steps.

use std::num::Wrapping;

use num_bigint::BigInt;

use super::{BigUint, Matrix01, PermanentError, Ring};

/// The classes of one orientation of a matrix and the cost of the sum over them.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    n: usize,
    /// Each column class: its rows (a mask) and its number of columns.
    columns: Vec<(u64, usize)>,
    /// Each row class: its number of rows.
    row_mult: Vec<u32>,
    /// For each column class, the row classes it has ones in.
    touch: Vec<Vec<usize>>,
    terms: f64,
}

impl Plan {
    fn new(m: &Matrix01) -> Plan {
        let n = m.order();
        let mut columns: Vec<(u64, usize)> = Vec::new();
        for j in 0..n {
            let mask = m.column_mask(j);
            match columns.iter_mut().find(|(c, _)| *c == mask) {
                Some(c) => c.1 += 1,
                None => columns.push((mask, 1)),
            }
        }
        // Row classes: (representative row, multiplicity).
        let mut rows: Vec<(u64, usize, u32)> = Vec::new();
        for i in 0..n {
            let mask = m.row_mask(i);
            match rows.iter_mut().find(|(r, _, _)| *r == mask) {
                Some(r) => r.2 += 1,
                None => rows.push((mask, i, 1)),
            }
        }
        let touch = columns
            .iter()
            .map(|&(mask, _)| {
                (0..rows.len())
                    .filter(|&r| mask >> rows[r].1 & 1 == 1)
                    .collect()
            })
            .collect();
        let terms = columns.iter().map(|&(_, k)| (k + 1) as f64).product();
        Plan {
            n,
            columns,
            row_mult: rows.iter().map(|r| r.2).collect(),
            touch,
            terms,
        }
    }

    /// The plan of `m` or of its transpose, whichever sums fewer terms.
    pub(crate) fn cheapest(m: &Matrix01) -> Plan {
        let (a, b) = (Plan::new(m), Plan::new(&m.transpose()));
        if b.cost() < a.cost() {
            b
        } else {
            a
        }
    }

    /// Steps: each term updates a few row sums and multiplies one factor per class.
    pub(crate) fn cost(&self) -> f64 {
        self.terms * (self.columns.len() + self.row_mult.len()) as f64
    }

    /// The permanent and the number of terms; in `u128` when `fits` says it is below `2^128`.
    pub(crate) fn run(&self, fits: bool) -> Result<(BigUint, u64), PermanentError> {
        let (value, terms) = if fits {
            let (v, t) = self.sum::<Wrapping<u128>>();
            (v.into_biguint(), t)
        } else {
            let (v, t) = self.sum::<BigInt>();
            (v.into_biguint(), t)
        };
        value
            .map(|v| (v, terms))
            .ok_or(PermanentError::Internal("a negative permanent"))
    }

    fn sum<R: Ring>(&self) -> (R, u64) {
        let n = self.n;
        let c = self.columns.len();
        // powers[i][v] = v^(rows in class i).
        let powers: Vec<Vec<R>> = self
            .row_mult
            .iter()
            .map(|&k| {
                (0..=n)
                    .map(|v| {
                        let v = R::from_u128(v as u128);
                        let mut p = R::from_u128(1);
                        for _ in 0..k {
                            p = p.mul(&v);
                        }
                        p
                    })
                    .collect()
            })
            .collect();
        // binomials[j][t] = C(m_j, t).
        let binomials: Vec<Vec<R>> = self
            .columns
            .iter()
            .map(|&(_, m)| {
                let mut row = vec![1u128];
                for t in 1..=m {
                    // C(m, t) = C(m, t-1) (m - t + 1) / t, exact; m <= 64 keeps it in u128.
                    row.push(row[t - 1] * (m - t + 1) as u128 / t as u128);
                }
                row.into_iter().map(R::from_u128).collect()
            })
            .collect();
        let mut t = vec![0usize; c];
        let mut sums = vec![0usize; self.row_mult.len()];
        let mut zeros = sums.len();
        let mut chosen = 0usize;
        let mut total = R::from_u128(0);
        let mut terms = 0u64;
        loop {
            terms += 1;
            if zeros == 0 {
                let mut term = R::from_u128(1);
                for (j, &tj) in t.iter().enumerate() {
                    term = term.mul(&binomials[j][tj]);
                }
                for (i, &s) in sums.iter().enumerate() {
                    term = term.mul(&powers[i][s]);
                }
                if (n - chosen).is_multiple_of(2) {
                    total.add(&term);
                } else {
                    total.sub(&term);
                }
            }
            // The next counts (t_j) in mixed radix.
            let mut j = 0;
            loop {
                if j == c {
                    return (total, terms);
                }
                let m = self.columns[j].1;
                if t[j] < m {
                    t[j] += 1;
                    chosen += 1;
                    for &i in &self.touch[j] {
                        if sums[i] == 0 {
                            zeros -= 1;
                        }
                        sums[i] += 1;
                    }
                    break;
                }
                chosen -= m;
                t[j] = 0;
                for &i in &self.touch[j] {
                    sums[i] -= m;
                    if sums[i] == 0 {
                        zeros += 1;
                    }
                }
                j += 1;
            }
        }
    }
}
