//! `dancehall solve sudoku`: puzzles in (one a line, from the argument, a file or stdin), one
//! line out per puzzle: the solution grid, `none` or `multiple` (`--json`: one object a
//! line). Every puzzle is read and checked before any is solved, so bad input fails with
//! `FILE:LINE: problem` and exit status 2 before any output. Every grid printed has passed
//! `cores::sudoku::answer`, the independent verifier.

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use cores::problems::sudoku::format_grid;
use cores::problems::Variant;
use cores::sudoku::{self, difficulty, ps12, Answer, Puzzle, PuzzleReader, Shape, SolveError};
use serde_json::json;

use clap::ValueEnum;
use worker::bench::sudoku::Solved;
use worker::bench::sudoku_external as external;
use worker::bench::{self, Config, Family};

use super::problem::{parse_dims, parse_group};
use crate::exit::user_error;

#[derive(clap::Subcommand, Debug)]
pub enum SolveCmd {
    /// Solve Sudoku puzzles (sizes 1x1 to 16x16, variants), one per line.
    Sudoku(SolveSudokuArgs),
}

/// The shape of the puzzles: box size (else inferred from each line's length), variants.
#[derive(clap::Args, Debug, Clone)]
pub struct ShapeArgs {
    /// Box size, e.g. 2x2 (4x4 grid), 2x3 (6x6), 3x3 (9x9), 4x4 (16x16); by default inferred
    /// from the length of each line.
    #[arg(long = "box", value_name = "RxC", value_parser = parse_dims)]
    pub box_dims: Option<(usize, usize)>,
    /// Extra constraint groups: diagonal, hyper, disjoint (repeatable; needs --box).
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<Variant>,
    /// An extra group of cells, 1-based `r,c` pairs separated by `;` (needs --box).
    #[arg(long = "group", value_name = "CELLS", value_parser = parse_group)]
    pub groups: Vec<Vec<(usize, usize)>>,
}

impl ShapeArgs {
    pub fn shape(&self) -> anyhow::Result<Option<Shape>> {
        match self.box_dims {
            Some((r, c)) => Ok(Some(Shape {
                variants: self.variants.clone(),
                extra_groups: self.groups.clone(),
                ..Shape::new(r, c)
            })),
            None if self.variants.is_empty() && self.groups.is_empty() => Ok(None),
            None => Err(user_error("--variant and --group need --box RxC")),
        }
    }
}

/// Where the puzzles come from.
#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// A puzzle: one line of side*side cells, `.` or `0` empty, digits 1-9 then A-G.
    #[arg(value_name = "PUZZLE", conflicts_with = "file")]
    pub puzzle: Option<String>,
    /// Read puzzles from a file, one per line (`-`: standard input); blank lines and lines
    /// starting with `#` are skipped.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub shape: ShapeArgs,
}

impl InputArgs {
    /// Every puzzle, read and checked; the first bad line is a user error `FILE:LINE: ...`.
    pub fn puzzles(&self) -> anyhow::Result<Vec<Puzzle>> {
        let (name, text) = match (&self.puzzle, &self.file) {
            (Some(p), None) => ("argument".to_string(), p.clone()),
            (None, Some(path)) if path.as_os_str() == "-" => {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .context("reading standard input")?;
                ("<stdin>".to_string(), text)
            }
            (None, Some(path)) => (
                path.display().to_string(),
                std::fs::read_to_string(path)
                    .map_err(|e| user_error(format!("{}: cannot read: {e}", path.display())))?,
            ),
            _ => return Err(user_error("give a PUZZLE or --file FILE")),
        };
        let shape = self.shape.shape()?;
        let mut reader = PuzzleReader::new(shape.as_ref())
            .map_err(|e| user_error(format!("--box/--variant/--group: {e}")))?;
        let puzzles: Vec<Puzzle> = reader
            .parse_all(&text)
            .map(|p| p.map_err(|e| user_error(format!("{name}:{}: {}", e.line, e.error))))
            .collect::<anyhow::Result<_>>()?;
        if puzzles.is_empty() {
            return Err(user_error(format!("{name}: no puzzle")));
        }
        Ok(puzzles)
    }
}

