//! PS-1-2 done bit-parallel for plain 9x9 puzzles, with triad reasoning and triad branching:
//! the fast path of `Solver::Ps12`.
//!
//! The domains are kept transposed, as the seed's `reduce` step transposes them (seed 000,
//! "Combinatorial explorations in Su-Doku", section 1.2, "Data representation"): for each
//! digit and each band of three rows, a 27-bit word of the cells that may still hold it
//! (bit `9 * (row % 3) + column`, word `f[9 * band + digit]`: a band's nine words side by
//! side, so a placement's clear of a cell for the other digits is one pass over nine
//! adjacent words, two SSE2 operations and a movemask on x86_64 (`band_clear`, the portable
//! loop kept and tested against it)). The rules, as word operations:
//! - hidden singles in rows: a row of a word with one bit left places the digit there; the
//!   placement clears that cell for the other eight digits (propagation of the singleton);
//! - boxes: per word, the 3x3 "row r has the digit in box k" matrix must be a permutation
//!   (each row and each box of the band holds the digit once); entries in no permutation are
//!   cleared (`COMPLEX`, a 512-entry table: Régin's rule of seed 000 section 1.5 on a 3x3
//!   value graph). This yields box hidden singles, the box and in-band column part of
//!   propagation, and the box-line ("locked candidates") eliminations PS-1-2 does not make;
//! - columns across bands: a box in which the digit is left in one column claims that
//!   column, which the other two bands lose (`POINTING`);
//! - naked singles (a cell with one digit left) by bit-sliced counting over the nine digits;
//! - triads, once the rules above are quiescent (`State::triads`): each digit's
//!   bands-by-columns matrix of a stack must be a permutation too (`ALLOWED`, `FORCED`),
//!   and every minirow and minicolumn holds exactly three digits, so a triad with three
//!   candidate digits has them all (the rest of their row or column and box lose them) and
//!   a triad with three forced digits has no other. These are tdoku's triad clauses
//!   (t-dillon/tdoku, "DPLL triad" solver), here counted bit-sliced over the nine digits.
//!   They make the column hidden singles of the previous version redundant (same guess
//!   counts without them), so those are gone;
//! - search, as tdoku branches: among the three bands and three stacks, the one whose
//!   digits have the fewest permutations left in all, and in it the digit with the fewest
//!   (two or more); one child per permutation (`State::restrict`). A cell is chosen only if
//!   every digit is fixed and the grid is not placed yet. States are copied (124 bytes),
//!   never undone.
//!
//! A dirty mask of the 27 words picks the words to examine, in rounds: each round examines
//! the words dirty at its start, in band order, with no test on a word's result, so the
//! loop's course never waits on the table lookups and the examinations of a round overlap
//! in the processor. The givens propagate the same way. (Sweeps over all words, as
//! JCZSolve's "changed bands" loop makes them, were used for the givens before and are
//! slower now. Measured slower too: a test on new singles before the band's clear; an
//! order of the dirty bits alternating bands or digits; caching each word's matrix for
//! `triads` during the examinations, an extra store per examination; the clear as AVX-512
//! masked loads and stores; rows' singles and matrices by arithmetic in the examinations.)
//!
//! Guesses (branching nodes) per puzzle with the uniqueness check: 0.58 on
//! royle_17clue_49151, 8.84 on magictour_top1465, 109.7 on forum_hardest_1106_375 (tdoku:
//! 0.59, 8.94, 110.4; this kernel before the triads: 1.16, 19.9, 290.6). Measured with
//! `cargo bench -p cores --bench sudoku -- --quick` (one thread, puzzles/s, count up to two,
//! tdoku through `TDOKU_BENCH`; mean passes over about 1.5 s, as tdoku's program averages)
//! in one run on the idle 2-core Zen 4 VM: 17-clue 513k (the `sudoku` crate 416k, tdoku
//! 287k), top1465 134k (crate 88k, tdoku 105k), forum hardest 12.8k (crate 7.3k, tdoku
//! 12.0k; three more runs of that file: 13.8k, 12.6k, 14.0k against tdoku's 12.1k). Figures
//! vary by a tenth or more between runs on this VM; compare ratios of one run.
//!
//! Invariant: a cleared bit is a value no solution extending the current branch can use,
//! and a cell is marked placed only after every peer lost its digit, so a state whose 81
//! cells are all placed is a valid grid. Sources of the ideas: seed 000 / "Combinatorial
//! explorations in Su-Doku" (PS-1-2, the transposed domains, Régin's rule); JCZSolve and its
//! port, the `sudoku` crate (digit-band words, the triad table);
//! tdoku (triad clauses, branching on band configurations). The code is written from the
//! rules above, not taken from either program.

use super::SolveError;

const ROW: u32 = 0x1FF;
const BAND: u32 = 0x7FF_FFFF;
/// Bit `c` of a 9-bit column set copied to the three rows of a band.
const COLUMN_SPREAD: u32 = 1 | 1 << 9 | 1 << 18;

