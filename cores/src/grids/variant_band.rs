//! Weighted units for every grid of a Sudoku with extra groups (any variant or `--group`),
//! one per class of fillings of one band ([`unit_band`]: the middle one of three, else the
//! first).
//!
//! Relabelling the digits maps grids onto grids, and exactly one relabelling of a grid has
//! the band's first row `1 2 ... side`: the grids are `side!` times those with that row.
//! Those are split by the band's filling (every filling of its other rows consistent with all
//! groups). How many ways a band `B` completes depends on `B` only through the groups that
//! cross from the band into the rest of the grid (the columns and the extra groups with
//! cells on both sides): the rest must put in each such group exactly the digits `B` leaves
//! out of it, and every other constraint on the rest does not mention `B`. So the count is
//! a function of the digits `B` puts in each crossing group. It is also unchanged when the
//! digits are relabelled (a relabelled grid is a grid). Hence two bands whose digits have
//! the same multiset of *profiles* (a digit's profile: the crossing groups it lies in inside
//! the band) complete in as many ways: one relabelling maps the one's crossing sets onto the
//! other's. A symmetry of the variant that maps the band onto itself maps the completions of
//! a band onto those of its image, so classes are merged by those too.
//!
//! [`band_units`] enumerates every filling of the band, keys it by the least of its sorted
//! profiles over those symmetries, and keeps one representative per key with the number of
//! fillings that share it as its weight. The total is `side! x sum(weight x
//! count(representative))`; each unit is a partial grid anyone can recount with `dancehall
//! count sudoku --givens ...`. For the 9x9 diagonal Sudoku this turns 2,612,736 middle bands
//! into 24,027 units (the lemma is tested band by band on 6x6 in `grids::tests`).
//!
//! The fillings are split by their first cells into prefixes keyed on every local core
//! ([`band_units_on`] takes the number of threads) and the classes merged in the prefixes'
//! order, so the units and their representatives are the same on any number of threads
//! (tested on every 4x4 and 6x6 variant). On this project's 2-core VM (`cargo bench -p cores
//! --bench variants -- generate`), 1 thread against 2: X-Sudoku 12.9 s against 6.9 s,
//! windoku 5.2 s against 3.6 s, SudokuP 52.5 s against 27.8 s.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::group_core::GroupGrid;
use super::groups::SudokuGroups;
use super::CompletionError;

/// One unit: a first band and how many first bands it stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BandUnit {
    /// Cells row by row, 0 empty: the first band filled, the rest empty.
    pub givens: Vec<u8>,
    pub weight: u128,
}

/// The units of a whole-grid count of a Sudoku with groups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BandUnits {
    /// In the order their first member was met (lexicographic order of the bands).
    pub units: Vec<BandUnit>,
    /// The first bands with row 1 fixed: the sum of the weights.
    pub bands: u128,
    /// `side!`.
    pub symmetry_factor: u128,
}

/// The fillings are split by their first cells into at least this many prefixes a thread
/// (pieces of work of unequal size, taken in turn), when the band has that many.
const PREFIXES_PER_THREAD: usize = 4;

/// Classes of fillings in the order their first member was met: each class's key, its first
/// filling and how many fillings it holds.
#[derive(Default)]
struct Classes {
    index: HashMap<Vec<u128>, usize>,
    keys: Vec<Vec<u128>>,
    units: Vec<BandUnit>,
}

impl Classes {
    fn add(&mut self, key: &[u128], filled: &[u8], weight: u128) {
        match self.index.get(key) {
            Some(&i) => self.units[i].weight += weight,
            None => {
                self.index.insert(key.to_vec(), self.units.len());
                self.keys.push(key.to_vec());
                self.units.push(BandUnit {
                    givens: filled.to_vec(),
                    weight,
                });
            }
        }
    }
}

/// The band to give in the units of `groups`' grids: the middle one when there are three
/// (the join then counts the bands on both sides of it, and the symmetries that keep the
/// middle band are the most), else the first.
pub fn unit_band(groups: &SudokuGroups) -> usize {
    let side = groups.box_rows * groups.box_cols;
    if side / groups.box_rows.max(1) == 3 {
        1
    } else {
        0
    }
}

/// The band-class units of `groups`' grids with band `band` given (see the module's
/// description), classes merged further by the elements of `symmetries` (cell permutations
/// of the variant's group, [`super::symmetry::variant_symmetries`]) that map the band onto
/// itself: such an element maps the completions of a band onto those of its image.
pub fn band_units(
    groups: &SudokuGroups,
    band: usize,
    symmetries: &[Vec<u16>],
) -> Result<BandUnits, CompletionError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    band_units_on(groups, band, symmetries, threads)
}

