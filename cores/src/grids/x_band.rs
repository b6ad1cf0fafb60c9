//! The completions of a 9x9 X-Sudoku (both main diagonals hold every digit once) whose middle
//! band (rows 4-6) is given in full and every other cell is empty: the units of the variant
//! count (`super::variant_band`, `bench-specs/sudoku-9x9-diagonal.toml`), counted from box
//! *configurations* instead of band fillings.
//!
//! # The decomposition
//!
//! Call the six open boxes T1, T2, T3 (rows 1-3) and B1, B2, B3 (rows 7-9). A box is fixed by
//! its *column sets* (the three digits of each of its columns: in a box they partition the
//! nine digits) and its *row map* (the row each digit takes in it), provided that each column
//! set meets each row in exactly one digit (the cell where they meet holds that digit).
//! The grid's constraints then read:
//! - columns: in stack `s`, Ts's column sets avoid the middle band's columns and Bs's are the
//!   rest (`56` choices `cs` per stack, [`super::three_band::fill`]'s `below`);
//! - rows: in each band, every digit takes three different rows in its three boxes. So the
//!   row maps of boxes 1 and 3 must differ on every digit (`ρ1 & ρ3 == 0` as 27-bit masks) and
//!   then box 2's row map is forced, the row neither of them took (`ρ2 = !(ρ1 | ρ3)`);
//! - diagonals: the main diagonal's open cells are the main diagonals of T1 and B3, the
//!   anti-diagonal's those of T3 and B1 (row `i` of the box, column `2 - i`), and the middle
//!   band holds the rest of each, three digits. So the digits T1 puts on its diagonal avoid
//!   the middle band's three and B3 takes the other three; likewise T3 and B1 for the
//!   anti-diagonal. With a box's column sets given, the set of its three diagonal digits is
//!   its diagonal's whole placement (one digit from each column), and it leaves `2^3 = 8`
//!   row maps.
//!
//! Hence, with `c1`, `c3` the column choices of stacks 1 and 3, `P` the digit set on T1's
//! diagonal, `Q` on T3's anti-diagonal (`P'`, `Q'` the sets B3 and B1 must then take):
//!
//! `count = sum over c1, c3, P, Q of sum over (ρT1, ρT3) and (ρB1, ρB3) of G(ρT2, ρB2)`,
//!
//! where the row maps range over the 8 each that fit the column sets and the placements,
//! each pair with no digit in the same row of boxes 1 and 3, `ρT2`, `ρB2` the forced maps of
//! boxes 2, and `G(ρ, σ)` the number of stack-2 column choices `c2` for which `ρ` fits T2's
//! column sets and `σ` B2's (a 56-bit mask per row map, [`Tables`], its `popcount` of an AND).
//! Every completion is counted once: it determines every box's column sets and row map, and
//! those determine it. Nothing is searched; no band filling is listed.
//!
//! # Cost
//!
//! `56^2` pairs `(c1, c3)`, for each the `P, Q` whose complements `P', Q'` the bottom boxes
//! can take (a few), for each `2 x 64` row-map pairs and the `G` terms of the surviving pairs:
//! a few million word operations a unit: about 1.5 ms, against 0.21 s for the Dancing Links
//! engine's search (142x) and 0.8 s for the group core's join, which enumerates about 1.9
//! million fillings of each open band (`cargo bench -p cores --bench variants -- diagonal
//! 200 0 200 3x3 3`, on a machine shared with another benchmark); the whole count's 24,027
//! units in 32 s on one core (`-- diagonal 0 0 0`). Counts equal the engine's
//! and the committed reference ledger's (`results/reference/sudoku-9x9-diagonal/ledger.csv`;
//! this module's tests).
//!
//! This is the configuration route of `super::three_band` (the plain grid counted from
//! column sets, after K. F. Pettersen's band counts on the enjoysudoku forum, "Su-Doku's
//! maths", 2005) with the middle band fixed and the row maps of boxes 1 and 3 kept, which is
//! what the diagonals need.

use std::sync::atomic::{AtomicBool, Ordering};

use super::three_band::fill::below;
use crate::count_core::Completions;

