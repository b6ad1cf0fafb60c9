//! Known counts: every problem family built by `cores::problems`, solved by the engine
//! `cores::xcc::Dlx`, against published figures (each test cites its source), plus checks
//! of solutions by the Sudoku verifier, which shares no code with the builder.

use cores::problems::sudoku::{verify::check_grid, Sudoku, SudokuConfig};
use cores::problems::{BuildError, Built, GivensError, ProblemSpec, Variant};
use cores::xcc::{parse_dlx, write_dlx, Dlx, Flow, Limits, OptionId, Outcome};

/// Builds a spec and counts all its solutions from its prefix.
fn count(spec: &ProblemSpec) -> u128 {
    let built = spec.build().unwrap();
    count_built(&built)
}

fn count_built(built: &Built) -> u128 {
    let mut dlx = Dlx::new(&built.problem);
    dlx.apply_prefix(&built.prefix).unwrap();
    dlx.count()
}

fn sudoku(box_rows: usize, box_cols: usize, variants: &[Variant]) -> ProblemSpec {
    ProblemSpec::Sudoku {
        box_rows,
        box_cols,
        variants: variants.to_vec(),
        extra_groups: Vec::new(),
        givens: None,
        fix_first_row: false,
    }
}

fn fixed_first_row(spec: ProblemSpec) -> ProblemSpec {
    match spec {
        ProblemSpec::Sudoku {
            box_rows,
            box_cols,
            variants,
            extra_groups,
            givens,
            ..
        } => ProblemSpec::Sudoku {
            box_rows,
            box_cols,
            variants,
            extra_groups,
            givens,
            fix_first_row: true,
        },
        other => other,
    }
}

fn puzzle(box_rows: usize, box_cols: usize, givens: &str) -> ProblemSpec {
    ProblemSpec::Sudoku {
        box_rows,
        box_cols,
        variants: Vec::new(),
        extra_groups: Vec::new(),
        givens: Some(givens.to_string()),
        fix_first_row: false,
    }
}

#[test]
fn sudoku_4x4_has_288_grids() {
    // Seed 000, Table 1 (size 2: 288); OEIS A107739.
    assert_eq!(count(&sudoku(2, 2, &[])), 288);
}

#[test]
fn sudoku_4x4_diagonal_has_48_grids() {
    // Seed 000, section 2.4 "Further results": 48 diagonal size-2 grids.
    assert_eq!(count(&sudoku(2, 2, &[Variant::Diagonal])), 48);
}

#[test]
fn sudoku_4x4_fixed_first_row_times_24_is_288() {
    // Seed 000 Table 1 again, through the symmetry reduction: 288 / 4! = 12.
    let spec = fixed_first_row(sudoku(2, 2, &[]));
    let built = spec.build().unwrap();
    assert_eq!(built.symmetry_factor, 24);
    assert_eq!(count_built(&built), 12);
}

#[test]
fn sudoku_6x6_fixed_first_row_has_39168() {
    // REFERENCES.md: 28,200,960 grids of 6x6 Sudoku with 2x3 boxes; / 6! = 39,168.
    let built = fixed_first_row(sudoku(2, 3, &[])).build().unwrap();
    assert_eq!(built.label, "sudoku 2x3 fixed-first-row");
    let n = count_built(&built);
    assert_eq!(n, 39_168);
    assert_eq!(n * built.symmetry_factor, 28_200_960);
}

/// Every 4x4 grid, from the engine, as a grid string.
fn all_4x4_grids() -> Vec<String> {
    let s = Sudoku::build(&SudokuConfig::new(2, 2)).unwrap();
    let mut dlx = Dlx::new(&s.problem);
    let mut grids = Vec::new();
    let outcome = dlx.run(&Limits::default(), |sol: &[OptionId]| {
        grids.push(s.decode(sol).unwrap());
        Flow::Continue
    });
    assert!(matches!(outcome, Outcome::Complete));
    grids
}

