//! Store tests on a temporary database file: migrations, round trip of the scheduler state,
//! exactly-once at the database level, restart semantics, exact totals beyond 2^128, weights
//! and cores.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::*;
use crate::job::{JobSettings, UnitResult, Verdict};
use crate::scheduler::{NewJob, NewUnit, Scheduler, SchedulerConfig};

fn tokens() -> impl FnMut() -> LeaseToken + Send + 'static {
    let n = Arc::new(AtomicU64::new(0));
    move || LeaseToken(format!("t{}", n.fetch_add(1, Ordering::Relaxed)))
}

fn config() -> SchedulerConfig {
    SchedulerConfig {
        lease_duration_ms: 1_000,
        ..SchedulerConfig::default()
    }
}

fn result(solutions: u128, remaining: Vec<Vec<u32>>) -> UnitResult {
    UnitResult {
        solutions: Count::from(solutions),
        nodes: 123,
        updates: 456,
        estimate_nodes: 100.5,
        wall_seconds: 0.25,
        cpu_seconds: 0.125,
        host: "test-host".into(),
        remaining,
        run_record_json: String::new(),
        core: CountCore::Dlx,
    }
}

fn new_job(units: u32, counted: Option<u128>) -> NewJob {
    NewJob {
        name: "store test".into(),
        kind: crate::job::JobKind::Count,
        manifest: None,
        files: Vec::new(),
        prefix: vec![],
        symmetry_factor: Count::from(720u32),
        settings: JobSettings {
            unit_node_limit: Some(1_000_000),
            unit_time_budget_ms: None,
            audit_share: 0.0,
            seed: u64::MAX,
            core: CoreSpec::Dlx,
        },
        dlx: "| a\na\n".into(),
        spec: "name = \"t\"\n".into(),
        units: (0..units)
            .map(|c| NewUnit {
                prefix: vec![c],
                weight: Count::one(),
                estimate: Some(UnitEstimate {
                    nodes: 10.0 + f64::from(c),
                    nodes_std_err: 1.5,
                    updates: 30.0,
                    solutions: 2.0,
                }),
                task: None,
                term: None,
                counted: None,
                split: false,
                parent: None,
            })
            .chain(counted.map(|n| NewUnit {
                prefix: vec![99],
                weight: Count::one(),
                estimate: None,
                task: None,
                term: None,
                counted: Some(result(n, vec![])),
                split: false,
                parent: None,
            }))
            .collect(),
    }
}

async fn temp_db() -> (tempfile::TempDir, SqlitePool) {
    let dir = tempfile::tempdir().unwrap();
    // A nested directory that does not exist yet: `open` creates it.
    let pool = open(&dir.path().join("results/dancehall.db"))
        .await
        .unwrap();
    (dir, pool)
}

async fn flush(s: &mut Scheduler, pool: &SqlitePool) {
    apply(pool, &s.take_changes()).await.unwrap();
}

/// Another program's SQLite database (tables, no dancehall migrations) is refused by `open`,
/// named, and left as it was: no dancehall table is created in it.
#[tokio::test]
async fn open_refuses_another_programs_database_and_writes_nothing_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("theirs.sqlite");
    let options = SqliteConnectOptions::new()
        .filename(&path)
        .create_if_missing(true);
    let pool = SqlitePool::connect_with(options).await.unwrap();
    for t in ["notes", "photos", "tags", "users"] {
        sqlx::query(&format!("CREATE TABLE {t} (id INTEGER PRIMARY KEY)"))
            .execute(&pool)
            .await
            .unwrap();
    }
    pool.close().await;

    let e = open(&path).await.unwrap_err();
    assert!(matches!(e, StoreError::Foreign { .. }), "{e:?}");
    let said = e.to_string();
    assert!(
        said.starts_with(&format!("{} is not a dancehall database", path.display()))
            && said.contains("notes, photos, tags and 1 more"),
        "{said}"
    );
    let ro = open_read_only(&path).await.unwrap();
    let tables: Vec<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .fetch_all(&ro)
            .await
            .unwrap();
    ro.close().await;
    assert_eq!(tables, ["notes", "photos", "tags", "users"]);

    // A new file, and one dancehall made, still open.
    let ours = dir.path().join("ours.db");
    open(&ours).await.unwrap().close().await;
    open(&ours).await.unwrap().close().await;
}

/// A database that had every migration but the newest (as an older dancehall left it) is
/// one behind, named; `open` brings it up to date; a migration this build does not know (a
/// newer dancehall's) is named as such.
#[tokio::test]
async fn schema_lag_names_the_migrations_a_database_lacks_or_does_not_know() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let all: Vec<_> = MIGRATOR.iter().cloned().collect();
    assert!(all.len() >= 2);
    let newest = all.last().unwrap().clone();
    let older = sqlx::migrate::Migrator {
        migrations: std::borrow::Cow::Owned(all[..all.len() - 1].to_vec()),
        ..sqlx::migrate::Migrator::DEFAULT
    };
    let options = SqliteConnectOptions::new()
        .filename(&path)
        .create_if_missing(true);
    let pool = SqlitePool::connect_with(options).await.unwrap();
    older.run(&pool).await.unwrap();
    pool.close().await;

    let ro = open_read_only(&path).await.unwrap();
    let lag = schema_lag(&ro).await.unwrap();
    ro.close().await;
    assert_eq!(
        lag.missing,
        vec![(newest.version, newest.description.to_string())]
    );
    assert!(lag.unknown.is_empty() && !lag.is_current());
    let said = lag.to_string();
    assert!(
        said.contains("older than this dancehall's: 1 migration behind")
            && said.contains(&newest.version.to_string()),
        "{said}"
    );

    let pool = open(&path).await.unwrap();
    assert!(schema_lag(&pool).await.unwrap().is_current());
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (99990101000000, 'from the future', TRUE, x'00', 0)",
    )
    .execute(&pool)
    .await
    .unwrap();
    let lag = schema_lag(&pool).await.unwrap();
    assert_eq!(
        (lag.missing.len(), lag.unknown.clone()),
        (0, vec![99990101000000])
    );
    assert!(lag
        .to_string()
        .contains("newer dancehall (migration 99990101000000"));
    pool.close().await;

    // Not one of ours: no migrations table, every migration missing.
    let other = dir.path().join("other.db");
    let options = SqliteConnectOptions::new()
        .filename(&other)
        .create_if_missing(true);
    let pool = SqlitePool::connect_with(options).await.unwrap();
    sqlx::query("CREATE TABLE t (a)")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(schema_lag(&pool).await.unwrap().missing.len(), all.len());
    pool.close().await;
}

#[tokio::test]
async fn migrations_create_the_schema_in_wal_mode() {
    let (_dir, pool) = temp_db().await;
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(fk, 1);
    let tables: Vec<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .fetch_all(&pool)
            .await
            .unwrap();
    for t in [
        "alarms",
        "events",
        "jobs",
        "leases",
        "report_audit",
        "unit_results",
        "units",
        "workers",
    ] {
        assert!(
            tables.iter().any(|n| n == t),
            "missing table {t}: {tables:?}"
        );
    }
    assert_eq!(load(&pool).await.unwrap(), Snapshot::default());
}

