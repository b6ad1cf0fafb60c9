//! The search of [`super`] run on many subtrees at once in the lanes of AVX-512 vectors: the
//! same bitboard backtrack (top-down rows, the last two rows summed by the formula of
//! [`super::last_two_rows`]), but each lane steps through a subtree of its own, with no
//! branch that depends on one lane's board. A step tries one square: the lane goes down a row
//! only if the queen leaves each of the next three rows an open square, and at depth n-2 it
//! adds the formula's count and stays; so no step goes down to a row with no open square, and
//! none climbs back from a leaf. The scalar search spends most of its time on mispredicted
//! branches (whether a row has another open square is a coin toss for the predictor); here
//! every step of every lane is the same straight-line code under masks.
//!
//! The rows above a depth `root` are searched first, breadth first, into a queue of the boards
//! they leave (columns and diagonals held); each lane takes a board from the queue, searches its
//! subtree depth first, and takes the next when it is done. A lane's stack is kept in
//! registers: the column of the queen of each row ([`STACK_WORDS`] words of a few rows each)
//! and the one bit of each diagonal mask that the shift of a push drops off the word, so that a
//! pop restores the masks exactly. Two groups of lanes are stepped in turn, so that one group's
//! chain of dependent instructions overlaps the other's.
//!
//! One driver ([`drive`], [`step`]) written once over the width of a lane ([`Width`]), in two
//! widths, each compiled in an entry function of its own with its CPU features (everything the
//! driver calls is inlined into it):
//! - [`Wide`]: 32-bit lanes, 16 a vector (32 subtrees at once), boards of [`ROWS`] (8 to 24
//!   rows); AVX-512 F, CD and VPOPCNTDQ. A stack word holds six rows of 5 bits; a queen's
//!   column is `31 - lzcnt(bit)`; the row masks are a two-table permute (32 rows).
//! - [`Narrow`]: 16-bit lanes, 32 a vector (64 subtrees at once), boards of at most 16 rows
//!   (and so 16 columns); AVX-512 F, BW and BITALG. A stack word holds four rows of 4 bits; a
//!   queen's column is `popcount(bit - 1)`, there being no 16-bit leading-zero count; the row
//!   masks are a one-table permute.
//!
//! The step updates the lanes of a mask by a plain operation merged by a masked move: AVX-512
//! has masked logic only for 32-bit elements, and the compiler folds the two into the wide
//! width's masked instructions. (Making the operations harmless outside the mask by zeroed
//! operands instead, as the 16-bit lanes did before they shared this driver, measured about
//! 4% slower in the wide lanes and no faster in the narrow ones.)
//!
//! [`search`] takes boards of at most 16 rows to the narrow lanes where the CPU has them, else
//! to the wide ones: both step the same tree (the same nodes), so they count the same, and equal
//! the scalar search's counts on every board (tested in `queens`). Whole boards by `cargo bench
//! -p cores --bench queens -- --no-dlx --no-border 14 15 16` (thread CPU seconds, the narrow
//! lanes, then the wide ones, forced by a local edit of [`search`]; medians of three
//! alternated runs):
//! for 14, 15 and 16 queens 0.015, 0.094 and 0.630 s narrow, 0.029, 0.184 and 1.185 s wide
//! with the two drivers this one replaced (one per width), 0.015, 0.090 and 0.595 s narrow,
//! 0.028, 0.176 and 1.182 s wide with it; the scalar search takes 6.7 s on 16 queens.

use std::arch::x86_64::*;
use std::ops::{BitAnd, BitOr, Not, RangeInclusive};
use std::sync::atomic::{AtomicBool, Ordering};

/// Words of a lane's stack of columns, in both widths. (Two 32-bit words where the rows below
/// the root fit in them measured slower: 1.64 s against 1.20 s on the whole board of 16
/// queens.)
const STACK_WORDS: usize = 3;

/// Subtrees the breadth-first rows aim to leave in the queue: enough that the last lanes to
/// finish do not leave the others idle for long.
const SUBTREES: usize = 512;

/// Boards [`search`] takes: from 8 rows (smaller ones are quicker in the scalar search) to 24
/// (deeper subtrees than the wide stack holds would need a root too deep to reach cheaply).
pub(super) const ROWS: RangeInclusive<usize> = Wide::ROWS;

/// Whether this CPU can run [`search`] (the wide lanes; the narrow ones need more).
pub(super) fn available() -> bool {
    Wide::detect().is_some()
}

