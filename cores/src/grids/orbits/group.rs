//! The symmetry group of a grid's groups: every permutation of the cells that maps the set
//! of constraint groups onto itself.
//!
//! The groups are the rows, columns, boxes and extra groups, closed under implication
//! ([`all_groups`]): when `a` disjoint groups of `side` cells contain `a - 1` disjoint
//! groups, the cells left over hold every digit once, a group as well (windoku's four
//! windows imply five, among them the cells of rows 1, 5 and 9 in columns 2-4).
//!
//! Such a permutation maps the rows (a partition of the cells into `side` groups) onto a
//! partition made of groups, and the columns onto another, each of whose groups meets each
//! of the first's in one cell (an orthogonal pair); it is then the map sending cell
//! `(i, j)` to the cell where the images of row `i` and column `j` meet. So the group is
//! found pair by pair ([`partitions`], [`orthogonal_pairs`]): for each ordered orthogonal
//! pair `(A, B)` of partitions, a backtracking search assigns row 1 a group of `A`, column
//! 1 a group of `B`, row 2, column 2, ...; each constraint group keeps the set of groups its
//! known image cells could still lie in (those of its size containing every known image),
//! and a partial assignment dies when one of these sets is empty. A complete assignment maps
//! every group onto a group. The pair (rows, columns) gives the elements that keep lines,
//! (columns, rows) the transposed ones, and any other pair the rest: SudokuP's boxes and
//! disjoint groups are such a pair, so its full group has 4 x 2,592 = 10,368 elements.

use std::collections::HashSet;

use super::super::completion::check_shape;
use super::super::groups::SudokuGroups;
use super::{GridSymmetry, GroupChoice, OrbitError, MAX_ELEMENTS, MAX_ORBIT_SIDE};

/// A cell set of a grid of side at most [`MAX_ORBIT_SIDE`].
pub type Cells = u128;

/// The elements of a grid's symmetry group, listed as cell permutations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrbitGroup {
    pub side: usize,
    pub choice: GroupChoice,
    /// Every element once, the identity first, each as its `side * side` cell images.
    flat: Vec<u8>,
}

impl OrbitGroup {
    pub fn order(&self) -> u128 {
        self.len() as u128
    }

    pub fn len(&self) -> usize {
        self.flat.len() / (self.side * self.side)
    }

    pub fn is_empty(&self) -> bool {
        self.flat.is_empty()
    }

    /// Element `k`'s cell images.
    pub(crate) fn images(&self, k: usize) -> &[u8] {
        let n = self.side * self.side;
        &self.flat[k * n..(k + 1) * n]
    }

    pub fn element(&self, k: usize) -> GridSymmetry {
        let images: Vec<usize> = self.images(k).iter().map(|&c| usize::from(c)).collect();
        GridSymmetry::from_images(self.side, &images).expect("a listed permutation")
    }

    pub fn contains(&self, e: &GridSymmetry) -> bool {
        (0..self.len()).any(|k| self.images(k) == e.images())
    }
}

/// The side of `g`'s grid once its shape and extra groups are checked.
fn check(g: &SudokuGroups) -> Result<usize, OrbitError> {
    let side = check_shape(g.box_rows, g.box_cols)
        .map_err(|_| OrbitError::Side {
            side: g.box_rows * g.box_cols,
        })
        .and_then(|side| {
            if side > MAX_ORBIT_SIDE {
                Err(OrbitError::Side { side })
            } else {
                Ok(side)
            }
        })?;
    g.check_extra(side)
        .map_err(|(group, why)| OrbitError::BadGroup { group, why })?;
    Ok(side)
}

fn cells_of(cells: impl IntoIterator<Item = usize>) -> Cells {
    cells.into_iter().fold(0, |s, c| s | (1 << c))
}

/// The boxes of `g`'s shape as cell sets.
fn boxes(g: &SudokuGroups, side: usize) -> Vec<Cells> {
    (0..side)
        .map(|b| {
            let (r0, c0) = (b / g.box_rows * g.box_rows, b % g.box_rows * g.box_cols);
            cells_of(
                (0..g.box_rows)
                    .flat_map(|r| (0..g.box_cols).map(move |c| (r0 + r) * side + c0 + c)),
            )
        })
        .collect()
}

