//! The gRPC surface: authentication, protocol version, a whole job counted by an in-process
//! worker on the real engine (with re-splits), duplicate and stale reports, restart on the
//! same database file. Lease expiry is driven by a manual clock, so nothing waits on time.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use coordinator::{Clock, Config};
use cores::xcc::{parse_dlx, Dlx, Limits, Outcome};
use proto::client::{self, header, JobsClient, WorkerClient};
use proto::v1 as pb;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub const TOKEN: &str = "test-token-1234";

/// n queens in DLX text: rows and columns primary, diagonals secondary.
fn queens(n: usize) -> String {
    let mut t = String::new();
    for i in 0..n {
        t += &format!("r{i} ");
    }
    for j in 0..n {
        t += &format!("c{j} ");
    }
    t.push('|');
    for d in 0..2 * n - 1 {
        t += &format!(" a{d} b{d}");
    }
    t.push('\n');
    for i in 0..n {
        for j in 0..n {
            t += &format!("r{i} c{j} a{} b{}\n", i + j, i + n - 1 - j);
        }
    }
    t
}

pub struct Coord {
    url: String,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), coordinator::Error>>,
}

impl Coord {
    pub async fn start(db: &Path, clock: Clock) -> Coord {
        Coord::start_with(db, clock, |_| {}).await
    }

    /// [`Coord::start`] with the configuration changed by `f` first.
    pub async fn start_with(db: &Path, clock: Clock, f: impl FnOnce(&mut Config)) -> Coord {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let mut config = Config::new(TOKEN);
        config.db_path = db.to_path_buf();
        config.lease_duration = Duration::from_secs(30);
        config.clock = clock;
        f(&mut config);
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(coordinator::serve(listener, config, async {
            let _ = rx.await;
        }));
        Coord {
            url,
            stop: Some(tx),
            task,
        }
    }

    pub async fn clients(&self, token: &str) -> (WorkerClient, JobsClient) {
        let ch = client::connect(&self.url, None).await.unwrap();
        (
            client::worker(ch.clone(), token).unwrap(),
            client::jobs(ch, token).unwrap(),
        )
    }

    pub async fn stop(mut self) {
        self.stop.take().unwrap().send(()).unwrap();
        self.task.await.unwrap().unwrap();
    }
}

fn manual_clock() -> (Clock, Arc<AtomicU64>) {
    let ms = Arc::new(AtomicU64::new(1_700_000_000_000));
    (Clock::Manual(ms.clone()), ms)
}

pub fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results").join("dancehall.db");
    (dir, db)
}

async fn submit(jobs: &mut JobsClient, dlx: &str, partition: pb::PartitionSettings) -> u64 {
    jobs.submit_job(pb::SubmitJobRequest {
        header: header(),
        name: "queens".into(),
        spec: "# test".into(),
        dlx: dlx.into(),
        prefix: vec![],
        symmetry_factor: "2".into(),
        partition: Some(partition),
        ..Default::default()
    })
    .await
    .unwrap()
    .into_inner()
    .job_id
}

pub(crate) async fn status(jobs: &mut JobsClient, job: u64) -> pb::JobInfo {
    jobs.job_status(pb::JobStatusRequest {
        header: header(),
        job_id: job,
    })
    .await
    .unwrap()
    .into_inner()
    .job
    .unwrap()
}

/// Every unit of `job` (`JobUnits`).
pub(crate) async fn units(jobs: &mut JobsClient, job: u64) -> Vec<pb::UnitInfo> {
    jobs.job_units(pb::JobUnitsRequest {
        header: header(),
        job_id: job,
    })
    .await
    .unwrap()
    .into_inner()
    .units
}

pub async fn register(w: &mut WorkerClient, name: &str) -> u64 {
    w.register(pb::RegisterRequest {
        header: header(),
        host: "localhost".into(),
        name: name.into(),
        threads: 1,
        software_version: "test".into(),
        capabilities: None,
    })
    .await
    .unwrap()
    .into_inner()
    .worker_id
}

/// One `Exchange`: `reports` (unit, result) delivered, then up to `max` units leased.
pub async fn exchange(
    w: &mut WorkerClient,
    worker: u64,
    reports: &[(pb::Unit, pb::UnitResult)],
    max: u32,
) -> pb::ExchangeResponse {
    w.exchange(pb::ExchangeRequest {
        header: header(),
        worker_id: worker,
        reports: reports
            .iter()
            .map(|(unit, result)| pb::UnitReport {
                lease_token: unit.lease_token.clone(),
                unit_id: unit.unit_id,
                result: Some(result.clone()),
            })
            .collect(),
        lease_max_units: max,
        lease_max_bench_units: max,
    })
    .await
    .unwrap()
    .into_inner()
}

