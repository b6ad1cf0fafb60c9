//! Weighted units for n queens by the queens on the border ring (OEIS A000170).
//!
//! Every solution holds exactly one queen in each of the four border lines (row 0, row n-1,
//! column 0, column n-1). Those queens form its *border placement*: four queens, or three
//! when one sits in a corner (it then holds a row and a column; two corners never both hold
//! a queen, since any two corners share a row, a column or a diagonal), one for n = 1. The
//! completions of a border placement as a prefix (the queens core or the engine: the other
//! rows cannot use columns 0 and n-1, which the placement already holds) are exactly the
//! solutions with that border, so Q(n) is the sum over border placements of their
//! completions. A symmetry of the square (the dihedral group of order 8) maps the border
//! ring onto itself and solutions onto solutions, so a placement and its images complete in
//! as many ways: [`border_units`] keeps one placement per orbit (the least image, its option
//! ids sorted) weighted by the orbit's size, and Q(n) = sum(weight x completions).
//!
//! A unit's prefix is its queens as options of [`crate::problems::queens::Queens`] (option
//! `row * n + col`), in increasing order. Boards of 2 and 3 squares a side have no border
//! placement (and no solution): no units.

use std::collections::BTreeSet;

use super::{square_image, QueensError, MAX_N};
use crate::xcc::OptionId;

/// One unit: a border placement and the size of its orbit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueensUnit {
    /// The placement's queens, `row * n + col`, increasing.
    pub prefix: Vec<OptionId>,
    /// How many border placements its orbit holds (1, 2, 4 or 8).
    pub weight: u128,
}

/// The units of a whole-board count of n queens by border placements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BorderUnits {
    /// One per orbit, ordered by prefix.
    pub units: Vec<QueensUnit>,
    /// Border placements in all (the sum of the weights).
    pub placements: u64,
}

