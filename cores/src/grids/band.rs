//! The first band of a Sudoku grid and its reductions, after Felgenhauer and Jarvis
//! ("Mathematics of Sudoku I", 2006).
//!
//! A band is the top `box_rows` rows; box 1 is fixed to `1 2 3 / 4 5 6 / 7 8 9` (any grid can
//! be relabelled so, hence the factor `side!`). The fillings of the other boxes of the band
//! ([`Bands::enumerate`]) are then reduced:
//! - *lexicographic reduction*: sorting the columns of each box after the first by their top
//!   digit and ordering those boxes by their top-left digit (`c!^(r-1) (r-1)!` fillings per
//!   reduced one, since the columns of a band are distinct): [`Bands::reduced`];
//! - orbits under further band symmetries, each followed by relabelling box 1 back to the
//!   standard one and reducing again: permutations of the band's rows, of box 1's columns, of
//!   the boxes ([`Bands::orbits`]); and swaps of `a b / b a` rectangles, which change the
//!   grid but not the digit sets of its columns;
//! - *column-set classes* ([`Bands::column_set_classes`]): the number of ways to complete a
//!   band to a grid depends only on the digit set of each of its columns (rows and boxes of
//!   the band constrain nothing below it), and is unchanged by permuting columns within a
//!   stack, permuting stacks and relabelling digits. Each class keeps its size: the number of
//!   reduced fillings in it.
//!
//! Felgenhauer and Jarvis's figures for 9x9 (tested in `grids::tests`): 2,612,736 fillings,
//! 36,288 reduced, 416 orbits under the band symmetries, 174 with the rectangle swaps, 44
//! column-set classes.

use std::collections::HashMap;

/// A band: `box_rows` rows of `side` digits (1-based), row-major.
pub type Band = Vec<u8>;

/// Why the bands of a shape cannot be listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BandError {
    #[error(transparent)]
    Shape(#[from] super::CompletionError),
    #[error(
        "box {rows}x{cols}: more than {limit} fillings of the first band; this shape needs a \
         finer reduction than the band's"
    )]
    TooMany {
        rows: usize,
        cols: usize,
        limit: u64,
    },
}

/// Fillings of the first band beyond this are refused (9x9 has 2,612,736).
pub const MAX_BAND_FILLINGS: u64 = 50_000_000;

/// The reduced fillings of the first band of one box shape.
#[derive(Debug, Clone)]
pub struct Bands {
    pub box_rows: usize,
    pub box_cols: usize,
    pub side: usize,
    /// Fillings of the band with box 1 fixed, before any reduction.
    pub fillings: u64,
    /// The lexicographically reduced fillings, in enumeration order.
    pub reduced: Vec<Band>,
    index: HashMap<Band, usize>,
}

/// A set of reduced fillings that share a completion count, with one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BandClass {
    /// The smallest reduced filling of the class (in enumeration order).
    pub band: Band,
    /// How many reduced fillings the class holds.
    pub size: u64,
}

impl Bands {
    /// Lists every filling of the first band with box 1 fixed and keeps the reduced ones.
    pub fn enumerate(box_rows: usize, box_cols: usize) -> Result<Bands, BandError> {
        let side = super::completion::check_shape(box_rows, box_cols)?;
        let mut e = Enum {
            r: box_rows,
            c: box_cols,
            side,
            band: standard_box1(box_rows, box_cols),
            rows: vec![0; box_rows],
            cols: vec![0; side],
            boxes: vec![0; side / box_cols],
            fillings: 0,
            reduced: Vec::new(),
            too_many: false,
        };
        for i in 0..box_rows {
            for j in 0..box_cols {
                let bit = 1u32 << (e.band[i * side + j] - 1);
                e.rows[i] |= bit;
                e.cols[j] |= bit;
                e.boxes[0] |= bit;
            }
        }
        e.fill(0);
        if e.too_many {
            return Err(BandError::TooMany {
                rows: box_rows,
                cols: box_cols,
                limit: MAX_BAND_FILLINGS,
            });
        }
        let index = e
            .reduced
            .iter()
            .enumerate()
            .map(|(i, b)| (b.clone(), i))
            .collect();
        Ok(Bands {
            box_rows,
            box_cols,
            side,
            fillings: e.fillings,
            reduced: e.reduced,
            index,
        })
    }

