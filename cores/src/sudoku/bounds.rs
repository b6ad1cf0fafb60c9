//! Bounds consistency for alldifferent (seed 000 section 1.6, Definition 6 and Puget's
//! Proposition 2), computed by the algorithm of López-Ortiz, Quimper, Tromp and van Beek, "A
//! fast and simple algorithm for bounds consistency of the alldifferent constraint" (IJCAI
//! 2003): the weakest of the three levels of [`super::alldiff`].
//!
//! Each cell of a group is relaxed to its interval `[min, max]`. Sorted by their maxima, the
//! intervals are laid out on the distinct bounds (the minima and the maxima plus one); a
//! union-find with path compression over those bounds counts the room left in each stretch,
//! finds the Hall intervals (as many cells inside as values) and raises the minimum of every
//! cell that starts inside one past it (`filter_lower`); the mirror image lowers the maxima
//! (`filter_upper`). More cells than values in an interval is a failure. One pass over both
//! sides makes the intervals bounds consistent; a new bound that falls in a hole of a domain
//! moves on to the next value of the domain, which changes an interval again, so passes repeat
//! until no bound crosses a hole.
//!
//! Invariant: after [`filter`], every cell's minimum and maximum take part in a solution of
//! the group's constraint in which every other cell takes a value of its interval (bounds(Z)
//! consistency), and nothing else was removed: the largest such domains inside the old ones.
//! Values strictly between a cell's bounds are never removed, not even a value another cell
//! already holds (that is [`super::range`]'s work).

use super::alldiff::interval_mask;

/// Bounds of at most 16 cells: the sentinels and two per cell.
const MAX_BOUNDS: usize = 2 * 16 + 2;

/// Bounds consistency on one group, to its fixpoint. False if the cells cannot all get
/// distinct values.
pub(super) fn filter(cells: &[usize], dom: &mut [u16]) -> bool {
    let n = cells.len();
    let (mut lo, mut hi) = ([0i32; 16], [0i32; 16]);
    loop {
        for (i, &c) in cells.iter().enumerate() {
            let d = dom[c];
            if d == 0 {
                return false;
            }
            lo[i] = d.trailing_zeros() as i32;
            hi[i] = 15 - d.leading_zeros() as i32;
        }
        let Some((new_lo, new_hi)) = hall_bounds(&lo[..n], &hi[..n]) else {
            return false;
        };
        let mut crossed_a_hole = false;
        for (i, &c) in cells.iter().enumerate() {
            if new_lo[i] == lo[i] && new_hi[i] == hi[i] {
                continue;
            }
            if new_lo[i] > new_hi[i] {
                return false;
            }
            let keep = interval_mask(new_lo[i] as u32, new_hi[i] as u32);
            let d = dom[c] & keep;
            if d == 0 {
                return false;
            }
            dom[c] = d;
            crossed_a_hole |= d.trailing_zeros() as i32 != new_lo[i]
                || 15 - d.leading_zeros() as i32 != new_hi[i];
        }
        if !crossed_a_hole {
            return true;
        }
    }
}

