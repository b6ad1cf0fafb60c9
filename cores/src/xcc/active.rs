//! The active items of a Dancing Links search, as a bitmap, and the choice rules' scans
//! over it.
//!
//! Knuth's DLX1 keeps the active items in a doubly linked list and the minimum-remaining-
//! values rule walks it: one dependent load per item, the next item's index, before the
//! item's length can be read. A bitmap gives the same order (items by index: covering and
//! uncovering never reorder the list) with the lengths read independently of each other,
//! a word of 64 items at a time. The search visits the same tree: "the leftmost item of
//! fewest options" is the same item either way. From [`VECTOR_SCAN_FROM`] primary items the
//! scan takes sixteen lengths at a time in AVX-512, a minimum under masks taken straight from
//! the bitmap; on fewer (queens 14's 28, Langford 12's 36) it measured no faster.
//!
//! Items are named by their header index `h >= 1` (item `h - 1`), as in the engine; bit
//! `h - 1` is set while item `h` is active. Primary items are headers `1..=primary`.

/// Primary items from which the minimum-remaining-values scan runs sixteen lengths at a time
/// (AVX-512 F, where the CPU has it). Below, the scalar scan is as fast: the vector scan was
/// measured no faster on queens 14 and Langford 12 (28 and 36 primary items). On the
/// pentominoes' 72 it is 1.5% faster (0.621 s against 0.632 s, best of 7, three alternating
/// runs), and on X-Sudoku's 342, where the scalar scan took about 40% of the engine's time,
/// 27% (figures in `shortest_avx512`).
const VECTOR_SCAN_FROM: usize = 64;

/// The active items; the scans look at primary items only.
#[derive(Debug, Clone)]
pub(super) struct Active {
    bits: Vec<u64>,
    primary: usize,
    /// Whether `shortest` takes the vector scan: enough primary items, a CPU with AVX-512 F,
    /// and item indices and list lengths that fit the scan's 16-bit halves of a key.
    vector: bool,
}

impl Active {
    /// All `items` items active, the first `primary` of them primary; no list will be longer
    /// than `max_len`.
    pub(super) fn new(items: usize, primary: usize, max_len: usize) -> Self {
        let mut bits = vec![u64::MAX; items.div_ceil(64)];
        if !items.is_multiple_of(64) {
            *bits.last_mut().expect("items > 0") = (1 << (items % 64)) - 1;
        }
        let vector = (VECTOR_SCAN_FROM..1 << 16).contains(&primary)
            && max_len < 1 << 15
            && avx512_available();
        Active {
            bits,
            primary,
            vector,
        }
    }

    /// The same items with the scalar scan only (tests compare the two).
    #[cfg(test)]
    fn scalar(mut self) -> Self {
        self.vector = false;
        self
    }

    /// The words that hold primary items, the last one masked to them.
    #[inline(always)]
    fn primary_word(&self, k: usize) -> u64 {
        debug_assert!(k < self.bits.len());
        // SAFETY: the callers pass `k < self.primary.div_ceil(64) <= self.bits.len()`.
        let w = unsafe { *self.bits.get_unchecked(k) };
        let end = self.primary - 64 * k;
        if end >= 64 {
            w
        } else {
            w & ((1 << end) - 1)
        }
    }

    #[inline(always)]
    pub(super) fn remove(&mut self, h: u32) {
        let b = h as usize - 1;
        debug_assert!(b / 64 < self.bits.len());
        // SAFETY: `h` is a header index, `1 <= h <= items` (the engine's invariant).
        unsafe { *self.bits.get_unchecked_mut(b / 64) &= !(1 << (b % 64)) };
    }

    #[inline(always)]
    pub(super) fn insert(&mut self, h: u32) {
        let b = h as usize - 1;
        debug_assert!(b / 64 < self.bits.len());
        // SAFETY: as in `remove`.
        unsafe { *self.bits.get_unchecked_mut(b / 64) |= 1 << (b % 64) };
    }

    #[cfg(test)]
    pub(super) fn contains(&self, h: u32) -> bool {
        let b = h as usize - 1;
        self.bits[b / 64] >> (b % 64) & 1 == 1
    }

    /// The leftmost active primary item, if any.
    #[inline(always)]
    pub(super) fn first(&self) -> Option<u32> {
        (0..self.primary.div_ceil(64)).find_map(|k| {
            let w = self.primary_word(k);
            (w != 0).then(|| (64 * k) as u32 + w.trailing_zeros() + 1)
        })
    }

    /// How many primary items are active.
    pub(super) fn count(&self) -> u32 {
        (0..self.primary.div_ceil(64))
            .map(|k| self.primary_word(k).count_ones())
            .sum()
    }

    /// The active primary item of rank `r` (0-based, by index), if there are more than `r`.
    pub(super) fn nth(&self, mut r: u32) -> Option<u32> {
        for k in 0..self.primary.div_ceil(64) {
            let mut w = self.primary_word(k);
            let n = w.count_ones();
            if r < n {
                for _ in 0..r {
                    w &= w - 1;
                }
                return Some((64 * k) as u32 + w.trailing_zeros() + 1);
            }
            r -= n;
        }
        None
    }

