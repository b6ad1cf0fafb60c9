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
const PARTIAL_12X12: &str = "../results/reference/sudoku-12x12-2x6/partial.csv";

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

/// A part of a class recounted by hand (`count sudoku --band-config C --part I/P --json`).
fn recount_part(box_shape: &str, config: &str, part: &str) -> serde_json::Value {
    let o = dancehall(&[
        "count",
        "sudoku",
        "--box",
        box_shape,
        "--band-config",
        config,
        "--part",
        part,
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The committed partial ledger of an hour of `dancehall run bench-specs/sudoku-12x12-2x6.toml`
/// (`dancehall ledger --partial --counted`; 16 parts per class): every row is partial and
/// counted by the two-band core, each part's count is its `fillings`, and class 1 (every
/// stack `789ABC`: two K6,6, each row a perfect matching of both) has all 16 parts, which
/// add up to B(C) = L6^2 with L6 = 812,851,200 Latin squares of order 6 (OEIS A002860);
/// its first two parts recount by hand. The other parts (about 9 core-minutes each) are
/// recounted in the reference README.
#[test]
fn the_12x12_partial_ledger_holds_parts_and_its_first_class_is_latin_squares_squared() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(PARTIAL_12X12);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.len() > 16, "class 1 and more: {} rows", rows.len());
    for r in &rows {
        assert_eq!(r[col("ledger")], "partial");
        assert_eq!(
            r[col("state")],
            "done",
            "--counted writes counted rows only"
        );
        assert_eq!(r[col("core")], "two-band-class");
        assert_eq!(
            r[col("count")],
            r[col("fillings")],
            "a part counts its piece of B(C)"
        );
        assert_eq!(r[col("weight")], r[col("class_size")]);
        assert!(r[col("part")].ends_with("/16"), "{r:?}");
    }
    let class1: Vec<&Vec<&str>> = rows.iter().filter(|r| r[col("class")] == "1").collect();
    assert_eq!(class1.len(), 16);
    let latin = 812_851_200u128;
    let b: u128 = class1
        .iter()
        .map(|r| r[col("fillings")].parse::<u128>().unwrap())
        .sum();
    assert_eq!(b, latin * latin);
    assert_eq!(
        class1[0][col("config")],
        "789ABC|789ABC|789ABC|789ABC|789ABC|789ABC"
    );
    for r in &class1[..2] {
        let v = recount_part("2x6", r[col("config")], r[col("part")]);
        assert_eq!(v["count"].as_str(), Some(r[col("count")]));
        assert_eq!(v["class_size"].as_str(), Some(r[col("class_size")]));
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

    // A ledger whose whole class's count was edited to no square B(C)^2 does not resume:
    // refused before submission, naming the file and the row's line.
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == "count").unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fields: Vec<String> = lines[2].split(',').map(str::to_string).collect();
    let count: u128 = fields[at].parse().unwrap();
    fields[at] = (count + 1).to_string();
    lines[2] = fields.join(",");
    std::fs::write(dir.path().join("edited.csv"), lines.join("\n") + "\n").unwrap();
    let resume = |file: &str| {
        let spec = dir.path().join(format!("{file}.toml"));
        std::fs::write(
            &spec,
            format!(
                "name = \"six\"\n\n[problem]\nfamily = \"sudoku\"\nbox_rows = 2\n\
                 box_cols = 3\n\n[units]\ngenerator = \"two-band\"\nfile = \"{file}\"\n\
                 resume = true\n"
            ),
        )
        .unwrap();
        dancehall(&["units", spec.to_str().unwrap()])
    };
    let o = resume("ledger.csv");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = resume("edited.csv");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("edited.csv:3: two-band class"), "{err}");
    assert!(
        err.contains(&format!("{} is not a square", count + 1)),
        "{err}"
    );
}

