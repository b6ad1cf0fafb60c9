//! Weighted units counted by the Sudoku core (`cores::grids`): real workers count a job
//! submitted as weighted 4x4 Sudoku prefixes, and the coordinator's weighted total equals
//! sum(weight x count) with every count taken independently by the Dancing Links engine.

use cores::problems::sudoku::{Sudoku, SudokuConfig};
use cores::xcc::{write_dlx, Dlx};
use proto::client;
use proto::v1 as pb;

use crate::{config, spawn_worker, within, Coord};

fn sudoku_core(box_rows: u32, box_cols: u32) -> pb::CoreSpec {
    pb::CoreSpec {
        core: pb::CountCore::SudokuBands as i32,
        box_rows,
        box_cols,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weighted_sudoku_units_are_counted_by_the_band_core_and_weighted_exactly() {
    let mut coord = Coord::start().await;
    let problem = Sudoku::build(&SudokuConfig::new(2, 2)).unwrap().problem;
    // Placements: option (row * 4 + col) * 4 + digit - 1. Cell r1c1 = 1 with r1c2 = 2, 3, 4;
    // r1c1 = 2; r1c1 = 3 with r2c1 = 1: disjoint subtrees, weights up to 10^20.
    let big = 10u128.pow(20);
    let units: Vec<(Vec<u32>, u128)> = vec![
        (vec![0, 5], 3),
        (vec![0, 6], big),
        (vec![0, 7], 1),
        (vec![1], 7),
        (vec![2, 16], 2),
    ];
    let want: u128 = units
        .iter()
        .map(|(prefix, w)| {
            let mut d = Dlx::new(&problem);
            d.apply_prefix(prefix).unwrap();
            w * d.count()
        })
        .sum();
    assert!(want > u128::from(u64::MAX));
    let req = pb::SubmitJobRequest {
        header: client::header(),
        name: "weighted sudoku".into(),
        dlx: write_dlx(&problem),
        symmetry_factor: "2".into(),
        units: units
            .iter()
            .map(|(options, w)| pb::WeightedPrefix {
                options: options.clone(),
                weight: w.to_string(),
                ..Default::default()
            })
            .collect(),
        core: Some(sudoku_core(2, 2)),
        // Budgets do not apply to the Sudoku core: the units run whole.
        partition: Some(pb::PartitionSettings {
            unit_node_limit: 1,
            ..Default::default()
        }),
        ..Default::default()
    };
    let job = coord.jobs.submit_job(req).await.unwrap().into_inner();
    assert_eq!(job.units, 5);
    let (stop_a, a) = spawn_worker(config(&coord.url, 1));
    let (stop_b, b) = spawn_worker(config(&coord.url, 1));
    let info = coord
        .wait_for(job.job_id, "the weighted job", |i| {
            i.state() == pb::JobState::Done
        })
        .await;
    assert_eq!(info.weighted_solutions, want.to_string());
    assert_eq!(info.solutions_times_symmetry, (2 * want).to_string());
    assert!(info.weighted);
    assert_eq!(info.core, Some(sudoku_core(2, 2)));
    assert_eq!(info.units_total, 5, "the units were never split");
    let list = coord
        .jobs
        .job_units(pb::JobUnitsRequest {
            header: client::header(),
            job_id: job.job_id,
        })
        .await
        .unwrap()
        .into_inner()
        .units;
    let mut got: Vec<(Vec<u32>, String, pb::CountCore)> = list
        .iter()
        .filter(|u| !u.audit)
        .map(|u| (u.prefix.clone(), u.weight.clone(), u.core()))
        .collect();
    got.sort();
    let mut expected: Vec<(Vec<u32>, String, pb::CountCore)> = units
        .iter()
        .map(|(p, w)| (p.clone(), w.to_string(), pb::CountCore::SudokuBands))
        .collect();
    expected.sort();
    assert_eq!(got, expected);
    let _ = (stop_a.send(()), stop_b.send(()));
    for w in [a, b] {
        within("a worker to stop", w).await.unwrap().unwrap();
    }
    coord.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sudoku_core_is_refused_for_a_problem_that_is_not_its_sudoku() {
    let mut coord = Coord::start().await;
    let queens = cores::problems::ProblemSpec::Queens { n: 6 }
        .build()
        .unwrap();
    let req = pb::SubmitJobRequest {
        header: client::header(),
        name: "queens".into(),
        dlx: write_dlx(&queens.problem),
        core: Some(sudoku_core(3, 3)),
        ..Default::default()
    };
    let e = coord.jobs.submit_job(req).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(
        e.message().contains(
            "core sudoku-bands 3x3 cannot count this problem: it is not a plain 9x9 Sudoku"
        ),
        "{}",
        e.message()
    );
    coord.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sudoku_unit_stopped_by_the_shutdown_is_released_whole() {
    let mut coord = Coord::start().await;
    let problem = Sudoku::build(&SudokuConfig::new(3, 3)).unwrap().problem;
    // The first row fixed to 1..9 (option (0 * 9 + c) * 9 + c): about 1.8e16 completions,
    // far more than a test waits for, so the unit is running when the signal comes.
    let row: Vec<u32> = (0..9).map(|c| c * 10).collect();
    let req = pb::SubmitJobRequest {
        header: client::header(),
        name: "9x9".into(),
        dlx: write_dlx(&problem),
        units: vec![pb::WeightedPrefix {
            options: row,
            weight: "362880".into(),
            ..Default::default()
        }],
        core: Some(sudoku_core(3, 3)),
        ..Default::default()
    };
    let job = coord
        .jobs
        .submit_job(req)
        .await
        .unwrap()
        .into_inner()
        .job_id;
    let mut cfg = config(&coord.url, 1);
    cfg.exit_when_idle = None;
    let (stop, task) = spawn_worker(cfg);
    coord
        .wait_for(job, "the unit to be leased", |i| i.units_leased == 1)
        .await;
    stop.send(()).unwrap();
    let summary = within("the worker to drain", task).await.unwrap().unwrap();
    assert_eq!((summary.released, summary.accepted), (1, 0), "{summary:?}");
    let info = coord.status(job).await;
    assert_eq!((info.units_queued, info.units_total), (1, 1), "{info:?}");
    assert_eq!(info.weighted_solutions, "0");
    assert!(info.alarms.is_empty(), "{:?}", info.alarms);
    coord.stop().await;
}
