//! The next row of a partial Sudoku or Latin square as a permanent, and whole-grid upper bounds
//! from Bregman's theorem (seed 000 section 2.2: "permanents give only bounds").
//!
//! Next row: the first row with an empty cell. Its availability matrix has a row per cell and a
//! column per value: a given cell allows its value, an empty one every value that no group
//! through the cell (row, column, box, and any variant or extra group) holds among the givens.
//! A group asks its cells to differ; between two cells of one row the row asks that already, so
//! within the row "all different" is the only constraint left, and the number of ways to fill
//! the row consistently with the givens is exactly the permanent, for every variant (the rows
//! below are not looked at: a filling counted here may have no completion).
//!
//! Grid bound: the grids (or completions of the givens) are at most the product, over the rows
//! in order, of the most ways any filling of the rows above can leave for the row; by Bregman's
//! theorem and since `(a!)^(1/a)` grows with `a`, that is at most
//! `prod over cells of (a!)^(1/a)` for any `a` at least the cell's availability. For a cell in
//! row `i` (0-based) of a Sudoku with `R x C` boxes, the column above holds `i` distinct digits
//! and the box above `C (i mod R)`, so `a = side - max(i, C (i mod R))` (for Latin squares,
//! `n - i`: the classical `L(n) <= prod_k (k!)^(n/k)`); with givens, also at most what the
//! givens leave, and 1 at a given cell. A variant's grids are plain grids, so its bound is the
//! plain one with its givens.

use std::collections::BTreeMap;

use super::{bounds, permanent, BigUint, Matrix01, Permanent, PermanentError};
use crate::problems::sudoku::{self, find_clash, parse_givens, units, SudokuConfig};
use crate::problems::BuildError;
use crate::xcc::{OptionId, Problem, ProblemBuilder, ProblemError};

/// What is wrong with the rows or givens given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RowsError {
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error("givens: {0}")]
    Givens(#[from] sudoku::GivensError),
    #[error("row {row}: {reason}")]
    LatinRow { row: usize, reason: String },
    #[error("rows {first} and {second} both hold {value} in column {column}")]
    LatinColumn {
        first: usize,
        second: usize,
        value: usize,
        column: usize,
    },
    #[error("{given} rows given for a square of order {n}")]
    TooManyRows { given: usize, n: usize },
    #[error(transparent)]
    Permanent(#[from] PermanentError),
}

/// What is given above (and in) the next row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Given {
    /// An empty grid: the next row is row 1.
    Nothing,
    /// Row 1 is `1 2 ... side` (every first row gives the same count, by relabelling).
    FirstRow,
    /// Givens: `rows` full rows at the top, and `cells` given cells below them.
    Rows { rows: usize, cells: usize },
}

impl Given {
    /// "nothing given", "row 1 = 1..9", "rows 1-2 given, and 5 cells below".
    pub fn describe(&self, side: usize) -> String {
        match *self {
            Given::Nothing => "nothing given".into(),
            Given::FirstRow => format!("row 1 = 1..{side}"),
            Given::Rows { rows, cells } => {
                let mut s = match rows {
                    0 => "no full row given".to_string(),
                    1 => "row 1 given".to_string(),
                    _ => format!("rows 1-{rows} given"),
                };
                if cells > 0 {
                    s.push_str(&format!(", and {cells} cells below"));
                }
                s
            }
        }
    }
}

/// The next row to fill and its availability matrix (cells by column x values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextRow {
    /// 0-based.
    pub row: usize,
    pub given: Given,
    pub matrix: Matrix01,
}

/// A next row's exact count and its bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct RowFigures {
    pub next: NextRow,
    /// The permanent, or why it is beyond reach (the bounds are there either way).
    pub exact: Result<Permanent, PermanentError>,
    /// Bregman's bound, rounded up.
    pub upper: BigUint,
    /// Van der Waerden's bound, rounded down, where the matrix is regular.
    pub lower: Option<BigUint>,
}

/// The exact count of a next row and its two bounds.
pub fn figures(next: NextRow) -> RowFigures {
    let exact = permanent(&next.matrix);
    let upper = bounds::bregman(&next.matrix.row_sums());
    let lower = bounds::van_der_waerden(&next.matrix);
    RowFigures {
        next,
        exact,
        upper,
        lower,
    }
}

/// An upper bound on the grids (or completions), with the availability it assumed per cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridBound {
    /// Per row, per cell: the availability the bound assumed (1 at a given cell).
    pub availability: Vec<Vec<usize>>,
    /// `prod (a!)^(1/a)` over the cells, rounded up.
    pub upper: BigUint,
}

impl GridBound {
    fn new(availability: Vec<Vec<usize>>) -> GridBound {
        let mut counts = BTreeMap::new();
        for &a in availability.iter().flatten() {
            *counts.entry(a).or_insert(0usize) += 1;
        }
        let upper = bounds::bregman_counts(&counts);
        GridBound {
            availability,
            upper,
        }
    }

    /// Each row's availability when all its cells share it.
    pub fn uniform_rows(&self) -> Option<Vec<usize>> {
        self.availability
            .iter()
            .map(|r| r.iter().all(|&a| a == r[0]).then_some(r[0]))
            .collect()
    }
}

