//! The three alldifferent filters of [`super::alldiff`] against the seed's example, hand-made
//! cases and brute force on small random domains: each keeps every value of every solution,
//! and each leaves exactly the largest bounds-, range- or hyperarc-consistent domains
//! (seed 000 section 1.6, Definitions 1, 6 and 7). The brute-force checkers share no code with
//! the filters: they enumerate assignments.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::alldiff::{self, Level};
use super::{puzzle::PuzzleReader, SearchStats};

/// Domains as bit sets (bit `v` for value `v + 1`) from lists of values.
fn doms(values: &[&[u32]]) -> Vec<u16> {
    values
        .iter()
        .map(|vs| vs.iter().fold(0, |d, v| d | 1 << (v - 1)))
        .collect()
}

/// `level`'s filter on a group of every domain, `None` on a failure.
fn filtered(level: Level, domains: &[u16]) -> Option<Vec<u16>> {
    let cells: Vec<usize> = (0..domains.len()).collect();
    let mut dom = domains.to_vec();
    level.filter(&cells, &mut dom).then_some(dom)
}

#[test]
fn seed_example_3_bounds_consistency_removes_2_from_d3() {
    // Seed 000 section 1.6, Example 3: D1 = {1,2}, D2 = {1,2}, D3 = {2,3}; [1,2] is a Hall
    // interval, so 2 leaves D3: {1,2}, {1,2}, {3}. The stronger levels agree.
    let before = doms(&[&[1, 2], &[1, 2], &[2, 3]]);
    let after = doms(&[&[1, 2], &[1, 2], &[3]]);
    for level in Level::ALL {
        assert_eq!(filtered(level, &before), Some(after.clone()), "{level:?}");
    }
    assert_eq!(bounds_closure(&values_of(&before)), Some(values_of(&after)));
}

#[test]
fn where_the_levels_part() {
    // D1 = {2}, D2 = {1,2,3}: [2,2] is a Hall interval strictly inside D2's interval: range
    // consistency removes 2 from D2, bounds consistency (which moves bounds only) keeps it.
    let held = doms(&[&[2], &[1, 2, 3]]);
    assert_eq!(filtered(Level::Bounds, &held), Some(held.clone()));
    let without_2 = doms(&[&[2], &[1, 3]]);
    assert_eq!(filtered(Level::Range, &held), Some(without_2.clone()));
    assert_eq!(filtered(Level::Hyperarc, &held), Some(without_2));
    // D1 = D2 = {1,3}, D3 = {1,2,3}: D1 and D2 take 1 and 3, so D3 = {2}; the intervals
    // are all [1,3], which three cells fill: no Hall interval excludes a cell.
    let holes = doms(&[&[1, 3], &[1, 3], &[1, 2, 3]]);
    assert_eq!(filtered(Level::Range, &holes), Some(holes.clone()));
    assert_eq!(
        filtered(Level::Hyperarc, &holes),
        Some(doms(&[&[1, 3], &[1, 3], &[2]]))
    );
    // {1,2}, {1,2}, {1,2,3,4}, {3,4,5}: the third cell may take only 3 or 4, the fourth 3, 4
    // or 5 (5 is free).
    let mixed = doms(&[&[1, 2], &[1, 2], &[1, 2, 3, 4], &[3, 4, 5]]);
    let want = doms(&[&[1, 2], &[1, 2], &[3, 4], &[3, 4, 5]]);
    for level in Level::ALL {
        assert_eq!(filtered(level, &mixed), Some(want.clone()), "{level:?}");
    }
}

#[test]
fn too_many_cells_for_their_values_fail_at_every_level() {
    // Three cells, two values; two cells holding the same single value.
    for level in Level::ALL {
        assert_eq!(filtered(level, &doms(&[&[1, 2], &[1, 2], &[1, 2]])), None);
        assert_eq!(filtered(level, &doms(&[&[4], &[1, 2, 3], &[4]])), None);
        assert_eq!(
            filtered(level, &doms(&[&[1, 2, 3], &[1, 2, 3], &[1, 2, 3]])),
            Some(doms(&[&[1, 2, 3], &[1, 2, 3], &[1, 2, 3]]))
        );
    }
}

