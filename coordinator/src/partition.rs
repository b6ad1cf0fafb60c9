//! Cutting a counting job into units: a unit is a
//! prefix of option choices. The first units are the options of the MRV item at the root (the
//! job's prefix applied); then the unit with the largest Monte Carlo estimate (Knuth 1975,
//! `cores::xcc::estimate`, seeded by the job's seed and the unit's prefix) is replaced by its
//! children, again and again, while it exceeds the node budget and the unit cap allows.
//! Prefixes that are solved or dead at partition time are counted here directly (1 or 0).
//!
//! A job submitted as weighted units ([`partition_job`] with seeds) starts from those units
//! instead of the root's options: each is checked (it must extend the job's prefix and apply
//! to the problem, or the submission names its index), and splitting goes on from there; a
//! child keeps its parent's weight. A job resumed from a partial ledger (seeds carrying an
//! [`Imported`] result, [`resume_units`]) keeps its units exactly as they were: the imported
//! ones start counted (done, or split with their child units linked by `parent`), the others
//! are queued unsplit. A job counted by the Sudoku core
//! ([`CoreSpec::SudokuBands`]) is never split and gets no estimates: its units are counted
//! whole by a core that cannot hand subtrees back. A job counted by the queens core is split
//! as a DLX job is (its units are counted whole too: [`CoreSpec::splits`]).
//!
//! Invariant: the units' subtrees are disjoint and cover the job's whole tree, so the job's
//! count is the sum of the units' counts (checked in the tests below against a plain count).
//! Work units are ordered largest estimate first, so that the scheduler (oldest first) hands
//! out the long ones early and the short ones fill the end of the job.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use cores::xcc::{estimate_from, parse_dlx, Branching, Dlx, DlxParseError, PrefixError, Problem};

use crate::job::{CoreSpec, Count, CountCore, Prefix, UnitEstimate, UnitResult, UnitTerm};
use crate::scheduler::NewUnit;
use cores::grids::two_band::Part;

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
    #[error("unit {index}: its prefix cannot be applied: {source}")]
    Seed { index: usize, source: PrefixError },
    #[error("unit {index}: its prefix does not start with the job's prefix")]
    SeedOutside { index: usize },
    #[error("unit {index}: its weight must be at least 1")]
    ZeroWeight { index: usize },
    #[error("units {first} and {second} choose the same options (a subtree counted twice)")]
    SeedTwice { first: usize, second: usize },
    #[error("core {core} cannot count this problem: it is not {what}")]
    Core { core: String, what: String },
    #[error(
        "unit {index}: its parent must be an earlier imported split unit whose prefix it extends"
    )]
    SeedParent { index: usize },
    #[error(
        "unit {index}: a count by classes has every unit a class of the job's core's kind \
         (an orbit term, a two-band class), never split and never resumed"
    )]
    TermMixed { index: usize },
    #[error("units {first} and {second} count the term of the same class {class}")]
    TermTwice {
        first: usize,
        second: usize,
        class: usize,
    },
    #[error(
        "units {first} and {second} are parts of class {class} cut two ways (another number \
         of parts or another weight)"
    )]
    PartsDisagree {
        first: usize,
        second: usize,
        class: usize,
    },
    #[error("class {class} is cut into {of} parts, but {have} of them are units: its B(C) would be short")]
    PartsMissing {
        class: usize,
        have: usize,
        of: usize,
    },
    #[error("unit {index}: imported, but {why}")]
    ImportedMalformed { index: usize, why: String },
    #[error("unit {index}: imported with {imported} solutions, but its prefix {what}")]
    ImportedWrong {
        index: usize,
        imported: Count,
        what: &'static str,
    },
}

/// One unit of a job submitted as weighted units: its full prefix and its weight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seed {
    pub prefix: Prefix,
    pub weight: Count,
    /// A unit counted before, by the job this one resumes: it starts with this result.
    pub imported: Option<Imported>,
    /// The index among the seeds of the imported split unit this one was handed back from.
    pub parent: Option<usize>,
    /// A count by classes: the class this unit counts (its prefix is the job's; an orbit
    /// count's identity term comes `imported`).
    pub term: Option<UnitTerm>,
}

impl Seed {
    /// A unit to count.
    pub fn new(prefix: Prefix, weight: Count) -> Seed {
        Seed {
            prefix,
            weight,
            imported: None,
            parent: None,
            term: None,
        }
    }
}

