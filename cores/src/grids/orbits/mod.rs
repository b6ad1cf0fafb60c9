//! Essentially different grids: orbits of a Sudoku variant's grids under its symmetry group
//! together with the relabellings of the digits, by Burnside's lemma.
//!
//! With G the group and N the number of grids, the number of orbits is
//! `ED = (1 / |G|) sum_{g in G} A(g)`, where `A(g)` is the number of grids that `g` maps to a
//! relabelling of themselves, divided by `side!` (such a grid has exactly one relabelling,
//! since every digit appears). `A` is constant on conjugacy classes, so the sum runs over the
//! classes ([`conjugacy_classes`]) with their sizes; `A(identity) = N / side!` is the total
//! already counted, and every other term ([`class_term`]) is a count of grids fixed by `g`
//! and a relabelling, an exact-cover problem on the cycles of `g` on the cells, far smaller
//! than the total (see [`term`]).
//!
//! The group ([`group`]): every permutation of the cells that maps the set of constraint
//! groups onto itself (not only line permutations with transposition): rows, columns, boxes, the extra groups and the
//! groups they imply (a union of disjoint groups less a union of one group fewer inside it,
//! as windoku's windows imply five more). Two choices ([`GroupChoice`]): the full group, and
//! its Sudoku-preserving subgroup (the elements that also map boxes to boxes: the plain
//! Sudoku group's elements that keep the extra groups, as [`super::symmetry`] lists them;
//! mapping an extra group onto an implied one does not count there).
//! For windoku the full group is twice the subgroup (an involution of rows and columns
//! exchanges the boxes with the windows' groups); for SudokuP four times (rows and columns
//! `r -> 3 (r mod 3) + r / 3` exchange the boxes with the disjoint groups, and half of the
//! elements send rows to boxes).
//!
//! A second route for small grids ([`canonical`]): every grid with the first row `1..side`
//! (one per relabelling class), canonicalised under the group, counted distinct.

mod canonical;
mod chain;
mod classes;
mod group;
mod term;
#[cfg(test)]
mod tests;

pub use canonical::orbits_by_canonical_forms;
pub use classes::{conjugacy_classes, ConjugacyClass};
pub use group::{all_groups, group_orders, orbit_group, Cells, OrbitGroup};
pub use term::{class_term, IDENTITY_ENUMERATED_UP_TO};

use std::fmt;

use serde::{Deserialize, Serialize};

use super::groups::SudokuGroups;

/// The largest side whose orbits are counted: a cell fits a `u8`, a cell set a [`group::Cells`].
pub const MAX_ORBIT_SIDE: usize = 11;

/// The most group elements listed (the plain 9x9 group has 3,359,232).
pub const MAX_ELEMENTS: usize = 1 << 23;

/// Which symmetry group the orbits are counted under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupChoice {
    /// Every line permutation (with transposition) that maps the set of groups onto itself.
    Full,
    /// Its elements that also map boxes to boxes and the extra groups onto extra groups (not
    /// implied ones): the plain Sudoku group's elements that keep the extra groups, as
    /// [`super::symmetry`] lists them.
    #[serde(rename = "sudoku")]
    SudokuPreserving,
}

impl GroupChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            GroupChoice::Full => "full",
            GroupChoice::SudokuPreserving => "sudoku",
        }
    }

    pub fn parse(s: &str) -> Option<GroupChoice> {
        match s {
            "full" => Some(GroupChoice::Full),
            "sudoku" => Some(GroupChoice::SudokuPreserving),
            _ => None,
        }
    }
}

impl fmt::Display for GroupChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why orbits were not counted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OrbitError {
    #[error("orbits are counted on grids of side 1 to {MAX_ORBIT_SIDE}, not {side}")]
    Side { side: usize },
    #[error("extra group {group}: {why}")]
    BadGroup { group: usize, why: String },
    #[error("the symmetry group has more than {MAX_ELEMENTS} elements, too many to list")]
    TooLarge,
    #[error("not a symmetry of a grid of side {side}: {why}")]
    BadElement { side: usize, why: String },
    #[error("the element {element} does not keep the grid's groups")]
    NotASymmetry { element: String },
    #[error(
        "the identity's term is the number of grids divided by {side}!: count the total \
         (or import it from its ledger), it is not enumerated on grids of side {side}"
    )]
    IdentityTooLarge { side: usize },
    #[error("the count was stopped")]
    Stopped,
    #[error("{what} overflows 128 bits")]
    Overflow { what: &'static str },
    #[error("Burnside's sum {sum} does not divide by the group's order {order}: a term is wrong")]
    NotDivisible { sum: u128, order: u128 },
}

/// A symmetry of the grid: a permutation of its cells (`perm[cell]` is the cell, row-major,
/// that `cell` goes to).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GridSymmetry {
    side: usize,
    perm: Vec<u8>,
}

impl GridSymmetry {
    pub fn identity(side: usize) -> GridSymmetry {
        GridSymmetry {
            side,
            perm: (0..side * side).map(|c| c as u8).collect(),
        }
    }