/// Every constraint group of `g` as a cell set, each once: rows, columns, boxes, the extra
/// groups and the groups they imply (see the module's description), in that order.
pub fn all_groups(g: &SudokuGroups) -> Result<Vec<Cells>, OrbitError> {
    let side = check(g)?;
    let mut groups: Vec<Cells> = Vec::new();
    let mut seen = HashSet::new();
    let mut add = |groups: &mut Vec<Cells>, s: Cells| {
        if seen.insert(s) {
            groups.push(s);
        }
    };
    for r in 0..side {
        add(&mut groups, cells_of((0..side).map(|c| r * side + c)));
    }
    for c in 0..side {
        add(&mut groups, cells_of((0..side).map(|r| r * side + c)));
    }
    for b in boxes(g, side) {
        add(&mut groups, b);
    }
    for e in &g.extra {
        add(&mut groups, cells_of(e.iter().copied()));
    }
    // Implied groups, to a fixed point: unions of a disjoint full groups (a = 2, 3) less a
    // union of a - 1 disjoint full groups inside them.
    loop {
        let full: Vec<Cells> = groups
            .iter()
            .copied()
            .filter(|s| s.count_ones() as usize == side)
            .collect();
        let mut found = Vec::new();
        for (i, &a) in full.iter().enumerate() {
            for (j, &b) in full.iter().enumerate().skip(i + 1) {
                if a & b != 0 {
                    continue;
                }
                let u2 = a | b;
                implied(&full, u2, 1, &mut found);
                for &c in &full[j + 1..] {
                    if u2 & c == 0 {
                        implied(&full, u2 | c, 2, &mut found);
                    }
                }
            }
        }
        let before = groups.len();
        for s in found {
            add(&mut groups, s);
        }
        if groups.len() == before {
            return Ok(groups);
        }
    }
}

/// Pushes `union` less every union of `k` disjoint full groups inside it.
fn implied(full: &[Cells], union: Cells, k: usize, out: &mut Vec<Cells>) {
    let inside: Vec<Cells> = full.iter().copied().filter(|&s| s & !union == 0).collect();
    let mut pick = |taken: Cells| out.push(union & !taken);
    match k {
        1 => inside.iter().for_each(|&s| pick(s)),
        2 => {
            for (i, &s) in inside.iter().enumerate() {
                for &t in &inside[i + 1..] {
                    if s & t == 0 {
                        pick(s | t);
                    }
                }
            }
        }
        _ => unreachable!("unions of two or three groups"),
    }
}

/// The orders of `g`'s Sudoku-preserving group and of its full group.
pub fn group_orders(g: &SudokuGroups) -> Result<(u128, u128), OrbitError> {
    let full = orbit_group(g, GroupChoice::Full)?;
    let filter = SudokuPreserving::new(g, full.side);
    let sudoku = (0..full.len())
        .filter(|&k| filter.keeps(full.images(k)))
        .count();
    Ok((sudoku as u128, full.order()))
}

/// The sets an element of the Sudoku-preserving group maps onto themselves: the lines
/// (rows and columns), the boxes and the extra groups (not the implied ones). Those
/// elements are the plain Sudoku group's that keep the extra groups, as
/// [`crate::grids::symmetry`] lists them.
struct SudokuPreserving {
    sets: [HashSet<Cells>; 3],
}

impl SudokuPreserving {
    fn new(g: &SudokuGroups, side: usize) -> SudokuPreserving {
        let lines = (0..side)
            .map(|r| cells_of((0..side).map(|c| r * side + c)))
            .chain((0..side).map(|c| cells_of((0..side).map(|r| r * side + c))))
            .collect();
        let extra = g
            .extra
            .iter()
            .map(|e| cells_of(e.iter().copied()))
            .collect();
        SudokuPreserving {
            sets: [lines, boxes(g, side).into_iter().collect(), extra],
        }
    }

