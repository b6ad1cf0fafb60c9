//! Good placements fast, for the native optimiser's incumbent on tight boards.
//!
//! Three steps, each on a plain board (a value code and an owner per cell):
//! 1. the isolated-rows packing: tiles lying in every other row, one empty column between
//!    them, touch nothing, so any tiles will do (about `n^2 / 8` of them);
//! 2. a greedy fill in row-major order: at each empty cell, of the tiles that may start there
//!    legally, the one that touches most (matching neighbours and the border), random ties;
//! 3. simulated annealing over legal placements (Kirkpatrick, Gelatt and Vecchi, "Optimization
//!    by Simulated Annealing", Science 1983) with the moves of local search for maximum
//!    independent sets: pick a cell and a position covering it, put there the tile (type and
//!    variant) that evicts fewest placed tiles (those overlapping it, those touching it with
//!    unequal values, and a copy of its own type if every copy is placed), and accept the move
//!    when it loses no tile, or one tile with a small probability.
//!
//! On twelve tight boards (n 7..=12, about n^2/3 tiles, k 3..=8), 4M moves each (5-10 s):
//! 294 tiles in all with a probability of 0.001 for losing one tile, 296 with 0.0003, 288
//! with 0 (plateau moves only), 287 with 0.005, 278 with 0.02, 265 with 0.08; going back to
//! the best after 100 000 moves without a new best did not help (278 at 0.02). The native
//! optimiser's 20 s runs held 221 before.
//!
//! Invariant: the board always holds a legal placement (a move first evicts every tile the new
//! one would clash with), every copy count is respected, and the best placement seen never
//! shrinks; `Anneal::run` never returns fewer tiles than its start. The moves come from a
//! seeded generator, so a run that its move budget ends is deterministic for its seed.

use super::model::{Clock, Halt, Model, Placed, EMPTY, PRIVATE};
use super::SolveLimits;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// No tile on a cell.
const NONE: u32 = u32::MAX;
/// A move losing one tile is accepted with this probability (two tiles: its square).
const LOSE_ONE: f64 = 0.001;
/// Moves without a new best before the board goes back to the best.
const RESET_AFTER: u64 = u64::MAX;

/// What a run found, and whether the caller's limits stopped it.
pub(super) struct Incumbent {
    /// The best placement seen, never smaller than the start.
    pub(super) placement: Vec<Placed>,
    /// The caller's deadline or stop flag ended the run (the placement is still the best).
    pub(super) limited: bool,
}

/// A tile position on the board: its cells and the cells touching it from outside.
#[derive(Clone, Copy)]
struct Position {
    first: usize,
    vertical: bool,
    cells: [usize; 3],
    /// `(outside cell, index of the position's cell it touches)`; off-board sides omitted.
    rim: [(usize, u8); 8],
    rim_len: u8,
}

/// The annealing state, kept between runs so that the native optimiser can resume it.
pub(super) struct Anneal<'m, 'a> {
    model: &'m Model<'a>,
    rng: ChaCha8Rng,
    positions: Vec<Position>,
    /// Positions covering each cell.
    covering: Vec<Vec<u32>>,
    /// Copies of each type.
    copies: Vec<u32>,
    board: Board,
    best: Vec<Placed>,
    /// Whether the constructions have run (on the first run).
    built: bool,
    /// The probability of accepting a move that loses one tile.
    lose_one: f64,
    /// Moves without a new best before the board goes back to the best.
    reset_after: u64,
    /// Moves since the last new best.
    stale: u64,
}

/// A legal placement with its cells' codes and owners.
struct Board {
    /// Value code per cell (EMPTY when free), plus the sentinel cell `cells`.
    code: Vec<u8>,
    /// Index into `placed` per cell, NONE when free.
    owner: Vec<u32>,
    placed: Vec<(Placed, usize)>,
    used: Vec<u32>,
}

