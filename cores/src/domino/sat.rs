//! The native optimiser's SAT question: do `k` tiles fit? As CNF, solved in process by
//! CaDiCaL (the `cadical` crate, as `sudoku::sat` uses it).
//!
//! Variables: `x` per spot of a tile type (first cell, direction, variant, as in `model`),
//! `p` per slot (first cell and direction: some tile lies there), `y` per cell and value code
//! (the cell shows that code), `cov` per cell (some slot covers it). Clauses: a spot implies
//! its slot and its three cells' codes; a slot holds at most one spot and implies one; a cell
//! lies in at most one slot and shows at most one code, and only when covered; across every
//! edge between adjacent cells, unequal codes (or [`PRIVATE`] on both sides) need one slot
//! holding both cells; each type is used at most its count times (a unary counter); at most
//! `m - k` tiles stay out (a totalizer, Bailleux and Boufkhad, CP 2003, truncated at the
//! limit, as are the counts below: [`Variant::totalizer`]).
//!
//! One redundant constraint does most of the work: a count that clause learning cannot make.
//! With `T` tiles placed on the `n x n` board, `Z = n^2 - 3T` cells stay empty; counting the
//! sides of tiles, of empty cells and of the board gives, for contacts `ct` (edges between
//! cells of two different tiles), empty cells' border sides `eb` and empty-empty edges `ee`:
//! `ct - eb - ee = I - 4n^2 + 10T` with `I = 2n(n - 1)` edges inside the board. So
//! `ct + (I - ee) + (covered border sides) >= 2I + 4n - 4n^2 + 10k`: many tiles need many
//! contacts or few empty cells on the border and side by side. It turns the seed's tight
//! boards (every tile or all but one on the board) from hours of search into seconds. A second
//! count ([`Variant::cover_count`]: at least `3k` cells are covered, at most `n^2 - 3k` not)
//! cut the refutation of 12 tiles on b04-m1 from 18.3 s to 5.1 s of CPU, and to 3.2 s with
//! CaDiCaL's "unsat" configuration ([`Variant::NATIVE`]).
//!
//! Status: a turn of `native` on boards of at most 81 cells once the question is whether
//! every tile fits (see native.rs). Alone, CaDiCaL (before the cover count)
//! refuted 12 tiles on b04-m1 in about 14 s of CPU (the cell search needs 145 s), and with the
//! Debian CaDiCaL 1.5.3 binary on the same formula it placed every tile of b04-h2 (32 s) and
//! of b03-h1 (27 to 141 s): those two are open by a missing placement, not by the bound (the
//! crate's CaDiCaL placed b04-h2 in 28 s of CPU). As turns of `native` on every board, with
//! `turn / 16` conflicts, it starved the other searches at 20 s; on 10 x 10 boards the probe's
//! restarts are the better placement search. Breaking the square's symmetry (one tile on a
//! canonical spot) did not speed the refutation of b04-m1 (13.1 s to 12.9 s of CPU). Placing
//! every tile of b03-h1 with the crate's CaDiCaL: default configuration, not within 50 s of
//! CPU; with the cover count, not within 34 s; "sat" configuration, not within 44 s; "sat" with
//! the cover count, 24 s once and not within 41 s with two other variable numberings
//! ([`Variant::shuffle`]). Large-neighbourhood repair of native's 23-tile placement by
//! CaDiCaL under assumptions (the tiles meeting a random 6 x 6 window freed, the others kept,
//! 2 000 conflicts a move) found nothing in 3 830 moves (27 s of CPU).
//!
//! Breaking the square's symmetry by lexicographic leaders ([`Variant::lex_leader`]: the
//! covered cells first among their 8 images) pays on the tight suite, where one tile on a
//! canonical spot did not: with the rest of `Variant::NATIVE`, one question at a time from the
//! count bound down, 150 s each, two runs side by side (the by-hand `explore_sat_bounds`),
//! b01-t3 refuted 26 tiles in 13 s against 27 s and 25 in 65 s against 72 s (24 open in
//! both), b01-t4 26 in 6 s against 8 s, 25 in 37 s against 61 s and 24 in 129 s (open without
//! it). Asking every `k` of a board on one incremental CaDiCaL instance (the counts as unary
//! counters whose bounds are assumptions, so that what was learnt refuting `k + 1` stays for
//! `k`) did not pay: b01-t3 26 in 29 s against 27 s, 25 in 96 s against 82 s; b01-t4 26 in
//! 53 s against 16 s, 25 in 132 s against 123 s. Not kept.
//!
//! Channelling cells and codes both ways (a covered cell shows some code; a code at a cell
//! needs a spot putting it there), so that a placed tile forces its covered neighbours'
//! codes by unit propagation, did not pay either: with the rest of `Variant::NATIVE`, one
//! question at a time from 25 down, 150 s each, b01-t4 refuted 25 and 24 in 11.0 + 39.7 s
//! against 15.3 + 50.1 s, but b01-t3 in 15.3 + 104.0 s against 24.9 + 89.6 s, and 23 stayed
//! open on both. Not kept.
//!
//! Nor do the diagonal colourings' counts: a tile covers one cell of each class of
//! `(row + col) mod 3` and one of each class of `(row - col) mod 3`, so at most
//! `|class| - k` cells of each of the six classes stay uncovered (six more sequential
//! counters). With the rest of `Variant::NATIVE`, one question at a time from 25 down, 200 s
//! each, two runs side by side: b01-t3 refuted 25 in 15.8 s against 16.7 s but 24 in 147 s
//! against 62 s; b01-t4 25 in 6.1 s against 11.5 s, 24 in 56 s against 46 s. Not kept.
//!
//! Another solver does not pay either: Kissat 4.0.4 (built from its sources for the
//! measurement only) on this formula as DIMACS (b01-t4, 22 tiles, `Variant::NATIVE`), with
//! `--unsat`, side by side with the crate's CaDiCaL 1.9.5 asking the same question (both
//! niced, with builds beside them), refuted it in 748 s of wall time (551 s of CPU) against
//! CaDiCaL's 785 s: 5% less, where closing the board within a 300-s run needs 3 to 4 times.
//! Nor does another CaDiCaL: Debian's 1.5.3 binary (`--unsat`, on `FitCnf`'s DIMACS) side by
//! side with the crate's 1.9.5 (`explore_sat_bounds`), both niced, with builds beside them,
//! refuted b01-t3's 24 and 23 tiles in 53 and 621 s against 51 and 671 s, and b01-t4's 24 and
//! 23 in 31 and 82 s against 32 and 100 s: within a fifth of each other, where one run each
//! in two earlier stops (412 s against 1,024 s on b01-t3's 23) had looked 2.5 times apart.
//!
//! Nor does the side count (`sides`) as a constraint of the formula: at least `2 C - B` edges
//! between a covered and an empty cell, `C` the placed tiles whose long sides other tiles
//! cannot cover fully (a unary counter over one "exactly one of the two cells covered"
//! literal per edge and two copies of each such tile's "placed" output). With the rest of
//! `Variant::NATIVE`, one question at a time, two runs one after the other on one core (the
//! other core busy): b01-t4 refuted 24 tiles in 62.6 s against 76.2 s (23 open at 120 s in
//! both), b01-t3 24 in 98.1 s against 94.7 s (23 open at 150 s in both). Not kept in the
//! formula; as a bound before any search it is `native`'s first
//! ([`crate::domino::BoundBy::Sides`]). Nor does CaDiCaL's luck: b01-t4's 22 tiles (593 to
//! 891 s in earlier runs) stayed open at 450 s under two shuffled numberings
//! ([`Variant::shuffle`] 1 and 2), so no restart portfolio.
//!
//! Nor does splitting the question into cubes (the by-hand `explore_sat_cubes`: exactly `j`
//! empty cells in a set of cells, each `j` asked of a fresh CaDiCaL): it would let two cores
//! share one refutation, but the cubes' sum is above the whole question's time, so on a
//! benchmark's two busy cores it loses. b01-t4's 23 tiles, with the rest of
//! `Variant::NATIVE`, side by side on two cores: the whole question 117.7 s; split on the top
//! 4 rows' empty cells, 146.4 s in all (the 13 cubes 0.1 to 31.2 s); on the border ring's,
//! 185.6 s for the first 4 cubes of 13; on the cells within 2 of the border, 145.9 s for the
//! first 9 of 13. Nor on the tiles placed of the types without two equal neighbouring values
//! (exactly `j` of them, each `j` a cube; such a type's long sides only its own type can
//! cover): side by side on two cores, b01-t3's 24 tiles, 39.0 s as one question, took 45.5,
//! 37.9 and 37.0 s for the first three of its four cubes (13 to 15 of its 16 such tiles), and
//! b01-t4's 23 tiles, 108.3 s as one question, 71.8 s for the first of five.
//!
//! What the counts are stated by matters (the measurements above stated them by sequential
//! counters): totalizers ([`Variant::totalizer`], `Variant::NATIVE`
//! since they were measured) against sequential counters (Sinz, CP 2005), with the rest of
//! `Variant::NATIVE`, side by side on two cores (`explore_sat_bounds`): b01-t4's 23 tiles
//! refuted in 108.3 s against 120.0 s, b01-t3's 24 in 39.0 s against 55.8 s, b01-t7's 31 in
//! 40.3 s against 57.5 s. Native alone at 20 s on the tight suite, side by side: 4 proven
//! against 3, summed gap 116 against 118 (b02-t1 closed, b01-t4's bound 24 against 25).
//!
//! Nor do contacts stated along a tile's long sides: per spot and long side, two cells side by
//! side beside it showing unequal codes (the tile's codes there) are covered only by one tile
//! lying along both, reading those codes (clauses over the witnessing spots), and a cell
//! beside a [`PRIVATE`] code stays empty. Sound, and checked against brute force on small
//! boards, but with the rest of `Variant::NATIVE` (totalizers), one question at a time, side
//! by side on two cores (`explore_sat_bounds`): b01-t4's 23 tiles refuted in 55.6 s against
//! 93.8 s, b01-t7's 31 in 24.0 s against 35.3 s, but b01-t3's 24 in 45.5 s against 38.3 s,
//! b01-t7's 30 in 134.4 s against 117.3 s, b01-t9's 31 and b01-t2's 30 within 3% of each
//! other; the next question open at 150 to 250 s on every board in both. Not kept.
//!
//! Nor do CaDiCaL's options beside "unsat": Debian's 1.5.3 binary on `FitCnf`'s DIMACS
//! (`Variant::NATIVE`), two runs side by side, niced, wall seconds for b01-t3's 24 tiles and
//! b01-t4's 23: `--unsat` 34.8 and 87.5; with `--chrono=0` 26.2 and 89.4, `--probe=0` 42.4
//! and 81.7, `--subsume=0` 38.4 and 82.9, `--vivify=0` 40.2 and 87.6, `--reluctant=0` 35.6
//! and 89.0, `--restartint=10` 37.1 and 109.9, `--elim=0` 49.1 and 111.2, `--bumpreason=0`
//! 49.7 and 107.8; the default configuration 51.3 and 133.8. None is 1.5 times faster on
//! both. On b01-t3's 23 tiles (its optimum is 22), the same pair side by side: `--unsat`
//! 305.2 s, `--chrono=0` 302.3 s (with sequential counters, 621 s above).
//!
//! Invariant: every legal placement of at least `k` tiles extends to a model (set every
//! variable to what the placement makes it), so `Unsat` proves that `k` tiles do not fit;
//! every model read back (the true `x`) is a legal placement of at least `k` tiles. The
//! native optimiser still runs every placement through `verify`.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::model::{Model, Placed, PRIVATE};
use super::SolveLimits;

