//! Weighted units of a counting job (a spec's `[units]` table): generated from a symmetry
//! reduction, or read from a CSV file (a ledger written by `dancehall ledger` is such a file,
//! so any finished job can be recounted from its ledger alone).
//!
//! Generators:
//! - `sudoku-grids`: every grid of a plain Sudoku through the band reduction of Felgenhauer
//!   and Jarvis (`cores::grids::units`): one unit per (band-1 column-set class, split of
//!   column 1), weight the class size, factor `side! c!^(r-1) (r-1)! r!^(c-1) (c-1)!`;
//! - `sudoku-variant-grids`: every grid of a Sudoku with variants or extra groups
//!   (`cores::grids::variant_band`): row 1 fixed by relabelling (factor `side!`), one unit
//!   per profile class of first bands, weighted by the class size, counted by the
//!   `sudoku-groups` core;
//! - `queens-first-row`: n queens by the queen of the first row, mirrored: the left half's
//!   columns with weight 2, the middle column (odd n) with weight 1;
//! - `queens-border`: n queens by the queens on the border ring (`cores::queens::units`:
//!   one queen in each of the first and last rows and columns, a corner queen in two of them),
//!   one unit per class under the 8 symmetries of the square, weighted by the class size;
//!   n up to 32 (the 2x2 and 3x3 boards have no such placement and no solution: refused).
//!
//! CSV files: a header line naming at least `weight` and either `givens` (Sudoku problems:
//! one line of side x side cells, `.` or `0` empty) or `prefix` (option ids separated by
//! spaces, the job's own prefix included); a ledger's `factor`, `state`, `unit`, `parent`,
//! `ledger` and `problem` columns are read too ([`read_csv`]); other columns are ignored.
//!
//! A ledger is a count only when its job finished. A partial ledger (`dancehall ledger
//! --partial`: `ledger` = `partial` on every row, and rows of units not yet counted) is
//! refused as a total, naming the file and line; `resume = true` resumes its job instead:
//! the counted rows are imported with their counts (never counted again, marked as imported
//! in the new job's ledger), split rows stay split with their child rows linked, and the
//! rows not yet counted become the units to count. The new job's total is then the old
//! job's, finished elsewhere.

use cores::label::Label;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use strum::{EnumString, IntoStaticStr, VariantArray};

use coordinator::job::{CountCore, UnitState};
use coordinator::partition::Imported;
use cores::count::Count;
use cores::count_core::CoreSpec;
use cores::problems::sudoku::{parse_givens, placements};
use cores::problems::ProblemSpec;
use cores::xcc::OptionId;
use serde::Deserialize;

/// `[units]` of a spec.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitsEntry {
    /// `sudoku-grids`, `sudoku-variant-grids`, `sudoku-orbits`, `two-band`,
    /// `queens-first-row` or `queens-border`.
    pub generator: Option<String>,
    /// A CSV file of weighted units, relative to the spec.
    pub file: Option<PathBuf>,
    /// `sudoku-bands`, `sudoku-groups`, `queens` or `dlx` (default: `sudoku-bands` for
    /// `sudoku-grids`, `sudoku-groups` for `sudoku-variant-grids`, `queens` for
    /// `queens-first-row` and `queens-border`, else `dlx`).
    pub core: Option<String>,
    /// With `file`: the file is a ledger whose job is resumed (its counted units imported,
    /// the others counted), not a list of units to count.
    pub resume: Option<bool>,
    /// Generator `sudoku-orbits`: the group, `full` (default) or `sudoku`.
    pub group: Option<String>,
    /// Generator `sudoku-orbits`: the complete ledger of the same problem's total count,
    /// relative to the spec (the identity's term is imported from it).
    pub total_ledger: Option<PathBuf>,
    /// Generator `two-band`: cut each class into this many units, each counting a part of
    /// its B(C) (`cores::grids::two_band::band_fillings_part`), the class's term formed once
    /// every part is in (default 1: a unit per class, counting B(C)^2).
    pub parts: Option<usize>,
}

/// What the `ledger` column of a ledger says: whether the file is its job's count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum LedgerMark {
    /// The job finished: every unit is counted, the file is a count.
    Complete,
    /// The job had not finished: work to resume, never a count.
    Partial,
}

/// How a resumed job's units stand, one per unit of [`WeightedUnits::units`], in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Resume {
    pub units: Vec<ResumedUnit>,
    /// The SHA-256 of the problem the ledger was counted on (its `problem` column) and where
    /// it was read (`file:line`); `None` for a ledger without the column.
    pub problem: Option<(String, String)>,
}

/// One unit of a resumed job.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumedUnit {
    /// Its count from the ledger (`None`: still to count).
    pub imported: Option<Imported>,
    /// The index among the units of the split unit it was handed back from.
    pub parent: Option<usize>,
}

/// A job's weighted units and how to count them.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedUnits {
    /// Full prefixes (option ids) with their weights.
    pub units: Vec<(Vec<OptionId>, Count)>,
    pub core: CoreSpec,
    /// The factor the weighted sum is multiplied by (`None`: the problem's own).
    pub symmetry_factor: Option<Count>,
    /// What the units stand for, for labels.
    pub label: String,
    /// Set when the units resume a job from its partial ledger.
    pub resume: Option<Resume>,
    /// Set for an orbit count (generator `sudoku-orbits`): each unit's class term.
    pub orbits: Option<super::orbits::OrbitUnits>,
    /// Set for a count by band configurations (generators `two-band`, `three-band`): each
    /// unit's configuration class.
    pub class_terms: Option<Vec<coordinator::job::UnitTerm>>,
    /// Units put off until the job is submitted or its units are listed
    /// (`Spec::expand_units`): `units` is empty until then. A two-band count's classes take
    /// about 11 s to enumerate at 12x12, so loading a spec (every `run`, and the test that
    /// every shipped spec loads) does not enumerate them.
    pub pending: Option<Pending>,
}

/// Units whose generation waits for [`WeightedUnits::expand`].
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// Generator `two-band` on this plain Sudoku (checked when the spec was read), each class
    /// cut into `parts` parts, resuming the job of a ledger already read.
    TwoBand {
        spec: ProblemSpec,
        parts: usize,
        resume: Option<super::two_band::BandLedger>,
    },
}

impl WeightedUnits {
    /// Generates the units put off at loading (`pending`); nothing to do without.
    pub fn expand(&mut self) -> Result<(), String> {
        match self.pending.take() {
            None => Ok(()),
            Some(Pending::TwoBand {
                spec,
                parts,
                resume,
            }) => {
                *self = super::two_band::classes(&spec, parts, resume.as_ref())?;
                Ok(())
            }
        }
    }

