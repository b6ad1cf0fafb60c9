//! The variant counting core on the units of a 9x9 variant count
//! (`cores::grids::variant_band::band_units`: row 1 fixed, one unit per class of first
//! bands): the core's own route (for the 9x9 X-Sudoku's middle bands `cores::grids::x_band`,
//! else the join of the two open bands) against the join forced, the direct route (bands
//! cell by cell, the last from its column sets) and the Dancing Links engine, on the same
//! units in the same run.
//!
//! Usage: `cargo bench -p cores --bench variants -- [VARIANT [UNITS [DIRECT [DLX [BOX
//! [JOIN]]]]]]`: VARIANT is `diagonal` (default), `hyper` or `disjoint`; BOX the box shape
//! (default `3x3`, e.g. `2x4` for 8x8); UNITS units (default 20; 0: every unit) spread evenly
//! over the reduction's list, counted by the core; the first DIRECT of them (default 2) also
//! by the direct route, the first DLX (default 0) by the engine and the first JOIN (default
//! 0) by the join forced (`GroupGrid::count_joined`; the same as the core's route where
//! `x_band` does not apply). Every route must agree on every unit it counts. Prints the
//! reduction's time and size, completions/s and seconds per unit per route, the ratios on
//! the same units, and the whole job's unit time projected at the core's rate.
//! `-- diagonal 200 0 200` times the X-Sudoku route against the engine on 200 units.
//!
//! `-- generate [VARIANT...]` times the reduction itself on 1 and 2 threads for the 9x9
//! variants (default all three), `band_units_on` against the direct keying it replaced
//! (`band_units_keyed_on`) in the same run, wall and CPU seconds, and checks that every run
//! gives the same units.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::grids::group_core::GroupGrid;
use cores::grids::groups::read_groups;
use cores::grids::variant_band::{band_units, band_units_keyed_on, band_units_on};
use cores::problems::sudoku::{Sudoku, SudokuConfig, Variant};
use cores::xcc::Dlx;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if args.first().map(String::as_str) == Some("generate") {
        generate(&args[1..]);
        return;
    }
    let variant = variant_named(args.first().map(String::as_str).unwrap_or("diagonal"));
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
    let join_units = num(5, 0);
    let step = bu.units.len().checked_div(units).unwrap_or(1).max(1);
    let sample: Vec<usize> = (0..bu.units.len())
        .step_by(step)
        .take(if units == 0 { bu.units.len() } else { units })
        .collect();
    let route = if sample
        .first()
        .is_some_and(|&i| grid.x_band_applies(&bu.units[i].givens))
    {
        "x-band"
    } else {
        "join"
    };
    let (mut core_s, mut direct_s, mut dlx_s, mut join_s) = (0.0, 0.0, 0.0, 0.0);
    let (mut core_on_direct, mut core_on_dlx, mut core_on_join) = (0.0, 0.0, 0.0);
    let mut completions = 0u128;
    let verbose = sample.len() <= 400;
    if verbose {
        println!("unit  weight  completions  core s  nodes       direct s  dlx s  join s");
    }
    for (k, &i) in sample.iter().enumerate() {
        let u = &bu.units[i];
        let t = Instant::now();
        let c = grid.count(&u.givens, &stop).unwrap().unwrap();
        let secs = t.elapsed().as_secs_f64();
        core_s += secs;
        completions += c.solutions;
        let mut line = format!(
            "{i:>5}  {:>6}  {:>11}  {secs:>6.4}  {:>10}",
            u.weight, c.solutions, c.nodes
        );
        let column = |on: bool, line: &mut String, f: &dyn Fn() -> u128, what: &str| {
            if !on {
                *line += "         -";
                return None;
            }
            let t = Instant::now();
            let n = f();
            let s = t.elapsed().as_secs_f64();
            assert_eq!(n, c.solutions, "unit {i}: {what} against the core");
            *line += &format!("  {s:>8.4}");
            Some(s)
        };
        if let Some(s) = column(
            k < direct,
            &mut line,
            &|| {
                grid.count_direct(&u.givens, &stop)
                    .unwrap()
                    .unwrap()
                    .solutions
            },
            "direct",
        ) {
            direct_s += s;
            core_on_direct += secs;
        }
        let engine = || {
            let prefix: Vec<u32> = u
                .givens
                .iter()
                .enumerate()
                .filter(|(_, &v)| v > 0)
                .map(|(cell, &v)| sudoku.option_id(cell / side, cell % side, usize::from(v)))
                .collect();
            let mut dlx = Dlx::new(&sudoku.problem);
            dlx.apply_prefix(&prefix).unwrap();
            dlx.count()
        };
        if let Some(s) = column(k < dlx_units, &mut line, &engine, "engine") {
            dlx_s += s;
            core_on_dlx += secs;
        }
        if let Some(s) = column(
            k < join_units,
            &mut line,
            &|| {
                grid.count_joined(&u.givens, &stop)
                    .unwrap()
                    .unwrap()
                    .solutions
            },
            "join",
        ) {
            join_s += s;
            core_on_join += secs;
        }
        if verbose {
            println!("{line}");
        }
    }
    let counted = sample.len();
    println!(
        "core ({route}): {counted} units (every {step}th), {:.5} s/unit, {:.3e} completions/s",
        core_s / counted as f64,
        completions as f64 / core_s
    );
    let versus = |what: &str, n: usize, s: f64, on: f64| {
        if n > 0 && s > 0.0 {
            let n = n.min(counted);
            println!(
                "{what}: {n} units, {:.5} s/unit against the core's {:.5}; the core {:.1}x faster on them",
                s / n as f64,
                on / n as f64,
                s / on
            );
        }
    };
    versus("direct", direct, direct_s, core_on_direct);
    versus("dlx engine", dlx_units, dlx_s, core_on_dlx);
    versus("join", join_units, join_s, core_on_join);
    println!(
        "all {} units at the core's rate: {:.0} s on one core",
        bu.units.len(),
        core_s / counted as f64 * bu.units.len() as f64
    );
}