/// What CaDiCaL said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Answer {
    /// These placed tiles, at least `k` of them.
    Fits(Vec<Placed>),
    /// Proven: `k` tiles do not fit.
    DoesNotFit,
    /// The conflict budget ran out; a later `solve` goes on with what was learnt.
    Budget,
    /// The caller's deadline or stop flag.
    Limit,
}

/// CaDiCaL could not be set up as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum SatError {
    #[error("CaDiCaL refused the configuration {name:?}: {why}")]
    Config { name: &'static str, why: String },
}

/// CaDiCaL's name of the limit that [`FitQuery::solve`] sets: its conflict budget.
pub(super) const CONFLICTS: &str = "conflicts";

/// CaDiCaL's termination callback: the caller's limits.
struct Poll {
    limits: SolveLimits,
}

impl cadical::Callbacks for Poll {
    fn terminate(&mut self) -> bool {
        let stop = self
            .limits
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed));
        stop || self.limits.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A formula under construction: DIMACS literals.
struct Cnf {
    vars: i32,
    clauses: Vec<Vec<i32>>,
}

impl Cnf {
    fn var(&mut self) -> i32 {
        self.vars += 1;
        self.vars
    }

    fn add(&mut self, clause: Vec<i32>) {
        self.clauses.push(clause);
    }

