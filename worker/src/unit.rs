//! Running one work unit: the subtree of a job's problem below the unit's prefix, counted on
//! the calling (blocking) thread by the core the job names: the Dancing Links engine
//! ([`run_unit`]) or a specialised core of `cores::grids` (the Sudoku band core, the queens
//! core: [`run_core_unit`]).
//!
//! Invariant: a unit's result is exact for the part it explored. When a budget (nodes, time)
//! or the stop flag ends the search early, `solutions` counts exactly the solutions outside
//! `remaining`, the unexplored subtrees the engine hands back (cores::xcc::Outcome::Stopped);
//! the coordinator turns those into new units (dynamic re-split). A specialised core
//! cannot hand subtrees back: it ignores budgets, and a stop flag leaves it with no result at
//! all (the unit is then released whole).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cores::count::Count;
use cores::count_core::{CoreError, CoreSpec, CountCore};
use cores::unit_term::UnitTerm;
use cores::xcc::{Dlx, Limits, OptionId, Outcome, PrefixError, Problem};

use crate::cputime::CpuTimer;

/// What to run: a prefix and its budgets (zero means no limit).
#[derive(Debug, Clone, Default)]
pub struct UnitWork {
    pub prefix: Vec<OptionId>,
    pub node_budget: u64,
    pub time_budget: Duration,
}

/// What running a unit measured.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitRun {
    pub solutions: Count,
    pub nodes: u64,
    pub updates: u64,
    pub wall_seconds: f64,
    pub cpu_seconds: Option<f64>,
    /// Unexplored subtrees (full prefixes) when the search stopped early; empty when complete.
    pub remaining: Vec<Vec<OptionId>>,
    /// The core that counted it.
    pub core: CountCore,
}

impl UnitRun {
    pub fn is_complete(&self) -> bool {
        self.remaining.is_empty()
    }
}

/// Counts the solutions below `work.prefix`, stopping at the budgets or when `stop` is set.
pub fn run_unit(
    problem: &Problem,
    work: &UnitWork,
    stop: Arc<AtomicBool>,
) -> Result<UnitRun, PrefixError> {
    let wall = Instant::now();
    let cpu = CpuTimer::start();
    let mut dlx = Dlx::new(problem);
    dlx.apply_prefix(&work.prefix)?;
    let limits = Limits {
        max_nodes: (work.node_budget > 0).then_some(work.node_budget),
        deadline: (!work.time_budget.is_zero()).then(|| wall + work.time_budget),
        stop: Some(stop),
    };
    let remaining = match dlx.run_count(&limits) {
        Outcome::Complete | Outcome::Halted => Vec::new(),
        Outcome::Stopped { remaining } => remaining,
    };
    let stats = dlx.stats();
    Ok(UnitRun {
        // The engine counts one unit's subtree in u128 (bounded: a search that enumerates
        // its solutions one by one never nears 2^128); the unit's result is a Count.
        solutions: Count::from(stats.solutions),
        nodes: stats.nodes,
        updates: stats.updates,
        wall_seconds: wall.elapsed().as_secs_f64(),
        cpu_seconds: cpu.elapsed_secs(),
        remaining,
        core: CountCore::Dlx,
    })
}

/// Counts the completions of `prefix` (options of `problem`) with the specialised `core`
/// (`CoreSpec::count_prefix`). `Ok(None)` when `stop` ended the count: there is no partial
/// result. Nodes are the core's; updates are 0; nothing is handed back.
pub fn run_core_unit(
    core: CoreSpec,
    problem: &Problem,
    prefix: &[OptionId],
    stop: &AtomicBool,
) -> Result<Option<UnitRun>, CoreError> {
    let wall = Instant::now();
    let cpu = CpuTimer::start();
    let Some(c) = core.count_prefix(problem, prefix, stop)? else {
        return Ok(None);
    };
    Ok(Some(UnitRun {
        // A specialised core counts one unit (a band's completions, a queens prefix) in u128:
        // bounded by what one unit holds; sums and products of units are Counts.
        solutions: Count::from(c.solutions),
        nodes: c.nodes,
        updates: 0,
        wall_seconds: wall.elapsed().as_secs_f64(),
        cpu_seconds: cpu.elapsed_secs(),
        remaining: Vec::new(),
        core: core.core(),
    }))
}