    /// The symmetry with these cell images, checked to be a permutation of a grid of side
    /// `side`.
    pub fn from_images(side: usize, images: &[usize]) -> Result<GridSymmetry, OrbitError> {
        let bad = |why: String| OrbitError::BadElement { side, why };
        if side == 0 || side > MAX_ORBIT_SIDE {
            return Err(OrbitError::Side { side });
        }
        if images.len() != side * side {
            return Err(bad(format!(
                "{} cell images, the grid has {} cells",
                images.len(),
                side * side
            )));
        }
        let mut seen = vec![false; images.len()];
        for &c in images {
            if c >= images.len() || std::mem::replace(&mut seen[c], true) {
                return Err(bad(format!(
                    "cell {} is off the grid or an image twice",
                    c + 1
                )));
            }
        }
        Ok(GridSymmetry {
            side,
            perm: images.iter().map(|&c| c as u8).collect(),
        })
    }

    /// The symmetry sending cell `(i, j)` to `(rows[i], cols[j])`, or `(rows[j], cols[i])`
    /// when `transposed`.
    pub fn from_lines(rows: &[usize], cols: &[usize], transposed: bool) -> GridSymmetry {
        let side = rows.len();
        let perm = (0..side * side)
            .map(|c| {
                let (i, j) = (c / side, c % side);
                let (r, k) = if transposed {
                    (rows[j], cols[i])
                } else {
                    (rows[i], cols[j])
                };
                (r * side + k) as u8
            })
            .collect();
        GridSymmetry { side, perm }
    }

    pub fn side(&self) -> usize {
        self.side
    }

    pub fn is_identity(&self) -> bool {
        self.perm
            .iter()
            .enumerate()
            .all(|(c, &x)| usize::from(x) == c)
    }

    /// The cell (row-major) that `cell` goes to.
    pub fn image(&self, cell: usize) -> usize {
        usize::from(self.perm[cell])
    }

    pub(crate) fn images(&self) -> &[u8] {
        &self.perm
    }

    /// `self` after `other` (`other` first).
    pub fn compose(&self, other: &GridSymmetry) -> GridSymmetry {
        GridSymmetry {
            side: self.side,
            perm: other
                .perm
                .iter()
                .map(|&x| self.perm[usize::from(x)])
                .collect(),
        }
    }

    pub fn inverse(&self) -> GridSymmetry {
        let mut perm = vec![0u8; self.perm.len()];
        for (c, &x) in self.perm.iter().enumerate() {
            perm[usize::from(x)] = c as u8;
        }
        GridSymmetry {
            side: self.side,
            perm,
        }
    }

    /// The line permutations when `self` sends rows to rows and columns to columns (or,
    /// transposed, rows to columns and columns to rows): `(rows, cols, transposed)`.
    pub fn as_lines(&self) -> Option<(Vec<usize>, Vec<usize>, bool)> {
        let side = self.side;
        for transposed in [false, true] {
            // Cell (i, 0) gives rows[i] (or cols[i] transposed), cell (0, j) the other.
            let (mut rows, mut cols) = (vec![0; side], vec![0; side]);
            for i in 0..side {
                let (a, b) = (self.image(i * side), self.image(i));
                if transposed {
                    cols[i] = a % side;
                    rows[i] = b / side;
                } else {
                    rows[i] = a / side;
                    cols[i] = b % side;
                }
            }
            if GridSymmetry::from_lines(&rows, &cols, transposed) == *self {
                return Some((rows, cols, transposed));
            }
        }
        None
    }

    /// The symmetry as text. One that keeps lines: `rows/cols`, each line's image as a
    /// 1-based digit (base 36: `1`..`9`, `a`, ...), `t` after a transposed one (the identity
    /// of 9x9 is `123456789/123456789`). Any other: `cells:` and the image of every cell,
    /// row-major, 1-based, separated by `.`.
    pub fn to_text(&self) -> String {
        let digit = |x: usize| char::from_digit(x as u32 + 1, 36).unwrap_or('?');
        match self.as_lines() {
            Some((rows, cols, transposed)) => {
                let line = |p: &[usize]| -> String { p.iter().map(|&x| digit(x)).collect() };
                let mut s = format!("{}/{}", line(&rows), line(&cols));
                if transposed {
                    s.push('t');
                }
                s
            }
            None => {
                let cells: Vec<String> = self
                    .perm
                    .iter()
                    .map(|&x| (usize::from(x) + 1).to_string())
                    .collect();
                format!("cells:{}", cells.join("."))
            }
        }
    }

