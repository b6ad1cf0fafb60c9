//! A unit that counts one class of a count by classes rather than a prefix's subtree: the
//! term of a conjugacy class of an orbit count ([`OrbitTerm`]), the band fillings of a
//! class of top-band configurations of a two-band count
//! ([`crate::grids::two_band::TwoBandClass`]) or the 9x9 grids of a class of top-band
//! configurations of a three-band count ([`crate::grids::three_band::ThreeBandClass`]). Each is counted whole by its own core, weight
//! its class size.
//!
//! [`UnitTerm`] is the one typed record that crosses the crates for such a unit: the wire's
//! `term_json`, the database's `units.term`, the ledger's term columns. [`UnitTerm::to_json`]
//! writes the record's own JSON (an `OrbitTerm`'s as before, so stored orbit terms read
//! back unchanged), and [`UnitTerm::from_json`] tells them apart by their fields (an orbit
//! term has a `group`, a two-band class a `config` and its band rows `r`, a three-band class
//! a `config` alone) and reads each with its own reader.

use std::collections::{BTreeMap, BTreeSet};

use crate::count::Count;
use crate::count_core::CountCore;
use crate::grids::three_band::ThreeBandClass;
use crate::grids::two_band::TwoBandClass;
use crate::orbit_term::OrbitTerm;

/// A unit's class: its kind's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitTerm {
    /// An orbit count's conjugacy class (core `sudoku-orbit-term`).
    Orbit(OrbitTerm),
    /// A two-band count's configuration class (core `two-band-class`): its count is `B(C)^2`, or its part of `B(C)` ([`WeightedSum`]).
    TwoBand(TwoBandClass),
    /// A three-band count's configuration class (core `three-band-class`): its count is the
    /// 9x9 grids whose top band has the class's configuration.
    ThreeBand(ThreeBandClass),
}

/// Why a unit term was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unit term: {0}")]
pub struct UnitTermError(pub String);

impl UnitTerm {
    /// The core that counts this kind of unit (and only it).
    pub fn core(&self) -> CountCore {
        match self {
            UnitTerm::Orbit(_) => CountCore::SudokuOrbitTerm,
            UnitTerm::TwoBand(_) => CountCore::TwoBandClass,
            UnitTerm::ThreeBand(_) => CountCore::ThreeBandClass,
        }
    }

    /// 1-based index of the class among its count's classes.
    pub fn class(&self) -> usize {
        match self {
            UnitTerm::Orbit(t) => t.class,
            UnitTerm::TwoBand(t) => t.class,
            UnitTerm::ThreeBand(t) => t.class,
        }
    }

    /// The class's size: the unit's weight.
    pub fn class_size(&self) -> u128 {
        match self {
            UnitTerm::Orbit(t) => t.class_size,
            UnitTerm::TwoBand(t) => t.class_size,
            UnitTerm::ThreeBand(t) => t.class_size,
        }
    }

    /// The orbit term, for an orbit count's unit.
    pub fn orbit(&self) -> Option<&OrbitTerm> {
        match self {
            UnitTerm::Orbit(t) => Some(t),
            UnitTerm::TwoBand(_) | UnitTerm::ThreeBand(_) => None,
        }
    }

    /// The configuration class, for a two-band count's unit.
    pub fn two_band(&self) -> Option<&TwoBandClass> {
        match self {
            UnitTerm::TwoBand(t) => Some(t),
            UnitTerm::Orbit(_) | UnitTerm::ThreeBand(_) => None,
        }
    }

    /// The configuration class, for a three-band count's unit.
    pub fn three_band(&self) -> Option<&ThreeBandClass> {
        match self {
            UnitTerm::ThreeBand(t) => Some(t),
            UnitTerm::Orbit(_) | UnitTerm::TwoBand(_) => None,
        }
    }

    /// The class's configuration as text, for a two- or three-band count's unit.
    pub fn config(&self) -> Option<&str> {
        match self {
            UnitTerm::TwoBand(t) => Some(&t.config),
            UnitTerm::ThreeBand(t) => Some(&t.config),
            UnitTerm::Orbit(_) => None,
        }
    }

    /// Why `count` cannot be this unit's count, if it cannot: a whole two-band class counts
    /// `B(C)^2`, so anything but a square is malformed (a part counts its piece of `B(C)`,
    /// any number). The one rule for a worker's report and for a count imported from a
    /// ledger.
    pub fn malformed_count(&self, count: &Count) -> Option<String> {
        match self {
            UnitTerm::TwoBand(t) => t.malformed_count(count),
            UnitTerm::Orbit(_) | UnitTerm::ThreeBand(_) => None,
        }
    }

