//! The committed ledger of the 9x9 count (`results/reference/sudoku-9x9/ledger.csv`, written by
//! `dancehall ledger` after `dancehall run bench-specs/sudoku-9x9.toml`): its weighted sum
//! gives the published total, and units recounted independently with `dancehall count` (the
//! Dancing Links engine, and the completion core) give the counts it records.
//!
//! Published figures: 6,670,903,752,021,072,936,960 grids (Felgenhauer and Jarvis 2005; OEIS
//! A107739) = 9! x 72^2 x 3,546,146,300,288; band-1 class sizes sum to 36,288 (2,612,736 / 72,
//! same paper).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const LEDGER: &str = "../results/reference/sudoku-9x9/ledger.csv";
const LEDGER_8X8: &str = "../results/reference/sudoku-8x8/ledger.csv";

struct Row {
    state: String,
    givens: String,
    weight: u128,
    count: u128,
    factor: u128,
}

fn rows() -> Vec<Row> {
    read(LEDGER)
}

/// The text of a committed ledger (`.csv`, or `.csv.gz` for the largest: `gunzip -k` gives
/// the file `dancehall ledger` wrote).
fn ledger_text(ledger: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(ledger);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if ledger.ends_with(".gz") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
            .expect("a gzipped ledger");
        text
    } else {
        String::from_utf8(bytes).expect("a UTF-8 ledger")
    }
}

fn read(ledger: &str) -> Vec<Row> {
    let text = ledger_text(ledger);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let (g, w, c, f) = (col("givens"), col("weight"), col("count"), col("factor"));
    let st = col("state");
    lines
        .map(|line| {
            let v: Vec<&str> = line.split(',').collect();
            Row {
                state: v[st].to_string(),
                givens: v[g].to_string(),
                weight: v[w].parse().unwrap(),
                count: v[c].parse().unwrap(),
                factor: v[f].parse().unwrap(),
            }
        })
        .collect()
}

#[test]
fn the_ledger_sums_to_the_published_9x9_total() {
    let rows = rows();
    assert_eq!(rows.len(), 440, "44 band classes x 10 column splits");
    let sum: u128 = rows.iter().map(|r| r.weight * r.count).sum();
    assert_eq!(sum, 3_546_146_300_288);
    let factor = rows[0].factor;
    assert!(rows.iter().all(|r| r.factor == factor));
    assert_eq!(factor, 362_880 * 72 * 72);
    assert_eq!(factor * sum, 6_670_903_752_021_072_936_960);
    // Each band class appears once per column split, with its size as weight: the sizes of
    // the 44 classes sum to 36,288.
    let mut classes: BTreeMap<&str, (u128, usize)> = BTreeMap::new();
    for r in &rows {
        assert_eq!(r.givens.len(), 81);
        let e = classes.entry(&r.givens[..27]).or_insert((r.weight, 0));
        assert_eq!(e.0, r.weight, "one weight per band class");
        e.1 += 1;
    }
    assert_eq!(classes.len(), 44);
    assert!(classes.values().all(|&(_, n)| n == 10));
    assert_eq!(classes.values().map(|&(w, _)| w).sum::<u128>(), 36_288);
}

fn count(givens: &str, core: &str) -> u128 {
    count_box("3x3", givens, core)
}

fn count_box(shape: &str, givens: &str, core: &str) -> u128 {
    count_sudoku(shape, None, givens, core)
}

/// `dancehall count sudoku --box SHAPE [--variant V] --givens G --core C --json`'s count.
fn count_sudoku(shape: &str, variant: Option<&str>, givens: &str, core: &str) -> u128 {
    let mut args = vec!["count", "sudoku", "--box", shape];
    if let Some(v) = variant {
        args.extend(["--variant", v]);
    }
    args.extend(["--givens", givens, "--core", core, "--json"]);
    let o = Command::new(env!("CARGO_BIN_EXE_dancehall"))
        .args(&args)
        .output()
        .expect("run dancehall");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    v["solutions"].as_str().unwrap().parse().unwrap()
}