#[test]
fn variant_counts_agree_with_the_independent_verifier() {
    // The engine's count for each variant equals the number of the 288 plain grids that the
    // verifier (no code shared with the builder) accepts for that variant.
    let mut grids = all_4x4_grids();
    assert_eq!(grids.len(), 288);
    for g in &grids {
        assert_eq!(check_grid(g, 2, 2, &[], &[], None), Ok(()), "{g}");
    }
    grids.sort();
    grids.dedup();
    assert_eq!(grids.len(), 288, "grids are distinct");
    let variant_sets: [&[Variant]; 5] = [
        &[Variant::Diagonal],
        &[Variant::Hyper],
        &[Variant::Disjoint],
        &[Variant::Diagonal, Variant::Disjoint],
        &[Variant::Diagonal, Variant::Hyper, Variant::Disjoint],
    ];
    for variants in variant_sets {
        let accepted = grids
            .iter()
            .filter(|g| check_grid(g, 2, 2, variants, &[], None).is_ok())
            .count() as u128;
        assert_eq!(count(&sudoku(2, 2, variants)), accepted, "{variants:?}");
    }
    assert_eq!(
        grids
            .iter()
            .filter(|g| check_grid(g, 2, 2, &[Variant::Diagonal], &[], None).is_ok())
            .count(),
        48
    );
    // Extra groups: the two diagonals as user groups (4 cells: each digit once) give the
    // diagonal count; a 2-cell group (at most once) is checked against the verifier too.
    let diagonals = vec![
        vec![(1, 1), (2, 2), (3, 3), (4, 4)],
        vec![(1, 4), (2, 3), (3, 2), (4, 1)],
    ];
    let small = vec![vec![(1, 1), (4, 4)]];
    for groups in [diagonals, small] {
        let spec = ProblemSpec::Sudoku {
            box_rows: 2,
            box_cols: 2,
            variants: Vec::new(),
            extra_groups: groups.clone(),
            givens: None,
            fix_first_row: false,
        };
        let accepted = grids
            .iter()
            .filter(|g| check_grid(g, 2, 2, &[], &groups, None).is_ok())
            .count() as u128;
        assert_eq!(count(&spec), accepted, "{groups:?}");
    }
}

/// Royle's 17-clue list, /work/shared/data/sudoku/royle_17clue_49151.txt, line 1 (`0` = empty).
const ROYLE_LINE_1: &str =
    "000000010400000000020000000000050407008000300001090000300400200050100000000806000";

/// /work/shared/data/sudoku/serg_benchmark_10000.txt, line 1: has more than one solution
/// (the data README: every puzzle of that file does).
const SERG_LINE_1: &str =
    "8.........95.......76.........426798...571243...893165......916....3.487....1.532";

#[test]
fn royle_17_clue_puzzle_is_unique_and_verifies() {
    let spec = puzzle(3, 3, ROYLE_LINE_1);
    let built = spec.build().unwrap();
    assert_eq!(built.prefix.len(), 17);
    let mut dlx = Dlx::new(&built.problem);
    dlx.apply_prefix(&built.prefix).unwrap();
    assert_eq!(dlx.count_up_to(2), 1);
    let solution = dlx.first().unwrap();
    assert_eq!(solution.len(), 81);
    let s = Sudoku::build(&SudokuConfig {
        givens: Some(ROYLE_LINE_1.into()),
        ..SudokuConfig::new(3, 3)
    })
    .unwrap();
    let grid = s.decode(&solution).unwrap();
    assert_eq!(
        check_grid(&grid, 3, 3, &[], &[], Some(ROYLE_LINE_1)),
        Ok(())
    );
    for (given, got) in ROYLE_LINE_1.chars().zip(grid.chars()) {
        assert!(given == '0' || given == got);
    }
}

#[test]
fn serg_benchmark_puzzle_is_not_unique() {
    let built = puzzle(3, 3, SERG_LINE_1).build().unwrap();
    let mut dlx = Dlx::new(&built.problem);
    dlx.apply_prefix(&built.prefix).unwrap();
    assert_eq!(dlx.count_up_to(2), 2);
}

#[test]
fn bad_givens_are_named() {
    let err = |g: &str| puzzle(3, 3, g).build().unwrap_err();
    assert_eq!(
        err(&ROYLE_LINE_1[1..]),
        BuildError::Givens(GivensError::WrongLength {
            found: 80,
            expected: 81,
            side: 9
        })
    );
    let mut bad = ROYLE_LINE_1.to_string();
    bad.replace_range(10..11, "?");
    assert_eq!(
        err(&bad).to_string(),
        "givens: bad character `?` at position 11 (r2c2)"
    );
    // Put a second 1 in row 1 (r1c8 holds 1 already).
    let mut clash = ROYLE_LINE_1.to_string();
    clash.replace_range(0..1, "1");
    assert_eq!(
        err(&clash).to_string(),
        "givens: r1c1 and r1c8 both hold 1 in row 1"
    );
}

