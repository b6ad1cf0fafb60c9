//! The cell-order search of the native optimiser: Russian-doll search over row-major cell
//! suffixes with a transposition table (seed 001's problem; the method is Verfaillie, Lemaitre
//! and Schiex, "Russian Doll Search", AAAI 1996).
//!
//! `best[p]` is the largest number of tiles that fit using only cells `p..n*n` (tiles whose
//! three cells all lie in that suffix), from the whole multiset of tiles; `best[0]` is the
//! optimum. Since only one tile can start at cell `p`, `best[p] <= best[p + 1] + 1`, so level
//! `p` asks one question: do `best[p + 1] + 1` tiles fit in suffix `p` with one starting at `p`?
//! Inside a level the search walks the cells in order and decides at each free cell "a tile
//! starts here (type, variant, direction)" or "empty"; the finished levels' `best[q]` bound what
//! the cells from `q` on can still take, which keeps most levels short.
//!
//! Invariants:
//! - Every node's partial placement is legal; the cells before the current one are decided,
//!   and the only covered cells after it belong to tiles that started before it.
//! - What the cells from `q` on can still take depends only on the frontier: the decided codes
//!   just above and left of the undecided cells, the cells already covered past `q`, and the
//!   count of each tile type used. The transposition table maps a frontier to a proven upper
//!   bound on the tiles still placeable; it is filled only from exhausted subtrees, never from
//!   one that a limit cut short.
//! - Every pruning rule is a proven bound (suffix bound, tiles left, free cells, the look-ahead
//!   below), so an exhausted level is a proof.

use super::model::{Clock, Halt, Model, Placed, CODES, EMPTY, FREE, PRIVATE};
use super::table::Table;
use super::SolveLimits;

/// Transposition-table entries kept before the table is cleared (bounds its memory).
const TABLE_CAPACITY: usize = 1 << 21;

pub(super) struct CellSearch<'m, 'a> {
    model: &'m Model<'a>,
    pub(super) clock: Clock<'m>,
    /// Cell codes, plus the sentinel cell at index `cells` (always EMPTY).
    board: Vec<u8>,
    /// FREE cells on the board.
    free: usize,
    /// Copies of each tile type placed (a type may have more than 255 members).
    used: Vec<u32>,
    /// Per value code: how many cells of the unplaced tiles show it.
    supply: Vec<u32>,
    /// Scratch for the look-ahead: per value code, free cells that must show it.
    demand: Vec<u32>,
    placed: u32,
    stack: Vec<Placed>,
    /// `best[p]` for the finished levels `level..`; before, an upper bound.
    best: Vec<u32>,
    /// Levels `level..=cells` are finished.
    level: usize,
    table: Table,
    key: Vec<u8>,
    /// The largest legal partial placement seen.
    pub(super) solution: Vec<Placed>,
    /// The `(type, variant)` pairs in the order tried: all of them, and by first code.
    all: Vec<(u16, u8)>,
    by_first: Vec<Vec<(u16, u8)>>,
}

impl<'m, 'a> CellSearch<'m, 'a> {
    pub(super) fn new(model: &'m Model<'a>, limits: &'m SolveLimits) -> Self {
        let mut board = vec![FREE; model.cells + 1];
        board[model.cells] = EMPTY;
        let mut supply = vec![0u32; CODES];
        for t in &model.types {
            for &c in &t.variants[0].0 {
                supply[c as usize] += t.members.len() as u32;
            }
        }
        let cap = (model.cells / 3) as u32;
        let best = (0..=model.cells)
            .map(|p| model.tiles.min(((model.cells - p) / 3) as u32).min(cap))
            .collect();
        CellSearch {
            model,
            clock: Clock::new(limits),
            board,
            free: model.cells,
            used: vec![0; model.types.len()],
            demand: vec![0; CODES],
            supply,
            placed: 0,
            stack: Vec::new(),
            best,
            level: model.cells,
            // The longest key: cell, band, left cell, the next band, counts (`build_key`).
            table: Table::new(2 + 2 * model.n + 1 + model.types.len(), TABLE_CAPACITY),
            key: Vec::new(),
            solution: Vec::new(),
            all: model.all.clone(),
            by_first: model.by_first.clone(),
        }
    }

