//! `dancehall domino generate | solve | export | certify | solvers`: the domino placement
//! benchmark of seed 001 on this machine (`certify` is `super::certify`'s). Instances come from batch files (one JSON instance per
//! line); solving goes through `worker::bench`, so every answer printed here passed the
//! verifier and carries the same record a distributed run stores.

use cores::label::Label;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use cores::domino::{self, Instance};
use worker::bench::{self, Family, RunLimits, RunRecord, Status};

use crate::exit::user_error;

#[derive(clap::Subcommand, Debug)]
pub enum DominoCmd {
    /// Write a benchmark suite of batch files (batch01.txt, ...), deterministic for a seed.
    ///
    /// Difficulties (tile values uniform in 0..=k): seed 001's easy (n 4-6, 3-6 tiles, k 2-4),
    /// medium (n 6-9, 7-12 tiles, k 3-6) and hard (n 10-14, 14-24 tiles, k 4-8), and tight:
    /// the "significantly more complex problem instances" of seed 001's "Further
    /// Considerations" (Figure 9), n 7-14, k 3-8, and the number of tiles m drawn after n so
    /// that the tiles' 3m cells are 0.9 to 1.2 times the board's n^2 cells (m from ceil(0.3
    /// n^2) to floor(0.4 n^2): 15-19 tiles on 7 x 7, 59-78 on 14 x 14), so that a solver must
    /// choose which tiles to leave out. --mix chooses the difficulties of a batch; --n, --tiles
    /// and --k replace their ranges for every instance. The same seed and options give the
    /// same files, and the default options give the suites generated before they existed.
    Generate(GenerateArgs),
    /// Solve every instance of a batch file with one solver configuration.
    Solve(SolveArgs),
    /// Write an instance as MiniZinc data (.dzn) or clingo facts (.lp) to stdout.
    Export(ExportArgs),
    /// Certify a bound outside the native optimiser: "K tiles do not fit", as the DIMACS
    /// formula native asks CaDiCaL in process, refuted by the `cadical` binary with a DRAT
    /// proof that the independent checker `rate` verifies (both installed by
    /// scripts/install-solvers.sh). A model found instead is decoded and verified: the tiles
    /// fit, and the command says so and exits 1, as it does for a rejected proof. With --job N
    /// --db FILE, every uncertified bound of that benchmark job below the count bound.
    Certify(super::certify::CertifyArgs),
    /// List the solver configurations and whether this machine has them.
    Solvers(SolversArgs),
}

#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// Random seed: the same seed (and options) gives the same suite.
    #[arg(long)]
    pub seed: u64,
    /// Number of batch files.
    #[arg(long, default_value_t = 10)]
    pub batches: usize,
    /// Instances per batch, shared out by --mix (per 10 of the default: 4 easy, 4 medium,
    /// 2 hard).
    #[arg(long, default_value_t = 10)]
    pub per_batch: usize,
    /// The difficulties of each batch with their weights, in batch order: easy, medium, hard,
    /// tight (n 7-14, k 3-8, tiles whose cells are 0.9 to 1.2 times the board's; see above),
    /// each as NAME or NAME:WEIGHT (weight 1 when left out), comma-separated. The
    /// default is seed 001's `easy:4,medium:4,hard:2`; `tight` (or `tight:10`) makes every
    /// instance tight. Each difficulty but the last gets its share of --per-batch rounded
    /// half up, the last the rest. Ids name the batch and the difficulty: b01-e1, b01-t3.
    #[arg(long, value_name = "MIX")]
    pub mix: Option<String>,
    /// The board side n of every instance, whatever its difficulty: `8..=12`, `8-12` or a
    /// single number, within 3..=64. A tight instance draws its tiles for the n drawn.
    #[arg(long, value_name = "RANGE")]
    pub n: Option<String>,
    /// The number of tiles of every instance, whatever its difficulty (a tight instance's
    /// 0.9-1.2 rule included): a range as for --n, within 1..=4096.
    #[arg(long, value_name = "RANGE")]
    pub tiles: Option<String>,
    /// The largest tile value k of every instance, whatever its difficulty (values uniform in
    /// 0..=k): a range as for --n.
    #[arg(long, value_name = "RANGE")]
    pub k: Option<String>,
    /// Directory to write the batch files into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// A batch file: one JSON instance per line.
    pub file: PathBuf,
    /// Solver configuration (see `dancehall domino solvers`).
    #[arg(long, default_value = "native")]
    pub solver: String,
    /// Wall-time limit per instance, in seconds.
    #[arg(long, value_name = "S", default_value_t = 300.0)]
    pub time_limit: f64,
    /// Memory limit per instance for external solvers, in MiB.
    #[arg(long, value_name = "MIB")]
    pub memory_limit: Option<u64>,
    /// Only the instance with this id.
    #[arg(long)]
    pub id: Option<String>,
    /// One JSON object per instance on stdout instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write a picture of each placement found to DIR/ID.svg (ID: the instance's id).
    #[arg(long, value_name = "DIR")]
    pub svg_dir: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// A batch file: one JSON instance per line.
    pub file: PathBuf,
    /// `dzn` (MiniZinc data, seed 001's layout) or `lp` (clingo facts tile/4, size/1).
    #[arg(long, value_parser = ["dzn", "lp"])]
    pub format: String,
    /// The instance to export (needed when the file holds more than one).
    #[arg(long)]
    pub id: Option<String>,
}

