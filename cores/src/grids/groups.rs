//! The groups of a Sudoku-like exact-cover problem, read back from the problem itself.
//!
//! A counting job carries its problem as Knuth's DLX text, not as a Sudoku configuration: a
//! core specialised for Sudoku grids with extra groups (diagonals, windows, disjoint groups,
//! any `--group`) must learn those groups from the problem and be sure that the problem is
//! exactly "a grid of `box_rows x box_cols` boxes where every group holds each digit at most
//! once". [`read_groups`] checks that shape option by option and item by item:
//! - options are the placements, option `(cell * side + digit)` places `digit + 1` in `cell`
//!   (row-major), and covers the item of its cell (item `cell`, primary) first;
//! - every other item is covered by the options of one digit, in a set of cells: its group;
//!   each group has one item per digit, primary when the group has `side` cells (each digit
//!   exactly once, which for `side` cells is the same as at most once) and secondary otherwise
//!   (a primary item of a smaller group would make the problem unsolvable, and is refused);
//! - the rows, columns and boxes of the shape are among the groups.
//!
//! That is what [`crate::problems::sudoku::Sudoku::build`] makes for every variant and
//! extra group, whatever the items are called.

use std::collections::BTreeMap;

use crate::xcc::Problem;

/// The groups of a Sudoku problem beyond its rows, columns and boxes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SudokuGroups {
    pub box_rows: usize,
    pub box_cols: usize,
    /// Every group that is not a row, a column or a box: its cells (row-major, 0-based,
    /// ascending), in the order of their items in the problem.
    pub extra: Vec<Vec<usize>>,
}

impl SudokuGroups {
    /// Checks the extra groups against a grid of side `side`: each holds 1 to `side` cells,
    /// all on the grid, none twice. The error is the group's number (1-based) and why.
    pub fn check_extra(&self, side: usize) -> Result<(), (usize, String)> {
        for (k, group) in self.extra.iter().enumerate() {
            let bad = |why: String| Err((k + 1, why));
            if group.is_empty() || group.len() > side {
                return bad(format!("{} cells, a group has 1 to {side}", group.len()));
            }
            let mut seen = vec![false; side * side];
            for &cell in group {
                if cell >= side * side {
                    return bad(format!("cell {cell} is off the {side}x{side} grid"));
                }
                if std::mem::replace(&mut seen[cell], true) {
                    return bad(format!("cell {cell} is listed twice"));
                }
            }
        }
        Ok(())
    }
}

/// Why a problem is not a Sudoku with groups of the given shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a {box_rows}x{box_cols}-box Sudoku with extra groups: {why}")]
pub struct GroupsError {
    pub box_rows: usize,
    pub box_cols: usize,
    pub why: String,
}

