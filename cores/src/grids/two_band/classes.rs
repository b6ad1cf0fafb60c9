//! The classes of top-band column configurations of a two-band Sudoku (boxes of `R` rows by
//! 2 columns, side `2R`), one representative and its class size `E(C)` each.
//!
//! A configuration gives each stack's left column its `R` digits (the right column holds the
//! complement). Read per digit, it is a *signature*: the `R` bits "left in stack i". The
//! symmetries that keep the number of band fillings `B(C)` are
//! - relabelling the digits (`(2R)!`): a filling relabelled fills the relabelled
//!   configuration, so only the multiset of signatures matters;
//! - permuting the stacks (`R!`): permute the fillings' stacks alike;
//! - swapping the two columns of one stack (`2^R`, stack by stack): the filling with that
//!   stack's columns swapped has the stack's sets complemented, i.e. that signature bit
//!   flipped in every digit.
//!
//! (Row permutations inside the band leave the configuration as it is: they act on `B(C)`'s
//! fillings, not on `C`.) So the classes are the orbits of multisets of `2R` signatures,
//! each bit set in exactly `R` of them, under the hyperoctahedral group of the `R` bits
//! (bit permutations and flips, `2^R R!` elements). Pettersen (enjoysudoku forum, "Su-Doku's
//! maths", 2005) reports 355 of them for 10x10; the test checks it.
//!
//! `E(C) = (2R)! R! 2^R / |Stab(C)|` by the orbit-stabiliser theorem, and the stabiliser is
//! every (bit symmetry, relabelling) pair mapping `C` to itself: for each bit symmetry that
//! maps the multiset onto itself, the relabellings that do are exactly those permuting
//! digits of equal signature, `prod n_v!` of them. The classes' sizes sum to every
//! configuration, `C(2R, R)^R` (checked by [`Classes::enumerate`]).
//!
//! Enumeration: stack by stack. The classes over `k` stacks are extended by every way of
//! putting `R` digits in the new stack's left column, digits of equal signature being
//! interchangeable (so a choice is how many of each signature), and each extension is
//! reduced to its canonical form, then deduplicated; the classes of `k` stacks are shared
//! among the local cores. The canonical form is the least sorted multiset over the bit
//! symmetries that put the bits in order of an invariant (each bit's sorted distances to the
//! others, [`pair_distance`]), every order among bits of equal invariant: a symmetric set,
//! so its least image is canonical, and the automorphisms all lie in it. Only flips taking a
//! digit to 0 can give the least image. The 63,199 classes of 12x12 take about 11 s on 2
//! cores this way; over all `2^k k!` symmetries they had not finished after 5 minutes (one
//! core, loaded machine).

use std::collections::HashSet;

use super::{Config, TwoBandError, MAX_R};

/// One class: its canonical signature multiset and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigClass {
    /// Configuration representing the class (digits numbered in signature order).
    pub config: Config,
    /// `E(C)`: the configurations in the class.
    pub size: u128,
}

/// Every class of one shape, in canonical order.
#[derive(Clone, Debug)]
pub struct Classes {
    pub r: usize,
    pub classes: Vec<ConfigClass>,
}

/// The bit symmetries of `k` bits: each is a permutation table of all `2^k` values, applied
/// after a flip mask, listed in lexicographic order of the permutation (so that
/// [`BitGroup::rank`] finds a permutation's table).
struct BitGroup {
    k: usize,
    perms: Vec<Vec<u8>>,
}

/// How far apart two bits are, in a way no symmetry changes: over the `N` digits, bits `a`
/// and `b` agree in `x` and differ in `N - x`; flipping either swaps the two, so
/// `min(x, N - x)` is kept by flips, by bit permutations (which move the pair) and by
/// relabelling (which reorders the digits).
fn pair_distance(sigs: &[u8], a: usize, b: usize) -> u8 {
    let differ = sigs.iter().filter(|&&s| (s >> a ^ s >> b) & 1 == 1).count();
    differ.min(sigs.len() - differ) as u8
}