    /// The class unit `k` counts, for a count by classes (orbit terms, band classes).
    pub fn term(&self, k: usize) -> Option<coordinator::job::UnitTerm> {
        use coordinator::job::UnitTerm;
        if let Some(o) = &self.orbits {
            return o.terms.get(k).cloned().map(UnitTerm::Orbit);
        }
        self.class_terms.as_ref()?.get(k).cloned()
    }
}

/// The plain Sudoku box shape of `spec`, if it is one (no variants, groups, givens or fixed
/// row).
pub(crate) fn plain_sudoku(spec: &ProblemSpec) -> Option<(usize, usize)> {
    match spec {
        ProblemSpec::Sudoku {
            box_rows,
            box_cols,
            variants,
            extra_groups,
            givens: None,
            fix_first_row: false,
        } if variants.is_empty() && extra_groups.is_empty() => Some((*box_rows, *box_cols)),
        _ => None,
    }
}

/// A Sudoku whose every grid is counted (any variants or groups; no givens or fixed row),
/// with its box shape.
pub(super) fn every_grid(spec: Option<&ProblemSpec>) -> Option<(&ProblemSpec, usize, usize)> {
    match spec {
        Some(
            s @ ProblemSpec::Sudoku {
                box_rows,
                box_cols,
                givens: None,
                fix_first_row: false,
                ..
            },
        ) => Some((s, *box_rows, *box_cols)),
        _ => None,
    }
}

/// The box shape of a Sudoku problem (with or without variants), for reading givens.
fn sudoku_shape(spec: Option<&ProblemSpec>) -> Option<(usize, usize)> {
    match spec {
        Some(ProblemSpec::Sudoku {
            box_rows, box_cols, ..
        }) => Some((*box_rows, *box_cols)),
        _ => None,
    }
}

impl UnitsEntry {
    /// Builds the units for `problem` (`None`: a DLX-file problem); `dir` is the spec's
    /// folder. Errors are messages for the spec's `[units]` line.
    pub fn build(
        &self,
        problem: Option<&ProblemSpec>,
        dir: &Path,
    ) -> Result<WeightedUnits, String> {
        let resume = self.resume.unwrap_or(false);
        let orbits = self.generator.as_deref() == Some("sudoku-orbits");
        if !orbits && (self.group.is_some() || self.total_ledger.is_some()) {
            return Err("`group` and `total_ledger` belong to generator \"sudoku-orbits\"".into());
        }
        if orbits {
            if self.core.is_some() || resume {
                return Err(
                    "generator `sudoku-orbits` counts its class terms with its own core \
                     (sudoku-orbits): no `core`, no `resume`"
                        .into(),
                );
            }
            return super::orbits::generate(
                problem,
                self.group.as_deref(),
                self.total_ledger.as_deref(),
                dir,
            );
        }
        if self.parts.is_some() && self.generator.as_deref() != Some("two-band") {
            return Err("`parts` belongs to generator \"two-band\"".into());
        }
        if let Some(g @ ("two-band" | "three-band")) = self.generator.as_deref() {
            // A two-band job resumes from its ledger: `file` with `resume = true`.
            let resumes = g == "two-band" && resume && self.file.is_some();
            if self.core.is_some() || ((resume || self.file.is_some()) && !resumes) {
                return Err(format!(
                    "generator `{g}` counts its classes with its own core ({g}): no `core`; \
                     `file` only with `resume = true`, to resume a two-band job from its ledger"
                ));
            }
            return if g == "two-band" {
                let ledger = self.file.as_ref().map(|f| dir.join(f));
                super::two_band::generate(problem, self.parts.unwrap_or(1), ledger.as_deref())
            } else {
                super::three_band::generate(problem)
            };
        }
        let mut units = match (&self.generator, &self.file) {
            (Some(_), None) if resume => {
                return Err("`resume = true` resumes a ledger: give it as `file`".into())
            }
            (Some(g), None) => generate(g, problem)?,
            (None, Some(f)) => read_csv(&dir.join(f), sudoku_shape(problem), resume)?,
            (Some(_), Some(_)) => return Err("give either `generator` or `file`, not both".into()),
            (None, None) => return Err("[units] needs a `generator` or a `file`".into()),
        };
        if let Some(name) = &self.core {
            units.core = named_core(name, problem)?;
        }
        if units.units.is_empty() {
            return Err("no units".into());
        }
        Ok(units)
    }
}

/// The core of a job the coordinator cuts when its spec names none: the bitboard queens core
/// for the n queens problem it can count (as `run queens N` chooses), else the engine.
pub fn default_core(family: Option<&ProblemSpec>, problem: &cores::xcc::Problem) -> CoreSpec {
    match family {
        Some(ProblemSpec::Queens { n }) if (CoreSpec::Queens { n: *n }).can_count(problem) => {
            CoreSpec::Queens { n: *n }
        }
        _ => CoreSpec::Dlx,
    }
}

/// The cores a spec's `core` key can name ([`named_core`]).
pub const CORE_NAMES: [&str; 4] = ["dlx", "queens", "sudoku-bands", "sudoku-groups"];

/// The core named by a spec's `core` key (`[units]` or `[partition]`) for `problem`: refused
/// when that core cannot count the problem.
pub fn named_core(name: &str, problem: Option<&ProblemSpec>) -> Result<CoreSpec, String> {
    match name {
        "dlx" => Ok(CoreSpec::Dlx),
        "queens" => match problem {
            Some(ProblemSpec::Queens { n }) if *n <= cores::queens::MAX_N => {
                Ok(CoreSpec::Queens { n: *n })
            }
            _ => Err(format!(
                "core `queens` counts the n queens problem (family = \"queens\", n up to {}); \
                 use core = \"dlx\"",
                cores::queens::MAX_N
            )),
        },
        "sudoku-groups" => match sudoku_shape(problem) {
            Some((box_rows, box_cols)) => Ok(CoreSpec::SudokuGroups { box_rows, box_cols }),
            None => Err("core `sudoku-groups` counts Sudoku grids".into()),
        },
        "sudoku-bands" => match problem.and_then(plain_sudoku) {
            Some((box_rows, box_cols)) => Ok(CoreSpec::SudokuBands { box_rows, box_cols }),
            None => Err(
                "core `sudoku-bands` counts plain Sudoku grids only (no variants, extra \
                         groups, givens or fixed row); use core = \"dlx\""
                    .into(),
            ),
        },
        other => Err(format!(
            "unknown core `{other}` (expected one of {})",
            CORE_NAMES.join(", ")
        )),
    }
}

