//! A counting core for Sudoku grids with extra groups (any variant or `--group`): every
//! group's digits as a bit mask, a cell's candidates `!(union of its groups' masks)`.
//!
//! Two routes, both exact for any groups and givens, and a third for one shape:
//! - direct ([`GroupGrid::count_direct`]): every band but the last filled cell by cell in
//!   row-major order, the last band counted from its column sets as [`super::completion`]
//!   counts it, with the extra groups checked (`LastBand`: the rows above its last two chosen
//!   column by column, the last two as orientations of the cycles of the column sets, each
//!   cycle checked against the groups of its cells);
//! - the join ([`GroupGrid::count`] when [`GroupGrid::join_applies`]: at least three bands,
//!   all but two given, every extra group of `side` cells): the fillings of one open band
//!   keyed by the digits they put in each group that crosses into the other, the fillings of
//!   the other matched against those keys. Its cost is the two bands' fillings, not their
//!   product; when the lower band is the upper moved down (SudokuP, the plain grid), one
//!   band's keys are matched against themselves. Crossing groups that the others imply are
//!   left out of the key. Keys are sums of per-(cell, digit) terms in `u64` or `u128` (`KeySums`; each
//!   band's rows above its last filled cell by cell, its last row box by box, since there the
//!   boxes no longer constrain each other); a pair whose key would need more than 128 bits
//!   is counted by the direct route. A 9x9
//!   X-Sudoku unit with its middle band given (about 1.9 million fillings on each side)
//!   takes about 0.55 s (`cargo bench -p cores --bench variants`);
//! - such units, the 9x9 X-Sudoku with exactly its middle band given
//!   ([`GroupGrid::x_band_applies`]), go first to [`super::x_band`], which counts them from
//!   box configurations without filling a band (about 1.5 ms a unit).
//!
//! The plain grid has the faster [`super::completion`] core. Counts equal the Dancing Links
//! engine's on the same givens (tested in `grids::tests` for every variant of 4x4 and 6x6 and
//! on 9x9 units, both routes; in this module's tests on random extra groups and on units of
//! 9x9 X-Sudoku with disjoint groups, every [`Route`]: the join in `u64` and in `u128`, the
//! direct route past 128 key bits and where the join does not apply).

use std::sync::atomic::{AtomicBool, Ordering};

use super::groups::SudokuGroups;
use super::CompletionError;
use crate::count_core::Completions;

/// How often (in placements) the search looks at its stop flag.
const STOP_CHECK: u64 = 1 << 20;

/// A grid's groups as the search uses them.
#[derive(Clone, Debug)]
pub struct GroupGrid {
    side: usize,
    box_rows: usize,
    box_cols: usize,
    /// Per cell: the groups it belongs to, its row, column and box first, then the extra ones.
    groups_of: Vec<Vec<u16>>,
    /// Per group: its cells (rows, columns, boxes, then the extra groups).
    cells_of: Vec<Vec<usize>>,
    groups: usize,
}

