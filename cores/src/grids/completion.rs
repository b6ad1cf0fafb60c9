//! A counting core specialised for Sudoku completions: how many ways a partly filled grid
//! with `box_rows x box_cols` boxes (no variant groups) can be completed.
//!
//! Every band but the last is filled cell by cell in row-major order with bit-parallel row,
//! column and box masks. The last band is never enumerated cell by cell: once the bands above
//! it are full, each of its columns must take exactly the `box_rows` digits missing from that
//! column (its *column set*), and its boxes are then valid automatically (in every stack each
//! digit is missing exactly once, because every band above holds it once per stack). So the
//! last band is a choice, per column, of which of its rows gets which digit of the column set,
//! with every row a permutation:
//! - its rows but the last two are chosen column by column (a digit of the column set not
//!   yet used in the row);
//! - then each column has two digits left, and each digit is left in exactly two columns: a
//!   graph on the digits whose edges are the columns, every vertex of degree two, so a union
//!   of cycles. The second-to-last row takes one digit of each column, each digit once: each
//!   cycle can be oriented in exactly two ways, so there are `2^cycles` ways (fewer when
//!   givens in those rows fix a column's choice).
//!
//! Counts equal the Dancing Links engine's on the same givens (tested in `grids::tests`
//! against `crate::xcc::Dlx`); `nodes` counts cell placements above the last band plus one
//! per last-band count, and is not comparable with the engine's nodes.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::count_core::Completions;

/// Largest side this core handles (digits are bits of a `u32`).
pub const MAX_SIDE: usize = 25;

/// Givens this core cannot count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompletionError {
    #[error(
        "box {rows}x{cols}: both sides must be at least 1 and the grid side at most {MAX_SIDE}"
    )]
    Shape { rows: usize, cols: usize },
    #[error("{len} cells given, a {side}x{side} grid has {}", side * side)]
    Length { len: usize, side: usize },
    #[error("cell r{row}c{col} holds {value}, outside 1..={side}")]
    Value {
        row: usize,
        col: usize,
        value: u8,
        side: usize,
    },
    #[error("digit {value} is given twice in {group} (second time at r{row}c{col})")]
    Clash {
        row: usize,
        col: usize,
        value: u8,
        group: &'static str,
    },
    #[error("option {option} is not a placement of the {side}x{side} Sudoku")]
    Option { option: u32, side: usize },
    #[error("cell r{row}c{col} is given twice")]
    CellTwice { row: usize, col: usize },
    #[error("a symmetry given for the band classes does not map the band's groups onto its groups: it is not a symmetry of the variant")]
    Symmetry,
    #[error(transparent)]
    XBand(#[from] super::x_band::XBandError),
}

/// Checks that `box_rows x box_cols` is a shape this core counts.
pub fn check_shape(box_rows: usize, box_cols: usize) -> Result<usize, CompletionError> {
    let bad = CompletionError::Shape {
        rows: box_rows,
        cols: box_cols,
    };
    if box_rows == 0 || box_cols == 0 {
        return Err(bad);
    }
    match box_rows.checked_mul(box_cols) {
        Some(side) if side <= MAX_SIDE => Ok(side),
        _ => Err(bad),
    }
}

/// The givens (cells row by row, 0 = empty) that a prefix of Sudoku options places: option
/// `(row * side + col) * side + digit - 1`, as `crate::problems::sudoku::Sudoku` numbers them.
pub fn givens_from_prefix(
    box_rows: usize,
    box_cols: usize,
    prefix: &[u32],
) -> Result<Vec<u8>, CompletionError> {
    let side = check_shape(box_rows, box_cols)?;
    let mut givens = vec![0u8; side * side];
    for &option in prefix {
        let o = option as usize;
        if o >= side * side * side {
            return Err(CompletionError::Option { option, side });
        }
        let cell = o / side;
        if givens[cell] != 0 {
            return Err(CompletionError::CellTwice {
                row: cell / side + 1,
                col: cell % side + 1,
            });
        }
        givens[cell] = (o % side + 1) as u8;
    }
    Ok(givens)
}