#[test]
fn a_bound_that_lands_in_a_hole_moves_on() {
    // D1 = {1}, D2 = {1,3}, D3 = {3,4}: 1 leaves D2 (a bound), which is then {3}, a new Hall
    // interval that takes 3 from D3: a second pass.
    let d = doms(&[&[1], &[1, 3], &[3, 4]]);
    let want = doms(&[&[1], &[3], &[4]]);
    for level in Level::ALL {
        assert_eq!(filtered(level, &d), Some(want.clone()), "{level:?}");
    }
}

#[test]
fn the_filters_touch_only_their_group() {
    // A group of cells 5, 1, 3 of a larger array; the other domains stay as they are.
    let mut dom = vec![0b1111u16; 7];
    dom[5] = 0b0011;
    dom[1] = 0b0011;
    dom[3] = 0b0110;
    for level in Level::ALL {
        let mut d = dom.clone();
        assert!(level.filter(&[5, 1, 3], &mut d));
        let mut want = dom.clone();
        want[3] = 0b0100;
        assert_eq!(d, want, "{level:?}");
    }
}

#[test]
fn a_grid_missing_one_cell_is_filled_by_propagation_alone() {
    // Seed 000 section 1.3, the solution printed under Example 1's trace, with r5c5 (a 5)
    // blank: the root filters all 27 groups once (the blank cell's row, column and box are
    // queued already when it changes) and removes the 8 other digits from it; no search.
    let mut grid: Vec<u8> =
        "612534879349287165758916423594128736827653941163479582486395217971862354235741698"
            .bytes()
            .collect();
    grid[40] = b'.';
    let text = String::from_utf8(grid).unwrap();
    let p = PuzzleReader::new(None)
        .unwrap()
        .parse_line(1, &text)
        .unwrap();
    for level in Level::ALL {
        let o = alldiff::search(&p, level, 2);
        assert_eq!(o.solutions.len(), 1, "{level:?}");
        assert_eq!(o.solutions[0][40], 5);
        assert_eq!(
            o.stats,
            SearchStats {
                nodes: 1,
                failures: 0,
                propagations: 27,
                removed: Some(8),
                solve_seconds: None,
            },
            "{level:?}"
        );
    }
}

#[test]
fn search_statistics_count_failures_and_removals() {
    // Seed 000 section 1.3, Example 1: every level finds its one solution.
    let p = PuzzleReader::new(None)
        .unwrap()
        .parse_line(
            1,
            ".125.487..........75.....23..41.87...2..5..4...34.95..48.....17..........357.169.",
        )
        .unwrap();
    // What value propagation alone removes at the root: from each blank cell, the givens
    // among its peers. Range and hyperarc consistency remove at least that much.
    let geo = p.geometry();
    let givens = p.givens();
    let by_values: u64 = (0..81)
        .filter(|&c| givens[c] == 0)
        .map(|c| {
            let seen = geo.peers[c]
                .iter()
                .filter(|&&o| givens[o] > 0)
                .fold(0u16, |s, &o| s | 1 << givens[o]);
            u64::from(seen.count_ones())
        })
        .sum();
    for level in Level::ALL {
        let o = alldiff::search(&p, level, 2);
        assert_eq!(o.solutions.len(), 1, "{level:?}");
        let s = o.stats;
        assert!(s.propagations >= 27, "{level:?}: {s:?}");
        // A solution exists, so some node did not fail.
        assert!(s.failures < s.nodes, "{level:?}: {s:?}");
        assert!(s.removed.unwrap() > 0, "{level:?}: {s:?}");
        if level != Level::Bounds {
            assert!(
                s.removed.unwrap() >= by_values,
                "{level:?}: {s:?} < {by_values}"
            );
        }
    }
}

// ---- Brute force ------------------------------------------------------------------------

/// Domains as sorted value lists (values from 1).
fn values_of(domains: &[u16]) -> Vec<Vec<u32>> {
    domains
        .iter()
        .map(|&d| (0..16).filter(|v| d >> v & 1 == 1).map(|v| v + 1).collect())
        .collect()
}

