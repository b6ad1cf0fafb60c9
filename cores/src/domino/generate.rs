//! The instance generator of seed 001 ("Description of Tests"): batches of random instances,
//! per 10 instances 4 easy (n 4..=6, 3..=6 tiles, k 2..=4), 4 medium (n 6..=9, 7..=12 tiles,
//! k 3..=6) and 2 hard (n 10..=14, 14..=24 tiles, k 4..=8), tile values uniform in 0..=k.
//! Beside them the tight instances that seed 001's "Further Considerations" (Figure 9) calls
//! "significantly more complex problem instances", with many tiles: n 7..=14, k 3..=8, and the
//! number of tiles m drawn after n so that the tiles' 3m cells are 0.9 to 1.2 times the
//! board's n^2 (m in ceil(0.3 n^2)..=floor(0.4 n^2)), so that about as many tiles are left
//! over as there are cells left empty. [`GenerateOptions`] chooses a batch's [`Mix`] of
//! difficulties and may override the ranges of n, the number of tiles and k for every
//! instance; its default is seed 001's mix and ranges.
//!
//! Invariant: the output is a pure function of (seed, batches, per_batch, options): one ChaCha8
//! stream seeded with `seed` drives every draw, in batch order, then instance order, each
//! instance drawing n, then its number of tiles, then k, then the tiles' values. With the
//! default options the draws are exactly those of the generator before it had options (pinned
//! by a test), so the suites generated with it stay reproducible.

use super::{Difficulty, Instance, MAX_N};
use crate::label::Label;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// The most tiles an instance may be drawn with: as many as the largest board has cells.
pub const MAX_TILES: usize = (MAX_N * MAX_N) as usize;

/// The parameter ranges of one difficulty (all inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    pub n: RangeInclusive<u32>,
    pub tiles: Tiles,
    pub k: RangeInclusive<u32>,
}

/// How a difficulty's number of tiles is drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tiles {
    /// From a range of its own.
    Range(RangeInclusive<usize>),
    /// From [`tight_tiles`] of the board drawn just before.
    Tight,
}

impl Tiles {
    /// The range the number of tiles is drawn from on an n x n board.
    pub fn on_board(&self, n: u32) -> RangeInclusive<usize> {
        match self {
            Tiles::Range(r) => r.clone(),
            Tiles::Tight => tight_tiles(n),
        }
    }
}

/// The numbers of tiles m whose 3m cells lie between 0.9 and 1.2 times an n x n board's n^2
/// cells: ceil(0.3 n^2)..=floor(0.4 n^2), never empty from n = 3 on (e.g. 15..=19 on 7 x 7,
/// 59..=78 on 14 x 14).
pub fn tight_tiles(n: u32) -> RangeInclusive<usize> {
    let cells = n as usize * n as usize;
    (3 * cells).div_ceil(10)..=4 * cells / 10
}

/// The ranges of a difficulty: seed 001's for easy, medium and hard; tight's from its
/// "Further Considerations".
pub fn params(difficulty: Difficulty) -> Params {
    match difficulty {
        Difficulty::Easy => Params {
            n: 4..=6,
            tiles: Tiles::Range(3..=6),
            k: 2..=4,
        },
        Difficulty::Medium => Params {
            n: 6..=9,
            tiles: Tiles::Range(7..=12),
            k: 3..=6,
        },
        Difficulty::Hard => Params {
            n: 10..=14,
            tiles: Tiles::Range(14..=24),
            k: 4..=8,
        },
        Difficulty::Tight => Params {
            n: 7..=14,
            tiles: Tiles::Tight,
            k: 3..=8,
        },
    }
}

/// The difficulties of a batch with their weights, in batch order. Written
/// `easy:4,medium:4,hard:2` (seed 001's, the default); a difficulty without a weight weighs 1,
/// so `tight` is a batch of tight instances only. Always at least one difficulty, each at most
/// once, every weight at least 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mix(Vec<(Difficulty, u32)>);

impl Mix {
    /// Seed 001's mix: 4 easy, 4 medium, 2 hard.
    pub fn seed_001() -> Mix {
        Mix(vec![
            (Difficulty::Easy, 4),
            (Difficulty::Medium, 4),
            (Difficulty::Hard, 2),
        ])
    }

