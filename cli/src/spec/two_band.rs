//! The `two-band` generator of `[units]`: every grid of a plain Sudoku whose boxes are 2 by
//! `R` (either way; a grid and its transpose count alike), by the two-band counter
//! (`cores::grids::two_band`): one weighted unit per class of top-band column
//! configurations C (`TwoBandClass`), weight its class size E(C), counted by the
//! `two-band-class` core as B(C)^2. The job's total is `sum E(C) B(C)^2`, factor 1.
//!
//! With `parts = P` each class is P units instead, each counting one part of B(C)
//! (`TwoBandClass::parts`: contiguous runs of the count's first cut, the same on every
//! machine), weight E(C) each: the harness adds a class's parts and counts E(C) B(C)^2 once
//! all are in (`cores::unit_term::WeightedSum`). At 12x12 a class is about 2.5 core-hours,
//! so parts are what let an hour's run, or a cluster's, count and ledger work smaller than a
//! class.
//!
//! A two-band job resumes from its partial ledger (`file` and `resume = true` beside the
//! generator, [`BandLedger`]): the units are generated again and each counted row of the
//! ledger is matched to its unit by class and part, its configuration and class size
//! checked, and imported; every other unit is counted. So the ledger needs only its counted
//! rows (`dancehall ledger --partial --counted`), which matters at 12x12, where a job cut
//! into parts has a million units.
//!
//! Reading the spec checks the shape only ([`generate`]); the classes are enumerated when
//! the job is submitted or its units listed ([`classes`], through
//! `WeightedUnits::expand`): at 12x12 (R = 6, 63,199 classes) that takes about 11 s on 2
//! cores, which `spec::cache` keeps.

use std::collections::HashMap;
use std::path::Path;

use coordinator::job::{CoreSpec, TwoBandClass, UnitState, UnitTerm};
use coordinator::partition::Imported;
use cores::count::Count;
use cores::grids::two_band::{band_rows, Part};
use cores::label::Label;
use cores::problems::ProblemSpec;

use super::units::{
    field, imported_row, same_problem, LedgerMark, Pending, Resume, ResumedUnit, WeightedUnits,
};

/// The units of generator `two-band` for `problem`, their classes put off (`pending`).
/// Errors are messages for the spec's `[units]` line.
pub fn generate(
    problem: Option<&ProblemSpec>,
    parts: usize,
    resume: Option<&Path>,
) -> Result<WeightedUnits, String> {
    let (spec, box_rows, box_cols, r) = shape(problem)?;
    check_parts(parts)?;
    let ledger = resume.map(BandLedger::read).transpose()?;
    let side = 2 * r;
    Ok(WeightedUnits {
        units: Vec::new(),
        core: CoreSpec::TwoBand { box_rows, box_cols },
        symmetry_factor: Some(Count::one()),
        label: format!(
            "{spec} by two bands: the classes of top-band column configurations of \
             {side}x{side} (enumerated when the job is submitted), each counting B(C)^2"
        ),
        // The resumed ledger's problem, checked when the spec is loaded; its rows are matched
        // to the units once they are generated.
        resume: ledger.as_ref().map(|l| Resume {
            units: Vec::new(),
            problem: l.problem.clone(),
        }),
        orbits: None,
        class_terms: None,
        pending: Some(Pending::TwoBand {
            spec: spec.clone(),
            parts,
            resume: ledger,
        }),
    })
}

/// The units of generator `two-band` for `spec`, every class enumerated.
pub fn classes(
    spec: &ProblemSpec,
    parts: usize,
    resume: Option<&BandLedger>,
) -> Result<WeightedUnits, String> {
    let (spec, box_rows, box_cols, r) = shape(Some(spec))?;
    check_parts(parts)?;
    let built = spec.build().map_err(|e| e.to_string())?;
    let classes = super::cache::units("two-band", &r, || {
        TwoBandClass::all(r).map_err(|e| e.to_string())
    })?;
    let count = classes.len();
    let classes: Vec<TwoBandClass> = if parts == 1 {
        classes
    } else {
        let mut units = Vec::with_capacity(classes.len() * parts);
        for c in &classes {
            units.extend(c.parts(parts).map_err(|e| e.to_string())?);
        }
        units
    };
    let each = if parts == 1 {
        "each counting B(C)^2".to_string()
    } else {
        format!("each cut into {parts} parts of B(C)")
    };
    let side = 2 * r;
    let (resume, resumed) = match resume {
        None => (None, String::new()),
        Some(ledger) => {
            let (resume, counted) = ledger.resume(&classes)?;
            let left = classes.len() - counted;
            (
                Some(resume),
                format!(
                    "; resuming {}: {counted} units counted before (imported, not counted \
                     again), {left} to count",
                    ledger.shown
                ),
            )
        }
    };
    Ok(WeightedUnits {
        units: classes
            .iter()
            // A class size is at most C(2R,R)^R: bounded, u128 at its edge.
            .map(|c| (built.prefix.clone(), Count::from(c.class_size)))
            .collect(),
        core: CoreSpec::TwoBand { box_rows, box_cols },
        symmetry_factor: Some(Count::one()),
        label: format!(
            "{spec} by two bands: {count} classes of top-band column configurations of \
             {side}x{side}, {each}{resumed}"
        ),
        resume,
        orbits: None,
        class_terms: Some(classes.into_iter().map(UnitTerm::TwoBand).collect()),
        pending: None,
    })
}

