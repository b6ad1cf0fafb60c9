//! The n queens core: a counting core specialised for n queens, bit masks of the columns and
//! both diagonals, one row at a time (the classic bitboard backtrack), for the completions of
//! a prefix of queens ([`count_queens`]); [`units`] cuts a whole board into weighted units by
//! the queens on its border ring. (The exact-cover problem the engine solves is
//! [`crate::problems::queens`]; [`crate::count_core::CoreSpec::Queens`] names this core.)
//!
//! The prefix is a set of options of [`crate::problems::queens::Queens`] (option
//! `row * n + col` puts a queen on that square), in any rows: a unit of a job cut by the
//! Dancing Links partitioner places queens wherever the engine's item choice led. Each
//! prefix queen is folded into per-row masks once (the squares it attacks); its own row is
//! then a row with one candidate.
//!
//! The search fills the rows top to bottom, but first picks which of four images of the
//! board to search (as given, upside down, or either transpose): a symmetry of the square
//! maps the completions of a prefix one to one onto those of its image, while the search
//! trees differ. It keeps the one with the smallest Knuth estimate of its tree (64 random
//! paths each); on the border units of [`units`] that searches about 1.7 times
//! fewer nodes than the boards as given (n = 12 to 14). The rows above the last twelve are
//! searched with an explicit stack, the last twelve by nested loops (one per row), which also
//! check that the rows n-2 to n-4 keep an open square; the last two rows are summed without
//! placing a queen.
//!
//! Where the CPU has AVX-512 (F, CD, VPOPCNTDQ; checked at run time) boards of 8 to 24 rows
//! with an estimated 10,000 nodes or more ([`LANES_FROM_NODES`]) are searched on 32 subtrees
//! at once in vector lanes ([`lanes`]): 4.2 times the scalar search on the
//! border units of 20 queens (`cargo bench -p cores --bench queens -- --every=200 20`), with
//! the same counts (tested against it on every border unit of 10 to 12 queens and random
//! boards of 8 to 24). Boards of at most 16 rows go to 16-bit lanes, 64 subtrees at once
//! (AVX-512 BW and BITALG too; the same driver, generic over the width of a lane): 11 times
//! the scalar search on the whole board of 16 queens (0.60 s against 6.7 s; the 32-bit lanes
//! 1.18 s).
//!
//! Counts equal the Dancing Links engine's on the same prefixes (tested here and in
//! `count_core`'s tests), and are summed in `u128`: Q(n) passes 2^64 from about n = 29, below
//! [`MAX_N`] (the lanes' boards, at most 24 rows, stay below 2^48); `nodes` counts the squares the search tries in every row but the last
//! (the prefix's rows included, row n-2's squares too, though they are summed rather than
//! placed), in the orientation searched: not comparable with the engine's nodes, nor between
//! the two searches (their look-aheads differ).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::count_core::Completions;
use crate::xcc::OptionId;

#[cfg(target_arch = "x86_64")]
mod lanes;
pub mod units;

/// Largest board this core counts (masks are `u32`).
pub const MAX_N: usize = 32;

/// A prefix this core cannot count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueensError {
    #[error("queens {n}: this core counts boards of 1 to {MAX_N} squares a side")]
    Size { n: usize },
    #[error("option {option} is not a square of the {n}x{n} board")]
    Option { option: OptionId, n: usize },
    #[error("the queens on r{}c{} and r{}c{} attack each other", .a.0 + 1, .a.1 + 1, .b.0 + 1, .b.1 + 1)]
    Attack {
        a: (usize, usize),
        b: (usize, usize),
    },
}

/// The placements of `n` queens that extend `prefix`; `Ok(None)` when `stop` was set.
pub fn count_queens(
    n: usize,
    prefix: &[OptionId],
    stop: &AtomicBool,
) -> Result<Option<Completions>, QueensError> {
    count_by(n, prefix, stop, search)
}

/// [`count_queens`] by the search one square at a time even where the CPU has the lanes:
/// the baseline the benchmark measures the lanes against.
pub fn count_queens_scalar(
    n: usize,
    prefix: &[OptionId],
    stop: &AtomicBool,
) -> Result<Option<Completions>, QueensError> {
    count_by(n, prefix, stop, |allowed, _, stop| {
        search_scalar(allowed, stop)
    })
}