#[tokio::test]
async fn the_database_holds_exactly_the_scheduler_state() {
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let w1 = s.register(10, "a", "host-a", 2, "0.1");
    let w2 = s.register(10, "b", "host-b", 2, "0.1");
    // What a worker can run survives a restart (w1 said nothing, w2 said what it has).
    let caps = crate::job::Capabilities {
        bench_configs: Some(["clingo".to_string(), "native".to_string()].into()),
        memory_bytes: 8 << 30,
        cpus: 4,
    };
    s.set_capabilities(w2, caps).unwrap();
    let job = s.add_job(11, new_job(4, Some(3)));
    flush(&mut s, &pool).await;
    let g = s.lease(12, w1, 3).unwrap().units;
    flush(&mut s, &pool).await;
    // Accept one, split one, let one expire, and deliver a duplicate and a mismatch.
    let r = s.report(13, w1, &g[0].lease.token, g[0].unit.id, result(5, vec![]));
    assert_eq!(r.verdict, Verdict::Accepted);
    let r = s.report(
        13,
        w1,
        &g[1].lease.token,
        g[1].unit.id,
        result(7, vec![vec![1, 4], vec![1, 5]]),
    );
    assert_eq!(r.verdict, Verdict::Accepted);
    let r = s.report(14, w1, &g[0].lease.token, g[0].unit.id, result(5, vec![]));
    assert_eq!(r.verdict, Verdict::Duplicate);
    let r = s.report(14, w1, &g[0].lease.token, g[0].unit.id, result(6, vec![]));
    assert_eq!(r.verdict, Verdict::Mismatch);
    flush(&mut s, &pool).await;
    s.heartbeat(500, w1, std::slice::from_ref(&g[2].lease.token))
        .unwrap();
    s.lease(2_000, w2, 1).unwrap();
    flush(&mut s, &pool).await;

    let snap = load(&pool).await.unwrap();
    assert_eq!(snap, s.snapshot());
    assert_eq!(
        job_total(&pool, job).await.unwrap(),
        Count::from(3u8 + 5 + 7)
    );
    let verdicts: Vec<(String, i64)> = sqlx::query_as(
        "SELECT verdict, COUNT(*) FROM report_audit GROUP BY verdict ORDER BY verdict",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        verdicts,
        vec![
            ("accepted".to_string(), 2),
            ("duplicate".to_string(), 1),
            ("mismatch".to_string(), 1)
        ]
    );
    let texts = job_texts(&pool, job).await.unwrap().unwrap();
    assert_eq!(texts.dlx, "| a\na\n");
    assert_eq!(texts.dlx_sha256, sha256_hex("| a\na\n"));
    let events: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(events >= 4);
}

#[tokio::test]
async fn a_second_result_for_a_unit_cannot_be_written() {
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let w = s.register(1, "a", "h", 1, "v");
    s.add_job(1, new_job(1, None));
    let g = s.lease(2, w, 1).unwrap().units;
    s.report(3, w, &g[0].lease.token, g[0].unit.id, result(9, vec![]));
    let changes = s.take_changes();
    assert_eq!(changes.results.len(), 1);
    apply(&pool, &changes).await.unwrap();
    // Replaying the same accepted result (as a buggy scheduler would) fails as a whole:
    // neither the result nor the report it came with is written twice.
    let replay = ChangeSet {
        results: changes.results.clone(),
        reports: changes.reports.clone(),
        ..ChangeSet::default()
    };
    assert!(apply(&pool, &replay).await.is_err());
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM report_audit")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(n, 1, "the failed transaction left nothing behind");
}

#[tokio::test]
async fn restart_keeps_done_units_and_leases_until_their_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.db");
    let (job, tok_done, tok_live, live_unit) = {
        let pool = open(&path).await.unwrap();
        let mut s = Scheduler::new(config(), tokens());
        let w = s.register(1, "a", "h", 1, "v");
        let job = s.add_job(1, new_job(3, None));
        let g = s.lease(2, w, 2).unwrap().units;
        s.report(3, w, &g[0].lease.token, g[0].unit.id, result(4, vec![]));
        flush(&mut s, &pool).await;
        pool.close().await;
        (
            job,
            g[0].lease.token.clone(),
            g[1].lease.token.clone(),
            g[1].unit.id,
        )
    };
    // "Restart": a new pool on the same file and a scheduler rebuilt from it.
    let pool = open(&path).await.unwrap();
    let mut s = Scheduler::restore(config(), load(&pool).await.unwrap(), tokens());
    let st = s.status(job).unwrap();
    assert_eq!((st.units_done, st.units_leased, st.units_queued), (1, 1, 1));
    assert_eq!(st.solutions, Count::from(4u8));
    // The finished unit stays finished: its token only gets `duplicate`.
    let r = s.report(4, 1, &tok_done, 1, result(4, vec![]));
    assert_eq!(r.verdict, Verdict::Duplicate);
    // The live lease survives until its deadline (granted at 2, lasts 1000 ms) ...
    let hb = s
        .heartbeat(900, 1, std::slice::from_ref(&tok_live))
        .unwrap();
    assert_eq!(hb.extended, vec![tok_live.clone()]);
    // ... and after it, the unit is queued again and the token is stale.
    assert_eq!(s.expire(1_901), 1);
    assert_eq!(s.unit(live_unit).unwrap().state, UnitState::Queued);
    let r = s.report(1_902, 1, &tok_live, live_unit, result(1, vec![]));
    assert_eq!(r.verdict, Verdict::Stale);
    flush(&mut s, &pool).await;
    assert_eq!(load(&pool).await.unwrap(), s.snapshot());
}

#[tokio::test]
async fn a_held_unit_and_its_failures_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.db");
    let limit = config().failures_limit;
    let job = {
        let pool = open(&path).await.unwrap();
        let mut s = Scheduler::new(config(), tokens());
        let w = s.register(1, "a", "h", 1, "v");
        let job = s.add_job(1, new_job(2, None));
        // Unit 1 fails once and is written, then fails up to the limit: held.
        for now in 2..2 + u64::from(limit) {
            let g = s.lease(now, w, 1).unwrap().units;
            assert_eq!(g[0].unit.id, 1);
            let t = g[0].lease.token.clone();
            s.release(now, w, &[t], Some("bad prefix: x")).unwrap();
            flush(&mut s, &pool).await;
        }
        assert_eq!(load(&pool).await.unwrap(), s.snapshot());
        pool.close().await;
        job
    };
    let pool = open(&path).await.unwrap();
    let failures: i64 = sqlx::query_scalar("SELECT failures FROM units WHERE id = 1")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(failures, i64::from(limit));
    let ends: Vec<String> =
        sqlx::query_scalar("SELECT end_reason FROM leases WHERE unit_id = 1 ORDER BY attempt")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(ends, vec!["failed"; limit as usize]);
    let alarms = job_alarms(&pool, job).await.unwrap();
    assert_eq!(alarms.len(), 1);
    assert_eq!((alarms[0].0.as_str(), alarms[0].1), ("failed", Some(1)));
    // Restarted: unit 1 is read back with its failures and stays held.
    let mut s = Scheduler::restore(config(), load(&pool).await.unwrap(), tokens());
    assert_eq!(s.unit(1).unwrap().failures, limit);
    let w = s.register(10, "b", "h", 1, "v");
    let ids: Vec<u64> = s
        .lease(10, w, 4)
        .unwrap()
        .units
        .iter()
        .map(|g| g.unit.id)
        .collect();
    assert_eq!(ids, vec![2]);
    assert_eq!(s.status(job).unwrap().units_held, 1);
}

/// A lease end or an alarm kind the store does not know is corrupt data, named, as an
/// unknown unit state is: never read back as something else.
#[tokio::test]
async fn an_unknown_lease_end_or_alarm_kind_is_an_error_naming_it() {
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let w = s.register(1, "a", "h", 1, "v");
    let job = s.add_job(1, new_job(1, None));
    let t = s.lease(2, w, 1).unwrap().units[0].lease.token.clone();
    s.release(3, w, &[t], None).unwrap();
    flush(&mut s, &pool).await;
    assert_eq!(load(&pool).await.unwrap(), s.snapshot());
    let end = |why: &'static str| {
        sqlx::query("UPDATE leases SET end_reason = ?")
            .bind(why)
            .execute(&pool)
    };
    end("vanished").await.unwrap();
    let e = load(&pool).await.unwrap_err().to_string();
    assert!(e.contains("lease end reason \"vanished\""), "{e}");
    end("released").await.unwrap();
    sqlx::query("INSERT INTO alarms VALUES (1, ?, NULL, 'exploded', 'from the future', 4)")
        .bind(i64::try_from(job).unwrap())
        .execute(&pool)
        .await
        .unwrap();
    let e = load(&pool).await.unwrap_err().to_string();
    assert!(e.contains("alarm kind \"exploded\""), "{e}");
}

