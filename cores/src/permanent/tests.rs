//! Checks of the permanent and its bounds, each against a source or an oracle that shares no
//! code with the method checked: brute force over permutations, the closed form of a rook
//! polynomial, OEIS tables, the Dancing Links engine.
//!
//! Sources: OEIS A000166 (derangements, per(J - I_n): seed 000 section 2.2's own example);
//! Mathimagics, "Row 2 completion counts" (enjoysudoku forum): valid second rows given the first
//! for R x C boxes, by rook polynomials; OEIS A107739, A291187 (2 x n boxes) and REFERENCES.md for Sudoku grids; OEIS
//! A002860 for Latin squares.
//!
//! The 36 x 36 case (6x6 boxes, 129 bits) takes about 0.1 ms in a debug build by the rook
//! polynomial of its six 6 x 6 blocks of zeros (the method `permanent` picks), and about 60 ms
//! by Ryser over classes alone (7^6 terms in BigInt); measured, not asserted, by
//! `sudoku_second_rows_match_the_forum_table`, which prints both with `--nocapture`. Plain
//! Ryser would take 2^36 36 steps.

use std::collections::BTreeMap;
use std::time::Instant;

use num_bigint::BigInt;
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::rows::{self, Given, NextRow};
use super::*;
use crate::problems::sudoku::SudokuConfig;
use crate::xcc::Dlx;

fn big(s: &str) -> BigUint {
    s.parse().expect("a decimal number")
}

/// The permanent by its definition: every permutation, row by row.
fn brute_force(a: &Matrix01) -> u128 {
    fn go(a: &Matrix01, row: usize, used: u64) -> u128 {
        if row == a.order() {
            return 1;
        }
        (0..a.order())
            .filter(|&j| used >> j & 1 == 0 && a.get(row, j))
            .map(|j| go(a, row + 1, used | 1 << j))
            .sum()
    }
    go(a, 0, 0)
}

fn random_matrix(rng: &mut ChaCha8Rng, n: usize, density: f64) -> Matrix01 {
    let cells: Vec<bool> = (0..n * n).map(|_| rng.random_bool(density)).collect();
    Matrix01::from_fn(n, |i, j| cells[i * n + j]).unwrap()
}

/// The same matrix with its rows and columns duplicated, so that classes have members.
fn blown_up(a: &Matrix01, times: usize) -> Matrix01 {
    let n = a.order() * times;
    Matrix01::from_fn(n, |i, j| a.get(i / times, j / times) || (i + j) % 5 == 0).unwrap()
}

/// Every method on its own, and the dispatcher.
fn all_methods(a: &Matrix01) -> Vec<(&'static str, BigUint)> {
    let mut out = vec![("permanent", permanent(a).unwrap().value)];
    if let Some((v, _)) = ryser_gray(a) {
        out.push(("ryser", BigUint::from(v)));
    }
    let plan = classes::Plan::cheapest(a);
    out.push(("classes u128", plan.run(true).unwrap().0));
    out.push(("classes BigInt", plan.run(false).unwrap().0));
    if let Some(plan) = rook::Plan::new(a) {
        out.push(("rook", plan.run().unwrap().0));
    }
    out
}

#[test]
fn every_method_equals_brute_force_on_random_matrices() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    for case in 0..300 {
        let n = rng.random_range(0..=7);
        let density = [0.3, 0.6, 0.85][case % 3];
        let a = random_matrix(&mut rng, n, density);
        let a = if case % 4 == 0 && n <= 4 {
            blown_up(&a, 2)
        } else {
            a
        };
        let want = BigUint::from(brute_force(&a));
        for (method, got) in all_methods(&a) {
            assert_eq!(got, want, "{method} on case {case}: {a:?}");
        }
    }
}