/// For a 9-bit row, the boxes (3 bits) in which it has a candidate.
const SHRINK: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut v = 0;
    while v < 512 {
        t[v] = (v & 7 != 0) as u32 | ((v >> 3 & 7 != 0) as u32) << 1 | ((v >> 6 != 0) as u32) << 2;
        v += 1;
    }
    t
};

/// For a 3x3 occupancy matrix (bit `3 * row + box`), the 27-bit mask of the triads that lie
/// on some permutation of the matrix; 0 when there is none.
const COMPLEX: [u32; 512] = {
    const PERMS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut t = [0u32; 512];
    let mut s = 0;
    while s < 512 {
        let mut mask = 0u32;
        let mut p = 0;
        while p < 6 {
            let perm = PERMS[p];
            let mut ok = true;
            let mut r = 0;
            while r < 3 {
                if s >> (3 * r + perm[r]) & 1 == 0 {
                    ok = false;
                }
                r += 1;
            }
            if ok {
                let mut r = 0;
                while r < 3 {
                    mask |= 7 << (9 * r + 3 * perm[r]);
                    r += 1;
                }
            }
            p += 1;
        }
        t[s] = mask;
        s += 1;
    }
    t
};

/// For the 9-bit columns of a band where a digit may be, the columns that are alone in
/// their box.
const POINTING: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut v = 0;
    while v < 512 {
        let mut k = 0;
        while k < 3 {
            let g = (v >> (3 * k)) & 7;
            if g == 1 || g == 2 || g == 4 {
                t[v] |= (g as u32) << (3 * k);
            }
            k += 1;
        }
        v += 1;
    }
    t
};

/// For a 3x3 occupancy matrix (bit `3 * row + box`), the entries (same bits) that lie on
/// some permutation of the matrix (`ALLOWED`) and on every one (`FORCED`); 0 when there is
/// none.
const PERMS3: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

const fn perm_table(forced: bool) -> [u16; 512] {
    let mut t = [0u16; 512];
    let mut s = 0;
    while s < 512 {
        let mut any = 0u16;
        let mut all = 0x1FFu16;
        let mut found = false;
        let mut p = 0;
        while p < 6 {
            let perm = PERMS3[p];
            let mut m = 0u16;
            let mut r = 0;
            while r < 3 {
                m |= 1 << (3 * r + perm[r]);
                r += 1;
            }
            if s as u16 & m == m {
                any |= m;
                all &= m;
                found = true;
            }
            p += 1;
        }
        t[s] = if !found {
            0
        } else if forced {
            all
        } else {
            any
        };
        s += 1;
    }
    t
}

const ALLOWED: [u16; 512] = perm_table(false);
const PERM_MASKS: [u16; 6] = {
    let mut t = [0u16; 6];
    let mut p = 0;
    while p < 6 {
        let mut r = 0;
        while r < 3 {
            t[p] |= 1 << (3 * r + PERMS3[p][r]);
            r += 1;
        }
        p += 1;
    }
    t
};
const PERM_COUNT: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut s = 0;
    while s < 512 {
        let mut p = 0;
        while p < 6 {
            if PERM_MASKS[p] & !(s as u16) == 0 {
                t[s] += 1;
            }
            p += 1;
        }
        s += 1;
    }
    t
};
const FORCED: [u16; 512] = perm_table(true);

/// For a set of entries of a 3x3 matrix (bit `3 * row + box`) known to be in the
/// permutation, the entries this excludes: the rest of their rows and boxes.
const EXCLUDED: [u16; 512] = {
    let mut t = [0u16; 512];
    let mut s = 0;
    while s < 512 {
        let mut m = 0u16;
        let mut e = 0;
        while e < 9 {
            if s >> e & 1 != 0 {
                let (r, k) = (e / 3, e % 3);
                m |= (7 << (3 * r) | 0o111 << k) & !(1 << e);
            }
            e += 1;
        }
        t[s] = m;
        s += 1;
    }
    t
};

/// For a set of triads of a band (bit `3 * row + box`), their cells (27-bit band word).
const TRIAD_CELLS: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut s = 0;
    while s < 512 {
        let mut m = 0u32;
        let mut e = 0;
        while e < 9 {
            if s >> e & 1 != 0 {
                m |= 7 << (9 * (e / 3) + 3 * (e % 3));
            }
            e += 1;
        }
        t[s] = m;
        s += 1;
    }
    t
};

/// The three 3-bit groups of a 9-bit column set moved to bits 0, 9, 18.
const STACK_SPREAD: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut v = 0;
    while v < 512 {
        t[v] = (v & 7 | (v & 0o70) << 6 | (v & 0o700) << 12) as u32;
        v += 1;
    }
    t
};

/// A 9-bit row if it has one bit, else 0.
const SINGLE: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut v = 1;
    while v < 512 {
        if v & (v - 1) == 0 {
            t[v] = v as u32;
        }
        v += 1;
    }
    t
};

