//! Cutting a counting job into units (issue 3, "Partitioning a counting job"): a unit is a
//! prefix of option choices. The first units are the options of the MRV item at the root (the
//! job's prefix applied); then the unit with the largest Monte Carlo estimate (Knuth 1975,
//! `cores::xcc::estimate`, seeded by the job's seed and the unit's prefix) is replaced by its
//! children, again and again, while it exceeds the node budget and the unit cap allows.
//! Prefixes that are solved or dead at partition time are counted here directly (1 or 0).
//!
//! Invariant: the units' subtrees are disjoint and cover the job's whole tree, so the job's
//! count is the sum of the units' counts (checked in the tests below against a plain count).
//! Work units are ordered largest estimate first, so that the scheduler (oldest first) hands
//! out the long ones early and the short ones fill the end of the job.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use cores::xcc::{estimate_from, parse_dlx, Branching, Dlx, DlxParseError, PrefixError, Problem};

use crate::job::{Prefix, UnitEstimate, UnitResult};
use crate::scheduler::NewUnit;

/// How finely to cut.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionSettings {
    /// Split units whose estimated nodes exceed this.
    pub unit_node_budget: u64,
    /// Stop splitting when the next split would make more units than this (at least the
    /// root's branching is always used).
    pub max_units: u32,
    /// Random paths per estimate.
    pub estimate_samples: u32,
    pub seed: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartitionError {
    #[error("DLX text, {0}")]
    Dlx(#[from] DlxParseError),
    #[error("the job's prefix cannot be applied: {0}")]
    Prefix(#[from] PrefixError),
}

/// Parses the job's DLX text and partitions it.
pub fn partition_dlx(
    dlx: &str,
    prefix: &[u32],
    settings: &PartitionSettings,
) -> Result<Vec<NewUnit>, PartitionError> {
    let problem = parse_dlx(dlx)?;
    partition(&problem, prefix, settings)
}

/// A candidate unit whose subtree was estimated.
struct Open {
    prefix: Prefix,
    estimate: UnitEstimate,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Open {}
impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Open {
    /// Largest estimate first; ties by prefix, so the partition is deterministic.
    fn cmp(&self, other: &Self) -> Ordering {
        self.estimate
            .nodes
            .total_cmp(&other.estimate.nodes)
            .then_with(|| other.prefix.cmp(&self.prefix))
    }
}

fn counted(prefix: Prefix, solutions: u128) -> NewUnit {
    NewUnit {
        prefix,
        estimate: None,
        task: None,
        counted: Some(UnitResult {
            solutions,
            nodes: 0,
            updates: 0,
            estimate_nodes: 0.0,
            wall_seconds: 0.0,
            cpu_seconds: 0.0,
            host: "coordinator (partition)".to_string(),
            remaining: Vec::new(),
            run_record_json: String::new(),
        }),
    }
}

/// The seed of the estimate of one prefix: the job's seed mixed with an FNV-1a hash of it.
fn prefix_seed(seed: u64, prefix: &[u32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &o in prefix {
        for b in o.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    seed ^ h
}

enum Examined {
    Counted(Box<NewUnit>),
    Open(Open, Vec<u32>),
}

fn examine(
    problem: &Problem,
    prefix: Prefix,
    s: &PartitionSettings,
) -> Result<Examined, PrefixError> {
    let mut dlx = Dlx::new(problem);
    dlx.apply_prefix(&prefix)?;
    match dlx.branching() {
        Branching::Solved => Ok(Examined::Counted(Box::new(counted(prefix, 1)))),
        Branching::DeadEnd => Ok(Examined::Counted(Box::new(counted(prefix, 0)))),
        Branching::Branch { options, .. } => {
            let e = estimate_from(
                &mut dlx,
                u64::from(s.estimate_samples.max(1)),
                prefix_seed(s.seed, &prefix),
            );
            let estimate = UnitEstimate {
                nodes: e.nodes.mean,
                nodes_std_err: e.nodes.std_err,
                updates: e.updates.mean,
                solutions: e.solutions.mean,
            };
            Ok(Examined::Open(Open { prefix, estimate }, options))
        }
    }
}

fn child(prefix: &[u32], option: u32) -> Prefix {
    let mut p = prefix.to_vec();
    p.push(option);
    p
}

/// Cuts the tree below `prefix` into units (see the module doc).
pub fn partition(
    problem: &Problem,
    prefix: &[u32],
    s: &PartitionSettings,
) -> Result<Vec<NewUnit>, PartitionError> {
    let root = match examine(problem, prefix.to_vec(), s)? {
        Examined::Counted(unit) => return Ok(vec![*unit]),
        Examined::Open(_, options) => options,
    };
    let mut done: Vec<NewUnit> = Vec::new();
    // Each open unit with the options it would split into.
    let mut heap: BinaryHeap<(Open, Vec<u32>)> = BinaryHeap::new();
    let add = |p: Prefix, done: &mut Vec<NewUnit>, heap: &mut BinaryHeap<(Open, Vec<u32>)>| {
        match examine(problem, p, s)? {
            Examined::Counted(u) => done.push(*u),
            Examined::Open(o, options) => heap.push((o, options)),
        }
        Ok::<(), PrefixError>(())
    };
    for &o in &root {
        add(child(prefix, o), &mut done, &mut heap)?;
    }
    while let Some((top, options)) = heap.pop() {
        let units = done.len() + heap.len() + 1;
        let fits = units - 1 + options.len() <= s.max_units as usize;
        if top.estimate.nodes <= s.unit_node_budget as f64 || !fits {
            heap.push((top, options));
            break;
        }
        for &o in &options {
            add(child(&top.prefix, o), &mut done, &mut heap)?;
        }
    }
    // Counted units first, then the work units largest estimate first.
    let mut open: Vec<Open> = heap.into_iter().map(|(o, _)| o).collect();
    open.sort_by(|a, b| b.cmp(a));
    done.sort_by(|a, b| a.prefix.cmp(&b.prefix));
    done.extend(open.into_iter().map(|o| NewUnit {
        prefix: o.prefix,
        estimate: Some(o.estimate),
        task: None,
        counted: None,
    }));
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    /// n queens as DLX text: rows and columns primary, diagonals secondary.
    fn queens(n: usize) -> String {
        let mut t = String::new();
        for i in 0..n {
            write!(t, "r{i} ").unwrap();
        }
        for j in 0..n {
            write!(t, "c{j} ").unwrap();
        }
        t.push('|');
        for d in 0..2 * n - 1 {
            write!(t, " a{d} b{d}").unwrap();
        }
        t.push('\n');
        for i in 0..n {
            for j in 0..n {
                writeln!(t, "r{i} c{j} a{} b{}", i + j, i + n - 1 - j).unwrap();
            }
        }
        t
    }

    /// 4x4 Sudoku (2x2 boxes) as DLX text: cell, row-digit, column-digit, box-digit items.
    fn sudoku4() -> String {
        let mut t = String::new();
        for a in ["p", "r", "c", "b"] {
            for x in 0..4 {
                for y in 0..4 {
                    write!(t, "{a}{x}{y} ").unwrap();
                }
            }
        }
        t.push('\n');
        for r in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let b = (r / 2) * 2 + c / 2;
                    writeln!(t, "p{r}{c} r{r}{d} c{c}{d} b{b}{d}").unwrap();
                }
            }
        }
        t
    }

    fn settings(budget: u64, max_units: u32) -> PartitionSettings {
        PartitionSettings {
            unit_node_budget: budget,
            max_units,
            estimate_samples: 16,
            seed: 42,
        }
    }

    /// Sum of the units' counts, each counted on its own from its prefix.
    fn sum_of_units(problem: &Problem, units: &[NewUnit]) -> u128 {
        units
            .iter()
            .map(|u| match &u.counted {
                Some(r) => r.solutions,
                None => {
                    let mut d = Dlx::new(problem);
                    d.apply_prefix(&u.prefix).unwrap();
                    d.count()
                }
            })
            .sum()
    }

    #[test]
    fn units_add_up_to_the_full_count() {
        // 8 queens: 92 solutions (OEIS A000170); 4x4 Sudoku grids: 288 (OEIS A107739).
        for (text, want) in [(queens(8), 92u128), (sudoku4(), 288), (queens(6), 4)] {
            let p = parse_dlx(&text).unwrap();
            assert_eq!(Dlx::new(&p).count(), want);
            for (budget, cap) in [(1, 10_000), (20, 10_000), (200, 30), (1_000_000, 10_000)] {
                let units = partition(&p, &[], &settings(budget, cap)).unwrap();
                assert_eq!(sum_of_units(&p, &units), want, "budget {budget} cap {cap}");
                assert!(units
                    .iter()
                    .all(|u| u.counted.is_some() || u.estimate.is_some()));
                // No prefix is a prefix of another: the subtrees are disjoint.
                let mut ps: Vec<&Prefix> = units.iter().map(|u| &u.prefix).collect();
                ps.sort();
                assert!(ps.windows(2).all(|w| !w[1].starts_with(w[0])));
            }
        }
    }

    #[test]
    fn a_tight_budget_cuts_deeper_and_the_cap_holds() {
        let p = parse_dlx(&queens(8)).unwrap();
        let coarse = partition(&p, &[], &settings(u64::MAX, 10_000)).unwrap();
        assert_eq!(coarse.len(), 8, "the root's MRV item has 8 options");
        let fine = partition(&p, &[], &settings(1, 10_000)).unwrap();
        assert!(fine.len() > 100, "{}", fine.len());
        let capped = partition(&p, &[], &settings(1, 40)).unwrap();
        assert!(capped.len() <= 40 && capped.len() > 8, "{}", capped.len());
        // Work units come largest estimate first.
        let est: Vec<f64> = capped
            .iter()
            .filter_map(|u| u.estimate.map(|e| e.nodes))
            .collect();
        assert!(est.windows(2).all(|w| w[0] >= w[1]));
        // The partition is a function of the problem, prefix and seed.
        let again = partition(&p, &[], &settings(1, 40)).unwrap();
        let prefixes = |v: &[NewUnit]| v.iter().map(|u| u.prefix.clone()).collect::<Vec<_>>();
        assert_eq!(prefixes(&capped), prefixes(&again));
    }

    #[test]
    fn the_job_prefix_is_kept_and_solved_prefixes_are_counted() {
        let text = queens(6);
        let p = parse_dlx(&text).unwrap();
        // Queen in row 0, column 1 (option 1): the 6-queens solutions through it.
        let mut d = Dlx::new(&p);
        d.apply_prefix(&[1]).unwrap();
        let want = d.count();
        let units = partition_dlx(&text, &[1], &settings(1, 1000)).unwrap();
        assert!(units.iter().all(|u| u.prefix.starts_with(&[1])));
        assert_eq!(sum_of_units(&p, &units), want);
        // A full solution as the prefix: one unit, counted here.
        let sol = Dlx::new(&p).first().unwrap();
        let units = partition(&p, &sol, &settings(1, 1000)).unwrap();
        assert_eq!(units.len(), 1);
        assert_eq!(units[0].counted.as_ref().unwrap().solutions, 1);
        // Errors name what is wrong.
        assert!(matches!(
            partition_dlx(&text, &[0, 1], &settings(1, 10)),
            Err(PartitionError::Prefix(_))
        ));
        let e = partition_dlx("a b\nc\n", &[], &settings(1, 10)).unwrap_err();
        assert!(e.to_string().starts_with("DLX text, line 2"), "{e}");
    }
}