fn generate(generator: &str, problem: Option<&ProblemSpec>) -> Result<WeightedUnits, String> {
    match generator {
        "sudoku-grids" => {
            let (r, c) = problem.and_then(plain_sudoku).ok_or(
                "generator `sudoku-grids` counts plain Sudoku grids (family = \"sudoku\" without \
                 variants, extra groups, givens or fixed row); variants are counted by plain \
                 splitting: remove [units]",
            )?;
            let gu = super::cache::units("sudoku-grids", &(r, c), || {
                cores::grids::units::grid_units(r, c).map_err(|e| e.to_string())
            })?;
            let n = r * c;
            let units = gu
                .units
                .iter()
                .map(|u| (placements(&u.givens, n), Count::from(u.weight)))
                .collect();
            Ok(WeightedUnits {
                units,
                core: CoreSpec::SudokuBands {
                    box_rows: r,
                    box_cols: c,
                },
                symmetry_factor: Some(Count::from(gu.symmetry_factor)),
                orbits: None,
                class_terms: None,
                pending: None,
                resume: None,
                label: format!(
                    "sudoku {r}x{c} grids: {} band-1 classes x {} column-1 splits",
                    gu.band_classes, gu.column_splits
                ),
            })
        }
        "sudoku-variant-grids" => {
            let Some((spec, r, c)) = every_grid(problem) else {
                return Err(
                    "generator `sudoku-variant-grids` counts every grid of a Sudoku with its \
                     variants and extra groups (family = \"sudoku\", no givens or fixed row)"
                        .into(),
                );
            };
            let built = spec.build().map_err(|e| e.to_string())?;
            let groups = cores::grids::groups::read_groups(r, c, &built.problem)
                .map_err(|e| e.to_string())?;
            let band = cores::grids::variant_band::unit_band(&groups);
            // The variant's symmetries merge classes; a group too large to list merges none
            // (still exact: more classes, each counted), and the label says so.
            let (bu, unmerged) = super::cache::units("sudoku-variant-grids", spec, || {
                let (symmetries, unmerged) =
                    match cores::grids::symmetry::variant_symmetries(&groups) {
                        Ok(s) => (s.perms, None),
                        Err(e) => (Vec::new(), Some(e.to_string())),
                    };
                cores::grids::variant_band::band_units(&groups, band, &symmetries)
                    .map(|bu| (bu, unmerged))
                    .map_err(|e| e.to_string())
            })?;
            let n = r * c;
            let units = bu
                .units
                .iter()
                .map(|u| (placements(&u.givens, n), Count::from(u.weight)))
                .collect();
            Ok(WeightedUnits {
                label: format!(
                    "{spec} grids: row {} fixed (x {n}!), {} fillings of band {} in {} classes{}",
                    band * r + 1,
                    bu.bands,
                    band + 1,
                    bu.units.len(),
                    unmerged.map_or_else(String::new, |e| format!(
                        " (not merged by the variant's symmetries: {e})"
                    ))
                ),
                units,
                core: CoreSpec::SudokuGroups {
                    box_rows: r,
                    box_cols: c,
                },
                symmetry_factor: Some(Count::from(bu.symmetry_factor)),
                orbits: None,
                class_terms: None,
                pending: None,
                resume: None,
            })
        }
        "queens-first-row" => {
            let Some(ProblemSpec::Queens { n }) = problem else {
                return Err("generator `queens-first-row` needs family = \"queens\"".into());
            };
            let n = *n;
            // Option id of a queen at (0, c) is c (cores::problems::queens numbers row-major).
            let mut units: Vec<(Vec<OptionId>, Count)> =
                (0..n / 2)
                    .map(|c| (vec![c as OptionId], Count::from(2u8)))
                    .collect();
            if n % 2 == 1 {
                units.push((vec![(n / 2) as OptionId], Count::one()));
            }
            // Counted by the bitboard queens core where it fits (`core = "dlx"` keeps the
            // engine).
            let core = if n <= cores::queens::MAX_N {
                CoreSpec::Queens { n }
            } else {
                CoreSpec::Dlx
            };
            Ok(WeightedUnits {
                units,
                core,
                symmetry_factor: None,
                orbits: None,
                class_terms: None,
                pending: None,
                resume: None,
                label: format!("queens {n} by the first row's left half (x2) and middle (x1)"),
            })
        }
        "queens-border" => {
            let Some(ProblemSpec::Queens { n }) = problem else {
                return Err("generator `queens-border` needs family = \"queens\"".into());
            };
            let n = *n;
            let max = cores::queens::MAX_N;
            if n > max {
                return Err(format!(
                    "generator `queens-border` takes n up to {max} (the queens core's boards): \
                     got n = {n}"
                ));
            }
            let bu = cores::queens::units::border_units(n).map_err(|e| e.to_string())?;
            if bu.units.is_empty() {
                return Err(format!(
                    "generator `queens-border`: no placement of queens on the border of the \
                     {n}x{n} board (n = 2 and 3 have no solution, OEIS A000170): count it \
                     without [units]"
                ));
            }
            // Option ids are row * n + col (cores::problems::queens numbers row-major), as
            // the units' prefixes are.
            let units = bu
                .units
                .iter()
                .map(|u| (u.prefix.clone(), Count::from(u.weight)))
                .collect();
            Ok(WeightedUnits {
                units,
                core: CoreSpec::Queens { n },
                symmetry_factor: None,
                orbits: None,
                class_terms: None,
                pending: None,
                resume: None,
                label: format!(
                    "queens {n} by the queens on the border: {} placements in {} classes under \
                     the symmetries of the square",
                    bu.placements,
                    bu.units.len()
                ),
            })
        }
        other => Err(format!(
            "unknown generator `{other}` (expected `sudoku-grids`, `sudoku-variant-grids`, `two-band`, \
             `sudoku-orbits`, `queens-first-row` or `queens-border`)"
        )),
    }
}

/// Field `k` of a CSV row split into `fields`, or why the row is too short (the caller says
/// where).
pub(super) fn field<'a>(fields: &[&'a str], k: usize, header: usize) -> Result<&'a str, String> {
    fields
        .get(k)
        .copied()
        .ok_or_else(|| format!("{} fields, the header has {header}", fields.len()))
}