    fn boxes_per_band(&self) -> usize {
        self.side / self.box_cols
    }

    /// Relabels `band` so that box 1 is the standard one, then reduces it lexicographically.
    pub fn normalize(&self, band: &[u8]) -> Band {
        let (r, c, n) = (self.box_rows, self.box_cols, self.side);
        let mut relabel = vec![0u8; n + 1];
        for i in 0..r {
            for j in 0..c {
                relabel[usize::from(band[i * n + j])] = (i * c + j + 1) as u8;
            }
        }
        let mut out: Band = band.iter().map(|&v| relabel[usize::from(v)]).collect();
        lex_reduce(&mut out, r, c);
        out
    }

    /// The index in [`Bands::reduced`] of a reduced filling.
    pub fn index_of(&self, band: &[u8]) -> Option<usize> {
        self.index.get(band).copied()
    }

    /// Number of orbits of the reduced fillings under the group generated by `moves` (each
    /// followed by [`Bands::normalize`]), and the orbit of each filling (a representative
    /// index).
    pub fn orbits(&self, moves: &[Move]) -> (usize, Vec<usize>) {
        let mut uf = UnionFind::new(self.reduced.len());
        for (i, band) in self.reduced.iter().enumerate() {
            for m in moves {
                for image in self.images(band, *m) {
                    let j = self
                        .index_of(&self.normalize(&image))
                        .expect("a band symmetry maps reduced fillings to fillings");
                    uf.union(i, j);
                }
            }
        }
        let roots: Vec<usize> = (0..self.reduced.len()).map(|i| uf.find(i)).collect();
        let mut distinct = roots.clone();
        distinct.sort_unstable();
        distinct.dedup();
        (distinct.len(), roots)
    }

