//! End-to-end tests of distributed counting with real processes on loopback: `dancehall run`,
//! `dancehall coordinator` + `dancehall worker` + `dancehall submit/status`, kill -9 of
//! workers and of the coordinator, duplicate and late reports, tokens and malformed specs.
//!
//! Every expected count comes from `dancehall count` in one process (and the specs cite their
//! published figures). Waits are on conditions with deadlines, never fixed sleeps. Every
//! process a test starts is killed when the test ends, whatever happens.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use common::*;
use serde_json::Value;

// ----- tests -----------------------------------------------------------------------------

#[test]
fn every_small_bench_spec_counts_as_in_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let dlx = specs().join("knuth-xcc-example.dlx");
    let cases: &[(&str, Vec<&str>)] = &[
        ("sudoku-4x4.toml", vec!["sudoku", "--box", "2x2"]),
        (
            "sudoku-4x4-diagonal.toml",
            vec!["sudoku", "--box", "2x2", "--variant", "diagonal"],
        ),
        (
            "sudoku-4x4-disjoint.toml",
            vec!["sudoku", "--box", "2x2", "--variant", "disjoint"],
        ),
        (
            "sudoku-4x4-diagonal-disjoint.toml",
            vec![
                "sudoku",
                "--box",
                "2x2",
                "--variant",
                "diagonal",
                "--variant",
                "disjoint",
            ],
        ),
        (
            "sudoku-4x4-fixed.toml",
            vec!["sudoku", "--box", "2x2", "--fix-first-row"],
        ),
        ("latin-5-reduced.toml", vec!["latin", "5", "--reduced"]),
        ("queens-10.toml", vec!["queens", "10"]),
        (
            "knuth-xcc-example.toml",
            vec!["--dlx", dlx.to_str().unwrap()],
        ),
    ];
    for (i, (spec, args)) in cases.iter().enumerate() {
        let db = dir.path().join(format!("{i}.db"));
        let out = run_expect(
            dancehall()
                .arg("run")
                .arg(specs().join(spec))
                .args(["--workers", "2", "--json", "--db"])
                .arg(&db),
            0,
        );
        let got = &json_lines(&out)[0];
        assert_eq!(solutions(got), count(args), "{spec}: {got}");
        assert!(got["units"].as_u64().unwrap() >= 1, "{got}");
        assert!(db.exists(), "{spec} left no database");
    }
    // The suite of the README's first command: one line per counting job, in order, then
    // its native domino benchmark, every claim checked, and the HTML report's path.
    let db = dir.path().join("default.db");
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(specs().join("default.toml"))
            .args(["--workers", "2", "--json", "--db"])
            .arg(&db),
        0,
    );
    let lines = json_lines(&out);
    let six = |variant: Option<&'static str>| {
        let mut a = vec!["sudoku", "--box", "2x3", "--fix-first-row"];
        if let Some(v) = variant {
            a.extend(["--variant", v]);
        }
        count(&a)
    };
    let expected: Vec<u128> = [None, Some("diagonal"), Some("disjoint"), Some("hyper")]
        .into_iter()
        .map(six)
        .collect();
    let got: Vec<u128> = lines.iter().map(solutions).collect();
    assert_eq!(got, expected);
    // Issue 2: 28,200,960 6x6 grids = 39,168 with the first row fixed x 6!.
    assert_eq!(got[0], 39_168);
    assert_eq!(lines[0]["total_solutions"], "28200960");
    let err = String::from_utf8_lossy(&out.stderr);
    let html = db.with_file_name("report.html");
    assert!(
        err.contains(&format!("report: {}", html.display())),
        "{err}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("CHECKED: no wrong run"), "the verdict");
    assert_eq!(page.matches("class=\"board\"").count(), 100);
    let runs = db_rows(&db, "SELECT status FROM v_bench_runs WHERE current");
    assert_eq!(runs.len(), 100);
    assert!(
        runs.iter().all(|r| r[0] == "optimal" || r[0] == "feasible"),
        "{runs:?}"
    );
}

#[test]
fn run_takes_problem_arguments_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = run_expect(
        dancehall()
            .args(["run", "sudoku", "--box", "2x3", "--fix-first-row"])
            .args(["--workers", "2", "--json", "--db"])
            .arg(&db),
        0,
    );
    let v = &json_lines(&out)[0];
    // Issue 2: 28,200,960 6x6 grids = 39,168 with the first row fixed x 6!.
    assert_eq!(solutions(v), 39_168);
    assert_eq!(v["symmetry_factor"], "720");
    assert_eq!(v["total_solutions"], "28200960");
    assert!(
        v["job"].as_u64().is_some() && v["units"].as_u64().unwrap() > 1,
        "{v}"
    );
}

#[test]
fn run_counts_queens_with_the_bitboard_core_unless_told_otherwise() {
    // Q(12) = 14,200 (OEIS A000170). Units are cut by the Dancing Links partition and each
    // counted whole by the queens core; `--core dlx` keeps the engine.
    let dir = tempfile::tempdir().unwrap();
    for (core, counted_by) in [(None, "queens"), (Some("dlx"), "dlx")] {
        let db = dir.path().join(format!("{counted_by}.db"));
        let mut cmd = dancehall();
        cmd.args(["run", "queens", "12", "--workers", "2", "--json", "--db"])
            .arg(&db);
        if let Some(c) = core {
            cmd.args(["--core", c]);
        }
        let out = run_expect(&mut cmd, 0);
        assert_eq!(solutions(&json_lines(&out)[0]), 14_200);
        let cores = db_rows(
            &db,
            "SELECT DISTINCT core FROM unit_results WHERE worker_id IS NOT NULL",
        );
        assert_eq!(cores, [[counted_by.to_string()]], "{core:?}");
        let job_core = db_rows(&db, "SELECT core FROM jobs");
        assert!(job_core[0][0].starts_with(counted_by), "{job_core:?}");
        assert!(db_rows(&db, "SELECT * FROM alarms").is_empty());
    }
}

#[test]
fn run_counts_queens_by_border_units_weighted_by_their_symmetry_classes() {
    // Q(11) = 2,680 (OEIS A000170). The `queens-border` generator: the 3,544 placements of
    // queens on the border ring (one in each of the first and last rows and columns) in 452
    // classes under the symmetries of the square, each unit weighted by its class size and
    // counted whole by the queens core (the job is too small for the partitioner to split
    // them).
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(
        dir.path(),
        "border.toml",
        "name = \"queens-11-border\"\nexpected_total = 2680\n\
         [problem]\nfamily = \"queens\"\nn = 11\n\
         [units]\ngenerator = \"queens-border\"\n",
    );
    let db = dir.path().join("border.db");
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .args(["--workers", "2", "--json", "--db"])
            .arg(&db),
        0,
    );
    let v = &json_lines(&out)[0];
    assert_eq!(solutions(v), 2680, "{v}");
    assert_eq!(v["weighted"], true, "{v}");
    assert_eq!(v["units"], 452, "{v}");
    let units = db_rows(
        &db,
        "SELECT COUNT(*), SUM(CAST(weight AS INTEGER)) FROM units WHERE audit_of IS NULL",
    );
    assert_eq!(units, [["452".to_string(), "3544".to_string()]]);
    let cores = db_rows(
        &db,
        "SELECT DISTINCT core FROM unit_results WHERE worker_id IS NOT NULL",
    );
    assert_eq!(cores, [["queens".to_string()]]);
    assert!(db_rows(&db, "SELECT * FROM alarms").is_empty());
}

