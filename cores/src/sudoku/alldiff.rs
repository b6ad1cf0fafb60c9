//! The propagate-and-search shell of the alldifferent solvers (seed 000 sections 1.5-1.6):
//! one alldifferent per group (rows, columns, boxes, variant and extra groups), filtered at
//! one [`Level`] of consistency, strongest first:
//!
//! - [`Level::Hyperarc`]: Régin's matching-based filter ([`super::regin`]); every value left
//!   is used by a solution of the group's constraint (configuration `alldiff`);
//! - [`Level::Range`]: Leconte's range consistency ([`super::range`]); every value left has a
//!   support once the other cells are relaxed to their intervals (`alldiff-range`);
//! - [`Level::Bounds`]: bounds consistency, López-Ortiz et al.'s formulation of Puget's
//!   ([`super::bounds`]); only each cell's minimum and maximum have such a support
//!   (`alldiff-bounds`).
//!
//! Each filter runs to its own fixpoint on its group. The weaker two read only the cells'
//! intervals, so their group is filtered again only when the interval of one of its cells
//! changed; Régin's whenever a domain changed. Groups are filtered until nothing changes;
//! the search then gives each value of a smallest domain in turn (the first such cell, values
//! in increasing order) and propagates again. [`SearchStats`] counts the nodes, failures,
//! filter runs and values removed by filtering.
//!
//! Invariant: a filter removes only values used by no solution of its group's constraint, so
//! no solution of the puzzle is lost; every level fails a group in which two cells hold the
//! same single value, so a filled grid that survives propagation has distinct values in every
//! group.

use super::puzzle::{Geometry, Puzzle};
use super::{bounds, range, regin, SearchStats};

/// How much each group's filter removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// Hyperarc (generalised arc) consistency: Régin's filter.
    Hyperarc,
    /// Range consistency: Leconte's.
    Range,
    /// Bounds consistency: Puget's, by López-Ortiz et al.'s algorithm.
    Bounds,
}

impl Level {
    /// Strongest first.
    pub const ALL: [Level; 3] = [Level::Hyperarc, Level::Range, Level::Bounds];

    /// Filters the group of `cells` to this level's fixpoint (domains are bit sets, bit `v`
    /// for value `v + 1`); false if the cells cannot all get distinct values.
    pub fn filter(self, cells: &[usize], dom: &mut [u16]) -> bool {
        match self {
            Level::Hyperarc => regin::filter(cells, dom),
            Level::Range => range::filter(cells, dom),
            Level::Bounds => bounds::filter(cells, dom),
        }
    }

    /// Whether the filter reads only the cells' intervals: then a change that keeps every
    /// interval of a group gives it nothing new to remove.
    fn reads_intervals_only(self) -> bool {
        self != Level::Hyperarc
    }
}

/// What a search found and did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Up to the limit asked for, in the order found.
    pub solutions: Vec<Vec<u8>>,
    pub stats: SearchStats,
}

/// Up to `limit` solutions, with the search's statistics.
pub fn search(puzzle: &Puzzle, level: Level, limit: usize) -> Outcome {
    let geo = puzzle.geometry();
    let mut s = Search {
        geo,
        level,
        limit,
        found: Vec::new(),
        queued: vec![false; geo.groups.len()],
        queue: Vec::new(),
        counts: Counts::default(),
    };
    if limit > 0 {
        let all_groups: Vec<usize> = (0..geo.groups.len()).collect();
        s.search(puzzle.domains(), &all_groups);
    }
    let c = s.counts;
    Outcome {
        solutions: s.found,
        stats: SearchStats {
            nodes: c.nodes,
            failures: c.failures,
            propagations: c.propagations,
            removed: Some(c.removed),
            solve_seconds: None,
        },
    }
}

/// Up to `limit` solutions.
pub fn solutions(puzzle: &Puzzle, level: Level, limit: usize) -> Vec<Vec<u8>> {
    search(puzzle, level, limit).solutions
}

/// The bits `lo..=hi` (`lo <= hi < 16`).
pub(super) fn interval_mask(lo: u32, hi: u32) -> u16 {
    let ones = (1u32 << (hi - lo + 1)) - 1;
    (ones << lo) as u16
}

/// The interval of a non-empty domain, as bits.
fn interval(d: u16) -> u16 {
    interval_mask(d.trailing_zeros(), 15 - d.leading_zeros())
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    nodes: u64,
    failures: u64,
    propagations: u64,
    removed: u64,
}

struct Search<'g> {
    geo: &'g Geometry,
    level: Level,
    limit: usize,
    found: Vec<Vec<u8>>,
    queued: Vec<bool>,
    queue: Vec<usize>,
    counts: Counts,
}

impl Search<'_> {
    /// Filters `dom` starting from the groups `start`; false on a failure.
    fn propagate(&mut self, dom: &mut [u16], start: &[usize]) -> bool {
        let geo = self.geo;
        self.queue.clear();
        self.queued.fill(false);
        for &g in start {
            self.queued[g] = true;
            self.queue.push(g);
        }
        while let Some(g) = self.queue.pop() {
            self.queued[g] = false;
            let cells = &geo.groups[g].cells;
            let mut before = [0u16; 16];
            for (b, &c) in before.iter_mut().zip(cells) {
                *b = dom[c];
            }
            self.counts.propagations += 1;
            if !self.level.filter(cells, dom) {
                self.counts.failures += 1;
                return false;
            }
            for (&old, &c) in before.iter().zip(cells) {
                let now = dom[c];
                if now == old {
                    continue;
                }
                self.counts.removed += u64::from((old & !now).count_ones());
                if self.level.reads_intervals_only() && interval(now) == interval(old) {
                    continue;
                }
                for &h in &geo.cell_groups[c] {
                    if h != g && !self.queued[h] {
                        self.queued[h] = true;
                        self.queue.push(h);
                    }
                }
            }
        }
        true
    }

    /// False once `limit` solutions are found.
    fn search(&mut self, mut dom: Vec<u16>, start: &[usize]) -> bool {
        self.counts.nodes += 1;
        if !self.propagate(&mut dom, start) {
            return true;
        }
        let branch = (0..dom.len())
            .filter(|&c| dom[c].count_ones() > 1)
            .min_by_key(|&c| dom[c].count_ones());
        let Some(cell) = branch else {
            self.found
                .push(dom.iter().map(|d| d.trailing_zeros() as u8 + 1).collect());
            return self.found.len() < self.limit;
        };
        let geo = self.geo;
        let mut values = dom[cell];
        while values != 0 {
            let bit = values & values.wrapping_neg();
            values &= !bit;
            let mut child = dom.clone();
            child[cell] = bit;
            if !self.search(child, &geo.cell_groups[cell]) {
                return false;
            }
        }
        true
    }
}
