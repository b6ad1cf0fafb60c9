//! Puzzles as the solvers see them: a [`Shape`] (box size, variants, extra groups), its
//! [`Geometry`] (every group of cells, each cell's peers) and the givens.
//!
//! Input format: one puzzle per line, `side * side` characters row by row, `.` or `0` for an
//! empty cell, digits `1`-`9` and then letters `A`-`G` (either case) for 10 to 16, so a 16x16
//! puzzle is written with `1`-`9`, `A`-`G` (the format of `crate::problems::sudoku`'s givens,
//! whose parser is reused). Blank lines and lines starting with `#` are skipped. Sides 1 to 16
//! ([`MAX_SIDE`]): with no box shape given, the shape is inferred from the length (16 cells:
//! 2x2 boxes, 36: 2x3, 64: 2x4, 81: 3x3, 100: 2x5, 144: 3x4, 196: 2x7, 225: 3x5, 256: 4x4;
//! R <= C, R as large as possible); prime sides need an explicit shape.
//!
//! Invariant: a [`Puzzle`] always has well-formed givens that do not clash in any group of
//! its shape; every bad line is a [`LineError`] naming the line and the problem, never a
//! panic. Solutions are checked by [`Puzzle::verify`], which calls
//! `crate::problems::sudoku::verify::check_grid`: it derives the groups from cell
//! coordinates with code of its own, sharing nothing with [`Geometry`] or the solvers.

use std::sync::{Arc, OnceLock};

use super::SolveError;
use crate::problems::sudoku::{self, find_clash, parse_givens, units, Sudoku, SudokuConfig};
use crate::problems::{BuildError, GivensError, Variant};

/// Largest side the solvers accept (domains are 16-bit sets).
pub const MAX_SIDE: usize = 16;

/// Box shape, variants and extra groups: everything but the givens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub box_rows: usize,
    pub box_cols: usize,
    pub variants: Vec<Variant>,
    /// Extra groups as 1-based (row, column) cells.
    pub extra_groups: Vec<Vec<(usize, usize)>>,
}

impl Shape {
    /// Plain Sudoku with `box_rows x box_cols` boxes.
    pub fn new(box_rows: usize, box_cols: usize) -> Shape {
        Shape {
            box_rows,
            box_cols,
            variants: Vec::new(),
            extra_groups: Vec::new(),
        }
    }

    pub fn side(&self) -> usize {
        self.box_rows * self.box_cols
    }

    /// No variant and no extra group.
    pub fn is_plain(&self) -> bool {
        self.variants.is_empty() && self.extra_groups.is_empty()
    }

    /// The usual shape for a line of `cells` characters (see the module docs).
    pub fn infer(cells: usize) -> Option<Shape> {
        let side = (1..=MAX_SIDE).find(|s| s * s == cells)?;
        let rows = (2..=side)
            .take_while(|r| r * r <= side)
            .filter(|r| side % r == 0)
            .last()?;
        Some(Shape::new(rows, side / rows))
    }

    /// The configuration the exact-cover builder takes, with `givens`.
    pub fn config(&self, givens: Option<String>) -> SudokuConfig {
        SudokuConfig {
            box_rows: self.box_rows,
            box_cols: self.box_cols,
            variants: self.variants.clone(),
            extra_groups: self.extra_groups.clone(),
            givens,
            fix_first_row: false,
        }
    }
}

/// A group of cells that holds each digit at most once; a `full` group (as many cells as
/// digits) holds each digit exactly once.
#[derive(Debug, Clone)]
pub struct Group {
    pub label: String,
    pub cells: Vec<usize>,
    pub full: bool,
}

/// The groups of a shape and, for each cell, its groups and peers. Groups come in the order
/// rows, columns, boxes, variant groups, extra groups (that of `problems::sudoku`).
#[derive(Debug)]
pub struct Geometry {
    pub shape: Shape,
    pub side: usize,
    pub groups: Vec<Group>,
    /// For each cell, the indices of its groups.
    pub cell_groups: Vec<Vec<usize>>,
    /// For each cell, the other cells that share a group with it (sorted, no repeats).
    pub peers: Vec<Vec<usize>>,
    units: Vec<sudoku::Unit>,
    exact_cover: OnceLock<Result<Sudoku, BuildError>>,
}

