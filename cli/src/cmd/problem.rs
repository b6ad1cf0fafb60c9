//! `dancehall count | estimate | export | trace`: one problem, in this process. The problem is
//! given by a family subcommand (`sudoku --box 2x2 --variant diagonal`, `queens 8`, ...) or by
//! `--dlx FILE` in Knuth's DLX text format. [`ProblemArgs`] is shared with `dancehall run`.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use cores::count::Count;
use cores::problems::{Built, Picture, ProblemSpec, Variant};
use cores::xcc::{self, Choice, Dlx, Flow, Limits, Outcome};

use crate::core_arg::CoreArg;
use crate::exit::user_error;
use cores::count_core::CoreSpec;

/// A problem: a family with its parameters, or a DLX file.
#[derive(clap::Args, Debug, Clone)]
pub struct ProblemArgs {
    #[command(subcommand)]
    pub family: Option<Family>,
    /// Read the problem from a file in Knuth's DLX format (`|` comments; items, then options).
    #[arg(long, value_name = "FILE")]
    pub dlx: Option<PathBuf>,
}

/// Problem families.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum Family {
    /// Sudoku grids or puzzles with R x C boxes (side R*C).
    Sudoku {
        /// Box size, e.g. 2x2 (4x4 grid), 2x3 (6x6), 3x3 (9x9), 4x4 (16x16).
        #[arg(long = "box", value_name = "RxC", value_parser = parse_dims)]
        box_dims: (usize, usize),
        /// Extra constraint groups: diagonal, hyper, disjoint (repeatable).
        #[arg(long = "variant", value_name = "NAME")]
        variants: Vec<Variant>,
        /// An extra group of cells, 1-based `r,c` pairs separated by `;`, e.g. "1,1;2,2;3,3;4,4".
        #[arg(long = "group", value_name = "CELLS", value_parser = parse_group)]
        groups: Vec<Vec<(usize, usize)>>,
        /// A puzzle: one line of side*side cells, `.` or `0` empty (see `cores::problems::sudoku`).
        #[arg(long, value_name = "CELLS")]
        givens: Option<String>,
        /// Fix the first row to 1..side (a symmetry reduction: multiply counts by side!).
        #[arg(long)]
        fix_first_row: bool,
    },
    /// Latin squares of order N.
    Latin {
        n: usize,
        /// Fix the first row and column (reduced squares).
        #[arg(long)]
        reduced: bool,
    },
    /// N non-attacking queens on an N x N board.
    Queens { n: usize },
    /// Langford pairings L(2,N).
    Langford {
        n: usize,
        /// Count each pairing and its reversal once.
        #[arg(long)]
        break_symmetry: bool,
    },
    /// The 12 pentominoes in a W x H rectangle.
    Pentomino {
        #[arg(value_name = "WxH", value_parser = parse_dims)]
        size: (usize, usize),
        /// Count each solution once up to the rectangle's symmetries.
        #[arg(long)]
        break_symmetry: bool,
    },
}