    /// A batch of one difficulty only.
    pub fn only(difficulty: Difficulty) -> Mix {
        Mix(vec![(difficulty, 1)])
    }

    /// The difficulties and their weights, in batch order.
    pub fn parts(&self) -> &[(Difficulty, u32)] {
        &self.0
    }

    /// How many instances of each difficulty a batch of `per_batch` holds, in batch order:
    /// each but the last its share of `per_batch` rounded half up (no more than are left), the
    /// last the rest. Seed 001's 4:4:2 gives 4, 4, 2 of 10, 2, 2, 1 of 5 and 0, 0, 1 of 1.
    pub fn counts(&self, per_batch: usize) -> Vec<(Difficulty, usize)> {
        let total: u128 = self.0.iter().map(|&(_, w)| u128::from(w)).sum();
        let mut left = per_batch;
        let last = self.0.len() - 1;
        let mut out = Vec::with_capacity(self.0.len());
        for (i, &(difficulty, weight)) in self.0.iter().enumerate() {
            let count = if i == last {
                left
            } else {
                let share = (per_batch as u128 * u128::from(weight) * 2 + total) / (2 * total);
                usize::try_from(share).unwrap_or(usize::MAX).min(left)
            };
            left -= count;
            out.push((difficulty, count));
        }
        out
    }
}

impl Default for Mix {
    fn default() -> Mix {
        Mix::seed_001()
    }
}

impl fmt::Display for Mix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (difficulty, weight)) in self.0.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            write!(f, "{sep}{}:{weight}", difficulty.as_str())?;
        }
        Ok(())
    }
}

impl FromStr for Mix {
    type Err = OptionProblem;

    fn from_str(text: &str) -> Result<Mix, OptionProblem> {
        let mut parts: Vec<(Difficulty, u32)> = Vec::new();
        for part in text.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(OptionProblem::EmptyMixPart);
            }
            let (name, weight) = match part.split_once(':') {
                Some((name, weight)) => (name.trim(), Some(weight.trim())),
                None => (part, None),
            };
            let difficulty = Difficulty::parse(name)
                .ok_or_else(|| OptionProblem::UnknownDifficulty(name.to_owned()))?;
            if parts.iter().any(|&(d, _)| d == difficulty) {
                return Err(OptionProblem::DuplicateDifficulty(name.to_owned()));
            }
            let weight = match weight {
                None => 1,
                Some(w) => {
                    let w = number(w)?;
                    if w == 0 {
                        return Err(OptionProblem::ZeroWeight(name.to_owned()));
                    }
                    u32::try_from(w).map_err(|_| OptionProblem::TooLarge {
                        value: w.to_string(),
                        max: u32::MAX.into(),
                    })?
                }
            };
            parts.push((difficulty, weight));
        }
        Ok(Mix(parts))
    }
}

/// What the generator draws: the mix of each batch and, for every instance whatever its
/// difficulty, ranges of n, of the number of tiles and of k that replace the difficulty's
/// (`None` keeps it). The default is the generator of seed 001, draw for draw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenerateOptions {
    pub mix: Mix,
    pub n: Option<RangeInclusive<u32>>,
    pub tiles: Option<RangeInclusive<usize>>,
    pub k: Option<RangeInclusive<u32>>,
}

/// An option of the generator, named as `dancehall domino generate` names it (without `--`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenerateOption {
    Mix,
    N,
    Tiles,
    K,
}

impl fmt::Display for GenerateOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GenerateOption::Mix => "mix",
            GenerateOption::N => "n",
            GenerateOption::Tiles => "tiles",
            GenerateOption::K => "k",
        })
    }
}

/// A generator option that cannot be read or drawn from: which option, its text, what is
/// wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{option} `{text}`: {problem}")]
pub struct OptionError {
    pub option: GenerateOption,
    pub text: String,
    pub problem: OptionProblem,
}

