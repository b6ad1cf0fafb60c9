//! Benchmark jobs over the wire: submission checks, the coordinator's own verification of
//! reported run records (a refuted answer is stored as `wrong`, a record for another task is
//! rejected and the unit runs again), retry and resume. The worker here is hand-driven, so it
//! can lie.

use coordinator::Clock;
use cores::bench::sha256_hex;
use cores::bench::{HostInfo, RunRecord, Status};
use proto::client::header;
use proto::v1 as pb;

use crate::server::{lease, register, report, status, temp_db, Coord, TOKEN};

/// A 3x3 board with two tiles (values within k = 2).
const INSTANCE: &str =
    r#"{"id": "t1", "difficulty": "easy", "n": 3, "k": 2, "tiles": [[1,0,2],[2,2,0]]}"#;
/// Rows 0 and 2: no contact, legal.
const APART: &str = r#"[{"tile":0,"row":0,"col":0,"orientation":"H","mirrored":false},
                        {"tile":1,"row":2,"col":0,"orientation":"H","mirrored":false}]"#;
/// Rows 0 and 1, side by side over three cells with different values: illegal (seed 001 1A).
const CLASH: &str = r#"[{"tile":0,"row":0,"col":0,"orientation":"H","mirrored":false},
                        {"tile":1,"row":1,"col":0,"orientation":"H","mirrored":false}]"#;

fn task(config: &str) -> pb::BenchTask {
    pb::BenchTask {
        instance_id: "t1".into(),
        instance_json: INSTANCE.into(),
        instance_sha256: sha256_hex(INSTANCE),
        config: config.into(),
        time_limit_seconds: 5.0,
        memory_limit_bytes: 0,
        batch: "batch01.txt".into(),
        family: String::new(),
        needs: String::new(),
    }
}

fn request(tasks: Vec<pb::BenchTask>) -> pb::SubmitJobRequest {
    pb::SubmitJobRequest {
        header: header(),
        name: "wire".into(),
        kind: pb::JobKind::Benchmark as i32,
        tasks,
        files: vec![pb::FrozenFile {
            kind: "model".into(),
            name: "m.lp".into(),
            sha256: sha256_hex("% m\n"),
            text: "% m\n".into(),
        }],
        ..Default::default()
    }
}

fn record(config: &str, status: Status, placement: &str, objective: Option<u32>) -> pb::UnitResult {
    let host = HostInfo {
        hostname: "liar".into(),
        ..HostInfo::default()
    };
    let mut record = RunRecord {
        status,
        wall_seconds: 0.1,
        ..RunRecord::blank("t1", config, 5.0, host)
    };
    record.set_objective(objective);
    record.set_bound(objective);
    record.set_placement(serde_json::from_str(placement).unwrap());
    reported(&record)
}

/// What the lying worker reports for a benchmark unit: the record, nothing counted.
fn reported(record: &RunRecord) -> pb::UnitResult {
    pb::UnitResult {
        solutions: "0".into(),
        wall_seconds: 0.1,
        host: "liar".into(),
        run_record_json: record.to_json(),
        ..Default::default()
    }
}

