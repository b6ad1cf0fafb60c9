//! Band fillings of a 9x9 band configuration, `B(C)`, and the configurations a band below
//! may take, stack by stack.
//!
//! A band configuration gives each of the nine columns the digit set it holds in the band
//! (three digits; a stack's three columns partition the nine digits). A filling puts the
//! three rows in: each row is a choice of one digit per column, all nine distinct, i.e. a
//! perfect matching of the 3-regular bipartite graph between columns and digits; the three
//! rows are an ordered decomposition of that graph into perfect matchings. Boxes need no
//! check: a stack's columns hold disjoint sets.
//!
//! Count: for each first row (matching `M`), the rest is 2-regular, a union of even cycles,
//! and rows 2 and 3 colour each cycle in one of two ways, so `B(C) = sum_M 2^cycles(G - M)`.
//! The three rows can be permuted freely (the rows of a band are distinct), so only the
//! matchings giving column 1 its least digit are listed and the cycle through column 1 is
//! coloured one way: `B(C) = 6 * sum_{M: M(1) = min} 2^(cycles - 1)`.

/// The nine digits as a mask.
pub(crate) const ALL: u16 = 0x1ff;

/// `B(C)`: the fillings of a band whose column `c` holds the digits of `cols[c]` (bit `d` for
/// digit `d + 1`). The configuration must be valid (each stack's columns partition the
/// digits, three each); [`super::BandConfig`] checks it.
pub fn band_fillings(cols: &[u16; 9]) -> u64 {
    // The columns holding each digit (one per stack).
    let mut digit_cols = [0u16; 9];
    for (c, &m) in cols.iter().enumerate() {
        for (d, dc) in digit_cols.iter_mut().enumerate() {
            if m >> d & 1 == 1 {
                *dc |= 1 << c;
            }
        }
    }
    let first = cols[0].trailing_zeros() as usize;
    let mut row = [0u8; 9];
    row[0] = first as u8;
    let mut sum = 0u64;
    matchings(cols, &digit_cols, 1, 1 << first, &mut row, &mut sum);
    6 * sum
}

fn matchings(
    cols: &[u16; 9],
    digit_cols: &[u16; 9],
    c: usize,
    used: u16,
    row: &mut [u8; 9],
    sum: &mut u64,
) {
    if c == 9 {
        *sum += 1 << (cycles(cols, digit_cols, row) - 1);
        return;
    }
    let mut free = cols[c] & !used;
    while free != 0 {
        let d = free.trailing_zeros() as usize;
        free &= free - 1;
        row[c] = d as u8;
        matchings(cols, digit_cols, c + 1, used | 1 << d, row, sum);
    }
}

/// The cycles of the graph less the first row's matching (each column and digit keeps two
/// edges).
fn cycles(cols: &[u16; 9], digit_cols: &[u16; 9], row: &[u8; 9]) -> u32 {
    let mut rest_cols = [0u16; 9];
    for (c, &d) in row.iter().enumerate() {
        rest_cols[d as usize] = digit_cols[d as usize] & !(1 << c);
    }
    let mut seen = 0u16;
    let mut n = 0;
    for start in 0..9 {
        if seen >> start & 1 == 1 {
            continue;
        }
        n += 1;
        let mut c = start;
        let mut d = (cols[c] & !(1 << row[c])).trailing_zeros() as usize;
        loop {
            seen |= 1 << c;
            c = (rest_cols[d] & !(1 << c)).trailing_zeros() as usize;
            if c == start {
                break;
            }
            d = (cols[c] & !(1 << row[c]) & !(1 << d)).trailing_zeros() as usize;
        }
    }
    n
}

/// The ways a band below may fill one stack given the columns above it: three disjoint
/// sets of three digits, each avoiding the digits above it in its column. For a stack with
/// columns `X0, X1, X2`, they are the `56` triples `(Y0, Y1, Y2)` with `Yi` disjoint from
/// `Xi` (`a` digits of `Y0` from `X1`, `3 - a` from `X2`, and so on: `sum_a C(3, a)^3`).
pub(crate) fn below(stack: [u16; 3]) -> Vec<[u16; 3]> {
    let triples: Vec<u16> = (0u16..512).filter(|m| m.count_ones() == 3).collect();
    let mut out = Vec::new();
    for &y0 in triples.iter().filter(|&&y| y & stack[0] == 0) {
        for &y1 in triples.iter().filter(|&&y| y & (stack[1] | y0) == 0) {
            let y2 = ALL & !(y0 | y1);
            if y2 & stack[2] == 0 {
                out.push([y0, y1, y2]);
            }
        }
    }
    out
}
