//! `dancehall units SPEC [--job NAME] [--box RxC]`: the weighted units of a spec's counting job
//! (what its `[units]` makes: a generator's, or a CSV file's), as CSV on stdout, without
//! counting anything. Columns: `givens` (one line of side x side cells, `.` for empty: jobs
//! counted by a Sudoku core, or any Sudoku job with `--box`) or `prefix` (option ids), then
//! `weight` and `factor` (the job's symmetry factor, on every row). The job's total is
//! `factor x sum(weight x count)`; the output is itself a `[units]` file, and it lines up with
//! the ledger of the job once counted (`dancehall ledger`), unit by unit: the tests pin the
//! generators to the committed ledgers with it (`cli/tests/ledger.rs`).

use std::io::Write as _;
use std::path::PathBuf;

use coordinator::job::UnitTerm;
use cores::count::Count;
use cores::count_core::CoreSpec;
use cores::problems::sudoku::format_grid;

use crate::exit::user_error;
use crate::spec::JobSpec;

#[derive(clap::Args, Debug)]
pub struct UnitsArgs {
    /// A bench spec with a counting job that has `[units]` (its benchmarks are left alone).
    pub spec: PathBuf,
    /// The job, by `name`, when the spec has several with `[units]`.
    #[arg(long)]
    pub job: Option<String>,
    /// Write each unit as givens of a Sudoku with this box shape (`3x3`), also when the job is
    /// counted by the Dancing Links engine (the default for jobs of the Sudoku cores).
    #[arg(long = "box", value_name = "RxC", value_parser = super::problem::parse_dims)]
    pub box_dims: Option<(usize, usize)>,
}

pub fn run(args: UnitsArgs) -> anyhow::Result<()> {
    let mut spec = crate::spec::load(&args.spec)?;
    spec.expand_units()?;
    let job = pick(&spec.jobs, args.job.as_deref(), &args.spec)?;
    let csv = to_csv(job, args.box_dims)?;
    std::io::stdout().lock().write_all(csv.as_bytes())?;
    let units = job.units.as_ref().map_or(&[][..], |u| &u.units[..]);
    let weights: Count = units.iter().map(|(_, w)| w).sum();
    eprintln!(
        "{}: {} units, weights summing to {weights}, factor {} ({})",
        job.name,
        units.len(),
        job.symmetry_factor,
        job.label
    );
    Ok(())
}

/// The job named `name`, else the only job with `[units]`.
fn pick<'a>(
    jobs: &'a [JobSpec],
    name: Option<&str>,
    spec: &std::path::Path,
) -> anyhow::Result<&'a JobSpec> {
    let shown = spec.display();
    let with_units: Vec<&JobSpec> = jobs.iter().filter(|j| j.units.is_some()).collect();
    match (name, &with_units[..]) {
        (Some(name), _) => match jobs.iter().find(|j| j.name == name) {
            Some(job) if job.units.is_some() => Ok(job),
            Some(_) => Err(user_error(format!("{shown}: job `{name}` has no [units]"))),
            None => Err(user_error(format!("{shown}: no job `{name}`"))),
        },
        (None, [one]) => Ok(one),
        (None, []) => Err(user_error(format!("{shown}: no job has [units]"))),
        (None, _) => {
            let names: Vec<&str> = with_units.iter().map(|j| j.name.as_str()).collect();
            Err(user_error(format!(
                "{shown}: several jobs have [units] ({}): name one with --job",
                names.join(", ")
            )))
        }
    }
}

/// The job's units as CSV (header line first), as givens of `shape` (or of the job's Sudoku
/// core) when there is one.
fn to_csv(job: &JobSpec, shape: Option<(usize, usize)>) -> anyhow::Result<String> {
    let Some(units) = &job.units else {
        return Err(user_error(format!("job `{}` has no [units]", job.name)));
    };
    if let Some((r, c)) = shape {
        cores::grids::groups::read_groups(r, c, &job.problem).map_err(|e| {
            user_error(format!(
                "--box {r}x{c}: job `{}` is not a Sudoku of that shape: {e}",
                job.name
            ))
        })?;
    }
    let shape = shape.or(match job.core {
        CoreSpec::SudokuBands { box_rows, box_cols }
        | CoreSpec::SudokuGroups { box_rows, box_cols }
        | CoreSpec::SudokuOrbits { box_rows, box_cols }
        | CoreSpec::TwoBand { box_rows, box_cols }
        | CoreSpec::ThreeBand { box_rows, box_cols } => Some((box_rows, box_cols)),
        CoreSpec::Dlx | CoreSpec::Queens { .. } => None,
    });
    let cells = if shape.is_some() { "givens" } else { "prefix" };
    // An orbit count's units name their class (and the identity's imported term).
    let orbits = units.orbits.as_ref();
    // A count by band configurations names each unit's class and its representative.
    let bands = units.class_terms.as_ref();
    // A two-band class cut into parts: which part (`3/16`) each unit counts.
    let part = |t: &UnitTerm| t.two_band().and_then(|b| b.part);
    let parts = bands.is_some_and(|b| b.iter().any(|t| part(t).is_some()));
    let orbit_head = if orbits.is_some() {
        ",class,class_size,element,group,imported_term"
    } else if parts {
        ",class,class_size,config,part"
    } else if bands.is_some() {
        ",class,class_size,config"
    } else {
        ""
    };
    let mut s = format!("{cells},weight,factor{orbit_head}\n");
    for (i, (prefix, weight)) in units.units.iter().enumerate() {
        let cells = match shape {
            Some((r, c)) => {
                let givens = cores::grids::givens_from_prefix(r, c, prefix).map_err(|e| {
                    user_error(format!("unit {}: not givens of the Sudoku: {e}", i + 1))
                })?;
                format_grid(&givens, r * c)
            }
            None => coordinator::job::prefix_text(prefix),
        };
        let term = match orbits.and_then(|o| o.terms.get(i).map(|t| (o, t))) {
            None => match bands.and_then(|b| b.get(i)) {
                Some(t) => format!(
                    ",{},{},{}{}",
                    t.class(),
                    t.class_size(),
                    t.config().unwrap_or_default(),
                    match (parts, part(t)) {
                        (false, _) => String::new(),
                        (true, p) => format!(",{}", p.map_or_else(String::new, |p| p.to_string())),
                    }
                ),
                None => String::new(),
            },
            Some((o, t)) => {
                let imported = o.identity.as_ref().filter(|_| i == 0);
                format!(
                    ",{},{},{},{},{}",
                    t.class,
                    t.class_size,
                    t.rep,
                    t.group.as_str(),
                    imported.map_or_else(String::new, |(imp, _)| imp.solutions.to_string())
                )
            }
        };
        s.push_str(&format!("{cells},{weight},{}{term}\n", job.symmetry_factor));
    }
    Ok(s)
}