/// Every file kind's text passes the `bench_files.kind` CHECK list and reads back as itself;
/// the list holds no other.
#[tokio::test]
async fn every_file_kind_is_stored_and_read_back() {
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let files: Vec<FrozenFile> = FileKind::ALL
        .iter()
        .copied()
        .map(|kind| FrozenFile {
            kind,
            name: format!("{}.txt", kind.as_str()),
            sha256: sha256_hex(kind.as_str()),
            text: kind.as_str().into(),
        })
        .collect();
    let new = NewJob {
        kind: JobKind::Benchmark,
        manifest: Some("m".into()),
        files: files.clone(),
        ..new_job(0, None)
    };
    let job = s.add_job(1, new);
    flush(&mut s, &pool).await;
    assert_eq!(job_files(&pool, job).await.unwrap(), files);
    assert_eq!(
        check_list(&pool, "bench_files", "kind").await,
        FileKind::ALL
            .iter()
            .map(|k| k.as_str().to_string())
            .collect::<Vec<_>>()
    );
}

/// A frozen file of a kind the store does not know (written past the CHECK list) is corrupt
/// data, named: never served as a file of another kind, never left out.
#[tokio::test]
async fn an_unknown_file_kind_is_an_error_naming_it() {
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let new = NewJob {
        kind: JobKind::Benchmark,
        manifest: Some("m".into()),
        ..new_job(0, None)
    };
    let job = s.add_job(1, new);
    flush(&mut s, &pool).await;
    let mut conn = pool.acquire().await.unwrap();
    sqlx::query("PRAGMA ignore_check_constraints = ON")
        .execute(&mut *conn)
        .await
        .unwrap();
    sqlx::query("INSERT INTO bench_files VALUES (?, 'puzzle', 'p.txt', '', '')")
        .bind(i64::try_from(job).unwrap())
        .execute(&mut *conn)
        .await
        .unwrap();
    sqlx::query("PRAGMA ignore_check_constraints = OFF")
        .execute(&mut *conn)
        .await
        .unwrap();
    drop(conn);
    let e = job_files(&pool, job).await.unwrap_err().to_string();
    assert!(e.contains("frozen file kind \"puzzle\""), "{e}");
}

#[tokio::test]
async fn totals_beyond_two_to_the_64_are_exact() {
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let w = s.register(1, "a", "h", 1, "v");
    let big = u128::from(u64::MAX) - 2;
    let job = s.add_job(1, new_job(3, Some(big)));
    for g in s.lease(2, w, 3).unwrap().units {
        s.report(3, w, &g.lease.token, g.unit.id, result(big, vec![]));
    }
    flush(&mut s, &pool).await;
    let want = Count::from(4 * big);
    assert!(want > Count::from(u64::MAX));
    assert_eq!(job_total(&pool, job).await.unwrap(), want);
    let restored = Scheduler::restore(config(), load(&pool).await.unwrap(), tokens());
    assert_eq!(restored.status(job).unwrap().solutions, want);
    assert_eq!(restored.status(job).unwrap().job.state, JobState::Done);
}

/// A benchmark job: frozen files, tasks, checked records (one refuted by the coordinator's
/// verifier) and a re-run survive the round trip; `bench_runs` and the `bench_current` view
/// tell current runs from superseded ones.
#[tokio::test]
async fn benchmark_runs_round_trip_with_their_frozen_files() {
    use crate::job::{BenchTask, Difficulty, FrozenFile, JobKind, RunRecord, RunStatus};
    use cores::bench::HostInfo;
    const INSTANCE: &str =
        r#"{"id": "t1", "difficulty": "medium", "n": 3, "k": 2, "tiles": [[1,0,2],[2,2,0]]}"#;
    const APART: &str = r#"[{"tile":0,"row":0,"col":0,"orientation":"H","mirrored":false},
                            {"tile":1,"row":2,"col":0,"orientation":"H","mirrored":false}]"#;
    const CLASH: &str = r#"[{"tile":0,"row":0,"col":0,"orientation":"H","mirrored":false},
                            {"tile":1,"row":1,"col":0,"orientation":"H","mirrored":false}]"#;
    let task = |config: &str| BenchTask {
        family: Default::default(),
        instance_id: "t1".into(),
        instance_json: INSTANCE.into(),
        instance_sha256: sha256_hex(INSTANCE),
        batch: "batch01.txt".into(),
        config: config.into(),
        time_limit_seconds: 5.0,
        memory_limit_bytes: Some(1 << 30),
        needs: None,
    };
    let record = |config: &str, status: &str, placement: &str, objective: Option<u32>| {
        let host = HostInfo {
            hostname: "box".into(),
            cpu_model: "cpu".into(),
            cores: 2,
            memory_bytes: 1024,
            kernel: "6.1".into(),
            dancehall_version: "0.1.0".into(),
        };
        let mut record = RunRecord {
            status: RunStatus::parse(status).unwrap(),
            wall_seconds: 0.75,
            cpu_seconds: Some(0.5),
            solver: "s".into(),
            solver_version: "s 1.0".into(),
            ..RunRecord::blank("t1", config, 5.0, host)
        };
        record.set_objective(objective);
        record.set_bound(objective);
        record.set_bound_by(objective.map(|_| cores::domino::BoundBy::Sat));
        record.set_placement(serde_json::from_str(placement).unwrap());
        let json = record.to_json();
        UnitResult {
            run_record_json: json,
            ..result(0, vec![])
        }
    };
    let files = vec![FrozenFile {
        kind: FileKind::Model,
        name: "domino.lp".into(),
        sha256: sha256_hex("% model\n"),
        text: "% model\n".into(),
    }];
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let w = s.register(10, "a", "host-a", 1, "0.1");
    let new = NewJob {
        kind: JobKind::Benchmark,
        manifest: Some("abc".into()),
        files: files.clone(),
        units: ["native", "gecode", "clingo"]
            .iter()
            .map(|c| NewUnit {
                prefix: vec![],
                weight: Count::one(),
                estimate: None,
                task: Some(task(c)),
                term: None,
                counted: None,
                split: false,
                parent: None,
            })
            .collect(),
        ..new_job(0, None)
    };
    let job = s.submit_benchmark(11, new).job;
    flush(&mut s, &pool).await;
    for g in s.lease(12, w, 8).unwrap().units {
        let cfg = g.unit.task.as_ref().unwrap().config.clone();
        let r = match cfg.as_str() {
            "native" => record(&cfg, "optimal", APART, Some(2)),
            "gecode" => record(&cfg, "optimal", CLASH, Some(2)),
            _ => record(&cfg, "timeout", "[]", None),
        };
        let v = s.report(13, w, &g.lease.token, g.unit.id, r).verdict;
        assert_eq!(v, Verdict::Accepted);
    }
    flush(&mut s, &pool).await;
    assert_eq!(s.retry(14, job, &[RunStatus::Timeout]).unwrap(), 1);
    flush(&mut s, &pool).await;
    assert_eq!(load(&pool).await.unwrap(), s.snapshot());
    assert_eq!(job_files(&pool, job).await.unwrap(), files);

    let runs = bench_runs(&pool, job).await.unwrap();
    let got: Vec<(&str, RunStatus, Option<u32>, bool)> = runs
        .iter()
        .map(|r| {
            let rec = &r.run.record;
            (rec.config.as_str(), rec.status, rec.objective(), r.current)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("native", RunStatus::Optimal, Some(2), true),
            ("gecode", RunStatus::Wrong, None, true),
            ("clingo", RunStatus::Timeout, None, false),
        ]
    );
    assert_eq!(runs[0].run.difficulty, Some(Difficulty::Medium));
    assert_eq!(runs[0].run.record.host.hostname, "box");
    // The columns for SQL are copies of the typed record's fields.
    let row: (String, String, String, i64, i64, String) = sqlx::query_as(
        "SELECT status, host, cpu_model, cores, memory_bytes, dancehall_version
         FROM bench_runs WHERE unit_id = ?",
    )
    .bind(runs[0].unit as i64)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        row,
        (
            "optimal".into(),
            "box".into(),
            "cpu".into(),
            2,
            1024,
            "0.1.0".into()
        )
    );
    // How each bound was obtained, a column of the view read from the stored record: none
    // without a bound.
    let by: Vec<(String, Option<i64>, Option<String>)> = sqlx::query_as(
        "SELECT config, bound, bound_by FROM v_bench_runs WHERE job_id = ? AND config <> 'gecode'
         ORDER BY unit_id",
    )
    .bind(job as i64)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        by,
        vec![
            ("native".into(), Some(2), Some("sat".into())),
            ("clingo".into(), None, None),
        ]
    );
    let current: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM bench_current WHERE job_id = ?")
        .bind(job as i64)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(current, 2);
    // The refuted record is stored as wrong with the verifier's complaint; the audit keeps
    // what the worker sent for it (and nothing for the records that stood as sent).
    let message = runs[1].run.record.message.clone().unwrap_or_default();
    assert!(message.starts_with(crate::bench::JUDGE), "{message}");
    let audit: Vec<(i64, String)> = sqlx::query_as(
        "SELECT unit_id, run_record FROM report_audit WHERE job_id = ? ORDER BY unit_id",
    )
    .bind(job as i64)
    .fetch_all(&pool)
    .await
    .unwrap();
    let sent = |unit: u64| {
        audit
            .iter()
            .find(|(u, _)| *u == unit as i64)
            .map(|(_, r)| r.clone())
            .unwrap()
    };
    assert_eq!(sent(runs[0].unit), "");
    let wrong = RunRecord::from_json(&sent(runs[1].unit)).unwrap();
    assert_eq!(
        wrong.status,
        RunStatus::Optimal,
        "the worker's claim, as sent"
    );
}

