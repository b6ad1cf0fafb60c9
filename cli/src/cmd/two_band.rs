//! `dancehall count sudoku --box 2xR --band-config CONFIG`: one unit of a two-band count
//! recounted from its ledger row (`config`, `fillings`, `count`): B(C), the fillings of a
//! band whose columns hold the configuration C (`cores::grids::two_band::band_fillings`, as
//! a worker counts the unit, here on every local core: at 12x12 one B(C) takes about 2.5
//! hours of a core), B(C)^2 (the unit's count), and C's class: its canonical representative
//! and size E(C), so the row's `class_size` can be checked too. With `--part 3/64` (a row
//! of a count cut into parts: its `part` column) it counts that part of B(C) on one thread,
//! as a worker does, and the count is the part itself.

use std::io::Write as _;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::grids::two_band::{band_rows, Classes, Config, Part, TwoBandClass};
use cores::problems::{Built, ProblemSpec};

use super::problem::CountArgs;
use crate::exit::user_error;

pub fn count(a: &CountArgs, built: &Built, config: &str) -> anyhow::Result<()> {
    let flag = "--band-config";
    let spec: Option<ProblemSpec> = a.problem.family.as_ref().map(|f| f.spec());
    let Some((r, c)) = spec.as_ref().and_then(crate::spec::units::plain_sudoku) else {
        return Err(user_error(format!(
            "{flag} counts bands of a plain Sudoku with 2xR boxes (dancehall count sudoku --box \
             2x5 {flag} CONFIG)"
        )));
    };
    let rows = band_rows(r, c).map_err(|e| user_error(format!("{flag}: {e}")))?;
    let stacks = config.trim().split('|').count();
    if stacks != rows {
        return Err(user_error(format!(
            "{flag} {config}: {stacks} stacks, but {r}x{c} boxes make bands of {rows} stacks"
        )));
    }
    let parsed = Config::parse(config).map_err(|e| user_error(format!("{flag}: {e}")))?;
    let started = Instant::now();
    let canonical = Classes::canonical(&parsed);
    // The classes as the generator lists them (and from its cache: at 12x12 enumerating
    // them takes seconds).
    let class = crate::spec::cache::units("two-band", &rows, || TwoBandClass::all(rows))
        .map_err(|e| user_error(e.to_string()))?
        .into_iter()
        .find(|k| k.config == canonical.to_string())
        .ok_or_else(|| anyhow::anyhow!("{canonical}: no class has this representative"))?;
    let part = a
        .part
        .as_deref()
        .map(Part::parse)
        .transpose()
        .map_err(|e| user_error(format!("--part: {e}")))?;
    let unit = TwoBandClass {
        config: parsed.to_string(),
        part,
        ..class.clone()
    };
    let threads = match part {
        None => cores::parallel::local_threads(),
        Some(_) => 1,
    };
    let (b, square) = unit
        .count_on(threads, &AtomicBool::new(false))
        .map_err(|e| user_error(format!("{flag}: {e}")))?
        .ok_or_else(|| anyhow::anyhow!("the count was stopped"))?;
    let seconds = started.elapsed().as_secs_f64();
    let mut out = std::io::stdout().lock();
    if a.json {
        let v = serde_json::json!({
            "label": built.label,
            "config": parsed.to_string(),
            "class": class.class,
            "class_config": class.config,
            "class_size": class.class_size.to_string(),
            "part": part.map(|p| p.to_string()),
            "fillings": b.to_string(),
            "count": square.to_string(),
            "seconds": seconds,
            "threads": threads,
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "{}", built.label)?;
        writeln!(
            out,
            "configuration {parsed}: class {} (representative {}, {} configurations)",
            class.class, class.config, class.class_size
        )?;
        match part {
            None => {
                writeln!(out, "fillings B(C): {b}")?;
                writeln!(out, "count B(C)^2: {square}")?;
            }
            Some(p) => writeln!(out, "part {p} of B(C) (the unit's count): {b}")?,
        }
        writeln!(out, "seconds: {seconds:.3} on {threads} threads")?;
    }
    Ok(())
}
