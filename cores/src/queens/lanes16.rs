//! The lanes search of [`super::lanes`] with 16-bit lanes, for boards of at most 16
//! columns: a board's masks fit in 16 bits, so one AVX-512 vector steps 32 subtrees instead
//! of 16, two groups 64. The step is the same (see that module): pop a row or take a new
//! board where a lane's row is exhausted, then try one square, adding the last two rows'
//! count at depth n-2 and going down only when the next three rows keep an open square.
//!
//! What differs with the width: a lane's stack holds 4 bits a row (four rows to a 16-bit
//! word, [`STACK_WORDS`] words); the column of a queen is `popcount(bit - 1)` (AVX-512
//! BITALG), there being no 16-bit leading-zero count; and a masked update that AVX-512 F
//! has only for 32-bit elements is a plain operation merged by a masked move (AVX-512 BW),
//! or is made harmless outside the mask by a zeroed operand.
//!
//! Available where the CPU has AVX-512 F, BW and BITALG (checked at run time). Counts equal
//! the scalar search's on every board (tested in `queens`, beside the 32-bit lanes).

use std::arch::x86_64::*;
use std::sync::atomic::{AtomicBool, Ordering};

use super::lanes::{subtrees, Board};

/// 16-bit words of a lane's stack of columns (four rows of 4 bits each).
const STACK_WORDS: usize = 3;

/// Rows a lane may place below its root (the depth of its stack).
pub(super) const STACK_ROWS: usize = 4 * STACK_WORDS;

/// Steps of both groups between two reads of the stop flag and two flushes of the lanes'
/// counters: a lane adds at most 4 solutions and 3 nodes a step, so a `u16` lane holds
/// 2,048 steps' worth with room to spare.
const STEPS: usize = 2048;

/// Boards this search takes: 8 rows (as the 32-bit lanes) to 16 columns.
pub(super) const ROWS: std::ops::RangeInclusive<usize> = 8..=16;

/// Whether this CPU can run [`search`].
pub(super) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512bitalg")
}

/// The placements over the per-row masks `allowed` (a board of [`ROWS`] rows, no square
/// beyond column 15): `(solutions, nodes)` as [`super`] counts them, `None` when
/// `stop` was set.
///
/// # Panics
/// If the CPU lacks a feature [`available`] checks, or the board is outside [`ROWS`].
pub(super) fn search(allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    assert!(
        available(),
        "the 16-bit lanes search needs AVX-512 F, BW and BITALG"
    );
    assert!(ROWS.contains(&allowed.len()), "{} rows", allowed.len());
    assert!(
        allowed.iter().all(|&m| m >> 16 == 0),
        "a square beyond column 15"
    );
    // SAFETY: the CPU has the features (asserted just above).
    unsafe { search_avx512(allowed, stop) }
}

/// The vectors every step reads.
struct Consts {
    /// `allowed` (rows 0..32, zero past the last row), then the same one and two rows on.
    rows: __m512i,
    rows2: __m512i,
    rows3: __m512i,
    root: __m512i,
    /// The depth n-2, whose open squares are summed rather than placed.
    leaf: __m512i,
    zero: __m512i,
    one: __m512i,
    m15: __m512i,
}

/// One group of 32 lanes (the fields of the 32-bit lanes' group).
struct Lanes {
    cols: __m512i,
    left: __m512i,
    right: __m512i,
    depth: __m512i,
    rest: __m512i,
    /// The columns of the queens placed below the root, 4 bits a row, newest lowest.
    stack: [__m512i; STACK_WORDS],
    /// Per placed row, the bit a push shifted off `left` (bit 15) and `right` (bit 0).
    lost_left: __m512i,
    lost_right: __m512i,
    solutions: __m512i,
    nodes: __m512i,
    active: __mmask32,
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

// SAFETY (both): __m512i and [u16; 32] have the same size, any bits are valid for both.
fn as_array(v: __m512i) -> [u16; 32] {
    unsafe { std::mem::transmute::<__m512i, [u16; 32]>(v) }
}

fn as_vector(a: [u16; 32]) -> __m512i {
    unsafe { std::mem::transmute::<[u16; 32], __m512i>(a) }
}

impl Work<'_> {
    /// Gives the lanes of `done` the next boards of the queue; a lane with none left
    /// becomes inactive.
    #[target_feature(enable = "avx512f")]
    fn refill(&mut self, g: &mut Lanes, done: __mmask32) {
        let (mut cols, mut left, mut right) =
            (as_array(g.cols), as_array(g.left), as_array(g.right));
        let (mut depth, mut rest) = (as_array(g.depth), as_array(g.rest));
        for lane in 0..32 {
            if done >> lane & 1 == 0 {
                continue;
            }
            depth[lane] = self.root as u16;
            if let Some(b) = self.boards.get(self.next) {
                self.next += 1;
                // The masks of a board of at most 16 columns: `left` keeps no bit past
                // column 15 (the breadth-first rows shift them off, as a push does here,
                // and a pop never climbs above the root).
                (cols[lane], left[lane], right[lane]) =
                    (b.cols as u16, b.left as u16, b.right as u16);
                rest[lane] = (self.root_mask & !(b.cols | b.left | b.right)) as u16;
                g.active |= 1 << lane;
            } else {
                rest[lane] = 0;
                g.active &= !(1 << lane);
            }
        }
        (g.cols, g.left, g.right) = (as_vector(cols), as_vector(left), as_vector(right));
        (g.depth, g.rest) = (as_vector(depth), as_vector(rest));
    }