#[test]
fn queens_8_and_10() {
    // OEIS A000170: 92 and 724.
    assert_eq!(count(&ProblemSpec::Queens { n: 8 }), 92);
    assert_eq!(count(&ProblemSpec::Queens { n: 10 }), 724);
}

#[test]
fn queens_through_the_dlx_text_format() {
    // write then parse gives the same problem, hence the same count (OEIS A000170: 92).
    let built = ProblemSpec::Queens { n: 8 }.build().unwrap();
    let again = parse_dlx(&write_dlx(&built.problem)).unwrap();
    assert_eq!(again, built.problem);
    assert_eq!(Dlx::new(&again).count(), 92);
}

#[test]
fn langford_7_and_8() {
    // OEIS A014552 (pairings up to reversal): L(2,7) = 26, L(2,8) = 150; with reversals
    // twice as many.
    for (n, up_to_reversal) in [(7, 26u128), (8, 150)] {
        let broken = ProblemSpec::Langford {
            n,
            break_symmetry: true,
        }
        .build()
        .unwrap();
        assert_eq!(count_built(&broken), up_to_reversal, "n = {n}");
        assert_eq!(broken.symmetry_factor, 2);
        let full = ProblemSpec::Langford {
            n,
            break_symmetry: false,
        };
        assert_eq!(count(&full), 2 * up_to_reversal, "n = {n}");
    }
}

#[test]
fn latin_squares() {
    // OEIS A000315 (reduced): order 4: 4, order 5: 56. OEIS A002860 (all): order 4: 576.
    let reduced4 = ProblemSpec::Latin {
        n: 4,
        reduced: true,
    }
    .build()
    .unwrap();
    assert_eq!(count_built(&reduced4), 4);
    assert_eq!(count_built(&reduced4) * reduced4.symmetry_factor, 576);
    assert_eq!(
        count(&ProblemSpec::Latin {
            n: 5,
            reduced: true
        }),
        56
    );
    assert_eq!(
        count(&ProblemSpec::Latin {
            n: 4,
            reduced: false
        }),
        576
    );
}

fn pentomino(width: usize, height: usize, break_symmetry: bool) -> ProblemSpec {
    ProblemSpec::Pentomino {
        width,
        height,
        break_symmetry,
    }
}

#[test]
fn pentominoes_3x20() {
    // Knuth, "Dancing Links" (2000): 2 tilings of 3x20 up to symmetry, 8 in all.
    let broken = pentomino(3, 20, true).build().unwrap();
    assert_eq!(count_built(&broken), 2);
    assert_eq!(broken.symmetry_factor, 4);
    assert_eq!(count(&pentomino(3, 20, false)), 8);
    assert_eq!(count(&pentomino(20, 3, false)), 8);
}

#[test]
fn pentominoes_5x12() {
    // Knuth, "Dancing Links" (2000): 1010 tilings of 5x12 up to symmetry. X's centre can lie
    // on the middle column, so this exercises the F guard.
    assert_eq!(count(&pentomino(5, 12, true)), 1010);
}

#[test]
fn pentominoes_6x10() {
    // Knuth, "Dancing Links" (2000): 2339 tilings of 6x10 up to symmetry.
    assert_eq!(count(&pentomino(6, 10, true)), 2339);
}

#[test]
fn pentomino_symmetry_factor_is_exact_on_4x15() {
    // X's centre can lie on the middle row of 4x15, so the F guard acts; the full count must
    // be exactly 4 x 368 (Knuth, "Dancing Links" (2000): 368 up to symmetry).
    let broken = pentomino(4, 15, true).build().unwrap();
    let full = count(&pentomino(4, 15, false));
    assert_eq!(full, count_built(&broken) * broken.symmetry_factor);
    assert_eq!(full, 1472);
}

#[test]
#[ignore = "slow in the dev profile (about 30 s); run with --ignored"]
fn pentomino_symmetry_factor_is_exact_on_5x12() {
    // Knuth, "Dancing Links" (2000): 1010 tilings of 5x12 up to symmetry, so 4040 in all.
    assert_eq!(count(&pentomino(5, 12, false)), 4040);
}
