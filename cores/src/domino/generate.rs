//! The instance generator of seed 001 ("Description of Tests"): batches of random instances,
//! per 10 instances 4 easy (n 4..=6, 3..=6 tiles, k 2..=4), 4 medium (n 6..=9, 7..=12 tiles,
//! k 3..=6) and 2 hard (n 10..=14, 14..=24 tiles, k 4..=8), tile values uniform in 0..=k.
//!
//! Invariant: the output is a pure function of (seed, batches, per_batch): one ChaCha8 stream
//! seeded with `seed` drives every draw, in batch order, then instance order.

use super::{Difficulty, Instance};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::ops::RangeInclusive;

/// The parameter ranges of one difficulty (all inclusive).
#[derive(Debug, Clone)]
pub struct Params {
    pub n: RangeInclusive<u32>,
    pub tiles: RangeInclusive<usize>,
    pub k: RangeInclusive<u32>,
}

/// Seed 001's ranges for a difficulty.
pub fn params(difficulty: Difficulty) -> Params {
    match difficulty {
        Difficulty::Easy => Params {
            n: 4..=6,
            tiles: 3..=6,
            k: 2..=4,
        },
        Difficulty::Medium => Params {
            n: 6..=9,
            tiles: 7..=12,
            k: 3..=6,
        },
        Difficulty::Hard => Params {
            n: 10..=14,
            tiles: 14..=24,
            k: 4..=8,
        },
    }
}

/// How many easy, medium and hard instances a batch of `per_batch` holds: 4/10, 4/10 and the
/// rest, rounded to the nearest count (10 gives 4, 4, 2).
pub fn mix(per_batch: usize) -> [(Difficulty, usize); 3] {
    let easy = (per_batch * 4 + 5) / 10;
    let medium = ((per_batch * 4 + 5) / 10).min(per_batch - easy);
    let hard = per_batch - easy - medium;
    [
        (Difficulty::Easy, easy),
        (Difficulty::Medium, medium),
        (Difficulty::Hard, hard),
    ]
}

/// One random instance of the given difficulty.
pub fn random_instance(rng: &mut impl Rng, id: String, difficulty: Difficulty) -> Instance {
    let p = params(difficulty);
    let n = rng.random_range(p.n);
    let count = rng.random_range(p.tiles);
    let k = rng.random_range(p.k);
    let tiles = (0..count)
        .map(|_| {
            [
                rng.random_range(0..=k),
                rng.random_range(0..=k),
                rng.random_range(0..=k),
            ]
        })
        .collect();
    Instance {
        id,
        difficulty,
        n,
        k,
        tiles,
    }
}

/// `batches` batches of `per_batch` instances, ids like `b01-e1`, `b01-m3`, `b01-h2`.
pub fn generate(seed: u64, batches: usize, per_batch: usize) -> Vec<Vec<Instance>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (1..=batches)
        .map(|b| {
            let mut batch = Vec::with_capacity(per_batch);
            for (difficulty, count) in mix(per_batch) {
                let letter = match difficulty {
                    Difficulty::Easy => 'e',
                    Difficulty::Medium => 'm',
                    Difficulty::Hard => 'h',
                };
                for i in 1..=count {
                    let id = format!("b{b:02}-{letter}{i}");
                    batch.push(random_instance(&mut rng, id, difficulty));
                }
            }
            batch
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_instances_other_seed_other_instances() {
        assert_eq!(generate(7, 3, 10), generate(7, 3, 10));
        assert_ne!(generate(7, 3, 10), generate(8, 3, 10));
    }

    #[test]
    fn batch_of_ten_has_seed_001_mix_ids_and_ranges() {
        let batches = generate(1, 10, 10);
        assert_eq!(batches.len(), 10);
        let ids: Vec<&str> = batches[0].iter().map(|i| i.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "b01-e1", "b01-e2", "b01-e3", "b01-e4", "b01-m1", "b01-m2", "b01-m3", "b01-m4",
                "b01-h1", "b01-h2"
            ]
        );
        assert_eq!(batches[9][9].id, "b10-h2");
        for inst in batches.iter().flatten() {
            let p = params(inst.difficulty);
            assert!(p.n.contains(&inst.n), "{inst:?}");
            assert!(p.k.contains(&inst.k), "{inst:?}");
            assert!(p.tiles.contains(&inst.tiles.len()), "{inst:?}");
            assert!(inst.tiles.iter().flatten().all(|&v| v <= inst.k));
        }
    }

    #[test]
    fn mix_scales_with_batch_size() {
        let counts = |p| mix(p).map(|(_, c)| c);
        assert_eq!(counts(10), [4, 4, 2]);
        assert_eq!(counts(5), [2, 2, 1]);
        assert_eq!(counts(1), [0, 0, 1]);
        assert_eq!(counts(20), [8, 8, 4]);
        for p in 0..40 {
            assert_eq!(counts(p).iter().sum::<usize>(), p);
        }
    }

    #[test]
    fn generated_batches_round_trip_through_json_lines() {
        for batch in generate(3, 2, 10) {
            let text: String = batch
                .iter()
                .map(|i| super::super::instance::to_json_line(i) + "\n")
                .collect();
            assert_eq!(super::super::instance::parse_batch(&text).unwrap(), batch);
        }
    }
}
