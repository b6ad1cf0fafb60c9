//! The classes of 9x9 band configurations under the symmetries that keep the number of grids
//! with that top band configuration: relabelling the digits (`9!`), permuting the columns
//! inside each stack (`3!^3`) and permuting the stacks (`3!`).
//!
//! Read per digit, a configuration is a *type*: the column (0, 1 or 2) holding the digit in
//! each of the three stacks, so a configuration is a map from the nine digits to the 27
//! types in which every stack's every column is taken by exactly three digits. Relabelling
//! leaves only the multiset of types; the column and stack permutations act on the types as
//! the 1,296 symmetries of a 3 x 3 x 3 cube's coordinates (each coordinate's values permuted,
//! the coordinates permuted). So the classes are the orbits of such multisets under those
//! 1,296 maps, and a class's size is `9! / prod(multiplicities!)` configurations per
//! multiset times the multiset's orbit (`1,296 / |stabiliser|`). The sizes sum to every
//! configuration, `1680^3` (`1680 = 9! / 3!^3` ordered partitions per stack), and there are
//! 44 classes, the column-set classes of Felgenhauer and Jarvis ("Mathematics of Sudoku I",
//! 2006): both tested.

use super::BandConfig;

/// One class: a representative configuration and the class's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandClass {
    /// The class's least type multiset, digit `i` taking the `i`-th type (in order).
    pub types: [u8; 9],
    /// Configurations in the class.
    pub size: u128,
}

impl BandClass {
    /// The representative configuration: digit `i + 1` in column `types[i]`'s coordinates.
    pub fn config(&self) -> BandConfig {
        let mut cols = [0u16; 9];
        for (d, &t) in self.types.iter().enumerate() {
            let mut t = t as usize;
            for s in 0..3 {
                cols[3 * s + t % 3] |= 1 << d;
                t /= 3;
            }
        }
        BandConfig::new(cols).expect("a class's types fill every column with three digits")
    }
}

/// The 1,296 symmetries of the types, each a table of the 27 types' images.
fn cube_maps() -> Vec<[u8; 27]> {
    let perms = crate::grids::band::permutations(3);
    let mut maps = Vec::with_capacity(1296);
    for sigma in &perms {
        for p0 in &perms {
            for p1 in &perms {
                for p2 in &perms {
                    let pi = [p0, p1, p2];

                    let mut map = [0u8; 27];
                    for (t, image) in map.iter_mut().enumerate() {
                        let x = [t % 3, t / 3 % 3, t / 9];
                        let mut y = [0usize; 3];
                        for s in 0..3 {
                            y[sigma[s]] = pi[s][x[s]];
                        }
                        *image = (y[0] + 3 * y[1] + 9 * y[2]) as u8;
                    }
                    maps.push(map);
                }
            }
        }
    }
    maps
}

/// A configuration's types, sorted: digit `d`'s type is its column in each stack
/// (`x0 + 3 x1 + 9 x2`).
fn sorted_types(cols: &[u16; 9]) -> [u8; 9] {
    let mut types = [0u8; 9];
    for (c, &m) in cols.iter().enumerate() {
        let weight = [1, 3, 9][c / 3] * (c % 3) as u8;
        let mut m = m;
        while m != 0 {
            types[m.trailing_zeros() as usize] += weight;
            m &= m - 1;
        }
    }
    types.sort_unstable();
    types
}

/// A configuration's multiset of types packed in a word (5 bits a digit): equal for two
/// configurations exactly when one is a relabelling of the other.
pub(crate) fn types_key(cols: &[u16; 9]) -> u64 {
    sorted_types(cols)
        .iter()
        .fold(0u64, |key, &t| key << 5 | t as u64)
}

/// The least type multiset of `config`'s class: the `types` of the [`BandClass`] it belongs to.
pub fn canonical_types(config: &BandConfig) -> [u8; 9] {
    let types = sorted_types(config.cols());
    cube_maps()
        .iter()
        .map(|map| {
            let mut image = types.map(|t| map[t as usize]);
            image.sort_unstable();
            image
        })
        .min()
        .expect("the identity is a symmetry")
}

/// Every class, in the order of their least type multisets.
pub fn band_classes() -> Vec<BandClass> {
    let maps = cube_maps();
    let mut classes = Vec::new();
    let mut types = [0u8; 9];
    let mut taken = [[0u8; 3]; 3];
    extend(&maps, 0, 0, &mut types, &mut taken, &mut classes);
    classes
}

fn extend(
    maps: &[[u8; 27]],
    i: usize,
    from: u8,
    types: &mut [u8; 9],
    taken: &mut [[u8; 3]; 3],
    out: &mut Vec<BandClass>,
) {
    if i == 9 {
        if let Some(size) = canonical_size(maps, types) {
            out.push(BandClass {
                types: *types,
                size,
            });
        }
        return;
    }
    for t in from..27 {
        let x = [t as usize % 3, t as usize / 3 % 3, t as usize / 9];
        if (0..3).any(|s| taken[s][x[s]] == 3) {
            continue;
        }
        for s in 0..3 {
            taken[s][x[s]] += 1;
        }
        types[i] = t;
        extend(maps, i + 1, t, types, taken, out);
        for s in 0..3 {
            taken[s][x[s]] -= 1;
        }
    }
}

/// The class size when `types` (sorted) is the least of its images, else `None`.
fn canonical_size(maps: &[[u8; 27]], types: &[u8; 9]) -> Option<u128> {
    let mut stabiliser = 0u128;
    for map in maps {
        let mut image = types.map(|t| map[t as usize]);
        image.sort_unstable();
        match image.cmp(types) {
            std::cmp::Ordering::Less => return None,
            std::cmp::Ordering::Equal => stabiliser += 1,
            std::cmp::Ordering::Greater => {}
        }
    }
    let mut labellings: u128 = 362_880;
    let mut run = 1u128;
    for w in 1..9 {
        if types[w] == types[w - 1] {
            run += 1;
            labellings /= run;
        } else {
            run = 1;
        }
    }
    Some(maps.len() as u128 / stabiliser * labellings)
}