/// A unit's result carried over from the job a submission resumes (a partial ledger).
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub solutions: Count,
    pub nodes: u64,
    pub core: CountCore,
    /// The count covers only the part outside the unit's children (seeds naming it as
    /// `parent`).
    pub split: bool,
    pub wall_seconds: f64,
    /// Where it was counted, in words.
    pub source: String,
}

impl Eq for Imported {}

impl Imported {
    /// The result its unit starts with (its source as the host).
    fn result(&self) -> UnitResult {
        UnitResult {
            solutions: self.solutions.clone(),
            nodes: self.nodes,
            wall_seconds: self.wall_seconds,
            host: self.source.clone(),
            core: self.core,
            ..UnitResult::default()
        }
    }
}

/// Parses the job's DLX text, checks that `core` can count it, and cuts it into units: from
/// the root's options when `seeds` is empty, else from the seeds (see the module doc).
pub fn partition_job(
    dlx: &str,
    prefix: &[u32],
    seeds: &[Seed],
    core: CoreSpec,
    settings: &PartitionSettings,
) -> Result<Vec<NewUnit>, PartitionError> {
    partition_problem(&parse_dlx(dlx)?, prefix, seeds, core, settings)
}

/// [`partition_job`] for a parsed problem.
pub fn partition_problem(
    problem: &Problem,
    prefix: &[u32],
    seeds: &[Seed],
    core: CoreSpec,
    settings: &PartitionSettings,
) -> Result<Vec<NewUnit>, PartitionError> {
    if !core.can_count(problem) {
        return Err(PartitionError::Core {
            core: core.text(),
            what: core.counts_what(),
        });
    }
    let split = core.splits();
    if seeds.is_empty() {
        return partition_with(problem, prefix, settings, split);
    }
    if seeds.iter().any(|s| s.term.is_some()) {
        return term_units(problem, prefix, core, seeds);
    }
    check_seeds(prefix, seeds)?;
    if seeds
        .iter()
        .any(|s| s.imported.is_some() || s.parent.is_some())
    {
        return resume_units(problem, seeds, settings, split);
    }
    let first = seeds
        .iter()
        .map(|s| (s.prefix.clone(), s.weight.clone()))
        .collect();
    cut(problem, first, settings, split)
}

/// Checks what every submission of weighted units must satisfy: each extends the job's
/// prefix, weighs at least 1, and no two choose the same options.
fn check_seeds(prefix: &[u32], seeds: &[Seed]) -> Result<(), PartitionError> {
    for (index, seed) in seeds.iter().enumerate() {
        if !seed.prefix.starts_with(prefix) {
            return Err(PartitionError::SeedOutside { index });
        }
        if seed.weight.is_zero() {
            return Err(PartitionError::ZeroWeight { index });
        }
    }
    // The same set of options twice is the same subtree twice (overlaps of other shapes
    // are the submitter's to avoid: they cannot be told apart cheaply).
    let mut sets: Vec<(Vec<u32>, usize)> = seeds
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut set = s.prefix.clone();
            set.sort_unstable();
            (set, i)
        })
        .collect();
    sets.sort();
    if let Some(w) = sets.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(PartitionError::SeedTwice {
            first: w[0].1,
            second: w[1].1,
        });
    }
    Ok(())
}

