//! Weighted units for every grid of a Sudoku with extra groups (any variant or `--group`):
//! relabelling the digits maps a grid onto a grid (every group holds each digit at most once
//! whatever the digits are called), and exactly one relabelling of a grid has its first row
//! `1 2 ... side`; so the grids are `side!` times those with that first row. Those are split
//! by the filling of the next rows (every filling consistent with all groups): one unit per
//! filling, weight 1, counted by a completion core.
//!
//! The total is `side! x sum(count)`. No other symmetry is used here. The generator
//! `sudoku-variant-grids` now uses the smaller units of [`super::variant_band`]; this route
//! stays as an independent check of them in `grids::tests`.

use super::group_core::GroupGrid;
use super::groups::SudokuGroups;
use super::CompletionError;

/// The units of a whole-grid count of a Sudoku with groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowUnits {
    /// Each unit's givens (cells row by row, 0 empty): the first `rows` rows.
    pub units: Vec<Vec<u8>>,
    pub rows: usize,
    /// `side!`.
    pub symmetry_factor: u128,
}

/// The units that count every grid of `groups`' shape and groups, with the first `rows` rows
/// given (row 1 fixed to `1 2 ... side`, then every consistent filling of rows 2..=rows).
pub fn row_units(groups: &SudokuGroups, rows: usize) -> Result<RowUnits, CompletionError> {
    let grid = GroupGrid::new(groups)?;
    let side = grid.side();
    let rows = rows.clamp(1, side);
    let mut givens = vec![0u8; side * side];
    for (c, g) in givens.iter_mut().take(side).enumerate() {
        *g = c as u8 + 1;
    }
    let cells: Vec<usize> = (side..rows * side).collect();
    let units = grid.fillings(&givens, &cells);
    let symmetry_factor = (1..=side as u128).product();
    Ok(RowUnits {
        units,
        rows,
        symmetry_factor,
    })
}
