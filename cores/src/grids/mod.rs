//! Counting Sudoku grids at scale: the band reduction of Felgenhauer and Jarvis ("Mathematics
//! of Sudoku I", 2006; OEIS A107739) as weighted units ([`band`], [`units`]) and a counting
//! core specialised for Sudoku completions ([`completion`]): bit-parallel rows, columns and
//! boxes for every band but the last, and the last band counted from its column sets.
//!
//! [`CountCore`] names the core that counts a unit (the Dancing Links engine or this one);
//! [`CoreSpec`] is the core a counting job asks its workers to use. Both cross the wire and
//! the database, so they live here, in the crate every other crate depends on.

pub mod band;
pub mod completion;
pub mod groups;
pub mod units;

pub use completion::{count_completions, givens_from_prefix, CompletionError, Completions};

use std::fmt;

/// The core that counted a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CountCore {
    /// The Dancing Links engine (`crate::xcc`).
    #[default]
    Dlx,
    /// [`completion::count_completions`].
    SudokuBands,
}

impl CountCore {
    pub fn as_str(self) -> &'static str {
        match self {
            CountCore::Dlx => "dlx",
            CountCore::SudokuBands => "sudoku-bands",
        }
    }

    pub fn parse(s: &str) -> Option<CountCore> {
        Some(match s {
            "dlx" => CountCore::Dlx,
            "sudoku-bands" => CountCore::SudokuBands,
            _ => return None,
        })
    }
}

impl fmt::Display for CountCore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The core a counting job's units are counted with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CoreSpec {
    #[default]
    Dlx,
    /// Plain Sudoku completions with `box_rows x box_cols` boxes (no variants): the job's
    /// problem must be exactly [`crate::problems::sudoku::Sudoku`] of that shape.
    SudokuBands { box_rows: usize, box_cols: usize },
}

impl CoreSpec {
    pub fn core(self) -> CountCore {
        match self {
            CoreSpec::Dlx => CountCore::Dlx,
            CoreSpec::SudokuBands { .. } => CountCore::SudokuBands,
        }
    }

    /// `"dlx"` or `"sudoku-bands 3x3"` (the form [`CoreSpec::parse`] reads).
    pub fn text(self) -> String {
        match self {
            CoreSpec::Dlx => "dlx".to_string(),
            CoreSpec::SudokuBands { box_rows, box_cols } => {
                format!("sudoku-bands {box_rows}x{box_cols}")
            }
        }
    }

    pub fn parse(s: &str) -> Option<CoreSpec> {
        let mut words = s.split_whitespace();
        let spec = match (words.next()?, words.next()) {
            ("dlx", None) => CoreSpec::Dlx,
            ("sudoku-bands", Some(shape)) => {
                let (r, c) = shape.split_once('x')?;
                CoreSpec::SudokuBands {
                    box_rows: r.parse().ok()?,
                    box_cols: c.parse().ok()?,
                }
            }
            _ => return None,
        };
        words.next().is_none().then_some(spec)
    }

    /// Whether this core can count `problem` exactly: always for DLX; for the Sudoku core only
    /// when `problem` is the plain Sudoku of its box shape (same items, same options).
    pub fn can_count(self, problem: &crate::xcc::Problem) -> bool {
        match self {
            CoreSpec::Dlx => true,
            CoreSpec::SudokuBands { box_rows, box_cols } => {
                if completion::check_shape(box_rows, box_cols).is_err() {
                    return false;
                }
                let config = crate::problems::sudoku::SudokuConfig::new(box_rows, box_cols);
                match crate::problems::sudoku::Sudoku::build(&config) {
                    Ok(s) => s.problem == *problem,
                    Err(_) => false,
                }
            }
        }
    }
}

impl fmt::Display for CoreSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

#[cfg(test)]
mod tests;
