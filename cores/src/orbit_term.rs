//! One unit of an orbit count ("essentially different grids", Burnside's lemma): the term of
//! one conjugacy class of the variant's symmetry group. `dancehall` counts the orbits of a
//! Sudoku's grids under its group G and relabelling as
//! `(1/|G|) sum over classes C of |C| A(g_C)`, where `A(g)` is the number of grids that `g`
//! maps to a relabelling of themselves, over `side!` (`cores::grids::orbits::class_term`).
//! Each class is one weighted unit (weight `|C|`); the identity's term is the total count
//! over `side!`, imported from the total's ledger, never counted again.
//!
//! [`OrbitTerm`] is the one typed record of such a unit: the spec reader makes it, the wire
//! carries it as JSON (`Unit.orbit_term_json`, `WeightedPrefix.orbit_term_json`), the store
//! keeps it whole (`units.orbit_term`), the worker counts it and the ledger writes its
//! columns. [`OrbitTerm::to_json`] and [`OrbitTerm::from_json`] are its only writer and
//! reader, so a renamed field is a compile error in every crate, and a record missing a field
//! is refused. It lives here, beside `cores::bench::record`, because every crate depends on
//! `cores`.

use serde::{Deserialize, Serialize};

/// Stand-in for `cores::grids::orbits::GroupChoice` until that module lands (same names,
/// same serde form); then this becomes a re-export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupChoice {
    /// The variant's whole symmetry group.
    Full,
    /// Its subgroup that keeps the Sudoku's own groups.
    #[serde(rename = "sudoku")]
    SudokuPreserving,
}

impl GroupChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            GroupChoice::Full => "full",
            GroupChoice::SudokuPreserving => "sudoku",
        }
    }

    pub fn parse(s: &str) -> Option<GroupChoice> {
        Some(match s {
            "full" => GroupChoice::Full,
            "sudoku" => GroupChoice::SudokuPreserving,
            _ => return None,
        })
    }
}

/// The term of one conjugacy class of an orbit count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrbitTerm {
    /// 1-based index of the class in `conjugacy_classes` order (the identity is 1).
    pub class: usize,
    /// Elements in the class: the unit's weight (a decimal string, exact past 2^64).
    #[serde(with = "decimal")]
    pub class_size: u128,
    /// The class's representative as `LineSym::to_text` writes it.
    pub rep: String,
    /// The group the classes are of.
    pub group: GroupChoice,
}

/// Why an orbit term's JSON was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("orbit term: {0}")]
pub struct OrbitTermError(String);

impl OrbitTerm {
    /// Whether this is the identity's class (its term is imported, not counted).
    pub fn is_identity(&self) -> bool {
        self.class == 1
    }

    /// The JSON the wire and the store carry.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("an OrbitTerm always serialises")
    }

    /// Reads what [`OrbitTerm::to_json`] wrote.
    pub fn from_json(text: &str) -> Result<OrbitTerm, OrbitTermError> {
        let t: OrbitTerm = serde_json::from_str(text).map_err(|e| OrbitTermError(e.to_string()))?;
        if t.class == 0 || t.class_size == 0 {
            return Err(OrbitTermError(format!(
                "class {} of size {}: classes are numbered from 1 and never empty",
                t.class, t.class_size
            )));
        }
        Ok(t)
    }
}

/// Burnside's quotient: the orbits `sum / |G|`, where `sum` is the sum over classes of
/// class size x term (a job's weighted sum) and `group_order` the sum of the class sizes.
/// A sum that `|G|` does not divide is an error: some term is wrong.
pub fn orbits(sum: u128, group_order: u128) -> Result<u128, OrbitSumError> {
    if group_order == 0 || !sum.is_multiple_of(group_order) {
        return Err(OrbitSumError { sum, group_order });
    }
    Ok(sum / group_order)
}

/// A Burnside sum that the group's order does not divide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the Burnside sum {sum} (class size x term over the classes) is not a multiple of the group's \
     order {group_order}: some term is wrong"
)]
pub struct OrbitSumError {
    pub sum: u128,
    pub group_order: u128,
}

/// A u128 as a decimal string (JSON numbers lose precision past 2^53 in many readers).
mod decimal {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(n: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&n.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = String::deserialize(d)?;
        text.parse()
            .map_err(|_| serde::de::Error::custom(format!("{text:?} is not a decimal u128")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_round_trips_with_its_size_as_a_decimal_string() {
        let t = OrbitTerm {
            class: 7,
            class_size: u128::MAX,
            rep: "t r0 1 2 c2 1 0".into(),
            group: GroupChoice::Full,
        };
        let json = t.to_json();
        assert!(
            json.contains(&format!("\"class_size\":\"{}\"", u128::MAX)),
            "{json}"
        );
        assert!(json.contains("\"group\":\"full\""), "{json}");
        assert_eq!(OrbitTerm::from_json(&json), Ok(t.clone()));
        assert!(!t.is_identity());
        // A missing field, an unknown one, a size that is a number, a class 0: refused.
        assert_eq!(orbits(2 * 1152, 1152), Ok(2));
        assert_eq!(
            orbits(2 * 1152 + 1, 1152),
            Err(OrbitSumError {
                sum: 2305,
                group_order: 1152
            })
        );
        assert!(orbits(0, 0).is_err());
        for bad in [
            r#"{"class":1,"class_size":"4","rep":""}"#,
            r#"{"class":1,"class_size":"4","rep":"","group":"full","x":1}"#,
            r#"{"class":1,"class_size":4,"rep":"","group":"full"}"#,
            r#"{"class":0,"class_size":"4","rep":"","group":"sudoku"}"#,
        ] {
            assert!(OrbitTerm::from_json(bad).is_err(), "{bad}");
        }
    }
}
