//! The `sudoku-orbits` generator of `[units]`: the essentially different grids of a Sudoku
//! (its grids up to its symmetry group G and relabelling) by Burnside's lemma, one weighted
//! unit per conjugacy class of G (`cores::grids::orbits::conjugacy_classes`): weight the
//! class size, count the class's term `A(g)` (grids that `g` maps to a relabelling of
//! themselves, over `side!`), counted by the `sudoku-orbit-term` core. The job's weighted
//! sum is `|G|` times the orbits (`cores::orbit_term::burnside_quotient` divides, exactly
//! or not at all).
//!
//! The identity's term is the total grid count N over `side!`. It is never counted again:
//! `total_ledger` names the complete ledger of the same problem's total (e.g.
//! `results/reference/sudoku-9x9/ledger.csv`, gzipped or not), whose total
//! `factor x sum(weight x count)` is read here ([`ledger_total`]) and imported as the
//! identity unit's count, marked as imported with its source. A partial ledger is refused
//! naming its file and line, as is a ledger whose `problem` column names another problem
//! (checked against the spec's problem in `spec::count`). Without `total_ledger` the
//! identity's term is counted like the others, which `class_term` does only up to 6x6
//! ([`IDENTITY_ENUMERATED_UP_TO`]); a larger grid without `total_ledger` is refused.

use cores::label::Label;
use std::io::Read as _;
use std::path::Path;

use coordinator::job::{CoreSpec, CountCore, GroupChoice, OrbitTerm};
use coordinator::partition::Imported;
use cores::count::Count;
use cores::grids::orbits::{conjugacy_classes, orbit_group, IDENTITY_ENUMERATED_UP_TO};
use cores::problems::ProblemSpec;

use super::units::{field, LedgerMark, WeightedUnits};

/// An orbit count's units, beside [`super::units::WeightedUnits::units`] (same order).
#[derive(Clone, Debug, PartialEq)]
pub struct OrbitUnits {
    /// One per unit: the class whose term it counts.
    pub terms: Vec<OrbitTerm>,
    pub group: GroupChoice,
    /// |G|: the sum of the class sizes (the units' weights).
    pub group_order: Count,
    /// The identity's term imported from the total's ledger (the identity is unit 0), with
    /// that ledger's total; `None` when the identity is counted like the other classes.
    pub identity: Option<(Imported, LedgerTotal)>,
}

/// The total of a complete ledger, with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerTotal {
    /// `factor x sum(weight x count)`.
    pub total: Count,
    /// Its rows.
    pub rows: usize,
    /// The ledger's `problem` column (SHA-256 of the problem's DLX text) with `file:line`,
    /// when it has one.
    pub problem: Option<(String, String)>,
    /// `file` as shown in messages.
    pub file: String,
}

/// The units of generator `sudoku-orbits` for `problem` (see the module doc); `group` is
/// `[units] group` (default `full`), `total_ledger` the ledger of the total, relative to
/// `dir`, the spec's folder. Errors are messages for the spec's `[units]` line.
pub fn generate(
    problem: Option<&ProblemSpec>,
    group: Option<&str>,
    total_ledger: Option<&Path>,
    dir: &Path,
) -> Result<WeightedUnits, String> {
    let Some((spec, r, c)) = super::units::every_grid(problem) else {
        return Err(
            "generator `sudoku-orbits` counts the essentially different grids of a Sudoku \
             (family = \"sudoku\", any variants, no givens or fixed row)"
                .into(),
        );
    };
    let side = r * c;
    let choice = match group {
        None => GroupChoice::Full,
        Some(g) => GroupChoice::parse(g).ok_or_else(|| {
            format!(
                "group = \"{g}\": expected \"full\" or \"sudoku\" (the Sudoku-preserving subgroup)"
            )
        })?,
    };
    let built = spec.build().map_err(|e| e.to_string())?;
    let groups =
        cores::grids::groups::read_groups(r, c, &built.problem).map_err(|e| e.to_string())?;
    let identity = match total_ledger {
        Some(path) => {
            let t = ledger_total(&dir.join(path), side * side)?;
            let fact = cores::problems::factorial(side).ok_or("side! overflows u128")?;
            let Some(identity) = t.total.checked_div_exact(&Count::from(fact)) else {
                return Err(format!(
                    "{}: its total {} is not a multiple of {side}! = {fact}: it cannot be the \
                     number of grids of a {side}x{side} Sudoku",
                    t.file, t.total
                ));
            };
            let imported = Imported {
                solutions: identity,
                nodes: 0,
                core: CountCore::SudokuOrbitTerm,
                split: false,
                wall_seconds: 0.0,
                source: format!(
                    "imported: {} ({} units, total {}) / {side}!",
                    t.file, t.rows, t.total
                ),
            };
            Some((imported, t))
        }
        None if side > IDENTITY_ENUMERATED_UP_TO => {
            return Err(format!(
                "generator `sudoku-orbits` needs `total_ledger` for a {side}x{side} grid: the \
                 identity's term is the number of grids over {side}!, imported from the \
                 complete ledger of the total count (e.g. total_ledger = \
                 \"../results/reference/sudoku-9x9/ledger.csv\"); it is counted here only up \
                 to {IDENTITY_ENUMERATED_UP_TO}x{IDENTITY_ENUMERATED_UP_TO}"
            ))
        }
        None => None,
    };
    // The group and its classes are a function of the problem and the group chosen; the
    // 9x9 grid's take 6-9 s, so they are cached.
    let (order, terms): (u128, Vec<OrbitTerm>) =
        super::cache::units("sudoku-orbits", &(spec, choice.as_str()), || {
            let orbit = orbit_group(&groups, choice).map_err(|e| e.to_string())?;
            let classes = conjugacy_classes(&orbit);
            if !classes.first().is_some_and(|k| k.rep.is_identity()) {
                return Err("the group's first class is not the identity's".to_string());
            }
            let terms = classes
                .iter()
                .map(|k| OrbitTerm {
                    class: k.index,
                    class_size: k.size,
                    rep: k.rep.to_text(),
                    group: choice,
                })
                .collect();
            Ok((orbit.order(), terms))
        })?;
    let label = format!(
        "{spec} essentially different grids under the {} group (order {}) and relabelling: \
         {} conjugacy classes{}",
        choice.as_str(),
        order,
        terms.len(),
        match &identity {
            Some((_, t)) => format!(", the identity's term imported from {}", t.file),
            None => String::new(),
        }
    );
    Ok(WeightedUnits {
        units: terms
            .iter()
            .map(|t| (built.prefix.clone(), Count::from(t.class_size)))
            .collect(),
        core: CoreSpec::SudokuOrbits {
            box_rows: r,
            box_cols: c,
        },
        symmetry_factor: Some(Count::one()),
        label,
        resume: None,
        orbits: Some(OrbitUnits {
            terms,
            group: choice,
            group_order: Count::from(order),
            identity,
        }),
        class_terms: None,
        pending: None,
    })
}