impl GroupGrid {
    /// The rows, columns and boxes of `g`'s shape plus its extra groups.
    pub fn new(g: &SudokuGroups) -> Result<GroupGrid, CompletionError> {
        let side = super::completion::check_shape(g.box_rows, g.box_cols)?;
        let mut groups_of: Vec<Vec<u16>> = vec![Vec::new(); side * side];
        let mut cells_of: Vec<Vec<usize>> = Vec::new();
        let mut k: u16 = 0;
        let mut add = |cells: &mut dyn Iterator<Item = usize>, k: &mut u16| {
            let mut these = Vec::new();
            for c in cells {
                groups_of[c].push(*k);
                these.push(c);
            }
            cells_of.push(these);
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
            box_rows: g.box_rows,
            box_cols: g.box_cols,
            groups_of,
            cells_of,
            groups: usize::from(k),
        })
    }

    pub fn side(&self) -> usize {
        self.side
    }

    /// The cells of every group: rows, columns, boxes, then the extra groups.
    pub fn group_cells(&self) -> &[Vec<usize>] {
        &self.cells_of
    }

    /// Every filling of the empty cells among `cells` that extends `givens` without breaking a
    /// group, in lexicographic order of `cells`' digits (givens already breaking a group give
    /// none).
    pub fn fillings(&self, givens: &[u8], cells: &[usize]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        self.for_each_filling(givens, cells, &mut |g| out.push(g.to_vec()));
        out
    }

    /// Calls `visit` with the whole grid for every filling [`Self::fillings`] lists, in the
    /// same order, without keeping them.
    pub fn for_each_filling(&self, givens: &[u8], cells: &[usize], visit: &mut dyn FnMut(&[u8])) {
        let mut used = vec![0u32; self.groups];
        for (cell, &v) in givens.iter().enumerate() {
            if v == 0 {
                continue;
            }
            for &g in &self.groups_of[cell] {
                if used[usize::from(g)] & (1 << (v - 1)) != 0 {
                    return;
                }
                used[usize::from(g)] |= 1 << (v - 1);
            }
        }
        let empty: Vec<usize> = cells.iter().copied().filter(|&c| givens[c] == 0).collect();
        let mut grid = givens.to_vec();
        self.fill(&empty, 0, &mut used, &mut grid, visit);
    }

    fn fill(
        &self,
        empty: &[usize],
        k: usize,
        used: &mut [u32],
        grid: &mut Vec<u8>,
        visit: &mut dyn FnMut(&[u8]),
    ) {
        let Some(&cell) = empty.get(k) else {
            visit(grid);
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
            self.fill(empty, k + 1, used, grid, visit);
            grid[cell] = 0;
            for &g in &self.groups_of[cell] {
                used[usize::from(g)] &= !bit;
            }
        }
    }

    /// The completions of `givens` (cells row by row, 0 empty); `Ok(None)` when `stop` was
    /// set. Givens that break a group are an error naming the cell.
    ///
    /// Counts by [`super::x_band`] when [`Self::x_band_applies`], else by the join of two
    /// bands when [`Self::join_applies`], else by [`Self::count_direct`]'s route.
    pub fn count(
        &self,
        givens: &[u8],
        stop: &AtomicBool,
    ) -> Result<Option<Completions>, CompletionError> {
        Ok(self.count_by(givens, stop, Route::XBand)?.0)
    }

    /// [`Self::count`] without the X-Sudoku middle-band route: the join where it applies,
    /// else the direct route (for comparing the routes).
    pub fn count_joined(
        &self,
        givens: &[u8],
        stop: &AtomicBool,
    ) -> Result<Option<Completions>, CompletionError> {
        Ok(self.count_by(givens, stop, Route::Join64)?.0)
    }

    /// Whether [`Self::count`] counts `givens` by [`super::x_band`]: the grid is the 9x9
    /// X-Sudoku (3x3 boxes, its extra groups exactly the two main diagonals) and `givens` are
    /// its middle band in full, every other cell empty. Any other groups or givens go to
    /// the join or the direct route.
    pub fn x_band_applies(&self, givens: &[u8]) -> bool {
        if (self.box_rows, self.box_cols) != (3, 3) || givens.len() != 81 {
            return false;
        }
        let main: Vec<usize> = (0..9).map(|r| r * 9 + r).collect();
        let anti: Vec<usize> = (0..9).map(|r| r * 9 + 8 - r).collect();
        let mut extra: Vec<&Vec<usize>> = self.cells_of[27..].iter().collect();
        extra.sort();
        extra == [&main, &anti]
            && givens
                .iter()
                .enumerate()
                .all(|(cell, &v)| (v != 0) == (27..54).contains(&cell))
    }

    /// [`Self::count`] by the first route, from `from` on in [`Route`]'s order, that can count
    /// `givens`, and that route: `Route::XBand` is `count`'s choice; a later one forces the
    /// join on an X-Sudoku middle band, `u128` keys on a join whose keys fit a `u64`, or the
    /// direct route on a join.
    fn count_by(
        &self,
        givens: &[u8],
        stop: &AtomicBool,
        from: Route,
    ) -> Result<(Option<Completions>, Route), CompletionError> {
        let mut search = self.search(givens, stop)?;
        if from <= Route::XBand && self.x_band_applies(givens) {
            let counted = super::x_band::count_middle_band(&givens[27..54], stop)?;
            return Ok((counted, Route::XBand));
        }
        let plan = self.join_plan(givens);
        let joined = plan.as_ref().and_then(|plan| {
            if from <= Route::Join64 {
                if let Some(sums) = KeySums::<u64>::new(self, &plan.keys) {
                    return Some((search.join_summed(plan, &sums), Route::Join64));
                }
            }
            if from <= Route::Join128 {
                if let Some(sums) = KeySums::<u128>::new(self, &plan.keys) {
                    return Some((search.join_summed(plan, &sums), Route::Join128));
                }
            }
            None
        });
        let (solutions, route) = match (joined, plan) {
            (Some(counted), _) => counted,
            (None, Some(_)) => (search.direct(), Route::LongKey),
            (None, None) => (search.direct(), Route::Direct),
        };
        Ok((search.finish(solutions), route))
    }

    /// The completions of `givens` by filling every band but the last cell by cell and
    /// counting the last band from its column sets (never by the join).
    pub fn count_direct(
        &self,
        givens: &[u8],
        stop: &AtomicBool,
    ) -> Result<Option<Completions>, CompletionError> {
        let mut search = self.search(givens, stop)?;
        let solutions = search.direct();
        Ok(search.finish(solutions))
    }

    /// Whether the join of two bands can count `givens` ([`Self::count`] takes it unless
    /// [`Self::x_band_applies`], [`Self::count_joined`] always): at least three
    /// bands, all of them but two given in full, every extra group of `side` cells (each digit
    /// exactly once), and the key of the groups that cross the two bands at most 128 bits.
    pub fn join_applies(&self, givens: &[u8]) -> bool {
        givens.len() == self.side * self.side
            && self.join_plan(givens).is_some_and(|p| p.bits() <= 128)
    }

    fn search<'a>(
        &'a self,
        givens: &[u8],
        stop: &'a AtomicBool,
    ) -> Result<Search<'a>, CompletionError> {
        let side = self.side;
        if givens.len() != side * side {
            return Err(CompletionError::Length {
                len: givens.len(),
                side,
            });
        }
        let mut used = vec![0u32; self.groups];
        for (cell, &v) in givens.iter().enumerate() {
            let (row, col) = (cell / side, cell % side);
            if v == 0 {
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
        let cells = givens
            .iter()
            .map(|&v| if v == 0 { 0 } else { 1u32 << (v - 1) })
            .collect();
        Ok(Search {
            grid: self,
            givens: givens.to_vec(),
            cells,
            used,
            full,
            nodes: 0,
            stop,
            stopped: false,
        })
    }

    /// The groups a cell belongs to beyond its row, column and box.
    fn extra_of(&self, cell: usize) -> &[u16] {
        &self.groups_of[cell][3..]
    }

    fn bands(&self) -> usize {
        self.side / self.box_rows
    }

    /// The join's shape on `givens`, if it applies: the crossing groups it keys on, the key's
    /// bits (more than 128: the direct route counts), and whether the lower band is the
    /// upper's mirror image.
    #[cfg(test)]
    pub(super) fn join_shape(&self, givens: &[u8]) -> Option<(Vec<usize>, usize, bool)> {
        self.join_plan(givens).map(|p| {
            (
                p.keys.iter().map(|k| k.group).collect(),
                p.bits(),
                p.mirrored,
            )
        })
    }

    /// How the join would count `givens`, if its shape applies: at least three bands, two of
    /// them open, every group of `side` cells. Its key may still be too long for [`KeySums`]
    /// (more than 128 bits), and then [`Self::count`] counts by the direct route.
    fn join_plan(&self, givens: &[u8]) -> Option<JoinPlan> {
        let (side, box_rows) = (self.side, self.box_rows);
        let bands = self.bands();
        if bands < 3 || self.cells_of.iter().any(|g| g.len() != side) {
            return None;
        }
        let band_of = |cell: usize| cell / side / box_rows;
        // The bands with an empty cell: the join needs exactly two.
        let mut open = (0..bands)
            .filter(|&b| givens[b * box_rows * side..(b + 1) * box_rows * side].contains(&0));
        let (Some(a), Some(b), None) = (open.next(), open.next(), open.next()) else {
            return None;
        };
        // Digits of each group given outside the two bands.
        let mut outside = vec![0u32; self.groups];
        for (cell, &v) in givens.iter().enumerate() {
            if v != 0 && band_of(cell) != a && band_of(cell) != b {
                for &g in &self.groups_of[cell] {
                    outside[usize::from(g)] |= 1 << (v - 1);
                }
            }
        }
        let full = if side == 32 {
            u32::MAX
        } else {
            (1u32 << side) - 1
        };
        let mut keys = Vec::new();
        for (g, cells) in self.cells_of.iter().enumerate() {
            let in_band = |band: usize| -> Vec<usize> {
                cells
                    .iter()
                    .copied()
                    .filter(|&c| band_of(c) == band)
                    .collect()
            };
            let (upper, lower) = (in_band(a), in_band(b));
            if !upper.is_empty() && !lower.is_empty() {
                keys.push(KeyGroup {
                    group: g,
                    lack: full & !outside[g],
                    upper,
                    lower,
                });
            }
        }
        let crossing: Vec<usize> = keys.iter().map(|k| k.group).collect();
        let implied = self.implied_groups(&crossing);
        keys.retain(|k| !implied.contains(&k.group));
        let cells = |band: usize| -> Vec<usize> {
            (band * box_rows * side..(band + 1) * box_rows * side)
                .filter(|&c| givens[c] == 0)
                .collect()
        };
        let mirrored = self.mirrored(givens, a, b);
        Some(JoinPlan {
            bands: [a, b],
            upper: cells(a),
            lower: cells(b),
            keys,
            mirrored,
        })
    }

    /// The groups among `crossing` (those crossing both open bands) that the key can leave
    /// out: a group whose cells' indicator is a rational combination of the other groups'
    /// (every group not crossing, which two valid bands already fill with each digit once,
    /// and the crossing groups kept) holds each digit once when those do. For a digit, the
    /// count of its cells in the group is the same combination of the counts in the others,
    /// each 1, so it is the sum of the coefficients, which is 1 (all groups have `side` cells:
    /// spread `1/side` of the digit over every cell). The last column of each stack goes this
    /// way (the stack's boxes less its other columns), and so do five of SudokuP's nine
    /// disjoint groups with the middle band given. Tried from the last crossing group back;
    /// exact arithmetic, and on overflow nothing is left out.
    fn implied_groups(&self, crossing: &[usize]) -> Vec<usize> {
        let cells = self.side * self.side;
        let indicator = |g: usize| -> Vec<i64> {
            let mut v = vec![0i64; cells];
            for &c in &self.cells_of[g] {
                v[c] = 1;
            }
            v
        };
        let base: Vec<Vec<i64>> = (0..self.groups)
            .filter(|g| !crossing.contains(g))
            .map(indicator)
            .collect();
        let mut kept: Vec<usize> = crossing.to_vec();
        let rank_with = |kept: &[usize]| -> Option<usize> {
            let mut rows = base.clone();
            rows.extend(kept.iter().map(|&g| indicator(g)));
            rational_rank(rows)
        };
        let Some(full_rank) = rank_with(&kept) else {
            return Vec::new();
        };
        let mut implied = Vec::new();
        for &g in crossing.iter().rev() {
            let rest: Vec<usize> = kept.iter().copied().filter(|&k| k != g).collect();
            if rank_with(&rest) == Some(full_rank) {
                kept = rest;
                implied.push(g);
            }
        }
        implied
    }

    /// Whether the lower open band's fillings are exactly the upper one's moved down (each
    /// cell to the same row of its band and the same column), with the same key: then the
    /// join needs the upper band's keys alone. Holds when moving the upper band down keeps its
    /// givens and maps the cells of every group in the upper band onto the cells of a group in
    /// the lower band that must avoid the same given digits (the same group when it crosses
    /// both bands, so that the key is the same), one to one. Disjoint groups and the plain
    /// grid have it; the diagonals do not (they cross the bands at mirrored columns).
    fn mirrored(&self, givens: &[u8], a: usize, b: usize) -> bool {
        let height = self.box_rows * self.side;
        let shift = (b - a) * height;
        let band_of = |cell: usize| cell / height;
        if (a * height..(a + 1) * height).any(|c| givens[c] != givens[c + shift]) {
            return false;
        }
        // Per group: its cells in the upper band moved down, its cells in the lower band,
        // and the digits given in it outside each.
        let mut upper = Vec::new();
        let mut lower = Vec::new();
        for cells in &self.cells_of {
            let avoid = |band: usize| {
                cells
                    .iter()
                    .filter(|&&c| band_of(c) != band && givens[c] != 0)
                    .fold(0u32, |m, &c| m | 1 << (givens[c] - 1))
            };
            let moved: Vec<usize> = cells
                .iter()
                .filter(|&&c| band_of(c) == a)
                .map(|&c| c + shift)
                .collect();
            let below: Vec<usize> = cells.iter().copied().filter(|&c| band_of(c) == b).collect();
            let crossing = !moved.is_empty() && !below.is_empty();
            if crossing && moved != below {
                return false;
            }
            if !moved.is_empty() && !crossing {
                upper.push((moved, avoid(a)));
            }
            if !below.is_empty() && !crossing {
                lower.push((below, avoid(b)));
            }
            if crossing && avoid(a) != avoid(b) {
                return false;
            }
        }
        upper.sort_unstable();
        lower.sort_unstable();
        upper == lower
    }
}

