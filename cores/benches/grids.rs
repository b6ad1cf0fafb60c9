//! The Sudoku completion core against the Dancing Links engine on the same weighted units of
//! the 9x9 count (`cores::grids::units::grid_units(3, 3)`: a band-1 column-set class and a
//! split of column 1, about 10^7 completions each).
//!
//! Usage: `cargo bench -p cores --bench grids -- [UNITS [DLX_UNITS]]` counts the first UNITS
//! units (default 4) with the completion core and the first DLX_UNITS of them (default 1)
//! with the engine, checks that both agree, and prints completions/s, seconds per unit and
//! the ratio of the two cores on the units both counted. It also times the band reduction.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::grids::{count_completions, units::grid_units};
use cores::problems::sudoku::{Sudoku, SudokuConfig};
use cores::xcc::Dlx;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let units = args.first().copied().unwrap_or(4);
    let dlx_units = args.get(1).copied().unwrap_or(1).min(units);

    let t = Instant::now();
    let gu = grid_units(3, 3).expect("9x9 units");
    println!(
        "band reduction: {} classes x {} column splits = {} units in {:.2} s",
        gu.band_classes,
        gu.column_splits,
        gu.units.len(),
        t.elapsed().as_secs_f64()
    );

    let sudoku = Sudoku::build(&SudokuConfig::new(3, 3)).expect("9x9");
    let stop = AtomicBool::new(false);
    let mut band_secs = 0.0;
    let mut dlx_secs = 0.0;
    let mut band_on_dlx_units = 0.0;
    let mut solutions = 0u128;
    println!("unit  weight  completions  band s  nodes       dlx s    dlx nodes");
    for (i, u) in gu.units.iter().take(units).enumerate() {
        let t = Instant::now();
        let c = count_completions(3, 3, &u.givens, &stop)
            .expect("valid givens")
            .expect("not stopped");
        let secs = t.elapsed().as_secs_f64();
        band_secs += secs;
        solutions += c.solutions;
        let mut line = format!(
            "{i:>4}  {:>6}  {:>11}  {secs:>6.3}  {:>10}",
            u.weight, c.solutions, c.nodes
        );
        if i < dlx_units {
            band_on_dlx_units += secs;
            let prefix: Vec<u32> = u
                .givens
                .iter()
                .enumerate()
                .filter(|(_, &v)| v > 0)
                .map(|(k, &v)| sudoku.option_id(k / 9, k % 9, usize::from(v)))
                .collect();
            let mut dlx = Dlx::new(&sudoku.problem);
            dlx.apply_prefix(&prefix).expect("valid prefix");
            let t = Instant::now();
            let n = dlx.count();
            let s = t.elapsed().as_secs_f64();
            dlx_secs += s;
            assert_eq!(n, c.solutions, "the two cores disagree on unit {i}");
            line += &format!("  {s:>7.3}  {:>10}", dlx.stats().nodes);
        }
        println!("{line}");
    }
    println!(
        "completion core: {units} units, {:.3} s/unit, {:.3e} completions/s",
        band_secs / units as f64,
        solutions as f64 / band_secs
    );
    if dlx_units > 0 {
        println!(
            "dlx engine: {dlx_units} units, {:.3} s/unit; completion core {:.1}x faster on them",
            dlx_secs / dlx_units as f64,
            dlx_secs / band_on_dlx_units
        );
    }
}