/// 8x8 (2x4 boxes), every class cut into three parts of B(C): the run's total is the
/// published count (OEIS A291187: 29,136,487,207,403,520) only because each class's parts
/// are added before squaring. A run whose worker dies on one part (the worker's fault hook)
/// ends held; its ledger's counted rows (`--partial --counted`) resume the job on another
/// database, which imports them, counts the one part left and reaches the same total; a
/// part recounts by hand from its row (`--band-config --part`); a ledger cut into other
/// parts is refused, naming the file and line.
#[test]
fn a_two_band_job_in_parts_counts_exactly_and_resumes_from_its_counted_rows() {
    let total = "29136487207403520";
    let dir = tempfile::tempdir().unwrap();
    let body = |units: &str| {
        format!(
            "name = \"eight\"\nexpected_total = \"{total}\"\n\n[problem]\nfamily = \
             \"sudoku\"\nbox_rows = 2\nbox_cols = 4\n\n[units]\ngenerator = \
             \"two-band\"\n{units}"
        )
    };
    let spec = common::write_spec(dir.path(), "eight.toml", &body("parts = 3\n"));
    let db = dir.path().join("eight.db");
    let o = dancehall(&[
        "run",
        spec.to_str().unwrap(),
        "--workers",
        "2",
        "--db",
        db.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("\"solutions\":\"{total}\"")), "{out}");
    let ledger = dir.path().join("ledger.csv");
    let o = dancehall(&[
        "ledger",
        "--db",
        db.to_str().unwrap(),
        "--out",
        ledger.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&ledger).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let classes = rows.len() / 3;
    assert_eq!(rows.len(), 3 * classes, "{text}");
    // Re-added by hand: each class's three parts summed, squared, times its size.
    let mut sum = 0u128;
    for class in rows.chunks(3) {
        let parts: Vec<&str> = class.iter().map(|r| r[col("part")]).collect();
        assert_eq!(parts, ["1/3", "2/3", "3/3"]);
        let b: u128 = class
            .iter()
            .map(|r| r[col("fillings")].parse::<u128>().unwrap())
            .sum();
        assert!(class.iter().all(|r| r[col("count")] == r[col("fillings")]));
        sum += class[0][col("class_size")].parse::<u128>().unwrap() * b * b;
    }
    assert_eq!(sum.to_string(), total);
    // The units as listed: one row per part, which part said.
    let o = dancehall(&["units", spec.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let listed = String::from_utf8_lossy(&o.stdout);
    assert!(
        listed.lines().next().unwrap().ends_with(",config,part"),
        "{listed}"
    );
    assert_eq!(listed.lines().count() - 1, rows.len());
    assert!(listed.lines().nth(2).unwrap().ends_with(",2/3"), "{listed}");
    // A part recounted from its row.
    let row = &rows[4];
    let v = recount_part("2x4", row[col("config")], row[col("part")]);
    assert_eq!(v["count"].as_str(), Some(row[col("count")]), "{v}");
    assert_eq!(v["part"].as_str(), Some(row[col("part")]), "{v}");

    // Unit 5 (class 2, part 2) kills every worker that starts it: the run ends held.
    let db2 = dir.path().join("held.db");
    let o = common::dancehall()
        .args(["run", spec.to_str().unwrap(), "--workers", "1", "--db"])
        .arg(&db2)
        .env(worker::fault::ABORT_UNIT_ENV, "5")
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let counted = dir.path().join("counted.csv");
    let o = dancehall(&[
        "ledger",
        "--db",
        db2.to_str().unwrap(),
        "--out",
        counted.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "not a count: refused");
    assert!(!counted.exists());
    let o = dancehall(&[
        "ledger",
        "--db",
        db2.to_str().unwrap(),
        "--partial",
        "--counted",
        "--out",
        counted.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("with every part counted"), "{err}");
    assert!(err.contains(", 1 with only some"), "{err}");
    let text = std::fs::read_to_string(&counted).unwrap();
    assert_eq!(
        text.lines().count() - 1,
        rows.len() - 1,
        "every unit but one: {text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("5,")), "{text}");

    // Resumed on a new database: the counted rows imported, unit 5 counted, the total exact.
    let resume = common::write_spec(
        dir.path(),
        "resume.toml",
        &body("parts = 3\nfile = \"counted.csv\"\nresume = true\n"),
    );
    let db3 = dir.path().join("resumed.db");
    let o = dancehall(&[
        "run",
        resume.to_str().unwrap(),
        "--workers",
        "1",
        "--db",
        db3.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("\"solutions\":\"{total}\"")), "{out}");
    let imported = common::db_rows(
        &db3,
        "SELECT COUNT(*) FROM unit_results WHERE host LIKE 'imported: %'",
    );
    assert_eq!(imported[0][0], (rows.len() - 1).to_string());

    // Another cut into parts is another job: refused, naming the file and line.
    let other = common::write_spec(
        dir.path(),
        "other.toml",
        &body("parts = 2\nfile = \"counted.csv\"\nresume = true\n"),
    );
    let o = dancehall(&["units", other.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("counted.csv:2: not a unit of this job"),
        "{err}"
    );
    // A band ledger is no list of subtrees.
    let plain = common::write_spec(
        dir.path(),
        "plain.toml",
        "name = \"p\"\n\n[problem]\nfamily = \"sudoku\"\nbox_rows = 2\nbox_cols = 4\n\n\
         [units]\nfile = \"ledger.csv\"\n",
    );
    let o = dancehall(&["units", plain.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("ledger.csv:1: the ledger of a count by band configurations"),
        "{err}"
    );
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
