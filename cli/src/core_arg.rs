//! `--core`: which counting core counts a problem, for `count` (in this process) and `run`
//! (the job's workers). Without the flag a problem gets its family's specialised core where
//! one counts it exactly (n queens: the bitboard core), else the Dancing Links engine.

use cores::count_core::CoreSpec;
use cores::xcc::Problem;

use crate::cmd::problem::Family;
use crate::exit::user_error;

/// `--core` on the command line.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoreArg {
    /// The Dancing Links engine: any problem; prints, limits, re-splits.
    Dlx,
    /// The Sudoku completion core: plain Sudoku grids only (no variants or extra groups).
    SudokuBands,
    /// The bitboard n queens core (n up to 32).
    Queens,
    /// Sudoku grids with any variants or extra groups (read from the problem).
    SudokuGroups,
}

/// The core that counts `problem` (built from `family`): the one asked for, checked, or the
/// family's default. `dlx_only`: the caller needs the engine (--print, --limit), so a default
/// falls back to it and an explicit specialised core is refused.
pub fn choose(
    arg: Option<CoreArg>,
    family: Option<&Family>,
    problem: &Problem,
    dlx_only: Option<&str>,
) -> anyhow::Result<CoreSpec> {
    let wanted = match (arg, family) {
        (Some(CoreArg::Dlx), _) => return Ok(CoreSpec::Dlx),
        (Some(CoreArg::SudokuBands), Some(Family::Sudoku { box_dims, .. })) => {
            CoreSpec::SudokuBands {
                box_rows: box_dims.0,
                box_cols: box_dims.1,
            }
        }
        (Some(CoreArg::Queens), Some(Family::Queens { n })) => CoreSpec::Queens { n: *n },
        (Some(CoreArg::SudokuGroups), Some(Family::Sudoku { box_dims, .. })) => {
            CoreSpec::SudokuGroups {
                box_rows: box_dims.0,
                box_cols: box_dims.1,
            }
        }
        (Some(CoreArg::SudokuGroups), _) => {
            return Err(user_error("--core sudoku-groups counts Sudoku grids only"))
        }
        (Some(CoreArg::SudokuBands), _) => {
            return Err(user_error("--core sudoku-bands counts Sudoku grids only"))
        }
        (Some(CoreArg::Queens), _) => {
            return Err(user_error("--core queens counts the n queens problem only"))
        }
        // The family's default, the one rule specs follow too.
        (None, _) if dlx_only.is_some() => return Ok(CoreSpec::Dlx),
        (None, _) => {
            let spec = family.map(Family::spec);
            return Ok(crate::spec::units::default_core(spec.as_ref(), problem));
        }
    };
    if !wanted.can_count(problem) {
        return Err(user_error(match wanted {
            CoreSpec::SudokuBands { box_rows, box_cols } => format!(
                "--core sudoku-bands counts plain {box_rows}x{box_cols}-box grids: no variants or \
                 extra groups (use --core dlx)"
            ),
            CoreSpec::Queens { n } => format!(
                "--core queens counts boards of 1 to {} squares a side, not {n} (use --core dlx)",
                cores::queens::MAX_N
            ),
            CoreSpec::SudokuGroups { box_rows, box_cols } => format!(
                "--core sudoku-groups cannot count this problem: {}",
                cores::grids::groups::read_groups(box_rows, box_cols, problem)
                    .err()
                    .map_or_else(String::new, |e| e.to_string())
            ),
            CoreSpec::SudokuOrbits { .. } => {
                "core sudoku-orbits counts orbit terms ([units] generator = \"sudoku-orbits\")"
                    .into()
            }
            CoreSpec::TwoBand { .. } => {
                "core two-band counts two-band classes ([units] generator = \"two-band\")".into()
            }
            CoreSpec::ThreeBand { .. } => {
                "core three-band counts three-band classes ([units] generator = \"three-band\")"
                    .into()
            }
            CoreSpec::Dlx => unreachable!("the engine counts every problem"),
        }));
    }
    if let Some(what) = dlx_only {
        return Err(user_error(format!(
            "--core {} only counts: {what} needs --core dlx",
            wanted.core()
        )));
    }
    Ok(wanted)
}
