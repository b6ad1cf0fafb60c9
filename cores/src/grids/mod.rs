//! Counting Sudoku grids at scale: the band reduction of Felgenhauer and Jarvis ("Mathematics
//! of Sudoku I", 2006; OEIS A107739) as weighted units ([`band`], [`units`]) and a counting
//! core specialised for Sudoku completions ([`completion`]): bit-parallel rows, columns and
//! boxes for every band but the last, and the last band counted from its column sets.
//!
//! Beside them, [`group_core`]: Sudoku grids with extra groups (any variant, read back from the
//! problem by [`groups`]), whose 9x9 X-Sudoku units (the middle band given) [`x_band`] counts
//! from box configurations.
//!
//! Sudoku grid counting only: the n queens core is [`crate::queens`], and the names of the
//! cores of both families (`CountCore`, `CoreSpec`) are in [`crate::count_core`].

pub mod band;
pub mod completion;
pub mod group_core;
pub mod groups;
pub mod orbits;
pub mod rows;
pub mod symmetry;
pub mod three_band;
pub mod two_band;
pub mod units;
pub mod variant_band;
pub mod x_band;

pub use completion::{count_completions, givens_from_prefix, CompletionError};

#[cfg(test)]
mod tests;
