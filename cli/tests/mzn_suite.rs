//! Any MiniZinc model as a benchmark suite (family `mzn-suite`), run for real by `dancehall
//! run` with MiniZinc and Gecode: the knapsack example with its checker ends CHECKED; a model
//! variant that breaks the model is caught by the checker as `wrong`, with an alarm, and the
//! command exits non-zero saying so first; seed 001's domino model run as a generic suite
//! proves the optima the domino family proves; a model without a checker is reported
//! UNCHECKED; a model without a sense and a bad data file are refused before anything is
//! stored, naming the file and line.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// minizinc with Gecode, or the test fails naming it (`DANCEHALL_ALLOW_SKIP=1`: a skip).
fn needs_minizinc() -> bool {
    let available = worker::bench::config("gecode-basic")
        .unwrap()
        .availability()
        .available;
    tools::present(available, "minizinc", "run scripts/install-solvers.sh")
}

fn knapsack() -> PathBuf {
    specs().join("minizinc/knapsack")
}

fn record(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// bench-specs/minizinc-example.toml: four data files (.dzn and .json) under the model as it
/// is and a model variant; every solution checked, every optimum proven (k04's is 90: items
/// 2 and 4), both configurations agree, the files are frozen with their hashes, the report
/// ends CHECKED and has the PAR2 table, the cactus and scatter charts and the solver
/// statistics; a second run resumes the same job.
#[test]
fn the_knapsack_example_ends_checked() {
    if !needs_minizinc() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mzn.db");
    let spec = specs().join("minizinc-example.toml");
    let out = run_spec(&spec, &db, &["--workers", "2"], 0);
    let text = stdout(&out);
    assert!(text.starts_with("CHECKED"), "{text}");
    let last = text.trim_end().lines().last().unwrap();
    assert!(last.starts_with("CHECKED"), "{text}");
    let runs = db_rows(
        &db,
        "SELECT instance_id, config, status, family, objective, record FROM bench_current
         ORDER BY instance_id, config",
    );
    let pairs: Vec<(&str, &str)> = runs.iter().map(|r| (&*r[0], &*r[1])).collect();
    let mut want = Vec::new();
    for i in ["k04", "k08", "k20", "k30"] {
        for c in ["gecode", "gecode-cut"] {
            want.push((i, c));
        }
    }
    assert_eq!(pairs, want);
    for r in &runs {
        assert_eq!((&*r[2], &*r[3]), ("optimal", "mzn-suite"), "{r:?}");
        let rec = record(&r[5]);
        let a = &rec["answer"];
        assert_eq!(a["family"], "mzn-suite");
        assert_eq!(a["sense"], "maximize");
        let solutions = a["solutions"].as_u64().unwrap();
        assert!(solutions >= 1 && a["checked"] == solutions, "{a}");
        assert_eq!(a["rejected"], Value::Array(vec![]));
        assert_eq!(a["objective"].to_string(), r[4]);
        let best = a["seconds_to_best"].as_f64().unwrap();
        let proof = a["seconds_to_proof"].as_f64().unwrap();
        assert!(
            best <= proof && proof <= rec["wall_seconds"].as_f64().unwrap(),
            "{rec}"
        );
        assert!(rec["stats"]["nodes"].as_f64().unwrap() >= 1.0, "{rec}");
    }
    // Both configurations prove the same optima; k04's is items 2 and 4 (weight 7, value 90).
    for pair in runs.chunks(2) {
        assert_eq!(pair[0][4], pair[1][4], "{}", pair[0][0]);
    }
    assert_eq!(runs[0][4], "90");
    let k04 = record(&runs[0][5]);
    assert_eq!(k04["answer"]["best"]["x"], serde_json::json!([0, 1, 0, 1]));
    // The model variant ran its own files, frozen under its name.
    let cut = record(&runs[1][5]);
    let models: Vec<&str> = cut["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        models,
        ["gecode-cut/knapsack.mzn", "gecode-cut/capacity-cut.mzn"]
    );
    // Every file frozen with its hash: the model and checker, each data file, the variant.
    let files = db_rows(
        &db,
        "SELECT kind, name, sha256 FROM bench_files WHERE kind <> 'config' ORDER BY kind, name",
    );
    let names: Vec<(&str, &str)> = files.iter().map(|f| (&*f[0], &*f[1])).collect();
    assert_eq!(
        names,
        [
            ("batch", "k04.dzn"),
            ("batch", "k08.json"),
            ("batch", "k20.dzn"),
            ("batch", "k30.dzn"),
            ("model", "gecode-cut/capacity-cut.mzn"),
            ("model", "gecode-cut/knapsack.mzn"),
            ("model", "knapsack.mzc"),
            ("model", "knapsack.mzn"),
        ]
    );
    for f in &files {
        let short = f[1].rsplit('/').next().unwrap();
        let text = std::fs::read_to_string(knapsack().join(short)).unwrap();
        assert_eq!(f[2], cores::bench::sha256_hex(&text), "{}", f[1]);
    }
    // The page: PAR2 table, cactus and scatter charts, the declared configurations' statistics.
    let job = db_rows(&db, "SELECT id FROM jobs")[0][0].clone();
    let html = run_expect(
        dancehall()
            .args(["report", &job, "--format", "html", "--db"])
            .arg(&db),
        0,
    );
    let html = stdout(&html);
    assert!(html.contains("CHECKED"), "{html}");
    for needle in [
        "PAR2",
        "data-chart=\"cactus",
        "data-chart=\"scatter",
        "gecode-cut",
        "nodes",
    ] {
        assert!(html.contains(needle), "{needle} missing");
    }
    // Submitting it again resumes the job.
    let again = run_spec(&spec, &db, &["--workers", "1"], 0);
    assert!(stdout(&again).starts_with("CHECKED"));
    assert_eq!(db_rows(&db, "SELECT id FROM jobs").len(), 1);
}

/// A temporary suite: the knapsack model and checker, two data files, and `extra` spec text.
fn knapsack_suite(dir: &Path, extra: &str) -> PathBuf {
    for f in ["knapsack.mzn", "knapsack.mzc", "k04.dzn", "k08.json"] {
        std::fs::copy(knapsack().join(f), dir.join(f)).unwrap();
    }
    let spec = dir.join("suite.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"knapsack-test\"\n[benchmark]\nfamily = \"mzn-suite\"\n\
             model = \"knapsack.mzn\"\nchecker = \"knapsack.mzc\"\n\
             data = [\"k04.dzn\", \"k08.json\"]\ntime_limit_seconds = 20\n\n\
             [[config]]\nname = \"gecode\"\nengine = \"minizinc\"\n\n{extra}"
        ),
    )
    .unwrap();
    spec
}

