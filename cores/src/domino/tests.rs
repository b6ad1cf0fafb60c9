//! Cross-checks of the domino module: the native optimiser against brute force on small
//! generated instances, every native placement through the verifier, and (ignored, run by
//! hand in release) the public-suite benchmark of the native optimiser.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

fn small_instance(rng: &mut ChaCha8Rng, id: usize) -> Instance {
    let n = rng.random_range(3..=5);
    let k = rng.random_range(0..=3);
    let count = rng.random_range(0..=5);
    let tiles = (0..count)
        .map(|_| {
            [
                rng.random_range(0..=k),
                rng.random_range(0..=k),
                rng.random_range(0..=k),
            ]
        })
        .collect();
    Instance {
        id: format!("small-{id}"),
        difficulty: Difficulty::Easy,
        n,
        k,
        tiles,
    }
}

#[test]
fn native_optimum_equals_brute_force_optimum_on_small_instances() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xD0);
    for id in 0..300 {
        let inst = small_instance(&mut rng, id);
        let reference = brute_force(&inst);
        verify(&inst, &reference).unwrap_or_else(|v| panic!("brute {inst:?}: {v}"));
        let out = solve(&inst, &SolveLimits::default());
        verify(&inst, &out.placement).unwrap_or_else(|v| panic!("native {inst:?}: {v}"));
        assert_eq!(out.status, SolveStatus::Optimal, "{inst:?}");
        assert_eq!(out.objective as usize, out.placement.len(), "{inst:?}");
        assert_eq!(out.bound, out.objective, "{inst:?}");
        assert_eq!(out.objective as usize, reference.len(), "{inst:?}");
    }
}

#[test]
fn native_placements_on_generated_easy_instances_verify() {
    for inst in generate(11, 2, 10)
        .into_iter()
        .flatten()
        .filter(|i| i.difficulty == Difficulty::Easy)
    {
        let out = solve(&inst, &SolveLimits::default());
        verify(&inst, &out.placement).unwrap_or_else(|v| panic!("{inst:?}: {v}"));
        assert_eq!(out.status, SolveStatus::Optimal);
        assert_eq!(out.objective as usize, out.placement.len());
    }
}

#[test]
fn a_raised_stop_flag_halts_with_a_verified_placement() {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let limits = SolveLimits {
        deadline: None,
        stop: Some(stop),
    };
    let inst = generate(5, 1, 10).remove(0).pop().expect("a hard instance");
    let out = solve(&inst, &limits);
    verify(&inst, &out.placement).unwrap();
    assert!(out.objective <= out.bound);
    assert_eq!(out.objective as usize, out.placement.len());
}

/// The public-suite benchmark of the native optimiser (release build, by hand):
/// `DOMINO_SECS=20 cargo test --release -p cores --lib domino::tests::bench -- --ignored
/// --nocapture`; `DOMINO_FILTER=b03-m` restricts it to matching ids.
#[test]
#[ignore]
fn bench_public_suite() {
    let dir = std::env::var("DOMINO_SUITE").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../bench-specs/domino/suite-public"
        )
        .into()
    });
    let secs: f64 = std::env::var("DOMINO_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20.0);
    let filter = std::env::var("DOMINO_FILTER").unwrap_or_default();
    let mut rows: Vec<(Difficulty, bool, f64)> = Vec::new();
    for b in 1..=10 {
        let path = format!("{dir}/batch{b:02}.txt");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for inst in parse_batch(&text).unwrap() {
            if !inst.id.contains(&filter) {
                continue;
            }
            let start = Instant::now();
            let limits = SolveLimits {
                deadline: Some(start + Duration::from_secs_f64(secs)),
                stop: None,
            };
            let out = solve(&inst, &limits);
            let t = start.elapsed().as_secs_f64();
            verify(&inst, &out.placement).unwrap_or_else(|v| panic!("{}: {v}", inst.id));
            println!(
                "{:8} n={:2} m={:2} k={} {:?} obj={} bound={} nodes={} {:.3}s",
                inst.id,
                inst.n,
                inst.tiles.len(),
                inst.k,
                out.status,
                out.objective,
                out.bound,
                out.nodes,
                t
            );
            rows.push((inst.difficulty, out.status == SolveStatus::Optimal, t));
        }
    }
    for d in [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard] {
        let mut times: Vec<f64> = rows.iter().filter(|r| r.0 == d).map(|r| r.2).collect();
        if times.is_empty() {
            continue;
        }
        times.sort_by(f64::total_cmp);
        let proven = rows.iter().filter(|r| r.0 == d && r.1).count();
        println!(
            "{d:?}: proven {proven}/{}, median {:.3}s, total {:.1}s",
            times.len(),
            times[times.len() / 2],
            times.iter().sum::<f64>()
        );
    }
}