    /// The images of `band` under the generators of one kind of move.
    fn images(&self, band: &[u8], m: Move) -> Vec<Band> {
        let (r, c, n) = (self.box_rows, self.box_cols, self.side);
        let mut out = Vec::new();
        match m {
            Move::Rows => {
                for i in 0..r.saturating_sub(1) {
                    let mut b = band.to_vec();
                    for col in 0..n {
                        b.swap(i * n + col, (i + 1) * n + col);
                    }
                    out.push(b);
                }
            }
            Move::Box1Columns => {
                for j in 0..c.saturating_sub(1) {
                    let mut b = band.to_vec();
                    for i in 0..r {
                        b.swap(i * n + j, i * n + j + 1);
                    }
                    out.push(b);
                }
            }
            Move::Boxes => {
                for k in 0..self.boxes_per_band().saturating_sub(1) {
                    let mut b = band.to_vec();
                    for i in 0..r {
                        for j in 0..c {
                            b.swap(i * n + k * c + j, i * n + (k + 1) * c + j);
                        }
                    }
                    out.push(b);
                }
            }
            Move::RowCycles => {
                // Rows r1, r2: column x's lower digit sits in the upper row at column pi(x);
                // swapping the two rows' digits along one cycle of pi keeps both rows, every
                // box and every column's digit set.
                for r1 in 0..r {
                    for r2 in r1 + 1..r {
                        let pos: HashMap<u8, usize> =
                            (0..n).map(|x| (band[r1 * n + x], x)).collect();
                        let mut seen = vec![false; n];
                        for start in 0..n {
                            if seen[start] {
                                continue;
                            }
                            let mut cycle = Vec::new();
                            let mut x = start;
                            while !seen[x] {
                                seen[x] = true;
                                cycle.push(x);
                                x = pos[&band[r2 * n + x]];
                            }
                            if cycle.len() > 1 && cycle.len() < n {
                                let mut b = band.to_vec();
                                for &x in &cycle {
                                    b.swap(r1 * n + x, r2 * n + x);
                                }
                                out.push(b);
                            }
                        }
                    }
                }
            }
            Move::Rectangles => {
                for r1 in 0..r {
                    for r2 in r1 + 1..r {
                        for c1 in 0..n {
                            for c2 in c1 + 1..n {
                                let (a, b) = (band[r1 * n + c1], band[r2 * n + c1]);
                                if band[r1 * n + c2] == b && band[r2 * n + c2] == a {
                                    let mut x = band.to_vec();
                                    x.swap(r1 * n + c1, r2 * n + c1);
                                    x.swap(r1 * n + c2, r2 * n + c2);
                                    out.push(x);
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The digit set of each column of `band` (bit d-1 for digit d).
    pub fn column_sets(&self, band: &[u8]) -> Vec<u32> {
        let n = self.side;
        (0..n)
            .map(|col| (0..self.box_rows).fold(0u32, |m, i| m | 1 << (band[i * n + col] - 1)))
            .collect()
    }

    /// The column sets of `band` up to relabelling: each digit's *type*, the column of each
    /// stack that holds it (one per stack, as each box holds every digit once), coded as
    /// `sum over stacks s of column_s x c^s`, sorted. Two bands have the same column sets up
    /// to relabelling exactly when their types are the same multiset.
    fn digit_types(&self, band: &[u8]) -> Vec<u32> {
        let (n, c) = (self.side, self.box_cols as u32);
        let sets = self.column_sets(band);
        let mut types = vec![0u32; n];
        let mut place = 1;
        for stack in 0..self.boxes_per_band() {
            for j in 0..self.box_cols {
                for d in bits(sets[stack * self.box_cols + j]) {
                    types[d as usize] += j as u32 * place;
                }
            }
            place *= c;
        }
        types.sort_unstable();
        types
    }

    /// Every image of the multiset `types` ([`Bands::digit_types`]) under the permutations of
    /// the stacks and of the columns within each stack (`stacks! c!^stacks` of them; 1,296
    /// for 9x9), each sorted.
    fn type_images(&self, types: &[u32]) -> Vec<Vec<u32>> {
        let (stacks, c) = (self.boxes_per_band(), self.box_cols);
        let per_stack = permutations(c);
        let combos = per_stack.len().pow(stacks as u32);
        let digits: Vec<Vec<usize>> = types
            .iter()
            .map(|&t| {
                (0..stacks)
                    .map(|s| (t as usize / c.pow(s as u32)) % c)
                    .collect()
            })
            .collect();
        let orders = permutations(stacks);
        let mut images = Vec::with_capacity(combos * orders.len());
        for order in orders {
            for combo in 0..combos {
                // Stack `i` of the image is stack `order[i]` with its columns renamed by
                // `perms[i]`.
                let perms: Vec<&Vec<usize>> = (0..stacks)
                    .map(|i| &per_stack[combo / per_stack.len().pow(i as u32) % per_stack.len()])
                    .collect();
                let mut image: Vec<u32> = digits
                    .iter()
                    .map(|t| {
                        let code = order
                            .iter()
                            .zip(&perms)
                            .rev()
                            .fold(0, |code, (&from, p)| code * c + p[t[from]]);
                        code as u32
                    })
                    .collect();
                image.sort_unstable();
                images.push(image);
            }
        }
        images
    }

    /// The reduced fillings grouped by their column sets up to permutations of the columns
    /// within each stack, permutations of the stacks and relabellings of the digits, each
    /// class with its size; in order of their first member. A filling's class is found from
    /// its digit types ([`Bands::digit_types`]); a new class enters every image of its types
    /// ([`Bands::type_images`]), so each filling costs one lookup.
    pub fn column_set_classes(&self) -> Vec<BandClass> {
        let mut class_of: HashMap<Vec<u32>, usize> = HashMap::new();
        let mut classes: Vec<BandClass> = Vec::new();
        for band in &self.reduced {
            let types = self.digit_types(band);
            match class_of.get(&types) {
                Some(&i) => classes[i].size += 1,
                None => {
                    // Classes are disjoint orbits: none of these images has a class yet.
                    for image in self.type_images(&types) {
                        class_of.insert(image, classes.len());
                    }
                    classes.push(BandClass {
                        band: band.clone(),
                        size: 1,
                    });
                }
            }
        }
        classes
    }
}

/// Generators of band symmetries (and of count-preserving changes) used by [`Bands::orbits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Permutations of the band's rows.
    Rows,
    /// Permutations of box 1's columns.
    Box1Columns,
    /// Permutations of the band's boxes.
    Boxes,
    /// Swapping the digits of an `a b / b a` rectangle (two rows, two columns).
    Rectangles,
    /// Swapping two rows' digits along a cycle of columns whose digits the two rows share
    /// (`a b c / b c a`, ...; rectangles are the cycles of length 2).
    RowCycles,
}

/// Box 1 as `1 2 3 / 4 5 6 / ...`, the rest of the band empty.
pub fn standard_box1(box_rows: usize, box_cols: usize) -> Band {
    let n = box_rows * box_cols;
    let mut band = vec![0u8; box_rows * n];
    for i in 0..box_rows {
        for j in 0..box_cols {
            band[i * n + j] = (i * box_cols + j + 1) as u8;
        }
    }
    band
}

/// Sorts the columns of every box after the first by their top digit, then orders those
/// boxes by their top-left digit.
fn lex_reduce(band: &mut [u8], r: usize, c: usize) {
    let n = r * c;
    let column =
        |band: &[u8], col: usize| -> Vec<u8> { (0..r).map(|i| band[i * n + col]).collect() };
    let mut boxes: Vec<Vec<Vec<u8>>> = (1..n / c)
        .map(|k| {
            let mut cols: Vec<Vec<u8>> = (0..c).map(|j| column(band, k * c + j)).collect();
            cols.sort_unstable_by_key(|col| col[0]);
            cols
        })
        .collect();
    boxes.sort_unstable_by_key(|b| b[0][0]);
    for (k, cols) in boxes.iter().enumerate() {
        for (j, col) in cols.iter().enumerate() {
            for (i, &v) in col.iter().enumerate() {
                band[i * n + (k + 1) * c + j] = v;
            }
        }
    }
}

fn is_lex_reduced(band: &[u8], r: usize, c: usize) -> bool {
    let n = r * c;
    let boxes = n / c;
    for k in 1..boxes {
        for j in 1..c {
            if band[k * c + j - 1] > band[k * c + j] {
                return false;
            }
        }
        if k + 1 < boxes && band[k * c] > band[(k + 1) * c] {
            return false;
        }
    }
    true
}

struct Enum {
    r: usize,
    c: usize,
    side: usize,
    band: Band,
    rows: Vec<u32>,
    cols: Vec<u32>,
    boxes: Vec<u32>,
    fillings: u64,
    reduced: Vec<Band>,
    too_many: bool,
}

impl Enum {
    /// Fills the `k`-th cell outside box 1 (row-major), then the rest.
    fn fill(&mut self, k: usize) {
        let width = self.side - self.c;
        if k == self.r * width {
            self.fillings += 1;
            if self.fillings > MAX_BAND_FILLINGS {
                self.too_many = true;
            } else if is_lex_reduced(&self.band, self.r, self.c) {
                self.reduced.push(self.band.clone());
            }
            return;
        }
        if self.too_many {
            return;
        }
        let (i, col) = (k / width, self.c + k % width);
        let b = col / self.c;
        let full = (1u32 << self.side) - 1;
        let mut cand = full & !(self.rows[i] | self.cols[col] | self.boxes[b]);
        while cand != 0 {
            let bit = cand & cand.wrapping_neg();
            cand ^= bit;
            self.band[i * self.side + col] = bit.trailing_zeros() as u8 + 1;
            self.rows[i] |= bit;
            self.cols[col] |= bit;
            self.boxes[b] |= bit;
            self.fill(k + 1);
            self.rows[i] ^= bit;
            self.cols[col] ^= bit;
            self.boxes[b] ^= bit;
        }
        self.band[i * self.side + col] = 0;
    }
}

/// The digits (0-based bit positions) of a mask.
fn bits(mut m: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let d = m.trailing_zeros();
            m &= m - 1;
            d
        })
    })
}

/// Every permutation of `0..k`, in lexicographic order.
pub fn permutations(k: usize) -> Vec<Vec<usize>> {
    fn go(prefix: &mut Vec<usize>, used: &mut Vec<bool>, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == used.len() {
            out.push(prefix.clone());
            return;
        }
        for i in 0..used.len() {
            if !used[i] {
                used[i] = true;
                prefix.push(i);
                go(prefix, used, out);
                prefix.pop();
                used[i] = false;
            }
        }
    }
    let mut out = Vec::new();
    go(&mut Vec::new(), &mut vec![false; k], &mut out);
    out
}

struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
        }
    }
}