/// Counts a unit's class with `core`, which must be its kind's: an orbit count's term
/// (`OrbitTerm::count`, core `sudoku-orbits`) on the grids of `problem`, a two-band
/// class's `B(C)^2` or a part of a class's `B(C)` (`TwoBandClass::count`, core `two-band`
/// of the class's shape) or a
/// three-band class's grids (`ThreeBandClass::count`, core `three-band 3x3`).
/// `Ok(None)` when `stop` ended the count. Errors are messages for the failed run.
pub fn run_term_unit(
    core: CoreSpec,
    problem: &Problem,
    term: &UnitTerm,
    stop: &AtomicBool,
) -> Result<Option<UnitRun>, String> {
    let wall = Instant::now();
    let cpu = CpuTimer::start();
    let counted = match (core, term) {
        (CoreSpec::SudokuOrbits { box_rows, box_cols }, UnitTerm::Orbit(t)) => t
            .count(box_rows, box_cols, problem, stop)
            .map_err(|e| e.to_string())?
            // A class term is at most the grids over side! of grids the core enumerates.
            .map(Count::from),
        (CoreSpec::TwoBand { box_rows, box_cols }, UnitTerm::TwoBand(t))
            if cores::grids::two_band::band_rows(box_rows, box_cols) == Ok(t.r) =>
        {
            t.count(stop)
                .map_err(|e| e.to_string())?
                .map(|(_, count)| count)
        }
        (CoreSpec::ThreeBand { .. }, UnitTerm::ThreeBand(t)) => {
            // The grids with one top-band configuration: at most the 9x9 count, bounded.
            t.count(stop)
                .map_err(|e| e.to_string())?
                .map(|c| Count::from(c.grids))
        }
        _ => {
            return Err(format!(
                "class {} is counted by core {}, not {}",
                term.class(),
                term.core(),
                core.text()
            ))
        }
    };
    let Some(solutions) = counted else {
        return Ok(None);
    };
    Ok(Some(UnitRun {
        solutions,
        nodes: 0,
        updates: 0,
        wall_seconds: wall.elapsed().as_secs_f64(),
        cpu_seconds: cpu.elapsed_secs(),
        remaining: Vec::new(),
        core: core.core(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cores::orbit_term::OrbitTerm;
    use cores::xcc::ProblemBuilder;
    use std::sync::atomic::Ordering;

    /// n queens with rows and columns primary, diagonals secondary (a builder written here
    /// so that the test shares no code with the problem library).
    fn queens(n: u32) -> Problem {
        let mut b = ProblemBuilder::new();
        for i in 0..n {
            b.primary(&format!("r{i}")).unwrap();
        }
        for i in 0..n {
            b.primary(&format!("c{i}")).unwrap();
        }
        for d in 0..2 * n - 1 {
            b.secondary(&format!("a{d}")).unwrap();
            b.secondary(&format!("b{d}")).unwrap();
        }
        for r in 0..n {
            for c in 0..n {
                let words = [
                    format!("r{r}"),
                    format!("c{c}"),
                    format!("a{}", r + c),
                    format!("b{}", r + n - 1 - c),
                ];
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                b.option_named(&words).unwrap();
            }
        }
        b.build().unwrap()
    }

    fn no_stop() -> Arc<AtomicBool> {
        Arc::new(AtomicBool::new(false))
    }

    /// Runs `work` and then, recursively, every subtree it handed back; returns the total.
    fn total(problem: &Problem, work: UnitWork) -> (Count, usize) {
        let run = run_unit(problem, &work, no_stop()).unwrap();
        let mut sum = run.solutions;
        let mut units = 1;
        for prefix in run.remaining {
            assert!(
                prefix.starts_with(&work.prefix),
                "{prefix:?} under {:?}",
                work.prefix
            );
            let (s, u) = total(
                problem,
                UnitWork {
                    prefix,
                    ..work.clone()
                },
            );
            sum += s;
            units += u;
        }
        (sum, units)
    }

    #[test]
    fn a_whole_unit_counts_every_solution() {
        // OEIS A000170: 8 queens have 92 solutions.
        let p = queens(8);
        let run = run_unit(&p, &UnitWork::default(), no_stop()).unwrap();
        assert_eq!(run.solutions, Count::from(92u8));
        assert!(run.is_complete());
        assert!(run.nodes > 92 && run.updates > 0);
        assert!(run.wall_seconds >= 0.0);
    }

    #[test]
    fn a_node_budget_splits_the_unit_without_losing_a_solution() {
        // OEIS A000170: 8 queens have 92 solutions.
        let p = queens(8);
        let work = UnitWork {
            node_budget: 50,
            ..Default::default()
        };
        let first = run_unit(&p, &work, no_stop()).unwrap();
        assert!(
            !first.is_complete(),
            "a budget of 50 nodes must stop 8 queens"
        );
        let (sum, units) = total(&p, work);
        assert_eq!(sum, Count::from(92u8));
        assert!(units > 2);
    }

    #[test]
    fn a_raised_stop_flag_hands_the_whole_rest_back() {
        // OEIS A000170: 6 queens have 4 solutions.
        let p = queens(6);
        let work = UnitWork {
            prefix: vec![1],
            ..Default::default()
        };
        let stop = no_stop();
        stop.store(true, Ordering::Relaxed);
        let run = run_unit(&p, &work, stop).unwrap();
        let rest: Count = run
            .remaining
            .iter()
            .map(|prefix| {
                let w = UnitWork {
                    prefix: prefix.clone(),
                    ..Default::default()
                };
                run_unit(&p, &w, no_stop()).unwrap().solutions
            })
            .sum();
        let whole = run_unit(&p, &work, no_stop()).unwrap().solutions;
        assert_eq!(run.solutions + rest, whole);
    }

    #[test]
    fn a_clashing_prefix_is_an_error() {
        let p = queens(4);
        // Options 0 and 1 are both in row 0.
        let work = UnitWork {
            prefix: vec![0, 1],
            ..Default::default()
        };
        assert!(matches!(
            run_unit(&p, &work, no_stop()),
            Err(PrefixError::Clash { .. })
        ));
    }

    /// The plain Sudoku of `r x c` boxes, from the library's builder (option ids are
    /// placements, as the band core reads them).
    fn sudoku(r: usize, c: usize) -> Problem {
        let config = cores::problems::sudoku::SudokuConfig::new(r, c);
        cores::problems::sudoku::Sudoku::build(&config)
            .unwrap()
            .problem
    }

    fn bands22() -> CoreSpec {
        CoreSpec::SudokuBands {
            box_rows: 2,
            box_cols: 2,
        }
    }

    #[test]
    fn the_queens_core_counts_what_the_dancing_links_count() {
        // 8 queens: 92 (OEIS A000170), by first-row square.
        let q = cores::problems::queens::Queens::build(8).unwrap();
        let stop = AtomicBool::new(false);
        let mut total = Count::zero();
        for c in 0..8u32 {
            let work = UnitWork {
                prefix: vec![c],
                ..Default::default()
            };
            let d = run_unit(&q.problem, &work, no_stop()).unwrap();
            let b = run_core_unit(CoreSpec::Queens { n: 8 }, &q.problem, &[c], &stop)
                .unwrap()
                .unwrap();
            assert_eq!((&b.solutions, b.core), (&d.solutions, CountCore::Queens));
            total += b.solutions;
        }
        assert_eq!(total, Count::from(92u8));
    }

    #[test]
    fn the_sudoku_core_counts_what_the_dancing_links_count() {
        // 4x4 grids: 288 (OEIS A107739); 6x6 (2x3 boxes): 28,200,960 (OEIS A291187).
        let p = sudoku(2, 2);
        let stop = AtomicBool::new(false);
        for prefix in [vec![], vec![0], vec![0, 5], vec![0, 5, 16], vec![0, 4]] {
            let dlx = run_unit(
                &p,
                &UnitWork {
                    prefix: prefix.clone(),
                    ..Default::default()
                },
                no_stop(),
            );
            let bands = run_core_unit(bands22(), &p, &prefix, &stop);
            match dlx {
                Ok(d) => {
                    let b = bands.unwrap().unwrap();
                    assert_eq!(b.solutions, d.solutions, "{prefix:?}");
                    assert_eq!((b.core, d.core), (CountCore::SudokuBands, CountCore::Dlx));
                    assert!(b.remaining.is_empty() && b.updates == 0);
                }
                // Two digits in one cell: the Sudoku core refuses it too.
                Err(_) => assert!(bands.is_err(), "{prefix:?}"),
            }
        }
        let p = sudoku(2, 3);
        // The first row fixed to 1..6 (options (0 * 6 + c) * 6 + c): 28,200,960 / 6! grids.
        let row: Vec<u32> = (0..6).map(|c| c * 6 + c).collect();
        let dlx = run_unit(
            &p,
            &UnitWork {
                prefix: row.clone(),
                ..Default::default()
            },
            no_stop(),
        )
        .unwrap();
        assert_eq!(dlx.solutions, Count::from(28_200_960u32 / 720));
        let bands = run_core_unit(
            CoreSpec::SudokuBands {
                box_rows: 2,
                box_cols: 3,
            },
            &p,
            &row,
            &stop,
        )
        .unwrap()
        .unwrap();
        assert_eq!(bands.solutions, dlx.solutions);
    }

    #[test]
    fn an_orbit_term_is_counted_by_the_orbit_core_only() {
        // 4x4: the classes' terms re-add to 2 orbits (Russell and Jarvis 2006) over the
        // group's order; each counted as a worker counts a unit.
        let p = sudoku(2, 2);
        let groups = cores::grids::groups::read_groups(2, 2, &p).unwrap();
        let choice = cores::grids::orbits::GroupChoice::Full;
        let group = cores::grids::orbits::orbit_group(&groups, choice).unwrap();
        let core = CoreSpec::SudokuOrbits {
            box_rows: 2,
            box_cols: 2,
        };
        let stop = AtomicBool::new(false);
        let mut sum = Count::zero();
        for class in cores::grids::orbits::conjugacy_classes(&group) {
            let term = UnitTerm::Orbit(OrbitTerm {
                class: class.index,
                class_size: class.size,
                rep: class.rep.to_text(),
                group: choice,
            });
            let run = run_term_unit(core, &p, &term, &stop).unwrap().unwrap();
            assert_eq!(run.core, CountCore::SudokuOrbitTerm);
            sum += Count::from(class.size) * run.solutions;
        }
        assert_eq!(sum, Count::from(2 * group.order()));
        let term = OrbitTerm {
            class: 2,
            class_size: 1,
            rep: "1234/2143".into(),
            group: choice,
        };
        let e = run_term_unit(bands22(), &p, &term.clone().into(), &stop).unwrap_err();
        assert!(
            e.contains("counted by core sudoku-orbit-term, not sudoku-bands 2x2"),
            "{e}"
        );
        let bad = OrbitTerm {
            rep: "12/12".into(),
            ..term
        };
        let e = run_term_unit(core, &p, &bad.into(), &stop).unwrap_err();
        assert!(e.starts_with("orbit term: class 2: "), "{e}");
    }

    #[test]
    fn a_two_band_class_is_counted_by_the_two_band_core_of_its_shape_only() {
        // 6x6 (2x3 boxes): E(C) x B(C)^2 over the classes is 28,200,960 (OEIS A291187).
        let p = sudoku(2, 3);
        let core = CoreSpec::TwoBand {
            box_rows: 2,
            box_cols: 3,
        };
        let stop = AtomicBool::new(false);
        let mut sum = Count::zero();
        for class in cores::grids::two_band::TwoBandClass::all(3).unwrap() {
            let term = UnitTerm::TwoBand(class.clone());
            let run = run_term_unit(core, &p, &term, &stop).unwrap().unwrap();
            assert_eq!(run.core, CountCore::TwoBandClass);
            sum += Count::from(class.class_size) * run.solutions;
        }
        assert_eq!(sum, Count::from(28_200_960u32));
        let four =
            UnitTerm::TwoBand(cores::grids::two_band::TwoBandClass::all(2).unwrap()[0].clone());
        let e = run_term_unit(core, &p, &four, &stop).unwrap_err();
        assert!(
            e.contains("counted by core two-band-class, not two-band 2x3"),
            "{e}"
        );
    }

    #[test]
    fn a_stopped_sudoku_unit_has_no_result() {
        let stop = AtomicBool::new(true);
        let p = sudoku(3, 3);
        let core = CoreSpec::SudokuBands {
            box_rows: 3,
            box_cols: 3,
        };
        assert_eq!(run_core_unit(core, &p, &[], &stop).unwrap(), None);
    }
}
