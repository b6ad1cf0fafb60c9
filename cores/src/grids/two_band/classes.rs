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
//! reduced to its canonical form (the least sorted multiset over all `2^k k!` bit
//! symmetries; only flips taking a digit to 0 can give it), then deduplicated.

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
/// after a flip mask.
struct BitGroup {
    perms: Vec<Vec<u8>>,
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
        BitGroup { perms }
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
        for table in &self.perms {
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
        for k in 1..r {
            let group = BitGroup::new(k + 1);
            let mut seen: HashSet<Vec<u8>> = HashSet::new();
            let mut cands = Vec::new();
            for sigs in &level {
                cands.clear();
                extensions(sigs, k, r, &mut cands);
                for c in &cands {
                    seen.insert(group.canonical(c).0);
                }
            }
            level = seen.into_iter().collect();
            level.sort_unstable();
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
