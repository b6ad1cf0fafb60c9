//! Régin's matching-based filtering of alldifferent ("A filtering algorithm for constraints
//! of difference in CSPs", AAAI 1994; seed 000 section 1.5): hyperarc consistency, the
//! strongest of the three levels of [`super::alldiff`].
//!
//! For a group, the value graph joins each cell to the values of its domain. A maximum
//! matching must cover the cells (Hall's condition), else the group fails. By Régin's
//! theorem (seed 000 Proposition 1) an edge belongs to some matching covering the cells iff
//! it is in the matching found, or joins the two ends of an even alternating cycle (both ends
//! in one strongly connected component of the graph with matching edges oriented cell to
//! value and the others value to cell), or lies on an even alternating path from a free
//! value; every other edge is removed. Graphs have at most 16 + 16 nodes, so reachability is
//! a bit-set closure. One call reaches the fixpoint: every edge left is in a matching of the
//! graph left.
//!
//! Invariant: filtering removes only values used by no solution of the group's constraint,
//! and every value it keeps is used by one.

/// Régin's filter on one group. False if the cells cannot all get distinct values.
pub(super) fn filter(cells: &[usize], dom: &mut [u16]) -> bool {
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
        dom[c] = keep;
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