/// The index of the word of digit `d` in band `b`: a band's nine words lie side by side.
#[inline(always)]
const fn w(d: usize, b: usize) -> usize {
    9 * b + d
}

/// Whether [`band_clear`] takes its SSE2 form: always on x86_64, whose targets include
/// SSE2 (so the test is decided when compiling).
#[inline(always)]
fn simd_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("sse2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The nine words of a band lose the cells `new`; returns the words that lost one (bit
/// per digit). `SIMD`: with SSE2 (only if [`simd_available`]), two 4-word operations and
/// a movemask instead of nine tests and shifts.
#[inline(always)]
fn band_clear<const SIMD: bool>(band: &mut [u32; 9], new: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if SIMD {
        use std::arch::x86_64::*;
        let (lo, hi) = band.split_at_mut(4);
        // SAFETY: SSE2 is part of every x86_64 target (and `SIMD` is set only when
        // `simd_available` says so); `lo` has 4 words and `hi` at least 4, so each 16-byte
        // unaligned load and store stays within them.
        let kept = unsafe {
            let n = _mm_set1_epi32(new as i32);
            let a = _mm_loadu_si128(lo.as_ptr().cast());
            let b = _mm_loadu_si128(hi.as_ptr().cast());
            _mm_storeu_si128(lo.as_mut_ptr().cast(), _mm_andnot_si128(n, a));
            _mm_storeu_si128(hi.as_mut_ptr().cast(), _mm_andnot_si128(n, b));
            let z = _mm_setzero_si128();
            let kept_a = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(a, n), z));
            let kept_b = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(b, n), z));
            _mm_movemask_ps(kept_a) as u32 | (_mm_movemask_ps(kept_b) as u32) << 4
        };
        let last = band[8];
        band[8] = last & !new;
        return (!kept & 0xFF) | u32::from(last & new != 0) << 8;
    }
    let mut changed = 0;
    for (e, x) in band.iter_mut().enumerate() {
        let old = *x;
        *x = old & !new;
        changed |= u32::from(old & new != 0) << e;
    }
    changed
}

/// For a band word, its rows-by-boxes matrix (bit `3 * row + box`: the row has the digit
/// in the box), as `SHRINK` gives it row by row, by two multiplications: one gathers each
/// row's three box bits (spaced by 3) side by side, the other the three rows (no two
/// partial products overlap, so nothing carries). The second product runs past bit 31; the
/// bits kept (12 to 20) do not depend on those lost, so the products wrap.
#[inline(always)]
fn triads_of(v: u32) -> u32 {
    const BOX_LOW: u32 = 0o111_111_111;
    let t = (v | v >> 1 | v >> 2) & BOX_LOW;
    let rows = (t.wrapping_mul(0b10101) >> 4) & (7 | 7 << 9 | 7 << 18);
    rows.wrapping_mul(1 | 1 << 6 | 1 << 12) >> 12 & 0x1FF
}

/// For each cell, its peers (same row, column or box; not the cell) in each band.
const PEERS: [[u32; 3]; 81] = {
    let mut t = [[0u32; 3]; 81];
    let mut cell = 0;
    while cell < 81 {
        let (r, c) = (cell / 9, cell % 9);
        let mut other = 0;
        while other < 81 {
            let (r2, c2) = (other / 9, other % 9);
            let peer = r == r2 || c == c2 || (r / 3 == r2 / 3 && c / 3 == c2 / 3);
            if peer && other != cell {
                t[cell][other / 27] |= 1 << (other % 27);
            }
            other += 1;
        }
        cell += 1;
    }
    t
};

/// Each digit's 3x3 matrices (bit `3 * row + box`): `h[3 * digit + band]` rows by boxes
/// of a band, `v[3 * digit + stack]` bands by columns of a stack.
#[derive(Default)]
struct Matrices {
    h: [u16; 27],
    v: [u16; 27],
}

#[derive(Clone, Copy)]
struct State {
    /// `f[w(digit, band)]`: cells of the band that may hold the digit.
    f: [u32; 27],
    /// Cells of each band not yet placed.
    unsolved: [u32; 3],
    /// Words changed since they were last examined.
    dirty: u32,
}

impl State {
    fn new() -> State {
        State {
            f: [BAND; 27],
            unsolved: [BAND; 3],
            dirty: 0,
        }
    }

    #[inline]
    fn clear(&mut self, i: usize, mask: u32) {
        let old = self.f[i];
        let new = old & !mask;
        self.f[i] = new;
        self.dirty |= u32::from(new != old) << i;
    }

    /// Places digit `d` (0-based) in `cell` at once: its peers lose `d`, the cell loses the
    /// other digits, and the cell is marked placed. False if `d` was no longer possible.
    #[inline]
    fn place(&mut self, d: usize, cell: usize) -> bool {
        let (b, bit) = (cell / 27, 1 << (cell % 27));
        if self.f[w(d, b)] & bit == 0 {
            return false;
        }
        for (k, &peers) in PEERS[cell].iter().enumerate() {
            self.clear(w(d, k), peers);
        }
        for e in 0..9 {
            if e != d {
                self.clear(w(e, b), bit);
            }
        }
        self.unsolved[b] &= !bit;
        true
    }

