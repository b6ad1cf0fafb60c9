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
//! [`band_units`] enumerates every filling of the band and keys it by its sorted profiles (a
//! relabelling of the band keeps its key). The distinct keys, each with its first filling and
//! how many fillings share it, are then merged into their orbits under the group the band's
//! symmetries generate: an orbit is a key's images under every element, computed once per
//! orbit from its least key. One representative per orbit (its first filling met) is kept
//! with the number of fillings of the orbit as its weight. The total is `side! x sum(weight
//! x count(representative))`; each unit is a partial grid anyone can recount with `dancehall
//! count sudoku --givens ...`. For the 9x9 diagonal Sudoku this turns 2,612,736 middle bands
//! into 24,027 units (the lemma is tested band by band on 6x6 in `grids::tests`).
//!
//! The direct way, [`band_units_keyed_on`], keys every filling by the least of its sorted
//! profiles over every symmetry: the same units in the same order, at one key per filling and
//! symmetry (216 for SudokuP's middle band) where this makes one per filling and one per
//! orbit and symmetry. The tests check both agree on every 4x4 and 6x6 variant.
//!
//! The fillings are split by their first cells into prefixes keyed on every local core
//! ([`band_units_on`] takes the number of threads) and merged in the prefixes' order; the
//! orbits are computed on every core too, each key marked by the least key whose orbit met
//! it. So the units and their representatives are the same on any number of threads (tested
//! on every 4x4 and 6x6 variant). On this project's idle 2-core VM (`cargo bench -p cores
//! --bench variants -- generate`, both reductions in one run), 1 thread and 2 against the
//! direct keying on 2: X-Sudoku 1.14 s and 0.59 s against 3.44 s, windoku 1.55 s and
//! 0.85 s against 1.26 s, SudokuP 1.50 s and 0.77 s against 15.96 s.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU32, Ordering};

use foldhash::fast::FixedState;
use hashbrown::HashTable;

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

/// Keys a thread takes at a time when the orbits are computed.
const ORBIT_CHUNK: usize = 4096;

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
    let threads = crate::parallel::local_threads();
    band_units_on(groups, band, symmetries, threads)
}

/// [`band_units`] on `threads` threads (the same units in the same order for any number):
/// every filling keyed once by its own sorted profiles, the distinct keys merged into their
/// orbits under the symmetries that keep the band (see the module's description).
pub fn band_units_on(
    groups: &SudokuGroups,
    band: usize,
    symmetries: &[Vec<u16>],
    threads: usize,
) -> Result<BandUnits, CompletionError> {
    let setup = Setup::new(groups, band, symmetries, threads)?;
    let identity = setup.band_cells().collect::<Vec<_>>();
    // Step 1: the distinct keys under the identity, each with its first filling and how many
    // fillings share it, in the order their first filling is met.
    let keys = setup.keys(|band, scratch| setup.key_under(&identity, band, scratch));
    // Step 2: the orbits of the keys under the group `keep` generates: a key's orbit is its
    // images under every element. Each key is marked with the least key whose orbit met it,
    // on every thread, ids taken in chunks in turn: a key already marked by a lesser one is in
    // that one's orbit and is skipped, so the orbits computed are about one per class, and
    // the least key of each (its first filling met) marks every key of it.
    let group = group_of(&setup.keep, setup.first);
    let least: Vec<AtomicU32> = (0..keys.len()).map(|_| AtomicU32::new(u32::MAX)).collect();
    let chunks: Vec<std::ops::Range<usize>> = (0..keys.len())
        .step_by(ORBIT_CHUNK)
        .map(|a| a..(a + ORBIT_CHUNK).min(keys.len()))
        .collect();
    let marked = setup.per_item(&chunks, |ids| -> Result<(), CompletionError> {
        let mut scratch = Scratch::new(&setup);
        for i in ids.clone() {
            let id = u32::try_from(i).expect("KeySet numbers keys in u32");
            if least[i].load(Ordering::Relaxed) < id {
                continue;
            }
            for g in &group {
                setup.key_under(g, keys.filling(i), &mut scratch);
                let j = keys
                    .find(&scratch.packed)
                    .ok_or(CompletionError::Symmetry)?;
                least[j].fetch_min(id, Ordering::Relaxed);
            }
        }
        Ok(())
    });
    marked.into_iter().collect::<Result<(), _>>()?;
    let mut class_of = vec![usize::MAX; keys.len()];
    let mut units: Vec<BandUnit> = Vec::new();
    for i in 0..keys.len() {
        let root = least[i].load(Ordering::Relaxed) as usize;
        if root == i {
            class_of[i] = units.len();
            units.push(setup.unit(keys.filling(i), 0));
        } else {
            class_of[i] = class_of[root];
        }
        units[class_of[i]].weight += u128::from(keys.counts[i]);
    }
    Ok(setup.finish(units))
}

