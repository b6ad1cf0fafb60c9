//! `B(C)`: the fillings of one band (`R` rows, `R` stacks of 2 columns) whose columns hold
//! the digit sets of the configuration `C`.
//!
//! A filling is a proper `R`-edge-colouring of the bipartite graph `H` joining each digit
//! to the `R` columns that hold it (one per stack), colours being rows: a row holds each
//! digit once (the digit's edges take distinct rows) and each column holds one digit per
//! row (the column's edges take distinct rows); the boxes then hold every digit, since a
//! stack's two columns hold complementary sets. `H` is `R`-regular, so the fillings are the
//! ordered decompositions of `H` into `R` perfect matchings.
//!
//! Counted by cutting the rows in two: by the symmetry of the rows, the `a` rows holding
//! digit 0's lowest `a` edges may be taken as the first `a` and the count multiplied by
//! `C(k, a)`; those rows are an `a`-factor `F` of `H` through exactly those edges (every
//! vertex of degree `a`), so `col_k(H) = C(k, a) * sum over such F of col_a(F) col_(k-a)(H - F)`
//! ([`split`], with `a = k / 2`), each half counted the same way down to three rows
//! ([`cubic`]: a perfect matching through a fixed edge, times 3, and the other two rows
//! alternating around each cycle of what is left) and two (`2^cycles`). At `R = 6` that lists the 3-factors through three fixed edges
//! (about 1.3e9 for the classes measured) and counts each and its complement as cubic graphs,
//! where the first version of this module went two rows at a time (89 million 2-factors,
//! each followed by a count of a 4-regular graph by its own 2-factors) and took some 65 times
//! longer. A graph that falls apart is the product of its components (at `R = 6` only the
//! class of two `K6,6`). The first cut's prefixes split one count over threads
//! ([`band_fillings_on`]) or into part units ([`band_fillings_part`]). Exact in `u128` (the
//! count of a band is at most `(R!)^(2R)`: `1.9e34` for `R = 6`). `cargo bench -p cores --bench two_band` measures it.

use std::sync::atomic::{AtomicBool, Ordering};

use super::Config;

/// The fillings of a band with configuration `config`; `None` when `stop` was set (checked
/// between the factors of the first cut, from `R = 4`).
pub fn band_fillings(config: &Config, stop: Option<&AtomicBool>) -> Option<u128> {
    let r = config.r();
    let adj = graph(config);
    let adj = &adj[..2 * r];
    match components(adj) {
        Some(parts) => whole_by_components(&parts, r, stop),
        None => colourings(adj, r, stop),
    }
}

/// The product of the components' colourings: a band whose graph falls apart fills each
/// component on its own (the rows are shared, each row a perfect matching of every
/// component). At `R = 6` only the class of two `K6,6` (every stack `789ABC`) does, and
/// its `B(C)` is `L6^2`, `L6` = 812,851,200 Latin squares of order 6 (OEIS A002860).
fn whole_by_components(parts: &[Vec<u16>], r: usize, stop: Option<&AtomicBool>) -> Option<u128> {
    parts
        .iter()
        .try_fold(1u128, |acc, p| Some(acc * colourings(p, r, stop)?))
}

/// The connected components of `adj` when there are two or more, each as its own graph
/// (its digits in order, its columns renumbered from 0 in order); `None` for a connected
/// graph.
fn components(adj: &[u16]) -> Option<Vec<Vec<u16>>> {
    let n = adj.len();
    let mut left = (1u32 << n) - 1;
    let mut out = Vec::new();
    while left != 0 {
        let start = left.trailing_zeros() as usize;
        let (mut digits, mut cols) = (1u32 << start, adj[start]);
        loop {
            let more = (0..n)
                .filter(|&d| adj[d] & cols != 0)
                .fold(digits, |m, d| m | 1 << d);
            if more == digits {
                break;
            }
            digits = more;
            cols = (0..n)
                .filter(|&d| digits >> d & 1 == 1)
                .fold(0, |m, d| m | adj[d]);
        }
        left &= !digits;
        let squeeze = |row: u16| {
            (0..n)
                .filter(|&c| cols >> c & 1 == 1)
                .enumerate()
                .fold(0u16, |m, (i, c)| m | ((row >> c & 1) << i))
        };
        out.push(
            (0..n)
                .filter(|&d| digits >> d & 1 == 1)
                .map(|d| squeeze(adj[d]))
                .collect(),
        );
    }
    (out.len() > 1).then_some(out)
}

