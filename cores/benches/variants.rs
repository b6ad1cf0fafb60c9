//! The variant counting core on the units of a 9x9 variant count
//! (`cores::grids::variant_band::band_units`: row 1 fixed, one unit per class of first
//! bands): the join of the last two bands against the direct route (bands cell by cell, the
//! last from its column sets) and, optionally, the Dancing Links engine.
//!
//! Usage: `cargo bench -p cores --bench variants -- [VARIANT [UNITS [DIRECT [DLX [BOX]]]]]`:
//! VARIANT is `diagonal` (default), `hyper` or `disjoint`; BOX the box shape (default `3x3`,
//! e.g. `2x4` for 8x8); the first UNITS units (default 20)
//! by the join, the first DIRECT of them (default 2) by the direct route and the first DLX
//! (default 0) by the engine. Every route must agree on every unit it counts. Prints the
//! reduction's time and size, completions/s and seconds per unit per route, and the ratios.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::grids::group_core::GroupGrid;
use cores::grids::groups::read_groups;
use cores::grids::variant_band::band_units;
use cores::problems::sudoku::{Sudoku, SudokuConfig, Variant};
use cores::xcc::Dlx;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let variant = match args.first().map(String::as_str).unwrap_or("diagonal") {
        "diagonal" => Variant::Diagonal,
        "hyper" => Variant::Hyper,
        "disjoint" => Variant::Disjoint,
        other => panic!("unknown variant {other}"),
    };
    let num = |i: usize, d: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (units, direct, dlx_units) = (num(1, 20), num(2, 2), num(3, 0));
    let (br, bc) = args
        .get(4)
        .and_then(|b| b.split_once('x'))
        .map(|(r, c)| (r.parse().unwrap(), c.parse().unwrap()))
        .unwrap_or((3, 3));
    let side = br * bc;
    let config = SudokuConfig {
        variants: vec![variant],
        ..SudokuConfig::new(br, bc)
    };
    let sudoku = Sudoku::build(&config).expect("variant");
    let groups = read_groups(br, bc, &sudoku.problem).expect("groups");
    let grid = GroupGrid::new(&groups).expect("grid");

    let t = Instant::now();
    let syms = cores::grids::symmetry::variant_symmetries(&groups)
        .map(|s| s.perms)
        .unwrap_or_default();
    let band = cores::grids::variant_band::unit_band(&groups);
    let bu = band_units(&groups, band, &syms).expect("units");
    println!(
        "{} {side}x{side}: {} fillings of band {} (its first row fixed) in {} units, {} symmetries, reduced in {:.2} s",
        variant.name(),
        bu.bands,
        band + 1,
        bu.units.len(),
        syms.len(),
        t.elapsed().as_secs_f64()
    );
    let stop = AtomicBool::new(false);
    let (mut join_s, mut direct_s, mut dlx_s) = (0.0, 0.0, 0.0);
    let (mut join_on_direct, mut join_on_dlx) = (0.0, 0.0);
    let mut completions = 0u128;
    println!("unit  weight  completions  join s  nodes       direct s  dlx s");
    for (i, u) in bu.units.iter().take(units).enumerate() {
        let t = Instant::now();
        let c = grid.count(&u.givens, &stop).unwrap().unwrap();
        let secs = t.elapsed().as_secs_f64();
        join_s += secs;
        completions += c.solutions;
        let mut line = format!(
            "{i:>4}  {:>6}  {:>11}  {secs:>6.3}  {:>10}",
            u.weight, c.solutions, c.nodes
        );
        if i < direct {
            let t = Instant::now();
            let d = grid.count_direct(&u.givens, &stop).unwrap().unwrap();
            let ds = t.elapsed().as_secs_f64();
            assert_eq!(d.solutions, c.solutions, "unit {i}: direct against join");
            direct_s += ds;
            join_on_direct += secs;
            line += &format!("  {ds:>8.3}");
        }
        if i < dlx_units {
            let prefix: Vec<u32> = u
                .givens
                .iter()
                .enumerate()
                .filter(|(_, &v)| v > 0)
                .map(|(cell, &v)| sudoku.option_id(cell / side, cell % side, usize::from(v)))
                .collect();
            let t = Instant::now();
            let mut dlx = Dlx::new(&sudoku.problem);
            dlx.apply_prefix(&prefix).unwrap();
            let n = dlx.count();
            let ds = t.elapsed().as_secs_f64();
            assert_eq!(n, c.solutions, "unit {i}: engine against join");
            dlx_s += ds;
            join_on_dlx += secs;
            line += &format!("  {ds:>8.3}");
        }
        println!("{line}");
    }
    let counted = units.min(bu.units.len());
    println!(
        "join: {counted} units, {:.4} s/unit, {:.3e} completions/s",
        join_s / counted as f64,
        completions as f64 / join_s
    );
    if direct > 0 && direct_s > 0.0 {
        println!(
            "direct: {} units, {:.3} s/unit; join {:.1}x faster on them",
            direct.min(counted),
            direct_s / direct.min(counted) as f64,
            direct_s / join_on_direct
        );
    }
    if dlx_units > 0 && dlx_s > 0.0 {
        println!(
            "dlx engine: {} units, {:.3} s/unit; join {:.1}x faster on them",
            dlx_units.min(counted),
            dlx_s / dlx_units.min(counted) as f64,
            dlx_s / join_on_dlx
        );
    }
    println!(
        "all {} units at this rate: {:.0} s on one core",
        bu.units.len(),
        join_s / counted as f64 * bu.units.len() as f64
    );
}
