//! The native exact optimiser of the domino benchmark (the `native` configuration).
//!
//! Three native searches share the work, all on the instance in search form (`model`):
//! 1. a short depth-first probe over the cells for a placement of every tile: most instances
//!    take every tile, and then the trivial bound proves it optimal;
//! 2. the tile-order search (`cover`): do `ub` tiles fit? It finds tight placements that the
//!    cell order misses, and proves `ub` infeasible (then `ub` drops by one);
//! 3. the Russian-doll cell search (`rds`), which ends with the proven optimum.
//!
//! Before the first turn and after each, simulated annealing over legal placements
//! (`construct`) improves the incumbent, resumed where it stopped: on tight boards (the tiles
//! cover about the whole board) the searches above hold poor placements (13 tiles on an
//! 11 x 11 board where the annealing finds 28), and on 12 x 12 boards with 45 or more tile
//! types the tile search does not even start (too many spots).
//!
//! Searches 2 and 3 alternate with doubling node budgets until one settles the optimum or a
//! limit stops them; the Russian-doll search keeps its finished levels and its table between
//! turns. Each turn also restarts the probe (search 1, asking for `ub` tiles) a few times, each
//! restart trying the tiles at a cell in a new random order with at most 20 000 nodes and the
//! table's bounds kept: on tight boards the placements of every tile are rare and a fixed order
//! misses them, while short randomised runs find them (b04-h2: every tile of 22, found in 5 s;
//! the turns alone never found it in 20 s). While `ub` is the number of tiles the restarts get
//! twice a turn's nodes, otherwise a quarter. A restart that runs to its end is a proof, as the
//! probe's is.
//!
//! While `ub` is the number of tiles, each turn first spends twice its nodes on restarts of the
//! tile search's cell-order fill (`TileSearch::fill`: most constrained cell first, its
//! compatible spots in a new random order each restart, then "empty" against the budget of
//! `cells - 3 * tiles` empty cells), at most 5 000 nodes each; once CaDiCaL has joined (below)
//! a quarter of a turn. It finds the placements of every tile that the cell-order probe misses:
//! b03-h1 (10 x 10, 24 tiles; the probe's restarts stall at 23) in 8 s of CPU, b04-h2 in
//! 0.2 s (was 5 s). Alone on b03-h1 with 5 000-node restarts it needs 0.1 to 8 s of CPU
//! depending on the seed (2 of 7 seeds not within 20 s); 20 000-node restarts did no better,
//! random tie-breaking between equally constrained cells worse (1 of 6 seeds within 20 s),
//! and "empty" tried first much worse (never past 8 tiles).
//!
//! On boards of at most 81 cells (9 x 9), once the turns are long and the question is still
//! whether every tile fits, CaDiCaL joins on the CNF of `sat` (with its counting constraints,
//! `Variant::NATIVE`) and gets half a turn's count of nodes as conflicts per turn, most of the
//! time from then on: it refutes every tile of b04-m1 (7 x 7, 12 tiles) in about 5 s (3 s of
//! CaDiCaL alone), where the native searches need 145 s. On larger boards that the tiles
//! would nearly fill (`tight`: at least nine tenths of the board) it joins the question too,
//! with as much time per turn as the other searches took.
//! Its placements are checked with `verify` before they are returned.
//!
//! Once a search has proven that not every tile fits (`ub` below the number of tiles, which
//! the count bound `n^2 / 3` already gives on seed 001's tight boards), CaDiCaL asks "do `ub`
//! tiles fit?" on every board, and each turn gets as much time as the turn's other searches
//! took (its conflict budget from the rate it last ran at): a refutation lowers `ub` by one
//! and is reported as `BoundBy::Sat`. On the tight suite's boards of at most 10 x 10 it is
//! what brings the bound below the count (the cell search's levels do not get there within
//! minutes), and a placement of `ub` tiles it finds is a proof.
//!
//! Asking CaDiCaL the other way as well on tight boards, "do `best + 1` tiles fit?" (`best`
//! the incumbent's size; the same formula in CaDiCaL's default configuration, as many
//! conflicts per turn as the question at `ub`), was measured and not kept: on b01-t1 to b01-t8
//! of `bench-specs/domino/suite-tight/` at 300 s it placed nothing on any of them, the two
//! questions split the SAT time (140 to 197 s a run, about 75 s each) and the objectives were
//! those of the run without it but one (b01-t6: 38, one fewer). With all the time, CaDiCaL
//! (Debian's `cadical -q`, on the DIMACS that `dancehall domino certify --keep` writes) does
//! find more than the 300-s runs place: 32 tiles on b01-t1 in 99 s, 26 on b01-t2 in 279 s
//! (native: 31 and 25), while 28 on b01-t7 stayed open at 1 800 s. Part of the tight
//! suite's gap is on the placement side.
//!
//! Once the turns are long (the instance is hard), each turn also spends a share on
//! improving the incumbent by large-neighbourhood moves (`improve`), so that a run stopped by
//! its deadline returns a good placement, not only a good bound. Every pruning rule is a proven
//! bound, so `Optimal` is a proof; `bound` is always a proven upper bound and `placement`
//! always legal (the tests check it with `verify`).
//!
//! Internal consistency is checked in every build, not only in debug builds: a bound below
//! a placement found, or a finished proof whose placement is not of the proven size, is
//! reported as [`SolveOutcome::fault`] with the figures as they are, never masked (the
//! worker then records the run as `wrong`).