/// What is wrong with a generator option.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionProblem {
    #[error("expected a range `A..=B` or `A-B`, or a single number")]
    RangeSyntax,
    #[error("`{0}` is not a non-negative whole number")]
    NotANumber(String),
    #[error("the range is empty ({first} is above {last})")]
    EmptyRange { first: u64, last: u64 },
    #[error("{value} is below {min}, the smallest allowed{why}")]
    TooSmall {
        value: u64,
        min: u64,
        why: &'static str,
    },
    #[error("{value} is above {max}, the largest allowed")]
    TooLarge { value: String, max: u64 },
    #[error("unknown difficulty `{0}` (known: easy, medium, hard, tight)")]
    UnknownDifficulty(String),
    #[error("difficulty `{0}` given twice")]
    DuplicateDifficulty(String),
    #[error("the weight of `{0}` must be at least 1 (leave the difficulty out instead)")]
    ZeroWeight(String),
    #[error(
        "expected difficulties with optional weights, e.g. `tight` or `easy:4,medium:4,hard:2`"
    )]
    EmptyMixPart,
}

/// A whole number of an option's text: digits only.
fn number(text: &str) -> Result<u64, OptionProblem> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(OptionProblem::NotANumber(text.to_owned()));
    }
    text.parse().map_err(|_| OptionProblem::TooLarge {
        value: text.to_owned(),
        max: u64::MAX,
    })
}

/// Reads `A..=B`, `A-B` or `A` (meaning `A..=A`), spaces allowed around the numbers; refuses
/// an empty range and bounds outside `min..=max`.
fn parse_range(
    text: &str,
    min: u64,
    max: u64,
    why: &'static str,
) -> Result<RangeInclusive<u64>, OptionProblem> {
    let text = text.trim();
    let (first, last) = if let Some((a, b)) = text.split_once("..=") {
        (a, b)
    } else if text.contains("..") {
        return Err(OptionProblem::RangeSyntax);
    } else if let Some((a, b)) = text.split_once('-') {
        (a, b)
    } else {
        (text, text)
    };
    let (first, last) = (first.trim(), last.trim());
    if first.is_empty() || last.is_empty() {
        return Err(OptionProblem::RangeSyntax);
    }
    let (first, last) = (number(first)?, number(last)?);
    check_range(first, last, min, max, why)?;
    Ok(first..=last)
}

fn check_range(
    first: u64,
    last: u64,
    min: u64,
    max: u64,
    why: &'static str,
) -> Result<(), OptionProblem> {
    if first > last {
        return Err(OptionProblem::EmptyRange { first, last });
    }
    if first < min {
        return Err(OptionProblem::TooSmall {
            value: first,
            min,
            why,
        });
    }
    if last > max {
        return Err(OptionProblem::TooLarge {
            value: last.to_string(),
            max,
        });
    }
    Ok(())
}

/// The bounds of each range option: (smallest, largest, why the smallest).
fn bounds(option: GenerateOption) -> (u64, u64, &'static str) {
    match option {
        GenerateOption::N => (3, MAX_N.into(), " (a tile covers three cells in a row)"),
        GenerateOption::Tiles => (1, MAX_TILES as u64, " (an instance has a tile)"),
        GenerateOption::K => (0, u32::MAX.into(), ""),
        GenerateOption::Mix => (0, 0, ""),
    }
}

/// Puts a problem in its option.
fn in_option(option: GenerateOption, text: &str) -> impl FnOnce(OptionProblem) -> OptionError + '_ {
    move |problem| OptionError {
        option,
        text: text.to_owned(),
        problem,
    }
}

impl GenerateOptions {
    /// Reads the options' texts (`None` keeps the default): the mix as [`Mix`] writes it, each
    /// range as `A..=B`, `A-B` or a single number. Refuses what [`GenerateOptions::check`]
    /// refuses.
    pub fn parse(
        mix: Option<&str>,
        n: Option<&str>,
        tiles: Option<&str>,
        k: Option<&str>,
    ) -> Result<GenerateOptions, OptionError> {
        let range = |option, text: &str| {
            let (min, max, why) = bounds(option);
            parse_range(text, min, max, why).map_err(in_option(option, text))
        };
        let mut out = GenerateOptions::default();
        if let Some(text) = mix {
            out.mix = text.parse().map_err(in_option(GenerateOption::Mix, text))?;
        }
        // The bounds fit the types: n <= MAX_N, tiles <= MAX_TILES, k <= u32::MAX.
        if let Some(text) = n {
            let r = range(GenerateOption::N, text)?;
            out.n = Some(*r.start() as u32..=*r.end() as u32);
        }
        if let Some(text) = tiles {
            let r = range(GenerateOption::Tiles, text)?;
            out.tiles = Some(*r.start() as usize..=*r.end() as usize);
        }
        if let Some(text) = k {
            let r = range(GenerateOption::K, text)?;
            out.k = Some(*r.start() as u32..=*r.end() as u32);
        }
        Ok(out)
    }

