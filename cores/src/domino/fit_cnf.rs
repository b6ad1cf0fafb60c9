//! The native optimiser's question "do `k` tiles fit?" as DIMACS CNF, so that a bound it
//! proves with CaDiCaL in process can be certified outside it: another solver refutes the
//! same formula and writes a DRAT proof, and an independent checker replays the proof (the
//! CLI's `dancehall domino certify`). The formula is the one `native` asks
//! (`sat::Variant::NATIVE`, `sat.rs`): every legal placement of `k` tiles extends to a model,
//! so a refutation proves that `k` tiles do not fit. A model, if the other solver finds one,
//! decodes to a placement that [`crate::domino::verify()`] judges.

use std::collections::HashSet;

use super::model::Model;
use super::sat::{Formula, Variant};
use super::{Instance, Placement};

/// The formula "at least `k` tiles fit" of one instance.
pub struct FitCnf {
    formula: Formula,
    /// The instance, to decode a model's spots into placements.
    instance: Instance,
}

/// Why the formula was not made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FitCnfError {
    #[error("ask for at least 1 tile (got {0})")]
    NoTile(u32),
    #[error("more distinct shared values than the native model's cell codes hold")]
    TooManyValues,
}

impl FitCnf {
    /// The formula of `instance` and `k` (at least 1).
    pub fn new(instance: &Instance, k: u32) -> Result<FitCnf, FitCnfError> {
        if k == 0 {
            return Err(FitCnfError::NoTile(k));
        }
        let model = Model::new(instance).ok_or(FitCnfError::TooManyValues)?;
        Ok(FitCnf {
            formula: Formula::build(&model, k, Variant::NATIVE),
            instance: instance.clone(),
        })
    }

    /// The formula in DIMACS CNF (`p cnf V C`, then one clause a line).
    pub fn dimacs(&self) -> String {
        self.formula.dimacs()
    }

    /// The placement that a model makes: `true_lits` are the literals it sets true (a
    /// solver's `v` lines).
    pub fn placement(&self, true_lits: &HashSet<i32>) -> Vec<Placement> {
        let model = Model::new(&self.instance).expect("made once in `new`");
        super::native::placements(&model, &self.formula.placed(true_lits))
    }
}
