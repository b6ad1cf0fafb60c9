//! Weighted units for every grid of a Sudoku with extra groups (any variant or `--group`),
//! one per class of first bands.
//!
//! Relabelling the digits maps grids onto grids, and exactly one relabelling of a grid has
//! its first row `1 2 ... side`: the grids are `side!` times those with that first row. Those
//! are split by their first band (every filling of its other rows consistent with all groups).
//! How many ways a first band `B` completes depends on `B` only through the groups that
//! cross from the band into the rest of the grid (the columns and the extra groups with
//! cells on both sides): the rest must put in each such group exactly the digits `B` leaves
//! out of it, and every other constraint on the rest does not mention `B`. So the count is
//! a function of the digits `B` puts in each crossing group. It is also unchanged when the
//! digits are relabelled (a relabelled grid is a grid). Hence two first bands whose digits
//! have the same multiset of *profiles* (a digit's profile: the crossing groups it lies in
//! inside the band) complete in as many ways: one relabelling maps the one's crossing sets
//! onto the other's.
//!
//! [`band_units`] enumerates every first band, keys it by its sorted profiles, and keeps one
//! representative per key with the number of bands that share it as its weight. The total is
//! `side! x sum(weight x count(representative))`; each unit is a partial grid anyone can
//! recount with `dancehall count sudoku --givens ...`. For the 9x9 diagonal Sudoku this turns
//! 2,612,736 first bands into a few thousand units (tested in `grids::tests`, where every
//! band of the small grids is counted against its representative).

use std::collections::HashMap;

use super::group_core::GroupGrid;
use super::groups::SudokuGroups;
use super::CompletionError;

/// One unit: a first band and how many first bands it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BandUnit {
    /// Cells row by row, 0 empty: the first band filled, the rest empty.
    pub givens: Vec<u8>,
    pub weight: u128,
}

/// The units of a whole-grid count of a Sudoku with groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BandUnits {
    /// In the order their first member was met (lexicographic order of the bands).
    pub units: Vec<BandUnit>,
    /// The first bands with row 1 fixed: the sum of the weights.
    pub bands: u128,
    /// `side!`.
    pub symmetry_factor: u128,
}

/// The band-class units of `groups`' grids (see the module's description).
pub fn band_units(groups: &SudokuGroups) -> Result<BandUnits, CompletionError> {
    let grid = GroupGrid::new(groups)?;
    let side = grid.side();
    let band_rows = groups.box_rows;
    let band_cells = band_rows * side;
    // The groups crossing out of the band, as bit positions of a profile.
    let crossing: Vec<Vec<usize>> = grid
        .group_cells()
        .iter()
        .filter(|cells| {
            cells.iter().any(|&c| c < band_cells) && cells.iter().any(|&c| c >= band_cells)
        })
        .map(|cells| cells.iter().copied().filter(|&c| c < band_cells).collect())
        .collect();
    let mut profile_of_cell = vec![0u128; band_cells];
    for (k, cells) in crossing.iter().enumerate() {
        if k >= 128 {
            return Err(CompletionError::Shape {
                rows: groups.box_rows,
                cols: groups.box_cols,
            });
        }
        for &c in cells {
            profile_of_cell[c] |= 1 << k;
        }
    }
    let mut givens = vec![0u8; side * side];
    for (c, g) in givens.iter_mut().take(side).enumerate() {
        *g = c as u8 + 1;
    }
    let cells: Vec<usize> = (side..band_cells).collect();
    let mut index: HashMap<Vec<u128>, usize> = HashMap::new();
    let mut units: Vec<BandUnit> = Vec::new();
    let mut bands = 0u128;
    let mut profiles = vec![0u128; side];
    grid.for_each_filling(&givens, &cells, &mut |band| {
        bands += 1;
        profiles.iter_mut().for_each(|p| *p = 0);
        for (c, &v) in band[..band_cells].iter().enumerate() {
            profiles[usize::from(v - 1)] |= profile_of_cell[c];
        }
        let mut key = profiles.clone();
        key.sort_unstable();
        match index.get(&key) {
            Some(&i) => units[i].weight += 1,
            None => {
                index.insert(key, units.len());
                units.push(BandUnit {
                    givens: band.to_vec(),
                    weight: 1,
                });
            }
        }
    });
    Ok(BandUnits {
        units,
        bands,
        symmetry_factor: (1..=side as u128).product(),
    })
}