/// Checks that a ledger row's `problem` (line `line`) is the first row's, which `problem`
/// keeps with its line: a ledger is one job's.
pub(super) fn same_problem(
    problem: &mut Option<(String, usize)>,
    p: &str,
    line: usize,
) -> Result<(), String> {
    match problem {
        None => *problem = Some((p.to_string(), line)),
        Some((q, first)) if q != p => {
            return Err(format!(
                "problem {p} differs from the problem {q} of line {first}: a ledger is one job's"
            ))
        }
        Some(_) => {}
    }
    Ok(())
}

/// One row of a units file, as read.
struct CsvRow {
    line: usize,
    unit: Option<u64>,
    state: Option<UnitState>,
    parent: Option<u64>,
    prefix: Vec<OptionId>,
    weight: Count,
    /// A counted row's result, read when resuming.
    imported: Option<Imported>,
}

/// Reads a CSV file of weighted units; errors name the file and line.
///
/// A ledger (`dancehall ledger`) is read so that its total is recounted exactly:
/// - its `factor` column (the same on every row) is the units' symmetry factor;
/// - a `split` row's count covered only part of its subtree, the rest being its child units
///   (`parent` names the split row's `unit`); recounted, the split row's prefix counts its
///   whole subtree, so every row below a split row in the file is left out. A split row
///   needs the `unit` and `parent` columns to tell its descendants apart, a row whose parent
///   is not in the file or is not `split` cannot be read unambiguously, and a child must
///   extend its parent's prefix: each of these is refused, naming the line;
/// - a partial ledger (a row whose `ledger` is `partial`, or a unit not yet counted) is
///   refused: its total is not a count.
///
/// With `resume`, the file is a ledger whose job is resumed ([`Resume`]): its `done` and
/// `split` rows are imported with their `count`, `nodes`, `core` and `seconds`, the others
/// (`queued`, `leased`, `cancelled`) are the units to count, and split rows keep their child
/// rows (no row is left out).
pub fn read_csv(
    path: &Path,
    sudoku: Option<(usize, usize)>,
    resume: bool,
) -> Result<WeightedUnits, String> {
    let shown = path.display();
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read it: {e}"))?;
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split(',').map(str::trim).collect(),
        None => return Err(format!("{shown}:1: empty file (expected a header line)")),
    };
    let col = |name: &str| header.iter().position(|h| *h == name);
    if col("class").is_some() && col("element").is_some() {
        return Err(format!(
            "{shown}:1: the ledger of an orbit count: its rows are class terms, not subtrees to \
             count again; recount a row with `dancehall count sudoku --box RxC --term ELEMENT`, \
             or give the spec generator = \"sudoku-orbits\""
        ));
    }
    if col("class").is_some() && col("config").is_some() {
        return Err(format!(
            "{shown}:1: the ledger of a count by band configurations: its rows are classes, not \
             subtrees to count again; recount a row with `dancehall count sudoku --box RxC \
             --band-config CONFIG`, or resume a two-band job with generator = \"two-band\", \
             file and resume = true"
        ));
    }
    let weight_col = col("weight").ok_or(format!("{shown}:1: no `weight` column"))?;
    let (cells_col, is_givens) = match (col("givens"), col("prefix")) {
        (Some(g), _) => (g, true),
        (None, Some(p)) => (p, false),
        (None, None) => return Err(format!("{shown}:1: no `givens` or `prefix` column")),
    };
    let side = match (is_givens, sudoku) {
        (true, Some((r, c))) => Some(r * c),
        (true, None) => {
            return Err(format!(
                "{shown}:1: a `givens` column needs a Sudoku problem (family = \"sudoku\")"
            ))
        }
        (false, _) => None,
    };
    let (unit_col, state_col, parent_col, factor_col) =
        (col("unit"), col("state"), col("parent"), col("factor"));
    let (mark_col, problem_col) = (col("ledger"), col("problem"));
    if resume {
        for need in ["unit", "state", "parent", "count"] {
            if col(need).is_none() {
                return Err(format!(
                    "{shown}:1: no `{need}` column: `resume = true` reads a ledger written by \
                     `dancehall ledger --partial`"
                ));
            }
        }
    }
    let mut rows = Vec::new();
    let mut factor: Option<(Count, usize)> = None;
    let mut problem: Option<(String, usize)> = None;
    let (mut counted, mut to_count) = (0usize, 0usize);
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let at = |m: String| format!("{shown}:{}: {m}", i + 1);
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let get = |k: usize| field(&fields, k, header.len()).map_err(&at);
        let partial_refused = |why: String| {
            at(format!(
                "{why}: this is a partial ledger (written by `dancehall ledger --partial` of a \
                 job that had not finished), work to resume, not a count. Resume its job with \
                 `resume = true` under [units] (its counted units kept, the rest counted)"
            ))
        };
        if let Some(k) = mark_col {
            match LedgerMark::parse(get(k)?) {
                Some(LedgerMark::Complete) => {}
                Some(LedgerMark::Partial) if resume => {}
                Some(LedgerMark::Partial) => {
                    return Err(partial_refused("`ledger` says `partial`".into()))
                }
                None => {
                    return Err(at(format!(
                        "ledger `{}`: expected `complete` or `partial`",
                        get(k)?
                    )))
                }
            }
        }
        if let Some(k) = problem_col {
            same_problem(&mut problem, get(k)?, i + 1).map_err(&at)?;
        }
        let w = get(weight_col)?;
        let weight: Count = match w.parse::<Count>() {
            Ok(w) if !w.is_zero() => w,
            Ok(_) => return Err(at(format!("weight `{w}` is not an integer >= 1"))),
            Err(e) => return Err(at(format!("weight `{w}` is not an integer >= 1: {e}"))),
        };
        let cells = get(cells_col)?;
        let prefix = match side {
            Some(n) => {
                let g = parse_givens(cells, n).map_err(|e| at(format!("givens: {e}")))?;
                placements(&g, n)
            }
            None => cells
                .split_whitespace()
                .map(|w| w.parse::<OptionId>())
                .collect::<Result<_, _>>()
                .map_err(|_| at(format!("prefix `{cells}` is not a list of option ids")))?,
        };
        if let Some(k) = factor_col {
            let f = get(k)?;
            let f: Count = match f.parse::<Count>() {
                Ok(f) if !f.is_zero() => f,
                Ok(_) => return Err(at(format!("factor `{f}` is not an integer >= 1"))),
                Err(e) => return Err(at(format!("factor `{f}` is not an integer >= 1: {e}"))),
            };
            match factor {
                None => factor = Some((f, i + 1)),
                Some((g, first)) if g != f => {
                    return Err(at(format!(
                        "factor {f} differs from the factor {g} of line {first}: a ledger has \
                         one symmetry factor"
                    )))
                }
                Some(_) => {}
            }
        }
        let id = |k: Option<usize>, what: &str| -> Result<Option<u64>, String> {
            match k.map(get).transpose()? {
                None | Some("") => Ok(None),
                Some(v) => v
                    .parse()
                    .map(Some)
                    .map_err(|_| at(format!("{what} `{v}` is not a unit id"))),
            }
        };
        let unit = id(unit_col, "unit")?;
        let state = match state_col.map(get).transpose()? {
            None => None,
            Some(v) => match UnitState::parse(v) {
                Some(s @ (UnitState::Done | UnitState::Split)) => Some(s),
                Some(s) if resume => Some(s),
                Some(s) => {
                    return Err(partial_refused(format!(
                        "unit {} is `{}`: it was never counted",
                        unit.map_or_else(|| "?".into(), |u| u.to_string()),
                        s.as_str()
                    )))
                }
                None => {
                    return Err(at(format!(
                        "state `{v}`: a ledger row is `done` or `split` (`queued`, `leased` or \
                         `cancelled` in a partial ledger)"
                    )))
                }
            },
        };
        let imported = match state {
            Some(s) if resume && s.has_result() => {
                counted += 1;
                Some(
                    imported_row(&header, &fields, s, unit, &shown.to_string(), i + 1)
                        .map_err(at)?,
                )
            }
            _ => {
                to_count += 1;
                None
            }
        };
        rows.push(CsvRow {
            line: i + 1,
            unit,
            state,
            parent: id(parent_col, "parent")?,
            prefix,
            weight,
            imported,
        });
    }
    if resume {
        let units = resumed(rows).map_err(|(line, m)| format!("{shown}:{line}: {m}"))?;
        let (units, resumed): (Vec<_>, Vec<_>) = units.into_iter().unzip();
        return Ok(WeightedUnits {
            label: format!(
                "resuming the job of {shown}: {counted} units counted before (imported, not \
                 counted again), {to_count} to count"
            ),
            units,
            core: CoreSpec::Dlx,
            symmetry_factor: factor.map(|(f, _)| f),
            resume: Some(Resume {
                units: resumed,
                problem: problem.map(|(p, line)| (p, format!("{shown}:{line}"))),
            }),
            orbits: None,
            class_terms: None,
            pending: None,
        });
    }
    let rows = fold_splits(rows, unit_col.is_some() && parent_col.is_some())
        .map_err(|(line, m)| format!("{shown}:{line}: {m}"))?;
    let folded = rows.1;
    let units: Vec<(Vec<OptionId>, Count)> =
        rows.0.into_iter().map(|r| (r.prefix, r.weight)).collect();
    let mut label = format!("{} weighted units from {shown}", units.len());
    if folded > 0 {
        label.push_str(&format!(
            " ({folded} rows below split units left out: a split unit counts its whole subtree)"
        ));
    }
    Ok(WeightedUnits {
        units,
        core: CoreSpec::Dlx,
        symmetry_factor: factor.map(|(f, _)| f),
        label,
        orbits: None,
        class_terms: None,
        pending: None,
        resume: None,
    })
}

