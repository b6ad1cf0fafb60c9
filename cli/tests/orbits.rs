//! Essentially different grids end to end: an orbit count (`[units] generator =
//! "sudoku-orbits"`) through `dancehall run`, its identity's term imported from the ledger of
//! a real count of the total, every other class term counted by real workers over loopback;
//! its ledger re-adds to the orbit count and its rows recount with `count --term`; and the
//! spec's refusals.
//!
//! Published figures: 4x4 Sudoku: 288 grids (OEIS A107739), 2 essentially different (Russell
//! and Jarvis, "Mathematics of Sudoku II", 2006); 6x6 (2x3 boxes): 49 (same paper).

mod common;

use std::path::Path;

use common::*;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// A ledger's rows as maps from column to field.
fn ledger_rows(csv: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            head.iter()
                .zip(l.split(','))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn orbit_spec(dir: &Path, name: &str, extra: &str, expected: &str) -> std::path::PathBuf {
    write_spec(
        dir,
        name,
        &format!(
            "name = \"o4\"\nexpected_orbits = \"{expected}\"\n[problem]\nfamily = \"sudoku\"\n\
             box_rows = 2\nbox_cols = 2\n[units]\ngenerator = \"sudoku-orbits\"\n{extra}"
        ),
    )
}

#[test]
fn the_4x4_orbit_count_imports_its_total_from_a_real_ledger_and_finds_2() {
    let dir = tempfile::tempdir().unwrap();
    let total_db = dir.path().join("total.db");
    // The total, counted by `run` and written as its ledger.
    let spec = specs().join("sudoku-4x4.toml");
    run_spec(&spec, &total_db, &["--workers", "1"], 0);
    let ledger = dir.path().join("total.csv");
    run_expect(
        dancehall()
            .args(["ledger", "--db"])
            .arg(&total_db)
            .arg("--out")
            .arg(&ledger),
        0,
    );

    // The orbits: the identity's term 288 / 4! imported, the 19 other classes counted.
    let spec = orbit_spec(dir.path(), "o4.toml", "total_ledger = \"total.csv\"\n", "2");
    let db = dir.path().join("orbits.db");
    let out = run_spec(&spec, &db, &["--workers", "2", "--json"], 0);
    let v = &json_lines(&out)[0];
    assert_eq!(v["orbits"], "2", "{v}");
    assert_eq!(v["expected_orbits"], "2", "{v}");
    assert_eq!(v["state"], "done", "{v}");
    // The report opens with the counting jobs at a glance.
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    let glance = html
        .find("At a glance: counting jobs")
        .expect("the glance table");
    assert!(glance < html.find("<h2 id=\"job1\">").unwrap());
    assert!(
        html.contains("<td>2 (|G| 128)</td><td>orbits 2</td><td>matched</td><td>20/20</td>"),
        "{html}"
    );

    // The ledger: one row per class, the identity's imported, re-adding to the orbits.
    let out = run_expect(dancehall().args(["ledger", "--db"]).arg(&db), 0);
    assert!(
        stderr(&out).contains("orbits = sum(class_size x term) / |G| = 256 / 128 = 2"),
        "{}",
        stderr(&out)
    );
    let rows = ledger_rows(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(rows.len(), 20, "one row per conjugacy class");
    let identity = &rows[0];
    assert_eq!(
        (identity["class"].as_str(), identity["term"].as_str()),
        ("1", "12")
    );
    assert_eq!(identity["imported"], "yes");
    assert!(identity["host"].contains("total.csv"), "{:?}", identity);
    assert!(rows[1..].iter().all(|r| r["imported"] == "no"
        && r["core"] == "sudoku-orbit-term"
        && !r["worker"].is_empty()));
    let field =
        |r: &std::collections::HashMap<String, String>, k: &str| -> u128 { r[k].parse().unwrap() };
    let order: u128 = rows.iter().map(|r| field(r, "class_size")).sum();
    let sum: u128 = rows
        .iter()
        .map(|r| field(r, "class_size") * field(r, "term"))
        .sum();
    assert_eq!((order, sum % order, sum / order), (128, 0, 2));

    // A row recounted alone: `count --term` gives the ledger's term.
    let row = rows
        .iter()
        .find(|r| field(r, "term") > 0 && r["class"] != "1");
    let row = row.expect("a class other than the identity's fixes some grid");
    let out = run_expect(
        dancehall().args([
            "count",
            "sudoku",
            "--box",
            "2x2",
            "--term",
            &row["element"],
            "--json",
        ]),
        0,
    );
    assert_eq!(json_lines(&out)[0]["term"], row["term"].as_str());

    // In one process, the total taken from the same ledger.
    let out = run_expect(
        dancehall()
            .args([
                "count",
                "sudoku",
                "--box",
                "2x2",
                "--orbits",
                "--json",
                "--total-ledger",
            ])
            .arg(&ledger),
        0,
    );
    let v = &json_lines(&out)[0];
    assert_eq!(
        (&v["solutions"], &v["orbits"]),
        (&"288".into(), &"2".into()),
        "{v}"
    );
    assert_eq!(
        (&v["group_order"], &v["lower_bound"]),
        (&"128".into(), &"1".into()),
        "{v}"
    );

    // A wrong expected figure makes the run fail, the problem said first.
    let spec = orbit_spec(
        dir.path(),
        "o4x.toml",
        "total_ledger = \"total.csv\"\n",
        "3",
    );
    let out = run_spec(&spec, &dir.path().join("wrong.db"), &["--workers", "1"], 1);
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("<td>orbits 3</td><td>DIFFERS</td>"), "{html}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("PROBLEMS: 1 total(s) or orbit count(s)"),
        "{text}"
    );
    assert!(
        stderr(&out)
            .contains("WRONG ORBITS job 1 (o4): orbits 2 differ from the spec's expected_orbits 3"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_6x6_orbit_spec_counts_49() {
    let dir = tempfile::tempdir().unwrap();
    let spec = specs().join("sudoku-6x6-orbits.toml");
    let db = dir.path().join("o6.db");
    let out = run_spec(&spec, &db, &["--workers", "2", "--json"], 0);
    assert_eq!(json_lines(&out)[0]["orbits"], "49");
    // The identity is counted as a unit here (no total_ledger): the text still says N and
    // the bound, 28,200,960 / (3,456 x 6!) = 11.3.
    let text = stdout(&run_spec(
        &spec,
        &dir.path().join("o6t.db"),
        &["--workers", "2"],
        0,
    ));
    assert!(
        text.contains(
            "total grids 28200960 (the identity's term x 6!); bound orbits >= N / (|G| 6!) = \
             12: holds"
        ),
        "{text}"
    );
}

#[test]
fn orbit_specs_refuse_partial_foreign_and_missing_ledgers_and_other_families() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |spec: &Path| stderr(&run_spec(spec, &dir.path().join("never.db"), &[], 2));
    let head = "unit,state,parent,givens,weight,count,factor,ledger,problem\n";
    // A partial ledger: refused naming its file and line.
    std::fs::write(
        dir.path().join("partial.csv"),
        format!(
            "{head}1,done,,1234............,2,3,24,partial,x\n2,queued,,1243............,1,,24,partial,x\n"
        ),
    )
    .unwrap();
    let spec = orbit_spec(
        dir.path(),
        "p.toml",
        "total_ledger = \"partial.csv\"\n",
        "2",
    );
    let e = refused(&spec);
    assert!(e.contains("p.toml:7: [units]"), "{e}");
    assert!(
        e.contains("partial.csv:2: `ledger` says `partial`: this is a partial ledger"),
        "{e}"
    );
    // A complete ledger of another problem.
    std::fs::write(
        dir.path().join("other.csv"),
        format!("{head}1,done,,1234............,1,12,24,complete,0123abcd\n"),
    )
    .unwrap();
    let spec = orbit_spec(dir.path(), "f.toml", "total_ledger = \"other.csv\"\n", "2");
    let e = refused(&spec);
    assert!(
        e.contains("[units] imports the total of a ledger counted on another problem"),
        "{e}"
    );
    assert!(e.contains("other.csv:2 names problem 0123abcd"), "{e}");
    // No ledger for a 9x9 grid: the spec's [units] line says what is missing.
    let spec = write_spec(
        dir.path(),
        "n.toml",
        "name = \"o9\"\n[problem]\nfamily = \"sudoku\"\nbox_rows = 3\nbox_cols = 3\n\n\
         [units]\ngenerator = \"sudoku-orbits\"\n",
    );
    let e = refused(&spec);
    assert!(
        e.contains(
            "n.toml:7: [units] generator `sudoku-orbits` needs `total_ledger` for a 9x9 grid"
        ),
        "{e}"
    );
    // Another family, and expected_orbits without an orbit count.
    let spec = write_spec(
        dir.path(),
        "q.toml",
        "name = \"q\"\n[problem]\nfamily = \"queens\"\nn = 6\n[units]\ngenerator = \"sudoku-orbits\"\n",
    );
    let e = refused(&spec);
    assert!(
        e.contains("q.toml:5: [units] generator `sudoku-orbits` counts the essentially different grids of a Sudoku"),
        "{e}"
    );
    let spec = write_spec(
        dir.path(),
        "x.toml",
        "name = \"q\"\nexpected_orbits = \"3\"\n[problem]\nfamily = \"queens\"\nn = 6\n",
    );
    let e = refused(&spec);
    assert!(
        e.contains("x.toml:2: expected_orbits belongs to an orbit count"),
        "{e}"
    );
    // `count --orbits` of another family: exit 2.
    let out = run_expect(dancehall().args(["count", "queens", "6", "--orbits"]), 2);
    assert!(
        stderr(&out).contains("--orbits counts Sudoku grids only"),
        "{}",
        stderr(&out)
    );
}

/// The committed orbit specs import the identity's term from the committed reference ledgers:
/// each total over side! as published (windoku 6,337,174,388,428,800, X-Sudoku
/// 55,613,393,399,531,520, SudokuP 201,105,135,151,764,480: the enjoysudoku forum's figures;
/// 8x8 29,136,487,207,403,520, OEIS A291187), read through the same spec code as `run`.
#[test]
fn the_committed_orbit_specs_import_the_published_totals() {
    for (spec, term) in [
        ("sudoku-9x9-hyper-orbits.toml", 17_463_553_760u128),
        ("sudoku-9x9-diagonal-orbits.toml", 153_255_603_504),
        ("sudoku-9x9-disjoint-orbits.toml", 554_191_840_696),
        ("sudoku-8x8-orbits.toml", 722_631_131_136),
    ] {
        let out = run_expect(dancehall().arg("units").arg(specs().join(spec)), 0);
        let rows = ledger_rows(&String::from_utf8_lossy(&out.stdout));
        let identity = &rows[0];
        assert_eq!(identity["class"], "1", "{spec}");
        assert_eq!(identity["imported_term"], term.to_string(), "{spec}");
        assert!(
            rows[1..].iter().all(|r| r["imported_term"].is_empty()),
            "{spec}"
        );
        let order: u128 = rows
            .iter()
            .map(|r| r["weight"].parse::<u128>().unwrap())
            .sum();
        let sizes: u128 = rows
            .iter()
            .map(|r| r["class_size"].parse::<u128>().unwrap())
            .sum();
        assert_eq!(order, sizes, "{spec}");
        assert!(
            stderr(&out).contains(&format!("order {order})")),
            "{spec}: {}",
            stderr(&out)
        );
    }
}

/// `sudoku symmetries` prints both groups an orbit count runs under: windoku's full group
/// exchanges the boxes with the groups its windows imply, so it is twice the
/// Sudoku-preserving one (the 128 symmetries that keep the windows).
#[test]
fn sudoku_symmetries_print_both_orbit_group_orders() {
    let out = run_expect(
        dancehall().args([
            "sudoku",
            "symmetries",
            "--box",
            "3x3",
            "--variant",
            "hyper",
            "--json",
        ]),
        0,
    );
    let v = &json_lines(&out)[0];
    assert_eq!(
        (
            &v["variant_order"],
            &v["orbit_sudoku_order"],
            &v["orbit_full_order"]
        ),
        (&"128".into(), &"128".into(), &"256".into()),
        "{v}"
    );
}