    /// At most one of `lits`: pairwise for a few, else the ladder (sequential) encoding.
    fn at_most_one(&mut self, lits: &[i32]) {
        if lits.len() <= 5 {
            for (i, &a) in lits.iter().enumerate() {
                for &b in &lits[i + 1..] {
                    self.add(vec![-a, -b]);
                }
            }
            return;
        }
        let mut prev: Option<i32> = None;
        for (i, &l) in lits.iter().enumerate() {
            if i + 1 == lits.len() {
                if let Some(r) = prev {
                    self.add(vec![-r, -l]);
                }
                break;
            }
            let r = self.var();
            self.add(vec![-l, r]);
            if let Some(q) = prev {
                self.add(vec![-q, r]);
                self.add(vec![-q, -l]);
            }
            prev = Some(r);
        }
    }

    /// At most `k` of `lits` (Sinz's sequential counter; `Variant::NATIVE` states its counts
    /// by [`Cnf::at_most_totalized`]).
    fn at_most(&mut self, lits: &[i32], k: usize) {
        let n = lits.len();
        if k >= n {
            return;
        }
        if k == 0 {
            for &l in lits {
                self.add(vec![-l]);
            }
            return;
        }
        // r[j]: at least j + 1 of the literals so far.
        let mut r: Vec<i32> = (0..k).map(|_| self.var()).collect();
        self.add(vec![-lits[0], r[0]]);
        for &x in &r[1..] {
            self.add(vec![-x]);
        }
        for &l in &lits[1..n - 1] {
            let s: Vec<i32> = (0..k).map(|_| self.var()).collect();
            self.add(vec![-l, s[0]]);
            self.add(vec![-r[0], s[0]]);
            for j in 1..k {
                self.add(vec![-l, -r[j - 1], s[j]]);
                self.add(vec![-r[j], s[j]]);
            }
            self.add(vec![-l, -r[k - 1]]);
            r = s;
        }
        self.add(vec![-lits[n - 1], -r[k - 1]]);
    }

