//! The second route to the orbit count, for small grids: every grid whose first row reads
//! `1..side` (exactly one per relabelling class, so every orbit is met), canonicalised as the
//! least, over the group's elements, of its image relabelled to read `1..side` in the first
//! row again; the orbits are the distinct canonical forms.

use std::collections::HashSet;

use super::super::group_core::GroupGrid;
use super::super::groups::SudokuGroups;
use super::{orbit_group, GroupChoice, OrbitError};

/// The largest side counted by canonical forms (6x6 has 39,168 grids with a fixed first row).
pub const MAX_CANONICAL_SIDE: usize = 6;

/// The orbits of `g`'s grids under `choice` and relabelling, by canonical forms.
pub fn orbits_by_canonical_forms(
    g: &SudokuGroups,
    choice: GroupChoice,
) -> Result<u128, OrbitError> {
    let group = orbit_group(g, choice)?;
    let side = group.side;
    if side > MAX_CANONICAL_SIDE {
        return Err(OrbitError::Side { side });
    }
    let grid = GroupGrid::new(g).map_err(|_| OrbitError::Side { side })?;
    let cells = side * side;
    // Per element, the cell each image cell comes from.
    let sources: Vec<Vec<usize>> = (0..group.len())
        .map(|k| {
            let mut from = vec![0; cells];
            for (c, &to) in group.images(k).iter().enumerate() {
                from[usize::from(to)] = c;
            }
            from
        })
        .collect();
    let mut givens = vec![0u8; cells];
    for (j, d) in givens.iter_mut().take(side).enumerate() {
        *d = j as u8 + 1;
    }
    let all: Vec<usize> = (0..cells).collect();
    let mut forms: HashSet<Vec<u8>> = HashSet::new();
    let mut best = vec![0u8; cells];
    let mut image = vec![0u8; cells];
    let mut label = vec![0u8; side + 1];
    grid.for_each_filling(&givens, &all, &mut |x| {
        best.copy_from_slice(x);
        for from in &sources {
            for j in 0..side {
                label[usize::from(x[from[j]])] = j as u8 + 1;
            }
            // Build the relabelled image cell by cell, dropping it once it is larger.
            let mut less = false;
            let mut kept = true;
            for c in 0..cells {
                let v = label[usize::from(x[from[c]])];
                image[c] = v;
                if !less {
                    if v > best[c] {
                        kept = false;
                        break;
                    }
                    less = v < best[c];
                }
            }
            if kept && less {
                best.copy_from_slice(&image);
            }
        }
        forms.insert(best.clone());
    });
    Ok(forms.len() as u128)
}