/// A checked Sudoku shape with its groups and givens (cells row by row, 0 empty).
struct SudokuGrid {
    side: usize,
    box_rows: usize,
    box_cols: usize,
    /// For each cell, the cells that share a group with it.
    peers: Vec<Vec<usize>>,
    givens: Vec<u8>,
}

impl SudokuGrid {
    fn new(config: &SudokuConfig) -> Result<SudokuGrid, RowsError> {
        // Validates the shape, the variants, the groups and the givens (clashes included).
        sudoku::Sudoku::build(config)?;
        let s = config.box_rows * config.box_cols;
        let groups = units(config, s)?;
        let givens = match (&config.givens, config.fix_first_row) {
            (Some(text), _) => parse_givens(text, s)?,
            (None, true) => first_row(s),
            (None, false) => vec![0; s * s],
        };
        find_clash(&givens, &groups, s)?;
        let mut peers = vec![Vec::new(); s * s];
        for g in &groups {
            for &a in &g.cells {
                peers[a].extend(g.cells.iter().copied().filter(|&b| b != a));
            }
        }
        Ok(SudokuGrid {
            side: s,
            box_rows: config.box_rows,
            box_cols: config.box_cols,
            peers,
            givens,
        })
    }

    /// The values (1-based, as a mask bit `v - 1`) that the givens leave at `cell`.
    fn available(&self, grid: &[u8], cell: usize) -> u64 {
        let all = if self.side == 64 {
            u64::MAX
        } else {
            (1u64 << self.side) - 1
        };
        match grid[cell] {
            0 => self.peers[cell]
                .iter()
                .filter(|&&p| grid[p] != 0)
                .fold(all, |m, &p| m & !(1u64 << (grid[p] - 1))),
            v => 1u64 << (v - 1),
        }
    }

    fn next_row(&self, grid: &[u8], given: Given) -> Result<Option<NextRow>, RowsError> {
        let s = self.side;
        let Some(row) = (0..s).find(|&r| grid[r * s..(r + 1) * s].contains(&0)) else {
            return Ok(None);
        };
        let masks: Vec<u64> = (0..s).map(|c| self.available(grid, row * s + c)).collect();
        let matrix = Matrix01::from_fn(s, |c, v| masks[c] >> v & 1 == 1)?;
        Ok(Some(NextRow { row, given, matrix }))
    }
}

fn first_row(s: usize) -> Vec<u8> {
    let mut g = vec![0u8; s * s];
    for (c, v) in g.iter_mut().take(s).enumerate() {
        *v = c as u8 + 1;
    }
    g
}

/// The rows `dancehall bounds sudoku` reports: with givens (or a fixed first row), the next row
/// to fill (none when the givens fill the grid); without, row 1 of the empty grid and row 2
/// below the first row `1..side`.
pub fn sudoku_rows(config: &SudokuConfig) -> Result<Vec<NextRow>, RowsError> {
    let grid = SudokuGrid::new(config)?;
    let s = grid.side;
    if config.givens.is_none() && !config.fix_first_row {
        let rows = [
            grid.next_row(&grid.givens, Given::Nothing)?,
            grid.next_row(&first_row(s), Given::FirstRow)?,
        ];
        return Ok(rows.into_iter().flatten().collect());
    }
    let full = (0..s)
        .take_while(|&r| !grid.givens[r * s..(r + 1) * s].contains(&0))
        .count();
    let cells = grid.givens[(full * s).min(s * s)..]
        .iter()
        .filter(|&&v| v != 0)
        .count();
    let given = if config.givens.is_none() {
        Given::FirstRow
    } else {
        Given::Rows { rows: full, cells }
    };
    Ok(grid.next_row(&grid.givens, given)?.into_iter().collect())
}

/// The grid bound of a Sudoku (of the completions of its givens, if any).
pub fn sudoku_grid_bound(config: &SudokuConfig) -> Result<GridBound, RowsError> {
    let grid = SudokuGrid::new(config)?;
    let (s, r, c) = (grid.side, grid.box_rows, grid.box_cols);
    let availability = (0..s)
        .map(|i| {
            let most = s - i.max(c * (i % r));
            (0..s)
                .map(|col| {
                    let cell = i * s + col;
                    match grid.givens[cell] {
                        0 => most.min(grid.available(&grid.givens, cell).count_ones() as usize),
                        _ => 1,
                    }
                })
                .collect()
        })
        .collect();
    Ok(GridBound::new(availability))
}

/// Reads the first rows of a Latin square of order `n`: rows separated by `,` or `/`, each
/// `n` symbols `1`-`9` then `A`-`Z` (10 to 35), or `n` whitespace-separated numbers.
pub fn parse_latin_rows(text: &str, n: usize) -> Result<Vec<Vec<u8>>, RowsError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<Vec<u8>> = text
        .split([',', '/'])
        .enumerate()
        .map(|(i, row)| parse_latin_row(row.trim(), n, i + 1))
        .collect::<Result<_, _>>()?;
    check_latin_rows(&rows, n)?;
    Ok(rows)
}