impl BitGroup {
    fn new(k: usize) -> BitGroup {
        let mut perms = Vec::new();
        let mut p: Vec<usize> = (0..k).collect();
        loop {
            let table = (0..1usize << k)
                .map(|v| {
                    (0..k)
                        .filter(|&b| v >> b & 1 == 1)
                        .fold(0u8, |acc, b| acc | 1 << p[b])
                })
                .collect();
            perms.push(table);
            if !next_permutation(&mut p) {
                break;
            }
        }
        BitGroup { k, perms }
    }

    /// The index in `perms` of the permutation `p` (its rank in lexicographic order).
    fn rank(&self, p: &[usize]) -> usize {
        let mut rank = 0;
        for i in 0..self.k {
            let smaller_later = p[i + 1..].iter().filter(|&&q| q < p[i]).count();
            rank = rank * (self.k - i) + smaller_later;
        }
        rank
    }

    /// The permutations (bit `b` to position `p[b]`) that put the bits in order of their
    /// invariants (each bit's sorted [`pair_distance`]s to the others), every order among
    /// bits of equal invariant: a set that a symmetry `g` maps to the set of `g(sigs)`, so
    /// that the least image over it is still a canonical form, and the symmetries in it that
    /// give the least image are still every automorphism (they keep the invariants).
    fn ordered_perms(&self, sigs: &[u8]) -> Vec<usize> {
        let k = self.k;
        let mut inv: Vec<(Vec<u8>, usize)> = (0..k)
            .map(|a| {
                let mut d: Vec<u8> = (0..k)
                    .filter(|&b| b != a)
                    .map(|b| pair_distance(sigs, a, b))
                    .collect();
                d.sort_unstable();
                (d, a)
            })
            .collect();
        inv.sort();
        // Blocks of equal invariant, in order: their bits take consecutive positions.
        let mut blocks: Vec<Vec<usize>> = Vec::new();
        for (i, (d, a)) in inv.iter().enumerate() {
            if i > 0 && inv[i - 1].0 == *d {
                blocks.last_mut().expect("a block").push(*a);
            } else {
                blocks.push(vec![*a]);
            }
        }
        let mut out = Vec::new();
        let mut p = vec![0usize; k];
        let mut orders: Vec<Vec<usize>> = blocks.clone();
        loop {
            let mut pos = 0;
            for block in &orders {
                for &b in block {
                    p[b] = pos;
                    pos += 1;
                }
            }
            out.push(self.rank(&p));
            // The next combination of block orders, as an odometer of permutations.
            let mut i = 0;
            loop {
                if i == orders.len() {
                    return out;
                }
                if next_permutation(&mut orders[i]) {
                    break;
                }
                orders[i].clone_from(&blocks[i]);
                i += 1;
            }
        }
    }

    /// The least image of `sigs` (sorted) and how many symmetries give it.
    fn canonical(&self, sigs: &[u8]) -> (Vec<u8>, u64) {
        let mut best = vec![u8::MAX; sigs.len()];
        let mut ties = 0u64;
        let mut img = vec![0u8; sigs.len()];
        // The least image starts with 0, so only flips that take some digit to 0 (its own
        // signature) can give it; every symmetry that gives it is among them.
        let mut flips = sigs.to_vec();
        flips.sort_unstable();
        flips.dedup();
        for perm in self.ordered_perms(sigs) {
            let table = &self.perms[perm];
            for &flip in &flips {
                for (o, &s) in img.iter_mut().zip(sigs) {
                    *o = table[(s ^ flip) as usize];
                }
                img.sort_unstable();
                match img.cmp(&best) {
                    std::cmp::Ordering::Less => {
                        best.copy_from_slice(&img);
                        ties = 1;
                    }
                    std::cmp::Ordering::Equal => ties += 1,
                    std::cmp::Ordering::Greater => {}
                }
            }
        }
        (best, ties)
    }
}

fn next_permutation(p: &mut [usize]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        return false;
    };
    let j = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]).unwrap_or(i);
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

fn factorial(n: usize) -> u128 {
    (1..=n as u128).product()
}

fn binomial(n: usize, k: usize) -> u128 {
    (0..k as u128).fold(1, |acc, i| acc * (n as u128 - i) / (i + 1))
}