/// A random small XCC problem in DLX format: 3-7 primary items, 0-3 secondary items, 4-24
/// options, some with colours.
fn random_dlx(rng: &mut impl rand::Rng) -> String {
    let primary = rng.random_range(3..=7);
    let secondary = rng.random_range(0..=3);
    let mut text = String::from("| random test problem\n");
    let names: Vec<String> = (0..primary).map(|i| format!("p{i}")).collect();
    text.push_str(&names.join(" "));
    if secondary > 0 {
        text.push_str(" |");
        for i in 0..secondary {
            text.push_str(&format!(" s{i}"));
        }
    }
    text.push('\n');
    for _ in 0..rng.random_range(4..=24) {
        let mut words = Vec::new();
        for i in 0..primary {
            if rng.random_bool(0.35) {
                words.push(format!("p{i}"));
            }
        }
        if words.is_empty() {
            words.push(format!("p{}", rng.random_range(0..primary)));
        }
        for i in 0..secondary {
            if rng.random_bool(0.3) {
                match rng.random_range(0..3) {
                    0 => words.push(format!("s{i}")),
                    c => words.push(format!("s{i}:{}", ["A", "B"][c - 1])),
                }
            }
        }
        text.push_str(&words.join(" "));
        text.push('\n');
    }
    text
}

#[test]
fn random_exact_cover_problems_count_as_in_one_process() {
    use rand::SeedableRng;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2024);
    // One suite of random problems, each cut into the smallest units.
    // Half the jobs are cut at the root's branching only (the default budget), half into
    // units of at most 3 estimated nodes.
    let mut suite = String::new();
    let mut expected = Vec::new();
    for k in 0..12 {
        let file = dir.path().join(format!("p{k}.dlx"));
        std::fs::write(&file, random_dlx(&mut rng)).unwrap();
        expected.push(count(&["--dlx", file.to_str().unwrap()]));
        suite.push_str(&format!(
            "[[job]]\nname = \"p{k}\"\nproblem = {{ family = \"dlx\", file = \"p{k}.dlx\" }}\n"
        ));
        if k % 2 == 1 {
            suite.push_str("partition = { unit_node_budget = 3 }\n");
        }
    }
    assert!(
        expected.iter().filter(|&&n| n > 0).count() >= 3,
        "too few problems with solutions: {expected:?}"
    );
    let spec = write_spec(dir.path(), "random.toml", &suite);
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .args(["--workers", "2", "--json", "--db"])
            .arg(dir.path().join("random.db")),
        0,
    );
    let got: Vec<u128> = json_lines(&out).iter().map(solutions).collect();
    assert_eq!(got, expected);
}

#[test]
fn a_killed_worker_holding_leases_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let token = write_token(dir.path(), "token", "kill-worker-token");
    let db = dir.path().join("k.db");
    let coord = start_coordinator(&db, &token, 0, 2);
    // Big enough that the victim is still busy when the poll sees its leases (its reserve
    // of small units would finish 13 queens between two polls on a loaded machine).
    let spec = queens_spec(dir.path(), 14, 5_000);
    let job = submit(&coord.url, &token, &spec);

    let mut victim = start_worker(&coord.url, &token, 2, "victim");
    wait_until("the victim to hold leases", || {
        status(&coord.url, &token, job).filter(|s| s["units_leased"].as_u64() > Some(0))
    });
    victim.kill9();
    let _rescuer = start_worker(&coord.url, &token, 2, "rescuer");
    let done = wait_done(&coord.url, &token, job);
    // OEIS A000170: 14 queens have 365,596 solutions.
    assert_eq!(solutions(&done), 365_596);
    drop(coord);
    assert_accepted_once(&db, job, 365_596);
    // The victim's leases ended by expiry, and their units were run again.
    let expired = db_rows(
        &db,
        "SELECT COUNT(*) FROM leases WHERE end_reason = 'expired'",
    );
    assert_ne!(expired[0][0], "0", "no lease of the killed worker expired");
}

/// The pids of the processes whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the parenthesised name: state, ppid, ...
        let after = stat.rsplit(')').next().unwrap_or("");
        if after.split_whitespace().nth(1) == Some(&parent.to_string()) {
            pids.push(pid);
        }
    }
    pids
}

/// `dancehall run SPEC --workers N --db DB`, to be given more and started by [`spawn`].
fn run_command(spec: &Path, workers: usize, db: &Path) -> std::process::Command {
    let mut cmd = dancehall();
    cmd.arg("run")
        .arg(spec)
        .args(["--workers", &workers.to_string(), "--db"])
        .arg(db);
    cmd
}

/// `cmd` started in the background, its output piped (read by [`run_output`]).
fn spawn(cmd: &mut std::process::Command) -> Proc {
    Proc(
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    )
}

/// Waits until a run of [`spawn`] ends: its exit status, stdout and stderr.
fn run_output(run: &mut Proc) -> (std::process::ExitStatus, String, String) {
    use std::io::Read;
    let status = wait_until("run to finish", || run.exited());
    let (mut stdout, mut stderr) = (String::new(), String::new());
    let child = &mut run.0;
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status, stdout, stderr)
}

#[test]
fn run_goes_on_when_one_of_its_workers_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("run.db");
    // Long enough (a few seconds in a debug build) for the kill to land mid-job.
    let spec = queens_spec(dir.path(), 14, 200_000);
    let mut run = spawn(run_command(&spec, 2, &db).arg("--json"));
    // Wait until the units are leased, then kill one of run's own worker processes.
    let worker = wait_until("a local worker with a lease", || {
        if !db.exists() {
            return None;
        }
        let leased = try_db_rows(&db, "SELECT COUNT(*) FROM units WHERE state = 'leased'").ok()?;
        if leased[0][0] == "0" {
            return None;
        }
        children_of(run.pid()).first().copied()
    });
    // SAFETY: kill(2) on a process of this test's tree.
    unsafe {
        libc::kill(worker as libc::pid_t, libc::SIGKILL);
    }
    let (status, stdout, stderr) = run_output(&mut run);
    assert!(status.success(), "{status}: {stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    // OEIS A000170: 14 queens have 365,596 solutions.
    assert_eq!(solutions(&v), 365_596);
    assert!(stderr.contains("starting another"), "{stderr}");
    let job = v["job"].as_u64().unwrap();
    assert_accepted_once(&db, job, 365_596);
}

#[test]
fn a_restarted_coordinator_resumes_on_its_database() {
    let dir = tempfile::tempdir().unwrap();
    let token = write_token(dir.path(), "token", "restart-token");
    let db = dir.path().join("c.db");
    let mut coord = start_coordinator(&db, &token, 0, 3);
    // 15 queens in units of 50 ms: long enough (seconds) that the polls below see the job
    // half done; 13 queens in 5,000-node units finished between two polls on a fast day.
    let spec = queens_spec_timed(dir.path(), 15, 0.05);
    let job = submit(&coord.url, &token, &spec);
    let _w1 = start_worker(&coord.url, &token, 1, "w1");
    let _w2 = start_worker(&coord.url, &token, 1, "w2");
    wait_until("some units done", || {
        status(&coord.url, &token, job)
            .filter(|s| s["units_done"].as_u64() > Some(0) && s["units_done"] != s["units_total"])
    });
    coord.proc.kill9();
    let port = coord.port;
    // Same port and database: the workers find it again (they retry with back-off).
    let coord = wait_until("the coordinator to restart on its port", || {
        try_start_coordinator(&db, &token, port, 3)
    });
    let done = wait_done(&coord.url, &token, job);
    // OEIS A000170: 15 queens have 2,279,184 solutions.
    assert_eq!(solutions(&done), 2_279_184);
    drop(coord);
    assert_accepted_once(&db, job, 2_279_184);
}

/// What a coordinator or `run` refused on `db` says first: the one using it, by its pid and
/// address as it wrote them into the lock file.
fn in_use(db: &Path, pid: u32, url: &str) -> String {
    format!(
        "dancehall: the database {} is in use by another coordinator (pid {pid}, at {url}): \
         use another --db, or wait until it ends",
        db.display()
    )
}

