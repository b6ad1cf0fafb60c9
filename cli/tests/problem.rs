//! `dancehall count | estimate | export | trace` as a user runs them: known counts through the
//! binary, JSON shape, DLX round trips, and bad input (exit status 2, file:line: problem).

use std::process::{Command, Output};

fn dancehall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dancehall"))
        .args(args)
        .output()
        .expect("run dancehall")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = dancehall(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

#[test]
fn sudoku_6x6_with_first_row_fixed_prints_39168() {
    // 28,200,960 grids with 2x3 boxes (REFERENCES.md) / 6! = 39,168.
    let o = dancehall(&["count", "sudoku", "--box", "2x3", "--fix-first-row"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("solutions: 39168"), "{text}");
    assert!(text.contains("x 720 = 28200960"), "{text}");
}

#[test]
fn json_counts_are_decimal_strings_with_statistics() {
    // Seed 000, Table 1 and section 2.4: 288 grids of size 2, 48 diagonal ones.
    let v = json(&["count", "sudoku", "--box", "2x2", "--json"]);
    assert_eq!(v["solutions"], "288");
    assert!(v["nodes"].as_u64().unwrap() > 288);
    assert!(v["updates"].as_u64().unwrap() > v["nodes"].as_u64().unwrap());
    assert!(v["seconds"].as_f64().is_some());
    let v = json(&[
        "count",
        "sudoku",
        "--box",
        "2x2",
        "--variant",
        "diagonal",
        "--json",
    ]);
    assert_eq!(v["solutions"], "48");
    // OEIS A000170.
    assert_eq!(json(&["count", "queens", "8", "--json"])["solutions"], "92");
    // OEIS A014552: L(2,7) has 26 pairings up to reversal.
    let v = json(&["count", "langford", "7", "--break-symmetry", "--json"]);
    assert_eq!(v["solutions"], "26");
    assert_eq!(v["total_solutions"], "52");
    // OEIS A000315: 56 reduced Latin squares of order 5.
    assert_eq!(
        json(&["count", "latin", "5", "--reduced", "--json"])["solutions"],
        "56"
    );
}

#[test]
fn a_limit_of_two_checks_uniqueness() {
    // First puzzle of ../shared/data/sudoku/royle_17clue_49151.txt (line 1): unique.
    let givens =
        "000000010400000000020000000000050407008000300001090000300400200050100000000806000";
    let v = json(&[
        "count", "sudoku", "--box", "3x3", "--givens", givens, "--limit", "2", "--json",
    ]);
    assert_eq!(v["solutions"], "1");
    assert_eq!(v["complete"], true);
}

#[test]
fn exported_problems_count_the_same_when_read_back() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["sudoku", "--box", "2x2", "--variant", "diagonal"][..],
        &["langford", "7"],
        &["latin", "4", "--reduced"],
    ] {
        let direct = json(&[&["count"][..], args, &["--json"]].concat());
        let o = dancehall(&[&["export"][..], args].concat());
        assert!(o.status.success());
        let path = dir.path().join("p.dlx");
        std::fs::write(&path, &o.stdout).unwrap();
        let back = json(&["count", "--dlx", path.to_str().unwrap(), "--json"]);
        assert_eq!(back["solutions"], direct["solutions"], "{args:?}");
    }
}