/// A model variant without the capacity constraint takes every item: the checker rejects its
/// solutions, so its runs are `wrong` with the checker's words, an alarm is raised, and
/// `run` says PROBLEMS first and exits 1; the correct configuration's runs stand.
#[test]
fn a_broken_variant_is_caught_by_the_checker() {
    if !needs_minizinc() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(knapsack().join("knapsack.mzn")).unwrap();
    let broken = text.replace("constraint sum(i in 1..n)(w[i] * x[i]) <= cap;", "");
    assert_ne!(broken, text);
    std::fs::create_dir(dir.path().join("variant")).unwrap();
    std::fs::write(dir.path().join("variant/knapsack.mzn"), broken).unwrap();
    let spec = knapsack_suite(
        dir.path(),
        "[[config]]\nname = \"broken\"\nengine = \"minizinc\"\n\
         models = [\"variant/knapsack.mzn\"]\n",
    );
    let db = dir.path().join("broken.db");
    let out = run_spec(&spec, &db, &["--workers", "2"], 1);
    let text = stdout(&out);
    assert!(text.starts_with("PROBLEMS"), "{text}");
    assert!(text.contains("wrong run k04 under broken"), "{text}");
    let runs = db_rows(
        &db,
        "SELECT instance_id, config, status, record FROM bench_current ORDER BY instance_id, config",
    );
    assert_eq!(runs.len(), 4, "{runs:?}");
    for r in &runs {
        let rec = record(&r[3]);
        if r[1] == "broken" {
            assert_eq!(r[2], "wrong", "{r:?}");
            let message = rec["message"].as_str().unwrap();
            assert!(
                message.contains("checker rejects") && message.contains("over capacity"),
                "{message}"
            );
            // The rejected answer stays as evidence: the whole knapsack.
            assert!(!rec["answer"]["rejected"].as_array().unwrap().is_empty());
        } else {
            assert_eq!(r[2], "optimal", "{r:?}");
        }
    }
    let alarms = db_rows(&db, "SELECT kind FROM alarms");
    assert_eq!(alarms.len(), 2, "{alarms:?}");
    assert!(alarms.iter().all(|a| a[0] == "wrong-answer"), "{alarms:?}");
}