/// Counts the completions of `givens` (cells row by row, 0 = empty). `Ok(None)` when `stop`
/// was set before the count finished (there is no partial result).
pub fn count_completions(
    box_rows: usize,
    box_cols: usize,
    givens: &[u8],
    stop: &AtomicBool,
) -> Result<Option<Completions>, CompletionError> {
    let mut counter = Counter::new(box_rows, box_cols, givens, stop)?;
    counter.fill(0);
    Ok((!counter.stopped).then_some(Completions {
        solutions: counter.solutions,
        nodes: counter.nodes,
    }))
}

/// How often (in nodes) the stop flag is read.
const POLL_MASK: u64 = (1 << 16) - 1;

struct Counter<'a> {
    side: usize,
    box_rows: usize,
    full: u32,
    /// The empty cells above the last band, row-major: (row, col, box).
    cells: Vec<(usize, usize, usize)>,
    rows: Vec<u32>,
    /// Digits placed in each column above the last band.
    cols: Vec<u32>,
    boxes: Vec<u32>,
    /// Digits given in each column inside the last band (excluded above it).
    last_given_cols: Vec<u32>,
    /// `last[i * side + c]`: the digit given at row i of the last band, column c (0: none).
    last: Vec<u8>,
    solutions: u128,
    nodes: u64,
    stop: &'a AtomicBool,
    stopped: bool,
    // Scratch for the last band.
    avail: Vec<u32>,
}

impl<'a> Counter<'a> {
    fn new(
        box_rows: usize,
        box_cols: usize,
        givens: &[u8],
        stop: &'a AtomicBool,
    ) -> Result<Self, CompletionError> {
        let side = check_shape(box_rows, box_cols)?;
        if givens.len() != side * side {
            return Err(CompletionError::Length {
                len: givens.len(),
                side,
            });
        }
        let boxes_per_band = side / box_cols;
        let box_of = |r: usize, c: usize| (r / box_rows) * boxes_per_band + c / box_cols;
        let upper_rows = side - box_rows;
        let mut rows = vec![0u32; side];
        let mut cols = vec![0u32; side];
        let mut boxes = vec![0u32; side];
        let mut all_cols = vec![0u32; side];
        let mut last_given_cols = vec![0u32; side];
        let mut last = vec![0u8; box_rows * side];
        let mut cells = Vec::new();
        for (i, &v) in givens.iter().enumerate() {
            let (r, c) = (i / side, i % side);
            let b = box_of(r, c);
            if v == 0 {
                if r < upper_rows {
                    cells.push((r, c, b));
                }
                continue;
            }
            if usize::from(v) > side {
                return Err(CompletionError::Value {
                    row: r + 1,
                    col: c + 1,
                    value: v,
                    side,
                });
            }
            let bit = 1u32 << (v - 1);
            for (mask, group) in [
                (&mut rows[r], "row"),
                (&mut all_cols[c], "column"),
                (&mut boxes[b], "box"),
            ] {
                if *mask & bit != 0 {
                    return Err(CompletionError::Clash {
                        row: r + 1,
                        col: c + 1,
                        value: v,
                        group,
                    });
                }
                *mask |= bit;
            }
            if r < upper_rows {
                cols[c] |= bit;
            } else {
                last_given_cols[c] |= bit;
                last[(r - upper_rows) * side + c] = v;
            }
        }
        let full = (1u32 << side) - 1;
        Ok(Counter {
            side,
            box_rows,
            full,
            cells,
            rows,
            cols,
            boxes,
            last_given_cols,
            last,
            solutions: 0,
            nodes: 0,
            stop,
            stopped: false,
            avail: vec![0; side],
        })
    }

    /// Fills the `k`-th empty cell above the last band, then the rest; counts the last band
    /// at the bottom.
    fn fill(&mut self, k: usize) {
        if self.stopped {
            return;
        }
        let Some(&(r, c, b)) = self.cells.get(k) else {
            self.nodes += 1;
            self.solutions += self.last_band();
            return;
        };
        let mut cand =
            self.full & !(self.rows[r] | self.cols[c] | self.boxes[b] | self.last_given_cols[c]);
        while cand != 0 {
            let bit = cand & cand.wrapping_neg();
            cand ^= bit;
            self.nodes += 1;
            if self.nodes & POLL_MASK == 0 && self.stop.load(Ordering::Relaxed) {
                self.stopped = true;
                return;
            }
            self.rows[r] |= bit;
            self.cols[c] |= bit;
            self.boxes[b] |= bit;
            self.fill(k + 1);
            self.rows[r] ^= bit;
            self.cols[c] ^= bit;
            self.boxes[b] ^= bit;
        }
    }