/// The placements over the per-row masks `allowed` (a board of [`ROWS`] rows, no square
/// beyond its n columns): `(solutions, nodes)` as [`super`] counts them, `None` when `stop`
/// was set. Every placement counted is one of the n queens problem, so `solutions` is at most
/// Q(24) = 227,514,171,973,736 < 2^48 (OEIS A000170): a `u64` holds it. In the narrow lanes
/// where the board fits them and the CPU has them, else in the wide ones.
///
/// # Panics
/// If the CPU lacks a feature [`available`] checks, `allowed` has a length outside
/// [`ROWS`], or a square beyond its n columns.
pub(super) fn search(allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    check_board(allowed);
    if Narrow::ROWS.contains(&allowed.len()) {
        if let Some(w) = Narrow::detect() {
            // SAFETY: `w` exists, so the CPU has the narrow lanes' features.
            return unsafe { search_narrow_avx512(w, allowed, stop) };
        }
    }
    search_wide(allowed, stop)
}

/// [`search`] in the wide lanes whatever the board's size (the narrow lanes take the boards
/// they fit where the CPU has them).
///
/// # Panics
/// As [`search`].
pub(super) fn search_wide(allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    let w = Wide::detect().expect("the lanes search needs AVX-512 F, CD and VPOPCNTDQ");
    check_board(allowed);
    // SAFETY: `w` exists, so the CPU has the wide lanes' features.
    unsafe { search_wide_avx512(w, allowed, stop) }
}

/// Whether this CPU has the narrow lanes (which [`search`] prefers where the board fits).
#[cfg(test)]
pub(super) fn narrow_available() -> bool {
    Narrow::detect().is_some()
}

/// Asserts what [`search`] takes: [`ROWS`] rows, no square beyond the board's columns (so
/// that its count is at most Q(24) and fits a `u64`, and a board of at most 16 rows fits the
/// narrow lanes).
fn check_board(allowed: &[u32]) {
    let n = allowed.len();
    assert!(ROWS.contains(&n), "{n} rows");
    assert!(
        allowed.iter().all(|&m| m >> n == 0),
        "a square beyond column {n}"
    );
}

/// [`drive`] in the wide lanes, compiled with their features.
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
fn search_wide_avx512(w: Wide, allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    drive(w, allowed, stop)
}

/// [`drive`] in the narrow lanes, compiled with their features.
#[target_feature(enable = "avx512f,avx512bw,avx512bitalg")]
fn search_narrow_avx512(w: Narrow, allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    drive(w, allowed, stop)
}

/// A width of lanes: the vector operations of the step on lanes of that width, and what else
/// differs between widths. A value of the type is the proof that the CPU has the width's
/// features, so that its methods may run the instructions.
///
/// # Safety
/// A value of an implementing type may exist only where the CPU has AVX-512 F and the
/// width's other features (every method's instructions).
unsafe trait Width: Copy {
    /// A lane's bits as an integer.
    type Lane: Copy + Default + Into<u64>;
    /// A vector's lanes.
    type Array: Copy + Default + AsRef<[Self::Lane]> + AsMut<[Self::Lane]>;
    /// One bit a lane.
    type Mask: Copy
        + Default
        + Eq
        + Into<u64>
        + BitAnd<Output = Self::Mask>
        + BitOr<Output = Self::Mask>
        + Not<Output = Self::Mask>;
    /// 32 rows of a board's masks, read by [`Width::row`].
    type Table: Copy;

    /// Boards this width takes.
    const ROWS: RangeInclusive<usize>;
    /// Rows a lane may place below its root (the depth of its stack).
    const STACK_ROWS: usize;
    /// Steps of both groups between two reads of the stop flag and two flushes of the lanes'
    /// counters (a lane adds at most 4 solutions and 3 nodes a step: at depth n-2 two
    /// columns are free), few enough that a lane's counter cannot overflow.
    const STEPS: usize;

    /// The lane of `x`, a board's mask (which fits the lane: see [`check_board`]) or depth.
    fn lane(x: u32) -> Self::Lane;
    /// The mask with bit `i` of `bits` for lane `i`.
    fn mask(bits: u64) -> Self::Mask;
    fn to_array(v: __m512i) -> Self::Array;
    fn from_array(a: Self::Array) -> __m512i;