#[test]
fn units_of_the_ledger_recount_to_their_recorded_counts() {
    let mut rows = rows();
    // The smallest unit by the Dancing Links engine (independent of the core that made the
    // ledger), three more spread over the file by the completion core.
    rows.sort_by_key(|r| r.count);
    let smallest = &rows[0];
    assert_eq!(count(&smallest.givens, "dlx"), smallest.count);
    for r in [&rows[100], &rows[250], &rows[439]] {
        assert_eq!(count(&r.givens, "sudoku-bands"), r.count);
    }
}

#[test]
fn the_8x8_ledger_sums_to_the_published_total_and_recounts() {
    // 29,136,487,207,403,520 grids with 2x4 boxes (Pettersen; Russell), the spec's
    // expected_total; factor 8! x 4! x 2^3 x 3! = 46,448,640.
    let rows = read(LEDGER_8X8);
    assert_eq!(rows.len(), 75, "5 band classes x 15 column splits");
    assert!(rows
        .iter()
        .all(|r| r.factor == 46_448_640 && r.givens.len() == 64));
    let sum: u128 = rows.iter().map(|r| r.weight * r.count).sum();
    assert_eq!(46_448_640 * sum, 29_136_487_207_403_520);
    let r = &rows[rows.len() / 2];
    assert_eq!(count_box("2x4", &r.givens, "dlx"), r.count);
    assert_eq!(count_box("2x4", &r.givens, "sudoku-bands"), r.count);
}

#[test]
fn the_band_reduction_gives_the_committed_ledgers_units_and_weights() {
    // The committed ledgers are the reference: a change of `grid_units` that moves weight
    // between band classes (or changes a unit's givens, or the factor) fails here, even if the
    // class sizes still sum to 36,288.
    for (ledger, (r, c)) in [(LEDGER, (3, 3)), (LEDGER_8X8, (2, 4))] {
        let units = cores::grids::units::grid_units(r, c).unwrap();
        let side = r * c;
        let mut made: Vec<(String, u128)> = units
            .units
            .iter()
            .map(|u| {
                (
                    cores::problems::sudoku::format_grid(&u.givens, side),
                    u.weight,
                )
            })
            .collect();
        let rows = read(ledger);
        let mut committed: Vec<(String, u128)> =
            rows.iter().map(|r| (r.givens.clone(), r.weight)).collect();
        made.sort();
        committed.sort();
        assert_eq!(made.len(), committed.len(), "{ledger}");
        for (m, c) in made.iter().zip(&committed) {
            assert_eq!(m, c, "{ledger}: a unit or its weight differs");
        }
        assert!(rows.iter().all(|row| row.factor == units.symmetry_factor));
    }
}

const LEDGER_8X8_DIAGONAL: &str = "../results/reference/sudoku-8x8-diagonal/ledger.csv";

fn count_variant(shape: &str, variant: &str, givens: &str, core: &str) -> u128 {
    count_sudoku(shape, Some(variant), givens, core)
}