/// The result of a counted ledger row (`count`, and `nodes`, `core`, `seconds`, `host` where
/// the file has them), with where it came from.
pub(super) fn imported_row(
    header: &[&str],
    fields: &[&str],
    state: UnitState,
    unit: Option<u64>,
    file: &str,
    line: usize,
) -> Result<Imported, String> {
    let field = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .and_then(|k| fields.get(k).copied())
            .unwrap_or("")
    };
    let count = field("count");
    let solutions = count.parse().map_err(|_| {
        format!(
            "count `{count}` of a `{}` row is not a count",
            state.as_str()
        )
    })?;
    let nodes = match field("nodes") {
        "" => 0,
        v => v
            .parse()
            .map_err(|_| format!("nodes `{v}` is not a node count"))?,
    };
    let core = match field("core") {
        "" => CountCore::Dlx,
        v => CountCore::parse(v).ok_or_else(|| format!("core `{v}` is not a counting core"))?,
    };
    let wall_seconds = match field("seconds") {
        "" => 0.0,
        v => v
            .parse()
            .map_err(|_| format!("seconds `{v}` is not a number"))?,
    };
    let host = field("host");
    Ok(Imported {
        solutions,
        nodes,
        core,
        split: state == UnitState::Split,
        wall_seconds,
        source: format!(
            "imported: {file}:{line}, unit {}{}",
            unit.map_or_else(|| "?".into(), |u| u.to_string()),
            if host.is_empty() {
                String::new()
            } else {
                format!(" counted on {host}")
            }
        ),
    })
}

/// A resumed ledger's rows as units, in file order, each with its imported result and the
/// index of its parent. A parent must be an earlier `split` row of the file whose prefix the
/// row extends. Errors carry the line.
#[allow(clippy::type_complexity)] // (unit, how it stands), one per row
fn resumed(
    rows: Vec<CsvRow>,
) -> Result<Vec<((Vec<OptionId>, Count), ResumedUnit)>, (usize, String)> {
    let mut by_unit: HashMap<u64, usize> = HashMap::new();
    let mut out: Vec<((Vec<OptionId>, Count), ResumedUnit)> = Vec::with_capacity(rows.len());
    let mut splits: Vec<bool> = Vec::with_capacity(rows.len());
    for (k, r) in rows.into_iter().enumerate() {
        let Some(u) = r.unit else {
            return Err((
                r.line,
                "no `unit` id: a resumed ledger names every unit".into(),
            ));
        };
        if let Some(&first) = by_unit.get(&u) {
            return Err((r.line, format!("unit {u} is also row {}", first + 1)));
        }
        by_unit.insert(u, k);
        let parent = match r.parent {
            None => None,
            Some(p) => {
                let pk = *by_unit.get(&p).ok_or_else(|| {
                    (
                        r.line,
                        format!(
                            "its parent unit {p} is not on an earlier line: a resumed ledger \
                             keeps every unit of its job, parents first"
                        ),
                    )
                })?;
                if !splits[pk] {
                    return Err((r.line, format!("its parent unit {p} is not a `split` row")));
                }
                if !extends(&r.prefix, &out[pk].0 .0) {
                    return Err((
                        r.line,
                        format!("its prefix does not extend the prefix of its parent unit {p}"),
                    ));
                }
                Some(pk)
            }
        };
        splits.push(r.state == Some(UnitState::Split));
        out.push((
            (r.prefix, r.weight),
            ResumedUnit {
                imported: r.imported,
                parent,
            },
        ));
    }
    Ok(out)
}

