//! `dancehall report` and `dancehall query` on a fixture database the tests build with plain
//! SQL (the schema's migrations, then rows written as a coordinator writes them): golden
//! table, CSV and JSON output, a contradiction that fails the report, `query` refusing a
//! write, and the HTML report rendered by headless Chromium; and the gap table and seed 001's
//! figure 9 on a job built through the coordinator's scheduler and store, where some
//! instances are closed by no configuration.
//!
//! Golden files live in `tests/data/report/`; `UPDATE_GOLDEN=1 cargo test -p cli --test
//! report` rewrites them.

use cores::label::Label;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cores::bench::{HostInfo, Measure, RunRecord, Status, Termination};
use cores::domino::{self, SolveLimits};

mod common;

/// A runtime for the store's calls that build and edit fixtures.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn dancehall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dancehall"))
        .args(args)
        .output()
        .expect("the dancehall binary runs")
}

/// Two easy instances of the public suite's batch01.
const BATCH: &str = r#"{"id": "b01-e1", "difficulty": "easy", "n": 5, "k": 4, "tiles": [[1, 1, 4], [1, 2, 0], [4, 3, 0], [2, 2, 1]]}
{"id": "b01-e3", "difficulty": "easy", "n": 5, "k": 4, "tiles": [[0, 3, 4], [2, 0, 2], [2, 3, 4]]}
"#;

fn host(name: &str) -> HostInfo {
    HostInfo {
        hostname: name.into(),
        cpu_model: "Test CPU".into(),
        cores: 2,
        memory_bytes: 1 << 30,
        kernel: "6.1".into(),
        dancehall_version: "0.1.0".into(),
    }
}

/// A record as a worker would send it: a verified optimum from the native solver, or a
/// claimed status without placement.
fn record(instance: &str, config: &str, status: Status, seconds: f64) -> RunRecord {
    let inst = domino::parse_batch(BATCH)
        .unwrap()
        .into_iter()
        .find(|i| i.id == instance)
        .unwrap();
    let mut r = RunRecord {
        status,
        termination: Termination::Normal,
        wall_seconds: seconds,
        cpu_seconds: Some(seconds),
        cpu_measure: Measure::Thread,
        solver: config.into(),
        solver_version: format!("{config} 1.0"),
        ..RunRecord::blank(instance, config, 5.0, host("box"))
    };
    if status.is_solved() {
        let out = domino::solve(&inst, &SolveLimits::default());
        r.set_objective(Some(out.objective));
        r.set_bound(Some(out.bound));
        // Native says how it proved its bound; another solver's proof is its own.
        r.set_bound_by(Some(if config == "native" {
            out.bound_by
        } else {
            domino::BoundBy::Solver
        }));
        r.set_placement(out.placement);
    } else {
        r.termination = Termination::Walltime;
    }
    r
}

