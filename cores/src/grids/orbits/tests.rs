use super::*;
use crate::grids::groups::read_groups;
use crate::grids::symmetry::variant_order;
use crate::problems::sudoku::{Sudoku, SudokuConfig, Variant};

fn groups(r: usize, c: usize, variants: &[Variant]) -> SudokuGroups {
    let config = SudokuConfig {
        variants: variants.to_vec(),
        ..SudokuConfig::new(r, c)
    };
    let s = Sudoku::build(&config).unwrap();
    read_groups(r, c, &s.problem).unwrap()
}

/// Plain and every set of variants that builds on `r x c` boxes.
fn every_variant(r: usize, c: usize) -> Vec<(String, Vec<Variant>)> {
    let mut out = vec![("plain".to_string(), Vec::new())];
    out.extend(crate::grids::tests::variant_sets(r, c));
    out
}

#[test]
fn symmetries_compose_invert_and_read_back() {
    let a = GridSymmetry::parse(4, "2143/3412").unwrap();
    let b = GridSymmetry::parse(4, "1243/2134t").unwrap();
    let c = GridSymmetry::from_images(4, &[0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15])
        .unwrap();
    assert!(c.as_lines().is_none());
    assert!(c.to_text().starts_with("cells:1.2.5.6."), "{}", c.to_text());
    for e in [&a, &b, &c] {
        assert_eq!(GridSymmetry::parse(4, &e.to_text()).unwrap(), *e);
        assert!(e.compose(&e.inverse()).is_identity());
        let json = serde_json::to_string(e).unwrap();
        assert_eq!(serde_json::from_str::<GridSymmetry>(&json).unwrap(), *e);
    }
    let ab = a.compose(&b);
    for cell in 0..16 {
        assert_eq!(ab.image(cell), a.image(b.image(cell)), "cell {cell}");
    }
    // Row 2 of `b` goes to row 2 transposed: cell (1, 0) to (rows[0], cols[1]) = (0, 0).
    assert_eq!(b.image(4), 0);
    assert!(GridSymmetry::parse(4, "1123/1234").is_err());
    assert!(GridSymmetry::parse(4, "123/1234").is_err());
    assert!(GridSymmetry::parse(4, "1234").is_err());
    assert!(GridSymmetry::parse(4, "cells:1.1.3").is_err());
}

#[test]
fn the_plain_groups_orders_are_the_sudoku_groups() {
    // Russell and Jarvis, "Mathematics of Sudoku II" (2006): 3,359,232 for 9x9 (with
    // 128 for 4x4 and 3,456 for 6x6 in `symmetry::plain_order`'s formula).
    for (r, c, order) in [(2, 2, 128), (2, 3, 3_456), (3, 2, 3_456), (3, 3, 3_359_232)] {
        let (sudoku, full) = group_orders(&groups(r, c, &[])).unwrap();
        assert_eq!((sudoku, full), (order, order), "{r}x{c}");
    }
}

#[test]
fn the_sudoku_preserving_orders_are_the_variant_orders() {
    for (r, c) in [(2, 2), (2, 3), (3, 2), (3, 3)] {
        for (name, vs) in every_variant(r, c) {
            let g = groups(r, c, &vs);
            let (sudoku, full) = group_orders(&g).unwrap();
            assert_eq!(sudoku, variant_order(&g).unwrap(), "{r}x{c} {name}");
            assert_eq!(full % sudoku, 0, "{r}x{c} {name}: a subgroup");
        }
    }
}

#[test]
fn windoku_and_sudokup_have_more_symmetries_than_their_sudoku_preserving_ones() {
    // Windoku: an involution of rows and columns (1 <-> 4, 6 <-> 9) exchanges the boxes and
    // the windows' groups: twice the 128 symmetries. SudokuP: 8 x 6^4 = 10,368 (the
    // enjoysudoku forum's "SudokuP analysis" thread): rows r -> 3 (r mod 3) + r / 3 and
    // columns alike exchange boxes and disjoint groups, and a map sending rows to boxes
    // ("F" there) keeps no line.
    let hyper = groups(3, 3, &[Variant::Hyper]);
    assert_eq!(group_orders(&hyper).unwrap(), (128, 256));
    let windoku = orbit_group(&hyper, GroupChoice::Full).unwrap();
    let exchange = GridSymmetry::parse(9, "423159786/423159786").unwrap();
    assert!(windoku.contains(&exchange));
    let p = groups(3, 3, &[Variant::Disjoint]);
    assert_eq!(group_orders(&p).unwrap(), (2_592, 10_368));
    let group = orbit_group(&p, GroupChoice::Full).unwrap();
    let swap = GridSymmetry::parse(9, "147258369/147258369").unwrap();
    assert!(group.contains(&swap));
    let keeps_no_line = (0..group.len())
        .filter(|&k| group.element(k).as_lines().is_none())
        .count();
    assert_eq!(keeps_no_line, 10_368 - 2 * 2_592);
}