#[test]
fn the_8x8_diagonal_ledger_is_the_generators_units_and_recounts() {
    // Our own count (results/reference/sudoku-8x8-diagonal/, no published figure known to us):
    // 298,759,265,280 = 8! x 7,409,704. The file must be exactly the units the generator makes
    // (band 1 with row 1 fixed, 576 fillings in 110 classes), and units recounted by the
    // Dancing Links engine (independent of the variant core that made the ledger) and by the
    // core give the counts it records.
    let rows = read(LEDGER_8X8_DIAGONAL);
    assert_eq!(rows.len(), 110);
    assert!(rows
        .iter()
        .all(|r| r.factor == 40_320 && r.givens.len() == 64));
    assert_eq!(rows.iter().map(|r| r.weight).sum::<u128>(), 576);
    let sum: u128 = rows.iter().map(|r| r.weight * r.count).sum();
    assert_eq!(sum, 7_409_704);
    assert_eq!(40_320 * sum, 298_759_265_280);
    let config = cores::problems::sudoku::SudokuConfig {
        variants: vec![cores::problems::Variant::Diagonal],
        ..cores::problems::sudoku::SudokuConfig::new(2, 4)
    };
    let built = cores::problems::sudoku::Sudoku::build(&config).unwrap();
    let groups = cores::grids::groups::read_groups(2, 4, &built.problem).unwrap();
    let symmetries = cores::grids::symmetry::variant_symmetries(&groups)
        .unwrap()
        .perms;
    let units = cores::grids::variant_band::band_units(&groups, 0, &symmetries).unwrap();
    let mut made: Vec<(String, u128)> = units
        .units
        .iter()
        .map(|u| (cores::problems::sudoku::format_grid(&u.givens, 8), u.weight))
        .collect();
    let mut committed: Vec<(String, u128)> =
        rows.iter().map(|r| (r.givens.clone(), r.weight)).collect();
    made.sort();
    committed.sort();
    assert_eq!(made, committed);
    let mut by_count: Vec<&Row> = rows.iter().collect();
    by_count.sort_by_key(|r| r.count);
    let smallest = by_count[0];
    assert_eq!(
        count_variant("2x4", "diagonal", &smallest.givens, "dlx"),
        smallest.count
    );
    for r in [by_count[55], by_count[109]] {
        assert_eq!(
            count_variant("2x4", "diagonal", &r.givens, "sudoku-groups"),
            r.count
        );
    }
}

#[test]
fn a_9x9_x_sudoku_unit_counts_alike_by_the_engine_and_the_variant_core() {
    // A unit of the 9x9 X-Sudoku spec's shape (middle band given, the join of bands 1 and 3)
    // with a few more givens so that the engine is quick: both cores through `count`.
    // Cells of an X-Sudoku grid (the engine's first completion of the middle band
    // 123456789/456789123/789123456) kept: the middle band and five more.
    let givens =
        "2..................9.......1234567894567891237891234563............4............5";
    assert_eq!(givens.len(), 81);
    let dlx = count_variant("3x3", "diagonal", givens, "dlx");
    let core = count_variant("3x3", "diagonal", givens, "sudoku-groups");
    assert_eq!(dlx, core);
    assert!(
        dlx > 1,
        "the givens come from a grid, and leave more than one"
    );
}

const LEDGER_9X9_DIAGONAL: &str = "../results/reference/sudoku-9x9-diagonal/ledger.csv";

#[test]
fn the_x_sudoku_ledger_sums_to_the_published_total_and_recounts() {
    // 55,613,393,399,531,520 = 9! x 153,255,603,504 X-Sudoku grids (the enjoysudoku forum's
    // "SudokuX (Diagonal Sudoku)" thread), the spec's expected_total. The ledger
    // (`dancehall ledger --box 3x3`) holds one row per accepted unit: the middle band given
    // (row 4 fixed by relabelling), weighted by its class size; a split row stands for its
    // subtree (its rows below are left out, by `parent`).
    let text = ledger_text(LEDGER_9X9_DIAGONAL);
    let rows = read(LEDGER_9X9_DIAGONAL);
    assert!(text.lines().next().unwrap().contains("parent"));
    assert!(rows
        .iter()
        .all(|r| r.factor == 362_880 && r.givens.len() == 81));
    let sum: u128 = rows.iter().map(|r| r.weight * r.count).sum();
    assert_eq!(362_880 * sum, 55_613_393_399_531_520);
    assert_eq!(sum, 153_255_603_504);
    // Units recounted: the smallest by the engine and two more by the variant core (the join
    // of bands 1 and 3), both through `dancehall count`.
    let mut by_count: Vec<&Row> = rows.iter().filter(|r| r.state == "done").collect();
    by_count.sort_by_key(|r| r.count);
    let smallest = by_count[0];
    assert_eq!(
        count_variant("3x3", "diagonal", &smallest.givens, "dlx"),
        smallest.count
    );
    for r in [by_count[by_count.len() / 2], by_count[by_count.len() - 1]] {
        assert_eq!(
            count_variant("3x3", "diagonal", &r.givens, "sudoku-groups"),
            r.count
        );
        assert_eq!(count_variant("3x3", "diagonal", &r.givens, "dlx"), r.count);
    }
}