/// Reads a ledger (`.csv`, or `.csv.gz`) as text.
fn read_text(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: cannot read it: {e}"))?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .map_err(|e| format!("{shown}: cannot read it as gzipped text: {e}"))?;
        return Ok(text);
    }
    String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text"))
}

/// The total of the complete ledger at `path` (as `dancehall ledger` writes it: columns
/// `weight`, `count` and `factor` at least), summed exactly; `cells` is the number of cells a
/// `givens` column must hold (side x side). Errors name the file and line: a partial ledger
/// (a row marked `partial`, or a unit without a count), a factor that changes, a number
/// that is not a decimal count. The sum is exact at any size (`Count`).
pub fn ledger_total(path: &Path, cells: usize) -> Result<LedgerTotal, String> {
    let shown = path.display().to_string();
    let text = read_text(path)?;
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split(',').map(str::trim).collect(),
        None => {
            return Err(format!(
                "{shown}:1: empty file (expected a ledger's header)"
            ))
        }
    };
    let col = |name: &str| header.iter().position(|h| *h == name);
    let need = |name: &str| {
        col(name).ok_or_else(|| {
            format!(
                "{shown}:1: no `{name}` column: a total ledger is one written by `dancehall \
                 ledger` (weight, count and factor on every row)"
            )
        })
    };
    let (weight_col, count_col, factor_col) = (need("weight")?, need("count")?, need("factor")?);
    let (state_col, mark_col, problem_col) = (col("state"), col("ledger"), col("problem"));
    let givens_col = col("givens");
    let partial = |line: usize, why: String| {
        format!(
            "{shown}:{line}: {why}: this is a partial ledger (its job had not finished), not a \
             count; the orbit count imports the total of a complete ledger"
        )
    };
    let mut sum = Count::zero();
    let mut factor: Option<(Count, usize)> = None;
    let mut problem: Option<(String, String)> = None;
    let mut rows = 0;
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let n = i + 1;
        let at = |m: String| format!("{shown}:{n}: {m}");
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let get = |k: usize| field(&fields, k, header.len()).map_err(&at);
        if let Some(k) = mark_col {
            match LedgerMark::parse(get(k)?) {
                Some(LedgerMark::Complete) => {}
                Some(LedgerMark::Partial) => {
                    return Err(partial(n, "`ledger` says `partial`".into()))
                }
                None => return Err(at(format!("ledger `{}`: expected `complete`", get(k)?))),
            }
        }
        if let Some(k) = state_col {
            let s = get(k)?;
            if s != "done" && s != "split" {
                return Err(partial(n, format!("a unit is `{s}`: it was never counted")));
            }
        }
        if let Some(k) = problem_col {
            let p = get(k)?;
            match &problem {
                None => problem = Some((p.to_string(), format!("{shown}:{n}"))),
                Some((q, first)) if q != p => {
                    return Err(at(format!(
                        "problem {p} differs from the problem {q} of {first}: a ledger is one \
                         job's"
                    )))
                }
                Some(_) => {}
            }
        }
        if let Some(k) = givens_col {
            let g = get(k)?;
            if g.chars().count() != cells {
                return Err(at(format!(
                    "givens of {} cells: this ledger is not of a grid of {cells} cells",
                    g.chars().count()
                )));
            }
        }
        let number = |k: usize, what: &str| -> Result<Count, String> {
            let v = get(k)?;
            v.parse::<Count>()
                .map_err(|e| at(format!("{what} `{v}` is not a decimal count: {e}")))
        };
        let (w, c, f) = (
            number(weight_col, "weight")?,
            number(count_col, "count")?,
            number(factor_col, "factor")?,
        );
        match factor {
            None => factor = Some((f, n)),
            Some((g, first)) if g != f => {
                return Err(at(format!(
                    "factor {f} differs from the factor {g} of line {first}: a ledger has one \
                     symmetry factor"
                )))
            }
            Some(_) => {}
        }
        sum += w * c;
        rows += 1;
    }
    let Some((f, _)) = factor else {
        return Err(format!("{shown}: no rows: an empty ledger is no count"));
    };
    let total = sum * f;
    Ok(LedgerTotal {
        total,
        rows,
        problem,
        file: shown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "unit,state,parent,givens,weight,count,factor,ledger,problem\n";

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_complete_ledger_adds_up_to_factor_times_the_weighted_sum() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "l.csv",
            &format!(
                "{HEAD}1,done,,1234............,2,3,24,complete,abc\n\
                 2,split,,1243............,1,6,24,complete,abc\n"
            ),
        );
        let t = ledger_total(&p, 16).unwrap();
        assert_eq!(t.total, Count::from(24u32 * (2 * 3 + 6)));
        assert_eq!(t.rows, 2);
        assert_eq!(t.problem.unwrap().0, "abc");
        // Gzipped, the same total.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, std::fs::read(&p).unwrap().as_slice()).unwrap();
        let z = dir.path().join("l.csv.gz");
        std::fs::write(&z, gz.finish().unwrap()).unwrap();
        assert_eq!(ledger_total(&z, 16).unwrap().total, Count::from(288u32));
    }

    /// Regression: a ledger whose sum passed u128 was refused as an overflow; its total is
    /// exact, and a number that is not a decimal count says why.
    #[test]
    fn a_ledger_past_2_128_adds_up_exactly() {
        use num_bigint::BigUint;
        let dir = tempfile::tempdir().unwrap();
        let (w, c, f) = (
            "340282366920938463463374607431768211457",
            "18446744073709551629",
            "100000000000000000000",
        );
        let p = write(
            dir.path(),
            "l.csv",
            &format!(
                "{HEAD}1,done,,1234............,{w},{c},{f},complete,abc\n\
                 2,done,,1243............,1,{c},{f},complete,abc\n"
            ),
        );
        let big = |s: &str| s.parse::<BigUint>().unwrap();
        let want = (big(w) * big(c) + big(c)) * big(f);
        assert_eq!(ledger_total(&p, 16).unwrap().total.as_biguint(), &want);
        let p = write(
            dir.path(),
            "l.csv",
            &format!("{HEAD}1,done,,1234............,{w},1e5,{f},complete,abc\n"),
        );
        let e = ledger_total(&p, 16).unwrap_err();
        assert!(
            e.contains("l.csv:2: count `1e5` is not a decimal count: "),
            "{e}"
        );
        assert!(e.contains("'e' at byte 1"), "{e}");
    }

    #[test]
    fn a_partial_or_foreign_ledger_is_refused_naming_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let err = |text: String| {
            let p = write(dir.path(), "l.csv", &text);
            ledger_total(&p, 16).unwrap_err()
        };
        let e = err(format!(
            "{HEAD}1,done,,1234............,2,3,24,complete,abc\n\
             2,queued,,1243............,1,,24,partial,abc\n"
        ));
        assert!(
            e.ends_with(
                "l.csv:3: `ledger` says `partial`: this is a partial ledger (its job had not \
                 finished), not a count; the orbit count imports the total of a complete ledger"
            ),
            "{e}"
        );
        let e =
            err("unit,state,givens,weight,count,factor\n1,leased,1234............,1,,24\n".into());
        assert!(
            e.contains("l.csv:2: a unit is `leased`: it was never counted"),
            "{e}"
        );
        let e = err("unit,givens,weight,count\n1,1234............,1,12\n".into());
        assert!(e.contains("l.csv:1: no `factor` column"), "{e}");
        let e = err(format!("{HEAD}1,done,,1234,2,3,24,complete,abc\n"));
        assert!(e.contains("l.csv:2: givens of 4 cells"), "{e}");
        let e = err(format!(
            "{HEAD}1,done,,1234............,2,3,24,complete,abc\n\
             2,done,,1243............,1,6,24,complete,abd\n"
        ));
        assert!(e.contains("l.csv:3: problem abd differs"), "{e}");
        let e = err(HEAD.into());
        assert!(e.contains("no rows"), "{e}");
    }
}
