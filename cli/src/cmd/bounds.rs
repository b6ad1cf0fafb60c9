//! `dancehall bounds sudoku|latin ...`: the permanent of the next row (seed 000 section 2.2) and
//! its bounds, beside a whole-grid upper bound, the Monte Carlo estimate and the exact total
//! where dancehall has one (counted now by the engine when its estimate is small, else cited).
//! Everything is computed by `cores::permanent`; this module validates the arguments and prints.
//! Families without rows that are permutations of one value set (queens, Langford,
//! pentominoes, a DLX file) are refused as user errors.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use cores::permanent::known::{self, Cited};
use cores::permanent::rows::{self, GridBound, NextRow, RowFigures};
use cores::permanent::{approx, BigUint};
use cores::problems::{BuildError, Built, ProblemSpec};
use cores::xcc::{self, Dlx};

use super::problem::ProblemArgs;
use crate::exit::user_error;

#[derive(clap::Args, Debug)]
pub struct BoundsArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Latin squares: the first rows, separated by `,` (e.g. "1234,2143"); symbols 1-9 then
    /// A-Z, or whitespace-separated numbers. Sudoku rows are given with `--givens`.
    #[arg(long, value_name = "ROWS", global = true)]
    pub rows: Option<String>,
    /// Random paths of the Monte Carlo estimate (Knuth's, as `dancehall estimate`).
    #[arg(long, default_value_t = 1000, global = true)]
    pub samples: u64,
    /// Seed of the estimate.
    #[arg(long, default_value_t = 0, global = true)]
    pub seed: u64,
    /// Count the grids (or completions) with the engine when the estimate of its search is at
    /// most this many nodes.
    #[arg(long, default_value_t = 2_000_000, global = true, value_name = "NODES")]
    pub count_nodes: u64,
    /// Write the next row as an exact-cover problem (its cells and values, one option per
    /// available pair) in Knuth's DLX text instead, for `dancehall count --dlx`.
    #[arg(long, global = true)]
    pub export_row: bool,
    /// One JSON object on stdout.
    #[arg(long, global = true)]
    pub json: bool,
}

/// A problem with a permutation structure: its next rows and its grid bound.
struct Subject {
    label: String,
    next: Vec<NextRow>,
    grid: GridBound,
    /// The problem as `dancehall estimate` builds it (givens or rows as its prefix).
    built: Built,
    /// True when nothing is given: the totals are of whole grids.
    whole: bool,
    /// The problem to count for the exact total, and its symmetry factor's meaning.
    counted: Built,
    cited: Option<Cited>,
}

pub fn run(a: BoundsArgs) -> anyhow::Result<()> {
    let subject = subject(&a)?;
    if a.export_row {
        let next = subject
            .next
            .last()
            .ok_or_else(|| user_error("the grid is full: there is no next row to export"))?;
        let problem = rows::row_problem(next).context("building the one-row problem")?;
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "| dancehall bounds --export-row: row {} of {}",
            next.row + 1,
            subject.label
        )?;
        out.write_all(xcc::write_dlx(&problem).as_bytes())?;
        return Ok(());
    }
    let figures: Vec<(RowFigures, f64)> = subject
        .next
        .iter()
        .map(|n| {
            let started = Instant::now();
            let f = rows::figures(n.clone());
            (f, started.elapsed().as_secs_f64())
        })
        .collect();
    let estimate = xcc::estimate(
        &subject.built.problem,
        &subject.built.prefix,
        a.samples,
        a.seed,
    )
    .map_err(|e| user_error(format!("{}: {e}", subject.built.label)))?;
    let total = exact_total(&subject, &a)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", json(&subject, &figures, &estimate, &total, &a))?;
    } else {
        out.write_all(text(&subject, &figures, &estimate, &total, &a).as_bytes())?;
    }
    Ok(())
}