/// The names in the `CHECK (column IN (...))` list of `table`, as the migrations left it.
async fn check_list(pool: &SqlitePool, table: &str, column: &str) -> Vec<String> {
    let sql: String =
        sqlx::query_scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
            .bind(table)
            .fetch_one(pool)
            .await
            .unwrap();
    let list = sql
        .split(&format!("CHECK ({column} IN"))
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap();
    list.split(',')
        .map(|w| {
            w.trim()
                .trim_matches(|c| c == '(' || c == '\'' || char::is_whitespace(c))
                .to_string()
        })
        .collect()
}

/// The migrations' CHECK lists of `bench_runs.status` and `bench_puzzles.status` are copies
/// of `RunStatus::ALL` and `PuzzleStatus::ALL` (SQLite cannot alter them in place): every
/// status can be stored, and no other; so are `bench_runs.family` and
/// `bound_certificates.verdict`.
#[tokio::test]
async fn the_status_checks_list_every_status() {
    use crate::job::RunStatus;
    use cores::sudoku::bench::PuzzleStatus;
    let (_dir, pool) = temp_db().await;
    assert_eq!(
        check_list(&pool, "bench_runs", "status").await,
        RunStatus::ALL
            .iter()
            .map(|s| s.as_str().to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        check_list(&pool, "bench_puzzles", "status").await,
        PuzzleStatus::ALL
            .iter()
            .map(|s| s.as_str().to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        check_list(&pool, "bench_runs", "family").await,
        cores::bench::Family::ALL
            .iter()
            .map(|f| f.as_str().to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        check_list(&pool, "bound_certificates", "verdict").await,
        cores::domino::Verdict::ALL
            .iter()
            .map(|v| v.as_str().to_string())
            .collect::<Vec<_>>()
    );
}

/// Weights (beyond 2^64), the job's core and each result's core survive the round trip; split
/// children and audits keep their weight; `job_total` is the weighted sum, exact past 2^128
/// (it was an error before weights and counts were `Count`).
#[tokio::test]
async fn weights_and_cores_round_trip_and_the_total_is_weighted() {
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let w1 = s.register(10, "a", "h", 1, "v");
    let w2 = s.register(10, "b", "h", 1, "v");
    let big = 10u128.pow(20);
    let mut new = new_job(3, None);
    for (u, w) in new.units.iter_mut().zip([big, 3, 1]) {
        u.weight = Count::from(w);
    }
    let core = CoreSpec::SudokuBands {
        box_rows: 3,
        box_cols: 3,
    };
    new.settings.core = core;
    new.settings.audit_share = 1.0;
    let job = s.add_job(11, new);
    flush(&mut s, &pool).await;
    let g = s.lease(12, w1, 3).unwrap().units;
    assert_eq!(g.len(), 3);
    // Unit 0 (weight 10^20) is counted by the Sudoku core; unit 1 (weight 3) by DLX, which
    // stops and hands back two subtrees; unit 2 (weight 1) finishes.
    let sudoku = UnitResult {
        core: CountCore::SudokuBands,
        ..result(5, vec![])
    };
    assert_eq!(
        s.report(13, w1, &g[0].lease.token, g[0].unit.id, sudoku)
            .verdict,
        Verdict::Accepted
    );
    let split = result(7, vec![vec![1, 4], vec![1, 5]]);
    s.report(13, w1, &g[1].lease.token, g[1].unit.id, split);
    s.report(13, w1, &g[2].lease.token, g[2].unit.id, result(2, vec![]));
    flush(&mut s, &pool).await;
    // The children and the audits of units 0 and 2, by worker b.
    let g = s.lease(14, w2, 10).unwrap().units;
    let mut weights: Vec<(Vec<u32>, bool, Count)> = g
        .iter()
        .map(|g| {
            (
                g.unit.prefix.clone(),
                g.unit.audit_of.is_some(),
                g.unit.weight.clone(),
            )
        })
        .collect();
    weights.sort();
    assert_eq!(
        weights,
        vec![
            (vec![0], true, Count::from(big)),
            (vec![1, 4], false, Count::from(3u8)),
            (vec![1, 5], false, Count::from(3u8)),
            (vec![2], true, Count::one()),
        ]
    );
    flush(&mut s, &pool).await;
    let snap = load(&pool).await.unwrap();
    assert_eq!(snap, s.snapshot());
    assert_eq!(snap.jobs[0].settings.core, core);
    let cores: Vec<CountCore> = snap.results.iter().map(|r| r.result.core).collect();
    assert_eq!(
        cores,
        vec![CountCore::SudokuBands, CountCore::Dlx, CountCore::Dlx]
    );
    let want = Count::from(big * 5 + 3 * 7 + 2);
    assert_eq!(job_total(&pool, job).await.unwrap(), want);
    let restored = Scheduler::restore(config(), snap, tokens());
    let st = restored.status(job).unwrap();
    assert_eq!(st.weighted_solutions, want);
    assert_eq!(st.solutions, Count::from(5u8 + 7 + 2));
    assert!(st.weighted);
    let stored: Vec<(String, String)> =
        sqlx::query_as("SELECT u.weight, r.core FROM units u JOIN unit_results r ON r.unit_id = u.id ORDER BY u.id")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(stored[0], (big.to_string(), "sudoku-bands".to_string()));
    let job_core: String = sqlx::query_scalar("SELECT core FROM jobs WHERE id = ?")
        .bind(job as i64)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(job_core, "sudoku-bands 3x3");

    // A total beyond u128 (it was `StoreError::Range`): a weight and a count past 2^128,
    // the factor too, written as decimal TEXT and read back exact.
    let mut new = new_job(2, None);
    let weight = Count::from(u128::MAX) * Count::from(3u8);
    new.units[0].weight = weight.clone();
    new.symmetry_factor = Count::from(u128::MAX);
    let job = s.add_job(20, new);
    let huge: Count = "38296278920738107863746324732012492486187417600000"
        .parse()
        .unwrap();
    for g in s.lease(21, w1, 10).unwrap().units {
        let r = UnitResult {
            solutions: huge.clone(),
            ..result(0, vec![])
        };
        s.report(22, w1, &g.lease.token, g.unit.id, r);
    }
    flush(&mut s, &pool).await;
    let huge_b = huge.as_biguint().clone();
    let want = huge_b.clone() * num_bigint::BigUint::from(u128::MAX) * 3u32 + huge_b.clone();
    assert_eq!(job_total(&pool, job).await.unwrap().as_biguint(), &want);
    assert_eq!(
        s.status(job).unwrap().weighted_solutions.as_biguint(),
        &want
    );
    let stored: Vec<(String, String)> = sqlx::query_as(
        "SELECT u.weight, r.solutions FROM units u JOIN unit_results r ON r.unit_id = u.id
         WHERE u.job_id = ? ORDER BY u.id",
    )
    .bind(job as i64)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(stored[0], (weight.to_string(), huge.to_string()));
    let factor: String = sqlx::query_scalar("SELECT symmetry_factor FROM jobs WHERE id = ?")
        .bind(job as i64)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(factor, u128::MAX.to_string());
    let snap = load(&pool).await.unwrap();
    assert_eq!(snap, s.snapshot());
    let restored = Scheduler::restore(config(), snap, tokens())
        .status(job)
        .unwrap();
    assert_eq!(restored.weighted_solutions.as_biguint(), &want);
    assert_eq!(restored.job.symmetry_factor, Count::from(u128::MAX));
    let l = ledger(&pool, job).await.unwrap().unwrap();
    assert_eq!(
        l.total().as_biguint(),
        &(want * num_bigint::BigUint::from(u128::MAX))
    );
}

#[tokio::test]
async fn a_batch_of_change_sets_touching_the_same_rows_is_written_in_order() {
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let mut sets = Vec::new();
    let w = s.register(10, "a", "h", 1, "v");
    let job = s.add_job(11, new_job(2_000, None));
    sets.push(s.take_changes());
    // Each unit is leased in one change set and reported (or re-split) in a later one of
    // the same batch, as concurrent calls of a group commit are. 2,000 units of 18 columns
    // split their statement at the bound on variables.
    for round in 0..3u64 {
        let got = s.lease(20 + round, w, 64).unwrap().units;
        sets.push(s.take_changes());
        for g in got {
            s.report(30 + round, w, &g.lease.token, g.unit.id, result(2, vec![]));
        }
        sets.push(s.take_changes());
    }
    apply_all(&pool, &sets).await.unwrap();
    assert_eq!(load(&pool).await.unwrap(), s.snapshot());
    assert_eq!(
        job_total(&pool, job).await.unwrap(),
        Count::from(2u32 * 3 * 64)
    );
}

/// The migration files in order, split before the one whose name starts with `at`.
fn migrations_split(at: &str) -> (Vec<std::path::PathBuf>, Vec<std::path::PathBuf>) {
    let migrations = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut files: Vec<_> = std::fs::read_dir(&migrations)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .partition(|p| p.file_name().unwrap().to_string_lossy().as_ref() < at)
}

/// Migration 5 (then every later one) rebuilds `bench_runs` and moves a domino record's objective, bound and
/// placement into its `answer`: a database written before it reads back into the same typed
/// record (the stored JSON of an older dancehall is kept, not lost).
#[tokio::test]
async fn the_families_migration_keeps_every_stored_domino_record() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
    let pool = SqlitePool::connect(&url).await.unwrap();
    let (before, after) = migrations_split("20250501000000");
    assert!(
        after[0]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("20250501000000"),
        "{after:?}"
    );
    for f in &before {
        sqlx::raw_sql(&std::fs::read_to_string(f).unwrap())
            .execute(&pool)
            .await
            .unwrap();
    }
    // A record as dancehall wrote it before families: objective, bound, placement on top.
    let old = r#"{"instance":"t1","config":"native","status":"optimal","termination":"none","objective":2,"bound":2,"wall_seconds":0.5,"cpu_seconds":null,"peak_memory_bytes":null,"cpu_measure":"thread","memory_measure":"none","time_limit_seconds":5.0,"memory_limit_bytes":null,"solver":"native","solver_version":"dancehall 0.1.0","command":[],"exit_code":null,"signal":null,"placement":[{"tile":0,"row":0,"col":0,"orientation":"H","mirrored":false},{"tile":1,"row":2,"col":0,"orientation":"H","mirrored":false}],"message":null,"host":{"hostname":"h","cpu_model":"c","cores":2,"memory_bytes":1,"kernel":"6.1","dancehall_version":"0.1.0"},"models":[]}"#;
    for sql in [
        "INSERT INTO jobs (id, name, state, prefix, symmetry_factor, audit_share, seed, dlx,
             dlx_sha256, spec, created_at, kind) VALUES (1, 'b', 'done', '', '1', 0, '0', '',
             '', '', 1000, 'benchmark')"
            .to_string(),
        "INSERT INTO units (id, job_id, prefix, state, created_at, task)
             VALUES (1, 1, '', 'done', 1000, '{\"instance_id\": \"t1\"}')"
            .to_string(),
        "INSERT INTO unit_results (unit_id, job_id, worker_id, solutions, nodes, updates,
             estimate_nodes, wall_seconds, cpu_seconds, host, remaining, accepted_at)
             VALUES (1, 1, NULL, '0', 0, 0, 0, 0.5, 0.5, 'h', '', 2000)"
            .to_string(),
        format!(
            "INSERT INTO bench_runs VALUES (1, 1, 't1', 'x', 'batch01.txt', 'easy', 'native',
                 'optimal', 'none', 2, 2, 0.5, NULL, NULL, 5.0, 'native', 'v', 'h', 'c', 2, 1,
                 '6.1', '0.1.0', '{old}', 2000)"
        ),
    ] {
        sqlx::query(&sql).execute(&pool).await.unwrap();
    }
    // The families migration, and every later one.
    for f in &after {
        sqlx::raw_sql(&std::fs::read_to_string(f).unwrap())
            .execute(&pool)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
    let runs = bench_runs(&pool, 1).await.unwrap();
    assert_eq!(runs.len(), 1);
    let r = &runs[0].run;
    assert_eq!(r.difficulty, Some(Difficulty::Easy));
    assert_eq!(r.record.family(), Family::Domino);
    assert_eq!((r.record.objective(), r.record.bound()), (Some(2), Some(2)));
    assert_eq!(r.record.placement().len(), 2);
    assert_eq!(r.record.placement()[1].row, 2);
    let family: String = sqlx::query_scalar("SELECT family FROM v_bench_runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(family, "domino");
}

/// A Sudoku run is stored with its per-unit figures in `bench_runs` and one `bench_puzzles`
/// row per puzzle (status, seconds, difficulty); the record reads back whole.
#[tokio::test]
async fn a_sudoku_run_is_stored_per_unit_and_per_puzzle() {
    use cores::bench::{Answer, HostInfo, RunRecord, Status};
    use cores::sudoku::bench::{PuzzleDifficulty, PuzzleRun, PuzzleStatus, Slice, SlicePuzzle};
    // Seed 000 section 1.3, Example 1, and its solution.
    let puzzle =
        ".125.487..........75.....23..41.87...2..5..4...34.95..48.....17..........357.169.";
    let solution =
        "612534879349287165758916423594128736827653941163479582486395217971862354235741698";
    let slice = Slice {
        difficulty_samples: 8,
        ..Slice::new(
            "ex.txt",
            3,
            3,
            vec![SlicePuzzle::new(1, puzzle), SlicePuzzle::new(2, puzzle)],
        )
    };
    let json = slice.to_json();
    let task = BenchTask {
        family: Family::Sudoku,
        instance_id: slice.id.clone(),
        instance_sha256: sha256_hex(&json),
        instance_json: json,
        batch: "ex.txt".into(),
        config: "ps12".into(),
        time_limit_seconds: 5.0,
        memory_limit_bytes: None,
        needs: None,
    };
    let run = |line, seconds| PuzzleRun {
        line,
        status: PuzzleStatus::Unique,
        seconds,
        solution: Some(solution.into()),
        other: None,
        difficulty: Some(PuzzleDifficulty {
            ps12_searches: 2,
            tree_nodes: 123.0,
            tree_nodes_std_err: 1.0,
            samples: 8,
        }),
        message: None,
        stats: None,
    };
    let mut record =
        RunRecord::blank_of(Family::Sudoku, &slice.id, "ps12", 5.0, HostInfo::default());
    record.status = Status::Solved;
    record.answer = Answer::Sudoku {
        puzzles: vec![run(1, 0.001), run(2, 0.003)],
    };
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let w = s.register(10, "a", "h", 1, "v");
    let file = format!("{puzzle}\n{puzzle}\n");
    let new = NewJob {
        kind: JobKind::Benchmark,
        manifest: Some("m".into()),
        files: vec![FrozenFile {
            kind: FileKind::Batch,
            name: "ex.txt".into(),
            sha256: sha256_hex(&file),
            text: file,
        }],
        units: vec![NewUnit {
            prefix: vec![],
            weight: Count::one(),
            estimate: None,
            task: Some(task),
            term: None,
            counted: None,
            split: false,
            parent: None,
        }],
        ..new_job(0, None)
    };
    let job = s.submit_benchmark(11, new).job;
    flush(&mut s, &pool).await;
    let g = s.lease(12, w, 1).unwrap().units.remove(0);
    let r = UnitResult {
        run_record_json: record.to_json(),
        ..result(0, vec![])
    };
    let out = s.report(13, w, &g.lease.token, g.unit.id, r);
    assert_eq!(out.verdict, Verdict::Accepted, "{}", out.message);
    flush(&mut s, &pool).await;
    assert_eq!(load(&pool).await.unwrap(), s.snapshot());
    // A solved slice is finished: a retry without statuses leaves it alone.
    assert_eq!(s.retry(14, job, &[]).unwrap(), 0);
    // The record the judge left as it was is stored once (bench_runs.record), not again in
    // the audit.
    let audit: Vec<(String, String)> =
        sqlx::query_as("SELECT verdict, run_record FROM report_audit WHERE job_id = ?")
            .bind(job as i64)
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(audit, vec![("accepted".to_string(), String::new())]);
    let runs = bench_runs(&pool, job).await.unwrap();
    assert_eq!(runs[0].run.record, record);
    assert_eq!(runs[0].run.difficulty, None);
    let (puzzles, answered, rate): (i64, i64, f64) = sqlx::query_as(
        "SELECT puzzles, puzzles_answered, puzzles_per_second FROM bench_runs WHERE job_id = ?",
    )
    .bind(job as i64)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((puzzles, answered), (2, 2));
    assert!((rate - 500.0).abs() < 1e-6, "{rate}");
    let rows: Vec<(i64, String, f64, i64)> = sqlx::query_as(
        "SELECT line, status, seconds, ps12_searches FROM v_bench_puzzles ORDER BY line",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        rows,
        vec![
            (1, "unique".to_string(), 0.001, 2),
            (2, "unique".to_string(), 0.003, 2)
        ]
    );
}

#[tokio::test]
async fn an_unfinished_jobs_ledger_lists_its_pending_units_and_is_not_complete() {
    let (_dir, pool) = temp_db().await;
    let mut s = Scheduler::new(config(), tokens());
    let w = s.register(1, "a", "h", 1, "v");
    let job = s.add_job(1, new_job(3, None));
    let g = s.lease(2, w, 2).unwrap().units;
    s.report(3, w, &g[0].lease.token, g[0].unit.id, result(4, vec![]));
    flush(&mut s, &pool).await;
    let l = ledger(&pool, job).await.unwrap().unwrap();
    assert_eq!(l.state, JobState::Running);
    assert!(!l.complete());
    assert_eq!(l.progress(), "running: 1 of 3 units counted");
    assert_eq!(l.rows.len(), 1);
    let pending: Vec<UnitState> = l.pending.iter().map(|p| p.state).collect();
    assert_eq!(pending, vec![UnitState::Leased, UnitState::Queued]);
    assert_eq!(l.dlx_sha256, sha256_hex("| a\na\n"));
    // Cancelled: still not a count.
    s.cancel(4, job).unwrap();
    flush(&mut s, &pool).await;
    let l = ledger(&pool, job).await.unwrap().unwrap();
    assert_eq!(l.state, JobState::Cancelled);
    assert!(!l.complete());
    // Finished: complete, nothing pending.
    let job = s.add_job(5, new_job(1, None));
    let g = s.lease(6, w, 1).unwrap().units;
    s.report(7, w, &g[0].lease.token, g[0].unit.id, result(2, vec![]));
    flush(&mut s, &pool).await;
    let l = ledger(&pool, job).await.unwrap().unwrap();
    assert!(l.complete(), "{}", l.progress());
    assert!(l.pending.is_empty());
}

#[tokio::test]
async fn imported_split_units_keep_their_state_and_children_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.db");
    let mut new = new_job(0, None);
    let unit =
        |prefix: Vec<u32>, counted: Option<u128>, split: bool, parent: Option<usize>| NewUnit {
            prefix,
            weight: Count::from(3u8),
            estimate: None,
            task: None,
            term: None,
            counted: counted.map(|n| result(n, vec![])),
            split,
            parent,
        };
    new.units = vec![
        unit(vec![0], Some(5), true, None),
        unit(vec![0, 1], Some(7), false, Some(0)),
        unit(vec![0, 2], None, false, Some(0)),
    ];
    let job = {
        let pool = open(&path).await.unwrap();
        let mut s = Scheduler::new(config(), tokens());
        let job = s.add_job(1, new);
        flush(&mut s, &pool).await;
        pool.close().await;
        job
    };
    let pool = open(&path).await.unwrap();
    let s = Scheduler::restore(config(), load(&pool).await.unwrap(), tokens());
    let units = s.job_units(job);
    let states: Vec<(UnitState, Option<u64>)> =
        units.iter().map(|(u, _)| (u.state, u.parent)).collect();
    let first = units[0].0.id;
    assert_eq!(
        states,
        vec![
            (UnitState::Split, None),
            (UnitState::Done, Some(first)),
            (UnitState::Queued, Some(first))
        ]
    );
    let st = s.status(job).unwrap();
    assert_eq!((st.units_done, st.units_queued), (2, 1));
    assert_eq!(st.weighted_solutions, Count::from(3u8 * (5 + 7)));
    let l = ledger(&pool, job).await.unwrap().unwrap();
    assert_eq!(l.rows[0].state, UnitState::Split);
    assert_eq!(l.rows[1].parent, Some(first));
    assert_eq!(l.pending[0].parent, Some(first));
}

