//! The two-band counter: Sudoku grids of side `2R` whose boxes are `R` rows by 2 columns
//! (4x4, 6x6, 8x8, 10x10, 12x12 with 2x6 boxes transposed), after K. F. Pettersen
//! (enjoysudoku forum, "Su-Doku's maths", 2005).
//!
//! Such a grid has two bands of `R` rows. Fix the top band's column configuration `C`
//! (which `R` digits each column holds there): the bottom band's columns must hold the
//! complements, which is `C` with each stack's two columns swapped, and a band with the
//! swapped configuration fills in as many ways (swap its columns back). So
//! `N = sum over configurations C of B(C)^2 = sum over classes of E(C) B(C)^2`, with `B(C)`
//! the fillings of a band with configuration `C` ([`fill::band_fillings`]) and `E(C)` the
//! size of `C`'s class under the symmetries that keep `B` ([`classes`]: relabelling,
//! stack permutations, column swaps inside a stack).
//!
//! [`TwoBandClass`] is the one typed record of such a unit (shape, class index, configuration
//! as text, class size): the spec reader makes it, the wire and the store carry it as JSON,
//! the worker counts it ([`TwoBandClass::count`]: `B(C)`) and the ledger writes its columns.
//! [`TwoBandClass::to_json`] and [`TwoBandClass::from_json`] are its only writer and reader,
//! and reading checks the configuration (`R` digits per left column, digits `1..=2R`).
//! A unit's count is `B(C)^2`: the harness's total stays `sum weight x count`, and `B(C)`
//! is its exact square root (the ledger prints both).

pub mod classes;
pub mod fill;

use std::fmt;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::count::Count;

pub use classes::{Classes, ConfigClass};
pub use fill::{band_fillings, band_fillings_part};

/// Largest `R` (band rows) the counter takes: 12x12 grids with 2x6 boxes.
pub const MAX_R: usize = 6;

/// Why a two-band count or record was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("two-band: {0}")]
pub struct TwoBandError(pub String);

pub(crate) fn check_r(r: usize) -> Result<(), TwoBandError> {
    if (2..=MAX_R).contains(&r) {
        Ok(())
    } else {
        Err(TwoBandError(format!(
            "boxes of {r} rows by 2 columns: the two-band counter takes 2 to {MAX_R} rows"
        )))
    }
}

/// The band rows `R` of a plain Sudoku with `box_rows x box_cols` boxes that the counter
/// takes: boxes of 2 by `R` either way (a grid and its transpose count alike).
pub fn band_rows(box_rows: usize, box_cols: usize) -> Result<usize, TwoBandError> {
    let r = match (box_rows, box_cols) {
        (2, r) | (r, 2) => r,
        _ => {
            return Err(TwoBandError(format!(
                "{box_rows}x{box_cols} boxes: the two-band counter takes boxes of 2 by R"
            )))
        }
    };
    check_r(r)?;
    Ok(r)
}

/// A top-band column configuration: for each stack, the digits (bit `d` for digit `d + 1`)
/// of its left column; the right column holds the rest.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    stacks: Vec<u16>,
}

const DIGITS: &[u8; 16] = b"123456789ABCDEFG";

impl Config {
    /// A configuration from its left columns, checked: `2..=MAX_R` stacks, each holding
    /// `R` of the digits `1..=2R`.
    pub fn new(stacks: Vec<u16>) -> Result<Config, TwoBandError> {
        let r = stacks.len();
        check_r(r)?;
        for (i, &s) in stacks.iter().enumerate() {
            if s >> (2 * r) != 0 || s.count_ones() as usize != r {
                return Err(TwoBandError(format!(
                    "stack {}: a left column holds {r} of the digits 1..{}, not {:?}",
                    i + 1,
                    DIGITS[2 * r - 1] as char,
                    digits_text(s)
                )));
            }
        }
        Ok(Config { stacks })
    }

    pub(crate) fn from_signatures(r: usize, sigs: &[u8]) -> Config {
        let stacks = (0..r)
            .map(|i| {
                sigs.iter()
                    .enumerate()
                    .filter(|(_, &s)| s >> i & 1 == 1)
                    .fold(0u16, |acc, (d, _)| acc | 1 << d)
            })
            .collect();
        Config { stacks }
    }

