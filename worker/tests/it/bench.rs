//! Benchmark units over loopback: a worker runs (instance, configuration) tasks with the job's
//! frozen models, and the coordinator stores the verified records.
//!
//! Instances b01-e1 and b01-e2 are lines 1 and 2 of bench-specs/domino/suite-public/batch01.txt
//! (the public suite, ../shared/data/domino/suite-public); MiniZinc with Gecode and clingo are
//! installed by scripts/install-solvers.sh (scripts/test.sh runs it before the tests); missing,
//! they fail the test that needs them (`test_tools`).

use std::collections::BTreeMap;

use cores::bench::sha256_hex;
use proto::client;
use proto::v1 as pb;

use crate::{config, within, Coord};

const BATCH: &str = include_str!("../../../bench-specs/domino/suite-public/batch01.txt");

fn model(name: &str, text: &str) -> pb::FrozenFile {
    pb::FrozenFile {
        kind: "model".into(),
        name: name.into(),
        sha256: sha256_hex(text),
        text: text.into(),
    }
}

fn tasks(lines: &[&str], configs: &[&str]) -> Vec<pb::BenchTask> {
    let mut out = Vec::new();
    for line in lines {
        let id = cores::domino::parse_line(line).unwrap().id;
        for c in configs {
            out.push(pb::BenchTask {
                instance_id: id.clone(),
                instance_json: line.to_string(),
                instance_sha256: sha256_hex(line),
                config: c.to_string(),
                time_limit_seconds: 60.0,
                memory_limit_bytes: 0,
                batch: "batch01.txt".into(),
                family: "domino".into(),
                needs: String::new(),
            });
        }
    }
    out
}

async fn submit(
    coord: &mut Coord,
    name: &str,
    t: Vec<pb::BenchTask>,
    files: Vec<pb::FrozenFile>,
) -> pb::SubmitJobResponse {
    let req = pb::SubmitJobRequest {
        header: client::header(),
        name: name.into(),
        kind: pb::JobKind::Benchmark as i32,
        tasks: t,
        files,
        ..Default::default()
    };
    coord.jobs.submit_job(req).await.unwrap().into_inner()
}

/// (instance, config) -> status of the current runs.
async fn statuses(coord: &mut Coord, job: u64) -> BTreeMap<(String, String), String> {
    let req = pb::JobUnitsRequest {
        header: client::header(),
        job_id: job,
    };
    let units = coord.jobs.job_units(req).await.unwrap().into_inner().units;
    units
        .into_iter()
        .filter(|u| u.current)
        .map(|u| {
            let b = u.bench.unwrap();
            let rec = cores::bench::RunRecord::from_json(&u.run_record_json).unwrap();
            ((b.instance_id, b.config), rec.status.to_string())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_runs_benchmark_tasks_with_the_frozen_models() {
    let a = worker::bench::config("gecode-placement")
        .unwrap()
        .availability();
    let tool = format!("gecode-placement ({})", a.reason.unwrap_or_default());
    if !crate::test_tools::present(a.available, &tool, "run scripts/install-solvers.sh") {
        return;
    }
    let mut coord = Coord::start().await;
    let lines: Vec<&str> = BATCH.lines().take(2).collect();
    let configs = ["native", "gecode-placement", "chuffed", "no-such-solver"];
    let good = worker::bench::models::MODELS
        .iter()
        .map(|m| model(m.name, m.text))
        .collect();
    let job = submit(&mut coord, "quick", tasks(&lines, &configs), good).await;
    assert_eq!((job.units, job.resumed), (8, false));
    // The same models with a broken placement model: workers must run the frozen text.
    let broken = vec![model("domino-placement.mzn", "this is not MiniZinc\n")];
    let other = submit(
        &mut coord,
        "broken",
        tasks(&lines[..1], &["gecode-placement"]),
        broken,
    )
    .await;

    let summary = within(
        "the worker to go idle",
        worker::run(config(&coord.url, 2), std::future::pending()),
    )
    .await
    .unwrap();
    assert_eq!(summary.accepted, 9, "{summary:?}");

    let got = statuses(&mut coord, job.job_id).await;
    for id in ["b01-e1", "b01-e2"] {
        let s = |c: &str| got[&(id.to_string(), c.to_string())].as_str();
        assert_eq!(s("native"), "optimal");
        assert_eq!(s("gecode-placement"), "optimal");
        // Chuffed is not packaged here: unavailable, never failed.
        assert_eq!(s("chuffed"), "unavailable");
        assert_eq!(s("no-such-solver"), "error");
    }
    let info = coord.status(job.job_id).await;
    assert_eq!(info.state(), pb::JobState::Done);
    assert_eq!(info.run_statuses["optimal"], 4);
    assert!(info.alarms.is_empty(), "{:?}", info.alarms);
    let got = statuses(&mut coord, other.job_id).await;
    assert_eq!(got.values().collect::<Vec<_>>(), vec!["error"]);
    // ... and its record names the frozen model it ran, by hash.
    let req = pb::JobUnitsRequest {
        header: client::header(),
        job_id: other.job_id,
    };
    let unit = coord
        .jobs
        .job_units(req)
        .await
        .unwrap()
        .into_inner()
        .units
        .remove(0);
    let rec = cores::bench::RunRecord::from_json(&unit.run_record_json).unwrap();
    let ran = rec
        .models
        .iter()
        .find(|m| m.name == "domino-placement.mzn")
        .unwrap();
    assert_eq!(ran.sha256, sha256_hex("this is not MiniZinc\n"));

    // Resubmitting the same benchmark resumes it: every run is recorded, nothing is queued.
    let lines: Vec<&str> = BATCH.lines().take(2).collect();
    let good = worker::bench::models::MODELS
        .iter()
        .map(|m| model(m.name, m.text))
        .collect();
    let again = submit(&mut coord, "quick", tasks(&lines, &configs), good).await;
    assert_eq!(
        (
            again.job_id,
            again.resumed,
            again.units,
            again.units_skipped
        ),
        (job.job_id, true, 0, 8)
    );
    // Retry the errors: two new units, run again, still errors.
    let req = pb::RetryRunsRequest {
        header: client::header(),
        job_id: job.job_id,
        statuses: vec!["error".into()],
    };
    let retried = coord.jobs.retry_runs(req).await.unwrap().into_inner();
    assert_eq!(retried.queued, 2);
    let summary = within(
        "the worker to go idle again",
        worker::run(config(&coord.url, 1), std::future::pending()),
    )
    .await
    .unwrap();
    assert_eq!(summary.accepted, 2, "{summary:?}");
    assert_eq!(coord.status(job.job_id).await.state(), pb::JobState::Done);
    coord.stop().await;
}
