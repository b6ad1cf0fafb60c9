//! The group core's routes against the Dancing Links engine, on grids with random extra
//! groups (as `--group` gives them) and on units of 9x9 X-Sudoku with disjoint groups: each
//! route [`GroupGrid::count`] may take (the join with `u64` keys, with `u128` keys, the
//! direct route past 128 key bits, the direct route where the join does not apply), taken
//! where the core chooses it and, on the join's units, forced later in [`Route`]'s order.
//!
//! The extra groups are drawn on a known grid (one cell of each of `size` distinct digits),
//! so that the grid stays a solution and every unit has a completion.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{GroupGrid, Route};
use crate::grids::groups::read_groups;
use crate::problems::sudoku::{placements, Sudoku, SudokuConfig};
use crate::problems::Variant;
use crate::xcc::Dlx;

/// A full grid of `config` (its extra groups ignored): the engine's first grid after a
/// random first row.
fn known_grid(config: &SudokuConfig, rng: &mut ChaCha8Rng) -> Vec<u8> {
    let s = Sudoku::build(config).unwrap();
    let side = config.box_rows * config.box_cols;
    let mut row: Vec<usize> = (1..=side).collect();
    loop {
        row.shuffle(rng);
        let mut dlx = Dlx::new(&s.problem);
        let first_row: Vec<u32> = (0..side).map(|c| s.option_id(0, c, row[c])).collect();
        dlx.apply_prefix(&first_row).unwrap();
        if let Some(options) = dlx.first() {
            let mut grid = vec![0u8; side * side];
            for o in options {
                // Option `cell * side + digit - 1` places `digit` (`read_groups` checks
                // that layout).
                let o = o as usize;
                grid[o / side] = (o % side + 1) as u8;
            }
            return grid;
        }
    }
}

