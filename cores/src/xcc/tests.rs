//! Engine tests: small problems with known answers, brute force on random problems, the
//! hand-back invariant of stopped searches, subtree sums and the estimator's unbiasedness.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// n queens as XCC: ranks and files primary, diagonals secondary (Knuth, TAOCP 7.2.2.1).
fn queens(n: u32) -> Problem {
    let mut b = ProblemBuilder::new();
    let rows: Vec<_> = (0..n)
        .map(|r| b.primary(&format!("r{r}")).unwrap())
        .collect();
    let cols: Vec<_> = (0..n)
        .map(|c| b.primary(&format!("c{c}")).unwrap())
        .collect();
    let a: Vec<_> = (0..2 * n - 1)
        .map(|d| b.secondary(&format!("a{d}")).unwrap())
        .collect();
    let s: Vec<_> = (0..2 * n - 1)
        .map(|d| b.secondary(&format!("b{d}")).unwrap())
        .collect();
    for r in 0..n {
        for c in 0..n {
            let opt = [
                rows[r as usize],
                cols[c as usize],
                a[(r + c) as usize],
                s[(n - 1 + r - c) as usize],
            ];
            b.option(&opt).unwrap();
        }
    }
    b.build().unwrap()
}

/// A random XCC problem: `np` primary and `ns` secondary items, options of 1-4 items, some
/// secondary items coloured with one of two colours.
fn random_problem(rng: &mut ChaCha8Rng, np: usize, ns: usize, options: usize) -> Problem {
    let mut b = ProblemBuilder::new();
    let prim: Vec<_> = (0..np)
        .map(|i| b.primary(&format!("p{i}")).unwrap())
        .collect();
    let sec: Vec<_> = (0..ns)
        .map(|i| b.secondary(&format!("s{i}")).unwrap())
        .collect();
    let red = b.colour("red").unwrap();
    let blue = b.colour("blue").unwrap();
    let mut added = 0;
    while added < options {
        let mut items = vec![(prim[rng.random_range(0..np)], 0)];
        for _ in 0..rng.random_range(0..3) {
            if rng.random_bool(0.6) {
                items.push((prim[rng.random_range(0..np)], 0));
            } else if ns > 0 {
                let c = [0, red, blue][rng.random_range(0..3)];
                items.push((sec[rng.random_range(0..ns)], c));
            }
        }
        if b.option_coloured(&items).is_ok() {
            added += 1;
        }
    }
    b.build().unwrap()
}

/// Counts solutions by trying every subset of options: shares nothing with the engine.
fn brute_count(p: &Problem) -> u128 {
    let m = p.num_options();
    assert!(m <= 20);
    let mut count = 0;
    'subsets: for mask in 0u32..(1 << m) {
        let mut used = vec![0u32; p.num_items()];
        let mut colour = vec![0u32; p.num_items()];
        for o in 0..m {
            if mask & (1 << o) == 0 {
                continue;
            }
            for &(item, c) in p.option(o as OptionId) {
                let i = item as usize;
                if p.is_primary(item) || c == 0 {
                    used[i] += 1;
                    if used[i] > 1 || colour[i] != 0 {
                        continue 'subsets;
                    }
                } else {
                    if used[i] > 0 || (colour[i] != 0 && colour[i] != c) {
                        continue 'subsets;
                    }
                    colour[i] = c;
                }
            }
        }
        if (0..p.num_primary()).all(|i| used[i] == 1) {
            count += 1;
        }
    }
    count
}

#[test]
fn seed_000_matrix_has_three_exact_hitting_sets() {
    // Seed 000 section 2.1: the 6 x 4 matrix whose exact hitting sets are {1,3,5}, {2,6}
    // and {3,4}.
    let rows = ["1010", "0011", "0100", "1011", "0001", "1100"];
    let mut b = ProblemBuilder::new();
    let cols: Vec<_> = (0..4)
        .map(|j| b.primary(&format!("c{j}")).unwrap())
        .collect();
    for r in rows {
        let items: Vec<_> = r
            .chars()
            .enumerate()
            .filter(|&(_, ch)| ch == '1')
            .map(|(j, _)| cols[j])
            .collect();
        b.option(&items).unwrap();
    }
    let p = b.build().unwrap();
    let mut dlx = Dlx::new(&p);
    let mut found = Vec::new();
    let outcome = dlx.run(&Limits::default(), |s| {
        let mut s = s.to_vec();
        s.sort();
        found.push(s);
        Flow::Continue
    });
    assert_eq!(outcome, Outcome::Complete);
    found.sort();
    assert_eq!(found, vec![vec![0, 2, 4], vec![1, 5], vec![2, 3]]);
}

