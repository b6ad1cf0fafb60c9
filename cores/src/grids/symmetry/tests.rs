use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

use super::*;
use crate::grids::groups::read_groups;
use crate::problems::sudoku::{format_grid, verify, Sudoku, SudokuConfig, Variant};
use crate::xcc::{Dlx, Flow, Limits};

fn config(r: usize, c: usize, variants: &[Variant], extra: &[Vec<(usize, usize)>]) -> SudokuConfig {
    SudokuConfig {
        variants: variants.to_vec(),
        extra_groups: extra.to_vec(),
        ..SudokuConfig::new(r, c)
    }
}

/// The groups of the built problem, read back as the CLI reads them.
fn groups_of(config: &SudokuConfig) -> SudokuGroups {
    let s = Sudoku::build(config).unwrap();
    read_groups(config.box_rows, config.box_cols, &s.problem).unwrap()
}

/// Plain (for 4x4 only: 6x6 plain has 28,200,960 grids) and every set of variants that
/// builds on `r x c` boxes.
fn variant_sets(r: usize, c: usize, plain: bool) -> Vec<(String, Vec<Variant>)> {
    let mut out = Vec::new();
    if plain {
        out.push(("plain".to_string(), Vec::new()));
    }
    out.extend(crate::grids::tests::variant_sets(r, c));
    out
}

/// The first `limit` grids of `config`, enumerated by the Dancing Links engine.
fn grids(config: &SudokuConfig, limit: usize) -> Vec<Vec<u8>> {
    let s = Sudoku::build(config).unwrap();
    let side = s.side();
    let mut out = Vec::new();
    Dlx::new(&s.problem).run(&Limits::default(), |sol| {
        let mut grid = vec![0u8; side * side];
        for &o in sol {
            grid[o as usize / side] = (o as usize % side + 1) as u8;
        }
        out.push(grid);
        if out.len() == limit {
            Flow::Stop
        } else {
            Flow::Continue
        }
    });
    out
}

/// Every permutation of `0..n` that maps blocks of `block` consecutive lines onto blocks:
/// a filter of all `n!` permutations, written without the search's `Axis`.
fn block_perms(n: usize, block: usize) -> Vec<Vec<usize>> {
    fn all(prefix: &mut Vec<usize>, n: usize, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for v in 0..n {
            if !prefix.contains(&v) {
                prefix.push(v);
                all(prefix, n, out);
                prefix.pop();
            }
        }
    }
    let mut perms = Vec::new();
    all(&mut Vec::new(), n, &mut perms);
    perms.retain(|p| {
        (0..n).all(|i| (0..n).all(|j| (i / block == j / block) == (p[i] / block == p[j] / block)))
    });
    perms
}

/// The elements of the plain group that keep the extra groups, by a filter of the whole plain
/// group: every (rho, kappa, transposition), each extra group's image looked up in a set.
fn brute_force(g: &SudokuGroups) -> HashSet<Vec<u16>> {
    let s = g.box_rows * g.box_cols;
    let extra: HashSet<Vec<usize>> = g
        .extra
        .iter()
        .map(|e| {
            let mut e = e.clone();
            e.sort_unstable();
            e
        })
        .collect();
    let mut out = HashSet::new();
    let flips: &[bool] = if g.box_rows == g.box_cols {
        &[false, true]
    } else {
        &[false]
    };
    for rho in block_perms(s, g.box_rows) {
        for kappa in block_perms(s, g.box_cols) {
            for &flip in flips {
                let perm: Vec<u16> = (0..s * s)
                    .map(|c| {
                        let (i, j) = if flip { (c % s, c / s) } else { (c / s, c % s) };
                        (rho[i] * s + kappa[j]) as u16
                    })
                    .collect();
                let keeps = g.extra.iter().all(|e| {
                    let mut image: Vec<usize> = e.iter().map(|&c| usize::from(perm[c])).collect();
                    image.sort_unstable();
                    extra.contains(&image)
                });
                if keeps {
                    out.insert(perm);
                }
            }
        }
    }
    out
}

