//! The symmetry group of a Sudoku variant, computed from its groups.
//!
//! The plain group of a grid of side `box_rows * box_cols` acts on cells: a row permutation
//! rho that permutes the bands (`box_rows` consecutive rows each) and the rows inside each
//! band, a column permutation kappa that permutes the stacks (`box_cols` consecutive columns
//! each) and the columns inside each stack, and, only when `box_rows == box_cols`, the
//! transposition. Cell `(i, j)` goes to `(rho(i), kappa(j))`, or to `(rho(j), kappa(i))` when
//! transposed. Its order ([`plain_order`]) is `box_cols! box_rows!^box_cols * box_rows!
//! box_cols!^box_rows`, times 2 for square boxes: 3,359,232 for 9x9 (Russell and Jarvis,
//! "Mathematics of Sudoku II", 2006), 128 for 4x4, 3,456 for 6x6.
//!
//! Every element keeps rows, columns and boxes. A variant's group is the subgroup whose
//! elements map every extra group (diagonal, window, disjoint group, any `--group`, as
//! [`super::groups::read_groups`] reads them) onto an extra group. Nothing is tabled per
//! variant: the search assigns the images of rows and columns by backtracking, in an order
//! that reaches the extra groups' cells early (`line_order`), and rejects a partial
//! assignment as soon as the known image of an extra group lies in no extra group of its
//! size. A transposed element is `(rho, kappa)` after the transposition `T`, so it keeps the
//! extra groups `E` exactly when `(rho, kappa)` maps `T(E)` onto `E`: the same search from
//! other source groups. [`variant_symmetries`] lists the elements; [`variant_order`] counts
//! them without listing, as the product of the orbit lengths along a stabiliser chain (one
//! search for a single element per candidate image of each line), so the 25x25 variants'
//! groups of millions of elements take milliseconds.
//!
//! Invariant: the elements found are exactly those of the plain group that keep the extra
//! groups, each once, the identity first. Tested below against a filter of the whole plain
//! group written without the search, against `problems::sudoku::verify` on mapped grids, and
//! by Burnside's lemma on every 4x4 variant and the 6x6 diagonal grids.

use std::ops::ControlFlow;

use super::completion::{check_shape, MAX_SIDE};
use super::groups::SudokuGroups;
use crate::problems::factorial;

/// Partial assignments of rho and kappa that one listing or one order count tries before it
/// gives up ([`SymmetryError::TooLarge`]).
pub const MAX_NODES: u64 = 50_000_000;

/// The most elements [`variant_symmetries`] lists (each is a permutation of all cells).
pub const MAX_LISTED: usize = 1 << 18;

/// Words of a cell set: the largest grid has `MAX_SIDE^2` cells.
const WORDS: usize = (MAX_SIDE * MAX_SIDE).div_ceil(64);

/// An unassigned row, column, band or stack.
const NONE: usize = usize::MAX;

/// Why the symmetries of a grid were not computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SymmetryError {
    #[error(
        "box {box_rows}x{box_cols}: both sides must be at least 1 and the grid side at most \
         {MAX_SIDE}"
    )]
    Shape { box_rows: usize, box_cols: usize },
    #[error(
        "the plain symmetry group of grids with {box_rows}x{box_cols} boxes has 2^128 elements \
         or more"
    )]
    OrderOverflow { box_rows: usize, box_cols: usize },
    #[error("extra group {group}: {why}")]
    BadGroup { group: usize, why: String },
    #[error(
        "the plain symmetry group of the {side}x{side} grid ({box_rows}x{box_cols} boxes) is too \
         large to search for the elements keeping these extra groups: more than {MAX_NODES} \
         partial symmetries tried"
    )]
    TooLarge {
        box_rows: usize,
        box_cols: usize,
        side: usize,
    },
    #[error(
        "the {side}x{side} grid ({box_rows}x{box_cols} boxes) has more than {MAX_LISTED} \
         symmetries keeping its extra groups, too many to list"
    )]
    TooManyToList {
        box_rows: usize,
        box_cols: usize,
        side: usize,
    },
}