/// How [`GroupGrid::count`] counted some givens, in the order it tries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Route {
    /// The 9x9 X-Sudoku with its middle band given ([`GroupGrid::x_band_applies`]): counted
    /// from box configurations by [`super::x_band`], no band filled.
    XBand,
    /// The join ([`JoinPlan`]), its keys in `u64` (at most 64 bits).
    Join64,
    /// The join, its keys in `u128` (65 to 128 bits: a 9x9 X-Sudoku with disjoint groups
    /// and its middle band given needs 72).
    Join128,
    /// The join's shape but a key of more than 128 bits (or this route asked for): the
    /// direct route.
    LongKey,
    /// The direct route: the join's shape does not apply.
    Direct,
}

/// The join of the two bands that are not given: every filling of the upper one is reduced
/// to a key (for every group crossing the two bands, the digits the upper band puts in it),
/// counted by key; every filling of the lower one has exactly one key it fits (the digits its
/// groups still need from the upper band), and the completions are the sum of those counts.
/// A filling of the two bands is a completion exactly when each band is valid with the
/// givens on its own and every crossing group gets each digit once, which is what equal keys
/// say (each crossing group has `side` cells).
struct JoinPlan {
    /// The two open bands.
    bands: [usize; 2],
    /// The empty cells of the upper and of the lower band.
    upper: Vec<usize>,
    lower: Vec<usize>,
    /// The groups crossing the two bands.
    keys: Vec<KeyGroup>,
    /// The lower band's fillings are the upper's moved down, keys and all
    /// ([`GroupGrid::mirrored`]).
    mirrored: bool,
}

