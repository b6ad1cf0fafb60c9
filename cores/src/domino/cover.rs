//! The tile-order search of the native optimiser: do `target` tiles fit on the whole board?
//!
//! Every legal spot of every tile type (first cell, direction, variant) is a vertex of a
//! conflict graph: two spots conflict when they share a cell or touch with unequal values
//! (seed 001's rule; a value only one tile shows matches nothing). A placement is a set of
//! pairwise compatible spots with at most `count` spots per type. The search keeps the set of
//! spots compatible with everything placed so far as a bitset, and at each node branches on the
//! open type with the fewest compatible spots (Knuth's "minimum remaining values", as Dancing
//! Links does for exact cover): "its next copy goes to spot s", in increasing spot order so
//! that identical copies are never permuted, or "no more copies of it". A type with no
//! compatible spot is closed at once. With `slack` = open copies minus tiles still needed,
//! closing types spends slack; the search fails when slack runs out, when the open types
//! cannot supply enough tiles, or when fewer than `3 * need` cells are covered by any
//! compatible spot.
//!
//! `fill` asks the same question by cells instead (polyomino packing's branching): at the
//! undecided cell that the fewest compatible spots cover, one of those spots or "empty". A
//! placement of `target` tiles leaves exactly `cells - 3 * target` cells empty, so empty cells
//! count against that budget, and an undecided cell that no compatible spot covers is empty.
//! Each placement lies below exactly one branch at each cell, so copies are never permuted. It
//! is the better placement search when every tile must fit (b03-h1 in seconds, where the
//! type-order search found nothing in 19M nodes).
//!
//! Invariant: `valid[d]` (the bitset of the node at depth `d`) holds exactly the spots of open
//! types that are compatible with every placed spot and, for the type last placed, come after
//! its last spot. Exhausting the search is a proof that `target` tiles do not fit.

use super::model::{Clock, Halt, Model, Placed, PRIVATE};
use super::SolveLimits;

/// The conflict matrix has one bit per pair of spots: beyond this many spots it would take
/// more memory than the search is worth (16 384 spots: 32 MiB).
const MAX_SPOTS: usize = 1 << 14;
/// Cells are tracked in a 256-bit mask: boards up to 16 x 16.
const MAX_CELLS: usize = 256;

pub(super) type CellMask = [u64; 4];

pub(super) struct TileSearch<'m, 'a> {
    model: &'m Model<'a>,
    pub(super) clock: Clock<'m>,
    words: usize,
    spots: Vec<Placed>,
    /// The cells of each spot.
    masks: Vec<CellMask>,
    /// Spots of type `t` are `range[t].0..range[t].1`.
    range: Vec<(usize, usize)>,
    /// Row `s` (`words` words) holds the spots that conflict with spot `s`, itself included.
    conflicts: Vec<u64>,
    /// One bitset per depth.
    valid: Vec<u64>,
    /// Copies of each type that may still be placed (0 once the type is closed).
    open: Vec<u32>,
    chosen: Vec<usize>,
    /// The placement found by the last successful search.
    pub(super) solution: Vec<Placed>,
    /// The largest legal partial placement seen.
    pub(super) largest: Vec<Placed>,
    /// The spots covering each cell, in the order the cell search tries them.
    by_cell: Vec<Vec<u32>>,
    /// The cells of each spot.
    spot_cells: Vec<[u16; 3]>,
    /// The cell search's bitsets, one per depth.
    fill_valid: Vec<u64>,
}

/// The two searches of [`TileSearch`], each with its own stack of bitsets.
#[derive(Clone, Copy)]
enum Search {
    /// By tile type (`search`, `search_around`): `valid`.
    ByType,
    /// By cell (`fill`): `fill_valid`.
    ByCell,
}