#[test]
fn the_blocks_of_a_direct_sum_multiply() {
    // diag(J_3, J - I_4, J_2): 3! * 9 * 2! = 108, in three blocks; and a zero column gives 0.
    let block = |i: usize| match i {
        0..=2 => 0,
        3..=6 => 1,
        _ => 2,
    };
    let a = Matrix01::from_fn(9, |i, j| block(i) == block(j) && (block(i) != 1 || i != j)).unwrap();
    let p = permanent(&a).unwrap();
    assert_eq!(p.value, BigUint::from(108u32));
    assert_eq!(p.blocks.len(), 3);
    assert_eq!(brute_force(&a), 108);
    let b = Matrix01::from_fn(5, |_, j| j != 3).unwrap();
    let p = permanent(&b).unwrap();
    assert!(p.value.is_zero());
    assert_eq!(p.blocks[0].method, Method::Zero);
}

/// OEIS A000166, n = 0..=24.
const A000166: [&str; 25] = [
    "1",
    "0",
    "1",
    "2",
    "9",
    "44",
    "265",
    "1854",
    "14833",
    "133496",
    "1334961",
    "14684570",
    "176214841",
    "2290792932",
    "32071101049",
    "481066515734",
    "7697064251745",
    "130850092279664",
    "2355301661033953",
    "44750731559645106",
    "895014631192902121",
    "18795307255050944540",
    "413496759611120779881",
    "9510425471055777937262",
    "228250211305338670494289",
];

fn j_minus_i(n: usize) -> Matrix01 {
    Matrix01::from_fn(n, |i, j| i != j).unwrap()
}

#[test]
fn derangements_are_per_j_minus_i() {
    // Seed 000 section 2.2: per(J - I_n) counts the derangements, OEIS A000166, n >= 2.
    for (n, want) in A000166.iter().enumerate().skip(2) {
        let a = j_minus_i(n);
        assert_eq!(permanent(&a).unwrap().value, big(want), "n = {n}");
        if n <= 12 {
            assert_eq!(BigUint::from(ryser_gray(&a).unwrap().0), big(want));
        }
    }
    // Past the table, D(n) = (n - 1)(D(n-1) + D(n-2)) (Euler), up to order 64.
    let (mut d2, mut d1) = (big(A000166[23]), big(A000166[24]));
    for n in 25..=MAX_ORDER {
        let d = (d1.clone() + d2) * BigUint::from(n - 1);
        let p = permanent(&j_minus_i(n)).unwrap();
        assert_eq!(p.value, d, "n = {n}");
        assert_eq!(p.blocks[0].method, Method::Rook, "n singletons of zeros");
        (d2, d1) = (d1, d);
    }
}

#[test]
fn per_j_is_n_factorial_and_both_bounds_meet_it() {
    // Van der Waerden's bound is an equality exactly at J_n / n (seed 000, Theorem 1), and
    // Bregman's product for J_n is (n!)^(n/n) = n!.
    for n in 1..=MAX_ORDER {
        let a = Matrix01::ones(n).unwrap();
        let f = factorial(n);
        assert_eq!(permanent(&a).unwrap().value, f, "n = {n}");
        assert_eq!(bregman(&a.row_sums()), f, "n = {n}");
        assert_eq!(van_der_waerden(&a), Some(f.clone()), "n = {n}");
        if n <= 10 {
            assert_eq!(BigUint::from(ryser_gray(&a).unwrap().0), f);
        }
    }
}

/// The second row of a Sudoku with `r x c` boxes, below the first row `1..side`.
fn second_row(r: usize, c: usize) -> NextRow {
    let rows = rows::sudoku_rows(&SudokuConfig::new(r, c)).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].given, Given::Nothing);
    assert_eq!(rows[1].given, Given::FirstRow);
    assert_eq!(rows[1].row, 1);
    rows[1].clone()
}