/// The rows that stand for disjoint subtrees: every row but those below a `split` row (named
/// by their `parent`), and how many were left out. Errors carry the line.
fn fold_splits(
    rows: Vec<CsvRow>,
    has_tree_columns: bool,
) -> Result<(Vec<CsvRow>, usize), (usize, String)> {
    if let Some(r) = rows.iter().find(|r| r.state == Some(UnitState::Split)) {
        if !has_tree_columns || r.unit.is_none() {
            return Err((
                r.line,
                "a `split` row needs the `unit` and `parent` columns: its count covers only part \
                 of its subtree and its child units must be told apart (export the ledger again \
                 with `dancehall ledger`)"
                    .into(),
            ));
        }
    }
    let mut by_unit: HashMap<u64, usize> = HashMap::new();
    for (k, r) in rows.iter().enumerate() {
        if let Some(u) = r.unit {
            if let Some(&first) = by_unit.get(&u) {
                return Err((
                    r.line,
                    format!("unit {u} is also on line {}", rows[first].line),
                ));
            }
            by_unit.insert(u, k);
        }
    }
    let mut keep = Vec::with_capacity(rows.len());
    let mut folded = 0;
    for r in &rows {
        let Some(p) = r.parent else {
            keep.push(true);
            continue;
        };
        let Some(&pk) = by_unit.get(&p) else {
            return Err((
                r.line,
                format!(
                    "its parent unit {p} is not in the file: the rows of a split subtree must \
                     come with the split row (a ledger cut short cannot be recounted)"
                ),
            ));
        };
        let parent = &rows[pk];
        if parent.state != Some(UnitState::Split) {
            return Err((
                r.line,
                format!(
                    "its parent unit {p} (line {}) is not a `split` row",
                    parent.line
                ),
            ));
        }
        if !extends(&r.prefix, &parent.prefix) {
            return Err((
                r.line,
                format!(
                    "its prefix does not extend the prefix of its parent unit {p} (line {})",
                    parent.line
                ),
            ));
        }
        folded += 1;
        keep.push(false);
    }
    let kept = rows
        .into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect();
    Ok((kept, folded))
}

