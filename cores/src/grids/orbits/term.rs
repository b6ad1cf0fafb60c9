//! One Burnside term: `A(g)`, the grids that the symmetry `g` maps to a relabelling of
//! themselves, divided by `side!`.
//!
//! A grid `X` with `g X = s X` for the relabelling `s` satisfies `X(g c) = s(X(c))` on every
//! cell `c`: along a cycle `c, g c, g^2 c, ...` of `g` on the cells, the digits are `d, s d,
//! s^2 d, ...`, so one digit per cycle fixes the grid. `A(g) = (1 / side!) sum_s Fix(g, s)`,
//! and `Fix(g, s)` depends only on the cycle type of `s` (relabelling by `t` maps the grids
//! fixed by `(g, s)` onto those fixed by `(g, t s t^-1)`), so
//! `A(g) = sum over cycle types of Fix(g, s) / |Z(s)|`, `Z(s)` the relabellings commuting
//! with `s`. `Z(s)` acts freely on the grids fixed by `(g, s)`, and `Fix(g, s) / |Z(s)|` is
//! its number of orbits there: counted without dividing, by fixing the digit of one cycle
//! to each representative of `Z(s)`'s orbits on the digits it may take, then of another
//! cycle under the stabiliser of the digits fixed so far, until the stabiliser is trivial
//! (each orbit of grids is met exactly once on this chain).
//!
//! The cycle types are filtered first: a group `H` of `side` cells with `g^m H = H`
//! (`m` least) holds each digit once, so `s^m` has the cycle type of `g^m` on `H`'s cells.
//! The count is a backtracking search over the cycles of `g`: each takes a digit whose
//! cycle length under `s` divides the cycle's length, not used by the groups of any of its
//! cells once moved along the cycle (`s^-i` of the cell `g^i c`'s used digits, by table),
//! nor repeated inside a group the cycle crosses twice. Cycles are filled row by row of
//! their first cells, the one with the fewest digits left first within a row, and the last
//! one's digits are counted, not visited. Once the symmetry is broken, the count left at the
//! start of a row depends only on the digits each group holds, and is remembered by them
//! (the rows below a filled band see only its columns' digits).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use super::super::group_core::GroupGrid;
use super::super::groups::SudokuGroups;
use super::group::image_of;
use super::{all_groups, GridSymmetry, OrbitError};

/// Nodes between two reads of the stop flag.
const STOP_CHECK: u64 = 1 << 16;

/// The largest side whose identity term (every grid, over `side!`) is enumerated here: 6x6
/// has 39,168 grids with a fixed first row, 8x8 about 7 x 10^11. Larger grids import the
/// total from its count.
pub const IDENTITY_ENUMERATED_UP_TO: usize = 6;

/// The most counts one search remembers.
const MEMO_ENTRIES: usize = 1 << 22;

/// A permutation of the digits.
type DigitPerm = Vec<u8>;

/// `A(rep)` for the grids of `g`, `rep` one of their symmetries. The identity's term is the
/// number of grids divided by `side!`: enumerated only on grids of side at most
/// [`IDENTITY_ENUMERATED_UP_TO`].
pub fn class_term(
    g: &SudokuGroups,
    rep: &GridSymmetry,
    stop: Option<&AtomicBool>,
) -> Result<u128, OrbitError> {
    let side = g.box_rows * g.box_cols;
    let all = all_groups(g)?;
    if rep.side() != side {
        return Err(OrbitError::BadElement {
            side,
            why: format!("{} has {} lines", rep.to_text(), rep.side()),
        });
    }
    let perm: Vec<usize> = rep.images().iter().map(|&c| usize::from(c)).collect();
    let set: std::collections::HashSet<u128> = all.iter().copied().collect();
    if all
        .iter()
        .any(|&s| !set.contains(&image_of(rep.images(), s)))
    {
        return Err(OrbitError::NotASymmetry {
            element: rep.to_text(),
        });
    }
    if rep.is_identity() && side > IDENTITY_ENUMERATED_UP_TO {
        return Err(OrbitError::IdentityTooLarge { side });
    }
    let grid = GroupGrid::new(g).map_err(|_| OrbitError::Side { side })?;
    let groups = grid.group_cells();
    let cycles = cell_cycles(&perm);
    let mut term = 0u128;
    for lengths in partitions(side) {
        let sigma = digit_perm(&lengths);
        if !compatible(&perm, groups, side, &lengths, &cycles) {
            continue;
        }
        let mut count = FixedCount::new(side, groups, &cycles, &sigma, stop);
        let centraliser = centraliser(&lengths);
        let found = count.search(&centraliser, 0)?;
        term = term.checked_add(found).ok_or(OrbitError::Overflow {
            what: "a Burnside term",
        })?;
    }
    Ok(term)
}