    /// At most `k` of `lits` (`k < lits.len()`), by a totalizer truncated at `k + 1`: a
    /// balanced tree whose node outputs `o[j]` are implied by "at least `j + 1` of the node's
    /// literals", and `o[k]` of the root false.
    fn at_most_totalized(&mut self, lits: &[i32], k: usize) {
        let root = self.totalize(lits, k + 1);
        if let Some(&o) = root.get(k) {
            self.add(vec![-o]);
        }
    }

    /// The outputs of a totalizer node over `lits`, at most `width` of them.
    fn totalize(&mut self, lits: &[i32], width: usize) -> Vec<i32> {
        if lits.len() == 1 {
            return lits.to_vec();
        }
        let (left, right) = lits.split_at(lits.len() / 2);
        let a = self.totalize(left, width);
        let b = self.totalize(right, width);
        let out: Vec<i32> = (0..width.min(a.len() + b.len()))
            .map(|_| self.var())
            .collect();
        // a[i - 1] (at least i on the left) and b[j - 1] imply out[i + j - 1].
        for i in 0..=a.len() {
            for j in 0..=b.len() {
                let sum = i + j;
                if sum == 0 || sum > out.len() {
                    continue;
                }
                let mut c = vec![out[sum - 1]];
                if i > 0 {
                    c.push(-a[i - 1]);
                }
                if j > 0 {
                    c.push(-b[j - 1]);
                }
                self.add(c);
            }
        }
        out
    }

    /// Unary outputs `out[j]` <-> at least `j + 1` of `lits`, for `j < k`.
    fn counter(&mut self, lits: &[i32], k: usize) -> Vec<i32> {
        let mut cur: Vec<i32> = Vec::new();
        for &l in lits {
            let width = k.min(cur.len() + 1);
            let mut next = Vec::with_capacity(width);
            for j in 0..width {
                let v = self.var();
                let same = cur.get(j).copied();
                let below = if j == 0 { None } else { Some(cur[j - 1]) };
                if let Some(a) = same {
                    self.add(vec![-a, v]);
                }
                match below {
                    None => self.add(vec![-l, v]),
                    Some(b) => self.add(vec![-b, -l, v]),
                }
                let mut from_same = vec![-v];
                from_same.extend(same);
                match below {
                    None => {
                        from_same.push(l);
                        self.add(from_same);
                    }
                    Some(b) => {
                        let mut with_l = from_same.clone();
                        from_same.push(b);
                        with_l.push(l);
                        self.add(from_same);
                        self.add(with_l);
                    }
                }
                next.push(v);
            }
            cur = next;
        }
        cur
    }
}

