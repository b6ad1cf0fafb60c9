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

/// Reads every batch file `dancehall domino generate` wrote into `dir`, by the domino reader.
fn read_generated(dir: &Path, files: &[&str]) -> Vec<cores::domino::Instance> {
    let mut all = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(dir.join(f)).unwrap();
        all.extend(cores::domino::parse_batch(&text).unwrap_or_else(|e| panic!("{f}: {e}")));
    }
    all
}

/// Whether an instance is tight as `--help` says: n 7-14, k 3-8, tiles whose 3m cells are
/// 0.9 to 1.2 times the board's n^2, values in 0..=k.
fn is_tight(i: &cores::domino::Instance) -> bool {
    let (cells, covered) = (i.n * i.n, 3 * i.tiles.len() as u32);
    i.difficulty == cores::domino::Difficulty::Tight
        && (7..=14).contains(&i.n)
        && (3..=8).contains(&i.k)
        && 10 * covered >= 9 * cells
        && 10 * covered <= 12 * cells
        && i.tiles.iter().flatten().all(|&v| v <= i.k)
}

/// `dancehall domino generate --out OUT ARGS...`, the arguments split at spaces.
fn generate(out: &Path, args: &str) -> Output {
    let mut all = vec!["domino", "generate", "--out", out.to_str().unwrap()];
    all.extend(args.split_whitespace());
    dancehall(&all)
}

#[test]
fn generate_mix_tight_writes_tight_batches_that_parse() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let o = generate(out, "--seed 5 --batches 2 --per-batch 6 --mix tight");
    assert!(o.status.success(), "{}", stderr(&o));
    let all = read_generated(dir.path(), &["batch01.txt", "batch02.txt"]);
    assert_eq!(all.len(), 12);
    for i in &all {
        assert!(is_tight(i), "{i:?}");
    }
    assert_eq!(all[0].id, "b01-t1");
    assert_eq!(all[11].id, "b02-t6");
    // --help says what tight means.
    let help = stdout(&dancehall(&["domino", "generate", "--help"]));
    for words in ["tight", "0.9 to 1.2", "Further", "Figure 9", "--mix"] {
        assert!(help.contains(words), "{words}: {help}");
    }
    // Ranges given replace every difficulty's, a tight mix beside seed 001's.
    let o = generate(
        out,
        "--seed 5 --batches 1 --mix hard:1,tight:1 --n 8..=9 --tiles 20-21 --k 4",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let mixed = read_generated(dir.path(), &["batch01.txt"]);
    let ids: Vec<&str> = mixed.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids[..2], ["b01-h1", "b01-h2"]);
    assert_eq!(ids[5..], ["b01-t1", "b01-t2", "b01-t3", "b01-t4", "b01-t5"]);
    for i in &mixed {
        assert!((8..=9).contains(&i.n) && (20..=21).contains(&i.tiles.len()) && i.k == 4);
    }
}

#[test]
fn generate_refuses_bad_options_with_exit_2_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never");
    for (option, value, says) in [
        ("--mix", "tight,tricky", "unknown difficulty `tricky`"),
        ("--mix", "tight:0", "at least 1"),
        ("--n", "12-8", "empty"),
        ("--n", "2..=9", "below 3"),
        ("--n", "65", "above 64"),
        ("--tiles", "0-4", "below 1"),
        ("--k", "3..8", "expected a range"),
        ("--k", "x", "`x`"),
    ] {
        let o = generate(&out, &format!("--seed 1 {option} {value}"));
        assert_eq!(o.status.code(), Some(2), "{option} {value}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("{option} `{value}`")), "{err}");
        assert!(err.contains(says), "{option} {value}: {err}");
        assert!(!out.exists(), "{option} {value}: files written");
    }
}

/// The committed tight suite is what its README's command writes, byte for byte.
#[test]
fn the_committed_tight_suite_is_what_its_command_generates() {
    let suite = common::specs().join("domino/suite-tight");
    let command = "dancehall domino generate --seed 2028 --batches 2 --per-batch 10 \
                   --mix tight --out bench-specs/domino/suite-tight";
    let readme = std::fs::read_to_string(suite.join("README.md")).unwrap();
    assert!(readme.contains(command), "the README names another command");
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let last = args.len() - 1;
    args[last] = dir.path().to_str().unwrap();
    let o = dancehall(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut committed: Vec<String> = std::fs::read_dir(&suite)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".txt"))
        .collect();
    committed.sort();
    assert_eq!(committed, ["batch01.txt", "batch02.txt"]);
    for f in &committed {
        assert_eq!(
            std::fs::read(suite.join(f)).unwrap(),
            std::fs::read(dir.path().join(f)).unwrap(),
            "{f} differs from what the command writes"
        );
    }
    // 20 tight instances, each a row of the README's table: | id | n | tiles | k |.
    let all = read_generated(&suite, &["batch01.txt", "batch02.txt"]);
    assert_eq!(all.len(), 20);
    for i in &all {
        assert!(is_tight(i), "{i:?}");
        let row = format!("| {} | {} | {} | {} |", i.id, i.n, i.tiles.len(), i.k);
        assert!(readme.contains(&row), "no row {row} in the README");
    }
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
        // Every tile fits: counting is the proof; the native searches' statistics are there.
        assert_eq!(v["bound_by"], "count");
        assert!(v["stats"]["nodes"].as_f64().unwrap() >= 1.0, "{v}");
        assert!(v["stats"]["sat_questions"].is_number(), "{v}");
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

