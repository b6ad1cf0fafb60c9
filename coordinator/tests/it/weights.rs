//! Weighted units and the Sudoku core over gRPC: submission (weights, core, the checks that
//! refuse a bad unit or a core that cannot count the problem), leases that carry the weight,
//! GetJob naming the core, reports naming the core that counted, the weighted total times the
//! symmetry factor, JobUnits, and a restart that keeps weights and cores.

use std::sync::atomic::AtomicBool;

use coordinator::Clock;
use cores::problems::sudoku::{Sudoku, SudokuConfig};
use cores::xcc::{write_dlx, Dlx, Problem};
use proto::client::header;
use proto::v1 as pb;

use crate::server::{self, lease, register, report, status, temp_db, Coord, TOKEN};

fn sudoku4() -> Problem {
    Sudoku::build(&SudokuConfig::new(2, 2)).unwrap().problem
}

fn sudoku_core(box_rows: u32, box_cols: u32) -> pb::CoreSpec {
    pb::CoreSpec {
        core: pb::CountCore::SudokuBands as i32,
        box_rows,
        box_cols,
        ..Default::default()
    }
}

fn request(dlx: String, units: &[(Vec<u32>, &str)], core: pb::CoreSpec) -> pb::SubmitJobRequest {
    pb::SubmitJobRequest {
        header: header(),
        name: "weighted".into(),
        dlx,
        symmetry_factor: "3".into(),
        units: units
            .iter()
            .map(|(options, weight)| pb::WeightedPrefix {
                options: options.clone(),
                weight: weight.to_string(),
                ..Default::default()
            })
            .collect(),
        core: Some(core),
        ..Default::default()
    }
}

/// The count below `prefix`, by the Dancing Links engine.
fn count(problem: &Problem, prefix: &[u32]) -> u128 {
    let mut d = Dlx::new(problem);
    d.apply_prefix(prefix).unwrap();
    d.count()
}