/// States `cov <=lex cov o g` for the 7 symmetries `g` of the square other than the identity,
/// `cov` read in row order (false before true). Sound for the question: a board symmetry maps
/// a legal placement to a legal placement of the same tiles (a transposition turns "H" into
/// "V", a reflection flips `mirrored`), and some image of every placement has the least
/// covered-cell vector of its orbit, so every placement has an image that meets all 7. The
/// "equal so far" literals are only ever forced true, so they add no other constraint.
fn lex_leader(f: &mut Cnf, cov: &[i32], n: usize) {
    /// The image of (row, column) on a board of side `n`.
    type CellMap = fn(usize, usize, usize) -> (usize, usize);
    let maps: [CellMap; 7] = [
        |r, c, n| (c, n - 1 - r),
        |r, c, n| (n - 1 - r, n - 1 - c),
        |r, c, n| (n - 1 - c, r),
        |r, c, n| (r, n - 1 - c),
        |r, c, n| (n - 1 - r, c),
        |r, c, _| (c, r),
        |r, c, n| (n - 1 - c, n - 1 - r),
    ];
    for g in maps {
        let mut equal: Option<i32> = None;
        for cell in 0..n * n {
            let (r, c) = g(cell / n, cell % n, n);
            let (x, y) = (cov[cell], cov[r * n + c]);
            if x == y {
                continue;
            }
            // Equal so far: x <= y here.
            let mut le = vec![-x, y];
            le.extend(equal.map(|e| -e));
            f.add(le);
            let e = f.var();
            for (a, b) in [(x, y), (-x, -y)] {
                let mut same = vec![a, b, e];
                same.extend(equal.map(|q| -q));
                f.add(same);
            }
            equal = Some(e);
        }
    }
}

/// "Do `k` tiles fit?" as one CaDiCaL instance, to be asked again after a budget ran out.
pub(super) struct FitQuery {
    solver: cadical::Solver<Poll>,
    /// Per spot variable (`x`): the tile it places.
    spots: Vec<(i32, Placed)>,
}

/// How to build and configure one CaDiCaL instance of the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Variant {
    /// CaDiCaL's configuration: "default", "sat", "unsat" or "plain".
    pub(super) config: &'static str,
    /// Also state that at least `3k` cells are covered.
    pub(super) cover_count: bool,
    /// Renumber the variables and reorder the clauses by this seed (0: as built).
    pub(super) shuffle: u64,
    /// Break the square's symmetry: the covered cells, read in row order, come first in
    /// lexicographic order among their 8 images (rotations and reflections of the board).
    pub(super) lex_leader: bool,
    /// State the counts' "at most" by totalizers (Bailleux and Boufkhad, CP 2003) instead of
    /// sequential counters.
    pub(super) totalizer: bool,
}

impl Variant {
    /// What `native` asks: the covered-cell count stated, the square's symmetry broken,
    /// CaDiCaL tuned for refutations.
    pub(super) const NATIVE: Variant = Variant {
        config: "unsat",
        cover_count: true,
        shuffle: 0,
        lex_leader: true,
        totalizer: true,
    };
}

impl FitQuery {
    /// The formula "at least `k` tiles fit" for `model` (`k` at least 1), as `native` asks it.
    pub(super) fn new(model: &Model, k: u32, limits: &SolveLimits) -> Self {
        // `with` fails only when CaDiCaL refuses the configuration's name (it has "default",
        // "plain", "sat" and "unsat"), and `Variant::NATIVE` names "unsat": the test
        // `every_configuration_named_is_one_cadical_has` asks CaDiCaL for each.
        Self::with(model, k, limits, Variant::NATIVE)
            .expect("CaDiCaL has Variant::NATIVE's configuration")
    }

    /// As `new`, built and configured as `variant` says; an error if CaDiCaL has no
    /// configuration of `variant.config`'s name.
    pub(super) fn with(
        model: &Model,
        k: u32,
        limits: &SolveLimits,
        variant: Variant,
    ) -> Result<Self, SatError> {
        let solver: cadical::Solver<Poll> =
            cadical::Solver::with_config(variant.config).map_err(|e| SatError::Config {
                name: variant.config,
                why: e.msg,
            })?;
        Ok(Self::load(
            solver,
            Formula::build(model, k, variant),
            limits,
        ))
    }

