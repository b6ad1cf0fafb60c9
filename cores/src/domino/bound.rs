//! How an upper bound on a domino instance's optimum was obtained: the report says it per
//! instance, so that a reader can tell a counted bound from a search's proof.

use serde::{Deserialize, Serialize};

/// The argument behind a proven upper bound on the number of tiles that fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BoundBy {
    /// Counting alone: no more tiles than the instance has, nor than `n^2 / 3`.
    Count,
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
    pub const ALL: [BoundBy; 5] = [
        BoundBy::Count,
        BoundBy::CellSearch,
        BoundBy::TileSearch,
        BoundBy::Sat,
        BoundBy::Solver,
    ];

    /// The name reports and records use.
    pub fn as_str(self) -> &'static str {
        match self {
            BoundBy::Count => "count",
            BoundBy::CellSearch => "cell-search",
            BoundBy::TileSearch => "tile-search",
            BoundBy::Sat => "sat",
            BoundBy::Solver => "solver",
        }
    }

    /// Parses what [`BoundBy::as_str`] writes.
    pub fn parse(text: &str) -> Option<BoundBy> {
        BoundBy::ALL.into_iter().find(|b| b.as_str() == text)
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

    #[test]
    fn names_round_trip_and_match_serde() {
        for b in BoundBy::ALL {
            assert_eq!(BoundBy::parse(b.as_str()), Some(b));
            assert_eq!(serde_json::to_string(&b).unwrap(), format!("\"{b}\""));
        }
        assert_eq!(BoundBy::parse("lp"), None);
    }
}