/// The search over a board's row masks and its estimated nodes (see [`search`]).
type Search = fn(&[u32], f64, &AtomicBool) -> Option<(u128, u64)>;

/// [`count_queens`] with the search `search`.
fn count_by(
    n: usize,
    prefix: &[OptionId],
    stop: &AtomicBool,
    search: Search,
) -> Result<Option<Completions>, QueensError> {
    if n == 0 || n > MAX_N {
        return Err(QueensError::Size { n });
    }
    let mut placed: Vec<(usize, usize)> = Vec::with_capacity(prefix.len());
    for &o in prefix {
        let o_us = o as usize;
        if o_us >= n * n {
            return Err(QueensError::Option { option: o, n });
        }
        let (r, c) = (o_us / n, o_us % n);
        if let Some(&q) = placed
            .iter()
            .find(|&&(pr, pc)| pr == r || pc == c || pr + pc == r + c || pr + c == r + pc)
        {
            return Err(QueensError::Attack { a: q, b: (r, c) });
        }
        placed.push((r, c));
    }
    let (image, estimate) = oriented(n, &placed);
    let allowed = row_masks(n, &image);
    let Some((solutions, nodes)) = search(&allowed, estimate, stop) else {
        return Ok(None);
    };
    Ok(Some(Completions { solutions, nodes }))
}

/// Per row: the squares of the `n` x `n` board the queens `placed` (pairwise not
/// attacking) leave open: none of their columns and diagonals, and in a row of theirs only
/// the queen's own square.
fn row_masks(n: usize, placed: &[(usize, usize)]) -> Vec<u32> {
    let full: u32 = if n == 32 { u32::MAX } else { (1 << n) - 1 };
    let mut allowed = vec![full; n];
    for (row, allow) in allowed.iter_mut().enumerate() {
        for &(r, c) in placed {
            if r == row {
                *allow &= 1 << c;
                continue;
            }
            let d = row.abs_diff(r);
            let mut attacked = 1u32 << c;
            if c + d < n {
                attacked |= 1 << (c + d);
            }
            if c >= d {
                attacked |= 1 << (c - d);
            }
            *allow &= !attacked;
        }
    }
    allowed
}

/// The image of square `(r, c)` under symmetry `g` (0..8) of the `n` x `n` square: the
/// identity, the rotations by a quarter, a half and three quarters, then the mirror images
/// left-right, upside down, and in the two diagonals.
fn square_image(g: usize, n: usize, (r, c): (usize, usize)) -> (usize, usize) {
    let m = n - 1;
    match g {
        0 => (r, c),
        1 => (c, m - r),
        2 => (m - r, m - c),
        3 => (m - c, r),
        4 => (r, m - c),
        5 => (m - r, c),
        6 => (c, r),
        _ => (m - c, m - r),
    }
}

/// The symmetries ([`square_image`]) whose images the search may run on: the board, upside
/// down, and the two transposes (rows read as columns, from the left and from the right).
/// The other four symmetries of the square mirror these left to right, which leaves the size
/// of a top-down search unchanged.
const ORIENTATIONS: [usize; 4] = [0, 5, 6, 3];

/// Random paths of [`estimate_nodes`] per orientation.
const ESTIMATE_PATHS: u32 = 64;

/// The image of `placed` under the orientation whose search is the smallest by
/// [`estimate_nodes`] (the first on ties; `placed` itself when empty), and that estimate
/// (for [`search`], which needs it too). A symmetry of the
/// square maps the placements that extend a prefix one to one onto those that extend its
/// image, so every image has as many completions; their search trees differ (on the border
/// units of [`units`], n = 12 to 14, the smallest of the four has 1.7 times fewer nodes
/// than the image as given, and the estimate finds one within a few per cent of it).
fn oriented(n: usize, placed: &[(usize, usize)]) -> (Vec<(usize, usize)>, f64) {
    if placed.is_empty() {
        return (Vec::new(), estimate_nodes(&row_masks(n, &[])));
    }
    let mut best = (f64::INFINITY, placed.to_vec());
    for g in ORIENTATIONS {
        let image: Vec<(usize, usize)> = placed.iter().map(|&q| square_image(g, n, q)).collect();
        let nodes = estimate_nodes(&row_masks(n, &image));
        if nodes < best.0 {
            best = (nodes, image);
        }
    }
    (best.1, best.0)
}

