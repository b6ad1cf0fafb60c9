//! The bitboard queens core (`cores::queens`) against the Dancing Links engine on
//! the same boards, in one run: the core's search one square at a time ("scalar") and on 32
//! or 64 subtrees at once in AVX-512 lanes ("lanes", what `count_queens` runs where the CPU has
//! them), solutions/s of each and the ratios of their times; then both on the border units
//! of the same board (`cores::queens::units`, the `queens-border` generator's units,
//! one per symmetry class of the queens on the border). Between them, the lanes on the
//! first-row units (the left-right reflection: a queen on square c of the first row, weight 2
//! on the left half, 1 on an odd board's middle square). Each "vs dlx" column is the engine's
//! time on the whole board over that column's.
//!
//! Usage: `cargo bench -p cores --bench queens -- [--no-dlx] [--no-border] [N...]` (default
//! 13 14 15 16). Every search counts the whole board (no symmetry reduction), they must
//! agree, and agree with OEIS A000170 where the table below has the figure, and so must the
//! border units' weighted sums (their solutions/s is that figure over the units' time);
//! `--no-dlx` leaves the engine out (larger boards). `--every=K` times only every K-th
//! border unit of each N by both searches (boards too large to count whole here: the units
//! of the Q(19) to Q(21) runs). Times are the search alone (building the
//! links excluded), one thread, in seconds of CPU time of the thread (Linux
//! `/proc/thread-self/schedstat`, which may advance by whole scheduler ticks: a count shorter
//! than half a second is repeated; wall time where that cannot be read), so that other
//! processes on the machine do not skew the figures. On a CPU without the lanes' AVX-512
//! features both columns are the scalar search.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::count_core::Completions;
use cores::problems::queens::Queens;
use cores::queens::units::border_units;
use cores::queens::QueensError;
use cores::queens::{count_queens, count_queens_scalar};
use cores::xcc::Dlx;
use cores::xcc::OptionId;

/// OEIS A000170, n = 1.. 21.
const A000170: [u128; 21] = [
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2680,
    14200,
    73712,
    365596,
    2279184,
    14772512,
    95815104,
    666090624,
    4968057848,
    39029188884,
    314666222712,
];

