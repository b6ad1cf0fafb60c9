//! The `three-band` generator of `[units]`: every grid of the plain 9x9 Sudoku by the
//! three-band counter (`cores::grids::three_band`): one weighted unit per class of top-band
//! column configurations C (`ThreeBandClass`, 44 of them), weight its class size, counted
//! by the `three-band-class` core as the grids whose top band has configuration C. The job's
//! total is `sum |class| B(C) F(C)`, factor 1.

use coordinator::job::{CoreSpec, UnitTerm};
use cores::count::Count;
use cores::grids::three_band::ThreeBandClass;
use cores::problems::ProblemSpec;

use super::units::WeightedUnits;

/// The units of generator `three-band` for `problem`. Errors are messages for the spec's
/// `[units]` line.
pub fn generate(problem: Option<&ProblemSpec>) -> Result<WeightedUnits, String> {
    if problem.and_then(super::units::plain_sudoku) != Some((3, 3)) {
        return Err(
            "generator `three-band` counts every grid of the plain 9x9 Sudoku (family = \
             \"sudoku\", 3x3 boxes, without variants, extra groups, givens or fixed row)"
                .into(),
        );
    }
    let spec = problem.expect("a Sudoku");
    let built = spec.build().map_err(|e| e.to_string())?;
    let classes = ThreeBandClass::all();
    Ok(WeightedUnits {
        units: classes
            .iter()
            // A class size is at most 1680^3: bounded, u128 at its edge.
            .map(|c| (built.prefix.clone(), Count::from(c.class_size)))
            .collect(),
        core: CoreSpec::ThreeBand {
            box_rows: 3,
            box_cols: 3,
        },
        symmetry_factor: Some(Count::one()),
        label: format!(
            "{spec} by three bands: {} classes of top-band column configurations, each \
             counting the grids with its configuration",
            classes.len()
        ),
        resume: None,
        orbits: None,
        class_terms: Some(classes.into_iter().map(UnitTerm::ThreeBand).collect()),
        pending: None,
    })
}