/// The prefixes (the first three digits' columns) that cut the listing of [`split`] into
/// independent parts: what [`band_fillings_on`] spreads over threads and
/// [`band_fillings_part`] chunks into units. `None` below `R = 4`, where one count takes
/// milliseconds and is not cut.
fn cut(adj: &[u16], r: usize) -> Option<Vec<Vec<u16>>> {
    if r < 4 {
        return None;
    }
    let mut prefixes: Vec<Vec<u16>> = Vec::new();
    factors_from(
        adj,
        (r / 2) as u32,
        &[lowest(adj[0], (r / 2) as u32)],
        3,
        &mut |p| prefixes.push(p.to_vec()),
    );
    Some(prefixes)
}

/// Part `index` (0-based) of `of` of `B(C)`: the fillings whose first cut falls in the
/// `index`-th of `of` contiguous runs of [`cut`]'s prefixes, in listing order (so the parts
/// are the same on any machine and sum to [`band_fillings`]). A band that is not cut (below
/// `R = 4`, or a graph that falls apart and counts in a moment by its components) is all
/// in part 0, the others 0. `None` when `stop` was set.
pub fn band_fillings_part(
    config: &Config,
    index: usize,
    of: usize,
    stop: Option<&AtomicBool>,
) -> Option<u128> {
    assert!(index < of, "part {index} of {of}");
    let r = config.r();
    let adj = graph(config);
    let adj = &adj[..2 * r];
    let prefixes = match (components(adj), cut(adj, r)) {
        (None, Some(prefixes)) => prefixes,
        _ if index == 0 => return band_fillings(config, stop),
        _ => return Some(0),
    };
    let (from, to) = (
        index * prefixes.len() / of,
        (index + 1) * prefixes.len() / of,
    );
    let a = r / 2;
    let mut sum = 0u128;
    for p in &prefixes[from..to] {
        sum += split_from(adj, r, a, p, stop)?;
    }
    Some(sum * binomial(r, a))
}

/// The digit-column graph of `config`: digit `d`'s columns (stack `i`'s left column is
/// `2i`, its right `2i + 1`).
fn graph(config: &Config) -> [u16; 16] {
    let mut adj = [0u16; 16];
    for (i, &left) in config.stacks().iter().enumerate() {
        for (d, a) in adj.iter_mut().enumerate().take(2 * config.r()) {
            *a |= if left >> d & 1 == 1 {
                1 << (2 * i)
            } else {
                1 << (2 * i + 1)
            };
        }
    }
    adj
}

/// Ordered `k`-edge-colourings of the `k`-regular bipartite graph `adj` (digit -> column
/// mask).
fn colourings(adj: &[u16], k: usize, stop: Option<&AtomicBool>) -> Option<u128> {
    match k {
        0 | 1 => Some(1),
        2 => Some(1u128 << cycles(adj)),
        3 => Some(cubic(adj)),
        // Half the rows each side: two and two or three at 8x8 and 10x10, three and three
        // at 12x12.
        _ => split(adj, k, k / 2, stop),
    }
}

/// [`colourings`] cut after the first `a` rows (`0 < a < k`): by the symmetry of the rows,
/// the rows holding digit 0's lowest `a` edges may be taken as the first `a`, times
/// `C(k, a)`; those rows are an `a`-factor `F` through exactly those edges, and
/// `col_k(G) = C(k, a) * sum over such F of col_a(F) col_(k-a)(G - F)`. Both halves are
/// counted by [`colourings`] again. At `R = 6` (`a = 3`) it lists the 3-factors once
/// (1.2e9-1.3e9 for the classes measured), where two rows at a time listed 9e7 2-factors,
/// each followed by a count of a 4-regular graph by its own 2-factors.
fn split(adj: &[u16], k: usize, a: usize, stop: Option<&AtomicBool>) -> Option<u128> {
    split_from(adj, k, a, &[lowest(adj[0], a as u32)], stop).map(|sum| sum * binomial(k, a))
}