/// [`band_units_on`] the direct way, each filling keyed by the least of its sorted profiles
/// over every symmetry that keeps the band: the same units in the same order, at one key
/// per filling and symmetry. The cross-check of the tests and the baseline of `cargo bench
/// -p cores --bench variants -- generate`.
pub fn band_units_keyed_on(
    groups: &SudokuGroups,
    band: usize,
    symmetries: &[Vec<u16>],
    threads: usize,
) -> Result<BandUnits, CompletionError> {
    let setup = Setup::new(groups, band, symmetries, threads)?;
    let keys = setup.keys(|band, scratch| {
        for (i, map) in setup.keep.iter().enumerate() {
            setup.profiles_under(map, band, scratch);
            if i == 0 || scratch.profiles < scratch.best {
                scratch.best.copy_from_slice(&scratch.profiles);
            }
        }
        scratch.profiles.copy_from_slice(&scratch.best);
        scratch.pack(setup.width);
    });
    let units = (0..keys.len())
        .map(|i| setup.unit(keys.filling(i), u128::from(keys.counts[i])))
        .collect();
    Ok(setup.finish(units))
}

/// What both reductions share: the band, its crossing groups as profile bits, the maps that
/// keep it and the prefixes its fillings are split by.
struct Setup {
    grid: GroupGrid,
    side: usize,
    /// The band's first cell.
    first: usize,
    /// Profile bits of each cell: the crossing groups it lies in.
    profile_of_cell: Vec<u128>,
    /// Bits a profile takes: the number of crossing groups.
    width: usize,
    /// `u64` words of a packed key: `side` profiles of `width` bits.
    words: usize,
    /// The symmetries that keep the band, as maps from its cells (the band's `k`-th cell to
    /// a cell of the band), each map once, the identity when there are none: symmetries that
    /// differ only outside the band (the 9x9 SudokuP's 432 keeping the middle band make 216
    /// maps, the windoku's 64 make 16) key every filling alike.
    keep: Vec<Vec<usize>>,
    /// The whole grid with the band's first row `1 2 ... side`.
    givens: Vec<u8>,
    /// The band's other cells, in order.
    cells: Vec<usize>,
    /// How many of `cells` a prefix fills.
    split: usize,
    prefixes: Vec<Vec<u8>>,
    threads: usize,
}

impl Setup {
    fn new(
        groups: &SudokuGroups,
        band: usize,
        symmetries: &[Vec<u16>],
        threads: usize,
    ) -> Result<Setup, CompletionError> {
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
        let width = crossing.len().max(1);
        let words = (side * width).div_ceil(64);
        let mut keep: Vec<Vec<usize>> = symmetries
            .iter()
            .filter(|p| band_cells.clone().all(|c| inside(usize::from(p[c]))))
            .map(|p| band_cells.clone().map(|c| usize::from(p[c])).collect())
            .collect();
        keep.sort_unstable();
        keep.dedup();
        if keep.is_empty() {
            keep.push(band_cells.clone().collect());
        }
        // Each map must take the band's part of every group onto the band's part of a group
        // that crosses out of the band as much: else it is no symmetry, and merging by it
        // would merge bands that complete differently.
        let parts: std::collections::HashSet<(bool, Vec<usize>)> = grid
            .group_cells()
            .iter()
            .map(|cells| {
                let part: Vec<usize> = cells.iter().copied().filter(|&c| inside(c)).collect();
                (part.len() < cells.len(), part)
            })
            .filter(|(_, part)| !part.is_empty())
            .collect();
        for map in &keep {
            for (crosses, part) in &parts {
                let mut image: Vec<usize> = part.iter().map(|&c| map[c - first]).collect();
                image.sort_unstable();
                if !parts.contains(&(*crosses, image)) {
                    return Err(CompletionError::Symmetry);
                }
            }
        }
        let mut givens = vec![0u8; side * side];
        for (c, g) in givens[first..first + side].iter_mut().enumerate() {
            *g = c as u8 + 1;
        }
        let cells: Vec<usize> = (first + side..band_cells.end).collect();
        // The fillings in lexicographic order are those of each prefix (the band's first
        // open cells filled) in the prefixes' order: each prefix is keyed on its own and the
        // pieces merged in order, so that a key's first filling is the first met and the
        // units come out as one thread makes them. As few prefixes as keep the threads busy:
        // a key met under many prefixes costs one merge each.
        let threads = threads.max(1);
        let mut split = 0;
        let mut prefixes: Vec<Vec<u8>> = vec![givens.clone()];
        while split < cells.len() && prefixes.len() < PREFIXES_PER_THREAD * threads {
            split += 1;
            prefixes.clear();
            grid.for_each_filling(&givens, &cells[..split], &mut |p| prefixes.push(p.to_vec()));
        }
        Ok(Setup {
            grid,
            side,
            first,
            profile_of_cell,
            width,
            words,
            keep,
            givens,
            cells,
            split,
            prefixes,
            threads,
        })
    }

