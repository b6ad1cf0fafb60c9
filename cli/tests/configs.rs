//! Solver configurations declared in a spec (`[[config]]`), run for real by `dancehall run`:
//! a fifth Gecode search on seed 001's model and a clingo option set beside the built-ins
//! they come from, stored with their definitions' hashes and their solver statistics, and
//! reported beside the built-ins; a changed model file makes a new job, never a resumed one;
//! a command template runs only where workers allow it.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

fn needs_solvers() {
    for (tool, config) in [("minizinc", "gecode-basic"), ("clingo", "clingo")] {
        let available = worker::bench::config(config)
            .unwrap()
            .availability()
            .available;
        tools::present(available, tool, "run scripts/install-solvers.sh");
    }
}

/// bench-specs/configs-example.toml: every run verified and stored, each with the hash of
/// the definition it ran (the built-in and the declared clingo differ), the declared ones
/// with their solver statistics; the report shows the declared configurations beside the
/// built-ins and ends CHECKED; a second run resumes the same job.
#[test]
fn declared_configurations_run_beside_the_built_ins() {
    needs_solvers();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("configs.db");
    let spec = specs().join("configs-example.toml");
    let out = run_spec(&spec, &db, &["--workers", "2"], 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("CHECKED"), "{text}");
    assert!(
        text.trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("CHECKED"),
        "{text}"
    );
    let runs = db_rows(
        &db,
        "SELECT instance_id, config, status, config_sha256, record FROM bench_current
         ORDER BY unit_id",
    );
    assert_eq!(runs.len(), 12, "{runs:?}");
    for r in &runs {
        assert!(
            ["optimal", "feasible", "timeout"].contains(&r[2].as_str()),
            "{} under {}: {}: {}",
            r[0],
            r[1],
            r[2],
            r[4]
        );
    }
    // One definition hash per configuration: a declared one's frozen config file's, a
    // built-in one's its definition's with the job's models.
    let files = db_rows(
        &db,
        "SELECT name, sha256, text FROM bench_files WHERE kind = 'config' ORDER BY name",
    );
    assert_eq!(files.len(), 2, "{files:?}");
    let hash = |c: &str| match files.iter().find(|f| f[0] == c) {
        Some(f) => f[1].clone(),
        None => {
            worker::bench::sha256_hex(&worker::bench::config(c).unwrap().definition().to_json())
        }
    };
    for r in &runs {
        assert_eq!(r[3], hash(&r[1]), "{} under {}", r[0], r[1]);
        let rec: Value = serde_json::from_str(&r[4]).unwrap();
        assert_eq!(rec["config_sha256"], Value::String(hash(&r[1])));
    }
    assert_ne!(hash("clingo"), hash("clingo-usc"));
    assert_ne!(hash("gecode-basic"), hash("gecode-insert-max"));
    // The declared Gecode search ran seed 001's model with a search item of its own, and the
    // declared model was frozen under the configuration's name.
    let model = db_rows(
        &db,
        "SELECT sha256 FROM bench_files WHERE kind = 'model' AND name = 'gecode-insert-max/domino.mzn'",
    );
    let seed_model = std::fs::read_to_string(specs().join("domino/models/domino.mzn")).unwrap();
    assert_eq!(model, vec![vec![cores::bench::sha256_hex(&seed_model)]]);
    for r in runs.iter().filter(|r| r[1] == "gecode-insert-max") {
        let rec: Value = serde_json::from_str(&r[4]).unwrap();
        let command: Vec<&str> = rec["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert!(
            command.iter().any(|a| a.ends_with("search.mzn")),
            "{command:?}"
        );
        // MiniZinc prints its statistics when it ends by itself (not when stopped at the
        // limit).
        if r[2] == "optimal" {
            assert!(rec["stats"]["nodes"].as_f64().unwrap() >= 1.0, "{rec}");
        }
    }
    for r in runs.iter().filter(|r| r[1] == "clingo-usc") {
        let rec: Value = serde_json::from_str(&r[4]).unwrap();
        let command = rec["command"].to_string();
        assert!(
            command.contains("--opt-strategy=usc") && command.contains("--outf=2"),
            "{command}"
        );
        assert!(rec["stats"]["choices"].as_f64().is_some(), "{rec}");
    }
    // Declared and built-in configurations agree wherever both prove an optimum.
    for r in runs.iter().filter(|r| r[2] == "optimal") {
        for s in runs.iter().filter(|s| s[0] == r[0] && s[2] == "optimal") {
            let obj = |x: &Vec<String>| -> Value {
                serde_json::from_str::<Value>(&x[4]).unwrap()["answer"]["objective"].clone()
            };
            assert_eq!(obj(r), obj(s), "{} under {} and {}", r[0], r[1], s[1]);
        }
    }
    // The report shows the declared configurations beside the built-ins, with statistics.
    let job = db_rows(&db, "SELECT id FROM jobs")[0][0].clone();
    let report = run_expect(dancehall().args(["report", &job, "--db"]).arg(&db), 0);
    let report = String::from_utf8_lossy(&report.stdout);
    assert!(report.starts_with("CHECKED"), "{report}");
    // The definitions table: name, kind (declared or built-in), engine, hash, statistics.
    let line = |c: &str| {
        report
            .lines()
            .find(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                w.len() > 2 && w[0] == c && ["declared", "built-in"].contains(&w[1])
            })
            .unwrap_or_else(|| panic!("no definition line for {c}:\n{report}"))
            .to_owned()
    };
    assert!(line("gecode-insert-max").contains("declared"), "{report}");
    assert!(line("gecode-insert-max").contains("nodes "), "{report}");
    assert!(line("clingo-usc").contains("declared"), "{report}");
    assert!(line("clingo-usc").contains("choices "), "{report}");
    assert!(line("clingo").contains("built-in"), "{report}");
    let html = dir.path().join("report.html");
    run_expect(
        dancehall()
            .args(["report", &job, "--format", "html", "--out"])
            .arg(&html)
            .arg("--db")
            .arg(&db),
        0,
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Configurations and solver statistics"));
    assert!(
        page.contains("<td>gecode-insert-max</td><td>declared</td>"),
        "{page}"
    );
    // The same spec again resumes the job: nothing runs twice.
    let again = run_spec(&spec, &db, &["--workers", "1"], 0);
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("resumed"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(db_rows(&db, "SELECT id FROM jobs").len(), 1);
    assert_eq!(db_rows(&db, "SELECT unit_id FROM bench_runs").len(), 12);
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// `dir/suite/batch01.txt`: b01-e1 of the public suite alone.
fn one_instance_suite(dir: &Path) {
    std::fs::create_dir(dir.join("suite")).unwrap();
    let batch = std::fs::read_to_string(specs().join("domino/suite-public/batch01.txt")).unwrap();
    write(dir, "suite/batch01.txt", batch.lines().next().unwrap());
}

/// A declared configuration whose model file changes is a new job on the next run (its
/// definition hash and the manifest change), never the old job resumed with mixed inputs;
/// `report compare` of the two jobs never pairs the two definitions.
#[test]
fn a_changed_model_file_makes_a_new_job() {
    needs_solvers();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("changed.db");
    let seed_model = std::fs::read_to_string(specs().join("domino/models/domino.mzn")).unwrap();
    write(dir.path(), "domino.mzn", &seed_model);
    one_instance_suite(dir.path());
    let spec = dir.path().join("mine.toml");
    write(
        dir.path(),
        "mine.toml",
        "name = \"mine\"\n[benchmark]\nsuite = \"suite\"\ntime_limit_seconds = 10\n\
         configs = [\"gecode-mine\"]\n\
         [[config]]\nname = \"gecode-mine\"\nengine = \"minizinc\"\nmodels = [\"domino.mzn\"]\n\
         search = \"int_search(posX, first_fail, indomain_min)\"\n",
    );
    run_spec(&spec, &db, &["--workers", "1"], 0);
    let first = db_rows(&db, "SELECT config_sha256, status FROM bench_runs");
    assert_eq!(first.len(), 1);
    assert_eq!(first[0][1], "optimal", "{first:?}");
    // The same inputs resume; a comment in the model is a new definition and a new job.
    let again = run_spec(&spec, &db, &["--workers", "1"], 0);
    assert!(String::from_utf8_lossy(&again.stderr).contains("resumed"));
    write(
        dir.path(),
        "domino.mzn",
        &format!("{seed_model}\n% changed after the first run\n"),
    );
    let changed = run_spec(&spec, &db, &["--workers", "1"], 0);
    assert!(
        !String::from_utf8_lossy(&changed.stderr).contains("resumed"),
        "{}",
        String::from_utf8_lossy(&changed.stderr)
    );
    let jobs = db_rows(&db, "SELECT id FROM jobs ORDER BY id");
    assert_eq!(jobs.len(), 2);
    let runs = db_rows(
        &db,
        "SELECT job_id, config_sha256 FROM bench_runs ORDER BY job_id",
    );
    assert_eq!(runs.len(), 2);
    assert_ne!(runs[0][1], runs[1][1]);
    let models = db_rows(
        &db,
        "SELECT job_id, sha256 FROM bench_files WHERE name = 'gecode-mine/domino.mzn' ORDER BY job_id",
    );
    assert_ne!(models[0][1], models[1][1]);
    let out = run_expect(
        dancehall()
            .args(["report", "compare", &jobs[0][0], &jobs[1][0], "--db"])
            .arg(&db),
        0,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not compared: configuration gecode-mine has different definitions"),
        "{text}"
    );
}

/// A command template (here the CP-SAT script run through python3, printing its own lines)
/// is `unavailable` on workers without `--allow-commands`, and runs, verified, on workers
/// with it.
#[test]
fn a_command_template_runs_only_where_allowed() {
    let available = worker::bench::config("cp-sat")
        .unwrap()
        .availability()
        .available;
    tools::present(
        available,
        "python3 with ortools",
        "run scripts/install-solvers.sh",
    );
    let dir = tempfile::tempdir().unwrap();
    one_instance_suite(dir.path());
    let script = specs().join("domino/models/domino-cpsat.py");
    let spec = dir.path().join("cmd.toml");
    write(
        dir.path(),
        "cmd.toml",
        &format!(
            "name = \"cmd\"\n[benchmark]\nsuite = \"suite\"\ntime_limit_seconds = 10\n\
             configs = [\"cpsat-cmd\"]\n\
             [[config]]\nname = \"cpsat-cmd\"\nengine = \"command\"\nmodels = [{script:?}]\n\
             command = [\"python3\", \"{{file:domino-cpsat.py}}\", \"{{instance}}\", \
             \"--time-limit\", \"{{time_limit}}\", \"--workers\", \"1\"]\n\
             data = \"dzn\"\noutput = \"dancehall-lines\"\n"
        ),
    );
    let db = dir.path().join("no.db");
    run_spec(&spec, &db, &["--workers", "1"], 0);
    let rows = db_rows(&db, "SELECT status, record FROM bench_runs");
    assert_eq!(rows[0][0], "unavailable", "{rows:?}");
    assert!(rows[0][1].contains("--allow-commands"), "{rows:?}");
    let db = dir.path().join("yes.db");
    run_spec(&spec, &db, &["--workers", "1", "--allow-commands"], 0);
    let rows = db_rows(&db, "SELECT status, record FROM bench_runs");
    assert_eq!(rows[0][0], "optimal", "{rows:?}");
    // The worker's help says what the flag allows.
    let help = run_expect(dancehall().args(["worker", "--help"]), 0);
    assert!(String::from_utf8_lossy(&help.stdout).contains("--allow-commands"));
}