/// Regression: a `run` on a database another coordinator served ended with "cannot connect to
/// the coordinator: transport error ... Connection reset by peer" (its own coordinator had
/// stopped at the lock). A second coordinator or `run` says who uses the database, exits 2
/// and starts nothing; the first serves on, and once it is gone the database is free.
#[test]
fn a_second_coordinator_or_run_on_a_database_in_use_says_who_and_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let token = write_token(dir.path(), "token", "in-use-token");
    let db = dir.path().join("busy.db");
    let coord = start_coordinator(&db, &token, 0, 30);
    wait_until("the coordinator to make its tables", || {
        try_db_rows(&db, "SELECT COUNT(*) FROM workers").ok()
    });
    let said = in_use(&db, coord.proc.pid(), &coord.url);
    let spec = queens_spec(dir.path(), 8, 1_000);
    let out = run_expect(
        dancehall()
            .args(["coordinator", "--listen", "127.0.0.1:0", "--token-file"])
            .arg(&token)
            .arg("--db")
            .arg(&db),
        2,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with(&said), "{err}");
    assert!(!err.contains("listening"), "{err}");
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .args(["--workers", "1", "--db"])
            .arg(&db),
        2,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with(&said), "{err}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Nothing started: no job submitted, no worker registered.
    assert_eq!(
        db_rows(
            &db,
            "SELECT (SELECT COUNT(*) FROM jobs), (SELECT COUNT(*) FROM workers)"
        ),
        [["0", "0"]]
    );
    // The first serves on.
    let job = submit(&coord.url, &token, &spec);
    let _w = start_worker(&coord.url, &token, 1, "w");
    // OEIS A000170: 8 queens have 92 solutions.
    assert_eq!(solutions(&wait_done(&coord.url, &token, job)), 92);
    drop(coord);
    // Gone (killed): its lock file stays, but the lock with it, and run counts here.
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .args(["--workers", "1", "--json", "--db"])
            .arg(&db),
        0,
    );
    assert_eq!(solutions(&json_lines(&out)[0]), 92);
}

/// Two `dancehall run` on one database: the second, started while the first counts, says the
/// first uses it, exits 2 and starts nothing; the first counts on, exactly. The first is
/// stopped (SIGSTOP) once it holds the database, so that it cannot end before the second
/// has tried, and continued after.
#[test]
fn a_second_run_on_a_database_in_use_is_refused_and_the_first_counts_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("two.db");
    // Seconds: it is stopped long before it could end.
    let spec = queens_spec(dir.path(), 15, 200_000);
    let mut first = spawn(run_command(&spec, 1, &db).arg("--json"));
    let lock = dir.path().join("two.db.lock");
    let url = wait_until("the first run to take the database", || {
        let text = std::fs::read_to_string(&lock).ok()?;
        if !text.starts_with(&format!("pid {}\n", first.pid())) {
            return None;
        }
        text.lines()
            .find_map(|l| l.strip_prefix("address "))
            .map(str::to_string)
    });
    // SAFETY: kill(2) on this test's own child.
    unsafe {
        libc::kill(first.pid() as libc::pid_t, libc::SIGSTOP);
    }
    assert!(
        first.exited().is_none(),
        "the first run ended before it was stopped"
    );
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .args(["--workers", "1", "--db"])
            .arg(&db),
        2,
    );
    // SAFETY: as above.
    unsafe {
        libc::kill(first.pid() as libc::pid_t, libc::SIGCONT);
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with(&in_use(&db, first.pid(), &url)), "{err}");
    let (status, stdout, stderr) = run_output(&mut first);
    assert!(status.success(), "{status}: {stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    // OEIS A000170: 15 queens have 2,279,184 solutions.
    assert_eq!(solutions(&v), 2_279_184);
    assert_accepted_once(&db, v["job"].as_u64().unwrap(), 2_279_184);
    assert_eq!(
        db_rows(&db, "SELECT COUNT(*) FROM jobs"),
        [["1"]],
        "one job"
    );
}