use super::construct::Anneal;
use super::cover::TileSearch;
use super::improve::Improver;
use super::model::{Halt, Model, Placed};
use super::rds::CellSearch;
use super::sat::{Answer, FitQuery};
use super::{BoundBy, Instance, Orientation, Placement, MAX_N};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Nodes the probe may spend.
const PROBE_BUDGET: u64 = 200_000;
/// Nodes of the first turn of searches 2 and 3; each later turn doubles it.
const FIRST_TURN: u64 = 50_000;
/// The tile-order search gets this fraction of a turn's nodes (its nodes cost more).
const TILE_SHARE: u64 = 4;
/// Each turn also spends `1 / TILE_SHARE` of its nodes on restarts of the probe, each in a
/// new random tile order and with at most this many nodes.
const RESTART_BUDGET: u64 = 20_000;
/// While the question is whether every tile fits, the restarts get this many times a turn's
/// nodes instead: a placement of every tile is then what the other searches miss.
const RESTART_SHARE_ALL: u64 = 2;
/// While the question is whether every tile fits, each turn also spends this many times its
/// nodes on restarts of the tile search's cell-order fill (`TileSearch::fill`), each in a new
/// random spot order (a quarter of a turn once CaDiCaL has joined).
const FILL_SHARE_ALL: u64 = 2;
/// Nodes of one restart of the fill.
const FILL_RESTART: u64 = 5_000;
/// Turns from this many nodes on also spend `1 / TILE_SHARE` of their nodes improving the
/// incumbent (`improve`): an instance still open after a few turns is a hard one.
const IMPROVE_FROM: u64 = 8 * FIRST_TURN;

/// While the question is whether every tile fits, CaDiCaL joins (`sat`) only on boards of at
/// most this many cells (once not every tile fits, on every board): there it refutes every
/// tile of b04-m1 (7 x 7) in about 3 s, where on 10 x 10 boards it needs 30 s to minutes to
/// place every tile of b03-h1 (the fill does it in seconds).
const SAT_MAX_CELLS: usize = 81;
/// From turns of `IMPROVE_FROM` nodes on, while the question is whether every tile fits,
/// CaDiCaL gets `turn / SAT_SHARE` conflicts per turn (most of the turn's time: a conflict
/// costs about as much as 300 nodes).
const SAT_SHARE: u64 = 2;

/// Whether the tiles would cover at least nine tenths of the board (seed 001's "much more
/// difficult instances", the generator's tight boards): there every tile fitting is the
/// exception, and on boards larger than [`SAT_MAX_CELLS`] CaDiCaL is the only search that
/// refutes it (b01-t1 of the tight suite, 11 x 11 with 39 tiles: refuted in 109 s of
/// CaDiCaL alone, so that native's bound leaves the count within its 300 s). It then gets as
/// much time as the turn's other searches took, as once not every tile fits.
fn tight(model: &Model) -> bool {
    10 * 3 * model.tiles as usize >= 9 * model.cells
}

