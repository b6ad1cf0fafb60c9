//! The native exact optimiser of the domino benchmark: Russian-doll search over row-major cell
//! suffixes with a transposition table.
//!
//! Cells are numbered row-major, `p = row * n + col`. `best[p]` is the largest number of tiles
//! that can be placed using only cells `p..n*n` (tiles whose three cells all lie in that suffix),
//! from the whole multiset of tiles. Solving the suffixes from the last cell back to cell 0
//! ("Russian doll search", Verfaillie, Lemaitre and Schiex, AAAI 1996) gives `best[0]`, the
//! optimum. `best[p] <= best[p + 1] + 1`, since only one tile can start at cell `p`; level `p`
//! therefore asks one question: can `best[p + 1] + 1` tiles be placed in suffix `p` with a tile
//! starting at `p`? Inside a level the search walks the cells in order, deciding at each free
//! cell "a tile starts here (type, direction, mirroring)" or "empty"; `best[q]` of the finished
//! levels bounds what the cells from `q` on can still take, which makes most levels short.
//!
//! Invariants:
//! - Every node's partial placement is legal (seed 001's rule: orthogonally adjacent cells of
//!   different tiles carry equal values); the cells before the current one are decided.
//! - What the cells from `q` on can still take depends only on the "frontier": the decided values
//!   just above and left of the undecided cells, the cells already covered by tiles that reach
//!   past `q`, and how many tiles of each type are left. The transposition table maps a frontier
//!   to a proven upper bound on the tiles still placeable; it is filled only from exhausted
//!   subtrees, never from a subtree cut short by a limit.
//! - Tiles equal up to mirroring are one type with a count, so permuting them is never searched.

use super::{Instance, Orientation, Placement, MAX_N};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// When to give up. The search polls the limits every few thousand nodes.
#[derive(Debug, Clone, Default)]
pub struct SolveLimits {
    pub deadline: Option<Instant>,
    pub stop: Option<Arc<AtomicBool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SolveStatus {
    /// `objective == bound`: the placement is proven maximum.
    Optimal,
    /// A limit stopped the search; `placement` is the best found, `bound` a proven upper bound.
    Feasible,
    /// A limit stopped the search before any tile was placed.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolveOutcome {
    pub status: SolveStatus,
    pub placement: Vec<Placement>,
    /// `placement.len()`.
    pub objective: u32,
    /// A proven upper bound on the optimum (`== objective` when optimal).
    pub bound: u32,
    /// Search nodes visited.
    pub nodes: u64,
}

/// Cell codes: values are remapped to `0..values`; these two are never values.
const FREE: u8 = 0xFF;
const EMPTY: u8 = 0xFE;
/// The code of every value that only one tile shows; it matches nothing, not even itself.
const PRIVATE: u8 = 0x7D;
/// Value codes stay below PRIVATE, so that the table's key can tag them (`0x80 | code`).
const MAX_SHARED_VALUES: usize = PRIVATE as usize;
/// Size of the per-code arrays.
const CODES: usize = PRIVATE as usize + 1;
/// Transposition-table entries kept before the table is cleared (bounds its memory).
const TABLE_CAPACITY: usize = 1 << 21;
/// Nodes between two looks at the clock and the stop flag.
const POLL_EVERY: u64 = 1 << 12;

/// Solves `instance` to proven optimality unless a limit stops it first.
pub fn solve(instance: &Instance, limits: &SolveLimits) -> SolveOutcome {
    let m = instance.tiles.len() as u32;
    let n = instance.n as usize;
    let cells = n * n;
    let area_bound = if n < 3 { 0 } else { m.min((cells / 3) as u32) };
    if area_bound == 0 || n > MAX_N as usize {
        let optimal = area_bound == 0;
        return SolveOutcome {
            status: if optimal {
                SolveStatus::Optimal
            } else {
                SolveStatus::Unknown
            },
            placement: Vec::new(),
            objective: 0,
            bound: area_bound,
            nodes: 0,
        };
    }
    let Some(model) = Model::new(instance) else {
        // More than 125 distinct values shared between tiles: beyond this optimiser.
        return SolveOutcome {
            status: SolveStatus::Unknown,
            placement: Vec::new(),
            objective: 0,
            bound: area_bound,
            nodes: 0,
        };
    };
    let mut search = Search::new(&model, limits);
    search.run()
}

/// The instance in search form: value codes, tile types, neighbour tables.
struct Model<'a> {
    instance: &'a Instance,
    n: usize,
    cells: usize,
    tiles: u32,
    types: Vec<TileType>,
    /// `(type, variant)` pairs whose first value is the given code.
    by_first: Vec<Vec<(u16, u8)>>,
    all: Vec<(u16, u8)>,
    /// Neighbour cell of each cell, or `cells` (a sentinel cell that is always EMPTY).
    up: Vec<usize>,
    down: Vec<usize>,
    left: Vec<usize>,
    right: Vec<usize>,
    /// Whether the transposition table can encode this instance's frontiers.
    table_ok: bool,
}