impl<'m, 'a> TileSearch<'m, 'a> {
    /// `None` when the board or the number of spots is too large for this search.
    pub(super) fn new(model: &'m Model<'a>, limits: &'m SolveLimits) -> Option<Self> {
        let n = model.n;
        if model.cells > MAX_CELLS {
            return None;
        }
        let mut spots = Vec::new();
        let mut range = Vec::new();
        for (ty, t) in model.types.iter().enumerate() {
            let start = spots.len();
            for &(cell, vertical, variant) in &t.spots {
                spots.push(Placed {
                    cell: cell as usize,
                    vertical,
                    ty: ty as u16,
                    variant,
                });
            }
            range.push((start, spots.len()));
            if spots.len() > MAX_SPOTS {
                return None;
            }
        }
        let words = spots.len().div_ceil(64).max(1);
        let cells_of = |s: &Placed| {
            let step = if s.vertical { n } else { 1 };
            [s.cell, s.cell + step, s.cell + 2 * step]
        };
        let masks: Vec<CellMask> = spots
            .iter()
            .map(|s| {
                let mut mask = [0u64; 4];
                for c in cells_of(s) {
                    mask[c / 64] |= 1 << (c % 64);
                }
                mask
            })
            .collect();
        // Spots by cell, to find each spot's neighbours in the conflict graph.
        let mut by_cell: Vec<Vec<usize>> = vec![Vec::new(); model.cells];
        for (i, s) in spots.iter().enumerate() {
            for c in cells_of(s) {
                by_cell[c].push(i);
            }
        }
        let spot_cells = spots
            .iter()
            .map(|s| cells_of(s).map(|c| c as u16))
            .collect();
        // Per spot, its cells' codes on the board (FREE elsewhere), to test touching values.
        let mut conflicts = vec![0u64; spots.len() * words];
        let mut near: Vec<usize> = Vec::new();
        for (i, s) in spots.iter().enumerate() {
            let codes = model.types[s.ty as usize].variants[s.variant as usize].0;
            let cells = cells_of(s);
            let code_at = |c: usize| cells.iter().position(|&x| x == c).map(|k| codes[k]);
            near.clear();
            for &c in &cells {
                near.push(c);
                for d in [model.up[c], model.down[c], model.left[c], model.right[c]] {
                    if d < model.cells {
                        near.push(d);
                    }
                }
            }
            near.sort_unstable();
            near.dedup();
            let row = &mut conflicts[i * words..(i + 1) * words];
            for &c in &near {
                for &j in &by_cell[c] {
                    if row[j / 64] >> (j % 64) & 1 == 1 {
                        continue;
                    }
                    let other = &spots[j];
                    let other_codes =
                        model.types[other.ty as usize].variants[other.variant as usize].0;
                    let clash = cells_of(other).iter().enumerate().any(|(k, &d)| {
                        if code_at(d).is_some() {
                            return true; // shared cell
                        }
                        [model.up[d], model.down[d], model.left[d], model.right[d]]
                            .iter()
                            .any(|&e| match code_at(e) {
                                Some(v) => v != other_codes[k] || v == PRIVATE,
                                None => false,
                            })
                    });
                    if clash {
                        row[j / 64] |= 1 << (j % 64);
                    }
                }
            }
        }
        let depth = model.tiles as usize + model.types.len() + 2;
        Some(TileSearch {
            model,
            clock: Clock::new(limits),
            words,
            masks,
            range,
            conflicts,
            valid: vec![0; depth * words],
            open: vec![0; model.types.len()],
            chosen: Vec::new(),
            solution: Vec::new(),
            largest: Vec::new(),
            by_cell: by_cell
                .into_iter()
                .map(|v| v.into_iter().map(|s| s as u32).collect())
                .collect(),
            spot_cells,
            fill_valid: Vec::new(),
            spots,
        })
    }

    /// Do `target` tiles fit? `Ok(true)` leaves them in `solution`; `Ok(false)` is a proof
    /// that they do not.
    pub(super) fn search(&mut self, target: u32) -> Result<bool, Halt> {
        self.search_around(&[], target)
    }

