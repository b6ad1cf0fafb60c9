//! `dancehall ledger [JOB] [--db F] [--out FILE]`: a counting job's accepted units as CSV,
//! read straight from the SQLite file (no coordinator needed).
//!
//! Columns: `unit, state, parent` (the unit a split handed this one back from, empty for a
//! unit of the partition), `givens` (Sudoku-core jobs: one line of side x side cells, `.` for
//! empty; also for a Sudoku job counted by the engine when `--box RxC` names its shape) or
//! `prefix` (option ids), `weight, count, nodes, core, worker, host, seconds,
//! factor` (the job's symmetry factor, on every row so that the file stands alone). The job's
//! total is `factor x sum(weight x count)`; each Sudoku unit can be recounted with `dancehall
//! count sudoku --box RxC --givens ...`, and the file itself is a `[units]` file for a spec.
//! A `split` unit's count covers only the part of its subtree outside its child units; read
//! as units (`cli/src/spec/units.rs`), a split unit stands for its whole subtree and the rows
//! below it are left out.
//!
//! The database is opened read-only: exporting a ledger never migrates or locks a database
//! that a coordinator (of this release or an older one) may be serving.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use coordinator::job::CoreSpec;
use coordinator::store::{self, Ledger};
use cores::problems::sudoku::format_grid;

use crate::exit::user_error;

#[derive(clap::Args, Debug)]
pub struct LedgerArgs {
    /// The job (default: the latest counting job in the database).
    pub job: Option<u64>,
    /// The SQLite database.
    #[arg(long, default_value = "results/dancehall.db")]
    pub db: PathBuf,
    /// Write the CSV here instead of stdout (written to a temporary file, then renamed).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write each unit as Sudoku givens of this box shape (`3x3`) even when the job was
    /// counted by the Dancing Links engine; a unit that is not a set of placements of that
    /// shape is an error.
    #[arg(long = "box", value_name = "RxC")]
    pub box_shape: Option<String>,
}

pub fn run(args: LedgerArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let ledger = runtime.block_on(load(&args.db, args.job))?;
    let shape = match &args.box_shape {
        None => None,
        Some(text) => Some(parse_shape(text)?),
    };
    let csv = to_csv(&ledger, shape)?;
    match &args.out {
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(csv.as_bytes())?;
        }
        Some(path) => write_atomically(path, &csv)?,
    }
    let total = ledger
        .total()
        .map_or_else(|| "overflow".to_string(), |t| t.to_string());
    eprintln!(
        "job {} ({}): {} units; factor {} x sum(weight x count) = {total}",
        ledger.job,
        ledger.name,
        ledger.rows.len(),
        ledger.symmetry_factor
    );
    Ok(())
}

/// Reads the ledger of `job` (default: the latest counting job).
pub async fn load(db: &Path, job: Option<u64>) -> anyhow::Result<Ledger> {
    if !db.exists() {
        return Err(user_error(format!("{}: no such database", db.display())));
    }
    let pool = store::open_read_only(db).await?;
    let job = match job {
        Some(j) => j,
        None => store::list_jobs(&pool)
            .await?
            .into_iter()
            .filter(|(_, _, kind, _)| kind == "count")
            .map(|(id, ..)| id)
            .max()
            .ok_or_else(|| user_error(format!("{}: no counting job", db.display())))?,
    };
    store::ledger(&pool, job)
        .await?
        .ok_or_else(|| user_error(format!("{}: no job {job}", db.display())))
}

/// `RxC` as a box shape this project counts.
fn parse_shape(text: &str) -> anyhow::Result<(usize, usize)> {
    let bad = || user_error(format!("--box {text}: expected RxC, e.g. 3x3"));
    let (r, c) = text.split_once('x').ok_or_else(bad)?;
    let (r, c) = (r.parse().map_err(|_| bad())?, c.parse().map_err(|_| bad())?);
    cores::grids::completion::check_shape(r, c)
        .map_err(|e| user_error(format!("--box {text}: {e}")))?;
    Ok((r, c))
}

/// The ledger as CSV (header line first); units as givens of the job's Sudoku core's shape,
/// or of `shape` when given (every unit must then be a set of its placements).
pub fn to_csv(ledger: &Ledger, shape: Option<(usize, usize)>) -> anyhow::Result<String> {
    let core_shape = match ledger.core {
        CoreSpec::SudokuBands { box_rows, box_cols }
        | CoreSpec::SudokuGroups { box_rows, box_cols } => Some((box_rows, box_cols)),
        CoreSpec::Dlx | CoreSpec::Queens { .. } => None,
    };
    let strict = shape.is_some();
    let shape = shape.or(core_shape);
    let cells = if shape.is_some() { "givens" } else { "prefix" };
    let mut s =
        format!("unit,state,parent,{cells},weight,count,nodes,core,worker,host,seconds,factor\n");
    for r in &ledger.rows {
        let cells = match shape {
            Some((box_rows, box_cols)) if strict => {
                let givens = cores::grids::givens_from_prefix(box_rows, box_cols, &r.prefix)
                    .map_err(|e| {
                        user_error(format!(
                            "unit {}: not givens of a {box_rows}x{box_cols}-box Sudoku: {e}",
                            r.unit
                        ))
                    })?;
                format_grid(&givens, box_rows * box_cols)
            }
            Some((box_rows, box_cols)) => givens_line(&r.prefix, box_rows, box_cols),
            None => coordinator::job::prefix_text(&r.prefix),
        };
        s.push_str(&format!(
            "{},{},{},{cells},{},{},{},{},{},{},{:.3},{}\n",
            r.unit,
            r.state.as_str(),
            r.parent.map_or_else(String::new, |p| p.to_string()),
            r.weight,
            r.solutions,
            r.nodes,
            r.core.as_str(),
            r.worker.map_or_else(String::new, |w| w.to_string()),
            r.host.replace(',', " "),
            r.wall_seconds,
            ledger.symmetry_factor
        ));
    }
    Ok(s)
}

/// The givens a prefix of Sudoku options places, as one line of the givens format (`.` for
/// empty); the prefix itself if it is not a set of placements (a job's prefixes always are).
fn givens_line(prefix: &[u32], box_rows: usize, box_cols: usize) -> String {
    match cores::grids::givens_from_prefix(box_rows, box_cols, prefix) {
        Ok(givens) => format_grid(&givens, box_rows * box_cols),
        Err(_) => coordinator::job::prefix_text(prefix),
    }
}

/// Writes `text` to a temporary file beside `path`, then renames it: a reader never sees half
/// a file, and an error leaves any old file as it was.
fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| user_error(format!("{}: cannot write here: {e}", dir.display())))?;
    tmp.write_all(text.as_bytes())?;
    tmp.persist(path)
        .map_err(|e| user_error(format!("{}: {e}", path.display())))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn givens_lines_match_the_givens_format() {
        // r1c1 = 1 (option 0), r1c2 = 3 (option 4 + 2), on 4x4.
        assert_eq!(givens_line(&[0, 6], 2, 2), "13..............");
        assert_eq!(givens_line(&[15], 4, 4).chars().next(), Some('G'));
    }
}
