//! Every in-process solver on the same puzzles, each answer through the verifier; known
//! figures cite their source.

use std::sync::Arc;

use super::*;
use crate::problems::Variant;

/// Seed 000 section 1.3, Example 1, and the solution printed under its trace.
const EXAMPLE_1: &str =
    ".125.487..........75.....23..41.87...2..5..4...34.95..48.....17..........357.169.";
const EXAMPLE_1_SOLUTION: &str =
    "612534879349287165758916423594128736827653941163479582486395217971862354235741698";

/// First lines of files under ../shared/data/sudoku (see its README): Royle's 17-clue
/// list and forum_hardest_1106 (all unique), serg_benchmark (every puzzle has 2+ solutions).
const ROYLE: &str = include_str!("../../test_data/sudoku/royle_17clue_first20.txt");
const HARDEST: &str = include_str!("../../test_data/sudoku/forum_hardest_1106_first10.txt");
const MAGICTOUR: &str = include_str!("../../test_data/sudoku/magictour_top1465_first10.txt");
const SERG: &str = include_str!("../../test_data/sudoku/serg_benchmark_first10.txt");

pub(crate) fn puzzle(text: &str) -> Puzzle {
    PuzzleReader::new(None)
        .unwrap()
        .parse_line(1, text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn puzzle_of(shape: &Shape, text: &str) -> Puzzle {
    Puzzle::parse(text, Arc::new(Geometry::new(shape).unwrap())).unwrap()
}

fn grid_text(g: &[u8], side: usize) -> String {
    crate::problems::sudoku::format_grid(g, side)
}

/// Every in-process solver gives `want` for `p` (and agrees on the grid when unique).
fn all_agree(p: &Puzzle, want: Status) -> Option<Vec<u8>> {
    let mut grid = None;
    for solver in Solver::ALL {
        let a = solve(p, solver, true).unwrap_or_else(|e| panic!("{solver}: {e}"));
        assert_eq!(a.status, want, "{solver} on {}", p.text());
        if want == Status::Unique {
            match &grid {
                None => grid = a.solution.clone(),
                Some(g) => assert_eq!(a.solution.as_ref(), Some(g), "{solver}"),
            }
        }
    }
    grid
}

#[test]
fn example_1_of_the_seed_by_every_solver() {
    let p = puzzle(EXAMPLE_1);
    let g = all_agree(&p, Status::Unique).unwrap();
    assert_eq!(grid_text(&g, 9), EXAMPLE_1_SOLUTION);
    // Without the uniqueness check the status is `solved`.
    for solver in Solver::ALL {
        assert_eq!(solve(&p, solver, false).unwrap().status, Status::Solved);
    }
}

#[test]
fn ps12_trace_of_example_1_beside_the_seed() {
    let run = ps12::run(&puzzle(EXAMPLE_1), 1, true);
    assert_eq!(grid_text(&run.solutions[0], 9), EXAMPLE_1_SOLUTION);
    let s = run.stats;
    // Seed 000 section 1.3: 77 operations, 11 searches, one backtrack (at the sixth
    // search). Ours differ: see PS12_EXAMPLE_1 below for the figures and the reasons.
    assert_eq!(
        (s.operations, s.searches, s.backtracks, s.no_pair),
        PS12_EXAMPLE_1
    );
    // The table's first rows: the givens propagate in two productive sweeps (Prop 4; the
    // seed's 3), then four hidden singles (the seed's 3).
    assert_eq!(run.trace[0].step, ps12::Step::Prop(4));
    let table = run.trace_table();
    assert!(
        table.starts_with("Prop\tRed\tSrch\tTot. Prop\tTot. Srch\n4\t-\t-\t4\t0\n-\t4\t-\t8\t0\n")
    );
    let last = run.trace.last().unwrap();
    assert_eq!(
        (last.total_ops, last.total_searches),
        (s.operations, s.searches)
    );
}

/// Our PS-1-2 totals on Example 1 (operations, searches, backtracks, no-pair searches):
/// 64 operations, 2 searches, 2 backtracks, where the seed reports 77, 11 and 1.
///
/// Why they differ: our table reaches its first quiescence after 15 operations with 5
/// reductions (Prop 4, Red 4, Prop 3, Red 1, Prop 3, Red 0); the seed's after 9 with 3
/// (3, 3, 3, 0), and nearly every one of its later choices is followed by a single
/// productive sweep and no reduction (Prop 3, Red 0), where ours set off long cascades
/// (Prop 6, Red 5, Prop 7 after the first). The quiescent state of the two rules does not
/// depend on the order in which they are applied (the seed says so itself), so the seed's
/// `propagate` and `reduce*` functions, which the paper does not print, must deduce less per
/// node than the rules as described; deducing more per node, we branch less (2 searches
/// instead of 11), each time on the first pair in row-major order, high value first as the
/// seed's code does, and our solution lies below the two low branches (2 backtracks).
/// Per-row counts also depend on the sweep order (ours propagates singletons met later in
/// the same sweep), which the paper leaves open. One weaker reading was tried and left:
/// propagating only cells set explicitly (givens, reductions, choices), never cells that
/// elimination leaves with one value, gives 78 operations but still 2 searches, not 11.
const PS12_EXAMPLE_1: (u64, u64, u64, u64) = (64, 2, 2, 0);

#[test]
fn the_first_puzzles_of_the_shared_collections() {
    for line in ROYLE
        .lines()
        .chain(HARDEST.lines())
        .chain(MAGICTOUR.lines())
    {
        all_agree(&puzzle(line), Status::Unique);
    }
    for line in SERG.lines() {
        all_agree(&puzzle(line), Status::Multiple);
    }
}

#[test]
fn a_puzzle_with_no_solution() {
    // Row 1 holds 1-8, so r1c9 must be 9, but r2c9 is 9.
    let text = format!("12345678.........9{}", ".".repeat(63));
    assert_eq!(all_agree(&puzzle(&text), Status::None), None);
}

#[test]
fn every_solver_counts_the_288_grids_of_size_2() {
    // Seed 000 Table 1 (OEIS A107739): 288 4x4 grids; section 2.4: 48 diagonal ones.
    let empty = puzzle(&".".repeat(16));
    let mut diagonal = Shape::new(2, 2);
    diagonal.variants = vec![Variant::Diagonal];
    let empty_diagonal = puzzle_of(&diagonal, &".".repeat(16));
    for solver in Solver::ALL {
        let all = solutions(&empty, solver, 1000).unwrap();
        assert_eq!(all.len(), 288, "{solver}");
        let mut distinct = all.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 288, "{solver}");
        assert!(all.iter().all(|g| empty.verify(g).is_ok()), "{solver}");
        assert_eq!(
            solutions(&empty_diagonal, solver, 1000).unwrap().len(),
            48,
            "{solver}"
        );
    }
}

#[test]
fn a_6x6_count_and_4x4_puzzles() {
    // A 4x4 puzzle with one solution and one with several.
    all_agree(&puzzle("1...........4..3"), Status::Multiple);
    let unique = all_agree(&puzzle("..3..1....4..2.."), Status::Unique);
    assert!(unique.is_some());
    // 6x6 with 2x3 boxes: 28,200,960 grids (REFERENCES.md) = 720 * 39,168; with the first
    // row and the first column's top half fixed, a tractable slice to compare solvers on.
    let p = puzzle(&format!("123456456...{}", ".".repeat(24)));
    let dlx_count = solutions(&p, Solver::Dlx, 100_000).unwrap().len();
    assert!(dlx_count > 1);
    for solver in [Solver::Ps12]
        .into_iter()
        .chain(Level::ALL.map(Solver::Alldiff))
    {
        assert_eq!(solutions(&p, solver, 100_000).unwrap().len(), dlx_count);
    }
}

/// A 16x16 grid by the pattern (r, c) -> (4 (r % 4) + r / 4 + c) % 16 + 1.
fn pattern_16() -> Vec<u8> {
    (0..256)
        .map(|i| {
            let (r, c) = (i / 16, i % 16);
            ((4 * (r % 4) + r / 4 + c) % 16 + 1) as u8
        })
        .collect()
}

#[test]
fn sixteen_by_sixteen() {
    let full = pattern_16();
    let p = puzzle(&grid_text(&full, 16));
    assert_eq!(p.verify(&full), Ok(()));
    // Keep every cell but those of a scattered pattern of 60: the grid stays a solution.
    let mut givens = full.clone();
    for (i, g) in givens.iter_mut().enumerate() {
        if (i * 37) % 256 < 60 {
            *g = 0;
        }
    }
    let p = p.with_givens(givens).unwrap();
    for solver in Solver::ALL {
        let a = solve(&p, solver, true).unwrap();
        assert!(
            a.status == Status::Unique || a.status == Status::Multiple,
            "{solver}"
        );
        assert_eq!(p.verify(a.solution.as_ref().unwrap()), Ok(()));
    }
    let statuses: Vec<Status> = Solver::ALL
        .iter()
        .map(|&s| solve(&p, s, true).unwrap().status)
        .collect();
    assert!(statuses.windows(2).all(|w| w[0] == w[1]), "{statuses:?}");
}

#[test]
fn variants_by_every_solver() {
    for (variants, seed) in [
        (vec![Variant::Diagonal], 1),
        (vec![Variant::Hyper], 2),
        (vec![Variant::Disjoint], 3),
    ] {
        let mut shape = Shape::new(3, 3);
        shape.variants = variants;
        let p = minimal::generate(&shape, seed, Solver::Dlx).unwrap();
        let g = all_agree(&p, Status::Unique).unwrap();
        // The same givens without the variant's groups have more solutions, or the
        // variant would not matter; at least the plain verifier accepts the grid.
        let plain = puzzle(&p.text());
        assert_eq!(plain.verify(&g), Ok(()));
    }
    // An extra group on a 4x4 grid: the four corners all differ.
    let mut shape = Shape::new(2, 2);
    shape.extra_groups = vec![vec![(1, 1), (1, 4), (4, 1), (4, 4)]];
    let p = puzzle_of(&shape, &".".repeat(16));
    for solver in Solver::ALL {
        let n = solutions(&p, solver, 1000).unwrap().len();
        assert_eq!(
            n,
            solutions(&p, Solver::Dlx, 1000).unwrap().len(),
            "{solver}"
        );
        assert!(n < 288);
    }
}

#[test]
fn a_wrong_grid_never_leaves_solve() {
    let p = puzzle(EXAMPLE_1);
    let mut bad = puzzle(EXAMPLE_1_SOLUTION).givens().to_vec();
    bad.swap(0, 1);
    let e = answer(&p, "test", vec![bad], false).unwrap_err();
    assert!(matches!(e, SolveError::Wrong { .. }), "{e}");
    let good = puzzle(EXAMPLE_1_SOLUTION).givens().to_vec();
    let e = answer(&p, "test", vec![good.clone(), good], true).unwrap_err();
    assert!(e.to_string().contains("two solutions"), "{e}");
}

#[test]
fn dimacs_text_of_both_encodings() {
    let p = puzzle(EXAMPLE_1);
    let naive = sat::encode(&p, sat::Encoding::Naive);
    let extended = sat::encode(&p, sat::Encoding::Extended);
    let givens = p.clues();
    // Naive: givens, 81 cell clauses, 27 groups x 36 pairs x 9 values.
    assert_eq!(naive.clauses.len(), givens + 81 + 27 * 36 * 9);
    // Extended adds 81 x 36 cell pairs and 27 x 9 group clauses.
    assert_eq!(
        extended.clauses.len(),
        naive.clauses.len() + 81 * 36 + 27 * 9
    );
    let text = naive.to_dimacs();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(format!("p cnf 729 {}", naive.clauses.len()).as_str())
    );
    // The first given: r1c2 = 1 is variable 1 * 9 + 1.
    assert_eq!(lines.next(), Some("10 0"));
    assert_eq!(text.lines().count(), naive.clauses.len() + 1);
}