#[tokio::test]
async fn weighted_units_are_leased_with_their_weight_and_summed_times_the_symmetry() {
    let (_dir, db) = temp_db();
    let c = Coord::start(&db, Clock::System).await;
    let (mut w, mut jobs) = c.clients(TOKEN).await;
    let p = sudoku4();
    let big = 10u128.pow(20);
    let big_text = big.to_string();
    // An empty weight means 1.
    let units = [
        (vec![0, 5], "3"),
        (vec![0, 6], big_text.as_str()),
        (vec![1], ""),
    ];
    let req = request(write_dlx(&p), &units, sudoku_core(2, 2));
    let job = jobs.submit_job(req).await.unwrap().into_inner().job_id;
    let a = register(&mut w, "a").await;
    let got = lease(&mut w, a, 8).await.units;
    let mut weights: Vec<(Vec<u32>, String)> = got
        .iter()
        .map(|u| (u.prefix.clone(), u.weight.clone()))
        .collect();
    weights.sort();
    assert_eq!(
        weights,
        vec![
            (vec![0, 5], "3".to_string()),
            (vec![0, 6], big.to_string()),
            (vec![1], "1".to_string()),
        ]
    );
    assert!(got
        .iter()
        .all(|u| u.node_budget == 0 && u.time_budget_ms == 0));
    let g = w
        .get_job(pb::GetJobRequest {
            header: header(),
            job_id: job,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(g.core, Some(sudoku_core(2, 2)));
    // Count each unit with the Sudoku core, as a worker does.
    let stop = AtomicBool::new(false);
    for u in &got {
        let givens = cores::grids::givens_from_prefix(2, 2, &u.prefix).unwrap();
        let n = cores::grids::count_completions(2, 2, &givens, &stop)
            .unwrap()
            .unwrap();
        assert_eq!(n.solutions, count(&p, &u.prefix));
        let result = pb::UnitResult {
            solutions: n.solutions.to_string(),
            nodes: n.nodes,
            host: "test".into(),
            core: pb::CountCore::SudokuBands as i32,
            ..Default::default()
        };
        let (v, msg) = report(&mut w, a, u, result).await;
        assert_eq!(v, pb::ReportVerdict::Accepted, "{msg}");
    }
    let want = 3 * count(&p, &[0, 5]) + big * count(&p, &[0, 6]) + count(&p, &[1]);
    let check = |info: &pb::JobInfo| {
        assert_eq!(info.state(), pb::JobState::Done);
        assert_eq!(info.weighted_solutions, want.to_string());
        assert_eq!(info.solutions_times_symmetry, (3 * want).to_string());
        let plain = count(&p, &[0, 5]) + count(&p, &[0, 6]) + count(&p, &[1]);
        assert_eq!(info.solutions, plain.to_string());
        assert!(info.weighted);
        assert_eq!(info.core, Some(sudoku_core(2, 2)));
    };
    check(&status(&mut jobs, job).await);
    c.stop().await;

    // A restart keeps the weights and the cores.
    let c = Coord::start(&db, Clock::System).await;
    let (_, mut jobs) = c.clients(TOKEN).await;
    check(&status(&mut jobs, job).await);
    let list = jobs
        .list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap()
        .into_inner()
        .jobs;
    assert_eq!(list[0].weighted_solutions, want.to_string());
    let units = server::units(&mut jobs, job).await;
    assert_eq!(units.len(), 3);
    for u in &units {
        assert_eq!(u.core(), pb::CountCore::SudokuBands);
        assert!(["3", "1", big_text.as_str()].contains(&u.weight.as_str()));
    }
    c.stop().await;
}

#[tokio::test]
async fn bad_weighted_units_and_cores_are_refused_by_name() {
    let (_dir, db) = temp_db();
    let c = Coord::start(&db, Clock::System).await;
    let (_, mut jobs) = c.clients(TOKEN).await;
    let dlx = write_dlx(&sudoku4());
    let core = sudoku_core(2, 2);
    let refused = |req: pb::SubmitJobRequest| {
        let mut jobs = jobs.clone();
        async move {
            let e = jobs.submit_job(req).await.unwrap_err();
            assert_eq!(e.code(), tonic::Code::InvalidArgument);
            e.message().to_string()
        }
    };
    for (weight, why) in [("0", "at least 1"), ("x", "decimal"), ("-1", "decimal")] {
        let units = [(vec![0], "2"), (vec![1], weight)];
        let msg = refused(request(dlx.clone(), &units, core)).await;
        assert!(msg.contains("unit 1: weight") && msg.contains(why), "{msg}");
    }
    // Options 0 and 1 both fill cell r1c1.
    let msg = refused(request(dlx.clone(), &[(vec![0, 1], "1")], core)).await;
    assert!(
        msg.starts_with("unit 0: its prefix cannot be applied"),
        "{msg}"
    );
    let msg = refused(request(dlx.clone(), &[], sudoku_core(0, 2))).await;
    assert!(msg.contains("box_rows and box_cols"), "{msg}");
    // Queens are no Sudoku, and a 4x4 Sudoku is not one of 3x3 boxes.
    let queens = write_dlx(
        &cores::problems::ProblemSpec::Queens { n: 5 }
            .build()
            .unwrap()
            .problem,
    );
    let msg = refused(request(queens, &[], sudoku_core(3, 3))).await;
    assert_eq!(
        msg,
        "core sudoku-bands 3x3 cannot count this problem: it is not a plain 9x9 Sudoku"
    );
    let msg = refused(request(dlx.clone(), &[], sudoku_core(3, 3))).await;
    assert!(msg.contains("not a plain 9x9 Sudoku"), "{msg}");
    let list = jobs
        .list_jobs(pb::ListJobsRequest { header: header() })
        .await
        .unwrap()
        .into_inner();
    assert!(list.jobs.is_empty(), "nothing was written");
    c.stop().await;
}