/// The units of an orbit count, one per seed and in the seeds' order: every seed a class
/// term (distinct classes) whose prefix is the job's and applies; an imported one (the
/// identity's term, from the total's ledger) starts counted, the others are queued whole.
fn term_units(
    problem: &Problem,
    prefix: &[u32],
    core: CoreSpec,
    seeds: &[Seed],
) -> Result<Vec<NewUnit>, PartitionError> {
    // Every seed's prefix is the job's: applied once. The key of a class is its index and,
    // for a two-band class cut into parts, the part (a million seeds at 12x12: no scans).
    if let Some(index) = seeds.iter().position(|s| s.prefix != prefix) {
        return Err(PartitionError::SeedOutside { index });
    }
    if !seeds.is_empty() {
        Dlx::new(problem)
            .apply_prefix(prefix)
            .map_err(|source| PartitionError::Seed { index: 0, source })?;
    }
    let mut classes: HashMap<(usize, Option<Part>), usize> = HashMap::with_capacity(seeds.len());
    // A class cut into parts: its parts' number, weight, and how many are seeds.
    let mut cut: BTreeMap<usize, (usize, Count, usize, usize)> = BTreeMap::new();
    let mut units = Vec::with_capacity(seeds.len());
    for (index, seed) in seeds.iter().enumerate() {
        let term = match (&seed.term, seed.parent) {
            (Some(t), None) if t.core() == core.core() => t,
            _ => return Err(PartitionError::TermMixed { index }),
        };
        if seed.weight.is_zero() {
            return Err(PartitionError::ZeroWeight { index });
        }
        // A count from a ledger is held to the rule a worker's report is.
        if let Some(why) = seed
            .imported
            .as_ref()
            .and_then(|i| term.malformed_count(&i.solutions))
        {
            return Err(PartitionError::ImportedMalformed { index, why });
        }
        let part = term.two_band().and_then(|t| t.part);
        // A class counted whole and in parts would be counted twice.
        let other = match part {
            Some(_) => classes.get(&(term.class(), None)).copied(),
            None => cut.get(&term.class()).map(|c| c.3),
        };
        if let Some(first) = other.or_else(|| classes.insert((term.class(), part), index)) {
            return Err(PartitionError::TermTwice {
                first,
                second: index,
                class: term.class(),
            });
        }
        if let Some(p) = part {
            let entry = cut
                .entry(term.class())
                .or_insert_with(|| (p.of, seed.weight.clone(), 0, index));
            if entry.0 != p.of || entry.1 != seed.weight {
                return Err(PartitionError::PartsDisagree {
                    first: entry.3,
                    second: index,
                    class: term.class(),
                });
            }
            entry.2 += 1;
        }
        units.push(NewUnit {
            prefix: seed.prefix.clone(),
            weight: seed.weight.clone(),
            estimate: None,
            task: None,
            term: Some(term.clone()),
            counted: seed.imported.as_ref().map(Imported::result),
            parent: None,
            split: false,
        });
    }
    // Parts are distinct and numbered 1 to `of`, so a class with `of` of them has them all.
    if let Some((&class, &(of, _, have, _))) = cut.iter().find(|(_, c)| c.2 != c.0) {
        return Err(PartitionError::PartsMissing { class, have, of });
    }
    Ok(units)
}

/// The units of a resumed job, one per seed and in the seeds' order: an imported seed starts
/// counted with its result (split when it was split, linked to its children), after a check
/// that its prefix applies (and, when that prefix is already solved or dead, that the
/// imported count says so); the others are examined (estimated when `split`) and queued
/// unsplit, so that the resumed job's units are the partial job's units.
pub fn resume_units(
    problem: &Problem,
    seeds: &[Seed],
    s: &PartitionSettings,
    split: bool,
) -> Result<Vec<NewUnit>, PartitionError> {
    let mut units = Vec::with_capacity(seeds.len());
    for (index, seed) in seeds.iter().enumerate() {
        if let Some(p) = seed.parent {
            let parent_ok = p < index
                && seeds[p].imported.as_ref().is_some_and(|i| i.split)
                && extends(&seed.prefix, &seeds[p].prefix);
            if !parent_ok {
                return Err(PartitionError::SeedParent { index });
            }
        }
        let estimate = split && seed.imported.is_none();
        let examined = examine(
            problem,
            seed.prefix.clone(),
            seed.weight.clone(),
            s,
            estimate,
        )
        .map_err(|source| PartitionError::Seed { index, source })?;
        let mut unit = match (&seed.imported, examined) {
            (Some(imp), examined) => {
                let wrong = |what| PartitionError::ImportedWrong {
                    index,
                    imported: imp.solutions.clone(),
                    what,
                };
                if let Examined::Counted(c) = &examined {
                    let known = c
                        .counted
                        .as_ref()
                        .map_or_else(Count::zero, |r| r.solutions.clone());
                    if imp.split {
                        return Err(wrong("is a leaf, which cannot have been split"));
                    }
                    if imp.solutions != known {
                        return Err(wrong(if known == Count::one() {
                            "is a solution (1)"
                        } else {
                            "is a dead end (0)"
                        }));
                    }
                }
                NewUnit {
                    prefix: seed.prefix.clone(),
                    weight: seed.weight.clone(),
                    estimate: None,
                    task: None,
                    term: None,
                    counted: Some(imp.result()),
                    parent: None,
                    split: imp.split,
                }
            }
            (None, Examined::Counted(u)) => *u,
            (None, Examined::Open(open, _)) => NewUnit {
                prefix: open.prefix,
                weight: open.weight,
                estimate: open.estimate,
                task: None,
                term: None,
                counted: None,
                parent: None,
                split: false,
            },
        };
        unit.parent = seed.parent;
        units.push(unit);
    }
    Ok(units)
}