#[test]
fn minimality_and_generation() {
    // Royle's puzzles are minimal (the list is of minimal 17-clue puzzles).
    let royle = puzzle(ROYLE.lines().next().unwrap());
    assert_eq!(minimal::redundant_givens(&royle, Solver::Ps12), Ok(vec![]));
    // Example 1's solution as a puzzle: every given but... most are redundant.
    let full = puzzle(EXAMPLE_1_SOLUTION);
    assert_eq!(
        minimal::redundant_givens(&full, Solver::Ps12)
            .unwrap()
            .len(),
        81
    );
    assert!(matches!(
        minimal::redundant_givens(&puzzle(&".".repeat(81)), Solver::Ps12),
        Err(minimal::MinimalError::NotUnique(Status::Multiple))
    ));
    for (r, c, seed) in [(3, 3, 7), (2, 2, 1), (2, 3, 5)] {
        let shape = Shape::new(r, c);
        let p = minimal::generate(&shape, seed, Solver::Ps12).unwrap();
        assert_eq!(solve(&p, Solver::Dlx, true).unwrap().status, Status::Unique);
        assert_eq!(minimal::redundant_givens(&p, Solver::Dlx), Ok(vec![]));
        // Deterministic for a seed.
        let again = minimal::generate(&shape, seed, Solver::Ps12).unwrap();
        assert_eq!(again.givens(), p.givens());
    }
}