#[test]
fn trace_to_the_first_4x4_grid_makes_256_covers_as_in_seed_000() {
    // Seed 000 section 2.4: the trace of the first covering of sud2.mat totals 256 covers
    // over depths 0-15 (plus, in our table, the solution leaf at depth 16).
    let o = dancehall(&["trace", "sudoku", "--box", "2x2", "--first"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let total = text.lines().find(|l| l.starts_with("Total")).unwrap();
    let cols: Vec<&str> = total.split_whitespace().collect();
    assert_eq!(cols[1], "17", "{text}");
    assert_eq!(cols[2], "256", "{text}");
    assert!(text.contains("Depth"));
}

#[test]
fn estimate_prints_means_with_standard_errors() {
    let v = json(&[
        "estimate",
        "queens",
        "6",
        "--samples",
        "4000",
        "--seed",
        "1",
        "--json",
    ]);
    let mean = v["solutions"]["mean"].as_f64().unwrap();
    let se = v["solutions"]["std_err"].as_f64().unwrap();
    // OEIS A000170: 4 solutions for n = 6; the estimator is unbiased.
    assert!((mean - 4.0).abs() <= 4.0 * se + 1e-9, "{mean} ± {se}");
    assert_eq!(v["samples"], 4000);
}

#[test]
fn bad_input_names_file_line_and_problem_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        ("a b\na c\n", ":2: unknown item `c`"),
        ("a b\na a\n", ":2:"),
        ("| only a comment\n", "item"),
        ("a b | x\na x:red\nb x:blue x\n", ":3:"),
    ];
    for (text, want) in cases {
        let path = dir.path().join("bad.dlx");
        std::fs::write(&path, text).unwrap();
        let o = dancehall(&["count", "--dlx", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{text:?}");
        let err = stderr(&o);
        assert!(
            err.contains("bad.dlx") && err.contains(want),
            "{text:?}: {err}"
        );
        assert!(o.stdout.is_empty());
    }
    let o = dancehall(&["count", "sudoku", "--box", "2x2", "--givens", "1.."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected 16"), "{}", stderr(&o));
    let o = dancehall(&[
        "count",
        "sudoku",
        "--box",
        "2x2",
        "--givens",
        "11..............",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("both hold 1"), "{}", stderr(&o));
    let o = dancehall(&["count", "sudoku", "--box", "2x2", "--variant", "zigzag"]);
    assert_eq!(o.status.code(), Some(2));
    let o = dancehall(&["count", "--dlx", "/nonexistent/file.dlx"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/file.dlx"));
    let o = dancehall(&["count"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_completion_core_counts_plain_grids_and_refuses_variants() {
    // 288 grids of 4x4 (seed 000, Table 1); 39,168 with the 6x6 first row fixed.
    let v = json(&[
        "count",
        "sudoku",
        "--box",
        "2x2",
        "--core",
        "sudoku-bands",
        "--json",
    ]);
    assert_eq!(v["solutions"], "288");
    assert_eq!(v["core"], "sudoku-bands");
    let v = json(&[
        "count",
        "sudoku",
        "--box",
        "2x3",
        "--fix-first-row",
        "--core",
        "sudoku-bands",
        "--json",
    ]);
    assert_eq!(v["solutions"], "39168");
    for extra in [&["--variant", "diagonal"][..], &["--limit", "2"][..]] {
        let mut args = vec!["count", "sudoku", "--box", "2x2", "--core", "sudoku-bands"];
        args.extend_from_slice(extra);
        let o = dancehall(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("sudoku-bands"), "{}", stderr(&o));
    }
}

#[test]
fn queens_are_counted_by_the_bitboard_core_unless_the_engine_is_asked_for() {
    // Q(10) = 724 (OEIS A000170).
    let v = json(&["count", "queens", "10", "--json"]);
    assert_eq!(
        (v["solutions"].as_str(), v["core"].as_str()),
        (Some("724"), Some("queens"))
    );
    let v = json(&["count", "queens", "10", "--core", "dlx", "--json"]);
    assert_eq!(v["solutions"], "724");
    assert!(v["core"].is_null(), "{v}");
    // --limit needs the engine: a default core falls back to it, an explicit one is refused.
    let v = json(&["count", "queens", "10", "--limit", "5", "--json"]);
    assert_eq!(v["solutions"], "5");
    for args in [
        &["count", "queens", "10", "--core", "queens", "--limit", "5"][..],
        &["count", "queens", "33", "--core", "queens"][..],
        &["count", "latin", "4", "--core", "queens"][..],
    ] {
        let o = dancehall(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("--core queens"), "{}", stderr(&o));
    }
}

#[test]
fn print_draws_each_family_in_its_own_picture() {
    // 4 queens: two boards (OEIS A000170), one queen in every row and column.
    let text = stdout(&dancehall(&["count", "queens", "4", "--print"]));
    let boards: Vec<&str> = text.split("\n\n").filter(|b| b.contains('Q')).collect();
    assert_eq!(boards.len(), 2, "{text}");
    for b in &boards {
        let rows: Vec<Vec<&str>> = b.lines().map(|l| l.split(' ').collect()).collect();
        assert_eq!(rows.len(), 4, "{b}");
        for i in 0..4 {
            assert_eq!(rows[i].iter().filter(|c| **c == "Q").count(), 1, "{b}");
            assert_eq!(rows.iter().filter(|r| r[i] == "Q").count(), 1, "{b}");
        }
    }
    // L(2,3): 231213 and its reversal (OEIS A014552: one pairing up to reversal); each k's
    // two copies are k+1 apart.
    let text = stdout(&dancehall(&[
        "count",
        "langford",
        "3",
        "--break-symmetry",
        "--print",
    ]));
    let seq: Vec<usize> = text
        .lines()
        .next()
        .unwrap()
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    for k in 1..=3 {
        let at: Vec<usize> = (0..6).filter(|&i| seq[i] == k).collect();
        assert_eq!(at.len(), 2, "{seq:?}");
        assert_eq!(at[1] - at[0], k + 1, "{seq:?}");
    }
    // A 4x4 puzzle's grid with its boxes, agreeing with the givens.
    let text = stdout(&dancehall(&[
        "count",
        "sudoku",
        "--box",
        "2x2",
        "--givens",
        "12.......3......",
        "--print",
        "--limit",
        "1",
    ]));
    let grid: Vec<&str> = text.lines().take(5).collect();
    assert_eq!(grid[2], "----+----", "{text}");
    assert!(grid[0].starts_with("1 2 | "), "{text}");
    for row in [grid[0], grid[1], grid[3], grid[4]] {
        let mut digits: Vec<&str> = row.split(' ').filter(|c| *c != "|").collect();
        digits.sort();
        assert_eq!(digits, ["1", "2", "3", "4"], "{text}");
    }
    // A 3x20 pentomino packing (Knuth, "Dancing Links", 2000: two of them up to symmetry):
    // twelve pieces of five cells.
    let text = stdout(&dancehall(&[
        "count",
        "pentomino",
        "3x20",
        "--break-symmetry",
        "--print",
    ]));
    let board: String = text.split("\n\n").next().unwrap().replace('\n', "");
    assert_eq!(board.len(), 60, "{text}");
    let mut letters: Vec<char> = board.chars().collect();
    letters.sort();
    letters.dedup();
    assert_eq!(letters.len(), 12, "{text}");
    for l in letters {
        assert_eq!(board.chars().filter(|c| *c == l).count(), 5, "{text}");
    }
    // The option lines stay available.
    let text = stdout(&dancehall(&[
        "count",
        "queens",
        "4",
        "--print",
        "--options",
    ]));
    assert!(text.lines().next().unwrap().starts_with('r'), "{text}");
}
