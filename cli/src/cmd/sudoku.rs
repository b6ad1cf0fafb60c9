//! `dancehall sudoku minimal | generate | solvers | symmetries`: seed 000's question of the
//! fewest givens, and the symmetries of a grid.
//! `minimal` lists, per puzzle, the givens that can be removed alone without losing
//! uniqueness; `generate` makes a minimal puzzle from a random full grid, deterministic for a
//! seed; `solvers` lists the Sudoku benchmark configurations; `symmetries` prints the order
//! of a variant's symmetry group, computed from its groups by `cores::grids::symmetry`, and
//! the orders of the two groups an orbit count runs under (`cores::grids::orbits::group_orders`:
//! the Sudoku-preserving subgroup and the full group).

use std::io::{BufWriter, Write};

use anyhow::Context;

use cores::grids::{groups, symmetry};
use cores::problems::factorial;
use cores::problems::sudoku::{format_grid, Sudoku, SudokuConfig};
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
    /// The grid symmetries of a Sudoku variant: plain group order, the variant's order.
    Symmetries(SymmetriesArgs),
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
            CheckSolver::Alldiff => sudoku::Solver::Alldiff(sudoku::Level::Hyperarc),
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

#[derive(clap::Args, Debug)]
#[command(mut_arg("box_dims", |a| a
    .required(true)
    .help("Box size, e.g. 2x2 (4x4 grid), 2x3 (6x6), 3x3 (9x9), 4x4 (16x16)")))]
pub struct SymmetriesArgs {
    /// The grid: `--box RxC`, `--variant`, `--group`.
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// One JSON object, the orders as decimal strings.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: SudokuCmd) -> anyhow::Result<()> {
    match cmd {
        SudokuCmd::Minimal(a) => minimal_cmd(a),
        SudokuCmd::Generate(a) => generate_cmd(a),
        SudokuCmd::Solvers(a) => super::solvers::list(cores::bench::Family::Sudoku, a),
        SudokuCmd::Symmetries(a) => symmetries_cmd(a),
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

/// The plain group's order and the order of the subgroup keeping the variant's groups, which
/// are read back from the built problem (as the `sudoku-groups` core reads them), so
/// `--group` shapes get theirs too.
fn symmetries_cmd(a: SymmetriesArgs) -> anyhow::Result<()> {
    let Some((box_rows, box_cols)) = a.shape.box_dims else {
        return Err(user_error("sudoku symmetries needs --box RxC"));
    };
    let config = SudokuConfig {
        variants: a.shape.variants.clone(),
        extra_groups: a.shape.groups.clone(),
        ..SudokuConfig::new(box_rows, box_cols)
    };
    let flags = "--box/--variant/--group";
    let shape_error = |e: String| user_error(format!("{flags}: {e}"));
    cores::grids::completion::check_shape(box_rows, box_cols)
        .map_err(|e| shape_error(e.to_string()))?;
    let built = Sudoku::build(&config).map_err(|e| shape_error(e.to_string()))?;
    let g = groups::read_groups(box_rows, box_cols, &built.problem)
        .map_err(|e| shape_error(e.to_string()))?;
    let plain =
        symmetry::plain_order(box_rows, box_cols).map_err(|e| shape_error(e.to_string()))?;
    let order = symmetry::variant_order(&g).map_err(|e| shape_error(e.to_string()))?;
    // The groups an orbit count runs under (`count --orbits`, generator `sudoku-orbits`):
    // listed, so only for grids they fit.
    let orbit_orders = cores::grids::orbits::group_orders(&g).map_err(|e| e.to_string());
    let side = built.side();
    // check_shape keeps the side at most 25: side! fits (overflow comes at 35!).
    let relabellings = factorial(side).context("side! overflows")?;
    let variants: Vec<&str> = config.variants.iter().map(|v| v.name()).collect();
    let mut out = std::io::stdout().lock();
    if a.json {
        let v = json!({
            "side": side,
            "box": format!("{box_rows}x{box_cols}"),
            "variants": variants,
            "extra_groups": config.extra_groups.len(),
            "plain_order": plain.to_string(),
            "variant_order": order.to_string(),
            "relabellings": relabellings.to_string(),
            "orbit_sudoku_order": orbit_orders.as_ref().ok().map(|o| o.0.to_string()),
            "orbit_full_order": orbit_orders.as_ref().ok().map(|o| o.1.to_string()),
        });
        writeln!(out, "{v}")?;
    } else {
        let mut head = format!("{side}x{side} ({box_rows}x{box_cols} boxes), variants: ");
        head.push_str(&if variants.is_empty() {
            "none".to_string()
        } else {
            variants.join(", ")
        });
        if !config.extra_groups.is_empty() {
            head.push_str(&format!(", extra groups: {}", config.extra_groups.len()));
        }
        writeln!(out, "{head}")?;
        writeln!(out, "plain grid symmetries: {plain}")?;
        writeln!(out, "symmetries preserving the extra groups: {order}")?;
        writeln!(out, "digit relabellings: {relabellings}")?;
        match orbit_orders {
            Ok((sudoku, full)) => writeln!(
                out,
                "orbit groups (essentially different grids): Sudoku-preserving {sudoku}, full \
                 {full} (cell permutations that map the set of all groups, implied ones \
                 included, onto itself)"
            )?,
            Err(e) => writeln!(out, "orbit groups: not listed ({e})")?,
        }
    }
    Ok(())
}