    /// Whether every instance can be drawn: each range given non-empty and within its bounds
    /// (n in 3..=MAX_N, tiles in 1..=MAX_TILES).
    pub fn check(&self) -> Result<(), OptionError> {
        let check = |option, r: Option<(u64, u64)>| {
            let Some((first, last)) = r else {
                return Ok(());
            };
            let (min, max, why) = bounds(option);
            check_range(first, last, min, max, why).map_err(|problem| OptionError {
                option,
                text: format!("{first}..={last}"),
                problem,
            })
        };
        let wide = |r: &RangeInclusive<u32>| (u64::from(*r.start()), u64::from(*r.end()));
        check(GenerateOption::N, self.n.as_ref().map(wide))?;
        check(
            GenerateOption::Tiles,
            self.tiles
                .as_ref()
                .map(|r| (*r.start() as u64, *r.end() as u64)),
        )?;
        check(GenerateOption::K, self.k.as_ref().map(wide))
    }

    /// The ranges an instance of `difficulty` is drawn from under these options.
    pub fn params(&self, difficulty: Difficulty) -> Params {
        let p = params(difficulty);
        Params {
            n: self.n.clone().unwrap_or(p.n),
            tiles: self.tiles.clone().map_or(p.tiles, Tiles::Range),
            k: self.k.clone().unwrap_or(p.k),
        }
    }
}