const LEDGER_9X9_HYPER: &str = "../results/reference/sudoku-9x9-hyper/ledger.csv.gz";

#[test]
fn the_windoku_ledger_sums_to_the_published_total_and_recounts() {
    // 6,337,174,388,428,800 = 9! x 17,463,553,760 windoku grids (the enjoysudoku forum's
    // "SudokuW, SudokuWX, Windoku" thread), the spec's expected_total. One row per unit: the
    // middle band given (row 4 fixed by relabelling), weighted by its class size under the
    // variant's symmetries that keep it (117,949 classes of the 2,612,736 middle bands).
    let rows = read(LEDGER_9X9_HYPER);
    assert_eq!(rows.len(), 117_949);
    assert!(rows.iter().all(|r| r.state == "done"
        && r.factor == 362_880
        && r.givens.len() == 81
        && r.givens[..27].chars().all(|c| c == '.')
        && r.givens[27..36] == *"123456789"
        && r.givens[54..].chars().all(|c| c == '.')));
    assert_eq!(rows.iter().map(|r| r.weight).sum::<u128>(), 2_612_736);
    let sum: u128 = rows.iter().map(|r| r.weight * r.count).sum();
    assert_eq!(sum, 17_463_553_760);
    assert_eq!(362_880 * sum, 6_337_174_388_428_800);
    // Units recounted through `dancehall count`: the largest and a middle one by the engine
    // (which made the ledger) and by the variant core (the join of bands 1 and 3).
    let mut by_count: Vec<&Row> = rows.iter().collect();
    by_count.sort_by_key(|r| r.count);
    for r in [by_count[by_count.len() / 2], by_count[by_count.len() - 1]] {
        assert_eq!(count_variant("3x3", "hyper", &r.givens, "dlx"), r.count);
        assert_eq!(
            count_variant("3x3", "hyper", &r.givens, "sudoku-groups"),
            r.count
        );
    }
}

const LEDGER_9X9_DISJOINT: &str = "../results/reference/sudoku-9x9-disjoint/ledger.csv";

#[test]
fn the_sudokup_ledger_sums_to_the_published_total_and_recounts() {
    // 201,105,135,151,764,480 = 9! x 554,191,840,696 SudokuP grids (disjoint groups; the
    // enjoysudoku forum's "SudokuP analysis" thread), the spec's expected_total. One row per
    // unit: the middle band given (row 4 fixed), weighted by its class size (8,005 classes of
    // the 2,612,736 middle bands). The band 123456789/456789123/789123456 completes in
    // 631,369,728 ways, the figure that thread gives for its band 1.
    let rows = read(LEDGER_9X9_DISJOINT);
    assert_eq!(rows.len(), 8_005);
    assert!(rows.iter().all(|r| r.state == "done"
        && r.factor == 362_880
        && r.givens.len() == 81
        && r.givens[27..36] == *"123456789"));
    assert_eq!(rows.iter().map(|r| r.weight).sum::<u128>(), 2_612_736);
    let sum: u128 = rows.iter().map(|r| r.weight * r.count).sum();
    assert_eq!(sum, 554_191_840_696);
    assert_eq!(362_880 * sum, 201_105_135_151_764_480);
    let band = format!(
        "{}123456789456789123789123456{}",
        ".".repeat(27),
        ".".repeat(27)
    );
    let first = rows.iter().find(|r| r.givens == band).expect("the band");
    assert_eq!(first.count, 631_369_728);
    // The smallest unit recounted by the engine (independent of the variant core that made
    // the ledger), a middle one by the core, both through `dancehall count`.
    let mut by_count: Vec<&Row> = rows.iter().collect();
    by_count.sort_by_key(|r| r.count);
    let smallest = by_count[0];
    assert_eq!(
        count_variant("3x3", "disjoint", &smallest.givens, "dlx"),
        smallest.count
    );
    let middle = by_count[by_count.len() / 2];
    assert_eq!(
        count_variant("3x3", "disjoint", &middle.givens, "sudoku-groups"),
        middle.count
    );
}