/// The sum of [`split`] over the `a`-factors extending `prefix`.
fn split_from(
    adj: &[u16],
    k: usize,
    a: usize,
    prefix: &[u16],
    stop: Option<&AtomicBool>,
) -> Option<u128> {
    let n = adj.len();
    let mut sum = 0u128;
    let mut stopped = false;
    factors_from(adj, a as u32, prefix, n, &mut |f| {
        if stopped || stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            stopped = true;
            return;
        }
        sum += halves(adj, f, k, a);
    });
    if stopped {
        return None;
    }
    Some(sum)
}

/// One term of [`split`]: `col_a(F) col_(k-a)(G - F)` for the `a`-factor `f` of `adj`.
fn halves(adj: &[u16], f: &[u16], k: usize, a: usize) -> u128 {
    let mut rest = [0u16; 16];
    for (r, (&g, &h)) in rest.iter_mut().zip(adj.iter().zip(f)) {
        *r = g & !h;
    }
    let first = colourings(f, a, None).expect("no stop flag");
    first * colourings(&rest[..adj.len()], k - a, None).expect("no stop flag")
}

/// [`band_fillings`] on `threads` local threads, for shapes where one count takes hours
/// (`R = 6`): the listing of [`split`] cut into the prefixes of its first three digits,
/// each counted on its own ([`crate::parallel::map`]). From `R = 4` (so that the tests see
/// the cut where one count takes a second); below, or on one thread, [`band_fillings`].
pub fn band_fillings_on(
    config: &Config,
    threads: usize,
    stop: Option<&AtomicBool>,
) -> Option<u128> {
    let r = config.r();
    let adj = graph(config);
    let adj = &adj[..2 * r];
    let prefixes = match (components(adj), cut(adj, r)) {
        (None, Some(prefixes)) if threads > 1 => prefixes,
        _ => return band_fillings(config, stop),
    };
    let a = r / 2;
    let parts = crate::parallel::map(threads, &prefixes, |p| split_from(adj, r, a, p, stop));
    let mut sum = 0u128;
    for part in parts {
        sum += part?;
    }
    Some(sum * binomial(r, a))
}

/// `col_3` of a cubic bipartite graph: `3 x sum over perfect matchings M through digit 0's
/// lowest edge of 2^cycles(G - M)` (the row holding that edge may be taken as the first; the
/// other two rows alternate around each cycle of what is left). What [`split`] asks twice
/// per 3-factor at `R = 6`, so written for speed: the matchings digit by digit (each next
/// digit the one meeting most of the columns met so far, so that dead ends show early), and
/// the cycles counted as the matching grows: a matched digit's two other edges are a path
/// between two columns, and the paths are joined end to end (each column's partner at the
/// far end of its path kept), a join of a path's two ends closing a cycle.
fn cubic(adj: &[u16]) -> u128 {
    let n = adj.len();
    let mut order = [0u8; 16];
    let mut placed = 1u16;
    let mut seen = adj[0];
    for slot in order.iter_mut().take(n).skip(1) {
        let mut best = (0, 0);
        for (d, &row) in adj.iter().enumerate() {
            if placed >> d & 1 == 0 {
                let x = row & seen;
                let y = x & x.wrapping_sub(1);
                let shared =
                    1 + (x != 0) as u32 + (y != 0) as u32 + (y & y.wrapping_sub(1) != 0) as u32;
                if shared > best.1 {
                    best = (d, shared);
                }
            }
        }
        *slot = best.0 as u8;
        placed |= 1 << best.0;
        seen |= adj[best.0];
    }
    let mut rows = [0u16; 16];
    for (i, &d) in order.iter().take(n).enumerate() {
        rows[i] = adj[d as usize];
    }
    // met[i]: the columns that the digits from order[i] on meet.
    let mut met = [0u16; 17];
    for i in (0..n).rev() {
        met[i] = met[i + 1] | rows[i];
    }
    let mut walk = CubicWalk {
        rows,
        met,
        n,
        all: (1u16 << n) - 1,
        end: std::array::from_fn(|c| c as u8),
        sum: 0,
    };
    walk.matched(0, rows[0] & rows[0].wrapping_neg(), 0, 0);
    3 * walk.sum as u128
}

struct CubicWalk {
    /// The digits' columns in matching order.
    rows: [u16; 16],
    met: [u16; 17],
    n: usize,
    all: u16,
    /// For a column at the end of a path of unmatched edges, the path's other end (itself
    /// when no edge meets it yet).
    end: [u8; 16],
    sum: u64,
}

