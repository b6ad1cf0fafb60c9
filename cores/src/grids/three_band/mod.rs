//! The three-band counter of 9x9 Sudoku grids: every grid counted from band configurations,
//! with no search through the grid.
//!
//! A band's *configuration* is the digit set of each of its nine columns. The grids whose
//! top band has configuration `C1` are `B(C1) * F(C1)`: `B(C)` fillings of a band with
//! configuration `C` ([`fill::band_fillings`]), and `F(C1)` the ways to fill the two bands
//! below, which depend on the top band only through `C1` (its rows and boxes constrain
//! nothing below it): the middle band takes any configuration `C2` whose columns avoid
//! `C1`'s (56 ways per stack, 56^3 in all), the bottom band then holds the rest of each column
//! (`C3`, itself a configuration), and the two fill independently:
//! `F(C1) = sum over C2 of B(C2) * B(C3)`. So
//! `N = sum over classes of C1 of |class| * B(C1) * F(C1)`, over the 44 classes of
//! configurations under relabelling, column permutations inside a stack and stack
//! permutations ([`classes`]), the column-set classes of Felgenhauer and Jarvis
//! ("Mathematics of Sudoku I", 2006), whose route counts each class's completions by
//! search instead. This is the configuration route K. F. Pettersen described on the
//! enjoysudoku forum ("Su-Doku's maths", 2005) for the band counts of the two-band counter,
//! carried to three bands.
//!
//! [`ThreeBandClass`] is the one typed record of such a unit (class index, configuration as
//! text, class size): the spec reader makes it, the wire and the store carry it as JSON, the
//! worker counts it ([`ThreeBandClass::count`]: the grids whose top band has the class's
//! representative configuration).

pub mod classes;
pub mod fill;

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

pub use classes::{band_classes, canonical_types, BandClass};
pub use fill::band_fillings;

/// Why a three-band record was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("three-band: {0}")]
pub struct ThreeBandError(pub String);

/// A 9x9 band configuration: each column's digits (bit `d` for digit `d + 1`), checked: three
/// digits per column, each stack's three columns partitioning the nine digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BandConfig {
    cols: [u16; 9],
}

impl BandConfig {
    pub fn new(cols: [u16; 9]) -> Result<BandConfig, ThreeBandError> {
        for (s, stack) in cols.chunks(3).enumerate() {
            if stack
                .iter()
                .any(|m| m.count_ones() != 3 || m & !fill::ALL != 0)
                || stack[0] | stack[1] | stack[2] != fill::ALL
            {
                return Err(ThreeBandError(format!(
                    "stack {}: its three columns must each hold three of the digits 1-9, \
                     together all nine",
                    s + 1
                )));
            }
        }
        Ok(BandConfig { cols })
    }

    /// Each column's digit mask.
    pub fn cols(&self) -> &[u16; 9] {
        &self.cols
    }

    /// `B(C)`: this configuration's band fillings.
    pub fn fillings(&self) -> u64 {
        band_fillings(&self.cols)
    }

    /// `F(C)`: the ways to fill the two bands below a top band with this configuration;
    /// `None` when `stop` was raised.
    pub fn below(&self, stop: &AtomicBool) -> Option<u128> {
        let stacks: Vec<[u16; 3]> = self.cols.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
        let options: Vec<Vec<[u16; 3]>> = stacks.iter().map(|&s| fill::below(s)).collect();
        // The bottom band's option for each middle-band option: the rest of each column.
        let partner: Vec<Vec<usize>> = stacks
            .iter()
            .zip(&options)
            .map(|(top, opts)| {
                opts.iter()
                    .map(|y| {
                        let rest = [0, 1, 2].map(|i| fill::ALL & !(top[i] | y[i]));
                        opts.iter()
                            .position(|o| *o == rest)
                            .expect("the rest of each column is itself a middle-band option")
                    })
                    .collect()
            })
            .collect();
        let n = [options[0].len(), options[1].len(), options[2].len()];
        let mut b = vec![0u64; n[0] * n[1] * n[2]];
        // B depends on a configuration through its digits' types only (relabelling keeps
        // it): count each multiset of types once.
        let mut known: HashMap<u64, u64> = HashMap::new();
        for (a, ya) in options[0].iter().enumerate() {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            for (bi, yb) in options[1].iter().enumerate() {
                for (c, yc) in options[2].iter().enumerate() {
                    let cols = [
                        ya[0], ya[1], ya[2], yb[0], yb[1], yb[2], yc[0], yc[1], yc[2],
                    ];
                    b[(a * n[1] + bi) * n[2] + c] = *known
                        .entry(classes::types_key(&cols))
                        .or_insert_with(|| band_fillings(&cols));
                }
            }
        }
        let mut sum = 0u128;
        for a in 0..n[0] {
            for bi in 0..n[1] {
                for c in 0..n[2] {
                    let other = (partner[0][a] * n[1] + partner[1][bi]) * n[2] + partner[2][c];
                    sum += b[(a * n[1] + bi) * n[2] + c] as u128 * b[other] as u128;
                }
            }
        }
        Some(sum)
    }