/// The process's CPU seconds so far (user and system), from getrusage.
fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// The reduction of each 9x9 variant on 1 and 2 threads, by `band_units_on` and by the
/// direct keying it replaced (`band_units_keyed_on`, the baseline): wall and CPU seconds,
/// the speed-up over 1 thread, and each wall time over `band_units_on`'s on as many threads.
/// Every run must give the same units.
fn generate(names: &[String]) {
    let all = ["diagonal".to_string(), "hyper".into(), "disjoint".into()];
    let names = if names.is_empty() { &all[..] } else { names };
    println!(
        "variant    reduction  threads  units   fillings   wall s    cpu s  vs 1 thread  / orbits"
    );
    for name in names {
        let variant = variant_named(name);
        let config = SudokuConfig {
            variants: vec![variant],
            ..SudokuConfig::new(3, 3)
        };
        let sudoku = Sudoku::build(&config).expect("variant");
        let groups = read_groups(3, 3, &sudoku.problem).expect("groups");
        let syms = cores::grids::symmetry::variant_symmetries(&groups)
            .map(|s| s.perms)
            .unwrap_or_default();
        let band = cores::grids::variant_band::unit_band(&groups);
        let mut first: Option<cores::grids::variant_band::BandUnits> = None;
        let mut orbits_wall = [0.0f64; 2];
        for (reduction, keyed) in [("orbits", false), ("keyed", true)] {
            let mut one_thread = 0.0;
            for (t_i, threads) in [1, 2].into_iter().enumerate() {
                let (t, c) = (Instant::now(), cpu_seconds());
                let bu = if keyed {
                    band_units_keyed_on(&groups, band, &syms, threads)
                } else {
                    band_units_on(&groups, band, &syms, threads)
                }
                .expect("units");
                let (wall, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
                if threads == 1 {
                    one_thread = wall;
                }
                if !keyed {
                    orbits_wall[t_i] = wall;
                }
                println!(
                    "{:<10} {reduction:<9} {threads:>8} {:>6} {:>10} {wall:>8.2} {cpu:>8.2} {:>11.2}x {:>8.2}x",
                    variant.name(),
                    bu.units.len(),
                    bu.bands,
                    one_thread / wall,
                    wall / orbits_wall[t_i],
                );
                match &first {
                    Some(one) => assert_eq!(&bu, one, "{name}: {reduction} on {threads} differs"),
                    None => first = Some(bu),
                }
            }
        }
    }
}

/// The variant a command line names.
fn variant_named(name: &str) -> Variant {
    match name {
        "diagonal" => Variant::Diagonal,
        "hyper" => Variant::Hyper,
        "disjoint" => Variant::Disjoint,
        other => panic!("unknown variant {other}"),
    }
}