/// A candidate unit whose subtree was estimated (or not: a unit never split).
struct Open {
    prefix: Prefix,
    weight: Count,
    estimate: Option<UnitEstimate>,
}

impl Open {
    fn nodes(&self) -> f64 {
        self.estimate.map_or(0.0, |e| e.nodes)
    }
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
        self.nodes()
            .total_cmp(&other.nodes())
            .then_with(|| other.prefix.cmp(&self.prefix))
    }
}

fn counted(prefix: Prefix, weight: Count, solutions: Count) -> NewUnit {
    NewUnit {
        prefix,
        weight,
        estimate: None,
        task: None,
        term: None,
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
            core: CountCore::Dlx,
        }),
        parent: None,
        split: false,
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

/// Applies `prefix`: a solved or dead one is counted, an open one estimated (when
/// `estimate`) and returned with the options it would split into.
fn examine(
    problem: &Problem,
    prefix: Prefix,
    weight: Count,
    s: &PartitionSettings,
    estimate: bool,
) -> Result<Examined, PrefixError> {
    let mut dlx = Dlx::new(problem);
    dlx.apply_prefix(&prefix)?;
    match dlx.branching() {
        Branching::Solved => Ok(Examined::Counted(Box::new(counted(
            prefix,
            weight,
            Count::one(),
        )))),
        Branching::DeadEnd => Ok(Examined::Counted(Box::new(counted(
            prefix,
            weight,
            Count::zero(),
        )))),
        Branching::Branch { options, .. } => {
            let estimate = estimate.then(|| {
                let e = estimate_from(
                    &mut dlx,
                    u64::from(s.estimate_samples.max(1)),
                    prefix_seed(s.seed, &prefix),
                );
                UnitEstimate {
                    nodes: e.nodes.mean,
                    nodes_std_err: e.nodes.std_err,
                    updates: e.updates.mean,
                    solutions: e.solutions.mean,
                }
            });
            let open = Open {
                prefix,
                weight,
                estimate,
            };
            Ok(Examined::Open(open, options))
        }
    }
}

/// Whether `child` chooses every option of `parent` and more (as sets: the order in which
/// a prefix's options are applied does not change its subtree).
fn extends(child: &[u32], parent: &[u32]) -> bool {
    child.len() > parent.len() && parent.iter().all(|o| child.contains(o))
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
    partition_with(problem, prefix, s, true)
}

/// The root's options as the first units, split further (with estimates) when `split`.
fn partition_with(
    problem: &Problem,
    prefix: &[u32],
    s: &PartitionSettings,
    split: bool,
) -> Result<Vec<NewUnit>, PartitionError> {
    let root = match examine(problem, prefix.to_vec(), Count::one(), s, false)? {
        Examined::Counted(unit) => return Ok(vec![*unit]),
        Examined::Open(_, options) => options,
    };
    let first = root
        .iter()
        .map(|&o| (child(prefix, o), Count::one()))
        .collect();
    cut(problem, first, s, split)
}

