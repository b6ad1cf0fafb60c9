//! PS-1-2 as seed 000 sections 1.2-1.3 describe it, for every shape and variant: one bit-set
//! domain per cell; `solveStep` alternates sweeps of `propagate` (each singleton not yet
//! propagated deletes its value from its peers' domains) with one pass of `reduce` over every
//! full group (rows, then columns, then boxes, then full variant groups: a value that only
//! one cell of the group can hold is given to that cell) until a pass reduces nothing;
//! `pairReduce` then branches on the first pair domain in cell order, high value first, and
//! backtracks depth first.
//!
//! The counters follow the seed's C code: a `Prop` row is its `step`, one plus the number of
//! `propagate` sweeps (the last of which changes nothing); a `Red` row is the number of
//! cells the reduce pass set; `Tot. Prop` adds both ("operations"); `Tot. Srch` counts the
//! calls of `pairReduce` that branch (`S_ReduceSteps`). Where the seed stops with "No pair
//! left" we say so in the trace and branch on the first smallest domain, every value, high
//! first. Uniqueness: the search goes on past the first solution, up to `limit`.
//!
//! Invariant: the search only removes values that no solution extending the current
//! branch can use, so every solution of the puzzle is found (the tests compare counts with
//! the exact-cover engine).

use std::fmt::Write as _;

use super::puzzle::{Geometry, Puzzle};

/// One row of the seed's trace table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A propagation phase: the seed's `step` (sweeps + 1).
    Prop(u32),
    /// A reduction pass: cells set by hidden singles.
    Red(u32),
    /// Search on a pair domain: the high value first (`h`), then the low one (`l`).
    High,
    Low,
    /// No pair domain was left: branching on the first smallest domain (`size` values).
    NoPair {
        cell: usize,
        size: u32,
    },
    /// The value tried at a smallest-domain branch.
    Value(u8),
}

/// A trace row with the running totals after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRow {
    pub step: Step,
    pub total_ops: u64,
    pub total_searches: u64,
}

/// Totals of a PS-1-2 run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// `Tot. Prop`: propagation steps plus reductions.
    pub operations: u64,
    /// `Tot. Srch`: branching search calls.
    pub searches: u64,
    /// Branches tried after the first at a search node.
    pub backtracks: u64,
    /// Search calls that found no pair domain.
    pub no_pair: u64,
}

/// The outcome of a PS-1-2 run: solutions (up to the limit), totals and, if asked, the trace.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// The grid's side (for cell names in the trace).
    pub side: usize,
    pub solutions: Vec<Vec<u8>>,
    pub stats: Stats,
    pub trace: Vec<TraceRow>,
}

impl Run {
    /// The trace as the seed prints it (`Prop Red Srch Tot. Prop Tot. Srch`).
    pub fn trace_table(&self) -> String {
        let mut out = String::from("Prop\tRed\tSrch\tTot. Prop\tTot. Srch\n");
        for row in &self.trace {
            let (p, r, s) = match row.step {
                Step::Prop(n) => (n.to_string(), "-".into(), "-".into()),
                Step::Red(n) => ("-".into(), n.to_string(), "-".into()),
                Step::High => ("-".into(), "-".into(), "h".to_string()),
                Step::Low => ("-".into(), "-".into(), "l".to_string()),
                Step::NoPair { cell, size } => {
                    let _ = writeln!(
                        out,
                        "No pair left: branching on r{}c{} ({size} values)",
                        cell / self.side.max(1) + 1,
                        cell % self.side.max(1) + 1
                    );
                    continue;
                }
                Step::Value(v) => ("-".into(), "-".into(), format!("={v}")),
            };
            let _ = writeln!(
                out,
                "{p}\t{r}\t{s}\t{}\t{}",
                row.total_ops, row.total_searches
            );
        }
        let _ = writeln!(
            out,
            "solutions {}, operations {}, searches {}, backtracks {}",
            self.solutions.len(),
            self.stats.operations,
            self.stats.searches,
            self.stats.backtracks
        );
        out
    }
}

struct Search<'g> {
    geo: &'g Geometry,
    dom: Vec<u16>,
    /// Cells whose singleton value has been propagated.
    done: Vec<bool>,
    limit: usize,
    trace: Option<Vec<TraceRow>>,
    run: Run,
}

/// Up to `limit` solutions (values 1..=side per cell).
pub fn solutions(puzzle: &Puzzle, limit: usize) -> Vec<Vec<u8>> {
    run(puzzle, limit, false).solutions
}