/// Knuth's estimate (1975) of the nodes of the top-down search over the row masks `allowed`
/// (rows but the last): the mean over [`ESTIMATE_PATHS`] random paths of the sum, over the
/// rows a path reaches, of the product of the open squares of the rows above and at it.
/// The same pseudo-random numbers for every call, so the estimate is a function of
/// `allowed` and two orientations are compared on the same paths.
fn estimate_nodes(allowed: &[u32]) -> f64 {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut total = 0.0;
    for _ in 0..ESTIMATE_PATHS {
        let (mut cols, mut left, mut right) = (0u32, 0u32, 0u32);
        let mut width = 1.0;
        for &a in &allowed[..allowed.len() - 1] {
            let free = a & !(cols | left | right);
            let k = free.count_ones();
            if k == 0 {
                break;
            }
            width *= f64::from(k);
            total += width;
            // xorshift64
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut pick = free;
            for _ in 0..((x >> 32) * u64::from(k)) >> 32 {
                pick &= pick - 1;
            }
            let bit = pick & pick.wrapping_neg();
            cols |= bit;
            left = (left | bit) << 1;
            right = (right | bit) >> 1;
        }
    }
    total / f64::from(ESTIMATE_PATHS)
}

/// The search of [`count_queens`] over the per-row masks `allowed` (one row per entry, at
/// least one) whose [`estimate_nodes`] is `estimate`: `(solutions, nodes)`, `None` when
/// `stop` was set. On 32 or 64 subtrees at once in AVX-512 lanes ([`lanes`])
/// where the CPU has them and the board is in its range of sizes and large enough, else one
/// square at a time ([`search_scalar`]); both count the same. The lanes count in `u64`:
/// they take boards of at most 24 rows, whose placements are at most Q(24) =
/// 227,514,171,973,736 < 2^48 (OEIS A000170); the scalar search sums in `u128`.
fn search(allowed: &[u32], estimate: f64, stop: &AtomicBool) -> Option<(u128, u64)> {
    #[cfg(target_arch = "x86_64")]
    if lanes::ROWS.contains(&allowed.len()) && lanes::available() && estimate >= LANES_FROM_NODES {
        return lanes::search(allowed, stop).map(|(s, n)| (u128::from(s), n));
    }
    search_scalar(allowed, stop)
}

/// Estimated nodes ([`estimate_nodes`]) from which [`search`] runs the lanes: on smaller
/// boards their setup (the breadth-first rows, the queue) costs more than they save. On the
/// border units of 13, 14, 15 and 16 queens (`cargo bench -p cores --bench queens`) the
/// lanes ran at 0.39x, 0.57x, 1.20x and 2.34x the scalar search without this bound, 1.00x,
/// 1.01x, 1.29x and 2.29x with it (50,000: 0.84x, 0.88x, 1.00x, 1.81x, with the estimate
/// then computed twice); units of 18 to 21 queens all go to the lanes either way.
const LANES_FROM_NODES: f64 = 10_000.0;

/// The search of [`count_queens`] one square at a time (see [`search`]). Compiled twice:
/// with the population count and lowest-bit instructions where the CPU has them (checked at
/// run time), else for the baseline x86-64 CPU the workspace builds for (where `count_ones`
/// is a dozen instructions).
fn search_scalar(allowed: &[u32], stop: &AtomicBool) -> Option<(u128, u64)> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") && std::is_x86_feature_detected!("bmi1") {
        // SAFETY: the CPU has both features (checked just above).
        return unsafe { search_popcnt(allowed, stop) };
    }
    search_rows(allowed, stop, 0)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1")]
fn search_popcnt(allowed: &[u32], stop: &AtomicBool) -> Option<(u128, u64)> {
    search_rows(allowed, stop, 0)
}

/// One row of the search: the squares of the row still to try, and the columns and
/// diagonals the queens above it hold (`left`: squares of this row attacked along down-left
/// diagonals, `right` down-right).
#[derive(Clone, Copy, Default)]
struct Frame {
    rest: u32,
    cols: u32,
    left: u32,
    right: u32,
}