/// The closed form: the zeros are r blocks of c x c, with rook polynomial
/// `(sum_j C(c,j)^2 j! x^j)^r`, and `per = sum_k (-1)^k r_k (side - k)!`. Own arithmetic.
fn closed_form(r: usize, c: usize) -> BigUint {
    let choose = |n: usize, k: usize| -> BigInt {
        (0..k).fold(BigInt::one(), |acc, i| acc * (n - i) / (i + 1))
    };
    let fact = |n: usize| (1..=n).fold(BigInt::one(), |acc, i| acc * i);
    let block: Vec<BigInt> = (0..=c)
        .map(|j| choose(c, j) * choose(c, j) * fact(j))
        .collect();
    let mut poly = vec![BigInt::one()];
    for _ in 0..r {
        let mut next = vec![BigInt::zero(); poly.len() + c];
        for (i, a) in poly.iter().enumerate() {
            for (j, b) in block.iter().enumerate() {
                next[i + j] += a * b;
            }
        }
        poly = next;
    }
    let side = r * c;
    let total: BigInt = poly
        .iter()
        .enumerate()
        .map(|(k, rk)| {
            let term = rk * fact(side - k);
            if k % 2 == 0 {
                term
            } else {
                -term
            }
        })
        .sum();
    total.to_biguint().unwrap()
}

/// Valid second rows given the first, for R x C boxes (R rows, C columns): Mathimagics, "Row 2
/// completion counts" (enjoysudoku forum); each is a multiple of C!^R (permuting the digits
/// inside each box's segment of row 1), the quotient as the forum lists it where it does.
const SECOND_ROWS: [(usize, usize, &str, Option<u64>); 8] = [
    (3, 3, "12096", Some(56)),
    (4, 4, "248341303296", Some(748_521)),
    (5, 5, "66479063739206860800000", Some(2_671_644_472_544)),
    (3, 4, "4783104", Some(346)),
    (4, 3, "17927568", Some(13_833)),
    (4, 5, "9150176586240000", None),
    (5, 4, "31798303197364224", None),
    (6, 6, "580375415775905260256627372851200000000", None),
];

#[test]
fn sudoku_second_rows_match_the_forum_table() {
    for &(r, c, count, quotient) in &SECOND_ROWS {
        let want = big(count);
        let per_segment = num_traits::pow(factorial(c), r);
        assert!((&want % &per_segment).is_zero(), "{r}x{c}");
        if let Some(q) = quotient {
            assert_eq!(want, per_segment * q, "{r}x{c}: the issue's factorisation");
        }
        assert_eq!(closed_form(r, c), want, "{r}x{c}: the closed form");
        let next = second_row(r, c);
        let started = Instant::now();
        let figures = rows::figures(next.clone());
        let exact = figures.exact.as_ref().unwrap();
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "{r}x{c} boxes: row 2 = {} by {} in {seconds:.6} s",
            exact.value,
            exact.describe()
        );
        assert_eq!(exact.value, want, "{r}x{c}");
        // Both structured methods on their own.
        let started = Instant::now();
        let plan = classes::Plan::cheapest(&next.matrix);
        assert_eq!(plan.run(false).unwrap().0, want, "{r}x{c} by classes");
        let classes_seconds = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let rook = rook::Plan::new(&next.matrix).expect("c x c blocks of zeros");
        assert_eq!(rook.run().unwrap().0, want, "{r}x{c} by rooks");
        eprintln!(
            "  by classes alone (BigInt) {classes_seconds:.6} s, by rooks alone {:.6} s",
            started.elapsed().as_secs_f64()
        );
        if r * c <= 20 {
            let (v, _) = ryser_gray(&next.matrix).unwrap();
            assert_eq!(BigUint::from(v), want, "{r}x{c} by plain Ryser");
        }
        // Bounds: every row and column sums to side - c (a digit is barred from its own box).
        let side = r * c;
        assert_eq!(next.matrix.regular_degree(), Some(side - c));
        let lower = figures.lower.expect("a regular matrix");
        assert!(
            lower <= want && want <= figures.upper,
            "{r}x{c}: {lower} <= {want} <= {}",
            figures.upper
        );
    }
    // 129 bits: past u128.
    assert_eq!(big(SECOND_ROWS[7].2).bits(), 129);
}