/// Tiles equal up to mirroring.
struct TileType {
    /// Instance tile indices of this type.
    members: Vec<u32>,
    /// The distinct value sequences (one for a palindrome, else two), as codes and as values.
    variants: Vec<([u8; 3], [u32; 3])>,
    /// Every `(first cell, vertical, variant)` inside the board, by first cell.
    spots: Vec<(u16, bool, u8)>,
}

impl<'a> Model<'a> {
    /// `None` when the instance has more shared values than the cell codes can hold.
    fn new(instance: &'a Instance) -> Option<Self> {
        let n = instance.n as usize;
        let cells = n * n;
        // A value shown by one tile only can never be matched by another tile: all such values
        // share the code PRIVATE, which matches nothing; the others are numbered from 0.
        let mut holders: Vec<(u32, usize)> = Vec::new();
        for (i, t) in instance.tiles.iter().enumerate() {
            for &v in t {
                holders.push((v, i));
            }
        }
        holders.sort_unstable();
        holders.dedup();
        let mut shared: Vec<u32> = Vec::new();
        for w in holders.windows(2) {
            if w[0].0 == w[1].0 && shared.last() != Some(&w[0].0) {
                shared.push(w[0].0);
            }
        }
        if shared.len() > MAX_SHARED_VALUES {
            return None;
        }
        let code = |v: u32| match shared.binary_search(&v) {
            Ok(i) => i as u8,
            Err(_) => PRIVATE,
        };

        let mut types: Vec<TileType> = Vec::new();
        let mut canon: Vec<[u32; 3]> = Vec::new();
        for (i, t) in instance.tiles.iter().enumerate() {
            let rev = [t[2], t[1], t[0]];
            let key = (*t).min(rev);
            match canon.iter().position(|c| *c == key) {
                Some(ty) => types[ty].members.push(i as u32),
                None => {
                    canon.push(key);
                    let mut variants = vec![([code(t[0]), code(t[1]), code(t[2])], *t)];
                    if rev != *t {
                        variants.push(([code(rev[0]), code(rev[1]), code(rev[2])], rev));
                    }
                    types.push(TileType {
                        members: vec![i as u32],
                        variants,
                        spots: Vec::new(),
                    });
                }
            }
        }
        let table_ok = types.iter().all(|t| t.members.len() < 256);
        for t in &mut types {
            for p in 0..cells {
                for vertical in [false, true] {
                    let inside = if vertical {
                        p / n + 2 < n
                    } else {
                        p % n + 2 < n
                    };
                    for variant in 0..t.variants.len() {
                        if inside {
                            t.spots.push((p as u16, vertical, variant as u8));
                        }
                    }
                }
            }
        }

        let mut by_first = vec![Vec::new(); CODES];
        let mut all = Vec::new();
        for (ty, t) in types.iter().enumerate() {
            for (v, (codes, _)) in t.variants.iter().enumerate() {
                by_first[codes[0] as usize].push((ty as u16, v as u8));
                all.push((ty as u16, v as u8));
            }
        }

        let at = |r: isize, c: isize| {
            if r < 0 || c < 0 || r >= n as isize || c >= n as isize {
                cells
            } else {
                r as usize * n + c as usize
            }
        };
        let (mut up, mut down, mut left, mut right) = (vec![], vec![], vec![], vec![]);
        for p in 0..cells {
            let (r, c) = ((p / n) as isize, (p % n) as isize);
            up.push(at(r - 1, c));
            down.push(at(r + 1, c));
            left.push(at(r, c - 1));
            right.push(at(r, c + 1));
        }
        Some(Model {
            instance,
            n,
            cells,
            tiles: instance.tiles.len() as u32,
            types,
            by_first,
            all,
            up,
            down,
            left,
            right,
            table_ok,
        })
    }
}