/// The last rows of the board, searched by nested loops (one per row, each with its own
/// branches for the CPU to predict) rather than the stack of the rows above. (16 measured
/// no faster.)
const TAIL: usize = 12;

/// Placements counted per candidate of the last but one row `free` (the squares of row
/// n-2 open after the rows above), without placing: with `base` the squares of the last
/// row open after the rows above row n-2, a queen on square b of row n-2 leaves
/// `base \ {b-1, b, b+1}` open in the last row, so the sum over b in `free` is
/// `|free| |base| - |free & base| - |free << 1 & base| - |free >> 1 & base|` (a square
/// b+1 or b-1 off the board is in no row's mask).
#[inline(always)]
fn last_two_rows(free: u32, base: u32) -> u64 {
    let pairs = u64::from(free.count_ones()) * u64::from(base.count_ones());
    pairs
        - u64::from((free & base).count_ones())
        - u64::from(((free << 1) & base).count_ones())
        - u64::from(((free >> 1) & base).count_ones())
}

/// The last row: its open squares `free`. `tail` holds the masks of the board's last
/// [`TAIL`] rows (see [`search_rows`]); each `rows_k` adds to `count` the completions of the
/// last k rows from the open squares of the first of them and the masks the queens above
/// hold there.
#[inline(always)]
fn rows_1(_tail: &[u32; TAIL], free: u32, _cols: u32, _left: u32, _right: u32, count: &mut Count) {
    count.solutions += u64::from(free.count_ones());
}

/// The last two rows, summed by [`last_two_rows`] (row n-2's squares are nodes, though not
/// placed).
#[inline(always)]
fn rows_2(tail: &[u32; TAIL], free: u32, cols: u32, left: u32, right: u32, count: &mut Count) {
    let base = tail[TAIL - 1] & !(cols | left << 1 | right >> 1);
    count.solutions += last_two_rows(free, base);
    count.nodes += u64::from(free.count_ones());
}

/// `rows_k` for k >= 3: each open square of row n-k, then `rows_(k-1)` below it unless the
/// queen leaves row n-k+1, n-2, n-3 or n-4 (those below n-k+1) without an open square. The
/// checks of rows n-2 to n-4 cut the border units' nodes by about a quarter and their time
/// by a few per cent (the last row too measured slower).
macro_rules! tail_rows {
    ($($k:literal: $name:ident => $below:ident),* $(,)?) => {$(
        #[inline(always)]
        fn $name(
            tail: &[u32; TAIL],
            free: u32,
            cols: u32,
            left: u32,
            right: u32,
            count: &mut Count,
        ) {
            count.nodes += u64::from(free.count_ones());
            let mut rest = free;
            while rest != 0 {
                let bit = rest & rest.wrapping_neg();
                rest ^= bit;
                let (c, l, r) = (cols | bit, (left | bit) << 1, (right | bit) >> 1);
                let f = tail[TAIL + 1 - $k] & !(c | l | r);
                // Row n-j is k-j-1 rows below row n-k+1; `&` rather than `&&`: one branch.
                let open = |j: u32| {
                    let d = ($k as u32).saturating_sub(j + 1);
                    $k < j + 2 || tail[TAIL - j as usize] & !(c | l << d | r >> d) != 0
                };
                if (f != 0) & open(2) & open(3) & open(4) {
                    $below(tail, f, c, l, r, count);
                }
            }
        }
    )*};
}

tail_rows!(
    3: rows_3 => rows_2,
    4: rows_4 => rows_3,
    5: rows_5 => rows_4,
    6: rows_6 => rows_5,
    7: rows_7 => rows_6,
    8: rows_8 => rows_7,
    9: rows_9 => rows_8,
    10: rows_10 => rows_9,
    11: rows_11 => rows_10,
    12: rows_12 => rows_11,
);