#[test]
fn bounds_hold_on_every_case() {
    // lower <= exact <= upper for derangements, J_n, the second rows above and random matrices;
    // van der Waerden only where rows and columns all sum to the same k.
    let mut cases: Vec<Matrix01> = (2..=24).map(j_minus_i).collect();
    cases.extend((1..=20).map(|n| Matrix01::ones(n).unwrap()));
    cases.extend(
        SECOND_ROWS
            .iter()
            .map(|&(r, c, _, _)| second_row(r, c).matrix),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    cases.extend((0..200).map(|i| random_matrix(&mut rng, 1 + i % 9, 0.7)));
    for a in &cases {
        let exact = permanent(a).unwrap().value;
        assert!(exact <= bregman(&a.row_sums()), "{a:?}");
        match van_der_waerden(a) {
            Some(lower) => assert!(lower <= exact, "{a:?}"),
            None => assert!(a.regular_degree().is_none(), "{a:?}"),
        }
    }
    // A matrix that is not regular has no van der Waerden number.
    let a = Matrix01::from_fn(3, |i, j| i == 0 || j == i).unwrap();
    assert_eq!(van_der_waerden(&a), None);
}

/// `x^k` compared exactly with the product `prod (f!)^(m L / f)` raised to the lcm L.
fn power_vs_product(x: &BigUint, counts: &BTreeMap<usize, usize>) -> std::cmp::Ordering {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let l = counts.keys().fold(1, |l, &k| l / gcd(l, k) * k);
    let product = counts.iter().fold(BigUint::one(), |p, (&k, &m)| {
        p * num_traits::pow(factorial(k), m * l / k)
    });
    num_traits::pow(x.clone(), l).cmp(&product)
}

#[test]
fn bregman_is_the_least_integer_at_or_above_the_product() {
    // U >= P and U - 1 < P, checked as U^L >= P^L > (U-1)^L with L the lcm of the row sums.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..200 {
        let n = rng.random_range(1..=12);
        let sums: Vec<usize> = (0..n).map(|_| rng.random_range(1..=9)).collect();
        let mut counts = BTreeMap::new();
        for &s in &sums {
            *counts.entry(s).or_insert(0) += 1;
        }
        let u = bregman(&sums);
        assert_ne!(
            power_vs_product(&u, &counts),
            std::cmp::Ordering::Less,
            "{sums:?}"
        );
        assert_eq!(
            power_vs_product(&(u - 1u8), &counts),
            std::cmp::Ordering::Less,
            "{sums:?}"
        );
    }
    assert!(bregman(&[3, 0, 2]).is_zero());
}

#[test]
fn van_der_waerden_rounds_down() {
    // J - I_4 is 3-regular: 3^4 4! / 4^4 = 1944 / 256 = 7.59..., so 7 (per = D(4) = 9).
    assert_eq!(van_der_waerden(&j_minus_i(4)), Some(BigUint::from(7u8)));
}

#[test]
fn grid_bounds_are_above_the_known_totals() {
    // Sudoku: 288 (2x2), 28,200,960 (2x3, 3x2), 29,136,487,207,403,520 (2x4, 4x2),
    // 6,670,903,752,021,072,936,960 (3x3): OEIS A107739, REFERENCES.md (`known`).
    for (r, c) in [(1, 4), (2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)] {
        let known = known::sudoku_grids(r, c).unwrap();
        let bound = rows::sudoku_grid_bound(&SudokuConfig::new(r, c)).unwrap();
        assert!(big(known.value) <= bound.upper, "{r}x{c}: {}", bound.upper);
    }
    // The 9x9 rows' availability: 9 6 3 6 5 3 3 2 1.
    let nine = rows::sudoku_grid_bound(&SudokuConfig::new(3, 3)).unwrap();
    assert_eq!(nine.uniform_rows().unwrap(), [9, 6, 3, 6, 5, 3, 3, 2, 1]);
    // Latin squares, OEIS A002860 up to order 11: L(n) <= prod_k (k!)^(n/k).
    for n in 1..=11 {
        let known = big(known::latin_squares(n).unwrap().value);
        let bound = rows::latin_grid_bound(n, 0);
        assert!(known <= bound.upper, "order {n}");
        // The table's own check: A002860(n) = n! (n-1)! A000315(n); its next row is D(n)... at
        // n = 2 both are 2.
        if n == 2 {
            assert_eq!(bound.upper, known);
        }
    }
    // A002860 = n!(n-1)! A000315 (reduced squares), orders 1..=11.
    let a000315 = [
        "1",
        "1",
        "1",
        "4",
        "56",
        "9408",
        "16942080",
        "535281401856",
        "377597570964258816",
        "7580721483160132811489280",
        "5363937773277371298119673540771840",
    ];
    for (i, reduced) in a000315.iter().enumerate() {
        let n = i + 1;
        let all = factorial(n) * factorial(n - 1) * big(reduced);
        assert_eq!(
            all,
            big(known::latin_squares(n).unwrap().value),
            "order {n}"
        );
    }
}