/// One coordinator per database: the lock names its holder (pid, address), and a second
/// taker is refused with that name; once the holder lets go, the next one takes it and
/// writes itself.
#[test]
fn the_database_lock_names_its_holder_to_a_second_taker() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sub").join("x.db");
    let first = lock(&db, Some("http://127.0.0.1:4567")).unwrap();
    let me = std::process::id();
    match lock(&db, None) {
        Err(e @ StoreError::InUse { .. }) => assert_eq!(
            e.to_string(),
            format!(
                "the database {} is in use by another coordinator (pid {me}, at \
                 http://127.0.0.1:4567)",
                db.display()
            )
        ),
        other => panic!("{other:?}"),
    }
    drop(first);
    let _second = lock(&db, None).unwrap();
    let text = std::fs::read_to_string(dir.path().join("sub").join("x.db.lock")).unwrap();
    assert_eq!(text, format!("pid {me}\n"));
    assert_eq!(
        LockHolder::parse("").to_string(),
        "a process that did not say which"
    );
}

/// A unit's deaths, its leases ended as `died` and its alarm `died` are written and read back;
/// restarted, it stays held.
#[tokio::test]
async fn a_unit_held_for_its_deaths_survives_a_restart() {
    let (_dir, pool) = temp_db().await;
    let config = SchedulerConfig {
        deaths_limit: 2,
        ..config()
    };
    let mut s = Scheduler::new(config.clone(), tokens());
    let job = s.add_job(1, new_job(2, None));
    for now in 2..4 {
        let w = s.register(now, "local-0", "h", 1, "v");
        assert_eq!(s.lease(now, w, 1).unwrap().units[0].unit.id, 1);
        s.worker_died(now, w, "killed by signal 9 (SIGKILL)")
            .unwrap();
        flush(&mut s, &pool).await;
    }
    assert_eq!(load(&pool).await.unwrap(), s.snapshot());
    let deaths: i64 = sqlx::query_scalar("SELECT deaths FROM units WHERE id = 1")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(deaths, 2);
    let ends: Vec<String> =
        sqlx::query_scalar("SELECT end_reason FROM leases WHERE unit_id = 1 ORDER BY attempt")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(ends, ["died", "died"]);
    let alarms = job_alarms(&pool, job).await.unwrap();
    assert_eq!(alarms.len(), 1);
    assert_eq!((alarms[0].0.as_str(), alarms[0].1), ("died", Some(1)));
    let mut s = Scheduler::restore(config, load(&pool).await.unwrap(), tokens());
    assert_eq!(s.unit(1).unwrap().deaths, 2);
    let w = s.register(10, "b", "h", 1, "v");
    let ids: Vec<u64> = s
        .lease(10, w, 4)
        .unwrap()
        .units
        .iter()
        .map(|g| g.unit.id)
        .collect();
    assert_eq!(ids, [2]);
    assert_eq!(s.status(job).unwrap().units_held, 1);
}