    /// The rows `from..from + 32` of `rows`.
    fn table(self, rows: &[u32; 34], from: usize) -> Self::Table;
    /// Per lane, the row of `table` its lane of `depth` says.
    fn row(self, table: Self::Table, depth: __m512i) -> __m512i;
    fn splat(self, x: u32) -> __m512i;
    fn add(self, a: __m512i, b: __m512i) -> __m512i;
    fn sub(self, a: __m512i, b: __m512i) -> __m512i;
    fn mullo(self, a: __m512i, b: __m512i) -> __m512i;
    fn popcnt(self, a: __m512i) -> __m512i;
    fn mask_add(self, src: __m512i, k: Self::Mask, a: __m512i, b: __m512i) -> __m512i;
    fn mask_sub(self, src: __m512i, k: Self::Mask, a: __m512i, b: __m512i) -> __m512i;
    /// `a` in the lanes of `k`, `src` in the others.
    fn mask_mov(self, src: __m512i, k: Self::Mask, a: __m512i) -> __m512i;
    fn eq(self, a: __m512i, b: __m512i) -> Self::Mask;
    /// Unsigned `a > b`.
    fn gt(self, a: __m512i, b: __m512i) -> Self::Mask;
    /// The lanes of `a` not zero.
    fn nonzero(self, a: __m512i) -> Self::Mask;
    fn shl<const B: u32>(self, a: __m512i) -> __m512i;
    fn shr<const B: u32>(self, a: __m512i) -> __m512i;
    fn mask_shr<const B: u32>(self, src: __m512i, k: Self::Mask, a: __m512i) -> __m512i;
    /// `1 << count`.
    fn bit(self, count: __m512i) -> __m512i;
    /// The lane's top bit, as bit 0.
    fn top_bit(self, a: __m512i) -> __m512i;
    /// Bit 0 as the lane's top bit.
    fn to_top_bit(self, a: __m512i) -> __m512i;
    /// The column of the one bit of each lane of `bit`.
    fn column(self, bit: __m512i) -> __m512i;
    /// A stack word's newest (lowest) row.
    fn low_row(self, word: __m512i) -> __m512i;
    /// A stack word's oldest (highest) row, as its lowest.
    fn high_row(self, word: __m512i) -> __m512i;
    /// A stack word's rows, the newest dropped (the others one row lower).
    fn drop_row(self, word: __m512i) -> __m512i;
    /// A stack word's rows moved one row up, the oldest dropped (the lowest left empty).
    fn raise_rows(self, word: __m512i) -> __m512i;
    /// The newest (lowest) row of a stack word moved to the place of the oldest.
    fn row_to_high(self, word: __m512i) -> __m512i;

    #[inline(always)]
    fn zero(self) -> __m512i {
        // SAFETY: a value of `Self` exists only where the CPU has AVX-512 F (the trait's
        // contract).
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn and(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: as `zero`.
        unsafe { _mm512_and_si512(a, b) }
    }
    #[inline(always)]
    fn or(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: as `zero`.
        unsafe { _mm512_or_si512(a, b) }
    }
    #[inline(always)]
    fn xor(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: as `zero`.
        unsafe { _mm512_xor_si512(a, b) }
    }
    /// `!a & b`.
    #[inline(always)]
    fn andnot(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: as `zero`.
        unsafe { _mm512_andnot_si512(a, b) }
    }
}

/// 32-bit lanes (see the module doc); only [`Wide::detect`] makes one.
#[derive(Clone, Copy)]
struct Wide(());

impl Wide {
    /// A `Wide` where the CPU has AVX-512 F, CD and VPOPCNTDQ.
    fn detect() -> Option<Wide> {
        (std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512cd")
            && std::is_x86_feature_detected!("avx512vpopcntdq"))
        .then_some(Wide(()))
    }
}

/// One call of an intrinsic of the width's features, which a value of the width proves the
/// CPU has.
macro_rules! width_op {
    ($e:expr) => {
        // SAFETY: a value of `Self` exists only where the CPU has the width's features
        // (`detect`, the trait's contract).
        unsafe { $e }
    };
}

// SAFETY: `Wide::detect` makes a `Wide` only where the CPU has AVX-512 F, CD and VPOPCNTDQ,
// all that the methods use.
unsafe impl Width for Wide {
    type Lane = u32;
    type Array = [u32; 16];
    type Mask = __mmask16;
    /// Rows 0..16 and 16..32, for a two-table permute.
    type Table = (__m512i, __m512i);

    const ROWS: RangeInclusive<usize> = 8..=24;
    /// Six rows of 5 bits a word.
    const STACK_ROWS: usize = 6 * STACK_WORDS;
    const STEPS: usize = 1024;