impl Geometry {
    pub fn new(shape: &Shape) -> Result<Geometry, BuildError> {
        let side = shape.side();
        crate::problems::check_range("box rows", shape.box_rows, 1, MAX_SIDE)?;
        crate::problems::check_range("box columns", shape.box_cols, 1, MAX_SIDE)?;
        crate::problems::check_range("side (box rows x box columns)", side, 1, MAX_SIDE)?;
        let units = units(&shape.config(None), side)?;
        let groups: Vec<Group> = units
            .iter()
            .map(|u| Group {
                label: u.label.clone(),
                cells: u.cells.clone(),
                full: u.cells.len() == side,
            })
            .collect();
        let n = side * side;
        let mut cell_groups = vec![Vec::new(); n];
        for (g, group) in groups.iter().enumerate() {
            for &c in &group.cells {
                cell_groups[c].push(g);
            }
        }
        let peers = (0..n)
            .map(|c| {
                let mut p: Vec<usize> = cell_groups[c]
                    .iter()
                    .flat_map(|&g| groups[g].cells.iter().copied())
                    .filter(|&q| q != c)
                    .collect();
                p.sort_unstable();
                p.dedup();
                p
            })
            .collect();
        Ok(Geometry {
            shape: shape.clone(),
            side,
            groups,
            cell_groups,
            peers,
            units,
            exact_cover: OnceLock::new(),
        })
    }

    pub fn cells(&self) -> usize {
        self.side * self.side
    }

    /// Plain 9x9 with 3x3 boxes: the shape of the bit-parallel kernel.
    pub fn is_classic(&self) -> bool {
        self.shape.box_rows == 3 && self.shape.box_cols == 3 && self.shape.is_plain()
    }

    /// The exact-cover form of the shape with no givens (built once, on first use); `user`
    /// names the solver in the error.
    pub fn exact_cover(&self, user: &'static str) -> Result<&Sudoku, SolveError> {
        self.exact_cover
            .get_or_init(|| Sudoku::build(&self.shape.config(None)))
            .as_ref()
            .map_err(|e| SolveError::Unsupported {
                solver: user,
                what: e.to_string(),
            })
    }
}

/// What is wrong with one puzzle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PuzzleError {
    #[error("{0}")]
    Givens(#[from] GivensError),
    #[error(
        "{cells} cells: not a square grid of side 1 to {MAX_SIDE} whose box shape can be \
         inferred (give the box shape, e.g. --box 2x3)"
    )]
    UnknownSize { cells: usize },
    #[error("{0}")]
    Shape(#[from] BuildError),
}

/// A bad puzzle on a given line (1-based) of the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {error}")]
pub struct LineError {
    pub line: usize,
    pub error: PuzzleError,
}

/// A Sudoku puzzle: well-formed givens that do not clash.
#[derive(Debug, Clone)]
pub struct Puzzle {
    geometry: Arc<Geometry>,
    givens: Vec<u8>,
}

impl Puzzle {
    /// Checks `givens` (one value per cell, 0 = empty) against the geometry.
    pub fn new(geometry: Arc<Geometry>, givens: Vec<u8>) -> Result<Puzzle, PuzzleError> {
        let side = geometry.side;
        if givens.len() != side * side {
            return Err(GivensError::WrongLength {
                found: givens.len(),
                expected: side * side,
                side,
            }
            .into());
        }
        if let Some(i) = givens.iter().position(|&v| usize::from(v) > side) {
            return Err(GivensError::DigitTooLarge {
                value: givens[i].into(),
                position: i + 1,
                row: i / side + 1,
                col: i % side + 1,
                side,
            }
            .into());
        }
        find_clash(&givens, &geometry.units, side)?;
        Ok(Puzzle { geometry, givens })
    }

