//! Native optima pinned against the other solvers: on every public-suite instance
//! whose optimum both clingo and gecode-placement proved (tests/data/domino-pinned-optima.txt,
//! from the 20-s reference run), the native optimiser proves the same optimum, its placement
//! passes the verifier, and its outcome passes its own consistency checks.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use cores::domino::{parse_batch, solve, verify, Instance, SolveLimits, SolveStatus};

fn suite() -> BTreeMap<String, Instance> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/domino/suite-public");
    let mut all = BTreeMap::new();
    for b in 1..=10 {
        let text = std::fs::read_to_string(dir.join(format!("batch{b:02}.txt"))).unwrap();
        all.extend(
            parse_batch(&text)
                .unwrap()
                .into_iter()
                .map(|i| (i.id.clone(), i)),
        );
    }
    all
}

#[test]
fn native_proves_the_optima_clingo_and_gecode_placement_both_proved() {
    let pinned = include_str!("../data/domino-pinned-optima.txt");
    let suite = suite();
    let mut checked = 0;
    for line in pinned
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut words = line.split_whitespace();
        let id = words.next().unwrap();
        let optimum: u32 = words.next().unwrap().parse().unwrap();
        let limits = SolveLimits {
            deadline: Some(Instant::now() + Duration::from_secs(60)),
            stop: None,
        };
        let out = solve(&suite[id], &limits);
        assert_eq!(out.fault, None, "{id}");
        assert_eq!(
            (out.status, out.objective, out.bound),
            (SolveStatus::Optimal, optimum, optimum),
            "{id}: native against the pinned optimum {optimum}"
        );
        verify(&suite[id], &out.placement).unwrap_or_else(|v| panic!("{id}: {v}"));
        checked += 1;
    }
    assert!(checked >= 80, "only {checked} pinned instances");
}

/// Regression: the cell search's table stored bounds in one byte, clamped to 255, which
/// proves a wrong optimum once more than 255 tiles fit. A 30 x 30 board with 300 tiles of two
/// kinds that never match each other (each kind under 256 copies, so the table is used): 290
/// tiles are known to fit, so no sound bound is below 290, and the outcome is consistent.
#[test]
fn a_board_where_more_than_255_tiles_fit_is_solved_consistently() {
    // 150 tiles show 1 everywhere, 150 show 2 everywhere; a 1-tile may not touch a 2-tile.
    let mut tiles = vec![[1u32, 1, 1]; 150];
    tiles.extend(vec![[2u32, 2, 2]; 150]);
    let inst = Instance {
        id: "big".into(),
        difficulty: cores::domino::Difficulty::Hard,
        n: 30,
        k: 2,
        tiles,
    };
    let limits = SolveLimits {
        deadline: Some(Instant::now() + Duration::from_secs(5)),
        stop: None,
    };
    let out = solve(&inst, &limits);
    assert_eq!(out.fault, None);
    verify(&inst, &out.placement).unwrap();
    assert!(
        out.bound >= out.objective,
        "{} < {}",
        out.bound,
        out.objective
    );
    // Rows 0..15 hold 150 horizontal 1-tiles (10 per row), row 15 stays empty, rows 16..30
    // hold 140 2-tiles: 290 tiles fit, more than a byte counts.
    assert!(
        (290..=300).contains(&out.bound),
        "bound {} below a known placement of 290",
        out.bound
    );
}