/// Conflicts CaDiCaL is assumed to manage per second before it has been timed, and the
/// fewest it is given in a turn.
const SAT_FIRST_RATE: f64 = 5_000.0;
const SAT_MIN_CONFLICTS: u64 = 1_000;
/// Moves of the annealing (`construct`) before the first turn; each turn then gives it
/// `turn / ANNEAL_SHARE` moves, resumed from where it stopped. A larger share (1M moves
/// first, `turn` a turn) slowed the proofs of the public medium boards by 50% (15.2 s to
/// 22.4 s in all); this one does not (13.3 s), and places 291 tiles on the tight set in 5 s
/// (294 with the larger share, 209 without the annealing). On the tight suite's largest
/// boards more annealing does not pay either: alone for 120 s (`bench_construct`) it placed
/// 32, 42, 49 and 50 tiles on b01-t1, b01-t10, b02-t7 and b02-t9, where native's 300-s runs
/// (`results/reference/domino-tight-native-300s-totalizers/`) placed 31, 42, 50 and 49.
const ANNEAL_FIRST: u64 = 100_000;
const ANNEAL_SHARE: u64 = 4;

/// Mixed into the instance's seed for the restarts' generator.
const RESTART_SEED: u64 = 0x9e37_79b9_7f4a_7c15;
/// Mixed into the instance's seed for the annealing's generator.
const ANNEAL_SEED: u64 = 0x2545_f491_4f6c_dd1d;

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
    /// How `bound` was proven.
    pub bound_by: BoundBy,
    /// Where the time and the work went.
    pub stats: NativeStats,
    /// A failed internal consistency check (a bound below the placement found, a proof that
    /// disagrees with its own placement): the outcome's claims do not stand.
    pub fault: Option<String>,
}

/// Where the native optimiser's time went, search by search, and what CaDiCaL did: a run's
/// solver statistics (`NativeStats::to_map`, the record's `stats`), so that a report says,
/// for instance, how much of a 300-s run went to the bound.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NativeStats {
    /// Nodes of the cell-order and tile-order searches (restarts and fills included).
    pub nodes: u64,
    /// The cell and tile searches, their restarts and the fill.
    pub search_time: Duration,
    /// Simulated annealing (`construct`).
    pub anneal_time: Duration,
    /// Large-neighbourhood improvement (`improve`).
    pub improve_time: Duration,
    /// CaDiCaL on "do `ub` tiles fit?" (building the formula included).
    pub sat_time: Duration,
    /// Questions put to CaDiCaL (one per `ub` asked), how many it refuted, and the conflicts
    /// it was given.
    pub sat_questions: u64,
    pub sat_refuted: u64,
    pub sat_conflicts_given: u64,
}

impl NativeStats {
    /// As a run record's `stats`: `nodes`, seconds per search (`search_s`, `anneal_s`,
    /// `improve_s`, `sat_s`), `sat_questions`, `sat_refuted`, `sat_conflicts_given`.
    pub fn to_map(&self) -> BTreeMap<String, f64> {
        [
            ("nodes", self.nodes as f64),
            ("search_s", self.search_time.as_secs_f64()),
            ("anneal_s", self.anneal_time.as_secs_f64()),
            ("improve_s", self.improve_time.as_secs_f64()),
            ("sat_s", self.sat_time.as_secs_f64()),
            ("sat_questions", self.sat_questions as f64),
            ("sat_refuted", self.sat_refuted as f64),
            ("sat_conflicts_given", self.sat_conflicts_given as f64),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }
}

/// Solves `instance` to proven optimality unless a limit stops it first.
pub fn solve(instance: &Instance, limits: &SolveLimits) -> SolveOutcome {
    let n = instance.n as usize;
    let area_bound = BoundBy::count_bound(instance);
    let unsolved = |status| SolveOutcome {
        status,
        placement: Vec::new(),
        objective: 0,
        bound: area_bound,
        bound_by: BoundBy::Count,
        stats: NativeStats::default(),
        fault: None,
    };
    if area_bound == 0 {
        return unsolved(SolveStatus::Optimal);
    }
    if n > MAX_N as usize {
        return unsolved(SolveStatus::Unknown);
    }
    // None: more than 125 distinct values shared between tiles, beyond this optimiser.
    let Some(model) = Model::new(instance) else {
        return unsolved(SolveStatus::Unknown);
    };
    Solver::new(&model, limits).run()
}

/// The three searches and what they have proven so far.
struct Solver<'m, 'a> {
    model: &'m Model<'a>,
    cells: CellSearch<'m, 'a>,
    tiles: Option<TileSearch<'m, 'a>>,
    improver: Improver,
    /// "Does every tile fit?" for CaDiCaL, once asked.
    sat: Option<(u32, FitQuery)>,
    /// CaDiCaL's conflicts per second, as last measured.
    sat_rate: f64,
    /// Draws the tile orders of the probe's restarts.
    rng: ChaCha8Rng,
    /// The incumbent as the improvement moves left it.
    improved: Vec<Placed>,
    /// Simulated annealing over legal placements (`construct`), and its best.
    anneal: Anneal<'m, 'a>,
    annealed: Vec<Placed>,
    /// Proven upper bound on the optimum.
    ub: u32,
    /// What proved `ub`.
    ub_by: BoundBy,
    /// Time per search and CaDiCaL's work so far (`nodes` is filled in by `outcome`).
    stats: NativeStats,
}

impl<'m, 'a> Solver<'m, 'a> {
    fn new(model: &'m Model<'a>, limits: &'m SolveLimits) -> Self {
        let count = BoundBy::count_bound(model.instance);
        let (ub, ub_by) = match super::sides::side_bound(model, count) {
            Some(sides) => (sides, BoundBy::Sides),
            None => (count, BoundBy::Count),
        };
        Solver {
            model,
            cells: CellSearch::new(model, limits),
            tiles: None,
            improver: Improver::new(seed(model.instance)),
            sat: None,
            sat_rate: SAT_FIRST_RATE,
            rng: ChaCha8Rng::seed_from_u64(seed(model.instance) ^ RESTART_SEED),
            improved: Vec::new(),
            anneal: Anneal::new(model, seed(model.instance) ^ ANNEAL_SEED),
            annealed: Vec::new(),
            ub,
            ub_by,
            stats: NativeStats::default(),
        }
    }