pub use super::solvers::SolversArgs;

pub fn run(cmd: DominoCmd) -> anyhow::Result<()> {
    match cmd {
        DominoCmd::Generate(a) => generate(a),
        DominoCmd::Solve(a) => solve(a),
        DominoCmd::Export(a) => export(a),
        DominoCmd::Certify(a) => super::certify::certify(a),
        DominoCmd::Solvers(a) => super::solvers::list(Family::Domino, a),
    }
}

fn generate(a: GenerateArgs) -> anyhow::Result<()> {
    if a.batches == 0 || a.per_batch == 0 {
        return Err(user_error("--batches and --per-batch must be at least 1"));
    }
    let options = domino::GenerateOptions::parse(
        a.mix.as_deref(),
        a.n.as_deref(),
        a.tiles.as_deref(),
        a.k.as_deref(),
    )
    .map_err(|e| user_error(format!("--{e}")))?;
    let suite = domino::generate_with(a.seed, a.batches, a.per_batch, &options)
        .map_err(|e| user_error(format!("--{e}")))?;
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot create {}", a.out.display()))?;
    let width = a.batches.to_string().len().max(2);
    let mut stdout = std::io::stdout().lock();
    for (i, batch) in suite.iter().enumerate() {
        let path = a.out.join(format!("batch{:0width$}.txt", i + 1));
        let mut text = String::new();
        for inst in batch {
            text.push_str(&domino::to_json_line(inst));
            text.push('\n');
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        writeln!(stdout, "{} ({} instances)", path.display(), batch.len())?;
    }
    Ok(())
}

/// Reads a batch file; a bad line is a user error naming file and line.
fn read_batch(path: &Path) -> anyhow::Result<Vec<Instance>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| user_error(format!("{}: {e}", path.display())))?;
    domino::parse_batch(&text)
        .map_err(|e| user_error(format!("{}:{}: {}", path.display(), e.line, e.problem)))
}

fn select(
    path: &Path,
    instances: Vec<Instance>,
    id: Option<&str>,
) -> anyhow::Result<Vec<Instance>> {
    match id {
        None => Ok(instances),
        Some(id) => {
            let chosen: Vec<Instance> = instances.into_iter().filter(|i| i.id == id).collect();
            if chosen.is_empty() {
                return Err(user_error(format!(
                    "{}: no instance with id `{id}`",
                    path.display()
                )));
            }
            Ok(chosen)
        }
    }
}

