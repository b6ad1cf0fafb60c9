//! A counting core specialised for n queens: bit masks of the columns and both diagonals, one
//! row at a time (the classic bitboard backtrack), for the completions of a prefix of queens.
//!
//! The prefix is a set of options of [`crate::problems::queens::Queens`] (option
//! `row * n + col` puts a queen on that square), in any rows: a unit of a job cut by the
//! Dancing Links partitioner places queens wherever the engine's item choice led. Each
//! prefix queen is folded into the masks once: its column into the column mask, its
//! diagonals into a per-row mask of the squares it attacks; its own row is then a row with one
//! candidate. The search fills the rows top to bottom; in the last row the count is the
//! number of free squares (no placement needed).
//!
//! Counts equal the Dancing Links engine's on the same prefixes (tested in `grids::tests`);
//! `nodes` counts the queens placed by the search (prefix queens and the last row's excluded),
//! not comparable with the engine's nodes.

use std::sync::atomic::{AtomicBool, Ordering};

use super::Completions;
use crate::xcc::OptionId;

/// Largest board this core counts (masks are `u32`).
pub const MAX_N: usize = 32;

/// How often (in placements) the search looks at its stop flag.
const STOP_CHECK: u64 = 1 << 20;

/// A prefix this core cannot count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueensError {
    #[error("queens {n}: this core counts boards of 1 to {MAX_N} squares a side")]
    Size { n: usize },
    #[error("option {option} is not a square of the {n}x{n} board")]
    Option { option: OptionId, n: usize },
    #[error("the queens on r{}c{} and r{}c{} attack each other", .a.0 + 1, .a.1 + 1, .b.0 + 1, .b.1 + 1)]
    Attack {
        a: (usize, usize),
        b: (usize, usize),
    },
}

/// The placements of `n` queens that extend `prefix`; `Ok(None)` when `stop` was set.
pub fn count_queens(
    n: usize,
    prefix: &[OptionId],
    stop: &AtomicBool,
) -> Result<Option<Completions>, QueensError> {
    if n == 0 || n > MAX_N {
        return Err(QueensError::Size { n });
    }
    let full: u32 = if n == 32 { u32::MAX } else { (1 << n) - 1 };
    let mut fixed: Vec<Option<usize>> = vec![None; n];
    let mut placed: Vec<(usize, usize)> = Vec::with_capacity(prefix.len());
    for &o in prefix {
        let o_us = o as usize;
        if o_us >= n * n {
            return Err(QueensError::Option { option: o, n });
        }
        let (r, c) = (o_us / n, o_us % n);
        if let Some(&q) = placed
            .iter()
            .find(|&&(pr, pc)| pr == r || pc == c || pr + pc == r + c || pr + c == r + pc)
        {
            return Err(QueensError::Attack { a: q, b: (r, c) });
        }
        placed.push((r, c));
        fixed[r] = Some(c);
    }
    // Per row: the squares the prefix attacks (columns and diagonals); a prefix row allows
    // only its own queen's square.
    let mut allowed = vec![full; n];
    for (row, allow) in allowed.iter_mut().enumerate() {
        for &(r, c) in &placed {
            if r == row {
                continue;
            }
            let d = row.abs_diff(r);
            let mut attacked = 1u32 << c;
            if c + d < n {
                attacked |= 1 << (c + d);
            }
            if c >= d {
                attacked |= 1 << (c - d);
            }
            *allow &= !attacked;
        }
        if let Some(c) = fixed[row] {
            *allow &= 1 << c;
        }
    }
    let mut search = Search {
        n,
        full,
        allowed,
        nodes: 0,
        stop,
        stopped: false,
    };
    let solutions = search.count(0, 0, 0, 0);
    if search.stopped {
        return Ok(None);
    }
    Ok(Some(Completions {
        solutions: u128::from(solutions),
        nodes: search.nodes,
    }))
}

struct Search<'a> {
    n: usize,
    full: u32,
    /// Per row: the squares the prefix leaves open.
    allowed: Vec<u32>,
    nodes: u64,
    stop: &'a AtomicBool,
    stopped: bool,
}

impl Search<'_> {
    /// Completions from `row` on, with the columns and diagonals the search's own queens hold
    /// (`left`: squares attacked along down-left diagonals in this row, `right` down-right).
    fn count(&mut self, row: usize, cols: u32, left: u32, right: u32) -> u64 {
        let free = self.allowed[row] & !(cols | left | right) & self.full;
        if row + 1 == self.n {
            return u64::from(free.count_ones());
        }
        if self.nodes & (STOP_CHECK - 1) == 0 && self.nodes > 0 && self.stop.load(Ordering::Relaxed)
        {
            self.stopped = true;
            return 0;
        }
        let mut total = 0;
        let mut rest = free;
        while rest != 0 {
            let bit = rest & rest.wrapping_neg();
            rest ^= bit;
            self.nodes += 1;
            total += self.count(row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1);
            if self.stopped {
                return 0;
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(n: usize, prefix: &[OptionId]) -> u128 {
        count_queens(n, prefix, &AtomicBool::new(false))
            .unwrap()
            .unwrap()
            .solutions
    }

    #[test]
    fn whole_boards_give_oeis_a000170() {
        // OEIS A000170: 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200.
        let want = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200];
        for (i, &w) in want.iter().enumerate() {
            assert_eq!(count(i + 1, &[]), w, "n = {}", i + 1);
        }
    }

    #[test]
    fn bad_prefixes_are_refused() {
        let stop = AtomicBool::new(false);
        assert_eq!(
            count_queens(33, &[], &stop).unwrap_err(),
            QueensError::Size { n: 33 }
        );
        assert_eq!(
            count_queens(4, &[16], &stop).unwrap_err(),
            QueensError::Option { option: 16, n: 4 }
        );
        // r1c1 and r2c2 share a diagonal.
        let e = count_queens(4, &[0, 5], &stop).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the queens on r1c1 and r2c2 attack each other"
        );
    }

    #[test]
    fn a_set_stop_flag_ends_the_count_without_a_result() {
        let stop = AtomicBool::new(true);
        assert_eq!(count_queens(14, &[], &stop).unwrap(), None);
    }
}