/// Why a search stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Halt {
    /// The caller's deadline or stop flag.
    Limit,
    /// The node budget of a heuristic probe.
    Budget,
}

#[derive(Clone, Copy)]
struct Placed {
    cell: usize,
    vertical: bool,
    ty: u16,
    variant: u8,
}

/// The per-tile check runs when at most this many unplaced tiles may stay unplaced.
const SPOT_CHECK_SLACK: u32 = 0;

/// Nodes the first probe (all tiles on the whole board, depth first) may spend.
const PROBE_BUDGET: u64 = 200_000;

struct Search<'m, 'a> {
    model: &'m Model<'a>,
    limits: &'m SolveLimits,
    /// Cell codes, plus the sentinel cell at index `cells` (always EMPTY).
    board: Vec<u8>,
    /// FREE cells on the board.
    free: usize,
    used: Vec<u8>,
    /// Per value code: how many cells of the unplaced tiles show it.
    supply: Vec<u32>,
    /// Scratch for the look-ahead: per value code, free cells that must show it.
    demand: Vec<u32>,
    placed: u32,
    stack: Vec<Placed>,
    /// `best[p]` for the finished levels (`best[cells] = 0`); before a level is finished it
    /// holds the trivial bound.
    best: Vec<u32>,
    table: HashMap<Box<[u8]>, u8, BuildHasherDefault<FxHasher>>,
    key: Vec<u8>,
    nodes: u64,
    next_poll: u64,
    budget: u64,
    /// The largest legal partial placement seen.
    solution: Vec<Placed>,
}