fn subject(a: &BoundsArgs) -> anyhow::Result<Subject> {
    let family = match (&a.problem.family, &a.problem.dlx) {
        (_, Some(_)) => {
            return Err(user_error(
                "bounds: a --dlx file has no permutation structure that dancehall can see; \
                 give `sudoku` or `latin`",
            ))
        }
        (None, None) => return Err(user_error("bounds: give a family: `sudoku` or `latin`")),
        (Some(f), None) => f,
    };
    let mut built = a.problem.build()?;
    // Without givens: the reduced problem (first row fixed) to count, and a cited total.
    let (next, grid, reduced) = match family.spec() {
        spec @ ProblemSpec::Sudoku { .. } => {
            if a.rows.is_some() {
                return Err(user_error(
                    "bounds: --rows is for Latin squares; give a Sudoku's rows with --givens",
                ));
            }
            let config = spec.sudoku_config().expect("a Sudoku spec");
            let plain = config.variants.is_empty() && config.extra_groups.is_empty();
            let whole = config.givens.is_none() && !config.fix_first_row;
            let mut reduced = spec;
            if let ProblemSpec::Sudoku { fix_first_row, .. } = &mut reduced {
                *fix_first_row = true;
            }
            let sudoku = |e| user_error(format!("sudoku: {e}"));
            let next = rows::sudoku_rows(&config).map_err(sudoku)?;
            let grid = rows::sudoku_grid_bound(&config).map_err(sudoku)?;
            let cited = known::sudoku_grids(config.box_rows, config.box_cols).filter(|_| plain);
            (next, grid, whole.then_some((reduced, cited)))
        }
        ProblemSpec::Latin { n, reduced } => {
            if reduced {
                return Err(user_error(
                    "bounds: counts whole Latin squares; drop --reduced (give first rows with \
                     --rows)",
                ));
            }
            let given = rows::parse_latin_rows(a.rows.as_deref().unwrap_or(""), n)
                .map_err(|e| user_error(format!("latin --rows: {e}")))?;
            let next =
                rows::latin_rows(n, &given).map_err(|e| user_error(format!("latin: {e}")))?;
            let grid = rows::latin_grid_bound(n, given.len());
            built.prefix = rows::latin_placements(&given, n);
            if !given.is_empty() {
                built.label = format!("{} with {} rows given", built.label, given.len());
            }
            let reduced = ProblemSpec::Latin { n, reduced: true };
            let whole = given.is_empty();
            (
                next,
                grid,
                whole.then_some((reduced, known::latin_squares(n))),
            )
        }
        spec => {
            return Err(user_error(format!(
                "bounds: {} has no rows that are permutations of one set of values, so no \
                 permanent counts them; give `sudoku` or `latin`",
                spec.family()
            )))
        }
    };
    let whole = reduced.is_some();
    let (counted, cited) = match reduced {
        // Past order 34 the reduction's factor (order!) overflows: count unreduced.
        Some((reduced, cited)) => match reduced.build() {
            Ok(r) => (r, cited),
            Err(BuildError::FactorOverflow { .. }) => (built.clone(), cited),
            Err(e) => return Err(user_error(format!("{}: {e}", reduced.family()))),
        },
        None => (built.clone(), None),
    };
    Ok(Subject {
        label: built.label.clone(),
        next,
        grid,
        whole,
        built,
        counted,
        cited,
    })
}

/// The exact total, if dancehall has it.
enum Total {
    /// Counted now by the engine (times the reduction's factor), in seconds; with the cited
    /// figure it was checked against, if any.
    Counted {
        value: BigUint,
        seconds: f64,
        cited: Option<Cited>,
    },
    Cited(Cited),
    Unknown,
}

fn exact_total(s: &Subject, a: &BoundsArgs) -> anyhow::Result<Total> {
    let probe = xcc::estimate(&s.counted.problem, &s.counted.prefix, a.samples, a.seed)
        .map_err(|e| user_error(format!("{}: {e}", s.counted.label)))?;
    // An estimate past f64 (NaN or infinite on the largest grids) is no small search either.
    let small = probe.nodes.mean.is_finite() && probe.nodes.mean <= a.count_nodes as f64;
    if !small {
        return Ok(s.cited.map_or(Total::Unknown, Total::Cited));
    }
    let started = Instant::now();
    let mut dlx = Dlx::new(&s.counted.problem);
    dlx.apply_prefix(&s.counted.prefix)
        .map_err(|e| user_error(format!("{}: {e}", s.counted.label)))?;
    let value = BigUint::from(dlx.count()) * BigUint::from(s.counted.symmetry_factor);
    let seconds = started.elapsed().as_secs_f64();
    if let Some(c) = &s.cited {
        anyhow::ensure!(
            value.to_string() == c.value,
            "counted {value} but the cited total is {} ({})",
            c.value,
            c.source
        );
    }
    Ok(Total::Counted {
        value,
        seconds,
        cited: s.cited,
    })
}

fn what(s: &Subject) -> &'static str {
    if s.whole {
        "grids"
    } else {
        "completions of the givens"
    }
}