    /// Do `target` tiles fit with the spots `fixed` kept in place? `Ok(true)` leaves them
    /// (`fixed` included) in `solution`; `Ok(false)` proves that no placement containing
    /// `fixed` has `target` tiles, or that `fixed` itself is not a legal placement.
    pub(super) fn search_around(&mut self, fixed: &[usize], target: u32) -> Result<bool, Halt> {
        let w = self.words;
        self.start(Search::ByType);
        for &spot in fixed {
            let ty = self.spots[spot].ty as usize;
            if self.valid[spot / 64] >> (spot % 64) & 1 == 0 || self.open[ty] == 0 {
                return Ok(false);
            }
            let row = spot * w;
            for k in 0..w {
                self.valid[k] &= !self.conflicts[row + k];
            }
            self.open[ty] -= 1;
            if self.open[ty] == 0 {
                let (a, b) = self.range[ty];
                clear_range(&mut self.valid[..w], a, b);
            }
            self.chosen.push(spot);
        }
        let need = target.saturating_sub(fixed.len() as u32);
        let slack = i64::from(self.model.tiles) - fixed.len() as i64 - i64::from(need);
        if slack < 0 {
            return Ok(false);
        }
        self.go(0, need, slack)
    }

    /// Shuffles the order in which the cell search tries the spots at a cell.
    pub(super) fn shuffle_cells(&mut self, rng: &mut impl rand::Rng) {
        use rand::seq::SliceRandom;
        for list in &mut self.by_cell {
            list.shuffle(rng);
        }
    }

    /// Do `target` tiles fit? By cells, most constrained first: at the undecided cell that the
    /// fewest compatible spots cover, either one of them or "empty". A placement of `target`
    /// tiles leaves exactly `cells - 3 * target` cells empty (a subset of a legal placement is
    /// legal), so the empty cells are counted against that budget; an undecided cell that no
    /// compatible spot covers is empty. `Ok(true)` leaves the tiles in `solution`; `Ok(false)`
    /// is a proof that they do not fit.
    pub(super) fn fill(&mut self, target: u32) -> Result<bool, Halt> {
        let (w, cells) = (self.words, self.model.cells);
        let Some(budget) = cells.checked_sub(3 * target as usize) else {
            return Ok(false);
        };
        let depth = self.model.tiles as usize + cells + 2;
        self.fill_valid.resize(depth * w, 0);
        self.start(Search::ByCell);
        self.fill_go(0, target, budget, [0; 4])
    }

    /// Puts `search` at its root: every spot compatible (the root's bitset), every copy of
    /// every type open, nothing chosen.
    fn start(&mut self, search: Search) {
        let w = self.words;
        let root = match search {
            Search::ByType => &mut self.valid[..w],
            Search::ByCell => &mut self.fill_valid[..w],
        };
        root.fill(0);
        for i in 0..self.spots.len() {
            root[i / 64] |= 1 << (i % 64);
        }
        for (ty, t) in self.model.types.iter().enumerate() {
            self.open[ty] = t.members.len() as u32;
        }
        self.chosen.clear();
    }