    /// Adds the lanes' counters to the totals and clears them.
    #[target_feature(enable = "avx512f")]
    fn flush(&mut self, g: &mut Lanes) {
        let sum = |v: __m512i| as_array(v).iter().map(|&c| u64::from(c)).sum::<u64>();
        self.solutions += sum(g.solutions);
        self.nodes += sum(g.nodes);
        g.solutions = _mm512_setzero_si512();
        g.nodes = _mm512_setzero_si512();
    }
}

/// One step of every lane of `g` (see [`super::lanes`]'s step, which this follows
/// line by line).
#[target_feature(enable = "avx512f,avx512bw,avx512bitalg")]
#[inline]
fn step(c: &Consts, g: &mut Lanes, work: &mut Work) {
    let empty = _mm512_cmpeq_epi16_mask(g.rest, c.zero);
    let pop = empty & _mm512_cmpgt_epu16_mask(g.depth, c.root);
    let done = empty & g.active & !pop;
    if done != 0 {
        work.refill(g, done);
    }

    // Back up one row in the lanes of `pop`; `bit` is zero in the others, so that xor-ing
    // it changes nothing there.
    g.depth = _mm512_mask_sub_epi16(g.depth, pop, g.depth, c.one);
    let col = _mm512_and_si512(g.stack[0], c.m15);
    for w in 0..STACK_WORDS {
        let below = if w + 1 < STACK_WORDS {
            _mm512_slli_epi16::<12>(g.stack[w + 1])
        } else {
            c.zero
        };
        let popped = _mm512_or_si512(_mm512_srli_epi16::<4>(g.stack[w]), below);
        g.stack[w] = _mm512_mask_mov_epi16(g.stack[w], pop, popped);
    }
    let bit = _mm512_maskz_sllv_epi16(pop, c.one, col);
    let lost_left = _mm512_maskz_slli_epi16::<15>(pop, g.lost_left);
    let lost_right = _mm512_maskz_mov_epi16(pop, _mm512_and_si512(g.lost_right, c.one));
    g.lost_left = _mm512_mask_srli_epi16::<1>(g.lost_left, pop, g.lost_left);
    g.lost_right = _mm512_mask_srli_epi16::<1>(g.lost_right, pop, g.lost_right);
    g.cols = _mm512_xor_si512(g.cols, bit);
    let left = _mm512_mask_srli_epi16::<1>(g.left, pop, g.left);
    g.left = _mm512_xor_si512(_mm512_or_si512(left, lost_left), bit);
    let right = _mm512_mask_slli_epi16::<1>(g.right, pop, g.right);
    g.right = _mm512_xor_si512(_mm512_or_si512(right, lost_right), bit);
    let row = _mm512_permutexvar_epi16(g.depth, c.rows);
    let held = _mm512_or_si512(g.cols, _mm512_or_si512(g.left, g.right));
    let open = _mm512_andnot_si512(held, row);
    let after = _mm512_sub_epi16(c.zero, _mm512_slli_epi16::<1>(bit));
    g.rest = _mm512_mask_mov_epi16(g.rest, pop, _mm512_and_si512(open, after));

    // Try the lowest square left in the lanes with one.
    let tried = _mm512_test_epi16_mask(g.rest, g.rest);
    g.nodes = _mm512_mask_add_epi16(g.nodes, tried, g.nodes, c.one);
    let bit = _mm512_and_si512(g.rest, _mm512_sub_epi16(c.zero, g.rest));
    g.rest = _mm512_xor_si512(g.rest, bit);
    let cols = _mm512_or_si512(g.cols, bit);
    let left_bit = _mm512_or_si512(g.left, bit);
    let right_bit = _mm512_or_si512(g.right, bit);
    let left = _mm512_slli_epi16::<1>(left_bit);
    let right = _mm512_srli_epi16::<1>(right_bit);
    let next = _mm512_add_epi16(g.depth, c.one);
    let open_at = |rows: __m512i, left: __m512i, right: __m512i| {
        let row = _mm512_permutexvar_epi16(next, rows);
        _mm512_andnot_si512(_mm512_or_si512(cols, _mm512_or_si512(left, right)), row)
    };
    let open = open_at(c.rows, left, right);
    let open2 = open_at(
        c.rows2,
        _mm512_slli_epi16::<1>(left),
        _mm512_srli_epi16::<1>(right),
    );

    // At depth n-2: the last two rows by the formula, and no queen placed.
    let leaf = tried & _mm512_cmpeq_epi16_mask(next, c.leaf);
    let pairs = _mm512_mullo_epi16(_mm512_popcnt_epi16(open), _mm512_popcnt_epi16(open2));
    let touching = _mm512_add_epi16(
        _mm512_popcnt_epi16(_mm512_and_si512(open, open2)),
        _mm512_add_epi16(
            _mm512_popcnt_epi16(_mm512_and_si512(_mm512_slli_epi16::<1>(open), open2)),
            _mm512_popcnt_epi16(_mm512_and_si512(_mm512_srli_epi16::<1>(open), open2)),
        ),
    );
    g.solutions = _mm512_mask_add_epi16(
        g.solutions,
        leaf,
        g.solutions,
        _mm512_sub_epi16(pairs, touching),
    );
    g.nodes = _mm512_mask_add_epi16(g.nodes, leaf, g.nodes, _mm512_popcnt_epi16(open));

    // Above depth n-2: go down a row only when the queen leaves each of the next three
    // rows an open square.
    let open3 = open_at(
        c.rows3,
        _mm512_slli_epi16::<2>(left),
        _mm512_srli_epi16::<2>(right),
    );
    let down = tried
        & !leaf
        & _mm512_test_epi16_mask(open, open)
        & _mm512_test_epi16_mask(open2, open2)
        & _mm512_test_epi16_mask(open3, open3);
    // The column of the queen: the number of squares below its bit.
    let col = _mm512_popcnt_epi16(_mm512_sub_epi16(bit, c.one));
    for w in (0..STACK_WORDS).rev() {
        let below = if w > 0 {
            _mm512_srli_epi16::<12>(g.stack[w - 1])
        } else {
            col
        };
        let pushed = _mm512_or_si512(_mm512_slli_epi16::<4>(g.stack[w]), below);
        g.stack[w] = _mm512_mask_mov_epi16(g.stack[w], down, pushed);
    }
    let lost_left = _mm512_or_si512(
        _mm512_slli_epi16::<1>(g.lost_left),
        _mm512_srli_epi16::<15>(left_bit),
    );
    g.lost_left = _mm512_mask_mov_epi16(g.lost_left, down, lost_left);
    let lost_right = _mm512_or_si512(
        _mm512_slli_epi16::<1>(g.lost_right),
        _mm512_and_si512(right_bit, c.one),
    );
    g.lost_right = _mm512_mask_mov_epi16(g.lost_right, down, lost_right);
    g.cols = _mm512_mask_mov_epi16(g.cols, down, cols);
    g.left = _mm512_mask_mov_epi16(g.left, down, left);
    g.right = _mm512_mask_mov_epi16(g.right, down, right);
    g.depth = _mm512_mask_mov_epi16(g.depth, down, next);
    g.rest = _mm512_mask_mov_epi16(g.rest, down, open);
}