impl CubicWalk {
    /// Digit `i` (in matching order) takes column `pick`: its other two columns join.
    fn matched(&mut self, i: usize, pick: u16, taken: u16, cycles: u32) {
        let other = self.rows[i] & !pick;
        let a = other.trailing_zeros() as usize;
        let b = (other & (other - 1)).trailing_zeros() as usize;
        let taken = taken | pick;
        if self.end[a] as usize == b {
            self.next(i + 1, taken, cycles + 1);
        } else {
            let (ea, eb) = (self.end[a] as usize, self.end[b] as usize);
            self.end[ea] = eb as u8;
            self.end[eb] = ea as u8;
            self.next(i + 1, taken, cycles);
            self.end[ea] = a as u8;
            self.end[eb] = b as u8;
        }
    }

    fn next(&mut self, i: usize, taken: u16, cycles: u32) {
        if i == self.n {
            self.sum += 1 << cycles;
            return;
        }
        let mut free = self.rows[i] & !taken;
        while free != 0 {
            let pick = free & free.wrapping_neg();
            free ^= pick;
            // A column that no later digit meets would stay unmatched.
            if self.all & !(taken | pick) & !self.met[i + 1] == 0 {
                self.matched(i, pick, taken, cycles);
            }
        }
    }
}

/// `B(C)` counted by [`split`] after the first `a` rows, for the tests.
#[cfg(test)]
pub(super) fn split_at(config: &Config, a: usize) -> u128 {
    let adj = graph(config);
    split(&adj[..2 * config.r()], config.r(), a, None).expect("not stopped")
}

/// `C(n, k)`.
fn binomial(n: usize, k: usize) -> u128 {
    (0..k).fold(1u128, |acc, i| acc * (n - i) as u128 / (i + 1) as u128)
}

/// The `f` lowest set bits of `row`.
fn lowest(row: u16, f: u32) -> u16 {
    let mut rest = row;
    let mut picked = 0;
    for _ in 0..f {
        let low = rest & rest.wrapping_neg();
        picked |= low;
        rest ^= low;
    }
    picked
}

/// Calls `leaf` with every `f`-factor of the regular graph `adj` (every digit and column of
/// degree `f`) that extends the digits' columns `prefix` (digit 0 first), or with its first
/// `until` digits when `until` is short of the digits (the prefixes that split the listing
/// into independent parts): digit by digit, `f` of its columns not yet full, pruned when a
/// column needs more edges than the digits left can give it.
fn factors_from(adj: &[u16], f: u32, prefix: &[u16], until: usize, leaf: &mut impl FnMut(&[u16])) {
    let n = adj.len();
    // left[d][c]: digits `d..` meeting column `c`.
    let mut left = [[0u8; 16]; 17];
    for d in (0..n).rev() {
        left[d] = left[d + 1];
        for (c, count) in left[d].iter_mut().enumerate().take(n) {
            *count += (adj[d] >> c & 1) as u8;
        }
    }
    let mut degree = [0u8; 16];
    let mut picked = [0u16; 16];
    let mut full = 0u16;
    for (d, &p) in prefix.iter().enumerate() {
        picked[d] = p;
        for (c, deg) in degree.iter_mut().enumerate().take(n) {
            if p >> c & 1 == 1 {
                *deg += 1;
                if *deg as u32 == f {
                    full |= 1 << c;
                }
            }
        }
    }
    let d = prefix.len();
    if (0..n).any(|c| f as u8 - degree[c] > left[d][c]) {
        return;
    }
    let mut step = FactorStep {
        adj,
        f,
        until,
        left: &left,
    };
    step.go(d, &mut degree, full, &mut picked, leaf);
}

struct FactorStep<'a> {
    adj: &'a [u16],
    f: u32,
    until: usize,
    left: &'a [[u8; 16]; 17],
}