impl JoinPlan {
    /// The key's bits: one per digit a kept crossing group lacks.
    fn bits(&self) -> usize {
        self.keys.iter().map(|k| k.lack.count_ones() as usize).sum()
    }
}

/// A group crossing the two open bands.
struct KeyGroup {
    /// Its index among the grid's groups.
    group: usize,
    /// The digits it lacks outside both bands.
    lack: u32,
    /// Its cells in the upper and in the lower band.
    upper: Vec<usize>,
    lower: Vec<usize>,
}

struct Search<'a> {
    grid: &'a GroupGrid,
    givens: Vec<u8>,
    /// Per cell: its digit as a bit (0: empty).
    cells: Vec<u32>,
    /// Per group: the digits it holds.
    used: Vec<u32>,
    full: u32,
    nodes: u64,
    stop: &'a AtomicBool,
    stopped: bool,
}

impl Search<'_> {
    fn finish(self, solutions: u128) -> Option<Completions> {
        (!self.stopped).then_some(Completions {
            solutions,
            nodes: self.nodes,
        })
    }

    /// Fills `cells` in order, each with every digit its groups allow, and calls `leaf` with
    /// the groups' digits and the cells' digits (as bits) at every filling. Iterative: the
    /// inner loop of both routes.
    fn enumerate<F: FnMut(&[u32], &[u32])>(&mut self, cells: &[usize], mut leaf: F) {
        let grid = self.grid;
        let n = cells.len();
        if n == 0 {
            leaf(&self.used, &self.cells);
            return;
        }
        let groups: Vec<&[u16]> = cells.iter().map(|&c| &grid.groups_of[c][..]).collect();
        let free = |used: &[u32], gs: &[u16]| {
            let mut taken = 0;
            for &g in gs {
                taken |= used[usize::from(g)];
            }
            self.full & !taken
        };
        let mut cand = vec![0u32; n];
        cand[0] = free(&self.used, groups[0]);
        let mut k = 0;
        loop {
            let c = cand[k];
            if c == 0 {
                if k == 0 {
                    return;
                }
                k -= 1;
                let bit = std::mem::take(&mut self.cells[cells[k]]);
                for &g in groups[k] {
                    self.used[usize::from(g)] ^= bit;
                }
                continue;
            }
            let bit = c & c.wrapping_neg();
            cand[k] = c ^ bit;
            self.nodes += 1;
            if self.nodes & (STOP_CHECK - 1) == 0 && self.stop.load(Ordering::Relaxed) {
                self.stopped = true;
                return;
            }
            for &g in groups[k] {
                self.used[usize::from(g)] |= bit;
            }
            self.cells[cells[k]] = bit;
            if k + 1 == n {
                leaf(&self.used, &self.cells);
                self.cells[cells[k]] = 0;
                for &g in groups[k] {
                    self.used[usize::from(g)] ^= bit;
                }
                continue;
            }
            k += 1;
            cand[k] = free(&self.used, groups[k]);
        }
    }

    /// Every band but the last cell by cell, the last band from its column sets.
    fn direct(&mut self) -> u128 {
        let grid = self.grid;
        let side = grid.side;
        if grid.bands() < 2 {
            let cells: Vec<usize> = (0..side * side).filter(|&c| self.givens[c] == 0).collect();
            let mut total = 0u128;
            self.enumerate(&cells, |_, _| total += 1);
            return total;
        }
        let last = side - grid.box_rows;
        let upper: Vec<usize> = (0..last * side).filter(|&c| self.givens[c] == 0).collect();
        let mut band = LastBand::new(grid, &self.givens);
        let mut total = 0u128;
        let mut leaves = 0u64;
        self.enumerate(&upper, |used, _| {
            leaves += 1;
            total += band.count(used);
        });
        self.nodes += leaves;
        total
    }

    /// The join of the two open bands (see [`JoinPlan`]) by [`KeySums`]: each band's keys as
    /// sums, its last row placed box by box.
    fn join_summed<K: SumKey>(&mut self, plan: &JoinPlan, sums: &KeySums<K>) -> u128 {
        let mut upper = self.band_sums(plan.bands[0], &plan.upper, sums);
        if self.stopped || upper.is_empty() {
            return 0;
        }
        let bits = K::BITS - sums.lack.leading_zeros();
        if plan.mirrored {
            radix_sort(&mut upper, bits);
            return self_matches(&upper, sums.lack);
        }
        let mut lower = self.band_sums(plan.bands[1], &plan.lower, sums);
        if self.stopped {
            return 0;
        }
        // A lower filling fits the upper fillings that put in each group what it leaves.
        for k in lower.iter_mut() {
            *k = sums.lack - *k;
        }
        radix_sort(&mut upper, bits);
        radix_sort(&mut lower, bits);
        matches(&upper, &lower)
    }

    /// The key sums of every filling of `band` (its empty cells `cells`): the rows above its
    /// last filled cell by cell, then its last row box by box. Once the other rows are full,
    /// each box's last row must take the digits the box lacks, and the boxes do not constrain
    /// each other there (the row takes every digit once whatever they do; a group's cells in
    /// that row are in one row), so the fillings are every choice of one arrangement per box.
    fn band_sums<K: SumKey>(&mut self, band: usize, cells: &[usize], sums: &KeySums<K>) -> Vec<K> {
        let grid = self.grid;
        let (side, box_rows, box_cols) = (grid.side, grid.box_rows, grid.box_cols);
        let last = (band + 1) * box_rows - 1;
        let digit = |bit: u32| bit.trailing_zeros() as usize;
        let mut base = K::default();
        for cell in band * box_rows * side..(last + 1) * side {
            let v = self.givens[cell];
            if v != 0 {
                base = base + sums.add[cell * side + usize::from(v) - 1];
            }
        }
        let mut out: Vec<K> = Vec::with_capacity(1 << 22);
        if box_rows == 1 {
            self.enumerate(cells, |_, placed| {
                let mut k = base;
                for &c in cells {
                    k = k + sums.add[c * side + digit(placed[c])];
                }
                out.push(k);
            });
            return out;
        }
        let head: Vec<usize> = cells.iter().copied().filter(|&c| c / side < last).collect();
        // Per box: its empty cells in the last row.
        let tails: Vec<Vec<usize>> = (0..side / box_cols)
            .map(|s| {
                (s * box_cols..(s + 1) * box_cols)
                    .map(|c| last * side + c)
                    .filter(|&c| self.givens[c] == 0)
                    .collect()
            })
            .collect();
        let boxes: Vec<usize> = (0..side / box_cols)
            .map(|s| usize::from(grid.groups_of[last * side + s * box_cols][2]))
            .collect();
        let mut lists: Vec<Vec<K>> = vec![Vec::new(); tails.len()];
        let mut extra_nodes = 0u64;
        let full = self.full;
        self.enumerate(&head, |used, placed| {
            let mut k = base;
            for &c in &head {
                k = k + sums.add[c * side + digit(placed[c])];
            }
            for (s, tail) in tails.iter().enumerate() {
                let lacking = full & !used[boxes[s]];
                arrangements(grid, used, tail, lacking, &sums.add, &mut lists[s]);
                extra_nodes += lists[s].len() as u64;
                if lists[s].is_empty() {
                    return;
                }
            }
            // Every choice of one arrangement per box.
            let start = out.len();
            out.push(k);
            for list in &lists {
                let len = out.len() - start;
                for &add in &list[1..] {
                    for i in 0..len {
                        let v = out[start + i] + add;
                        out.push(v);
                    }
                }
                for v in &mut out[start..start + len] {
                    *v = *v + list[0];
                }
            }
        });
        self.nodes += extra_nodes;
        out
    }
}