/// Counts a next row's fillings with the Dancing Links engine on its one-row problem.
fn engine_count(next: &NextRow) -> u128 {
    let problem = rows::row_problem(next).unwrap();
    Dlx::new(&problem).count()
}

#[test]
fn the_engine_counts_the_same_rows() {
    // 3x3 (12,096), 3x4 (4,783,104), 4x3 (17,927,568): the forum's table again, by the engine
    // (a few seconds in a debug build; 4x4's 248 billion are out of its reach).
    for &(r, c, count, _) in &SECOND_ROWS[..5] {
        if r * c <= 12 {
            assert_eq!(
                engine_count(&second_row(r, c)),
                count.parse::<u128>().unwrap()
            );
        }
    }
    for (r, c) in [(2, 2), (2, 3), (3, 2), (2, 4)] {
        let next = second_row(r, c);
        let exact = permanent(&next.matrix).unwrap().value;
        assert_eq!(BigUint::from(engine_count(&next)), exact, "{r}x{c}");
    }
}

/// A plain Sudoku grid of side r*c with its first `rows` rows kept (a valid filling: the
/// pattern `(i mod r) c + i / r + j` mod side).
fn pattern_givens(r: usize, c: usize, rows: usize, extra: &[(usize, usize)]) -> Vec<u8> {
    let s = r * c;
    let value = |i: usize, j: usize| ((i % r * c + i / r + j) % s + 1) as u8;
    (0..s * s)
        .map(|cell| {
            let (i, j) = (cell / s, cell % s);
            if i < rows || extra.contains(&(i, j)) {
                value(i, j)
            } else {
                0
            }
        })
        .collect()
}

/// Calls `f` on every order of `1..=s` (Heap's algorithm).
fn permutations(s: usize, mut f: impl FnMut(&[u8])) {
    let mut perm: Vec<u8> = (1..=s as u8).collect();
    let mut stack = vec![0usize; s];
    f(&perm);
    let mut i = 0;
    while i < s {
        if stack[i] < i {
            perm.swap(if i % 2 == 0 { 0 } else { stack[i] }, i);
            f(&perm);
            stack[i] += 1;
            i = 0;
        } else {
            stack[i] = 0;
            i += 1;
        }
    }
}

/// Fillings of row `row` that break no row, column or box with the givens: every permutation,
/// checked cell by cell with this test's own geometry.
fn brute_force_row(r: usize, c: usize, givens: &[u8], row: usize) -> u64 {
    let s = r * c;
    let boxed = |i: usize, j: usize| (i / r, j / c);
    let mut count = 0;
    let ok = |perm: &[u8]| {
        (0..s).all(|j| {
            let v = perm[j];
            let given = givens[row * s + j];
            (given == 0 || given == v)
                && (0..s * s).all(|cell| {
                    let (i2, j2) = (cell / s, cell % s);
                    i2 == row || givens[cell] != v || (j2 != j && boxed(i2, j2) != boxed(row, j))
                })
        })
    };
    permutations(s, |perm| {
        if ok(perm) {
            count += 1;
        }
    });
    count
}