    #[inline(always)]
    fn lane(x: u32) -> u32 {
        x
    }
    #[inline(always)]
    fn mask(bits: u64) -> __mmask16 {
        bits as __mmask16
    }
    #[inline(always)]
    fn to_array(v: __m512i) -> [u32; 16] {
        // SAFETY: __m512i and [u32; 16] have the same size, any bits are valid for both.
        unsafe { std::mem::transmute::<__m512i, [u32; 16]>(v) }
    }
    #[inline(always)]
    fn from_array(a: [u32; 16]) -> __m512i {
        // SAFETY: as `to_array`.
        unsafe { std::mem::transmute::<[u32; 16], __m512i>(a) }
    }
    #[inline(always)]
    fn table(self, rows: &[u32; 34], from: usize) -> (__m512i, __m512i) {
        let half = |at: usize| Self::from_array(rows[at..at + 16].try_into().expect("16 rows"));
        (half(from), half(from + 16))
    }
    #[inline(always)]
    fn row(self, table: (__m512i, __m512i), depth: __m512i) -> __m512i {
        width_op!(_mm512_permutex2var_epi32(table.0, depth, table.1))
    }
    #[inline(always)]
    fn splat(self, x: u32) -> __m512i {
        width_op!(_mm512_set1_epi32(x as i32))
    }
    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_add_epi32(a, b))
    }
    #[inline(always)]
    fn sub(self, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_sub_epi32(a, b))
    }
    #[inline(always)]
    fn mullo(self, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_mullo_epi32(a, b))
    }
    #[inline(always)]
    fn popcnt(self, a: __m512i) -> __m512i {
        width_op!(_mm512_popcnt_epi32(a))
    }
    #[inline(always)]
    fn mask_add(self, src: __m512i, k: __mmask16, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_mask_add_epi32(src, k, a, b))
    }
    #[inline(always)]
    fn mask_sub(self, src: __m512i, k: __mmask16, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_mask_sub_epi32(src, k, a, b))
    }
    #[inline(always)]
    fn mask_mov(self, src: __m512i, k: __mmask16, a: __m512i) -> __m512i {
        width_op!(_mm512_mask_mov_epi32(src, k, a))
    }
    #[inline(always)]
    fn eq(self, a: __m512i, b: __m512i) -> __mmask16 {
        width_op!(_mm512_cmpeq_epi32_mask(a, b))
    }
    #[inline(always)]
    fn gt(self, a: __m512i, b: __m512i) -> __mmask16 {
        width_op!(_mm512_cmpgt_epu32_mask(a, b))
    }
    #[inline(always)]
    fn nonzero(self, a: __m512i) -> __mmask16 {
        width_op!(_mm512_test_epi32_mask(a, a))
    }
    #[inline(always)]
    fn shl<const B: u32>(self, a: __m512i) -> __m512i {
        width_op!(_mm512_slli_epi32::<B>(a))
    }
    #[inline(always)]
    fn shr<const B: u32>(self, a: __m512i) -> __m512i {
        width_op!(_mm512_srli_epi32::<B>(a))
    }
    #[inline(always)]
    fn mask_shr<const B: u32>(self, src: __m512i, k: __mmask16, a: __m512i) -> __m512i {
        width_op!(_mm512_mask_srli_epi32::<B>(src, k, a))
    }
    #[inline(always)]
    fn bit(self, count: __m512i) -> __m512i {
        width_op!(_mm512_sllv_epi32(_mm512_set1_epi32(1), count))
    }
    #[inline(always)]
    fn top_bit(self, a: __m512i) -> __m512i {
        width_op!(_mm512_srli_epi32::<31>(a))
    }
    #[inline(always)]
    fn to_top_bit(self, a: __m512i) -> __m512i {
        width_op!(_mm512_slli_epi32::<31>(a))
    }
    /// `31 - lzcnt(bit)` (AVX-512 CD).
    #[inline(always)]
    fn column(self, bit: __m512i) -> __m512i {
        width_op!(_mm512_sub_epi32(
            _mm512_set1_epi32(31),
            _mm512_lzcnt_epi32(bit)
        ))
    }
    #[inline(always)]
    fn low_row(self, word: __m512i) -> __m512i {
        width_op!(_mm512_and_si512(word, _mm512_set1_epi32(31)))
    }
    /// Bits 25 to 29 (bits 30 and 31 of a word are not used).
    #[inline(always)]
    fn high_row(self, word: __m512i) -> __m512i {
        width_op!(_mm512_and_si512(
            _mm512_srli_epi32::<25>(word),
            _mm512_set1_epi32(31)
        ))
    }
    #[inline(always)]
    fn drop_row(self, word: __m512i) -> __m512i {
        width_op!(_mm512_srli_epi32::<5>(word))
    }
    #[inline(always)]
    fn raise_rows(self, word: __m512i) -> __m512i {
        width_op!(_mm512_slli_epi32::<5>(word))
    }
    #[inline(always)]
    fn row_to_high(self, word: __m512i) -> __m512i {
        width_op!(_mm512_slli_epi32::<25>(_mm512_and_si512(
            word,
            _mm512_set1_epi32(31)
        )))
    }
}

/// 16-bit lanes (see the module doc); only [`Narrow::detect`] makes one.
#[derive(Clone, Copy)]
struct Narrow(());