/// The join's keys as sums (the fast route): per group crossing the two bands, one bit per
/// digit it lacks outside them, at an offset of its own; placing a digit in a cell adds the
/// digit's bit of every such group of the cell. A band's key is the sum over its cells (a
/// group's digits are distinct, so no two terms share a bit), the upper band's is the digits
/// it puts in each group, and a lower filling fits exactly the upper key `lack - its key`.
/// The crossing groups the others imply are left out ([`GroupGrid::implied_groups`]: the
/// last column of every stack, among others). Exists when the bits fit in the key type (`u64`, then `u128`).
struct KeySums<K> {
    /// Per `cell * side + digit index`: what placing the digit there adds.
    add: Vec<K>,
    /// Every kept group's lacking digits: the sum of a complete band pair.
    lack: K,
}

/// The integers a [`KeySums`] key can be: `u64`, or `u128` when 64 bits are too few.
trait SumKey:
    Copy + Ord + Default + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self>
{
    const BITS: u32;
    fn bit(pos: u32) -> Self;
    fn or(self, other: Self) -> Self;
    fn leading_zeros(self) -> u32;
    /// Bits `shift..shift + 16`.
    fn digit(self, shift: u32) -> usize;
}

impl SumKey for u64 {
    const BITS: u32 = 64;
    fn bit(pos: u32) -> u64 {
        1 << pos
    }
    fn or(self, other: u64) -> u64 {
        self | other
    }
    fn leading_zeros(self) -> u32 {
        u64::leading_zeros(self)
    }
    fn digit(self, shift: u32) -> usize {
        ((self >> shift) & 0xFFFF) as usize
    }
}