/// An orbit count's units (made-up classes of a group of order 4 on the plain 4x4 Sudoku):
/// each carries its class term through the partition, the database and a restart, the
/// identity's term starts imported, an audit re-run keeps the term, and the ledger gives
/// the terms back with the group's order, so that it re-adds to the orbits.
#[tokio::test]
async fn orbit_terms_round_trip_and_the_ledger_re_adds_to_the_orbits() {
    use crate::job::{GroupChoice, OrbitTerm};
    use crate::partition::{partition_problem, Imported, PartitionSettings, Seed};
    let (_dir, pool) = temp_db().await;
    let built = cores::problems::ProblemSpec::sudoku(2, 2).build().unwrap();
    let term = |class: usize, class_size: u128, rep: &str| {
        crate::job::UnitTerm::Orbit(OrbitTerm {
            class,
            class_size,
            rep: rep.into(),
            group: GroupChoice::Full,
        })
    };
    let identity = Seed {
        imported: Some(Imported {
            solutions: Count::from(12u8),
            nodes: 0,
            core: CountCore::Dlx,
            split: false,
            wall_seconds: 0.0,
            source: "imported: ledger.csv, 288 / 4!".into(),
        }),
        term: Some(term(1, 1, "r0 1 2 3 c0 1 2 3")),
        ..Seed::new(vec![], Count::from(1u8))
    };
    let transpose = Seed {
        term: Some(term(2, 3, "t r0 1 2 3 c0 1 2 3")),
        ..Seed::new(vec![], Count::from(3u8))
    };
    let settings = PartitionSettings {
        unit_node_budget: 1,
        max_units: 100,
        estimate_samples: 1,
        seed: 0,
    };
    let seeds = vec![identity.clone(), transpose.clone()];
    let core = CoreSpec::SudokuOrbits {
        box_rows: 2,
        box_cols: 2,
    };
    let units = partition_problem(&built.problem, &[], &seeds, core, &settings).unwrap();
    assert_eq!(units.len(), 2, "one unit per class, never split");
    // Two units of one class, a term beside a plain unit, a two-band class in an orbit
    // count, terms under a core of another kind: refused by index.
    let twice = vec![identity.clone(), identity.clone()];
    let e = partition_problem(&built.problem, &[], &twice, core, &settings).unwrap_err();
    assert!(e.to_string().contains("units 0 and 1"), "{e}");
    let mixed = vec![identity.clone(), Seed::new(vec![0], Count::from(1u8))];
    let e = partition_problem(&built.problem, &[], &mixed, core, &settings).unwrap_err();
    assert!(e.to_string().starts_with("unit 1: "), "{e}");
    let band = cores::grids::two_band::TwoBandClass::all(2)
        .unwrap()
        .remove(0);
    let other_kind = vec![
        identity.clone(),
        Seed {
            term: Some(crate::job::UnitTerm::TwoBand(band)),
            ..Seed::new(vec![], Count::from(1u8))
        },
    ];
    let e = partition_problem(&built.problem, &[], &other_kind, core, &settings).unwrap_err();
    assert!(e.to_string().starts_with("unit 1: "), "{e}");
    let e = partition_problem(&built.problem, &[], &seeds, CoreSpec::Dlx, &settings).unwrap_err();
    assert!(e.to_string().starts_with("unit 0: "), "{e}");

    let mut s = Scheduler::new(config(), tokens());
    let w = s.register(1, "a", "h", 1, "v");
    let mut new = new_job(0, None);
    new.symmetry_factor = Count::one();
    new.settings.audit_share = 1.0;
    new.units = units;
    let job = s.add_job(2, new);
    flush(&mut s, &pool).await;
    assert_eq!(load(&pool).await.unwrap(), s.snapshot());
    let g = s.lease(3, w, 10).unwrap().units;
    assert_eq!(g.len(), 1, "the identity's term is imported, not leased");
    assert_eq!(g[0].unit.term, transpose.term);
    // Counted by another core (a worker that counts the prefix instead): refused.
    let wrong = s.report(4, w, &g[0].lease.token, g[0].unit.id, result(4, vec![]));
    assert_eq!(wrong.verdict, Verdict::Rejected, "{}", wrong.message);
    assert!(
        wrong
            .message
            .contains("class 2 was counted by the dlx core"),
        "{}",
        wrong.message
    );
    let g = s.lease(4, w, 10).unwrap().units;
    let term_result = |n| UnitResult {
        core: CountCore::SudokuOrbitTerm,
        ..result(n, vec![])
    };
    s.report(4, w, &g[0].lease.token, g[0].unit.id, term_result(4));
    flush(&mut s, &pool).await;
    // Its audit re-run (on another worker) counts the same class.
    let w = s.register(5, "b", "h2", 1, "v");
    let a = s.lease(5, w, 10).unwrap().units;
    assert_eq!(a.len(), 1);
    assert_eq!(
        (a[0].unit.audit_of, &a[0].unit.term),
        (Some(g[0].unit.id), &transpose.term)
    );
    s.report(6, w, &a[0].lease.token, a[0].unit.id, term_result(4));
    flush(&mut s, &pool).await;
    let snap = load(&pool).await.unwrap();
    assert_eq!(snap, s.snapshot());
    let stored: Vec<Option<String>> =
        sqlx::query_scalar("SELECT term FROM units WHERE job_id = ? ORDER BY id")
            .bind(job as i64)
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(stored.len(), 3);
    assert!(stored.iter().all(|t| t
        .as_deref()
        .is_some_and(|t| t.contains("\"group\":\"full\""))));

    let l = ledger(&pool, job).await.unwrap().unwrap();
    assert!(l.complete(), "{}", l.progress());
    let terms: Vec<(usize, String, String)> = l
        .rows
        .iter()
        .map(|r| {
            let class = r.term.as_ref().unwrap().class();
            (class, r.weight.to_string(), r.solutions.to_string())
        })
        .collect();
    let want = |c: usize, w: &str, n: &str| (c, w.to_string(), n.to_string());
    assert_eq!(terms, vec![want(1, "1", "12"), want(2, "3", "4")]);
    assert!(l.rows[0].host.starts_with("imported: ledger.csv"));
    assert_eq!(l.group_order(), Some(Count::from(4u8)));
    let terms = l
        .rows
        .iter()
        .map(|r| (r.weight.clone(), r.solutions.clone()));
    let orbits = cores::orbit_term::burnside_quotient(&l.group_order().unwrap(), terms);
    assert_eq!(orbits, Ok(Count::from(6u8)), "(1 x 12 + 3 x 4) / 4");
    // A job of plain units has no group order.
    let plain = s.add_job(7, new_job(1, Some(3)));
    flush(&mut s, &pool).await;
    assert_eq!(
        ledger(&pool, plain).await.unwrap().unwrap().group_order(),
        None
    );
}