impl<'m, 'a> Anneal<'m, 'a> {
    pub(super) fn new(model: &'m Model<'a>, seed: u64) -> Self {
        let n = model.n;
        let mut positions = Vec::new();
        let mut covering = vec![Vec::new(); model.cells];
        for first in 0..model.cells {
            for vertical in [false, true] {
                let (r, c) = (first / n, first % n);
                if (if vertical { r } else { c }) + 2 >= n {
                    continue;
                }
                let step = if vertical { n } else { 1 };
                let cells = [first, first + step, first + 2 * step];
                let mut rim = [(0, 0); 8];
                let mut rim_len = 0;
                for (k, &p) in cells.iter().enumerate() {
                    for d in [model.up[p], model.down[p], model.left[p], model.right[p]] {
                        if d < model.cells && !cells.contains(&d) {
                            rim[rim_len] = (d, k as u8);
                            rim_len += 1;
                        }
                    }
                }
                for &p in &cells {
                    covering[p].push(positions.len() as u32);
                }
                positions.push(Position {
                    first,
                    vertical,
                    cells,
                    rim,
                    rim_len: rim_len as u8,
                });
            }
        }
        let mut code = vec![EMPTY; model.cells + 1];
        code[model.cells] = EMPTY;
        Anneal {
            model,
            rng: ChaCha8Rng::seed_from_u64(seed),
            positions,
            covering,
            copies: model.types.iter().map(|t| t.members.len() as u32).collect(),
            board: Board {
                code,
                owner: vec![NONE; model.cells],
                placed: Vec::new(),
                used: vec![0; model.types.len()],
            },
            best: Vec::new(),
            built: false,
            lose_one: LOSE_ONE,
            reset_after: RESET_AFTER,
            stale: 0,
        }
    }

    /// The best placement found from the best of `start` (a legal placement), what it holds
    /// and (on its first run) the two constructions, in at most `moves` more moves, or until it
    /// holds `cap` tiles or `limits` stop it (checked every few thousand moves, a few ms).
    /// Never smaller than `start`; deterministic for the seed when the budget or `cap` ends
    /// the runs.
    pub(super) fn run(
        &mut self,
        start: &[Placed],
        moves: u64,
        cap: u32,
        limits: &SolveLimits,
    ) -> Incumbent {
        if !self.built {
            self.built = true;
            self.best = start.to_vec();
            for built in [self.isolated_rows(), self.greedy()] {
                if built.len() > self.best.len() {
                    self.best = built;
                }
            }
            let best = self.best.clone();
            self.load(&best);
        } else if start.len() > self.best.len() {
            self.best = start.to_vec();
            self.load(start);
        }
        let mut clock = Clock::new(limits);
        clock.allow(moves);
        let limited = loop {
            if self.best.len() as u32 >= cap {
                break false;
            }
            match clock.tick() {
                Ok(()) => {}
                Err(Halt::Budget) => break false,
                Err(Halt::Limit) => break true,
            }
            self.step();
            self.stale += 1;
            if self.stale >= self.reset_after {
                self.stale = 0;
                let best = std::mem::take(&mut self.best);
                self.load(&best);
                self.best = best;
            }
        };
        Incumbent {
            placement: self.best.clone(),
            limited,
        }
    }

    /// Replaces the board by `placement` (legal).
    fn load(&mut self, placement: &[Placed]) {
        while !self.board.placed.is_empty() {
            self.remove(self.board.placed.len() - 1);
        }
        for p in placement {
            self.put(self.position_of(p), p.ty, p.variant);
        }
    }

    fn position_of(&self, p: &Placed) -> usize {
        self.covering[p.cell]
            .iter()
            .map(|&i| i as usize)
            .find(|&i| {
                self.positions[i].first == p.cell && self.positions[i].vertical == p.vertical
            })
            .expect("a placed tile lies on the board")
    }

    /// Tiles in every other row with an empty column between them: they touch nothing.
    fn isolated_rows(&self) -> Vec<Placed> {
        let n = self.model.n;
        let mut left: Vec<(u16, u32)> = self
            .copies
            .iter()
            .enumerate()
            .map(|(t, &c)| (t as u16, c))
            .collect();
        let mut out = Vec::new();
        for r in (0..n).step_by(2) {
            for c in (0..n.saturating_sub(2)).step_by(4) {
                let Some(slot) = left.iter_mut().find(|(_, c)| *c > 0) else {
                    return out;
                };
                slot.1 -= 1;
                out.push(Placed {
                    cell: r * n + c,
                    vertical: false,
                    ty: slot.0,
                    variant: 0,
                });
            }
        }
        out
    }