    /// Places every given at once (as [`State::place`] does one by one): each digit loses
    /// the peers of its givens, each given cell the other digits. False on two givens that
    /// clash or a value above 9. Every word is then dirty.
    fn place_givens(&mut self, givens: &[u8; 81]) -> bool {
        if givens.iter().any(|&v| v > 9) {
            return false;
        }
        let mut peers = [[0u32; 3]; 9];
        let mut at = [[0u32; 3]; 9];
        let mut given = [0u32; 3];
        // The given cells of each band as a mask first (no branch per cell), then a loop
        // over the givens only.
        for (b, (mask, cells)) in given.iter_mut().zip(givens.chunks_exact(27)).enumerate() {
            *mask = cells
                .iter()
                .enumerate()
                .fold(0, |m, (k, &v)| m | u32::from(v != 0) << k);
            let mut left = *mask;
            while left != 0 {
                let k = left.trailing_zeros() as usize;
                left &= left - 1;
                let cell = 27 * b + k;
                let d = usize::from(cells[k]) - 1;
                for (o, p) in PEERS[cell].iter().enumerate() {
                    peers[d][o] |= p;
                }
                at[d][b] |= 1 << k;
            }
        }
        for (b, &given) in given.iter().enumerate() {
            for d in 0..9 {
                if at[d][b] & peers[d][b] != 0 {
                    return false;
                }
                self.f[w(d, b)] = BAND & !peers[d][b] & (!given | at[d][b]);
            }
            self.unsolved[b] = BAND & !given;
        }
        self.dirty = (1 << 27) - 1;
        true
    }

    /// Examines dirty words until none is left; false on a contradiction.
    ///
    /// The words are taken in rounds: a round examines the words dirty at its start, so
    /// the loop's course does not wait on the words' values and the examinations of one
    /// round can overlap. A word made dirty in a round is examined later in that round if
    /// it comes later, else in the next one.
    #[inline(always)]
    fn settle<const SIMD: bool>(&mut self) -> bool {
        let mut dirty = self.dirty;
        while dirty != 0 {
            let mut todo = dirty;
            while todo != 0 {
                let i = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                dirty &= !(1 << i);
                let b = i / 9;
                let mut v = self.f[i];
                let shrink = SHRINK[(v & ROW) as usize]
                    | SHRINK[(v >> 9 & ROW) as usize] << 3
                    | SHRINK[(v >> 18) as usize] << 6;
                v &= COMPLEX[shrink as usize];
                if v == 0 {
                    self.dirty = 0;
                    return false;
                }
                // Every row is non-empty now; a row with one bit places the digit. After
                // the triad table, that cell's box is already closed to the other rows.
                let single = SINGLE[(v & ROW) as usize]
                    | SINGLE[(v >> 9 & ROW) as usize] << 9
                    | SINGLE[(v >> 18) as usize] << 18;
                let new = single & self.unsolved[b];
                self.unsolved[b] &= !new;
                // Every digit of the band loses the cells, then this word gets them back.
                let band: &mut [u32; 9] = (&mut self.f[9 * b..9 * b + 9]).try_into().unwrap();
                let changed = band_clear::<SIMD>(band, new);
                self.f[i] = v;
                dirty |= (changed << (9 * b)) & !(1 << i);
                // A box of this band where the digit is left in one column claims that
                // column: the other bands lose it (this also clears the column of a placed
                // cell).
                let spread = POINTING[((v | v >> 9 | v >> 18) & ROW) as usize] * COLUMN_SPREAD;
                // The same digit's words in the other two bands.
                let j1 = if i >= 18 { i - 18 } else { i + 9 };
                let j2 = if i >= 9 { i - 9 } else { i + 18 };
                for j in [j1, j2] {
                    let old = self.f[j];
                    self.f[j] = old & !spread;
                    dirty |= u32::from(old & spread != 0) << j;
                }
            }
        }
        self.dirty = 0;
        true
    }

    /// Places every naked single; `Some(true)` if any, `None` on an empty cell.
    fn naked_singles(&mut self) -> Option<bool> {
        let mut found = false;
        for b in 0..3 {
            let (mut one, mut two) = (0u32, 0u32);
            for d in 0..9 {
                let x = self.f[w(d, b)];
                two |= one & x;
                one |= x;
            }
            if one != BAND {
                return None;
            }
            let singles = one & !two & self.unsolved[b];
            if singles == 0 {
                continue;
            }
            found = true;
            for d in 0..9 {
                let mut m = self.f[w(d, b)] & singles;
                while m != 0 {
                    let x = m.trailing_zeros();
                    m &= m - 1;
                    // A single placed earlier in this pass may have taken the cell's digit.
                    if !self.place(d, 27 * b + x as usize) {
                        return None;
                    }
                }
            }
        }
        Some(found)
    }