    /// `formula` given to `solver`, which stops at `limits`.
    fn load(mut solver: cadical::Solver<Poll>, formula: Formula, limits: &SolveLimits) -> Self {
        for c in formula.cnf.clauses {
            solver.add_clause(c);
        }
        solver.set_callbacks(Some(Poll {
            limits: limits.clone(),
        }));
        FitQuery {
            solver,
            spots: formula.spots,
        }
    }
}

/// The question's formula, and per spot variable (`x`) the tile it places: what
/// [`FitQuery`] gives CaDiCaL, and what [`Formula::dimacs`] writes for another solver.
pub(super) struct Formula {
    cnf: Cnf,
    spots: Vec<(i32, Placed)>,
    /// Per cell, its "covered" variable.
    #[cfg_attr(not(test), allow(dead_code))]
    cov: Vec<i32>,
}

impl Formula {
    /// "At least `k` tiles fit" for `model`, built as `variant` says.
    pub(super) fn build(model: &Model, k: u32, variant: Variant) -> Formula {
        let n = model.n;
        let cells = model.cells;
        let mut f = Cnf {
            vars: 0,
            clauses: Vec::new(),
        };
        // Slots: index 2 * cell + vertical, when the slot lies inside the board.
        let inside = |cell: usize, vertical: bool| {
            if vertical {
                cell / n + 2 < n
            } else {
                cell % n + 2 < n
            }
        };
        let step = |vertical: bool| if vertical { n } else { 1 };
        let mut slot = vec![0i32; 2 * cells];
        for cell in 0..cells {
            for vertical in [false, true] {
                if inside(cell, vertical) {
                    slot[2 * cell + usize::from(vertical)] = f.var();
                }
            }
        }
        // Codes that occur, and the cell-code variables.
        let mut used_code = [false; 256];
        for t in &model.types {
            for (codes, _) in &t.variants {
                for &c in codes {
                    used_code[c as usize] = true;
                }
            }
        }
        let codes: Vec<u8> = (0..=255u8).filter(|&c| used_code[c as usize]).collect();
        let mut y = vec![0i32; cells * 256];
        for cell in 0..cells {
            for &c in &codes {
                y[cell * 256 + c as usize] = f.var();
            }
        }
        // Spots.
        let mut spots = Vec::new();
        let mut by_slot: Vec<Vec<i32>> = vec![Vec::new(); 2 * cells];
        let mut by_type: Vec<Vec<i32>> = vec![Vec::new(); model.types.len()];
        for (ty, t) in model.types.iter().enumerate() {
            for &(cell, vertical, variant) in &t.spots {
                let cell = cell as usize;
                let x = f.var();
                let s = 2 * cell + usize::from(vertical);
                f.add(vec![-x, slot[s]]);
                let values = t.variants[variant as usize].0;
                for (i, &c) in values.iter().enumerate() {
                    f.add(vec![-x, y[(cell + i * step(vertical)) * 256 + c as usize]]);
                }
                by_slot[s].push(x);
                by_type[ty].push(x);
                spots.push((
                    x,
                    Placed {
                        cell,
                        vertical,
                        ty: ty as u16,
                        variant,
                    },
                ));
            }
        }
        for (s, xs) in by_slot.iter().enumerate() {
            if slot[s] == 0 {
                continue;
            }
            let mut some = vec![-slot[s]];
            some.extend(xs);
            f.add(some);
            f.at_most_one(xs);
        }
        // Cells: at most one covering slot, at most one code, codes only when covered.
        let mut covering: Vec<Vec<i32>> = vec![Vec::new(); cells];
        for cell in 0..cells {
            for vertical in [false, true] {
                let s = slot[2 * cell + usize::from(vertical)];
                if s != 0 {
                    for i in 0..3 {
                        covering[cell + i * step(vertical)].push(s);
                    }
                }
            }
        }
        let mut cov = vec![0i32; cells];
        for cell in 0..cells {
            f.at_most_one(&covering[cell]);
            let ys: Vec<i32> = codes.iter().map(|&c| y[cell * 256 + c as usize]).collect();
            f.at_most_one(&ys);
            let c = f.var();
            cov[cell] = c;
            let mut some = vec![-c];
            some.extend(&covering[cell]);
            f.add(some);
            for &s in &covering[cell] {
                f.add(vec![-s, c]);
            }
            for &v in &ys {
                f.add(vec![-v, c]);
            }
        }
        // Edges: contacts must match; the counts of the redundant constraint.
        let mut count_lits = Vec::new();
        let mut edges = 0i64;
        for cell in 0..cells {
            for vertical in [false, true] {
                let other = if vertical {
                    model.down[cell]
                } else {
                    model.right[cell]
                };
                if other >= cells {
                    continue;
                }
                edges += 1;
                // Slots holding both cells: starting at `cell` or one step before it.
                let mut internal = Vec::new();
                for start in [Some(cell), cell.checked_sub(step(vertical))] {
                    let Some(start) = start else { continue };
                    let s = slot[2 * start + usize::from(vertical)];
                    let same_line = vertical || start / n == cell / n;
                    if s != 0 && same_line {
                        internal.push(s);
                    }
                }
                for &v in &codes {
                    for &w in &codes {
                        if v == w && v != PRIVATE {
                            continue;
                        }
                        let mut clause =
                            vec![-y[cell * 256 + v as usize], -y[other * 256 + w as usize]];
                        clause.extend(&internal);
                        f.add(clause);
                    }
                }
                let (a, b) = (cov[cell], cov[other]);
                let contact = f.var();
                f.add(vec![-contact, a]);
                f.add(vec![-contact, b]);
                for &s in &internal {
                    f.add(vec![-contact, -s]);
                }
                let mut made = vec![contact, -a, -b];
                made.extend(&internal);
                f.add(made);
                let not_both_empty = f.var();
                f.add(vec![-not_both_empty, a, b]);
                f.add(vec![not_both_empty, -a]);
                f.add(vec![not_both_empty, -b]);
                count_lits.push(contact);
                count_lits.push(not_both_empty);
            }
        }
        let mut border = 0i64;
        for (cell, &covered) in cov.iter().enumerate() {
            let (r, c) = (cell / n, cell % n);
            let sides = usize::from(r == 0)
                + usize::from(r + 1 == n)
                + usize::from(c == 0)
                + usize::from(c + 1 == n);
            for _ in 0..sides {
                count_lits.push(covered);
            }
            border += sides as i64;
        }
        // Types used at most their count; at most m - k tiles left out.
        let mut used = Vec::new();
        for (ty, t) in model.types.iter().enumerate() {
            let count = t.members.len();
            let out = f.counter(&by_type[ty], count + 1);
            if out.len() > count {
                f.add(vec![-out[count]]);
            }
            used.extend(out.into_iter().take(count));
        }
        let unused: Vec<i32> = used.iter().map(|&u| -u).collect();
        // Types whose every spot is missing (a board too small) count as left out.
        let missing = (model.tiles as usize - used.len()) as i64;
        let uncovered: Vec<i32> = cov.iter().map(|&c| -c).collect();
        let negated: Vec<i32> = count_lits.iter().map(|&l| -l).collect();
        let side = n as i64;
        // Each count: "at most `base - per_tile * k` of `lits`".
        let mut limited: Vec<(&[i32], i64, i64)> =
            vec![(&unused, i64::from(model.tiles) - missing, 1)];
        if variant.cover_count {
            limited.push((&uncovered, cells as i64, 3));
        }
        // At most (lits - need) not made, need = 2 edges + border - 4 n^2 + 10 k.
        limited.push((
            &negated,
            negated.len() as i64 - (2 * edges + border - 4 * side * side),
            10,
        ));
        for (lits, base, per_tile) in limited {
            let limit = base - per_tile * i64::from(k);
            if limit < 0 {
                f.add(Vec::new());
            } else if (limit as usize) < lits.len() {
                if variant.totalizer {
                    f.at_most_totalized(lits, limit as usize);
                } else {
                    f.at_most(lits, limit as usize);
                }
            }
        }

        if variant.lex_leader {
            lex_leader(&mut f, &cov, n);
        }
        if variant.shuffle != 0 {
            use rand::seq::SliceRandom;
            use rand::SeedableRng;
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(variant.shuffle);
            let mut perm: Vec<i32> = (1..=f.vars).collect();
            perm.shuffle(&mut rng);
            let map = |l: i32| {
                let v = perm[(l.unsigned_abs() - 1) as usize];
                if l < 0 {
                    -v
                } else {
                    v
                }
            };
            for c in &mut f.clauses {
                for l in c.iter_mut() {
                    *l = map(*l);
                }
            }
            f.clauses.shuffle(&mut rng);
            for (x, _) in &mut spots {
                *x = map(*x);
            }
        }
        Formula { cnf: f, spots, cov }
    }