/// The fixture: job 1 counts (4 units, factor 24, two workers), job 2 benchmarks two
/// instances under `native` and `clingo`; with `bad`, clingo claims a smaller optimum for
/// b01-e1 (a contradiction) and an alarm is raised.
fn fixture(dir: &Path, bad: bool) -> PathBuf {
    let db = dir.join("fixture.db");
    let rt = runtime();
    rt.block_on(async {
        let pool = coordinator::store::open(&db).await.unwrap();
        let exec = |sql: String| {
            let pool = pool.clone();
            async move {
                sqlx::query(&sql).execute(&pool).await.unwrap();
            }
        };
        exec(
            "INSERT INTO workers (id, name, host, threads, software_version, registered_at,
                                  last_seen)
             VALUES (1, 'local-0', 'box', 1, '0.1.0', 1000000, 1009000),
                                         (2, 'local-1', 'box', 1, '0.1.0', 1000000, 1009000)"
                .into(),
        )
        .await;
        exec(
            "INSERT INTO jobs (id, name, state, prefix, symmetry_factor, audit_share, seed, dlx,
                 dlx_sha256, spec, created_at, finished_at, kind, core)
             VALUES (1, 'sudoku-4x4-fixed', 'done', '', '24', 0, '0', '', '', '', 1000000,
                     1004000, 'count', 'dlx'),
                    (2, 'domino-fixture', 'done', '', '1', 0, '0', '', '', '', 2000000,
                     2010000, 'benchmark', 'dlx')"
                .into(),
        )
        .await;
        for (u, est, sols, nodes, secs, w) in [
            (1, 40.0, 3, 50, 0.5, 1),
            (2, 40.0, 3, 40, 1.0, 2),
            (3, 80.0, 3, 40, 1.5, 1),
            (4, 20.0, 3, 40, 1.0, 2),
        ] {
            exec(format!(
                "INSERT INTO units (id, job_id, prefix, state, est_nodes, created_at)
                 VALUES ({u}, 1, '{u}', 'done', {est}, 1000000)"
            ))
            .await;
            exec(format!(
                "INSERT INTO unit_results (unit_id, job_id, worker_id, solutions, nodes,
                     updates, estimate_nodes, wall_seconds, cpu_seconds, host, remaining,
                     accepted_at, core)
                 VALUES ({u}, 1, {w}, '{sols}', {nodes}, {}, {est}, {secs}, {secs}, 'box', '',
                         1004000, 'dlx')",
                nodes * 3
            ))
            .await;
        }
        exec(format!(
            "INSERT INTO bench_files VALUES (2, 'batch', 'batch01.txt', '{}', '{}')",
            cores::bench::sha256_hex(BATCH),
            BATCH.replace('\'', "''")
        ))
        .await;
        let clingo_e1 = if bad {
            let mut r = record("b01-e1", "clingo", Status::Optimal, 0.3);
            // A claim of optimality below native's verified placement of 4 tiles.
            let mut placement = r.placement().to_vec();
            placement.pop();
            r.set_placement(placement);
            r.set_objective(Some(3));
            r.set_bound(Some(3));
            r
        } else {
            record("b01-e1", "clingo", Status::Optimal, 0.3)
        };
        let runs = [
            record("b01-e1", "native", Status::Optimal, 0.002),
            clingo_e1,
            record("b01-e3", "native", Status::Optimal, 0.004),
            record("b01-e3", "clingo", Status::Timeout, 5.01),
        ];
        for (k, r) in runs.iter().enumerate() {
            let u = 10 + k;
            let line = BATCH.lines().find(|l| l.contains(&r.instance)).unwrap();
            let task = serde_json::json!({
                "instance_id": r.instance, "instance_json": line,
                "instance_sha256": cores::bench::sha256_hex(line), "batch": "batch01.txt",
                "config": r.config, "time_limit_seconds": 5.0, "memory_limit_bytes": null,
            });
            exec(format!(
                "INSERT INTO units (id, job_id, prefix, state, created_at, task)
                 VALUES ({u}, 2, '', 'done', 2000000, '{task}')"
            ))
            .await;
            exec(format!(
                "INSERT INTO unit_results (unit_id, job_id, worker_id, solutions, nodes, updates,
                     estimate_nodes, wall_seconds, cpu_seconds, host, remaining, accepted_at)
                 VALUES ({u}, 2, 1, '0', 0, 0, 0, {}, {}, 'box', '', {})",
                r.wall_seconds,
                r.wall_seconds,
                2001000 + 1000 * k
            ))
            .await;
            let opt = |v: Option<u32>| v.map_or("NULL".to_string(), |v| v.to_string());
            exec(format!(
                "INSERT INTO bench_runs (unit_id, job_id, family, instance_id, instance_sha256,
                     batch, difficulty, config, status, termination, objective, bound,
                     wall_seconds, cpu_seconds, peak_memory_bytes, time_limit_seconds, solver,
                     solver_version, host, cpu_model, cores, memory_bytes, kernel,
                     dancehall_version, record, accepted_at)
                 VALUES ({u}, 2, 'domino', '{}', '{}', 'batch01.txt', 'easy', '{}',
                     '{}', '{}', {}, {}, {}, {}, NULL, 5.0, '{}', '{}', 'box', 'Test CPU', 2,
                     1073741824, '6.1', '0.1.0', '{}', {})",
                r.instance,
                cores::bench::sha256_hex(line),
                r.config,
                r.status,
                r.termination,
                opt(r.objective()),
                opt(r.bound()),
                r.wall_seconds,
                r.wall_seconds,
                r.solver,
                r.solver_version,
                r.to_json().replace('\'', "''"),
                2001000 + 1000 * k
            ))
            .await;
        }
        if bad {
            exec(
                "INSERT INTO alarms VALUES (1, 2, 11, 'wrong-answer', 'a fixture alarm', 2002000)"
                    .into(),
            )
            .await;
        }
        pool.close().await;
    });
    db
}

fn golden(name: &str, got: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/report")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
    assert_eq!(
        got,
        want,
        "{} differs (UPDATE_GOLDEN=1 rewrites it)",
        path.display()
    );
}