fn parse_latin_row(row: &str, n: usize, index: usize) -> Result<Vec<u8>, RowsError> {
    let bad = |reason: String| RowsError::LatinRow { row: index, reason };
    let values: Vec<usize> = if row.contains(char::is_whitespace) {
        row.split_whitespace()
            .map(|t| {
                t.parse::<usize>()
                    .map_err(|_| bad(format!("`{t}` is not a number")))
            })
            .collect::<Result<_, _>>()?
    } else {
        row.chars()
            .map(|ch| match ch {
                '1'..='9' => Ok(ch as usize - '0' as usize),
                'A'..='Z' => Ok(ch as usize - 'A' as usize + 10),
                'a'..='z' => Ok(ch as usize - 'a' as usize + 10),
                _ => Err(bad(format!("bad symbol `{ch}`"))),
            })
            .collect::<Result<_, _>>()?
    };
    if values.len() != n {
        return Err(bad(format!(
            "{} symbols, expected {n} for order {n}",
            values.len()
        )));
    }
    let mut seen = vec![false; n + 1];
    for &v in &values {
        if v == 0 || v > n {
            return Err(bad(format!("symbol {v} is not in 1..={n}")));
        }
        if std::mem::replace(&mut seen[v], true) {
            return Err(bad(format!("symbol {v} appears twice")));
        }
    }
    Ok(values.into_iter().map(|v| v as u8).collect())
}

/// Every row a permutation of `1..=n` (checked by the parser), no value twice in a column, at
/// most `n` rows.
pub fn check_latin_rows(rows: &[Vec<u8>], n: usize) -> Result<(), RowsError> {
    if rows.len() > n {
        return Err(RowsError::TooManyRows {
            given: rows.len(),
            n,
        });
    }
    for column in 0..n {
        for second in 0..rows.len() {
            if let Some(first) = (0..second).find(|&f| rows[f][column] == rows[second][column]) {
                return Err(RowsError::LatinColumn {
                    first: first + 1,
                    second: second + 1,
                    value: rows[second][column] as usize,
                    column: column + 1,
                });
            }
        }
    }
    Ok(())
}

/// The rows `dancehall bounds latin` reports: with rows given, the next one (none when the
/// square is full); without, row 1 and row 2 below `1..n` (the derangements, `J - I`).
pub fn latin_rows(n: usize, rows: &[Vec<u8>]) -> Result<Vec<NextRow>, RowsError> {
    crate::problems::check_range("Latin square order n", n, 1, super::MAX_ORDER)?;
    check_latin_rows(rows, n)?;
    let next = |above: &[Vec<u8>], given| -> Result<NextRow, RowsError> {
        let used: Vec<u64> = (0..n)
            .map(|c| above.iter().fold(0u64, |m, r| m | 1 << (r[c] - 1)))
            .collect();
        let matrix = Matrix01::from_fn(n, |c, v| used[c] >> v & 1 == 0)?;
        Ok(NextRow {
            row: above.len(),
            given,
            matrix,
        })
    };
    if rows.is_empty() {
        let first: Vec<u8> = (1..=n as u8).collect();
        let mut out = vec![next(&[], Given::Nothing)?];
        if n > 1 {
            out.push(next(&[first], Given::FirstRow)?);
        }
        return Ok(out);
    }
    if rows.len() == n {
        return Ok(Vec::new());
    }
    let given = Given::Rows {
        rows: rows.len(),
        cells: 0,
    };
    Ok(vec![next(rows, given)?])
}

/// The bound on Latin squares of order `n` (completions of `given` full rows):
/// `prod over rows i >= given of ((n-i)!)^(n/(n-i))`.
pub fn latin_grid_bound(n: usize, given: usize) -> GridBound {
    GridBound::new(
        (0..n)
            .map(|i| vec![if i < given { 1 } else { n - i }; n])
            .collect(),
    )
}

/// The options of the Latin builder (`problems::latin`) that place `rows` at the top.
pub fn latin_placements(rows: &[Vec<u8>], n: usize) -> Vec<OptionId> {
    rows.iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.iter()
                .enumerate()
                .map(move |(c, &v)| ((r * n + c) * n + usize::from(v) - 1) as OptionId)
        })
        .collect()
}

/// The next row as an exact-cover problem: primary items `r<row>c<col>` (cells, 1-based) and
/// `v<value>`, one option per available (cell, value). Its solutions are the row's fillings,
/// so the engine counts the permanent independently.
pub fn row_problem(next: &NextRow) -> Result<Problem, ProblemError> {
    let n = next.matrix.order();
    let mut b = ProblemBuilder::new();
    let cells: Vec<_> = (1..=n)
        .map(|c| b.primary(&format!("r{}c{c}", next.row + 1)))
        .collect::<Result<_, _>>()?;
    let values: Vec<_> = (1..=n)
        .map(|v| b.primary(&format!("v{v}")))
        .collect::<Result<_, _>>()?;
    for (c, &cell) in cells.iter().enumerate() {
        for (v, &value) in values.iter().enumerate() {
            if next.matrix.get(c, v) {
                b.option(&[cell, value])?;
            }
        }
    }
    b.build()
}