    fn fill_go(
        &mut self,
        depth: usize,
        need: u32,
        mut budget: usize,
        mut decided: CellMask,
    ) -> Result<bool, Halt> {
        if need == 0 {
            self.solution = self.chosen.iter().map(|&s| self.spots[s]).collect();
            return Ok(true);
        }
        self.clock.tick()?;
        let (w, cells) = (self.words, self.model.cells);
        let (cur, next) = (depth * w, (depth + 1) * w);
        let mut counts = [0u16; MAX_CELLS];
        for k in 0..w {
            let mut word = self.fill_valid[cur + k];
            while word != 0 {
                let i = k * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                for &c in &self.spot_cells[i] {
                    counts[c as usize] += 1;
                }
            }
        }
        let mut supply = 0u64;
        for ty in 0..self.open.len() {
            if self.open[ty] > 0 {
                let (a, b) = self.range[ty];
                let count = count_range(&self.fill_valid[cur..cur + w], a, b);
                supply += u64::from(self.open[ty].min(count));
            }
        }
        if supply < u64::from(need) {
            return Ok(false);
        }
        // Undecided cells that no compatible spot covers are empty.
        let mut pick: Option<(usize, u16)> = None;
        for c in 0..cells {
            if decided[c / 64] >> (c % 64) & 1 == 1 {
                continue;
            }
            if counts[c] == 0 {
                if budget == 0 {
                    return Ok(false);
                }
                budget -= 1;
                decided[c / 64] |= 1 << (c % 64);
            } else {
                let key = counts[c];
                if pick.is_none_or(|(_, best)| key < best) {
                    pick = Some((c, key));
                }
            }
        }
        let Some((cell, _)) = pick else {
            return Ok(false);
        };
        for i in 0..self.by_cell[cell].len() {
            let spot = self.by_cell[cell][i] as usize;
            if self.fill_valid[cur + spot / 64] >> (spot % 64) & 1 == 0 {
                continue;
            }
            let row = spot * w;
            for k in 0..w {
                self.fill_valid[next + k] = self.fill_valid[cur + k] & !self.conflicts[row + k];
            }
            let ty = self.spots[spot].ty as usize;
            self.open[ty] -= 1;
            if self.open[ty] == 0 {
                let (a, b) = self.range[ty];
                clear_range(&mut self.fill_valid[next..next + w], a, b);
            }
            self.chosen.push(spot);
            if self.chosen.len() > self.largest.len() {
                self.largest = self.chosen.iter().map(|&s| self.spots[s]).collect();
            }
            let mut child = decided;
            for (c, m) in child.iter_mut().zip(&self.masks[spot]) {
                *c |= m;
            }
            let found = self.fill_go(depth + 1, need - 1, budget, child);
            self.chosen.pop();
            self.open[ty] += 1;
            if found? {
                return Ok(true);
            }
        }
        if budget == 0 {
            return Ok(false);
        }
        // The cell stays empty.
        self.fill_valid.copy_within(cur..cur + w, next);
        for i in 0..self.by_cell[cell].len() {
            let spot = self.by_cell[cell][i] as usize;
            self.fill_valid[next + spot / 64] &= !(1 << (spot % 64));
        }
        decided[cell / 64] |= 1 << (cell % 64);
        self.fill_go(depth + 1, need, budget - 1, decided)
    }

    /// The index of spot `p` (`None` if it is not a spot of this board).
    pub(super) fn spot_index(&self, p: &Placed) -> Option<usize> {
        let t = self.model.types.get(p.ty as usize)?;
        let key = (u16::try_from(p.cell).ok()?, p.vertical, p.variant);
        let at = t.spots.binary_search(&key).ok()?;
        Some(self.range[p.ty as usize].0 + at)
    }

    /// The side of the board.
    pub(super) fn board_side(&self) -> usize {
        self.model.n
    }

    /// Spot `s` as a placed tile.
    pub(super) fn spot(&self, s: usize) -> Placed {
        self.spots[s]
    }

    /// The cells of spot `s`, as a mask.
    pub(super) fn cells_of(&self, s: usize) -> &CellMask {
        &self.masks[s]
    }

    fn go(&mut self, depth: usize, need: u32, mut slack: i64) -> Result<bool, Halt> {
        if need == 0 {
            self.solution = self.chosen.iter().map(|&s| self.spots[s]).collect();
            return Ok(true);
        }
        self.clock.tick()?;
        let w = self.words;
        let cur = depth * w;

        // Count each open type's compatible spots; close the types that have none.
        let mut closed: Vec<(usize, u32)> = Vec::new();
        let mut supply = 0u64;
        let mut pick: Option<(usize, u32)> = None;
        for ty in 0..self.open.len() {
            if self.open[ty] == 0 {
                continue;
            }
            let (a, b) = self.range[ty];
            let count = count_range(&self.valid[cur..cur + w], a, b);
            if count == 0 {
                slack -= i64::from(self.open[ty]);
                closed.push((ty, self.open[ty]));
                self.open[ty] = 0;
                continue;
            }
            supply += u64::from(self.open[ty].min(count));
            if pick.is_none_or(|(_, best)| count < best) {
                pick = Some((ty, count));
            }
        }
        let result = if slack < 0 || supply < u64::from(need) || !self.enough_cells(cur, need) {
            Ok(false)
        } else {
            let (ty, _) = pick.expect("supply > 0 means an open type");
            self.branch(depth, ty, need, slack)
        };
        for (ty, copies) in closed {
            self.open[ty] = copies;
        }
        result
    }

