//! `dancehall domino ...` end to end: the real binary, real files, the real solvers.

use std::path::Path;
use std::process::{Command, Output};

mod common;

fn dancehall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dancehall"))
        .args(args)
        .output()
        .expect("the dancehall binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The first instances of the public suite's batch01 (../shared/data/domino/suite-public).
const TWO_EASY: &str = r#"{"id": "b01-e1", "difficulty": "easy", "n": 5, "k": 4, "tiles": [[1, 1, 4], [1, 2, 0], [4, 3, 0], [2, 2, 1]]}
{"id": "b01-e3", "difficulty": "easy", "n": 5, "k": 4, "tiles": [[0, 3, 4], [2, 0, 2], [2, 3, 4]]}
"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn generate_is_deterministic_for_a_seed_and_has_the_seed_mix() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let c = tempfile::tempdir().unwrap();
    for (dir, seed) in [(&a, "7"), (&b, "7"), (&c, "8")] {
        let o = dancehall(&[
            "domino",
            "generate",
            "--seed",
            seed,
            "--batches",
            "2",
            "--out",
            dir.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let read = |d: &tempfile::TempDir, f: &str| std::fs::read_to_string(d.path().join(f)).unwrap();
    for f in ["batch01.txt", "batch02.txt"] {
        assert_eq!(read(&a, f), read(&b, f));
        assert_ne!(read(&a, f), read(&c, f));
    }
    assert!(!a.path().join("batch03.txt").exists());
    // Seed 001's mix per 10 instances: 4 easy, 4 medium, 2 hard.
    let text = read(&a, "batch01.txt");
    let difficulties: Vec<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["difficulty"].as_str().unwrap().to_owned()
        })
        .collect();
    let count = |d: &str| difficulties.iter().filter(|x| *x == d).count();
    assert_eq!((count("easy"), count("medium"), count("hard")), (4, 4, 2));
}

fn check_json_line(line: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    for key in [
        "id",
        "status",
        "objective",
        "seconds",
        "placement",
        "bound",
        "cpu_seconds",
        "peak_memory",
        "solver",
        "version",
        "termination",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {line}");
    }
    for p in v["placement"].as_array().unwrap() {
        assert!(
            p["tile"].is_u64() && p["row"].is_u64() && p["col"].is_u64(),
            "{p}"
        );
        assert!(p["orientation"] == "H" || p["orientation"] == "V", "{p}");
        assert!(p["mirrored"].is_boolean(), "{p}");
    }
    v
}

#[test]
fn solve_json_prints_one_verified_line_per_instance() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "batch.txt", TWO_EASY);
    let svg = dir.path().join("svg");
    let o = dancehall(&[
        "domino",
        "solve",
        &file,
        "--json",
        "--time-limit",
        "30",
        "--svg-dir",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    // Both instances place every tile (4 and 3).
    for (line, (id, tiles)) in lines.iter().zip([("b01-e1", 4), ("b01-e3", 3)]) {
        let v = check_json_line(line);
        assert_eq!(v["id"], id);
        assert_eq!(v["status"], "optimal");
        assert_eq!(v["objective"], tiles);
        assert_eq!(v["bound"], tiles);
        assert_eq!(v["solver"], "native");
        assert_eq!(v["termination"], "none");
        assert_eq!(v["placement"].as_array().unwrap().len(), tiles as usize);
        let picture = std::fs::read_to_string(svg.join(format!("{id}.svg"))).unwrap();
        assert!(
            picture.starts_with("<svg") || picture.contains("<svg"),
            "{picture}"
        );
    }
}

#[test]
fn solve_with_an_external_solver_gives_the_same_shape() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "batch.txt", TWO_EASY);
    let o = dancehall(&[
        "domino",
        "solve",
        &file,
        "--solver",
        "clingo",
        "--id",
        "b01-e3",
        "--json",
        "--time-limit",
        "30",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let v = check_json_line(out.lines().next().unwrap());
    assert_eq!(v["status"], "optimal", "{out}");
    assert_eq!(v["objective"], 3);
    assert_eq!(v["solver"], "clingo");
    assert!(v["version"].as_str().unwrap().starts_with("clingo "), "{v}");
    assert!(v["peak_memory"].as_u64().unwrap() > 0);
}

#[test]
fn solve_with_cp_sat_gives_verified_placements() {
    let o = dancehall(&["domino", "solvers", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cp_sat: serde_json::Value = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["name"] == "cp-sat")
        .expect("cp-sat is listed");
    let tool = format!("cp-sat ({})", cp_sat["reason"]);
    let install = "run scripts/install-solvers.sh";
    if !common::tools::present(cp_sat["available"] == true, &tool, install) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "batch.txt", TWO_EASY);
    let o = dancehall(&[
        "domino",
        "solve",
        &file,
        "--solver",
        "cp-sat",
        "--json",
        "--time-limit",
        "20",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    for (line, (id, tiles)) in lines.iter().zip([("b01-e1", 4), ("b01-e3", 3)]) {
        let v = check_json_line(line);
        assert_eq!(v["id"], id);
        assert_eq!(v["status"], "optimal", "{line}");
        assert_eq!(v["objective"], tiles);
        assert_eq!(v["bound"], tiles);
        assert_eq!(v["solver"], "cp-sat");
        assert!(
            v["version"].as_str().unwrap().starts_with("OR-Tools "),
            "{v}"
        );
        assert_eq!(v["placement"].as_array().unwrap().len(), tiles as usize);
    }
}

#[test]
fn solve_prints_a_table_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "batch.txt", TWO_EASY);
    let o = dancehall(&["domino", "solve", &file, "--time-limit", "30"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().next().unwrap().starts_with("id"), "{out}");
    assert!(out.lines().nth(1).unwrap().contains("b01-e1"), "{out}");
    assert!(out.lines().nth(1).unwrap().contains("optimal"), "{out}");
}

#[test]
fn bad_instance_files_exit_2_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let first = TWO_EASY.lines().next().unwrap();
    let cases = [
        ("json.txt", format!("{first}\n{{\"id\": \"x\", \n"), ":2:"),
        (
            "range.txt",
            r#"{"id": "x", "difficulty": "easy", "n": 5, "k": 2, "tiles": [[1, 2, 3]]}"#.to_owned(),
            ":1:",
        ),
        (
            "small.txt",
            format!(
                "{first}\n\n{}\n",
                r#"{"id": "y", "difficulty": "easy", "n": 2, "k": 2, "tiles": []}"#
            ),
            ":3:",
        ),
        (
            "arity.txt",
            r#"{"id": "x", "difficulty": "easy", "n": 5, "k": 2, "tiles": [[1, 2]]}"#.to_owned(),
            ":1:",
        ),
    ];
    for (name, text, at) in cases {
        let file = write(dir.path(), name, &text);
        for args in [
            vec!["domino", "solve", file.as_str(), "--json"],
            vec!["domino", "export", file.as_str(), "--format", "dzn"],
        ] {
            let o = dancehall(&args);
            assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
            let err = stderr(&o);
            assert!(err.contains(&format!("{file}{at}")), "{name}: {err}");
            assert!(stdout(&o).lines().count() <= 1, "{name}: work started");
        }
    }
    // A missing file, an unknown solver and an unknown id are user errors too.
    let good = write(dir.path(), "good.txt", TWO_EASY);
    for args in [
        vec!["domino", "solve", "/nonexistent/batch.txt"],
        vec!["domino", "solve", good.as_str(), "--solver", "cplex"],
        vec![
            "domino",
            "export",
            good.as_str(),
            "--format",
            "lp",
            "--id",
            "nope",
        ],
        vec!["domino", "export", good.as_str(), "--format", "lp"],
    ] {
        let o = dancehall(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn export_writes_dzn_and_clingo_facts() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "batch.txt", TWO_EASY);
    let o = dancehall(&[
        "domino", "export", &file, "--format", "dzn", "--id", "b01-e3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dzn = stdout(&o);
    assert!(
        dzn.contains("numTiles = 3;") && dzn.contains("n = 5;"),
        "{dzn}"
    );
    let o = dancehall(&[
        "domino", "export", &file, "--format", "lp", "--id", "b01-e1",
    ]);
    let lp = stdout(&o);
    assert!(
        lp.contains("tile(1, 1, 1, 4).") && lp.contains("size(5)."),
        "{lp}"
    );
}

#[test]
fn solvers_lists_every_configuration() {
    let o = dancehall(&["domino", "solvers", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let names: Vec<String> = out
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert!(v["available"].is_boolean());
            v["name"].as_str().unwrap().to_owned()
        })
        .collect();
    for n in [
        "native",
        "gecode-basic",
        "gecode-inserted",
        "gecode-orientation",
        "gecode-posx",
        "gecode-placement",
        "chuffed",
        "clingo",
        "cp-sat",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }
}
