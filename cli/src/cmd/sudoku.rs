//! `dancehall sudoku minimal | generate | solvers`: seed 000's question of the fewest givens.
//! `minimal` lists, per puzzle, the givens that can be removed alone without losing
//! uniqueness; `generate` makes a minimal puzzle from a random full grid, deterministic for a
//! seed; `solvers` lists the Sudoku benchmark configurations.

use std::io::{BufWriter, Write};

use cores::problems::sudoku::format_grid;
use cores::sudoku::{self, minimal, MinimalError};
use serde_json::json;

use super::solve::{InputArgs, ShapeArgs};
use crate::exit::user_error;

#[derive(clap::Subcommand, Debug)]
pub enum SudokuCmd {
    /// Say whether every given is needed for uniqueness; list the redundant ones.
    Minimal(MinimalArgs),
    /// Make a minimal puzzle from a random full grid.
    Generate(GenerateArgs),
    /// List the Sudoku benchmark configurations and whether each runs here.
    Solvers(super::solvers::SolversArgs),
}

/// The in-process solvers that check uniqueness here.
#[derive(clap::ValueEnum, Debug, Clone, Copy)]
pub enum CheckSolver {
    Ps12,
    Dlx,
    Sat,
    Alldiff,
}

impl CheckSolver {
    fn solver(self) -> sudoku::Solver {
        match self {
            CheckSolver::Ps12 => sudoku::Solver::Ps12,
            CheckSolver::Dlx => sudoku::Solver::Dlx,
            CheckSolver::Sat => sudoku::Solver::Sat,
            CheckSolver::Alldiff => sudoku::Solver::Alldiff,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct MinimalArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The solver that checks uniqueness.
    #[arg(long, value_enum, default_value_t = CheckSolver::Ps12)]
    pub solver: CheckSolver,
    /// One JSON object per puzzle.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// Seed of the random grid and of the order of removals.
    #[arg(long)]
    pub seed: u64,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// The solver that checks uniqueness.
    #[arg(long, value_enum, default_value_t = CheckSolver::Ps12)]
    pub solver: CheckSolver,
    /// One JSON object with the puzzle, its solution and the number of givens.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: SudokuCmd) -> anyhow::Result<()> {
    match cmd {
        SudokuCmd::Minimal(a) => minimal_cmd(a),
        SudokuCmd::Generate(a) => generate_cmd(a),
        SudokuCmd::Solvers(a) => super::solvers::list(cores::bench::Family::Sudoku, a),
    }
}

fn cell_name(cell: usize, side: usize) -> String {
    format!("r{}c{}", cell / side + 1, cell % side + 1)
}

fn minimal_cmd(a: MinimalArgs) -> anyhow::Result<()> {
    let puzzles = a.input.puzzles()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    for p in &puzzles {
        let side = p.side();
        let result = minimal::redundant_givens(p, a.solver.solver());
        let (line, v) = match result {
            Ok(cells) => {
                let names: Vec<String> = cells.iter().map(|&c| cell_name(c, side)).collect();
                let line = if names.is_empty() {
                    "minimal".to_string()
                } else {
                    format!("redundant: {}", names.join(" "))
                };
                let v = json!({"puzzle": p.text(), "clues": p.clues(),
                               "minimal": names.is_empty(), "redundant": names});
                (line, v)
            }
            Err(MinimalError::NotUnique(status)) => (
                format!("not unique: {}", status.name()),
                json!({"puzzle": p.text(), "status": status.name(), "minimal": null}),
            ),
            Err(MinimalError::Solve(e @ sudoku::SolveError::Unsupported { .. })) => {
                return Err(user_error(e.to_string()))
            }
            Err(e) => return Err(e.into()),
        };
        if a.json {
            writeln!(out, "{v}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(())
}

fn generate_cmd(a: GenerateArgs) -> anyhow::Result<()> {
    let shape = a.shape.shape()?.unwrap_or_else(|| sudoku::Shape::new(3, 3));
    let p = match minimal::generate(&shape, a.seed, a.solver.solver()) {
        Ok(p) => p,
        Err(MinimalError::Shape(e)) => return Err(user_error(format!("--box/--variant: {e}"))),
        Err(MinimalError::Solve(e @ sudoku::SolveError::Unsupported { .. })) => {
            return Err(user_error(e.to_string()))
        }
        Err(e) => return Err(e.into()),
    };
    let answer = sudoku::solve(&p, a.solver.solver(), true)?;
    let solution = answer.solution.as_deref().map(|g| format_grid(g, p.side()));
    let mut out = std::io::stdout().lock();
    if a.json {
        let v = json!({"puzzle": p.text(), "clues": p.clues(), "solution": solution,
                       "seed": a.seed, "status": answer.status.name()});
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "{}", p.text())?;
    }
    Ok(())
}