    /// Reads [`Self::to_text`]'s forms for a grid of side `side`.
    pub fn parse(side: usize, s: &str) -> Result<GridSymmetry, OrbitError> {
        let bad = |why: String| OrbitError::BadElement { side, why };
        let s = s.trim();
        if let Some(cells) = s.strip_prefix("cells:") {
            let images = cells
                .split('.')
                .map(|x| {
                    x.parse::<usize>()
                        .ok()
                        .filter(|&c| c >= 1)
                        .map(|c| c - 1)
                        .ok_or_else(|| bad(format!("`{x}` is not a cell number from 1")))
                })
                .collect::<Result<Vec<usize>, _>>()?;
            return GridSymmetry::from_images(side, &images);
        }
        let (body, transposed) = match s.strip_suffix('t') {
            Some(body) => (body, true),
            None => (s, false),
        };
        let (rows, cols) = body.split_once('/').ok_or_else(|| {
            bad(format!(
                "`{s}`: expected rows/cols (e.g. 1234/1234) or cells:1.2.3..."
            ))
        })?;
        let line = |what: &str, text: &str| -> Result<Vec<usize>, OrbitError> {
            let mut seen = vec![false; side];
            let mut out = Vec::with_capacity(side);
            for ch in text.chars() {
                let x = ch
                    .to_digit(36)
                    .filter(|&d| d >= 1 && (d as usize) <= side)
                    .ok_or_else(|| {
                        bad(format!("{what} `{text}`: `{ch}` is not a line 1..{side}"))
                    })? as usize
                    - 1;
                if std::mem::replace(&mut seen[x], true) {
                    return Err(bad(format!("{what} `{text}`: line {ch} twice")));
                }
                out.push(x);
            }
            if out.len() != side {
                return Err(bad(format!(
                    "{what} `{text}`: {} lines, the grid has {side}",
                    out.len()
                )));
            }
            Ok(out)
        };
        Ok(GridSymmetry::from_lines(
            &line("rows", rows)?,
            &line("cols", cols)?,
            transposed,
        ))
    }
}

impl fmt::Display for GridSymmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl Serialize for GridSymmetry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}:{}", self.side, self.to_text()))
    }
}

impl<'de> Deserialize<'de> for GridSymmetry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GridSymmetry, D::Error> {
        let text = String::deserialize(d)?;
        let (side, rest) = text
            .split_once(':')
            .ok_or_else(|| serde::de::Error::custom("expected side:symmetry"))?;
        let side: usize = side.parse().map_err(serde::de::Error::custom)?;
        GridSymmetry::parse(side, rest).map_err(serde::de::Error::custom)
    }
}

/// The orbit count of a grid under a group, with its Burnside terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrbitCount {
    pub choice: GroupChoice,
    pub group_order: u128,
    /// Per conjugacy class (identity first): the class and `A` of its representative.
    pub terms: Vec<(ConjugacyClass, u128)>,
    /// The number of grids.
    pub total: u128,
    pub orbits: u128,
}

/// The orbits from the Burnside terms: `sum |C| A(C) / |G|`, refused when it does not divide.
pub fn orbits_from_terms(
    group_order: u128,
    terms: impl IntoIterator<Item = (u128, u128)>,
) -> Result<u128, OrbitError> {
    let mut sum = 0u128;
    for (size, a) in terms {
        sum = size
            .checked_mul(a)
            .and_then(|x| sum.checked_add(x))
            .ok_or(OrbitError::Overflow {
                what: "Burnside's sum",
            })?;
    }
    if group_order == 0 || !sum.is_multiple_of(group_order) {
        return Err(OrbitError::NotDivisible {
            sum,
            order: group_order,
        });
    }
    Ok(sum / group_order)
}

/// Counts the orbits of `g`'s grids under `choice`: the group, its classes, every term. The
/// identity's term is `total / side!` when `total` is given, else counted here (grids of side
/// at most [`IDENTITY_ENUMERATED_UP_TO`]: every grid with its first row fixed).
pub fn count_orbits(
    g: &SudokuGroups,
    choice: GroupChoice,
    total: Option<u128>,
) -> Result<OrbitCount, OrbitError> {
    let group = orbit_group(g, choice)?;
    let classes = conjugacy_classes(&group);
    let side = group.side;
    let fact = crate::problems::factorial(side).ok_or(OrbitError::Overflow { what: "side!" })?;
    let mut terms = Vec::with_capacity(classes.len());
    let mut total_seen = None;
    for class in classes {
        let a = if class.rep.is_identity() {
            let a = match total {
                Some(n) => {
                    if !n.is_multiple_of(fact) {
                        return Err(OrbitError::NotDivisible {
                            sum: n,
                            order: fact,
                        });
                    }
                    n / fact
                }
                None => class_term(g, &class.rep, None)?,
            };
            total_seen = Some(a * fact);
            a
        } else {
            class_term(g, &class.rep, None)?
        };
        terms.push((class, a));
    }
    let orbits = orbits_from_terms(group.order(), terms.iter().map(|(c, a)| (c.size, *a)))?;
    Ok(OrbitCount {
        choice,
        group_order: group.order(),
        terms,
        total: total_seen.unwrap_or(0),
        orbits,
    })
}

/// The sanity bound printed with every orbit count: `ED >= ceil(N / (|G| side!))` (every
/// orbit has at most `|G| side!` grids).
pub fn lower_bound(total: u128, group_order: u128, side: usize) -> u128 {
    match crate::problems::factorial(side).and_then(|f| f.checked_mul(group_order)) {
        Some(d) if d > 0 => total.div_ceil(d),
        _ => u128::from(total > 0),
    }
}
