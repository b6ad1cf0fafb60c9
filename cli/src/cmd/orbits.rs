//! `dancehall count sudoku ... --orbits` and `--term ELEMENT`: the essentially different grids
//! of a small Sudoku (its grids up to its symmetry group and relabelling, Burnside's lemma,
//! `cores::grids::orbits::count_orbits`) printed beside the total, with the group, its order
//! and the sanity bound `orbits >= N / (|G| side!)` (N enumerated up to 6x6, or read from
//! `--total-ledger`, a complete ledger of the total, as `spec::orbits` reads it); and the
//! Burnside term of one element, as an orbit count's unit counts it
//! (`cores::orbit_term::count_term`), so that a row of an orbit job's ledger (`element`,
//! `term`) can be recounted. Larger grids are counted as jobs (`[units] generator =
//! "sudoku-orbits"`), their identity's term imported from the total's ledger.

use std::io::Write as _;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::grids::orbits::{count_orbits, lower_bound, GroupChoice};
use cores::orbit_term::count_term;
use cores::problems::{Built, ProblemSpec};

use super::problem::CountArgs;
use crate::exit::user_error;
use crate::spec::orbits::ledger_total;

/// The box shape of a Sudoku without givens or fixed row; anything else is refused (exit 2)
/// naming `flag`.
fn sudoku_shape(a: &CountArgs, flag: &str) -> anyhow::Result<(usize, usize)> {
    match a.problem.family.as_ref().map(|f| f.spec()) {
        Some(ProblemSpec::Sudoku {
            box_rows,
            box_cols,
            givens: None,
            fix_first_row: false,
            ..
        }) => Ok((box_rows, box_cols)),
        Some(ProblemSpec::Sudoku { .. }) => Err(user_error(format!(
            "{flag} counts every grid of a Sudoku: no --givens or --fix-first-row"
        ))),
        _ => Err(user_error(format!(
            "{flag} counts Sudoku grids only (dancehall count sudoku --box RxC {flag})"
        ))),
    }
}

/// `--orbits`: the orbits under `--orbit-group` (default full), every term counted here.
pub fn count(a: &CountArgs, built: &Built) -> anyhow::Result<()> {
    let (r, c) = sudoku_shape(a, "--orbits")?;
    let choice = match a.orbit_group.as_deref() {
        None => GroupChoice::Full,
        Some(g) => GroupChoice::parse(g)
            .ok_or_else(|| user_error(format!("--orbit-group {g}: expected full or sudoku")))?,
    };
    let groups = cores::grids::groups::read_groups(r, c, &built.problem)
        .map_err(|e| user_error(format!("{}: {e}", built.label)))?;
    let side = r * c;
    let total = match &a.total_ledger {
        None => None,
        Some(path) => {
            let t = ledger_total(path, side * side).map_err(user_error)?;
            if let Some((want, from)) = &t.problem {
                let got = cores::bench::sha256_hex(&cores::xcc::write_dlx(&built.problem));
                if &got != want {
                    return Err(user_error(format!(
                        "--total-ledger: {from} names problem {want}, this problem is {got}"
                    )));
                }
            }
            // The in-process orbit count (`count_orbits`) works in u128; a total past it
            // is for `run` with generator `sudoku-orbits`, whose sums are `Count`s.
            Some(t.total.to_u128().ok_or_else(|| {
                user_error(format!(
                    "--total-ledger: {}'s total {} is past 2^128, beyond this in-process \
                     count; count the orbits with `dancehall run` and generator \
                     `sudoku-orbits`",
                    t.file, t.total
                ))
            })?)
        }
    };
    let started = Instant::now();
    let o = count_orbits(&groups, choice, total)
        .map_err(|e| user_error(format!("{}: {e}", built.label)))?;
    let bound = lower_bound(o.total, o.group_order, side);
    let mut out = std::io::stdout().lock();
    if a.json {
        let v = serde_json::json!({
            "label": built.label,
            "solutions": o.total.to_string(),
            "orbits": o.orbits.to_string(),
            "group": choice.as_str(),
            "group_order": o.group_order.to_string(),
            "classes": o.terms.len(),
            "lower_bound": bound.to_string(),
            "seconds": started.elapsed().as_secs_f64(),
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "{}", built.label)?;
        writeln!(out, "grids: {}", o.total)?;
        writeln!(
            out,
            "orbits (essentially different grids): {} under the {} group (order {}, {} \
             conjugacy classes) and relabelling",
            o.orbits,
            choice.as_str(),
            o.group_order,
            o.terms.len()
        )?;
        writeln!(
            out,
            "bound: orbits >= N / (|G| {side}!) = {bound}: {}",
            if o.orbits >= bound { "holds" } else { "FAILS" }
        )?;
        writeln!(out, "seconds: {:.3}", started.elapsed().as_secs_f64())?;
    }
    if o.orbits < bound {
        anyhow::bail!("the orbit count {} is below its bound {bound}", o.orbits);
    }
    Ok(())
}

/// `--term ELEMENT`: the Burnside term of one element (as a ledger's `element` column
/// writes it), counted by the orbit-term core as a worker counts an orbit job's unit.
pub fn term(a: &CountArgs, built: &Built, element: &str) -> anyhow::Result<()> {
    let (r, c) = sudoku_shape(a, "--term")?;
    let started = Instant::now();
    let term = count_term(r, c, &built.problem, element, &AtomicBool::new(false))
        .map_err(|e| user_error(format!("--term {element}: {e}")))?
        .ok_or_else(|| anyhow::anyhow!("the count was stopped"))?;
    let mut out = std::io::stdout().lock();
    if a.json {
        let v = serde_json::json!({
            "label": built.label,
            "element": element,
            "term": term.to_string(),
            "seconds": started.elapsed().as_secs_f64(),
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(
            out,
            "{}\nterm of {element}: {term} (grids it maps to a relabelling of themselves, over \
             {}!)",
            built.label,
            r * c
        )?;
    }
    Ok(())
}