const LEDGER_QUEENS_19: &str = "../results/reference/queens-19/ledger.csv";
const LEDGER_QUEENS_20: &str = "../results/reference/queens-20/ledger.csv";
const LEDGER_QUEENS_21: &str = "../results/reference/queens-21/ledger.csv";

/// A queens ledger's rows: one per unit, the queens on the border ring as option ids
/// `row * n + col` (a split unit's rows carry the queens the partitioner added), the weight
/// (the size of its class under the symmetries of the square) and the count.
fn queens_ledger(path: &str) -> Vec<(Vec<u32>, u128, u128)> {
    let text = ledger_text(path);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (p, w, c, s) = (col("prefix"), col("weight"), col("count"), col("state"));
    let mut rows: Vec<(Vec<u32>, u128, u128)> = lines
        .map(|line| {
            let v: Vec<&str> = line.split(',').collect();
            assert_eq!(v[s], "done");
            let prefix = v[p].split(' ').map(|x| x.parse().unwrap()).collect();
            (prefix, v[w].parse().unwrap(), v[c].parse().unwrap())
        })
        .collect();
    rows.sort_by_key(|r| r.2);
    rows
}

/// Checks a queens ledger of n queens: its weighted sum is `total`; the units at `ranks`
/// (by count, 0 = the smallest) recount by the queens core, and the smallest by the engine
/// too (independent of the core that made the ledger).
fn check_queens_ledger(path: &str, n: usize, total: u128, ranks: &[usize]) {
    let rows = queens_ledger(path);
    let sum: u128 = rows.iter().map(|(_, w, c)| w * c).sum();
    assert_eq!(sum, total, "{path}");
    let stop = std::sync::atomic::AtomicBool::new(false);
    for &rank in ranks {
        let r = &rows[rank];
        let core = cores::grids::queens::count_queens(n, &r.0, &stop)
            .unwrap()
            .unwrap();
        assert_eq!(core.solutions, r.2, "queens core on {:?}", r.0);
    }
    let queens = cores::problems::queens::Queens::build(n).unwrap();
    let mut dlx = cores::xcc::Dlx::new(&queens.problem);
    dlx.apply_prefix(&rows[0].0).unwrap();
    assert_eq!(dlx.count(), rows[0].2);
}

#[test]
fn the_queens_19_ledger_sums_to_oeis_and_recounts() {
    // Q(19) = 4,968,057,848 (OEIS A000170), the spec's expected_total; the smallest and the
    // largest unit recounted.
    let units = queens_ledger(LEDGER_QUEENS_19).len();
    check_queens_ledger(LEDGER_QUEENS_19, 19, 4_968_057_848, &[0, units - 1]);
}

#[test]
fn the_queens_20_ledger_sums_to_oeis_and_recounts() {
    // Q(20) = 39,029,188,884 (OEIS A000170), the spec's expected_total; the smallest and the
    // median unit recounted.
    let units = queens_ledger(LEDGER_QUEENS_20).len();
    check_queens_ledger(LEDGER_QUEENS_20, 20, 39_029_188_884, &[0, units / 2]);
}

#[test]
fn the_queens_21_ledger_sums_to_oeis_and_recounts() {
    // Q(21) = 314,666,222,712 (OEIS A000170), the spec's expected_total; the smallest and the
    // median unit recounted.
    let units = queens_ledger(LEDGER_QUEENS_21).len();
    check_queens_ledger(LEDGER_QUEENS_21, 21, 314_666_222_712, &[0, units / 2]);
}