    /// Whether this is an orbit count's identity class (its term is imported, not counted).
    pub fn is_identity(&self) -> bool {
        self.orbit().is_some_and(OrbitTerm::is_identity)
    }

    /// The JSON the wire and the store carry.
    pub fn to_json(&self) -> String {
        match self {
            UnitTerm::Orbit(t) => t.to_json(),
            UnitTerm::TwoBand(t) => t.to_json(),
            UnitTerm::ThreeBand(t) => t.to_json(),
        }
    }

    /// Reads what [`UnitTerm::to_json`] wrote.
    pub fn from_json(text: &str) -> Result<UnitTerm, UnitTermError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| UnitTermError(e.to_string()))?;
        let has = |key: &str| value.get(key).is_some();
        if has("group") {
            OrbitTerm::from_json(text)
                .map(UnitTerm::Orbit)
                .map_err(|e| UnitTermError(e.to_string()))
        } else if has("config") && has("r") {
            TwoBandClass::from_json(text)
                .map(UnitTerm::TwoBand)
                .map_err(|e| UnitTermError(e.to_string()))
        } else if has("config") {
            ThreeBandClass::from_json(text)
                .map(UnitTerm::ThreeBand)
                .map_err(|e| UnitTermError(e.to_string()))
        } else {
            Err(UnitTermError(format!(
                "{text}: neither an orbit term (`group`) nor a band class (`config`)"
            )))
        }
    }
}

impl From<OrbitTerm> for UnitTerm {
    fn from(t: OrbitTerm) -> UnitTerm {
        UnitTerm::Orbit(t)
    }
}

impl From<TwoBandClass> for UnitTerm {
    fn from(t: TwoBandClass) -> UnitTerm {
        UnitTerm::TwoBand(t)
    }
}

impl From<ThreeBandClass> for UnitTerm {
    fn from(t: ThreeBandClass) -> UnitTerm {
        UnitTerm::ThreeBand(t)
    }
}

/// The weighted sum of a count's accepted units, the one place a job's total is formed (the
/// scheduler's status, the store's `job_total`, the ledger's total): `weight x count` for
/// every unit, except the parts of a two-band class, whose counts are pieces of `B(C)`:
/// they are added per class, and the class's term `E(C) B(C)^2` (`E(C)` the parts'
/// weight) joins the sum once every part is in. A class with parts missing adds nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WeightedSum {
    whole: Count,
    classes: BTreeMap<usize, ClassParts>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct ClassParts {
    weight: Count,
    of: usize,
    seen: BTreeSet<usize>,
    fillings: Count,
}

impl WeightedSum {
    /// Adds one unit's count. Refused: a part of a class whose other parts say another
    /// number of parts or another weight, or a part already added.
    pub fn add(
        &mut self,
        term: Option<&UnitTerm>,
        weight: &Count,
        count: &Count,
    ) -> Result<(), UnitTermError> {
        let Some((class, part)) = term
            .and_then(UnitTerm::two_band)
            .and_then(|t| Some((t.class, t.part?)))
        else {
            self.whole += weight * count;
            return Ok(());
        };
        let entry = self.classes.entry(class).or_insert_with(|| ClassParts {
            weight: weight.clone(),
            of: part.of,
            seen: BTreeSet::new(),
            fillings: Count::zero(),
        });
        if entry.of != part.of || entry.weight != *weight {
            return Err(UnitTermError(format!(
                "two-band class {class}: part {part} of weight {weight} beside parts of {} of                  weight {}",
                entry.of, entry.weight
            )));
        }
        if !entry.seen.insert(part.index) {
            return Err(UnitTermError(format!(
                "two-band class {class}: part {part} counted twice"
            )));
        }
        entry.fillings += count;
        Ok(())
    }

    /// The sum: every whole unit's `weight x count` and every class whose parts are all in.
    pub fn total(&self) -> Count {
        let mut sum = self.whole.clone();
        for c in self.classes.values().filter(|c| c.seen.len() == c.of) {
            sum += &c.weight * &c.fillings.square();
        }
        sum
    }

    /// Classes with some parts counted and some not: their terms are not in
    /// [`WeightedSum::total`].
    pub fn open_classes(&self) -> usize {
        self.classes
            .values()
            .filter(|c| c.seen.len() < c.of)
            .count()
    }