/// Regression: a unit that kills its worker (an abort, out of memory, a stack overflow) only
/// expired, so `run` leased it again and again, replacing its workers until it gave up
/// ("local workers keep dying"). Each local worker's death is told to the coordinator at once
/// with its signal: its leases end as deaths, at the deaths limit the unit is held with an
/// alarm `died` naming SIGABRT, the job's other units are counted (the one the first victim
/// held beside it too), and `run` exits 1 with the problem said first. The abort is the
/// worker's fault-injection hook (`worker::fault`).
#[test]
fn run_holds_a_unit_that_kills_its_workers_and_says_which_signal_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("abort.db");
    // Six units (one per square of a first line); unit 1 aborts every worker that starts it.
    let spec = queens_spec(dir.path(), 6, 1_000_000);
    let mut run = spawn(run_command(&spec, 1, &db).env(worker::fault::ABORT_UNIT_ENV, "1"));
    let (status, out, err) = run_output(&mut run);
    assert_eq!(status.code(), Some(1), "stdout: {out}\nstderr: {err}");
    let limit = coordinator::scheduler::DEFAULT_DEATHS_LIMIT;
    let abort = "was killed by signal 6 (SIGABRT)";
    let lines: Vec<&str> = err.lines().collect();
    // Each death said as it happened, then the held unit first among the problems.
    let deaths = lines
        .iter()
        .filter(|l| l.starts_with("local worker local-0 (pid ") && l.contains(abort))
        .count();
    assert_eq!(deaths, limit as usize, "{err}");
    let alarm = format!("unit 1 died {limit} times (worker local-0 (pid ");
    let said = |prefix: &str| lines.iter().position(|l| l.starts_with(prefix));
    let held_at = said(&format!("HELD job 1 (queens-6): {alarm}")).expect(&err);
    assert!(
        lines[held_at].ends_with(&format!("{abort}); held, the count is incomplete")),
        "{err}"
    );
    let problem_at = said("PROBLEM ").expect(&err);
    assert!(held_at < problem_at, "{err}");
    assert!(
        err.contains(&format!(
            "PROBLEM job 1 (queens-6): alarm died on unit 1: {alarm}"
        )),
        "{err}"
    );
    // The verdict first; never a partial count shown as the count.
    assert!(out.starts_with("PROBLEMS ("), "{out}");
    assert!(
        out.contains("solutions: incomplete (5 of 6 units counted, 1 held"),
        "{out}"
    );
    // In the database: unit 1 held with its deaths, each lease of it ended at once as died
    // (none waited for its expiry); unit 2, held by the first victim beside it, died once and
    // was counted.
    let units = db_rows(
        &db,
        "SELECT id, state, deaths, failures FROM units WHERE job_id = 1 ORDER BY id",
    );
    let row = |id: &str, state: &str, deaths: &str| {
        vec![id.into(), state.into(), deaths.into(), "0".to_string()]
    };
    let mut want = vec![
        row("1", "queued", &limit.to_string()),
        row("2", "done", "1"),
    ];
    want.extend((3..=6).map(|id| row(&id.to_string(), "done", "0")));
    assert_eq!(units, want);
    let ends = db_rows(
        &db,
        "SELECT end_reason, COUNT(*) FROM leases WHERE unit_id = 1 GROUP BY end_reason",
    );
    assert_eq!(ends, [["died".to_string(), limit.to_string()]]);
    // The report says the deaths: the job's, the units', the unit with the most.
    let report = dancehall()
        .args(["report", "--db", db.to_str().unwrap(), "--format", "table"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&report.stdout);
    assert!(
        table.contains(&format!(
            "  deaths       {} worker deaths on 2 units (the most: unit 1, {limit})",
            limit + 1
        )),
        "{table}"
    );
    let report = dancehall()
        .args(["report", "--db", db.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(
        json["jobs"][0]["head"]["deaths"],
        serde_json::json!({"deaths": limit + 1, "units": 2, "most": {"unit": 1, "deaths": limit}}),
        "{json}"
    );
}

#[test]
fn a_repeated_or_late_report_is_not_counted_twice() {
    use cores::xcc::{parse_dlx, Dlx};
    use proto::client;
    use proto::v1 as pb;

    let dir = tempfile::tempdir().unwrap();
    let token = write_token(dir.path(), "token", "report-token");
    let db = dir.path().join("rep.db");
    let coord = start_coordinator(&db, &token, 0, 30);
    let spec = queens_spec(dir.path(), 6, 1_000_000);
    let job = submit(&coord.url, &token, &spec);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (verdicts, mismatch_verdict) = rt.block_on(async {
        let (mut w, me) = protocol_worker(&coord.url, "report-token").await;
        let h = || client::header();
        let units = w
            .exchange(pb::ExchangeRequest {
                header: h(),
                worker_id: me,
                reports: vec![],
                lease_max_units: 2,
                lease_max_bench_units: 0,
            })
            .await
            .unwrap()
            .into_inner()
            .units;
        assert_eq!(
            units.len(),
            2,
            "queens 6 cut at the root has more than 2 units"
        );
        let dlx = w
            .get_job(pb::GetJobRequest {
                header: h(),
                job_id: job,
            })
            .await
            .unwrap()
            .into_inner()
            .dlx;
        let problem = parse_dlx(&dlx).unwrap();
        let result = |unit: &pb::Unit, solutions: u128| pb::UnitReport {
            lease_token: unit.lease_token.clone(),
            unit_id: unit.unit_id,
            result: Some(pb::UnitResult {
                solutions: solutions.to_string(),
                nodes: 1,
                updates: 1,
                estimate_nodes: unit.estimate_nodes,
                wall_seconds: 0.0,
                cpu_seconds: 0.0,
                host: "test".into(),
                remaining: vec![],
                ..Default::default()
            }),
        };
        let exact = |unit: &pb::Unit| {
            let mut d = Dlx::new(&problem);
            d.apply_prefix(&unit.prefix).unwrap();
            d.count()
        };
        let (a, b) = (&units[0], &units[1]);
        let n_a = exact(a);
        // Reports travel in batches; each gets its own verdict, in order.
        let mut reporter = w.clone();
        let mut report = async |reports: Vec<pb::UnitReport>| -> Vec<pb::ReportVerdict> {
            reporter
                .exchange(pb::ExchangeRequest {
                    header: h(),
                    worker_id: me,
                    reports,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner()
                .verdicts
                .iter()
                .map(|v| v.verdict())
                .collect()
        };
        // The same result twice in one batch: counted once.
        let mut verdicts = report(vec![result(a, n_a), result(a, n_a)]).await;
        // The same unit reported again with another count: not added, an alarm.
        let mismatch = report(vec![result(a, n_a + 1)]).await[0];
        // A late report: the lease was handed back first.
        w.release(pb::ReleaseRequest {
            header: h(),
            worker_id: me,
            lease_tokens: vec![b.lease_token.clone()],
            failure: String::new(),
        })
        .await
        .unwrap();
        let n_b = exact(b);
        verdicts.extend(report(vec![result(b, n_b)]).await);
        (verdicts, mismatch)
    });
    assert_eq!(
        verdicts,
        vec![
            pb::ReportVerdict::Accepted,
            pb::ReportVerdict::Duplicate,
            pb::ReportVerdict::Stale
        ]
    );
    assert_eq!(mismatch_verdict, pb::ReportVerdict::Mismatch);
    // A real worker finishes the job: the total is exact, the alarm is on record.
    let _w = start_worker(&coord.url, &token, 1, "finisher");
    let done = wait_done(&coord.url, &token, job);
    // OEIS A000170: 6 queens have 4 solutions.
    assert_eq!(solutions(&done), 4);
    assert!(
        done["alarms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["kind"] == "mismatch"),
        "{done}"
    );
    drop(coord);
    assert_accepted_once(&db, job, 4);
    let audit = db_rows(&db, "SELECT verdict FROM report_audit ORDER BY id");
    let audit: Vec<&str> = audit.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(&audit[..4], ["accepted", "duplicate", "mismatch", "stale"]);
}

#[test]
fn a_wrong_token_is_unauthenticated() {
    let dir = tempfile::tempdir().unwrap();
    let token = write_token(dir.path(), "token", "the-right-token");
    let wrong = write_token(dir.path(), "wrong", "a-wrong-token");
    let coord = start_coordinator(&dir.path().join("t.db"), &token, 0, 30);
    let out = run_expect(
        dancehall()
            .args(["jobs", "--coordinator", &coord.url, "--token-file"])
            .arg(&wrong),
        2,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Unauthenticated"), "{err}");
    // A worker with the wrong token stops at once with the coordinator's answer.
    let out = run_expect(
        dancehall()
            .args(["worker", "--coordinator", &coord.url, "--token-file"])
            .arg(&wrong),
        2,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Unauthenticated") && err.contains("wrong bearer token"),
        "{err}"
    );
    // The right token works.
    run_expect(
        dancehall()
            .args(["jobs", "--coordinator", &coord.url, "--token-file"])
            .arg(&token),
        0,
    );
}

#[test]
fn a_malformed_spec_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write_spec(
        dir.path(),
        "bad.toml",
        "name = \"bad\"\n[problem]\nfamily = \"queens\"\nqueens = 8\n",
    );
    let db = dir.path().join("never.db");
    let out = run_expect(dancehall().arg("run").arg(&bad).arg("--db").arg(&db), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml:4:") && err.contains("unknown field `queens`"),
        "{err}"
    );
    assert!(!db.exists(), "a refused spec created the database");
    let unknown = write_spec(
        dir.path(),
        "unknown.toml",
        "name = \"u\"\n[problem]\nfamily = \"rooks\"\nn = 8\n",
    );
    let out = run_expect(dancehall().arg("run").arg(&unknown).arg("--db").arg(&db), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown.toml:3:") && err.contains("rooks"),
        "{err}"
    );
    assert!(!db.exists());

    // Submitted to a running coordinator: refused before anything is sent.
    let token = write_token(dir.path(), "token", "spec-token");
    let coord_db = dir.path().join("coord.db");
    let coord = start_coordinator(&coord_db, &token, 0, 30);
    run_expect(
        dancehall()
            .args(["submit", "--coordinator", &coord.url, "--token-file"])
            .arg(&token)
            .arg(&bad),
        2,
    );
    let out = run_expect(
        dancehall()
            .args([
                "jobs",
                "--json",
                "--coordinator",
                &coord.url,
                "--token-file",
            ])
            .arg(&token),
        0,
    );
    assert!(json_lines(&out).is_empty(), "a job was created");
}

// ----- the domino benchmark as work units ---------------------------------------

/// The CI-sized benchmark spec (six public-suite instances, every configuration, 5 s) through
/// `dancehall run`: one verified record per (instance, configuration), stored with the frozen
/// inputs' hashes and the host; a second run resumes and skips everything; the report writes
/// pictures and CSV.
#[test]
fn the_quick_domino_benchmark_runs_as_work_units() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let spec = specs().join("domino-quick.toml");
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .arg("--db")
            .arg(&db)
            .args(["--workers", "2"]),
        0,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("native proves every instance that any configuration proves"),
        "{text}"
    );
    let configs = worker::bench::configs_of(cores::bench::Family::Domino).count();
    let runs = db_rows(
        &db,
        "SELECT instance_id, config, status, record, host, cpu_model, dancehall_version
         FROM bench_current ORDER BY unit_id",
    );
    assert_eq!(runs.len(), 6 * configs, "{runs:?}");
    // Every solver but Chuffed (optional: not packaged, only detected) is installed by
    // scripts/install-solvers.sh: another configuration's `unavailable` run is a missing tool.
    let unavailable: std::collections::BTreeSet<&str> = runs
        .iter()
        .filter(|r| r[2] == "unavailable" && r[1] != "chuffed")
        .map(|r| r[1].as_str())
        .collect();
    for config in &unavailable {
        tools::present(false, config, "run scripts/install-solvers.sh");
    }
    let batches = specs().join("domino/suite-public");
    let suite: std::collections::BTreeMap<String, cores::domino::Instance> = (1..=10)
        .flat_map(|b| {
            let text = std::fs::read_to_string(batches.join(format!("batch{b:02}.txt"))).unwrap();
            cores::domino::parse_batch(&text).unwrap()
        })
        .map(|i| (i.id.clone(), i))
        .collect();
    for r in &runs {
        let (id, config, status) = (&r[0], &r[1], r[2].as_str());
        assert!(
            !["wrong", "error"].contains(&status),
            "{id} under {config}: {status}: {}",
            r[3]
        );
        if config == "native" {
            assert_eq!(status, "optimal", "{id}: {}", r[3]);
        }
        // Every stored placement passes the verifier here too, and its size is the objective.
        let rec: Value = serde_json::from_str(&r[3]).unwrap();
        if matches!(status, "optimal" | "feasible") {
            let answer = &rec["answer"];
            assert_eq!(answer["family"], "domino");
            let placement: Vec<cores::domino::Placement> =
                serde_json::from_value(answer["placement"].clone()).unwrap();
            cores::domino::verify(&suite[id], &placement).unwrap();
            assert_eq!(answer["objective"].as_u64(), Some(placement.len() as u64));
        }
        assert!(
            !r[4].is_empty() && !r[5].is_empty() && !r[6].is_empty(),
            "{r:?}"
        );
    }
    // The batch files are frozen with their hashes; so are the model files.
    let files = db_rows(
        &db,
        "SELECT kind, name, sha256 FROM bench_files ORDER BY kind, name",
    );
    for f in files.iter().filter(|f| f[0] == "batch") {
        let text = std::fs::read_to_string(batches.join(&f[1])).unwrap();
        assert_eq!(f[2], cores::bench::sha256_hex(&text), "{}", f[1]);
    }
    assert_eq!(files.iter().filter(|f| f[0] == "batch").count(), 10);
    assert_eq!(
        files.iter().filter(|f| f[0] == "model").count(),
        worker::bench::models::MODELS.len()
    );
    assert!(db_rows(&db, "SELECT * FROM alarms").is_empty());

    // Running it again resumes the job: nothing runs twice.
    let again = run_expect(dancehall().arg("run").arg(&spec).arg("--db").arg(&db), 0);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains(&format!(
            "{} recorded runs skipped, 0 queued again",
            6 * configs
        )),
        "{err}"
    );
    assert_eq!(
        db_rows(&db, "SELECT unit_id FROM bench_runs").len(),
        6 * configs
    );

    // The report: every current run as CSV, the HTML page with a board per instance; gecode
    // and clingo really ran (not `unavailable`) and proved the easy instances.
    let csv = run_expect(
        dancehall()
            .args(["report", "--latest", "--format", "csv", "--db"])
            .arg(&db),
        0,
    );
    let csv = String::from_utf8_lossy(&csv.stdout);
    assert!(csv.starts_with("# CHECKED"), "{csv}");
    assert_eq!(
        csv.lines().filter(|l| !l.starts_with('#')).count(),
        1 + 6 * configs
    );
    for config in ["gecode-placement", "clingo"] {
        if unavailable.contains(config) {
            continue; // a recorded skip, above
        }
        for id in ["b01-e1", "b02-e2"] {
            let line = csv
                .lines()
                .find(|l| l.contains(&format!(",{id},")) && l.contains(&format!(",{config},")))
                .unwrap();
            assert!(line.contains(",optimal,"), "{line}");
        }
    }
    let page = html_report(&db, dir.path());
    assert_eq!(page.matches("class=\"board\"").count(), 6);
}

/// The latest job of `db` as `dancehall report`'s HTML page (written into `dir`).
fn html_report(db: &std::path::Path, dir: &std::path::Path) -> String {
    let html = dir.join("report.html");
    run_expect(
        dancehall()
            .args(["report", "--latest", "--format", "html", "--out"])
            .arg(&html)
            .arg("--db")
            .arg(db),
        0,
    );
    std::fs::read_to_string(&html).unwrap()
}

// ----- Sudoku puzzle files as benchmark work units ------------------------------

/// The CI-sized Sudoku benchmark (40 puzzles of three shared collections, every Sudoku
/// configuration, ten puzzles a unit) through `dancehall run`: every puzzle answered by every
/// configuration, every grid verified again here, per-puzzle rows (status, seconds,
/// difficulty) and per-unit puzzles/s in the database, no contradiction between solvers, the
/// report's table per configuration and file; a second run resumes and skips everything.
#[test]
fn the_quick_sudoku_benchmark_runs_slices_of_puzzle_files_as_work_units() {
    for c in worker::bench::configs_of(cores::bench::Family::Sudoku) {
        let a = c.availability();
        let tool = format!("{} ({})", c.name, a.reason.unwrap_or_default());
        if !tools::present(a.available, &tool, "run scripts/install-solvers.sh") {
            return;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sudoku.db");
    let spec = specs().join("sudoku-quick.toml");
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .arg("--db")
            .arg(&db)
            .args(["--workers", "2"]),
        0,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let configs: Vec<&str> = worker::bench::configs_of(cores::bench::Family::Sudoku)
        .map(|c| c.name)
        .collect();
    assert_eq!(configs.len(), 14);
    for c in &configs {
        assert!(
            text.contains(&format!("\n{c} ")),
            "{c} missing from the report:\n{text}"
        );
    }
    // Units: 20 + 10 + 10 puzzles, ten a unit, per configuration; every one solved.
    let units = db_rows(
        &db,
        "SELECT config, status, puzzles, puzzles_answered, puzzles_per_second, record
         FROM bench_current ORDER BY unit_id",
    );
    assert_eq!(units.len(), 4 * configs.len(), "{units:?}");
    for u in &units {
        assert_eq!(u[1], "solved", "{} {}", u[0], u[5]);
        assert_eq!((u[2].as_str(), u[3].as_str()), ("10", "10"), "{u:?}");
        assert!(u[4].parse::<f64>().unwrap() > 0.0, "{u:?}");
    }
    // Per puzzle: unique for the 17-clue and hardest files, multiple for serg's (the
    // collections' README); the difficulty is measured once per puzzle, by the first
    // configuration's units.
    let puzzles = db_rows(
        &db,
        "SELECT file, line, config, status, seconds, ps12_searches, tree_nodes
         FROM v_bench_puzzles WHERE current ORDER BY file, line, config",
    );
    assert_eq!(puzzles.len(), 40 * configs.len());
    for p in &puzzles {
        let expected = if p[0].starts_with("serg") {
            "multiple"
        } else {
            "unique"
        };
        assert_eq!(p[3], expected, "{p:?}");
        assert!(p[4].parse::<f64>().unwrap() > 0.0, "{p:?}");
        if p[2] == configs[0] {
            // PS-1-2 may need no search at all (propagation alone), but it was measured.
            p[5].parse::<u64>().unwrap_or_else(|e| panic!("{p:?}: {e}"));
            assert!(p[6].parse::<f64>().unwrap() >= 1.0, "{p:?}");
        } else {
            assert_eq!((p[5].as_str(), p[6].as_str()), ("", ""), "{p:?}");
        }
    }
    // The report's table has every configuration's mean difficulty all the same.
    let means: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" royle_17clue_first20.txt "))
        .map(|l| l.split_whitespace().rev().nth(1).unwrap())
        .collect();
    assert_eq!(means.len(), configs.len(), "{text}");
    assert!(
        means.iter().all(|m| *m == means[0] && *m != "-"),
        "{means:?}"
    );
    for u in &units {
        let rec: Value = serde_json::from_str(&u[5]).unwrap();
        let slice_id = rec["instance"].as_str().unwrap();
        let file = slice_id.split(':').next().unwrap();
        let source = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../cores/test_data/sudoku")
                .join(file),
        )
        .unwrap();
        let lines: Vec<&str> = source.lines().collect();
        for p in rec["answer"]["puzzles"].as_array().unwrap() {
            let line = p["line"].as_u64().unwrap() as usize;
            for grid in [&p["solution"], &p["other"]] {
                if let Some(g) = grid.as_str() {
                    cores::problems::sudoku::verify::check_grid(
                        g,
                        3,
                        3,
                        &[],
                        &[],
                        Some(lines[line - 1]),
                    )
                    .unwrap_or_else(|e| panic!("{file}:{line} under {}: {e}", u[0]));
                }
            }
        }
    }
    // The puzzle files are frozen with their hashes.
    let files = db_rows(&db, "SELECT kind, name FROM bench_files ORDER BY name");
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(db_rows(&db, "SELECT * FROM alarms").is_empty());
    // Resumed: nothing runs twice.
    let again = run_expect(dancehall().arg("run").arg(&spec).arg("--db").arg(&db), 0);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains(&format!("{} recorded runs skipped", 4 * configs.len())),
        "{err}"
    );
    let csv = run_expect(
        dancehall()
            .args(["report", "--latest", "--format", "csv", "--db"])
            .arg(&db),
        0,
    );
    let csv = String::from_utf8_lossy(&csv.stdout);
    assert!(csv.starts_with("# CHECKED"), "{csv}");
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("1,sudoku,")).count(),
        4 * configs.len(),
        "{csv}"
    );
    // The HTML page: the table and the two Sudoku charts, each an inline SVG.
    let page = html_report(&db, dir.path());
    assert!(page.contains("Configuration x puzzle file"), "no table");
    for chart in ["puzzle-cactus", "puzzle-rates"] {
        let at = page
            .find(&format!("data-chart=\"{chart}\""))
            .unwrap_or_else(|| panic!("no {chart} chart"));
        let figure = &page[at..page[at..].find("</figure>").unwrap() + at];
        assert!(
            figure.contains("<svg") && !figure.contains("chart not drawn"),
            "{figure}"
        );
    }
}

