//! `dancehall domino solvers` and `dancehall sudoku solvers`: a family's benchmark
//! configurations (`worker::bench::CONFIGS`) and what this machine has of each.

use std::io::Write;

use cores::bench::Family;
use worker::bench;

#[derive(clap::Args, Debug)]
pub struct SolversArgs {
    /// One JSON object per configuration.
    #[arg(long)]
    pub json: bool,
}

/// Lists `family`'s configurations, one line (or JSON object) each.
pub fn list(family: Family, a: SolversArgs) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    for c in bench::configs_of(family) {
        let av = c.availability();
        if a.json {
            let line = serde_json::json!({
                "name": c.name,
                "family": c.family,
                "available": av.available,
                "solver": av.solver,
                "version": av.version,
                "command": av.program,
                "reason": av.reason,
                "about": c.about,
                "unit_puzzles": (family == Family::Sudoku).then_some(c.unit_puzzles),
            });
            writeln!(stdout, "{line}")?;
        } else {
            let state = if av.available {
                av.version.clone()
            } else {
                format!("unavailable: {}", av.reason.unwrap_or_default())
            };
            writeln!(stdout, "{:<19} {:<40} {}", c.name, state, c.about)?;
        }
    }
    Ok(())
}