/// The grid with its digits renamed in order of first appearance (1, 2, ...).
fn relabel(grid: &[u8]) -> Vec<u8> {
    let mut name = [0u8; 256];
    let mut next = 0u8;
    grid.iter()
        .map(|&d| {
            if name[usize::from(d)] == 0 {
                next += 1;
                name[usize::from(d)] = next;
            }
            name[usize::from(d)]
        })
        .collect()
}

/// The elements found by listing (not by the stabiliser chain of `variant_order`).
fn count(g: &SudokuGroups, budget: u64) -> Result<u128, SymmetryError> {
    let mut n = 0u128;
    let _never_breaks = for_each(g, budget, |_| {
        n += 1;
        ControlFlow::Continue(())
    })?;
    Ok(n)
}

#[test]
fn plain_orders_match_the_formula_and_the_search_over_the_whole_group() {
    for ((r, c), want) in [
        ((2, 2), 128u128),
        ((2, 3), 3456),
        ((3, 2), 3456),
        ((2, 4), 442_368),
        ((3, 3), 3_359_232),
    ] {
        assert_eq!(plain_order(r, c).unwrap(), want, "{r}x{c}");
        // With no extra group the search must walk the whole plain group.
        let g = groups_of(&SudokuConfig::new(r, c));
        assert_eq!(count(&g, MAX_NODES).unwrap(), want, "{r}x{c} searched");
        assert_eq!(variant_order(&g).unwrap(), want, "{r}x{c}");
        eprintln!("{r}x{c} plain grid symmetries: {want}");
    }
    assert_eq!(plain_order(1, 1).unwrap(), 1);
    assert!(matches!(
        plain_order(0, 3),
        Err(SymmetryError::Shape { .. })
    ));
    assert!(matches!(
        plain_order(1, 40),
        Err(SymmetryError::OrderOverflow { .. })
    ));
    // Listed: distinct, the identity first.
    let s = variant_symmetries(&groups_of(&SudokuConfig::new(2, 2))).unwrap();
    assert_eq!(s.order(), 128);
    assert_eq!(s.perms[0], (0..16).collect::<Vec<u16>>());
    assert_eq!(s.perms.iter().collect::<HashSet<_>>().len(), 128);
}

#[test]
fn the_9x9_variants_have_their_known_orders() {
    let order = |r: usize, variants: &[Variant], extra: &[Vec<(usize, usize)>]| {
        let g = groups_of(&config(r, r, variants, extra));
        let order = variant_order(&g).unwrap();
        if order <= 200_000 {
            assert_eq!(
                count(&g, MAX_NODES).unwrap(),
                order,
                "chain against listing"
            );
        }
        order
    };
    // Both diagonals: 96 (a public count of the X-Sudoku's symmetries). rho commutes with the
    // reflection i -> 8 - i: the outer bands stay or swap (2), band 1's order gives band 3's
    // (3!), the middle band's rows commute with the reflection (2); kappa is rho or rho
    // reflected; the transposition: 2 * 6 * 2 * 2 * 2.
    assert_eq!(order(3, &[Variant::Diagonal], &[]), 96);
    // 16x16 the same way: (2^2 2!) (4!)^2 * 2 * 2.
    assert_eq!(order(4, &[Variant::Diagonal], &[]), 18_432);
    // Windows at rows and columns 2-4 and 6-8: the outer bands stay or swap (then rows 4 and 6
    // swap too), with the two window rows of each outer band in either order: 8 row maps, 8
    // column maps, the transposition.
    assert_eq!(order(3, &[Variant::Hyper], &[]), 128);
    // Disjoint groups (the same place in every box): bands in any order with one order of rows
    // shared by every band, 3! 3!, the same for columns, the transposition; 25x25: (5! 5!)^2 2.
    assert_eq!(order(3, &[Variant::Disjoint], &[]), 2592);
    assert_eq!(order(5, &[Variant::Disjoint], &[]), 414_720_000);
    // The plain group is transitive on the cells: a cell's stabiliser has |G| / cells.
    assert_eq!(order(3, &[], &[vec![(5, 7)]]), 3_359_232 / 81);
    let plain_25 = plain_order(5, 5).unwrap();
    assert_eq!(order(5, &[], &[vec![(25, 1)]]), plain_25 / 625);
    for (name, variants) in variant_sets(3, 3, false) {
        eprintln!("9x9 {name}: {} symmetries", order(3, &variants, &[]));
    }
}