impl<'m, 'a> Search<'m, 'a> {
    fn new(model: &'m Model<'a>, limits: &'m SolveLimits) -> Self {
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
        Search {
            model,
            limits,
            board,
            free: model.cells,
            used: vec![0; model.types.len()],
            demand: vec![0; CODES],
            supply,
            placed: 0,
            stack: Vec::new(),
            best,
            table: HashMap::default(),
            key: Vec::new(),
            nodes: 0,
            next_poll: POLL_EVERY,
            budget: u64::MAX,
            solution: Vec::new(),
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

    fn run(&mut self) -> SolveOutcome {
        let cells = self.model.cells;
        let top = self.best[0];

        // Probe: most instances take every tile, and then depth first finds it fast.
        self.reset(0);
        self.budget = self.nodes + PROBE_BUDGET;
        let probe = self.dfs(0, top);
        self.budget = u64::MAX;
        match probe {
            Ok(true) => return self.outcome(SolveStatus::Optimal, top),
            Ok(false) => self.best[0] = top - 1,
            Err(Halt::Budget) => {}
            Err(Halt::Limit) => return self.stopped(cells),
        }

        // Russian-doll levels, from the last cell back to the first.
        let mut level = cells;
        while level > 0 {
            let p = level - 1;
            let below = self.best[level];
            if below >= self.best[0] {
                // The global bound is reached: this is the optimum.
                self.best[0] = below;
                break;
            }
            if below >= self.best[p] {
                // Suffix p cannot hold more than suffix p + 1 (too few cells).
                self.best[p] = below;
                level = p;
                continue;
            }
            self.reset(p);
            let found = self.start_at(p, below + 1);
            match found {
                Ok(true) => self.best[p] = below + 1,
                Ok(false) => self.best[p] = below,
                Err(_) => return self.stopped(level),
            }
            level = p;
        }
        let optimum = self.best[0];
        debug_assert_eq!(self.solution.len() as u32, optimum);
        self.outcome(SolveStatus::Optimal, optimum)
    }

    fn outcome(&self, status: SolveStatus, bound: u32) -> SolveOutcome {
        SolveOutcome {
            status,
            placement: self.placements(),
            objective: self.solution.len() as u32,
            bound,
            nodes: self.nodes,
        }
    }

    /// The outcome when a limit stopped level `level - 1`: levels `level..` are finished.
    fn stopped(&self, level: usize) -> SolveOutcome {
        let objective = self.solution.len() as u32;
        // Tiles inside suffix `level`, plus those starting before it, each of which covers
        // three cells before `level + 2n`.
        let before = ((level + 2 * self.model.n).min(self.model.cells) / 3) as u32;
        let bound = (self.best[level].saturating_add(before))
            .min(self.best[0])
            .max(objective);
        let status = if objective == bound {
            SolveStatus::Optimal
        } else if objective > 0 {
            SolveStatus::Feasible
        } else {
            SolveStatus::Unknown
        };
        self.outcome(status, bound)
    }

    /// Level `p`: a tile starts at `p` and `target` tiles fit in suffix `p`?
    fn start_at(&mut self, p: usize, target: u32) -> Result<bool, Halt> {
        self.tick()?;
        let m = self.model;
        let list = match self.required(p) {
            Required::Any => &m.all[..],
            Required::Value(v) => &m.by_first[v as usize][..],
            Required::Dead => return Ok(false),
        };
        for &(ty, variant) in list {
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
        self.tick()?;
        if !self.look_ahead(j, need) {
            return Ok(false);
        }
        let slack = m.tiles - self.placed - need;
        if slack <= SPOT_CHECK_SLACK && !self.enough_placeable(j, slack) {
            return Ok(false);
        }
        let keyed = m.table_ok;
        if keyed {
            self.build_key(j);
            if let Some(&bound) = self.table.get(self.key.as_slice()) {
                if u32::from(bound) < need {
                    return Ok(false);
                }
            }
        }

        let list = match self.required(j) {
            Required::Any => &m.all[..],
            Required::Value(v) => &m.by_first[v as usize][..],
            Required::Dead => &[][..],
        };
        for &(ty, variant) in list {
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

    /// Whether at most `slack` unplaced tiles have no spot left that fits from `j` on.
    fn enough_placeable(&self, j: usize, slack: u32) -> bool {
        let m = self.model;
        let mut stuck = 0u32;
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
                stuck += left;
                if stuck > slack {
                    return false;
                }
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
            self.solution = self.stack.clone();
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
        key.extend_from_slice(&self.used);
    }

    /// Records that the node keyed in `self.key` can take at most `bound` more tiles.
    fn store(&mut self, bound: u32) {
        let bound = bound.min(255) as u8;
        if let Some(entry) = self.table.get_mut(self.key.as_slice()) {
            *entry = (*entry).min(bound);
            return;
        }
        if self.table.len() >= TABLE_CAPACITY {
            self.table.clear();
        }
        self.table
            .insert(self.key.clone().into_boxed_slice(), bound);
    }

    fn tick(&mut self) -> Result<(), Halt> {
        self.nodes += 1;
        if self.nodes >= self.budget {
            return Err(Halt::Budget);
        }
        if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + POLL_EVERY;
            let stop = self
                .limits
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed));
            let late = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
            if stop || late {
                return Err(Halt::Limit);
            }
        }
        Ok(())
    }

    /// The best solution as instance placements.
    fn placements(&self) -> Vec<Placement> {
        let m = self.model;
        let n = m.n;
        let mut next = vec![0usize; m.types.len()];
        self.solution
            .iter()
            .map(|p| {
                let ty = &m.types[p.ty as usize];
                let tile = ty.members[next[p.ty as usize]];
                next[p.ty as usize] += 1;
                let shown = ty.variants[p.variant as usize].1;
                Placement {
                    tile,
                    row: (p.cell / n) as u32,
                    col: (p.cell % n) as u32,
                    orientation: if p.vertical {
                        Orientation::V
                    } else {
                        Orientation::H
                    },
                    mirrored: shown != m.instance.tiles[tile as usize],
                }
            })
            .collect()
    }
}

/// What a free cell's decided neighbours demand of a tile covering it.
enum Required {
    Any,
    Value(u8),
    /// Two different values: the cell must stay empty.
    Dead,
}

/// The Firefox hasher (rustc's FxHash): fast, fine for table keys that are not adversarial.
#[derive(Default)]
struct FxHasher {
    hash: u64,
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.hash = (self.hash.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.write(&[i]);
    }

    fn write_usize(&mut self, i: usize) {
        self.write(&(i as u64).to_le_bytes());
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}