    /// The formula in DIMACS CNF, for another solver.
    pub(super) fn dimacs(&self) -> String {
        use std::fmt::Write as _;
        let mut out = format!("p cnf {} {}\n", self.cnf.vars, self.cnf.clauses.len());
        for c in &self.cnf.clauses {
            for l in c {
                let _ = write!(out, "{l} ");
            }
            out.push_str("0\n");
        }
        out
    }

    /// The spots a model (the set of its true literals) places.
    pub(super) fn placed(&self, true_lits: &std::collections::HashSet<i32>) -> Vec<Placed> {
        self.spots
            .iter()
            .filter(|(x, _)| true_lits.contains(x))
            .map(|&(_, p)| p)
            .collect()
    }
}

#[cfg(test)]
impl Formula {
    /// Adds: exactly `j` of `cells` are empty (a cube of a split of the question).
    pub(super) fn with_empty_in(&mut self, cells: &[usize], j: usize) {
        let lits: Vec<i32> = cells.iter().map(|&c| -self.cov[c]).collect();
        let out = self.cnf.counter(&lits, j + 1);
        if j > 0 {
            match out.get(j - 1) {
                Some(&o) => self.cnf.add(vec![o]),
                None => self.cnf.add(Vec::new()),
            }
        }
        if let Some(&o) = out.get(j) {
            self.cnf.add(vec![-o]);
        }
    }
}

