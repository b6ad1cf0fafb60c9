//! How an upper bound on a domino instance's optimum was obtained: the report says it per
//! instance, so that a reader can tell a counted bound from a search's proof. A run record
//! carries it beside its bound (`crate::bench::RunRecord::bound_by`).
//!
//! The count bound ([`BoundBy::count_bound`]) needs no search: a placement uses each tile at
//! most once and each cell at most once, three cells a tile. Every configuration has it, so
//! the report measures the gap of a run that gives no bound against it.

use crate::label::Label;
use serde::{Deserialize, Serialize};
use strum::{EnumString, IntoStaticStr, VariantArray};

use super::Instance;

/// The argument behind a proven upper bound on the number of tiles that fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum BoundBy {
    /// Counting alone: no more tiles than the instance has, nor than `n^2 / 3`.
    ///
    /// This and [`BoundBy::Sides`] are recomputed by the bound checker
    /// (`domino::verify_bound`) when a run is judged: a bound below the argument's figure is
    /// wrong.
    Count,
    /// Counting the empty cells that tiles need beside them: a tile whose long sides no
    /// tile of another type can cover fully has an empty cell (or a tile of its own type)
    /// beside each side off the border, and each empty cell has four sides (`domino::sides`).
    Sides,
    /// The native cell-order search (its probe or its Russian-doll levels) ran out of
    /// placements of one more tile.
    CellSearch,
    /// The native tile-order search ran out of placements of one more tile.
    TileSearch,
    /// CaDiCaL refuted one more tile on the CNF of the native optimiser's SAT question.
    Sat,
    /// The configuration's own solver: its proof of optimality, or the bound it reported.
    Solver,
}

impl BoundBy {
    /// The bound [`BoundBy::Count`] proves: `min(tiles, floor(n^2 / 3))`, and 0 on a board
    /// of side below 3, where no tile fits (the native optimiser starts from the same).
    pub fn count_bound(instance: &Instance) -> u32 {
        let n = u64::from(instance.n);
        if n < 3 {
            return 0;
        }
        let tiles = u64::try_from(instance.tiles.len()).unwrap_or(u64::MAX);
        u32::try_from(tiles.min(n * n / 3)).unwrap_or(u32::MAX)
    }
}

impl std::fmt::Display for BoundBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::BoundBy;
    use crate::domino::{parse_line, solve, Instance, SolveLimits};
    use crate::label::Label;

    #[test]
    fn names_round_trip_and_match_serde() {
        for &b in BoundBy::ALL {
            assert_eq!(BoundBy::parse(b.as_str()), Some(b));
            assert_eq!(serde_json::to_string(&b).unwrap(), format!("\"{b}\""));
        }
        assert_eq!(BoundBy::parse("lp"), None);
    }

    #[test]
    fn the_count_bound_is_the_fewer_of_the_tiles_and_a_third_of_the_cells() {
        let bound = |n: u32, tiles: usize| {
            let line = format!(
                r#"{{"id": "c", "difficulty": "easy", "n": {n}, "k": 1, "tiles": {:?}}}"#,
                vec![[0, 1, 0]; tiles]
            );
            let inst = parse_line(&line).unwrap();
            (BoundBy::count_bound(&inst), inst)
        };
        assert_eq!(bound(5, 4).0, 4);
        assert_eq!(bound(5, 9).0, 8);
        assert_eq!(bound(6, 12).0, 12);
        assert_eq!(bound(6, 13).0, 12);
        // No tile fits on a 2 x 2 board (which no batch file holds): the optimiser says so
        // with the count as its proof.
        let inst = Instance {
            n: 2,
            ..bound(3, 3).1
        };
        let b = BoundBy::count_bound(&inst);
        let out = solve(&inst, &SolveLimits::default());
        assert_eq!((b, out.bound, out.bound_by), (0, 0, BoundBy::Count));
    }
}