    /// Branches on type `ty`: its next copy at each compatible spot, or no more copies.
    fn branch(&mut self, depth: usize, ty: usize, need: u32, slack: i64) -> Result<bool, Halt> {
        let w = self.words;
        let (cur, next) = (depth * w, (depth + 1) * w);
        let (a, b) = self.range[ty];
        let mut s = a;
        while let Some(spot) = next_set(&self.valid[cur..cur + w], s, b) {
            s = spot + 1;
            // Child: compatible with `spot`, later spots of this type only.
            let row = spot * w;
            for k in 0..w {
                self.valid[next + k] = self.valid[cur + k] & !self.conflicts[row + k];
            }
            self.open[ty] -= 1;
            let upto = if self.open[ty] == 0 { b } else { spot + 1 };
            clear_range(&mut self.valid[next..next + w], a, upto);
            self.chosen.push(spot);
            if self.chosen.len() > self.largest.len() {
                self.largest = self.chosen.iter().map(|&s| self.spots[s]).collect();
            }
            let found = self.go(depth + 1, need - 1, slack);
            self.chosen.pop();
            self.open[ty] += 1;
            if found? {
                return Ok(true);
            }
        }
        // No more copies of `ty`.
        let copies = i64::from(self.open[ty]);
        if slack >= copies {
            self.valid.copy_within(cur..cur + w, next);
            clear_range(&mut self.valid[next..next + w], a, b);
            let saved = self.open[ty];
            self.open[ty] = 0;
            let found = self.go(depth + 1, need, slack - copies);
            self.open[ty] = saved;
            return found;
        }
        Ok(false)
    }

    /// Whether at least `3 * need` cells are covered by some compatible spot.
    fn enough_cells(&self, cur: usize, need: u32) -> bool {
        let w = self.words;
        let mut union = [0u64; 4];
        let goal = 3 * need;
        for k in 0..w {
            let mut word = self.valid[cur + k];
            while word != 0 {
                let i = k * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let m = &self.masks[i];
                for q in 0..4 {
                    union[q] |= m[q];
                }
            }
        }
        union.iter().map(|x| x.count_ones()).sum::<u32>() >= goal
    }
}

/// Set bits of `bits` in `a..b`.
fn count_range(bits: &[u64], a: usize, b: usize) -> u32 {
    let mut count = 0;
    let mut i = a;
    while i < b {
        let k = i / 64;
        let lo = i % 64;
        let hi = (b - k * 64).min(64);
        let mut word = bits[k] >> lo;
        if hi - lo < 64 {
            word &= (1u64 << (hi - lo)) - 1;
        }
        count += word.count_ones();
        i = k * 64 + hi;
    }
    count
}

/// The first set bit of `bits` in `from..to`.
fn next_set(bits: &[u64], from: usize, to: usize) -> Option<usize> {
    let mut i = from;
    while i < to {
        let k = i / 64;
        let word = bits[k] >> (i % 64);
        if word != 0 {
            let found = i + word.trailing_zeros() as usize;
            return (found < to).then_some(found);
        }
        i = (k + 1) * 64;
    }
    None
}

/// Clears the bits `a..b`.
fn clear_range(bits: &mut [u64], a: usize, b: usize) {
    let mut i = a;
    while i < b {
        let k = i / 64;
        let lo = i % 64;
        let hi = (b - k * 64).min(64);
        let mask = if hi - lo == 64 {
            u64::MAX
        } else {
            ((1u64 << (hi - lo)) - 1) << lo
        };
        bits[k] &= !mask;
        i = k * 64 + hi;
    }
}
