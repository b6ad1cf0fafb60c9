//! The independent checker of the bounds that need no search: a run's upper bound claimed by
//! counting ([`BoundBy::Count`]) or by the side count ([`BoundBy::Sides`]) is recomputed here
//! from the instance alone, and a claimed bound below what its argument gives is a wrong
//! answer (`crate::bench::judge::domino`). Bounds proven by a search have no such check here:
//! a CaDiCaL refutation is certified by a DRAT proof (`certificate`), and any bound is
//! cross-checked against every verified placement of the instance.
//!
//! Like `verify`, this module shares no code with the solvers. The side count's premise, which
//! tiles have a long side that no other tiles can cover fully, is decided by trying every
//! cover of the side by the instance's tiles ([`side_coverable`]), not by the case analysis of
//! `sides` over `model`'s tile types and value codes, and the count that follows is restated
//! from the argument (`sides`'s module doc):
//! - a tile whose long side off the border is beside three covered cells has them covered by
//!   one tile reading the same values, lying aligned beside it, unless some other cover
//!   exists; for a tile with no other cover ("costly") and a type (its tile and those equal
//!   to it up to mirroring) of fewer than `n` tiles, the type's placed tiles form chains whose
//!   two end sides are not covered: 2 such sides for each costly type with a tile placed;
//! - at most `B = 4 floor(n / 3)` tiles lie with a long side on the border, each saving one
//!   side, and a side beside an empty cell gives an edge of its own from a tile cell to an
//!   empty cell, of which an empty cell has at most four: with `T` tiles placed and `L`
//!   uncovered sides, `max(L - B, ceil(L / 2)) <= 4 (n^2 - 3 T)`.
//!
//! Invariant: [`argued_bound`] is an upper bound on the optimum (checked against brute force
//! on small boards), so a claim at or above it is a true bound, and a claim below it is not
//! what that argument gives: either a search proved it (and the record should say so) or it
//! is wrong. A checker stronger than the solver's own argument (here: more tiles found
//! costly, where `sides` gives up on a case) only makes its figure lower, never a correct
//! claim fail.

use std::collections::BTreeMap;

use super::{BoundBy, Instance};

/// The bound that argument `by` gives on `instance`, recomputed; `None` for the bounds of a
/// search, which need a proof or a certificate instead.
pub fn argued_bound(instance: &Instance, by: BoundBy) -> Option<u32> {
    match by {
        BoundBy::Count => Some(BoundBy::count_bound(instance)),
        BoundBy::Sides => Some(side_count(instance)),
        BoundBy::CellSearch | BoundBy::TileSearch | BoundBy::Sat | BoundBy::Solver => None,
    }
}

/// The side count's bound (the module doc): the most tiles `T`, at most the count bound, with
/// `max(L - B, ceil(L / 2)) <= 4 (n^2 - 3 T)` for the fewest uncovered sides `L` that `T`
/// placed tiles may have.
fn side_count(instance: &Instance) -> u32 {
    let n = instance.n as usize;
    let cap = BoundBy::count_bound(instance);
    // Tiles equal up to mirroring, keyed by the smaller reading.
    let mut types: BTreeMap<[u32; 3], Vec<usize>> = BTreeMap::new();
    for (i, t) in instance.tiles.iter().enumerate() {
        let back = [t[2], t[1], t[0]];
        types.entry((*t).min(back)).or_default().push(i);
    }
    // Tiles that add no uncovered side, and the sizes of the costly types.
    let mut free = 0usize;
    let mut costly: Vec<usize> = Vec::new();
    for members in types.values() {
        if members.len() >= n || side_coverable(instance, members[0]) {
            free += members.len();
        } else {
            costly.push(members.len());
        }
    }
    // Fewest uncovered sides: the free tiles first, then the largest costly types.
    costly.sort_unstable_by(|a, b| b.cmp(a));
    let fewest_sides = |t: usize| -> i64 {
        let mut placed = free;
        let mut sides = 0i64;
        for size in &costly {
            if placed >= t {
                break;
            }
            placed += size;
            sides += 2;
        }
        sides
    };
    let area = (n * n) as i64;
    let border = 4 * (n / 3) as i64;
    (0..=cap)
        .rev()
        .find(|&t| {
            let uncovered = fewest_sides(t as usize);
            let need = (uncovered - border).max((uncovered + 1) / 2);
            need <= 4 * (area - 3 * i64::from(t))
        })
        .unwrap_or(0)
}

/// Where a tile lies, in the checker's own coordinates (any integers: the side checked is
/// away from every border).
#[derive(Clone, Copy)]
struct Laid {
    tile: usize,
    /// `(row, col, value)` of its three cells.
    cells: [(i32, i32, u32); 3],
}

impl Laid {
    fn new(tile: usize, values: [u32; 3], row: i32, col: i32, vertical: bool) -> Laid {
        let at = |j: i32| {
            let (r, c) = if vertical {
                (row + j, col)
            } else {
                (row, col + j)
            };
            (r, c, values[j as usize])
        };
        Laid {
            tile,
            cells: [at(0), at(1), at(2)],
        }
    }

    /// Whether it covers the cell `(-1, col)`, beside the side that [`side_coverable`] tries.
    fn covers(&self, col: i32) -> bool {
        self.cells.iter().any(|&(r, c, _)| r == -1 && c == col)
    }

