//! The domino instance in search form, shared by the native optimiser's two searches.
//!
//! Values become one-byte codes: a value that only one tile shows can never be matched by
//! another tile, so all such values share the code [`PRIVATE`], which matches nothing (not even
//! itself); the other values are numbered from 0. Tiles equal up to mirroring form one type
//! with a count, so that permuting identical tiles is never searched. Cells are numbered
//! row-major, `p = row * n + col`; neighbour tables point off-board neighbours at a sentinel
//! cell `cells` that always reads EMPTY.

use super::Instance;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Cell codes: a free (undecided) cell, a cell decided empty; value codes are below both.
pub(super) const FREE: u8 = 0xFF;
pub(super) const EMPTY: u8 = 0xFE;
/// The code of every value that only one tile shows; it matches nothing, not even itself.
pub(super) const PRIVATE: u8 = 0x7D;
/// Value codes stay below PRIVATE, so that a table key can tag them (`0x80 | code`).
const MAX_SHARED_VALUES: usize = PRIVATE as usize;
/// Size of the per-code arrays.
pub(super) const CODES: usize = PRIVATE as usize + 1;
/// Nodes between two looks at the clock and the stop flag.
const POLL_EVERY: u64 = 1 << 12;

/// The instance in search form: value codes, tile types, neighbour tables.
pub(super) struct Model<'a> {
    pub(super) instance: &'a Instance,
    pub(super) n: usize,
    pub(super) cells: usize,
    pub(super) tiles: u32,
    pub(super) types: Vec<TileType>,
    /// `(type, variant)` pairs whose first value is the given code.
    pub(super) by_first: Vec<Vec<(u16, u8)>>,
    pub(super) all: Vec<(u16, u8)>,
    /// Neighbour cell of each cell, or `cells` (a sentinel cell that is always EMPTY).
    pub(super) up: Vec<usize>,
    pub(super) down: Vec<usize>,
    pub(super) left: Vec<usize>,
    pub(super) right: Vec<usize>,
    /// Whether the transposition table can encode this instance's frontiers.
    pub(super) table_ok: bool,
}

/// Tiles equal up to mirroring.
pub(super) struct TileType {
    /// Instance tile indices of this type.
    pub(super) members: Vec<u32>,
    /// The distinct value sequences (one for a palindrome, else two), as codes and as values.
    pub(super) variants: Vec<([u8; 3], [u32; 3])>,
    /// Every `(first cell, vertical, variant)` inside the board, by first cell.
    pub(super) spots: Vec<(u16, bool, u8)>,
}

impl<'a> Model<'a> {
    /// `None` when the instance has more shared values than the cell codes can hold.
    pub(super) fn new(instance: &'a Instance) -> Option<Self> {
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

/// One placed tile in search form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Placed {
    pub(super) cell: usize,
    pub(super) vertical: bool,
    pub(super) ty: u16,
    pub(super) variant: u8,
}

/// Why a search stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Halt {
    /// The caller's deadline or stop flag.
    Limit,
    /// The node budget the caller gave this run of the search.
    Budget,
}

/// Counts a search's nodes and polls the caller's limits and the node budget.
pub(super) struct Clock<'l> {
    limits: &'l super::SolveLimits,
    pub(super) nodes: u64,
    next_poll: u64,
    /// No node past this count.
    pub(super) budget: u64,
}

impl<'l> Clock<'l> {
    pub(super) fn new(limits: &'l super::SolveLimits) -> Self {
        Clock {
            limits,
            nodes: 0,
            next_poll: POLL_EVERY,
            budget: u64::MAX,
        }
    }

    pub(super) fn limits(&self) -> &'l super::SolveLimits {
        self.limits
    }

    /// Allows `nodes` more nodes from now.
    pub(super) fn allow(&mut self, nodes: u64) {
        self.budget = self.nodes.saturating_add(nodes);
    }

    /// Counts a node; `Err` when a limit or the budget says stop.
    pub(super) fn tick(&mut self) -> Result<(), Halt> {
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
}