    fn run(mut self) -> SolveOutcome {
        let limits = self.cells.clock.limits();
        self.cells.clock.allow(PROBE_BUDGET);
        let probed = timed(&mut self.stats.search_time, || self.cells.probe(self.ub));
        match probed {
            Ok(true) => return self.outcome(SolveStatus::Optimal, self.cells.solution.clone()),
            Ok(false) => self.lower(BoundBy::CellSearch),
            Err(Halt::Budget) => {}
            Err(Halt::Limit) => return self.stopped(),
        }
        self.tiles = TileSearch::new(self.model, limits);
        let mut turn = FIRST_TURN;
        let mut moves = ANNEAL_FIRST;
        loop {
            let turn_start = Instant::now();
            // Good placements fast, before the first turn and after each.
            let start = self.best();
            let found = timed(&mut self.stats.anneal_time, || {
                self.anneal.run(&start, moves, self.ub, limits)
            });
            self.annealed = found.placement;
            if found.limited {
                return self.stopped();
            }
            moves = turn / ANNEAL_SHARE;
            if self.best().len() as u32 >= self.ub {
                return self.outcome(SolveStatus::Optimal, self.best());
            }
            if let Some(tiles) = self.tiles.as_mut() {
                tiles.clock.allow(turn / TILE_SHARE);
                let searched = timed(&mut self.stats.search_time, || tiles.search(self.ub));
                match searched {
                    Ok(true) => {
                        let found = tiles.solution.clone();
                        return self.outcome(SolveStatus::Optimal, found);
                    }
                    Ok(false) => {
                        self.lower(BoundBy::TileSearch);
                        continue;
                    }
                    Err(Halt::Budget) => {}
                    Err(Halt::Limit) => return self.stopped(),
                }
            }
            self.cells.clock.allow(turn);
            let resumed = timed(&mut self.stats.search_time, || self.cells.resume(self.ub));
            match resumed {
                Ok(optimum) => {
                    if optimum < self.ub {
                        self.ub = optimum;
                        self.ub_by = BoundBy::CellSearch;
                    }
                    let mut out = self.outcome(SolveStatus::Optimal, self.cells.solution.clone());
                    if out.objective != optimum {
                        out.fault = Some(format!(
                            "the cell search proved an optimum of {optimum} but holds a \
                             placement of {} tiles",
                            out.objective
                        ));
                    }
                    return out;
                }
                Err(Halt::Budget) => {}
                Err(Halt::Limit) => return self.stopped(),
            }
            let searching = Instant::now();
            let filled = self.fill_turn(turn);
            self.stats.search_time += searching.elapsed();
            if let Some(out) = filled {
                return out;
            }
            // Restarts of the probe: in a new tile order each, with the table's bounds kept.
            let share = if self.ub == self.model.tiles {
                turn * RESTART_SHARE_ALL
            } else {
                turn / TILE_SHARE
            };
            let end = self.cells.clock.nodes.saturating_add(share);
            while self.cells.clock.nodes < end {
                self.cells.shuffle(&mut self.rng);
                let budget = RESTART_BUDGET.min(end - self.cells.clock.nodes);
                self.cells.clock.allow(budget);
                let probed = timed(&mut self.stats.search_time, || self.cells.probe(self.ub));
                match probed {
                    Ok(true) => {
                        return self.outcome(SolveStatus::Optimal, self.cells.solution.clone())
                    }
                    Ok(false) => {
                        self.lower(BoundBy::CellSearch);
                        break;
                    }
                    Err(Halt::Budget) => {}
                    Err(Halt::Limit) => return self.stopped(),
                }
            }
            if turn >= IMPROVE_FROM && self.sat_joins() {
                let (model, ub) = (self.model, self.ub);
                if self.sat.as_ref().is_some_and(|(k, _)| *k != ub) {
                    self.sat = None;
                }
                let asked = Instant::now();
                if self.sat.is_none() {
                    self.stats.sat_questions += 1;
                }
                let (_, query) = self
                    .sat
                    .get_or_insert_with(|| (ub, FitQuery::new(model, ub, limits)));
                // Every tile: a share of the turn's nodes. Fewer: as long as the turn's other
                // searches took, at the conflict rate measured so far.
                let conflicts = if ub == model.tiles && model.cells <= SAT_MAX_CELLS {
                    turn / SAT_SHARE
                } else {
                    let other = turn_start.elapsed().as_secs_f64();
                    ((self.sat_rate * other) as u64).max(SAT_MIN_CONFLICTS)
                };
                let conflicts = i32::try_from(conflicts).unwrap_or(i32::MAX);
                let solving = Instant::now();
                let answer = query.solve(Some(conflicts));
                self.stats.sat_time += asked.elapsed();
                self.stats.sat_conflicts_given += u64::try_from(conflicts).unwrap_or(0);
                match answer {
                    Answer::Fits(found) => {
                        let mut out = self.outcome(SolveStatus::Optimal, found);
                        if let Err(v) = super::verify(self.model.instance, &out.placement) {
                            out.fault = Some(format!("CaDiCaL's placement is not legal: {v}"));
                        }
                        if out.objective < ub && out.fault.is_none() {
                            out.fault = Some(format!(
                                "CaDiCaL placed {} tiles, asked for {ub}",
                                out.objective
                            ));
                        }
                        return out;
                    }
                    Answer::DoesNotFit => {
                        self.stats.sat_refuted += 1;
                        self.lower(BoundBy::Sat);
                        self.sat = None;
                        continue;
                    }
                    Answer::Budget => {
                        let took = solving.elapsed().as_secs_f64();
                        if took > 0.01 {
                            self.sat_rate = f64::from(conflicts) / took;
                        }
                    }
                    Answer::Limit => return self.stopped(),
                }
            }
            if turn >= IMPROVE_FROM {
                let start = self.best();
                if let Some(tiles) = self.tiles.as_mut() {
                    let improved = timed(&mut self.stats.improve_time, || {
                        self.improver
                            .improve(tiles, &start, self.ub, turn / TILE_SHARE)
                    });
                    match improved {
                        Ok(improved) => self.improved = improved,
                        // Only the caller's limits stop the moves.
                        Err(_) => return self.stopped(),
                    }
                }
            }
            turn = turn.saturating_mul(2);
        }
    }

