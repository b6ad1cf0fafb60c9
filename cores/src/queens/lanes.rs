//! The search of [`super`] run on 32 subtrees at once in the lanes of AVX-512 vectors: the
//! same bitboard backtrack (top-down rows, the last two rows summed by the formula of
//! [`super::last_two_rows`]), but each lane steps through a subtree of its own, with no
//! branch that depends on one lane's board. A step tries one square: the lane goes down a row only
//! if the queen leaves each of the next three rows an open square, and at depth n-2 it adds the
//! formula's count and stays; so no step goes down to a row with no open square, and none climbs
//! back from a leaf.
//! The scalar search spends most of its time on mispredicted branches (whether a row has another
//! open square is a coin toss for the predictor); here every step of every lane is the same
//! straight-line code under masks.
//!
//! The rows above a depth `root` are searched first, breadth first, into a queue of the boards they
//! leave (columns and diagonals held); each lane takes a board from the queue, searches its subtree
//! depth first, and takes the next when it is done. A lane's stack is kept in registers: the column
//! of the queen of each row (5 bits a row, six rows to a 32-bit word, [`STACK_WORDS`]
//! words) and the one bit of each diagonal mask that the shift of a push drops off the word, so
//! that a pop restores the masks exactly. Two groups of 16 lanes are stepped in turn, so that one
//! group's chain of dependent instructions overlaps the other's.
//!
//! Available where the CPU has AVX-512 F, CD and VPOPCNTDQ (checked at run time); counts equal the
//! scalar search's on every board (tested in `queens`). [`search`] hands boards of at
//! most 16 rows to the 16-bit lanes of [`super::lanes16`] where the CPU has those:
//! twice the lanes a vector, the same tree (`cargo bench -p cores --bench queens`, whole
//! board of 16 queens: 8.3 times the scalar search in the run that measured them, where the
//! 32-bit lanes had been 4.4 times it).

use std::arch::x86_64::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// 32-bit words of a lane's stack of columns (six rows of 5 bits each). (Two words where the
/// rows below the root fit in them measured slower: 1.64 s against 1.20 s on the whole
/// board of 16 queens.)
const STACK_WORDS: usize = 3;

/// Rows a lane may place below its root (the depth of its stack).
const STACK_ROWS: usize = 6 * STACK_WORDS;

/// Subtrees the breadth-first rows aim to leave in the queue: enough that the last lanes to
/// finish do not leave the others idle for long.
const SUBTREES: usize = 512;

/// Steps of both groups between two reads of the stop flag and two flushes of the lanes'
/// counters (a lane adds at most 4 solutions and 3 nodes a step: at depth n-2 two columns
/// are free, so a `u32` lane cannot overflow).
const STEPS: usize = 1024;

/// Boards this search takes: from 8 rows (smaller ones are quicker in the scalar search) to
/// 24 (deeper subtrees than the stack holds would need a root too deep to reach cheaply).
pub(super) const ROWS: std::ops::RangeInclusive<usize> = 8..=24;

/// Whether this CPU can run [`search`].
pub(super) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512cd")
        && std::is_x86_feature_detected!("avx512vpopcntdq")
}

/// The placements over the per-row masks `allowed` (a board of [`ROWS`] rows, no square
/// beyond its n columns): `(solutions, nodes)` as [`super`] counts them, `None` when
/// `stop` was set. Every placement counted is one of the n queens problem, so `solutions` is
/// at most Q(24) = 227,514,171,973,736 < 2^48 (OEIS A000170): a `u64` holds it.
///
/// # Panics
/// If the CPU lacks a feature [`available`] checks, `allowed` has a length outside
/// [`ROWS`], or a square beyond its n columns.
pub(super) fn search(allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    check_board(allowed);
    if super::lanes16::ROWS.contains(&allowed.len()) && super::lanes16::available() {
        return super::lanes16::search(allowed, stop);
    }
    search_wide(allowed, stop)
}

/// [`search`] in 32-bit lanes whatever the board's size (the 16-bit lanes of
/// [`super::lanes16`] take the boards they fit where the CPU has them).
///
/// # Panics
/// As [`search`].
pub(super) fn search_wide(allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    assert!(
        available(),
        "the lanes search needs AVX-512 F, CD and VPOPCNTDQ"
    );
    check_board(allowed);
    // SAFETY: the CPU has the features (asserted just above).
    unsafe { search_avx512(allowed, stop) }
}