pub async fn lease(w: &mut WorkerClient, worker: u64, max: u32) -> pb::ExchangeResponse {
    exchange(w, worker, &[], max).await
}

/// Counts one unit with the engine, as a worker does (stopping at the unit's node budget).
fn run_unit(dlx: &str, unit: &pb::Unit) -> pb::UnitResult {
    let problem = parse_dlx(dlx).unwrap();
    let mut d = Dlx::new(&problem);
    d.apply_prefix(&unit.prefix).unwrap();
    let limits = Limits {
        max_nodes: (unit.node_budget > 0).then_some(unit.node_budget),
        ..Limits::default()
    };
    let outcome = d.run_count(&limits);
    let remaining = match outcome {
        Outcome::Stopped { remaining } => remaining
            .into_iter()
            .map(|options| pb::Prefix { options })
            .collect(),
        _ => Vec::new(),
    };
    let st = d.stats();
    pb::UnitResult {
        solutions: st.solutions.to_string(),
        nodes: st.nodes,
        updates: st.updates,
        estimate_nodes: unit.estimate_nodes,
        wall_seconds: 0.001,
        cpu_seconds: 0.001,
        host: "test".into(),
        remaining,
        ..Default::default()
    }
}

pub async fn report(
    w: &mut WorkerClient,
    worker: u64,
    unit: &pb::Unit,
    result: pb::UnitResult,
) -> (pb::ReportVerdict, String) {
    let r = exchange(w, worker, &[(unit.clone(), result)], 0).await;
    assert_eq!(r.verdicts.len(), 1);
    assert!(r.units.is_empty(), "a report-only exchange leases nothing");
    (r.verdicts[0].verdict(), r.verdicts[0].message.clone())
}

/// An in-process worker: leases, fetches the job's problem once, counts, and reports each
/// batch of results in the call that leases the next batch, until the coordinator says there
/// is nothing left. Returns the reports it made (unit, result).
async fn work(mut w: WorkerClient, name: &str) -> Vec<(pb::Unit, pb::UnitResult)> {
    let id = register(&mut w, name).await;
    let mut problems: HashMap<u64, String> = HashMap::new();
    let mut done = Vec::new();
    let mut unreported: Vec<(pb::Unit, pb::UnitResult)> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the job did not finish");
        let got = exchange(&mut w, id, &unreported, 4).await;
        assert_eq!(got.verdicts.len(), unreported.len());
        for v in &got.verdicts {
            assert_eq!(v.verdict(), pb::ReportVerdict::Accepted, "{}", v.message);
        }
        done.append(&mut unreported);
        if got.units.is_empty() {
            if got.idle {
                return done;
            }
            // Another worker holds the last units: ask again.
            tokio::time::sleep(Duration::from_millis(got.retry_after_ms.min(20))).await;
            continue;
        }
        for unit in got.units {
            let dlx = match problems.get(&unit.job_id) {
                Some(dlx) => dlx.clone(),
                None => {
                    let job = w
                        .get_job(pb::GetJobRequest {
                            header: header(),
                            job_id: unit.job_id,
                        })
                        .await
                        .unwrap()
                        .into_inner();
                    problems.insert(unit.job_id, job.dlx.clone());
                    job.dlx
                }
            };
            let u = unit.clone();
            let result = tokio::task::spawn_blocking(move || run_unit(&dlx, &u))
                .await
                .unwrap();
            unreported.push((unit, result));
        }
    }
}

#[tokio::test]
async fn a_wrong_or_missing_token_is_unauthenticated() {
    let (_dir, db) = temp_db();
    let c = Coord::start(&db, Clock::System).await;
    let (mut w, mut jobs) = c.clients("wrong-token").await;
    let e = jobs
        .list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::Unauthenticated);
    let e = w
        .register(pb::RegisterRequest {
            header: header(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::Unauthenticated);
    // No token at all.
    let ch = client::connect(&c.url, None).await.unwrap();
    let mut bare = pb::jobs_client::JobsClient::new(ch);
    let e = bare
        .list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::Unauthenticated);
    // The right token passes.
    let (_, mut jobs) = c.clients(TOKEN).await;
    let list = jobs
        .list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap();
    assert!(list.into_inner().jobs.is_empty());
    c.stop().await;
}