/// The values from the smallest to the largest of `vs`.
fn hull(vs: &[u32]) -> Vec<u32> {
    match (vs.iter().min(), vs.iter().max()) {
        (Some(&lo), Some(&hi)) => (lo..=hi).collect(),
        _ => Vec::new(),
    }
}

/// Whether the variables can take pairwise different values, one from each list.
fn distinct_assignment(lists: &[Vec<u32>]) -> bool {
    fn go(lists: &[Vec<u32>], used: &mut Vec<u32>) -> bool {
        let Some((first, rest)) = lists.split_first() else {
            return true;
        };
        for &v in first {
            if !used.contains(&v) {
                used.push(v);
                let ok = go(rest, used);
                used.pop();
                if ok {
                    return true;
                }
            }
        }
        false
    }
    go(lists, &mut Vec::new())
}

/// Whether variable `i` can take `v` in an assignment where every other variable takes a
/// value of `others(j)`.
fn supported(d: &[Vec<u32>], i: usize, v: u32, others: fn(&[u32]) -> Vec<u32>) -> bool {
    let lists: Vec<Vec<u32>> = (0..d.len())
        .map(|j| if j == i { vec![v] } else { others(&d[j]) })
        .collect();
    distinct_assignment(&lists)
}

fn itself(vs: &[u32]) -> Vec<u32> {
    vs.to_vec()
}

/// Largest domains inside `d` in which every value has a support among the other domains
/// as given (hyperarc consistency) or their hulls (range consistency); `None` if one empties.
fn value_closure(d: &[Vec<u32>], others: fn(&[u32]) -> Vec<u32>) -> Option<Vec<Vec<u32>>> {
    let mut d = d.to_vec();
    loop {
        let next: Vec<Vec<u32>> = (0..d.len())
            .map(|i| {
                d[i].iter()
                    .copied()
                    .filter(|&v| supported(&d, i, v, others))
                    .collect()
            })
            .collect();
        if next.iter().any(Vec::is_empty) {
            return None;
        }
        if next == d {
            return Some(d);
        }
        d = next;
    }
}

fn hyperarc_closure(d: &[Vec<u32>]) -> Option<Vec<Vec<u32>>> {
    value_closure(d, itself)
}

fn range_closure(d: &[Vec<u32>]) -> Option<Vec<Vec<u32>>> {
    value_closure(d, hull)
}

/// Largest domains inside `d`, each cut to an interval of itself, whose minimum and maximum
/// each have a support among the other domains' hulls (bounds consistency).
fn bounds_closure(d: &[Vec<u32>]) -> Option<Vec<Vec<u32>>> {
    let mut d = d.to_vec();
    loop {
        let mut changed = false;
        for i in 0..d.len() {
            while let Some(&lo) = d[i].first() {
                if supported(&d, i, lo, hull) {
                    break;
                }
                d[i].remove(0);
                changed = true;
            }
            while let Some(&hi) = d[i].last() {
                if supported(&d, i, hi, hull) {
                    break;
                }
                d[i].pop();
                changed = true;
            }
            if d[i].is_empty() {
                return None;
            }
        }
        if !changed {
            return Some(d);
        }
    }
}

/// Every assignment of pairwise different values.
fn all_solutions(d: &[Vec<u32>]) -> Vec<Vec<u32>> {
    fn go(d: &[Vec<u32>], partial: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if partial.len() == d.len() {
            out.push(partial.clone());
            return;
        }
        for &v in &d[partial.len()] {
            if !partial.contains(&v) {
                partial.push(v);
                go(d, partial, out);
                partial.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(d, &mut Vec::new(), &mut out);
    out
}

/// Random groups of 1 to 6 cells, each domain a non-empty random subset of 1..=7.
fn random_groups(seed: u64, count: usize) -> Vec<Vec<u16>> {
    random_groups_of(seed, count, 6, 7)
}

/// Random groups of 1 to `cells` cells, each domain a non-empty random subset of
/// 1..=`width`, `width` random between the group's size and `values` (tight groups prune).
fn random_groups_of(seed: u64, count: usize, cells: usize, values: u32) -> Vec<Vec<u16>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let n = rng.random_range(1..=cells);
            let width = rng.random_range(n as u32..=values.max(n as u32));
            let p = rng.random_range(0.2..0.7);
            (0..n)
                .map(|_| loop {
                    let d = (0..width).fold(0u16, |d, v| d | u16::from(rng.random_bool(p)) << v);
                    if d != 0 {
                        break d;
                    }
                })
                .collect()
        })
        .collect()
}