    fn keeps(&self, images: &[u8]) -> bool {
        self.sets
            .iter()
            .all(|sets| sets.iter().all(|&s| sets.contains(&image_of(images, s))))
    }
}

/// The image of the cell set `s` under the cell permutation `images`.
pub(crate) fn image_of(images: &[u8], mut s: Cells) -> Cells {
    let mut image = 0;
    while s != 0 {
        image |= 1 << images[s.trailing_zeros() as usize];
        s &= s - 1;
    }
    image
}

/// Every partition of the cells into `side` disjoint groups of `groups`.
fn partitions(groups: &[Cells], side: usize) -> Vec<Vec<Cells>> {
    let full: Vec<Cells> = groups
        .iter()
        .copied()
        .filter(|s| s.count_ones() as usize == side)
        .collect();
    let all: Cells = if side * side == 128 {
        Cells::MAX
    } else {
        (1 << (side * side)) - 1
    };
    fn go(
        full: &[Cells],
        all: Cells,
        covered: Cells,
        cur: &mut Vec<Cells>,
        out: &mut Vec<Vec<Cells>>,
    ) {
        if covered == all {
            let mut p = cur.clone();
            p.sort_unstable();
            out.push(p);
            return;
        }
        let cell = (!covered & all).trailing_zeros();
        for &s in full {
            if s & (1 << cell) != 0 && s & covered == 0 {
                cur.push(s);
                go(full, all, covered | s, cur, out);
                cur.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(&full, all, 0, &mut Vec::new(), &mut out);
    out
}

/// The ordered pairs of partitions each of whose groups meets each of the other's in exactly
/// one cell, as `at[x][y]`: the cell where group `x` of the first meets group `y` of the
/// second. The pair (rows, columns) comes first.
fn orthogonal_pairs(parts: &[Vec<Cells>], side: usize) -> Vec<Vec<Vec<usize>>> {
    let mut out = Vec::new();
    let rows: Vec<Cells> = {
        let mut r: Vec<Cells> = (0..side)
            .map(|i| cells_of((0..side).map(|j| i * side + j)))
            .collect();
        r.sort_unstable();
        r
    };
    let mut order: Vec<usize> = (0..parts.len()).collect();
    // Rows first, so that the identity is the first element found.
    order.sort_by_key(|&k| parts[k] != rows);
    for &a in &order {
        for &b in &order {
            let at: Option<Vec<Vec<usize>>> = parts[a]
                .iter()
                .map(|&x| {
                    parts[b]
                        .iter()
                        .map(|&y| {
                            let m = x & y;
                            (m.count_ones() == 1).then(|| m.trailing_zeros() as usize)
                        })
                        .collect()
                })
                .collect();
            if let Some(at) = at {
                out.push(at);
            }
        }
    }
    out
}

/// Every element of `g`'s symmetry group under `choice`, the identity first.
pub fn orbit_group(g: &SudokuGroups, choice: GroupChoice) -> Result<OrbitGroup, OrbitError> {
    let side = check(g)?;
    let groups = all_groups(g)?;
    let parts = partitions(&groups, side);
    let mut flat = Vec::new();
    for at in orthogonal_pairs(&parts, side) {
        let mut search = Search::new(side, &groups, &at);
        search.run(&mut flat)?;
    }
    if choice == GroupChoice::SudokuPreserving {
        let filter = SudokuPreserving::new(g, side);
        let kept: Vec<u8> = flat
            .chunks(side * side)
            .filter(|images| filter.keeps(images))
            .flatten()
            .copied()
            .collect();
        flat = kept;
    }
    let group = OrbitGroup { side, choice, flat };
    debug_assert!(group.element(0).is_identity());
    Ok(group)
}

/// The backtracking search for a row-to-group map `rows` and a column-to-group map `cols`
/// of one orthogonal pair, the cell `(i, j)` going to `at[rows[i]][cols[j]]`, mapping every
/// group into a group of its size.
struct Search<'a> {
    side: usize,
    at: &'a [Vec<usize>],
    /// Per cell: the groups containing it.
    groups_of: Vec<Vec<usize>>,
    /// Per cell: the groups containing it as a bit set over the groups.
    targets_of: Vec<Vec<u64>>,
    /// Per group: the groups of its size, `words` words each.
    same_size: Vec<u64>,
    words: usize,
    /// Per depth: each group's candidate images, `words` words per group.
    cand: Vec<Vec<u64>>,
    rows: Vec<usize>,
    cols: Vec<usize>,
}

impl<'a> Search<'a> {
    fn new(side: usize, groups: &[Cells], at: &'a [Vec<usize>]) -> Search<'a> {
        let words = groups.len().div_ceil(64);
        let mut groups_of = vec![Vec::new(); side * side];
        let mut targets_of = vec![vec![0u64; words]; side * side];
        for (k, &s) in groups.iter().enumerate() {
            for c in 0..side * side {
                if s & (1 << c) != 0 {
                    groups_of[c].push(k);
                    targets_of[c][k / 64] |= 1 << (k % 64);
                }
            }
        }
        let mut same_size = vec![0u64; groups.len() * words];
        for (k, s) in groups.iter().enumerate() {
            for (t, u) in groups.iter().enumerate() {
                if u.count_ones() == s.count_ones() {
                    same_size[k * words + t / 64] |= 1 << (t % 64);
                }
            }
        }
        Search {
            side,
            at,
            groups_of,
            targets_of,
            cand: vec![same_size.clone(); 2 * side + 1],
            same_size,
            words,
            rows: vec![0; side],
            cols: vec![0; side],
        }
    }

    fn run(&mut self, out: &mut Vec<u8>) -> Result<(), OrbitError> {
        self.cand[0].copy_from_slice(&self.same_size);
        self.step(0, 0, 0, out)
    }

    /// Assigns line `depth` (row `depth / 2` when even, column `depth / 2` when odd), the
    /// groups' candidate images so far in `self.cand[depth]`.
    fn step(
        &mut self,
        depth: usize,
        used_rows: u32,
        used_cols: u32,
        out: &mut Vec<u8>,
    ) -> Result<(), OrbitError> {
        let side = self.side;
        if depth == 2 * side {
            if out.len() / (side * side) >= MAX_ELEMENTS {
                return Err(OrbitError::TooLarge);
            }
            for i in 0..side {
                for j in 0..side {
                    out.push(self.at[self.rows[i]][self.cols[j]] as u8);
                }
            }
            return Ok(());
        }
        let line = depth / 2;
        let is_row = depth.is_multiple_of(2);
        let used = if is_row { used_rows } else { used_cols };
        // The cells that become known: row `line` against columns 0..line, or column `line`
        // against rows 0..=line.
        let known: Vec<usize> = if is_row {
            (0..line).map(|j| line * side + j).collect()
        } else {
            (0..=line).map(|i| i * side + line).collect()
        };
        let words = self.words;
        for v in 0..side {
            if used & (1 << v) != 0 {
                continue;
            }
            if is_row {
                self.rows[line] = v;
            } else {
                self.cols[line] = v;
            }
            let (done, todo) = self.cand.split_at_mut(depth + 1);
            let next = &mut todo[0];
            next.copy_from_slice(&done[depth]);
            let mut alive = true;
            'cells: for &cell in &known {
                let (i, j) = (cell / side, cell % side);
                let image = self.at[self.rows[i]][self.cols[j]];
                for &k in &self.groups_of[cell] {
                    let mut any = 0;
                    for (t, &m) in next[k * words..(k + 1) * words]
                        .iter_mut()
                        .zip(&self.targets_of[image])
                    {
                        *t &= m;
                        any |= *t;
                    }
                    if any == 0 {
                        alive = false;
                        break 'cells;
                    }
                }
            }
            if alive {
                let (ur, uc) = if is_row {
                    (used_rows | 1 << v, used_cols)
                } else {
                    (used_rows, used_cols | 1 << v)
                };
                self.step(depth + 1, ur, uc, out)?;
            }
        }
        Ok(())
    }
}
