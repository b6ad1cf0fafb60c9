//! The conjugacy classes of a listed symmetry group, computed (never tabled): a generating
//! set first (seeded random elements until the subgroup they generate, closed by search
//! over the listed elements, is the whole group), then each class as the orbit of an
//! element under conjugation by the generators.

use std::collections::HashMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
    let index: HashMap<&[u8], u32> = (0..n).map(|k| (group.images(k), k as u32)).collect();
    let gens = generators(group, &index);
    let mut class_of = vec![u32::MAX; n];
    let mut classes = Vec::new();
    let mut conj = vec![0u8; group.side * group.side];
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
            let e = group.images(x);
            for h in &gens {
                // h e h^-1 sends h(c) to h(e(c)).
                for (c, &ec) in e.iter().enumerate() {
                    conj[usize::from(h[c])] = h[usize::from(ec)];
                }
                let y = index[conj.as_slice()] as usize;
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

/// Elements that generate `group`, as cell images: seeded random ones, each outside the
/// subgroup the earlier ones generate, until that subgroup is the group.
fn generators<'a>(group: &'a OrbitGroup, index: &HashMap<&[u8], u32>) -> Vec<&'a [u8]> {
    let n = group.len();
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let mut gens: Vec<&[u8]> = Vec::new();
    let mut inside = vec![false; n];
    inside[0] = true;
    let mut members = vec![0usize];
    let mut product = vec![0u8; group.side * group.side];
    while members.len() < n {
        let pick = loop {
            let k = rng.random_range(0..n);
            if !inside[k] {
                break k;
            }
        };
        gens.push(group.images(pick));
        // The subgroup is closed under products with its generators: close it again.
        let mut k = 0;
        while k < members.len() {
            let e = group.images(members[k]);
            for h in &gens {
                for (p, &ec) in product.iter_mut().zip(e) {
                    *p = h[usize::from(ec)];
                }
                let y = index[product.as_slice()] as usize;
                if !inside[y] {
                    inside[y] = true;
                    members.push(y);
                }
            }
            k += 1;
        }
    }
    gens
}
