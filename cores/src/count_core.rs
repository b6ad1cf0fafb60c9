//! The counting cores by name, for both families of specialised cores (Sudoku grid counting,
//! [`crate::grids`]; n queens, [`crate::queens`]) and the Dancing Links engine.
//!
//! [`CountCore`] names the core that counts a unit (the Dancing Links engine or a specialised
//! one); [`CoreSpec`] is the core a counting job asks its workers to use, and
//! [`CoreSpec::count_prefix`] the one call that runs a specialised core on a unit, returning
//! its [`Completions`]. Both cross the wire and the database, so they live here, in the crate
//! every other crate depends on.

use std::fmt;
use std::sync::atomic::AtomicBool;

use crate::grids::groups::{self, GroupsError};
use crate::grids::{completion, group_core, two_band};
use crate::grids::{count_completions, givens_from_prefix, CompletionError};
use crate::queens::{self, QueensError};
use crate::xcc::{OptionId, Problem};

/// What a specialised core's count of a unit measured: its completions, and the nodes of
/// its search (each core's own measure, given in its module doc; not comparable between
/// cores nor with the engine's nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Completions {
    pub solutions: u128,
    pub nodes: u64,
}

/// The core that counted a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CountCore {
    /// The Dancing Links engine (`crate::xcc`).
    #[default]
    Dlx,
    /// [`completion::count_completions`].
    SudokuBands,
    /// [`queens::count_queens`].
    Queens,
    /// [`group_core::GroupGrid::count`].
    SudokuGroups,
    /// [`crate::grids::orbits::class_term`]: the term of one conjugacy class of an orbit count
    /// (`crate::orbit_term::OrbitTerm::count`).
    SudokuOrbitTerm,
    /// [`two_band::band_fillings`]: a two-band count's configuration class
    /// (`grids::two_band::TwoBandClass`), whose count is `B(C)^2` (a part of `B(C)` for a class cut into parts).
    TwoBandClass,
    /// [`crate::grids::three_band::ThreeBandClass::count`]: a three-band count's
    /// configuration class of 9x9 grids, whose count is the grids with that top-band
    /// configuration.
    ThreeBandClass,
}

impl CountCore {
    pub fn as_str(self) -> &'static str {
        match self {
            CountCore::Dlx => "dlx",
            CountCore::SudokuBands => "sudoku-bands",
            CountCore::Queens => "queens",
            CountCore::SudokuGroups => "sudoku-groups",
            CountCore::SudokuOrbitTerm => "sudoku-orbit-term",
            CountCore::TwoBandClass => "two-band-class",
            CountCore::ThreeBandClass => "three-band-class",
        }
    }

    pub fn parse(s: &str) -> Option<CountCore> {
        Some(match s {
            "dlx" => CountCore::Dlx,
            "sudoku-bands" => CountCore::SudokuBands,
            "queens" => CountCore::Queens,
            "sudoku-groups" => CountCore::SudokuGroups,
            "sudoku-orbit-term" => CountCore::SudokuOrbitTerm,
            "two-band-class" => CountCore::TwoBandClass,
            "three-band-class" => CountCore::ThreeBandClass,
            _ => return None,
        })
    }
}

impl fmt::Display for CountCore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The core a counting job's units are counted with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CoreSpec {
    #[default]
    Dlx,
    /// Plain Sudoku completions with `box_rows x box_cols` boxes (no variants): the job's
    /// problem must be exactly [`crate::problems::sudoku::Sudoku`] of that shape.
    SudokuBands { box_rows: usize, box_cols: usize },
    /// n queens: the job's problem must be exactly [`crate::problems::queens::Queens`] of
    /// that size.
    Queens { n: usize },
    /// Sudoku grids with `box_rows x box_cols` boxes and any extra groups, which the core
    /// reads from the job's problem ([`groups::read_groups`]).
    SudokuGroups { box_rows: usize, box_cols: usize },
    /// An orbit count of the grids of a Sudoku with `box_rows x box_cols` boxes and any extra
    /// groups (read from the job's problem): each unit is the term of one conjugacy class
    /// (`crate::orbit_term::OrbitTerm`), counted whole; its prefix is the job's.
    SudokuOrbits { box_rows: usize, box_cols: usize },
    /// A two-band count of the plain Sudoku with `box_rows x box_cols` boxes, one of them 2
    /// (`grids::two_band`): each unit is a class of top-band configurations
    /// (`grids::two_band::TwoBandClass`), counted as `B(C)^2` or as a part of `B(C)`; its prefix is the job's.
    TwoBand { box_rows: usize, box_cols: usize },
    /// A three-band count of the plain 9x9 Sudoku (`grids::three_band`; the box shape is
    /// 3x3): each unit is a class of top-band configurations
    /// (`grids::three_band::ThreeBandClass`), counted whole; its prefix is the job's.
    ThreeBand { box_rows: usize, box_cols: usize },
}

