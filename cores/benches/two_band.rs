//! Speed of the two-band counter (`cores::grids::two_band`): the classes of a shape and the
//! band fillings B(C) of each, or of a seeded sample of classes; and, for shapes where one
//! B(C) takes hours, a cost probe. Prints figures; asserts nothing.
//!
//! - `cargo bench -p cores --bench two_band -- R [SAMPLE SEED]`: enumerate the classes of
//!   `R`-row bands (R = 5: 10x10) and count B(C) of every class, or of SAMPLE classes picked
//!   with SEED (seconds per class; the sum of E(C) B(C)^2 when every class is counted).
//! - `cargo bench -p cores --bench two_band -- R probe CLASSES BRANCHES SEED`: CLASSES
//!   classes drawn uniformly with SEED (the units of a two-band job), each probed by
//!   `fill::cost_probe` (its first level's branches listed, BRANCHES of them counted and
//!   timed): estimated seconds per B(C), and the peak resident memory.
//! - `cargo bench -p cores --bench two_band -- R classes`: the classes only, timed.
//! - `cargo bench -p cores --bench two_band -- config TEXT...`: B(C) of each configuration
//!   given as text (`1369AB|1259AC|...`), on every local thread (`fill::band_fillings_on`),
//!   timed: the anchors of a shape whose classes take hours.

use std::time::Instant;

use cores::grids::two_band::fill::{band_fillings_on, cost_probe};
use cores::grids::two_band::{band_fillings, Classes, Config};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// `k` class indices drawn uniformly with `seed` (every class, in order, for `None`).
fn seeded_sample(classes: &Classes, k: Option<usize>, seed: u64) -> Vec<usize> {
    let mut picked: Vec<usize> = (0..classes.classes.len()).collect();
    if let Some(k) = k {
        picked.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        picked.truncate(k);
    }
    picked
}

fn probe(classes: &Classes, sample: usize, branches: usize, seed: u64) {
    // The units of a two-band job are the classes, so the cost per unit is the mean over
    // classes drawn uniformly (with SEED), not over configurations.
    let picked = seeded_sample(classes, Some(sample), seed);
    let mut total = 0.0;
    for (i, &class) in picked.iter().enumerate() {
        let c = &classes.classes[class].config;
        print!("class {} ", class + 1);
        let t = Instant::now();
        let p = cost_probe(c, branches, seed + i as u64);
        let est = p.estimate_seconds();
        total += est;
        println!(
            "config {c}: {} first-level branches listed in {:.1} s, {} counted in {:.2} s: \
             B(C) in about {est:.0} s (probe {:.1} s)",
            p.branches,
            p.listing_seconds,
            p.sampled,
            p.sampled_seconds,
            t.elapsed().as_secs_f64()
        );
    }
    println!(
        "mean estimate {:.0} s per B(C) over {} classes; peak RSS {:.1} MiB",
        total / picked.len() as f64,
        picked.len(),
        peak_rss_mib()
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if args.first().map(String::as_str) == Some("config") {
        for text in &args[1..] {
            let c = Config::parse(text).expect("a configuration (digits 1-9, A-C; stacks by |)");
            let t = Instant::now();
            let threads = cores::parallel::local_threads();
            let b = band_fillings_on(&c, threads, None).expect("not stopped");
            println!(
                "config {c}: B(C) = {b} in {:.3} s on {threads} threads, peak RSS {:.1} MiB",
                t.elapsed().as_secs_f64(),
                peak_rss_mib()
            );
        }
        return;
    }
    let r: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let num = |i: usize, default: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let t = Instant::now();
    let classes = Classes::enumerate(r).expect("a shape the counter takes");
    println!(
        "R = {r} ({0}x{0}): {1} classes in {2:.3} s, peak RSS {3:.1} MiB",
        2 * r,
        classes.classes.len(),
        t.elapsed().as_secs_f64(),
        peak_rss_mib()
    );
    match args.get(1).map(String::as_str) {
        Some("classes") => return,
        Some("probe") => {
            return probe(
                &classes,
                num(2, 4) as usize,
                num(3, 200) as usize,
                num(4, 0),
            );
        }
        _ => {}
    }
    let sample: Option<usize> = args.get(1).and_then(|a| a.parse().ok());
    let picked = seeded_sample(&classes, sample, num(2, 0));
    let (mut total, mut secs, mut worst) = (0u128, 0f64, 0f64);
    for &i in &picked {
        let c = &classes.classes[i];
        let t = Instant::now();
        let b = band_fillings(&c.config, None).expect("not stopped");
        let s = t.elapsed().as_secs_f64();
        secs += s;
        worst = worst.max(s);
        if sample.is_some() {
            println!("class {} {} E={} B={b} {s:.3} s", i + 1, c.config, c.size);
        }
        total = total.wrapping_add(c.size.wrapping_mul(b.wrapping_mul(b)));
    }
    println!(
        "{} classes counted: {secs:.3} s, mean {:.4} s, slowest {worst:.4} s",
        picked.len(),
        secs / picked.len() as f64
    );
    if sample.is_none() {
        println!("sum of E(C) B(C)^2 (mod 2^128): {total}");
    }
}