/// The nine digits as a mask (bit `d` for digit `d + 1`).
const ALL: u16 = 0x1ff;
/// A box's row map as a mask: bit `9 r + d` when digit `d + 1` is in row `r` of the box.
type RowMap = u32;
const ALL_ROWS: RowMap = (1 << 27) - 1;
/// The 3-digit subsets of the six digits a diagonal lacks outside the middle band.
const SUBSETS: usize = 20;

/// Why a middle band was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum XBandError {
    #[error("a middle band has 27 cells, not {0}")]
    Length(usize),
    #[error("middle band cell r{row}c{col} holds {value}, not a digit 1-9")]
    Value { row: usize, col: usize, value: u8 },
    #[error("digit {value} twice in {what} {index} of the middle band")]
    Clash {
        value: u8,
        what: &'static str,
        index: usize,
    },
}

/// Which cell of each row of a box a diagonal crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Diagonal {
    /// Row `i`, column `i` (T1's and B3's cells of the main diagonal).
    Main,
    /// Row `i`, column `2 - i` (T3's and B1's cells of the anti-diagonal).
    Anti,
}

impl Diagonal {
    fn column(self, row: usize) -> usize {
        match self {
            Diagonal::Main => row,
            Diagonal::Anti => 2 - row,
        }
    }
}

/// The middle band read and checked: each of its nine columns' digits and the digits it puts
/// on each diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Middle {
    /// Per stack, per column: the band's digits in it.
    cols: [[u16; 3]; 3],
    /// The digits on cells (4,4), (5,5), (6,6) and on (4,6), (5,5), (6,4).
    main: u16,
    anti: u16,
}

impl Middle {
    fn read(band: &[u8]) -> Result<Middle, XBandError> {
        if band.len() != 27 {
            return Err(XBandError::Length(band.len()));
        }
        let mut rows = [0u16; 3];
        let mut boxes = [0u16; 3];
        let mut cols = [[0u16; 3]; 3];
        for (cell, &value) in band.iter().enumerate() {
            let (r, c) = (cell / 9, cell % 9);
            if !(1..=9).contains(&value) {
                return Err(XBandError::Value {
                    row: r + 4,
                    col: c + 1,
                    value,
                });
            }
            let bit = 1 << (value - 1);
            let clash = |what, index| XBandError::Clash { value, what, index };
            if rows[r] & bit != 0 {
                return Err(clash("row", r + 4));
            }
            if boxes[c / 3] & bit != 0 {
                return Err(clash("box", c / 3 + 4));
            }
            rows[r] |= bit;
            boxes[c / 3] |= bit;
            cols[c / 3][c % 3] |= bit;
        }
        // The diagonals' middle cells are all in box 5, whose digits are distinct.
        let at = |r: usize, c: usize| 1u16 << (band[r * 9 + c] - 1);
        Ok(Middle {
            cols,
            main: at(0, 3) | at(1, 4) | at(2, 5),
            anti: at(0, 5) | at(1, 4) | at(2, 3),
        })
    }
}

/// The 3-subsets of the six digits `allow`, numbered so that a subset's complement in
/// `allow` is `SUBSETS - 1 -` its number (ascending order of the subsets read as 6-bit
/// numbers over `allow`'s digits; complementing reverses that order).
struct Subsets {
    index: [u8; 512],
}

impl Subsets {
    const NONE: u8 = u8::MAX;

    fn new(allow: u16) -> Subsets {
        let digits: Vec<u16> = (0..9).filter(|d| allow >> d & 1 == 1).collect();
        let mut index = [Self::NONE; 512];
        let mut k = 0;
        for v in 0u16..1 << digits.len() {
            if v.count_ones() != 3 {
                continue;
            }
            let mask = digits
                .iter()
                .enumerate()
                .filter(|(i, _)| v >> i & 1 == 1)
                .fold(0u16, |m, (_, &d)| m | 1 << d);
            index[usize::from(mask)] = k;
            k += 1;
        }
        Subsets { index }
    }
}

/// One box position's options over every column choice of its stack: for each choice and
/// each diagonal set (a [`Subsets`] number), the 8 row maps that place it, if the set is a
/// placement there.
struct BoxMaps {
    /// Per column choice: bit `k` when diagonal set `k` can be placed.
    present: Vec<u32>,
    /// Per column choice: bit `k` when the complement of set `k` can be placed.
    present_complement: Vec<u32>,
    /// `[choice * SUBSETS + k]`: the row maps.
    maps: Vec<[RowMap; 8]>,
}