#[test]
fn the_search_finds_exactly_what_a_filter_of_the_plain_group_keeps() {
    let hand_made = [
        vec![vec![(1, 1), (2, 3), (4, 4)]],
        vec![vec![(1, 1), (2, 2)], vec![(3, 3), (4, 4)], vec![(1, 4)]],
    ];
    let mut cases = Vec::new();
    for (r, c) in [(2, 2), (2, 3), (3, 2)] {
        for (name, variants) in variant_sets(r, c, true) {
            cases.push((format!("{r}x{c} {name}"), config(r, c, &variants, &[])));
        }
        for (k, extra) in hand_made.iter().enumerate() {
            cases.push((format!("{r}x{c} hand-made {k}"), config(r, c, &[], extra)));
        }
    }
    cases.push((
        "2x3 diagonal and a pair".into(),
        config(2, 3, &[Variant::Diagonal], &[vec![(1, 2), (6, 5)]]),
    ));
    for (name, config) in cases {
        let g = groups_of(&config);
        let found = variant_symmetries(&g).unwrap();
        let set: HashSet<Vec<u16>> = found.perms.iter().cloned().collect();
        assert_eq!(set.len(), found.perms.len(), "{name}: an element twice");
        assert_eq!(set, brute_force(&g), "{name}");
        assert_eq!(variant_order(&g).unwrap(), found.order(), "{name}");
    }
}

#[test]
fn every_symmetry_maps_grids_of_the_variant_to_grids_and_the_symmetries_form_a_group() {
    let mut cases = Vec::new();
    for (r, c, plain) in [(2, 2, true), (2, 3, true), (3, 2, false)] {
        for (name, variants) in variant_sets(r, c, plain) {
            cases.push((format!("{r}x{c} {name}"), config(r, c, &variants, &[])));
        }
    }
    cases.push((
        "2x2 hand-made".into(),
        config(2, 2, &[], &[vec![(1, 1), (2, 3), (4, 4)]]),
    ));
    for (name, config) in cases {
        let (r, c) = (config.box_rows, config.box_cols);
        let side = r * c;
        let sym = variant_symmetries(&groups_of(&config)).unwrap();
        let grids = grids(&config, 30);
        assert!(!grids.is_empty() || name.contains("diagonal+"), "{name}");
        for grid in &grids {
            for perm in &sym.perms {
                let moved = format_grid(&apply(perm, grid), side);
                let checked =
                    verify::check_grid(&moved, r, c, &config.variants, &config.extra_groups, None);
                assert!(
                    checked.is_ok(),
                    "{name}: {perm:?} gives {moved}: {checked:?}"
                );
            }
        }
        if sym.perms.len() <= 600 {
            let set: HashSet<&Vec<u16>> = sym.perms.iter().collect();
            for a in &sym.perms {
                for b in &sym.perms {
                    let ab: Vec<u16> = b.iter().map(|&x| a[usize::from(x)]).collect();
                    assert!(set.contains(&ab), "{name}: not closed");
                }
            }
        }
        eprintln!("{name}: {} symmetries", sym.order());
    }
}

/// Grids, orbits under (cell symmetries x digit relabellings) by canonical forms, and the
/// orbits by Burnside's lemma; checks that every orbit has |G| side! / |stabiliser| grids.
fn orbits(config: &SudokuConfig) -> (usize, usize) {
    let side = config.box_rows * config.box_cols;
    let sym = variant_symmetries(&groups_of(config)).unwrap();
    let all = grids(config, usize::MAX);
    let group = sym.order() * factorial(side).unwrap();
    // Per canonical form: its grids; per grid, its stabiliser in G x S_side: the g with
    // g(grid) a relabelling of grid (the relabelling is then unique: every digit appears).
    let mut orbit: HashMap<Vec<u8>, (u128, Vec<u128>)> = HashMap::new();
    let mut burnside = 0u128;
    for grid in &all {
        let own = relabel(grid);
        let mut canon: Option<Vec<u8>> = None;
        let mut stabiliser = 0u128;
        for perm in &sym.perms {
            let form = relabel(&apply(perm, grid));
            if form == own {
                stabiliser += 1;
            }
            if canon.as_ref().is_none_or(|m| form < *m) {
                canon = Some(form);
            }
        }
        burnside += stabiliser;
        let e = orbit.entry(canon.unwrap()).or_default();
        e.0 += 1;
        e.1.push(stabiliser);
    }
    assert_eq!(burnside % group, 0, "Burnside's sum divides by |G| side!");
    assert_eq!(
        orbit.len() as u128,
        burnside / group,
        "orbits: canonical forms vs Burnside"
    );
    let mut total = 0;
    for (size, stabilisers) in orbit.values() {
        for &st in stabilisers {
            assert_eq!(*size * st, group, "orbit size |G| side! / |stabiliser|");
        }
        total += size;
    }
    assert_eq!(total, all.len() as u128);
    (all.len(), orbit.len())
}