#[test]
fn classes_partition_the_group_and_are_closed_under_conjugation() {
    for (r, c, vs) in [
        (2, 2, vec![]),
        (2, 3, vec![Variant::Diagonal]),
        (3, 3, vec![Variant::Hyper]),
    ] {
        let group = orbit_group(&groups(r, c, &vs), GroupChoice::Full).unwrap();
        let classes = conjugacy_classes(&group);
        assert!(classes[0].rep.is_identity() && classes[0].size == 1);
        assert_eq!(classes.iter().map(|c| c.size).sum::<u128>(), group.order());
        for class in &classes {
            assert_eq!(group.order() % class.size, 0, "a class size divides |G|");
        }
    }
}

#[test]
fn four_by_four_and_six_by_six_orbits_by_burnside() {
    // Essentially different grids: 2 for 4x4 (Russell and Jarvis, "Mathematics of Sudoku
    // II", 2006), 49 for 6x6 with 2x3 boxes (F. Jarvis, "Sudoku enumeration problems",
    // afjarvis.staff.shef.ac.uk/sudoku/).
    for (r, c, orbits) in [(2, 2, 2), (2, 3, 49), (3, 2, 49)] {
        let count = count_orbits(&groups(r, c, &[]), GroupChoice::Full, None).unwrap();
        assert_eq!(count.orbits, orbits, "{r}x{c}");
    }
}

#[test]
fn burnside_and_canonical_forms_agree_on_every_small_variant() {
    for (r, c) in [(2, 2), (2, 3), (3, 2)] {
        for (name, vs) in every_variant(r, c) {
            let g = groups(r, c, &vs);
            for choice in [GroupChoice::Full, GroupChoice::SudokuPreserving] {
                let burnside = count_orbits(&g, choice, None).unwrap();
                let canonical = orbits_by_canonical_forms(&g, choice).unwrap();
                assert_eq!(burnside.orbits, canonical, "{r}x{c} {name} {choice}");
                eprintln!(
                    "{r}x{c} {name} {choice}: |G| {} N {} orbits {}",
                    burnside.group_order, burnside.total, burnside.orbits
                );
            }
        }
    }
}

/// N for the 9x9 grids (Felgenhauer and Jarvis, "Mathematics of Sudoku I", 2006; OEIS
/// A107739).
const N_9X9: u128 = 6_670_903_752_021_072_936_960;

/// Russell and Jarvis's table of the non-zero Burnside terms of the 9x9 grid ("Mathematics
/// of Sudoku II", 2006), as (class size, A): 27 classes, the identity's A = N / 9!.
const RUSSELL_JARVIS: [(u128, u128); 27] = [
    (1, 18_383_222_420_692_992),
    (96, 21_233_664),
    (16, 107_495_424),
    (192, 4_204_224),
    (64, 2_508_084),
    (5184, 323_928),
    (20736, 162),
    (20736, 288),
    (144, 14_837_760),
    (1728, 2592),
    (288, 5184),
    (864, 2_085_120),
    (3456, 1296),
    (1728, 294_912),
    (2304, 648),
    (1152, 6_342_480),
    (1296, 30_258_432),
    (10368, 1854),
    (93312, 288),
    (2916, 155_492_352),
    (69984, 13056),
    (972, 449_445_888),
    (3888, 27648),
    (31104, 6480),
    (15552, 1728),
    (15552, 3456),
    (7776, 13824),
];