#[cfg(test)]
impl FitQuery {
    /// CaDiCaL on `formula`, in configuration `config`.
    pub(super) fn from_formula(formula: Formula, limits: &SolveLimits, config: &str) -> Self {
        let solver = cadical::Solver::with_config(config).expect("a CaDiCaL configuration");
        Self::load(solver, formula, limits)
    }
}

impl FitQuery {
    /// Asks CaDiCaL, within `conflicts` more conflicts (`None`: no budget).
    pub(super) fn solve(&mut self, conflicts: Option<i32>) -> Answer {
        if let Some(c) = conflicts {
            // CaDiCaL refuses a limit only by its name (`Internal::limit` knows "terminate",
            // "conflicts", "decisions", "preprocessing" and "localsearch", any value for
            // each), and the crate only a name with a NUL byte: the test
            // `cadical_knows_the_conflict_limit` sets it and sees a wrong name refused.
            self.solver
                .set_limit(CONFLICTS, c)
                .expect("CaDiCaL knows the conflicts limit");
        }
        match self.solver.solve() {
            Some(true) => Answer::Fits(
                self.spots
                    .iter()
                    .filter(|(x, _)| self.solver.value(*x) == Some(true))
                    .map(|&(_, p)| p)
                    .collect(),
            ),
            Some(false) => Answer::DoesNotFit,
            None => {
                let late = self
                    .solver
                    .get_callbacks()
                    .is_some_and(cadical::Callbacks::terminate);
                if late {
                    Answer::Limit
                } else {
                    Answer::Budget
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cnf;

    /// Both "at most `k`" encodings, on every assignment of up to 7 literals: satisfiable
    /// exactly when at most `k` are true.
    #[test]
    fn both_at_most_encodings_allow_exactly_the_assignments_of_at_most_k() {
        for n in 1..=7usize {
            for k in 0..n {
                for totalizer in [false, true] {
                    for bits in 0u32..1 << n {
                        let mut f = Cnf {
                            vars: n as i32,
                            clauses: Vec::new(),
                        };
                        let lits: Vec<i32> = (1..=n as i32).collect();
                        if totalizer {
                            f.at_most_totalized(&lits, k);
                        } else {
                            f.at_most(&lits, k);
                        }
                        let mut solver: cadical::Solver = cadical::Solver::new();
                        for c in f.clauses {
                            solver.add_clause(c);
                        }
                        for (i, &l) in lits.iter().enumerate() {
                            solver.add_clause([if bits >> i & 1 == 1 { l } else { -l }]);
                        }
                        let want = bits.count_ones() as usize <= k;
                        assert_eq!(
                            solver.solve(),
                            Some(want),
                            "n {n} k {k} totalizer {totalizer} bits {bits:b}"
                        );
                    }
                }
            }
        }
    }
}