/// `domino certify` on the tight suite's b01-t5 (`bench-specs/domino/suite-tight`, 7 x 7, 15
/// tiles), whose optimum native proves to be 12 (cores' test
/// `native_closes_a_tight_seven_by_seven_board_below_its_count_bound`): 13 tiles are refuted
/// by the `cadical` binary and its DRAT proof verified by `rate`, outside dancehall's process;
/// 12 tiles are not refuted but placed, the placement verified, and the command exits 1; a
/// cut-short proof is rejected, exit 1; a proof checked for another claim is rejected too;
/// and a tool stopped by its limit certifies nothing. Each failure says so on its first line.
#[test]
fn a_native_bound_is_certified_by_a_checked_drat_proof_and_a_false_one_is_not() {
    let have = common::tools::on_path("cadical") && common::tools::on_path("rate");
    if !common::tools::present(have, "cadical and rate", "run scripts/install-solvers.sh") {
        return;
    }
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench-specs/domino/suite-tight/batch01.txt"
    );
    // `domino certify FILE --id ID --tiles K` and more.
    let certify = |id: &str, tiles: &str, more: &[&str]| {
        let mut args = vec!["domino", "certify", file, "--id", id, "--tiles", tiles];
        args.extend_from_slice(more);
        dancehall(&args)
    };
    // Exit 1, and the first line of stderr starts with `first`.
    let fails = |o: &Output, first: &str| {
        assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
        assert!(
            stderr(o).starts_with(&format!("dancehall: {first}")),
            "{}",
            stderr(o)
        );
        assert!(!stdout(o).contains("CERTIFIED"), "{}", stdout(o));
    };
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().to_str().unwrap();
    let o = certify("b01-t5", "13", &["--keep", keep]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("CERTIFIED: 13 tiles on b01-t5 (7 x 7, 15 tiles) do not fit, so its optimum is at most 12"),
        "{out}"
    );
    assert!(out.contains("cadical --unsat refuted it in"), "{out}");
    assert!(out.contains("verified by rate"), "{out}");
    let proof = dir.path().join("13.drat");
    let proof_s = proof.to_str().unwrap();
    let bytes = std::fs::read(&proof).unwrap();
    assert!(bytes.len() > 1000, "{}", bytes.len());

    // One tile fewer fits: no certificate, and the placement is named, with the
    // configuration CaDiCaL found it in (`--unsat` unless told; `--sat` to find models).
    for (more, solver) in [
        (&[][..], "cadical --unsat"),
        (&["--solver-config", "sat"][..], "cadical --sat"),
    ] {
        let o = certify("b01-t5", "12", more);
        fails(&o, "NOT CERTIFIED: 12 tiles on b01-t5");
        let found = format!("{solver} found a placement of 12 tiles");
        assert!(stderr(&o).contains(&found), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("the verifier accepts it"),
            "{}",
            stderr(&o)
        );
    }
    // A configuration CaDiCaL lacks is bad input.
    let o = certify("b01-t5", "12", &["--solver-config", "fast"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    // The proof cut in half proves nothing.
    let cut = dir.path().join("cut.drat");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let o = certify("b01-t5", "13", &["--proof", cut.to_str().unwrap()]);
    fails(&o, "PROOF REJECTED");
    // Nor is 13 tiles' proof one of another board's bound.
    let o = certify("b01-t8", "14", &["--proof", proof_s]);
    fails(&o, "PROOF REJECTED");
    // A claim of no tile at all is refused as input.
    let o = certify("b01-t5", "0", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    // Limits: the solver is stopped at its time limit (b01-t3's 23 tiles take CaDiCaL
    // minutes: table in bench-specs/domino/suite-tight/README.md), and a checker in 1 MiB
    // cannot check anything; neither certifies.
    let o = certify("b01-t3", "23", &["--time-limit", "1"]);
    fails(
        &o,
        "NOT CERTIFIED: cadical --unsat stopped at its time limit",
    );
    let o = certify("b01-t5", "13", &["--proof", proof_s, "--memory-limit", "1"]);
    fails(&o, "NOT CERTIFIED: rate");
}
