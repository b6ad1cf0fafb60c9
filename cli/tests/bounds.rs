//! `dancehall bounds` as a user runs it (seed 000 section 2.2): next-row permanents with their
//! bounds, whole-grid bounds beside the estimate and the exact total, the one-row problem
//! counted again by `count --dlx`, and refusals (exit status 2).
//!
//! Sources: Mathimagics, "Row 2 completion counts" (enjoysudoku forum) for second rows; OEIS
//! A000166 (derangements), A002860 (Latin squares), A107739 (Sudoku grids).

mod common;

use common::{count, dancehall, json_lines, run_expect, stdout};

fn json(args: &[&str]) -> serde_json::Value {
    json_lines(&run_expect(dancehall().args(args), 0)).remove(0)
}

/// Runs `args`, expecting exit status 2; its stderr.
fn refused(args: &[&str]) -> String {
    let out = run_expect(dancehall().args(args), 2);
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Writes `bounds ARGS --export-row` to a file and counts it with `count --dlx`.
fn engine_count(dir: &std::path::Path, args: &[&str]) -> u128 {
    let exported = run_expect(dancehall().arg("bounds").args(args).arg("--export-row"), 0);
    let path = dir.join("row.dlx");
    std::fs::write(&path, &exported.stdout).unwrap();
    count(&["--dlx", path.to_str().unwrap()])
}

fn number(v: &serde_json::Value) -> u128 {
    v.as_str()
        .expect("a decimal string")
        .parse()
        .expect("a number")
}

#[test]
fn sudoku_9x9_prints_exact_bounds_and_estimate_side_by_side() {
    let text = stdout(&run_expect(
        dancehall().args(["bounds", "sudoku", "--box", "3x3"]),
        0,
    ));
    // Row 2 below 1..9: 12,096 = 56 x 3!^3 (the forum's table).
    let row2 = text.lines().find(|l| l.starts_with("2 ")).expect("row 2");
    assert!(row2.contains("12096"), "{text}");
    assert!(text.contains("6670903752021072936960"), "{text}");
    assert!(
        text.contains("cited: Felgenhauer and Jarvis (2005); OEIS A107739"),
        "{text}"
    );
    assert!(
        text.contains("rows at availability 9 6 3 6 5 3 3 2 1"),
        "{text}"
    );
    assert!(
        text.contains("Knuth's Monte Carlo, 1000 random paths"),
        "{text}"
    );

    let v = json(&["bounds", "sudoku", "--box", "3x3", "--json"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["exact"], "362880");
    assert_eq!(rows[1]["exact"], "12096");
    for row in rows {
        let (exact, upper) = (number(&row["exact"]), number(&row["upper_bregman"]));
        let lower = number(&row["lower_van_der_waerden"]);
        assert!(lower <= exact && exact <= upper, "{row}");
    }
    let grids = &v["grids"];
    assert_eq!(grids["exact"]["how"], "cited");
    assert_eq!(grids["exact"]["value"], "6670903752021072936960");
    // The bound is a bound: 1.7e26 >= 6.67e21.
    assert!(number(&grids["upper_bregman"]) >= 6_670_903_752_021_072_936_960);
    assert!(grids["estimate"]["mean"].as_f64().unwrap() > 0.0);
    assert_eq!(grids["estimate"]["samples"], 1000);
}

#[test]
fn latin_7_rows_are_factorial_and_derangements() {
    let v = json(&["bounds", "latin", "7", "--json"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[0]["exact"], "5040");
    // OEIS A000166: D(7) = 1854.
    assert_eq!(rows[1]["exact"], "1854");
    assert!(number(&rows[1]["lower_van_der_waerden"]) <= 1854);
    assert!(number(&rows[1]["upper_bregman"]) >= 1854);
    // OEIS A002860: 61,479,419,904,000 squares of order 7, below prod_k (k!)^(7/k).
    assert_eq!(v["grids"]["exact"]["value"], "61479419904000");
    assert_eq!(v["grids"]["exact"]["source"], "OEIS A002860");
    assert!(number(&v["grids"]["upper_bregman"]) >= 61_479_419_904_000);
    let text = stdout(&run_expect(dancehall().args(["bounds", "latin", "7"]), 0));
    assert!(text.contains("1854"), "{text}");
    assert!(text.contains("cited: OEIS A002860"), "{text}");
}

#[test]
fn small_totals_are_counted_and_checked_against_the_cited_ones() {
    // OEIS A107739: 288; OEIS A291187 (and REFERENCES.md): 28,200,960; OEIS A002860: 161,280
    // (order 5).
    for (args, want) in [
        (vec!["sudoku", "--box", "2x2"], "288"),
        (vec!["sudoku", "--box", "2x3"], "28200960"),
        (vec!["latin", "5"], "161280"),
    ] {
        let mut full = vec!["bounds"];
        full.extend(&args);
        full.push("--json");
        let v = json(&full);
        assert_eq!(v["grids"]["exact"]["how"], "counted", "{args:?}");
        assert_eq!(v["grids"]["exact"]["value"], want, "{args:?}");
        assert_eq!(v["grids"]["exact"]["cited"]["value"], want, "{args:?}");
    }
}

#[test]
fn with_rows_given_the_next_row_is_exact() {
    // Latin: below 1234 / 2143, 2 x 2 third rows, each leaving one fourth row: 4 completions,
    // counted.
    let v = json(&["bounds", "latin", "4", "--rows", "1234,2143", "--json"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["row"], 3);
    assert_eq!(rows[0]["exact"], "4");
    assert_eq!(v["grids"]["what"], "completions of the givens");
    assert_eq!(v["grids"]["exact"]["value"], "4");
    // Sudoku 9x9 with rows 1-2 given: each box of row 3 takes the segment's 3 remaining digits
    // in any order (3!^3 = 216), and the engine agrees on the exported row.
    let givens = format!("123456789456789123{}", ".".repeat(63));
    let v = json(&[
        "bounds", "sudoku", "--box", "3x3", "--givens", &givens, "--json",
    ]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[0]["row"], 3);
    assert_eq!(rows[0]["exact"], "216");
    assert_eq!(rows[0]["upper_bregman"], "216");
    let dir = tempfile::tempdir().unwrap();
    let args = ["sudoku", "--box", "3x3", "--givens", &givens];
    assert_eq!(engine_count(dir.path(), &args), 216);
}

#[test]
fn exported_second_rows_count_the_same_with_the_engine() {
    // The forum's 3x3 and 3x4 figures by `count --dlx` on the exported one-row problem:
    // 12,096 and 4,783,104 (4x3's 17,927,568 is in the cores test; 4x4 is out of reach).
    let dir = tempfile::tempdir().unwrap();
    for (shape, want) in [("3x3", 12_096), ("3x4", 4_783_104)] {
        assert_eq!(engine_count(dir.path(), &["sudoku", "--box", shape]), want);
        let v = json(&["bounds", "sudoku", "--box", shape, "--json"]);
        assert_eq!(number(&v["rows"][1]["exact"]), want, "{shape}");
    }
}

#[test]
fn the_36_by_36_second_row_is_past_u128() {
    // 6x6 boxes: 580,375,415,775,905,260,256,627,372,851,200,000,000 (129 bits; the forum).
    let v = json(&[
        "bounds",
        "sudoku",
        "--box",
        "6x6",
        "--samples",
        "10",
        "--json",
    ]);
    assert_eq!(
        v["rows"][1]["exact"],
        "580375415775905260256627372851200000000"
    );
    assert!(v["grids"]["exact"].is_null(), "no 36x36 total is known");
}

#[test]
fn families_without_a_permutation_structure_are_refused() {
    for args in [
        vec!["bounds", "queens", "8"],
        vec!["bounds", "langford", "7"],
        vec!["bounds", "pentomino", "6x10"],
        vec!["bounds", "--dlx", "Cargo.toml"],
        vec!["bounds", "latin", "5", "--reduced"],
        vec!["bounds", "latin", "4", "--rows", "1234,1342"],
        vec!["bounds", "sudoku", "--box", "2x2", "--rows", "1234"],
    ] {
        let err = refused(&args);
        assert!(err.starts_with("dancehall: "), "{args:?}: {err}");
    }
    let err = refused(&["bounds", "queens", "8"]);
    assert!(err.contains("no rows that are permutations"), "{err}");
    let err = refused(&["bounds", "latin", "4", "--rows", "1234,1342"]);
    assert!(
        err.contains("rows 1 and 2 both hold 1 in column 1"),
        "{err}"
    );
}