/// Seed 001's domino model (bench-specs/domino/models: domino.mzn with its basic search) run
/// as a generic MiniZinc suite on public instances written as .dzn by `cores::domino::to_dzn`
/// proves the optima that the domino family proves on the same instances (native and
/// gecode-basic), with no contradiction; without a checker its report says UNCHECKED first.
#[test]
fn seed_001s_domino_model_as_a_suite_agrees_with_the_domino_family() {
    if !needs_minizinc() {
        return;
    }
    let ids = ["b01-e1", "b02-e2", "b03-m2"];
    let dir = tempfile::tempdir().unwrap();
    let mut instances = Vec::new();
    for b in 1..=3 {
        let text =
            std::fs::read_to_string(specs().join(format!("domino/suite-public/batch{b:02}.txt")))
                .unwrap();
        instances.extend(cores::domino::parse_batch(&text).unwrap());
    }
    std::fs::create_dir(dir.path().join("data")).unwrap();
    for id in ids {
        let inst = instances.iter().find(|i| i.id == id).unwrap();
        std::fs::write(
            dir.path().join(format!("data/{id}.dzn")),
            cores::domino::to_dzn(inst),
        )
        .unwrap();
    }
    let models = specs().join("domino/models");
    let spec = dir.path().join("domino-as-mzn.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"domino-as-mzn\"\n[benchmark]\nfamily = \"mzn-suite\"\n\
             model = [\"{}\", \"{}\"]\ndata = [\"data\"]\ntime_limit_seconds = 20\n\n\
             [[config]]\nname = \"gecode\"\nengine = \"minizinc\"\nsolver = \"gecode\"\n",
            models.join("domino.mzn").display(),
            models.join("domino-solve-basic.mzn").display()
        ),
    )
    .unwrap();
    let db = dir.path().join("mzn.db");
    let out = run_spec(&spec, &db, &["--workers", "2"], 0);
    let text = stdout(&out);
    assert!(text.starts_with("UNCHECKED"), "{text}");
    assert!(!text.contains("\nCHECKED"), "{text}");
    assert!(
        text.contains("unchecked: job 1 (domino-as-mzn)") && !text.contains("CONTRADICTION"),
        "{text}"
    );
    let domino_spec = dir.path().join("domino.toml");
    std::fs::write(
        &domino_spec,
        format!(
            "name = \"domino-family\"\n[benchmark]\nsuite = \"{}\"\n\
             configs = [\"native\", \"gecode-basic\"]\ntime_limit_seconds = 20\n\
             instances = [{}]\n",
            specs().join("domino/suite-public").display(),
            ids.map(|i| format!("\"{i}\"")).join(", ")
        ),
    )
    .unwrap();
    let domino_db = dir.path().join("domino.db");
    let out = run_spec(&domino_spec, &domino_db, &["--workers", "2"], 0);
    assert!(stdout(&out).starts_with("CHECKED"), "{}", stdout(&out));
    let proven = |db: &Path| {
        db_rows(
            db,
            "SELECT instance_id, config, objective FROM bench_current WHERE status = 'optimal'",
        )
    };
    let generic = proven(&db);
    let family = proven(&domino_db);
    let mut compared = 0;
    for g in &generic {
        for f in family.iter().filter(|f| f[0] == g[0]) {
            assert_eq!(g[2], f[2], "{}: mzn-suite {} against {}", g[0], g[1], f[1]);
            compared += 1;
        }
    }
    assert!(compared >= 3, "{generic:?} {family:?}");
}

