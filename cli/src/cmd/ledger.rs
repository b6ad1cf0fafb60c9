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
//! Only a finished job's ledger is a count. The ledger of a running, held or cancelled job
//! is refused, naming its state and how many units are counted; `--partial` writes it as
//! work to resume: every unit of the job, the counted ones with their counts and the others
//! (`queued`, `leased`, `cancelled`) without, and a `ledger` column that says `partial` on
//! every row (`complete` in a finished job's ledger). Read as `[units] file`, a partial
//! ledger is refused as a total; `[units] resume = true` resumes it instead (its counted
//! units kept, the rest counted: `cli/src/spec/units.rs`). The `problem` column is the
//! SHA-256 of the job's problem (its DLX text), so that a ledger is never resumed on
//! another problem.
//!
//! A two-band job resumes from its counted rows alone (its units are generated again and
//! matched by class and part), so `--partial --counted` writes only those.
//!
//! The database is opened read-only: exporting a ledger never migrates or locks a database
//! that a coordinator (of this release or an older one) may be serving.

use cores::label::Label;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use coordinator::job::{CoreSpec, JobKind, UnitTerm};
use coordinator::store::{self, Ledger};
use cores::count::Count;
use cores::problems::sudoku::format_grid;

use crate::exit::user_error;
use crate::spec::units::LedgerMark;

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
    /// Write the ledger of an unfinished (running, held or cancelled) job: work to resume,
    /// marked `partial` on every row, never a count.
    #[arg(long)]
    pub partial: bool,
    /// With --partial, for a two-band job: write only its counted units. Such a job resumes
    /// from them (`[units] generator = "two-band"`, `file`, `resume = true`: its other units
    /// are generated again), which at 12x12 cut into parts keeps the file to the work done
    /// rather than a row for each of a million units.
    #[arg(long, requires = "partial")]
    pub counted: bool,
}