/// Cuts the trees below `first` (prefixes with their weights) into units: each is examined,
/// and when `split`, the unit with the largest estimate is replaced by its children (with
/// its weight) while it exceeds the budget and the cap allows. An error names the index in
/// `first` of the prefix that does not apply.
fn cut(
    problem: &Problem,
    first: Vec<(Prefix, Count)>,
    s: &PartitionSettings,
    split: bool,
) -> Result<Vec<NewUnit>, PartitionError> {
    let mut done: Vec<NewUnit> = Vec::new();
    // Each open unit with the options it would split into.
    let mut heap: BinaryHeap<(Open, Vec<u32>)> = BinaryHeap::new();
    let add = |p: Prefix,
               weight: Count,
               done: &mut Vec<NewUnit>,
               heap: &mut BinaryHeap<(Open, Vec<u32>)>| {
        match examine(problem, p, weight, s, split)? {
            Examined::Counted(u) => done.push(*u),
            Examined::Open(o, options) => heap.push((o, options)),
        }
        Ok::<(), PrefixError>(())
    };
    for (index, (p, weight)) in first.into_iter().enumerate() {
        add(p, weight, &mut done, &mut heap)
            .map_err(|source| PartitionError::Seed { index, source })?;
    }
    while let Some((top, options)) = heap.pop() {
        let units = done.len() + heap.len() + 1;
        let fits = units - 1 + options.len() <= s.max_units as usize;
        if !split || top.nodes() <= s.unit_node_budget as f64 || !fits {
            heap.push((top, options));
            break;
        }
        for &o in &options {
            add(
                child(&top.prefix, o),
                top.weight.clone(),
                &mut done,
                &mut heap,
            )?;
        }
    }
    // Counted units first, then the work units largest estimate first.
    let mut open: Vec<Open> = heap.into_iter().map(|(o, _)| o).collect();
    open.sort_by(|a, b| b.cmp(a));
    done.sort_by(|a, b| a.prefix.cmp(&b.prefix));
    done.extend(open.into_iter().map(|o| NewUnit {
        prefix: o.prefix,
        weight: o.weight,
        estimate: o.estimate,
        task: None,
        term: None,
        counted: None,
        parent: None,
        split: false,
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
                Some(r) => r.solutions.to_u128().unwrap(),
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
        let units = partition_job(&text, &[1], &[], CoreSpec::Dlx, &settings(1, 1000)).unwrap();
        assert!(units.iter().all(|u| u.prefix.starts_with(&[1])));
        assert_eq!(sum_of_units(&p, &units), want);
        // A full solution as the prefix: one unit, counted here.
        let sol = Dlx::new(&p).first().unwrap();
        let units = partition(&p, &sol, &settings(1, 1000)).unwrap();
        assert_eq!(units.len(), 1);
        assert_eq!(units[0].counted.as_ref().unwrap().solutions, c(1));
        // Errors name what is wrong.
        assert!(matches!(
            partition_job(&text, &[0, 1], &[], CoreSpec::Dlx, &settings(1, 10)),
            Err(PartitionError::Prefix(_))
        ));
        let e = partition_job("a b\nc\n", &[], &[], CoreSpec::Dlx, &settings(1, 10)).unwrap_err();
        assert!(e.to_string().starts_with("DLX text, line 2"), "{e}");
    }

    /// The plain 4x4 Sudoku as the library builds it (the Sudoku core counts only that).
    fn sudoku4_built() -> (Problem, String) {
        let config = cores::problems::sudoku::SudokuConfig::new(2, 2);
        let p = cores::problems::sudoku::Sudoku::build(&config)
            .unwrap()
            .problem;
        let text = cores::xcc::write_dlx(&p);
        (p, text)
    }

    fn count_below(problem: &Problem, prefix: &[u32]) -> u128 {
        let mut d = Dlx::new(problem);
        d.apply_prefix(prefix).unwrap();
        d.count()
    }

    /// Sum of weight x count over the units, each counted on its own from its prefix.
    fn weighted_sum(problem: &Problem, units: &[NewUnit]) -> Count {
        units
            .iter()
            .map(|u| {
                let n = match &u.counted {
                    Some(r) => r.solutions.clone(),
                    None => c(count_below(problem, &u.prefix)),
                };
                &u.weight * &n
            })
            .sum()
    }

    fn c(n: u128) -> Count {
        Count::from(n)
    }

    #[test]
    fn weighted_seeds_are_split_and_their_children_keep_the_weight() {
        let (p, text) = sudoku4_built();
        // Seeds: cell (0,0) = 1 with cell (0,1) = 2, 3 or 4, weights up to 10^20; and a full
        // grid (solved at once, counted here).
        let grid = Dlx::new(&p).first().unwrap();
        let big = 10u128.pow(20);
        let seeds = vec![
            Seed::new(vec![0, 5], c(3)),
            Seed::new(vec![0, 6], c(big)),
            Seed::new(vec![0, 7], c(1)),
            Seed::new(grid.clone(), c(7)),
        ];
        let want: Count = seeds
            .iter()
            .map(|s| &s.weight * &c(count_below(&p, &s.prefix)))
            .sum();
        assert!(want > c(u128::from(u64::MAX)));
        for budget in [1, 1_000_000] {
            let units =
                partition_job(&text, &[], &seeds, CoreSpec::Dlx, &settings(budget, 1000)).unwrap();
            assert_eq!(weighted_sum(&p, &units), want, "budget {budget}");
            for u in &units {
                let seed = seeds
                    .iter()
                    .find(|s| u.prefix.starts_with(&s.prefix))
                    .unwrap();
                assert_eq!(u.weight, seed.weight, "{:?}", u.prefix);
            }
            let solved = units.iter().find(|u| u.prefix == grid).unwrap();
            assert_eq!(solved.counted.as_ref().unwrap().solutions, c(1));
            if budget == 1 {
                assert!(units.len() > seeds.len(), "a tight budget splits the seeds");
            } else {
                assert_eq!(units.len(), seeds.len());
            }
        }
    }

    #[test]
    fn the_sudoku_core_never_splits_and_counts_only_a_plain_sudoku() {
        let (p, text) = sudoku4_built();
        let core = CoreSpec::SudokuBands {
            box_rows: 2,
            box_cols: 2,
        };
        let seeds = vec![Seed::new(vec![0], c(2)), Seed::new(vec![1], c(5))];
        let units = partition_job(&text, &[], &seeds, core, &settings(1, 1000)).unwrap();
        assert_eq!(units.len(), 2);
        assert!(units
            .iter()
            .all(|u| u.estimate.is_none() && u.counted.is_none()));
        assert_eq!(weighted_sum(&p, &units), c(2 * 72 + 5 * 72));
        // Without seeds: the root's options, unsplit.
        let units = partition_job(&text, &[], &[], core, &settings(1, 1000)).unwrap();
        assert!(units
            .iter()
            .all(|u| u.estimate.is_none() && u.prefix.len() == 1));
        assert_eq!(weighted_sum(&p, &units), c(288));
        // Queens are no Sudoku; nor is a 4x4 Sudoku one of 3x3 boxes.
        let e = partition_job(&queens(6), &[], &[], core, &settings(1, 10)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "core sudoku-bands 2x2 cannot count this problem: it is not a plain 4x4 Sudoku"
        );
        let nine = CoreSpec::SudokuBands {
            box_rows: 3,
            box_cols: 3,
        };
        let e = partition_job(&text, &[], &[], nine, &settings(1, 10)).unwrap_err();
        assert!(e.to_string().contains("plain 9x9 Sudoku"), "{e}");
    }

    #[test]
    fn a_bad_seed_is_refused_by_its_index() {
        let (_, text) = sudoku4_built();
        let s = settings(1, 100);
        let seed = Seed::new;
        // Options 0 and 1 both fill cell (0,0).
        let e = partition_job(
            &text,
            &[],
            &[seed(vec![0], c(1)), seed(vec![0, 1], c(1))],
            CoreSpec::Dlx,
            &s,
        )
        .unwrap_err();
        assert!(matches!(e, PartitionError::Seed { index: 1, .. }), "{e}");
        assert!(e.to_string().starts_with("unit 1: "), "{e}");
        let e = partition_job(
            &text,
            &[5],
            &[seed(vec![5, 16], c(1)), seed(vec![16], c(1))],
            CoreSpec::Dlx,
            &s,
        )
        .unwrap_err();
        assert_eq!(e, PartitionError::SeedOutside { index: 1 });
        let e = partition_job(&text, &[], &[seed(vec![0], c(0))], CoreSpec::Dlx, &s).unwrap_err();
        assert_eq!(e, PartitionError::ZeroWeight { index: 0 });
        let e = partition_job(
            &text,
            &[],
            &[
                seed(vec![0, 5], c(1)),
                seed(vec![16], c(1)),
                seed(vec![5, 0], c(2)),
            ],
            CoreSpec::Dlx,
            &s,
        )
        .unwrap_err();
        assert_eq!(
            e,
            PartitionError::SeedTwice {
                first: 0,
                second: 2
            }
        );
    }

    /// A partial job of 8 queens as a resumed submission: unit [r0c0] split at its budget with
    /// two children (one counted, one not), unit [r0c1] counted, the rest not.
    fn resumed_queens8() -> (Problem, Vec<Seed>) {
        let p = parse_dlx(&queens(8)).unwrap();
        let imported = |solutions: u128, split: bool| {
            Some(Imported {
                solutions: c(solutions),
                nodes: 1,
                core: CountCore::Dlx,
                split,
                wall_seconds: 0.0,
                source: "test".into(),
            })
        };
        let mut d = Dlx::new(&p);
        d.apply_prefix(&[0]).unwrap();
        let Branching::Branch { options, .. } = d.branching() else {
            panic!("[r0c0] branches")
        };
        let (a, b) = (vec![0, options[0]], vec![0, options[1]]);
        let outside = count_below(&p, &[0]) - count_below(&p, &a) - count_below(&p, &b);
        let mut seeds = vec![
            Seed {
                imported: imported(outside, true),
                ..Seed::new(vec![0], c(1))
            },
            Seed {
                imported: imported(count_below(&p, &a), false),
                parent: Some(0),
                ..Seed::new(a, c(1))
            },
            Seed {
                parent: Some(0),
                ..Seed::new(b, c(1))
            },
            Seed {
                imported: imported(count_below(&p, &[1]), false),
                ..Seed::new(vec![1], c(1))
            },
        ];
        seeds.extend((2..8).map(|o| Seed::new(vec![o], c(1))));
        (p, seeds)
    }

    #[test]
    fn a_resumed_job_keeps_its_imported_counts_and_counts_the_rest() {
        let (p, seeds) = resumed_queens8();
        let units = partition_problem(&p, &[], &seeds, CoreSpec::Dlx, &settings(1, 1000)).unwrap();
        // One unit per seed, in order, never split (a budget of 1 node would split them).
        assert_eq!(units.len(), seeds.len());
        for (u, s) in units.iter().zip(&seeds) {
            assert_eq!(u.prefix, s.prefix);
            assert_eq!(u.parent, s.parent);
            assert_eq!(u.counted.is_some(), s.imported.is_some(), "{:?}", u.prefix);
            assert_eq!(u.split, s.imported.as_ref().is_some_and(|i| i.split));
        }
        assert_eq!(units[0].counted.as_ref().unwrap().host, "test");
        // The imported split unit's count covers only what its children do not: the sum over
        // the units (imported counts kept, the others counted) is Q(8) = 92 (OEIS A000170).
        assert_eq!(weighted_sum(&p, &units), c(92));
    }

    #[test]
    fn a_resumed_job_is_refused_when_its_tree_does_not_hold() {
        let (p, seeds) = resumed_queens8();
        let cut = |seeds: &[Seed]| {
            partition_problem(&p, &[], seeds, CoreSpec::Dlx, &settings(1, 1000)).unwrap_err()
        };
        // A parent that is not split.
        let mut bad = seeds.clone();
        bad[0].imported.as_mut().unwrap().split = false;
        assert_eq!(cut(&bad), PartitionError::SeedParent { index: 1 });
        // A child that does not extend its parent.
        let mut bad = seeds.clone();
        bad[2].prefix = vec![9];
        assert_eq!(cut(&bad), PartitionError::SeedParent { index: 2 });
        // A parent named after its child.
        let mut bad = seeds.clone();
        bad[3].parent = Some(4);
        assert_eq!(cut(&bad), PartitionError::SeedParent { index: 3 });
        // An imported count that a solved prefix contradicts: a full placement of 8 queens
        // is one solution.
        let solution = Dlx::new(&p).first().unwrap();
        let mut bad = seeds.clone();
        bad.push(Seed {
            imported: Some(Imported {
                solutions: c(2),
                nodes: 0,
                core: CountCore::Dlx,
                split: false,
                wall_seconds: 0.0,
                source: String::new(),
            }),
            ..Seed::new(solution, c(1))
        });
        assert!(matches!(
            cut(&bad),
            PartitionError::ImportedWrong { ref imported, .. } if *imported == c(2)
        ));
    }

    #[test]
    fn a_class_cut_into_parts_is_submitted_whole_and_cut_one_way() {
        use crate::job::TwoBandClass;
        let sudoku = cores::problems::sudoku::Sudoku::build(
            &cores::problems::sudoku::SudokuConfig::new(2, 4),
        )
        .unwrap();
        let core = CoreSpec::TwoBand {
            box_rows: 2,
            box_cols: 4,
        };
        let class = TwoBandClass::all(4).unwrap().remove(3);
        let seed = |t: TwoBandClass| Seed {
            term: Some(UnitTerm::TwoBand(t)),
            ..Seed::new(Vec::new(), Count::from(class.class_size))
        };
        let run = |seeds: Vec<Seed>| {
            partition_problem(&sudoku.problem, &[], &seeds, core, &settings(1000, 10))
        };
        let parts = class.parts(3).unwrap();
        let units = run(parts.iter().cloned().map(seed).collect()).unwrap();
        assert_eq!(units.len(), 3);
        assert!(matches!(
            run(parts[..2].iter().cloned().map(seed).collect()),
            Err(PartitionError::PartsMissing { have: 2, of: 3, .. })
        ));
        let mut twice: Vec<Seed> = parts.iter().cloned().map(seed).collect();
        twice.push(seed(parts[1].clone()));
        assert!(matches!(
            run(twice),
            Err(PartitionError::TermTwice {
                first: 1,
                second: 3,
                ..
            })
        ));
        let mut two_ways: Vec<Seed> = parts.iter().cloned().map(seed).collect();
        two_ways[2] = seed(class.parts(4).unwrap().remove(2));
        assert!(matches!(
            run(two_ways),
            Err(PartitionError::PartsDisagree {
                first: 0,
                second: 2,
                ..
            })
        ));
        let mut heavier: Vec<Seed> = parts.iter().cloned().map(seed).collect();
        heavier[1].weight = Count::from(7u8);
        assert!(matches!(
            run(heavier),
            Err(PartitionError::PartsDisagree { second: 1, .. })
        ));
        // The whole class beside its parts would count it twice, in either order.
        let mut both: Vec<Seed> = parts.iter().cloned().map(seed).collect();
        both.push(seed(class.clone()));
        assert!(matches!(
            run(both),
            Err(PartitionError::TermTwice {
                first: 0,
                second: 3,
                ..
            })
        ));
        let mut both: Vec<Seed> = vec![seed(class.clone())];
        both.extend(parts.iter().cloned().map(seed));
        assert!(matches!(
            run(both),
            Err(PartitionError::TermTwice {
                first: 0,
                second: 1,
                ..
            })
        ));
    }

    /// A count read from a ledger is held to the rule a worker's report is: a whole
    /// two-band class's count is B(C)^2, so a ledger whose count was edited to a non-square
    /// is refused at submission, while a part's count (a piece of B(C)) may be any number.
    #[test]
    fn an_imported_whole_band_class_whose_count_is_no_square_is_refused() {
        use crate::job::TwoBandClass;
        let sudoku = cores::problems::sudoku::Sudoku::build(
            &cores::problems::sudoku::SudokuConfig::new(2, 3),
        )
        .unwrap();
        let core = CoreSpec::TwoBand {
            box_rows: 2,
            box_cols: 3,
        };
        let classes = TwoBandClass::all(3).unwrap();
        let imported = |n: u128| Imported {
            solutions: c(n),
            nodes: 1,
            core: CountCore::TwoBandClass,
            split: false,
            wall_seconds: 0.0,
            source: "ledger".into(),
        };
        let seeds = |first: Option<Imported>, t: &TwoBandClass| {
            vec![Seed {
                term: Some(UnitTerm::TwoBand(t.clone())),
                imported: first,
                ..Seed::new(Vec::new(), Count::from(t.class_size))
            }]
        };
        let run = |seeds: Vec<Seed>| {
            partition_problem(&sudoku.problem, &[], &seeds, core, &settings(1000, 10))
        };
        let whole = &classes[0];
        let units = run(seeds(Some(imported(144)), whole)).unwrap();
        assert_eq!(units[0].counted.as_ref().unwrap().solutions, c(144));
        match run(seeds(Some(imported(145)), whole)) {
            Err(PartitionError::ImportedMalformed { index: 0, why }) => {
                assert!(why.contains("145 is not a square"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        let part = whole.parts(1).unwrap().remove(0);
        assert!(part.part.is_some());
        assert!(run(seeds(Some(imported(145)), &part)).is_ok());
    }
}