impl Narrow {
    /// A `Narrow` where the CPU has AVX-512 F, BW and BITALG.
    fn detect() -> Option<Narrow> {
        (std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512bitalg"))
        .then_some(Narrow(()))
    }
}

// SAFETY: `Narrow::detect` makes a `Narrow` only where the CPU has AVX-512 F, BW and BITALG,
// all that the methods use.
unsafe impl Width for Narrow {
    type Lane = u16;
    type Array = [u16; 32];
    type Mask = __mmask32;
    /// Rows 0..32, for a one-table permute.
    type Table = __m512i;

    /// From 8 rows, as the wide lanes, to 16 columns.
    const ROWS: RangeInclusive<usize> = 8..=16;
    /// Four rows of 4 bits a word.
    const STACK_ROWS: usize = 4 * STACK_WORDS;
    /// A `u16` lane holds 2,048 steps' worth with room to spare.
    const STEPS: usize = 2048;

    /// `x` fits: a board of at most 16 columns, whose `left` mask keeps no bit past column
    /// 15 (the breadth-first rows shift them off, as a push does here, and a pop never
    /// climbs above the root), or a depth.
    #[inline(always)]
    fn lane(x: u32) -> u16 {
        x as u16
    }
    #[inline(always)]
    fn mask(bits: u64) -> __mmask32 {
        bits as __mmask32
    }
    #[inline(always)]
    fn to_array(v: __m512i) -> [u16; 32] {
        // SAFETY: __m512i and [u16; 32] have the same size, any bits are valid for both.
        unsafe { std::mem::transmute::<__m512i, [u16; 32]>(v) }
    }
    #[inline(always)]
    fn from_array(a: [u16; 32]) -> __m512i {
        // SAFETY: as `to_array`.
        unsafe { std::mem::transmute::<[u16; 32], __m512i>(a) }
    }
    #[inline(always)]
    fn table(self, rows: &[u32; 34], from: usize) -> __m512i {
        Self::from_array(std::array::from_fn(|r| rows[from + r] as u16))
    }
    #[inline(always)]
    fn row(self, table: __m512i, depth: __m512i) -> __m512i {
        width_op!(_mm512_permutexvar_epi16(depth, table))
    }
    #[inline(always)]
    fn splat(self, x: u32) -> __m512i {
        width_op!(_mm512_set1_epi16(x as i16))
    }
    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_add_epi16(a, b))
    }
    #[inline(always)]
    fn sub(self, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_sub_epi16(a, b))
    }
    #[inline(always)]
    fn mullo(self, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_mullo_epi16(a, b))
    }
    /// AVX-512 BITALG.
    #[inline(always)]
    fn popcnt(self, a: __m512i) -> __m512i {
        width_op!(_mm512_popcnt_epi16(a))
    }
    #[inline(always)]
    fn mask_add(self, src: __m512i, k: __mmask32, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_mask_add_epi16(src, k, a, b))
    }
    #[inline(always)]
    fn mask_sub(self, src: __m512i, k: __mmask32, a: __m512i, b: __m512i) -> __m512i {
        width_op!(_mm512_mask_sub_epi16(src, k, a, b))
    }
    #[inline(always)]
    fn mask_mov(self, src: __m512i, k: __mmask32, a: __m512i) -> __m512i {
        width_op!(_mm512_mask_mov_epi16(src, k, a))
    }
    #[inline(always)]
    fn eq(self, a: __m512i, b: __m512i) -> __mmask32 {
        width_op!(_mm512_cmpeq_epi16_mask(a, b))
    }
    #[inline(always)]
    fn gt(self, a: __m512i, b: __m512i) -> __mmask32 {
        width_op!(_mm512_cmpgt_epu16_mask(a, b))
    }
    #[inline(always)]
    fn nonzero(self, a: __m512i) -> __mmask32 {
        width_op!(_mm512_test_epi16_mask(a, a))
    }
    #[inline(always)]
    fn shl<const B: u32>(self, a: __m512i) -> __m512i {
        width_op!(_mm512_slli_epi16::<B>(a))
    }
    #[inline(always)]
    fn shr<const B: u32>(self, a: __m512i) -> __m512i {
        width_op!(_mm512_srli_epi16::<B>(a))
    }
    #[inline(always)]
    fn mask_shr<const B: u32>(self, src: __m512i, k: __mmask32, a: __m512i) -> __m512i {
        width_op!(_mm512_mask_srli_epi16::<B>(src, k, a))
    }
    #[inline(always)]
    fn bit(self, count: __m512i) -> __m512i {
        width_op!(_mm512_sllv_epi16(_mm512_set1_epi16(1), count))
    }
    #[inline(always)]
    fn top_bit(self, a: __m512i) -> __m512i {
        width_op!(_mm512_srli_epi16::<15>(a))
    }
    #[inline(always)]
    fn to_top_bit(self, a: __m512i) -> __m512i {
        width_op!(_mm512_slli_epi16::<15>(a))
    }
    /// The number of squares below the bit, `popcount(bit - 1)` (AVX-512 BITALG).
    #[inline(always)]
    fn column(self, bit: __m512i) -> __m512i {
        width_op!(_mm512_popcnt_epi16(_mm512_sub_epi16(
            bit,
            _mm512_set1_epi16(1)
        )))
    }
    #[inline(always)]
    fn low_row(self, word: __m512i) -> __m512i {
        width_op!(_mm512_and_si512(word, _mm512_set1_epi16(15)))
    }
    /// Bits 12..16: the shift leaves nothing else.
    #[inline(always)]
    fn high_row(self, word: __m512i) -> __m512i {
        width_op!(_mm512_srli_epi16::<12>(word))
    }
    #[inline(always)]
    fn drop_row(self, word: __m512i) -> __m512i {
        width_op!(_mm512_srli_epi16::<4>(word))
    }
    #[inline(always)]
    fn raise_rows(self, word: __m512i) -> __m512i {
        width_op!(_mm512_slli_epi16::<4>(word))
    }
    /// The shift drops the other rows.
    #[inline(always)]
    fn row_to_high(self, word: __m512i) -> __m512i {
        width_op!(_mm512_slli_epi16::<12>(word))
    }
}