    /// Row-major greedy fill from an empty board: at each free cell, of the legal tiles
    /// starting there, one that touches most (matching neighbours and the border).
    fn greedy(&mut self) -> Vec<Placed> {
        self.load(&[]);
        for cell in 0..self.model.cells {
            if self.board.owner[cell] != NONE {
                continue;
            }
            let mut pick: Option<(usize, u16, u8)> = None;
            let (mut best, mut ties) = (0u32, 0u32);
            for k in 0..self.covering[cell].len() {
                let pos = self.covering[cell][k] as usize;
                if self.positions[pos].first != cell {
                    continue;
                }
                let p = self.positions[pos];
                if p.cells.iter().any(|&c| self.board.owner[c] != NONE) {
                    continue;
                }
                let border = 8 - u32::from(p.rim_len);
                for &(ty, v) in &self.model.all {
                    if self.board.used[ty as usize] >= self.copies[ty as usize] {
                        continue;
                    }
                    let codes = self.model.types[ty as usize].variants[v as usize].0;
                    let mut touch = border;
                    let legal = p.rim[..p.rim_len as usize].iter().all(|&(d, k)| {
                        let near = self.board.code[d];
                        if near == EMPTY {
                            return true;
                        }
                        touch += 1;
                        near == codes[k as usize] && near != PRIVATE
                    });
                    if !legal {
                        continue;
                    }
                    let score = touch + 1;
                    if score > best {
                        (best, ties) = (score, 1);
                        pick = Some((pos, ty, v));
                    } else if score == best {
                        ties += 1;
                        if self.rng.random_range(0..ties) == 0 {
                            pick = Some((pos, ty, v));
                        }
                    }
                }
            }
            if let Some((pos, ty, variant)) = pick {
                self.put(pos, ty, variant);
            }
        }
        self.board.placed.iter().map(|&(p, _)| p).collect()
    }

    /// One annealing move.
    fn step(&mut self) {
        let cells = self.model.cells;
        let mut cell = self.rng.random_range(0..cells);
        for _ in 0..3 {
            if self.board.owner[cell] == NONE {
                break;
            }
            cell = self.rng.random_range(0..cells);
        }
        let list = &self.covering[cell];
        if list.is_empty() {
            return;
        }
        let pos = list[self.rng.random_range(0..list.len())] as usize;
        let p = self.positions[pos];
        // The tiles the position overlaps, then the occupied rim cells of other tiles.
        let mut base = [NONE; 3];
        let mut base_len = 0;
        for &c in &p.cells {
            let o = self.board.owner[c];
            if o != NONE && !base[..base_len].contains(&o) {
                base[base_len] = o;
                base_len += 1;
            }
        }
        let mut rim = [(0u8, 0u8, NONE); 8];
        let mut rim_len = 0;
        for &(d, k) in &p.rim[..p.rim_len as usize] {
            let o = self.board.owner[d];
            if o != NONE && !base[..base_len].contains(&o) {
                rim[rim_len] = (k, self.board.code[d], o);
                rim_len += 1;
            }
        }
        // The tile evicting fewest, random ties.
        let mut pick: Option<(u16, u8)> = None;
        let (mut best, mut ties) = (u32::MAX, 0u32);
        for &(ty, v) in &self.model.all {
            let codes = self.model.types[ty as usize].variants[v as usize].0;
            let mut evicted = [NONE; 8];
            let mut len = 0;
            for &(k, near, o) in &rim[..rim_len] {
                if (near != codes[k as usize] || near == PRIVATE) && !evicted[..len].contains(&o) {
                    evicted[len] = o;
                    len += 1;
                }
            }
            let mut cost = (base_len + len) as u32;
            if self.board.used[ty as usize] >= self.copies[ty as usize] {
                let own = base[..base_len]
                    .iter()
                    .chain(&evicted[..len])
                    .any(|&o| self.board.placed[o as usize].0.ty == ty);
                cost += u32::from(!own);
            }
            if cost < best {
                (best, ties) = (cost, 1);
                pick = Some((ty, v));
            } else if cost == best {
                ties += 1;
                if self.rng.random_range(0..ties) == 0 {
                    pick = Some((ty, v));
                }
            }
        }
        let Some((ty, variant)) = pick else {
            return;
        };
        let accept = match best {
            0 | 1 => true,
            2 => self.rng.random_bool(self.lose_one),
            3 => self.rng.random_bool(self.lose_one * self.lose_one),
            _ => false,
        };
        if !accept {
            return;
        }
        // Evict: overlapping, clashing, and a copy of the type if every copy is placed.
        let codes = self.model.types[ty as usize].variants[variant as usize].0;
        let mut doomed: Vec<u32> = base[..base_len].to_vec();
        for &(k, near, o) in &rim[..rim_len] {
            if (near != codes[k as usize] || near == PRIVATE) && !doomed.contains(&o) {
                doomed.push(o);
            }
        }
        let own = doomed
            .iter()
            .any(|&o| self.board.placed[o as usize].0.ty == ty);
        if self.board.used[ty as usize] >= self.copies[ty as usize] && !own {
            let copies: Vec<u32> = (0..self.board.placed.len() as u32)
                .filter(|&i| self.board.placed[i as usize].0.ty == ty)
                .collect();
            doomed.push(copies[self.rng.random_range(0..copies.len())]);
        }
        // Remove from the highest index down: `remove` moves the last tile into the hole.
        doomed.sort_unstable_by(|a, b| b.cmp(a));
        for o in doomed {
            self.remove(o as usize);
        }
        self.put(pos, ty, variant);
        if self.board.placed.len() > self.best.len() {
            self.stale = 0;
            self.best = self.board.placed.iter().map(|&(p, _)| p).collect();
        }
    }