/// Every solver `solve sudoku` can run.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolverArg {
    /// PS-1-2 (bit-parallel for plain 9x9, the seed-faithful version otherwise).
    Ps12,
    /// The seed-faithful PS-1-2 for every shape.
    Ps12Generic,
    /// Dancing Links (exact cover), givens as the prefix.
    Dlx,
    /// The extended CNF by CaDiCaL, in process.
    Sat,
    /// Seed 000's naive CNF by CaDiCaL, in process.
    SatNaive,
    /// Régin's alldifferent filtering with search.
    Alldiff,
    /// The same search, Leconte's range consistency.
    AlldiffRange,
    /// The same search, bounds consistency.
    AlldiffBounds,
    /// MiniSat on the extended CNF (external program).
    Minisat,
    /// GNU Prolog CLP(FD) (external program).
    Gprolog,
    /// MiniZinc with Gecode (external program).
    Minizinc,
    /// Gecode's alldifferent, value propagation, through MiniZinc (external program).
    MinizincValue,
    /// Gecode's alldifferent, bounds consistency, through MiniZinc (external program).
    MinizincBounds,
    /// Gecode's alldifferent, domain consistency, through MiniZinc (external program).
    MinizincDomain,
}

impl SolverArg {
    /// The Sudoku benchmark configuration of the same name (`worker::bench::CONFIGS`).
    pub fn config(self) -> &'static Config {
        let value = self.to_possible_value().expect("no solver is hidden");
        bench::config(value.get_name())
            .filter(|c| c.family == Family::Sudoku)
            .expect("every solver is a Sudoku configuration")
    }
}

/// A verified answer of configuration `cfg`, or why its external program is unavailable here.
fn answer(cfg: &Config, puzzle: &Puzzle, unique: bool) -> anyhow::Result<Result<Answer, String>> {
    let want = if unique { 2 } else { 1 };
    let deadline = Instant::now() + external::TIME_LIMIT;
    match bench::sudoku::solutions(cfg.engine, puzzle, want, deadline) {
        Solved::Grids { grids, .. } => Ok(Ok(
            sudoku::answer(puzzle, cfg.name, grids, unique).map_err(core_error)?
        )),
        Solved::Unavailable(why) => Ok(Err(why)),
        Solved::Unsupported(why) => Err(user_error(why)),
        Solved::Timeout(why) => Err(anyhow::anyhow!("{}: timeout: {why}", cfg.name)),
        Solved::Failed(why) => Err(anyhow::anyhow!("{}: failed: {why}", cfg.name)),
    }
}

/// A shape the solver cannot express is the user's choice to change; a wrong grid is ours.
fn core_error(e: SolveError) -> anyhow::Error {
    match e {
        SolveError::Unsupported { .. } => user_error(e.to_string()),
        e => anyhow::Error::new(e),
    }
}

#[derive(clap::Args, Debug)]
pub struct SolveSudokuArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[arg(long, value_enum, default_value_t = SolverArg::Ps12)]
    pub solver: SolverArg,
    /// Check uniqueness (search for a second solution): `unique` or `multiple`.
    #[arg(long)]
    pub unique: bool,
    /// Print seed 000's PS-1-2 trace table (Prop, Red, Srch, Tot. Prop, Tot. Srch) before
    /// each answer (ps12 and ps12-generic only).
    #[arg(long)]
    pub trace: bool,
    /// One JSON object per puzzle, with difficulty fields.
    #[arg(long)]
    pub json: bool,
    /// Random paths of the Monte Carlo tree-size estimate in --json (0: no estimate).
    #[arg(long, default_value_t = difficulty::DEFAULT_SAMPLES)]
    pub samples: u64,
    /// Seed of the Monte Carlo estimate.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