    /// The leftmost active primary item with the fewest options, `lens[h]` being the length
    /// of item `h`'s list (the engine's `tops`, whose headers are `1..`), if any is active.
    #[inline(always)]
    pub(super) fn shortest(&self, lens: &[i32]) -> Option<u32> {
        assert!(lens.len() > self.primary);
        #[cfg(target_arch = "x86_64")]
        if self.vector {
            // SAFETY: `vector` is set only where the CPU has AVX-512 F; `lens` holds the
            // lengths of headers `1..=primary` (asserted above).
            return unsafe { self.shortest_avx512(lens) };
        }
        let mut best = 0u32;
        let mut best_len = i32::MAX;
        for k in 0..self.primary.div_ceil(64) {
            let mut w = self.primary_word(k);
            while w != 0 {
                let h = (64 * k) as u32 + w.trailing_zeros() + 1;
                // SAFETY: `h <= primary < lens.len()` (asserted above).
                let len = unsafe { *lens.get_unchecked(h as usize) };
                if len < best_len {
                    best = h;
                    best_len = len;
                }
                w &= w - 1;
            }
            if best_len == 0 {
                break;
            }
        }
        (best != 0).then_some(best)
    }
}

/// Whether this CPU can run the vector scan.
fn avx512_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
impl Active {
    /// `shortest`, sixteen items at a time: each active item's key is its length in the high
    /// half and its header index in the low half, so the least key is the leftmost item of
    /// fewest options, as in the scalar scan; inactive items are masked out of the load and
    /// of the minimum. X-Sudoku's engine units (`cargo bench -p cores --bench variants --
    /// diagonal 8 0 8`, alternating runs) went from 0.213 s to 0.155 s a unit with it; plain
    /// 9x9 grid units (`--bench grids -- 1 1`) stayed at 8.9 s.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F; `lens` must hold the lengths of headers `1..=primary`;
    /// `primary < 2^16` and every length `< 2^15` (as `new` checks before setting `vector`).
    #[target_feature(enable = "avx512f")]
    unsafe fn shortest_avx512(&self, lens: &[i32]) -> Option<u32> {
        use std::arch::x86_64::*;
        let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let mut best = _mm512_set1_epi32(-1);
        for b0 in (0..self.primary).step_by(16) {
            // The active bits of items (bits) b0..b0 + 16, headers b0 + 1..b0 + 17.
            let mut m = (self.bits[b0 / 64] >> (b0 % 64)) as u16;
            if self.primary - b0 < 16 {
                m &= (1u16 << (self.primary - b0)) - 1;
            }
            // SAFETY: the unmasked elements are headers <= primary < lens.len(); masked-out
            // elements are not read.
            let len = unsafe { _mm512_maskz_loadu_epi32(m, lens.as_ptr().add(b0 + 1)) };
            let index = _mm512_add_epi32(lane, _mm512_set1_epi32(b0 as i32 + 1));
            let key = _mm512_or_si512(_mm512_slli_epi32::<16>(len), index);
            best = _mm512_mask_min_epu32(best, m, best, key);
        }
        let key = _mm512_reduce_min_epu32(best);
        (key != u32::MAX).then_some(key & 0xFFFF)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The scans agree with a plain walk over the items in index order, on random sets and
    /// lengths, for sizes around the word boundaries.
    #[test]
    fn the_scans_agree_with_a_walk_in_index_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        // From 64 primary items the vector scan runs (where the CPU has it).
        let sizes = [
            (1, 1),
            (5, 3),
            (64, 64),
            (65, 64),
            (70, 65),
            (200, 130),
            (400, 342),
        ];
        for (items, primary) in sizes {
            for _ in 0..200 {
                let mut a = Active::new(items, primary, 6);
                assert_eq!(a.vector, primary >= VECTOR_SCAN_FROM && avx512_available());
                let mut on = vec![true; items + 1];
                for h in 1..=items as u32 {
                    if rng.random_bool(0.5) {
                        a.remove(h);
                        on[h as usize] = false;
                    }
                }
                if rng.random_bool(0.2) {
                    let h = rng.random_range(1..=items as u32);
                    a.insert(h);
                    on[h as usize] = true;
                }
                let lens: Vec<i32> = (0..=items).map(|_| rng.random_range(0..6)).collect();
                let walk: Vec<u32> = (1..=primary as u32).filter(|&h| on[h as usize]).collect();
                assert!((1..=items as u32).all(|h| a.contains(h) == on[h as usize]));
                assert_eq!(a.first(), walk.first().copied());
                assert_eq!(a.count(), walk.len() as u32);
                for r in 0..walk.len() as u32 + 1 {
                    assert_eq!(a.nth(r), walk.get(r as usize).copied());
                }
                let shortest = walk.iter().copied().min_by_key(|&h| lens[h as usize]);
                assert_eq!(a.shortest(&lens), shortest);
                assert_eq!(a.clone().scalar().shortest(&lens), shortest);
            }
        }
    }
}
