//! Sudoku with `r x c` boxes (side `s = r*c`: 2x2 gives 4x4, 2x3 gives 6x6, 3x3 gives 9x9) as
//! exact cover, seed 000 section 2.3: one option per (cell, digit), covering the items "cell
//! filled", "row has digit", "column has digit", "box has digit", plus one item per digit for
//! each variant group.
//!
//! Layout invariant: option `((row * s) + col) * s + (digit - 1)` places `digit` at
//! (`row`, `col`), 0-based, for every cell and digit: givens and a fixed first row are a
//! prefix of these options, never removed options, so option ids are the same for every
//! puzzle of a shape and [`Sudoku::decode`] is arithmetic.
//!
//! Groups (each a set of cells that holds every digit at most once): rows, columns, boxes;
//! `diagonal` adds both main diagonals; `hyper` adds windoku windows (box-shaped windows with
//! top-left corners at 1-based rows and columns `2, 2 + (r+1), ...` and `2, 2 + (c+1), ...`
//! while they fit: for 9x9 the four windows at rows/columns 2-4 and 6-8, i.e. 1-3 and 5-7
//! 0-based); `disjoint` adds, for each position inside a box, the cells at that position in
//! every box; extra groups are lists of 1-based (row, column) cells. A group of exactly `s`
//! cells holds every digit exactly once (primary items); a smaller group holds each digit at
//! most once (secondary items).
//!
//! Givens ([`parse_givens`]): the usual one-line format, `s*s` characters row by row, `.` or
//! `0` for an empty cell, `1`-`9` and then `A`-`Z` (either case) for 10 to 35, so a 16x16 grid
//! uses `1`-`9` and `A`-`G`. Any side may instead use whitespace-separated decimal numbers
//! (`0` or `.` empty); a givens string that contains whitespace is read that way, and sides
//! above 35 need it. [`format_grid`] writes grids in the same formats.
//!
//! `fix_first_row` fixes row 1 to `1..s` as a prefix: relabelling the digits maps solutions
//! to solutions for every group kind here, and each full grid has exactly one relabelling
//! with that first row, so the full count is `s!` times the count with it
//! ([`Sudoku::symmetry_factor`]). It cannot be combined with givens.
//!
//! [`verify`] checks a finished grid with code of its own, sharing nothing with the builder.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{check_range, factorial, BuildError};
use crate::xcc::{OptionId, Problem, ProblemBuilder};

/// Largest side accepted (`r*c`): a 64x64 grid has 262,144 options.
pub const MAX_SIDE: usize = 64;

/// Extra groups of cells that a Sudoku variant adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Both main diagonals.
    Diagonal,
    /// Windoku windows: boxes offset by one cell, separated by one row/column.
    Hyper,
    /// The cells at the same position inside every box.
    Disjoint,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Diagonal, Variant::Hyper, Variant::Disjoint];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Diagonal => "diagonal",
            Variant::Hyper => "hyper",
            Variant::Disjoint => "disjoint",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `"diagonal"` is not a variant we know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown Sudoku variant `{0}` (known: diagonal, hyper, disjoint)")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// What is wrong with a givens string. Positions are 1-based, cells are `r<row>c<col>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GivensError {
    #[error("{found} cells given, expected {expected} for a {side}x{side} grid")]
    WrongLength {
        found: usize,
        expected: usize,
        side: usize,
    },
    #[error("bad character `{ch}` at position {position} (r{row}c{col})")]
    BadChar {
        ch: char,
        position: usize,
        row: usize,
        col: usize,
    },
    #[error("bad number `{token}` at position {position} (r{row}c{col})")]
    BadNumber {
        token: String,
        position: usize,
        row: usize,
        col: usize,
    },
    #[error("digit {value} at position {position} (r{row}c{col}) exceeds the side {side}")]
    DigitTooLarge {
        value: usize,
        position: usize,
        row: usize,
        col: usize,
        side: usize,
    },
    #[error("r{}c{} and r{}c{} both hold {digit} in {unit}", first.0, first.1, second.0, second.1)]
    Clash {
        /// 1-based (row, column).
        first: (usize, usize),
        second: (usize, usize),
        digit: usize,
        unit: String,
    },
}