fn json(
    s: &Subject,
    figures: &[(RowFigures, f64)],
    estimate: &xcc::Estimate,
    total: &Total,
    a: &BoundsArgs,
) -> serde_json::Value {
    let side = s.grid.availability.len();
    let rows: Vec<serde_json::Value> = figures
        .iter()
        .map(|(f, seconds)| {
            let mut v = serde_json::json!({
                "row": f.next.row + 1,
                "given": f.next.given.describe(side),
                "upper_bregman": f.upper.to_string(),
                "lower_van_der_waerden": f.lower.as_ref().map(|l| l.to_string()),
                "seconds": seconds,
            });
            match &f.exact {
                Ok(p) => {
                    v["exact"] = p.value.to_string().into();
                    v["method"] = p.describe().into();
                }
                Err(e) => {
                    v["exact"] = serde_json::Value::Null;
                    v["exact_error"] = e.to_string().into();
                }
            }
            v
        })
        .collect();
    let exact = match total {
        Total::Counted {
            value,
            seconds,
            cited,
        } => serde_json::json!({
            "value": value.to_string(),
            "how": "counted",
            "seconds": seconds,
            "cited": cited.map(|c| serde_json::json!({"value": c.value, "source": c.source})),
        }),
        Total::Cited(c) => serde_json::json!({
            "value": c.value,
            "how": "cited",
            "source": c.source,
        }),
        Total::Unknown => serde_json::Value::Null,
    };
    serde_json::json!({
        "problem": s.label,
        "rows": rows,
        "grids": {
            "what": what(s),
            "upper_bregman": s.grid.upper.to_string(),
            "availability": s.grid.availability,
            "estimate": {
                "mean": estimate.solutions.mean,
                "std_err": estimate.solutions.std_err,
                "samples": estimate.samples,
                "seed": a.seed,
            },
            "exact": exact,
        },
    })
}

fn text(
    s: &Subject,
    figures: &[(RowFigures, f64)],
    estimate: &xcc::Estimate,
    total: &Total,
    a: &BoundsArgs,
) -> String {
    let side = s.grid.availability.len();
    let mut table = vec![[
        "row".to_string(),
        "given".into(),
        "exact".into(),
        "upper (Bregman)".into(),
        "lower (van der Waerden)".into(),
        "method".into(),
    ]];
    for (f, seconds) in figures {
        let (exact, method) = match &f.exact {
            Ok(p) => (
                p.value.to_string(),
                format!("{}, {seconds:.3} s", p.describe()),
            ),
            Err(e) => ("beyond reach".into(), e.to_string()),
        };
        table.push([
            (f.next.row + 1).to_string(),
            f.next.given.describe(side),
            exact,
            f.upper.to_string(),
            f.lower.as_ref().map_or("n/a".into(), |l| l.to_string()),
            method,
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|c| table.iter().map(|r| r[c].len()).max().unwrap_or(0))
        .collect();
    let mut out = format!("{}: the next row's fillings (permanents)\n", s.label);
    for r in &table {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, &w))| {
                if (2..=4).contains(&c) {
                    format!("{cell:>w$}")
                } else {
                    format!("{cell:<w$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    if figures.iter().any(|(f, _)| f.lower.is_none()) {
        out.push_str(
            "  n/a: van der Waerden's bound needs every row and column to sum to the same k\n",
        );
    }
    out.push_str(&format!("{}:\n", what(s)));
    let exact = match total {
        Total::Counted {
            value,
            seconds,
            cited,
        } => {
            let check = cited.map_or(String::new(), |c| {
                format!("; equals the cited figure ({})", c.source)
            });
            format!(
                "{} (counted now by the engine, {seconds:.3} s{check})",
                with_approx(&value.to_string())
            )
        }
        Total::Cited(c) => format!("{} (cited: {})", with_approx(c.value), c.source),
        Total::Unknown => {
            "not known to dancehall (count it with `dancehall count` or `run`)".into()
        }
    };
    out.push_str(&format!("  exact        {exact}\n"));
    let availability = match s.grid.uniform_rows() {
        Some(rows) => format!(
            "rows at availability {}",
            rows.iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        None => "per cell at the least of the rows above's most and the givens' availability"
            .to_string(),
    };
    out.push_str(&format!(
        "  upper bound  {} (Bregman, {availability})\n",
        with_approx(&s.grid.upper.to_string())
    ));
    out.push_str(&format!(
        "  estimate     {:.4e} ± {:.2e} (Knuth's Monte Carlo, {} random paths, seed {})\n",
        estimate.solutions.mean, estimate.solutions.std_err, estimate.samples, a.seed
    ));
    out
}

/// `digits`, and beside them their size when they are many.
fn with_approx(digits: &str) -> String {
    let a = approx(digits);
    if a == digits {
        a
    } else {
        format!("{digits} ({a})")
    }
}