/// The brute-force closure of `level`.
fn closure(level: Level, d: &[Vec<u32>]) -> Option<Vec<Vec<u32>>> {
    match level {
        Level::Hyperarc => hyperarc_closure(d),
        Level::Range => range_closure(d),
        Level::Bounds => bounds_closure(d),
    }
}

/// Compares `filter` with the brute-force closure of `level` on every group: the first
/// group where they differ, or `None`.
fn first_disagreement(
    level: Level,
    groups: &[Vec<u16>],
    filter: impl Fn(&[u16]) -> Option<Vec<u16>>,
) -> Option<String> {
    groups.iter().find_map(|g| {
        let got = filter(g).map(|d| values_of(&d));
        let want = closure(level, &values_of(g));
        (got != want).then(|| format!("{:?}: got {got:?}, want {want:?}", values_of(g)))
    })
}

/// `level`'s filter leaves exactly the brute-force closure on every group, and the groups
/// exercise it: some fail, at least a tenth lose values.
fn assert_exact(level: Level, groups: &[Vec<u16>]) {
    let d = first_disagreement(level, groups, |g| filtered(level, g));
    assert_eq!(d, None, "{level:?}");
    let outcomes = groups.iter().map(|g| (g, filtered(level, g)));
    let failed = outcomes.clone().filter(|(_, f)| f.is_none()).count();
    let pruned = outcomes
        .filter(|(g, f)| f.as_ref().is_some_and(|f| f != *g))
        .count();
    assert!(
        failed > 0 && pruned * 10 >= groups.len(),
        "{level:?}: {failed} failed, {pruned} pruned"
    );
}

#[test]
fn no_filter_removes_a_value_of_a_solution() {
    let mut with_solutions = 0;
    for g in random_groups(1, 3000) {
        let solutions = all_solutions(&values_of(&g));
        for level in Level::ALL {
            let got = filtered(level, &g);
            if solutions.is_empty() {
                continue;
            }
            let got = got.unwrap_or_else(|| panic!("{level:?} failed {:?}", values_of(&g)));
            for s in &solutions {
                for (i, &v) in s.iter().enumerate() {
                    assert!(
                        got[i] >> (v - 1) & 1 == 1,
                        "{level:?} removed {v} from cell {i} of {:?}, used by {s:?}",
                        values_of(&g)
                    );
                }
            }
        }
        with_solutions += usize::from(!solutions.is_empty());
    }
    // The random groups are not all trivial either way.
    assert!((500..2900).contains(&with_solutions), "{with_solutions}");
}

#[test]
fn each_filter_leaves_exactly_the_largest_consistent_domains() {
    let groups = random_groups(2, 3000);
    for level in Level::ALL {
        assert_exact(level, &groups);
    }
}

#[test]
fn each_filter_is_exact_on_groups_of_up_to_ten_cells() {
    let groups = random_groups_of(3, 400, 10, 12);
    for level in Level::ALL {
        assert_exact(level, &groups);
    }
}

#[test]
fn the_brute_force_check_refuses_a_filter_too_weak_or_too_strong() {
    // A filter that removes nothing, or one of another level, fails the check: the checkers
    // tell the levels apart on these groups.
    let groups = random_groups(2, 3000);
    let nothing = |g: &[u16]| Some(g.to_vec());
    for level in Level::ALL {
        assert!(
            first_disagreement(level, &groups, nothing).is_some(),
            "{level:?}"
        );
        for other in Level::ALL.into_iter().filter(|&o| o != level) {
            assert!(
                first_disagreement(level, &groups, |g| filtered(other, g)).is_some(),
                "{other:?}'s filter passes as {level:?}"
            );
        }
    }
}