/// The order of the plain symmetry group of grids with `box_rows x box_cols` boxes (any side;
/// the transposition counts only for square boxes of side above 1).
pub fn plain_order(box_rows: usize, box_cols: usize) -> Result<u128, SymmetryError> {
    if box_rows == 0 || box_cols == 0 {
        return Err(SymmetryError::Shape { box_rows, box_cols });
    }
    let overflow = SymmetryError::OrderOverflow { box_rows, box_cols };
    // `blocks!` orders of the blocks times `size!` orders inside each block.
    let axis = |blocks: usize, size: usize| -> Option<u128> {
        factorial(blocks)?.checked_mul(factorial(size)?.checked_pow(u32::try_from(blocks).ok()?)?)
    };
    let transpositions = if box_rows == box_cols && box_rows > 1 {
        2
    } else {
        1
    };
    axis(box_cols, box_rows)
        .zip(axis(box_rows, box_cols))
        .and_then(|(rows, cols)| rows.checked_mul(cols)?.checked_mul(transpositions))
        .ok_or(overflow)
}

/// Elements of a grid's symmetry group as cell permutations: `perms[k][cell]` is the cell
/// (row-major) that `cell` goes to. The identity is `perms[0]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetries {
    pub side: usize,
    pub perms: Vec<Vec<u16>>,
}

impl Symmetries {
    pub fn order(&self) -> u128 {
        self.perms.len() as u128
    }
}

/// Every element of the plain group that keeps the extra groups of `g` (the whole plain group
/// when there are none), refused when [`variant_order`] says there are more than
/// [`MAX_LISTED`].
pub fn variant_symmetries(g: &SudokuGroups) -> Result<Symmetries, SymmetryError> {
    let side = check(g)?;
    let too_many = SymmetryError::TooManyToList {
        box_rows: g.box_rows,
        box_cols: g.box_cols,
        side,
    };
    let order = variant_order(g)?;
    if order > MAX_LISTED as u128 {
        return Err(too_many);
    }
    let mut perms = Vec::with_capacity(order as usize);
    let _never_breaks = for_each(g, MAX_NODES, |perm| {
        perms.push(perm.to_vec());
        ControlFlow::Continue(())
    })?;
    debug_assert_eq!(
        perms.len() as u128,
        order,
        "listing against the stabiliser chain"
    );
    Ok(Symmetries { side, perms })
}

/// The order of the subgroup of the plain group that keeps the extra groups of `g`: the plain
/// order when there are none, else the product of the orbit lengths along a stabiliser chain
/// (nothing listed, so large groups are counted too).
///
/// Let `G` be the elements without transposition and `G_d` those of them that fix the first
/// `d` lines of the search's order (each row or column goes to itself). Then `|G_d|` is the
/// number of lines that line `d` can go to within `G_d` times `|G_(d+1)|`, and each of those
/// images is decided by a search for one element, the first `d` lines fixed. The transposed
/// elements are empty or a coset of `G`, so they double the order when one exists.
pub fn variant_order(g: &SudokuGroups) -> Result<u128, SymmetryError> {
    let side = check(g)?;
    if g.extra.is_empty() {
        return plain_order(g.box_rows, g.box_cols);
    }
    order_by_chain(g, side, MAX_NODES)
}

