//! A count is complete or it says so, end to end: a `dancehall run` killed in the middle
//! leaves a running job whose ledger is refused (`dancehall ledger`), written only with
//! `--partial` and then refused again as a total by a spec's `[units] file`; resumed
//! (`resume = true`) on another database, its counted units are imported, the rest counted,
//! and the total is the true one.
//!
//! Q(15) = 2,279,184 (OEIS A000170).

mod common;

use std::process::Stdio;

use common::*;

const Q15: u128 = 2_279_184;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn count_of(db: &std::path::Path, sql: &str) -> u64 {
    db_rows(db, sql)[0][0].parse().unwrap()
}

#[test]
fn a_killed_runs_ledger_is_refused_then_resumed_to_the_true_count() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    // The reproduction: queens by the engine, two local workers, killed after a few units.
    let mut run = Proc(
        dancehall()
            .args([
                "run",
                "queens",
                "15",
                "--core",
                "dlx",
                "--workers",
                "2",
                "--db",
            ])
            .arg(&db)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_until("a few units counted", || {
        let n = try_db_rows(&db, "SELECT COUNT(*) FROM unit_results").ok()?;
        (n[0][0].parse::<u64>().ok()? >= 3).then_some(())
    });
    run.kill9();
    let (counted, units) = (
        count_of(&db, "SELECT COUNT(*) FROM unit_results"),
        count_of(&db, "SELECT COUNT(*) FROM units WHERE audit_of IS NULL"),
    );
    assert!(counted < units, "the run was killed before the end");
    assert_eq!(db_rows(&db, "SELECT state FROM jobs")[0][0], "running");

    // The ledger step fails loudly, naming the job, its state and its progress, and writes
    // nothing.
    let csv = dir.path().join("k.csv");
    let out = run_expect(
        dancehall()
            .args(["ledger", "--db"])
            .arg(&db)
            .arg("--out")
            .arg(&csv),
        2,
    );
    let e = stderr(&out);
    assert!(
        e.contains(&format!(
            "job 1 (queens 15) is running: {counted} of {units} units counted, so its ledger \
             is not a count"
        )),
        "{e}"
    );
    assert!(!csv.exists(), "nothing written");

    // --partial writes the work to resume, and says so on every row.
    let out = run_expect(
        dancehall()
            .args(["ledger", "--partial", "--db"])
            .arg(&db)
            .arg("--out")
            .arg(&csv),
        0,
    );
    assert!(
        stderr(&out).contains("PARTIAL LEDGER of job 1"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len() as u64, units, "every unit of the job");
    assert!(rows.iter().all(|r| r.contains(",partial,")), "{text}");

    // Forced through a spec as a total: refused at the reader, naming the file and line, and
    // nothing is started.
    let spec = |name: &str, extra: &str| {
        write_spec(
            dir.path(),
            &format!("{name}.toml"),
            &format!(
                "name = \"{name}\"\nexpected_total = {Q15}\n[problem]\nfamily = \"queens\"\n\
                 n = 15\n[units]\nfile = \"k.csv\"\n{extra}"
            ),
        )
    };
    let forced = dir.path().join("forced.db");
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(spec("forced", ""))
            .args(["--workers", "1", "--db"])
            .arg(&forced),
        2,
    );
    let e = stderr(&out);
    assert!(
        e.contains("k.csv:2: `ledger` says `partial`: this is a partial ledger"),
        "{e}"
    );
    assert!(!forced.exists(), "nothing started");

    // Resumed on another database (another machine): the counted units are imported, the
    // rest counted, and the total is Q(15).
    let resumed = dir.path().join("resumed.db");
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(spec("resumed", "resume = true\ncore = \"dlx\"\n"))
            .args(["--workers", "2", "--json", "--db"])
            .arg(&resumed),
        0,
    );
    let v = &json_lines(&out)[0];
    assert_eq!(solutions(v), Q15, "{v}");
    assert_eq!(v["state"], "done", "{v}");
    let imported = count_of(
        &resumed,
        "SELECT COUNT(*) FROM unit_results WHERE host LIKE 'imported: %'",
    );
    assert_eq!(
        imported, counted,
        "every counted unit imported, none recounted"
    );
    let recounted = count_of(
        &resumed,
        "SELECT COUNT(*) FROM unit_results WHERE worker_id IS NOT NULL",
    );
    assert!(recounted >= units - counted, "the rest counted by workers");
    // The resumed job's ledger is complete, and the imported rows say where they came from.
    let out = run_expect(dancehall().args(["ledger", "--db"]).arg(&resumed), 0);
    assert!(
        stderr(&out).contains(&format!("= {Q15}")),
        "{}",
        stderr(&out)
    );
    let ledger = String::from_utf8_lossy(&out.stdout);
    assert!(ledger.lines().skip(1).all(|r| r.contains(",complete,")));
    assert_eq!(
        ledger.matches("imported: ").count() as u64,
        counted,
        "{ledger}"
    );
}

#[test]
fn an_unfinished_jobs_sums_are_never_shown_as_its_count() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db");
    let token = write_token(dir.path(), "token", "t0ken");
    let coord = start_coordinator(&db, &token, 0, 30);
    // Submitted, never counted: no worker.
    let job = submit(&coord.url, &token, &queens_spec(dir.path(), 8, 100));
    let url = ["--coordinator", coord.url.as_str(), "--token-file"];
    let out = run_expect(
        dancehall()
            .args(["status", &job.to_string()])
            .args(url)
            .arg(&token)
            .arg("--json"),
        0,
    );
    let v = &json_lines(&out)[0];
    assert_eq!(v["state"], "running");
    assert!(v["solutions"].is_null(), "{v}");
    assert_eq!(v["solutions_so_far"], "0", "{v}");
    let out = run_expect(
        dancehall()
            .args(["status", &job.to_string()])
            .args(url)
            .arg(&token),
        0,
    );
    let text = stdout(&out);
    assert!(text.contains("total       incomplete: 0 of"), "{text}");
    let out = run_expect(dancehall().arg("jobs").args(url).arg(&token), 0);
    assert!(stdout(&out).contains("0 so far"), "{}", stdout(&out));
    // The report (read from the database) ends non-zero: the verdict names the unfinished
    // job, the table
    // says incomplete, the CSV leaves the totals empty, the JSON has no count.
    let report = |format: &str| {
        let out = run_expect(
            dancehall().args(["report", "--db"]).arg(&db).args([
                &job.to_string(),
                "--format",
                format,
            ]),
            1,
        );
        stdout(&out)
    };
    let table = report("table");
    assert!(table.starts_with("PROBLEMS"), "{table}");
    assert!(table.contains("total        incomplete: 0 of"), "{table}");
    let csv = report("csv");
    let row = csv
        .lines()
        .find(|l| l.starts_with(&format!("{job},count,")))
        .unwrap();
    assert!(row.starts_with(&format!("{job},count,running,")), "{row}");
    let json: serde_json::Value = serde_json::from_str(&report("json")).unwrap();
    let j = &json["jobs"][0];
    assert!(j["count"].is_null(), "{j}");
    assert_eq!(j["so_far"]["counted"], "0", "{j}");
    drop(coord);
}
