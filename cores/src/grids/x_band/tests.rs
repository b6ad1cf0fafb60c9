//! The middle-band counter against the committed reference ledger of the 9x9 X-Sudoku count
//! (`results/reference/sudoku-9x9-diagonal/ledger.csv`: every unit's givens, weight and count
//! by the Dancing Links engine, summing to the enjoysudoku forum's "SudokuX (Diagonal
//! Sudoku)" total), against the engine and the group core's join on relabelled and mirrored
//! units, and on bad bands.

use std::sync::atomic::AtomicBool;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{count_middle_band, XBandError};
use crate::problems::sudoku::{placements, Sudoku, SudokuConfig};
use crate::problems::Variant;
use crate::xcc::Dlx;

const LEDGER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../results/reference/sudoku-9x9-diagonal/ledger.csv"
);

/// One ledger row: the unit's 81 givens (0 empty), weight and count.
struct Row {
    givens: Vec<u8>,
    weight: u128,
    count: u128,
}

fn ledger() -> Vec<Row> {
    let text = std::fs::read_to_string(LEDGER).expect("the reference ledger");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (g, w, c) = (col("givens"), col("weight"), col("count"));
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            Row {
                givens: f[g]
                    .bytes()
                    .map(|b| if b == b'.' { 0 } else { b - b'0' })
                    .collect(),
                weight: f[w].parse().expect("a weight"),
                count: f[c].parse().expect("a count"),
            }
        })
        .collect()
}

fn count(band: &[u8]) -> u128 {
    count_middle_band(band, &AtomicBool::new(false))
        .unwrap()
        .unwrap()
        .solutions
}

fn middle(givens: &[u8]) -> &[u8] {
    assert_eq!(givens.len(), 81);
    assert!(givens[..27].iter().chain(&givens[54..]).all(|&v| v == 0));
    &givens[27..54]
}

/// The Dancing Links engine's count of the X-Sudoku completions of `band` as rows 4-6.
fn engine(band: &[u8]) -> u128 {
    let config = SudokuConfig {
        variants: vec![Variant::Diagonal],
        ..SudokuConfig::new(3, 3)
    };
    let s = Sudoku::build(&config).unwrap();
    let mut givens = vec![0u8; 81];
    givens[27..54].copy_from_slice(band);
    let mut dlx = Dlx::new(&s.problem);
    dlx.apply_prefix(&placements(&givens, 9)).unwrap();
    dlx.count()
}

/// `band` with its digits relabelled at random and, at random, mirrored top to bottom
/// (rows 4 and 6 swapped) and left to right (column `c` to `10 - c`): each is a symmetry of
/// the X-Sudoku that keeps the middle band, so the count is unchanged.
fn disguise(band: &[u8], rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut labels: Vec<u8> = (1..=9).collect();
    labels.shuffle(rng);
    let (flip_rows, flip_cols) = (rng.random_bool(0.5), rng.random_bool(0.5));
    (0..27)
        .map(|cell| {
            let (r, c) = (cell / 9, cell % 9);
            let r = if flip_rows { 2 - r } else { r };
            let c = if flip_cols { 8 - c } else { c };
            labels[usize::from(band[r * 9 + c]) - 1]
        })
        .collect()
}

#[test]
fn a_seeded_sample_of_the_reference_ledger_recounts_alike() {
    let rows = ledger();
    assert_eq!(rows.len(), 24_027, "{LEDGER}");
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    for _ in 0..40 {
        let i = rng.random_range(0..rows.len());
        let row = &rows[i];
        assert_eq!(
            count(middle(&row.givens)),
            row.count,
            "ledger unit {}",
            i + 1
        );
    }
}

#[test]
fn disguised_units_count_as_the_engine_and_the_ledger_do() {
    let rows = ledger();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for _ in 0..3 {
        let i = rng.random_range(0..rows.len());
        let band = disguise(middle(&rows[i].givens), &mut rng);
        let got = count(&band);
        assert_eq!(got, rows[i].count, "ledger unit {} disguised", i + 1);
        assert_eq!(
            got,
            engine(&band),
            "ledger unit {} disguised: engine",
            i + 1
        );
    }
}

