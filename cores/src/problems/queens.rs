//! The n queens problem in Knuth's XCC formulation (TAOCP 7.2.2.1, and his DLX1 examples): one
//! option per square, covering its row and column (primary items: every row and column holds
//! exactly one queen) and its two diagonals (secondary items: at most one queen each).
//!
//! Layout invariant: option `row * n + col` (0-based) puts a queen on that square. Items are
//! named `r<row>`, `c<col>` (1-based), `a<row+col>` and `b<row-col+n>` (so `a2..a2n`,
//! `b1..b2n-1`); the row and column items are declared in "organ-pipe" order, middle first,
//! as Knuth does, which only changes how the first-in-order item choice breaks ties.

use super::{check_range, BuildError};
use crate::xcc::{OptionId, Problem, ProblemBuilder};

/// Largest board accepted: 256 x 256 has 65,536 options.
pub const MAX_N: usize = 256;

/// A built n-queens problem.
#[derive(Debug, Clone)]
pub struct Queens {
    pub problem: Problem,
    n: usize,
}

impl Queens {
    pub fn build(n: usize) -> Result<Queens, BuildError> {
        check_range("queens n", n, 1, MAX_N)?;
        let mut b = ProblemBuilder::new();
        let mut row = vec![0; n];
        let mut col = vec![0; n];
        for k in organ_pipe(n) {
            row[k] = b.primary(&format!("r{}", k + 1))?;
            col[k] = b.primary(&format!("c{}", k + 1))?;
        }
        let a: Vec<_> = (2..=2 * n)
            .map(|s| b.secondary(&format!("a{s}")))
            .collect::<Result<_, _>>()?;
        let d: Vec<_> = (1..2 * n)
            .map(|s| b.secondary(&format!("b{s}")))
            .collect::<Result<_, _>>()?;
        for r in 0..n {
            for c in 0..n {
                b.option(&[row[r], col[c], a[r + c], d[r + n - 1 - c]])?;
            }
        }
        Ok(Queens {
            problem: b.build()?,
            n,
        })
    }

    pub fn n(&self) -> usize {
        self.n
    }

    /// The option for a queen at 0-based (`row`, `col`).
    pub fn option_id(&self, row: usize, col: usize) -> OptionId {
        (row * self.n + col) as OptionId
    }

    /// The 0-based column of the queen in each row (`None` where a row has none).
    pub fn decode(&self, solution: &[OptionId]) -> Vec<Option<usize>> {
        let mut cols = vec![None; self.n];
        for &o in solution {
            let o = o as usize;
            if o < self.n * self.n {
                cols[o / self.n] = Some(o % self.n);
            }
        }
        cols
    }
}

/// `0..n` from the middle outwards: for n = 8, 4 3 5 2 6 1 7 0 (0-based).
fn organ_pipe(n: usize) -> Vec<usize> {
    let mid = n / 2;
    let mut order = vec![mid];
    for k in 1..=n {
        if k <= mid {
            order.push(mid - k);
        }
        if mid + k < n {
            order.push(mid + k);
        }
    }
    order.truncate(n);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let q = Queens::build(8).unwrap();
        assert_eq!(q.problem.num_options(), 64);
        assert_eq!(q.problem.num_primary(), 16);
        assert_eq!(q.problem.num_items(), 16 + 15 + 15);
        assert_eq!(q.problem.option_text(q.option_id(0, 7)), "r1 c8 a9 b1");
        assert_eq!(q.problem.option_text(q.option_id(7, 0)), "r8 c1 a9 b15");
        assert_eq!(q.problem.item_name(0), "r5");
    }

    #[test]
    fn organ_pipe_is_a_permutation() {
        assert_eq!(organ_pipe(8), [4, 3, 5, 2, 6, 1, 7, 0]);
        assert_eq!(organ_pipe(5), [2, 1, 3, 0, 4]);
        assert_eq!(organ_pipe(1), [0]);
        for n in 1..40 {
            let mut o = organ_pipe(n);
            o.sort_unstable();
            assert_eq!(o, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn bounds() {
        assert!(Queens::build(0).is_err());
        assert!(Queens::build(257).is_err());
        assert_eq!(Queens::build(1).unwrap().problem.num_options(), 1);
    }

    #[test]
    fn decode() {
        let q = Queens::build(4).unwrap();
        let sol = [
            q.option_id(0, 1),
            q.option_id(1, 3),
            q.option_id(2, 0),
            q.option_id(3, 2),
        ];
        assert_eq!(q.decode(&sol), [Some(1), Some(3), Some(0), Some(2)]);
    }
}