    /// Triad reasoning: each digit's column-by-band matrix of a stack must be a
    /// permutation; every minirow and minicolumn (triad) holds exactly three digits, so a
    /// triad with three candidate digits has them all, and a triad with three forced digits
    /// has no other. `Some(true)` if anything was cleared, `None` on a contradiction. The
    /// digits' matrices are left in `m` (for the branching choice).
    fn triads(&mut self, m: &mut Matrices) -> Option<bool> {
        let mut cand = [0u64; 9];
        let mut forced = [0u64; 9];
        let (mut s0, mut s1, mut s2) = (0u64, 0u64, 0u64);
        let (mut f0, mut f1, mut f2) = (0u64, 0u64, 0u64);
        let mut stack_rule = 0u32;
        // Every word's rows-by-boxes matrix and columns first, in one loop the compiler
        // vectorises.
        let mut matrix = [0u32; 27];
        let mut columns = [0u32; 27];
        for ((m, c), &x) in matrix.iter_mut().zip(&mut columns).zip(&self.f) {
            *m = triads_of(x);
            *c = (x | x >> 9 | x >> 18) & ROW;
        }
        for d in 0..9 {
            let mut h = 0u64;
            let mut hf = 0u64;
            let mut v = 0u32;
            for b in 0..3 {
                let idx = (matrix[w(d, b)] & 0x1FF) as u16;
                m.h[3 * d + b] = idx;
                h |= u64::from(idx) << (9 * b);
                hf |= u64::from(FORCED[idx as usize]) << (9 * b);
                v |= STACK_SPREAD[(columns[w(d, b)] & ROW) as usize] << (3 * b);
            }
            // `v`: bit 9 * stack + 3 * band + column-in-stack, so each stack's matrix is a
            // 9-bit field (band = row of the matrix, column = box).
            let mut vf = 0u32;
            for s in 0..3 {
                let idx = (v >> (9 * s) & ROW) as u16;
                m.v[3 * d + s] = idx;
                vf |= u32::from(FORCED[idx as usize]) << (9 * s);
                stack_rule |= u32::from(ALLOWED[idx as usize] != idx) << d;
            }
            let c = h | u64::from(v) << 32;
            let f = hf | u64::from(vf) << 32;
            cand[d] = c;
            forced[d] = f;
            // Saturating bit-sliced counters: s0, s1 the count's bits, s2 "four or more".
            let k0 = s0 & c;
            s0 ^= c;
            s2 |= s1 & k0;
            s1 ^= k0;
            let k0 = f0 & f;
            f0 ^= f;
            f2 |= f1 & k0;
            f1 ^= k0;
        }
        const VALID: u64 = (BAND as u64) | (BAND as u64) << 32;
        let three = s0 & s1 & !s2;
        if !s2 & !three & VALID != 0 || f2 != 0 {
            return None;
        }
        let full = f0 & f1 & !f2;
        let mut changed = false;
        for d in 0..9 {
            let gain = cand[d] & three & !forced[d];
            let lose = cand[d] & full & !forced[d];
            if gain | lose == 0 && stack_rule >> d & 1 == 0 {
                continue;
            }
            changed = true;
            let (vg, vl) = ((gain >> 32) as u32, (lose >> 32) as u32);
            let mut allowed = 0u32;
            for s in 0..3 {
                let idx = m.v[3 * d + s];
                let fixed = FORCED[idx as usize] | (vg >> (9 * s)) as u16 & 0x1FF;
                let keep = idx & !EXCLUDED[fixed as usize] & !((vl >> (9 * s)) as u16 & 0x1FF);
                let a = ALLOWED[keep as usize];
                if a == 0 {
                    return None;
                }
                allowed |= u32::from(a) << (9 * s);
            }
            for b in 0..3 {
                let idx = m.h[3 * d + b];
                let g = (gain >> (9 * b)) as u16 & 0x1FF;
                let l = (lose >> (9 * b)) as u16 & 0x1FF;
                let fixed = FORCED[idx as usize] | g;
                let x = allowed >> (3 * b);
                let cols = x & 7 | x >> 6 & 0o70 | x >> 12 & 0o700;
                let keep = COMPLEX[(idx & !EXCLUDED[fixed as usize] & !l) as usize]
                    & (cols * COLUMN_SPREAD);
                let i = w(d, b);
                let old = self.f[i];
                let new = old & keep;
                if new == 0 {
                    return None;
                }
                self.f[i] = new;
                self.dirty |= u32::from(new != old) << i;
            }
        }
        Some(changed && self.dirty != 0)
    }

    /// Propagation to quiescence; false on a contradiction.
    fn propagate<const SIMD: bool>(&mut self, m: &mut Matrices) -> bool {
        loop {
            if !self.settle::<SIMD>() {
                return false;
            }
            match self.naked_singles() {
                None => return false,
                Some(true) => continue,
                Some(false) => {}
            }
            match self.triads(m) {
                None => return false,
                Some(true) => continue,
                Some(false) => return true,
            }
        }
    }

