//! The 12 pentominoes in a `width x height` rectangle (Knuth, "Dancing Links", 2000): primary
//! items are the pieces `F I L N P T U V W X Y Z` and the cells `r<y>c<x>` (1-based); one option
//! per placement of a piece in one of its distinct orientations (63 in all).
//!
//! Symmetry breaking (`break_symmetry`), exact for every rectangle. Let G be the rectangle's
//! symmetry group acting on its cells (4 elements for a 3x20 board: identity, the two
//! reflections, the half turn). F has no symmetry of its own, so no tiling is fixed by a
//! non-identity element of G and every orbit of tilings has exactly |G| members. We keep one
//! member per orbit:
//! 1. X keeps only the placements whose centre is the smallest (row, then column) of its
//!    G-images: one quadrant of the board, axes included;
//! 2. when X's centre lies on an axis (its stabiliser K in G is not trivial: both tilings T
//!    and k(T), k in K, keep the same X), F keeps only one orientation out of each K-orbit of
//!    its 8 orientations. This is conditional on X's position, so it is written with one
//!    secondary "guard" item `xsym<j>` per such stabiliser: the X options centred where the
//!    stabiliser is K_j, and the F options in orientations outside the kept set for K_j,
//!    both cover `xsym<j>`, so they exclude each other.
//!
//! Among the |G| members of an orbit, those whose X centre is the orbit's smallest point form
//! one coset of K (step 1), and K acts freely on F's orientations, so exactly one of them has
//! F in a kept orientation (step 2). Counts with `break_symmetry` times
//! [`Pentomino::symmetry_factor`] (= |G|) give the full count. On a 6x10 board X's centre is
//! never on an axis and only step 1 acts; on 3x20 it always is (the middle row).
//!
//! The rectangle must have area 60; other sizes are refused.

use std::collections::BTreeMap;

use super::{check_range, BuildError};
use crate::xcc::{OptionId, Problem, ProblemBuilder};

/// The pieces, in item order, with their cells (x, y) in one orientation.
const PIECES: [(char, [(i32, i32); 5]); 12] = [
    ('F', [(1, 0), (2, 0), (0, 1), (1, 1), (1, 2)]),
    ('I', [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]),
    ('L', [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3)]),
    ('N', [(0, 0), (1, 0), (1, 1), (2, 1), (3, 1)]),
    ('P', [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]),
    ('T', [(0, 0), (1, 0), (2, 0), (1, 1), (1, 2)]),
    ('U', [(0, 0), (2, 0), (0, 1), (1, 1), (2, 1)]),
    ('V', [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)]),
    ('W', [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)]),
    ('X', [(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)]),
    ('Y', [(0, 0), (1, 0), (2, 0), (3, 0), (1, 1)]),
    ('Z', [(0, 0), (1, 0), (1, 1), (1, 2), (2, 2)]),
];
const F: usize = 0;
const X: usize = 9;

type Shape = Vec<(i32, i32)>;

/// Applies element `t` of the dihedral group D4 (bit 2: swap x and y; bit 0: negate x;
/// bit 1: negate y) to a shape and moves it back to the origin, cells sorted.
fn transform(shape: &[(i32, i32)], t: u8) -> Shape {
    let mut out: Shape = shape
        .iter()
        .map(|&(x, y)| {
            let (x, y) = if t & 4 != 0 { (y, x) } else { (x, y) };
            (
                if t & 1 != 0 { -x } else { x },
                if t & 2 != 0 { -y } else { y },
            )
        })
        .collect();
    let min_x = out.iter().map(|c| c.0).min().unwrap_or(0);
    let min_y = out.iter().map(|c| c.1).min().unwrap_or(0);
    for c in &mut out {
        *c = (c.0 - min_x, c.1 - min_y);
    }
    out.sort_unstable_by_key(|&(x, y)| (y, x));
    out
}

