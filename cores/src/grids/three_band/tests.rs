use std::sync::atomic::AtomicBool;

use super::*;

/// Felgenhauer and Jarvis, "Mathematics of Sudoku I" (2006): 9! * 56 * 6^6 fillings of the
/// top band, in 44 column-set classes; 6,670,903,752,021,072,936,960 grids (OEIS A107739).
const BAND_FILLINGS: u128 = 948_109_639_680;
const GRIDS: u128 = 6_670_903_752_021_072_936_960;

#[test]
fn there_are_44_classes_covering_every_configuration() {
    let classes = band_classes();
    assert_eq!(classes.len(), 44);
    let total: u128 = classes.iter().map(|c| c.size).sum();
    assert_eq!(total, 1680u128.pow(3));
}

#[test]
fn the_classes_fillings_sum_to_every_top_band() {
    let sum: u128 = band_classes()
        .iter()
        .map(|c| c.size * c.config().fillings() as u128)
        .sum();
    assert_eq!(sum, BAND_FILLINGS);
}

/// An independent count of a band's fillings: rows one after another, each a permutation
/// taking one digit from each column not yet used there.
fn fillings_by_rows(cols: &[u16; 9]) -> u64 {
    fn rows(left: &mut [u16; 9], r: usize) -> u64 {
        if r == 3 {
            return 1;
        }
        fn row(left: &mut [u16; 9], r: usize, c: usize, used: u16) -> u64 {
            if c == 9 {
                return rows(left, r + 1);
            }
            let mut n = 0;
            let mut free = left[c] & !used;
            while free != 0 {
                let d = free & free.wrapping_neg();
                free &= free - 1;
                left[c] &= !d;
                n += row(left, r, c + 1, used | d);
                left[c] |= d;
            }
            n
        }
        row(left, r, 0, 0)
    }
    rows(&mut cols.clone(), 0)
}

#[test]
fn band_fillings_agree_with_a_row_by_row_count() {
    for class in band_classes().iter().step_by(5) {
        let config = class.config();
        assert_eq!(
            config.fillings(),
            fillings_by_rows(config.cols()),
            "{config}"
        );
    }
    // The first band of Felgenhauer and Jarvis, box 1 = 123/456/789 and its neighbours'
    // columns as in their reduced band 1: 147,258,369 read down the first stack.
    let c = BandConfig::parse("147/258/369|123/456/789|159/267/348").unwrap();
    assert_eq!(c.fillings(), fillings_by_rows(c.cols()));
}

#[test]
fn a_relabelled_permuted_configuration_finds_its_class() {
    let classes = band_classes();
    for class in classes.iter().step_by(7) {
        let c = class.config();
        assert_eq!(canonical_types(&c), class.types);
        // Swap stacks 1 and 3, reverse the columns of stack 2, relabel d -> 10 - d.
        let relabel = |m: u16| {
            (0..9)
                .filter(|d| m >> d & 1 == 1)
                .fold(0, |a, d| a | 1 << (8 - d))
        };
        let k = c.cols();
        let moved = [k[6], k[7], k[8], k[5], k[4], k[3], k[0], k[1], k[2]].map(relabel);
        let moved = BandConfig::new(moved).unwrap();
        assert_eq!(canonical_types(&moved), class.types, "{c} -> {moved}");
        assert_eq!(moved.fillings(), c.fillings());
    }
}

#[test]
fn every_middle_stack_has_56_options_whose_rests_are_options() {
    let c = band_classes()[7].config();
    for stack in c.cols().chunks(3) {
        let opts = fill::below([stack[0], stack[1], stack[2]]);
        assert_eq!(opts.len(), 56);
        for y in &opts {
            let rest = [0, 1, 2].map(|i| fill::ALL & !(stack[i] | y[i]));
            assert!(opts.contains(&rest));
        }
    }
}

#[test]
fn configurations_read_back_and_bad_ones_are_named() {
    for class in ThreeBandClass::all().iter().take(5) {
        let back = ThreeBandClass::from_json(&class.to_json()).unwrap();
        assert_eq!(&back, class);
        assert_eq!(back.parsed().unwrap().to_string(), class.config);
    }
    let err = BandConfig::parse("123/456/789|123/456/789|123/456/78").unwrap_err();
    assert!(err.0.contains("stack 3"), "{err}");
    let err = BandConfig::parse("123/456/789|123/456/789").unwrap_err();
    assert!(err.0.contains("6 columns"), "{err}");
    let err = BandConfig::parse("123/456/780|123/456/789|123/456/789").unwrap_err();
    assert!(err.0.contains("'0'"), "{err}");
}

/// Every 9x9 grid, class by class (about 30 s of one core in the test profile).
#[test]
fn the_classes_count_every_9x9_grid() {
    let stop = AtomicBool::new(false);
    let total: u128 = ThreeBandClass::all()
        .iter()
        .map(|c| c.class_size * c.count(&stop).unwrap().unwrap().grids)
        .sum();
    assert_eq!(total, GRIDS);
}