    /// Band rows (and stacks).
    pub fn r(&self) -> usize {
        self.stacks.len()
    }

    /// Each stack's left column as a digit mask.
    pub fn stacks(&self) -> &[u16] {
        &self.stacks
    }

    /// Each digit's signature: bit `i` set when the digit is in stack `i`'s left column.
    pub fn signatures(&self) -> Vec<u8> {
        (0..2 * self.r())
            .map(|d| {
                self.stacks
                    .iter()
                    .enumerate()
                    .filter(|(_, &s)| s >> d & 1 == 1)
                    .fold(0u8, |acc, (i, _)| acc | 1 << i)
            })
            .collect()
    }

    /// Reads what `Display` writes: the left columns' digits, stacks separated by `|`
    /// (`123|145|246` for 6x6), digits `1-9` then `A-C`.
    pub fn parse(text: &str) -> Result<Config, TwoBandError> {
        let mut stacks = Vec::new();
        for part in text.trim().split('|') {
            let mut mask = 0u16;
            for ch in part.chars() {
                let d = DIGITS
                    .iter()
                    .position(|&c| c as char == ch.to_ascii_uppercase())
                    .ok_or_else(|| {
                        TwoBandError(format!("{text:?}: {ch:?} is no digit (1-9, A-G)"))
                    })?;
                if mask >> d & 1 == 1 {
                    return Err(TwoBandError(format!(
                        "{text:?}: digit {ch} twice in a column"
                    )));
                }
                mask |= 1 << d;
            }
            stacks.push(mask);
        }
        Config::new(stacks).map_err(|e| TwoBandError(format!("{text:?}: {}", e.0)))
    }
}

fn digits_text(mask: u16) -> String {
    (0..16)
        .filter(|d| mask >> d & 1 == 1)
        .map(|d| DIGITS[d] as char)
        .collect()
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &s) in self.stacks.iter().enumerate() {
            if i > 0 {
                f.write_str("|")?;
            }
            f.write_str(&digits_text(s))?;
        }
        Ok(())
    }
}

/// One unit of a two-band count: a class of top-band configurations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwoBandClass {
    /// Band rows `R` (boxes of `R` rows by 2 columns, side `2R`).
    pub r: usize,
    /// 1-based index of the class in [`Classes::enumerate`] order.
    pub class: usize,
    /// The class's representative as [`Config`]'s text.
    pub config: String,
    /// `E(C)`: configurations in the class, the unit's weight (a decimal string).
    #[serde(with = "crate::orbit_term::decimal")]
    pub class_size: u128,
    /// Set when the unit is one part of the class's `B(C)` rather than the whole class: its
    /// count is that part of `B(C)` ([`fill::band_fillings_part`]), and the class's term
    /// `E(C) B(C)^2` is formed once every part is counted
    /// ([`crate::unit_term::WeightedSum`]). Absent from a whole class's JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<Part>,
}

/// Which part of a class's `B(C)` a unit counts: part `index` (from 1) of `of`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    pub index: usize,
    pub of: usize,
}

impl Part {
    /// Most parts a class may be cut into (a 12x12 class's cut has about 400 prefixes).
    pub const MAX: usize = 1024;

    /// Reads `3/64`.
    pub fn parse(text: &str) -> Result<Part, TwoBandError> {
        let bad = || TwoBandError(format!("part {text:?}: expected INDEX/OF, as 3/64"));
        let (i, o) = text.trim().split_once('/').ok_or_else(bad)?;
        let part = Part {
            index: i.trim().parse().map_err(|_| bad())?,
            of: o.trim().parse().map_err(|_| bad())?,
        };
        part.check()?;
        Ok(part)
    }

    /// Whether a class may be cut into `of` parts (1 to [`Part::MAX`]).
    pub fn check_of(of: usize) -> Result<(), TwoBandError> {
        if (1..=Part::MAX).contains(&of) {
            Ok(())
        } else {
            Err(TwoBandError(format!(
                "{of} parts: a class is cut into 1 to {} parts",
                Part::MAX
            )))
        }
    }

    fn check(self) -> Result<(), TwoBandError> {
        if self.of == 0 || self.of > Part::MAX || self.index == 0 || self.index > self.of {
            return Err(TwoBandError(format!(
                "part {self}: parts are numbered 1 to OF, OF from 1 to {}",
                Part::MAX
            )));
        }
        Ok(())
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.of)
    }
}