/// `count` random groups of `size` cells (1-based (row, column), as `--group` takes them),
/// each on `size` distinct digits of `grid`, in random cells holding them.
fn random_groups(
    grid: &[u8],
    side: usize,
    count: usize,
    size: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<Vec<(usize, usize)>> {
    (0..count)
        .map(|_| {
            let mut digits: Vec<u8> = (1..=side as u8).collect();
            digits.shuffle(rng);
            digits[..size]
                .iter()
                .map(|&d| {
                    let holding: Vec<usize> = (0..grid.len()).filter(|&c| grid[c] == d).collect();
                    let cell = holding[rng.random_range(0..holding.len())];
                    (cell / side + 1, cell % side + 1)
                })
                .collect()
        })
        .collect()
}

/// `grid`'s cells of band `band` (if any) and, elsewhere, each with probability `keep`.
fn unit(
    grid: &[u8],
    rows: std::ops::Range<usize>,
    side: usize,
    keep: f64,
    rng: &mut ChaCha8Rng,
) -> Vec<u8> {
    grid.iter()
        .enumerate()
        .map(|(cell, &v)| {
            if rows.contains(&(cell / side)) || rng.random_bool(keep) {
                v
            } else {
                0
            }
        })
        .collect()
}

/// Counts `givens` on `config` by the engine and by the group core from every route of the
/// join on (the core's own choice first), checks that they agree and that each route taken
/// is the first that applies at or after the one asked for, and returns the core's choice.
fn every_route(config: &SudokuConfig, givens: &[u8], what: &str) -> Route {
    let s = Sudoku::build(config).unwrap();
    let (r, c) = (config.box_rows, config.box_cols);
    let side = r * c;
    let g = read_groups(r, c, &s.problem).unwrap();
    assert!(g.extra.len() >= config.extra_groups.len(), "{what}");
    let grid = GroupGrid::new(&g).unwrap();
    let mut dlx = Dlx::new(&s.problem);
    dlx.apply_prefix(&placements(givens, side)).unwrap();
    let want = dlx.count();
    assert!(want >= 1, "{what}: a subset of a grid completes");
    let stop = AtomicBool::new(false);
    let count = |from: Route| {
        let (counted, route) = grid.count_by(givens, &stop, from).unwrap();
        (counted.unwrap().solutions, route)
    };
    let (got, chosen) = count(Route::Join64);
    assert_eq!(got, want, "{what}: {chosen:?}");
    assert_eq!(
        grid.count(givens, &stop).unwrap().unwrap().solutions,
        want,
        "{what}: count"
    );
    // The route is the key's length's.
    let bits = grid.join_shape(givens).map(|(_, bits, _)| bits);
    let by_bits = match bits {
        None => Route::Direct,
        Some(0..=64) => Route::Join64,
        Some(65..=128) => Route::Join128,
        Some(_) => Route::LongKey,
    };
    assert_eq!(chosen, by_bits, "{what}: {bits:?} key bits");
    assert_eq!(
        grid.join_applies(givens),
        chosen <= Route::Join128,
        "{what}"
    );
    for from in [Route::Join128, Route::LongKey] {
        let (got, route) = count(from);
        assert_eq!(route, chosen.max(from), "{what}: from {from:?}");
        assert_eq!(got, want, "{what}: {route:?}");
    }
    chosen
}

#[test]
fn every_route_of_the_group_core_counts_as_the_engine_does() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let mut chosen = BTreeSet::new();
    let mut cases: Vec<(SudokuConfig, Vec<u8>, String)> = Vec::new();
    // 4x4: two bands, the direct route only; groups of 2 to 4 cells.
    for t in 0..8 {
        let plain = SudokuConfig::new(2, 2);
        let grid = known_grid(&plain, &mut rng);
        let (count, size) = (rng.random_range(1..=3), rng.random_range(2..=4));
        let config = SudokuConfig {
            extra_groups: random_groups(&grid, 4, count, size, &mut rng),
            ..plain
        };
        let givens = unit(&grid, 0..0, 4, 0.1, &mut rng);
        cases.push((config, givens, format!("4x4 trial {t}")));
    }
    // 6x6 with 2x3 boxes (three bands): band 1 or 2 given; groups of 6 cells (the join, its
    // key in a u64), and some of 4 (the direct route).
    for t in 0..12 {
        let plain = SudokuConfig::new(2, 3);
        let grid = known_grid(&plain, &mut rng);
        let size = if t % 4 == 3 { 4 } else { 6 };
        let config = SudokuConfig {
            extra_groups: random_groups(&grid, 6, rng.random_range(1..=4), size, &mut rng),
            ..plain
        };
        let band = t % 2;
        let givens = unit(&grid, 2 * band..2 * band + 2, 6, 0.0, &mut rng);
        cases.push((config, givens, format!("6x6 trial {t}")));
    }
    // 9x9 X-Sudoku with disjoint groups, its middle band given as in a unit of its count (72
    // key bits: the join in u128), plus one random group of 9 cells (still u128), fourteen
    // (past 128 bits: the direct route) or two of 8 cells (no join); cells of the open bands
    // given at random so that the engine counts quickly.
    let variant = SudokuConfig {
        variants: vec![Variant::Diagonal, Variant::Disjoint],
        ..SudokuConfig::new(3, 3)
    };
    for t in 0..16 {
        let grid = known_grid(&variant, &mut rng);
        let (count, size) = match t % 4 {
            0 | 1 => (t % 4, 9),
            2 => (14, 9),
            _ => (2, 8),
        };
        let config = SudokuConfig {
            extra_groups: random_groups(&grid, 9, count, size, &mut rng),
            ..variant.clone()
        };
        let givens = unit(&grid, 3..6, 9, 0.0, &mut rng);
        cases.push((config, givens, format!("9x9 diagonal+disjoint trial {t}")));
    }
    // SudokuP (disjoint groups alone), its middle band given: the lower band is the upper's
    // mirror image, one band's keys matched against themselves (60 key bits).
    let sudoku_p = SudokuConfig {
        variants: vec![Variant::Disjoint],
        ..SudokuConfig::new(3, 3)
    };
    for t in 0..2 {
        let grid = known_grid(&sudoku_p, &mut rng);
        let givens = unit(&grid, 3..6, 9, 0.0, &mut rng);
        cases.push((sudoku_p.clone(), givens, format!("9x9 disjoint trial {t}")));
    }
    for (config, givens, what) in &cases {
        chosen.insert(every_route(config, givens, what));
    }
    let all = BTreeSet::from([Route::Join64, Route::Join128, Route::LongKey, Route::Direct]);
    assert_eq!(chosen, all, "routes the core chose");
}