    /// Reads one puzzle in the text format of the module docs.
    pub fn parse(text: &str, geometry: Arc<Geometry>) -> Result<Puzzle, PuzzleError> {
        let givens = parse_givens(text, geometry.side)?;
        Puzzle::new(geometry, givens)
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    pub fn shared_geometry(&self) -> &Arc<Geometry> {
        &self.geometry
    }

    pub fn side(&self) -> usize {
        self.geometry.side
    }

    /// One value per cell, row by row, 0 = empty.
    pub fn givens(&self) -> &[u8] {
        &self.givens
    }

    /// One bit set per cell: bit `v - 1` for a given `v`, every digit for an empty cell.
    pub fn domains(&self) -> Vec<u16> {
        let all = (1u32 << self.side()) - 1;
        self.givens
            .iter()
            .map(|&v| if v == 0 { all as u16 } else { 1 << (v - 1) })
            .collect()
    }

    /// The number of givens.
    pub fn clues(&self) -> usize {
        self.givens.iter().filter(|&&v| v > 0).count()
    }

    /// The same puzzle with other givens (checked).
    pub fn with_givens(&self, givens: Vec<u8>) -> Result<Puzzle, PuzzleError> {
        Puzzle::new(self.geometry.clone(), givens)
    }

    /// The givens in the one-line text format.
    pub fn text(&self) -> String {
        sudoku::format_grid(&self.givens, self.side())
    }

    /// Checks that `grid` is a finished grid of this puzzle's shape that keeps its givens,
    /// with the independent checker of `problems::sudoku::verify`.
    pub fn verify(&self, grid: &[u8]) -> Result<(), String> {
        let side = self.side();
        if grid.len() != side * side {
            return Err(format!("{} cells, expected {}", grid.len(), side * side));
        }
        let shape = &self.geometry.shape;
        sudoku::verify::check_grid(
            &sudoku::format_grid(grid, side),
            shape.box_rows,
            shape.box_cols,
            &shape.variants,
            &shape.extra_groups,
            Some(&self.text()),
        )
    }
}

/// Reads puzzles line by line. With a shape, every line must fit it; without one, each
/// line's shape is inferred from its length (geometries are built once per shape).
pub struct PuzzleReader {
    fixed: Option<Arc<Geometry>>,
    inferred: Vec<Arc<Geometry>>,
}

impl PuzzleReader {
    pub fn new(shape: Option<&Shape>) -> Result<PuzzleReader, BuildError> {
        let fixed = shape.map(Geometry::new).transpose()?.map(Arc::new);
        Ok(PuzzleReader {
            fixed,
            inferred: Vec::new(),
        })
    }

    /// Parses one line (already known to hold a puzzle) as line `line` of the input.
    pub fn parse_line(&mut self, line: usize, text: &str) -> Result<Puzzle, LineError> {
        let at = |error: PuzzleError| LineError { line, error };
        let geometry = match &self.fixed {
            Some(g) => g.clone(),
            None => {
                let cells = if text.trim().contains(char::is_whitespace) {
                    text.split_whitespace().count()
                } else {
                    text.trim().chars().count()
                };
                let shape =
                    Shape::infer(cells).ok_or_else(|| at(PuzzleError::UnknownSize { cells }))?;
                match self.inferred.iter().find(|g| g.shape == shape) {
                    Some(g) => g.clone(),
                    None => {
                        let g = Arc::new(Geometry::new(&shape).map_err(|e| at(e.into()))?);
                        self.inferred.push(g.clone());
                        g
                    }
                }
            }
        };
        Puzzle::parse(text, geometry).map_err(at)
    }

