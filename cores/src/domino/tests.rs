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

#[test]
#[ignore]
fn xcc_experiment() {
    use crate::xcc::{Dlx, Flow, Limits, ProblemBuilder};
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench-specs/domino/suite-public"
    );
    let filter = std::env::var("DOMINO_FILTER").unwrap();
    for b in 1..=10 {
        let text = std::fs::read_to_string(format!("{dir}/batch{b:02}.txt")).unwrap();
        for inst in parse_batch(&text).unwrap() {
            if !inst.id.contains(&filter) {
                continue;
            }
            let n = inst.n as usize;
            let mut pb = ProblemBuilder::new();
            let tiles: Vec<_> = (0..inst.tiles.len())
                .map(|t| pb.primary(&format!("t{t}")).unwrap())
                .collect();
            let cells: Vec<_> = (0..n * n)
                .map(|c| pb.secondary(&format!("c{c}")).unwrap())
                .collect();
            let mut edge = std::collections::HashMap::new();
            for c in 0..n * n {
                for d in [c + 1, c + n] {
                    if d < n * n && (d != c + 1 || c % n + 1 < n) {
                        edge.insert((c, d), pb.secondary(&format!("e{c}_{d}")).unwrap());
                    }
                }
            }
            let colours: Vec<_> = (0..=inst.k)
                .map(|v| pb.colour(&format!("v{v}")).unwrap())
                .collect();
            for (t, tv) in inst.tiles.iter().enumerate() {
                let rev = [tv[2], tv[1], tv[0]];
                let mut variants = vec![*tv];
                if rev != *tv {
                    variants.push(rev);
                }
                for vals in variants {
                    for vertical in [false, true] {
                        for p in 0..n * n {
                            let (r, c) = (p / n, p % n);
                            if (vertical && r + 2 >= n) || (!vertical && c + 2 >= n) {
                                continue;
                            }
                            let step = if vertical { n } else { 1 };
                            let cs = [p, p + step, p + 2 * step];
                            let mut items = vec![(tiles[t], 0)];
                            for (i, &x) in cs.iter().enumerate() {
                                items.push((cells[x], 0));
                                let (xr, xc) = (x / n, x % n);
                                let mut nb = vec![];
                                if xr > 0 {
                                    nb.push(x - n)
                                }
                                if xr + 1 < n {
                                    nb.push(x + n)
                                }
                                if xc > 0 {
                                    nb.push(x - 1)
                                }
                                if xc + 1 < n {
                                    nb.push(x + 1)
                                }
                                for y in nb {
                                    if cs.contains(&y) {
                                        continue;
                                    }
                                    let e = edge[&(x.min(y), x.max(y))];
                                    items.push((e, colours[vals[i] as usize]));
                                }
                            }
                            pb.option_coloured(&items).unwrap();
                        }
                    }
                }
            }
            let problem = pb.build().unwrap();
            let mut dlx = Dlx::new(&problem);
            let start = Instant::now();
            let limits = Limits {
                max_nodes: None,
                deadline: Some(start + Duration::from_secs(60)),
                stop: None,
            };
            let mut found = false;
            let outcome = dlx.run(&limits, |_| {
                found = true;
                Flow::Stop
            });
            println!(
                "{} found={found} {:?} nodes={} {:.2}s",
                inst.id,
                matches!(outcome, crate::xcc::Outcome::Complete),
                dlx.stats().nodes,
                start.elapsed().as_secs_f64()
            );
        }
    }
}