#[test]
fn orbits_by_canonical_forms_agree_with_burnside() {
    let mut seen = Vec::new();
    let mut cases: Vec<(String, SudokuConfig)> = variant_sets(2, 2, true)
        .into_iter()
        .map(|(name, vs)| (format!("4x4 {name}"), config(2, 2, &vs, &[])))
        .collect();
    for (r, c) in [(2, 3), (3, 2)] {
        cases.push((
            format!("6x6 ({r}x{c}) diagonal"),
            config(r, c, &[Variant::Diagonal], &[]),
        ));
    }
    for (name, config) in cases {
        let (grids, orbits) = orbits(&config);
        seen.push(format!("{name}: {grids} grids, {orbits} orbits"));
    }
    eprintln!("{}", seen.join("\n"));
    // 4x4: 288 grids, 2 essentially different (Russell and Jarvis, "Mathematics of Sudoku II",
    // 2006); diagonal: 48 grids (seed 000, "Combinatorial explorations in Su-Doku").
    assert!(
        seen.contains(&"4x4 plain: 288 grids, 2 orbits".to_string()),
        "{seen:?}"
    );
    assert!(
        seen.iter().any(|s| s.starts_with("4x4 diagonal: 48 grids")),
        "{seen:?}"
    );
}

#[test]
fn apply_moves_each_digit_to_the_image_of_its_cell() {
    let grid: Vec<u8> = (1..=16).collect();
    let transpose: Vec<u16> = (0..16).map(|c| (c % 4 * 4 + c / 4) as u16).collect();
    let plain = variant_symmetries(&groups_of(&SudokuConfig::new(2, 2))).unwrap();
    assert!(plain.perms.contains(&transpose));
    let moved = apply(&transpose, &grid);
    assert_eq!(&moved[..4], &[1, 5, 9, 13]);
    assert_eq!(apply(&plain.perms[0], &grid), grid);
}

#[test]
fn too_large_shapes_and_bad_groups_are_refused() {
    let plain = groups_of(&SudokuConfig::new(3, 3));
    assert!(matches!(
        variant_symmetries(&plain),
        Err(SymmetryError::TooManyToList { .. })
    ));
    // A cell's stabiliser in the 9x9 group (41,472 elements) with a budget too small.
    let cell = groups_of(&config(3, 3, &[], &[vec![(1, 1)]]));
    let e = count(&cell, 1000).unwrap_err();
    assert!(matches!(e, SymmetryError::TooLarge { .. }), "{e}");
    assert!(e.to_string().contains("too large"), "{e}");
    let e = order_by_chain(&cell, 9, 100).unwrap_err();
    assert!(matches!(e, SymmetryError::TooLarge { .. }), "{e}");
    let bad = |extra: Vec<Vec<usize>>| SudokuGroups {
        box_rows: 2,
        box_cols: 2,
        extra,
    };
    for (extra, why) in [
        (vec![vec![]], "0 cells"),
        (vec![vec![0, 16]], "off the 4x4 grid"),
        (vec![vec![3, 3]], "listed twice"),
        (vec![vec![0, 1, 2, 3, 4]], "5 cells"),
    ] {
        let e = variant_order(&bad(extra)).unwrap_err();
        assert!(e.to_string().contains(why), "{e}");
    }
    let e = variant_order(&SudokuGroups {
        box_rows: 5,
        box_cols: 6,
        extra: vec![],
    })
    .unwrap_err();
    assert!(matches!(e, SymmetryError::Shape { .. }), "{e}");
}
