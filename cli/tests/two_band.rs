//! The two-band counter end to end (`[units] generator = "two-band"`, core `two-band-class`,
//! `dancehall count sudoku --band-config`), and the committed ledger of the 10x10 count
//! (`results/reference/sudoku-10x10/ledger.csv`, written by `dancehall ledger` after
//! `dancehall run bench-specs/sudoku-10x10.toml`): its weighted sum gives the published
//! total, every row's count is its `fillings` squared, and units recounted with `dancehall
//! count` give the counts and class sizes it records.
//!
//! Published figures: 28,200,960 grids of 6x6 with 2x3 boxes (Pettersen 2005; OEIS A291187);
//! 1,903,816,047,972,624,930,994,913,280,000 grids of 10x10 with 2x5 boxes and 355 classes
//! of top-band column configurations (K. F. Pettersen, enjoysudoku forum, "Su-Doku's
//! maths", 2005; OEIS A291187); C(10,5)^5 = 252^5 configurations in all.

mod common;

use std::path::Path;

const LEDGER_10X10: &str = "../results/reference/sudoku-10x10/ledger.csv";

fn dancehall(args: &[&str]) -> std::process::Output {
    common::dancehall()
        .args(args)
        .output()
        .expect("run dancehall")
}

struct Row {
    weight: u128,
    count: u128,
    factor: u128,
    class: usize,
    class_size: u128,
    config: String,
    fillings: u128,
    term: u128,
    core: String,
}

fn read(ledger: &str) -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(ledger);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: std::collections::HashMap<&str, usize> = (lines.next().expect("a header"))
        .split(',')
        .enumerate()
        .map(|(i, name)| (name, i))
        .collect();
    let col = |name: &str| {
        *header
            .get(name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let cols = [
        "weight",
        "count",
        "factor",
        "class",
        "class_size",
        "config",
        "fillings",
        "term",
        "core",
        "ledger",
    ]
    .map(col);
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let num = |i: usize| -> u128 { f[cols[i]].parse().unwrap_or_else(|_| panic!("{l}")) };
            assert_eq!(f[cols[9]], "complete", "{l}");
            Row {
                weight: num(0),
                count: num(1),
                factor: num(2),
                class: f[cols[3]].parse().unwrap(),
                class_size: num(4),
                config: f[cols[5]].to_string(),
                fillings: num(6),
                term: num(7),
                core: f[cols[8]].to_string(),
            }
        })
        .collect()
}

#[test]
fn the_10x10_ledger_sums_to_pettersens_total_and_recounts() {
    let rows = read(LEDGER_10X10);
    assert_eq!(rows.len(), 355);
    let mut total = 0u128;
    for r in &rows {
        assert_eq!(r.core, "two-band-class");
        assert_eq!(r.weight, r.class_size);
        assert_eq!(r.fillings * r.fillings, r.count, "class {}", r.class);
        assert_eq!(r.class_size * r.count, r.term, "class {}", r.class);
        assert_eq!(r.factor, 1);
        total += r.term;
    }
    assert_eq!(total, 1_903_816_047_972_624_930_994_913_280_000);
    assert_eq!(
        rows.iter().map(|r| r.class_size).sum::<u128>(),
        252u128.pow(5)
    );
    // Three units recounted from their rows: first, middle, last.
    for r in [&rows[0], &rows[177], &rows[354]] {
        let o = dancehall(&[
            "count",
            "sudoku",
            "--box",
            "2x5",
            "--band-config",
            &r.config,
            "--json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let num = |k: &str| v[k].as_str().unwrap().parse::<u128>().unwrap();
        assert_eq!(num("fillings"), r.fillings, "class {}", r.class);
        assert_eq!(num("count"), r.count, "class {}", r.class);
        assert_eq!(num("class_size"), r.class_size, "class {}", r.class);
        assert_eq!(v["class"].as_u64(), Some(r.class as u64));
    }
}

#[test]
fn a_6x6_two_band_job_runs_ledgers_and_recounts() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("six.toml");
    std::fs::write(
        &spec,
        "name = \"six\"\nexpected_total = 28200960\n\n[problem]\nfamily = \"sudoku\"\n\
         box_rows = 2\nbox_cols = 3\n\n[units]\ngenerator = \"two-band\"\n",
    )
    .unwrap();
    let db = dir.path().join("six.db");
    let (spec, db) = (spec.to_str().unwrap(), db.to_str().unwrap());
    let o = dancehall(&["run", spec, "--workers", "2", "--db", db, "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("\"solutions\":\"28200960\""), "{out}");
    let ledger = dir.path().join("ledger.csv");
    let o = dancehall(&["ledger", "--db", db, "--out", ledger.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&ledger).unwrap();
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("class,class_size,config,fillings,term"),
        "{text}"
    );
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{text}");
}

#[test]
fn bad_two_band_input_is_refused_with_exit_2() {
    for (args, want) in [
        (
            vec![
                "count",
                "sudoku",
                "--box",
                "2x5",
                "--band-config",
                "12345|12345",
            ],
            "2 stacks",
        ),
        (
            vec![
                "count",
                "sudoku",
                "--box",
                "2x3",
                "--band-config",
                "123|145|14Z",
            ],
            "no digit",
        ),
        (
            vec![
                "count",
                "sudoku",
                "--box",
                "3x4",
                "--band-config",
                "123|456|789",
            ],
            "boxes of 2 by R",
        ),
    ] {
        let o = dancehall(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let spec = common::write_spec(
        dir.path(),
        "nine.toml",
        "name = \"nine\"\n\n[problem]\nfamily = \"sudoku\"\nbox_rows = 3\nbox_cols = 3\n\n\
         [units]\ngenerator = \"two-band\"\n",
    );
    let o = common::run_spec(&spec, &dir.path().join("nine.db"), &["--workers", "1"], 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("nine.toml") && err.contains("boxes of 2 by R"),
        "{err}"
    );
}
