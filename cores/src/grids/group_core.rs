//! A counting core for Sudoku grids with extra groups (any variant or `--group`): every
//! group's used digits as a bit mask, the empty cells filled in row-major order with the
//! candidates `!(union of the masks of the cell's groups)`, the last empty cell counted by
//! the number of its candidates (no placement needed).
//!
//! It is the general route (any groups, any givens); the plain grid has the faster
//! [`super::completion`] core. Counts equal the Dancing Links engine's on the same givens
//! (tested in `grids::tests` for every variant of 4x4 and 6x6 and on 9x9 units).

use std::sync::atomic::{AtomicBool, Ordering};

use super::groups::SudokuGroups;
use super::{CompletionError, Completions};

/// How often (in placements) the search looks at its stop flag.
const STOP_CHECK: u64 = 1 << 20;

/// A grid's groups as the search uses them.
#[derive(Clone, Debug)]
pub struct GroupGrid {
    side: usize,
    /// Per cell: the groups it belongs to (rows, columns, boxes first, then the extra ones).
    groups_of: Vec<Vec<u16>>,
    groups: usize,
}

impl GroupGrid {
    /// The rows, columns and boxes of `g`'s shape plus its extra groups.
    pub fn new(g: &SudokuGroups) -> Result<GroupGrid, CompletionError> {
        let side = super::completion::check_shape(g.box_rows, g.box_cols)?;
        let mut groups_of: Vec<Vec<u16>> = vec![Vec::new(); side * side];
        let mut k: u16 = 0;
        let mut add = |cells: &mut dyn Iterator<Item = usize>, k: &mut u16| {
            for c in cells {
                groups_of[c].push(*k);
            }
            *k += 1;
        };
        for r in 0..side {
            add(&mut (0..side).map(|c| r * side + c), &mut k);
        }
        for c in 0..side {
            add(&mut (0..side).map(|r| r * side + c), &mut k);
        }
        for b in 0..side {
            let (br, bc) = (b / g.box_rows * g.box_rows, b % g.box_rows * g.box_cols);
            add(
                &mut (0..g.box_rows)
                    .flat_map(|r| (0..g.box_cols).map(move |c| (br + r) * side + bc + c)),
                &mut k,
            );
        }
        for e in &g.extra {
            add(&mut e.iter().copied(), &mut k);
        }
        Ok(GroupGrid {
            side,
            groups_of,
            groups: usize::from(k),
        })
    }

    pub fn side(&self) -> usize {
        self.side
    }

    /// Every filling of the empty cells among `cells` that extends `givens` without breaking a
    /// group, in lexicographic order of `cells`' digits (givens already breaking a group give
    /// none).
    pub fn fillings(&self, givens: &[u8], cells: &[usize]) -> Vec<Vec<u8>> {
        let mut used = vec![0u32; self.groups];
        for (cell, &v) in givens.iter().enumerate() {
            if v == 0 {
                continue;
            }
            for &g in &self.groups_of[cell] {
                if used[usize::from(g)] & (1 << (v - 1)) != 0 {
                    return Vec::new();
                }
                used[usize::from(g)] |= 1 << (v - 1);
            }
        }
        let empty: Vec<usize> = cells.iter().copied().filter(|&c| givens[c] == 0).collect();
        let mut out = Vec::new();
        let mut grid = givens.to_vec();
        self.fill(&empty, 0, &mut used, &mut grid, &mut out);
        out
    }

    fn fill(
        &self,
        empty: &[usize],
        k: usize,
        used: &mut [u32],
        grid: &mut Vec<u8>,
        out: &mut Vec<Vec<u8>>,
    ) {
        let Some(&cell) = empty.get(k) else {
            out.push(grid.clone());
            return;
        };
        let mut taken = 0;
        for &g in &self.groups_of[cell] {
            taken |= used[usize::from(g)];
        }
        for d in 0..self.side {
            let bit = 1u32 << d;
            if taken & bit != 0 {
                continue;
            }
            for &g in &self.groups_of[cell] {
                used[usize::from(g)] |= bit;
            }
            grid[cell] = d as u8 + 1;
            self.fill(empty, k + 1, used, grid, out);
            grid[cell] = 0;
            for &g in &self.groups_of[cell] {
                used[usize::from(g)] &= !bit;
            }
        }
    }

    /// The completions of `givens` (cells row by row, 0 empty); `Ok(None)` when `stop` was
    /// set. Givens that break a group are an error naming the cell.
    pub fn count(
        &self,
        givens: &[u8],
        stop: &AtomicBool,
    ) -> Result<Option<Completions>, CompletionError> {
        let side = self.side;
        if givens.len() != side * side {
            return Err(CompletionError::Length {
                len: givens.len(),
                side,
            });
        }
        let mut used = vec![0u32; self.groups];
        let mut empty = Vec::new();
        for (cell, &v) in givens.iter().enumerate() {
            let (row, col) = (cell / side, cell % side);
            if v == 0 {
                empty.push(cell);
                continue;
            }
            if usize::from(v) > side {
                return Err(CompletionError::Value {
                    row: row + 1,
                    col: col + 1,
                    value: v,
                    side,
                });
            }
            let bit = 1u32 << (v - 1);
            for &g in &self.groups_of[cell] {
                if used[usize::from(g)] & bit != 0 {
                    return Err(CompletionError::Clash {
                        row: row + 1,
                        col: col + 1,
                        value: v,
                        group: "a group",
                    });
                }
                used[usize::from(g)] |= bit;
            }
        }
        let full: u32 = if side == 32 {
            u32::MAX
        } else {
            (1 << side) - 1
        };
        if empty.is_empty() {
            return Ok(Some(Completions {
                solutions: 1,
                nodes: 0,
            }));
        }
        let mut search = Search {
            grid: self,
            empty: &empty,
            used,
            full,
            nodes: 0,
            stop,
            stopped: false,
        };
        let solutions = search.count(0);
        if search.stopped {
            return Ok(None);
        }
        Ok(Some(Completions {
            solutions,
            nodes: search.nodes,
        }))
    }
}

struct Search<'a> {
    grid: &'a GroupGrid,
    empty: &'a [usize],
    used: Vec<u32>,
    full: u32,
    nodes: u64,
    stop: &'a AtomicBool,
    stopped: bool,
}

impl Search<'_> {
    fn candidates(&self, cell: usize) -> u32 {
        let mut taken = 0;
        for &g in &self.grid.groups_of[cell] {
            taken |= self.used[usize::from(g)];
        }
        self.full & !taken
    }

    fn count(&mut self, k: usize) -> u128 {
        let cell = self.empty[k];
        let free = self.candidates(cell);
        if k + 1 == self.empty.len() {
            return u128::from(free.count_ones());
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
            for &g in &self.grid.groups_of[cell] {
                self.used[usize::from(g)] |= bit;
            }
            total += self.count(k + 1);
            for &g in &self.grid.groups_of[cell] {
                self.used[usize::from(g)] &= !bit;
            }
            if self.stopped {
                return 0;
            }
        }
        total
    }
}