pub fn run(cmd: SolveCmd) -> anyhow::Result<()> {
    match cmd {
        SolveCmd::Sudoku(a) => solve_sudoku(a),
    }
}

fn solve_sudoku(a: SolveSudokuArgs) -> anyhow::Result<()> {
    let solver = a.solver.config();
    if a.trace && !matches!(a.solver, SolverArg::Ps12 | SolverArg::Ps12Generic) {
        return Err(user_error(
            "--trace shows the PS-1-2 trace: use --solver ps12",
        ));
    }
    let puzzles = a.input.puzzles()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    for p in &puzzles {
        let start = Instant::now();
        let (answer, trace) = if a.trace {
            let run = ps12::run(p, if a.unique { 2 } else { 1 }, true);
            let answer =
                sudoku::answer(p, "ps12", run.solutions.clone(), a.unique).map_err(core_error)?;
            (Ok(answer), Some(run))
        } else {
            (answer(solver, p, a.unique)?, None)
        };
        let seconds = start.elapsed().as_secs_f64();
        let side = p.side();
        let line = match &answer {
            Ok(ans) => match ans.status {
                sudoku::Status::None => "none".to_string(),
                sudoku::Status::Multiple => "multiple".to_string(),
                _ => format_grid(ans.solution.as_deref().unwrap_or_default(), side),
            },
            Err(_) => "unavailable".to_string(),
        };
        if a.json {
            let mut v = json!({
                "puzzle": p.text(),
                "solver": solver.name,
                "seconds": seconds,
            });
            match &answer {
                Ok(ans) => {
                    v["status"] = ans.status.name().into();
                    v["solution"] = ans
                        .solution
                        .as_deref()
                        .map_or(serde_json::Value::Null, |g| format_grid(g, side).into());
                }
                Err(why) => {
                    v["status"] = "unavailable".into();
                    v["reason"] = why.clone().into();
                }
            }
            difficulty_fields(&mut v, p, a.samples, a.seed)?;
            if let Some(run) = &trace {
                v["trace"] = run
                    .trace
                    .iter()
                    .map(|r| {
                        json!({"step": format!("{:?}", r.step), "total_ops": r.total_ops,
                               "total_searches": r.total_searches})
                    })
                    .collect();
            }
            writeln!(out, "{v}")?;
        } else {
            if let Some(run) = &trace {
                write!(out, "{}", run.trace_table())?;
            }
            writeln!(out, "{line}")?;
        }
        if let Err(why) = &answer {
            eprintln!("dancehall: {}: {why}", solver.name);
        }
    }
    out.flush()?;
    Ok(())
}

/// PS-1-2's search count and, with samples, the Monte Carlo tree-size estimate.
fn difficulty_fields(
    v: &mut serde_json::Value,
    p: &Puzzle,
    samples: u64,
    seed: u64,
) -> anyhow::Result<()> {
    if samples == 0 {
        let s = ps12::run(p, 2, false).stats;
        v["ps12_searches"] = s.searches.into();
        v["ps12_backtracks"] = s.backtracks.into();
        v["ps12_operations"] = s.operations.into();
        return Ok(());
    }
    let d = difficulty::difficulty(p, samples, seed).map_err(core_error)?;
    v["ps12_searches"] = d.ps12.searches.into();
    v["ps12_backtracks"] = d.ps12.backtracks.into();
    v["ps12_operations"] = d.ps12.operations.into();
    v["tree_nodes"] = d.tree_nodes.mean.into();
    v["tree_nodes_std_err"] = d.tree_nodes.std_err.into();
    v["tree_samples"] = d.samples.into();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_solver_names_a_sudoku_configuration() {
        for arg in SolverArg::value_variants() {
            let name = arg.to_possible_value().unwrap().get_name().to_owned();
            assert_eq!(arg.config().name, name);
        }
        assert_eq!(
            SolverArg::value_variants().len(),
            bench::configs_of(Family::Sudoku).count()
        );
    }
}