/// [`variant_order`]'s stabiliser chain, within `budget` partial assignments in all.
fn order_by_chain(g: &SudokuGroups, side: usize, budget: u64) -> Result<u128, SymmetryError> {
    let overflow = SymmetryError::OrderOverflow {
        box_rows: g.box_rows,
        box_cols: g.box_cols,
    };
    let targets = Targets::new(side, &g.extra);
    let mut search = Search::new(g, side, false, &g.extra, &targets, budget);
    let mut order = 1u128;
    for d in 0..2 * side {
        let mut orbit = 0u128;
        for v in 0..side {
            search.fixed = search.order[..d].iter().map(|&(_, i)| i).collect();
            search.fixed.push(v);
            if search.exists()? {
                orbit += 1;
            }
        }
        order = order.checked_mul(orbit).ok_or(overflow.clone())?;
    }
    if g.box_rows == g.box_cols && side > 1 {
        let transposed = transpose(side, &g.extra);
        let budget = budget - search.nodes;
        if Search::new(g, side, true, &transposed, &targets, budget).exists()? {
            order = order.checked_mul(2).ok_or(overflow)?;
        }
    }
    Ok(order)
}

/// The grid `grid` (cells row-major, 0 = empty) moved by `perm`: the digit of cell `c` goes to
/// cell `perm[c]`.
///
/// # Panics
/// If `perm` is not a permutation of the cells of `grid` (another length, an image out of
/// range): a programming error, `perm` comes from [`Symmetries`].
pub fn apply(perm: &[u16], grid: &[u8]) -> Vec<u8> {
    assert_eq!(perm.len(), grid.len(), "a permutation of the grid's cells");
    let mut out = vec![0u8; grid.len()];
    for (&to, &digit) in perm.iter().zip(grid) {
        out[usize::from(to)] = digit;
    }
    out
}

/// The side of `g`'s grid, once its shape and extra groups are checked.
fn check(g: &SudokuGroups) -> Result<usize, SymmetryError> {
    let side = check_shape(g.box_rows, g.box_cols).map_err(|_| SymmetryError::Shape {
        box_rows: g.box_rows,
        box_cols: g.box_cols,
    })?;
    g.check_extra(side)
        .map_err(|(group, why)| SymmetryError::BadGroup { group, why })?;
    Ok(side)
}

/// Calls `visit` with every element of the plain group that keeps the extra groups of `g`,
/// the identity first, until it breaks; gives up after `budget` partial assignments.
fn for_each(
    g: &SudokuGroups,
    budget: u64,
    mut visit: impl FnMut(&[u16]) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, SymmetryError> {
    let side = check(g)?;
    let targets = Targets::new(side, &g.extra);
    let mut search = Search::new(g, side, false, &g.extra, &targets, budget);
    if search.step(0, &mut visit)?.is_break() {
        return Ok(ControlFlow::Break(()));
    }
    if g.box_rows == g.box_cols && side > 1 {
        let transposed = transpose(side, &g.extra);
        let budget = budget - search.nodes;
        return Search::new(g, side, true, &transposed, &targets, budget).step(0, &mut visit);
    }
    Ok(ControlFlow::Continue(()))
}

/// The groups' cells mirrored in the main diagonal.
fn transpose(side: usize, groups: &[Vec<usize>]) -> Vec<Vec<usize>> {
    groups
        .iter()
        .map(|e| e.iter().map(|&c| c % side * side + c / side).collect())
        .collect()
}

/// A set of cells of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cells([u64; WORDS]);

impl Cells {
    const EMPTY: Cells = Cells([0; WORDS]);

    fn insert(&mut self, c: usize) {
        self.0[c / 64] |= 1 << (c % 64);
    }

    fn remove(&mut self, c: usize) {
        self.0[c / 64] &= !(1 << (c % 64));
    }

    fn within(&self, other: &Cells) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }
}

/// rho (rows in bands) or kappa (columns in stacks) under construction: `to[i]` is the image
/// of line `i`, and lines of one block go to lines of one block.
struct Axis {
    block: usize,
    to: Vec<usize>,
    taken: Vec<bool>,
    block_to: Vec<usize>,
    block_taken: Vec<bool>,
}

impl Axis {
    fn new(side: usize, block: usize) -> Axis {
        Axis {
            block,
            to: vec![NONE; side],
            taken: vec![false; side],
            block_to: vec![NONE; side / block],
            block_taken: vec![false; side / block],
        }
    }