/// The distinct orientations of a shape, in order of the D4 element that first gives them.
fn orientations(shape: &[(i32, i32)]) -> Vec<Shape> {
    let mut out: Vec<Shape> = Vec::new();
    for t in 0..8 {
        let s = transform(shape, t);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// A built pentomino problem.
#[derive(Debug, Clone)]
pub struct Pentomino {
    pub problem: Problem,
    width: usize,
    height: usize,
    /// Piece index and cells (x, y) of each option.
    placements: Vec<(usize, Shape)>,
    symmetry_factor: u128,
}

impl Pentomino {
    pub fn build(
        width: usize,
        height: usize,
        break_symmetry: bool,
    ) -> Result<Pentomino, BuildError> {
        check_range("pentomino board width", width, 1, 60)?;
        check_range("pentomino board height", height, 1, 60)?;
        if width * height != 60 {
            return Err(BuildError::PentominoArea { width, height });
        }
        let (w, h) = (width as i32, height as i32);
        let board = Board { w, h };
        let group = board.group();

        // Placements, with the guard (if any) each option covers.
        let mut placements: Vec<(usize, Shape, Option<usize>)> = Vec::new();
        let mut guards: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
        for (p, &(_, cells)) in PIECES.iter().enumerate() {
            for shape in orientations(&cells) {
                let bw = shape.iter().map(|c| c.0).max().unwrap_or(0) + 1;
                let bh = shape.iter().map(|c| c.1).max().unwrap_or(0) + 1;
                for oy in 0..=(h - bh) {
                    for ox in 0..=(w - bw) {
                        let placed: Shape = shape.iter().map(|&(x, y)| (x + ox, y + oy)).collect();
                        let mut guard = None;
                        if break_symmetry && p == X {
                            let centre = (ox + 1, oy + 1);
                            let images = group.iter().map(|&g| board.map(g, centre));
                            if images.clone().any(|i| (i.1, i.0) < (centre.1, centre.0)) {
                                continue;
                            }
                            let stab: Vec<u8> = group
                                .iter()
                                .copied()
                                .filter(|&g| board.map(g, centre) == centre)
                                .collect();
                            if stab.len() > 1 {
                                let n = guards.len();
                                guard = Some(*guards.entry(stab).or_insert(n));
                            }
                        }
                        placements.push((p, placed, guard));
                    }
                }
            }
        }
        // F options outside the kept orientations of each guard's stabiliser cover its guard.
        let kept: Vec<(usize, Vec<Shape>)> = guards
            .iter()
            .map(|(stab, &j)| (j, transversal(&PIECES[F].1, stab)))
            .collect();

        let mut b = ProblemBuilder::new();
        for &(name, _) in &PIECES {
            b.primary(&name.to_string())?;
        }
        for y in 1..=height {
            for x in 1..=width {
                b.primary(&format!("r{y}c{x}"))?;
            }
        }
        let mut guard_items = vec![0; guards.len()];
        for (j, item) in guard_items.iter_mut().enumerate() {
            *item = b.secondary(&format!("xsym{}", j + 1))?;
        }
        let cell_item = |(x, y): (i32, i32)| (12 + y * w + x) as u32;
        let mut items = Vec::with_capacity(8);
        for (p, placed, guard) in &placements {
            items.clear();
            items.push(*p as u32);
            items.extend(placed.iter().map(|&c| cell_item(c)));
            if let Some(j) = guard {
                items.push(guard_items[*j]);
            }
            if *p == F {
                let shape = transform(placed, 0);
                for (j, keep) in &kept {
                    if !keep.contains(&shape) {
                        items.push(guard_items[*j]);
                    }
                }
            }
            b.option(&items)?;
        }
        Ok(Pentomino {
            problem: b.build()?,
            width,
            height,
            placements: placements.into_iter().map(|(p, s, _)| (p, s)).collect(),
            symmetry_factor: if break_symmetry {
                group.len() as u128
            } else {
                1
            },
        })
    }

    /// Multiply counts by this: the order of the rectangle's symmetry group when the symmetry
    /// is broken, else 1.
    pub fn symmetry_factor(&self) -> u128 {
        self.symmetry_factor
    }

    /// The piece letter and cells (0-based x, y) of an option.
    pub fn placement(&self, option: OptionId) -> Option<(char, &[(i32, i32)])> {
        let (p, cells) = self.placements.get(option as usize)?;
        Some((PIECES[*p].0, cells))
    }

    /// The board of a solution: `height` lines of `width` piece letters (`.` where empty).
    pub fn decode(&self, solution: &[OptionId]) -> String {
        let mut grid = vec![vec!['.'; self.width]; self.height];
        for &o in solution {
            if let Some((letter, cells)) = self.placement(o) {
                for &(x, y) in cells {
                    grid[y as usize][x as usize] = letter;
                }
            }
        }
        grid.into_iter()
            .map(|row| row.into_iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One orientation of `shape` out of each orbit of the group `stab` (D4 elements).
fn transversal(shape: &[(i32, i32)], stab: &[u8]) -> Vec<Shape> {
    let mut kept = Vec::new();
    let mut covered: Vec<Shape> = Vec::new();
    for o in orientations(shape) {
        if covered.contains(&o) {
            continue;
        }
        covered.extend(stab.iter().map(|&g| transform(&o, g)));
        kept.push(o);
    }
    kept
}

/// A `w x h` board and its symmetries, as D4 elements in the encoding of [`transform`].
struct Board {
    w: i32,
    h: i32,
}

impl Board {
    /// Where symmetry `t` sends cell `(x, y)`.
    fn map(&self, t: u8, (x, y): (i32, i32)) -> (i32, i32) {
        let (x, y) = if t & 4 != 0 { (y, x) } else { (x, y) };
        (
            if t & 1 != 0 { self.w - 1 - x } else { x },
            if t & 2 != 0 { self.h - 1 - y } else { y },
        )
    }

    /// The symmetries of the board that act differently on its cells (the swaps only on a
    /// square; a one-cell-wide board's reflection along its length does nothing).
    fn group(&self) -> Vec<u8> {
        let mut seen: Vec<Vec<(i32, i32)>> = Vec::new();
        let mut group = Vec::new();
        for t in 0..8u8 {
            if t & 4 != 0 && self.w != self.h {
                continue;
            }
            let perm: Vec<(i32, i32)> = (0..self.h)
                .flat_map(|y| (0..self.w).map(move |x| (x, y)))
                .map(|c| self.map(t, c))
                .collect();
            if !seen.contains(&perm) {
                seen.push(perm);
                group.push(t);
            }
        }
        group
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orientation_counts() {
        let counts: Vec<usize> = PIECES.iter().map(|(_, s)| orientations(s).len()).collect();
        // F I L N P T U V W X Y Z
        assert_eq!(counts, [8, 2, 8, 8, 8, 4, 4, 4, 4, 1, 8, 4]);
        assert_eq!(counts.iter().sum::<usize>(), 63);
        for (_, s) in PIECES {
            let mut cells = s.to_vec();
            cells.sort_unstable();
            cells.dedup();
            assert_eq!(cells.len(), 5);
        }
    }

    /// Placements of every orientation, counted from bounding boxes alone.
    fn placements_by_formula(w: i32, h: i32) -> usize {
        PIECES
            .iter()
            .flat_map(|(_, s)| orientations(s))
            .map(|o| {
                let bw = o.iter().map(|c| c.0).max().unwrap() + 1;
                let bh = o.iter().map(|c| c.1).max().unwrap() + 1;
                ((w - bw + 1).max(0) * (h - bh + 1).max(0)) as usize
            })
            .sum()
    }

    #[test]
    fn sizes() {
        let p = Pentomino::build(10, 6, false).unwrap();
        assert_eq!(p.problem.num_items(), 72);
        assert_eq!(p.problem.num_options(), placements_by_formula(10, 6));
        assert_eq!(p.problem.num_options(), 2056);
        assert_eq!(p.symmetry_factor(), 1);
        // Breaking: X's centre (x 1..=8, y 1..=4) keeps x <= 4, y <= 2: 8 of 32 placements.
        let b = Pentomino::build(10, 6, true).unwrap();
        assert_eq!(b.problem.num_options(), 2056 - 24);
        assert_eq!(b.problem.num_items(), 72);
        assert_eq!(b.symmetry_factor(), 4);
    }

    #[test]
    fn thin_board_guards_f() {
        // 20x3: X's centre is on the middle row (an axis) at x 1..=18; keep x <= 9. F keeps 4
        // of its 8 orientations whenever X is there, always here.
        let b = Pentomino::build(20, 3, true).unwrap();
        let full = Pentomino::build(20, 3, false).unwrap();
        assert_eq!(b.problem.num_options(), full.problem.num_options() - 9);
        assert_eq!(b.problem.num_items(), 12 + 60 + 1);
        let guard = b.problem.item_by_name("xsym1").unwrap();
        let with_guard: Vec<char> = (0..b.problem.num_options() as u32)
            .filter(|&o| b.problem.option(o).iter().any(|&(i, _)| i == guard))
            .map(|o| b.placement(o).unwrap().0)
            .collect();
        let f_total = (0..full.problem.num_options() as u32)
            .filter(|&o| full.placement(o).unwrap().0 == 'F')
            .count();
        assert_eq!(with_guard.iter().filter(|&&c| c == 'X').count(), 9);
        assert_eq!(
            with_guard.iter().filter(|&&c| c == 'F').count() * 2,
            f_total
        );
    }

    #[test]
    fn transversal_picks_one_per_orbit() {
        // Under {id, flip x} F's 8 orientations fall into 4 pairs.
        let kept = transversal(&PIECES[F].1, &[0, 1]);
        assert_eq!(kept.len(), 4);
        for o in &kept {
            assert!(!kept.contains(&transform(o, 1)));
        }
        assert_eq!(transversal(&PIECES[F].1, &[0, 1, 2, 3]).len(), 2);
    }

    #[test]
    fn board_groups() {
        assert_eq!(Board { w: 10, h: 6 }.group(), [0, 1, 2, 3]);
        assert_eq!(Board { w: 1, h: 60 }.group(), [0, 2]);
        assert_eq!(Board { w: 5, h: 5 }.group().len(), 8);
    }

    #[test]
    fn area_must_be_sixty() {
        assert_eq!(
            Pentomino::build(6, 11, false).unwrap_err().to_string(),
            "the 12 pentominoes cover 60 cells but a 6x11 rectangle has 66"
        );
        assert!(Pentomino::build(0, 60, false).is_err());
        // 2x30: X does not fit, so the problem exists but has no solution.
        let p = Pentomino::build(2, 30, true).unwrap();
        assert!((0..p.problem.num_options() as u32).all(|o| p.placement(o).unwrap().0 != 'X'));
    }

    #[test]
    fn decode_draws_pieces() {
        let p = Pentomino::build(10, 6, false).unwrap();
        let board = p.decode(&[0]);
        assert_eq!(board.lines().count(), 6);
        assert_eq!(board.lines().next().unwrap(), ".FF.......");
    }
}