/// `submit` of a benchmark spec to a coordinator process, a worker, then `retry`: the chosen
/// runs become new units, run again, and the old records stay in the database.
#[test]
fn retry_queues_chosen_runs_of_a_benchmark_job_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let token = write_token(dir.path(), "token", "retry-token");
    let coord = start_coordinator(&db, &token, 0, 10);
    let suite = specs().join("domino/suite-public");
    let spec = write_spec(
        dir.path(),
        "b.toml",
        &format!(
            "name = \"native-only\"\n[benchmark]\nsuite = \"{}\"\nconfigs = [\"native\"]\n\
             time_limit_seconds = 20\ninstances = [\"b01-e1\", \"b01-m1\", \"b02-h1\"]\n",
            suite.display()
        ),
    );
    let job = submit(&coord.url, &token, &spec);
    let _w = start_worker(&coord.url, &token, 2, "w1");
    wait_done(&coord.url, &token, job);
    let retry = |args: &[&str], code: i32| {
        run_expect(
            dancehall()
                .args([
                    "retry",
                    &job.to_string(),
                    "--coordinator",
                    &coord.url,
                    "--token-file",
                ])
                .arg(&token)
                .args(args),
            code,
        )
    };
    let out = retry(&["--status", "optimal"], 0);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("3 runs queued again"),
        "{out:?}"
    );
    wait_done(&coord.url, &token, job);
    let rows = db_rows(
        &db,
        &format!("SELECT status FROM bench_runs WHERE job_id = {job}"),
    );
    assert_eq!(rows.len(), 6);
    let current = db_rows(
        &db,
        &format!("SELECT status FROM bench_current WHERE job_id = {job}"),
    );
    assert_eq!(current, vec![vec!["optimal".to_string()]; 3]);
    // Nothing matches: nothing is queued; a bad status is a user error.
    let out = retry(&["--status", "wrong"], 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 runs queued again"));
    retry(&["--status", "proved"], 2);
}

