//! Ryser's formula in Gray-code order (Ryser, "Combinatorial Mathematics", 1963; Nijenhuis and
//! Wilf, "Combinatorial Algorithms", ch. 23):
//! `per A = (-1)^n sum over column sets S of (-1)^|S| prod_i (sum over j in S of a[i][j])`.
//! Walking the sets in Gray-code order changes one column per step, so each step updates the
//! row sums of that column's rows and takes one product: `2^n n` steps in all.
//!
//! Invariant: orders up to [`MAX_ORDER`] only. The sum runs modulo `2^128`; the permanent of a
//! 0-1 matrix is at most `n! <= 32! < 2^118`, so the result is exact.

use super::Matrix01;

/// Largest order: `2^32 32` steps is already hours, and `32! < 2^128` keeps the sum exact.
pub const MAX_ORDER: usize = 32;

/// The permanent of `a` and the number of Gray-code steps taken; `None` above [`MAX_ORDER`].
pub fn ryser_gray(a: &Matrix01) -> Option<(u128, u64)> {
    let n = a.order();
    if n == 0 {
        return Some((1, 0));
    }
    if n > MAX_ORDER {
        return None;
    }
    let columns: Vec<u64> = (0..n).map(|j| a.column_mask(j)).collect();
    let mut sums = vec![0u32; n];
    // How many rows have sum 0: the product is 0 while any does.
    let mut zeros = n;
    let mut total = 0u128;
    let mut gray = 0u64;
    let steps = 1u64 << n;
    for k in 1..steps {
        let j = k.trailing_zeros() as usize;
        gray ^= 1 << j;
        let mut rows = columns[j];
        if gray >> j & 1 == 1 {
            while rows != 0 {
                let i = rows.trailing_zeros() as usize;
                rows &= rows - 1;
                if sums[i] == 0 {
                    zeros -= 1;
                }
                sums[i] += 1;
            }
        } else {
            while rows != 0 {
                let i = rows.trailing_zeros() as usize;
                rows &= rows - 1;
                sums[i] -= 1;
                if sums[i] == 0 {
                    zeros += 1;
                }
            }
        }
        if zeros == 0 {
            let product = sums
                .iter()
                .fold(1u128, |p, &s| p.wrapping_mul(u128::from(s)));
            // Sign (-1)^(n - |S|).
            if (n as u32 - gray.count_ones()).is_multiple_of(2) {
                total = total.wrapping_add(product);
            } else {
                total = total.wrapping_sub(product);
            }
        }
    }
    Some((total, steps - 1))
}
