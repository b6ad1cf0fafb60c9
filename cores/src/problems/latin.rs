//! Latin squares of order `n` as exact cover: one option per (cell, symbol) covering "cell
//! filled", "row has symbol", "column has symbol" (Sudoku without boxes, seed 000 section 2.3).
//!
//! Layout invariant: option `((row * n) + col) * n + (symbol - 1)` places `symbol` at
//! (`row`, `col`), 0-based. A reduced square fixes the first row and the first column to
//! `1..n` as a prefix of options. Permuting the columns (n! ways) and then the rows other than
//! the first ((n-1)! ways) of a reduced square gives every Latin square exactly once, so the
//! full count is `n! (n-1)!` times the reduced count (OEIS A002860 = n!(n-1)! A000315).

use super::{check_range, factorial, BuildError};
use crate::xcc::{OptionId, Problem, ProblemBuilder};

/// Largest order accepted: order 64 has 262,144 options.
pub const MAX_ORDER: usize = 64;

/// A built Latin-square problem.
#[derive(Debug, Clone)]
pub struct Latin {
    pub problem: Problem,
    /// The fixed first row and column when reduced, else empty.
    pub prefix: Vec<OptionId>,
    n: usize,
    symmetry_factor: u128,
}

impl Latin {
    pub fn build(n: usize, reduced: bool) -> Result<Latin, BuildError> {
        check_range("Latin square order n", n, 1, MAX_ORDER)?;
        let symmetry_factor = if reduced {
            factorial(n)
                .zip(factorial(n - 1))
                .and_then(|(a, b)| a.checked_mul(b))
                .ok_or_else(|| BuildError::FactorOverflow {
                    what: format!("{n}! * {}!", n - 1),
                })?
        } else {
            1
        };
        let mut b = ProblemBuilder::new();
        for r in 1..=n {
            for c in 1..=n {
                b.primary(&format!("r{r}c{c}"))?;
            }
        }
        for kind in ["r", "c"] {
            for line in 1..=n {
                for d in 1..=n {
                    b.primary(&format!("{kind}{line}#{d}"))?;
                }
            }
        }
        let nn = (n * n) as u32;
        for r in 0..n {
            for c in 0..n {
                for d in 0..n {
                    let cell = (r * n + c) as u32;
                    let row = nn + (r * n + d) as u32;
                    let col = 2 * nn + (c * n + d) as u32;
                    b.option(&[cell, row, col])?;
                }
            }
        }
        let mut latin = Latin {
            problem: b.build()?,
            prefix: Vec::new(),
            n,
            symmetry_factor,
        };
        if reduced {
            let first_row = (0..n).map(|c| latin.option_id(0, c, c + 1));
            let first_col = (1..n).map(|r| latin.option_id(r, 0, r + 1));
            latin.prefix = first_row.chain(first_col).collect();
        }
        Ok(latin)
    }

    pub fn order(&self) -> usize {
        self.n
    }

    /// Multiply counts by this: `n! (n-1)!` when reduced, else 1.
    pub fn symmetry_factor(&self) -> u128 {
        self.symmetry_factor
    }

    /// The option placing `symbol` (1-based) at 0-based (`row`, `col`).
    pub fn option_id(&self, row: usize, col: usize, symbol: usize) -> OptionId {
        ((row * self.n + col) * self.n + symbol - 1) as OptionId
    }

    /// The square of a solution, row by row (0 where no option fills a cell).
    pub fn decode(&self, solution: &[OptionId]) -> Vec<Vec<usize>> {
        let n = self.n;
        let mut square = vec![vec![0; n]; n];
        for &o in solution {
            let o = o as usize;
            if o < n * n * n {
                square[o / (n * n)][o / n % n] = o % n + 1;
            }
        }
        square
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let l = Latin::build(5, false).unwrap();
        assert_eq!(l.problem.num_options(), 125);
        assert_eq!(l.problem.num_items(), 75);
        assert!(l.prefix.is_empty());
        assert_eq!(l.symmetry_factor(), 1);
        assert_eq!(
            l.problem.option_text(l.option_id(1, 2, 3)),
            "r2c3 r2#3 c3#3"
        );
    }

    #[test]
    fn reduced_prefix_and_factor() {
        let l = Latin::build(4, true).unwrap();
        // First row 1 2 3 4, then column 1 going down 2 3 4: 7 options.
        assert_eq!(l.prefix.len(), 7);
        let square = l.decode(&l.prefix);
        assert_eq!(square[0], [1, 2, 3, 4]);
        assert_eq!(
            square.iter().map(|row| row[0]).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        assert_eq!(l.symmetry_factor(), 24 * 6);
        assert_eq!(Latin::build(1, true).unwrap().prefix.len(), 1);
    }

    #[test]
    fn bounds() {
        assert!(Latin::build(0, false).is_err());
        assert!(Latin::build(65, false).is_err());
        assert!(Latin::build(21, true).is_ok());
        assert!(matches!(
            Latin::build(22, true),
            Err(BuildError::FactorOverflow { .. })
        ));
    }
}