    /// Shuffles the order in which tiles are tried at a cell, for a restart of the probe.
    pub(super) fn shuffle(&mut self, rng: &mut impl rand::Rng) {
        use rand::seq::SliceRandom;
        self.all.shuffle(rng);
        for list in &mut self.by_first {
            list.shuffle(rng);
        }
    }

    /// Clears the board: cells before `p` are EMPTY (outside the region), the rest FREE.
    fn reset(&mut self, p: usize) {
        debug_assert!(self.stack.is_empty());
        let cells = self.model.cells;
        for q in 0..cells {
            self.board[q] = if q < p { EMPTY } else { FREE };
        }
        self.free = cells - p;
    }

    /// Depth first on the whole board: do `target` tiles fit? (`Ok(true)` leaves them in
    /// `solution`.)
    pub(super) fn probe(&mut self, target: u32) -> Result<bool, Halt> {
        self.reset(0);
        self.dfs(0, target)
    }

    /// Runs the Russian-doll levels on from where the last call stopped, given that the
    /// optimum is at most `cap`; `Ok(optimum)` once level 0 is done (`solution` then holds an
    /// optimal placement). A level cut short by a limit or the budget is redone by the next
    /// call, faster thanks to the table.
    pub(super) fn resume(&mut self, cap: u32) -> Result<u32, Halt> {
        self.best[0] = self.best[0].min(cap);
        while self.level > 0 {
            let p = self.level - 1;
            let below = self.best[self.level];
            if below >= self.best[0] {
                // The global bound is reached: this is the optimum.
                self.best[0] = below;
                self.level = 0;
                break;
            }
            if below < self.best[p] {
                self.reset(p);
                let found = self.start_at(p, below + 1)?;
                self.best[p] = below + u32::from(found);
            } else {
                // Suffix p has too few cells to hold more than suffix p + 1.
                self.best[p] = below;
            }
            self.level = p;
        }
        Ok(self.best[0])
    }

    /// A proven upper bound on the optimum from the finished levels: the tiles inside suffix
    /// `level`, plus those starting before it, each covering three cells before
    /// `level + 2n`.
    pub(super) fn upper_bound(&self) -> u32 {
        let m = self.model;
        let before = ((self.level + 2 * m.n).min(m.cells) / 3) as u32;
        self.best[self.level]
            .saturating_add(before)
            .min(self.best[0])
    }