/// `dancehall report JOBS --format html` of `db`, written to `out` and read back.
fn html_page(jobs: &[&str], db: &str, out: &Path) -> String {
    let mut args = vec!["report"];
    args.extend(jobs);
    args.extend([
        "--db",
        db,
        "--format",
        "html",
        "--out",
        out.to_str().unwrap(),
    ]);
    let o = dancehall(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(out).unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn table_csv_and_json_reports_match_their_golden_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = fixture(dir.path(), false);
    let db = db.to_str().unwrap();
    for (format, file) in [
        ("table", "table.txt"),
        ("csv", "report.csv"),
        ("json", "report.json"),
    ] {
        let o = dancehall(&["report", "1", "2", "--db", db, "--format", format]);
        assert!(
            o.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        golden(file, &stdout(&o));
    }
    // --latest is job 2, the benchmark.
    let o = dancehall(&["report", "--latest", "--db", db]);
    assert!(
        stdout(&o).contains("benchmark job 2 (domino-fixture)"),
        "{}",
        stdout(&o)
    );
    // Two benchmark jobs side by side: the same job has no regression.
    let o = dancehall(&["report", "compare", "2", "2", "--db", db]);
    assert!(o.status.success());
    assert!(stdout(&o).starts_with("NO REGRESSION"), "{}", stdout(&o));
}

#[test]
fn a_contradiction_or_an_alarm_fails_the_report_and_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = fixture(dir.path(), true);
    let o = dancehall(&["report", "2", "--db", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("PROBLEMS (2)"), "{out}");
    assert!(
        out.contains("contradiction b01-e1: clingo: proved the optimum is at most 3"),
        "{out}"
    );
    assert!(out.contains("alarm wrong-answer on unit 11"), "{out}");
}

#[test]
fn query_reads_the_views_and_refuses_a_write() {
    let dir = tempfile::tempdir().unwrap();
    let db = fixture(dir.path(), false);
    let db = db.to_str().unwrap();
    let o = dancehall(&[
        "query",
        "SELECT config, status, COUNT(*) AS runs FROM v_bench_runs WHERE current GROUP BY 1, 2 ORDER BY 1, 2",
        "--db",
        db,
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        stdout(&o),
        "config,status,runs\nclingo,optimal,1\nclingo,timeout,1\nnative,optimal,2\n"
    );
    let o = dancehall(&[
        "query",
        "SELECT job_id, kind, units, units_counted FROM v_jobs",
        "--db",
        db,
        "--format",
        "json",
    ]);
    assert_eq!(
        stdout(&o),
        "{\"job_id\":1,\"kind\":\"count\",\"units\":4,\"units_counted\":4}\n\
         {\"job_id\":2,\"kind\":\"benchmark\",\"units\":4,\"units_counted\":4}\n"
    );
    // Nothing sums counts in SQL (a REAL sum was approximate past 2^53): the column that
    // did is gone, exact totals are `report`'s and `ledger`'s.
    let o = dancehall(&["query", "SELECT counted_unweighted FROM v_jobs", "--db", db]);
    assert!(!o.status.success(), "{}", stdout(&o));
    let before = std::fs::read(db).unwrap();
    for sql in [
        "DELETE FROM jobs",
        "UPDATE bench_runs SET status = 'optimal'",
        "CREATE TABLE x (a)",
    ] {
        let o = dancehall(&["query", sql, "--db", db]);
        assert_eq!(o.status.code(), Some(2), "{sql}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("read-only"), "{sql}: {err}");
    }
    assert_eq!(std::fs::read(db).unwrap(), before, "the database changed");
    // A read-only connection can still write other files: refused before anything runs.
    let copy = dir.path().join("copy.db");
    let attached = dir.path().join("attached.db");
    for (sql, word) in [
        (format!("VACUUM INTO '{}'", copy.display()), "VACUUM"),
        (
            format!("/* x */ vacuum main into '{}'", copy.display()),
            "VACUUM",
        ),
        (
            format!("ATTACH DATABASE '{}' AS a", attached.display()),
            "ATTACH",
        ),
    ] {
        let o = dancehall(&["query", &sql, "--db", db]);
        assert_eq!(o.status.code(), Some(2), "{sql}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!(
                "`{word}` writes a file even on a read-only database"
            )),
            "{sql}: {err}"
        );
    }
    assert!(!copy.exists() && !attached.exists(), "a file was written");
    // The words inside a string or a quoted name are not keywords.
    let o = dancehall(&[
        "query",
        "SELECT 'vacuum into x' AS \"attach\" -- vacuum\n",
        "--db",
        db,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = dancehall(&["query", "SELECT COUNT(*) AS n FROM jobs", "--db", db]);
    assert_eq!(stdout(&o), "n\n2\n");
}

/// A database an older dancehall wrote (every migration but the newest): still read, a
/// failing query says first that the schema is older and how to migrate it, `migrate`
/// brings it up to date (once; a second call changes nothing), and a missing database is
/// refused without creating one.
#[test]
fn an_older_database_is_named_as_such_and_migrate_brings_it_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.db");
    let rt = runtime();
    rt.block_on(async {
        let all: Vec<_> = coordinator::store::MIGRATOR.iter().cloned().collect();
        let older = sqlx::migrate::Migrator {
            migrations: std::borrow::Cow::Owned(all[..all.len() - 1].to_vec()),
            ..sqlx::migrate::Migrator::DEFAULT
        };
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&old)
            .create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        older.run(&pool).await.unwrap();
        pool.close().await;
    });
    let newest = coordinator::store::MIGRATOR.iter().last().unwrap().version;
    let db = old.to_str().unwrap();
    let o = dancehall(&["query", "SELECT COUNT(*) AS n FROM jobs", "--db", db]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bad = "SELECT no_such_column FROM jobs";
    let o = dancehall(&["query", bad, "--db", db]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.starts_with(&format!(
            "dancehall: {db}: its schema is older than this dancehall's: 1 migration behind"
        )) && first.contains(&newest.to_string())
            && first.contains(&format!("`dancehall migrate --db {db}`"))
            && first.contains("no such column: no_such_column"),
        "{err}"
    );
    let o = dancehall(&["migrate", "--db", db]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout(&o).contains(&format!("{db}: 1 migration applied, up to {newest}")),
        "{}",
        stdout(&o)
    );
    // Up to date: the same bad query fails on its own, without a word about the schema.
    let o = dancehall(&["query", bad, "--db", db]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("schema"), "{err}");
    let o = dancehall(&["migrate", "--db", db]);
    assert_eq!(stdout(&o), format!("{db}: already up to date\n"));
    let missing = dir.path().join("missing.db");
    let o = dancehall(&["migrate", "--db", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such database"));
    assert!(!missing.exists(), "migrate created a database");
    // Another program's SQLite file: refused, named, and left without a dancehall table.
    let theirs = dir.path().join("theirs.sqlite");
    rt.block_on(async {
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&theirs)
            .create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        sqlx::query("CREATE TABLE notes (id INTEGER PRIMARY KEY)")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    });
    let theirs = theirs.to_str().unwrap();
    let o = dancehall(&["migrate", "--db", theirs]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with(&format!(
            "dancehall: {theirs} is not a dancehall database: it has tables (notes)"
        )) && err.contains("not migrated"),
        "{err}"
    );
    let tables = "SELECT group_concat(name) AS t FROM sqlite_master WHERE type = 'table'";
    let o = dancehall(&["query", tables, "--db", theirs]);
    assert_eq!(
        stdout(&o),
        "t\nnotes\n",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The HTML report in headless Chromium: no console error, every chart there, a screenshot
/// with something on it. A missing Chromium (scripts/install-test-tools.sh installs it) fails
/// the test, or under `DANCEHALL_ALLOW_SKIP=1` skips the rendering part (`common::tools`).
#[test]
fn the_html_report_renders_in_headless_chromium() {
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let dir = tempfile::tempdir().unwrap();
    let db = fixture(dir.path(), false);
    let page = html_page(
        &["1", "2"],
        db.to_str().unwrap(),
        &dir.path().join("report.html"),
    );
    assert!(
        !page.contains("http://") || !page.contains("src=\"http"),
        "external resource"
    );
    assert!(!page.contains("<script"), "the report has no script");
    // The title names the database file, not its path; the page opens (after the verdict)
    // with the winner and the instances nobody proves, before any detail.
    assert!(
        page.contains("<title>dancehall report: fixture.db</title>"),
        "title"
    );
    assert!(
        page.contains("At a glance: job 2 (domino-fixture)"),
        "at a glance"
    );
    assert_eq!(
        page.find("<h2"),
        page.find("<h2 id=\"glance-counts\""),
        "the counting jobs at a glance are the first section"
    );
    assert!(
        page.contains("<tr><td>1 sudoku-4x4-fixed</td><td>done</td><td>288</td><td>-</td>"),
        "the counting job's row"
    );
    assert!(
        page.find("<h2 id=\"glance-2\"").unwrap() < page.find("<h2 id=\"job1\"").unwrap(),
        "the summaries come before any detail"
    );
    assert!(
        page.contains("<b>native</b> wins: 2 of 2 instances proved, PAR2 3.0 ms, 6.0 ms in all."),
        "winner"
    );
    assert!(
        page.contains("Proved by no configuration: none."),
        "unproven"
    );
    // Every instance is closed: the gap table is its one line, and it comes first.
    let gap = page
        .find(concat!(
            "gap: every instance is closed (best objective = best bound on all 2; ",
            "bounds by count 2)"
        ))
        .expect("the gap line");
    assert!(gap < page.find("wins:").unwrap(), "the gap first");
    let Some(chromium) = chromium else {
        let install = "run scripts/install-test-tools.sh (Debian's chromium)";
        common::tools::present(false, "chromium", install);
        return;
    };
    // A probe that records errors and console.error calls into the DOM, injected first.
    let probe = "<script>window.__errors=[];\
        window.addEventListener('error',function(e){window.__errors.push(String(e.message));});\
        var ce=console.error;console.error=function(){window.__errors.push(Array.from(arguments).join(' '));ce.apply(console,arguments);};\
        window.addEventListener('load',function(){document.documentElement.setAttribute('data-errors',JSON.stringify(window.__errors));});\
        </script>";
    let probed = dir.path().join("probed.html");
    std::fs::write(
        &probed,
        page.replacen("<head>", &format!("<head>{probe}"), 1),
    )
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let run = |extra: &[String]| {
        Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1200,2400",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .arg(format!("file://{}", probed.display()))
            .output()
            .expect("chromium runs")
    };
    let dom = run(&[
        "--dump-dom".into(),
        "--enable-logging=stderr".into(),
        "--v=0".into(),
    ]);
    let dump = String::from_utf8_lossy(&dom.stdout);
    let log = String::from_utf8_lossy(&dom.stderr);
    assert!(
        dump.contains("data-errors=\"[]\""),
        "errors on the page: {}",
        dump.lines().next().unwrap_or("")
    );
    assert!(!log.contains("Uncaught"), "console: {log}");
    for chart in [
        "estimate-vs-measured",
        "worker-shares",
        "time-by-difficulty",
        "time-by-board-size",
        "time-by-tiles",
        "time-distribution",
        "time-hardest",
        "cactus",
        "scatter",
    ] {
        let at = dump
            .find(&format!("data-chart=\"{chart}\""))
            .unwrap_or_else(|| panic!("{chart} missing"));
        let figure = &dump[at..at + dump[at..].find("</figure>").unwrap()];
        assert!(
            figure.contains("<svg") && !figure.contains("chart not drawn"),
            "{chart}: {figure}"
        );
    }
    assert_eq!(dump.matches("class=\"board\"").count(), 2, "board pictures");
    let shot = dir.path().join("shot.png");
    let o = run(&[format!("--screenshot={}", shot.display())]);
    assert!(
        shot.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let bytes = &buf[..info.buffer_size()];
    let channels = info.color_type.samples();
    let ink = bytes
        .chunks(channels)
        .filter(|px| px.iter().take(3).any(|&c| c < 200))
        .count();
    let pixels = bytes.len() / channels;
    assert!(
        ink * 100 > pixels,
        "the screenshot is blank: {ink} of {pixels} pixels drawn"
    );
}

/// The gap job's instances: b01-e1, b01-h1 and b01-h2 of the public suite's batch01, and
/// tight-2 of the worker's tests (7 tiles on 4 x 4, where not every tile fits, so a search
/// proves its optimum; here a hard instance).
const GAP_BATCH: &str = r#"{"id": "b01-e1", "difficulty": "easy", "n": 5, "k": 4, "tiles": [[1, 1, 4], [1, 2, 0], [4, 3, 0], [2, 2, 1]]}
{"id": "b01-h1", "difficulty": "hard", "n": 13, "k": 7, "tiles": [[4, 3, 5], [1, 0, 7], [5, 6, 1], [6, 2, 4], [1, 5, 7], [6, 4, 0], [1, 2, 1], [7, 6, 5], [3, 0, 6], [4, 5, 7], [6, 7, 5], [6, 0, 5], [3, 6, 6], [5, 5, 4], [3, 6, 6], [2, 5, 4], [7, 2, 6], [6, 3, 0], [0, 6, 2], [0, 6, 1], [0, 0, 6], [4, 2, 1], [7, 2, 6], [5, 7, 2]]}
{"id": "tight-2", "difficulty": "hard", "n": 4, "k": 5, "tiles": [[4, 4, 1], [1, 4, 3], [5, 4, 1], [0, 3, 2], [1, 0, 4], [5, 5, 0], [4, 3, 3]]}
{"id": "b01-h2", "difficulty": "hard", "n": 13, "k": 6, "tiles": [[5, 3, 0], [6, 2, 5], [5, 1, 6], [2, 5, 2], [5, 0, 6], [5, 3, 0], [3, 3, 3], [2, 1, 1], [0, 1, 6], [1, 5, 1], [5, 5, 1], [0, 1, 4], [2, 4, 3], [3, 3, 2]]}
"#;

/// The gap job's configurations, in unit order (the report's order).
const GAP_CONFIGS: [&str; 3] = ["clingo", "native", "cp-sat"];

/// What each configuration answered on each instance of the gap job. native runs for real on
/// b01-e1 and tight-2 (the worker's `run_task`); the other records are made as a worker stopped
/// at its limit would send them: a verified placement cut to `tiles`, with or without a
/// bound. cp-sat is not installed on the workers anywhere.
///
/// | instance | clingo            | native              | cp-sat      | count bound |
/// | b01-e1   | optimal 4/4 solver| optimal 4/4 (real)  | unavailable | 4           |
/// | b01-h1   | feasible 22/-     | feasible 20/24 count| unavailable | 24          |
/// | tight-2  | timeout -/-       | optimal o/o (real)  | unavailable | 5           |
/// | b01-h2   | feasible 12/-     | error -/-           | unavailable | 14          |
fn gap_record(instance: &domino::Instance, line: &str, config: &str) -> RunRecord {
    let limits = worker::bench::RunLimits::with_wall(std::time::Duration::from_secs(5));
    let mut r = RunRecord {
        termination: Termination::Walltime,
        wall_seconds: 5.0,
        solver: config.into(),
        solver_version: format!("{config} 1.0"),
        ..RunRecord::blank(&instance.id, config, 5.0, host("box"))
    };
    let cut = |r: &mut RunRecord, tiles: usize, bound: Option<u32>| {
        let mut placement = domino::solve(instance, &SolveLimits::default()).placement;
        placement.truncate(tiles);
        r.status = Status::Feasible;
        r.set_objective(Some(tiles as u32));
        r.set_placement(placement);
        r.set_bound(bound);
        r.set_bound_by(bound.map(|_| domino::BoundBy::Count));
    };
    match (config, instance.id.as_str()) {
        ("cp-sat", _) => {
            r.status = Status::Unavailable;
            r.termination = Termination::Normal;
            r.wall_seconds = 0.0;
        }
        ("native", "b01-e1" | "tight-2") => {
            r = worker::bench::run_task(
                cores::bench::Family::Domino,
                &instance.id,
                line,
                config,
                &limits,
                &Default::default(),
            );
            assert_eq!(r.status, Status::Optimal, "{r:?}");
        }
        ("native", "b01-h1") => cut(&mut r, 20, Some(24)),
        ("native", _) => {
            r.status = Status::Error;
            r.termination = Termination::Failed;
            r.message = Some("the solver crashed (a fixture)".into());
        }
        ("clingo", "b01-e1") => {
            let out = domino::solve(instance, &SolveLimits::default());
            r.status = Status::Optimal;
            r.termination = Termination::Normal;
            r.wall_seconds = 0.5;
            r.set_objective(Some(out.objective));
            r.set_placement(out.placement);
            r.set_bound(Some(out.objective));
            r.set_bound_by(Some(domino::BoundBy::Solver));
        }
        ("clingo", "b01-h1") => cut(&mut r, 22, None),
        ("clingo", "b01-h2") => cut(&mut r, 12, None),
        _ => r.status = Status::Timeout,
    }
    r
}

/// The gap job (job 1), submitted, leased and reported through the coordinator's scheduler
/// (which judges every record on the frozen instance) and written by its store.
fn gap_fixture(dir: &Path) -> PathBuf {
    gap_fixture_with(dir, |_| {})
}

/// [`gap_fixture`] with each run record passed through `edit` before it is reported.
fn gap_fixture_with(dir: &Path, edit: impl Fn(&mut RunRecord)) -> PathBuf {
    use coordinator::job::{
        BenchTask, FileKind, FrozenFile, JobKind, LeaseToken, UnitResult, Verdict,
    };
    use coordinator::scheduler::{NewJob, NewUnit, Scheduler, SchedulerConfig};
    let db = dir.join("gap.db");
    let instances = domino::parse_batch(GAP_BATCH).unwrap();
    let mut units = Vec::new();
    for (inst, line) in instances.iter().zip(GAP_BATCH.lines()) {
        for config in GAP_CONFIGS {
            units.push(NewUnit {
                prefix: vec![],
                weight: cores::count::Count::one(),
                estimate: None,
                task: Some(BenchTask {
                    family: cores::bench::Family::Domino,
                    instance_id: inst.id.clone(),
                    instance_json: line.into(),
                    instance_sha256: cores::bench::sha256_hex(line),
                    batch: "gap.txt".into(),
                    config: config.into(),
                    time_limit_seconds: 5.0,
                    memory_limit_bytes: None,
                    needs: None,
                }),
                term: None,
                counted: None,
                split: false,
                parent: None,
            });
        }
    }
    let job = NewJob {
        name: "domino-gap".into(),
        kind: JobKind::Benchmark,
        manifest: Some("gap".into()),
        files: vec![FrozenFile {
            kind: FileKind::Batch,
            name: "gap.txt".into(),
            sha256: cores::bench::sha256_hex(GAP_BATCH),
            text: GAP_BATCH.into(),
        }],
        prefix: vec![],
        symmetry_factor: cores::count::Count::one(),
        settings: Default::default(),
        dlx: String::new(),
        spec: String::new(),
        units,
    };
    let mut next = 0u64;
    let mut s = Scheduler::new(SchedulerConfig::default(), move || {
        next += 1;
        LeaseToken(format!("t{next}"))
    });
    let w = s.register(1_000, "local-0", "box", 1, "0.1.0");
    s.submit_benchmark(1_000, job);
    let mut now = 2_000;
    loop {
        let granted = s.lease(now, w, 8).unwrap().units;
        if granted.is_empty() {
            break;
        }
        for g in granted {
            let task = g.unit.task.as_ref().unwrap();
            let inst = instances.iter().find(|i| i.id == task.instance_id).unwrap();
            let mut r = gap_record(inst, &task.instance_json, &task.config);
            edit(&mut r);
            now += 10;
            let result = UnitResult {
                wall_seconds: r.wall_seconds,
                cpu_seconds: r.wall_seconds,
                host: "box".into(),
                run_record_json: r.to_json(),
                ..UnitResult::default()
            };
            let out = s.report(now, w, &g.lease.token, g.unit.id, result);
            assert_eq!(out.verdict, Verdict::Accepted, "{}", out.message);
        }
    }
    let rt = runtime();
    rt.block_on(async {
        let pool = coordinator::store::open(&db).await.unwrap();
        coordinator::store::apply(&pool, &s.take_changes())
            .await
            .unwrap();
        pool.close().await;
    });
    db
}

#[test]
fn the_gap_table_opens_the_report_with_sums_the_unclosed_instances_and_who_proved_the_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let db = gap_fixture(dir.path());
    let db = db.to_str().unwrap();
    // tight-2's optimum and how native proved it, as the optimiser does (a search, not the
    // count: the worker's tests pin that).
    let tight = domino::parse_batch(GAP_BATCH).unwrap().remove(2);
    let proof = domino::solve(&tight, &SolveLimits::default());
    let (o, by) = (proof.objective, proof.bound_by.as_str());
    assert!(o < 5, "tight-2's optimum {o} is below its count bound");

    let o_table = dancehall(&["report", "--db", db]);
    assert!(o_table.status.success(), "{}", stdout(&o_table));
    let text = stdout(&o_table);
    // After the verdict and the job's line, the gap table comes first.
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("CHECKED"), "{text}");
    assert!(
        lines[2].starts_with("benchmark job 1 (domino-gap)"),
        "{text}"
    );
    let mut bounds = [format!("{by} 1"), "solver 1".to_string()];
    bounds.sort();
    assert_eq!(
        lines[3],
        format!(
            "gap: 2 of 4 instances closed by no configuration (best objective < best bound): \
             b01-h1 (22 < 24), b01-h2 (12 < 14); bounds by count 2, {}",
            bounds.join(", ")
        ),
        "{text}"
    );
    // Per configuration: clingo 0 + (24 - 22, no bound: the count) + (5 - 0, no placement,
    // no bound) + (14 - 12) = 9; native 0 + (24 - 20) + 0 + (14 - 0, an error) = 18.
    let squash = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
    let table: Vec<String> = lines[4..].iter().map(|l| squash(l)).collect();
    assert_eq!(
        table[..4],
        [
            "configuration runs proven summed gap without bound",
            "clingo 4 1 9 3",
            "native 4 2 18 1",
            "cp-sat 4 unavailable on the workers",
        ],
        "{text}"
    );
    assert!(table[4].starts_with("cells: objective/bound gap"), "{text}");
    // instance, difficulty, best, bound, gap, who proved the best bound and how, then each
    // configuration's objective/bound gap.
    assert_eq!(
        table[5..10],
        [
            "instance diff best bound gap bound by clingo native cp-sat".to_string(),
            "b01-e1 easy 4 4 0 clingo: solver 4/4 0 4/4 0 unavailable".into(),
            "b01-h1 hard 22 24 2 native: count 22/- - 20/24 4 unavailable".into(),
            "b01-h2 hard 12 14 2 count 12/- - -/- - unavailable".into(),
            format!("tight-2 hard {o} {o} 0 native: {by} -/- - {o}/{o} 0 unavailable"),
        ],
        "{text}"
    );
    // It opens the report: before the configuration x difficulty table.
    let gap_at = text.find("gap: 2 of 4").unwrap();
    assert!(
        gap_at < text.find("configuration       diff").unwrap(),
        "{text}"
    );

    // JSON: the same figures for machines.
    let json: serde_json::Value = serde_json::from_str(&stdout(&dancehall(&[
        "report", "--db", db, "--format", "json",
    ])))
    .unwrap();
    let gap = &json["jobs"][0]["gap"];
    assert_eq!(gap["unclosed"], serde_json::json!(["b01-h1", "b01-h2"]));
    assert_eq!(gap["contradicted"], serde_json::json!([]));
    let sums: Vec<(String, u64)> = gap["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["config"].as_str().unwrap().to_owned(),
                c["summed_gap"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sums,
        [
            ("clingo".into(), 9),
            ("native".into(), 18),
            ("cp-sat".into(), 0)
        ]
    );
    let h2 = &gap["instances"][2];
    assert_eq!(
        (
            &h2["instance"],
            &h2["best_bound"],
            &h2["bound_config"],
            &h2["bound_by"],
            &h2["gap"]
        ),
        (
            &serde_json::json!("b01-h2"),
            &serde_json::json!(14),
            &serde_json::Value::Null,
            &serde_json::json!("count"),
            &serde_json::json!(2)
        )
    );
    let tight_native = &gap["instances"][3]["runs"][1];
    assert_eq!(tight_native["config"], "native");
    assert_eq!(tight_native["bound_by"], by);

    // CSV: each run with its bound's provenance.
    let csv = stdout(&dancehall(&["report", "--db", db, "--format", "csv"]));
    let header: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == "bound_by").unwrap();
    let provenance = |instance: &str, config: &str| {
        csv.lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|f| f[2] == instance && f[7] == config)
            .map(|f| f[at].to_owned())
            .unwrap()
    };
    assert_eq!(provenance("b01-e1", "clingo"), "solver");
    assert_eq!(provenance("b01-h1", "native"), "count");
    assert_eq!(provenance("tight-2", "native"), by);
    assert_eq!(provenance("b01-h2", "clingo"), "");

    // HTML: the gap table opens the page (in the summary, before the configuration x
    // difficulty table).
    let page = html_page(&[], db, &dir.path().join("gap.html"));
    let gap_at = page.find("<h3 id=\"gap-1\">").expect("the gap section");
    assert!(gap_at < page.find("Configuration x difficulty").unwrap());
    assert_eq!(page.find("<h2"), page.find("<h2 id=\"glance-1\""));
    let row = concat!(
        "<td>b01-h1</td><td>hard</td><td>22</td><td>24</td><td>2</td><td>native: count</td>",
        "<td>22/- -</td><td>20/24 4</td><td>unavailable</td>"
    );
    assert!(page.contains(row), "gap row");

    // Seed 001's figure 9 sits with its other figures: the hard instances (the job's
    // hardest), a bar per configuration, unproven runs at the limit.
    let fig = page.find("data-chart=\"time-hardest\"").expect("figure 9");
    let figure = &page[fig..fig + page[fig..].find("</figure>").unwrap()];
    for said in [
        "Mean time per configuration on the hard instances (seed 001, figure 9)",
        // 3 hard instances, clingo and native on each; 5 of the 6 runs proved nothing.
        "3 hard instances, 6 runs; time-outs counted at the limit",
        "(5.00 s, the dashed line; 5 such runs)",
        "<svg",
    ] {
        assert!(figure.contains(said), "{said}: {figure}");
    }
    assert!(!figure.contains("chart not drawn"), "{figure}");
    let distribution = page.find("data-chart=\"time-distribution\"").unwrap();
    let cactus = page.find("data-chart=\"cactus\"").unwrap();
    assert!(
        distribution < fig && fig < cactus,
        "figure 9 after figure 8"
    );
}

/// `dancehall domino certify --db` records what it found in the results database, and the
/// report shows it beside the runs of the same instance: on the gap job's tight-2 (optimum `o`,
/// proven by native), "o + 1 tiles do not fit" is certified by a checked DRAT proof, so the
/// report says the best bound is certified and lists it; "o tiles do not fit" is false (they
/// fit: exit 1) and is recorded as a verified placement, which contradicts nothing. A
/// certificate that does contradict the runs (one saying that o tiles do not fit, as a broken
/// checker would certify) fails the report, said first. A missing database is refused before
/// anything runs.
#[test]
fn a_certified_bound_is_recorded_and_the_report_shows_it_or_names_its_contradiction() {
    let Some((dir, db, tight, o)) = certify_fixture() else {
        return;
    };
    let db_s = db.to_str().unwrap();
    let batch = dir.path().join("gap.txt");
    std::fs::write(&batch, GAP_BATCH).unwrap();
    let batch = batch.to_str().unwrap();
    let certify = |tiles: u32, db: &str| {
        dancehall(&[
            "domino",
            "certify",
            batch,
            "--id",
            "tight-2",
            "--tiles",
            &tiles.to_string(),
            "--db",
            db,
        ])
    };
    let missing = dir.path().join("none.db");
    let out = certify(o + 1, missing.to_str().unwrap());
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!missing.exists());

    let out = certify(o + 1, db_s);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).starts_with(&format!("CERTIFIED: {} tiles on tight-2", o + 1))
            && stdout(&out).contains(&format!("recorded in {db_s} as certificate 1")),
        "{}",
        stdout(&out)
    );
    let out = certify(o, db_s);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err.starts_with(&format!("dancehall: NOT CERTIFIED: {o} tiles on tight-2"))
            && err.contains("as certificate 2"),
        "{err}"
    );

    let report = dancehall(&["report", "--db", db_s]);
    let text = stdout(&report);
    assert!(report.status.success(), "{text}");
    assert!(text.starts_with("CHECKED"), "{text}");
    assert!(
        text.contains(&format!(
            "`dancehall domino certify`): 1 of 4 instances: tight-2 at most {o} (optimal: {o} \
             placed)"
        )),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.starts_with("tight-2"))
        .unwrap_or_default();
    assert!(row.contains(", certified"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&dancehall(&[
        "report", "--db", db_s, "--format", "json",
    ])))
    .unwrap();
    let x = json["jobs"][0]["gap"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["instance"] == "tight-2")
        .unwrap()
        .clone();
    assert_eq!(x["certified_bound"], serde_json::json!(o));
    assert_eq!(x["certified_placed"], serde_json::json!(o));

    // A certificate that o tiles do not fit, added as it stands: below native's o placed.
    let wrong = domino::Certificate {
        instance: "tight-2".into(),
        instance_sha256: domino::instance_sha256(&tight),
        tiles: o,
        verdict: domino::Verdict::Certified,
        placement: vec![],
        formula_sha256: "f".into(),
        solver: None,
        solver_seconds: None,
        proof_bytes: Some(1),
        checker: Some("a broken checker".into()),
        checker_seconds: Some(0.0),
        solver_peak_memory_bytes: None,
        checker_peak_memory_bytes: None,
        host: "box".into(),
        dancehall_version: "0".into(),
    };
    let rt = runtime();
    rt.block_on(async {
        let pool = coordinator::store::open(&db).await.unwrap();
        coordinator::store::add_certificate(&pool, &wrong, 0)
            .await
            .unwrap();
        pool.close().await;
    });
    let report = dancehall(&["report", "--db", db_s]);
    assert_eq!(report.status.code(), Some(1));
    let text = stdout(&report);
    assert!(text.starts_with("PROBLEMS"), "{text}");
    assert!(
        text.contains(&format!(
            "tight-2: a certified refutation ({o} tiles do not fit, checked by a broken \
             checker) is below the verified objective {o}"
        )),
        "{text}"
    );
}

