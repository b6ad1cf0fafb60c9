//! Speed of the three-band counter (`cores::grids::three_band`) against the search route it
//! replaces, on the same classes, in one run. Prints figures; asserts nothing.
//!
//! `cargo bench -p cores --bench three_band -- [CLASSES]`: every 9x9 grid class by class
//! (seconds of one core, the total), then for the first CLASSES classes (default 2) F(C),
//! the completions below a band with the class's configuration, both by the three-band
//! counter and by the completion core (`grids::completion::count_completions`) as the search
//! route of `bench-specs/sudoku-9x9.toml` counts them: one filling of that band, column 1
//! below it fixed in its 10 ways (rows inside bands 2 and 3 sorted, the two bands in order),
//! times 72. The two must agree; the ratio of their times is this route's speed-up per class.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cores::grids::completion::count_completions;
use cores::grids::three_band::{band_classes, ThreeBandClass};

/// One filling of a band configuration (rows as perfect matchings, the first found).
fn a_filling(cols: &[u16; 9]) -> Vec<u8> {
    fn fill(left: &mut [u16; 9], cell: usize, used: u16, band: &mut [u8]) -> bool {
        if cell == 27 {
            return true;
        }
        let (r, c) = (cell / 9, cell % 9);
        let used = if c == 0 { 0 } else { used };
        let mut free = left[c] & !used;
        while free != 0 {
            let d = free.trailing_zeros();
            free &= free - 1;
            left[c] &= !(1 << d);
            band[r * 9 + c] = d as u8 + 1;
            if fill(left, cell + 1, used | 1 << d, band) {
                return true;
            }
            left[c] |= 1 << d;
        }
        false
    }
    let mut band = vec![0u8; 81];
    assert!(
        fill(&mut cols.clone(), 0, 0, &mut band),
        "every configuration fills"
    );
    band
}

fn main() {
    let compare: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(2);
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let classes = ThreeBandClass::all();
    let listed = started.elapsed().as_secs_f64();
    let mut total = 0u128;
    for c in &classes {
        total += c.class_size * c.count(&stop).unwrap().unwrap().grids;
    }
    let all = started.elapsed().as_secs_f64();
    println!(
        "three-band: {} classes listed in {listed:.3} s; every 9x9 grid, {total}, in {all:.2} s \
         of one core ({:.3} s a class)",
        classes.len(),
        all / classes.len() as f64
    );
    for (i, class) in band_classes().iter().take(compare).enumerate() {
        let config = class.config();
        let t = Instant::now();
        let below = config.below(&stop).unwrap();
        let ours = t.elapsed().as_secs_f64();
        let band = a_filling(config.cols());
        let t = Instant::now();
        let rest: Vec<u8> = (1..=9)
            .filter(|d| !(0..3).any(|r| band[r * 9] == *d))
            .collect();
        let mut searched = 0u128;
        // Band 2's column-1 digits: 3 of the 6 others, with the least of them (band order).
        for mask in 0u8..64 {
            if mask.count_ones() != 3 || mask & 1 == 0 {
                continue;
            }
            let mut givens = band.clone();
            let (upper, lower): (Vec<u8>, Vec<u8>) = (0..6)
                .map(|i| (rest[i], mask >> i & 1 == 1))
                .fold((Vec::new(), Vec::new()), |(mut u, mut l), (d, up)| {
                    if up {
                        u.push(d)
                    } else {
                        l.push(d)
                    }
                    (u, l)
                });
            for (i, d) in upper.iter().chain(&lower).enumerate() {
                givens[(3 + i) * 9] = *d;
            }
            searched += count_completions(3, 3, &givens, &stop)
                .unwrap()
                .unwrap()
                .solutions;
        }
        searched *= 72;
        let search = t.elapsed().as_secs_f64();
        println!(
            "class {}: F(C) = {below} in {ours:.3} s; completion core {searched} in {search:.2} s \
             ({}; {:.0}x)",
            i + 1,
            if below == searched {
                "equal"
            } else {
                "DIFFERENT"
            },
            search / ours
        );
    }
}