    /// Level `p`: a tile starts at `p` and `target` tiles fit in suffix `p`?
    fn start_at(&mut self, p: usize, target: u32) -> Result<bool, Halt> {
        self.clock.tick()?;
        let required = self.required(p);
        let mut i = 0;
        while let Some((ty, variant)) = self.option(required, i) {
            i += 1;
            for vertical in [false, true] {
                if self.try_tile(p, ty, variant, vertical, target - 1)? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Can `need` more tiles be placed from cell `j` on?
    fn dfs(&mut self, mut j: usize, need: u32) -> Result<bool, Halt> {
        if need == 0 {
            return Ok(true);
        }
        let m = self.model;
        while j < m.cells && self.board[j] != FREE {
            j += 1;
        }
        if j == m.cells
            || need > m.tiles - self.placed
            || need > self.best[j]
            || 3 * need as usize > self.free
        {
            return Ok(false);
        }
        self.clock.tick()?;
        if !self.look_ahead(j, need) {
            return Ok(false);
        }
        // Every unplaced tile is needed: each must still have a spot.
        if m.tiles - self.placed == need && !self.every_tile_placeable(j) {
            return Ok(false);
        }
        let keyed = m.table_ok;
        if keyed {
            self.build_key(j);
            if let Some(bound) = self.table.get(&self.key) {
                if u32::from(bound) < need {
                    return Ok(false);
                }
            }
        }

        let required = self.required(j);
        let mut i = 0;
        while let Some((ty, variant)) = self.option(required, i) {
            i += 1;
            for vertical in [false, true] {
                if self.try_tile(j, ty, variant, vertical, need - 1)? {
                    return Ok(true);
                }
            }
        }
        self.board[j] = EMPTY;
        self.free -= 1;
        let found = self.dfs(j + 1, need);
        self.board[j] = FREE;
        self.free += 1;
        if found? {
            return Ok(true);
        }
        if keyed {
            self.build_key(j);
            self.store(need - 1);
        }
        Ok(false)
    }

    /// Places the tile at `j` if it fits and searches on for `need` more.
    fn try_tile(
        &mut self,
        j: usize,
        ty: u16,
        variant: u8,
        vertical: bool,
        need: u32,
    ) -> Result<bool, Halt> {
        let m = self.model;
        if self.used[ty as usize] as usize >= m.types[ty as usize].members.len()
            || !self.fits(j, ty, variant, vertical)
        {
            return Ok(false);
        }
        self.place(j, ty, variant, vertical);
        let found = self.dfs(j + 1, need);
        self.unplace();
        found
    }

    /// The `i`-th `(type, variant)` to try at a cell that requires `required`.
    fn option(&self, required: Required, i: usize) -> Option<(u16, u8)> {
        match required {
            Required::Any => self.all.get(i).copied(),
            Required::Value(v) => self.by_first[v as usize].get(i).copied(),
            Required::Dead => None,
        }
    }

    /// The value a tile covering free cell `j` must show there, from the valued cells above
    /// and to the left (the only decided neighbours).
    fn required(&self, j: usize) -> Required {
        let m = self.model;
        let up = self.board[m.up[j]];
        let left = self.board[m.left[j]];
        match (up < EMPTY, left < EMPTY) {
            _ if up == PRIVATE || left == PRIVATE => Required::Dead,
            (true, true) if up != left => Required::Dead,
            (true, _) => Required::Value(up),
            (_, true) => Required::Value(left),
            _ => Required::Any,
        }
    }

    /// Cheap necessary condition for `need` more tiles from `j` on: free cells next to valued
    /// cells of two different values can never be covered, nor can more cells that must show
    /// value `v` than the unplaced tiles have cells showing `v`.
    fn look_ahead(&mut self, j: usize, need: u32) -> bool {
        let m = self.model;
        let b = &self.board;
        let end = (j + 3 * m.n).min(m.cells);
        let mut lost = 0usize;
        let mut touched: u128 = 0;
        for x in j..end {
            if b[x] != FREE {
                continue;
            }
            let mut req = FREE;
            let mut dead = false;
            for w in [m.up[x], m.down[x], m.left[x], m.right[x]] {
                let c = b[w];
                if c < EMPTY {
                    if c == PRIVATE {
                        dead = true;
                        break;
                    }
                    if req == FREE {
                        req = c;
                    } else if req != c {
                        dead = true;
                        break;
                    }
                }
            }
            if dead {
                lost += 1;
            } else if req != FREE {
                self.demand[req as usize] += 1;
                touched |= 1 << req;
            }
        }
        while touched != 0 {
            let v = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            lost += self.demand[v].saturating_sub(self.supply[v]) as usize;
            self.demand[v] = 0;
        }
        3 * need as usize + lost <= self.free
    }

    /// Whether every unplaced tile has a spot left that fits from `j` on.
    fn every_tile_placeable(&self, j: usize) -> bool {
        let m = self.model;
        for (ty, t) in m.types.iter().enumerate() {
            let left = (t.members.len() - self.used[ty] as usize) as u32;
            if left == 0 {
                continue;
            }
            let from = t.spots.partition_point(|s| (s.0 as usize) < j);
            let fits = t.spots[from..].iter().any(|&(p, vertical, variant)| {
                self.board[p as usize] == FREE
                    && self.fits(p as usize, ty as u16, variant, vertical)
            });
            if !fits {
                return false;
            }
        }
        true
    }

    /// Whether the tile fits at `j`: cells free and inside, every touching value equal.
    fn fits(&self, j: usize, ty: u16, variant: u8, vertical: bool) -> bool {
        let m = self.model;
        let n = m.n;
        let v = m.types[ty as usize].variants[variant as usize].0;
        let b = &self.board;
        let ok = |cell: usize, value: u8| {
            let w = b[cell];
            w >= EMPTY || (w == value && w != PRIVATE)
        };
        if vertical {
            if j / n + 2 >= n {
                return false;
            }
            let (j1, j2) = (j + n, j + 2 * n);
            b[j1] == FREE
                && b[j2] == FREE
                && ok(m.up[j], v[0])
                && ok(m.left[j], v[0])
                && ok(m.right[j], v[0])
                && ok(m.left[j1], v[1])
                && ok(m.right[j1], v[1])
                && ok(m.left[j2], v[2])
                && ok(m.right[j2], v[2])
                && ok(m.down[j2], v[2])
        } else {
            if j % n + 2 >= n {
                return false;
            }
            let (j1, j2) = (j + 1, j + 2);
            b[j1] == FREE
                && b[j2] == FREE
                && ok(m.up[j], v[0])
                && ok(m.left[j], v[0])
                && ok(m.down[j], v[0])
                && ok(m.up[j1], v[1])
                && ok(m.down[j1], v[1])
                && ok(m.up[j2], v[2])
                && ok(m.down[j2], v[2])
                && ok(m.right[j2], v[2])
        }
    }

    fn place(&mut self, j: usize, ty: u16, variant: u8, vertical: bool) {
        let n = self.model.n;
        let v = self.model.types[ty as usize].variants[variant as usize].0;
        let step = if vertical { n } else { 1 };
        for (i, value) in v.into_iter().enumerate() {
            self.board[j + i * step] = value;
            self.supply[value as usize] -= 1;
        }
        self.free -= 3;
        self.used[ty as usize] += 1;
        self.placed += 1;
        self.stack.push(Placed {
            cell: j,
            vertical,
            ty,
            variant,
        });
        if self.stack.len() > self.solution.len() {
            self.solution.clone_from(&self.stack);
        }
    }

    fn unplace(&mut self) {
        let p = self.stack.pop().expect("unplace after place");
        let step = if p.vertical { self.model.n } else { 1 };
        for i in 0..3 {
            let cell = p.cell + i * step;
            self.supply[self.board[cell] as usize] += 1;
            self.board[cell] = FREE;
        }
        self.free += 3;
        self.used[p.ty as usize] -= 1;
        self.placed -= 1;
    }

    /// The frontier key of cell `j` into `self.key`.
    fn build_key(&mut self, j: usize) {
        let m = self.model;
        let n = m.n;
        let key = &mut self.key;
        key.clear();
        key.extend_from_slice(&(j as u16).to_le_bytes());
        // Row band j..j+n: a free cell shows the decided value above it; a covered one its own.
        for p in j..(j + n).min(m.cells) {
            let c = self.board[p];
            key.push(if c == FREE {
                self.board[m.up[p]]
            } else {
                0x80 | c
            });
        }
        key.push(self.board[m.left[j]]);
        // Cells already covered further on (vertical tiles reach two rows down).
        for p in (j + n).min(m.cells)..(j + 2 * n).min(m.cells) {
            key.push(self.board[p]);
        }
        // Counts fit a byte: the table is used only when every type has under 256 members.
        key.extend(self.used.iter().map(|&u| u as u8));
    }

    /// Records that the node keyed in `self.key` can take at most `bound` more tiles. Every
    /// bound fits the table's `u16` (at most `MAX_N^2 / 3` tiles fit, see `table`); one that
    /// did not would be left out, never stored smaller than it is.
    fn store(&mut self, bound: u32) {
        if let Ok(bound) = u16::try_from(bound) {
            self.table.lower(&self.key, bound);
        }
    }
}

/// What a free cell's decided neighbours demand of a tile covering it.
#[derive(Clone, Copy)]
enum Required {
    Any,
    Value(u8),
    /// Two different values: the cell must stay empty.
    Dead,
}