impl BoxMaps {
    fn new(choices: &[[u16; 3]], diagonal: Diagonal, allow: u16, subsets: &Subsets) -> BoxMaps {
        let mut present = vec![0u32; choices.len()];
        let mut maps = vec![[0; 8]; choices.len() * SUBSETS];
        for (ci, cols) in choices.iter().enumerate() {
            for_each_placement(cols, diagonal, allow, |set, these| {
                let k = usize::from(subsets.index[usize::from(set)]);
                present[ci] |= 1 << k;
                maps[ci * SUBSETS + k] = *these;
            });
        }
        let present_complement = present
            .iter()
            .map(|&p| p.reverse_bits() >> (32 - SUBSETS))
            .collect();
        BoxMaps {
            present,
            present_complement,
            maps,
        }
    }

    fn maps(&self, choice: usize, k: u32) -> &[RowMap; 8] {
        &self.maps[choice * SUBSETS + k as usize]
    }
}

/// Calls `visit` for every placement of `allow`'s digits on a box's `diagonal` (row `i`
/// takes a digit of column `diagonal.column(i)`): the placement's digit set and the 8 row
/// maps that agree with it (each column's other two digits in its other two rows, either
/// way round).
fn for_each_placement(
    cols: &[u16; 3],
    diagonal: Diagonal,
    allow: u16,
    mut visit: impl FnMut(u16, &[RowMap; 8]),
) {
    let cand = [0, 1, 2].map(|i| cols[diagonal.column(i)] & allow);
    for x0 in bits(cand[0].into()) {
        for x1 in bits(cand[1].into()) {
            for x2 in bits(cand[2].into()) {
                let xs = [x0, x1, x2];
                let mut these = [0; 8];
                for (o, map) in these.iter_mut().enumerate() {
                    for (i, &x) in xs.iter().enumerate() {
                        let rest = cols[diagonal.column(i)] & !(1 << x);
                        let (lo, hi) = (rest.trailing_zeros(), 15 - rest.leading_zeros());
                        let (r1, r2) = ((i + 1) % 3, (i + 2) % 3);
                        let (r1, r2) = if o >> i & 1 == 0 { (r1, r2) } else { (r2, r1) };
                        *map |= 1 << (9 * i as u32 + x);
                        *map |= 1 << (9 * r1 as u32 + lo);
                        *map |= 1 << (9 * r2 as u32 + hi);
                    }
                }
                visit(1 << x0 | 1 << x1 | 1 << x2, &these);
            }
        }
    }
}

/// The set bits of `m`, as bit numbers.
fn bits(mut m: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let b = m.trailing_zeros();
            m &= m - 1;
            b
        })
    })
}

/// Box 2's side of the count: for each row of T2 (B2) a row map may have, the stack-2 column
/// choices whose top (bottom) column sets it meets once each, as a 56-bit mask. A row map
/// fits the column sets of the choices in the AND of its first two rows' masks: a column's
/// three digits then lie one in each of those rows, so its third is in the third row too.
struct Tables {
    /// `[row's digits as a 9-bit mask]`.
    top: [u64; 512],
    bottom: [u64; 512],
}

impl Tables {
    fn new(choices: &[([u16; 3], [u16; 3])]) -> Tables {
        let mut tables = Tables {
            top: [0; 512],
            bottom: [0; 512],
        };
        let meets = |sets: &[u16; 3], row: u16| sets.iter().all(|&s| (s & row).count_ones() == 1);
        for row in (0u16..512).filter(|r| r.count_ones() == 3) {
            for (i, (t, b)) in choices.iter().enumerate() {
                tables.top[usize::from(row)] |= u64::from(meets(t, row)) << i;
                tables.bottom[usize::from(row)] |= u64::from(meets(b, row)) << i;
            }
        }
        tables
    }

    /// The choices whose top (`bottom == false`) or bottom column sets `map` fits (then box
    /// 2 is that map on those column sets).
    fn fits(&self, map: RowMap, bottom: bool) -> u64 {
        let table = if bottom { &self.bottom } else { &self.top };
        table[(map & 0x1ff) as usize] & table[(map >> 9 & 0x1ff) as usize]
    }
}