    /// A turn's restarts of the tile search's cell-order fill while the question is whether
    /// every tile fits: `Some` outcome once it places every tile (or a limit stops it).
    fn fill_turn(&mut self, turn: u64) -> Option<SolveOutcome> {
        if self.ub != self.model.tiles {
            return None;
        }
        let tiles = self.tiles.as_mut()?;
        // CaDiCaL, once it joins, looks for placements too.
        let share = if turn >= IMPROVE_FROM && self.model.cells <= SAT_MAX_CELLS {
            turn / TILE_SHARE
        } else {
            turn * FILL_SHARE_ALL
        };
        let end = tiles.clock.nodes.saturating_add(share);
        while tiles.clock.nodes < end {
            tiles.shuffle_cells(&mut self.rng);
            tiles.clock.allow(FILL_RESTART.min(end - tiles.clock.nodes));
            match tiles.fill(self.ub) {
                Ok(true) => {
                    let found = tiles.solution.clone();
                    let mut out = self.outcome(SolveStatus::Optimal, found);
                    if let Err(v) = super::verify(self.model.instance, &out.placement) {
                        out.fault = Some(format!("the fill's placement is not legal: {v}"));
                    }
                    return Some(out);
                }
                Ok(false) => {
                    self.lower(BoundBy::TileSearch);
                    return None;
                }
                Err(Halt::Budget) => {}
                Err(Halt::Limit) => return Some(self.stopped()),
            }
        }
        None
    }

