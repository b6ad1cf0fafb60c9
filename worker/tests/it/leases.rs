//! Leases seen from the worker: drain on shutdown, abandon a unit whose lease is gone.

use proto::v1 as pb;

use crate::{config, partition, queens, spawn_worker, within, Coord};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_hands_every_running_unit_back() {
    let mut coord = Coord::start().await;
    // A budget above the whole job: the units are the root's 14 subtrees, each long enough
    // to be running when the signal comes.
    let job = coord.submit(queens(14), partition(u64::MAX / 4)).await;
    let units_before = coord.status(job).await.units_total;
    let mut cfg = config(&coord.url, 2);
    cfg.exit_when_idle = None;
    let (stop, task) = spawn_worker(cfg);
    coord
        // Two running, and one more in reserve (prefetch).
        .wait_for(job, "three leased units", |i| i.units_leased == 3)
        .await;
    stop.send(()).unwrap();
    let summary = within("the worker to drain", task).await.unwrap().unwrap();
    assert!(summary.accepted + summary.released >= 2, "{summary:?}");
    // Nothing is left leased: each unit was reported (whole, or its finished part with the
    // unexplored rest as new units) or released.
    let info = coord.status(job).await;
    assert_eq!(info.units_leased, 0, "{info:?}");
    assert_eq!(info.state(), pb::JobState::Running);
    // At least one unit was stopped mid-way: its rest came back as new units, or it was
    // released whole.
    assert!(
        info.units_total > units_before || summary.released > 0,
        "{units_before} units before, {info:?} {summary:?}"
    );

    // Another worker finishes the job: not a solution lost or counted twice.
    let summary = within(
        "a second worker",
        worker::run(config(&coord.url, 2), std::future::pending()),
    )
    .await
    .unwrap();
    assert!(summary.accepted >= 1);
    let info = coord.status(job).await;
    // OEIS A000170: 14 queens have 365,596 solutions.
    assert_eq!(info.solutions, "365596");
    assert!(info.alarms.is_empty(), "{:?}", info.alarms);
    coord.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unit_of_a_cancelled_job_is_abandoned() {
    let mut coord = Coord::start().await;
    // 15 queens cut only at the root (a budget above the whole job): each unit runs for a
    // while.
    let job = coord.submit(queens(15), partition(u64::MAX / 4)).await;
    let (_stop, task) = spawn_worker(config(&coord.url, 1));
    coord
        // One running, one in reserve (prefetch).
        .wait_for(job, "two leased units", |i| i.units_leased == 2)
        .await;
    coord.cancel(job).await;
    // The next heartbeat says the leases are gone: the worker stops the running unit, drops
    // its result and the reserved one and, with nothing left to lease, exits.
    let summary = within("the worker to abandon the unit", task)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(summary.abandoned, 1, "{summary:?}");
    assert_eq!(summary.accepted, 0, "{summary:?}");
    assert_eq!(coord.status(job).await.state(), pb::JobState::Cancelled);
    coord.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_its_first_unit_ends_a_worker_holds_one_in_reserve_and_no_more() {
    let mut coord = Coord::start().await;
    // 15 queens cut at the root: 15 units, each running for seconds, so none ends while this
    // test looks and the worker knows no unit time yet: its reserve is one unit
    // (`session::reserve_target`; how the reserve grows with short units is unit-tested
    // there).
    let job = coord.submit(queens(15), partition(u64::MAX / 4)).await;
    let mut cfg = config(&coord.url, 1);
    cfg.exit_when_idle = None;
    let (stop, task) = spawn_worker(cfg);
    // One thread: one unit running and one in reserve, never more, as long as no unit has
    // ended (a unit that ends early, on a loaded machine, gives the worker a unit time and
    // may grow its reserve: the samples from then on say nothing about this rule).
    coord
        .wait_for(job, "two leased units", |i| i.units_leased == 2)
        .await;
    let mut most = 0;
    for _ in 0..20 {
        let info = coord.status(job).await;
        if info.units_done > 0 || info.state() != pb::JobState::Running {
            break;
        }
        most = most.max(info.units_leased);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(most <= 2, "a one-thread worker held {most} leases");
    stop.send(()).unwrap();
    let summary = within("the worker to drain", task).await.unwrap().unwrap();
    // The reserved unit was handed back, never run.
    assert!(summary.released >= 1, "{summary:?}");
    assert_eq!(coord.status(job).await.units_leased, 0);
    coord.stop().await;
}