/// A stack's 56 column choices given the middle band's columns `middle`: the top box's
/// column sets and the bottom box's (the rest of each column).
fn column_choices(middle: [u16; 3]) -> Vec<([u16; 3], [u16; 3])> {
    below(middle)
        .into_iter()
        .map(|top| (top, [0, 1, 2].map(|j| ALL & !(middle[j] | top[j]))))
        .collect()
}

/// The completions of the 9x9 X-Sudoku grid whose rows 4-6 are `band` (27 digits 1-9, row
/// by row) and whose other cells are empty (see the module's description); `Ok(None)` when
/// `stop` was raised. `nodes` counts the row-map pairs of boxes 1 and 3 tried.
pub fn count_middle_band(
    band: &[u8],
    stop: &AtomicBool,
) -> Result<Option<Completions>, XBandError> {
    let middle = Middle::read(band)?;
    let (allow_main, allow_anti) = (ALL & !middle.main, ALL & !middle.anti);
    let (main_sets, anti_sets) = (Subsets::new(allow_main), Subsets::new(allow_anti));
    let stacks = middle.cols.map(column_choices);
    let tops = |s: usize| -> Vec<[u16; 3]> { stacks[s].iter().map(|c| c.0).collect() };
    let bottoms = |s: usize| -> Vec<[u16; 3]> { stacks[s].iter().map(|c| c.1).collect() };
    let t1 = BoxMaps::new(&tops(0), Diagonal::Main, allow_main, &main_sets);
    let b1 = BoxMaps::new(&bottoms(0), Diagonal::Anti, allow_anti, &anti_sets);
    let t3 = BoxMaps::new(&tops(2), Diagonal::Anti, allow_anti, &anti_sets);
    let b3 = BoxMaps::new(&bottoms(2), Diagonal::Main, allow_main, &main_sets);
    let two = Tables::new(&stacks[1]);
    let mut total = 0u128;
    let mut nodes = 0u64;
    let (mut top, mut bottom) = (Fits::new(), Fits::new());
    let last = SUBSETS as u32 - 1;
    for a in 0..stacks[0].len() {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        for b in 0..stacks[2].len() {
            // Diagonal sets T1 can take whose complement B3 can take; likewise T3 and B1.
            let mains = t1.present[a] & b3.present_complement[b];
            let antis = t3.present[b] & b1.present_complement[a];
            if mains == 0 || antis == 0 {
                continue;
            }
            for p in bits(mains) {
                for q in bits(antis) {
                    top.fill(t1.maps(a, p), t3.maps(b, q), &two, false);
                    nodes += 64;
                    if top.len == 0 {
                        continue;
                    }
                    bottom.fill(b1.maps(a, last - q), b3.maps(b, last - p), &two, true);
                    nodes += 64;
                    for &x in top.masks() {
                        for &y in bottom.masks() {
                            total += u128::from((x & y).count_ones());
                        }
                    }
                }
            }
        }
    }
    Ok(Some(Completions {
        solutions: total,
        nodes,
    }))
}

/// One band's side of a term: for every pair of a row map of box 1 and of box 3 with no
/// digit in the same row, the stack-2 column choices that box 2's forced row map fits (pairs
/// no choice fits left out). Kept from term to term, refilled by [`Fits::fill`].
struct Fits {
    masks: [u64; 64],
    len: usize,
}

impl Fits {
    fn new() -> Fits {
        Fits {
            masks: [0; 64],
            len: 0,
        }
    }

    fn fill(&mut self, firsts: &[RowMap; 8], thirds: &[RowMap; 8], two: &Tables, bottom: bool) {
        self.len = 0;
        for &x in firsts {
            for &y in thirds {
                if x & y == 0 {
                    let fit = two.fits(ALL_ROWS & !(x | y), bottom);
                    self.masks[self.len] = fit;
                    self.len += usize::from(fit != 0);
                }
            }
        }
    }

    fn masks(&self) -> &[u64] {
        &self.masks[..self.len]
    }
}

#[cfg(test)]
mod tests;