/// One random instance of `difficulty` drawn from `p` (whose ranges are not empty).
fn random_instance(rng: &mut impl Rng, id: String, difficulty: Difficulty, p: Params) -> Instance {
    let n = rng.random_range(p.n);
    let count = rng.random_range(p.tiles.on_board(n));
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

/// `batches` batches of `per_batch` instances of seed 001's mix and ranges, ids like `b01-e1`,
/// `b01-m3`, `b01-h2`.
pub fn generate(seed: u64, batches: usize, per_batch: usize) -> Vec<Vec<Instance>> {
    draw(seed, batches, per_batch, &GenerateOptions::default())
}

/// `batches` batches of `per_batch` instances drawn as `options` say, ids like `b01-e1` (the
/// batch, the difficulty's letter, the instance's number among its difficulty in the batch:
/// `b02-t7`). Options that cannot be drawn from are refused.
pub fn generate_with(
    seed: u64,
    batches: usize,
    per_batch: usize,
    options: &GenerateOptions,
) -> Result<Vec<Vec<Instance>>, OptionError> {
    options.check()?;
    Ok(draw(seed, batches, per_batch, options))
}

/// The generator on checked options.
fn draw(
    seed: u64,
    batches: usize,
    per_batch: usize,
    options: &GenerateOptions,
) -> Vec<Vec<Instance>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let counts = options.mix.counts(per_batch);
    (1..=batches)
        .map(|b| {
            let mut batch = Vec::with_capacity(per_batch);
            for &(difficulty, count) in &counts {
                for i in 1..=count {
                    let id = format!("b{b:02}-{}{i}", difficulty.letter());
                    let p = options.params(difficulty);
                    batch.push(random_instance(&mut rng, id, difficulty, p));
                }
            }
            batch
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domino::to_json_line;

    /// The (id, n, tiles, k) of each instance.
    fn shape(batches: &[Vec<Instance>]) -> Vec<(String, u32, usize, u32)> {
        batches
            .iter()
            .flatten()
            .map(|i| (i.id.clone(), i.n, i.tiles.len(), i.k))
            .collect()
    }

    fn options(
        mix: &str,
        n: Option<&str>,
        tiles: Option<&str>,
        k: Option<&str>,
    ) -> GenerateOptions {
        GenerateOptions::parse(Some(mix), n, tiles, k).unwrap()
    }

    #[test]
    fn same_seed_same_instances_other_seed_other_instances() {
        assert_eq!(generate(7, 3, 10), generate(7, 3, 10));
        assert_ne!(generate(7, 3, 10), generate(8, 3, 10));
        let tight = options("tight", None, None, None);
        let a = generate_with(7, 3, 10, &tight).unwrap();
        assert_eq!(a, generate_with(7, 3, 10, &tight).unwrap());
        assert_ne!(a, generate_with(8, 3, 10, &tight).unwrap());
        let wide = options("easy,tight:3", Some("8-12"), Some("20..=30"), Some("5"));
        let b = generate_with(7, 3, 10, &wide).unwrap();
        assert_eq!(b, generate_with(7, 3, 10, &wide).unwrap());
        assert_ne!(b, generate_with(8, 3, 10, &wide).unwrap());
    }

    /// Regression pin: the instances the generator drew for seed 1 (two batches of 10) before
    /// it had options, so that every suite generated before stays reproducible.
    #[test]
    fn default_options_draw_what_the_generator_drew_before_options() {
        let before = [
            ("b01-e1", 5, 4, 4),
            ("b01-e2", 4, 3, 4),
            ("b01-e3", 4, 4, 3),
            ("b01-e4", 4, 4, 2),
            ("b01-m1", 6, 7, 3),
            ("b01-m2", 9, 12, 5),
            ("b01-m3", 9, 10, 6),
            ("b01-m4", 7, 12, 4),
            ("b01-h1", 13, 22, 8),
            ("b01-h2", 14, 23, 7),
            ("b02-e1", 6, 6, 3),
            ("b02-e2", 6, 5, 3),
            ("b02-e3", 4, 5, 3),
            ("b02-e4", 6, 3, 3),
            ("b02-m1", 6, 11, 3),
            ("b02-m2", 9, 12, 3),
            ("b02-m3", 6, 12, 4),
            ("b02-m4", 9, 9, 3),
            ("b02-h1", 10, 21, 8),
            ("b02-h2", 13, 16, 5),
        ]
        .map(|(id, n, m, k)| (id.to_owned(), n, m, k));
        let old = generate(1, 2, 10);
        assert_eq!(shape(&old), before);
        assert_eq!(
            to_json_line(&old[0][0]),
            r#"{"id":"b01-e1","difficulty":"easy","n":5,"k":4,"tiles":[[0,1,2],[1,1,4],[1,4,3],[2,2,3]]}"#
        );
        assert_eq!(
            to_json_line(&old[0][9]),
            r#"{"id":"b01-h2","difficulty":"hard","n":14,"k":7,"tiles":[[3,1,1],[6,0,6],[5,3,3],[7,0,6],[6,4,1],[7,3,6],[3,7,2],[4,2,4],[6,7,6],[4,6,4],[6,6,4],[4,5,2],[3,4,2],[6,6,5],[7,6,4],[2,0,5],[4,1,3],[5,4,4],[6,6,0],[2,0,0],[3,1,1],[5,2,0],[3,3,2]]}"#
        );
        let written = options("easy:4,medium:4,hard:2", None, None, None);
        assert_eq!(written, GenerateOptions::default());
        assert_eq!(generate_with(1, 2, 10, &written).unwrap(), old);
        let none = GenerateOptions::parse(None, None, None, None).unwrap();
        assert_eq!(generate_with(1, 2, 10, &none).unwrap(), old);
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
            assert!(
                p.tiles.on_board(inst.n).contains(&inst.tiles.len()),
                "{inst:?}"
            );
            assert!(inst.tiles.iter().flatten().all(|&v| v <= inst.k));
        }
    }

    #[test]
    fn tight_instances_cover_0_9_to_1_2_of_their_board() {
        assert_eq!(tight_tiles(7), 15..=19);
        assert_eq!(tight_tiles(10), 30..=40);
        assert_eq!(tight_tiles(14), 59..=78);
        for n in 3..=MAX_N {
            let r = tight_tiles(n);
            let cells = (n * n) as usize;
            assert!(!r.is_empty(), "n = {n}");
            // 3m in 0.9 n^2..=1.2 n^2, and the range is the widest such.
            assert!(30 * r.start() >= 9 * cells && 30 * (r.start() - 1) < 9 * cells);
            assert!(30 * r.end() <= 12 * cells && 30 * (r.end() + 1) > 12 * cells);
        }
        let batches = generate_with(3, 5, 10, &options("tight:10", None, None, None)).unwrap();
        let (mut sides, mut ks) = (Vec::new(), Vec::new());
        for (b, batch) in batches.iter().enumerate() {
            assert_eq!(batch.len(), 10);
            for (i, inst) in batch.iter().enumerate() {
                assert_eq!(inst.id, format!("b{:02}-t{}", b + 1, i + 1));
                assert_eq!(inst.difficulty, Difficulty::Tight);
                assert!((7..=14).contains(&inst.n), "{inst:?}");
                assert!((3..=8).contains(&inst.k), "{inst:?}");
                let cells = 3.0 * inst.tiles.len() as f64 / f64::from(inst.n * inst.n);
                assert!((0.9..=1.2).contains(&cells), "{inst:?}: {cells}");
                assert!(inst.tiles.iter().flatten().all(|&v| v <= inst.k));
                sides.push(inst.n);
                ks.push(inst.k);
            }
        }
        // 50 draws reach both ends of n's and k's ranges.
        assert_eq!(
            (sides.iter().min(), sides.iter().max()),
            (Some(&7), Some(&14))
        );
        assert_eq!((ks.iter().min(), ks.iter().max()), (Some(&3), Some(&8)));
        // A tight batch with its board side overridden draws its tiles on that board.
        let small = generate_with(3, 2, 10, &options("tight", Some("5"), None, None)).unwrap();
        for inst in small.iter().flatten() {
            assert_eq!(inst.n, 5);
            assert!((8..=10).contains(&inst.tiles.len()), "{inst:?}");
        }
    }

    #[test]
    fn overrides_replace_the_ranges_of_every_difficulty() {
        let o = options(
            "easy:1,medium:1,hard:1,tight:1",
            Some("8..=12"),
            Some("20-25"),
            Some("2"),
        );
        let batches = generate_with(9, 4, 8, &o).unwrap();
        let mut seen = std::collections::HashSet::new();
        for inst in batches.iter().flatten() {
            assert!((8..=12).contains(&inst.n), "{inst:?}");
            assert!((20..=25).contains(&inst.tiles.len()), "{inst:?}");
            assert_eq!(inst.k, 2, "{inst:?}");
            assert!(inst.tiles.iter().flatten().all(|&v| v <= 2));
            seen.insert(inst.difficulty);
        }
        assert_eq!(seen.len(), 4);
        // Only what is overridden changes: k alone leaves n and the tile count in range.
        let k_only = generate_with(9, 2, 10, &options("tight", None, None, Some("10-12"))).unwrap();
        for inst in k_only.iter().flatten() {
            assert!((10..=12).contains(&inst.k), "{inst:?}");
            assert!((7..=14).contains(&inst.n), "{inst:?}");
            assert!(tight_tiles(inst.n).contains(&inst.tiles.len()), "{inst:?}");
        }
    }

    #[test]
    fn mix_counts_scale_with_batch_size() {
        let counts = |mix: &Mix, p| -> Vec<usize> { mix.counts(p).iter().map(|c| c.1).collect() };
        let seed = Mix::seed_001();
        assert_eq!(counts(&seed, 10), [4, 4, 2]);
        assert_eq!(counts(&seed, 5), [2, 2, 1]);
        assert_eq!(counts(&seed, 1), [0, 0, 1]);
        assert_eq!(counts(&seed, 20), [8, 8, 4]);
        let tight: Mix = "tight".parse().unwrap();
        assert_eq!(tight, Mix::only(Difficulty::Tight));
        assert_eq!(tight.counts(7), [(Difficulty::Tight, 7)]);
        let even: Mix = "tight:1, easy:1".parse().unwrap();
        assert_eq!(
            even.counts(3),
            [(Difficulty::Tight, 2), (Difficulty::Easy, 1)]
        );
        let huge: Mix = "easy:4294967295,hard:4294967295".parse().unwrap();
        assert_eq!(counts(&huge, 10), [5, 5]);
        for mix in [
            seed,
            tight,
            even,
            huge,
            "hard:3,tight:1,medium:2".parse().unwrap(),
        ] {
            for p in 0..40 {
                assert_eq!(counts(&mix, p).iter().sum::<usize>(), p, "{mix} {p}");
            }
            assert_eq!(mix.to_string().parse::<Mix>().unwrap(), mix);
        }
        assert_eq!(Mix::default().to_string(), "easy:4,medium:4,hard:2");
    }

    #[test]
    fn bad_options_are_refused_naming_the_option_and_the_problem() {
        use GenerateOption as O;
        use OptionProblem as P;
        let refused = |mix: Option<&str>, n: Option<&str>, tiles: Option<&str>, k: Option<&str>| {
            GenerateOptions::parse(mix, n, tiles, k).expect_err("should be refused")
        };
        let cases = [
            (
                refused(Some("tricky"), None, None, None),
                O::Mix,
                P::UnknownDifficulty("tricky".into()),
            ),
            (
                refused(Some("easy,easy:2"), None, None, None),
                O::Mix,
                P::DuplicateDifficulty("easy".into()),
            ),
            (
                refused(Some("tight:0"), None, None, None),
                O::Mix,
                P::ZeroWeight("tight".into()),
            ),
            (
                refused(Some("tight:x"), None, None, None),
                O::Mix,
                P::NotANumber("x".into()),
            ),
            (refused(Some(""), None, None, None), O::Mix, P::EmptyMixPart),
            (
                refused(Some("easy,"), None, None, None),
                O::Mix,
                P::EmptyMixPart,
            ),
            (
                refused(None, Some("12-8"), None, None),
                O::N,
                P::EmptyRange { first: 12, last: 8 },
            ),
            (
                refused(None, Some("2..=5"), None, None),
                O::N,
                P::TooSmall {
                    value: 2,
                    min: 3,
                    why: " (a tile covers three cells in a row)",
                },
            ),
            (
                refused(None, Some("65"), None, None),
                O::N,
                P::TooLarge {
                    value: "65".into(),
                    max: 64,
                },
            ),
            (
                refused(None, Some("8..12"), None, None),
                O::N,
                P::RangeSyntax,
            ),
            (refused(None, Some("-3"), None, None), O::N, P::RangeSyntax),
            (
                refused(None, Some("3..="), None, None),
                O::N,
                P::RangeSyntax,
            ),
            (
                refused(None, None, Some("0"), None),
                O::Tiles,
                P::TooSmall {
                    value: 0,
                    min: 1,
                    why: " (an instance has a tile)",
                },
            ),
            (
                refused(None, None, Some("10-5000"), None),
                O::Tiles,
                P::TooLarge {
                    value: "5000".into(),
                    max: MAX_TILES as u64,
                },
            ),
            (
                refused(None, None, None, Some("4294967296")),
                O::K,
                P::TooLarge {
                    value: "4294967296".into(),
                    max: u32::MAX.into(),
                },
            ),
            (
                refused(None, None, None, Some("three")),
                O::K,
                P::NotANumber("three".into()),
            ),
        ];
        for (error, option, problem) in cases {
            assert_eq!(
                (error.option, &error.problem),
                (option, &problem),
                "{error}"
            );
        }
        let e = refused(None, Some(" 12-8 "), None, None);
        assert_eq!(
            e.to_string(),
            "n ` 12-8 `: the range is empty (12 is above 8)"
        );
        // Options built as values are checked before anything is drawn.
        for bad in [
            GenerateOptions {
                n: Some(2..=5),
                ..GenerateOptions::default()
            },
            GenerateOptions {
                tiles: Some(0..=0),
                ..GenerateOptions::default()
            },
            GenerateOptions {
                k: Some(RangeInclusive::new(5, 4)),
                ..GenerateOptions::default()
            },
        ] {
            assert!(generate_with(1, 1, 10, &bad).is_err(), "{bad:?}");
        }
        // A single number and spaces are fine.
        let o = options(" tight ", Some(" 9 "), Some("30 ..= 31"), Some("0"));
        assert_eq!(
            (o.n, o.tiles, o.k),
            (Some(9..=9), Some(30..=31), Some(0..=0))
        );
    }

    #[test]
    fn generated_batches_round_trip_through_json_lines() {
        let tight = options("easy,tight", None, None, None);
        for batch in generate(3, 2, 10)
            .into_iter()
            .chain(generate_with(3, 2, 10, &tight).unwrap())
        {
            let text: String = batch.iter().map(|i| to_json_line(i) + "\n").collect();
            assert_eq!(super::super::instance::parse_batch(&text).unwrap(), batch);
        }
    }
}
