//! Weighted units that count every Sudoku grid of a box shape (Felgenhauer and Jarvis's route,
//! generalised to `r x c` boxes):
//!
//! 1. Box 1 is fixed to `1 2 3 / 4 5 6 / ...` (factor `side!`).
//! 2. The first band is one of the column-set classes of [`super::band`]; a class stands for
//!    `size` lexicographically reduced fillings, each standing for `c!^(r-1) (r-1)!` fillings
//!    (column orders within the boxes after the first, box orders).
//! 3. Column 1 below the first band holds the digits box 1 leaves out of it. Permuting the
//!    rows within each later band and permuting those bands fixes the first band, so only the
//!    split of those digits into bands matters: each band's digits sorted, bands ordered by
//!    their smallest digit, each split standing for `r!^(c-1) (c-1)!` orders.
//!
//! Each (class, split) is one unit: the first band and column 1 as givens, with weight the
//! class size; the job's symmetry factor is `side! c!^(r-1) (r-1)! r!^(c-1) (c-1)!` (for 9x9,
//! `9! 72^2`), so the total is `factor x sum(weight x completions)`.

use serde::{Deserialize, Serialize};

use super::band::{BandError, Bands};

/// One weighted unit: givens (cells row by row, 0 = empty) and the weight of its count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeightedGivens {
    pub givens: Vec<u8>,
    pub weight: u128,
}

/// The units of a whole-grid count and the factor their weighted sum is multiplied by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridUnits {
    pub box_rows: usize,
    pub box_cols: usize,
    pub units: Vec<WeightedGivens>,
    pub symmetry_factor: u128,
    /// Column-set classes of the first band.
    pub band_classes: usize,
    /// Splits of column 1 below the first band.
    pub column_splits: usize,
}

/// The weighted units that count every grid of `box_rows x box_cols` boxes.
pub fn grid_units(box_rows: usize, box_cols: usize) -> Result<GridUnits, BandError> {
    let bands = Bands::enumerate(box_rows, box_cols)?;
    let classes = bands.column_set_classes();
    let side = bands.side;
    let splits = column_splits(box_rows, box_cols);
    let mut units = Vec::with_capacity(classes.len() * splits.len());
    for class in &classes {
        for split in &splits {
            let mut givens = vec![0u8; side * side];
            givens[..class.band.len()].copy_from_slice(&class.band);
            for (k, &d) in split.iter().enumerate() {
                givens[(box_rows + k) * side] = d;
            }
            units.push(WeightedGivens {
                givens,
                weight: u128::from(class.size),
            });
        }
    }
    let f = |k: usize| (1..=k as u128).product::<u128>();
    let pow = |b: u128, e: usize| b.pow(e as u32);
    let symmetry_factor = f(side)
        * pow(f(box_cols), box_rows - 1)
        * f(box_rows - 1)
        * pow(f(box_rows), box_cols - 1)
        * f(box_cols - 1);
    Ok(GridUnits {
        box_rows,
        box_cols,
        units,
        symmetry_factor,
        band_classes: classes.len(),
        column_splits: splits.len(),
    })
}

/// The splits of column 1 below the first band: the digits box 1 leaves out of column 1,
/// in `box_cols - 1` groups of `box_rows` (one per later band), each group sorted, groups
/// ordered by their smallest digit; flattened top to bottom.
pub fn column_splits(box_rows: usize, box_cols: usize) -> Vec<Vec<u8>> {
    let side = box_rows * box_cols;
    // Column 1 of box 1 holds 1, c + 1, 2c + 1, ...
    let rest: Vec<u8> = (1..=side as u8)
        .filter(|&d| (usize::from(d) - 1) % box_cols != 0)
        .collect();
    let mut out = Vec::new();
    split(&rest, box_rows, &mut Vec::new(), &mut out);
    out
}

fn split(rest: &[u8], size: usize, acc: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
    if rest.is_empty() {
        out.push(acc.clone());
        return;
    }
    // The group of the smallest digit left: it and any size-1 of the others, ascending.
    let (first, others) = (rest[0], &rest[1..]);
    for pick in combinations(others.len(), size - 1) {
        let mut group = vec![first];
        group.extend(pick.iter().map(|&i| others[i]));
        let left: Vec<u8> = others
            .iter()
            .enumerate()
            .filter(|(i, _)| !pick.contains(i))
            .map(|(_, &d)| d)
            .collect();
        let len = acc.len();
        acc.extend(&group);
        split(&left, size, acc, out);
        acc.truncate(len);
    }
}

/// Every `k`-subset of `0..n`, ascending, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(k);
    fn go(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            cur.push(i);
            go(i + 1, n, k, cur, out);
            cur.pop();
        }
    }
    go(0, n, k, &mut cur, &mut out);
    out
}