/// Reads a givens string for a `side x side` grid: one value per cell, row by row, 0 = empty.
/// Checks the format only; clashes are found by [`Sudoku::build`].
pub fn parse_givens(text: &str, side: usize) -> Result<Vec<u8>, GivensError> {
    let text = text.trim();
    let expected = side * side;
    let cell = |i: usize| (i / side + 1, i % side + 1);
    let mut values = Vec::with_capacity(expected);
    if text.contains(char::is_whitespace) {
        let tokens: Vec<&str> = text.split_whitespace().collect();
        if tokens.len() != expected {
            return Err(GivensError::WrongLength {
                found: tokens.len(),
                expected,
                side,
            });
        }
        for (i, token) in tokens.into_iter().enumerate() {
            let (row, col) = cell(i);
            let value = if token == "." {
                0
            } else {
                token.parse::<usize>().map_err(|_| GivensError::BadNumber {
                    token: token.to_string(),
                    position: i + 1,
                    row,
                    col,
                })?
            };
            values.push(checked_digit(value, i, side)?);
        }
    } else {
        let found = text.chars().count();
        if found != expected {
            return Err(GivensError::WrongLength {
                found,
                expected,
                side,
            });
        }
        for (i, ch) in text.chars().enumerate() {
            let (row, col) = cell(i);
            let value = match ch {
                '.' | '0' => 0,
                '1'..='9' => ch as usize - '0' as usize,
                'A'..='Z' => ch as usize - 'A' as usize + 10,
                'a'..='z' => ch as usize - 'a' as usize + 10,
                _ => {
                    return Err(GivensError::BadChar {
                        ch,
                        position: i + 1,
                        row,
                        col,
                    })
                }
            };
            values.push(checked_digit(value, i, side)?);
        }
    }
    Ok(values)
}

fn checked_digit(value: usize, i: usize, side: usize) -> Result<u8, GivensError> {
    if value > side {
        return Err(GivensError::DigitTooLarge {
            value,
            position: i + 1,
            row: i / side + 1,
            col: i % side + 1,
            side,
        });
    }
    // side <= MAX_SIDE < 256
    Ok(value as u8)
}