    fn allows(&self, i: usize, v: usize) -> bool {
        !self.taken[v]
            && match self.block_to[i / self.block] {
                NONE => !self.block_taken[v / self.block],
                b => b == v / self.block,
            }
    }

    fn assign(&mut self, i: usize, v: usize) {
        self.to[i] = v;
        self.taken[v] = true;
        let b = i / self.block;
        if self.block_to[b] == NONE {
            self.block_to[b] = v / self.block;
            self.block_taken[v / self.block] = true;
        }
    }

    fn unassign(&mut self, i: usize) {
        self.taken[self.to[i]] = false;
        self.to[i] = NONE;
        let b = i / self.block;
        if self.to[b * self.block..(b + 1) * self.block]
            .iter()
            .all(|&v| v == NONE)
        {
            self.block_taken[self.block_to[b]] = false;
            self.block_to[b] = NONE;
        }
    }
}

/// The extra groups as the images must land: each with its size and cells, and per cell the
/// groups it is in.
struct Targets {
    sets: Vec<(usize, Cells)>,
    of_cell: Vec<Vec<usize>>,
}

impl Targets {
    fn new(side: usize, extra: &[Vec<usize>]) -> Targets {
        let mut of_cell = vec![Vec::new(); side * side];
        let mut sets = Vec::with_capacity(extra.len());
        for (k, group) in extra.iter().enumerate() {
            let mut set = Cells::EMPTY;
            for &c in group {
                set.insert(c);
                of_cell[c].push(k);
            }
            sets.push((group.len(), set));
        }
        Targets { sets, of_cell }
    }
}

/// A line of the grid: a row (`true`) or a column, and its index.
type Line = (bool, usize);

/// The order in which the search assigns the lines' images: greedily the line that places the
/// most cells of source groups (crossing the lines already chosen), then the line with the
/// most such cells, rows and columns in turn, the lowest index. Diagonals, windows and any
/// hand-made group are thus checked as early as the geometry allows.
fn line_order(side: usize, sources: &[Vec<usize>]) -> Vec<Line> {
    let mut in_group = vec![false; side * side];
    sources.iter().flatten().for_each(|&c| in_group[c] = true);
    let cell = |(row, i): Line, k: usize| if row { i * side + k } else { k * side + i };
    let mut chosen = [vec![false; side], vec![false; side]];
    let mut order: Vec<Line> = Vec::with_capacity(2 * side);
    while order.len() < 2 * side {
        let (rows_done, cols_done) = (order.len().div_ceil(2), order.len() / 2);
        let prefer_rows = rows_done <= cols_done;
        let best = (0..2 * side)
            .map(|n| (n < side, n % side))
            .filter(|&(row, i)| !chosen[usize::from(!row)][i])
            .max_by_key(|&(row, i)| {
                let other = &chosen[usize::from(row)];
                let placed = (0..side)
                    .filter(|&k| other[k] && in_group[cell((row, i), k)])
                    .count();
                let total = (0..side).filter(|&k| in_group[cell((row, i), k)]).count();
                (placed, total, row == prefer_rows, std::cmp::Reverse(i))
            })
            .expect("an unchosen line is left");
        chosen[usize::from(!best.0)][best.1] = true;
        order.push(best);
    }
    order
}

/// One backtracking search for the `(rho, kappa)` that map every source group onto a target
/// group of its size.
struct Search<'a> {
    side: usize,
    transpose: bool,
    rows: Axis,
    cols: Axis,
    order: Vec<Line>,
    /// The images of the first lines of `order`, forced (empty: all free).
    fixed: Vec<usize>,
    /// The source groups each cell is in.
    groups_of: Vec<Vec<usize>>,
    /// Per source group: its size and the image of its cells placed so far.
    sizes: Vec<usize>,
    image: Vec<Cells>,
    targets: &'a Targets,
    perm: Vec<u16>,
    nodes: u64,
    budget: u64,
    too_large: SymmetryError,
}