    /// Whether two tiles can lie so on one board: no shared cell, and equal values wherever
    /// their cells are orthogonal neighbours.
    fn fits_with(&self, other: &Laid) -> bool {
        self.tile != other.tile
            && self.cells.iter().all(|&(r, c, v)| {
                other.cells.iter().all(|&(r2, c2, v2)| {
                    let distance = (r - r2).abs() + (c - c2).abs();
                    distance > 1 || (distance == 1 && v == v2)
                })
            })
    }
}

/// Whether the long side of tile `tile` can be fully covered other than by one tile aligned
/// beside it: the tile lies horizontally at row 0, columns 0 to 2, and some set of other
/// tiles of the instance, each covering at least one of the cells (-1, 0), (-1, 1), (-1, 2),
/// covers all three, fitting with the tile and with each other, and is not a single tile at
/// row -1, columns 0 to 2. Both long sides are alike (a reflection of the board maps one to
/// the other), so one is tried.
fn side_coverable(instance: &Instance, tile: usize) -> bool {
    let t = instance.tiles[tile];
    let base = Laid::new(tile, t, 0, 0, false);
    // Every way another tile can cover a cell beside the side (horizontal at row -1 starting
    // at columns -2 to 2, or vertical at column 0 to 2 ending at row -1), fitting with `base`.
    let mut options: Vec<Laid> = Vec::new();
    for (i, v) in instance.tiles.iter().enumerate() {
        if i == tile {
            continue;
        }
        let readings = [*v, [v[2], v[1], v[0]]];
        for values in readings {
            for col in -2..=2 {
                options.push(Laid::new(i, values, -1, col, false));
            }
            for col in 0..=2 {
                options.push(Laid::new(i, values, -3, col, true));
            }
        }
    }
    options.retain(|o| o.fits_with(&base));
    extend(&options, &mut Vec::with_capacity(3))
}

/// Depth-first: the leftmost cell of the side that `chosen` leaves uncovered gets each option
/// covering it; true once all three are covered other than by one aligned tile.
fn extend(options: &[Laid], chosen: &mut Vec<Laid>) -> bool {
    let Some(col) = (0..3).find(|&c| !chosen.iter().any(|o| o.covers(c))) else {
        let aligned = chosen.len() == 1 && (0..3).all(|c| chosen[0].covers(c));
        return !aligned;
    };
    for o in options.iter().filter(|o| o.covers(col)) {
        if chosen.iter().all(|c| c.fits_with(o)) {
            chosen.push(*o);
            if extend(options, chosen) {
                return true;
            }
            chosen.pop();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domino::parse_line;

    fn instance(n: u32, tiles: &[[u32; 3]]) -> Instance {
        let tiles: Vec<String> = tiles.iter().map(|t| format!("{t:?}")).collect();
        parse_line(&format!(
            r#"{{"id": "t", "difficulty": "tight", "n": {n}, "k": 15, "tiles": [{}]}}"#,
            tiles.join(",")
        ))
        .unwrap()
    }

    #[test]
    fn a_side_is_coverable_by_pieces_only_where_values_allow() {
        // (1, 2, 3) alone: nothing else shows its values.
        let lone = instance(9, &[[1, 2, 3], [4, 5, 6], [7, 8, 9]]);
        assert!(!side_coverable(&lone, 0));
        // (1, 1, 2) and a tile reading (1, 2, x) beside its last two cells, with a tile
        // showing 1 (the first cell, which touches the second: 1 = 1).
        let pieces = instance(9, &[[1, 1, 2], [1, 2, 7], [5, 5, 1]]);
        assert!(side_coverable(&pieces, 0));
        // The same without a tile showing 1 for the first cell.
        let no_first = instance(9, &[[1, 1, 2], [1, 2, 7]]);
        assert!(!side_coverable(&no_first, 0));
        // A copy of its own type aligned is the exception, not a cover.
        let copy = instance(9, &[[1, 2, 3], [3, 2, 1]]);
        assert!(!side_coverable(&copy, 0));
        // Three cells of one value: three vertical tiles ending in it meet there, each pair
        // of them touching along equal values.
        let flat = instance(9, &[[4, 4, 4], [4, 4, 4], [4, 4, 4], [4, 4, 4]]);
        assert!(side_coverable(&flat, 0));
    }

    #[test]
    fn the_count_is_the_counting_bound_and_search_bounds_are_not_argued() {
        let inst = instance(4, &[[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 1, 1], [2, 2, 2]]);
        assert_eq!(argued_bound(&inst, BoundBy::Count), Some(5));
        for by in [
            BoundBy::CellSearch,
            BoundBy::TileSearch,
            BoundBy::Sat,
            BoundBy::Solver,
        ] {
            assert_eq!(argued_bound(&inst, by), None);
        }
    }

    #[test]
    fn lone_tiles_on_a_full_board_need_empty_cells_beside_them() {
        // Five tiles with distinct values on a 4 x 4 board: the count allows 5; each costly
        // tile adds two uncovered sides, B = 4: with T tiles, max(2T - 4, T) <= 4 (16 - 3T)
        // holds up to T = 4 (4 <= 16) and not at 5 (6 > 4).
        let inst = instance(
            4,
            &[[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12], [13, 14, 15]],
        );
        assert_eq!(argued_bound(&inst, BoundBy::Sides), Some(4));
    }
}