/// A board in the queue: the columns and the two diagonal masks (as the scalar search's
/// `Frame`) the queens above the root leave in the root's row.
#[derive(Clone, Copy)]
struct Board {
    cols: u32,
    left: u32,
    right: u32,
}

/// The boards the rows above a root leave, breadth first, and the squares tried there:
/// `(root, boards, nodes)`. The root is the first depth with at least [`SUBTREES`] boards,
/// at most n-4 (so that a lane places at least one queen) and at least n-2-`stack_rows`
/// (so that a lane's stack holds the rows below).
fn subtrees(allowed: &[u32], stack_rows: usize) -> (usize, Vec<Board>, u64) {
    let n = allowed.len();
    let mut boards = vec![Board {
        cols: 0,
        left: 0,
        right: 0,
    }];
    let mut nodes = 0;
    let mut depth = 0;
    while depth < n - 4 && (boards.len() < SUBTREES || depth + 2 + stack_rows < n) {
        let mut next = Vec::with_capacity(boards.len() * 4);
        for b in &boards {
            let mut free = allowed[depth] & !(b.cols | b.left | b.right);
            nodes += u64::from(free.count_ones());
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free ^= bit;
                next.push(Board {
                    cols: b.cols | bit,
                    left: (b.left | bit) << 1,
                    right: (b.right | bit) >> 1,
                });
            }
        }
        boards = next;
        depth += 1;
    }
    (depth, boards, nodes)
}

/// The vectors every step reads.
struct Consts<W: Width> {
    /// `allowed` (zero masks past the last row), then the same one and two rows on.
    rows: W::Table,
    rows2: W::Table,
    rows3: W::Table,
    root: __m512i,
    /// The depth n-2, whose open squares are summed rather than placed.
    leaf: __m512i,
    zero: __m512i,
    one: __m512i,
}

/// One group of lanes, a vector's worth.
struct Lanes<W: Width> {
    /// Columns and diagonals the queens above the lane's depth hold, as in a scalar frame.
    cols: __m512i,
    left: __m512i,
    right: __m512i,
    /// The row whose squares `rest` holds.
    depth: __m512i,
    /// The open squares of that row not tried yet.
    rest: __m512i,
    /// The columns of the queens placed below the root, newest lowest.
    stack: [__m512i; STACK_WORDS],
    /// Per placed row, the bit a push shifted off `left` (the top bit) and `right` (bit 0).
    lost_left: __m512i,
    lost_right: __m512i,
    /// Solutions and nodes counted since the last flush.
    solutions: __m512i,
    nodes: __m512i,
    /// Lanes with a subtree.
    active: W::Mask,
}

/// The queue of boards and what the lanes counted.
struct Work<'a> {
    boards: &'a [Board],
    next: usize,
    root: usize,
    root_mask: u32,
    solutions: u64,
    nodes: u64,
}