    /// Places variant `variant` of type `ty` at position `pos` (its cells free, its contacts
    /// matching).
    fn put(&mut self, pos: usize, ty: u16, variant: u8) {
        let p = &self.positions[pos];
        let tile = Placed {
            cell: p.first,
            vertical: p.vertical,
            ty,
            variant,
        };
        let codes = self.model.types[ty as usize].variants[variant as usize].0;
        let id = self.board.placed.len() as u32;
        for (k, &c) in self.positions[pos].cells.iter().enumerate() {
            debug_assert_eq!(self.board.owner[c], NONE);
            self.board.owner[c] = id;
            self.board.code[c] = codes[k];
        }
        self.board.used[tile.ty as usize] += 1;
        self.board.placed.push((tile, pos));
    }

    /// Removes placed tile `id`; the last placed tile takes its index.
    fn remove(&mut self, id: usize) {
        let (tile, pos) = self.board.placed.swap_remove(id);
        for &c in &self.positions[pos].cells {
            self.board.owner[c] = NONE;
            self.board.code[c] = EMPTY;
        }
        self.board.used[tile.ty as usize] -= 1;
        if id < self.board.placed.len() {
            let moved = self.board.placed[id].1;
            for &c in &self.positions[moved].cells {
                self.board.owner[c] = id as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::Model;
    use super::super::native::placements;
    use super::super::{generate, parse_batch, verify, BoundBy, Difficulty, Instance, SolveLimits};
    use super::*;
    use std::time::{Duration, Instant};

    /// One run of a fresh annealing.
    fn best_placement(
        model: &Model,
        start: &[Placed],
        seed: u64,
        moves: u64,
        cap: u32,
        limits: &SolveLimits,
    ) -> Incumbent {
        Anneal::new(model, seed).run(start, moves, cap, limits)
    }

    /// A tight board: n in 7..=14, about n^2/3 tiles or more, values 0..=k with k in 3..=8.
    fn tight(rng: &mut ChaCha8Rng, n: u32) -> Instance {
        let k = rng.random_range(3..=8);
        let count = (n * n / 3) as usize + rng.random_range(0..=3);
        let tiles = (0..count)
            .map(|_| std::array::from_fn(|_| rng.random_range(0..=k)))
            .collect();
        Instance {
            id: format!("tight-{n}"),
            difficulty: Difficulty::Hard,
            n,
            k,
            tiles,
        }
    }

    /// The placement as the verifier sees it, checked.
    fn check(model: &Model, found: &[Placed]) {
        let placement = placements(model, found);
        verify(model.instance, &placement).unwrap_or_else(|v| panic!("{}: {v}", model.instance.id));
    }

    #[test]
    fn placements_verify_grow_and_repeat_for_a_seed() {
        let limits = SolveLimits::default();
        let mut instances: Vec<Instance> = generate(0xC0, 2, 10).into_iter().flatten().collect();
        let mut rng = ChaCha8Rng::seed_from_u64(0xC1);
        for n in [7, 9, 11, 14] {
            instances.push(tight(&mut rng, n));
        }
        for inst in &instances {
            let model = Model::new(inst).expect("few values");
            let cap = BoundBy::count_bound(inst);
            let first = best_placement(&model, &[], 5, 20_000, cap, &limits);
            assert!(!first.limited);
            check(&model, &first.placement);
            let again = best_placement(&model, &[], 5, 20_000, cap, &limits);
            assert_eq!(again.placement, first.placement, "{}", inst.id);
            // From a start of its own, never smaller than the start.
            let start = &first.placement;
            let more = best_placement(&model, start, 6, 5_000, cap, &limits);
            check(&model, &more.placement);
            assert!(more.placement.len() >= start.len(), "{}", inst.id);
            // Resumed runs keep the best.
            let mut anneal = Anneal::new(&model, 7);
            let mut held = 0;
            for _ in 0..3 {
                let found = anneal.run(&[], 3_000, cap, &limits);
                check(&model, &found.placement);
                assert!(found.placement.len() >= held, "{}", inst.id);
                held = found.placement.len();
            }
        }
    }

    #[test]
    fn a_tight_12_by_12_board_gets_at_least_the_isolated_rows() {
        let mut rng = ChaCha8Rng::seed_from_u64(0xC2);
        let inst = tight(&mut rng, 12);
        let model = Model::new(&inst).expect("few values");
        let found = best_placement(&model, &[], 1, 50_000, model.tiles, &SolveLimits::default());
        check(&model, &found.placement);
        // Six rows of three tiles, an empty row and column between them.
        assert!(found.placement.len() >= 18, "{}", found.placement.len());
    }

    #[test]
    fn a_past_deadline_stops_at_once_with_the_start_kept() {
        let mut rng = ChaCha8Rng::seed_from_u64(0xC3);
        let inst = tight(&mut rng, 10);
        let model = Model::new(&inst).expect("few values");
        let limits = SolveLimits {
            deadline: Some(Instant::now()),
            stop: None,
        };
        let start = Instant::now();
        let found = best_placement(&model, &[], 1, u64::MAX, model.tiles, &limits);
        assert!(found.limited);
        assert!(start.elapsed() < Duration::from_millis(200));
        check(&model, &found.placement);
    }

    /// The annealing alone on a batch file (release build, by hand): `DOMINO_FILE=path
    /// DOMINO_SECS=20 cargo test --release -p cores --lib domino::construct::tests::bench --
    /// --ignored --nocapture`; prints the best at 1, 5 and `DOMINO_SECS` seconds.
    #[test]
    #[ignore]
    fn bench_construct() {
        fn knob<T: std::str::FromStr>(name: &str, default: T) -> T {
            std::env::var(name)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(default)
        }
        let path = std::env::var("DOMINO_FILE").expect("DOMINO_FILE");
        let secs: f64 = knob("DOMINO_SECS", 20.0);
        let seed: u64 = knob("DOMINO_SEED", 1);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut total = [0usize; 3];
        for inst in parse_batch(&text).unwrap() {
            let model = Model::new(&inst).expect("few values");
            let cap = BoundBy::count_bound(&inst);
            let begin = Instant::now();
            let mut anneal = Anneal::new(&model, seed);
            anneal.lose_one = knob("DOMINO_LOSE", LOSE_ONE);
            anneal.reset_after = knob("DOMINO_RESET", RESET_AFTER);
            // DOMINO_MOVES: checkpoints after that many moves, a quarter and a sixteenth of it.
            let moves: u64 = knob("DOMINO_MOVES", 0);
            let mut row = Vec::new();
            let mut done = 0;
            for (i, at) in [1.0, 5.0, secs].into_iter().enumerate() {
                let (limits, budget) = if moves > 0 {
                    let upto = moves >> (4 - 2 * i.min(2));
                    let budget = upto - done;
                    done = upto;
                    (SolveLimits::default(), budget)
                } else {
                    let deadline = Some(begin + Duration::from_secs_f64(at));
                    (
                        SolveLimits {
                            deadline,
                            stop: None,
                        },
                        u64::MAX,
                    )
                };
                let found = anneal.run(&[], budget, cap, &limits);
                check(&model, &found.placement);
                row.push(found.placement.len());
                total[i] += found.placement.len();
            }
            println!(
                "{:4} n={:2} m={:2} k={} cap={cap} best {:?} {:.2}s",
                inst.id,
                inst.n,
                inst.tiles.len(),
                inst.k,
                row,
                begin.elapsed().as_secs_f64()
            );
        }
        println!("total {total:?}");
    }
}