/// Why a specialised core did not count a unit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoreError {
    #[error("the Dancing Links engine is no specialised core: run it through `xcc::Dlx`")]
    NotSpecialised,
    #[error(transparent)]
    Completion(#[from] CompletionError),
    #[error(transparent)]
    Queens(#[from] QueensError),
    #[error(transparent)]
    Groups(#[from] GroupsError),
    #[error("core {0} counts the classes its units carry, not prefixes")]
    NeedsTerm(&'static str),
}

impl CoreSpec {
    pub fn core(self) -> CountCore {
        match self {
            CoreSpec::Dlx => CountCore::Dlx,
            CoreSpec::SudokuBands { .. } => CountCore::SudokuBands,
            CoreSpec::Queens { .. } => CountCore::Queens,
            CoreSpec::SudokuGroups { .. } => CountCore::SudokuGroups,
            CoreSpec::SudokuOrbits { .. } => CountCore::SudokuOrbitTerm,
            CoreSpec::TwoBand { .. } => CountCore::TwoBandClass,
            CoreSpec::ThreeBand { .. } => CountCore::ThreeBandClass,
        }
    }

    /// `"dlx"` or `"sudoku-bands 3x3"` (the form [`CoreSpec::parse`] reads).
    pub fn text(self) -> String {
        match self {
            CoreSpec::Dlx => "dlx".to_string(),
            CoreSpec::SudokuBands { box_rows, box_cols } => {
                format!("sudoku-bands {box_rows}x{box_cols}")
            }
            CoreSpec::Queens { n } => format!("queens {n}"),
            CoreSpec::SudokuGroups { box_rows, box_cols } => {
                format!("sudoku-groups {box_rows}x{box_cols}")
            }
            CoreSpec::SudokuOrbits { box_rows, box_cols } => {
                format!("sudoku-orbits {box_rows}x{box_cols}")
            }
            CoreSpec::TwoBand { box_rows, box_cols } => {
                format!("two-band {box_rows}x{box_cols}")
            }
            CoreSpec::ThreeBand { box_rows, box_cols } => {
                format!("three-band {box_rows}x{box_cols}")
            }
        }
    }

    pub fn parse(s: &str) -> Option<CoreSpec> {
        let mut words = s.split_whitespace();
        let spec = match (words.next()?, words.next()) {
            ("dlx", None) => CoreSpec::Dlx,
            ("sudoku-bands", Some(shape)) => {
                let (r, c) = shape.split_once('x')?;
                CoreSpec::SudokuBands {
                    box_rows: r.parse().ok()?,
                    box_cols: c.parse().ok()?,
                }
            }
            ("queens", Some(n)) => CoreSpec::Queens { n: n.parse().ok()? },
            ("sudoku-groups", Some(shape)) => {
                let (r, c) = shape.split_once('x')?;
                CoreSpec::SudokuGroups {
                    box_rows: r.parse().ok()?,
                    box_cols: c.parse().ok()?,
                }
            }
            ("sudoku-orbits", Some(shape)) => {
                let (r, c) = shape.split_once('x')?;
                CoreSpec::SudokuOrbits {
                    box_rows: r.parse().ok()?,
                    box_cols: c.parse().ok()?,
                }
            }
            ("two-band", Some(shape)) => {
                let (r, c) = shape.split_once('x')?;
                CoreSpec::TwoBand {
                    box_rows: r.parse().ok()?,
                    box_cols: c.parse().ok()?,
                }
            }
            ("three-band", Some(shape)) => {
                let (r, c) = shape.split_once('x')?;
                CoreSpec::ThreeBand {
                    box_rows: r.parse().ok()?,
                    box_cols: c.parse().ok()?,
                }
            }
            _ => return None,
        };
        words.next().is_none().then_some(spec)
    }

    /// Whether this core can count `problem` exactly: always for DLX; for the Sudoku core only
    /// when `problem` is the plain Sudoku of its box shape (same items, same options).
    pub fn can_count(self, problem: &crate::xcc::Problem) -> bool {
        match self {
            CoreSpec::Dlx => true,
            CoreSpec::SudokuBands { box_rows, box_cols } => {
                if completion::check_shape(box_rows, box_cols).is_err() {
                    return false;
                }
                let config = crate::problems::sudoku::SudokuConfig::new(box_rows, box_cols);
                match crate::problems::sudoku::Sudoku::build(&config) {
                    Ok(s) => s.problem == *problem,
                    Err(_) => false,
                }
            }
            CoreSpec::Queens { n } => {
                n <= queens::MAX_N
                    && crate::problems::queens::Queens::build(n)
                        .is_ok_and(|q| q.problem == *problem)
            }
            CoreSpec::SudokuGroups { box_rows, box_cols }
            | CoreSpec::SudokuOrbits { box_rows, box_cols } => {
                groups::read_groups(box_rows, box_cols, problem).is_ok()
            }
            CoreSpec::TwoBand { box_rows, box_cols } => {
                two_band::band_rows(box_rows, box_cols).is_ok()
                    && CoreSpec::SudokuBands { box_rows, box_cols }.can_count(problem)
            }
            CoreSpec::ThreeBand { box_rows, box_cols } => {
                (box_rows, box_cols) == (3, 3)
                    && CoreSpec::SudokuBands { box_rows, box_cols }.can_count(problem)
            }
        }
    }

    /// The problem this core counts, for messages: "a plain 9x9 Sudoku", "the 8 queens
    /// problem".
    pub fn counts_what(self) -> String {
        match self {
            CoreSpec::Dlx => "any exact-cover problem".into(),
            CoreSpec::SudokuBands { box_rows, box_cols } => {
                let side = box_rows.saturating_mul(box_cols);
                format!("a plain {side}x{side} Sudoku")
            }
            CoreSpec::Queens { n } => format!("the {n} queens problem"),
            CoreSpec::SudokuGroups { box_rows, box_cols } => {
                let side = box_rows.saturating_mul(box_cols);
                format!("a {side}x{side} Sudoku ({box_rows}x{box_cols} boxes) with extra groups")
            }
            CoreSpec::SudokuOrbits { box_rows, box_cols } => {
                let side = box_rows.saturating_mul(box_cols);
                format!("a {side}x{side} Sudoku ({box_rows}x{box_cols} boxes), any extra groups")
            }
            CoreSpec::TwoBand { box_rows, box_cols } => {
                let side = box_rows.saturating_mul(box_cols);
                format!("a plain {side}x{side} Sudoku with {box_rows}x{box_cols} boxes, one side 2")
            }
            CoreSpec::ThreeBand { .. } => "a plain 9x9 Sudoku".into(),
        }
    }

    /// Whether the coordinator may split this core's jobs into subtrees by the Dancing Links
    /// partition (estimates, node budget). Units are prefixes of the job's options either way;
    /// the Sudoku band core's units are its weighted givens, counted whole.
    pub fn splits(self) -> bool {
        matches!(self, CoreSpec::Dlx | CoreSpec::Queens { .. })
    }

    /// Counts the completions of `prefix` (options of `problem`, which [`Self::can_count`]
    /// accepted) with this specialised core, whole: no budgets, nothing handed back.
    /// `Ok(None)` when `stop` ended the count (there is no partial result).
    pub fn count_prefix(
        self,
        problem: &Problem,
        prefix: &[OptionId],
        stop: &AtomicBool,
    ) -> Result<Option<Completions>, CoreError> {
        match self {
            CoreSpec::Dlx => Err(CoreError::NotSpecialised),
            CoreSpec::SudokuOrbits { .. } => Err(CoreError::NeedsTerm("sudoku-orbits")),
            CoreSpec::TwoBand { .. } => Err(CoreError::NeedsTerm("two-band")),
            CoreSpec::ThreeBand { .. } => Err(CoreError::NeedsTerm("three-band")),
            CoreSpec::SudokuBands { box_rows, box_cols } => {
                let givens = givens_from_prefix(box_rows, box_cols, prefix)?;
                Ok(count_completions(box_rows, box_cols, &givens, stop)?)
            }
            CoreSpec::Queens { n } => Ok(queens::count_queens(n, prefix, stop)?),
            CoreSpec::SudokuGroups { box_rows, box_cols } => {
                let groups = groups::read_groups(box_rows, box_cols, problem)?;
                let grid = group_core::GroupGrid::new(&groups)?;
                let givens = givens_from_prefix(box_rows, box_cols, prefix)?;
                Ok(grid.count(&givens, stop)?)
            }
        }
    }
}

impl fmt::Display for CoreSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::problems::sudoku::{Sudoku, SudokuConfig};
    use crate::xcc::Dlx;

    #[test]
    fn core_specs_round_trip_and_check_their_problem() {
        for spec in [
            CoreSpec::Dlx,
            CoreSpec::SudokuBands {
                box_rows: 3,
                box_cols: 3,
            },
        ] {
            assert_eq!(CoreSpec::parse(&spec.text()), Some(spec));
        }
        assert_eq!(CoreSpec::parse("sudoku-bands 3"), None);
        assert_eq!(CoreSpec::parse("dlx x"), None);
        let s6 = Sudoku::build(&SudokuConfig::new(2, 3)).unwrap();
        let core = CoreSpec::SudokuBands {
            box_rows: 2,
            box_cols: 3,
        };
        assert!(core.can_count(&s6.problem));
        assert!(!CoreSpec::SudokuBands {
            box_rows: 3,
            box_cols: 2
        }
        .can_count(&s6.problem));
        let mut diag = SudokuConfig::new(2, 3);
        diag.variants = vec![crate::problems::Variant::Diagonal];
        let d6 = Sudoku::build(&diag).unwrap();
        assert!(
            !core.can_count(&d6.problem),
            "a variant is not a plain grid"
        );
        assert!(CoreSpec::Dlx.can_count(&d6.problem));
    }

    /// The engine's count of n queens extending `prefix`.
    fn dlx_queens(n: usize, prefix: &[u32]) -> u128 {
        let q = crate::problems::queens::Queens::build(n).unwrap();
        let mut dlx = Dlx::new(&q.problem);
        dlx.apply_prefix(prefix).unwrap();
        dlx.count()
    }

    fn bit_queens(n: usize, prefix: &[u32]) -> u128 {
        let q = crate::problems::queens::Queens::build(n).unwrap();
        CoreSpec::Queens { n }
            .count_prefix(&q.problem, prefix, &AtomicBool::new(false))
            .unwrap()
            .unwrap()
            .solutions
    }

    #[test]
    fn the_queens_core_agrees_with_the_engine_on_every_unit_up_to_12() {
        for n in 1..=12usize {
            // Every first-row square, and for n <= 10 every pair of squares in rows 1 and 3
            // (a prefix need not be the top rows: the partitioner's units are not).
            for c in 0..n as u32 {
                assert_eq!(bit_queens(n, &[c]), dlx_queens(n, &[c]), "n {n}, [{c}]");
            }
            if (3..=10).contains(&n) {
                for a in 0..n {
                    for b in 0..n {
                        if a == b || a.abs_diff(b) == 2 {
                            continue;
                        }
                        let p = [a as u32, (2 * n + b) as u32];
                        assert_eq!(bit_queens(n, &p), dlx_queens(n, &p), "n {n}, {p:?}");
                    }
                }
            }
        }
        // And on units as the partitioner cuts them: the options of the MRV item, two levels
        // deep (any rows and columns), which together cover the whole tree.
        let q = crate::problems::queens::Queens::build(11).unwrap();
        let branch = |prefix: &[u32]| {
            let mut dlx = Dlx::new(&q.problem);
            dlx.apply_prefix(prefix).unwrap();
            match dlx.branching() {
                crate::xcc::Branching::Branch { options, .. } => options,
                _ => Vec::new(),
            }
        };
        let mut total = 0;
        let mut units = 0;
        for a in branch(&[]) {
            for b in branch(&[a]) {
                let prefix = [a, b];
                let d = dlx_queens(11, &prefix);
                assert_eq!(bit_queens(11, &prefix), d, "{prefix:?}");
                total += d;
                units += 1;
            }
        }
        assert!(units > 11, "{units} units");
        assert_eq!(total, 2680, "OEIS A000170: Q(11) = 2,680");
    }

    #[test]
    fn the_queens_core_agrees_with_the_engine_on_random_prefixes_beyond_12() {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        for n in [13usize, 14, 15] {
            for _ in 0..4 {
                // 4 (n = 13), 5 or 6 non-attacking queens in random rows.
                let want = n - 9;
                let mut placed: Vec<(usize, usize)> = Vec::new();
                while placed.len() < want {
                    let (r, c) = (rng.random_range(0..n), rng.random_range(0..n));
                    if placed
                        .iter()
                        .all(|&(pr, pc)| pr != r && pc != c && pr + pc != r + c && pr + c != r + pc)
                    {
                        placed.push((r, c));
                    }
                }
                let p: Vec<u32> = placed.iter().map(|&(r, c)| (r * n + c) as u32).collect();
                assert_eq!(bit_queens(n, &p), dlx_queens(n, &p), "n {n}, {placed:?}");
            }
        }
    }

    #[test]
    fn the_queens_core_counts_only_the_queens_problem_of_its_size() {
        let q8 = crate::problems::queens::Queens::build(8).unwrap();
        assert!(CoreSpec::Queens { n: 8 }.can_count(&q8.problem));
        assert!(!CoreSpec::Queens { n: 9 }.can_count(&q8.problem));
        let s4 = Sudoku::build(&SudokuConfig::new(2, 2)).unwrap();
        assert!(!CoreSpec::Queens { n: 4 }.can_count(&s4.problem));
        assert_eq!(
            CoreSpec::parse("queens 20"),
            Some(CoreSpec::Queens { n: 20 })
        );
        assert_eq!(CoreSpec::Queens { n: 20 }.text(), "queens 20");
        assert_eq!(CountCore::parse("queens"), Some(CountCore::Queens));
        assert!(
            CoreSpec::Queens { n: 8 }.splits()
                && !CoreSpec::SudokuBands {
                    box_rows: 2,
                    box_cols: 2
                }
                .splits()
        );
    }
}