/// A satisfaction model without a checker: a solution is `solved`, a proof that none exists
/// `unsatisfiable`; nothing verified them, so the report's first line is UNCHECKED (never
/// CHECKED), and `run` exits 0 (nothing is wrong).
#[test]
fn a_model_without_a_checker_is_reported_unchecked() {
    if !needs_minizinc() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("square.mzn"),
        "% x squared is n\nint: n;\nvar 1..n: x;\nconstraint x * x = n;\nsolve satisfy;\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("four.dzn"), "n = 4;\n").unwrap();
    std::fs::write(dir.path().join("five.json"), "{\"n\": 5}\n").unwrap();
    let spec = dir.path().join("square.toml");
    std::fs::write(
        &spec,
        "name = \"square\"\n[benchmark]\nfamily = \"mzn-suite\"\nmodel = \"square.mzn\"\n\
         data = [\"four.dzn\", \"five.json\"]\ntime_limit_seconds = 20\n\n\
         [[config]]\nname = \"gecode\"\nengine = \"minizinc\"\n",
    )
    .unwrap();
    let db = dir.path().join("square.db");
    let out = run_spec(&spec, &db, &["--workers", "1"], 0);
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("UNCHECKED"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with("CHECKED")), "{text}");
    let runs = db_rows(
        &db,
        "SELECT instance_id, status, record FROM bench_current ORDER BY instance_id",
    );
    let statuses: Vec<(&str, &str)> = runs.iter().map(|r| (&*r[0], &*r[1])).collect();
    assert_eq!(statuses, [("five", "unsatisfiable"), ("four", "solved")]);
    let four = record(&runs[1][2]);
    assert_eq!(four["answer"]["best"]["x"], 2);
    assert_eq!(four["answer"]["checked"], 0);
}

/// Errors before anything starts (exit 2, nothing stored), naming the file and line: a model
/// without a solve item, a solve item without a sense, a data file MiniZinc cannot read, a
/// data file in JSON that is not JSON.
#[test]
fn a_missing_sense_or_bad_data_is_refused_naming_file_and_line() {
    if !needs_minizinc() {
        return;
    }
    let cases: [(&str, &str, &str, &[&str]); 4] = [
        (
            "model.mzn",
            "var 1..3: x;\nconstraint x > 1;\n",
            "k04.dzn",
            &["model.mzn", "no solve item"],
        ),
        (
            "model.mzn",
            "var 1..3: x;\n\nsolve x;\n",
            "k04.dzn",
            &["model.mzn:3:", "none of satisfy, minimize, maximize"],
        ),
        (
            "knapsack.mzn",
            "",
            "bad.dzn",
            // MiniZinc finds the missing `;` of line 2 at the next token.
            &["bad.dzn:3.1", "syntax error", "does not fit the model"],
        ),
        ("knapsack.mzn", "", "bad.json", &["bad.json:1:", "not JSON"]),
    ];
    for (model, model_text, data, says) in cases {
        let dir = tempfile::tempdir().unwrap();
        for f in ["knapsack.mzn", "k04.dzn"] {
            std::fs::copy(knapsack().join(f), dir.path().join(f)).unwrap();
        }
        if !model_text.is_empty() {
            std::fs::write(dir.path().join(model), model_text).unwrap();
        }
        std::fs::write(dir.path().join("bad.dzn"), "n = 4;\ncap = 10\nw = [1];\n").unwrap();
        std::fs::write(dir.path().join("bad.json"), "{\"n\": 4,}\n").unwrap();
        let spec = dir.path().join("s.toml");
        std::fs::write(
            &spec,
            format!(
                "name = \"s\"\n[benchmark]\nfamily = \"mzn-suite\"\nmodel = \"{model}\"\n\
                 data = [\"{data}\"]\n\n[[config]]\nname = \"gecode\"\nengine = \"minizinc\"\n"
            ),
        )
        .unwrap();
        let db = dir.path().join("s.db");
        let out = run_spec(&spec, &db, &["--workers", "1"], 2);
        let err = String::from_utf8_lossy(&out.stderr);
        for s in says {
            assert!(err.contains(s), "{s} in {err}");
        }
        assert!(
            !db.exists() || db_rows(&db, "SELECT id FROM jobs").is_empty(),
            "{model} {data}: something was stored"
        );
    }
}
