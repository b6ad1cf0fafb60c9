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
    /// The unit a split handed this one back from; empty for a unit of the partition (and in
    /// ledgers older than splits).
    parent: String,
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
    // Ledgers written before splits were recorded have no `parent` column.
    let pa = header.iter().position(|h| *h == "parent");
    lines
        .map(|line| {
            let v: Vec<&str> = line.split(',').collect();
            Row {
                state: v[st].to_string(),
                parent: pa.map_or("", |i| v[i]).to_string(),
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

/// `dancehall units SPEC [--box RxC]` (the units the spec's `[units]` makes, through the same
/// code as `dancehall run`): each unit's givens or prefix with its weight, and the factor.
fn generated(spec: &str, shape: Option<&str>) -> (Vec<(String, u128)>, u128) {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench-specs")
        .join(spec);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dancehall"));
    cmd.arg("units").arg(&spec);
    if let Some(shape) = shape {
        cmd.args(["--box", shape]);
    }
    let o = cmd.output().expect("run dancehall");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(header.ends_with(",weight,factor"), "{header}");
    let mut factors = std::collections::BTreeSet::new();
    let units = lines
        .map(|line| {
            let v: Vec<&str> = line.split(',').collect();
            factors.insert(v[2].parse::<u128>().unwrap());
            (v[0].to_string(), v[1].parse().unwrap())
        })
        .collect();
    assert_eq!(factors.len(), 1, "one factor: {factors:?}");
    (units, factors.pop_first().unwrap())
}

#[test]
fn units_says_what_it_cannot_print() {
    // A user error: exit status 2, the reason on stderr, nothing on stdout.
    for (spec, args, says) in [
        (
            "queens-13.toml",
            &[][..],
            "queens-13.toml: no job has [units]",
        ),
        (
            "default.toml",
            &["--job", "sudoku-6x6"][..],
            "job `sudoku-6x6` has no [units]",
        ),
        (
            "queens-19.toml",
            &["--box", "3x3"][..],
            "--box 3x3: job `queens-19` is not a Sudoku of that shape",
        ),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_dancehall"))
            .arg("units")
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../bench-specs")
                    .join(spec),
            )
            .args(args)
            .output()
            .expect("run dancehall");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{spec} {args:?}: {err}");
        assert!(err.contains(says), "{spec} {args:?}: {err}");
        assert!(o.stdout.is_empty(), "{spec} {args:?}");
    }
}

/// Fails unless `made` and `committed` hold the same (unit, weight) pairs, as many times each;
/// names the first difference (the lists are too long to print).
fn assert_same_units(
    what: &str,
    mut made: Vec<(String, u128)>,
    mut committed: Vec<(String, u128)>,
) {
    made.sort();
    committed.sort();
    if let Some((m, c)) = made.iter().zip(&committed).find(|(m, c)| m != c) {
        panic!("{what}: the generator makes {m:?} where the ledger has {c:?}");
    }
    assert_eq!(made.len(), committed.len(), "{what}: units");
}

/// Checks that the generator of `spec` makes exactly the units of the Sudoku `ledger` (its
/// rows without a parent: the units of the partition, split or not), with their weights and
/// the ledger's factor: a change of a generator that moves weight between classes, changes a
/// unit's givens or the factor, fails here even if the weights still add up.
fn assert_generator_made_the_sudoku_ledger(ledger: &str, spec: &str, shape: &str) {
    let rows = read(ledger);
    let (made, factor) = generated(spec, Some(shape));
    let committed: Vec<(String, u128)> = rows
        .iter()
        .filter(|r| r.parent.is_empty())
        .map(|r| (r.givens.clone(), r.weight))
        .collect();
    assert_same_units(ledger, made, committed);
    assert!(rows.iter().all(|r| r.factor == factor), "{ledger}: factor");
}

#[test]
fn the_band_reduction_gives_the_committed_ledgers_units_and_weights() {
    // The plain grids' generator (`sudoku-grids`, `cores::grids::units`).
    assert_generator_made_the_sudoku_ledger(LEDGER, "sudoku-9x9.toml", "3x3");
    assert_generator_made_the_sudoku_ledger(LEDGER_8X8, "sudoku-8x8-grids.toml", "2x4");
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
    assert_generator_made_the_sudoku_ledger(
        LEDGER_8X8_DIAGONAL,
        "sudoku-8x8-diagonal-grids.toml",
        "2x4",
    );
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
    // Units recounted: the smallest by the engine and two more by the variant core (its route
    // for exactly a middle band, `cores::grids::x_band`), both through `dancehall count`.
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
/// (the size of its class under the symmetries of the square), the count and the factor.
fn queens_ledger(path: &str) -> Vec<(Vec<u32>, u128, u128, u128)> {
    let text = ledger_text(path);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (p, w, c, s) = (col("prefix"), col("weight"), col("count"), col("state"));
    let (pa, f) = (col("parent"), col("factor"));
    let mut rows: Vec<(Vec<u32>, u128, u128, u128)> = lines
        .map(|line| {
            let v: Vec<&str> = line.split(',').collect();
            assert_eq!(v[s], "done");
            assert_eq!(v[pa], "", "no unit was split after the partition");
            let prefix = v[p].split(' ').map(|x| x.parse().unwrap()).collect();
            let num = |i: usize| v[i].parse().unwrap();
            (prefix, num(w), num(c), num(f))
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
    let sum: u128 = rows.iter().map(|(_, w, c, _)| w * c).sum();
    assert_eq!(sum, total, "{path}");
    let stop = std::sync::atomic::AtomicBool::new(false);
    for &rank in ranks {
        let r = &rows[rank];
        let core = cores::queens::count_queens(n, &r.0, &stop)
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

/// Units drawn from each of the queens-20 and queens-21 ledgers: 8 of each, about 25 CPU
/// seconds in the dev profile.
const SCALAR_SAMPLE: usize = 8;

#[test]
fn sampled_queens_ledger_units_recount_on_the_scalar_path() {
    // The ledgers were counted by the queens core on a CPU with AVX-512 (their README.md),
    // where units of 18 to 21 queens go to its lanes (`cores::queens`); the scalar
    // search, the one CPUs without AVX-512 run, must give each sampled unit's recorded count
    // too. Units drawn uniformly without replacement by ChaCha8 with the fixed seed 20: the
    // same draw on every run and machine.
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20);
    let stop = std::sync::atomic::AtomicBool::new(false);
    for (path, n) in [(LEDGER_QUEENS_20, 20), (LEDGER_QUEENS_21, 21)] {
        let rows = queens_ledger(path);
        for i in rand::seq::index::sample(&mut rng, rows.len(), SCALAR_SAMPLE) {
            let (prefix, _, count, _) = &rows[i];
            let got = cores::queens::count_queens_scalar(n, prefix, &stop)
                .unwrap()
                .unwrap();
            assert_eq!(got.solutions, *count, "{path}: unit {prefix:?}");
        }
    }
}

/// The queens of `prefix` on the border ring of the `n` x `n` board (rows and columns 0 and
/// n-1), as sorted option ids: the unit of `queens-border` that a ledger row belongs to. The
/// partitioner's splits add queens inside the ring only: a border unit already holds a queen
/// in each of the ring's rows and columns.
fn border_queens(n: usize, prefix: &[u32]) -> Vec<u32> {
    let mut ring: Vec<u32> = prefix
        .iter()
        .copied()
        .filter(|&o| {
            let (r, c) = (o as usize / n, o as usize % n);
            r == 0 || c == 0 || r == n - 1 || c == n - 1
        })
        .collect();
    ring.sort_unstable();
    ring
}

/// Checks that `queens-border` for the spec of n queens makes exactly the units of the queens
/// `ledger`, with their weights and the ledger's factor. The ledger's rows are the units as
/// the partitioner cut them (the largest split by queens inside the ring, no row with a
/// parent): grouped by their border queens, each group is one generated unit, its rows all
/// carrying its weight.
fn assert_generator_made_the_queens_ledger(ledger: &str, spec: &str, n: usize) {
    let rows = queens_ledger(ledger);
    let mut classes: BTreeMap<Vec<u32>, u128> = BTreeMap::new();
    for (prefix, weight, _, _) in &rows {
        let ring = border_queens(n, prefix);
        let w = *classes.entry(ring.clone()).or_insert(*weight);
        assert_eq!(
            w, *weight,
            "{ledger}: the rows of unit {ring:?} differ in weight"
        );
    }
    let text = coordinator::job::prefix_text;
    let (made, factor) = generated(spec, None);
    let made: Vec<(String, u128)> = made
        .into_iter()
        .map(|(prefix, w)| {
            let mut ids: Vec<u32> = prefix.split(' ').map(|x| x.parse().unwrap()).collect();
            ids.sort_unstable();
            (text(&ids), w)
        })
        .collect();
    let committed = classes.iter().map(|(ring, &w)| (text(ring), w)).collect();
    assert_same_units(ledger, made, committed);
    assert!(rows.iter().all(|r| r.3 == factor), "{ledger}: factor");
}

#[test]
fn the_border_generator_gives_the_committed_queens_ledgers_units() {
    // results/reference/queens-{19,20,21}/ledger.csv, from bench-specs/queens-{19,20,21}.toml.
    for (ledger, spec, n) in [
        (LEDGER_QUEENS_19, "queens-19.toml", 19),
        (LEDGER_QUEENS_20, "queens-20.toml", 20),
        (LEDGER_QUEENS_21, "queens-21.toml", 21),
    ] {
        assert_generator_made_the_queens_ledger(ledger, spec, n);
    }
}

#[test]
fn the_variant_generator_gives_the_committed_x_sudoku_ledgers_units() {
    assert_generator_made_the_sudoku_ledger(LEDGER_9X9_DIAGONAL, "sudoku-9x9-diagonal.toml", "3x3");
}

#[test]
fn the_variant_generator_gives_the_committed_windoku_ledgers_units() {
    assert_generator_made_the_sudoku_ledger(LEDGER_9X9_HYPER, "sudoku-9x9-hyper.toml", "3x3");
}

#[test]
fn the_variant_generator_gives_the_committed_sudokup_ledgers_units() {
    assert_generator_made_the_sudoku_ledger(LEDGER_9X9_DISJOINT, "sudoku-9x9-disjoint.toml", "3x3");
}

/// Generated units are kept on disk (`cli/src/spec/cache.rs`): a second `dancehall units` of
/// the same spec reads them instead of generating them, prints the same units, and a
/// damaged entry is noticed, generated again and rewritten.
#[test]
fn generated_units_are_read_back_from_the_cache_and_a_damaged_entry_is_redone() {
    let cache = tempfile::tempdir().unwrap();
    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/sudoku-6x6-diagonal-grids.toml");
    let units = || {
        let out = Command::new(env!("CARGO_BIN_EXE_dancehall"))
            .arg("units")
            .arg(&spec)
            .env("DANCEHALL_CACHE", cache.path())
            .env("DANCEHALL_LOG", "info")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (first, log) = units();
    assert!(log.contains("generated in"), "{log}");
    // A header and the 5 classes of the 16 fillings of band 2 (the spec's label).
    assert_eq!(first.lines().count(), 1 + 5, "{first}");
    let entries: Vec<_> = std::fs::read_dir(cache.path().join("units"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");

    let (second, log) = units();
    assert!(log.contains("read from the cache"), "{log}");
    assert!(!log.contains("generated in"), "{log}");
    assert_eq!(second, first);

    // A weight changed in the entry (the first unit's, after its givens): refused by the
    // digest, generated again, the same units printed, the entry rewritten.
    let text = std::fs::read_to_string(&entries[0]).unwrap();
    let damaged = text.replacen("\"weight\":", "\"weight\":9", 1);
    assert_ne!(damaged, text);
    std::fs::write(&entries[0], damaged).unwrap();
    let (third, log) = units();
    assert!(
        log.contains("SHA-256") && log.contains("generated in"),
        "{log}"
    );
    assert_eq!(third, first);
    let (fourth, log) = units();
    assert!(log.contains("read from the cache"), "{log}");
    assert_eq!(fourth, first);
}