impl SumKey for u128 {
    const BITS: u32 = 128;
    fn bit(pos: u32) -> u128 {
        1 << pos
    }
    fn or(self, other: u128) -> u128 {
        self | other
    }
    fn leading_zeros(self) -> u32 {
        u128::leading_zeros(self)
    }
    fn digit(self, shift: u32) -> usize {
        ((self >> shift) & 0xFFFF) as usize
    }
}

impl<K: SumKey> KeySums<K> {
    fn new(grid: &GroupGrid, keys: &[KeyGroup]) -> Option<KeySums<K>> {
        let side = grid.side;
        let mut add = vec![K::default(); side * side * side];
        let mut lack = K::default();
        let mut offset = 0u32;
        for k in keys {
            let width = k.lack.count_ones();
            if offset + width > K::BITS {
                return None;
            }
            let mut pos = offset;
            for d in 0..side {
                if k.lack & (1 << d) == 0 {
                    continue;
                }
                let bit = K::bit(pos);
                lack = lack.or(bit);
                for &c in k.upper.iter().chain(&k.lower) {
                    add[c * side + d] = add[c * side + d].or(bit);
                }
                pos += 1;
            }
            offset += width;
        }
        Some(KeySums { add, lack })
    }
}

/// Every placement of the digits `lacking` in `cells` (one each) that the groups allow, each
/// as the sum of its cells' key terms, appended to `out` (cleared first).
fn arrangements<K: SumKey>(
    grid: &GroupGrid,
    used: &[u32],
    cells: &[usize],
    lacking: u32,
    add: &[K],
    out: &mut Vec<K>,
) {
    out.clear();
    let side = grid.side;
    // Per cell: the digits it may take, and its key terms by digit.
    let mut cand = [0u32; 32];
    for (k, &cell) in cells.iter().enumerate() {
        let mut taken = 0;
        for &g in &grid.groups_of[cell] {
            taken |= used[usize::from(g)];
        }
        cand[k] = lacking & !taken;
        if cand[k] == 0 {
            return;
        }
    }
    // Per cell: the offset of its key terms in `add`.
    let mut rows = [0usize; 32];
    for (k, &cell) in cells.iter().enumerate() {
        rows[k] = cell * side;
    }
    let cand = &cand[..cells.len()];
    let rows = &rows[..cells.len()];
    fn go<K: SumKey>(
        k: usize,
        cand: &[u32],
        rows: &[usize],
        left: u32,
        sum: K,
        add: &[K],
        out: &mut Vec<K>,
    ) {
        if k == cand.len() {
            out.push(sum);
            return;
        }
        let mut c = cand[k] & left;
        while c != 0 {
            let bit = c & c.wrapping_neg();
            c ^= bit;
            let d = bit.trailing_zeros() as usize;
            go(
                k + 1,
                cand,
                rows,
                left ^ bit,
                sum + add[rows[k] + d],
                add,
                out,
            );
        }
    }
    go(0, cand, rows, lacking, K::default(), add, out);
}

