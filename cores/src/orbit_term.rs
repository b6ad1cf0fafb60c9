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

use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::count::Count;

use crate::grids::groups::read_groups;
pub use crate::grids::orbits::GroupChoice;
use crate::grids::orbits::{class_term, GridSymmetry, OrbitError};
use crate::xcc::Problem;

/// The term of one conjugacy class of an orbit count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrbitTerm {
    /// 1-based index of the class in `conjugacy_classes` order (the identity is 1).
    pub class: usize,
    /// Elements in the class: the unit's weight (a decimal string, exact past 2^64).
    #[serde(with = "decimal")]
    pub class_size: u128,
    /// The class's representative as `GridSymmetry::to_text` writes it.
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

    /// Counts the term of this class on the grids of `problem` ([`count_term`] of its
    /// representative); errors name the class.
    pub fn count(
        &self,
        box_rows: usize,
        box_cols: usize,
        problem: &Problem,
        stop: &AtomicBool,
    ) -> Result<Option<u128>, OrbitTermError> {
        count_term(box_rows, box_cols, problem, &self.rep, stop)
            .map_err(|e| OrbitTermError(format!("class {}: {}", self.class, e.0)))
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

/// The Burnside term of the symmetry `element` (as `GridSymmetry::to_text` writes it) on the
/// grids of `problem`, a Sudoku with `box_rows x box_cols` boxes and any extra groups (read
/// back from the problem): `class_term`, the one count behind every orbit term (a worker's
/// unit, `dancehall count sudoku --term`). `Ok(None)` when `stop` ended the count (no partial
/// result).
pub fn count_term(
    box_rows: usize,
    box_cols: usize,
    problem: &Problem,
    element: &str,
    stop: &AtomicBool,
) -> Result<Option<u128>, OrbitTermError> {
    let groups =
        read_groups(box_rows, box_cols, problem).map_err(|e| OrbitTermError(e.to_string()))?;
    let rep = GridSymmetry::parse(box_rows * box_cols, element)
        .map_err(|e| OrbitTermError(e.to_string()))?;
    match class_term(&groups, &rep, Some(stop)) {
        Ok(term) => Ok(Some(term)),
        Err(OrbitError::Stopped) => Ok(None),
        Err(e) => Err(OrbitTermError(format!("{element}: {e}"))),
    }
}

/// Burnside's sum does not divide by the group's order: some term is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Burnside's sum {sum} does not divide by the group's order {order}: a term is wrong")]
pub struct NotDivisible {
    pub sum: Count,
    pub order: Count,
}

/// The orbits from exact Burnside terms `(|C|, A(C))`: `sum |C| A(C) / |G|`, refused when it
/// does not divide (or `|G|` is 0). The harness's quotient (ledgers, `run`, reports), of any
/// size; `cores::grids::orbits::orbits_from_terms` is the in-process core's, in `u128`.
pub fn burnside_quotient(
    group_order: &Count,
    terms: impl IntoIterator<Item = (Count, Count)>,
) -> Result<Count, NotDivisible> {
    let sum: Count = terms.into_iter().map(|(size, a)| size * a).sum();
    sum.checked_div_exact(group_order).ok_or(NotDivisible {
        sum,
        order: group_order.clone(),
    })
}

/// A u128 as a decimal string (JSON numbers lose precision past 2^53 in many readers).
pub(crate) mod decimal {
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
        for bad in [
            r#"{"class":1,"class_size":"4","rep":""}"#,
            r#"{"class":1,"class_size":"4","rep":"","group":"full","x":1}"#,
            r#"{"class":1,"class_size":4,"rep":"","group":"full"}"#,
            r#"{"class":0,"class_size":"4","rep":"","group":"sudoku"}"#,
        ] {
            assert!(OrbitTerm::from_json(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn burnside_quotient_is_exact_past_u128_and_refuses_a_remainder() {
        // Sudoku 4x4: (1 x 12 + 3 x 4) / 4 = 6.
        let c = |n: u128| Count::from(n);
        assert_eq!(
            burnside_quotient(&c(4), [(c(1), c(12)), (c(3), c(4))]),
            Ok(c(6))
        );
        let big = c(u128::MAX) * c(1000);
        assert_eq!(
            burnside_quotient(&c(8), [(c(2), big.clone()), (c(6), big.clone())]),
            Ok(big)
        );
        let e = burnside_quotient(&c(4), [(c(1), c(13)), (c(3), c(4))]).unwrap_err();
        assert_eq!(e.sum, c(25));
        assert!(e.to_string().contains("does not divide"), "{e}");
        assert!(burnside_quotient(&c(0), [(c(1), c(0))]).is_err());
    }
}