/// The bounds consistent intervals of the intervals `[lo[i], hi[i]]`, or `None` if some
/// interval of values holds more of them than it has values.
fn hall_bounds(lo: &[i32], hi: &[i32]) -> Option<([i32; 16], [i32; 16])> {
    let n = lo.len();
    let (mut new_lo, mut new_hi) = ([0i32; 16], [0i32; 16]);
    new_lo[..n].copy_from_slice(lo);
    new_hi[..n].copy_from_slice(hi);
    if n == 0 {
        return Some((new_lo, new_hi));
    }
    let mut minsorted = [0usize; 16];
    let mut maxsorted = [0usize; 16];
    for i in 0..n {
        minsorted[i] = i;
        maxsorted[i] = i;
    }
    minsorted[..n].sort_unstable_by_key(|&i| lo[i]);
    maxsorted[..n].sort_unstable_by_key(|&i| hi[i]);

    // The distinct bounds (minima, maxima + 1) between two sentinels, and each interval's
    // ranks among them.
    let mut bounds = [0i32; MAX_BOUNDS];
    let (mut minrank, mut maxrank) = ([0usize; 16], [0usize; 16]);
    let mut nb = 0;
    {
        let mut min = lo[minsorted[0]];
        let mut max = hi[maxsorted[0]] + 1;
        let mut last = min - 2;
        bounds[0] = last;
        let (mut i, mut j) = (0, 0);
        loop {
            if i < n && min < max {
                if min != last {
                    nb += 1;
                    bounds[nb] = min;
                    last = min;
                }
                minrank[minsorted[i]] = nb;
                i += 1;
                if i < n {
                    min = lo[minsorted[i]];
                }
            } else {
                if max != last {
                    nb += 1;
                    bounds[nb] = max;
                    last = max;
                }
                maxrank[maxsorted[j]] = nb;
                j += 1;
                if j == n {
                    break;
                }
                max = hi[maxsorted[j]] + 1;
            }
        }
        bounds[nb + 1] = bounds[nb] + 2;
    }

    // t: the union-find over bounds (critical capacity pointers); d: the room left between a
    // bound and its predecessor; h: the Hall interval pointers.
    let mut t = [0usize; MAX_BOUNDS];
    let mut h = [0usize; MAX_BOUNDS];
    let mut d = [0i32; MAX_BOUNDS];

    // Lower bounds, intervals by increasing maximum.
    for k in 1..=nb + 1 {
        t[k] = k - 1;
        h[k] = k - 1;
        d[k] = bounds[k] - bounds[k - 1];
    }
    for &v in &maxsorted[..n] {
        let (x, y) = (minrank[v], maxrank[v]);
        let mut z = path_max(&t, x + 1);
        let j = t[z];
        d[z] -= 1;
        if d[z] == 0 {
            t[z] = z + 1;
            z = path_max(&t, t[z]);
            t[z] = j;
        }
        path_set(&mut t, x + 1, z, z);
        if d[z] < bounds[z] - bounds[y] {
            return None;
        }
        if h[x] > x {
            let w = path_max(&h, h[x]);
            new_lo[v] = bounds[w];
            path_set(&mut h, x, w, w);
        }
        if d[z] == bounds[z] - bounds[y] {
            // [bounds[j], bounds[y]) is a Hall interval.
            let start = h[y];
            path_set(&mut h, start, j - 1, y);
            h[y] = j - 1;
        }
    }

    // Upper bounds, intervals by decreasing minimum.
    for k in 0..=nb {
        t[k] = k + 1;
        h[k] = k + 1;
        d[k] = bounds[k + 1] - bounds[k];
    }
    for &v in minsorted[..n].iter().rev() {
        let (x, y) = (maxrank[v], minrank[v]);
        let mut z = path_min(&t, x - 1);
        let j = t[z];
        d[z] -= 1;
        if d[z] == 0 {
            t[z] = z - 1;
            z = path_min(&t, t[z]);
            t[z] = j;
        }
        path_set(&mut t, x - 1, z, z);
        if d[z] < bounds[y] - bounds[z] {
            return None;
        }
        if h[x] < x {
            let w = path_min(&h, h[x]);
            new_hi[v] = bounds[w] - 1;
            path_set(&mut h, x, w, w);
        }
        if d[z] == bounds[y] - bounds[z] {
            let start = h[y];
            path_set(&mut h, start, j + 1, y);
            h[y] = j + 1;
        }
    }
    Some((new_lo, new_hi))
}

fn path_max(p: &[usize], mut i: usize) -> usize {
    while p[i] > i {
        i = p[i];
    }
    i
}

fn path_min(p: &[usize], mut i: usize) -> usize {
    while p[i] < i {
        i = p[i];
    }
    i
}

/// Points every node on the path from `start` to `end` (excluded) at `to`.
fn path_set(p: &mut [usize], start: usize, end: usize, to: usize) {
    let mut k = start;
    while k != end {
        let next = p[k];
        p[k] = to;
        k = next;
    }
}