impl TwoBandClass {
    /// The units of a two-band count: one per class, in order.
    pub fn all(r: usize) -> Result<Vec<TwoBandClass>, TwoBandError> {
        Ok(Classes::enumerate(r)?
            .classes
            .into_iter()
            .enumerate()
            .map(|(i, c)| TwoBandClass {
                r,
                class: i + 1,
                config: c.config.to_string(),
                class_size: c.size,
                part: None,
            })
            .collect())
    }

    /// This class cut into `of` part units, in order (`of` from 1 to [`Part::MAX`]).
    pub fn parts(&self, of: usize) -> Result<Vec<TwoBandClass>, TwoBandError> {
        Part::check_of(of)?;
        Ok((1..=of)
            .map(|index| TwoBandClass {
                part: Some(Part { index, of }),
                ..self.clone()
            })
            .collect())
    }

    /// Why `count` cannot be this unit's count, if it cannot: a whole class counts
    /// `B(C)^2`, so anything but a square is malformed; a part counts its piece of `B(C)`,
    /// any number.
    pub fn malformed_count(&self, count: &Count) -> Option<String> {
        (self.part.is_none() && count.exact_sqrt().is_none()).then(|| {
            format!(
                "two-band class {}: {count} is not a square B(C)^2",
                self.class
            )
        })
    }

    /// The configuration, read and checked.
    pub fn parsed(&self) -> Result<Config, TwoBandError> {
        let c = Config::parse(&self.config)
            .map_err(|e| TwoBandError(format!("class {}: {}", self.class, e.0)))?;
        if c.r() != self.r {
            return Err(TwoBandError(format!(
                "class {}: {:?} has {} stacks, not {}",
                self.class,
                self.config,
                c.r(),
                self.r
            )));
        }
        Ok(c)
    }

    /// `B(C)`, or this unit's part of it, on `threads` local threads
    /// ([`fill::band_fillings_on`]; a part on one, [`fill::band_fillings_part`]); `Ok(None)`
    /// when `stop` ended the count.
    pub fn fillings_on(
        &self,
        threads: usize,
        stop: &AtomicBool,
    ) -> Result<Option<u128>, TwoBandError> {
        let config = self.parsed()?;
        Ok(match self.part {
            None => fill::band_fillings_on(&config, threads, Some(stop)),
            Some(p) => fill::band_fillings_part(&config, p.index - 1, p.of, Some(stop)),
        })
    }

    /// The unit's count with the fillings it came from, on one thread, as a worker counts
    /// it: `B(C)^2` for a whole class, the part of `B(C)` for a part; `Ok(None)` when `stop`
    /// ended the count. B(C) fits `u128` (a band's fillings); its square may not (at 12x12
    /// it can exceed 2^128), so the count is a [`Count`].
    pub fn count(&self, stop: &AtomicBool) -> Result<Option<(u128, Count)>, TwoBandError> {
        self.count_on(1, stop)
    }

    /// [`TwoBandClass::count`] on `threads` local threads: one unit recounted by hand.
    pub fn count_on(
        &self,
        threads: usize,
        stop: &AtomicBool,
    ) -> Result<Option<(u128, Count)>, TwoBandError> {
        Ok(self.fillings_on(threads, stop)?.map(|b| {
            let count = match self.part {
                None => Count::from(b).square(),
                Some(_) => Count::from(b),
            };
            (b, count)
        }))
    }

    /// The JSON the wire and the store carry.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a TwoBandClass always serialises")
    }

    /// Reads what [`TwoBandClass::to_json`] wrote, configuration checked.
    pub fn from_json(text: &str) -> Result<TwoBandClass, TwoBandError> {
        let t: TwoBandClass =
            serde_json::from_str(text).map_err(|e| TwoBandError(e.to_string()))?;
        if t.class == 0 || t.class_size == 0 {
            return Err(TwoBandError(format!(
                "class {} of size {}: classes are numbered from 1 and never empty",
                t.class, t.class_size
            )));
        }
        if let Some(p) = t.part {
            p.check()?;
        }
        t.parsed()?;
        Ok(t)
    }
}

#[cfg(test)]
mod tests;