/// With `audit_share = 1`, `run` waits until every unit was re-run on another worker and
/// compared: all audits done, no alarm, and audits never added to the count.
#[test]
fn run_waits_for_the_audits_of_its_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("audit.db");
    let spec = write_spec(
        dir.path(),
        "audited.toml",
        "name = \"queens-8-audited\"\n[problem]\nfamily = \"queens\"\nn = 8\n\
         [partition]\nunit_node_budget = 40\naudit_share = 1.0\n",
    );
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .arg("--db")
            .arg(&db)
            .args(["--workers", "2", "--json"]),
        0,
    );
    // OEIS A000170: 8 queens have 92 solutions.
    assert_eq!(solutions(&json_lines(&out)[0]), 92);
    let audits = db_rows(
        &db,
        "SELECT u.state, r.unit_id IS NOT NULL FROM units u
         LEFT JOIN unit_results r ON r.unit_id = u.id WHERE u.audit_of IS NOT NULL",
    );
    assert!(!audits.is_empty());
    assert!(
        audits.iter().all(|a| a[0] == "done" && a[1] == "1"),
        "{audits:?}"
    );
    assert!(db_rows(&db, "SELECT * FROM alarms").is_empty());
    let counted = db_rows(
        &db,
        "SELECT r.solutions FROM unit_results r JOIN units u ON u.id = r.unit_id
         WHERE u.audit_of IS NULL",
    );
    let sum: u128 = counted.iter().map(|r| r[0].parse::<u128>().unwrap()).sum();
    assert_eq!(sum, 92, "audits are compared, never added");
}

#[test]
fn a_variant_spec_counts_every_6x6_diagonal_grid_by_weighted_band_classes() {
    // 8,640 grids with 2x3 boxes and both main diagonals (counted three ways in
    // cores/src/grids/tests.rs), the spec's expected_total: row 1 fixed (x 6!), one unit
    // per class of first bands, each counted by the variant core.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db");
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(specs().join("sudoku-6x6-diagonal-grids.toml"))
            .args(["--workers", "2", "--json", "--db"])
            .arg(&db),
        0,
    );
    let v = &json_lines(&out)[0];
    assert_eq!(v["total_solutions"], "8640", "{v}");
    assert_eq!(v["expected_total"], "8640");
    let rows = db_rows(
        &db,
        "SELECT r.core, u.weight, r.solutions FROM units u JOIN unit_results r \
         ON r.unit_id = u.id",
    );
    assert!(rows.len() > 1, "{rows:?}");
    assert!(rows.iter().all(|r| r[0] == "sudoku-groups"), "{rows:?}");
    let sum: u128 = rows
        .iter()
        .map(|r| r[1].parse::<u128>().unwrap() * r[2].parse::<u128>().unwrap())
        .sum();
    assert_eq!(sum * 720, 8640, "weights x counts x 6!");
}