#[test]
fn bands_with_rows_swapped_count_as_the_engine_does() {
    // Swapping two rows of a unit's band keeps it a band but moves its digits on the
    // diagonals: in general another unit, with row 4 no longer 1 2 ... 9.
    let rows = ledger();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for (a, b) in [(0, 1), (1, 2)] {
        let i = rng.random_range(0..rows.len());
        let mut band = middle(&rows[i].givens).to_vec();
        for c in 0..9 {
            band.swap(a * 9 + c, b * 9 + c);
        }
        assert_eq!(
            count(&band),
            engine(&band),
            "ledger unit {} rows {} and {} swapped",
            i + 1,
            a + 4,
            b + 4
        );
    }
}

#[test]
fn bad_bands_are_errors_and_a_stop_ends_the_count() {
    let rows = ledger();
    let band = middle(&rows[0].givens).to_vec();
    let stop = AtomicBool::new(false);
    assert_eq!(
        count_middle_band(&band[..26], &stop),
        Err(XBandError::Length(26))
    );
    let mut bad = band.clone();
    bad[10] = 0;
    assert!(matches!(
        count_middle_band(&bad, &stop),
        Err(XBandError::Value { row: 5, col: 2, .. })
    ));
    // Two cells of row 4 swapped across boxes: the row is intact, boxes 4 and 5 clash.
    let mut bad = band.clone();
    bad.swap(9 + 2, 9 + 3);
    bad.swap(2, 3);
    assert!(matches!(
        count_middle_band(&bad, &stop),
        Err(XBandError::Clash { what: "box", .. })
    ));
    let mut bad = band.clone();
    bad[1] = bad[0];
    assert!(matches!(
        count_middle_band(&bad, &stop),
        Err(XBandError::Clash { what: "row", .. })
    ));
    assert_eq!(count_middle_band(&band, &AtomicBool::new(true)), Ok(None));
}

#[test]
fn the_group_core_takes_this_route_on_middle_bands_alone_and_its_join_agrees() {
    use crate::grids::group_core::GroupGrid;
    use crate::grids::groups::read_groups;
    let grid_of = |variants: Vec<Variant>| {
        let config = SudokuConfig {
            variants,
            ..SudokuConfig::new(3, 3)
        };
        let s = Sudoku::build(&config).unwrap();
        GroupGrid::new(&read_groups(3, 3, &s.problem).unwrap()).unwrap()
    };
    let x = grid_of(vec![Variant::Diagonal]);
    let rows = ledger();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let row = &rows[rng.random_range(0..rows.len())];
    let stop = AtomicBool::new(false);
    assert!(x.x_band_applies(&row.givens));
    let by_core = x.count(&row.givens, &stop).unwrap().unwrap();
    let joined = x.count_joined(&row.givens, &stop).unwrap().unwrap();
    assert_eq!(by_core.solutions, row.count);
    assert_eq!(joined.solutions, row.count);
    // One more given, one fewer, or other groups: not this route.
    let mut more = row.givens.clone();
    more[0] = 1;
    assert!(!x.x_band_applies(&more));
    let mut fewer = row.givens.clone();
    fewer[40] = 0;
    assert!(!x.x_band_applies(&fewer));
    assert!(!x.x_band_applies(&row.givens[..80]));
    let other = grid_of(vec![Variant::Diagonal, Variant::Disjoint]);
    assert!(!other.x_band_applies(&row.givens));
    assert!(!grid_of(vec![]).x_band_applies(&row.givens));
}

/// Every unit of the reference ledger recounted: the weighted sum is the published total
/// 55,613,393,399,531,520 = 9! x 153,255,603,504 (enjoysudoku forum, "SudokuX (Diagonal
/// Sudoku)"), and each count equals the ledger's. A minute or so in release:
/// `cargo test --release -p cores --lib grids::x_band -- --ignored`.
#[test]
#[ignore = "every unit of the 9x9 X-Sudoku count: run in release by scripts/test.sh"]
fn every_ledger_unit_recounts_to_the_published_total() {
    let rows = ledger();
    let mut sum = 0u128;
    for (i, row) in rows.iter().enumerate() {
        let got = count(middle(&row.givens));
        assert_eq!(got, row.count, "ledger unit {}", i + 1);
        sum += row.weight * got;
    }
    assert_eq!(sum, 153_255_603_504);
    assert_eq!(sum * 362_880, 55_613_393_399_531_520);
}