/// `dancehall domino certify --job N --db` takes its claims from a benchmark job: every best
/// bound below its instance's count bound and not yet certified. On the gap job only
/// tight-2's bound `o` (native's) is below its count bound (b01-e1's and b01-h1's equal
/// theirs, b01-h2 has none), so the one claim is "o + 1 tiles do not fit". Under a 1-MiB
/// memory limit the solver cannot run: exit 1, the claim named first, nothing recorded. Then
/// it is certified and recorded, the report marks the bound certified, and a second call has
/// nothing left to certify. A job that is not there is refused.
#[test]
fn certify_job_certifies_each_uncertified_bound_below_the_count_bound() {
    let Some((_dir, db, tight, o)) = certify_fixture() else {
        return;
    };
    let db_s = db.to_str().unwrap();
    let job = |id: &str, more: &[&str]| {
        let mut args = vec!["domino", "certify", "--job", id, "--db", db_s];
        args.extend_from_slice(more);
        dancehall(&args)
    };
    let recorded = || {
        runtime().block_on(async {
            let pool = coordinator::store::open(&db).await.unwrap();
            let certs = coordinator::store::certificates(&pool, &[domino::instance_sha256(&tight)])
                .await
                .unwrap();
            pool.close().await;
            certs.len()
        })
    };

    let out = job("9", &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no job 9"),
        "{out:?}"
    );

    let out = job("1", &["--memory-limit", "1"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err.starts_with(&format!(
            "dancehall: NOT CERTIFIED: 1 of job 1's 1 claims: {} tiles on tight-2",
            o + 1
        )),
        "{err}"
    );
    assert!(
        stdout(&out).starts_with(&format!(
            "certifying the bounds of job 1 below the count bound (1 of 4 instances): {} tiles \
             on tight-2\n",
            o + 1
        )),
        "{}",
        stdout(&out)
    );
    assert_eq!(recorded(), 0);

    let out = job("1", &[]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{out:?}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[1].starts_with(&format!("CERTIFIED: {} tiles on tight-2", o + 1))
            && lines[1].ends_with(&format!("recorded in {db_s} as certificate 1")),
        "{text}"
    );
    assert_eq!(
        lines[2],
        "CERTIFIED: every bound of job 1 below the count bound (1 of 4 instances)"
    );
    assert_eq!(recorded(), 1);
    let report = stdout(&dancehall(&["report", "--db", db_s]));
    let row = report
        .lines()
        .find(|l| l.starts_with("tight-2"))
        .unwrap_or_default();
    assert!(row.contains(", certified"), "{report}");

    let out = job("1", &[]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).starts_with("nothing to certify in job 1"),
        "{}",
        stdout(&out)
    );
    assert_eq!(recorded(), 1);
}