#[test]
fn a_spec_of_weighted_sudoku_units_counts_every_6x6_grid_and_writes_its_ledger() {
    // 28,200,960 grids with 2x3 boxes (Pettersen; Russell), the spec's expected_total.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db");
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(specs().join("sudoku-6x6-grids.toml"))
            .args(["--workers", "2", "--json", "--db"])
            .arg(&db),
        0,
    );
    let v = &json_lines(&out)[0];
    assert_eq!(v["total_solutions"], "28200960", "{v}");
    assert_eq!(v["weighted"], true);
    assert_eq!(v["expected_total"], "28200960");
    // Every unit was counted by the completion core, with its weight beside its count.
    let rows = db_rows(
        &db,
        "SELECT r.core, u.weight, r.solutions FROM units u JOIN unit_results r \
         ON r.unit_id = u.id",
    );
    assert_eq!(rows.len(), 9, "3 band classes x 3 column splits");
    assert!(rows.iter().all(|r| r[0] == "sudoku-bands"), "{rows:?}");
    // The ledger alone gives the total.
    let ledger = dir.path().join("ledger.csv");
    run_expect(
        dancehall()
            .args(["ledger", "--db"])
            .arg(&db)
            .arg("--out")
            .arg(&ledger),
        0,
    );
    let text = std::fs::read_to_string(&ledger).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (w, c, f) = (col("weight"), col("count"), col("factor"));
    let total: u128 = lines
        .map(|l| {
            let v: Vec<&str> = l.split(',').collect();
            v[w].parse::<u128>().unwrap()
                * v[c].parse::<u128>().unwrap()
                * v[f].parse::<u128>().unwrap()
        })
        .sum();
    assert_eq!(total, 28_200_960);
    // And the ledger is a [units] file: a spec made of it counts the same.
    let spec = write_spec(
        dir.path(),
        "again.toml",
        "name = \"again\"\nsymmetry_factor = 34560\nexpected_total = 28200960\n\
         [problem]\nfamily = \"sudoku\"\nbox_rows = 2\nbox_cols = 3\n\
         [units]\nfile = \"ledger.csv\"\ncore = \"sudoku-bands\"\n",
    );
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .args(["--workers", "1", "--json", "--db"])
            .arg(dir.path().join("again.db")),
        0,
    );
    assert_eq!(json_lines(&out)[0]["total_solutions"], "28200960");
}

/// `dancehall ledger --db DB --out DIR/NAME`; the file's path.
fn export_ledger(db: &Path, dir: &Path, name: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    run_expect(
        dancehall()
            .args(["ledger", "--db"])
            .arg(db)
            .arg("--out")
            .arg(&path),
        0,
    );
    path
}

#[test]
fn a_resplit_dlx_job_recounts_from_its_ledger_alone() {
    // Q(13) = 73,712 (OEIS A000170). Units stop after 100,000 nodes and hand the rest back,
    // so the ledger holds split units (counting part of their subtree) and their children;
    // the Dancing Links engine (`--core dlx`), since the queens core counts units whole. The
    // partition's budget is given (400,000 nodes, so the root's 13 options stay whole): left
    // to the sizing, it follows the engine's measured rate, and on a loaded machine it cut
    // the job so fine that no unit reached the limit.
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.db");
    let out = run_expect(
        dancehall()
            .args([
                "run",
                "queens",
                "13",
                "--core",
                "dlx",
                "--workers",
                "2",
                "--json",
            ])
            .args([
                "--unit-node-limit",
                "100000",
                "--unit-node-budget",
                "400000",
            ])
            .arg("--db")
            .arg(&first),
        0,
    );
    assert_eq!(solutions(&json_lines(&out)[0]), 73_712);
    // As if an older coordinator served this database (its last migration not applied):
    // `ledger` reads it read-only and never migrates it.
    let latest = "SELECT MAX(version) FROM _sqlx_migrations";
    let applied = db_rows(&first, latest)[0][0].clone();
    db_exec(
        &first,
        &format!("DELETE FROM _sqlx_migrations WHERE version = {applied}"),
    );
    let older = db_rows(&first, latest)[0][0].clone();
    let ledger = export_ledger(&first, dir.path(), "first.csv");
    assert_eq!(
        db_rows(&first, latest)[0][0],
        older,
        "ledger migrated the database"
    );
    let split_rows = |path: &Path| {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| l.split(',').nth(1) == Some("split"))
            .count()
    };
    assert!(split_rows(&ledger) > 0, "the job was re-split");
    // Recounted from the ledger alone (with re-splits again), twice: the same total.
    let mut ledger = ledger;
    for round in ["second", "third"] {
        let spec = write_spec(
            dir.path(),
            &format!("{round}.toml"),
            &format!(
                "name = \"{round}\"\nexpected_total = 73712\n\
                 [problem]\nfamily = \"queens\"\nn = 13\n\
                 [partition]\nunit_node_limit = 100000\nunit_node_budget = 400000\n\
                 [units]\nfile = \"{}\"\n",
                ledger.file_name().unwrap().to_str().unwrap()
            ),
        );
        let db = dir.path().join(format!("{round}.db"));
        let out = run_expect(
            dancehall()
                .arg("run")
                .arg(&spec)
                .args(["--workers", "2", "--json", "--db"])
                .arg(&db),
            0,
        );
        let v = &json_lines(&out)[0];
        assert_eq!(solutions(v), 73_712, "{round}: {v}");
        ledger = export_ledger(&db, dir.path(), &format!("{round}.csv"));
        assert!(split_rows(&ledger) > 0, "{round}: re-split again");
    }
    // A spec that states another factor than the ledger's is refused, naming the line.
    let spec = write_spec(
        dir.path(),
        "factor.toml",
        "name = \"f\"\nsymmetry_factor = 2\n[problem]\nfamily = \"queens\"\nn = 13\n\
         [units]\nfile = \"first.csv\"\n",
    );
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .args(["--workers", "1", "--db"])
            .arg(dir.path().join("f.db")),
        2,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("factor.toml:2: symmetry_factor = 2 contradicts the factor 1 of [units]"),
        "{err}"
    );
}

/// End to end over gRPC on loopback (`run`: a real coordinator and a real worker): a job of
/// four weighted units of the 4x4 Sudoku whose weights and symmetry factor are each past
/// 2^64, so that its total, factor x sum(weight x count), is past 2^128 (about 2^138). The
/// worker counts the units for real. Their counts are known without the program: of the 288
/// grids of the 4x4 Sudoku (OEIS A107739), relabelling the digits gives 288 / 4 = 72 with a
/// given first cell and 288 / 4! = 12 with a given first row. The expected total is computed
/// here with num-bigint and must be what `run` printed (text and JSON), what the database
/// holds, what `dancehall ledger` writes and re-adds, and what a second run from that ledger
/// counts; an `expected_total` one too large fails the run, said first. (Before counts were
/// `Count`, such a total was an "overflow".)
#[test]
fn a_total_past_2_128_is_exact_from_the_worker_to_the_ledger() {
    use num_bigint::BigUint;
    let big = |s: &str| s.parse::<BigUint>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // (givens, count, weight): disjoint units (row 1 = 1234, or cell (1,1) = 2, 3 or 4).
    let units = [
        ("1234............", 12u32, "18446744073709551617"),
        ("2...............", 72, "36893488147419103231"),
        ("3...............", 72, "100000000000000000000"),
        ("4...............", 72, "99999999999999999989"),
    ];
    let factor = "18446744073709551629";
    let two_64 = BigUint::from(u64::MAX) + 1u32;
    assert!(units.iter().all(|(_, _, w)| big(w) > two_64) && big(factor) > two_64);
    let weighted: BigUint = units.iter().map(|(_, c, w)| big(w) * *c).sum();
    let want = &weighted * big(factor);
    assert!(want.bits() > 128, "the total needs {} bits", want.bits());
    let mut csv = String::from("givens,weight\n");
    for (g, _, w) in &units {
        csv.push_str(&format!("{g},{w}\n"));
    }
    std::fs::write(dir.path().join("units.csv"), csv).unwrap();
    let spec = |name: &str, expected: &BigUint, units: &str, factor_line: &str| {
        write_spec(
            dir.path(),
            &format!("{name}.toml"),
            &format!(
                "name = \"{name}\"\n{factor_line}expected_total = \"{expected}\"\n\
                 [problem]\nfamily = \"sudoku\"\nbox_rows = 2\nbox_cols = 2\n\
                 [units]\nfile = \"{units}\"\n"
            ),
        )
    };
    let factor_line = format!("symmetry_factor = \"{factor}\"\n");
    let good = spec("big", &want, "units.csv", &factor_line);

    // `run --json`: the total, the weighted sum and the expected total, exact.
    let db = dir.path().join("big.db");
    let out = run_spec(&good, &db, &["--json"], 0);
    let v = &json_lines(&out)[0];
    assert_eq!(v["total_solutions"], want.to_string(), "{v}");
    assert_eq!(v["solutions"], weighted.to_string(), "{v}");
    assert_eq!(v["symmetry_factor"], factor, "{v}");
    assert_eq!(v["expected_total"], want.to_string(), "{v}");
    assert_eq!(v["counted_unweighted"], (12 + 3 * 72).to_string(), "{v}");

    // The database: each unit's weight and count as decimal TEXT, re-added here.
    let rows = db_rows(
        &db,
        "SELECT u.weight, r.solutions FROM units u JOIN unit_results r ON r.unit_id = u.id
         WHERE u.audit_of IS NULL",
    );
    let summed: BigUint = rows.iter().map(|r| big(&r[0]) * big(&r[1])).sum();
    assert_eq!(summed, weighted);
    assert!(rows.iter().any(|r| big(&r[0]) > two_64));
    assert_eq!(
        db_rows(&db, "SELECT symmetry_factor FROM jobs"),
        vec![vec![factor.to_string()]]
    );

    // `dancehall ledger`: its re-added total, and its rows re-added here.
    let ledger = dir.path().join("ledger.csv");
    let out = run_expect(
        dancehall()
            .args(["ledger", "--db"])
            .arg(&db)
            .arg("--out")
            .arg(&ledger),
        0,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("factor {factor} x sum(weight x count) = {want}")),
        "{err}"
    );
    let text = std::fs::read_to_string(&ledger).unwrap();
    let head: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (w, n, f) = (col("weight"), col("count"), col("factor"));
    let mut readded = BigUint::default();
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[f], factor, "{line}");
        readded += big(cells[w]) * big(cells[n]);
    }
    assert_eq!(readded * big(factor), want);

    // The ledger read back as a job's units (its factor column taken as the job's): the
    // worker counts them again to the same total.
    let again = spec("again", &want, "ledger.csv", "");
    let out = run_spec(&again, &dir.path().join("again.db"), &[], 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("x {factor} = {want} in all")),
        "{stdout}"
    );

    // An expected total one too large fails the run, said first.
    let wrong = &want + 1u32;
    let bad = spec("bad", &wrong, "units.csv", &factor_line);
    let out = run_spec(&bad, &dir.path().join("bad.db"), &[], 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(&format!(
            "WRONG TOTAL job 1 (bad): total {want} differs from the spec's expected_total {wrong}"
        )),
        "{err}"
    );
}