impl Work<'_> {
    /// Gives the lanes of `done` (which finished their subtree, or never had one) the next
    /// boards of the queue; a lane with none left becomes inactive.
    fn refill<W: Width>(&mut self, g: &mut Lanes<W>, done: W::Mask) {
        let (mut cols, mut left, mut right) = (
            W::to_array(g.cols),
            W::to_array(g.left),
            W::to_array(g.right),
        );
        let (mut depth, mut rest) = (W::to_array(g.depth), W::to_array(g.rest));
        let (done, mut active): (u64, u64) = (done.into(), g.active.into());
        for lane in 0..cols.as_ref().len() {
            if done >> lane & 1 == 0 {
                continue;
            }
            depth.as_mut()[lane] = W::lane(self.root as u32);
            if let Some(b) = self.boards.get(self.next) {
                self.next += 1;
                cols.as_mut()[lane] = W::lane(b.cols);
                left.as_mut()[lane] = W::lane(b.left);
                right.as_mut()[lane] = W::lane(b.right);
                rest.as_mut()[lane] = W::lane(self.root_mask & !(b.cols | b.left | b.right));
                active |= 1 << lane;
            } else {
                rest.as_mut()[lane] = W::Lane::default();
                active &= !(1 << lane);
            }
        }
        (g.cols, g.left, g.right) = (
            W::from_array(cols),
            W::from_array(left),
            W::from_array(right),
        );
        (g.depth, g.rest) = (W::from_array(depth), W::from_array(rest));
        g.active = W::mask(active);
    }

    /// Adds the lanes' counters to the totals and clears them.
    fn flush<W: Width>(&mut self, g: &mut Lanes<W>) {
        let sum = |v: __m512i| {
            W::to_array(v)
                .as_ref()
                .iter()
                .map(|&c| c.into())
                .sum::<u64>()
        };
        self.solutions += sum(g.solutions);
        self.nodes += sum(g.nodes);
        g.solutions = W::from_array(W::Array::default());
        g.nodes = W::from_array(W::Array::default());
    }
}

/// One step of every lane of `g`: a lane whose row has no square left goes back up a row
/// (restoring the masks from its stack) or, at its root, takes a new board; then a lane
/// with a square left tries the lowest one: if the next row is row n-2 it adds the last two
/// rows' placements and stays, else it goes down a row when the queen leaves each of the
/// next three rows an open square.
#[inline(always)]
fn step<W: Width>(w: W, c: &Consts<W>, g: &mut Lanes<W>, work: &mut Work) {
    let empty = w.eq(g.rest, c.zero);
    let pop = empty & w.gt(g.depth, c.root);
    let done = empty & g.active & !pop;
    if done != W::Mask::default() {
        work.refill(g, done);
    }

    // Back up one row in the lanes of `pop`.
    g.depth = w.mask_sub(g.depth, pop, g.depth, c.one);
    let col = w.low_row(g.stack[0]);
    for i in 0..STACK_WORDS {
        let below = if i + 1 < STACK_WORDS {
            w.row_to_high(g.stack[i + 1])
        } else {
            c.zero
        };
        let popped = w.or(w.drop_row(g.stack[i]), below);
        g.stack[i] = w.mask_mov(g.stack[i], pop, popped);
    }
    let bit = w.bit(col);
    let lost_left = w.to_top_bit(g.lost_left);
    let lost_right = w.and(g.lost_right, c.one);
    g.lost_left = w.mask_shr::<1>(g.lost_left, pop, g.lost_left);
    g.lost_right = w.mask_shr::<1>(g.lost_right, pop, g.lost_right);
    g.cols = w.mask_mov(g.cols, pop, w.xor(g.cols, bit));
    let left = w.or(w.shr::<1>(g.left), lost_left);
    g.left = w.mask_mov(g.left, pop, w.xor(left, bit));
    let right = w.or(w.shl::<1>(g.right), lost_right);
    g.right = w.mask_mov(g.right, pop, w.xor(right, bit));
    let row = w.row(c.rows, g.depth);
    let held = w.or(g.cols, w.or(g.left, g.right));
    let open = w.andnot(held, row);
    // The squares after the queen taken off (the row is tried lowest square first).
    let after = w.sub(c.zero, w.shl::<1>(bit));
    g.rest = w.mask_mov(g.rest, pop, w.and(open, after));

    // Try the lowest square left in the lanes with one: a queen there leaves `open` in the
    // next row, `open2` and `open3` in the two below.
    let tried = w.nonzero(g.rest);
    g.nodes = w.mask_add(g.nodes, tried, g.nodes, c.one);
    let bit = w.and(g.rest, w.sub(c.zero, g.rest));
    g.rest = w.xor(g.rest, bit);
    let cols = w.or(g.cols, bit);
    let left_bit = w.or(g.left, bit);
    let right_bit = w.or(g.right, bit);
    let left = w.shl::<1>(left_bit);
    let right = w.shr::<1>(right_bit);
    let next = w.add(g.depth, c.one);
    let open_at = |rows: W::Table, left: __m512i, right: __m512i| {
        w.andnot(w.or(cols, w.or(left, right)), w.row(rows, next))
    };
    let open = open_at(c.rows, left, right);
    let open2 = open_at(c.rows2, w.shl::<1>(left), w.shr::<1>(right));

    // At depth n-2: the last two rows by the formula (`open2` is the last row's squares),
    // and no queen placed.
    let leaf = tried & w.eq(next, c.leaf);
    let pairs = w.mullo(w.popcnt(open), w.popcnt(open2));
    let touching = w.add(
        w.popcnt(w.and(open, open2)),
        w.add(
            w.popcnt(w.and(w.shl::<1>(open), open2)),
            w.popcnt(w.and(w.shr::<1>(open), open2)),
        ),
    );
    g.solutions = w.mask_add(g.solutions, leaf, g.solutions, w.sub(pairs, touching));
    // Row n-2's squares are nodes, though summed rather than placed.
    g.nodes = w.mask_add(g.nodes, leaf, g.nodes, w.popcnt(open));

    // Above depth n-2: go down a row only when the queen leaves each of the next three
    // rows an open square (below depth n-2 the third is off the board, but that depth is
    // the leaf's, never one to go down to).
    let open3 = open_at(c.rows3, w.shl::<2>(left), w.shr::<2>(right));
    let down = tried & !leaf & w.nonzero(open) & w.nonzero(open2) & w.nonzero(open3);
    let col = w.column(bit);
    for i in (0..STACK_WORDS).rev() {
        let below = if i > 0 {
            w.high_row(g.stack[i - 1])
        } else {
            col
        };
        let pushed = w.or(w.raise_rows(g.stack[i]), below);
        g.stack[i] = w.mask_mov(g.stack[i], down, pushed);
    }
    let lost_left = w.or(w.shl::<1>(g.lost_left), w.top_bit(left_bit));
    g.lost_left = w.mask_mov(g.lost_left, down, lost_left);
    let lost_right = w.or(w.shl::<1>(g.lost_right), w.and(right_bit, c.one));
    g.lost_right = w.mask_mov(g.lost_right, down, lost_right);
    g.cols = w.mask_mov(g.cols, down, cols);
    g.left = w.mask_mov(g.left, down, left);
    g.right = w.mask_mov(g.right, down, right);
    g.depth = w.mask_mov(g.depth, down, next);
    g.rest = w.mask_mov(g.rest, down, open);
}