#[test]
fn knuth_colour_example_has_one_solution() {
    // TAOCP 7.2.2.1, the XCC example (49): items a b c | x y; the option "x:A y:B" has no
    // primary item and is left out (it can never be chosen).
    let mut b = ProblemBuilder::new();
    for i in ["a", "b", "c"] {
        b.primary(i).unwrap();
    }
    b.secondary("x").unwrap();
    b.secondary("y").unwrap();
    for o in [
        &["a", "b", "x:A", "y:A"][..],
        &["a", "c", "x:B", "y:B"],
        &["b", "x:B"],
        &["c", "y:B"],
    ] {
        b.option_named(o).unwrap();
    }
    let p = b.build().unwrap();
    let mut dlx = Dlx::new(&p);
    assert_eq!(dlx.first(), Some(vec![1, 2]));
    assert_eq!(dlx.count(), 1);
}

#[test]
fn queens_counts_match_oeis_a000170() {
    // OEIS A000170: 1, 0, 0, 2, 10, 4, 40, 92.
    for (n, want) in [
        (1, 1),
        (2, 0),
        (3, 0),
        (4, 2),
        (5, 10),
        (6, 4),
        (7, 40),
        (8, 92),
    ] {
        let p = queens(n);
        for choice in [Choice::Mrv, Choice::First, Choice::Random(7)] {
            assert_eq!(
                Dlx::with_choice(&p, choice).count(),
                want,
                "n={n} {choice:?}"
            );
        }
    }
}

#[test]
fn engine_matches_brute_force_on_random_problems() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    for case in 0..300 {
        let np = rng.random_range(1..7);
        let ns = rng.random_range(0..4);
        let m = rng.random_range(1..15);
        let p = random_problem(&mut rng, np, ns, m);
        let want = brute_count(&p);
        for choice in [Choice::Mrv, Choice::First, Choice::Random(case)] {
            let mut dlx = Dlx::with_choice(&p, choice);
            let before = dlx.links_fingerprint();
            assert_eq!(dlx.count(), want, "case {case} {choice:?}");
            assert_eq!(dlx.links_fingerprint(), before, "links restored");
            assert_eq!(dlx.count_up_to(1), want.min(1));
            assert_eq!(dlx.stats().solutions, want + want.min(1));
        }
        // Every enumerated solution is an exact cover.
        let mut dlx = Dlx::new(&p);
        dlx.run(&Limits::default(), |s| {
            let mut used = vec![0; p.num_primary()];
            for &o in s {
                for &(i, _) in p.option(o) {
                    if p.is_primary(i) {
                        used[i as usize] += 1;
                    }
                }
            }
            assert!(used.iter().all(|&u| u == 1));
            Flow::Continue
        });
    }
}