#[test]
#[ignore = "minutes in a debug build: run in release by scripts/test.sh"]
fn nine_by_nine_terms_match_russell_and_jarvis() {
    let g = groups(3, 3, &[]);
    let t = std::time::Instant::now();
    let group = orbit_group(&g, GroupChoice::Full).unwrap();
    let classes = conjugacy_classes(&group);
    eprintln!(
        "group {} and {} classes in {:.1} s",
        group.order(),
        classes.len(),
        t.elapsed().as_secs_f64()
    );
    // Russell and Jarvis: 275 conjugacy classes.
    assert_eq!(classes.len(), 275);
    let mut terms = vec![(1u128, N_9X9 / 362_880)];
    for class in &classes[1..] {
        let t = std::time::Instant::now();
        eprint!(
            "class {} size {} rep {} ... ",
            class.index, class.size, class.rep
        );
        let a = class_term(&g, &class.rep, None).unwrap();
        eprintln!("A {a} in {:.2} s", t.elapsed().as_secs_f64());
        if a != 0 {
            terms.push((class.size, a));
        }
        if t.elapsed().as_secs_f64() > 1.0 {
            eprintln!(
                "class {} ({}): A {a} in {:.1} s",
                class.index,
                class.rep,
                t.elapsed().as_secs_f64()
            );
        }
    }
    let mut ours = terms.clone();
    ours.sort_unstable();
    let mut theirs = RUSSELL_JARVIS.to_vec();
    theirs.sort_unstable();
    assert_eq!(ours, theirs);
    assert_eq!(
        orbits_from_terms(group.order(), terms).unwrap(),
        5_472_730_538
    );
}

/// [`count_orbits`] with the total given, its figures and time printed.
fn timed(name: &str, g: &SudokuGroups, choice: GroupChoice, total: u128) -> OrbitCount {
    let t = std::time::Instant::now();
    let count = count_orbits(g, choice, Some(total)).unwrap();
    eprintln!(
        "{name} {choice}: |G| {}, {} classes, orbits {} in {:.1} s",
        count.group_order,
        count.terms.len(),
        count.orbits,
        t.elapsed().as_secs_f64()
    );
    count
}

#[test]
#[ignore = "minutes in a debug build: run in release by scripts/test.sh"]
fn eight_by_eight_orbits_by_burnside() {
    // N = 29,136,487,207,403,520 grids with 2x4 boxes (Pettersen; Russell; OEIS A107739's
    // companion counts, as in results/reference/sudoku-8x8/), 1,673,187 essentially
    // different (OEIS A291188).
    let g = groups(2, 4, &[]);
    let count = timed("8x8", &g, GroupChoice::Full, 29_136_487_207_403_520);
    assert_eq!(count.group_order, 442_368);
    assert_eq!(count.orbits, 1_673_187);
}

/// The 9x9 variants' totals, counted by this project (results/reference/sudoku-9x9-*/) and
/// equal to the published ones cited in their specs.
const N_DIAGONAL: u128 = 55_613_393_399_531_520;
const N_DISJOINT: u128 = 201_105_135_151_764_480;
const N_HYPER: u128 = 6_337_174_388_428_800;

#[test]
#[ignore = "minutes in a debug build: run in release by scripts/test.sh"]
fn windoku_has_68_239_994_essentially_different_grids() {
    // B. Michel, "Mathematics of NRC-Sudoku" (Utrecht, 2007): 68,239,994 essentially
    // different NRC (windoku) grids.
    let g = groups(3, 3, &[Variant::Hyper]);
    let count = timed("windoku", &g, GroupChoice::Full, N_HYPER);
    assert_eq!(count.group_order, 256);
    assert_eq!(count.orbits, 68_239_994);
}

#[test]
#[ignore = "by hand, in release: the new 9x9 figures' timings"]
fn explore_variant_orbits() {
    // 8x8 diagonal: 298,759,265,280 grids (results/reference/sudoku-8x8-diagonal/).
    for choice in [GroupChoice::Full, GroupChoice::SudokuPreserving] {
        let g = groups(2, 4, &[Variant::Diagonal]);
        timed("8x8 diagonal", &g, choice, 298_759_265_280);
    }
    for (v, n) in [
        (Variant::Diagonal, N_DIAGONAL),
        (Variant::Disjoint, N_DISJOINT),
    ] {
        for choice in [GroupChoice::Full, GroupChoice::SudokuPreserving] {
            timed(v.name(), &groups(3, 3, &[v]), choice, n);
        }
    }
}