/// Asserts what [`search`] takes: [`ROWS`] rows, no square beyond the board's columns (so
/// that its count is at most Q(24) and fits a `u64`).
fn check_board(allowed: &[u32]) {
    let n = allowed.len();
    assert!(ROWS.contains(&n), "{n} rows");
    assert!(
        allowed.iter().all(|&m| m >> n == 0),
        "a square beyond column {n}"
    );
}

/// A board in the queue: the columns and the two diagonal masks (as the scalar search's
/// `Frame`) the queens above the root leave in the root's row.
#[derive(Clone, Copy)]
pub(super) struct Board {
    pub(super) cols: u32,
    pub(super) left: u32,
    pub(super) right: u32,
}

/// The boards the rows above a root leave, breadth first, and the squares tried there:
/// `(root, boards, nodes)`. The root is the first depth with at least [`SUBTREES`] boards,
/// at most n-4 (so that a lane places at least one queen) and at least n-2-`stack_rows`
/// (so that a lane's stack holds the rows below).
pub(super) fn subtrees(allowed: &[u32], stack_rows: usize) -> (usize, Vec<Board>, u64) {
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
struct Consts {
    /// `allowed`, rows 0..16 and 16..32 (for a two-table permute by depth), then the same
    /// one and two rows on (zero masks past the last row).
    rows_lo: __m512i,
    rows_hi: __m512i,
    rows2_lo: __m512i,
    rows2_hi: __m512i,
    rows3_lo: __m512i,
    rows3_hi: __m512i,
    root: __m512i,
    /// The depth n-2, whose open squares are summed rather than placed.
    leaf: __m512i,
    zero: __m512i,
    one: __m512i,
    m31: __m512i,
}

/// One group of 16 lanes.
struct Lanes {
    /// Columns and diagonals the queens above the lane's depth hold, as in a scalar frame.
    cols: __m512i,
    left: __m512i,
    right: __m512i,
    /// The row whose squares `rest` holds.
    depth: __m512i,
    /// The open squares of that row not tried yet.
    rest: __m512i,
    /// The columns of the queens placed below the root, 5 bits a row, newest lowest.
    stack: [__m512i; STACK_WORDS],
    /// Per placed row, the bit a push shifted off `left` (bit 31) and `right` (bit 0).
    lost_left: __m512i,
    lost_right: __m512i,
    /// Solutions and nodes counted since the last flush.
    solutions: __m512i,
    nodes: __m512i,
    /// Lanes with a subtree.
    active: __mmask16,
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
    #[target_feature(enable = "avx512f")]
    fn refill(&mut self, g: &mut Lanes, done: __mmask16) {
        // SAFETY: __m512i and [u32; 16] have the same size, any bits are valid for both.
        let as_array = |v: __m512i| unsafe { std::mem::transmute::<__m512i, [u32; 16]>(v) };
        let (mut cols, mut left, mut right) =
            (as_array(g.cols), as_array(g.left), as_array(g.right));
        let (mut depth, mut rest) = (as_array(g.depth), as_array(g.rest));
        for lane in 0..16 {
            if done >> lane & 1 == 0 {
                continue;
            }
            depth[lane] = self.root as u32;
            if let Some(b) = self.boards.get(self.next) {
                self.next += 1;
                (cols[lane], left[lane], right[lane]) = (b.cols, b.left, b.right);
                rest[lane] = self.root_mask & !(b.cols | b.left | b.right);
                g.active |= 1 << lane;
            } else {
                rest[lane] = 0;
                g.active &= !(1 << lane);
            }
        }
        // SAFETY: as above.
        let as_vector = |a: [u32; 16]| unsafe { std::mem::transmute::<[u32; 16], __m512i>(a) };
        (g.cols, g.left, g.right) = (as_vector(cols), as_vector(left), as_vector(right));
        (g.depth, g.rest) = (as_vector(depth), as_vector(rest));
    }

    /// Adds the lanes' counters to the totals and clears them.
    #[target_feature(enable = "avx512f")]
    fn flush(&mut self, g: &mut Lanes) {
        // SAFETY: __m512i and [u32; 16] have the same size, any bits are valid for both.
        let sum = |v: __m512i| {
            unsafe { std::mem::transmute::<__m512i, [u32; 16]>(v) }
                .iter()
                .map(|&c| u64::from(c))
                .sum::<u64>()
        };
        self.solutions += sum(g.solutions);
        self.nodes += sum(g.nodes);
        g.solutions = _mm512_setzero_si512();
        g.nodes = _mm512_setzero_si512();
    }
}

/// One step of every lane of `g`: a lane whose row has no square left goes back up a row
/// (restoring the masks from its stack) or, at its root, takes a new board; then a lane
/// with a square left tries the lowest one: if the next row is row n-2 it adds the last two
/// rows' placements and stays, else it goes down a row when the queen leaves each of the
/// next three rows an open square.
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
#[inline]
fn step(c: &Consts, g: &mut Lanes, work: &mut Work) {
    let empty = _mm512_cmpeq_epi32_mask(g.rest, c.zero);
    let pop = empty & _mm512_cmpgt_epu32_mask(g.depth, c.root);
    let done = empty & g.active & !pop;
    if done != 0 {
        work.refill(g, done);
    }

    // Back up one row in the lanes of `pop`.
    g.depth = _mm512_mask_sub_epi32(g.depth, pop, g.depth, c.one);
    let col = _mm512_and_si512(g.stack[0], c.m31);
    for w in 0..STACK_WORDS {
        let below = if w + 1 < STACK_WORDS {
            _mm512_slli_epi32::<25>(_mm512_and_si512(g.stack[w + 1], c.m31))
        } else {
            c.zero
        };
        g.stack[w] =
            _mm512_mask_or_epi32(g.stack[w], pop, _mm512_srli_epi32::<5>(g.stack[w]), below);
    }
    let bit = _mm512_sllv_epi32(c.one, col);
    let lost_left = _mm512_slli_epi32::<31>(g.lost_left);
    let lost_right = _mm512_and_si512(g.lost_right, c.one);
    g.lost_left = _mm512_mask_srli_epi32::<1>(g.lost_left, pop, g.lost_left);
    g.lost_right = _mm512_mask_srli_epi32::<1>(g.lost_right, pop, g.lost_right);
    g.cols = _mm512_mask_xor_epi32(g.cols, pop, g.cols, bit);
    let left = _mm512_or_si512(_mm512_srli_epi32::<1>(g.left), lost_left);
    g.left = _mm512_mask_xor_epi32(g.left, pop, left, bit);
    let right = _mm512_or_si512(_mm512_slli_epi32::<1>(g.right), lost_right);
    g.right = _mm512_mask_xor_epi32(g.right, pop, right, bit);
    let row = _mm512_permutex2var_epi32(c.rows_lo, g.depth, c.rows_hi);
    let held = _mm512_or_si512(g.cols, _mm512_or_si512(g.left, g.right));
    let open = _mm512_andnot_si512(held, row);
    // The squares after the queen taken off (the row is tried lowest square first).
    let after = _mm512_sub_epi32(c.zero, _mm512_slli_epi32::<1>(bit));
    g.rest = _mm512_mask_and_epi32(g.rest, pop, open, after);

    // Try the lowest square left in the lanes with one: a queen there leaves `open` in the
    // next row, `open2` and `open3` in the two below.
    let tried = _mm512_test_epi32_mask(g.rest, g.rest);
    g.nodes = _mm512_mask_add_epi32(g.nodes, tried, g.nodes, c.one);
    let bit = _mm512_and_si512(g.rest, _mm512_sub_epi32(c.zero, g.rest));
    g.rest = _mm512_xor_si512(g.rest, bit);
    let cols = _mm512_or_si512(g.cols, bit);
    let left_bit = _mm512_or_si512(g.left, bit);
    let right_bit = _mm512_or_si512(g.right, bit);
    let left = _mm512_slli_epi32::<1>(left_bit);
    let right = _mm512_srli_epi32::<1>(right_bit);
    let next = _mm512_add_epi32(g.depth, c.one);
    let open_at = |rows: (__m512i, __m512i), left: __m512i, right: __m512i| {
        let row = _mm512_permutex2var_epi32(rows.0, next, rows.1);
        _mm512_andnot_si512(_mm512_or_si512(cols, _mm512_or_si512(left, right)), row)
    };
    let open = open_at((c.rows_lo, c.rows_hi), left, right);
    let open2 = open_at(
        (c.rows2_lo, c.rows2_hi),
        _mm512_slli_epi32::<1>(left),
        _mm512_srli_epi32::<1>(right),
    );

    // At depth n-2: the last two rows by the formula (`open2` is the last row's squares),
    // and no queen placed.
    let leaf = tried & _mm512_cmpeq_epi32_mask(next, c.leaf);
    let pairs = _mm512_mullo_epi32(_mm512_popcnt_epi32(open), _mm512_popcnt_epi32(open2));
    let touching = _mm512_add_epi32(
        _mm512_popcnt_epi32(_mm512_and_si512(open, open2)),
        _mm512_add_epi32(
            _mm512_popcnt_epi32(_mm512_and_si512(_mm512_slli_epi32::<1>(open), open2)),
            _mm512_popcnt_epi32(_mm512_and_si512(_mm512_srli_epi32::<1>(open), open2)),
        ),
    );
    g.solutions = _mm512_mask_add_epi32(
        g.solutions,
        leaf,
        g.solutions,
        _mm512_sub_epi32(pairs, touching),
    );
    // Row n-2's squares are nodes, though summed rather than placed.
    g.nodes = _mm512_mask_add_epi32(g.nodes, leaf, g.nodes, _mm512_popcnt_epi32(open));

    // Above depth n-2: go down a row only when the queen leaves each of the next three
    // rows an open square (below depth n-2 the third is off the board, but that depth is
    // the leaf's, never one to go down to).
    let open3 = open_at(
        (c.rows3_lo, c.rows3_hi),
        _mm512_slli_epi32::<2>(left),
        _mm512_srli_epi32::<2>(right),
    );
    let down = tried
        & !leaf
        & _mm512_test_epi32_mask(open, open)
        & _mm512_test_epi32_mask(open2, open2)
        & _mm512_test_epi32_mask(open3, open3);
    let col = _mm512_sub_epi32(c.m31, _mm512_lzcnt_epi32(bit));
    for w in (0..STACK_WORDS).rev() {
        let below = if w > 0 {
            _mm512_and_si512(_mm512_srli_epi32::<25>(g.stack[w - 1]), c.m31)
        } else {
            col
        };
        g.stack[w] =
            _mm512_mask_or_epi32(g.stack[w], down, _mm512_slli_epi32::<5>(g.stack[w]), below);
    }
    g.lost_left = _mm512_mask_or_epi32(
        g.lost_left,
        down,
        _mm512_slli_epi32::<1>(g.lost_left),
        _mm512_srli_epi32::<31>(left_bit),
    );
    g.lost_right = _mm512_mask_or_epi32(
        g.lost_right,
        down,
        _mm512_slli_epi32::<1>(g.lost_right),
        _mm512_and_si512(right_bit, c.one),
    );
    g.cols = _mm512_mask_mov_epi32(g.cols, down, cols);
    g.left = _mm512_mask_mov_epi32(g.left, down, left);
    g.right = _mm512_mask_mov_epi32(g.right, down, right);
    g.depth = _mm512_mask_mov_epi32(g.depth, down, next);
    g.rest = _mm512_mask_mov_epi32(g.rest, down, open);
}

#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
fn search_avx512(allowed: &[u32], stop: &AtomicBool) -> Option<(u64, u64)> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let n = allowed.len();
    let (root, boards, nodes) = subtrees(allowed, STACK_ROWS);
    let mut rows = [0u32; 34];
    rows[..n].copy_from_slice(allowed);
    // SAFETY: [u32; 16] and __m512i have the same size, any bits are valid for both.
    let as_vector = |a: &[u32]| unsafe {
        std::mem::transmute::<[u32; 16], __m512i>(a.try_into().expect("16 rows"))
    };
    let c = Consts {
        rows_lo: as_vector(&rows[..16]),
        rows_hi: as_vector(&rows[16..32]),
        rows2_lo: as_vector(&rows[1..17]),
        rows2_hi: as_vector(&rows[17..33]),
        rows3_lo: as_vector(&rows[2..18]),
        rows3_hi: as_vector(&rows[18..34]),
        root: _mm512_set1_epi32(root as i32),
        leaf: _mm512_set1_epi32((n - 2) as i32),
        zero: _mm512_setzero_si512(),
        one: _mm512_set1_epi32(1),
        m31: _mm512_set1_epi32(31),
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

/// Steps two groups of lanes until the queue of `work` is empty
/// (true) or `stop` is set (false).
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
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
    work.refill(&mut a, u16::MAX);
    work.refill(&mut b, u16::MAX);
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
