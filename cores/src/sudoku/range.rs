//! Range consistency for alldifferent (seed 000 section 1.6, Definition 7), Leconte's level
//! ("A bounds-based reduction scheme for constraints of difference", 1996), the middle one
//! of the three levels of [`super::alldiff`], computed from the seed's Proposition 3 directly
//! rather than by Leconte's incremental algorithm.
//!
//! Each cell of a group is relaxed to its interval `[min, max]`. An interval of values `I` is
//! a Hall interval when as many cells lie inside it as it has values: those cells take all of
//! `I`, so every other cell loses every value of `I` (Proposition 3), holes included; more
//! cells than values inside an interval is a failure. Only intervals from some cell's minimum
//! to some cell's maximum can be tight, so at most 16 x 16 intervals are counted, each with
//! bit masks. Removing values can move a cell's bounds and so make a new Hall interval: the
//! passes repeat until no interval changes.
//!
//! Invariant: after [`filter`], every value left to a cell takes part in a solution of the
//! group's constraint in which every other cell takes a value of its interval (range
//! consistency), and nothing else was removed: the largest such domains inside the old ones.

use super::alldiff::interval_mask;

/// Range consistency on one group, to its fixpoint. False if the cells cannot all get
/// distinct values.
pub(super) fn filter(cells: &[usize], dom: &mut [u16]) -> bool {
    let n = cells.len();
    let mut hull = [0u16; 16];
    loop {
        // Each cell's interval, and the values that start or end one.
        let (mut starts, mut ends) = (0u16, 0u16);
        for (i, &c) in cells.iter().enumerate() {
            let d = dom[c];
            if d == 0 {
                return false;
            }
            let (lo, hi) = (d.trailing_zeros(), 15 - d.leading_zeros());
            hull[i] = interval_mask(lo, hi);
            starts |= 1 << lo;
            ends |= 1 << hi;
        }
        let mut remove = [0u16; 16];
        let mut a_bits = starts;
        while a_bits != 0 {
            let a = a_bits.trailing_zeros();
            a_bits &= a_bits - 1;
            // Ends at or after `a`.
            let mut b_bits = ends & !((1u16 << a) - 1);
            while b_bits != 0 {
                let b = b_bits.trailing_zeros();
                b_bits &= b_bits - 1;
                let interval = interval_mask(a, b);
                let inside = hull[..n].iter().filter(|&&h| h & !interval == 0).count();
                let values = (b - a + 1) as usize;
                if inside > values {
                    return false;
                }
                if inside == values {
                    for (r, &h) in remove[..n].iter_mut().zip(&hull[..n]) {
                        if h & !interval != 0 {
                            *r |= interval;
                        }
                    }
                }
            }
        }
        let mut moved = false;
        for (i, &c) in cells.iter().enumerate() {
            let d = dom[c] & !remove[i];
            if d == dom[c] {
                continue;
            }
            if d == 0 {
                return false;
            }
            dom[c] = d;
            moved |= interval_mask(d.trailing_zeros(), 15 - d.leading_zeros()) != hull[i];
        }
        if !moved {
            return true;
        }
    }
}