/// What the certify tests start from: the gap job's database in a temporary folder, its
/// instance tight-2 and that instance's optimum; `None` when `cadical` or `rate` is missing
/// and skipping is allowed (`DANCEHALL_ALLOW_SKIP=1`; else the test fails, naming them).
fn certify_fixture() -> Option<(tempfile::TempDir, PathBuf, domino::Instance, u32)> {
    let have = common::tools::on_path("cadical") && common::tools::on_path("rate");
    if !common::tools::present(have, "cadical and rate", "run scripts/install-solvers.sh") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = gap_fixture(dir.path());
    let tight = domino::parse_batch(GAP_BATCH).unwrap().remove(2);
    let o = domino::solve(&tight, &SolveLimits::default()).objective;
    Some((dir, db, tight, o))
}

/// A bound that `certify --job` refutes is a wrong answer of the run that proved it: the gap
/// job with native's bound on b01-h1 (13 x 13, 24 tiles, all of which fit) edited to 22 tiles,
/// as a wrong refutation would make it, so that 23 are claimed not to fit. CaDiCaL places
/// them (all 24) and the verifier accepts the placement: exit 1, `WRONG BOUND` said first and
/// naming native, the placement recorded, and the report then fails on it.
#[test]
fn certify_job_names_a_refuted_bound_a_wrong_bound_first() {
    let Some((dir, _, _, _)) = certify_fixture() else {
        return;
    };
    let wrong = dir.path().join("wrong");
    std::fs::create_dir_all(&wrong).unwrap();
    let db = gap_fixture_with(&wrong, |r| {
        if r.instance == "b01-h1" && r.config == "native" {
            r.set_bound(Some(22));
            r.set_bound_by(Some(domino::BoundBy::Sat));
        }
    });
    let db_s = db.to_str().unwrap();
    let out = dancehall(&["domino", "certify", "--job", "1", "--db", db_s]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err.starts_with(
            "dancehall: WRONG BOUND: 23 tiles fit on b01-h1, above the bound 22 that native proved"
        ),
        "{err}"
    );
    assert!(
        stdout(&out).contains("NOT CERTIFIED: 23 tiles on b01-h1 (13 x 13, 24 tiles) fit"),
        "{}",
        stdout(&out)
    );
    let report = dancehall(&["report", "--db", db_s]);
    assert_eq!(report.status.code(), Some(1));
    let text = stdout(&report);
    assert!(text.starts_with("PROBLEMS"), "{text}");
    // 23 or 24 tiles: CaDiCaL's model places at least the 23 asked.
    let problem = text
        .lines()
        .find(|l| l.contains("b01-h1: a verified placement of "))
        .unwrap_or_default();
    assert!(
        problem.ends_with("tiles (certify) is above the best bound 22 (native: sat)"),
        "{text}"
    );
    // And the placement is listed beside the gap table, against the runs' figures.
    let listed = text
        .lines()
        .find(|l| l.starts_with("verified placements ("))
        .unwrap_or_default();
    assert!(
        listed.contains("1 of ")
            && listed.contains(": b01-h1 2")
            && listed.ends_with("; bound 22)"),
        "{text}"
    );
}