/// Options of one length get the aligned layout (each option at a multiple of its length
/// rounded up to a power of two, the other nodes found from `p`'s low bits) and, at lengths
/// 3 to 6, the unrolled colour-blind dance: random problems of that shape against brute
/// force (lengths 2, 7 and 8: the layout under the general dance).
#[test]
fn options_of_one_length_count_as_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for len in 2usize..=8 {
        for case in 0..60 {
            let np = rng.random_range(1..7);
            let ns = rng.random_range(len.saturating_sub(np)..len + 3);
            let mut b = ProblemBuilder::new();
            let mut items: Vec<_> = (0..np)
                .map(|i| b.primary(&format!("p{i}")).unwrap())
                .collect();
            for i in 0..ns {
                items.push(b.secondary(&format!("s{i}")).unwrap());
            }
            for _ in 0..rng.random_range(1..16) {
                // `len` distinct items, a primary one first.
                let mut opt = vec![items[rng.random_range(0..np)]];
                while opt.len() < len {
                    let i = items[rng.random_range(0..items.len())];
                    if !opt.contains(&i) {
                        opt.push(i);
                    }
                }
                b.option(&opt).unwrap();
            }
            let p = b.build().unwrap();
            let want = brute_count(&p);
            let mut dlx = Dlx::new(&p);
            let before = dlx.links_fingerprint();
            assert_eq!(dlx.count(), want, "length {len}, case {case}");
            assert_eq!(dlx.links_fingerprint(), before, "links restored");
            let mut found = 0;
            dlx.run(&Limits::default(), |s| {
                let mut used = vec![0; p.num_items()];
                for &o in s {
                    for &(i, _) in p.option(o) {
                        used[i as usize] += 1;
                    }
                }
                assert!(used.iter().all(|&u| u <= 1));
                assert!(used[..p.num_primary()].iter().all(|&u| u == 1));
                found += 1;
                Flow::Continue
            });
            assert_eq!(found, want);
        }
    }
}

#[test]
fn stopped_searches_hand_back_exactly_the_unexplored_subtrees() {
    // Run every unit with a tiny node budget and queue what it hands back: the counts add up
    // to the full count, whatever the budget.
    for n in [6, 7, 8] {
        let p = queens(n);
        let full = Dlx::new(&p).count();
        for budget in [1, 3, 50] {
            let mut queue = vec![Vec::new()];
            let mut total = 0u128;
            let mut units = 0;
            while let Some(prefix) = queue.pop() {
                units += 1;
                let mut dlx = Dlx::new(&p);
                dlx.apply_prefix(&prefix).unwrap();
                let before = dlx.links_fingerprint();
                let limits = Limits {
                    max_nodes: Some(budget),
                    ..Limits::default()
                };
                match dlx.run_count(&limits) {
                    Outcome::Complete => {}
                    Outcome::Stopped { remaining } => {
                        assert!(!remaining.is_empty());
                        for r in &remaining {
                            assert!(r.starts_with(&prefix));
                        }
                        queue.extend(remaining);
                    }
                    Outcome::Halted => unreachable!(),
                }
                assert_eq!(
                    dlx.links_fingerprint(),
                    before,
                    "links restored after a stop"
                );
                total += dlx.stats().solutions;
            }
            assert_eq!(total, full, "n={n} budget={budget} units={units}");
        }
    }
}

#[test]
fn subtrees_of_the_root_item_add_up_to_the_full_count() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut problems: Vec<Problem> = (4..9).map(queens).collect();
    for _ in 0..50 {
        problems.push(random_problem(&mut rng, 5, 2, 14));
    }
    for p in &problems {
        let full = Dlx::new(p).count();
        let mut root = Dlx::new(p);
        match root.branching() {
            Branching::Branch { options, .. } => {
                let sum: u128 = options
                    .iter()
                    .map(|&o| {
                        let mut d = Dlx::new(p);
                        d.apply_prefix(&[o]).unwrap();
                        d.count()
                    })
                    .sum();
                assert_eq!(sum, full);
            }
            Branching::DeadEnd => assert_eq!(full, 0),
            Branching::Solved => assert_eq!(full, 1),
        }
    }
}

#[test]
fn clashing_prefixes_are_errors_and_leave_the_solver_untouched() {
    let p = queens(4);
    let mut dlx = Dlx::new(&p);
    let before = dlx.links_fingerprint();
    // Options 0 (r0 c0) and 1 (r0 c1) share rank r0.
    assert_eq!(
        dlx.apply_prefix(&[0, 1]),
        Err(PrefixError::Clash { option: 1, item: 0 })
    );
    // Options 0 (r0 c0) and 5 (r1 c1) share a diagonal.
    assert!(matches!(
        dlx.apply_prefix(&[0, 5]),
        Err(PrefixError::Clash { option: 5, .. })
    ));
    assert_eq!(dlx.apply_prefix(&[99]), Err(PrefixError::UnknownOption(99)));
    assert_eq!(dlx.links_fingerprint(), before);
    assert_eq!(dlx.count(), 2);
    // A legal prefix: r0 c1 leads to the one solution 1 3 0 2.
    dlx.apply_prefix(&[1]).unwrap();
    assert_eq!(dlx.count(), 1);
    assert_eq!(dlx.first().map(|s| s.len()), Some(4));
}

