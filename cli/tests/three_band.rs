//! The three-band counter end to end (`[units] generator = "three-band"`, core
//! `three-band-class`, `dancehall count sudoku --box 3x3 --band-config`), checked against
//! the search route's committed ledger (`results/reference/sudoku-9x9/ledger.csv`: the 44
//! column-set classes of band 1 of Felgenhauer and Jarvis, each split into 10 units by the
//! digits of column 1 below it, rows inside bands 2 and 3 and the two bands' order fixed,
//! hence 72 completions for each one counted).
//!
//! Published figures: 6,670,903,752,021,072,936,960 grids (Felgenhauer and Jarvis,
//! "Mathematics of Sudoku I", 2006; OEIS A107739); 1680^3 band configurations (1680 = 9! /
//! 3!^3 ordered partitions of the digits into a stack's three columns).

mod common;

use std::collections::BTreeMap;
use std::path::Path;

const GRIDS: u128 = 6_670_903_752_021_072_936_960;

fn dancehall(args: &[&str]) -> std::process::Output {
    common::dancehall()
        .args(args)
        .output()
        .expect("run dancehall")
}

/// A band (27 digits, row by row) as a configuration: each column's digits.
fn band_config(band: &str) -> String {
    let digits: Vec<u8> = band.bytes().map(|b| b - b'0').collect();
    let mut out = String::new();
    for c in 0..9 {
        if c > 0 {
            out.push(if c % 3 == 0 { '|' } else { '/' });
        }
        let mut col: Vec<u8> = (0..3).map(|r| digits[r * 9 + c]).collect();
        col.sort_unstable();
        out.extend(col.iter().map(|d| char::from(b'0' + d)));
    }
    out
}

fn recount(config: &str) -> serde_json::Value {
    let o = dancehall(&[
        "count",
        "sudoku",
        "--box",
        "3x3",
        "--band-config",
        config,
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON")
}

fn num(v: &serde_json::Value, key: &str) -> u128 {
    v[key].as_str().unwrap().parse().unwrap()
}

#[test]
fn every_class_below_its_band_agrees_with_the_search_routes_ledger() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/reference/sudoku-9x9/ledger.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (givens, count) = (col("givens"), col("count"));
    let mut bands: BTreeMap<String, u128> = BTreeMap::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        *bands.entry(f[givens][..27].to_string()).or_default() += f[count].parse::<u128>().unwrap();
    }
    assert_eq!(bands.len(), 44);
    let mut classes = std::collections::BTreeSet::new();
    for (band, searched) in &bands {
        let v = recount(&band_config(band));
        assert_eq!(num(&v, "below"), 72 * searched, "band {band}");
        assert_eq!(num(&v, "count"), num(&v, "fillings") * num(&v, "below"));
        classes.insert(v["class"].as_u64().unwrap());
    }
    // Felgenhauer and Jarvis's 44 column-set classes are exactly the counter's 44 classes.
    assert_eq!(classes.len(), 44);
}

#[test]
fn a_three_band_job_counts_every_9x9_grid_ledgers_and_recounts() {
    let dir = tempfile::tempdir().unwrap();
    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/sudoku-9x9-three-band.toml");
    let db = dir.path().join("nine.db");
    let db = db.to_str().unwrap();
    let o = dancehall(&[
        "run",
        spec.to_str().unwrap(),
        "--workers",
        "2",
        "--db",
        db,
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("\"solutions\":\"{GRIDS}\"")), "{out}");
    let ledger = dir.path().join("ledger.csv");
    let o = dancehall(&["ledger", "--db", db, "--out", ledger.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&ledger).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert!(
        header.join(",").contains("class,class_size,config,term"),
        "{text}"
    );
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 44, "{text}");
    let n = |r: &[&str], c: &str| r[col(c)].parse::<u128>().unwrap();
    let mut total = 0;
    let mut sizes = 0;
    for r in &rows {
        assert_eq!(r[col("core")], "three-band-class");
        assert_eq!(n(r, "weight"), n(r, "class_size"));
        assert_eq!(n(r, "term"), n(r, "class_size") * n(r, "count"));
        total += n(r, "term");
        sizes += n(r, "class_size");
    }
    assert_eq!(total, GRIDS);
    assert_eq!(sizes, 1680u128.pow(3));
    // Two units recounted from their rows.
    for r in [&rows[0], &rows[43]] {
        let v = recount(r[col("config")]);
        assert_eq!(num(&v, "count"), n(r, "count"));
        assert_eq!(num(&v, "class_size"), n(r, "class_size"));
        assert_eq!(v["class"].as_u64(), Some(n(r, "class") as u64));
    }
}

#[test]
fn bad_three_band_input_is_refused_with_exit_2() {
    for (config, want) in [
        ("123|456|789", "3 columns, not 9"),
        ("123/456/789|123/456/789|123/456/77", "twice in a column"),
        ("123/456/789|123/456/123|123/456/789", "stack 2"),
    ] {
        let o = dancehall(&["count", "sudoku", "--box", "3x3", "--band-config", config]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{config}: {err}");
        assert!(err.contains(want), "{config}: {err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let spec = common::write_spec(
        dir.path(),
        "six.toml",
        "name = \"six\"\n\n[problem]\nfamily = \"sudoku\"\nbox_rows = 2\nbox_cols = 3\n\n\
         [units]\ngenerator = \"three-band\"\n",
    );
    let o = common::run_spec(&spec, &dir.path().join("six.db"), &["--workers", "1"], 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("six.toml") && err.contains("plain 9x9"),
        "{err}"
    );
}

#[test]
fn units_lists_each_class_with_its_configuration() {
    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/sudoku-9x9-three-band.toml");
    let o = dancehall(&["units", spec.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("givens,weight,factor,class,class_size,config")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 44);
    let sizes: u128 = rows.iter().map(|r| r[4].parse::<u128>().unwrap()).sum();
    assert_eq!(sizes, 1680u128.pow(3));
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r[3], (i + 1).to_string());
        assert_eq!(r[1], r[4], "a unit's weight is its class size");
        assert_eq!(r[5].matches('|').count(), 2, "{r:?}");
    }
}