#[test]
fn difficulty_orders_an_easy_and_a_hard_puzzle() {
    let easy = difficulty::difficulty(&puzzle(EXAMPLE_1), 100, 1).unwrap();
    let hard = puzzle(HARDEST.lines().next().unwrap());
    let hard = difficulty::difficulty(&hard, 100, 1).unwrap();
    assert!(hard.ps12.searches > easy.ps12.searches);
    assert!(hard.tree_nodes.mean > easy.tree_nodes.mean);
    assert_eq!(easy.samples, 100);
}

#[test]
fn solver_names_round_trip() {
    for s in Solver::ALL {
        assert_eq!(s.name().parse::<Solver>(), Ok(s));
    }
    assert!("minisat".parse::<Solver>().is_err());
}

/// Every 4x4 grid by plain backtracking over cells in order, checking rows, columns and
/// boxes from coordinates: a brute force that shares nothing with the solvers.
fn all_4x4_grids() -> Vec<Vec<u8>> {
    fn fill(g: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        let Some(i) = g.iter().position(|&v| v == 0) else {
            out.push(g.clone());
            return;
        };
        let (r, c) = (i / 4, i % 4);
        for v in 1..=4 {
            let clash = (0..16).any(|j| {
                let (r2, c2) = (j / 4, j % 4);
                g[j] == v && (r2 == r || c2 == c || (r2 / 2 == r / 2 && c2 / 2 == c / 2))
            });
            if !clash {
                g[i] = v;
                fill(g, out);
                g[i] = 0;
            }
        }
    }
    let mut out = Vec::new();
    fill(&mut vec![0; 16], &mut out);
    out
}