/// Runs PS-1-2 to `limit` solutions, recording the seed's trace when `trace` is set.
pub fn run(puzzle: &Puzzle, limit: usize, trace: bool) -> Run {
    let geo = puzzle.geometry();
    let dom = puzzle.domains();
    let mut s = Search {
        geo,
        dom,
        done: vec![false; geo.cells()],
        limit,
        trace: trace.then(Vec::new),
        run: Run {
            side: geo.side,
            ..Run::default()
        },
    };
    if limit > 0 {
        s.solve_step();
        s.pair_reduce();
    }
    s.run.trace = s.trace.take().unwrap_or_default();
    s.run
}

impl Search<'_> {
    fn record(&mut self, step: Step) {
        match step {
            Step::Prop(n) | Step::Red(n) => self.run.stats.operations += u64::from(n),
            _ => {}
        }
        if let Some(t) = &mut self.trace {
            t.push(TraceRow {
                step,
                total_ops: self.run.stats.operations,
                total_searches: self.run.stats.searches,
            });
        }
    }

    /// One sweep in cell order; singletons met later in the same sweep are propagated too.
    fn propagate(&mut self) -> bool {
        let mut any = false;
        for c in 0..self.dom.len() {
            let v = self.dom[c];
            if !self.done[c] && v.count_ones() == 1 {
                self.done[c] = true;
                any = true;
                for &p in &self.geo.peers[c] {
                    self.dom[p] &= !v;
                }
            }
        }
        any
    }

    /// Hidden singles in every full group; returns the number of cells set.
    fn reduce(&mut self) -> u32 {
        let mut count = 0;
        for g in &self.geo.groups {
            if !g.full {
                continue;
            }
            let (mut once, mut twice) = (0u16, 0u16);
            for &c in &g.cells {
                twice |= once & self.dom[c];
                once |= self.dom[c];
            }
            let hidden = once & !twice;
            if hidden == 0 {
                continue;
            }
            for &c in &g.cells {
                let d = self.dom[c];
                let h = d & hidden;
                if h != 0 && d != h {
                    // A cell alone in holding two values of the group cannot hold both.
                    self.dom[c] = if h.count_ones() == 1 { h } else { 0 };
                    count += 1;
                }
            }
        }
        count
    }

    /// The seed's `solveStep`: propagate and reduce until a reduce pass sets nothing.
    fn solve_step(&mut self) {
        loop {
            let mut step = 1;
            loop {
                step += 1;
                if !self.propagate() {
                    break;
                }
            }
            self.record(Step::Prop(step));
            let red = self.reduce();
            self.record(Step::Red(red));
            if red == 0 {
                break;
            }
        }
    }

    fn blocked(&self) -> bool {
        self.dom.contains(&0)
    }

    fn solved(&self) -> bool {
        self.dom.iter().all(|d| d.count_ones() == 1)
    }

    /// The seed's `pairReduce`; returns false once `limit` solutions are found.
    fn pair_reduce(&mut self) -> bool {
        if self.blocked() {
            return true;
        }
        if self.solved() {
            let grid = self
                .dom
                .iter()
                .map(|d| d.trailing_zeros() as u8 + 1)
                .collect();
            self.run.solutions.push(grid);
            return self.run.solutions.len() < self.limit;
        }
        self.run.stats.searches += 1;
        let pair = self.dom.iter().position(|d| d.count_ones() == 2);
        let (cell, pair) = match pair {
            Some(c) => (c, true),
            None => {
                let c = (0..self.dom.len())
                    .filter(|&c| self.dom[c].count_ones() > 1)
                    .min_by_key(|&c| self.dom[c].count_ones())
                    .expect("neither solved nor blocked: some domain has two values or more");
                self.run.stats.no_pair += 1;
                let size = self.dom[c].count_ones();
                self.record(Step::NoPair { cell: c, size });
                (c, false)
            }
        };
        let saved_dom = self.dom.clone();
        let saved_done = self.done.clone();
        let mut values = saved_dom[cell];
        let mut first = true;
        while values != 0 {
            let bit = 1u16 << (15 - values.leading_zeros());
            values &= !bit;
            if !first {
                self.run.stats.backtracks += 1;
                self.dom.copy_from_slice(&saved_dom);
                self.done.copy_from_slice(&saved_done);
            }
            self.dom[cell] = bit;
            let step = match (pair, first) {
                (true, true) => Step::High,
                (true, false) => Step::Low,
                (false, _) => Step::Value(bit.trailing_zeros() as u8 + 1),
            };
            first = false;
            self.record(step);
            self.solve_step();
            if !self.pair_reduce() {
                return false;
            }
        }
        true
    }
}
