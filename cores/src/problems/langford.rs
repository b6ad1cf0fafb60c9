//! Langford pairings L(2,n) as exact cover (TAOCP 7.2.2.1; seed 000 "Further results"): place
//! two copies of each number `k` in `1..=n` in a row of `2n` positions so that `k` numbers lie
//! between them. Primary items: the numbers `1..n` (named `1`, `2`, ...) and the positions
//! `s1..s2n`; the option for `k` at first position `i` covers `k`, `s<i>` and `s<i+k+1>`.
//!
//! Symmetry: reversing the row maps pairings to pairings. With `break_symmetry` the number
//! `k0 = n` if `n` is odd, else `n - 1` (the largest odd number; any odd number would do) keeps
//! only the placements whose first position `i` lies left of its mirror `2n - k0 - i`. For odd
//! `k0` no placement is its own mirror, so no pairing is its own reversal and exactly one of
//! each pair {pairing, reversal} survives: counts with it are half the full count (factor 2).
//! OEIS A014552 counts pairings up to reversal.

use super::{check_range, BuildError};
use crate::xcc::{OptionId, Problem, ProblemBuilder};

/// Largest n accepted (L(2,128) has about 33,000 options; counts that large are hopeless).
pub const MAX_N: usize = 128;

/// A built Langford problem.
#[derive(Debug, Clone)]
pub struct Langford {
    pub problem: Problem,
    /// (number, first position), both 1-based, of each option.
    placements: Vec<(usize, usize)>,
    n: usize,
    symmetry_factor: u128,
}

impl Langford {
    pub fn build(n: usize, break_symmetry: bool) -> Result<Langford, BuildError> {
        check_range("Langford n", n, 1, MAX_N)?;
        let mut b = ProblemBuilder::new();
        for k in 1..=n {
            b.primary(&k.to_string())?;
        }
        for i in 1..=2 * n {
            b.primary(&format!("s{i}"))?;
        }
        let k0 = if n % 2 == 1 { n } else { n - 1 };
        let pos = |i: usize| (n + i - 1) as u32;
        let mut placements = Vec::new();
        for k in 1..=n {
            for i in 1..(2 * n).saturating_sub(k) {
                if break_symmetry && k == k0 && i >= 2 * n - k - i {
                    continue;
                }
                b.option(&[(k - 1) as u32, pos(i), pos(i + k + 1)])?;
                placements.push((k, i));
            }
        }
        Ok(Langford {
            problem: b.build()?,
            placements,
            n,
            symmetry_factor: if break_symmetry { 2 } else { 1 },
        })
    }

    /// Multiply counts by this: 2 with the reversal symmetry broken, else 1.
    pub fn symmetry_factor(&self) -> u128 {
        self.symmetry_factor
    }

    /// The (number, first position) of an option, both 1-based.
    pub fn placement(&self, option: OptionId) -> Option<(usize, usize)> {
        self.placements.get(option as usize).copied()
    }

    /// The row of `2n` numbers of a solution (0 where no option fills a position).
    pub fn decode(&self, solution: &[OptionId]) -> Vec<usize> {
        let mut row = vec![0; 2 * self.n];
        for &(k, i) in solution
            .iter()
            .filter_map(|&o| self.placements.get(o as usize))
        {
            row[i - 1] = k;
            row[i + k] = k;
        }
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        // Number k has 2n - k - 1 placements: for n = 7, 12 + 11 + ... + 6 = 63.
        let l = Langford::build(7, false).unwrap();
        assert_eq!(l.problem.num_options(), 63);
        assert_eq!(l.problem.num_items(), 21);
        assert_eq!(l.problem.option_text(0), "1 s1 s3");
        // Breaking symmetry keeps placements 1..=3 of the 6 placements of 7.
        let b = Langford::build(7, true).unwrap();
        assert_eq!(b.problem.num_options(), 63 - 3);
        assert_eq!(b.symmetry_factor(), 2);
        // n = 8 breaks on 7: first positions 1..=4 of 8 (mirror of i is 9 - i).
        let b8 = Langford::build(8, true).unwrap();
        assert_eq!(
            Langford::build(8, false).unwrap().problem.num_options() - 4,
            b8.problem.num_options()
        );
    }

    #[test]
    fn decode() {
        // 2 3 1 2 1 3 is the L(2,3) pairing.
        let l = Langford::build(3, false).unwrap();
        let find = |k, i| {
            (0..l.problem.num_options() as u32)
                .find(|&o| l.placement(o) == Some((k, i)))
                .unwrap()
        };
        assert_eq!(
            l.decode(&[find(2, 1), find(3, 2), find(1, 3)]),
            [2, 3, 1, 2, 1, 3]
        );
    }

    #[test]
    fn bounds() {
        assert!(Langford::build(0, false).is_err());
        assert!(Langford::build(129, true).is_err());
        // n = 1: the number 1 has no placement; the problem is built and has no solution.
        assert_eq!(Langford::build(1, true).unwrap().problem.num_options(), 0);
    }
}