#[tokio::test]
async fn the_coordinator_verifies_every_record_before_it_stores_it() {
    let (_dir, db) = temp_db();
    let c = Coord::start(&db, Clock::System).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;

    // Bad submissions: a hash that does not match, a pair given twice.
    let mut bad = task("native");
    bad.instance_sha256 = sha256_hex("something else");
    let e = jobs.submit_job(request(vec![bad])).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(e.message().contains("sha256"), "{}", e.message());
    let e = jobs
        .submit_job(request(vec![task("native"), task("native")]))
        .await
        .unwrap_err();
    assert!(e.message().contains("twice"), "{}", e.message());

    let sub = jobs
        .submit_job(request(vec![task("native"), task("gecode-basic")]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!((sub.units, sub.resumed), (2, false));
    let job = sub.job_id;
    let worker = register(&mut w, "liar").await;
    let got = lease(&mut w, worker, 8).await.units;
    assert_eq!(got.len(), 2);
    let by = |cfg: &str| {
        got.iter()
            .find(|u| u.bench.as_ref().unwrap().config == cfg)
            .unwrap()
            .clone()
    };
    let (native, gecode) = (by("native"), by("gecode-basic"));
    // A record for another configuration is refused; the unit goes back to the queue.
    let (v, msg) = report(
        &mut w,
        worker,
        &native,
        record("clingo", Status::Optimal, APART, Some(2)),
    )
    .await;
    assert_eq!(v, pb::ReportVerdict::Rejected, "{msg}");
    let native = lease(&mut w, worker, 8).await.units.remove(0);
    let (v, _) = report(
        &mut w,
        worker,
        &native,
        record("native", Status::Optimal, APART, Some(2)),
    )
    .await;
    assert_eq!(v, pb::ReportVerdict::Accepted);
    // A claimed optimum with an illegal placement is accepted as a record, stored as wrong.
    let (v, _) = report(
        &mut w,
        worker,
        &gecode,
        record("gecode-basic", Status::Optimal, CLASH, Some(2)),
    )
    .await;
    assert_eq!(v, pb::ReportVerdict::Accepted);

    let info = status(&mut jobs, job).await;
    assert_eq!(info.state(), pb::JobState::Done);
    assert_eq!(info.run_statuses.get("optimal"), Some(&1));
    assert_eq!(info.run_statuses.get("wrong"), Some(&1));
    let kinds: Vec<&str> = info.alarms.iter().map(|a| a.kind.as_str()).collect();
    assert!(
        kinds.contains(&"wrong-answer") && kinds.contains(&"rejected"),
        "{kinds:?}"
    );

    // Retry the wrong one: a new unit; resubmitting the same job resumes it.
    let r = jobs
        .retry_runs(pb::RetryRunsRequest {
            header: header(),
            job_id: job,
            statuses: vec!["wrong".into()],
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.queued, 1);
    let again = jobs
        .submit_job(request(vec![task("native"), task("gecode-basic")]))
        .await
        .unwrap()
        .into_inner();
    // The retried run is queued (not recorded), so one recorded run is skipped.
    assert_eq!(
        (
            again.job_id,
            again.resumed,
            again.units_skipped,
            again.units
        ),
        (job, true, 1, 0)
    );
    let e = jobs
        .retry_runs(pb::RetryRunsRequest {
            header: header(),
            job_id: job,
            statuses: vec!["proved".into()],
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    c.stop().await;

    // In the database: the wrong record says why, from the coordinator's verifier.
    let pool = coordinator::store::open(&db).await.unwrap();
    let runs = coordinator::store::bench_runs(&pool, job).await.unwrap();
    let status = |r: &coordinator::store::BenchRun| r.run.record.status;
    let wrong = runs.iter().find(|r| status(r) == Status::Wrong).unwrap();
    let message = wrong.run.record.message.as_deref().unwrap_or("");
    assert!(message.starts_with(coordinator::bench::JUDGE), "{message}");
    assert_eq!(
        runs.iter().filter(|r| status(r) == Status::Optimal).count(),
        1
    );
}

/// Seed 000 section 1.3, Example 1, and its solution as printed under the trace.
const EXAMPLE_1: &str =
    ".125.487..........75.....23..41.87...2..5..4...34.95..48.....17..........357.169.";
const SOLUTION: &str =
    "612534879349287165758916423594128736827653941163479582486395217971862354235741698";

/// A Sudoku slice of one puzzle (line 2 of `p.txt`) under `config`, with the frozen file.
fn sudoku_task(config: &str) -> (pb::BenchTask, pb::FrozenFile) {
    use cores::sudoku::bench::{Slice, SlicePuzzle};
    let slice = Slice::new("p.txt", 3, 3, vec![SlicePuzzle::new(2, EXAMPLE_1)]);
    let json = slice.to_json();
    let text = format!("# Example 1 of seed 000\n{EXAMPLE_1}\n");
    (
        pb::BenchTask {
            instance_id: slice.id.clone(),
            instance_sha256: sha256_hex(&json),
            instance_json: json,
            config: config.into(),
            time_limit_seconds: 5.0,
            memory_limit_bytes: 0,
            batch: "p.txt".into(),
            family: "sudoku".into(),
            needs: String::new(),
        },
        pb::FrozenFile {
            kind: "batch".into(),
            name: "p.txt".into(),
            sha256: sha256_hex(&text),
            text,
        },
    )
}

fn sudoku_record(task: &pb::BenchTask, grid: &str) -> pb::UnitResult {
    use cores::bench::{Answer, Family};
    use cores::sudoku::bench::{PuzzleRun, PuzzleStatus};
    let mut r = RunRecord::blank_of(
        Family::Sudoku,
        &task.instance_id,
        &task.config,
        5.0,
        HostInfo::default(),
    );
    r.status = Status::Solved;
    r.answer = Answer::Sudoku {
        puzzles: vec![PuzzleRun {
            status: PuzzleStatus::Unique,
            solution: Some(grid.into()),
            seconds: 0.001,
            ..PuzzleRun::timeout(2)
        }],
    };
    reported(&r)
}

/// A Sudoku benchmark over the wire: a worker's forged grid is stored `wrong` with an alarm,
/// the honest one `solved`; an unknown family and a slice that is not its file's line are
/// refused at submission.
#[tokio::test]
async fn a_forged_sudoku_grid_is_stored_wrong_over_the_wire() {
    let (_dir, db) = temp_db();
    let c = Coord::start(&db, Clock::System).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let (honest, file) = sudoku_task("ps12");
    let (liar, _) = sudoku_task("dlx");
    let submit = |tasks: Vec<pb::BenchTask>, files: Vec<pb::FrozenFile>| pb::SubmitJobRequest {
        header: header(),
        name: "sudoku-wire".into(),
        kind: pb::JobKind::Benchmark as i32,
        tasks,
        files,
        ..Default::default()
    };
    let mut unknown = honest.clone();
    unknown.family = "chess".into();
    let e = jobs
        .submit_job(submit(vec![unknown], vec![file.clone()]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(e.message().contains("unknown family"), "{}", e.message());
    let mut moved = file.clone();
    moved.text = format!("{EXAMPLE_1}\n");
    moved.sha256 = sha256_hex(&moved.text);
    let e = jobs
        .submit_job(submit(vec![honest.clone()], vec![moved]))
        .await
        .unwrap_err();
    assert!(
        e.message().contains("line 2 is not that line"),
        "{}",
        e.message()
    );

    let job = jobs
        .submit_job(submit(vec![honest.clone(), liar.clone()], vec![file]))
        .await
        .unwrap()
        .into_inner()
        .job_id;
    let worker = register(&mut w, "liar").await;
    let got = lease(&mut w, worker, 8).await.units;
    assert_eq!(got.len(), 2);
    let forged = SOLUTION.replacen('6', "7", 1);
    for u in &got {
        let task = u.bench.as_ref().unwrap();
        assert_eq!(task.family, "sudoku");
        let grid = if task.config == "dlx" {
            &forged
        } else {
            SOLUTION
        };
        let (v, msg) = report(&mut w, worker, u, sudoku_record(task, grid)).await;
        assert_eq!(v, pb::ReportVerdict::Accepted, "{msg}");
    }
    let info = status(&mut jobs, job).await;
    assert_eq!(info.state(), pb::JobState::Done);
    assert_eq!(info.run_statuses.get("solved"), Some(&1));
    assert_eq!(info.run_statuses.get("wrong"), Some(&1));
    assert!(
        info.alarms.iter().any(|a| a.kind == "wrong-answer"),
        "{:?}",
        info.alarms
    );
    c.stop().await;
    let pool = coordinator::store::open(&db).await.unwrap();
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT config, status FROM v_bench_puzzles ORDER BY config")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(
        rows,
        vec![
            ("dlx".to_string(), "wrong".to_string()),
            ("ps12".to_string(), "unique".to_string())
        ]
    );
}