    fn band_len(&self) -> usize {
        self.cells.len() + self.side
    }

    fn band_cells(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.band_len()
    }

    /// The sorted profiles of the band's digits once the band's `k`-th cell is moved to
    /// `map[k]`, into `scratch.profiles`.
    fn profiles_under(&self, map: &[usize], band: &[u8], scratch: &mut Scratch) {
        let profiles = &mut scratch.profiles;
        profiles.iter_mut().for_each(|p| *p = 0);
        for (&to, &d) in map.iter().zip(band) {
            profiles[usize::from(d - 1)] |= self.profile_of_cell[to];
        }
        profiles.sort_unstable();
    }

    /// [`Self::profiles_under`], packed into `scratch.packed`: the key.
    fn key_under(&self, map: &[usize], band: &[u8], scratch: &mut Scratch) {
        self.profiles_under(map, band, scratch);
        scratch.pack(self.width);
    }

    /// Every filling of the band keyed by `key_of` (which leaves the key in `scratch.packed`)
    /// on every thread: the distinct keys in the order their first filling is met, each with
    /// that filling and how many fillings share it.
    fn keys(&self, key_of: impl Fn(&[u8], &mut Scratch) + Sync) -> KeySet {
        let pieces = self.per_prefix(|prefix| {
            let mut keys = KeySet::new(self.words, self.band_len());
            let mut scratch = Scratch::new(self);
            let open = &self.cells[self.split..];
            self.grid.for_each_filling(prefix, open, &mut |filled| {
                let band = &filled[self.band_cells()];
                key_of(band, &mut scratch);
                keys.add(&scratch.packed, band, 1);
            });
            keys
        });
        let mut keys = KeySet::new(self.words, self.band_len());
        for piece in pieces {
            for i in 0..piece.len() {
                keys.add(piece.key(i), piece.filling(i), piece.counts[i]);
            }
        }
        keys
    }

    /// The unit of the band filled with `filling`.
    fn unit(&self, filling: &[u8], weight: u128) -> BandUnit {
        let mut givens = self.givens.clone();
        givens[self.band_cells()].copy_from_slice(filling);
        BandUnit { givens, weight }
    }

    /// `f` of every prefix on `threads` threads, in the prefixes' order.
    fn per_prefix<T: Send>(&self, f: impl Fn(&[u8]) -> T + Sync) -> Vec<T> {
        self.per_item(&self.prefixes, |p| f(p))
    }

    /// `f` of every item on `threads` threads, taken in turn, the results in the items' order.
    fn per_item<I: Sync, T: Send>(&self, items: &[I], f: impl Fn(&I) -> T + Sync) -> Vec<T> {
        crate::parallel::map(self.threads, items, f)
    }

    fn finish(&self, units: Vec<BandUnit>) -> BandUnits {
        BandUnits {
            bands: units.iter().map(|u| u.weight).sum(),
            units,
            symmetry_factor: (1..=self.side as u128).product(),
        }
    }
}

