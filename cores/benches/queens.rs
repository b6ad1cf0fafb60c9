//! The bitboard queens core (`cores::grids::queens`) against the Dancing Links engine on
//! the same boards, in one run: solutions/s of each and the ratio of their times.
//!
//! Usage: `cargo bench -p cores --bench queens -- [N...]` (default 13 14 15 16). Both cores
//! count the whole board (no symmetry reduction), must agree, and agree with OEIS A000170
//! where the table below has the figure. Times are the search alone (building the links
//! excluded), one thread.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::grids::queens::count_queens;
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

fn main() {
    let ns: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let ns = if ns.is_empty() {
        vec![13, 14, 15, 16]
    } else {
        ns
    };
    println!(
        "{:>3} {:>14} {:>10} {:>12} {:>10} {:>12} {:>8}",
        "n", "solutions", "bits s", "bits sol/s", "dlx s", "dlx sol/s", "ratio"
    );
    for n in ns {
        let stop = AtomicBool::new(false);
        let t = Instant::now();
        let bits = count_queens(n, &[], &stop)
            .expect("a board of at most 32")
            .expect("not stopped");
        let bits_s = t.elapsed().as_secs_f64();
        let q = Queens::build(n).expect("queens");
        let mut dlx = Dlx::new(&q.problem);
        let t = Instant::now();
        let d = dlx.count();
        let dlx_s = t.elapsed().as_secs_f64();
        assert_eq!(bits.solutions, d, "the cores disagree on {n} queens");
        if let Some(&want) = A000170.get(n - 1) {
            assert_eq!(d, want, "OEIS A000170 for n = {n}");
        }
        let rate = |s: f64| d as f64 / s.max(1e-9);
        println!(
            "{n:>3} {d:>14} {bits_s:>10.3} {:>12.3e} {dlx_s:>10.3} {:>12.3e} {:>7.1}x",
            rate(bits_s),
            rate(dlx_s),
            dlx_s / bits_s.max(1e-9)
        );
    }
}