/// The ways to extend `sigs` (sorted signatures over `k` bits) by a bit `k` set in exactly
/// `r` digits, one per count of each distinct signature.
fn extensions(sigs: &[u8], k: usize, r: usize, out: &mut Vec<Vec<u8>>) {
    let mut groups: Vec<(u8, usize)> = Vec::new();
    for &s in sigs {
        match groups.last_mut() {
            Some((v, n)) if *v == s => *n += 1,
            _ => groups.push((s, 1)),
        }
    }
    let mut take = vec![0usize; groups.len()];
    fn rec(
        g: usize,
        left: usize,
        groups: &[(u8, usize)],
        take: &mut Vec<usize>,
        k: usize,
        out: &mut Vec<Vec<u8>>,
    ) {
        if g == groups.len() {
            if left == 0 {
                let mut v = Vec::new();
                for (&(s, n), &t) in groups.iter().zip(take.iter()) {
                    v.extend(std::iter::repeat_n(s | 1 << k, t));
                    v.extend(std::iter::repeat_n(s, n - t));
                }
                out.push(v);
            }
            return;
        }
        let rest: usize = groups[g..].iter().map(|x| x.1).sum();
        if left > rest {
            return;
        }
        for t in 0..=groups[g].1.min(left) {
            take[g] = t;
            rec(g + 1, left - t, groups, take, k, out);
        }
    }
    rec(0, r, &groups, &mut take, k, out);
}

impl Classes {
    /// Every class of configurations for boxes of `r` rows by 2 columns (`2 <= r <= MAX_R`),
    /// with their sizes, checked to sum to `C(2r, r)^r`.
    pub fn enumerate(r: usize) -> Result<Classes, TwoBandError> {
        super::check_r(r)?;
        let n = 2 * r;
        // One stack: r digits left, r right (its flip gives the same multiset).
        let mut level: Vec<Vec<u8>> = vec![[vec![0u8; r], vec![1u8; r]].concat()];
        let threads = crate::parallel::local_threads();
        for k in 1..r {
            let group = BitGroup::new(k + 1);
            // The classes of `k` stacks are dealt to the threads in turn; each keeps the
            // canonical forms it meets, and the sets are merged.
            let parts: Vec<HashSet<Vec<u8>>> =
                crate::parallel::map(threads, &(0..threads).collect::<Vec<_>>(), |&t| {
                    let mut seen: HashSet<Vec<u8>> = HashSet::new();
                    let mut cands = Vec::new();
                    for sigs in level.iter().skip(t).step_by(threads) {
                        cands.clear();
                        extensions(sigs, k, r, &mut cands);
                        for c in &cands {
                            seen.insert(group.canonical(c).0);
                        }
                    }
                    seen
                });
            let mut all: Vec<Vec<u8>> = parts.into_iter().flatten().collect();
            all.sort_unstable();
            all.dedup();
            level = all;
        }
        let group = BitGroup::new(r);
        let order = factorial(n) * factorial(r) * (1u128 << r);
        let mut classes = Vec::with_capacity(level.len());
        for sigs in level {
            let (canon, aut) = group.canonical(&sigs);
            debug_assert_eq!(canon, sigs);
            let mut same = 1u128;
            let mut run = 0;
            for i in 0..n {
                run = if i > 0 && sigs[i] == sigs[i - 1] {
                    run + 1
                } else {
                    1
                };
                same *= run as u128;
            }
            let size = order / (aut as u128 * same);
            classes.push(ConfigClass {
                config: Config::from_signatures(r, &sigs),
                size,
            });
        }
        let total: u128 = classes.iter().map(|c| c.size).sum();
        let all = binomial(n, r).pow(r as u32);
        if total != all {
            return Err(TwoBandError(format!(
                "the {} classes of {r}-row bands cover {total} configurations, not C({n},{r})^{r} = {all}",
                classes.len()
            )));
        }
        Ok(Classes { r, classes })
    }

    /// The canonical form of `config`'s class (for tests and for reading a ledger row back).
    pub fn canonical(config: &Config) -> Config {
        let r = config.r();
        debug_assert!(r <= MAX_R);
        let (canon, _) = BitGroup::new(r).canonical(&config.signatures());
        Config::from_signatures(r, &canon)
    }
}