/// A thread's buffers for [`Setup::key_under`] (and the least profiles so far, for
/// [`band_units_keyed_on`]).
struct Scratch {
    profiles: Vec<u128>,
    best: Vec<u128>,
    packed: Vec<u64>,
}

impl Scratch {
    fn new(setup: &Setup) -> Scratch {
        Scratch {
            profiles: vec![0; setup.side],
            best: vec![0; setup.side],
            packed: vec![0; setup.words],
        }
    }

    /// `profiles`, `width` bits each, one after the other into `packed`.
    fn pack(&mut self, width: usize) {
        self.packed.iter_mut().for_each(|w| *w = 0);
        for (i, &p) in self.profiles.iter().enumerate() {
            let (mut at, mut rest, mut left) = (i * width, p, width);
            while left > 0 {
                let (word, offset) = (at / 64, at % 64);
                let take = (64 - offset).min(left);
                let low = if take == 64 {
                    rest as u64
                } else {
                    rest as u64 & ((1u64 << take) - 1)
                };
                self.packed[word] |= low << offset;
                rest = rest.checked_shr(take as u32).unwrap_or(0);
                at += take;
                left -= take;
            }
        }
    }
}

/// Distinct packed keys, numbered in the order they were added, each with the first band
/// filling added under it and the number of fillings added under it: flat arenas indexed by
/// a hash table of ids (the 9x9 SudokuP's 2.6 M keys take about 60 bytes each).
struct KeySet {
    words: usize,
    band_len: usize,
    keys: Vec<u64>,
    fillings: Vec<u8>,
    counts: Vec<u64>,
    table: HashTable<u32>,
    hasher: FixedState,
}

impl KeySet {
    fn new(words: usize, band_len: usize) -> KeySet {
        KeySet {
            words,
            band_len,
            keys: Vec::new(),
            fillings: Vec::new(),
            counts: Vec::new(),
            table: HashTable::new(),
            hasher: FixedState::default(),
        }
    }

    fn len(&self) -> usize {
        self.counts.len()
    }

    fn key(&self, i: usize) -> &[u64] {
        &self.keys[i * self.words..(i + 1) * self.words]
    }

    fn filling(&self, i: usize) -> &[u8] {
        &self.fillings[i * self.band_len..(i + 1) * self.band_len]
    }

    fn find(&self, key: &[u64]) -> Option<usize> {
        let w = self.words;
        let hash = self.hasher.hash_one(key);
        self.table
            .find(hash, |&i| {
                self.keys[i as usize * w..(i as usize + 1) * w] == *key
            })
            .map(|&i| i as usize)
    }

    /// Adds `count` fillings under `key`, `filling` being the first when the key is new.
    fn add(&mut self, key: &[u64], filling: &[u8], count: u64) {
        let w = self.words;
        let hash = self.hasher.hash_one(key);
        let KeySet {
            keys,
            counts,
            table,
            hasher,
            fillings,
            ..
        } = self;
        match table.find(hash, |&i| {
            keys[i as usize * w..(i as usize + 1) * w] == *key
        }) {
            Some(&i) => counts[i as usize] += count,
            None => {
                let id = u32::try_from(counts.len()).expect("more than 2^32 band keys");
                table.insert_unique(hash, id, |&i| {
                    hasher.hash_one(&keys[i as usize * w..(i as usize + 1) * w])
                });
                keys.extend_from_slice(key);
                fillings.extend_from_slice(filling);
                counts.push(count);
            }
        }
    }
}

/// The group `keep` generates (maps of the band's cells, the band starting at cell `first`),
/// the identity first: every element once.
fn group_of(keep: &[Vec<usize>], first: usize) -> Vec<Vec<usize>> {
    let identity: Vec<usize> = (first..first + keep.first().map_or(0, Vec::len)).collect();
    let mut seen: std::collections::HashSet<Vec<usize>> = [identity.clone()].into();
    let mut group = vec![identity];
    let mut next = 0;
    while let Some(a) = group.get(next).cloned() {
        next += 1;
        for g in keep {
            let ga: Vec<usize> = a.iter().map(|&c| g[c - first]).collect();
            if seen.insert(ga.clone()) {
                group.push(ga);
            }
        }
    }
    group
}