    /// The completions of the last band, the bands above being full.
    fn last_band(&mut self) -> u128 {
        for c in 0..self.side {
            self.avail[c] = self.full & !self.cols[c];
        }
        if self.box_rows == 1 {
            // One row: each column has one digit left; givens there were excluded above.
            return 1;
        }
        self.last_rows(0, 0, 0)
    }

    /// Chooses row `i` of the last band (one of its first `box_rows - 2` rows) from column
    /// `c` on, `used` holding the digits this row has taken so far.
    fn last_rows(&mut self, i: usize, c: usize, used: u32) -> u128 {
        let side = self.side;
        if i + 2 == self.box_rows {
            return self.last_two_rows();
        }
        if c == side {
            return self.last_rows(i + 1, 0, 0);
        }
        let given = self.last[i * side + c];
        let mut cand = if given != 0 {
            1u32 << (given - 1)
        } else {
            // Not a digit given lower in this column.
            let mut below = 0u32;
            for j in i + 1..self.box_rows {
                let g = self.last[j * side + c];
                if g != 0 {
                    below |= 1 << (g - 1);
                }
            }
            self.avail[c] & !below
        };
        cand &= self.avail[c] & !used;
        let mut total = 0u128;
        while cand != 0 {
            let bit = cand & cand.wrapping_neg();
            cand ^= bit;
            self.avail[c] ^= bit;
            total += self.last_rows(i, c + 1, used | bit);
            self.avail[c] ^= bit;
        }
        total
    }

    /// Each column has two digits left; counts the ways the second-to-last row can take one
    /// of each, every digit once (the last row takes the others): a product over the cycles
    /// of the digit graph of the orientations that agree with the givens in those two rows.
    fn last_two_rows(&self) -> u128 {
        let side = self.side;
        let lo = self.box_rows - 2;
        let holders = holders(&self.avail[..side]);
        // What the second-to-last row must take in column c (None: free).
        let forced = |c: usize| -> Option<u32> {
            let upper = self.last[lo * side + c];
            if upper != 0 {
                return Some(1 << (upper - 1));
            }
            let lower = self.last[(lo + 1) * side + c];
            (lower != 0).then(|| self.avail[c] & !(1u32 << (lower - 1)))
        };
        let mut seen = 0u32; // columns visited
        let mut total: u128 = 1;
        for c0 in 0..side {
            if seen & (1 << c0) != 0 {
                continue;
            }
            // Orientation A: column c0 takes its lower digit; B: its higher one. Each next
            // column in the cycle takes the digit the previous one left.
            let pair = self.avail[c0];
            let a = pair & pair.wrapping_neg();
            let mut ok = [true, true];
            for (o, first) in [a, pair ^ a].into_iter().enumerate() {
                let mut c = c0;
                let mut take = first;
                loop {
                    if o == 0 {
                        seen |= 1 << c;
                    }
                    if let Some(f) = forced(c) {
                        if f != take {
                            ok[o] = false;
                        }
                    }
                    let left = self.avail[c] ^ take;
                    let d = left.trailing_zeros() as usize;
                    let h = holders[d];
                    let next = if h[0] == c { h[1] } else { h[0] };
                    if next == c0 {
                        break;
                    }
                    c = next;
                    take = left;
                }
            }
            let ways = u128::from(ok[0]) + u128::from(ok[1]);
            if ways == 0 {
                return 0;
            }
            total *= ways;
        }
        total
    }
}

/// Per digit, the two columns of the last band's last two rows that still lack it (`avail`:
/// per column, the two digits it lacks).
pub(super) fn holders(avail: &[u32]) -> [[usize; 2]; 32] {
    let mut holders = [[usize::MAX; 2]; 32];
    for (c, &pair) in avail.iter().enumerate() {
        let mut m = pair;
        debug_assert_eq!(m.count_ones(), 2, "column {c} of the last band");
        while m != 0 {
            let d = m.trailing_zeros() as usize;
            m &= m - 1;
            let h = &mut holders[d];
            if h[0] == usize::MAX {
                h[0] = c;
            } else {
                h[1] = c;
            }
        }
    }
    holders
}