pub(crate) fn parse_dims(s: &str) -> Result<(usize, usize), String> {
    let (a, b) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected RxC, e.g. 2x3, got `{s}`"))?;
    let parse = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{t}` is not a number in `{s}`"))
    };
    Ok((parse(a)?, parse(b)?))
}

pub(crate) fn parse_group(s: &str) -> Result<Vec<(usize, usize)>, String> {
    s.split(';')
        .map(|cell| {
            let (r, c) = cell
                .split_once(',')
                .ok_or_else(|| format!("cell `{cell}` is not `row,col`"))?;
            let r = r
                .trim()
                .parse()
                .map_err(|_| format!("bad row in `{cell}`"))?;
            let c = c
                .trim()
                .parse()
                .map_err(|_| format!("bad column in `{cell}`"))?;
            Ok((r, c))
        })
        .collect()
}

impl Family {
    pub fn spec(&self) -> ProblemSpec {
        match self.clone() {
            Family::Sudoku {
                box_dims,
                variants,
                groups,
                givens,
                fix_first_row,
            } => ProblemSpec::Sudoku {
                box_rows: box_dims.0,
                box_cols: box_dims.1,
                variants,
                extra_groups: groups,
                givens,
                fix_first_row,
            },
            Family::Latin { n, reduced } => ProblemSpec::Latin { n, reduced },
            Family::Queens { n } => ProblemSpec::Queens { n },
            Family::Langford { n, break_symmetry } => ProblemSpec::Langford { n, break_symmetry },
            Family::Pentomino {
                size,
                break_symmetry,
            } => ProblemSpec::Pentomino {
                width: size.0,
                height: size.1,
                break_symmetry,
            },
        }
    }
}

impl ProblemArgs {
    /// Builds the problem; a bad parameter or file is a user error naming what is wrong.
    pub fn build(&self) -> anyhow::Result<Built> {
        match (&self.family, &self.dlx) {
            (Some(f), None) => {
                let spec = f.spec();
                spec.build()
                    .map_err(|e| user_error(format!("{}: {e}", spec.family())))
            }
            (None, Some(path)) => crate::spec::count::load_dlx(path),
            _ => Err(user_error(
                "give a problem: a family (sudoku, latin, queens, langford, pentomino) or --dlx FILE",
            )),
        }
    }
}

/// Item-choice rule on the command line.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default)]
pub enum ChoiceArg {
    /// Minimum remaining values (seed 000's "shortest" rule).
    #[default]
    Mrv,
    /// The first item in order.
    First,
    /// A random item (seeded with --seed).
    Random,
}

#[derive(clap::Args, Debug)]
pub struct CountArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Item-choice rule.
    #[arg(long, value_enum, default_value_t = ChoiceArg::Mrv, global = true)]
    pub choice: ChoiceArg,
    /// Seed for --choice random.
    #[arg(long, default_value_t = 0, global = true)]
    pub seed: u64,
    /// Stop after this many solutions (2 checks a puzzle's uniqueness).
    // A machine integer: it bounds a count made one solution at a time in this process.
    #[arg(long, global = true)]
    pub limit: Option<u128>,
    /// Print each solution in its family's picture (a Sudoku grid, a Latin square, a queens
    /// board, a Langford sequence, a pentomino packing).
    #[arg(long, global = true)]
    pub print: bool,
    /// With --print: each solution as its options instead, one DLX-format line per option.
    #[arg(long, global = true, requires = "print")]
    pub options: bool,
    /// One JSON object on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// The counting core (default: the family's specialised core where there is one, n
    /// queens; else the Dancing Links engine). Specialised cores only count: no --print or
    /// --limit.
    #[arg(long, value_enum, global = true)]
    pub core: Option<CoreArg>,
    /// Sudoku grids only: count the essentially different grids too (the orbits under the
    /// grid's symmetry group and relabelling, by Burnside's lemma), every term in this
    /// process (small grids; larger ones as jobs: generator `sudoku-orbits`).
    #[arg(long, global = true, conflicts_with_all = ["print", "limit", "core", "term"])]
    pub orbits: bool,
    /// With --orbits: the group, `full` (default) or `sudoku` (its Sudoku-preserving
    /// subgroup).
    #[arg(long, global = true, value_name = "GROUP", requires = "orbits")]
    pub orbit_group: Option<String>,
    /// With --orbits: take the number of grids from this complete ledger of the same
    /// problem's total (`dancehall ledger`; `.csv` or `.csv.gz`) instead of enumerating it
    /// (needed above 6x6).
    #[arg(long, global = true, value_name = "FILE", requires = "orbits")]
    pub total_ledger: Option<std::path::PathBuf>,
    /// Sudoku grids only: count the Burnside term of this symmetry (as an orbit job's ledger
    /// writes it in its `element` column): the grids it maps to a relabelling of
    /// themselves, over side!.
    #[arg(long, global = true, value_name = "ELEMENT", conflicts_with_all = ["print", "limit", "core"])]
    pub term: Option<String>,
    /// Plain Sudoku grids with 2xR boxes: count B(C), the fillings of a band whose columns
    /// hold this top-band configuration (each stack's left column, stacks separated by `|`,
    /// as a two-band job's ledger writes it in its `config` column), and B(C)^2, the unit's
    /// count. Plain 9x9 grids: the configuration is every column's digits (columns separated
    /// by `/`, stacks by `|`, as a three-band job's ledger writes it), and the count B(C) F(C)
    /// the grids whose top band has it.
    #[arg(long, global = true, value_name = "CONFIG", conflicts_with_all = ["print", "limit", "core", "term", "orbits"])]
    pub band_config: Option<String>,
    /// With --band-config on 2xR boxes: count only this part of B(C) (`3/64`, as a two-band
    /// job cut into parts writes it in its ledger's `part` column): the unit's count is then
    /// that piece of B(C), not a square.
    #[arg(long, global = true, value_name = "INDEX/OF", requires = "band_config")]
    pub part: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct EstimateArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Number of random root-to-leaf paths.
    #[arg(long, default_value_t = 1000, global = true)]
    pub samples: u64,
    #[arg(long, default_value_t = 0, global = true)]
    pub seed: u64,
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
}

#[derive(clap::Args, Debug)]
pub struct TraceArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Trace the search only up to its first solution, as seed 000's trace does.
    #[arg(long, global = true)]
    pub first: bool,
    #[arg(long, value_enum, default_value_t = ChoiceArg::Mrv, global = true)]
    pub choice: ChoiceArg,
    #[arg(long, default_value_t = 0, global = true)]
    pub seed: u64,
}

fn choice(arg: ChoiceArg, seed: u64) -> Choice {
    match arg {
        ChoiceArg::Mrv => Choice::Mrv,
        ChoiceArg::First => Choice::First,
        ChoiceArg::Random => Choice::Random(seed),
    }
}

/// Applies the built problem's prefix; a clash (e.g. in puzzle givens) is a user error.
fn solver<'p>(built: &'p Built, rule: Choice) -> anyhow::Result<Dlx<'p>> {
    let mut dlx = Dlx::with_choice(&built.problem, rule);
    dlx.apply_prefix(&built.prefix)
        .map_err(|e| user_error(format!("{}: {e}", built.label)))?;
    Ok(dlx)
}

/// The result of a count, as printed by `count` and (plus job fields) by `run`.
#[derive(Debug, Clone)]
pub struct CountReport {
    pub label: String,
    pub solutions: Count,
    pub symmetry_factor: Count,
    pub nodes: u64,
    pub updates: u64,
    pub seconds: f64,
    /// False when a --limit stopped the count early.
    pub complete: bool,
}

impl CountReport {
    /// `solutions` times the symmetry factor, exact.
    pub fn total(&self) -> Count {
        &self.solutions * &self.symmetry_factor
    }

    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "problem": self.label,
            "solutions": self.solutions.to_string(),
            "nodes": self.nodes,
            "updates": self.updates,
            "seconds": self.seconds,
            "complete": self.complete,
        });
        if self.symmetry_factor != Count::one() {
            v["symmetry_factor"] = self.symmetry_factor.to_string().into();
            v["total_solutions"] = self.total().to_string().into();
        }
        v
    }

    pub fn human(&self) -> String {
        let mut s = format!("{}\nsolutions: {}", self.label, self.solutions);
        if !self.complete {
            s.push_str(" (stopped at the --limit)");
        }
        if self.symmetry_factor != Count::one() {
            s.push_str(&format!(
                "\n  counted with a symmetry reduction: x {} = {} in all",
                self.symmetry_factor,
                self.total()
            ));
        }
        let rate = |x: u64| x as f64 / self.seconds.max(1e-9);
        s.push_str(&format!(
            "\nnodes: {}  updates: {}  seconds: {:.3}  ({:.3e} nodes/s, {:.3e} updates/s)",
            self.nodes,
            self.updates,
            self.seconds,
            rate(self.nodes),
            rate(self.updates)
        ));
        s
    }
}

pub fn count(a: CountArgs) -> anyhow::Result<()> {
    let built = a.problem.build()?;
    if a.orbits {
        return super::orbits::count(&a, &built);
    }
    if let Some(element) = &a.term {
        return super::orbits::term(&a, &built, element);
    }
    if let Some(config) = &a.band_config {
        let spec = a.problem.family.as_ref().map(|f| f.spec());
        if spec.as_ref().and_then(crate::spec::units::plain_sudoku) == Some((3, 3)) {
            if a.part.is_some() {
                return Err(crate::exit::user_error(
                    "--part cuts a two-band class (2xR boxes); a 9x9 configuration is counted \
                     whole",
                ));
            }
            return super::three_band::count(&a, &built, config);
        }
        return super::two_band::count(&a, &built, config);
    }
    let dlx_only = match (a.print, a.limit.is_some()) {
        (true, _) => Some("--print"),
        (false, true) => Some("--limit"),
        (false, false) => None,
    };
    let core =
        crate::core_arg::choose(a.core, a.problem.family.as_ref(), &built.problem, dlx_only)?;
    if core != CoreSpec::Dlx {
        return count_with_core(&a, &built, core);
    }
    let mut dlx = solver(&built, choice(a.choice, a.seed))?;
    let limit = a.limit.unwrap_or(u128::MAX);
    let started = Instant::now();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut write_err = None;
    let outcome = if a.print {
        let mut found = 0u128;
        dlx.run(&Limits::default(), |sol| {
            found += 1;
            let text = if a.options {
                Picture::Options.draw(&built.problem, sol)
            } else {
                built.picture.draw(&built.problem, sol)
            };
            if let Err(e) = writeln!(out, "{text}\n") {
                write_err = Some(e);
                return Flow::Stop;
            }
            if found >= limit {
                Flow::Stop
            } else {
                Flow::Continue
            }
        })
    } else if a.limit.is_some() {
        dlx.count_up_to(limit);
        if dlx.stats().solutions >= limit {
            Outcome::Halted
        } else {
            Outcome::Complete
        }
    } else {
        dlx.count();
        Outcome::Complete
    };
    if let Some(e) = write_err {
        return Err(e.into());
    }
    let stats = dlx.stats();
    let report = CountReport {
        label: built.label.clone(),
        solutions: Count::from(stats.solutions),
        // A builder's factor is a product of small factorials: bounded, u128 at its edge.
        symmetry_factor: Count::from(built.symmetry_factor),
        nodes: stats.nodes,
        updates: stats.updates,
        seconds: started.elapsed().as_secs_f64(),
        complete: outcome == Outcome::Complete,
    };
    if a.json {
        writeln!(out, "{}", report.to_json())?;
    } else {
        writeln!(out, "{}", report.human())?;
    }
    Ok(())
}

/// `count` with a specialised core (`--core sudoku-bands`, the queens core): the
/// completions of the problem's prefix, counted whole by `CoreSpec::count_prefix`.
fn count_with_core(a: &CountArgs, built: &Built, core: CoreSpec) -> anyhow::Result<()> {
    let started = Instant::now();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let counted = core
        .count_prefix(&built.problem, &built.prefix, &stop)
        .map_err(|e| user_error(format!("{}: {e}", built.label)))?
        .context("the count was stopped")?;
    let report = CountReport {
        label: format!("{} (core {})", built.label, core.core()),
        solutions: Count::from(counted.solutions),
        symmetry_factor: Count::from(built.symmetry_factor),
        nodes: counted.nodes,
        updates: 0,
        seconds: started.elapsed().as_secs_f64(),
        complete: true,
    };
    let mut out = std::io::stdout().lock();
    if a.json {
        let mut v = report.to_json();
        v["core"] = core.core().as_str().into();
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "{}", report.human())?;
    }
    Ok(())
}

/// A solution as text: its options, one DLX-format line each (decoding per family, e.g. a
/// Sudoku grid, is not wired into the CLI yet).
pub fn estimate(a: EstimateArgs) -> anyhow::Result<()> {
    let built = a.problem.build()?;
    let started = Instant::now();
    let e = xcc::estimate(&built.problem, &built.prefix, a.samples, a.seed)
        .map_err(|e| user_error(format!("{}: {e}", built.label)))?;
    let seconds = started.elapsed().as_secs_f64();
    let mut out = std::io::stdout().lock();
    if a.json {
        // JSON has no infinity: past f64's range `mean` and `std_err` are null and the
        // logarithms say the size.
        let finite = |x: f64| x.is_finite().then_some(x);
        let ms = |m: xcc::MeanSe| {
            serde_json::json!({
                "mean": finite(m.mean),
                "std_err": finite(m.std_err),
                "log10_mean": finite(m.log10_mean),
                "log10_std_err": finite(m.log10_std_err),
            })
        };
        let v = serde_json::json!({
            "problem": built.label,
            "samples": e.samples,
            "seed": a.seed,
            "nodes": ms(e.nodes),
            "updates": ms(e.updates),
            "solutions": ms(e.solutions),
            "symmetry_factor": built.symmetry_factor.to_string(),
            "seconds": seconds,
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(
            out,
            "{}: {} random paths (seed {})",
            built.label, e.samples, a.seed
        )?;
        for (name, m) in [
            ("nodes", e.nodes),
            ("updates", e.updates),
            ("solutions", e.solutions),
        ] {
            if m.mean.is_finite() {
                writeln!(out, "{name:>10}: {:.6e} ± {:.2e}", m.mean, m.std_err)?;
            } else {
                // Past f64's range (10^308): the size as a power of ten.
                writeln!(
                    out,
                    "{name:>10}: 10^{:.4} ± 10^{:.4}",
                    m.log10_mean, m.log10_std_err
                )?;
            }
        }
        if built.symmetry_factor != 1 {
            writeln!(
                out,
                "(solutions are of the reduced problem: multiply by {})",
                built.symmetry_factor
            )?;
        }
    }
    Ok(())
}

pub fn export(a: ExportArgs) -> anyhow::Result<()> {
    let built = a.problem.build()?;
    // DLX text has no prefix: export the problem that remains after it.
    let problem = if built.prefix.is_empty() {
        built.problem.clone()
    } else {
        xcc::reduce(&built.problem, &built.prefix)
            .map_err(|e| user_error(format!("{}: {e}", built.label)))?
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "| dancehall export: {}", built.label)?;
    if built.symmetry_factor != 1 {
        writeln!(
            out,
            "| counts of this problem are multiplied by {} for the full count",
            built.symmetry_factor
        )?;
    }
    out.write_all(xcc::write_dlx(&problem).as_bytes())
        .context("writing the DLX text")?;
    Ok(())
}

pub fn trace(a: TraceArgs) -> anyhow::Result<()> {
    let built = a.problem.build()?;
    let mut dlx = solver(&built, choice(a.choice, a.seed))?;
    if a.first {
        dlx.first();
    } else {
        dlx.count();
    }
    let s = dlx.stats();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: {} solutions{}, {} nodes, {} updates",
        built.label,
        s.solutions,
        if a.first { " (to the first)" } else { "" },
        s.nodes,
        s.updates
    )?;
    out.write_all(s.profile_table().as_bytes())?;
    Ok(())
}