/// The MiniZinc suite migration rebuilds `bench_runs` (with `bench_puzzles`, which refers to
/// it) for the family `mzn-suite` and the status `unsatisfiable`: the runs and puzzle rows
/// stored before it stay, every foreign key still resolves, and a MiniZinc suite's
/// `unsatisfiable` run can be stored.
#[tokio::test]
async fn the_mzn_suite_migration_keeps_runs_and_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
    let pool = SqlitePool::connect(&url).await.unwrap();
    let run = |sql: String| {
        let pool = pool.clone();
        async move {
            sqlx::raw_sql(&sql)
                .execute(&pool)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    };
    let (before, after) = migrations_split("20261128120000");
    for f in &before {
        run(std::fs::read_to_string(f).unwrap()).await;
    }
    run(
        "INSERT INTO jobs (id, name, state, prefix, symmetry_factor, audit_share, seed, dlx,
             dlx_sha256, spec, created_at, kind) VALUES (1, 's', 'done', '', '1', 0, '0', '',
             '', '', 1000, 'benchmark');
         INSERT INTO units (id, job_id, prefix, state, created_at, task)
             VALUES (1, 1, '', 'done', 1000, '{}'), (2, 1, '', 'done', 1000, '{}');
         INSERT INTO unit_results (unit_id, job_id, worker_id, solutions, nodes, updates,
             estimate_nodes, wall_seconds, cpu_seconds, host, remaining, accepted_at)
             VALUES (1, 1, NULL, '0', 0, 0, 0, 0.5, 0.5, 'h', '', 2000),
                    (2, 1, NULL, '0', 0, 0, 0, 0.5, 0.5, 'h', '', 2000);
         INSERT INTO bench_runs (unit_id, job_id, family, instance_id, instance_sha256, batch,
             config, status, termination, wall_seconds, time_limit_seconds, solver,
             solver_version, host, cpu_model, cores, memory_bytes, kernel, dancehall_version,
             record, accepted_at, puzzles)
             VALUES (1, 1, 'sudoku', 'p.txt:1-2', 'x', 'p.txt', 'ps12', 'solved', 'none', 0.5,
                     5.0, 'ps12', 'v', 'h', 'c', 2, 1, '6.1', '0.1.0', '{}', 2000, 2);
         INSERT INTO bench_puzzles (unit_id, line, status, seconds)
             VALUES (1, 1, 'unique', 0.1), (1, 2, 'unique', 0.2);"
            .into(),
    )
    .await;
    for f in &after {
        run(std::fs::read_to_string(f).unwrap()).await;
    }
    let count = |sql: &'static str| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(sql)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(count("SELECT COUNT(*) FROM bench_runs").await, 1);
    assert_eq!(count("SELECT COUNT(*) FROM v_bench_puzzles").await, 2);
    assert_eq!(
        count("SELECT COUNT(*) FROM pragma_foreign_key_check").await,
        0
    );
    let reference: String =
        sqlx::query_scalar("SELECT \"table\" FROM pragma_foreign_key_list('bench_puzzles')")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(reference, "bench_runs");
    run(
        "INSERT INTO bench_runs (unit_id, job_id, family, instance_id, instance_sha256, batch,
             config, status, termination, objective, wall_seconds, time_limit_seconds, solver,
             solver_version, host, cpu_model, cores, memory_bytes, kernel, dancehall_version,
             record, accepted_at)
             VALUES (2, 1, 'mzn-suite', 'k04', 'x', 'k04.dzn', 'gecode', 'unsatisfiable',
                     'none', -3, 0.5, 5.0, 'gecode', 'v', 'h', 'c', 2, 1, '6.1', '0.1.0', '{}',
                     2000)"
            .into(),
    )
    .await;
    assert_eq!(count("SELECT COUNT(*) FROM bench_current").await, 2);
}