/// Every border placement of the `n` x `n` board: queens `(row, col)` on the border ring, one
/// in each of row 0, row n-1, column 0 and column n-1, none attacking another; each sorted
/// row-major, in no particular order.
pub fn border_placements(n: usize) -> Result<Vec<Vec<(usize, usize)>>, QueensError> {
    if n == 0 || n > MAX_N {
        return Err(QueensError::Size { n });
    }
    let last = n - 1;
    let attack = |(r, c): (usize, usize), (s, d): (usize, usize)| {
        r == s || c == d || r + d == s + c || r + c == s + d
    };
    let mut out = Vec::new();
    // The queens of row 0 (column a) and row n-1 (column b); then of column 0 and column
    // n-1 in the rows between, unless a corner queen already holds that column.
    for a in 0..n {
        for b in 0..n {
            let ends: Vec<(usize, usize)> = if last == 0 {
                vec![(0, 0)]
            } else {
                vec![(0, a), (last, b)]
            };
            let holds = |col: usize| ends.iter().any(|&(_, c)| c == col);
            let side_rows = |col: usize| -> Vec<Option<usize>> {
                if holds(col) {
                    vec![None]
                } else {
                    (1..last).map(Some).collect()
                }
            };
            for x in side_rows(0) {
                for y in side_rows(last) {
                    let mut p = ends.clone();
                    p.extend(x.map(|r| (r, 0)));
                    p.extend(y.map(|r| (r, last)));
                    let clash = p
                        .iter()
                        .enumerate()
                        .any(|(i, &q)| p[i + 1..].iter().any(|&o| attack(q, o)));
                    if !clash {
                        p.sort_unstable();
                        out.push(p);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The options of `queens` mapped by symmetry `g`, increasing.
fn image_options(g: usize, n: usize, queens: &[(usize, usize)]) -> Vec<OptionId> {
    let mut o: Vec<OptionId> = queens
        .iter()
        .map(|&q| {
            let (r, c) = square_image(g, n, q);
            (r * n + c) as OptionId
        })
        .collect();
    o.sort_unstable();
    o
}

/// One unit per orbit of border placements of the `n` x `n` board under the symmetries of
/// the square (see the module doc).
pub fn border_units(n: usize) -> Result<BorderUnits, QueensError> {
    let placements = border_placements(n)?;
    let mut units = Vec::new();
    for p in &placements {
        let images: BTreeSet<Vec<OptionId>> = (0..8).map(|g| image_options(g, n, p)).collect();
        let own = image_options(0, n, p);
        // Each orbit once: from its least image.
        if images.first() == Some(&own) {
            units.push(QueensUnit {
                prefix: own,
                weight: images.len() as u128,
            });
        }
    }
    units.sort_by(|a, b| a.prefix.cmp(&b.prefix));
    Ok(BorderUnits {
        units,
        placements: placements.len() as u64,
    })
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::queens::tests::{count as bits, dlx};

    /// OEIS A000170, n = 1..12.
    const A000170: [u128; 12] = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200];

    /// Border placements by brute force, as sorted option lists: every set of at most four
    /// squares of the border ring with exactly one queen in each border line and no two
    /// queens attacking each other.
    fn brute_force(n: usize) -> BTreeSet<Vec<OptionId>> {
        let last = n - 1;
        let ring: Vec<(usize, usize)> = (0..n)
            .flat_map(|r| (0..n).map(move |c| (r, c)))
            .filter(|&(r, c)| r == 0 || r == last || c == 0 || c == last)
            .collect();
        let mut found = BTreeSet::new();
        let mut pick = Vec::new();
        fn walk(
            n: usize,
            ring: &[(usize, usize)],
            from: usize,
            pick: &mut Vec<(usize, usize)>,
            found: &mut BTreeSet<Vec<OptionId>>,
        ) {
            let last = n - 1;
            let on =
                |line: &dyn Fn(&(usize, usize)) -> bool| pick.iter().filter(|q| line(q)).count();
            let lines = [
                on(&|q| q.0 == 0),
                on(&|q| q.0 == last),
                on(&|q| q.1 == 0),
                on(&|q| q.1 == last),
            ];
            if lines.iter().all(|&k| k == 1) {
                found.insert(pick.iter().map(|&(r, c)| (r * n + c) as OptionId).collect());
            }
            if pick.len() == 4 {
                return;
            }
            for i in from..ring.len() {
                let (r, c) = ring[i];
                let free = pick
                    .iter()
                    .all(|&(s, d)| r != s && c != d && r + d != s + c && r + c != s + d);
                if free {
                    pick.push((r, c));
                    walk(n, ring, i + 1, pick, found);
                    pick.pop();
                }
            }
        }
        walk(n, &ring, 0, &mut pick, &mut found);
        found
    }

    #[test]
    fn weighted_border_units_give_oeis_a000170() {
        for n in 1..=12 {
            let u = border_units(n).unwrap();
            let total: u128 = u.units.iter().map(|u| u.weight * bits(n, &u.prefix)).sum();
            assert_eq!(total, A000170[n - 1], "n = {n}");
            let weights: u128 = u.units.iter().map(|u| u.weight).sum();
            assert_eq!(weights, u128::from(u.placements), "n = {n}");
            assert!(u.units.iter().all(|u| [1, 2, 4, 8].contains(&u.weight)));
        }
        assert_eq!(
            border_units(1).unwrap().units,
            vec![QueensUnit {
                prefix: vec![0],
                weight: 1
            }]
        );
        for n in [2, 3] {
            assert!(border_units(n).unwrap().units.is_empty(), "n = {n}");
        }
        assert_eq!(border_units(0).unwrap_err(), QueensError::Size { n: 0 });
        assert_eq!(border_units(33).unwrap_err(), QueensError::Size { n: 33 });
    }

    #[test]
    fn the_orbits_of_the_units_are_exactly_the_border_placements_by_brute_force() {
        for n in 1..=12 {
            let want = brute_force(n);
            let listed: BTreeSet<Vec<OptionId>> = border_placements(n)
                .unwrap()
                .iter()
                .map(|p| image_options(0, n, p))
                .collect();
            assert_eq!(listed, want, "n = {n}: the placements");
            let u = border_units(n).unwrap();
            assert_eq!(u.placements, want.len() as u64, "n = {n}");
            // The units' orbits cover every placement, and their sizes add up to the number
            // of placements: the orbits are disjoint, each unit stands for its own.
            let mut covered = BTreeSet::new();
            for unit in &u.units {
                let queens: Vec<(usize, usize)> = unit
                    .prefix
                    .iter()
                    .map(|&o| (o as usize / n, o as usize % n))
                    .collect();
                let orbit: BTreeSet<Vec<OptionId>> =
                    (0..8).map(|g| image_options(g, n, &queens)).collect();
                assert_eq!(
                    orbit.len() as u128,
                    unit.weight,
                    "n = {n}, {:?}",
                    unit.prefix
                );
                assert_eq!(
                    orbit.first(),
                    Some(&unit.prefix),
                    "n = {n}: the least image"
                );
                covered.extend(orbit);
            }
            assert_eq!(covered, want, "n = {n}: the orbits");
            let weights: u128 = u.units.iter().map(|u| u.weight).sum();
            assert_eq!(weights, want.len() as u128, "n = {n}");
        }
    }

    #[test]
    fn every_unit_counts_as_the_engine_counts_its_prefix() {
        for n in 1..=10 {
            for unit in border_units(n).unwrap().units {
                assert_eq!(
                    bits(n, &unit.prefix),
                    dlx(n, &unit.prefix),
                    "n = {n}, {:?}",
                    unit.prefix
                );
            }
        }
    }

    #[test]
    fn images_are_the_eight_symmetries_of_the_square() {
        // A square off every axis has 8 distinct images, each an involution or a rotation.
        let n = 5;
        let images: BTreeSet<(usize, usize)> = (0..8).map(|g| square_image(g, n, (0, 1))).collect();
        assert_eq!(images.len(), 8);
        for g in 0..8 {
            let twice = square_image(g, n, square_image(g, n, (0, 1)));
            let rotation = matches!(g, 1 | 3);
            assert_eq!(twice == (0, 1), !rotation, "g = {g}");
        }
    }
}