/// The counted rows of a two-band job's ledger (partial or complete), keyed by class and
/// part, to resume the job from: read whole when the spec is loaded, matched to the units
/// when they are generated ([`BandLedger::resume`]).
#[derive(Debug, Clone, PartialEq)]
pub struct BandLedger {
    shown: String,
    rows: HashMap<(usize, Option<Part>), BandRow>,
    /// The SHA-256 of the problem the ledger was counted on and where it was read.
    problem: Option<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
struct BandRow {
    line: usize,
    config: String,
    class_size: String,
    imported: Option<Imported>,
}

impl BandLedger {
    /// Reads the ledger at `path`; errors name the file and line.
    pub fn read(path: &Path) -> Result<BandLedger, String> {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read it: {e}"))?;
        let mut lines = text.lines().enumerate();
        let header: Vec<&str> = match lines.next() {
            Some((_, h)) => h.split(',').map(str::trim).collect(),
            None => return Err(format!("{shown}:1: empty file (expected a header line)")),
        };
        let col = |name: &str| header.iter().position(|h| *h == name);
        let need = |name: &str| {
            col(name).ok_or_else(|| {
                format!(
                    "{shown}:1: no `{name}` column: a two-band job resumes from its ledger \
                     (`dancehall ledger --partial`)"
                )
            })
        };
        let (unit_col, state_col, class_col, size_col, config_col) = (
            need("unit")?,
            need("state")?,
            need("class")?,
            need("class_size")?,
            need("config")?,
        );
        let (part_col, mark_col, problem_col) = (col("part"), col("ledger"), col("problem"));
        let mut rows: HashMap<(usize, Option<Part>), BandRow> = HashMap::new();
        let mut problem: Option<(String, usize)> = None;
        for (i, line) in lines {
            if line.trim().is_empty() {
                continue;
            }
            let at = |m: String| format!("{shown}:{}: {m}", i + 1);
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let get = |k: usize| field(&fields, k, header.len()).map_err(&at);
            if let Some(k) = mark_col {
                if LedgerMark::parse(get(k)?).is_none() {
                    return Err(at(format!(
                        "ledger `{}`: expected `complete` or `partial`",
                        get(k)?
                    )));
                }
            }
            if let Some(k) = problem_col {
                same_problem(&mut problem, get(k)?, i + 1).map_err(&at)?;
            }
            let class_text = get(class_col)?;
            let class: usize = class_text
                .parse()
                .map_err(|_| at(format!("class `{class_text}` is not a class number")))?;
            let part = match part_col.map(get).transpose()? {
                None | Some("") => None,
                Some(p) => Some(Part::parse(p).map_err(|e| at(e.to_string()))?),
            };
            let state_text = get(state_col)?;
            let state = UnitState::parse(state_text)
                .ok_or_else(|| at(format!("state `{state_text}` is not a unit state")))?;
            let unit = get(unit_col)?.parse::<u64>().ok();
            let imported = if state.has_result() {
                if state == UnitState::Split {
                    return Err(at("a two-band unit is never split".into()));
                }
                Some(imported_row(&header, &fields, state, unit, &shown, i + 1).map_err(&at)?)
            } else {
                None
            };
            let row = BandRow {
                line: i + 1,
                config: get(config_col)?.to_string(),
                class_size: get(size_col)?.to_string(),
                imported,
            };
            if let Some(first) = rows.insert((class, part), row) {
                let what = part.map_or_else(String::new, |p| format!(" part {p}"));
                return Err(at(format!(
                    "class {class}{what} is also line {}",
                    first.line
                )));
            }
        }
        Ok(BandLedger {
            problem: problem.map(|(p, line)| (p, format!("{shown}:{line}"))),
            shown,
            rows,
        })
    }

    /// How each of `units` (the job's, generated again) stands: imported from its row, or
    /// to count (no row, or a row not counted). Refused: a row whose configuration or class
    /// size is not its unit's, a whole class whose count is no square `B(C)^2`, or a row
    /// that is no unit of this job (another cut into parts).
    fn resume(&self, units: &[TwoBandClass]) -> Result<(Resume, usize), String> {
        let mut matched = 0usize;
        let mut counted = 0usize;
        let mut out = Vec::with_capacity(units.len());
        for u in units {
            let imported = match self.rows.get(&(u.class, u.part)) {
                None => None,
                Some(row) => {
                    matched += 1;
                    if row.config != u.config || row.class_size != u.class_size.to_string() {
                        return Err(format!(
                            "{}:{}: class {} is configuration {} of size {} here, but {} of \
                             size {} in this job",
                            self.shown,
                            row.line,
                            u.class,
                            row.config,
                            row.class_size,
                            u.config,
                            u.class_size
                        ));
                    }
                    if let Some(why) = row
                        .imported
                        .as_ref()
                        .and_then(|i| u.malformed_count(&i.solutions))
                    {
                        return Err(format!("{}:{}: {why}", self.shown, row.line));
                    }
                    counted += usize::from(row.imported.is_some());
                    row.imported.clone()
                }
            };
            out.push(ResumedUnit {
                imported,
                parent: None,
            });
        }
        if matched < self.rows.len() {
            let keys: std::collections::HashSet<(usize, Option<Part>)> =
                units.iter().map(|u| (u.class, u.part)).collect();
            let stray = self
                .rows
                .iter()
                .filter(|(key, _)| !keys.contains(key))
                .map(|(_, r)| r.line)
                .min()
                .unwrap_or(0);
            return Err(format!(
                "{}:{stray}: not a unit of this job: its classes are cut into other parts \
                 (`[units] parts`) or it is another count's ledger",
                self.shown
            ));
        }
        Ok((
            Resume {
                units: out,
                problem: self.problem.clone(),
            },
            counted,
        ))
    }
}

/// `parts` as the spec's `[units] parts` may give it.
fn check_parts(parts: usize) -> Result<(), String> {
    Part::check_of(parts).map_err(|e| format!("generator `two-band`: parts = {parts}: {}", e.0))
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
