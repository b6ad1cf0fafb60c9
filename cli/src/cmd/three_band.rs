//! `dancehall count sudoku --box 3x3 --band-config CONFIG`: one unit of a three-band count
//! recounted from its ledger row (`config`, `count`): B(C), the fillings of a band whose
//! columns hold the configuration C, F(C), the fillings of the two bands below it, their
//! product (the unit's count: the grids whose top band has configuration C, as a worker
//! counts it with `cores::grids::three_band`), and C's class: its representative and size,
//! so the row's `class_size` can be checked too.

use std::io::Write as _;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::grids::three_band::{band_classes, canonical_types, BandConfig, ThreeBandClass};
use cores::problems::Built;

use super::problem::CountArgs;
use crate::exit::user_error;

pub fn count(a: &CountArgs, built: &Built, config: &str) -> anyhow::Result<()> {
    let parsed =
        BandConfig::parse(config).map_err(|e| user_error(format!("--band-config: {e}")))?;
    let started = Instant::now();
    let types = canonical_types(&parsed);
    let (index, class) = band_classes()
        .into_iter()
        .enumerate()
        .find(|(_, k)| k.types == types)
        .ok_or_else(|| anyhow::anyhow!("{parsed}: no class has its types"))?;
    let unit = ThreeBandClass {
        class: index + 1,
        config: parsed.to_string(),
        class_size: class.size,
    };
    let counted = unit
        .count(&AtomicBool::new(false))
        .map_err(|e| user_error(format!("--band-config: {e}")))?
        .ok_or_else(|| anyhow::anyhow!("the count was stopped"))?;
    let seconds = started.elapsed().as_secs_f64();
    let representative = class.config();
    let mut out = std::io::stdout().lock();
    if a.json {
        let v = serde_json::json!({
            "label": built.label,
            "config": unit.config,
            "class": unit.class,
            "class_config": representative.to_string(),
            "class_size": unit.class_size.to_string(),
            "fillings": counted.fillings.to_string(),
            "below": counted.below.to_string(),
            "count": counted.grids.to_string(),
            "seconds": seconds,
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "{}", built.label)?;
        writeln!(
            out,
            "configuration {}: class {} (representative {representative}, {} configurations)",
            unit.config, unit.class, unit.class_size
        )?;
        writeln!(out, "fillings B(C): {}", counted.fillings)?;
        writeln!(out, "bands below F(C): {}", counted.below)?;
        writeln!(out, "count B(C) F(C): {}", counted.grids)?;
        writeln!(out, "seconds: {seconds:.3}")?;
    }
    Ok(())
}