    /// Reads what `Display` writes: the columns' digits, columns separated by `/` and stacks
    /// by `|` (`123/456/789|147/258/369|159/267/348`; no commas, so a ledger's CSV holds it).
    pub fn parse(text: &str) -> Result<BandConfig, ThreeBandError> {
        let mut cols = Vec::new();
        for stack in text.trim().split('|') {
            for col in stack.split('/') {
                let mut mask = 0u16;
                for ch in col.trim().chars() {
                    let d = ch
                        .to_digit(10)
                        .filter(|d| (1..=9).contains(d))
                        .ok_or_else(|| {
                            ThreeBandError(format!("{text:?}: {ch:?} is no digit 1-9"))
                        })?;
                    if mask >> (d - 1) & 1 == 1 {
                        return Err(ThreeBandError(format!(
                            "{text:?}: digit {d} twice in a column"
                        )));
                    }
                    mask |= 1 << (d - 1);
                }
                cols.push(mask);
            }
        }
        let cols: [u16; 9] = cols.try_into().map_err(|c: Vec<u16>| {
            ThreeBandError(format!("{text:?}: {} columns, not 9", c.len()))
        })?;
        BandConfig::new(cols).map_err(|e| ThreeBandError(format!("{text:?}: {}", e.0)))
    }
}

impl fmt::Display for BandConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (c, &m) in self.cols.iter().enumerate() {
            if c > 0 {
                f.write_str(if c % 3 == 0 { "|" } else { "/" })?;
            }
            for d in (0..9).filter(|d| m >> d & 1 == 1) {
                write!(f, "{}", d + 1)?;
            }
        }
        Ok(())
    }
}

/// One unit of a three-band count: a class of top-band configurations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreeBandClass {
    /// 1-based index of the class in [`band_classes`] order.
    pub class: usize,
    /// The class's representative as [`BandConfig`]'s text.
    pub config: String,
    /// Configurations in the class, the unit's weight (a decimal string).
    #[serde(with = "crate::orbit_term::decimal")]
    pub class_size: u128,
}

impl ThreeBandClass {
    /// The units of a three-band count: one per class, in order.
    pub fn all() -> Vec<ThreeBandClass> {
        band_classes()
            .into_iter()
            .enumerate()
            .map(|(i, c)| ThreeBandClass {
                class: i + 1,
                config: c.config().to_string(),
                class_size: c.size,
            })
            .collect()
    }

    /// The configuration, read and checked.
    pub fn parsed(&self) -> Result<BandConfig, ThreeBandError> {
        BandConfig::parse(&self.config)
            .map_err(|e| ThreeBandError(format!("class {}: {}", self.class, e.0)))
    }

    /// The unit's count, `B(C) * F(C)`: the grids whose top band has this configuration
    /// (`B(C)` and `F(C)` with it); `Ok(None)` when `stop` ended the count.
    pub fn count(&self, stop: &AtomicBool) -> Result<Option<ThreeBandCount>, ThreeBandError> {
        let config = self.parsed()?;
        let Some(below) = config.below(stop) else {
            return Ok(None);
        };
        let fillings = config.fillings();
        Ok(Some(ThreeBandCount {
            fillings,
            below,
            grids: fillings as u128 * below,
        }))
    }

    /// The JSON the wire and the store carry.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a ThreeBandClass always serialises")
    }

    /// Reads what [`ThreeBandClass::to_json`] wrote, configuration checked.
    pub fn from_json(text: &str) -> Result<ThreeBandClass, ThreeBandError> {
        let t: ThreeBandClass =
            serde_json::from_str(text).map_err(|e| ThreeBandError(e.to_string()))?;
        if t.class == 0 || t.class_size == 0 {
            return Err(ThreeBandError(format!(
                "class {} of size {}: classes are numbered from 1 and never empty",
                t.class, t.class_size
            )));
        }
        t.parsed()?;
        Ok(t)
    }
}

/// What one class counts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreeBandCount {
    /// `B(C)`: fillings of the top band.
    pub fillings: u64,
    /// `F(C)`: fillings of the two bands below.
    pub below: u128,
    /// `B(C) * F(C)`: grids with this top-band configuration (the unit's count).
    pub grids: u128,
}

#[cfg(test)]
mod tests;
