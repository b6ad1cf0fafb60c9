//! The `two-band` generator of `[units]`: every grid of a plain Sudoku whose boxes are 2 by
//! `R` (either way; a grid and its transpose count alike), by the two-band counter
//! (`cores::grids::two_band`): one weighted unit per class of top-band column
//! configurations C (`TwoBandClass`), weight its class size E(C), counted by the
//! `two-band-class` core as B(C)^2. The job's total is `sum E(C) B(C)^2`, factor 1.
//!
//! Reading the spec checks the shape only ([`generate`]); the classes are enumerated when
//! the job is submitted or its units listed ([`classes`], through
//! `WeightedUnits::expand`): at 12x12 (R = 6, 63,199 classes) that takes about 11 s on 2
//! cores, which `spec::cache` keeps.

use coordinator::job::{CoreSpec, TwoBandClass, UnitTerm};
use cores::count::Count;
use cores::grids::two_band::band_rows;
use cores::problems::ProblemSpec;

use super::units::{Pending, WeightedUnits};

/// The units of generator `two-band` for `problem`, their classes put off (`pending`).
/// Errors are messages for the spec's `[units]` line.
pub fn generate(problem: Option<&ProblemSpec>) -> Result<WeightedUnits, String> {
    let (spec, box_rows, box_cols, r) = shape(problem)?;
    let side = 2 * r;
    Ok(WeightedUnits {
        units: Vec::new(),
        core: CoreSpec::TwoBand { box_rows, box_cols },
        symmetry_factor: Some(Count::one()),
        label: format!(
            "{spec} by two bands: the classes of top-band column configurations of \
             {side}x{side} (enumerated when the job is submitted), each counting B(C)^2"
        ),
        resume: None,
        orbits: None,
        class_terms: None,
        pending: Some(Pending::TwoBand(spec.clone())),
    })
}

/// The units of generator `two-band` for `spec`, every class enumerated.
pub fn classes(spec: &ProblemSpec) -> Result<WeightedUnits, String> {
    let (spec, box_rows, box_cols, r) = shape(Some(spec))?;
    let built = spec.build().map_err(|e| e.to_string())?;
    let classes = super::cache::units("two-band", &r, || {
        TwoBandClass::all(r).map_err(|e| e.to_string())
    })?;
    let side = 2 * r;
    Ok(WeightedUnits {
        units: classes
            .iter()
            // A class size is at most C(2R,R)^R: bounded, u128 at its edge.
            .map(|c| (built.prefix.clone(), Count::from(c.class_size)))
            .collect(),
        core: CoreSpec::TwoBand { box_rows, box_cols },
        symmetry_factor: Some(Count::one()),
        label: format!(
            "{spec} by two bands: {} classes of top-band column configurations of {side}x{side}, \
             each counting B(C)^2",
            classes.len()
        ),
        resume: None,
        orbits: None,
        class_terms: Some(classes.into_iter().map(UnitTerm::TwoBand).collect()),
        pending: None,
    })
}

/// The plain Sudoku of `problem` with its box shape and band rows R, or why it is none.
fn shape(problem: Option<&ProblemSpec>) -> Result<(&ProblemSpec, usize, usize, usize), String> {
    let Some((box_rows, box_cols)) = problem.and_then(super::units::plain_sudoku) else {
        return Err(
            "generator `two-band` counts every grid of a plain Sudoku (family = \"sudoku\" \
             without variants, extra groups, givens or fixed row)"
                .into(),
        );
    };
    let r = band_rows(box_rows, box_cols).map_err(|e| format!("generator `two-band`: {e}"))?;
    Ok((problem.expect("a Sudoku"), box_rows, box_cols, r))
}