    fn solved(&self) -> bool {
        self.unsolved == [0; 3]
    }

    /// A triad-level branching (as tdoku branches on band configurations): among the six
    /// bands and stacks, the one whose digits have the fewest permutations left in all,
    /// and in it a digit with the fewest (two or more). `None` when every digit is fixed.
    /// `m` holds the matrices of the state (as `triads` left them).
    fn choose_triad(m: &Matrices) -> Option<(usize, bool, usize, u16)> {
        // The totals first, then the digit in the chosen band or stack only.
        let mut best = (u32::MAX, 0);
        for (k, t) in [&m.h, &m.v].into_iter().enumerate() {
            for b in 0..3 {
                let total: u32 = (0..9)
                    .map(|d| u32::from(PERM_COUNT[t[3 * d + b] as usize]))
                    .sum();
                if total > 9 && total < best.0 {
                    best = (total, 3 * k + b);
                }
            }
        }
        if best.0 == u32::MAX {
            return None;
        }
        let (vertical, b) = (best.1 >= 3, best.1 % 3);
        let t = if vertical { &m.v } else { &m.h };
        let mut digit = (u8::MAX, 0, 0u16);
        for d in 0..9 {
            let idx = t[3 * d + b];
            let n = PERM_COUNT[idx as usize];
            if n >= 2 && n < digit.0 {
                digit = (n, d, idx);
            }
        }
        Some((digit.1, vertical, b, digit.2))
    }

    /// Restricts digit `d` in band (or stack) `b` to the permutation `m` of its matrix.
    fn restrict(&mut self, d: usize, vertical: bool, b: usize, m: u16) {
        if vertical {
            for band in 0..3 {
                let j = m >> (3 * band) & 7;
                let others = (7 & !u32::from(j)) << (3 * b);
                self.clear(w(d, band), others * COLUMN_SPREAD);
            }
        } else {
            self.clear(w(d, b), !TRIAD_CELLS[m as usize]);
        }
    }

    /// The branching cell (band, bit): the first with two candidates, else the first with
    /// the fewest.
    fn choose(&self) -> (usize, u32) {
        for b in 0..3 {
            let (mut one, mut two, mut three) = (0u32, 0u32, 0u32);
            for d in 0..9 {
                let x = self.f[w(d, b)];
                three |= two & x;
                two |= one & x;
                one |= x;
            }
            let pairs = two & !three & self.unsolved[b];
            if pairs != 0 {
                return (b, pairs.trailing_zeros());
            }
        }
        let mut best = (0, 0, u32::MAX);
        for b in 0..3 {
            let mut u = self.unsolved[b];
            while u != 0 {
                let x = u.trailing_zeros();
                u &= u - 1;
                let n = (0..9).filter(|&d| self.f[w(d, b)] >> x & 1 != 0).count() as u32;
                if n < best.2 {
                    best = (b, x, n);
                }
            }
        }
        (best.0, best.1)
    }

    fn grid(&self, out: &mut [u8; 81]) {
        for d in 0..9 {
            for b in 0..3 {
                let mut x = self.f[w(d, b)];
                while x != 0 {
                    let k = x.trailing_zeros() as usize;
                    x &= x - 1;
                    out[27 * b + k] = d as u8 + 1;
                }
            }
        }
    }
}

/// What a search found: the number of solutions (up to the limit), the first solution, and
/// the number of branching nodes.
#[derive(Debug, Clone, Copy)]
pub struct Count {
    pub solutions: usize,
    pub first: [u8; 81],
    pub guesses: u64,
}

struct Searcher {
    limit: usize,
    m: Matrices,
    count: Count,
    second: Option<[u8; 81]>,
}

impl Searcher {
    /// Depth-first search below a propagated state; false once the limit is reached.
    fn search<const SIMD: bool>(&mut self, state: &mut State) -> bool {
        if state.solved() {
            let mut g = [0u8; 81];
            state.grid(&mut g);
            if self.count.solutions == 0 {
                self.count.first = g;
            } else if self.second.is_none() {
                self.second = Some(g);
            }
            self.count.solutions += 1;
            return self.count.solutions < self.limit;
        }
        self.count.guesses += 1;
        if let Some((d, vertical, b, idx)) = State::choose_triad(&self.m) {
            let mut perms = PERM_MASKS
                .iter()
                .copied()
                .filter(|&m| m & !idx == 0)
                .peekable();
            while let Some(m) = perms.next() {
                if perms.peek().is_none() {
                    // The last permutation may use the state itself.
                    state.restrict(d, vertical, b, m);
                    return !state.propagate::<SIMD>(&mut self.m) || self.search::<SIMD>(state);
                }
                let mut child = *state;
                child.restrict(d, vertical, b, m);
                if child.propagate::<SIMD>(&mut self.m) && !self.search::<SIMD>(&mut child) {
                    return false;
                }
            }
            return true;
        }
        let (b, x) = state.choose();
        let cell = 27 * b + x as usize;
        let mut digits: u32 = (0..9).fold(0, |m, d| m | (state.f[w(d, b)] >> x & 1) << d);
        while digits != 0 {
            let d = digits.trailing_zeros() as usize;
            digits &= digits - 1;
            if digits == 0 {
                // The last digit may use the state itself: nothing else needs it.
                return !(state.place(d, cell)
                    && state.propagate::<SIMD>(&mut self.m)
                    && !self.search::<SIMD>(state));
            }
            let mut child = *state;
            if child.place(d, cell)
                && child.propagate::<SIMD>(&mut self.m)
                && !self.search::<SIMD>(&mut child)
            {
                return false;
            }
        }
        true
    }
}