    /// The largest placement any search has found.
    fn best(&self) -> Vec<Placed> {
        let from_tiles = self.tiles.as_ref().map(|t| &t.largest);
        [from_tiles, Some(&self.improved), Some(&self.annealed)]
            .into_iter()
            .flatten()
            .fold(
                &self.cells.solution,
                |a, b| if b.len() > a.len() { b } else { a },
            )
            .clone()
    }

    fn stopped(&self) -> SolveOutcome {
        let best = self.best();
        let bound = self.bound();
        let status = if best.len() as u32 >= bound {
            SolveStatus::Optimal
        } else if best.is_empty() {
            SolveStatus::Unknown
        } else {
            SolveStatus::Feasible
        };
        self.outcome(status, best)
    }

    /// Whether CaDiCaL asks "do `ub` tiles fit?" this turn: once not every tile fits, on
    /// small boards, and on boards that the tiles would nearly fill ([`tight`]).
    fn sat_joins(&self) -> bool {
        self.ub < self.model.tiles || self.model.cells <= SAT_MAX_CELLS || tight(self.model)
    }

    /// `ub` is refuted by `by`: one tile fewer.
    fn lower(&mut self, by: BoundBy) {
        self.ub -= 1;
        self.ub_by = by;
    }

    /// The best proven upper bound on the optimum.
    fn bound(&self) -> u32 {
        self.ub.min(self.cells.upper_bound())
    }

    /// How [`Solver::bound`] was proven.
    fn bound_by(&self) -> BoundBy {
        if self.cells.upper_bound() < self.ub {
            BoundBy::CellSearch
        } else {
            self.ub_by
        }
    }

    /// The outcome of `status` with placement `found`. Its bound is the proven one, checked
    /// against the placement: a bound below it is a fault, reported as it is.
    fn outcome(&self, status: SolveStatus, found: Vec<Placed>) -> SolveOutcome {
        let objective = found.len() as u32;
        let proven = self.bound();
        let fault = (proven < objective).then(|| {
            format!("proven bound {proven} is below the placement found ({objective} tiles)")
        });
        let bound = if status == SolveStatus::Optimal && fault.is_none() {
            objective
        } else {
            proven
        };
        let nodes = self.cells.clock.nodes + self.tiles.as_ref().map_or(0, |t| t.clock.nodes);
        SolveOutcome {
            status,
            placement: placements(self.model, &found),
            objective,
            bound,
            bound_by: self.bound_by(),
            stats: NativeStats {
                nodes,
                ..self.stats.clone()
            },
            fault,
        }
    }
}

/// `f()`, its wall time added to `total` (a search's share of [`NativeStats`]).
fn timed<T>(total: &mut Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    *total += start.elapsed();
    out
}

/// A seed for the improvement moves, from the instance's contents: runs are deterministic.
fn seed(instance: &Instance) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let words = std::iter::once(instance.n).chain(instance.tiles.iter().flatten().copied());
    for w in words {
        h = (h ^ u64::from(w)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Search-form placements as instance placements: the copies of a type take the type's
/// member tiles in order; `mirrored` says whether the shown values are the tile's reversed.
pub(super) fn placements(model: &Model, found: &[Placed]) -> Vec<Placement> {
    let n = model.n;
    let mut next = vec![0usize; model.types.len()];
    found
        .iter()
        .map(|p| {
            let ty = &model.types[p.ty as usize];
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
                mirrored: shown != model.instance.tiles[tile as usize],
            }
        })
        .collect()
}