/// The search of the board `allowed` in lanes of width `W`: the breadth-first rows, then
/// the lanes until the queue is empty. Inlined into each width's entry function, which
/// compiles it with that width's features.
#[inline(always)]
fn drive<W: Width>(w: W, allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let n = allowed.len();
    let (root, boards, nodes) = subtrees(allowed, W::STACK_ROWS);
    let mut rows = [0u32; 34];
    rows[..n].copy_from_slice(allowed);
    let c = Consts {
        rows: w.table(&rows, 0),
        rows2: w.table(&rows, 1),
        rows3: w.table(&rows, 2),
        root: w.splat(root as u32),
        leaf: w.splat((n - 2) as u32),
        zero: w.zero(),
        one: w.splat(1),
    };
    let mut work = Work {
        boards: &boards,
        next: 0,
        root,
        root_mask: allowed[root],
        solutions: 0,
        nodes,
    };
    run_lanes(w, &c, &mut work, stop).then_some((work.solutions, work.nodes))
}

/// Steps two groups of lanes until the queue of `work` is empty (true) or `stop` is set
/// (false).
#[inline(always)]
fn run_lanes<W: Width>(w: W, c: &Consts<W>, work: &mut Work, stop: &AtomicBool) -> bool {
    let idle = || Lanes::<W> {
        cols: c.zero,
        left: c.zero,
        right: c.zero,
        depth: c.root,
        rest: c.zero,
        stack: [c.zero; STACK_WORDS],
        lost_left: c.zero,
        lost_right: c.zero,
        solutions: c.zero,
        nodes: c.zero,
        active: W::Mask::default(),
    };
    let (mut a, mut b) = (idle(), idle());
    work.refill(&mut a, !W::Mask::default());
    work.refill(&mut b, !W::Mask::default());
    while a.active | b.active != W::Mask::default() {
        for _ in 0..W::STEPS {
            step(w, c, &mut a, work);
            step(w, c, &mut b, work);
        }
        work.flush(&mut a);
        work.flush(&mut b);
        if stop.load(Ordering::Relaxed) {
            return false;
        }
    }
    true
}