impl FactorStep<'_> {
    fn go(
        &mut self,
        d: usize,
        degree: &mut [u8; 16],
        full: u16,
        picked: &mut [u16; 16],
        leaf: &mut impl FnMut(&[u16]),
    ) {
        let (adj, f, left) = (self.adj, self.f, self.left);
        let n = adj.len();
        if d == self.until {
            leaf(&picked[..d]);
            return;
        }
        let free = adj[d] & !full;
        // Every subset of `free` with `f` columns.
        let mut sub = free;
        loop {
            if sub.count_ones() == f {
                let mut now_full = full;
                let mut m = sub;
                while m != 0 {
                    let c = m.trailing_zeros() as usize;
                    m &= m - 1;
                    degree[c] += 1;
                    if degree[c] as u32 == f {
                        now_full |= 1 << c;
                    }
                }
                // A column short of edges that the digits after `d` cannot fill is a dead
                // end.
                if (0..n).all(|c| f as u8 - degree[c] <= left[d + 1][c]) {
                    picked[d] = sub;
                    self.go(d + 1, degree, now_full, picked, leaf);
                }
                let mut m = sub;
                while m != 0 {
                    let c = m.trailing_zeros() as usize;
                    m &= m - 1;
                    degree[c] -= 1;
                }
            }
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & free;
        }
    }
}

/// The cycles of a 2-regular bipartite graph (digit -> two columns).
fn cycles(adj: &[u16]) -> u32 {
    let n = adj.len();
    // column -> its two digits
    let mut col = [[u8::MAX; 2]; 16];
    for (d, &a) in adj.iter().enumerate() {
        let mut m = a;
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            let slot = if col[c][0] == u8::MAX { 0 } else { 1 };
            col[c][slot] = d as u8;
        }
    }
    let mut seen = 0u32;
    let mut count = 0;
    for start in 0..n {
        if seen >> start & 1 == 1 {
            continue;
        }
        count += 1;
        let mut d = start;
        let mut via = adj[d].trailing_zeros() as usize;
        loop {
            seen |= 1 << d;
            let [a, b] = col[via];
            let next = if a as usize == d { b } else { a } as usize;
            if next == start {
                break;
            }
            d = next;
            via = (adj[d] & !(1 << via)).trailing_zeros() as usize;
        }
    }
    count
}

/// A measured estimate of [`band_fillings`]' time on one configuration, for shapes where
/// one count takes hours: the first level's branches (the `R / 2`-factors that [`split`]
/// lists) are all listed (a small part of the count), and the rest of the count is timed on
/// a seeded random sample of them.
#[derive(Clone, Debug, PartialEq)]
pub struct CostProbe {
    /// `R / 2`-factors through digit 0's lowest `R / 2` edges: the first level's branches.
    pub branches: u64,
    /// Seconds listing them.
    pub listing_seconds: f64,
    /// Branches counted in the sample and their seconds.
    pub sampled: usize,
    pub sampled_seconds: f64,
}

impl CostProbe {
    /// Estimated seconds for the whole count: the listing, and branches x mean seconds per
    /// sampled branch.
    pub fn estimate_seconds(&self) -> f64 {
        self.listing_seconds
            + self.branches as f64 * self.sampled_seconds / self.sampled.max(1) as f64
    }
}

/// Probes the cost of `band_fillings(config)` as [`split`] counts it after `R / 2` rows
/// (`R >= 4`): lists the first level's branches, keeps `samples` of them by reservoir
/// sampling with `seed`, and times the rest of the count on each.
pub fn cost_probe(config: &Config, samples: usize, seed: u64) -> CostProbe {
    use rand::{Rng, SeedableRng};
    let r = config.r();
    let a = r / 2;
    let n = 2 * r;
    let adj = graph(config);
    let adj = &adj[..n];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut kept: Vec<[u16; 16]> = Vec::new();
    let mut branches = 0u64;
    let listing = std::time::Instant::now();
    factors_from(adj, a as u32, &[lowest(adj[0], a as u32)], n, &mut |f| {
        branches += 1;
        let mut q = [0u16; 16];
        q[..n].copy_from_slice(f);
        if kept.len() < samples {
            kept.push(q);
        } else {
            let j = rng.random_range(0..branches);
            if (j as usize) < samples {
                kept[j as usize] = q;
            }
        }
    });
    let listing_seconds = listing.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    for q in &kept {
        std::hint::black_box(halves(adj, &q[..n], r, a));
    }
    CostProbe {
        branches,
        listing_seconds,
        sampled: kept.len(),
        sampled_seconds: started.elapsed().as_secs_f64(),
    }
}
