//! Régin's matching-based filtering of alldifferent ("A filtering algorithm for constraints
//! of difference in CSPs", AAAI 1994; seed 000 section 1.5) in a small propagate-and-search
//! solver: one alldifferent per group (rows, columns, boxes, variant and extra groups).
//!
//! For a group, the value graph joins each cell to the values of its domain. A maximum
//! matching must cover the cells (Hall's condition), else the branch fails. By Régin's
//! theorem (seed 000 Proposition 1) an edge belongs to some matching covering the cells iff
//! it is in the matching found, or joins the two ends of an even alternating cycle (both ends
//! in one strongly connected component of the graph with matching edges oriented cell to
//! value and the others value to cell), or lies on an even alternating path from a free
//! value; every other edge is removed. Graphs have at most 16 + 16 nodes, so reachability is
//! a bit-set closure. Groups whose domains changed are filtered again until nothing changes
//! (hyperarc consistency on every group); the search then branches on a smallest domain.
//!
//! Invariant: filtering removes only values used by no solution of the group's constraint,
//! so no solution of the puzzle is lost.

use super::puzzle::{Geometry, Puzzle};

/// Up to `limit` solutions.
pub fn solutions(puzzle: &Puzzle, limit: usize) -> Vec<Vec<u8>> {
    let geo = puzzle.geometry();
    let dom = puzzle.domains();
    let mut s = Search {
        geo,
        limit,
        found: Vec::new(),
        queued: vec![false; geo.groups.len()],
        queue: Vec::new(),
    };
    if limit > 0 {
        let all_groups: Vec<usize> = (0..geo.groups.len()).collect();
        s.search(dom, &all_groups);
    }
    s.found
}

struct Search<'g> {
    geo: &'g Geometry,
    limit: usize,
    found: Vec<Vec<u8>>,
    queued: Vec<bool>,
    queue: Vec<usize>,
}

impl Search<'_> {
    /// Filters `dom` starting from the groups `start`; false on a wipe-out.
    fn propagate(&mut self, dom: &mut [u16], start: &[usize]) -> bool {
        self.queue.clear();
        self.queued.fill(false);
        for &g in start {
            self.queued[g] = true;
            self.queue.push(g);
        }
        let mut changed = Vec::new();
        while let Some(g) = self.queue.pop() {
            self.queued[g] = false;
            changed.clear();
            if !filter(&self.geo.groups[g].cells, dom, &mut changed) {
                return false;
            }
            for &c in &changed {
                for &h in &self.geo.cell_groups[c] {
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
        let mut values = dom[cell];
        while values != 0 {
            let bit = values & values.wrapping_neg();
            values &= !bit;
            let mut child = dom.clone();
            child[cell] = bit;
            let groups = self.geo.cell_groups[cell].clone();
            if !self.search(child, &groups) {
                return false;
            }
        }
        true
    }
}

/// Régin's filter on one group; pushes the cells whose domain shrank. False if the cells
/// cannot all get distinct values.
fn filter(cells: &[usize], dom: &mut [u16], changed: &mut Vec<usize>) -> bool {
    let n = cells.len();
    // Nodes: cells 0..n, then values n..n+16.
    let mut match_cell = [u8::MAX; 16];
    let mut match_value = [u8::MAX; 16];
    for i in 0..n {
        let mut seen = 0u16;
        if !augment(i, cells, dom, &mut match_cell, &mut match_value, &mut seen) {
            return false;
        }
    }
    // Directed graph as bit sets over 32 nodes: cell -> its matched value; value -> the
    // cells that may take it but are not matched to it.
    let mut edges = [0u32; 32];
    for i in 0..n {
        edges[i] = 1 << (16 + match_cell[i] as usize);
        let mut d = dom[cells[i]];
        while d != 0 {
            let v = d.trailing_zeros() as usize;
            d &= d - 1;
            if match_cell[i] as usize != v {
                edges[16 + v] |= 1 << i;
            }
        }
    }
    // Reflexive-transitive closure.
    let mut reach = edges;
    for (k, r) in reach.iter_mut().enumerate() {
        *r |= 1 << k;
    }
    for k in 0..32 {
        let bit = 1u32 << k;
        let rk = reach[k];
        for r in reach.iter_mut() {
            if *r & bit != 0 {
                *r |= rk;
            }
        }
    }
    // Nodes reachable from a free value (one that some cell may take).
    let mut from_free = 0u32;
    let used: u16 = cells.iter().fold(0, |acc, &c| acc | dom[c]);
    for v in 0..16 {
        if used >> v & 1 != 0 && match_value[v] == u8::MAX {
            from_free |= reach[16 + v];
        }
    }
    for i in 0..n {
        let c = cells[i];
        let mut d = dom[c];
        let mut keep = d;
        while d != 0 {
            let v = d.trailing_zeros() as usize;
            d &= d - 1;
            let value_node = 16 + v;
            let matched = match_cell[i] as usize == v;
            let same_scc = reach[i] >> value_node & 1 != 0 && reach[value_node] >> i & 1 != 0;
            let on_free_path = from_free >> value_node & 1 != 0;
            if !(matched || same_scc || on_free_path) {
                keep &= !(1 << v);
            }
        }
        if keep != dom[c] {
            dom[c] = keep;
            changed.push(c);
        }
    }
    true
}

/// Kuhn's augmenting path from cell `i`.
fn augment(
    i: usize,
    cells: &[usize],
    dom: &[u16],
    match_cell: &mut [u8; 16],
    match_value: &mut [u8; 16],
    seen: &mut u16,
) -> bool {
    let mut d = dom[cells[i]] & !*seen;
    while d != 0 {
        let v = d.trailing_zeros() as usize;
        d &= d - 1;
        *seen |= 1 << v;
        let other = match_value[v];
        if other == u8::MAX || augment(other as usize, cells, dom, match_cell, match_value, seen) {
            match_cell[i] = v as u8;
            match_value[v] = i as u8;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filtered(domains: &[u16]) -> Option<Vec<u16>> {
        let cells: Vec<usize> = (0..domains.len()).collect();
        let mut dom = domains.to_vec();
        let mut changed = Vec::new();
        filter(&cells, &mut dom, &mut changed).then_some(dom)
    }

    #[test]
    fn seed_example_3_is_made_consistent() {
        // Seed 000 Example 3: D1 = {1,2}, D2 = {1,2}, D3 = {2,3}: 2 leaves D3.
        assert_eq!(
            filtered(&[0b011, 0b011, 0b110]),
            Some(vec![0b011, 0b011, 0b100])
        );
    }

    #[test]
    fn hall_sets_and_wipe_outs() {
        // {1,2}, {1,2}, {1,2}: three cells, two values.
        assert_eq!(filtered(&[0b011, 0b011, 0b011]), None);
        // {1,2}, {1,2}, {1,2,3,4}, {3,4,5}: the fourth cell may take 3, 4 or 5 (5 is free).
        assert_eq!(
            filtered(&[0b0011, 0b0011, 0b1111, 0b11100]),
            Some(vec![0b0011, 0b0011, 0b1100, 0b11100])
        );
        // Nothing to remove when every value is free to move.
        assert_eq!(filtered(&[0b111, 0b111, 0b111]), Some(vec![0b111; 3]));
    }
}