fn solve(a: SolveArgs) -> anyhow::Result<()> {
    let Some(config) = bench::config(&a.solver).filter(|c| c.family == Family::Domino) else {
        let known: Vec<&str> = bench::configs_of(Family::Domino).map(|c| c.name).collect();
        return Err(user_error(format!(
            "unknown solver `{}` (known: {})",
            a.solver,
            known.join(", ")
        )));
    };
    let availability = config.availability();
    if !availability.available {
        return Err(user_error(format!(
            "solver `{}` is unavailable here: {} (scripts/install-solvers.sh installs what can be)",
            a.solver,
            availability.reason.unwrap_or_default()
        )));
    }
    if !(a.time_limit.is_finite() && a.time_limit > 0.0) {
        return Err(user_error(
            "--time-limit must be a positive number of seconds",
        ));
    }
    let instances = select(&a.file, read_batch(&a.file)?, a.id.as_deref())?;
    if let Some(dir) = &a.svg_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let limits = RunLimits {
        memory: a.memory_limit.map(|m| m << 20),
        ..RunLimits::with_wall(Duration::from_secs_f64(a.time_limit))
    };

    let mut stdout = std::io::stdout().lock();
    if !a.json {
        writeln!(
            stdout,
            "{:<10} {:<6} {:>3} {:>5} {:<11} {:>9} {:>5} {:>9} {:>9}  termination",
            "id", "diff", "n", "tiles", "status", "objective", "bound", "seconds", "cpu"
        )?;
    }
    let mut wrong = 0usize;
    for inst in &instances {
        let record = bench::run(inst, &a.solver, &limits)?;
        if record.status == Status::Wrong {
            wrong += 1;
        }
        if let (Some(dir), false) = (&a.svg_dir, record.placement().is_empty()) {
            if matches!(record.status, Status::Optimal | Status::Feasible) {
                let path = dir.join(domino::svg::file_name(&inst.id));
                std::fs::write(&path, domino::to_svg(inst, record.placement()))
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
        }
        if a.json {
            writeln!(stdout, "{}", json_line(&record))?;
        } else {
            writeln!(stdout, "{}", table_row(inst, &record))?;
        }
        stdout.flush()?;
    }
    if wrong > 0 {
        anyhow::bail!("{wrong} answer(s) of `{}` failed the verifier", a.solver);
    }
    Ok(())
}

/// The `--json` line of a record: the fields first, then the measurements.
fn json_line(r: &RunRecord) -> String {
    serde_json::json!({
        "id": r.instance,
        "status": r.status,
        "objective": r.objective(),
        "seconds": r.wall_seconds,
        "placement": r.placement(),
        "bound": r.bound(),
        "bound_by": r.bound_by(),
        "cpu_seconds": r.cpu_seconds,
        "peak_memory": r.peak_memory_bytes,
        "cpu_measure": r.cpu_measure,
        "memory_measure": r.memory_measure,
        "solver": r.solver,
        "version": r.solver_version,
        "config": r.config,
        "termination": r.termination,
        "message": r.message,
        "stats": r.stats,
    })
    .to_string()
}

fn table_row(inst: &Instance, r: &RunRecord) -> String {
    let opt = |v: Option<u32>| v.map_or("-".to_owned(), |v| v.to_string());
    let mut row = format!(
        "{:<10} {:<6} {:>3} {:>5} {:<11} {:>9} {:>5} {:>9.3} {:>9}  {}",
        inst.id,
        inst.difficulty.as_str(),
        inst.n,
        inst.tiles.len(),
        r.status,
        opt(r.objective()),
        opt(r.bound()),
        r.wall_seconds,
        r.cpu_seconds.map_or("-".to_owned(), |c| format!("{c:.3}")),
        r.termination
    );
    if let (Some(msg), Status::Wrong | Status::Error) = (&r.message, r.status) {
        row.push_str(&format!("  ({})", msg.lines().next().unwrap_or("")));
    }
    row
}

/// The one instance of batch file `path` that `id` chooses (or its only one).
pub(super) fn one_instance(path: &Path, id: Option<&str>) -> anyhow::Result<Instance> {
    let mut instances = select(path, read_batch(path)?, id)?;
    match instances.len() {
        1 => Ok(instances.remove(0)),
        0 => Err(user_error(format!(
            "{}: no instance in the file",
            path.display()
        ))),
        many => Err(user_error(format!(
            "{}: {many} instances; choose one with --id",
            path.display()
        ))),
    }
}

fn export(a: ExportArgs) -> anyhow::Result<()> {
    let inst = one_instance(&a.file, a.id.as_deref())?;
    let text = match a.format.as_str() {
        "dzn" => domino::to_dzn(&inst),
        _ => domino::to_clingo(&inst),
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}