/// [`band_units`] on `threads` threads (the same units in the same order for any number).
pub fn band_units_on(
    groups: &SudokuGroups,
    band: usize,
    symmetries: &[Vec<u16>],
    threads: usize,
) -> Result<BandUnits, CompletionError> {
    let grid = GroupGrid::new(groups)?;
    let side = grid.side();
    let band_rows = groups.box_rows;
    let first = band * band_rows * side;
    let band_cells = first..first + band_rows * side;
    if band_cells.end > side * side {
        return Err(CompletionError::Shape {
            rows: groups.box_rows,
            cols: groups.box_cols,
        });
    }
    let inside = |c: usize| band_cells.contains(&c);
    // The groups crossing out of the band, as bit positions of a profile.
    let crossing: Vec<&Vec<usize>> = grid
        .group_cells()
        .iter()
        .filter(|cells| cells.iter().any(|&c| inside(c)) && cells.iter().any(|&c| !inside(c)))
        .collect();
    if crossing.len() > 128 {
        return Err(CompletionError::Shape {
            rows: groups.box_rows,
            cols: groups.box_cols,
        });
    }
    let mut profile_of_cell = vec![0u128; side * side];
    for (k, cells) in crossing.iter().enumerate() {
        for &c in cells.iter() {
            profile_of_cell[c] |= 1 << k;
        }
    }
    // The symmetries that keep the band, as maps from its cells, each map once: symmetries
    // that differ only outside the band (the 9x9 SudokuP's 432 keeping the middle band make
    // 216 maps, the windoku's 64 make 16) key every filling alike.
    let mut keep: Vec<Vec<usize>> = symmetries
        .iter()
        .filter(|p| band_cells.clone().all(|c| inside(usize::from(p[c]))))
        .map(|p| band_cells.clone().map(|c| usize::from(p[c])).collect())
        .collect();
    keep.sort_unstable();
    keep.dedup();
    let identity: Vec<usize> = band_cells.clone().collect();
    let keep = if keep.is_empty() {
        vec![identity]
    } else {
        keep
    };
    let mut givens = vec![0u8; side * side];
    for (c, g) in givens[first..first + side].iter_mut().enumerate() {
        *g = c as u8 + 1;
    }
    let cells: Vec<usize> = (first + side..band_cells.end).collect();
    // The fillings in lexicographic order are those of each prefix (the band's first open
    // cells filled) in the prefixes' order: the prefixes are keyed on `threads` threads, each
    // into its own classes, and merged in order, so that a class's representative is still
    // the first filling met and the units come out as one thread makes them. As few prefixes
    // as keep the threads busy: a class met under many prefixes costs one merge each.
    let threads = threads.max(1);
    let mut split = 0;
    let mut prefixes: Vec<Vec<u8>> = vec![givens.clone()];
    while split < cells.len() && prefixes.len() < PREFIXES_PER_THREAD * threads {
        split += 1;
        prefixes.clear();
        grid.for_each_filling(&givens, &cells[..split], &mut |p| prefixes.push(p.to_vec()));
    }
    // The least of a filling's sorted profiles over the maps in `keep`, into `best`.
    let key_band = |band: &[u8], key: &mut [u128], best: &mut [u128]| {
        for (i, map) in keep.iter().enumerate() {
            key.iter_mut().for_each(|p| *p = 0);
            for (k, &to) in map.iter().enumerate() {
                key[usize::from(band[first + k] - 1)] |= profile_of_cell[to];
            }
            key.sort_unstable();
            if i == 0 || *key < *best {
                best.copy_from_slice(key);
            }
        }
    };
    let classes_of = |prefix: &[u8]| -> Classes {
        let mut classes = Classes::default();
        let (mut key, mut best) = (vec![0u128; side], vec![0u128; side]);
        grid.for_each_filling(prefix, &cells[split..], &mut |filled| {
            key_band(filled, &mut key, &mut best);
            classes.add(&best, filled, 1)
        });
        classes
    };
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Classes)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(prefix) = prefixes.get(i) else {
                            return mine;
                        };
                        mine.push((i, classes_of(prefix)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a band-class thread panicked"))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    let mut all = Classes::default();
    for (_, classes) in done {
        for (key, unit) in classes.keys.into_iter().zip(classes.units) {
            all.add(&key, &unit.givens, unit.weight);
        }
    }
    let bands = all.units.iter().map(|u| u.weight).sum();
    Ok(BandUnits {
        units: all.units,
        bands,
        symmetry_factor: (1..=side as u128).product(),
    })
}
