//! Register, count, report, exit when idle; refusal; a coordinator that comes up late.

use std::time::Duration;

use tonic::Code;

use crate::{config, partition, queens, spawn_worker, within, Coord};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_counts_a_job_and_exits_when_idle() {
    let mut coord = Coord::start().await;
    let job = coord.submit(queens(8), partition(50)).await;
    let units = coord.status(job).await.units_total;
    let summary = within(
        "the worker to go idle",
        worker::run(config(&coord.url, 2), std::future::pending()),
    )
    .await
    .unwrap();
    let info = coord.status(job).await;
    // OEIS A000170: 8 queens have 92 solutions.
    assert_eq!(info.solutions, "92");
    assert_eq!(info.state(), proto::v1::JobState::Done);
    assert!(
        summary.accepted >= 1 && summary.accepted <= units,
        "{summary:?}"
    );
    assert_eq!(
        summary.duplicate + summary.stale + summary.mismatch + summary.rejected,
        0
    );
    coord.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_ends_the_worker_with_unauthenticated() {
    let coord = Coord::start().await;
    let mut cfg = config(&coord.url, 1);
    cfg.token = "not-the-token".into();
    let err = within("the refusal", worker::run(cfg, std::future::pending()))
        .await
        .unwrap_err();
    match err {
        worker::Error::Refused(status) => assert_eq!(status.code(), Code::Unauthenticated),
        other => panic!("{other}"),
    }
    coord.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_waits_for_a_coordinator_that_is_not_up_yet() {
    // Reserve a port, free it, and point the worker at it before anything listens there.
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let (_stop, task) = spawn_worker(config(&format!("http://{addr}"), 1));
    // The coordinator is down for a while: the worker's first calls are refused.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(
        !task.is_finished(),
        "the worker gave up on an absent coordinator"
    );
    let mut coord = Coord::start_on(tokio::net::TcpListener::bind(addr).await.unwrap()).await;
    let job = coord.submit(queens(6), partition(0)).await;
    let info = coord
        .wait_for(job, "the late coordinator's job", |i| {
            i.units_done == i.units_total
        })
        .await;
    // OEIS A000170: 6 queens have 4 solutions.
    assert_eq!(info.solutions, "4");
    let summary = within("the worker to go idle", task)
        .await
        .unwrap()
        .unwrap();
    assert!(summary.accepted >= 1, "{summary:?}");
    coord.stop().await;
}