#[test]
fn a_total_that_differs_from_the_expected_one_fails_the_run() {
    // 4x4 grids: 288 (seed 000, Table 1); the spec claims 289.
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(
        dir.path(),
        "wrong.toml",
        "name = \"wrong\"\nexpected_total = 289\n[problem]\nfamily = \"sudoku\"\n\
         box_rows = 2\nbox_cols = 2\n",
    );
    let out = run_expect(
        dancehall()
            .arg("run")
            .arg(&spec)
            .args(["--workers", "1", "--db"])
            .arg(dir.path().join("d.db")),
        1,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "WRONG TOTAL job 1 (wrong): total 288 differs from the spec's expected_total 289"
        ),
        "{err}"
    );
}

#[test]
fn a_remote_coordinator_without_tls_warns_that_the_token_travels_in_clear() {
    let dir = tempfile::tempdir().unwrap();
    let token = write_token(dir.path(), "token", "t0k3n");
    let mut child = dancehall()
        .args([
            "coordinator",
            "--listen",
            "0.0.0.0:0",
            "--allow-remote",
            "--db",
        ])
        .arg(dir.path().join("d.db"))
        .arg("--token-file")
        .arg(&token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let _proc = Proc(child);
    let mut seen = Vec::new();
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        let listening = line.contains("listening on");
        seen.push(line);
        if listening {
            break;
        }
    }
    assert!(
        seen.iter().any(
            |l| l.starts_with("warning: listening on 0.0.0.0:0 without TLS")
                && l.contains("clear text")
        ),
        "{seen:?}"
    );
}

/// Regression: a unit whose run failed on every worker was released and leased again at once,
/// forever, and `dancehall run` never ended. No production code fails a counting unit on
/// purpose (the coordinator refuses every prefix a core cannot count at submission), so this
/// test's own worker, speaking the real protocol, fails one unit three times on a standalone
/// coordinator; `run` then resumes the job on the same database with its own workers, which
/// count the other units, and ends non-zero with the held unit said first.
#[test]
fn run_ends_with_the_problem_when_a_unit_is_held_after_failing() {
    use proto::client;
    use proto::v1 as pb;

    let dir = tempfile::tempdir().unwrap();
    let token = write_token(dir.path(), "token", "held-token");
    let db = dir.path().join("held.db");
    let coord = start_coordinator(&db, &token, 0, 30);
    let spec = queens_spec(dir.path(), 6, 1_000_000);
    let job = submit(&coord.url, &token, &spec);
    let why = "bad prefix: this test's worker cannot count it";
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let held = rt.block_on(async {
        let (mut w, me) = protocol_worker(&coord.url, "held-token").await;
        let mut held = None;
        for _ in 0..3 {
            let unit = w
                .exchange(pb::ExchangeRequest {
                    header: client::header(),
                    worker_id: me,
                    lease_max_units: 1,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner()
                .units
                .remove(0);
            assert_eq!(*held.get_or_insert(unit.unit_id), unit.unit_id);
            let released = w
                .release(pb::ReleaseRequest {
                    header: client::header(),
                    worker_id: me,
                    lease_tokens: vec![unit.lease_token],
                    failure: why.into(),
                })
                .await
                .unwrap()
                .into_inner()
                .released;
            assert_eq!(released, 1);
        }
        held.unwrap()
    });
    let st = status(&coord.url, &token, job).unwrap();
    assert_eq!(
        (st["units_held"].as_u64(), st["state"].as_str()),
        (Some(1), Some("running"))
    );
    drop(coord);

    // Bounded: before the fix this waited forever.
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut run = Proc(
        dancehall()
            .arg("run")
            .arg(&spec)
            .args(["--workers", "1", "--db"])
            .arg(&db)
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap(),
    );
    let status = wait_until("run to end", || run.exited());
    let (out, err) = (
        std::fs::read_to_string(out).unwrap(),
        std::fs::read_to_string(err).unwrap(),
    );
    assert_eq!(status.code(), Some(1), "stdout: {out}\nstderr: {err}");
    let alarm = format!("unit {held} failed 3 times ({why}); held, the count is incomplete");
    let lines: Vec<&str> = err.lines().collect();
    let said = |prefix: &str| lines.iter().position(|l| l.starts_with(prefix));
    let held_at = said(&format!("HELD job {job} (queens-6): {alarm}")).expect(&err);
    let problem_at = said(&format!(
        "PROBLEM job {job} (queens-6): alarm failed on unit {held}: {alarm}"
    ))
    .expect(&err);
    assert!(held_at < problem_at, "{err}");
    assert!(
        err.contains(&format!("PROBLEM job {job} (queens-6): running")),
        "{err}"
    );
    // The verdict first; never a partial count shown as the count.
    assert!(
        out.starts_with("PROBLEMS (2): the results may be wrong\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "solutions: incomplete (5 of 6 units counted, 1 held after failing or dying too often"
        ),
        "{out}"
    );
    // The job's other units were counted by run's workers; the held one never ran.
    let states = db_rows(
        &db,
        &format!("SELECT state, failures, COUNT(*) FROM units WHERE job_id = {job} GROUP BY state, failures ORDER BY state"),
    );
    assert_eq!(
        states,
        vec![
            vec!["done".to_string(), "0".into(), "5".into()],
            vec!["queued".to_string(), "3".into(), "1".into()],
        ]
    );
}