/// What the search counted so far: `solutions` of the nested rows since the stack last took
/// them ([`search_rows`] adds them into its `u128` total after each entry into the last
/// [`TAIL`] rows), `nodes` in all.
///
/// `solutions` cannot overflow: one entry counts placements of at most [`TAIL`] queens in
/// distinct columns of at most [`MAX_N`], at most 32!/20! < 2^57 of them. `nodes` is a `u64`
/// for the whole search: 2^64 squares tried would be centuries of search at this core's rate
/// (about 10^9 a second).
#[derive(Default)]
struct Count {
    solutions: u64,
    nodes: u64,
}

/// The bitboard backtrack: the rows above the last [`TAIL`] by an explicit stack of
/// [`Frame`]s, the last [`TAIL`] by nested loops (`rows_k`), the last two of those summed
/// without placing. `nodes` counts every square tried in every row but the last. The stop
/// flag is read before the search starts and whenever it enters a row above the last
/// [`TAIL`]: a few reads per million nodes on large boards, each subtree below such a row
/// small enough (milliseconds) to end quickly.
///
/// Solutions are summed in `u128` from `start` (0, but for a test that starts near 2^64):
/// each entry into the last [`TAIL`] rows counts in a `u64` ([`Count`] says why that is
/// enough), which is then added to the total. Q(n) passes 2^64 from about n = 29 (Q(27) =
/// 234,907,967,154,122,528, OEIS A000170, and Q grows about tenfold per n), below
/// [`MAX_N`].
#[inline(always)]
fn search_rows(allowed: &[u32], stop: &AtomicBool, start: u128) -> Option<(u128, u64)> {
    let n = allowed.len();
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut tail = [0u32; TAIL];
    let k = n.min(TAIL);
    tail[TAIL - k..].copy_from_slice(&allowed[n - k..]);
    let first = allowed[0];
    let mut count = Count::default();
    match n {
        1 => rows_1(&tail, first, 0, 0, 0, &mut count),
        2 => rows_2(&tail, first, 0, 0, 0, &mut count),
        3 => rows_3(&tail, first, 0, 0, 0, &mut count),
        4 => rows_4(&tail, first, 0, 0, 0, &mut count),
        5 => rows_5(&tail, first, 0, 0, 0, &mut count),
        6 => rows_6(&tail, first, 0, 0, 0, &mut count),
        7 => rows_7(&tail, first, 0, 0, 0, &mut count),
        8 => rows_8(&tail, first, 0, 0, 0, &mut count),
        9 => rows_9(&tail, first, 0, 0, 0, &mut count),
        10 => rows_10(&tail, first, 0, 0, 0, &mut count),
        11 => rows_11(&tail, first, 0, 0, 0, &mut count),
        12 => rows_12(&tail, first, 0, 0, 0, &mut count),
        _ => {}
    }
    if n <= TAIL {
        return Some((start + u128::from(count.solutions), count.nodes));
    }
    let mut solutions = start;
    let into_tail = n - TAIL;
    let mut stack = [Frame::default(); MAX_N];
    stack[0].rest = first;
    count.nodes += u64::from(first.count_ones());
    let mut row = 0;
    loop {
        let f = stack[row];
        if f.rest == 0 {
            if row == 0 {
                break;
            }
            row -= 1;
            continue;
        }
        let bit = f.rest & f.rest.wrapping_neg();
        stack[row].rest = f.rest ^ bit;
        let cols = f.cols | bit;
        let left = (f.left | bit) << 1;
        let right = (f.right | bit) >> 1;
        let next = row + 1;
        let free = allowed[next] & !(cols | left | right);
        if free == 0 {
            continue;
        }
        if next == into_tail {
            rows_12(&tail, free, cols, left, right, &mut count);
            solutions += u128::from(std::mem::take(&mut count.solutions));
            continue;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        count.nodes += u64::from(free.count_ones());
        row = next;
        stack[row] = Frame {
            rest: free,
            cols,
            left,
            right,
        };
    }
    Some((solutions, count.nodes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queens core's count of `prefix` (also used by `units`' tests).
    pub(super) fn count(n: usize, prefix: &[OptionId]) -> u128 {
        count_queens(n, prefix, &AtomicBool::new(false))
            .unwrap()
            .unwrap()
            .solutions
    }

    /// The Dancing Links engine's count of `prefix` on the queens problem.
    pub(super) fn dlx(n: usize, prefix: &[OptionId]) -> u128 {
        let q = crate::problems::queens::Queens::build(n).unwrap();
        let mut dlx = crate::xcc::Dlx::new(&q.problem);
        dlx.apply_prefix(prefix).unwrap();
        dlx.count()
    }

    #[test]
    fn whole_boards_give_oeis_a000170() {
        // OEIS A000170: 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596 (the
        // last two above the nested rows: the stack reaches the tail).
        let want = [
            1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596,
        ];
        for (i, &w) in want.iter().enumerate() {
            assert_eq!(count(i + 1, &[]), w, "n = {}", i + 1);
        }
    }

    #[test]
    fn the_scalar_search_counts_past_2_pow_64() {
        // Q(n) passes 2^64 from about n = 29 (Q(27) = 234,907,967,154,122,528, OEIS A000170),
        // boards this core takes (MAX_N = 32) but no test can count: the search starts its
        // total just below 2^64 instead and must carry Q(12) = 14,200 (the nested rows
        // alone) and Q(14) = 365,596 (the stack above them) past it.
        let stop = AtomicBool::new(false);
        let start = u128::from(u64::MAX) - 1_000;
        for (n, q) in [(12, 14_200), (14, 365_596)] {
            let (solutions, _) = search_rows(&row_masks(n, &[]), &stop, start).unwrap();
            assert_eq!(solutions, start + q, "n {n}");
            assert!(solutions > u128::from(u64::MAX), "n {n}");
        }
    }

    #[test]
    fn the_last_two_rows_sum_as_placed_one_by_one() {
        // Masks from a fixed pseudo-random sequence, bit 31 and bit 0 included.
        let mut x: u64 = 12345;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (free, base) = (x as u32, (x >> 32) as u32);
            let mut want = 0;
            let mut rest = free;
            while rest != 0 {
                let b = rest & rest.wrapping_neg();
                rest ^= b;
                want += u64::from((base & !(b | b << 1 | b >> 1)).count_ones());
            }
            assert_eq!(last_two_rows(free, base), want, "{free:#x} {base:#x}");
        }
    }

    #[test]
    fn every_orientation_of_a_prefix_counts_as_the_engine_does() {
        // Prefixes of one to three queens in any rows, boards on both sides of the nested
        // rows (n = 13 and 14 use the stack above them); each searched in every orientation.
        for n in [6, 9, 12, 13, 14] {
            let m = n - 1;
            let prefixes: Vec<Vec<(usize, usize)>> = vec![
                vec![(0, 1)],
                vec![(m, 2), (1, 0)],
                vec![(2, m), (m, 3), (0, 1)],
                vec![(n / 2, 0), (n / 2 + 2, 1)],
            ];
            for p in prefixes {
                let options: Vec<OptionId> =
                    p.iter().map(|&(r, c)| (r * n + c) as OptionId).collect();
                let want = dlx(n, &options);
                assert_eq!(count(n, &options), want, "n {n}, {p:?}");
                for g in ORIENTATIONS {
                    let image: Vec<(usize, usize)> =
                        p.iter().map(|&q| square_image(g, n, q)).collect();
                    let stop = AtomicBool::new(false);
                    let allowed = row_masks(n, &image);
                    let (got, _) = search(&allowed, estimate_nodes(&allowed), &stop).unwrap();
                    assert_eq!(got, want, "n {n}, {p:?}, orientation {g}");
                }
            }
        }
    }

    /// A board of `n` rows with about half its rows' queens placed at pseudo-random
    /// (non-attacking) squares, and about one square in four of the others shut, from `x`:
    /// masks with bits 0 and n-1 open and shut, and a search small enough for a test.
    fn random_rows(n: usize, x: &mut u64) -> Vec<u32> {
        let mut draw = || {
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            *x
        };
        let mut placed: Vec<(usize, usize)> = Vec::new();
        while placed.len() < n / 2 {
            let (r, c) = (draw() as usize % n, draw() as usize % n);
            let attacks = |&(pr, pc): &(usize, usize)| {
                pr == r || pc == c || pr + pc == r + c || pr + c == r + pc
            };
            if !placed.iter().any(attacks) {
                placed.push((r, c));
            }
        }
        row_masks(n, &placed)
            .into_iter()
            .map(|m| {
                if m.count_ones() == 1 {
                    m
                } else {
                    m & (draw() | draw()) as u32
                }
            })
            .collect()
    }

    #[test]
    fn the_lanes_count_as_the_scalar_search_does() {
        #[cfg(target_arch = "x86_64")]
        {
            use super::lanes;
            if !lanes::available() {
                eprintln!("this CPU has no AVX-512 F/CD/VPOPCNTDQ: the lanes are not tested");
                return;
            }
            let stop = AtomicBool::new(false);
            // Both widths of lanes: `search` runs the 16-bit lanes on boards they fit (where
            // the CPU has them), `search_wide` always the 32-bit ones.
            let narrow = lanes::narrow_available();
            if !narrow {
                eprintln!("this CPU has no AVX-512 BW/BITALG: the 16-bit lanes are not tested");
            }
            let both = |allowed: &[u32], what: &str| {
                let want = search_scalar(allowed, &stop).unwrap();
                let got = lanes::search(allowed, &stop).unwrap();
                assert_eq!(u128::from(got.0), want.0, "solutions, {what}");
                let wide = lanes::search_wide(allowed, &stop).unwrap();
                assert_eq!(
                    u128::from(wide.0),
                    want.0,
                    "solutions in 32-bit lanes, {what}"
                );
                if narrow && allowed.len() <= 16 {
                    // The two widths step the same tree.
                    assert_eq!(got.1, wide.1, "nodes, {what}");
                }
                got
            };
            // Whole boards: A000170 (n = 8 .. 14) by both searches.
            for n in 8..=14 {
                both(&row_masks(n, &[]), &format!("{n} queens"));
            }
            // Every border unit of n = 10 to 12 in every orientation, and a sample of 13's
            // (rows with a single open square, rows with none).
            for n in 10..=13 {
                let units = super::units::border_units(n).unwrap().units;
                let step = if n == 13 { 7 } else { 1 };
                for u in units.iter().step_by(step) {
                    let placed: Vec<(usize, usize)> = u
                        .prefix
                        .iter()
                        .map(|&o| (o as usize / n, o as usize % n))
                        .collect();
                    for g in ORIENTATIONS {
                        let image: Vec<(usize, usize)> =
                            placed.iter().map(|&q| square_image(g, n, q)).collect();
                        both(&row_masks(n, &image), &format!("n {n}, {image:?}"));
                    }
                }
            }
            // Random boards up to the largest the lanes take (deep stacks, diagonal bits
            // shifted off both ends of the word).
            let mut x = 0x2545_f491_4f6c_dd1d;
            for n in lanes::ROWS {
                for _ in 0..20 {
                    let rows = random_rows(n, &mut x);
                    both(&rows, &format!("{rows:x?}"));
                }
            }
        }
    }

    #[test]
    fn the_orientation_is_chosen_by_the_estimate() {
        // Queens at the bottom of the board: searched upside down (the constrained rows
        // first), or transposed, never as given.
        let n = 12;
        let placed = [(11, 0), (10, 2), (9, 4)];
        let (image, estimate) = oriented(n, &placed);
        assert_ne!(image, placed.to_vec());
        let est = |p: &[(usize, usize)]| estimate_nodes(&row_masks(n, p));
        assert!(est(&image) < est(&placed), "{image:?}");
        assert_eq!(estimate, est(&image), "the image's own estimate");
        assert_eq!(est(&placed), est(&placed), "deterministic");
        assert!(oriented(n, &[]).0.is_empty());
    }

    #[test]
    fn bad_prefixes_are_refused() {
        let stop = AtomicBool::new(false);
        assert_eq!(
            count_queens(33, &[], &stop).unwrap_err(),
            QueensError::Size { n: 33 }
        );
        assert_eq!(
            count_queens(4, &[16], &stop).unwrap_err(),
            QueensError::Option { option: 16, n: 4 }
        );
        // r1c1 and r2c2 share a diagonal.
        let e = count_queens(4, &[0, 5], &stop).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the queens on r1c1 and r2c2 attack each other"
        );
    }

    #[test]
    fn a_set_stop_flag_ends_the_count_without_a_result() {
        let stop = AtomicBool::new(true);
        assert_eq!(count_queens(14, &[], &stop).unwrap(), None);
    }
}