pub fn run(args: LedgerArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let ledger = runtime.block_on(load(&args.db, args.job))?;
    if !ledger.complete() && !args.partial {
        return Err(user_error(format!(
            "job {} ({}) is {}, so its ledger is not a count; nothing written. Wait for it \
             to finish (or resume it), or write the work to resume with --partial",
            ledger.job,
            ledger.name,
            ledger.progress()
        )));
    }
    let shape = match &args.box_shape {
        None => None,
        Some(text) => Some(parse_shape(text)?),
    };
    let progress = ledger.progress();
    let mut ledger = ledger;
    if args.counted {
        if !matches!(ledger.core, CoreSpec::TwoBand { .. }) {
            return Err(user_error(format!(
                "--counted: job {} ({}) is not a two-band count; its job resumes from every \
                 unit of its ledger, so write them all (--partial alone)",
                ledger.job, ledger.name
            )));
        }
        ledger.pending.clear();
    }
    let csv = to_csv(&ledger, shape)?;
    match &args.out {
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(csv.as_bytes())?;
        }
        Some(path) => write_atomically(path, &csv)?,
    }
    let sum = ledger.total();
    if ledger.complete() {
        eprintln!(
            "job {} ({}): {} units; factor {} x sum(weight x count) = {sum}",
            ledger.job,
            ledger.name,
            ledger.rows.len(),
            ledger.symmetry_factor
        );
        if let Some(order) = ledger.group_order() {
            let terms = ledger
                .rows
                .iter()
                .map(|r| (r.weight.clone(), r.solutions.clone()));
            match cores::orbit_term::burnside_quotient(&order, terms) {
                Ok(orbits) => {
                    eprintln!("orbits = sum(class_size x term) / |G| = {sum} / {order} = {orbits}")
                }
                Err(e) => anyhow::bail!("job {} ({}): ORBITS WRONG: {e}", ledger.job, ledger.name),
            }
        }
    } else {
        let parts = ledger.sum();
        let classes = match (parts.closed_classes(), parts.open_classes()) {
            (0, 0) => String::new(),
            (closed, open) => format!(
                "; classes cut into parts: {closed} with every part counted (their E(C) \
                 B(C)^2 in the sum), {open} with only some"
            ),
        };
        eprintln!(
            "PARTIAL LEDGER of job {} ({}), {}: work to resume, not a count (the counted \
             units' factor x sum(weight x count) is {sum} so far{classes}){}",
            ledger.job,
            ledger.name,
            progress,
            if args.counted {
                "; only the counted units written"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// Reads the ledger of `job` (default: the latest counting job).
pub async fn load(db: &Path, job: Option<u64>) -> anyhow::Result<Ledger> {
    let pool = crate::database::open_read_only(db).await?;
    let ledger = async {
        let job = match job {
            Some(j) => j,
            None => store::list_jobs(&pool)
                .await?
                .into_iter()
                .filter(|(_, _, kind, _)| JobKind::parse(kind) == Some(JobKind::Count))
                .map(|(id, ..)| id)
                .max()
                .ok_or_else(|| user_error(format!("{}: no counting job", db.display())))?,
        };
        store::ledger(&pool, job)
            .await?
            .ok_or_else(|| user_error(format!("{}: no counting job {job}", db.display())))
    }
    .await;
    let ledger = crate::database::explain(&pool, db, ledger).await;
    pool.close().await;
    ledger
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
        | CoreSpec::SudokuGroups { box_rows, box_cols }
        | CoreSpec::SudokuOrbits { box_rows, box_cols }
        | CoreSpec::TwoBand { box_rows, box_cols }
        | CoreSpec::ThreeBand { box_rows, box_cols } => Some((box_rows, box_cols)),
        CoreSpec::Dlx | CoreSpec::Queens { .. } => None,
    };
    let strict = shape.is_some();
    let shape = shape.or(core_shape);
    let cells = if shape.is_some() { "givens" } else { "prefix" };
    // An orbit count's rows name their class: `class, class_size, element` (the class's
    // representative), `group`, `term` (the count) and `imported` (the identity's term, from
    // the total's ledger, rather than counted by a worker).
    let orbit = ledger.group_order().is_some();
    // A two-band count's rows name their class of top-band configurations: `class,
    // class_size` (the weight), `config` (the representative), `fillings` (B(C); the count is
    // B(C)^2) and `term` (class_size x B(C)^2). A count whose classes are cut into parts has
    // a `part` column too (`3/64`): a part's `fillings` and count are its piece of B(C), and
    // its `term` is empty (the class's term is class_size x the square of its parts' sum).
    let two_band = matches!(ledger.core, CoreSpec::TwoBand { .. });
    let is_part = |t: &Option<UnitTerm>| {
        t.as_ref()
            .and_then(UnitTerm::two_band)
            .is_some_and(|t| t.part.is_some())
    };
    let parts = two_band
        && (ledger.rows.iter().any(|r| is_part(&r.term))
            || ledger.pending.iter().any(|p| is_part(&p.term)));
    // A three-band count's rows: `class, class_size, config` and `term` (class_size x the
    // grids with that top-band configuration, the count).
    let three_band = matches!(ledger.core, CoreSpec::ThreeBand { .. });
    let orbit_head = if orbit {
        "class,class_size,element,group,term,imported,"
    } else if parts {
        "class,class_size,config,part,fillings,term,"
    } else if two_band {
        "class,class_size,config,fillings,term,"
    } else if three_band {
        "class,class_size,config,term,"
    } else {
        ""
    };
    let mut s = format!(
        "unit,state,parent,{cells},weight,count,nodes,core,worker,host,seconds,factor,\
         {orbit_head}ledger,problem\n"
    );
    let term_cols = |term: Option<&UnitTerm>, count: Option<(&Count, bool)>| -> String {
        match term {
            None if orbit => ",,,,,,".into(),
            None if parts => ",,,,,,".into(),
            None if two_band => ",,,,,".into(),
            None if three_band => ",,,,".into(),
            None => String::new(),
            Some(UnitTerm::TwoBand(t)) => {
                let (fillings, term) = match (count, t.part) {
                    (Some((c, _)), Some(_)) => (c.to_string(), String::new()),
                    (Some((c, _)), None) => (
                        c.exact_sqrt()
                            .map_or_else(|| "not a square".into(), |b| b.to_string()),
                        (Count::from(t.class_size) * c).to_string(),
                    ),
                    (None, _) => (String::new(), String::new()),
                };
                let part = match (parts, t.part) {
                    (false, _) => String::new(),
                    (true, p) => format!("{},", p.map_or_else(String::new, |p| p.to_string())),
                };
                format!(
                    "{},{},{},{part}{fillings},{term},",
                    t.class, t.class_size, t.config
                )
            }
            Some(UnitTerm::ThreeBand(t)) => {
                let term = count.map_or_else(String::new, |(c, _)| {
                    (Count::from(t.class_size) * c).to_string()
                });
                format!("{},{},{},{term},", t.class, t.class_size, t.config)
            }
            Some(UnitTerm::Orbit(t)) => format!(
                "{},{},{},{},{},{},",
                t.class,
                t.class_size,
                t.rep,
                t.group.as_str(),
                count.map_or_else(String::new, |(c, _)| c.to_string()),
                count.map_or("", |(_, imported)| if imported { "yes" } else { "no" })
            ),
        }
    };
    let mark = if ledger.complete() {
        LedgerMark::Complete
    } else {
        LedgerMark::Partial
    }
    .as_str();
    let cells_of = |unit: u64, prefix: &[u32]| -> anyhow::Result<String> {
        Ok(match shape {
            Some((box_rows, box_cols)) if strict => {
                let givens =
                    cores::grids::givens_from_prefix(box_rows, box_cols, prefix).map_err(|e| {
                        user_error(format!(
                            "unit {unit}: not givens of a {box_rows}x{box_cols}-box Sudoku: {e}"
                        ))
                    })?;
                format_grid(&givens, box_rows * box_cols)
            }
            Some((box_rows, box_cols)) => givens_line(prefix, box_rows, box_cols),
            None => coordinator::job::prefix_text(prefix),
        })
    };
    for r in &ledger.rows {
        let cells = cells_of(r.unit, &r.prefix)?;
        // Imported: counted by no worker (the coordinator took it from the spec's ledger).
        let terms = term_cols(r.term.as_ref(), Some((&r.solutions, r.worker.is_none())));
        s.push_str(&format!(
            "{},{},{},{cells},{},{},{},{},{},{},{:.3},{},{terms}{mark},{}\n",
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
            ledger.symmetry_factor,
            ledger.dlx_sha256
        ));
    }
    // Work to resume: no count, no worker, no time.
    for p in &ledger.pending {
        let cells = cells_of(p.unit, &p.prefix)?;
        let terms = term_cols(p.term.as_ref(), None);
        s.push_str(&format!(
            "{},{},{},{cells},{},,,,,,,{},{terms}{mark},{}\n",
            p.unit,
            p.state.as_str(),
            p.parent.map_or_else(String::new, |p| p.to_string()),
            p.weight,
            ledger.symmetry_factor,
            ledger.dlx_sha256
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