    /// Every puzzle of a text, one per line, skipping blank lines and `#` comments.
    pub fn parse_all<'a>(
        &'a mut self,
        text: &'a str,
    ) -> impl Iterator<Item = Result<Puzzle, LineError>> + 'a {
        text.lines().enumerate().filter_map(move |(i, l)| {
            let t = l.trim();
            (!t.is_empty() && !t.starts_with('#')).then(|| self.parse_line(i + 1, t))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader() -> PuzzleReader {
        PuzzleReader::new(None).unwrap()
    }

    #[test]
    fn shapes_are_inferred_from_the_length() {
        let dims = |cells| Shape::infer(cells).map(|s| (s.box_rows, s.box_cols));
        assert_eq!(dims(16), Some((2, 2)));
        assert_eq!(dims(36), Some((2, 3)));
        assert_eq!(dims(81), Some((3, 3)));
        assert_eq!(dims(144), Some((3, 4)));
        assert_eq!(dims(256), Some((4, 4)));
        assert_eq!(dims(49), None); // side 7 is prime
        assert_eq!(dims(80), None);
        assert_eq!(dims(289), None); // side 17 is too large
    }

    #[test]
    fn every_bad_line_is_an_error_naming_the_line() {
        let text = "\
# a comment, then a blank line

1234341221434321
123
1234341221434*21
1234341221434325
1134............
";
        let mut r = reader();
        let got: Vec<Result<Puzzle, LineError>> = r.parse_all(text).collect();
        assert!(got[0].is_ok());
        let errs: Vec<String> = got[1..]
            .iter()
            .map(|e| e.as_ref().unwrap_err().to_string())
            .collect();
        assert_eq!(
            errs,
            [
                "line 4: 3 cells: not a square grid of side 1 to 16 whose box shape can be \
                 inferred (give the box shape, e.g. --box 2x3)",
                "line 5: bad character `*` at position 14 (r4c2)",
                "line 6: digit 5 at position 16 (r4c4) exceeds the side 4",
                "line 7: r1c1 and r1c2 both hold 1 in row 1",
            ]
        );
    }

    #[test]
    fn a_fixed_shape_checks_lengths_and_variant_clashes() {
        let mut shape = Shape::new(2, 2);
        shape.variants = vec![Variant::Diagonal];
        let mut r = PuzzleReader::new(Some(&shape)).unwrap();
        assert_eq!(
            r.parse_line(3, "1..2").unwrap_err().to_string(),
            "line 3: 4 cells given, expected 16 for a 4x4 grid"
        );
        assert_eq!(
            r.parse_line(1, "1..............1").unwrap_err().to_string(),
            "line 1: r1c1 and r4c4 both hold 1 in the main diagonal"
        );
        let p = r.parse_line(2, "1...............").unwrap();
        assert_eq!(p.clues(), 1);
        // 1234/3412/2143/4321 has 1,4,4,1 on its main diagonal.
        assert!(p.verify(&digits("1234341221434321")).is_err());
        assert_eq!(p.verify(&digits("1234341243212143")), Ok(()));
        // A grid that drops a given is refused.
        let q = r.parse_line(2, ".2..............").unwrap();
        assert!(q.verify(&digits("1234341243212143")).is_ok());
        let q = r.parse_line(2, "2...............").unwrap();
        assert!(q.verify(&digits("1234341243212143")).is_err());
    }

    #[test]
    fn sixteen_by_sixteen_uses_a_to_g() {
        let mut text = String::from("G1");
        text.push_str(&".".repeat(254));
        let p = reader().parse_line(1, &text).unwrap();
        assert_eq!(p.side(), 16);
        assert_eq!(&p.givens()[..2], &[16, 1]);
        assert_eq!(p.text(), text);
        assert!(reader().parse_line(1, &text.replace('G', "H")).is_err());
    }

    #[test]
    fn geometry_of_a_9x9_grid() {
        let g = Geometry::new(&Shape::new(3, 3)).unwrap();
        assert_eq!(g.groups.len(), 27);
        assert!(g.peers.iter().all(|p| p.len() == 20));
        assert!(g.is_classic());
        let mut s = Shape::new(3, 3);
        s.variants = vec![Variant::Diagonal];
        let g = Geometry::new(&s).unwrap();
        // The centre cell is on both diagonals: 20 + 6 + 6 new peers (two cells of each
        // diagonal are in its box).
        assert_eq!(g.peers[40].len(), 32);
        assert!(!g.is_classic());
        assert!(Geometry::new(&Shape::new(4, 5)).is_err());
    }

    pub(crate) fn digits(s: &str) -> Vec<u8> {
        s.chars().map(|c| c.to_digit(36).unwrap() as u8).collect()
    }
}
