//! The bitboard queens core (`cores::grids::queens`) against the Dancing Links engine on
//! the same boards, in one run: solutions/s of each and the ratio of their times; then the
//! bitboard core on the border units of the same board (`cores::grids::queens_units`, the
//! `queens-border` generator's units, one per symmetry class of the queens on the border).
//!
//! Usage: `cargo bench -p cores --bench queens -- [--no-dlx] [--no-border] [N...]` (default
//! 13 14 15 16). Both cores count the whole board (no symmetry reduction), must agree, and
//! agree with OEIS A000170 where the table below has the figure, and so must the border
//! units' weighted sum (its solutions/s is that figure over the units' time); `--no-dlx` runs
//! the bitboard core alone (larger boards). Times are the search alone (building the links
//! excluded), one thread, in seconds of CPU time of the thread (Linux
//! `/proc/thread-self/schedstat`, which may advance by whole scheduler ticks: a count shorter
//! than half a second is repeated; wall time where that cannot be read), so that other
//! processes on the machine do not skew the figures. Nodes are the bitboard core's (see
//! `cores::grids::queens`), not comparable with the engine's.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::grids::queens::count_queens;
use cores::grids::queens_units::border_units;
use cores::problems::queens::Queens;
use cores::xcc::Dlx;

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
    println!(
        "{:>3} {:>14} {:>9} {:>11} {:>11} {:>9} {:>11} {:>7} {:>7} {:>9} {:>11}",
        "n",
        "solutions",
        "bits s",
        "bits node/s",
        "bits sol/s",
        "dlx s",
        "dlx sol/s",
        "ratio",
        "units",
        "border s",
        "border sol/s"
    );
    let none = || ("-".to_string(), "-".to_string(), "-".to_string());
    for n in ns {
        let stop = AtomicBool::new(false);
        let (bits, bits_s) = timed(|| {
            count_queens(n, &[], &stop)
                .expect("a board of at most 32")
                .expect("not stopped")
        });
        let sols = bits.solutions;
        if let Some(&want) = A000170.get(n - 1) {
            assert_eq!(sols, want, "OEIS A000170 for n = {n}");
        }
        let rate = |x: f64, s: f64| format!("{:.3e}", x / s);
        let (dlx_s, dlx_rate, ratio) = if with_dlx {
            let q = Queens::build(n).expect("queens");
            let mut dlx = Dlx::new(&q.problem);
            let (d, s) = timed(|| dlx.count());
            assert_eq!(sols, d, "the cores disagree on {n} queens");
            (
                format!("{s:.3}"),
                rate(sols as f64, s),
                format!("{:.1}x", s / bits_s),
            )
        } else {
            none()
        };
        let (units, border_s, border_rate) = if with_border {
            let units = border_units(n).expect("a board of at most 32").units;
            let (total, s) = timed(|| {
                units
                    .iter()
                    .map(|u| {
                        let c = count_queens(n, &u.prefix, &stop)
                            .expect("a border placement")
                            .expect("not stopped");
                        u.weight * c.solutions
                    })
                    .sum::<u128>()
            });
            assert_eq!(total, sols, "the border units of {n} queens");
            (
                units.len().to_string(),
                format!("{s:.3}"),
                rate(sols as f64, s),
            )
        } else {
            none()
        };
        println!(
            "{n:>3} {sols:>14} {bits_s:>9.3} {:>11} {:>11} {dlx_s:>9} {dlx_rate:>11} {ratio:>7} \
             {units:>7} {border_s:>9} {border_rate:>11}",
            rate(bits.nodes as f64, bits_s),
            rate(sols as f64, bits_s),
        );
    }
}
