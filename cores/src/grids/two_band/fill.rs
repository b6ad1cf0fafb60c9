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
//! Counted two rows at a time: the first two rows of a filling are a 2-factor `Q` of `H`
//! (every vertex of degree 2), which splits into two ordered matchings in `2^cycles(Q)` ways
//! (each even cycle alternates). By the symmetry of the rows, the two rows holding two fixed
//! edges of digit 0 may be taken as the first two and the count multiplied by `C(k, 2)`:
//! `col_k(G) = C(k,2) * sum over 2-factors Q of G through those edges of
//! 2^cycles(Q) col_(k-2)(G - Q)`; with three rows left, one row (a perfect matching through
//! a fixed edge, times 3) and `col_2 = 2^cycles`. Exact in `u128` (the count of a band is at
//! most `(R!)^(2R)`: `1.9e34` for `R = 6`). `cargo bench -p cores --bench two_band` measures
//! it.

use std::sync::atomic::{AtomicBool, Ordering};

use super::Config;

/// The fillings of a band with configuration `config`; `None` when `stop` was set (checked
/// between the first row's matchings).
pub fn band_fillings(config: &Config, stop: Option<&AtomicBool>) -> Option<u128> {
    let r = config.r();
    let n = 2 * r;
    let adj = graph(config);
    colourings(&adj[..n], r, stop)
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
    let n = adj.len();
    let mut sum = 0u128;
    let mut rest = [0u16; 16];
    let mut stopped = false;
    let mut leaf = |picked: &[u16], weight: u128| {
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            stopped = true;
            return;
        }
        for d in 0..n {
            rest[d] = adj[d] & !picked[d];
        }
        sum +=
            weight * colourings(&rest[..n], k - picked[0].count_ones() as usize, None).unwrap_or(0);
    };
    let mut picked = [0u16; 16];
    // Digit 0's lowest edges: the first row's (k = 3) or the first two rows' (k >= 4).
    let low = adj[0] & adj[0].wrapping_neg();
    let factor = match k {
        0 | 1 => return Some(1),
        2 => return Some(1u128 << cycles(adj)),
        3 => {
            picked[0] = low;
            factors(adj, &Cover::new(adj), 1, 1, 0, low, &mut picked, &mut |p| {
                leaf(p, 1)
            });
            3
        }
        _ => {
            picked[0] = first_two(adj[0]);
            factors(
                adj,
                &Cover::new(adj),
                2,
                1,
                picked[0],
                0,
                &mut picked,
                &mut |p| leaf(p, 1u128 << cycles(&p[..n])),
            );
            (k * (k - 1) / 2) as u128
        }
    };
    if stopped {
        return None;
    }
    Some(sum * factor)
}

/// For each digit `d`, the columns that digits `d..` meet at least once and at least twice:
/// a partial matching or 2-factor whose columns still short of edges are not among them is a
/// dead end.
struct Cover {
    once: [u16; 17],
    twice: [u16; 17],
}

impl Cover {
    fn new(adj: &[u16]) -> Cover {
        let mut c = Cover {
            once: [0; 17],
            twice: [0; 17],
        };
        for d in (0..adj.len()).rev() {
            c.twice[d] = c.twice[d + 1] | (c.once[d + 1] & adj[d]);
            c.once[d] = c.once[d + 1] | adj[d];
        }
        c
    }
}

/// Calls `leaf` with every `f`-factor (`f` 1: a perfect matching, 2: a 2-factor) that
/// extends `picked[..d]` (`once`: the columns they meet once when `f` is 2; `full`: the
/// columns they meet `f` times), `f` columns per digit from `d` on.
#[allow(clippy::too_many_arguments)]
fn factors(
    adj: &[u16],
    cover: &Cover,
    f: u32,
    d: usize,
    once: u16,
    full: u16,
    picked: &mut [u16; 16],
    leaf: &mut impl FnMut(&[u16]),
) {
    if d == adj.len() {
        leaf(&picked[..adj.len()]);
        return;
    }
    let all = (1u16 << adj.len()) - 1;
    let mut a_free = adj[d] & !full;
    while a_free != 0 {
        let a = a_free & a_free.wrapping_neg();
        a_free ^= a;
        // With f = 2, a second column above the first; with f = 1, none (b = 0, once).
        let mut b_free = if f == 2 { a_free } else { 0 };
        loop {
            let b = b_free & b_free.wrapping_neg();
            if f == 2 && b == 0 {
                break;
            }
            b_free ^= b;
            let pick = a | b;
            picked[d] = pick;
            let (o, t) = if f == 1 {
                (0, full | pick)
            } else {
                (once ^ pick, full | (once & pick))
            };
            let untouched = all & !o & !t;
            let need_two = if f == 1 { 0 } else { untouched };
            let need_one = if f == 1 { untouched } else { o };
            if need_two & !cover.twice[d + 1] == 0 && need_one & !cover.once[d + 1] == 0 {
                factors(adj, cover, f, d + 1, o, t, picked, leaf);
            }
            if f == 1 {
                break;
            }
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
/// one count takes hours: the first two rows' 2-factors are all listed (cheap), and the rest
/// of the count is timed on a seeded random sample of them.
#[derive(Clone, Debug, PartialEq)]
pub struct CostProbe {
    /// 2-factors through digit 0's two lowest edges: the first level's branches.
    pub branches: u64,
    /// Branches counted in the sample and their seconds.
    pub sampled: usize,
    pub sampled_seconds: f64,
}

impl CostProbe {
    /// Estimated seconds for the whole count: branches x mean seconds per sampled branch.
    pub fn estimate_seconds(&self) -> f64 {
        self.branches as f64 * self.sampled_seconds / self.sampled.max(1) as f64
    }
}

/// Probes the cost of `band_fillings(config)` (`R >= 4`): lists the first level's branches,
/// keeps `samples` of them by reservoir sampling with `seed`, and times the rest of the count
/// on each.
pub fn cost_probe(config: &Config, samples: usize, seed: u64) -> CostProbe {
    use rand::{Rng, SeedableRng};
    let r = config.r();
    let n = 2 * r;
    let adj = graph(config);
    let adj = &adj[..n];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut kept: Vec<[u16; 16]> = Vec::new();
    let mut branches = 0u64;
    let mut picked = [0u16; 16];
    picked[0] = first_two(adj[0]);
    factors(
        adj,
        &Cover::new(adj),
        2,
        1,
        picked[0],
        0,
        &mut picked,
        &mut |p| {
            branches += 1;
            let mut q = [0u16; 16];
            q[..n].copy_from_slice(p);
            if kept.len() < samples {
                kept.push(q);
            } else {
                let j = rng.random_range(0..branches);
                if (j as usize) < samples {
                    kept[j as usize] = q;
                }
            }
        },
    );
    let started = std::time::Instant::now();
    for q in &kept {
        let mut rest = [0u16; 16];
        for d in 0..n {
            rest[d] = adj[d] & !q[d];
        }
        std::hint::black_box(colourings(&rest[..n], r - 2, None));
    }
    CostProbe {
        branches,
        sampled: kept.len(),
        sampled_seconds: started.elapsed().as_secs_f64(),
    }
}

/// The two lowest set bits of `row`: the first vertex's first two edges, where the counts of
/// four or more rows start their pairs of rows.
fn first_two(row: u16) -> u16 {
    let low = row & row.wrapping_neg();
    let rest = row & !low;
    low | (rest & rest.wrapping_neg())
}