#[test]
fn profile_adds_up_to_the_totals() {
    let p = queens(8);
    let mut dlx = Dlx::new(&p);
    assert_eq!(dlx.count(), 92);
    let s = dlx.stats();
    let nodes: u64 = s.profile.iter().map(|l| l.nodes).sum();
    let updates: u64 = s.profile.iter().map(|l| l.updates).sum();
    let backtracks: u64 = s.profile.iter().map(|l| l.backtracks).sum();
    let degrees: u64 = s.profile.iter().map(|l| l.degrees).sum();
    assert_eq!(nodes, s.nodes);
    assert_eq!(updates, s.updates);
    assert_eq!(backtracks, s.nodes, "every node is returned from once");
    assert_eq!(
        degrees + 1,
        s.nodes,
        "every node but the root is some node's child"
    );
    assert_eq!(s.profile[0].nodes, 1);
    assert!(s.profile_table().contains("Depth"));
}

#[test]
fn estimator_is_unbiased_on_enumerable_problems() {
    // Knuth (1975): the random-path estimates are unbiased, so the mean of many samples lies
    // within a few standard errors of the exact figures.
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let mut problems: Vec<Problem> = vec![queens(6), queens(8)];
    for _ in 0..4 {
        problems.push(random_problem(&mut rng, 8, 3, 20));
    }
    for (k, p) in problems.iter().enumerate() {
        let mut dlx = Dlx::new(p);
        let solutions = dlx.count() as f64;
        let nodes = dlx.stats().nodes as f64;
        let updates = dlx.stats().updates as f64;
        let e = estimate(p, &[], 20_000, k as u64).unwrap();
        for (name, exact, est) in [
            ("nodes", nodes, e.nodes),
            ("updates", updates, e.updates),
            ("solutions", solutions, e.solutions),
        ] {
            let tolerance = 3.0 * est.std_err + 1e-9 * exact.abs();
            assert!(
                (est.mean - exact).abs() <= tolerance,
                "problem {k} {name}: exact {exact}, estimate {} ± {}",
                est.mean,
                est.std_err
            );
        }
        // Deterministic for a seed.
        assert_eq!(
            estimate(p, &[], 100, 5).unwrap(),
            estimate(p, &[], 100, 5).unwrap()
        );
        // The logarithms say what the numbers say where both fit f64.
        for (name, m) in [("nodes", e.nodes), ("updates", e.updates)] {
            let close = |log10: f64, x: f64| {
                if x == 0.0 {
                    log10 == f64::NEG_INFINITY
                } else {
                    (log10 - x.log10()).abs() <= 1e-9 * x.log10().abs().max(1.0)
                }
            };
            assert!(close(m.log10_mean, m.mean), "problem {k} {name}: {m:?}");
            assert!(
                close(m.log10_std_err, m.std_err),
                "problem {k} {name}: {m:?}"
            );
        }
    }
}

#[test]
fn estimates_past_f64s_range_are_given_as_logarithms_not_nan() {
    // A 36x36 Sudoku (6x6 boxes): each random path multiplies about 1,300 degrees, far past
    // 10^308. The numbers are infinite, never NaN; the logarithms are finite and large.
    let s =
        crate::problems::sudoku::Sudoku::build(&crate::problems::sudoku::SudokuConfig::new(6, 6))
            .unwrap();
    let e = estimate(&s.problem, &[], 4, 1).unwrap();
    for (name, m) in [("nodes", e.nodes), ("updates", e.updates)] {
        assert_eq!(
            (m.mean, m.std_err),
            (f64::INFINITY, f64::INFINITY),
            "{name}"
        );
        assert!(
            m.log10_mean.is_finite() && m.log10_mean > 308.0,
            "{name}: {m:?}"
        );
        assert!(
            m.log10_std_err.is_finite() && m.log10_std_err <= m.log10_mean,
            "{name}: {m:?}"
        );
    }
    assert!(!e.solutions.mean.is_nan() && !e.solutions.std_err.is_nan());
}