#[tokio::test]
async fn another_protocol_version_is_refused_with_both_versions_named() {
    let (_dir, db) = temp_db();
    let c = Coord::start(&db, Clock::System).await;
    let (mut w, _) = c.clients(TOKEN).await;
    let e = w
        .register(pb::RegisterRequest {
            header: Some(pb::RequestHeader {
                protocol_version: proto::PROTOCOL_VERSION + 1,
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition);
    let msg = e.message();
    assert!(
        msg.contains(&format!("version {}", proto::PROTOCOL_VERSION)),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("version {}", proto::PROTOCOL_VERSION + 1)),
        "{msg}"
    );
    let e = w
        .exchange(pb::ExchangeRequest {
            header: None,
            worker_id: 1,
            lease_max_units: 1,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition);
    // A worker of the previous release (protocol 2, which had Lease and Report) is told why.
    let e = w
        .heartbeat(pb::HeartbeatRequest {
            header: Some(pb::RequestHeader {
                protocol_version: 2,
            }),
            worker_id: 1,
            lease_tokens: vec![],
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition);
    assert!(e.message().contains("version 2"), "{}", e.message());
    c.stop().await;
}

#[tokio::test]
async fn a_job_is_counted_exactly_by_workers_with_resplits_and_duplicates() {
    let (_dir, db) = temp_db();
    let c = Coord::start(&db, Clock::System).await;
    let (w, mut jobs) = c.clients(TOKEN).await;
    // 10 queens: 724 solutions (OEIS A000170). One unit per option of the root item (each
    // about 1,600 nodes), and a node limit per unit that makes them stop and hand back their
    // unexplored subtrees (dynamic re-split).
    let job = submit(
        &mut jobs,
        &queens(10),
        pb::PartitionSettings {
            unit_node_budget: u64::MAX,
            unit_node_limit: 400,
            estimate_samples: 32,
            seed: 1,
            ..Default::default()
        },
    )
    .await;
    let before = status(&mut jobs, job).await;
    assert_eq!(before.units_total, 10, "{before:?}");
    let (w2, _) = c.clients(TOKEN).await;
    let (a, b) = tokio::join!(work(w, "a"), work(w2, "b"));
    let st = status(&mut jobs, job).await;
    assert_eq!(st.state(), pb::JobState::Done);
    assert_eq!(st.solutions, "724");
    assert_eq!(st.symmetry_factor, "2");
    assert_eq!(st.solutions_times_symmetry, "1448");
    assert_eq!(st.units_done, st.units_total);
    assert!(
        st.units_total > before.units_total,
        "no unit was re-split: {st:?}"
    );
    assert!(st.units_total < 2_000, "{st:?}");
    assert!(st.alarms.is_empty());
    assert_eq!(
        (a.len() + b.len()) as u64,
        st.units_done - count_counted(&mut jobs, job).await
    );

    // The same report again: a duplicate, not counted.
    let (unit, result) = a.first().or(b.first()).unwrap().clone();
    let (mut w3, _) = c.clients(TOKEN).await;
    let id = register(&mut w3, "late").await;
    let (verdict, _) = report(&mut w3, id, &unit, result.clone()).await;
    assert_eq!(verdict, pb::ReportVerdict::Duplicate);
    // The same lease with another count: a mismatch and an alarm, still not counted.
    let mut wrong = result;
    wrong.solutions = (wrong.solutions.parse::<u128>().unwrap() + 1).to_string();
    let (verdict, _) = report(&mut w3, id, &unit, wrong).await;
    assert_eq!(verdict, pb::ReportVerdict::Mismatch);
    let st = status(&mut jobs, job).await;
    assert_eq!(st.solutions, "724");
    assert_eq!(st.alarms.len(), 1);
    assert_eq!(st.alarms[0].kind, "mismatch");

    // The database agrees: one result per unit, the same total.
    c.stop().await;
    let pool = coordinator::store::open(&db).await.unwrap();
    assert_eq!(
        coordinator::store::job_total(&pool, job).await.unwrap(),
        cores::count::Count::from(724u32)
    );
    let (results, units): (i64, i64) = sqlx::query_as(
        "SELECT COUNT(*), COUNT(DISTINCT unit_id) FROM unit_results WHERE job_id = ?",
    )
    .bind(job as i64)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(results, units);
    let audit: Vec<(String, i64)> = sqlx::query_as(
        "SELECT verdict, COUNT(*) FROM report_audit GROUP BY verdict ORDER BY verdict",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(audit.contains(&("duplicate".into(), 1)), "{audit:?}");
    assert!(audit.contains(&("mismatch".into(), 1)), "{audit:?}");
}

/// Units counted by the coordinator at partition time (no worker report).
async fn count_counted(jobs: &mut JobsClient, job: u64) -> u64 {
    units(jobs, job)
        .await
        .iter()
        .filter(|u| u.has_result && u.worker_id == 0)
        .count() as u64
}

#[tokio::test]
async fn an_expired_lease_is_stale_and_its_unit_goes_back_to_the_queue() {
    let (_dir, db) = temp_db();
    let (clock, ms) = manual_clock();
    let c = Coord::start(&db, clock).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let dlx = queens(6);
    let job = submit(&mut jobs, &dlx, pb::PartitionSettings::default()).await;
    let a = register(&mut w, "a").await;
    let b = register(&mut w, "b").await;
    let first = lease(&mut w, a, 1).await.units.remove(0);
    assert_eq!(first.attempt, 1);
    // Past the 30 s lease: the token is no longer valid anywhere.
    ms.fetch_add(31_000, Ordering::SeqCst);
    let hb = w
        .heartbeat(pb::HeartbeatRequest {
            header: header(),
            worker_id: a,
            lease_tokens: vec![first.lease_token.clone()],
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(hb.invalid, vec![first.lease_token.clone()]);
    let result = run_unit(&dlx, &first);
    let (verdict, msg) = report(&mut w, a, &first, result.clone()).await;
    assert_eq!(verdict, pb::ReportVerdict::Stale, "{msg}");
    assert_eq!(status(&mut jobs, job).await.solutions, "0");
    // The unit is first in line again, on its second attempt, with a new token.
    let again = lease(&mut w, b, 1).await.units.remove(0);
    assert_eq!(again.unit_id, first.unit_id);
    assert_eq!(again.attempt, 2);
    assert_ne!(again.lease_token, first.lease_token);
    let (verdict, _) = report(&mut w, b, &again, result.clone()).await;
    assert_eq!(verdict, pb::ReportVerdict::Accepted);
    assert_eq!(status(&mut jobs, job).await.solutions, result.solutions);
    c.stop().await;
}

async fn release(w: &mut WorkerClient, worker: u64, unit: &pb::Unit, failure: &str) -> u32 {
    w.release(pb::ReleaseRequest {
        header: header(),
        worker_id: worker,
        lease_tokens: vec![unit.lease_token.clone()],
        failure: failure.into(),
    })
    .await
    .unwrap()
    .into_inner()
    .released
}

/// Regression: a unit whose run failed on every worker was leased again at once, forever.
#[tokio::test]
async fn a_unit_released_as_failed_three_times_is_held_through_a_restart() {
    let (_dir, db) = temp_db();
    let (clock, _) = manual_clock();
    let dlx = queens(6);
    let c = Coord::start(&db, clock.clone()).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let job = submit(&mut jobs, &dlx, pb::PartitionSettings::default()).await;
    let a = register(&mut w, "a").await;
    // Handed back unrun once (not a failure), then failed three times.
    let first = lease(&mut w, a, 1).await.units.remove(0);
    assert_eq!(release(&mut w, a, &first, "").await, 1);
    for attempt in 2..=4 {
        let unit = lease(&mut w, a, 1).await.units.remove(0);
        assert_eq!((unit.unit_id, unit.attempt), (first.unit_id, attempt));
        assert_eq!(
            release(&mut w, a, &unit, "the search panicked: boom").await,
            1
        );
    }
    // The other units run to the end; the held one is never leased again.
    let reports = work(w.clone(), "b").await;
    assert!(reports.iter().all(|(u, _)| u.unit_id != first.unit_id));
    let st = status(&mut jobs, job).await;
    assert_eq!(st.state(), pb::JobState::Running);
    assert_eq!((st.units_leased, st.units_queued, st.units_held), (0, 1, 1));
    assert_eq!(st.units_done + 1, st.units_total);
    let alarms: Vec<&pb::Alarm> = st.alarms.iter().filter(|a| a.kind == "failed").collect();
    assert_eq!(alarms.len(), 1, "{:?}", st.alarms);
    assert_eq!(alarms[0].unit_id, first.unit_id);
    assert!(
        alarms[0]
            .message
            .contains("failed 3 times (the search panicked: boom)"),
        "{}",
        alarms[0].message
    );
    c.stop().await;

    // Restarted on the same file: still held, its failures read back.
    let c = Coord::start(&db, clock).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let a = register(&mut w, "a").await;
    let got = lease(&mut w, a, 4).await;
    assert!(got.units.is_empty() && got.idle);
    let st = status(&mut jobs, job).await;
    assert_eq!((st.units_queued, st.units_held), (1, 1));
    let units = units(&mut jobs, job).await;
    let held = units.iter().find(|u| u.unit_id == first.unit_id).unwrap();
    assert_eq!((held.attempts, held.failures), (4, 3));
    c.stop().await;
}

#[tokio::test]
async fn a_restarted_coordinator_resumes_its_jobs() {
    let (_dir, db) = temp_db();
    let (clock, ms) = manual_clock();
    let dlx = queens(8);
    let c = Coord::start(&db, clock.clone()).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let job = submit(&mut jobs, &dlx, pb::PartitionSettings::default()).await;
    let a = register(&mut w, "a").await;
    let units = lease(&mut w, a, 2).await.units;
    let (v, _) = report(&mut w, a, &units[0], run_unit(&dlx, &units[0])).await;
    assert_eq!(v, pb::ReportVerdict::Accepted);
    let done_before = status(&mut jobs, job).await;
    c.stop().await;

    // Same file, new process state: the finished unit stays finished, the live lease is
    // still valid until its deadline, and the job runs to the exact count.
    let c = Coord::start(&db, clock).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let st = status(&mut jobs, job).await;
    assert_eq!(st.units_done, done_before.units_done);
    assert_eq!(st.solutions, done_before.solutions);
    assert_eq!(st.units_leased, 1);
    ms.fetch_add(10_000, Ordering::SeqCst);
    let (v, msg) = report(&mut w, a, &units[1], run_unit(&dlx, &units[1])).await;
    assert_eq!(v, pb::ReportVerdict::Accepted, "{msg}");
    let (v, _) = report(&mut w, a, &units[0], run_unit(&dlx, &units[0])).await;
    assert_eq!(v, pb::ReportVerdict::Duplicate);
    work(w, "b").await;
    let st = status(&mut jobs, job).await;
    assert_eq!(st.state(), pb::JobState::Done);
    // 8 queens: 92 solutions (OEIS A000170).
    assert_eq!(st.solutions, "92");
    c.stop().await;
}

#[tokio::test]
async fn bad_submissions_are_refused_and_nothing_is_written() {
    let (_dir, db) = temp_db();
    let c = Coord::start(&db, Clock::System).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let mut req = pb::SubmitJobRequest {
        header: header(),
        name: "bad".into(),
        dlx: "a b\nc\n".into(),
        ..Default::default()
    };
    let e = jobs.submit_job(req.clone()).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(e.message().contains("line 2"), "{}", e.message());
    req.dlx = queens(4);
    req.symmetry_factor = "-3".into();
    let e = jobs.submit_job(req.clone()).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    req.symmetry_factor = "1".into();
    req.prefix = vec![0, 1];
    let e = jobs.submit_job(req).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(e.message().contains("prefix"), "{}", e.message());
    let list = jobs
        .list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap()
        .into_inner();
    assert!(list.jobs.is_empty());
    // Unknown ids are NOT_FOUND.
    let e = w
        .exchange(pb::ExchangeRequest {
            header: header(),
            worker_id: 999,
            lease_max_units: 1,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound);
    let e = jobs
        .job_status(pb::JobStatusRequest {
            header: header(),
            job_id: 5,
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound);
    c.stop().await;
}

/// A submission bigger than the coordinator's message limit: refused as one message, taken
/// as a stream (`SubmitJobStream`, cut up by `client::submit_job`) and counted exactly. The
/// limit is 4 KiB here, where a million 12x12 units make about 170 MB against 256 MiB. A
/// stream past the coordinator's limit on a whole submission is refused, and nothing held.
#[tokio::test]
async fn a_submission_past_the_message_limit_is_streamed_and_counted_exactly() {
    let (_dir, db) = temp_db();
    let c = Coord::start_with(&db, Clock::System, |config| {
        config.max_message_bytes = 4 << 10;
    })
    .await;
    let (w, mut jobs) = c.clients(TOKEN).await;
    // 10 queens (724 solutions, OEIS A000170) as weighted units: one per placement of
    // queens on rows 0 to 3 that attack no other (option i * 10 + j puts one on row i,
    // column j), which together cover every solution once.
    let n = 10usize;
    let mut prefixes: Vec<Vec<u32>> = vec![Vec::new()];
    for row in 0..4 {
        prefixes = prefixes
            .into_iter()
            .flat_map(|p| {
                (0..n).filter_map(move |col| {
                    let free = p.iter().enumerate().all(|(r, &o)| {
                        let c = o as usize % n;
                        c != col && row - r != col.abs_diff(c)
                    });
                    free.then(|| [p.clone(), vec![(row * n + col) as u32]].concat())
                })
            })
            .collect();
    }
    let req = pb::SubmitJobRequest {
        header: header(),
        name: "streamed".into(),
        dlx: queens(n),
        partition: Some(pb::PartitionSettings {
            unit_node_budget: u64::MAX,
            ..Default::default()
        }),
        units: prefixes
            .iter()
            .map(|options| pb::WeightedPrefix {
                options: options.clone(),
                weight: "1".into(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    assert!(prost::Message::encoded_len(&req) > 4 << 10);
    let e = jobs.submit_job(req.clone()).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::OutOfRange, "{e:?}");
    assert!(
        client::submission_messages(req.clone(), 2 << 10).len() > 2,
        "a stream of several messages"
    );
    let resp = client::submit_job(&mut jobs, req.clone(), 2 << 10)
        .await
        .unwrap();
    assert_eq!(resp.units, prefixes.len() as u64);
    // Every unit arrived once: a unit lost would make the total short, one twice is refused
    // at submission (the same options chosen twice).
    let (w2, _) = c.clients(TOKEN).await;
    tokio::join!(work(w, "a"), work(w2, "b"));
    let st = status(&mut jobs, resp.job_id).await;
    assert_eq!(st.state(), pb::JobState::Done);
    assert_eq!(st.units_total, prefixes.len() as u64);
    assert_eq!(st.solutions, "724");

    // A later message that says more than units or tasks is refused, and nothing is
    // submitted.
    let mut messages = client::submission_messages(
        pb::SubmitJobRequest {
            name: "other".into(),
            ..req.clone()
        },
        2 << 10,
    );
    messages[1].name = "sneaked".into();
    let e = jobs
        .submit_job_stream(tokio_stream::iter(messages))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(e.message().contains("message 1"), "{}", e.message());
    let list = jobs
        .list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.jobs.len(), 1);
    c.stop().await;

    // A coordinator whose submissions may not pass 8 KiB refuses the stream at the message
    // that passes it, and holds no job; a single message past it too (its message limit is
    // larger here).
    let (_dir2, db2) = temp_db();
    let small = Coord::start_with(&db2, Clock::System, |config| {
        config.max_message_bytes = 64 << 10;
        config.max_submission_bytes = 8 << 10;
    })
    .await;
    let (_, mut jobs) = small.clients(TOKEN).await;
    let e = jobs.submit_job(req.clone()).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::ResourceExhausted, "{e:?}");
    assert!(e.message().contains("at message 0"), "{}", e.message());
    let total: usize = client::submission_messages(req.clone(), 2 << 10)
        .iter()
        .map(prost::Message::encoded_len)
        .sum();
    assert!(total > 8 << 10, "{total}");
    let e = client::submit_job(&mut jobs, req, 2 << 10)
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::ResourceExhausted, "{e:?}");
    assert!(
        e.message().contains("limit of 8192 bytes at message"),
        "{}",
        e.message()
    );
    let list = jobs
        .list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap()
        .into_inner();
    assert!(list.jobs.is_empty(), "{:?}", list.jobs);
    small.stop().await;
}

/// Runs openssl (present on the project's machines) to make a CA and a server certificate for
/// 127.0.0.1 signed by it.
fn make_certs(dir: &Path) {
    let sh = |cmd: &str| {
        let st = std::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .current_dir(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("run sh");
        assert!(st.success(), "openssl step failed: {cmd}");
    };
    let ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
    sh(&format!(
        "openssl req -x509 {ec} -keyout ca.key -out ca.pem -days 2 -subj /CN=dancehall-test-ca"
    ));
    sh(&format!(
        "openssl req {ec} -keyout server.key -out server.csr -subj /CN=127.0.0.1"
    ));
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    sh(
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
        -out server.pem -days 2 -extfile ext.cnf",
    );
}

#[tokio::test]
async fn tls_serves_clients_that_trust_the_ca_and_only_those() {
    let (dir, db) = temp_db();
    make_certs(dir.path());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut config = Config::new(TOKEN);
    config.db_path = db;
    config.tls = Some(coordinator::TlsConfig {
        cert: dir.path().join("server.pem"),
        key: dir.path().join("server.key"),
    });
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(coordinator::serve(listener, config, async {
        let _ = rx.await;
    }));
    let url = format!("https://127.0.0.1:{port}");
    let ch = client::connect(&url, Some(&dir.path().join("ca.pem")))
        .await
        .unwrap();
    let mut jobs = client::jobs(ch, TOKEN).unwrap();
    let list = jobs
        .list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap();
    assert!(list.into_inner().jobs.is_empty());
    // Plain HTTP/2 to the TLS port gets no answer.
    let plain = format!("http://127.0.0.1:{port}");
    let outcome = match client::connect(&plain, None).await {
        Ok(ch) => client::jobs(ch, TOKEN)
            .unwrap()
            .list_jobs(pb::ListJobsRequest { header: header() })
            .await
            .map(|_| ()),
        Err(_) => Err(tonic::Status::unavailable("no connection")),
    };
    assert!(outcome.is_err());
    // https without the CA certificate is refused before connecting.
    assert!(client::connect(&url, None).await.is_err());
    tx.send(()).unwrap();
    task.await.unwrap().unwrap();
}

/// A coordinator on `db` that has answered a call (so it holds the database's lock).
async fn serving(db: &Path) -> Coord {
    let c = Coord::start(db, Clock::System).await;
    let (_w, mut jobs) = c.clients(TOKEN).await;
    jobs.list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap();
    c
}

#[tokio::test]
async fn a_second_coordinator_on_the_same_database_is_refused() {
    let (_dir, db) = temp_db();
    let c = serving(&db).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut config = Config::new(TOKEN);
    config.db_path = db.clone();
    let e = coordinator::serve(listener, config, std::future::pending())
        .await
        .unwrap_err();
    assert!(e.to_string().contains("another coordinator"), "{e}");
    c.stop().await;
    // Stopped: the file is free again.
    serving(&db).await.stop().await;
}

/// Runs `sql` on the database from another connection (as a failing disk or a careless
/// operator would change it under the coordinator).
async fn tamper(db: &Path, sql: &str) {
    use sqlx::Connection;
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    sqlx::query(sql).execute(&mut conn).await.unwrap();
}

#[tokio::test]
async fn a_failed_write_is_an_error_and_an_unreloadable_database_stops_the_coordinator() {
    let (_dir, db) = temp_db();
    let (clock, _ms) = manual_clock();
    let dlx = queens(8);
    let c = Coord::start(&db, clock).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let job = submit(&mut jobs, &dlx, pb::PartitionSettings::default()).await;
    let a = register(&mut w, "a").await;
    let units = lease(&mut w, a, 1).await.units;
    // A write that fails (its table is gone) is INTERNAL, never an answer from memory; the
    // state is reloaded from the database, which cannot be read either: serving stops.
    tamper(&db, "DROP TABLE report_audit").await;
    tamper(&db, "DROP TABLE alarms").await;
    let r = w
        .exchange(pb::ExchangeRequest {
            header: header(),
            worker_id: a,
            reports: vec![pb::UnitReport {
                lease_token: units[0].lease_token.clone(),
                unit_id: units[0].unit_id,
                result: Some(run_unit(&dlx, &units[0])),
            }],
            ..Default::default()
        })
        .await;
    assert_eq!(r.unwrap_err().code(), tonic::Code::Internal);
    let ended = tokio::time::timeout(Duration::from_secs(30), c.task)
        .await
        .expect("the coordinator stops serving")
        .unwrap();
    let err = ended.unwrap_err().to_string();
    assert!(err.contains("neither be written nor reloaded"), "{err}");
    let _ = job;
}

#[tokio::test]
async fn an_unreadable_report_is_rejected_alone_in_its_batch() {
    let (_dir, db) = temp_db();
    let c = Coord::start(&db, Clock::System).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let dlx = queens(6);
    submit(&mut jobs, &dlx, pb::PartitionSettings::default()).await;
    let a = register(&mut w, "a").await;
    let units = lease(&mut w, a, 2).await.units;
    assert_eq!(
        units.len(),
        2,
        "6 queens cut at the root has more than 2 units"
    );
    let good = run_unit(&dlx, &units[0]);
    let mut bad = run_unit(&dlx, &units[1]);
    bad.solutions = "-1".into();
    let batch = [(units[0].clone(), good), (units[1].clone(), bad)];
    let r = exchange(&mut w, a, &batch, 1).await;
    let verdicts: Vec<_> = r.verdicts.iter().map(|v| v.verdict()).collect();
    assert_eq!(
        verdicts,
        [pb::ReportVerdict::Accepted, pb::ReportVerdict::Rejected]
    );
    assert!(
        r.verdicts[1].message.contains("solutions"),
        "{}",
        r.verdicts[1].message
    );
    assert_eq!(r.units.len(), 1, "the lease of the same call still happens");
    // And one whose token cannot be read either.
    let r = w
        .exchange(pb::ExchangeRequest {
            header: header(),
            worker_id: a,
            reports: vec![pb::UnitReport {
                lease_token: String::new(),
                unit_id: 99,
                result: Some(run_unit(&dlx, &units[0])),
            }],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.verdicts[0].verdict(), pb::ReportVerdict::Rejected);
    c.stop().await;
    // Audited like every other verdict, and the job carries an alarm for its unit, which
    // went back to the queue.
    let pool = coordinator::store::open(&db).await.unwrap();
    let audit: Vec<(String, Option<i64>, i64, String)> = sqlx::query_as(
        "SELECT verdict, unit_id, claimed_unit_id, reason FROM report_audit ORDER BY id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(audit.len(), 3, "{audit:?}");
    assert_eq!(audit[0].0, "accepted");
    let bad = units[1].unit_id as i64;
    assert_eq!(audit[1].0, "rejected");
    assert_eq!((audit[1].1, audit[1].2), (Some(bad), bad));
    assert!(audit[1].3.starts_with("unreadable report:"), "{audit:?}");
    assert!(audit[1].3.contains("solutions"), "{audit:?}");
    assert_eq!(audit[2].0, "rejected");
    assert_eq!(
        (audit[2].1, audit[2].2),
        (None, 99),
        "an unknown token names no unit"
    );
    assert!(audit[2].3.contains("lease token"), "{audit:?}");
    let alarms: Vec<(String, i64)> = sqlx::query_as("SELECT kind, unit_id FROM alarms")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(alarms, [("rejected".to_string(), bad)]);
}

#[tokio::test]
async fn silent_connections_are_closed_and_connections_are_bounded() {
    use tokio::io::AsyncReadExt;
    let (_dir, db) = temp_db();
    let c = Coord::start_with(&db, Clock::System, |cfg| {
        cfg.connections = coordinator::config::ConnLimits {
            max_connections: 2,
            first_byte_timeout: Duration::from_millis(300),
        };
    })
    .await;
    let addr = c.url.trim_start_matches("http://").to_string();
    let list = |mut jobs: JobsClient| async move {
        jobs.list_jobs(pb::ListJobsRequest { header: header() })
            .await
            .map(|r| r.into_inner().jobs.len())
    };
    // Two clients connect and say nothing: they hold both slots until they are closed for
    // their silence (no token was ever asked of them).
    let mut silent = Vec::new();
    for _ in 0..2 {
        silent.push(tokio::net::TcpStream::connect(&addr).await.unwrap());
    }
    for s in &mut silent {
        // The server speaks first (its HTTP/2 settings); read until it hangs up.
        let closed = async {
            let mut b = [0u8; 256];
            while let Ok(n) = s.read(&mut b).await {
                if n == 0 {
                    break;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), closed)
            .await
            .expect("a silent connection is closed");
    }
    // Then real clients are served; two of them hold both slots.
    let (_, a) = c.clients(TOKEN).await;
    let (_, b) = c.clients(TOKEN).await;
    assert_eq!(list(a.clone()).await.unwrap(), 0);
    assert_eq!(list(b.clone()).await.unwrap(), 0);
    // A third waits (in the kernel's backlog) while they stay...
    let third = tokio::spawn(async move {
        let ch = client::connect(&c.url, None).await.unwrap();
        let n = list(client::jobs(ch, TOKEN).unwrap()).await.unwrap();
        (n, c)
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !third.is_finished(),
        "a third connection was served beyond the bound"
    );
    // ...and is served once one of them hangs up.
    drop(a);
    let (n, c) = tokio::time::timeout(Duration::from_secs(10), third)
        .await
        .expect("the third client is served once a slot is free")
        .unwrap();
    assert_eq!(n, 0);
    drop(b);
    c.stop().await;
}