/// The cycles of a permutation of the cells, each from its smallest cell.
fn cell_cycles(perm: &[usize]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; perm.len()];
    let mut out = Vec::new();
    for start in 0..perm.len() {
        if seen[start] {
            continue;
        }
        let mut cycle = Vec::new();
        let mut c = start;
        while !seen[c] {
            seen[c] = true;
            cycle.push(c);
            c = perm[c];
        }
        out.push(cycle);
    }
    out
}

/// The partitions of `n`, parts in decreasing order.
fn partitions(n: usize) -> Vec<Vec<usize>> {
    fn go(n: usize, max: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if n == 0 {
            out.push(cur.clone());
            return;
        }
        for p in (1..=max.min(n)).rev() {
            cur.push(p);
            go(n - p, p, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(n, n, &mut Vec::new(), &mut out);
    out
}

/// The permutation of the digits with cycles of `lengths` on consecutive digits.
fn digit_perm(lengths: &[usize]) -> DigitPerm {
    let mut s = Vec::new();
    let mut start = 0;
    for &l in lengths {
        for i in 0..l {
            s.push((start + (i + 1) % l) as u8);
        }
        start += l;
    }
    s
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Whether a relabelling of cycle type `lengths` can go with `perm`: every cell cycle has a
/// digit cycle whose length divides it, and every full group `H` with `perm^m H = H` has
/// `perm^m`'s cycle type on its cells equal to the relabelling's `m`-th power's.
fn compatible(
    perm: &[usize],
    groups: &[Vec<usize>],
    side: usize,
    lengths: &[usize],
    cycles: &[Vec<usize>],
) -> bool {
    if !cycles
        .iter()
        .all(|c| lengths.iter().any(|&l| c.len() % l == 0))
    {
        return false;
    }
    for h in groups.iter().filter(|h| h.len() == side) {
        let mut set: Vec<usize> = h.clone();
        set.sort_unstable();
        let mut image = set.clone();
        let mut m = 0;
        loop {
            m += 1;
            image = image.iter().map(|&c| perm[c]).collect();
            image.sort_unstable();
            if image == set {
                break;
            }
        }
        // perm^m on H's cells.
        let power = |c: usize| (0..m).fold(c, |x, _| perm[x]);
        let mut seen = vec![false; perm.len()];
        let mut on_h = Vec::new();
        for &c in h {
            if seen[c] {
                continue;
            }
            let mut len = 0;
            let mut x = c;
            while !seen[x] {
                seen[x] = true;
                len += 1;
                x = power(x);
            }
            on_h.push(len);
        }
        on_h.sort_unstable();
        let mut of_power: Vec<usize> = lengths
            .iter()
            .flat_map(|&l| {
                let g = gcd(l, m);
                std::iter::repeat_n(l / g, g)
            })
            .collect();
        of_power.sort_unstable();
        if on_h != of_power {
            return false;
        }
    }
    true
}

/// Every relabelling commuting with the permutation of cycle type `lengths` made by
/// [`digit_perm`]: it maps each cycle onto a cycle of its length, rotated.
fn centraliser(lengths: &[usize]) -> Vec<DigitPerm> {
    let n: usize = lengths.iter().sum();
    let starts: Vec<usize> = lengths
        .iter()
        .scan(0, |s, &l| {
            let at = *s;
            *s += l;
            Some(at)
        })
        .collect();
    let mut out = Vec::new();
    let mut tau = vec![0u8; n];
    let mut taken = vec![false; lengths.len()];
    fn go(
        k: usize,
        lengths: &[usize],
        starts: &[usize],
        tau: &mut Vec<u8>,
        taken: &mut Vec<bool>,
        out: &mut Vec<DigitPerm>,
    ) {
        if k == lengths.len() {
            out.push(tau.clone());
            return;
        }
        for b in 0..lengths.len() {
            if taken[b] || lengths[b] != lengths[k] {
                continue;
            }
            taken[b] = true;
            let l = lengths[k];
            for shift in 0..l {
                for i in 0..l {
                    tau[starts[k] + i] = (starts[b] + (i + shift) % l) as u8;
                }
                go(k + 1, lengths, starts, tau, taken, out);
            }
            taken[b] = false;
        }
    }
    go(0, lengths, &starts, &mut tau, &mut taken, &mut out);
    out
}

/// The count of `Fix(g, s) / |Z(s)|` for one relabelling `s`.
struct FixedCount<'a> {
    side: usize,
    groups_of: Vec<Vec<usize>>,
    cycles: &'a [Vec<usize>],
    /// Per cycle: the digits it may take before any is placed.
    allowed: Vec<u32>,
    /// `moved_back[i][mask]`: the digits `d` with `s^i d` in `mask` (`i` modulo the order).
    moved_back: Vec<Vec<u32>>,
    /// `power[i][d] = s^i d`.
    power: Vec<DigitPerm>,
    used: Vec<u32>,
    done: Vec<bool>,
    /// Per row: the cycles whose first cell is in it.
    rows: Vec<Vec<usize>>,
    /// Per row: how many of its cycles are filled.
    filled_in: Vec<usize>,
    /// The count left at the start of a row, by the row and every group's digits.
    memo: HashMap<(usize, Vec<u32>), u128>,
    nodes: u64,
    stop: Option<&'a AtomicBool>,
}

impl<'a> FixedCount<'a> {
    fn new(
        side: usize,
        groups: &[Vec<usize>],
        cycles: &'a [Vec<usize>],
        sigma: &[u8],
        stop: Option<&'a AtomicBool>,
    ) -> FixedCount<'a> {
        let cells = side * side;
        let mut groups_of = vec![Vec::new(); cells];
        for (k, h) in groups.iter().enumerate() {
            for &c in h {
                groups_of[c].push(k);
            }
        }
        // Powers of sigma up to its order.
        let id: DigitPerm = (0..side as u8).collect();
        let mut power = vec![id.clone()];
        loop {
            let last = power.last().expect("the identity");
            let next: DigitPerm = last.iter().map(|&d| sigma[usize::from(d)]).collect();
            if next == id {
                break;
            }
            power.push(next);
        }
        let order = power.len();
        let moved_back = power
            .iter()
            .map(|p| {
                (0..1u32 << side)
                    .map(|mask| {
                        (0..side)
                            .filter(|&d| mask & (1 << p[d]) != 0)
                            .fold(0u32, |m, d| m | 1 << d)
                    })
                    .collect()
            })
            .collect();
        let cycle_len: Vec<usize> = (0..side)
            .map(|d| {
                (1..=order)
                    .find(|&i| usize::from(power[i % order][d]) == d)
                    .unwrap()
            })
            .collect();
        let allowed = cycles
            .iter()
            .map(|cy| {
                let l = cy.len();
                let mut ok: u32 = (0..side)
                    .filter(|&d| l % cycle_len[d] == 0)
                    .fold(0, |m, d| m | 1 << d);
                // Two cells of the cycle in one group, i apart: their digits d and s^i d
                // must differ.
                for (a, &ca) in cy.iter().enumerate() {
                    for (b, &cb) in cy.iter().enumerate().skip(a + 1) {
                        if groups_of[ca].iter().any(|k| groups_of[cb].contains(k)) {
                            for (d, &len) in cycle_len.iter().enumerate() {
                                if (b - a).is_multiple_of(len) {
                                    ok &= !(1 << d);
                                }
                            }
                        }
                    }
                }
                ok
            })
            .collect();
        FixedCount {
            side,
            groups_of,
            cycles,
            allowed,
            moved_back,
            power,
            used: vec![0; groups.len()],
            done: vec![false; cycles.len()],
            rows: (0..side)
                .map(|r| {
                    (0..cycles.len())
                        .filter(|&k| cycles[k][0] / side == r)
                        .collect()
                })
                .collect(),
            filled_in: vec![0; side],
            memo: HashMap::new(),
            nodes: 0,
            stop,
        }
    }

    /// The digits cycle `k` may take now.
    fn domain(&self, k: usize) -> u32 {
        let order = self.power.len();
        let mut banned = 0u32;
        for (i, &c) in self.cycles[k].iter().enumerate() {
            let used = self.groups_of[c]
                .iter()
                .fold(0u32, |m, &h| m | self.used[h]);
            banned |= self.moved_back[i % order][used as usize];
        }
        self.allowed[k] & !banned
    }

    fn place(&mut self, k: usize, row: usize, d: usize, on: bool) {
        let order = self.power.len();
        for (i, &c) in self.cycles[k].iter().enumerate() {
            let bit = 1u32 << self.power[i % order][d];
            for &h in &self.groups_of[c] {
                if on {
                    self.used[h] |= bit;
                } else {
                    self.used[h] &= !bit;
                }
            }
        }
        self.done[k] = on;
        if on {
            self.filled_in[row] += 1;
        } else {
            self.filled_in[row] -= 1;
        }
    }

    /// The orbits, under `sym` (the relabellings commuting with `s` that fix every digit
    /// placed so far), of the fillings of the open cycles; `filled` cycles are filled.
    ///
    /// Cycles are filled row by row of their first cells (the open cycle with the fewest
    /// digits left first within a row). Once `sym` is trivial, what is left to count at the
    /// start of a row depends only on the digits each group holds, so it is remembered.
    fn search(&mut self, sym: &[DigitPerm], filled: usize) -> Result<u128, OrbitError> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(STOP_CHECK)
            && self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
        {
            return Err(OrbitError::Stopped);
        }
        if filled == self.cycles.len() {
            return Ok(1);
        }
        let row = (0..self.rows.len())
            .find(|&r| self.filled_in[r] < self.rows[r].len())
            .expect("an open cycle");
        let at_row_start = self.filled_in[row] == 0;
        let key = (sym.len() == 1 && at_row_start && row > 0).then(|| (row, self.used.clone()));
        if let Some(key) = &key {
            if let Some(&n) = self.memo.get(key) {
                return Ok(n);
            }
            // Every open cycle, not only this row's, must still take a digit.
            if (0..self.cycles.len()).any(|k| !self.done[k] && self.domain(k) == 0) {
                return Ok(0);
            }
        }
        let count = self.branch(sym, filled, row)?;
        if let Some(key) = key {
            if self.memo.len() < MEMO_ENTRIES {
                self.memo.insert(key, count);
            }
        }
        Ok(count)
    }

    /// [`Self::search`]'s branching on the open cycle of `row` with the fewest digits left.
    fn branch(&mut self, sym: &[DigitPerm], filled: usize, row: usize) -> Result<u128, OrbitError> {
        let mut best = (u32::MAX, 0, 0u32);
        for i in 0..self.rows[row].len() {
            let k = self.rows[row][i];
            if self.done[k] {
                continue;
            }
            let d = self.domain(k);
            let n = d.count_ones();
            if n < best.0 {
                best = (n, k, d);
                if n == 0 {
                    return Ok(0);
                }
            }
        }
        let (n, k, domain) = best;
        let mut count = 0u128;
        if sym.len() == 1 {
            if filled + 1 == self.cycles.len() {
                return Ok(u128::from(n));
            }
            let mut rest = domain;
            while rest != 0 {
                let d = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                self.place(k, row, d, true);
                count += self.search(sym, filled + 1)?;
                self.place(k, row, d, false);
            }
            return Ok(count);
        }
        // One digit per orbit of `sym` on the domain, the search going on under its
        // stabiliser.
        let mut seen = 0u32;
        for d in 0..self.side {
            if domain & (1 << d) == 0 || seen & (1 << d) != 0 {
                continue;
            }
            for t in sym {
                seen |= 1 << t[d];
            }
            let stab: Vec<DigitPerm> = sym
                .iter()
                .filter(|t| usize::from(t[d]) == d)
                .cloned()
                .collect();
            self.place(k, row, d, true);
            count += self.search(&stab, filled + 1)?;
            self.place(k, row, d, false);
        }
        Ok(count)
    }
}