impl<'a> Search<'a> {
    fn new(
        g: &SudokuGroups,
        side: usize,
        transpose: bool,
        sources: &[Vec<usize>],
        targets: &'a Targets,
        budget: u64,
    ) -> Search<'a> {
        let mut groups_of = vec![Vec::new(); side * side];
        for (k, group) in sources.iter().enumerate() {
            for &c in group {
                groups_of[c].push(k);
            }
        }
        Search {
            side,
            transpose,
            rows: Axis::new(side, g.box_rows),
            cols: Axis::new(side, g.box_cols),
            order: line_order(side, sources),
            fixed: Vec::new(),
            groups_of,
            sizes: sources.iter().map(Vec::len).collect(),
            image: vec![Cells::EMPTY; sources.len()],
            targets,
            perm: vec![0; side * side],
            nodes: 0,
            budget,
            too_large: SymmetryError::TooLarge {
                box_rows: g.box_rows,
                box_cols: g.box_cols,
                side,
            },
        }
    }

    /// Whether some element has the `fixed` images.
    fn exists(&mut self) -> Result<bool, SymmetryError> {
        Ok(self.step(0, &mut |_| ControlFlow::Break(()))?.is_break())
    }

    /// Step `d` assigns the image of line `order[d]`: `fixed[d]`, else every image allowed,
    /// the identity's first (so the identity is the first element found). Every assignment
    /// is undone on the way back, a break included.
    fn step(
        &mut self,
        d: usize,
        visit: &mut impl FnMut(&[u16]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, SymmetryError> {
        let s = self.side;
        let Some(&(row, i)) = self.order.get(d) else {
            for (c, to) in self.perm.iter_mut().enumerate() {
                let (i, j) = if self.transpose {
                    (c % s, c / s)
                } else {
                    (c / s, c % s)
                };
                *to = (self.rows.to[i] * s + self.cols.to[j]) as u16;
            }
            return Ok(visit(&self.perm));
        };
        let images = match self.fixed.get(d) {
            Some(&v) => v..v + 1,
            None => 0..s,
        };
        let first = if images.contains(&i) { i } else { images.start };
        for v in std::iter::once(first).chain(images.filter(|&v| v != first)) {
            let axis = if row { &mut self.rows } else { &mut self.cols };
            if !axis.allows(i, v) {
                continue;
            }
            self.nodes += 1;
            if self.nodes > self.budget {
                return Err(self.too_large.clone());
            }
            axis.assign(i, v);
            let flow = if self.place(row, i, true) {
                self.step(d + 1, visit)
            } else {
                Ok(ControlFlow::Continue(()))
            };
            self.place(row, i, false);
            let axis = if row { &mut self.rows } else { &mut self.cols };
            axis.unassign(i);
            if flow?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Adds (or with `add` false removes) the images of the cells where line `i`, just
    /// assigned, crosses the assigned lines of the other axis; on adding, whether every
    /// source group among them still fits in a target group of its size (one holding the
    /// cell's image, so only `targets.of_cell` is tried).
    fn place(&mut self, row: bool, i: usize, add: bool) -> bool {
        let s = self.side;
        let (rows, cols) = (&self.rows.to, &self.cols.to);
        let crossing = |k: usize| {
            let (r, c) = if row { (i, k) } else { (k, i) };
            (rows[r] != NONE && cols[c] != NONE).then(|| (r * s + c, rows[r] * s + cols[c]))
        };
        for (cell, to) in (0..s).filter_map(crossing) {
            for &g in &self.groups_of[cell] {
                if add {
                    self.image[g].insert(to);
                } else {
                    self.image[g].remove(to);
                }
            }
        }
        add && (0..s).filter_map(crossing).all(|(cell, to)| {
            self.groups_of[cell].iter().all(|&g| {
                self.targets.of_cell[to].iter().any(|&t| {
                    let (n, set) = &self.targets.sets[t];
                    *n == self.sizes[g] && self.image[g].within(set)
                })
            })
        })
    }
}

#[cfg(test)]
mod tests;
