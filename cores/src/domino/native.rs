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
/// Value codes must stay below this for the table's key encoding (`0x80 | value`).
const MAX_VALUE_CODES: usize = 0x7E;
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
    let model = Model::new(instance);
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
}

impl<'a> Model<'a> {
    fn new(instance: &'a Instance) -> Self {
        let n = instance.n as usize;
        let cells = n * n;
        let mut values: Vec<u32> = instance.tiles.iter().flatten().copied().collect();
        values.sort_unstable();
        values.dedup();
        let table_ok = values.len() <= MAX_VALUE_CODES;
        let code = |v: u32| values.binary_search(&v).unwrap_or(0).min(0xFD) as u8;

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
                    });
                }
            }
        }
        let table_ok = table_ok && types.iter().all(|t| t.members.len() < 256);

        let mut by_first = vec![Vec::new(); values.len()];
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
        Model {
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
        }
    }
}

/// A limit stopped the search.
struct Halt;

/// What the transposition table says about a node.
enum Probe {
    /// A proven bound says the node cannot reach its target.
    Unreachable,
    /// Nothing useful known; the key to store the node's result under.
    Unknown(Vec<u8>),
}

#[derive(Clone, Copy)]
struct Placed {
    cell: usize,
    vertical: bool,
    ty: u16,
    variant: u8,
}

struct Search<'m, 'a> {
    model: &'m Model<'a>,
    limits: &'m SolveLimits,
    /// Cell codes, plus the sentinel cell at index `cells` (always EMPTY).
    board: Vec<u8>,
    /// FREE cells on the board.
    free: usize,
    used: Vec<u8>,
    placed: u32,
    stack: Vec<Placed>,
    /// `best[p]` for the finished levels (`best[cells] = 0`).
    best: Vec<u32>,
    table: HashMap<Box<[u8]>, u8, BuildHasherDefault<FxHasher>>,
    nodes: u64,
    next_poll: u64,
    solution: Vec<Placed>,
}

impl<'m, 'a> Search<'m, 'a> {
    fn new(model: &'m Model<'a>, limits: &'m SolveLimits) -> Self {
        let mut board = vec![FREE; model.cells + 1];
        board[model.cells] = EMPTY;
        Search {
            model,
            limits,
            board,
            free: model.cells,
            used: vec![0; model.types.len()],
            placed: 0,
            stack: Vec::new(),
            best: vec![0; model.cells + 1],
            table: HashMap::default(),
            nodes: 0,
            next_poll: POLL_EVERY,
            solution: Vec::new(),
        }
    }

    fn run(&mut self) -> SolveOutcome {
        let cells = self.model.cells;
        let m = self.model.tiles;
        let mut level = cells;
        let mut halted = false;
        while level > 0 {
            let p = level - 1;
            if self.best[level] >= m {
                self.best[p] = m;
                level = p;
                continue;
            }
            // Cells before p are outside this level's region.
            for q in 0..cells {
                self.board[q] = if q < p { EMPTY } else { FREE };
            }
            self.free = cells - p;
            let target = self.best[level] + 1;
            match self.start_at(p, target) {
                Ok(true) => self.best[p] = target,
                Ok(false) => self.best[p] = self.best[level],
                Err(Halt) => {
                    halted = true;
                    break;
                }
            }
            level = p;
        }
        let objective = self.solution.len() as u32;
        let (status, bound) = if halted {
            // Tiles within suffix `level`, plus those starting before it: each of those covers
            // three cells below `level + 2n`.
            let before = ((level + 2 * self.model.n) / 3) as u32;
            let bound = (self.best[level] + before)
                .min(m)
                .min((cells / 3) as u32)
                .max(objective);
            let status = if objective == bound {
                SolveStatus::Optimal
            } else if objective > 0 {
                SolveStatus::Feasible
            } else {
                SolveStatus::Unknown
            };
            (status, bound)
        } else {
            debug_assert_eq!(self.best[0], objective);
            (SolveStatus::Optimal, self.best[0])
        };
        SolveOutcome {
            status,
            placement: self.placements(),
            objective,
            bound,
            nodes: self.nodes,
        }
    }

