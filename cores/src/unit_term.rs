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

use crate::count_core::CountCore;
use crate::grids::three_band::ThreeBandClass;
use crate::grids::two_band::TwoBandClass;
use crate::orbit_term::OrbitTerm;

/// A unit's class: its kind's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitTerm {
    /// An orbit count's conjugacy class (core `sudoku-orbit-term`).
    Orbit(OrbitTerm),
    /// A two-band count's configuration class (core `two-band-class`): its count is `B(C)^2`.
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
}