mod against_brute_force {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Random 4x4 puzzles: a grid's cells under a random mask, one of them possibly
        /// changed (which may leave no solution). Every solver finds exactly the grids that
        /// brute force says agree with the givens.
        #[test]
        fn every_solver_finds_the_brute_force_solutions(
            grid in 0usize..288,
            mask in any::<u16>(),
            change in proptest::option::of((0usize..16, 1u8..=4)),
        ) {
            let grids = all_4x4_grids();
            prop_assert_eq!(grids.len(), 288);
            let mut givens: Vec<u8> = (0..16)
                .map(|i| if mask >> i & 1 != 0 { grids[grid][i] } else { 0 })
                .collect();
            if let Some((cell, v)) = change {
                givens[cell] = v;
            }
            let Ok(p) = puzzle(".".repeat(16).as_str()).with_givens(givens.clone()) else {
                // The change made two givens clash: the reader refuses the puzzle.
                return Ok(());
            };
            let mut want: Vec<Vec<u8>> = grids
                .iter()
                .filter(|g| givens.iter().zip(g.iter()).all(|(&a, &b)| a == 0 || a == b))
                .cloned()
                .collect();
            want.sort();
            for solver in Solver::ALL {
                let mut got = solutions(&p, solver, 1000).unwrap();
                got.sort();
                prop_assert_eq!(&got, &want, "{}", solver);
                let a = solve(&p, solver, true).unwrap();
                let status = match want.len() {
                    0 => Status::None,
                    1 => Status::Unique,
                    _ => Status::Multiple,
                };
                prop_assert_eq!(a.status, status);
            }
        }
    }
}