    /// Level `p`: a tile starts at `p` and `target` tiles fit in suffix `p`?
    fn start_at(&mut self, p: usize, target: u32) -> Result<bool, Halt> {
        self.tick()?;
        let options = self.options(p);
        for (ty, variant, vertical) in options {
            if self.used[ty as usize] as usize >= self.model.types[ty as usize].members.len() {
                continue;
            }
            if !self.fits(p, ty, variant, vertical) {
                continue;
            }
            self.place(p, ty, variant, vertical);
            let found = self.dfs(p + 1, target - 1);
            self.unplace();
            if found? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Can `need` more tiles be placed from cell `j` on?
    fn dfs(&mut self, mut j: usize, need: u32) -> Result<bool, Halt> {
        if need == 0 {
            self.solution = self.stack.clone();
            return Ok(true);
        }
        let cells = self.model.cells;
        while j < cells && self.board[j] != FREE {
            j += 1;
        }
        if j == cells
            || need > self.model.tiles - self.placed
            || need > self.best[j]
            || 3 * need as usize > self.free
        {
            return Ok(false);
        }
        self.tick()?;
        let key = if self.model.table_ok {
            match self.probe(j, need) {
                Probe::Unreachable => return Ok(false),
                Probe::Unknown(key) => Some(key),
            }
        } else {
            None
        };

        for (ty, variant, vertical) in self.options(j) {
            if self.used[ty as usize] as usize >= self.model.types[ty as usize].members.len() {
                continue;
            }
            if !self.fits(j, ty, variant, vertical) {
                continue;
            }
            self.place(j, ty, variant, vertical);
            let found = self.dfs(j + 1, need - 1);
            self.unplace();
            if found? {
                return Ok(true);
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
        if let Some(key) = key {
            self.store(key, need - 1);
        }
        Ok(false)
    }

    /// The `(type, variant, vertical)` candidates at free cell `j`, before the fit check:
    /// the first value must equal a valued neighbour above or to the left.
    fn options(&self, j: usize) -> Vec<(u16, u8, bool)> {
        let m = self.model;
        let up = self.board[m.up[j]];
        let left = self.board[m.left[j]];
        let required = match (up < EMPTY, left < EMPTY) {
            (true, true) if up != left => return Vec::new(),
            (true, _) => Some(up),
            (_, true) => Some(left),
            _ => None,
        };
        let list = match required {
            Some(v) => &m.by_first[v as usize],
            None => &m.all,
        };
        let mut out = Vec::with_capacity(list.len() * 2);
        for &(ty, variant) in list {
            out.push((ty, variant, false));
            out.push((ty, variant, true));
        }
        out
    }

    /// Whether the tile fits at `j`: cells free and inside, every touching value equal.
    fn fits(&self, j: usize, ty: u16, variant: u8, vertical: bool) -> bool {
        let m = self.model;
        let n = m.n;
        let v = m.types[ty as usize].variants[variant as usize].0;
        let b = &self.board;
        let ok = |cell: usize, value: u8| {
            let w = b[cell];
            w >= EMPTY || w == value
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
    }

    fn unplace(&mut self) {
        let p = self.stack.pop().expect("unplace after place");
        let step = if p.vertical { self.model.n } else { 1 };
        for i in 0..3 {
            self.board[p.cell + i * step] = FREE;
        }
        self.free += 3;
        self.used[p.ty as usize] -= 1;
        self.placed -= 1;
    }

    /// The frontier key of cell `j`, unless the table already proves `need` unreachable.
    fn probe(&self, j: usize, need: u32) -> Probe {
        let m = self.model;
        let n = m.n;
        let mut key = Vec::with_capacity(3 + 2 * n + self.used.len());
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
        match self.table.get(key.as_slice()) {
            Some(&bound) if u32::from(bound) < need => Probe::Unreachable,
            _ => Probe::Unknown(key),
        }
    }

    fn store(&mut self, key: Vec<u8>, bound: u32) {
        if self.table.len() >= TABLE_CAPACITY {
            self.table.clear();
        }
        let bound = bound.min(255) as u8;
        let entry = self.table.entry(key.into_boxed_slice()).or_insert(bound);
        *entry = (*entry).min(bound);
    }

    fn tick(&mut self) -> Result<(), Halt> {
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + POLL_EVERY;
            let stop = self
                .limits
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed));
            let late = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
            if stop || late {
                return Err(Halt);
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