/// Writes a grid (one value per cell, 0 = empty as `.`) in the givens format: characters
/// `1`-`9`, `A`-`Z` for sides up to 35, space-separated numbers above.
pub fn format_grid(values: &[u8], side: usize) -> String {
    if side <= 35 {
        values
            .iter()
            .map(|&v| match v {
                0 => '.',
                1..=9 => (b'0' + v) as char,
                _ => (b'A' + v - 10) as char,
            })
            .collect()
    } else {
        values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Everything that defines a Sudoku problem.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SudokuConfig {
    pub box_rows: usize,
    pub box_cols: usize,
    pub variants: Vec<Variant>,
    /// Extra groups as 1-based (row, column) cells.
    pub extra_groups: Vec<Vec<(usize, usize)>>,
    pub givens: Option<String>,
    pub fix_first_row: bool,
}

impl SudokuConfig {
    /// A plain grid with `box_rows x box_cols` boxes.
    pub fn new(box_rows: usize, box_cols: usize) -> Self {
        SudokuConfig {
            box_rows,
            box_cols,
            ..Default::default()
        }
    }
}

/// A group of cells with the item tag its digits use and a name for messages.
#[derive(Debug)]
pub(crate) struct Unit {
    pub(crate) tag: String,
    pub(crate) label: String,
    pub(crate) cells: Vec<usize>,
}

/// A built Sudoku problem.
#[derive(Debug, Clone)]
pub struct Sudoku {
    pub problem: Problem,
    /// Givens or the fixed first row, as options (a prefix for the search).
    pub prefix: Vec<OptionId>,
    side: usize,
    symmetry_factor: u128,
}

impl Sudoku {
    pub fn build(config: &SudokuConfig) -> Result<Sudoku, BuildError> {
        check_range("box rows", config.box_rows, 1, MAX_SIDE)?;
        check_range("box columns", config.box_cols, 1, MAX_SIDE)?;
        let s = config.box_rows * config.box_cols;
        check_range("side (box rows x box columns)", s, 1, MAX_SIDE)?;
        let units = units(config, s)?;

        let givens = match (&config.givens, config.fix_first_row) {
            (Some(_), true) => return Err(BuildError::FixFirstRowWithGivens),
            (Some(text), false) => parse_givens(text, s)?,
            (None, true) => {
                let mut g = vec![0u8; s * s];
                for (c, v) in g.iter_mut().take(s).enumerate() {
                    *v = (c + 1) as u8;
                }
                g
            }
            (None, false) => vec![0u8; s * s],
        };
        find_clash(&givens, &units, s)?;
        let symmetry_factor = if config.fix_first_row {
            factorial(s).ok_or_else(|| BuildError::FactorOverflow {
                what: format!("{s}!"),
            })?
        } else {
            1
        };

        let mut b = ProblemBuilder::new();
        for r in 1..=s {
            for c in 1..=s {
                b.primary(&format!("r{r}c{c}"))?;
            }
        }
        // Primary units (every digit once) first, then secondary ones (at most once).
        let mut order: Vec<usize> = (0..units.len())
            .filter(|&u| units[u].cells.len() == s)
            .collect();
        order.extend((0..units.len()).filter(|&u| units[u].cells.len() < s));
        let mut base = vec![0u32; units.len()];
        for &u in &order {
            for d in 1..=s {
                let name = format!("{}#{d}", units[u].tag);
                let id = if units[u].cells.len() == s {
                    b.primary(&name)?
                } else {
                    b.secondary(&name)?
                };
                if d == 1 {
                    base[u] = id;
                }
            }
        }
        let mut cell_units: Vec<Vec<usize>> = vec![Vec::new(); s * s];
        for &u in &order {
            for &cell in &units[u].cells {
                cell_units[cell].push(u);
            }
        }
        let mut items = Vec::new();
        for (cell, member_of) in cell_units.iter().enumerate() {
            for d in 0..s {
                items.clear();
                items.push(cell as u32);
                items.extend(member_of.iter().map(|&u| base[u] + d as u32));
                b.option(&items)?;
            }
        }
        let prefix = placements(&givens, s);
        Ok(Sudoku {
            problem: b.build()?,
            prefix,
            side: s,
            symmetry_factor,
        })
    }

    pub fn side(&self) -> usize {
        self.side
    }

    /// Multiply counts by this: `side!` with a fixed first row, else 1.
    pub fn symmetry_factor(&self) -> u128 {
        self.symmetry_factor
    }

    /// The option that places `digit` (1-based) at 0-based (`row`, `col`).
    pub fn option_id(&self, row: usize, col: usize, digit: usize) -> OptionId {
        ((row * self.side + col) * self.side + digit - 1) as OptionId
    }

    /// The 0-based (row, column) and 1-based digit of an option.
    pub fn placement(&self, option: OptionId) -> Option<(usize, usize, usize)> {
        let s = self.side;
        let o = option as usize;
        (o < s * s * s).then(|| (o / (s * s), o / s % s, o % s + 1))
    }

    /// The grid of a solution (a list of options, the prefix included), in the givens format.
    pub fn decode(&self, solution: &[OptionId]) -> Result<String, DecodeError> {
        let s = self.side;
        let mut grid = vec![0u8; s * s];
        for &o in solution {
            let (r, c, d) = self.placement(o).ok_or(DecodeError::UnknownOption(o))?;
            if grid[r * s + c] != 0 {
                return Err(DecodeError::CellTwice(r + 1, c + 1));
            }
            grid[r * s + c] = d as u8;
        }
        if let Some(i) = grid.iter().position(|&v| v == 0) {
            return Err(DecodeError::Unfilled(i / s + 1, i % s + 1));
        }
        Ok(format_grid(&grid, s))
    }
}

/// The options that place `givens` (cells row by row, 0 = empty) in a Sudoku of side `side`:
/// option `(row * side + col) * side + digit - 1`, the numbering of [`Sudoku::build`] (and the
/// inverse of `crate::grids::givens_from_prefix`).
pub fn placements(givens: &[u8], side: usize) -> Vec<OptionId> {
    givens
        .iter()
        .enumerate()
        .filter(|&(_, &v)| v > 0)
        .map(|(cell, &v)| (cell * side + usize::from(v) - 1) as OptionId)
        .collect()
}

/// A list of options that is not a filled grid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("option {0} is not a Sudoku placement")]
    UnknownOption(OptionId),
    #[error("cell r{0}c{1} is filled twice")]
    CellTwice(usize, usize),
    #[error("cell r{0}c{1} is empty")]
    Unfilled(usize, usize),
}

/// Every group of the grid: rows, columns, boxes, then variant and extra groups.
pub(crate) fn units(config: &SudokuConfig, s: usize) -> Result<Vec<Unit>, BuildError> {
    let (br, bc) = (config.box_rows, config.box_cols);
    let unit = |tag: String, label: String, cells: Vec<usize>| Unit { tag, label, cells };
    let mut units = Vec::new();
    for r in 0..s {
        let cells = (0..s).map(|c| r * s + c).collect();
        units.push(unit(format!("r{}", r + 1), format!("row {}", r + 1), cells));
    }
    for c in 0..s {
        let cells = (0..s).map(|r| r * s + c).collect();
        units.push(unit(
            format!("c{}", c + 1),
            format!("column {}", c + 1),
            cells,
        ));
    }
    // Boxes are numbered row by row: s / bc boxes across.
    for b in 0..s {
        let (top, left) = (b / br * br, b % br * bc);
        let cells = (0..s).map(|k| (top + k / bc) * s + left + k % bc).collect();
        units.push(unit(format!("b{}", b + 1), format!("box {}", b + 1), cells));
    }
    let mut seen = Vec::new();
    for &v in &config.variants {
        if seen.contains(&v) {
            return Err(BuildError::DuplicateVariant(v));
        }
        seen.push(v);
        match v {
            Variant::Diagonal => {
                let main = (0..s).map(|i| i * s + i).collect();
                let anti = (0..s).map(|i| i * s + (s - 1 - i)).collect();
                units.push(unit("d1".into(), "the main diagonal".into(), main));
                units.push(unit("d2".into(), "the anti-diagonal".into(), anti));
            }
            Variant::Hyper => {
                let (across, down) = (s / (bc + 1), s / (br + 1));
                if across == 0 || down == 0 {
                    return Err(BuildError::NoHyperWindow {
                        box_rows: br,
                        box_cols: bc,
                        side: s,
                    });
                }
                let mut k = 0;
                for i in 0..down {
                    for j in 0..across {
                        let (top, left) = (1 + i * (br + 1), 1 + j * (bc + 1));
                        let cells = (0..s).map(|q| (top + q / bc) * s + left + q % bc).collect();
                        k += 1;
                        units.push(unit(format!("w{k}"), format!("hyper window {k}"), cells));
                    }
                }
            }
            Variant::Disjoint => {
                for p in 0..s {
                    let (dr, dc) = (p / bc, p % bc);
                    let cells = (0..s)
                        .map(|b| (b / br * br + dr) * s + b % br * bc + dc)
                        .collect();
                    units.push(unit(
                        format!("j{}", p + 1),
                        format!("disjoint group {}", p + 1),
                        cells,
                    ));
                }
            }
        }
    }
    for (g, group) in config.extra_groups.iter().enumerate() {
        let bad = |reason: String| BuildError::BadGroup {
            group: g + 1,
            reason,
        };
        if group.is_empty() {
            return Err(bad("no cells".into()));
        }
        if group.len() > s {
            return Err(bad(format!(
                "{} cells cannot all differ with {s} digits",
                group.len()
            )));
        }
        let mut cells = Vec::with_capacity(group.len());
        for &(r, c) in group {
            if !(1..=s).contains(&r) || !(1..=s).contains(&c) {
                return Err(bad(format!("cell ({r}, {c}) is off the {s}x{s} grid")));
            }
            let cell = (r - 1) * s + c - 1;
            if cells.contains(&cell) {
                return Err(bad(format!("cell ({r}, {c}) is listed twice")));
            }
            cells.push(cell);
        }
        units.push(unit(
            format!("x{}", g + 1),
            format!("extra group {}", g + 1),
            cells,
        ));
    }
    Ok(units)
}

/// The first pair of givens with the same digit in one group.
pub(crate) fn find_clash(givens: &[u8], units: &[Unit], s: usize) -> Result<(), GivensError> {
    let mut first_at = vec![usize::MAX; s + 1];
    for unit in units {
        first_at.fill(usize::MAX);
        for &cell in &unit.cells {
            let d = givens[cell] as usize;
            if d == 0 {
                continue;
            }
            if first_at[d] != usize::MAX {
                let rc = |i: usize| (i / s + 1, i % s + 1);
                return Err(GivensError::Clash {
                    first: rc(first_at[d]),
                    second: rc(cell),
                    digit: d,
                    unit: unit.label.clone(),
                });
            }
            first_at[d] = cell;
        }
    }
    Ok(())
}

/// An independent checker for finished grids: it parses the grid itself and derives every
/// group from cell coordinates, sharing no code with the builder above.
pub mod verify {
    use super::Variant;

    /// Maps a 0-based (row, column) to the group of one rule it belongs to, if any.
    type KeyFn = Box<dyn Fn(usize, usize) -> Option<usize>>;

    /// Checks that `grid` (givens format, every cell filled) is a valid Sudoku for `r x c`
    /// boxes with the given variants and extra groups (1-based cells), and agrees with
    /// `givens` where they are not empty. The error says which rule fails where.
    pub fn check_grid(
        grid: &str,
        box_rows: usize,
        box_cols: usize,
        variants: &[Variant],
        extra_groups: &[Vec<(usize, usize)>],
        givens: Option<&str>,
    ) -> Result<(), String> {
        let s = box_rows * box_cols;
        let g = read(grid, s).map_err(|e| format!("grid: {e}"))?;
        if let Some((i, _)) = g.iter().enumerate().find(|&(_, &v)| v == 0 || v > s) {
            return Err(format!(
                "cell r{}c{} holds {} (need 1..={s})",
                i / s + 1,
                i % s + 1,
                g[i]
            ));
        }
        let at = |r: usize, c: usize| g[r * s + c];
        // Each key function maps a cell to the group it belongs to (None: no group).
        let mut rules: Vec<(String, KeyFn)> = vec![
            ("row".into(), Box::new(|r, _| Some(r))),
            ("column".into(), Box::new(|_, c| Some(c))),
            (
                "box".into(),
                Box::new(move |r, c| Some(r / box_rows * box_rows + c / box_cols)),
            ),
        ];
        for v in variants {
            match v {
                Variant::Diagonal => {
                    rules.push((
                        "main diagonal".into(),
                        Box::new(|r, c| (r == c).then_some(0)),
                    ));
                    rules.push((
                        "anti-diagonal".into(),
                        Box::new(move |r, c| (r + c + 1 == s).then_some(0)),
                    ));
                }
                Variant::Hyper => {
                    let window = move |x: usize, size: usize| -> Option<usize> {
                        // Windows of `size` start at 1, 1 + (size + 1), ... and must fit.
                        let x = x.checked_sub(1)?;
                        let (k, off) = (x / (size + 1), x % (size + 1));
                        (off < size && (k + 1) * (size + 1) <= s).then_some(k)
                    };
                    rules.push((
                        "hyper window".into(),
                        Box::new(move |r, c| Some(window(r, box_rows)? * s + window(c, box_cols)?)),
                    ));
                }
                Variant::Disjoint => rules.push((
                    "disjoint group".into(),
                    Box::new(move |r, c| Some((r % box_rows) * box_cols + c % box_cols)),
                )),
            }
        }
        // Where each (group, digit) was first seen; group keys are below s * s. A table, not
        // a hash map: the coordinator checks every grid of a benchmark with this.
        let mut seen: Vec<Option<(usize, usize)>> = vec![None; s * s * (s + 1)];
        for (name, key) in &rules {
            seen.fill(None);
            for r in 0..s {
                for c in 0..s {
                    if let Some(k) = key(r, c) {
                        let slot = seen
                            .get_mut(k * (s + 1) + at(r, c))
                            .ok_or_else(|| format!("{name}: group {k} out of range"))?;
                        if let Some((r0, c0)) = slot.replace((r, c)) {
                            return Err(format!(
                                "{name}: r{}c{} and r{}c{} both hold {}",
                                r0 + 1,
                                c0 + 1,
                                r + 1,
                                c + 1,
                                at(r, c)
                            ));
                        }
                    }
                }
            }
        }
        for (n, group) in extra_groups.iter().enumerate() {
            let mut digits = Vec::new();
            for &(r, c) in group {
                if r == 0 || c == 0 || r > s || c > s {
                    return Err(format!(
                        "extra group {}: cell ({r}, {c}) is off the grid",
                        n + 1
                    ));
                }
                let v = at(r - 1, c - 1);
                if digits.contains(&v) {
                    return Err(format!("extra group {}: digit {v} twice", n + 1));
                }
                digits.push(v);
            }
        }
        if let Some(givens) = givens {
            let given = read(givens, s).map_err(|e| format!("givens: {e}"))?;
            for (i, (&want, &got)) in given.iter().zip(&g).enumerate() {
                if want != 0 && want != got {
                    return Err(format!(
                        "cell r{}c{} holds {got} but the givens say {want}",
                        i / s + 1,
                        i % s + 1
                    ));
                }
            }
        }
        Ok(())
    }

    /// Reads a grid: whitespace-separated numbers, or one base-36 character per cell.
    fn read(text: &str, s: usize) -> Result<Vec<usize>, String> {
        let text = text.trim();
        let values: Vec<usize> = if text.split_whitespace().nth(1).is_some() {
            text.split_whitespace()
                .map(|t| {
                    if t == "." {
                        Ok(0)
                    } else {
                        t.parse().map_err(|_| format!("bad number {t}"))
                    }
                })
                .collect::<Result<_, _>>()?
        } else {
            text.chars()
                .map(|ch| {
                    if ch == '.' {
                        Some(0)
                    } else {
                        ch.to_digit(36).map(|d| d as usize)
                    }
                })
                .collect::<Option<_>>()
                .ok_or("bad character")?
        };
        if values.len() != s * s {
            return Err(format!("{} cells, expected {}", values.len(), s * s));
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::verify::check_grid;
    use super::*;

    fn build(config: &SudokuConfig) -> Sudoku {
        Sudoku::build(config).unwrap()
    }

    #[test]
    fn sizes_of_plain_grids() {
        // 9x9: 729 options (cell x digit) and 4 * 81 = 324 items (seed 000 section 2.3).
        let s9 = build(&SudokuConfig::new(3, 3));
        assert_eq!(s9.problem.num_options(), 729);
        assert_eq!(s9.problem.num_items(), 324);
        assert_eq!(s9.problem.num_primary(), 324);
        assert_eq!(s9.problem.num_incidences(), 729 * 4);
        // 4x4: the 64 x 64 matrix of seed 000.
        let s4 = build(&SudokuConfig::new(2, 2));
        assert_eq!((s4.problem.num_options(), s4.problem.num_items()), (64, 64));
        let s6 = build(&SudokuConfig::new(2, 3));
        assert_eq!(
            (s6.problem.num_options(), s6.problem.num_items()),
            (216, 144)
        );
        let s16 = build(&SudokuConfig::new(4, 4));
        assert_eq!(s16.problem.num_options(), 4096);
        assert!(s9.prefix.is_empty());
        assert_eq!(s9.symmetry_factor(), 1);
    }

    #[test]
    fn option_layout() {
        let s = build(&SudokuConfig::new(2, 3));
        let o = s.option_id(4, 2, 5);
        assert_eq!(s.placement(o), Some((4, 2, 5)));
        assert_eq!(s.problem.option_text(o), "r5c3 r5#5 c3#5 b5#5");
        assert_eq!(s.placement(216), None);
    }

    #[test]
    fn boxes_of_a_2x3_grid() {
        // Box 2 of a 6x6 grid with 2-row, 3-column boxes holds rows 1-2, columns 4-6.
        let s = build(&SudokuConfig::new(2, 3));
        let b2 = s.problem.item_by_name("b2#1").unwrap();
        let cells: Vec<String> = (0..216)
            .filter(|&o| s.problem.option(o).iter().any(|&(i, _)| i == b2))
            .map(|o| s.problem.item_name(s.problem.option(o)[0].0).to_string())
            .collect();
        assert_eq!(cells, ["r1c4", "r1c5", "r1c6", "r2c4", "r2c5", "r2c6"]);
    }

    #[test]
    fn variant_items() {
        let mut c = SudokuConfig::new(3, 3);
        c.variants = vec![Variant::Diagonal, Variant::Hyper, Variant::Disjoint];
        let s = build(&c);
        // 324 + 2*9 diagonal + 4*9 hyper + 9*9 disjoint.
        assert_eq!(s.problem.num_items(), 324 + 18 + 36 + 81);
        // The centre cell lies on both diagonals, in no hyper window (row 5 is the gap
        // between windows) and in disjoint group 5.
        let o = s.option_id(4, 4, 7);
        assert_eq!(
            s.problem.option_text(o),
            "r5c5 r5#7 c5#7 b5#7 d1#7 d2#7 j5#7"
        );
        // r2c2 is in window 1; r6c8 in window 4.
        assert!(s.problem.option_text(s.option_id(1, 1, 1)).contains("w1#1"));
        assert!(s.problem.option_text(s.option_id(5, 7, 1)).contains("w4#1"));
        assert!(!s.problem.option_text(s.option_id(4, 1, 1)).contains('w'));
    }

    #[test]
    fn hyper_needs_room() {
        let mut c = SudokuConfig::new(1, 3);
        c.variants = vec![Variant::Hyper];
        assert!(matches!(
            Sudoku::build(&c),
            Err(BuildError::NoHyperWindow { .. })
        ));
        let mut c = SudokuConfig::new(2, 2);
        c.variants = vec![Variant::Hyper];
        let s = build(&c);
        // One window, rows/columns 2-3.
        assert_eq!(s.problem.num_items(), 64 + 4);
    }

    #[test]
    fn extra_groups() {
        let mut c = SudokuConfig::new(2, 2);
        c.extra_groups = vec![vec![(1, 1), (2, 3), (3, 2), (4, 4)], vec![(1, 2), (4, 3)]];
        let s = build(&c);
        assert_eq!(s.problem.num_primary(), 64 + 4);
        assert_eq!(s.problem.num_items(), 64 + 8);
        assert_eq!(
            s.problem.option_text(s.option_id(3, 2, 2)),
            "r4c3 r4#2 c3#2 b4#2 x2#2"
        );
        let bad = |groups: Vec<Vec<(usize, usize)>>| {
            let mut c = SudokuConfig::new(2, 2);
            c.extra_groups = groups;
            Sudoku::build(&c).unwrap_err().to_string()
        };
        assert_eq!(bad(vec![vec![(1, 1)], vec![]]), "extra group 2: no cells");
        assert_eq!(
            bad(vec![vec![(1, 1), (5, 1)]]),
            "extra group 1: cell (5, 1) is off the 4x4 grid"
        );
        assert_eq!(
            bad(vec![vec![(1, 1), (1, 1)]]),
            "extra group 1: cell (1, 1) is listed twice"
        );
        assert!(bad(vec![vec![(1, 1), (1, 2), (1, 3), (1, 4), (2, 1)]]).contains("5 cells"));
    }

    #[test]
    fn givens_become_a_prefix() {
        let mut c = SudokuConfig::new(2, 2);
        c.givens = Some("1..2....3.....4.".into());
        let s = build(&c);
        assert_eq!(
            s.prefix,
            [
                s.option_id(0, 0, 1),
                s.option_id(0, 3, 2),
                s.option_id(2, 0, 3),
                s.option_id(3, 2, 4)
            ]
        );
        c.givens = Some("1 0 0 2 0 0 0 0 3 0 0 0 0 0 4 .".into());
        assert_eq!(build(&c).prefix, s.prefix);
    }

    #[test]
    fn givens_errors() {
        let err = |box_rows, box_cols, givens: &str| {
            let mut c = SudokuConfig::new(box_rows, box_cols);
            c.givens = Some(givens.into());
            Sudoku::build(&c).unwrap_err().to_string()
        };
        assert_eq!(
            err(2, 2, "1..2"),
            "givens: 4 cells given, expected 16 for a 4x4 grid"
        );
        assert_eq!(
            err(2, 2, "1..2...*3.....4."),
            "givens: bad character `*` at position 8 (r2c4)"
        );
        assert_eq!(
            err(2, 2, "1..2....3.....5."),
            "givens: digit 5 at position 15 (r4c3) exceeds the side 4"
        );
        assert_eq!(
            err(2, 2, "1..1............"),
            "givens: r1c1 and r1c4 both hold 1 in row 1"
        );
        assert_eq!(
            err(2, 2, "1.......1......."),
            "givens: r1c1 and r3c1 both hold 1 in column 1"
        );
        assert_eq!(
            err(2, 2, "1....1.........."),
            "givens: r1c1 and r2c2 both hold 1 in box 1"
        );
        assert_eq!(
            err(2, 2, "1 2 x 4 5 6 7 8 9 1 2 3 4 5 6 7"),
            "givens: bad number `x` at position 3 (r1c3)"
        );
        let mut c = SudokuConfig::new(2, 2);
        c.variants = vec![Variant::Diagonal];
        c.givens = Some("1..............1".into());
        assert_eq!(
            Sudoku::build(&c).unwrap_err().to_string(),
            "givens: r1c1 and r4c4 both hold 1 in the main diagonal"
        );
        c.givens = None;
        c.fix_first_row = true;
        c.variants = vec![Variant::Diagonal, Variant::Diagonal];
        assert_eq!(
            Sudoku::build(&c).unwrap_err(),
            BuildError::DuplicateVariant(Variant::Diagonal)
        );
    }

    #[test]
    fn sixteen_by_sixteen_letters() {
        let mut text = String::from("G");
        text.push_str(&".".repeat(255));
        let v = parse_givens(&text, 16).unwrap();
        assert_eq!(v[0], 16);
        assert_eq!(format_grid(&v, 16), text);
        assert!(parse_givens(&text.replace('G', "H"), 16).is_err());
        let big = format_grid(&[40, 0, 1], 40);
        assert_eq!(big, "40 0 1");
    }

    #[test]
    fn fix_first_row() {
        let mut c = SudokuConfig::new(2, 3);
        c.fix_first_row = true;
        let s = build(&c);
        assert_eq!(s.symmetry_factor(), 720);
        assert_eq!(
            s.prefix,
            (0..6).map(|k| s.option_id(0, k, k + 1)).collect::<Vec<_>>()
        );
        c.givens = Some(".".repeat(36));
        assert_eq!(
            Sudoku::build(&c).unwrap_err(),
            BuildError::FixFirstRowWithGivens
        );
    }

    #[test]
    fn sizes_are_bounded() {
        assert!(Sudoku::build(&SudokuConfig::new(0, 3)).is_err());
        assert!(Sudoku::build(&SudokuConfig::new(9, 9)).is_err());
        assert!(Sudoku::build(&SudokuConfig::new(1, 1)).is_ok());
        let mut c = SudokuConfig::new(6, 6);
        c.fix_first_row = true;
        assert!(matches!(
            Sudoku::build(&c),
            Err(BuildError::FactorOverflow { .. })
        ));
    }

    #[test]
    fn decode_and_verify() {
        // A 4x4 grid with its options; decode gives it back and the verifier accepts it.
        let grid = "1234341221434321";
        let s = build(&SudokuConfig::new(2, 2));
        let options: Vec<OptionId> = grid
            .chars()
            .enumerate()
            .map(|(i, ch)| s.option_id(i / 4, i % 4, ch.to_digit(10).unwrap() as usize))
            .collect();
        assert_eq!(s.decode(&options).unwrap(), grid);
        assert_eq!(s.decode(&options[1..]), Err(DecodeError::Unfilled(1, 1)));
        assert_eq!(
            s.decode(&[options[0], options[0]]),
            Err(DecodeError::CellTwice(1, 1))
        );
        assert_eq!(s.decode(&[64]), Err(DecodeError::UnknownOption(64)));
        assert_eq!(
            check_grid(grid, 2, 2, &[], &[], Some("1...............")),
            Ok(())
        );
        assert!(check_grid(grid, 2, 2, &[], &[], Some("2...............")).is_err());
        // Its main diagonal 1,4,4,1 repeats.
        assert!(check_grid(grid, 2, 2, &[Variant::Diagonal], &[], None).is_err());
        assert_eq!(
            check_grid("1234341243212143", 2, 2, &[Variant::Diagonal], &[], None),
            Ok(())
        );
        // Swapping two cells breaks a column.
        assert!(check_grid("2134341221434321", 2, 2, &[], &[], None).is_err());
        assert!(check_grid(grid, 2, 2, &[], &[vec![(1, 1), (2, 3)]], None).is_err());
        assert!(check_grid(grid, 2, 2, &[], &[vec![(1, 1), (2, 4)]], None).is_ok());
    }

    #[test]
    fn verifier_knows_the_9x9_windows_and_disjoint_groups() {
        // The solved grid shown on Wikipedia's "Sudoku" page: valid, but r1c7 and r7c1 (same
        // position in boxes 3 and 7) both hold 9, and window 1 (r2-4, c2-4) holds 7 twice.
        let g = "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
        assert_eq!(check_grid(g, 3, 3, &[], &[], None), Ok(()));
        let disjoint = check_grid(g, 3, 3, &[Variant::Disjoint], &[], None);
        assert!(disjoint.unwrap_err().starts_with("disjoint group"));
        let hyper = check_grid(g, 3, 3, &[Variant::Hyper], &[], None);
        assert!(hyper.unwrap_err().starts_with("hyper window"));
    }

    #[test]
    fn variant_names_parse() {
        assert_eq!("hyper".parse::<Variant>(), Ok(Variant::Hyper));
        assert!("windoku".parse::<Variant>().is_err());
        assert_eq!(
            serde_json::to_string(&Variant::Disjoint).unwrap(),
            "\"disjoint\""
        );
    }

    #[test]
    fn the_grid_checker_names_the_rule_and_both_cells_of_a_clash() {
        let plain = "1234341221434321";
        // A diagonal 4x4 grid (`dancehall sudoku generate --seed 3 --box 2x2 --variant
        // diagonal`): both diagonals hold 1..4.
        let diagonal = "3241413214232314";
        assert_eq!(check_grid(plain, 2, 2, &[], &[], None), Ok(()));
        assert_eq!(
            check_grid(diagonal, 2, 2, &[Variant::Diagonal], &[], None),
            Ok(())
        );
        let e = check_grid(plain, 2, 2, &[Variant::Diagonal], &[], None).unwrap_err();
        assert_eq!(e, "main diagonal: r2c2 and r3c3 both hold 4");
        let e = check_grid("1134341221434321", 2, 2, &[], &[], None).unwrap_err();
        assert_eq!(e, "row: r1c1 and r1c2 both hold 1");
        // r1c1 and r1c2 exchanged: row 1 holds, column 1 and box 1 do not.
        let e = check_grid("2134341221434321", 2, 2, &[], &[], None).unwrap_err();
        assert_eq!(e, "column: r1c1 and r3c1 both hold 2");
        let e = check_grid(plain, 2, 2, &[], &[], Some("2...............")).unwrap_err();
        assert!(e.contains("r1c1"), "{e}");
    }
}