fn run(givens: &[u8; 81], limit: usize) -> (Count, Option<[u8; 81]>) {
    if simd_available() {
        run_with::<true>(givens, limit)
    } else {
        run_with::<false>(givens, limit)
    }
}

/// [`run`], with the SIMD form of [`band_clear`] if `SIMD` (which needs
/// [`simd_available`]).
fn run_with<const SIMD: bool>(givens: &[u8; 81], limit: usize) -> (Count, Option<[u8; 81]>) {
    assert!(!SIMD || simd_available(), "SSE2 is not available");
    let mut s = Searcher {
        limit,
        m: Matrices::default(),
        count: Count {
            solutions: 0,
            first: [0; 81],
            guesses: 0,
        },
        second: None,
    };
    let mut state = State::new();
    let ok = state.place_givens(givens);
    if limit > 0 && ok && state.propagate::<SIMD>(&mut s.m) {
        s.search::<SIMD>(&mut state);
    }
    (s.count, s.second)
}

/// Counts solutions up to `limit` (2 checks uniqueness) without allocating.
pub fn count(givens: &[u8; 81], limit: usize) -> Count {
    run(givens, limit).0
}

/// Up to `limit` (at most 2) solutions of a plain 9x9 puzzle given as 81 values, 0 = empty.
pub fn solutions(givens: &[u8], limit: usize) -> Result<Vec<Vec<u8>>, SolveError> {
    let givens: &[u8; 81] = givens.try_into().map_err(|_| SolveError::Unsupported {
        solver: "ps12 band kernel",
        what: format!("{} cells (it solves plain 9x9 grids)", givens.len()),
    })?;
    let (count, second) = run(givens, limit.min(2));
    let mut out = Vec::new();
    if count.solutions > 0 {
        out.push(count.first.to_vec());
    }
    out.extend(second.map(|g| g.to_vec()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_triad_table_keeps_permutations_only() {
        // The identity pattern keeps exactly the diagonal triads.
        let id = 1 | 1 << 4 | 1 << 8;
        assert_eq!(COMPLEX[id], 7 | 7 << 12 | 7 << 24);
        // Every row and box open: everything stays.
        assert_eq!(COMPLEX[511], BAND);
        // Two rows confined to box 0: no permutation.
        assert_eq!(COMPLEX[1 | 1 << 3 | 7 << 6], 0);
        // Row 0 only in box 0 forces rows 1 and 2 out of box 0.
        assert_eq!(
            COMPLEX[1 | 7 << 3 | 7 << 6],
            7 | (0o770 << 9) | (0o770 << 18)
        );
    }

    #[test]
    fn placing_the_givens_at_once_is_placing_them_one_by_one() {
        // The first lines of ../shared/data/sudoku/royle_17clue_49151.txt.
        let text = include_str!("../../test_data/sudoku/royle_17clue_first20.txt");
        for line in text.lines() {
            let givens: [u8; 81] =
                std::array::from_fn(|i| line.as_bytes()[i].saturating_sub(b'0').min(9));
            let mut bulk = State::new();
            assert!(bulk.place_givens(&givens));
            let mut one = State::new();
            for (cell, &v) in givens.iter().enumerate() {
                if v > 0 {
                    assert!(one.place(usize::from(v) - 1, cell));
                }
            }
            let mut m = Matrices::default();
            assert!(bulk.propagate::<false>(&mut m) && one.propagate::<false>(&mut m));
            assert_eq!((bulk.f, bulk.unsolved), (one.f, one.unsolved), "{line}");
        }
        // Two 1s in row 1: refused, as `place` refuses the second.
        let mut clash = [0u8; 81];
        clash[0] = 1;
        clash[5] = 1;
        assert!(!State::new().place_givens(&clash));
        assert_eq!(count(&clash, 2).solutions, 0);
    }

    /// Puzzles derived from the test collections: each puzzle, the puzzle with its last
    /// one, two, four givens removed (most have several solutions), and the puzzle with a
    /// wrong digit added in the first empty cell where it clashes with no given (most have
    /// none).
    pub(crate) fn derived_puzzles() -> Vec<[u8; 81]> {
        let text = [
            include_str!("../../test_data/sudoku/royle_17clue_first20.txt"),
            include_str!("../../test_data/sudoku/forum_hardest_1106_first10.txt"),
            include_str!("../../test_data/sudoku/magictour_top1465_first10.txt"),
            include_str!("../../test_data/sudoku/serg_benchmark_first10.txt"),
        ];
        let mut out = Vec::new();
        for line in text.iter().flat_map(|t| t.lines()) {
            let g: [u8; 81] = std::array::from_fn(|i| match line.as_bytes()[i] {
                c @ b'1'..=b'9' => c - b'0',
                _ => 0,
            });
            out.push(g);
            let given: Vec<usize> = (0..81).filter(|&i| g[i] != 0).collect();
            for k in [1, 2, 4] {
                let mut h = g;
                for &i in given.iter().rev().take(k) {
                    h[i] = 0;
                }
                out.push(h);
            }
            let solution = count(&g, 1).first;
            'wrong: for i in (0..81).filter(|&i| g[i] == 0) {
                for v in 1..=9u8 {
                    let clash = (0..81).any(|j| g[j] == v && PEERS[i][j / 27] >> (j % 27) & 1 != 0);
                    if v != solution[i] && !clash {
                        let mut h = g;
                        h[i] = v;
                        out.push(h);
                        break 'wrong;
                    }
                }
            }
        }
        out
    }

    fn is_solution_of(grid: &[u8; 81], givens: &[u8; 81]) -> bool {
        let fits = (0..81).all(|i| givens[i] == 0 || givens[i] == grid[i]);
        let distinct = (0..81).all(|i| {
            (1..=9).contains(&grid[i])
                && (0..81)
                    .all(|j| j == i || PEERS[i][j / 27] >> (j % 27) & 1 == 0 || grid[j] != grid[i])
        });
        fits && distinct
    }

    #[test]
    fn counts_agree_with_the_exact_cover_solver() {
        let (mut unique, mut multiple, mut none) = (0, 0, 0);
        for g in derived_puzzles() {
            let line: String = g
                .iter()
                .map(|&v| if v == 0 { '.' } else { char::from(b'0' + v) })
                .collect();
            let p = crate::sudoku::tests::puzzle(&line);
            let want = crate::sudoku::dlx::solutions(&p, 5).unwrap();
            for limit in [1, 2, 5] {
                let c = count(&g, limit);
                assert_eq!(c.solutions, want.len().min(limit), "{line} limit {limit}");
                if c.solutions > 0 {
                    assert!(is_solution_of(&c.first, &g), "{line}");
                }
            }
            let found = solutions(&g, 2).unwrap();
            assert_eq!(found.len(), want.len().min(2), "{line}");
            for f in &found {
                assert!(want.contains(f) || want.len() == 5, "{line}");
                assert!(is_solution_of(f.as_slice().try_into().unwrap(), &g));
            }
            if found.len() == 2 {
                assert_ne!(found[0], found[1]);
            }
            match want.len() {
                0 => none += 1,
                1 => unique += 1,
                _ => multiple += 1,
            }
        }
        // The derived set covers the three outcomes.
        assert!(
            unique >= 30 && multiple >= 30 && none >= 10,
            "{unique} {multiple} {none}"
        );
    }

    #[test]
    fn the_simd_and_portable_clears_agree() {
        if !simd_available() {
            return;
        }
        // The band clear on its own, on pseudo-random words.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32 & BAND
        };
        for _ in 0..2000 {
            let band: [u32; 9] = std::array::from_fn(|_| next());
            let new = next() & next() & next();
            let (mut a, mut b) = (band, band);
            assert_eq!(
                band_clear::<true>(&mut a, new),
                band_clear::<false>(&mut b, new)
            );
            assert_eq!(a, b);
        }
        // The whole search, on unique, multi-solution and no-solution puzzles.
        let (mut unique, mut multiple, mut none) = (0, 0, 0);
        for g in derived_puzzles() {
            for limit in [1, 2, 5] {
                let (p, ps) = run_with::<false>(&g, limit);
                let (s, ss) = run_with::<true>(&g, limit);
                assert_eq!(
                    (p.solutions, p.first, p.guesses, ps),
                    (s.solutions, s.first, s.guesses, ss)
                );
                if limit == 5 {
                    match p.solutions {
                        0 => none += 1,
                        1 => unique += 1,
                        _ => multiple += 1,
                    }
                }
            }
        }
        assert!(unique >= 30 && multiple >= 30 && none >= 10);
    }

    #[test]
    fn the_arithmetic_matrix_matches_the_table() {
        for v in (0..1u32 << 27).step_by(997).chain([BAND, 0, 1, 1 << 26]) {
            let shrink = SHRINK[(v & ROW) as usize]
                | SHRINK[(v >> 9 & ROW) as usize] << 3
                | SHRINK[(v >> 18) as usize] << 6;
            assert_eq!(triads_of(v), shrink, "{v:#x}");
        }
    }

    #[test]
    fn a_non_9x9_grid_is_refused_with_a_typed_error() {
        assert!(matches!(
            solutions(&[0; 16], 2),
            Err(SolveError::Unsupported { .. })
        ));
    }
}