/// The rank over the rationals of integer `rows`, by fraction-free elimination (each row
/// divided by the gcd of its entries); `None` if an entry would overflow.
fn rational_rank(mut rows: Vec<Vec<i64>>) -> Option<usize> {
    let width = rows.first().map_or(0, Vec::len);
    let mut rank = 0;
    for col in 0..width {
        let Some(p) = (rank..rows.len()).find(|&r| rows[r][col] != 0) else {
            continue;
        };
        rows.swap(rank, p);
        let pivot = rows[rank].clone();
        for row in rows.iter_mut().skip(rank + 1) {
            let b = row[col];
            if b == 0 {
                continue;
            }
            let a = pivot[col];
            let mut g = 0i64;
            for (x, &y) in row.iter_mut().zip(&pivot) {
                *x = x.checked_mul(a)?.checked_sub(y.checked_mul(b)?)?;
                g = gcd(g, *x);
            }
            if g > 1 {
                for x in row.iter_mut() {
                    *x /= g;
                }
            }
        }
        rank += 1;
    }
    Some(rank)
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// How many pairs of equal keys two sorted lists hold.
fn matches<K: SumKey>(upper: &[K], lower: &[K]) -> u128 {
    let (mut i, mut j, mut total) = (0, 0, 0u128);
    while i < upper.len() && j < lower.len() {
        let (a, b) = (upper[i], lower[j]);
        if a < b {
            i += 1;
        } else if b < a {
            j += 1;
        } else {
            let i0 = i;
            while i < upper.len() && upper[i] == a {
                i += 1;
            }
            let j0 = j;
            while j < lower.len() && lower[j] == a {
                j += 1;
            }
            total += ((i - i0) as u128) * ((j - j0) as u128);
        }
    }
    total
}

/// How many pairs of keys of one sorted list sum to `lack`: the join of a band with its
/// mirror image, whose keys are the same list ([`matches()`] of `keys` against `lack - keys`).
fn self_matches<K: SumKey>(keys: &[K], lack: K) -> u128 {
    let n = keys.len();
    // `i` walks up the keys, `j` down them, so `lack - keys[j - 1]` goes up.
    let (mut i, mut j, mut total) = (0, n, 0u128);
    while i < n && j > 0 {
        let (a, b) = (keys[i], lack - keys[j - 1]);
        if a < b {
            i += 1;
        } else if b < a {
            j -= 1;
        } else {
            let i0 = i;
            while i < n && keys[i] == a {
                i += 1;
            }
            let j0 = j;
            while j > 0 && lack - keys[j - 1] == a {
                j -= 1;
            }
            total += ((i - i0) as u128) * ((j0 - j) as u128);
        }
    }
    total
}

/// Sorts `keys` (each below `2^bits`) by least-significant-digit radix sort, 16 bits a pass.
fn radix_sort<K: SumKey>(keys: &mut Vec<K>, bits: u32) {
    let mut scratch = vec![K::default(); keys.len()];
    let mut shift = 0;
    while shift < bits {
        let mut counts = vec![0usize; 1 << 16];
        for &k in keys.iter() {
            counts[k.digit(shift)] += 1;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for &k in keys.iter() {
            let d = k.digit(shift);
            scratch[counts[d]] = k;
            counts[d] += 1;
        }
        std::mem::swap(keys, &mut scratch);
        shift += 16;
    }
}

/// The last band counted from its column sets once every band above it is full (the route of
/// [`super::completion`], with the extra groups checked): its rows but the last two are
/// chosen column by column; then every column has two digits left, the columns form cycles
/// on the digits, and each cycle can be oriented two ways. An extra group's cell in the last
/// two rows restricts its column's orientation alone (its digit must not be in the group
/// yet), so each cycle's orientations are checked on their own and multiplied; only a group
/// with a cell in each of the last two rows, in columns of different boxes, ties two cycles,
/// and then the orientations are enumerated together (at most `2^(side/2)`).
struct LastBand {
    side: usize,
    box_rows: usize,
    full: u32,
    /// First row of the band, and the first of its last two rows.
    first: usize,
    lo: usize,
    givens: Vec<u8>,
    /// Digits given in the band, per column.
    given_cols: Vec<u32>,
    /// Columns `(a, b)` whose cells `(lo, a)` and `(lo + 1, b)` share an extra group and no
    /// box.
    pairs: Vec<(usize, usize)>,
    extra_of: Vec<Vec<u16>>,
    // Scratch, per leaf.
    used: Vec<u32>,
    avail: Vec<u32>,
    cycle_of: Vec<usize>,
    top0: Vec<u32>,
}

impl LastBand {
    fn new(grid: &GroupGrid, givens: &[u8]) -> LastBand {
        let side = grid.side;
        let first = side - grid.box_rows;
        let lo = side.saturating_sub(2).max(first);
        let mut given_cols = vec![0u32; side];
        for r in first..side {
            for (c, g) in given_cols.iter_mut().enumerate() {
                let v = givens[r * side + c];
                if v != 0 {
                    *g |= 1 << (v - 1);
                }
            }
        }
        let mut pairs = Vec::new();
        if grid.box_rows >= 2 {
            for a in 0..side {
                for b in 0..side {
                    if a / grid.box_cols == b / grid.box_cols {
                        continue;
                    }
                    let (ea, eb) = (
                        grid.extra_of(lo * side + a),
                        grid.extra_of((lo + 1) * side + b),
                    );
                    if ea.iter().any(|g| eb.contains(g)) {
                        pairs.push((a, b));
                    }
                }
            }
        }
        LastBand {
            side,
            box_rows: grid.box_rows,
            full: if side == 32 {
                u32::MAX
            } else {
                (1 << side) - 1
            },
            first,
            lo,
            givens: givens.to_vec(),
            given_cols,
            pairs,
            extra_of: (0..side * side)
                .map(|c| grid.extra_of(c).to_vec())
                .collect(),
            used: vec![0; grid.groups],
            avail: vec![0; side],
            cycle_of: vec![0; side],
            top0: vec![0; side],
        }
    }

    /// The digits `cell`'s extra groups hold.
    fn extra_mask(&self, cell: usize) -> u32 {
        let mut m = 0;
        for &g in &self.extra_of[cell] {
            m |= self.used[usize::from(g)];
        }
        m
    }

    /// Whether `bit` may go in `cell` of the last two rows.
    fn fits(&self, cell: usize, bit: u32) -> bool {
        match self.givens[cell] {
            0 => self.extra_mask(cell) & bit == 0,
            v => bit == 1 << (v - 1),
        }
    }

    /// The completions of the band, the bands above being full (`used`: every group's
    /// digits so far, givens included).
    fn count(&mut self, used: &[u32]) -> u128 {
        let side = self.side;
        self.used.copy_from_slice(used);
        for c in 0..side {
            self.avail[c] = self.full & !(used[side + c] & !self.given_cols[c]);
        }
        if self.box_rows == 1 {
            // One row: each column has one digit left, each digit in one column.
            let r = self.first;
            return u128::from((0..side).all(|c| self.fits(r * side + c, self.avail[c])));
        }
        self.rows(self.first, 0)
    }

    /// Chooses the cells of the band's rows above its last two, from `(r, c)` on.
    fn rows(&mut self, r: usize, c: usize) -> u128 {
        let side = self.side;
        if r == self.lo {
            return self.last_two();
        }
        if c == side {
            return self.rows(r + 1, 0);
        }
        let cell = r * side + c;
        let given = self.givens[cell];
        let mut cand = if given != 0 {
            self.avail[c] & (1 << (given - 1))
        } else {
            self.avail[c] & !self.given_cols[c] & !self.used[r] & !self.extra_mask(cell)
        };
        let mut total = 0;
        while cand != 0 {
            let bit = cand & cand.wrapping_neg();
            cand ^= bit;
            self.avail[c] ^= bit;
            if given == 0 {
                self.used[r] |= bit;
                for k in 0..self.extra_of[cell].len() {
                    self.used[usize::from(self.extra_of[cell][k])] |= bit;
                }
            }
            total += self.rows(r, c + 1);
            self.avail[c] ^= bit;
            if given == 0 {
                self.used[r] &= !bit;
                for k in 0..self.extra_of[cell].len() {
                    self.used[usize::from(self.extra_of[cell][k])] &= !bit;
                }
            }
        }
        total
    }

    /// The last two rows: a product over the cycles of the orientations that fit, or the
    /// orientations enumerated together when a group ties two columns (`pairs`).
    fn last_two(&mut self) -> u128 {
        let side = self.side;
        let (up, down) = (self.lo * side, (self.lo + 1) * side);
        let holders = super::completion::holders(&self.avail[..side]);
        // Per cycle, which of its two orientations fit (bit 0: the first, bit 1: the other).
        let mut fits = [0u8; 32];
        let mut cycles = 0;
        let mut seen = 0u32;
        for c0 in 0..side {
            if seen & (1 << c0) != 0 {
                continue;
            }
            let pair = self.avail[c0];
            let mut c = c0;
            let mut take = pair & pair.wrapping_neg();
            let mut ok = [true, true];
            loop {
                seen |= 1 << c;
                self.cycle_of[c] = cycles;
                self.top0[c] = take;
                let other = self.avail[c] ^ take;
                ok[0] &= self.fits(up + c, take) && self.fits(down + c, other);
                ok[1] &= self.fits(up + c, other) && self.fits(down + c, take);
                let d = other.trailing_zeros() as usize;
                let h = holders[d];
                let next = if h[0] == c { h[1] } else { h[0] };
                if next == c0 {
                    break;
                }
                c = next;
                take = other;
            }
            fits[cycles] = u8::from(ok[0]) | (u8::from(ok[1]) << 1);
            if fits[cycles] == 0 {
                return 0;
            }
            cycles += 1;
        }
        if self.pairs.is_empty() {
            return fits[..cycles]
                .iter()
                .map(|&f| u128::from(f.count_ones()))
                .product();
        }
        // Orientations together: bit k of `o` orients cycle k the other way.
        let mut total = 0;
        'orient: for o in 0u32..(1 << cycles) {
            for (k, &f) in fits[..cycles].iter().enumerate() {
                if f & (1 << ((o >> k) & 1)) == 0 {
                    continue 'orient;
                }
            }
            let top = |c: usize| {
                if (o >> self.cycle_of[c]) & 1 == 0 {
                    self.top0[c]
                } else {
                    self.avail[c] ^ self.top0[c]
                }
            };
            for &(a, b) in &self.pairs {
                if self.givens[up + a] != 0 || self.givens[down + b] != 0 {
                    continue;
                }
                if top(a) == self.avail[b] ^ top(b) {
                    continue 'orient;
                }
            }
            total += 1;
        }
        total
    }
}

#[cfg(test)]
mod tests;