/// Nanoseconds this thread has run on a CPU, if the kernel says.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Seconds one call of `f` took: CPU time of this thread where it can be read, else wall
/// time; `f` is called again until half a second has passed, and the mean is returned.
fn timed<T>(mut f: impl FnMut() -> T) -> (T, f64) {
    let (cpu, wall) = (thread_cpu_ns(), Instant::now());
    let elapsed = || match (cpu, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 * 1e-9,
        _ => wall.elapsed().as_secs_f64(),
    };
    let mut calls = 1;
    let out = f();
    while elapsed() < 0.5 {
        f();
        calls += 1;
    }
    (out, elapsed() / f64::from(calls))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_dlx = !args.iter().any(|a| a == "--no-dlx");
    let with_border = !args.iter().any(|a| a == "--no-border");
    let ns: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let ns = if ns.is_empty() {
        vec![13, 14, 15, 16]
    } else {
        ns
    };
    if let Some(every) = args
        .iter()
        .find_map(|a| a.strip_prefix("--every=").and_then(|k| k.parse().ok()))
    {
        return sample_units(&ns, every);
    }
    println!(
        "{:>3} {:>14} {:>9} {:>9} {:>7} {:>9} {:>8} {:>9} {:>8} {:>6} {:>9} {:>9} {:>7} {:>8}",
        "n",
        "solutions",
        "scalar s",
        "lanes s",
        "lanes",
        "dlx s",
        "vs dlx",
        "row1 s",
        "vs dlx",
        "units",
        "b.scal s",
        "b.lanes s",
        "lanes",
        "vs dlx",
    );
    let none = || "-".to_string();
    let stop = AtomicBool::new(false);
    let ratio = |slow: f64, fast: f64| format!("{:.2}x", slow / fast);
    for n in ns {
        type Count =
            fn(usize, &[OptionId], &AtomicBool) -> Result<Option<Completions>, QueensError>;
        let whole = |count: Count| {
            timed(|| {
                count(n, &[], &stop)
                    .expect("a board of at most 32")
                    .expect("not stopped")
                    .solutions
            })
        };
        let (sols, scalar_s) = whole(count_queens_scalar);
        let (lanes, lanes_s) = whole(count_queens);
        assert_eq!(sols, lanes, "the scalar search and the lanes on {n} queens");
        if let Some(&want) = A000170.get(n - 1) {
            assert_eq!(sols, want, "OEIS A000170 for n = {n}");
        }
        // The first-row units of the `queens-first-row` generator: a queen on square c of
        // the first row, weight 2 on the left half (the mirror image counts the same), 1 on
        // the middle square of an odd board.
        let (row1, row1_s) = timed(|| {
            (0..n.div_ceil(2))
                .map(|c| {
                    let weight = if 2 * c + 1 == n { 1 } else { 2 };
                    let prefix = [c as OptionId];
                    let count = count_queens(n, &prefix, &stop)
                        .expect("a square")
                        .expect("not stopped");
                    weight * count.solutions
                })
                .sum::<u128>()
        });
        assert_eq!(row1, sols, "the first-row units of {n} queens");
        let dlx_s = if with_dlx {
            let q = Queens::build(n).expect("queens");
            let mut dlx = Dlx::new(&q.problem);
            let (d, s) = timed(|| dlx.count());
            assert_eq!(sols, d, "the cores disagree on {n} queens");
            Some(s)
        } else {
            None
        };
        let vs_dlx = |s: f64| dlx_s.map_or_else(none, |d| ratio(d, s));
        let border = if with_border {
            let units = border_units(n).expect("a board of at most 32").units;
            let by = |count: Count| {
                let (total, s) = timed(|| {
                    units
                        .iter()
                        .map(|u| {
                            let c = count(n, &u.prefix, &stop)
                                .expect("a border placement")
                                .expect("not stopped");
                            u.weight * c.solutions
                        })
                        .sum::<u128>()
                });
                assert_eq!(total, sols, "the border units of {n} queens");
                s
            };
            let (scalar, lanes) = (by(count_queens_scalar), by(count_queens));
            [
                units.len().to_string(),
                format!("{scalar:.3}"),
                format!("{lanes:.3}"),
                ratio(scalar, lanes),
                vs_dlx(lanes),
            ]
        } else {
            [none(), none(), none(), none(), none()]
        };
        let [units, b_scalar, b_lanes, b_ratio, b_vs_dlx] = border;
        println!(
            "{n:>3} {sols:>14} {scalar_s:>9.3} {lanes_s:>9.3} {:>7} {:>9} {:>8} {row1_s:>9.3} \
             {:>8} {units:>6} {b_scalar:>9} {b_lanes:>9} {b_ratio:>7} {b_vs_dlx:>8}",
            ratio(scalar_s, lanes_s),
            dlx_s.map_or_else(none, |d| format!("{d:.3}")),
            vs_dlx(lanes_s),
            vs_dlx(row1_s),
        );
    }
}

/// Every `every`-th border unit of each board of `ns`, counted by the scalar search and the
/// lanes (they must agree): the sum of their times and the ratio.
fn sample_units(ns: &[usize], every: usize) {
    println!(
        "{:>3} {:>7} {:>7} {:>16} {:>9} {:>9} {:>7}",
        "n", "units", "timed", "completions", "scalar s", "lanes s", "lanes"
    );
    let stop = AtomicBool::new(false);
    for &n in ns {
        let units = border_units(n).expect("a board of at most 32").units;
        let (mut sols, mut scalar_s, mut lanes_s) = (0u128, 0.0, 0.0);
        let mut timed_units = 0;
        for u in units.iter().step_by(every.max(1)) {
            let (a, s) = timed(|| count_queens_scalar(n, &u.prefix, &stop));
            let (b, l) = timed(|| count_queens(n, &u.prefix, &stop));
            let (a, b) = (a.unwrap().unwrap(), b.unwrap().unwrap());
            assert_eq!(a.solutions, b.solutions, "{n} queens, unit {:?}", u.prefix);
            sols += a.solutions;
            (scalar_s, lanes_s) = (scalar_s + s, lanes_s + l);
            timed_units += 1;
        }
        println!(
            "{n:>3} {:>7} {timed_units:>7} {sols:>16} {scalar_s:>9.3} {lanes_s:>9.3} {:>6.2}x",
            units.len(),
            scalar_s / lanes_s
        );
    }
}