#[target_feature(enable = "avx512f,avx512bw,avx512bitalg")]
fn search_avx512(allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let n = allowed.len();
    let (root, boards, nodes) = subtrees(allowed, STACK_ROWS);
    let mut rows = [0u16; 34];
    for (r, &m) in allowed.iter().enumerate() {
        rows[r] = m as u16;
    }
    let table = |from: usize| as_vector(rows[from..from + 32].try_into().expect("32 rows"));
    let c = Consts {
        rows: table(0),
        rows2: table(1),
        rows3: table(2),
        root: _mm512_set1_epi16(root as i16),
        leaf: _mm512_set1_epi16((n - 2) as i16),
        zero: _mm512_setzero_si512(),
        one: _mm512_set1_epi16(1),
        m15: _mm512_set1_epi16(15),
    };
    let mut work = Work {
        boards: &boards,
        next: 0,
        root,
        root_mask: allowed[root],
        solutions: 0,
        nodes,
    };
    run_lanes(&c, &mut work, stop).then_some((work.solutions, work.nodes))
}

/// Steps two groups of lanes until the queue of `work` is empty (true) or `stop` is set
/// (false).
#[target_feature(enable = "avx512f,avx512bw,avx512bitalg")]
fn run_lanes(c: &Consts, work: &mut Work, stop: &AtomicBool) -> bool {
    let idle = || Lanes {
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
        active: 0,
    };
    let (mut a, mut b) = (idle(), idle());
    work.refill(&mut a, u32::MAX);
    work.refill(&mut b, u32::MAX);
    while a.active | b.active != 0 {
        for _ in 0..STEPS {
            step(c, &mut a, work);
            step(c, &mut b, work);
        }
        work.flush(&mut a);
        work.flush(&mut b);
        if stop.load(Ordering::Relaxed) {
            return false;
        }
    }
    true
}