/// Reads the groups of `problem`, checking that it is exactly a Sudoku of `box_rows x
/// box_cols` boxes with extra groups (see the module's description).
pub fn read_groups(
    box_rows: usize,
    box_cols: usize,
    problem: &Problem,
) -> Result<SudokuGroups, GroupsError> {
    let fail = |why: String| GroupsError {
        box_rows,
        box_cols,
        why,
    };
    let side =
        super::completion::check_shape(box_rows, box_cols).map_err(|e| fail(e.to_string()))?;
    let cells = side * side;
    if problem.num_options() != cells * side {
        return Err(fail(format!(
            "{} options, a {side}x{side} grid has {} placements",
            problem.num_options(),
            cells * side
        )));
    }
    if problem.num_items() < cells {
        return Err(fail(format!(
            "{} items, fewer than the cells",
            problem.num_items()
        )));
    }
    // Per item beyond the cells: its digit and the cells of the options that cover it.
    let mut covered: Vec<Option<(usize, Vec<usize>)>> = vec![None; problem.num_items()];
    for o in 0..problem.num_options() {
        let (cell, digit) = (o / side, o % side);
        let items = problem.option(o as u32);
        if items.iter().any(|&(_, colour)| colour != 0) {
            return Err(fail(format!("option {o} has colours")));
        }
        match items.first() {
            Some(&(first, _)) if first as usize == cell => {}
            _ => {
                return Err(fail(format!(
                    "option {o} does not start with the item of its cell (item {cell})"
                )))
            }
        }
        for &(item, _) in &items[1..] {
            let item = item as usize;
            if item < cells {
                return Err(fail(format!(
                    "option {o} covers a second cell item ({item})"
                )));
            }
            match &mut covered[item] {
                None => covered[item] = Some((digit, vec![cell])),
                Some((d, group)) if *d == digit => group.push(cell),
                Some((d, _)) => {
                    return Err(fail(format!(
                        "item `{}` is covered by placements of digits {} and {}",
                        problem.item_name(item as u32),
                        *d + 1,
                        digit + 1
                    )))
                }
            }
        }
    }
    for cell in 0..cells {
        if !problem.is_primary(cell as u32) {
            return Err(fail(format!("the item of cell {cell} is secondary")));
        }
    }
    // Groups by their cells: one item per digit each.
    let mut groups: BTreeMap<Vec<usize>, (usize, Vec<bool>)> = BTreeMap::new();
    for (item, c) in covered.iter().enumerate().skip(cells) {
        let Some((digit, group)) = c else {
            return Err(fail(format!(
                "item `{}` is covered by no option",
                problem.item_name(item as u32)
            )));
        };
        if group.len() < side && problem.is_primary(item as u32) {
            return Err(fail(format!(
                "item `{}` is primary but its group has {} cells, fewer than {side}: no grid \
                 could cover it",
                problem.item_name(item as u32),
                group.len()
            )));
        }
        let order = groups.len();
        let e = groups
            .entry(group.clone())
            .or_insert_with(|| (order, vec![false; side]));
        if std::mem::replace(&mut e.1[*digit], true) {
            return Err(fail(format!(
                "two items for digit {} of the group of item `{}`",
                digit + 1,
                problem.item_name(item as u32)
            )));
        }
    }
    if let Some((g, _)) = groups.iter().find(|(_, (_, d))| d.iter().any(|&x| !x)) {
        return Err(fail(format!(
            "the group of cells {g:?} lacks the item of some digit"
        )));
    }
    let rows = (0..side).map(|r| (0..side).map(|c| r * side + c).collect::<Vec<_>>());
    let cols = (0..side).map(|c| (0..side).map(|r| r * side + c).collect::<Vec<_>>());
    let boxes = (0..side).map(|b| {
        let (br, bc) = (b / box_rows * box_rows, b % box_rows * box_cols);
        let mut v: Vec<usize> = (0..box_rows)
            .flat_map(|r| (0..box_cols).map(move |c| (br + r) * side + bc + c))
            .collect();
        v.sort_unstable();
        v
    });
    for (what, unit) in rows
        .map(|u| ("row", u))
        .chain(cols.map(|u| ("column", u)))
        .chain(boxes.map(|u| ("box", u)))
    {
        if groups.remove(&unit).is_none() {
            return Err(fail(format!("no group for the {what} of cells {unit:?}")));
        }
    }
    let mut extra: Vec<(usize, Vec<usize>)> = groups
        .into_iter()
        .map(|(cells, (order, _))| (order, cells))
        .collect();
    extra.sort();
    Ok(SudokuGroups {
        box_rows,
        box_cols,
        extra: extra.into_iter().map(|(_, g)| g).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::sudoku::{Sudoku, SudokuConfig, Variant};

    fn build(r: usize, c: usize, variants: &[Variant], groups: &[Vec<(usize, usize)>]) -> Problem {
        Sudoku::build(&SudokuConfig {
            variants: variants.to_vec(),
            extra_groups: groups.to_vec(),
            ..SudokuConfig::new(r, c)
        })
        .unwrap()
        .problem
    }

    #[test]
    fn a_plain_grid_has_no_extra_group_and_the_diagonals_are_read_back() {
        assert_eq!(
            read_groups(3, 3, &build(3, 3, &[], &[])).unwrap().extra,
            Vec::<Vec<usize>>::new()
        );
        let g = read_groups(3, 3, &build(3, 3, &[Variant::Diagonal], &[])).unwrap();
        let main: Vec<usize> = (0..9).map(|i| i * 9 + i).collect();
        let mut anti: Vec<usize> = (0..9).map(|i| i * 9 + 8 - i).collect();
        anti.sort_unstable();
        let mut got = g.extra.clone();
        got.sort();
        let mut want = vec![main, anti];
        want.sort();
        assert_eq!(got, want);
        // 2x3 boxes: the rows of a box are 2, its columns 3.
        let g = read_groups(2, 3, &build(2, 3, &[Variant::Disjoint], &[])).unwrap();
        assert_eq!(g.extra.len(), 6);
        assert!(
            g.extra.contains(&vec![0, 3, 12, 15, 24, 27]),
            "{:?}",
            g.extra
        );
    }

    #[test]
    fn a_hand_made_group_of_fewer_cells_is_read_as_at_most_once() {
        let g = read_groups(2, 2, &build(2, 2, &[], &[vec![(1, 1), (2, 3), (4, 4)]])).unwrap();
        assert_eq!(g.extra, vec![vec![0, 6, 15]]);
    }

    #[test]
    fn other_problems_are_refused_with_the_reason() {
        // Another shape.
        let e = read_groups(2, 3, &build(3, 2, &[], &[])).unwrap_err();
        assert!(e.why.contains("no group for the box"), "{e}");
        // Queens are no Sudoku.
        let q = crate::problems::queens::Queens::build(8).unwrap();
        let e = read_groups(2, 4, &q.problem).unwrap_err();
        assert!(e.why.contains("options"), "{e}");
        // A primary item of a group of 3 cells on a 4x4 grid.
        let text = crate::xcc::write_dlx(&build(2, 2, &[], &[vec![(1, 1), (2, 3), (4, 4)]]));
        let text = text.replacen(" |", "", 1);
        let p = crate::xcc::parse_dlx(&text).unwrap();
        let e = read_groups(2, 2, &p).unwrap_err();
        assert!(
            e.why.contains("is primary but its group has 3 cells"),
            "{e}"
        );
    }
}