#[test]
fn next_rows_below_givens_equal_brute_force() {
    // Rows given from a valid grid, and a few cells below them given too.
    for (r, c) in [(2, 2), (2, 3), (3, 2)] {
        let s = r * c;
        for rows_given in 1..s {
            for extra in [
                vec![],
                vec![(rows_given, 0)],
                vec![(s - 1, 1), (rows_given, 2)],
            ] {
                let givens = pattern_givens(r, c, rows_given, &extra);
                let text = crate::problems::sudoku::format_grid(&givens, s);
                let config = SudokuConfig {
                    givens: Some(text),
                    ..SudokuConfig::new(r, c)
                };
                let next = rows::sudoku_rows(&config).unwrap();
                assert_eq!(next.len(), 1);
                assert_eq!(next[0].row, rows_given);
                let exact = permanent(&next[0].matrix).unwrap().value;
                let want = brute_force_row(r, c, &givens, rows_given);
                assert_eq!(
                    exact,
                    BigUint::from(want),
                    "{r}x{c}, {rows_given} rows, {extra:?}"
                );
                assert_eq!(BigUint::from(engine_count(&next[0])), exact);
                // The completions of the givens, counted by the engine, are within the bound.
                let bound = rows::sudoku_grid_bound(&config).unwrap();
                let built = crate::problems::ProblemSpec::Sudoku {
                    box_rows: r,
                    box_cols: c,
                    variants: vec![],
                    extra_groups: vec![],
                    givens: config.givens.clone(),
                    fix_first_row: false,
                }
                .build()
                .unwrap();
                let mut dlx = Dlx::new(&built.problem);
                dlx.apply_prefix(&built.prefix).unwrap();
                let completions = dlx.count();
                assert!(BigUint::from(completions) <= bound.upper);
            }
        }
    }
}

/// Fillings of the next row that the Sudoku builder accepts with the givens (its own clash
/// check, `problems::sudoku::find_clash`): every permutation of the row.
fn by_the_builder(config: &SudokuConfig, row: usize) -> u64 {
    let s = config.box_rows * config.box_cols;
    let givens =
        crate::problems::sudoku::parse_givens(config.givens.as_deref().unwrap(), s).unwrap();
    let mut count = 0;
    let mut try_row = |perm: &[u8]| {
        let mut grid = givens.clone();
        for (j, &v) in perm.iter().enumerate() {
            match grid[row * s + j] {
                0 => grid[row * s + j] = v,
                g if g != v => return,
                _ => {}
            }
        }
        let config = SudokuConfig {
            givens: Some(crate::problems::sudoku::format_grid(&grid, s)),
            ..config.clone()
        };
        if crate::problems::sudoku::Sudoku::build(&config).is_ok() {
            count += 1;
        }
    };
    permutations(s, &mut try_row);
    count
}

#[test]
fn variants_and_groups_bar_values_in_the_next_row() {
    use crate::problems::Variant;
    // Below rows 1234 / 3412 of a diagonal 4x4, r3c2 is on the anti-diagonal with 4 and 1 and
    // in column 2 with 2 and 4: only 3 is left (plain: 1 or 3).
    let diagonal = SudokuConfig {
        variants: vec![Variant::Diagonal],
        givens: Some("12343412........".into()),
        ..SudokuConfig::new(2, 2)
    };
    let plain = SudokuConfig {
        variants: vec![],
        ..diagonal.clone()
    };
    let next = rows::sudoku_rows(&diagonal).unwrap()[0].clone();
    assert_eq!(next.row, 2);
    assert_eq!(next.matrix.row_mask(1), 0b0100);
    let (d, p) = (
        permanent(&next.matrix).unwrap().value,
        permanent(&rows::sudoku_rows(&plain).unwrap()[0].matrix)
            .unwrap()
            .value,
    );
    assert!(d < p, "{d} < {p}");
    // Every variant and an extra group, against the builder's own clash check and the engine.
    let half = |r: usize, c: usize, rows: usize| {
        let s = r * c;
        crate::problems::sudoku::format_grid(&pattern_givens(r, c, rows, &[]), s)
    };
    let cases = [
        (
            2,
            2,
            vec![Variant::Diagonal],
            vec![],
            "12343412........".to_string(),
        ),
        (2, 3, vec![Variant::Disjoint], vec![], half(2, 3, 2)),
        (3, 3, vec![Variant::Hyper], vec![], half(3, 3, 2)),
        (
            2,
            2,
            vec![],
            vec![vec![(1, 4), (2, 1)]],
            "1234............".to_string(),
        ),
    ];
    for (r, c, variants, extra_groups, givens) in cases {
        let config = SudokuConfig {
            variants,
            extra_groups,
            givens: Some(givens),
            ..SudokuConfig::new(r, c)
        };
        let next = rows::sudoku_rows(&config).unwrap()[0].clone();
        let exact = permanent(&next.matrix).unwrap().value;
        if r * c <= 6 {
            assert_eq!(
                exact,
                BigUint::from(by_the_builder(&config, next.row)),
                "{config:?}"
            );
        }
        assert_eq!(BigUint::from(engine_count(&next)), exact, "{config:?}");
    }
    // The extra group {r1c4, r2c1} bars 4 from r2c1: 2 second rows instead of 4.
    let grouped = SudokuConfig {
        extra_groups: vec![vec![(1, 4), (2, 1)]],
        givens: Some("1234............".into()),
        ..SudokuConfig::new(2, 2)
    };
    let next = &rows::sudoku_rows(&grouped).unwrap()[0];
    assert_eq!(permanent(&next.matrix).unwrap().value, BigUint::from(2u8));
}

