//! Exporters of an instance to the external solvers' input languages (seed 001, "Minizinc"
//! and "ASP Clingo Model").
//!
//! MiniZinc data follows the seed's layout: `numTiles`, `k`, `TilesIndex = 1..m`, `tiles` as
//! `array2d(TilesIndex, 1..3, [...])`, `n`. Clingo facts are `tile(Id, V1, V2, V3).` with
//! 1-based ids (tile `Id` is the instance's tile `Id - 1`) and `size(N).`.

use super::Instance;
use std::fmt::Write;

/// MiniZinc data (.dzn) for `instance`.
pub fn to_dzn(instance: &Instance) -> String {
    let m = instance.tiles.len();
    let values: Vec<String> = instance
        .tiles
        .iter()
        .flatten()
        .map(u32::to_string)
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "% domino instance {}", comment_safe(&instance.id));
    let _ = writeln!(out, "numTiles = {m};");
    let _ = writeln!(out, "k = {};", instance.k);
    let _ = writeln!(out, "TilesIndex = 1..{m};");
    let _ = writeln!(
        out,
        "tiles = array2d(TilesIndex, 1..3, [{}]);",
        values.join(", ")
    );
    let _ = writeln!(out, "n = {};", instance.n);
    out
}

/// Clingo facts for `instance`.
pub fn to_clingo(instance: &Instance) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "% domino instance {}", comment_safe(&instance.id));
    for (i, [a, b, c]) in instance.tiles.iter().enumerate() {
        let _ = writeln!(out, "tile({}, {a}, {b}, {c}).", i + 1);
    }
    let _ = writeln!(out, "size({}).", instance.n);
    out
}

/// The id with control characters (a newline would end the comment) replaced by `?`.
fn comment_safe(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domino::Difficulty;

    fn sample() -> Instance {
        // b01-e1 of the public suite (bench-specs/domino/suite-public/batch01.txt).
        Instance {
            id: "b01-e1".into(),
            difficulty: Difficulty::Easy,
            n: 5,
            k: 4,
            tiles: vec![[1, 1, 4], [1, 2, 0], [4, 3, 0], [2, 2, 1]],
        }
    }

    #[test]
    fn dzn_has_the_seed_layout() {
        assert_eq!(
            to_dzn(&sample()),
            "% domino instance b01-e1\n\
             numTiles = 4;\n\
             k = 4;\n\
             TilesIndex = 1..4;\n\
             tiles = array2d(TilesIndex, 1..3, [1, 1, 4, 1, 2, 0, 4, 3, 0, 2, 2, 1]);\n\
             n = 5;\n"
        );
    }

    #[test]
    fn clingo_facts_are_one_based() {
        assert_eq!(
            to_clingo(&sample()),
            "% domino instance b01-e1\n\
             tile(1, 1, 1, 4).\n\
             tile(2, 1, 2, 0).\n\
             tile(3, 4, 3, 0).\n\
             tile(4, 2, 2, 1).\n\
             size(5).\n"
        );
    }

    #[test]
    fn no_tiles_gives_an_empty_array() {
        let mut inst = sample();
        inst.tiles.clear();
        let dzn = to_dzn(&inst);
        assert!(dzn.contains("numTiles = 0;"));
        assert!(dzn.contains("TilesIndex = 1..0;"));
        assert!(dzn.contains("array2d(TilesIndex, 1..3, []);"));
    }
}
