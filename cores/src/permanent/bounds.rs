//! The classical bounds of seed 000 section 2.2, as integers that are bounds themselves: upper
//! bounds rounded up, lower bounds rounded down, exactly.
//!
//! - Bregman (Minc's conjecture, proved by Bregman 1973, Schrijver 1978): a 0-1 matrix with row
//!   sums `r_i >= 1` has `per A <= prod_i (r_i!)^(1/r_i)`. [`bregman`] returns the least integer
//!   at or above that product (0 when a row is all zeros: then the permanent is 0).
//! - Van der Waerden (proved by Egorychev and by Falikman, 1981; Knuth, "A permanent
//!   inequality", 1981): a doubly stochastic matrix has `per >= n!/n^n`. A 0-1 matrix whose rows
//!   and columns all sum to `k` is `k` times a doubly stochastic one, so `per A >= k^n n!/n^n`;
//!   [`van_der_waerden`] returns its floor, and `None` for any other matrix, where no such
//!   number is a bound.
//!
//! Rounding: the product `prod_k (k!)^(m_k/k)` (`m_k` rows with sum `k`) is irrational in
//! general. Each factor is `(k!)^q` times `(k!)^(rem/k)` (`m_k = q k + rem`), the root bracketed
//! by integer k-th roots scaled by `2^F`: `floor(x 2^F) <= x 2^F <= floor + 1`, exact when the
//! root is. The ceilings of the two brackets' products agree once `F` is fine enough, and then
//! equal the ceiling of the product; `F` doubles from 64 up to 8192, and should they still
//! differ (a product within `2^-8192` of an integer) the upper one is returned: still a bound.

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use super::{factorial, BigUint, Matrix01};

/// Bregman's bound for a 0-1 matrix with these row sums, rounded up; 0 if a sum is 0.
pub fn bregman(row_sums: &[usize]) -> BigUint {
    if row_sums.contains(&0) {
        return BigUint::zero();
    }
    let mut counts = BTreeMap::new();
    for &r in row_sums {
        *counts.entry(r).or_insert(0usize) += 1;
    }
    bregman_counts(&counts)
}

/// `prod_k (k!)^(m_k / k)` rounded up, for `m_k = counts[k]` rows with sum `k` (all `k >= 1`;
/// a count at `k = 0` makes it 0).
pub fn bregman_counts(counts: &BTreeMap<usize, usize>) -> BigUint {
    if counts.get(&0).is_some_and(|&m| m > 0) {
        return BigUint::zero();
    }
    let mut whole = BigUint::one();
    let mut roots: Vec<(BigUint, u32)> = Vec::new();
    for (&k, &m) in counts {
        let f = factorial(k);
        whole *= num_traits::pow(f.clone(), m / k);
        if m % k != 0 {
            roots.push((num_traits::pow(f, m % k), k as u32));
        }
    }
    if roots.is_empty() {
        return whole;
    }
    let mut bits = 64usize;
    loop {
        let (mut lo, mut hi) = (whole.clone(), whole.clone());
        for (x, k) in &roots {
            let scaled: BigUint = x << (bits * *k as usize);
            let r = scaled.nth_root(*k);
            let exact = num_traits::pow(r.clone(), *k as usize) == scaled;
            hi *= if exact { r.clone() } else { &r + 1u8 };
            lo *= r;
        }
        let shift = bits * roots.len();
        let (lo, hi) = (ceil_shift(&lo, shift), ceil_shift(&hi, shift));
        if lo == hi || bits >= 8192 {
            return hi;
        }
        bits *= 2;
    }
}

/// `ceil(x / 2^shift)`.
fn ceil_shift(x: &BigUint, shift: usize) -> BigUint {
    let q: BigUint = x >> shift;
    if &q << shift == *x {
        q
    } else {
        q + 1u8
    }
}

/// Van der Waerden's bound `k^n n! / n^n` rounded down when every row and column of `a` sums to
/// `k`; `None` when they do not (the bound needs a doubly stochastic scaling).
pub fn van_der_waerden(a: &Matrix01) -> Option<BigUint> {
    let k = a.regular_degree()?;
    let n = a.order();
    if n == 0 {
        return Some(BigUint::one());
    }
    let num = num_traits::pow(BigUint::from(k), n) * factorial(n);
    let den = num_traits::pow(BigUint::from(n), n);
    Some(num / den)
}