/// Bound certificates come back as they were stored, only for the instances asked about,
/// oldest first; the verdict column takes the two verdicts and nothing else.
#[tokio::test]
async fn bound_certificates_round_trip_by_instance_content() {
    use cores::domino::{Certificate, Verdict as Cert};
    let (_dir, pool) = temp_db().await;
    let c = |sha: &str, tiles: u32, verdict: Cert| Certificate {
        instance: "b01-t3".into(),
        instance_sha256: sha.into(),
        tiles,
        verdict,
        placement: vec![],
        formula_sha256: "f".into(),
        solver: Some("cadical 1.5.3-2".into()),
        solver_seconds: Some(411.8),
        proof_bytes: Some(221_900_000),
        checker: Some("rate 0.3.0".into()),
        checker_seconds: Some(519.8),
        solver_peak_memory_bytes: None,
        checker_peak_memory_bytes: None,
        host: "h".into(),
        dancehall_version: "0".into(),
    };
    let first = c("aa", 23, Cert::Certified);
    let second = c("aa", 24, Cert::Certified);
    let other = c("bb", 23, Cert::Fits);
    for (i, x) in [&first, &other, &second].into_iter().enumerate() {
        assert_eq!(
            add_certificate(&pool, x, 1_000 + i as u64).await.unwrap(),
            i as u64 + 1
        );
    }
    assert_eq!(
        certificates(&pool, &["aa".into()]).await.unwrap(),
        vec![first.clone(), second]
    );
    assert_eq!(
        certificates(&pool, &["bb".into(), "cc".into()])
            .await
            .unwrap(),
        vec![other]
    );
    assert!(certificates(&pool, &[]).await.unwrap().is_empty());
    let refused = sqlx::query(
        "INSERT INTO bound_certificates
             (instance_id, instance_sha256, tiles, verdict, record, recorded_at)
         VALUES ('x', 'aa', 3, 'rejected', '{}', 0)",
    )
    .execute(&pool)
    .await;
    assert!(refused.is_err(), "{refused:?}");
    // A record whose columns were edited apart from it is corrupt, named.
    sqlx::query("UPDATE bound_certificates SET verdict = 'fits' WHERE id = 1")
        .execute(&pool)
        .await
        .unwrap();
    let e = certificates(&pool, &["aa".into()]).await.unwrap_err();
    assert!(e.to_string().contains("bound certificate 1"), "{e}");
}