/// Whether `child` places every option of `parent` and more (as sets: a Sudoku givens line
/// does not keep the order of its placements).
fn extends(child: &[OptionId], parent: &[OptionId]) -> bool {
    let own: std::collections::HashSet<OptionId> = child.iter().copied().collect();
    child.len() > parent.len() && parent.iter().all(|o| own.contains(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weighted units with machine-integer weights, as `WeightedUnits::units` holds them.
    fn weighted(units: Vec<(Vec<OptionId>, u128)>) -> Vec<(Vec<OptionId>, Count)> {
        units
            .into_iter()
            .map(|(p, w)| (p, Count::from(w)))
            .collect()
    }

    fn some(n: u128) -> Option<Count> {
        Some(Count::from(n))
    }

    fn sudoku(r: usize, c: usize) -> ProblemSpec {
        ProblemSpec::sudoku(r, c)
    }

    #[test]
    fn sudoku_grids_need_a_plain_grid() {
        let e = UnitsEntry {
            generator: Some("sudoku-grids".into()),
            ..Default::default()
        };
        let u = e.build(Some(&sudoku(2, 3)), Path::new(".")).unwrap();
        assert_eq!(u.symmetry_factor, some(720 * 6 * 8));
        assert_eq!(
            u.core,
            CoreSpec::SudokuBands {
                box_rows: 2,
                box_cols: 3
            }
        );
        let mut diag = sudoku(2, 3);
        if let ProblemSpec::Sudoku { variants, .. } = &mut diag {
            variants.push(cores::problems::Variant::Diagonal);
        }
        let err = e.build(Some(&diag), Path::new(".")).unwrap_err();
        assert!(err.contains("plain splitting"), "{err}");
    }

    #[test]
    fn queens_first_row_weights_mirror_images() {
        let e = UnitsEntry {
            generator: Some("queens-first-row".into()),
            ..Default::default()
        };
        let u = e
            .build(Some(&ProblemSpec::Queens { n: 5 }), Path::new("."))
            .unwrap();
        assert_eq!(
            u.units,
            weighted(vec![(vec![0], 2), (vec![1], 2), (vec![2], 1)])
        );
        assert_eq!(
            u.core,
            CoreSpec::Queens { n: 5 },
            "the bitboard core by default"
        );
        let dlx = UnitsEntry {
            core: Some("dlx".into()),
            ..e.clone()
        };
        let u = dlx
            .build(Some(&ProblemSpec::Queens { n: 5 }), Path::new("."))
            .unwrap();
        assert_eq!(u.core, CoreSpec::Dlx);
        let u = e
            .build(Some(&ProblemSpec::Queens { n: 4 }), Path::new("."))
            .unwrap();
        assert_eq!(u.units, weighted(vec![(vec![0], 2), (vec![1], 2)]));
    }

    #[test]
    fn queens_border_weights_the_classes_of_border_placements() {
        let e = UnitsEntry {
            generator: Some("queens-border".into()),
            ..Default::default()
        };
        let u = e
            .build(Some(&ProblemSpec::Queens { n: 4 }), Path::new("."))
            .unwrap();
        // 4 queens: 10 border placements in two classes, r1c1 r2c4 r4c3 (8 images, no
        // completion) and r1c2 r2c4 r3c1 r4c3 (a solution and its mirror image: OEIS
        // A000170 gives 2).
        assert_eq!(
            u.units,
            weighted(vec![(vec![0, 7, 14], 8), (vec![1, 7, 8, 14], 2)])
        );
        assert_eq!(u.core, CoreSpec::Queens { n: 4 });
        assert!(
            u.label.contains("10 placements in 2 classes"),
            "{}",
            u.label
        );
        let u = e
            .build(Some(&ProblemSpec::Queens { n: 12 }), Path::new("."))
            .unwrap();
        let weights: Count = u.units.iter().map(|(_, w)| w).sum();
        let placements = cores::queens::units::border_placements(12).unwrap();
        assert_eq!(weights, Count::from(placements.len()));
        let u = e
            .build(Some(&ProblemSpec::Queens { n: 1 }), Path::new("."))
            .unwrap();
        assert_eq!(
            u.units,
            weighted(vec![(vec![0], 1)]),
            "one queen on every border line"
        );
        for (n, why) in [
            (3, "no placement of queens on the border"),
            (33, "n up to 32"),
        ] {
            let err = e
                .build(Some(&ProblemSpec::Queens { n }), Path::new("."))
                .unwrap_err();
            assert!(err.contains(why), "{err}");
        }
        let err = e.build(Some(&sudoku(2, 2)), Path::new(".")).unwrap_err();
        assert!(err.contains("needs family = \"queens\""), "{err}");
    }

    #[test]
    fn csv_units_name_the_line_of_a_bad_row() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("u.csv");
        std::fs::write(
            &p,
            "unit,givens,weight\n1,1...............,3\n2,12..............,x\n",
        )
        .unwrap();
        let err = read_csv(&p, Some((2, 2)), false).unwrap_err();
        assert!(
            err.contains(":3: weight `x` is not an integer >= 1: ")
                && err.contains("'x' at byte 0"),
            "{err}"
        );
        std::fs::write(&p, "weight,prefix\n3,0 5\n7,\n").unwrap();
        let u = read_csv(&p, None, false).unwrap();
        assert_eq!(u.units, weighted(vec![(vec![0, 5], 3), (vec![], 7)]));
        // Weights and a factor past 2^128 are read exact (the 12x12 Sudoku's count).
        let n = "38296278920738107863746324732012492486187417600000";
        std::fs::write(&p, format!("weight,prefix,factor\n{n},0 5,{n}\n1,1,{n}\n")).unwrap();
        let u = read_csv(&p, None, false).unwrap();
        assert_eq!(u.units[0].1.to_string(), n);
        assert_eq!(
            u.symmetry_factor.as_ref().map(Count::to_string),
            Some(n.to_string())
        );
        std::fs::write(&p, "weight,prefix\n-3,0\n").unwrap();
        let err = read_csv(&p, None, false).unwrap_err();
        assert!(
            err.contains(":2: weight `-3`") && err.contains("without a sign"),
            "{err}"
        );
        std::fs::write(&p, "weight,givens\n3,1..\n").unwrap();
        let err = read_csv(&p, Some((2, 2)), false).unwrap_err();
        assert!(err.contains(":2: givens:"), "{err}");
        std::fs::write(
            &p,
            "unit,state,givens,weight,count,factor,class,class_size,element\n\
             1,done,....,1,12,1,1,1,1234/1234\n",
        )
        .unwrap();
        let err = read_csv(&p, Some((2, 2)), false).unwrap_err();
        assert!(err.contains(":1: the ledger of an orbit count"), "{err}");
    }

    #[test]
    fn a_ledger_read_as_units_counts_each_split_subtree_once_with_its_factor() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ledger.csv");
        let head = "unit,state,parent,prefix,weight,count,factor\n";
        // Unit 2 was split: 4 and 5 are its children, 6 a child of 5.
        std::fs::write(
            &p,
            format!(
                "{head}1,done,,0,2,3,6\n2,split,,1,2,1,6\n4,done,2,1 7,2,5,6\n\
                 5,split,2,1 8,2,0,6\n6,done,5,1 8 9,2,1,6\n"
            ),
        )
        .unwrap();
        let u = read_csv(&p, None, false).unwrap();
        assert_eq!(u.units, weighted(vec![(vec![0], 2), (vec![1], 2)]));
        assert_eq!(u.symmetry_factor, some(6));
        assert!(
            u.label.contains("3 rows below split units left out"),
            "{}",
            u.label
        );
        let err = |text: String| {
            std::fs::write(&p, text).unwrap();
            read_csv(&p, None, false).unwrap_err()
        };
        // Without the tree columns a split row is ambiguous.
        let e = err("state,prefix,weight\ndone,0,1\nsplit,1,1\ndone,1 7,1\n".into());
        assert!(e.ends_with(":3: a `split` row needs the `unit` and `parent` columns: its count covers only part of its subtree and its child units must be told apart (export the ledger again with `dancehall ledger`)"), "{e}");
        let e = err(format!("{head}2,split,,1,2,1,6\n4,done,3,1 7,2,5,6\n"));
        assert!(
            e.contains(":3: its parent unit 3 is not in the file"),
            "{e}"
        );
        let e = err(format!("{head}2,done,,1,2,1,6\n4,done,2,1 7,2,5,6\n"));
        assert!(
            e.contains(":3: its parent unit 2 (line 2) is not a `split` row"),
            "{e}"
        );
        let e = err(format!("{head}2,split,,1,2,1,6\n4,done,2,3 7,2,5,6\n"));
        assert!(
            e.contains(":3: its prefix does not extend the prefix of its parent unit 2"),
            "{e}"
        );
        let e = err(format!("{head}1,done,,0,2,3,6\n2,done,,1,2,1,7\n"));
        assert!(
            e.contains(":3: factor 7 differs from the factor 6 of line 2"),
            "{e}"
        );
        let e = err(format!("{head}1,done,,0,2,3,6\n1,done,,1,2,1,6\n"));
        assert!(e.contains(":3: unit 1 is also on line 2"), "{e}");
        let e = err(format!("{head}1,done,,0,2,3,6\n2,queued,,1,2,,6\n"));
        assert!(
            e.contains(":3: unit 2 is `queued`: it was never counted: this is a partial ledger"),
            "{e}"
        );
        let e = err(format!("{head}1,waiting,,0,2,3,6\n"));
        assert!(
            e.contains(":2: state `waiting`: a ledger row is `done` or `split`"),
            "{e}"
        );
    }

    /// A partial ledger as `dancehall ledger --partial` writes it: unit 2 split with children
    /// 4 (counted) and 5 (queued), unit 3 leased.
    const PARTIAL: &str = "unit,state,parent,prefix,weight,count,nodes,core,worker,host,seconds,\
        factor,ledger,problem\n\
        1,done,,0,2,3,10,dlx,1,vm,0.5,6,partial,abc\n\
        2,split,,1,2,1,20,dlx,1,vm,0.7,6,partial,abc\n\
        4,done,2,1 7,2,5,30,queens,2,vm2,0.25,6,partial,abc\n\
        3,leased,,2,2,,,,,,,6,partial,abc\n\
        5,queued,2,1 8,2,,,,,,,6,partial,abc\n";

    #[test]
    fn a_partial_ledger_is_refused_as_a_total_naming_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.csv");
        std::fs::write(&p, PARTIAL).unwrap();
        let e = read_csv(&p, None, false).unwrap_err();
        assert!(
            e.starts_with(&format!("{}:2: `ledger` says `partial`", p.display())),
            "{e}"
        );
        assert!(e.contains("not a count"), "{e}");
        assert!(e.contains("resume = true"), "{e}");
        // Its rows not yet counted are refused too, with or without the column.
        let cut: String = PARTIAL
            .lines()
            .map(|l| l.rsplitn(3, ',').nth(2).unwrap().to_string() + "\n")
            .collect();
        std::fs::write(&p, cut).unwrap();
        let e = read_csv(&p, None, false).unwrap_err();
        assert!(
            e.contains(":5: unit 3 is `leased`: it was never counted"),
            "{e}"
        );
        // Through a spec's [units], the same refusal.
        std::fs::write(&p, PARTIAL).unwrap();
        let entry = UnitsEntry {
            file: Some("k.csv".into()),
            ..Default::default()
        };
        let e = entry.build(None, dir.path()).unwrap_err();
        assert!(e.contains("partial ledger"), "{e}");
    }

    #[test]
    fn a_resumed_ledger_imports_its_counted_rows_and_keeps_the_tree() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.csv");
        std::fs::write(&p, PARTIAL).unwrap();
        let entry = UnitsEntry {
            file: Some("k.csv".into()),
            resume: Some(true),
            ..Default::default()
        };
        let u = entry.build(None, dir.path()).unwrap();
        // Every row is a unit, in file order: none is left out below the split row.
        assert_eq!(
            u.units,
            weighted(vec![
                (vec![0], 2),
                (vec![1], 2),
                (vec![1, 7], 2),
                (vec![2], 2),
                (vec![1, 8], 2)
            ])
        );
        assert_eq!(u.symmetry_factor, some(6));
        let r = u.resume.as_ref().unwrap();
        assert_eq!(r.problem.as_ref().unwrap().0, "abc");
        let imported: Vec<Option<(u128, bool, CountCore)>> = r
            .units
            .iter()
            .map(|x| {
                x.imported
                    .as_ref()
                    .map(|i| (i.solutions.to_u128().unwrap(), i.split, i.core))
            })
            .collect();
        assert_eq!(
            imported,
            vec![
                Some((3, false, CountCore::Dlx)),
                Some((1, true, CountCore::Dlx)),
                Some((5, false, CountCore::Queens)),
                None,
                None
            ]
        );
        let parents: Vec<Option<usize>> = r.units.iter().map(|x| x.parent).collect();
        assert_eq!(parents, vec![None, None, Some(1), None, Some(1)]);
        let i = r.units[2].imported.as_ref().unwrap();
        assert_eq!((i.nodes, i.wall_seconds), (30, 0.25));
        assert!(
            i.source.contains("k.csv:4, unit 4 counted on vm2"),
            "{}",
            i.source
        );
        assert!(u.label.contains("3 units counted before"), "{}", u.label);
        // A counted row without its count, a parent not above its child: refused by line.
        let bad = PARTIAL.replace("1,done,,0,2,3,10", "1,done,,0,2,,10");
        std::fs::write(&p, bad).unwrap();
        let e = entry.build(None, dir.path()).unwrap_err();
        assert!(
            e.contains("k.csv:2: count `` of a `done` row is not a count"),
            "{e}"
        );
        let mut lines: Vec<&str> = PARTIAL.lines().collect();
        lines.swap(2, 3);
        std::fs::write(&p, lines.join("\n")).unwrap();
        let e = entry.build(None, dir.path()).unwrap_err();
        assert!(
            e.contains("k.csv:3: its parent unit 2 is not on an earlier line"),
            "{e}"
        );
        // `resume` reads a file, not a generator.
        let e = UnitsEntry {
            generator: Some("queens-first-row".into()),
            resume: Some(true),
            ..Default::default()
        }
        .build(Some(&ProblemSpec::Queens { n: 8 }), dir.path())
        .unwrap_err();
        assert!(e.contains("give it as `file`"), "{e}");
    }

    #[test]
    fn a_variant_group_too_large_to_list_is_said_in_the_label() {
        // Plain 8x8 (2x4 boxes): 4! x 2!^4 x 2! x 4!^2 = 442,368 symmetries, more than the
        // 2^18 the generator lists, so its classes are not merged, and the label says so.
        let e = UnitsEntry {
            generator: Some("sudoku-variant-grids".into()),
            ..Default::default()
        };
        let u = e.build(Some(&sudoku(2, 4)), Path::new(".")).unwrap();
        assert!(
            u.label.contains("not merged by the variant's symmetries"),
            "{}",
            u.label
        );
        // A group it lists merges classes without a word.
        let u = e.build(Some(&sudoku(2, 3)), Path::new(".")).unwrap();
        assert!(!u.label.contains("not merged"), "{}", u.label);
    }

    #[test]
    fn the_variant_generator_gives_the_middle_band_in_weighted_classes() {
        let e = UnitsEntry {
            generator: Some("sudoku-variant-grids".into()),
            ..Default::default()
        };
        let mut diag = sudoku(2, 3);
        if let ProblemSpec::Sudoku { variants, .. } = &mut diag {
            variants.push(cores::problems::Variant::Diagonal);
        }
        let u = e.build(Some(&diag), Path::new(".")).unwrap();
        assert_eq!(u.symmetry_factor, some(720));
        assert_eq!(
            u.core,
            CoreSpec::SudokuGroups {
                box_rows: 2,
                box_cols: 3
            }
        );
        // 2x3 boxes: three bands of two rows. Every unit places the middle band (rows 3 and 4:
        // cells 12..24, options 72..144), its row 3 fixed to 1..6; the 16 fillings of that
        // band fall in 5 classes (`grids::tests` checks the classes band by band).
        assert!(u
            .units
            .iter()
            .all(|(p, _)| p.len() == 12 && p.iter().all(|&o| (72..144).contains(&o))));
        assert_eq!(
            u.units.iter().map(|(_, w)| w).sum::<Count>(),
            Count::from(16u8)
        );
        assert_eq!(u.units.len(), 5);
        let err = e
            .build(Some(&ProblemSpec::Queens { n: 5 }), Path::new("."))
            .unwrap_err();
        assert!(err.contains("sudoku-variant-grids"), "{err}");
    }
}