#[test]
fn latin_rows_parse_check_and_count() {
    // Below 1234 / 2143 the third row takes {3,4} in columns 1-2 and {1,2} in 3-4: 2 x 2 ways.
    let rows_given = rows::parse_latin_rows("1234,2143", 4).unwrap();
    let next = rows::latin_rows(4, &rows_given).unwrap();
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].row, 2);
    let figures = rows::figures(next[0].clone());
    assert_eq!(figures.exact.unwrap().value, BigUint::from(4u8));
    assert_eq!(engine_count(&next[0]), 4);
    // 2-regular: van der Waerden 2^4 4!/4^4 = 1.5, so 1; Bregman (2!)^(4/2) = 4: tight.
    assert_eq!(figures.lower, Some(BigUint::one()));
    assert_eq!(figures.upper, BigUint::from(4u8));
    // Without rows: row 1 is n!, row 2 the derangements.
    let two = rows::latin_rows(7, &[]).unwrap();
    assert_eq!(permanent(&two[0].matrix).unwrap().value, factorial(7));
    assert_eq!(permanent(&two[1].matrix).unwrap().value, big(A000166[7]));
    // Errors name the row or the column.
    let err = rows::parse_latin_rows("1234,1342", 4).unwrap_err();
    assert_eq!(err.to_string(), "rows 1 and 2 both hold 1 in column 1");
    let err = rows::parse_latin_rows("1234,2243", 4).unwrap_err();
    assert_eq!(err.to_string(), "row 2: symbol 2 appears twice");
    let err = rows::parse_latin_rows("123", 4).unwrap_err();
    assert_eq!(err.to_string(), "row 1: 3 symbols, expected 4 for order 4");
    // Numbers past 35, whitespace-separated.
    let order = 40;
    let row: Vec<String> = (1..=order).rev().map(|v| v.to_string()).collect();
    let parsed = rows::parse_latin_rows(&row.join(" "), order).unwrap();
    assert_eq!(parsed[0][0], 40);
    // A full square has no next row.
    let full = rows::parse_latin_rows("12,21", 2).unwrap();
    assert!(rows::latin_rows(2, &full).unwrap().is_empty());
}

#[test]
fn an_unstructured_40_by_40_matrix_is_out_of_reach() {
    // A random dense 40 x 40 matrix has no classes, no small blocks of zeros, and is past
    // plain Ryser's order: a value, not a hang.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let a = random_matrix(&mut rng, 40, 0.5);
    match permanent(&a) {
        Err(PermanentError::OutOfReach { n, .. }) => assert_eq!(n, 40),
        other => panic!("expected out of reach, got {other:?}"),
    }
}