    /// Classes whose parts are all counted.
    pub fn closed_classes(&self) -> usize {
        self.classes.len() - self.open_classes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orbit_term::GroupChoice;

    #[test]
    fn every_kind_round_trips_and_an_orbit_term_keeps_its_json() {
        let orbit = OrbitTerm {
            class: 2,
            class_size: 3,
            rep: "t r0 1 2 3 c0 1 2 3".into(),
            group: GroupChoice::Full,
        };
        let band = TwoBandClass::all(2).unwrap().remove(0);
        let three = ThreeBandClass::all().remove(3);
        for t in [
            UnitTerm::from(orbit.clone()),
            UnitTerm::from(band.clone()),
            UnitTerm::from(three.clone()),
        ] {
            assert_eq!(UnitTerm::from_json(&t.to_json()), Ok(t.clone()));
        }
        assert_eq!(UnitTerm::from(orbit.clone()).to_json(), orbit.to_json());
        assert_eq!(UnitTerm::from(band).core(), CountCore::TwoBandClass);
        assert_eq!(UnitTerm::from(three).core(), CountCore::ThreeBandClass);
        assert!(UnitTerm::from_json(r#"{"class":1}"#).is_err());
        assert!(UnitTerm::from_json(r#"{"class":1,"group":"full"}"#).is_err());
    }

    #[test]
    fn only_a_whole_two_band_class_needs_a_square_count() {
        let class = TwoBandClass::all(2).unwrap().remove(0);
        let whole = UnitTerm::from(class.clone());
        assert_eq!(whole.malformed_count(&Count::from(49u8)), None);
        let why = whole.malformed_count(&Count::from(50u8)).unwrap();
        assert!(why.contains("50 is not a square"), "{why}");
        let part = UnitTerm::from(class.parts(2).unwrap().remove(1));
        assert_eq!(part.malformed_count(&Count::from(50u8)), None);
        let three = UnitTerm::from(ThreeBandClass::all().remove(0));
        assert_eq!(three.malformed_count(&Count::from(50u8)), None);
    }

    #[test]
    fn a_two_band_class_in_parts_counts_its_square_once_every_part_is_in() {
        let class = TwoBandClass::all(2).unwrap().remove(0);
        let parts: Vec<UnitTerm> = class
            .parts(3)
            .unwrap()
            .into_iter()
            .map(UnitTerm::from)
            .collect();
        let w = Count::from(class.class_size);
        let mut sum = WeightedSum::default();
        // A plain unit, then parts 1 and 3 of B = 2 + 0 + 5 = 7.
        sum.add(None, &Count::from(2u8), &Count::from(10u8))
            .unwrap();
        sum.add(Some(&parts[0]), &w, &Count::from(2u8)).unwrap();
        sum.add(Some(&parts[2]), &w, &Count::from(5u8)).unwrap();
        assert_eq!(sum.total(), Count::from(20u8));
        assert_eq!((sum.open_classes(), sum.closed_classes()), (1, 0));
        assert!(
            sum.add(Some(&parts[2]), &w, &Count::from(5u8)).is_err(),
            "twice"
        );
        let other = UnitTerm::from(class.parts(4).unwrap().remove(1));
        assert!(
            sum.add(Some(&other), &w, &Count::from(1u8)).is_err(),
            "of 4"
        );
        assert!(
            sum.add(Some(&parts[1]), &Count::from(9u8), &Count::zero())
                .is_err(),
            "weight"
        );
        sum.add(Some(&parts[1]), &w, &Count::zero()).unwrap();
        assert_eq!(sum.total(), Count::from(20u8) + &w * &Count::from(49u8));
        assert_eq!((sum.open_classes(), sum.closed_classes()), (0, 1));
        // A whole class is an ordinary unit: weight x count.
        let mut whole = WeightedSum::default();
        whole
            .add(Some(&UnitTerm::from(class.clone())), &w, &Count::from(49u8))
            .unwrap();
        assert_eq!(whole.total(), &w * &Count::from(49u8));
        assert_eq!(
            UnitTerm::from_json(&parts[1].to_json()),
            Ok(parts[1].clone())
        );
        assert!(parts[1].to_json().contains(r#""part":{"index":2,"of":3}"#));
        assert!(!UnitTerm::from(class).to_json().contains("part"));
    }
}
