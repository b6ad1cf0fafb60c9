//! The conjugacy classes of a listed symmetry group, computed (never tabled): a generating
//! set first (seeded random elements until a stabiliser chain of the subgroup they generate
//! has the group's order), then each class as the orbit of an element under conjugation by
//! the generators: every element's conjugates are looked up on every local core first, then
//! the orbits are read off that table.

use std::collections::HashMap;

use foldhash::fast::RandomState;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::chain::Chain;
use super::{GridSymmetry, OrbitGroup};

/// One conjugacy class: its number (1 for the identity's, then in the order of the group's
/// listing of their first elements), a representative and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConjugacyClass {
    pub index: usize,
    pub rep: GridSymmetry,
    pub size: u128,
}

/// The classes of `group`, the identity's first; their sizes sum to the order.
pub fn conjugacy_classes(group: &OrbitGroup) -> Vec<ConjugacyClass> {
    let n = group.len();
    let (base, index) = Base::of(group);
    let gens = generators(group);
    // Conjugation by h sends e to h e h^-1, whose image of a base cell b is h(e(h^-1(b))).
    let inverse_at_base: Vec<Vec<usize>> = gens
        .iter()
        .map(|h| {
            base.cells
                .iter()
                .map(|&b| {
                    h.iter()
                        .position(|&x| usize::from(x) == b)
                        .expect("a permutation")
                })
                .collect()
        })
        .collect();
    // Every element's conjugates by the generators, looked up on every local core (the
    // lookups are most of the work), then the classes as orbits over this table.
    let g = gens.len();
    let threads = crate::parallel::local_threads();
    let chunk = n.div_ceil(threads).max(1);
    let starts: Vec<usize> = (0..n).step_by(chunk).collect();
    // No generators (the trivial group): no table, each element its own class.
    let conjugate: Vec<u32> = if g == 0 {
        Vec::new()
    } else {
        crate::parallel::map(threads, &starts, |&start| {
            let mut rows = Vec::with_capacity(chunk * g);
            for x in start..(start + chunk).min(n) {
                let e = group.images(x);
                for (h, at) in gens.iter().zip(&inverse_at_base) {
                    rows.push(index[&base.key_at(|i| h[usize::from(e[at[i]])])]);
                }
            }
            rows
        })
        .concat()
    };
    let mut class_of = vec![u32::MAX; n];
    let mut classes = Vec::new();
    for start in 0..n {
        if class_of[start] != u32::MAX {
            continue;
        }
        let id = classes.len() as u32;
        class_of[start] = id;
        let mut stack = vec![start];
        let mut size = 0u128;
        while let Some(x) = stack.pop() {
            size += 1;
            for &y in &conjugate[x * g..(x + 1) * g] {
                let y = y as usize;
                if class_of[y] == u32::MAX {
                    class_of[y] = id;
                    stack.push(y);
                }
            }
        }
        classes.push(ConjugacyClass {
            index: classes.len() + 1,
            rep: group.element(start),
            size,
        });
    }
    classes
}

/// An element's images of the base cells, zero past the base.
type Key = [u8; MAX_BASE];

/// The most cells a [`Base`] holds.
const MAX_BASE: usize = 32;

/// Cells whose images tell the elements of a group apart (a base, in the sense of
/// permutation groups): an element is looked up by its images of these few cells instead of
/// all `side * side` (9 cells instead of 81 on a 9x9 grid: the classes of its 3,359,232
/// elements in a fraction of the time).
struct Base {
    cells: Vec<usize>,
}

impl Base {
    /// The first cells of the main diagonal, then the other cells row by row, taken until
    /// their images tell every element of `group` apart, with the elements by their keys
    /// (the index built to check it is the one the classes look elements up in).
    ///
    /// # Panics
    /// If [`MAX_BASE`] cells do not tell them apart (no grid group of side at most
    /// `MAX_ORBIT_SIDE` needs that many: the diagonal alone does for every one tested).
    fn of(group: &OrbitGroup) -> (Base, HashMap<Key, u32, RandomState>) {
        let side = group.side;
        let diagonal = (0..side).map(|i| i * side + i);
        let order: Vec<usize> = diagonal
            .chain((0..side * side).filter(|c| c % (side + 1) != 0))
            .collect();
        let mut take = side.min(MAX_BASE);
        loop {
            let base = Base {
                cells: order[..take].to_vec(),
            };
            let mut index: HashMap<Key, u32, RandomState> =
                HashMap::with_capacity_and_hasher(group.len(), RandomState::default());
            let apart = (0..group.len()).all(|k| {
                index
                    .insert(base.key(|b| group.images(k)[b]), k as u32)
                    .is_none()
            });
            if apart {
                return (base, index);
            }
            assert!(
                take < MAX_BASE.min(order.len()),
                "{MAX_BASE} cells do not tell the group's elements apart"
            );
            take = (take + 4).min(MAX_BASE).min(order.len());
        }
    }

    /// The key of the element whose image of cell `c` is `image(c)`.
    fn key(&self, image: impl Fn(usize) -> u8) -> Key {
        self.key_at(|i| image(self.cells[i]))
    }

    /// The key whose `i`-th byte is `at(i)`, for the base's `i`-th cell.
    fn key_at(&self, at: impl Fn(usize) -> u8) -> Key {
        let mut key = [0u8; MAX_BASE];
        for (i, k) in key.iter_mut().enumerate().take(self.cells.len()) {
            *k = at(i);
        }
        key
    }
}

/// Elements that generate `group`, as cell images: seeded random ones, each outside the
/// subgroup the earlier ones generate (a stabiliser chain tells, [`Chain`]), until that
/// subgroup's order is the group's. The elements' own closure over the listing did the same
/// in about 5 of the 9x9 orbit classes' 11 s.
fn generators(group: &OrbitGroup) -> Vec<&[u8]> {
    let n = group.len();
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let mut gens: Vec<&[u8]> = Vec::new();
    let mut chain = Chain::new(group.side * group.side);
    while chain.order() < n as u128 {
        let pick = loop {
            let k = rng.random_range(0..n);
            if !chain.contains(group.images(k)) {
                break k;
            }
        };
        gens.push(group.images(pick));
        chain.add(group.images(pick));
    }
    gens
}
