//! Large-neighbourhood search for the native optimiser's incumbent (Shaw, "Using Constraint
//! Programming and Local Search Methods to Solve Vehicle Routing Problems", CP 1998).
//!
//! A move frees part of the incumbent, either the tiles touching a random window of the board
//! or a few random tiles, keeps the others in place and asks the tile-order search (`cover`)
//! whether one tile more than the incumbent fits around the kept ones, within a small node
//! budget. A success becomes the new incumbent. The moves come from a seeded generator, so a
//! run is deterministic for an instance and a node budget.
//!
//! Invariant: the incumbent is always a legal placement (every kept set is a subset of a legal
//! placement, and the tile-order search only adds pairwise compatible spots), and it never
//! shrinks. The search proves nothing here: its `Ok(false)` only says that this neighbourhood
//! holds no larger placement.

use super::cover::TileSearch;
use super::model::{Halt, Placed};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Nodes one move may spend.
const MOVE_BUDGET: u64 = 3_000;
/// Largest side of a window.
const MAX_SIDE: usize = 5;
/// Most tiles a random-tiles move frees.
const MAX_FREED: usize = 5;

pub(super) struct Improver {
    rng: ChaCha8Rng,
}

impl Improver {
    pub(super) fn new(seed: u64) -> Self {
        Improver {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Spends about `nodes` nodes of `tiles` on moves from `start` (a legal placement), and
    /// stops early once the incumbent has `cap` tiles. Returns the incumbent, never smaller
    /// than `start`; `Err(Halt::Limit)` when the caller's limits stop it (improvements found
    /// so far are then in `tiles.largest`).
    pub(super) fn improve(
        &mut self,
        tiles: &mut TileSearch,
        start: &[Placed],
        cap: u32,
        nodes: u64,
    ) -> Result<Vec<Placed>, Halt> {
        let Some(mut current) = start
            .iter()
            .map(|p| tiles.spot_index(p))
            .collect::<Option<Vec<usize>>>()
        else {
            return Ok(start.to_vec());
        };
        let end = tiles.clock.nodes.saturating_add(nodes);
        let mut kept = Vec::with_capacity(current.len());
        while tiles.clock.nodes < end && (current.len() as u32) < cap {
            self.choose_kept(tiles, &current, &mut kept);
            tiles.clock.allow(MOVE_BUDGET.min(end - tiles.clock.nodes));
            match tiles.search_around(&kept, current.len() as u32 + 1) {
                Ok(true) => {
                    current = tiles
                        .solution
                        .iter()
                        .map(|p| tiles.spot_index(p).expect("a spot of the search"))
                        .collect();
                }
                Ok(false) | Err(Halt::Budget) => {}
                Err(Halt::Limit) => return Err(Halt::Limit),
            }
        }
        Ok(current.iter().map(|&s| tiles.spot(s)).collect())
    }

    /// The spots of `current` that the next move keeps.
    fn choose_kept(&mut self, tiles: &TileSearch, current: &[usize], kept: &mut Vec<usize>) {
        kept.clear();
        let n = tiles.board_side();
        if current.is_empty() {
            return;
        }
        if self.rng.random_bool(0.5) {
            let side = MAX_SIDE.min(n);
            let (h, w) = (
                self.rng.random_range(2..=side),
                self.rng.random_range(2..=side),
            );
            let (r0, c0) = (
                self.rng.random_range(0..=n - h),
                self.rng.random_range(0..=n - w),
            );
            let mut window = [0u64; 4];
            for r in r0..r0 + h {
                for c in c0..c0 + w {
                    let cell = r * n + c;
                    window[cell / 64] |= 1 << (cell % 64);
                }
            }
            kept.extend(current.iter().copied().filter(|&s| {
                let mask = tiles.cells_of(s);
                (0..4).all(|q| mask[q] & window[q] == 0)
            }));
        } else {
            let freed = self.rng.random_range(1..=MAX_FREED.min(current.len()));
            kept.extend_from_slice(current);
            for _ in 0..freed {
                let at = self.rng.random_range(0..kept.len());
                kept.swap_remove(at);
            }
        }
    }
}
