//! One Sudoku benchmark unit: one configuration over a slice of a puzzle file
//! (`cores::sudoku::bench::Slice`), each puzzle solved (with the uniqueness check when the
//! slice asks for it), timed and measured for difficulty, into one [`RunRecord`] whose answer
//! lists every puzzle, judged before it leaves.
//!
//! Invariants: the record leaves through `cores::bench::judge`, the judge the coordinator
//! applies again, which checks every grid with the independent verifier (once per grid) and
//! marks a failing puzzle `wrong`. A puzzle's `seconds` is the solver's time alone (the uniqueness
//! check included; the verifier and the difficulty measure not), so puzzles/s compares
//! solvers, not the harness. The unit's wall-time limit is checked between puzzles (and is
//! every external process's deadline): puzzles not reached are `timeout`.

use std::sync::atomic::Ordering;
use std::time::Instant;

use cores::bench::{judge, Answer, Family, Instance, Measure, RunRecord, Status, Termination};
use cores::problems::sudoku::format_grid;
use cores::sudoku::bench::{PuzzleRun, PuzzleStatus, Slice};
use cores::sudoku::{self, Puzzle, SearchStats, SolveError};

use super::config::{Availability, Config, Engine};
use super::run::{failed, RunLimits};
use super::sudoku_external::{self as external, ExternalError};

/// Who judges a record on the worker.
const JUDGE: &str = "the worker's verifier";

/// What one solve of one puzzle by a Sudoku configuration gave.
pub enum Solved {
    /// Up to the grids asked for, unverified (`cores::sudoku::answer` or the benchmark judge
    /// checks them), and the solver's search statistics when it reports them.
    Grids {
        grids: Vec<Vec<u8>>,
        stats: Option<SearchStats>,
    },
    /// The external program is not installed here.
    Unavailable(String),
    /// The solver cannot express the puzzle's shape.
    Unsupported(String),
    /// An external program was stopped at the deadline.
    Timeout(String),
    Failed(String),
}

/// Runs configuration `cfg` (of the Sudoku family) over `slice`.
pub fn run_slice(slice: &Slice, cfg: &Config, limits: &RunLimits) -> RunRecord {
    let blank = |status: Status, message: Option<String>, a: &Availability| RunRecord {
        status,
        message,
        solver: a.solver.clone(),
        solver_version: a.version.clone(),
        memory_limit_bytes: limits.memory,
        ..RunRecord::blank_of(
            Family::Sudoku,
            &slice.id,
            cfg.name,
            limits.wall.as_secs_f64(),
            super::host::current().clone(),
        )
    };
    let availability = cfg.availability();
    if !availability.available {
        return blank(
            Status::Unavailable,
            availability.reason.clone(),
            &availability,
        );
    }
    let puzzles = match slice.read() {
        Ok(p) => p,
        Err(e) => return failed(Family::Sudoku, &slice.id, cfg.name, limits, e.to_string()),
    };
    let timer = crate::cputime::CpuTimer::start();
    let start = Instant::now();
    let deadline = start + limits.wall;
    let stopped = || {
        limits
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    };
    let want = if slice.unique { 2 } else { 1 };
    let mut runs: Vec<PuzzleRun> = Vec::with_capacity(puzzles.len());
    let mut ended: Option<Termination> = None;
    for (puzzle, p) in puzzles.iter().zip(&slice.puzzles) {
        if ended.is_none() && stopped() {
            ended = Some(Termination::Killed);
        }
        if ended.is_none() && Instant::now() >= deadline {
            ended = Some(Termination::Walltime);
        }
        if ended.is_some() {
            runs.push(PuzzleRun::timeout(p.line));
            continue;
        }
        let t0 = Instant::now();
        let solved = solutions(cfg.engine, puzzle, want, deadline);
        let seconds = t0.elapsed().as_secs_f64();
        let run = match solved {
            // A solver that cannot run here or cannot express the shape: the whole unit is
            // unavailable.
            Solved::Unavailable(why) | Solved::Unsupported(why) => {
                return blank(Status::Unavailable, Some(why), &availability)
            }
            Solved::Timeout(_) => {
                ended = Some(Termination::Walltime);
                PuzzleRun::timeout(p.line)
            }
            Solved::Failed(why) => PuzzleRun {
                status: PuzzleStatus::Error,
                seconds,
                message: Some(why),
                ..PuzzleRun::timeout(p.line)
            },
            Solved::Grids { grids, stats } => PuzzleRun {
                stats,
                ..result(puzzle, p.line, seconds, &grids, slice.unique)
            },
        };
        runs.push(run);
    }
    // A drained unit is released, not reported: no difficulty to measure for it.
    if slice.difficulty_samples > 0 && ended != Some(Termination::Killed) {
        for (run, puzzle) in runs.iter_mut().zip(&puzzles) {
            let seed = run.line as u64;
            run.difficulty = sudoku::difficulty::difficulty(puzzle, slice.difficulty_samples, seed)
                .ok()
                .map(Into::into);
        }
    }
    let wall = start.elapsed();
    let in_process = matches!(cfg.engine, Engine::Sudoku(_));
    let cpu = if in_process {
        timer.elapsed_secs()
    } else {
        None
    };
    let errors: Vec<String> = runs
        .iter()
        .filter(|r| r.status == PuzzleStatus::Error || r.status == PuzzleStatus::Wrong)
        .map(|r| {
            format!(
                "{}:{}: {}",
                slice.file,
                r.line,
                r.message.as_deref().unwrap_or("")
            )
        })
        .collect();
    let mut record = blank(Status::Solved, None, &availability);
    record.wall_seconds = wall.as_secs_f64();
    record.cpu_seconds = cpu;
    record.cpu_measure = if cpu.is_some() {
        Measure::Thread
    } else {
        Measure::None
    };
    record.command = match cfg.engine {
        Engine::SudokuExternal(e) => vec![e.program().to_string()],
        _ => Vec::new(),
    };
    record.termination = ended.unwrap_or(Termination::Normal);
    record.status = if runs.iter().any(|r| r.status == PuzzleStatus::Wrong) {
        Status::Wrong
    } else if ended.is_some() {
        Status::Timeout
    } else if !errors.is_empty() {
        Status::Error
    } else {
        Status::Solved
    };
    if !errors.is_empty() {
        let more = errors.len().saturating_sub(5);
        let mut message = errors.into_iter().take(5).collect::<Vec<_>>().join("\n");
        if more > 0 {
            message.push_str(&format!("\n({more} more)"));
        }
        record.message = Some(message);
    }
    record.answer = Answer::Sudoku { puzzles: runs };
    judge(&Instance::Sudoku(slice.clone()), &mut record, JUDGE);
    record
}

/// Up to `want` grids of `puzzle` by the Sudoku configuration whose engine is `engine`
/// (in process, or as processes stopped at `deadline`). Shared by benchmark units and
/// `dancehall solve sudoku`.
pub fn solutions(engine: Engine, puzzle: &Puzzle, want: usize, deadline: Instant) -> Solved {
    match engine {
        Engine::Sudoku(solver) => match sudoku::solutions_with_stats(puzzle, solver, want) {
            Ok((grids, stats)) => Solved::Grids { grids, stats },
            Err(e @ SolveError::Unsupported { .. }) => Solved::Unsupported(e.to_string()),
            Err(e) => Solved::Failed(e.to_string()),
        },
        Engine::SudokuExternal(e) => match external::solutions_within(e, puzzle, want, deadline) {
            Ok(found) => Solved::Grids {
                grids: found.grids,
                stats: found.stats,
            },
            Err(ExternalError::Unavailable(why)) => Solved::Unavailable(why),
            Err(ExternalError::Timeout(why)) => Solved::Timeout(why),
            Err(ExternalError::Failed(why)) => Solved::Failed(why),
        },
        _ => Solved::Failed("not a Sudoku configuration".into()),
    }
}

/// A puzzle's result from the grids a solver found: the status their number says, the grids
/// as text. Not verified here: the judge at the end of the run checks every grid and marks a
/// failing one `wrong` (its grid kept as evidence).
fn result(
    puzzle: &Puzzle,
    line: usize,
    seconds: f64,
    found: &[Vec<u8>],
    unique: bool,
) -> PuzzleRun {
    let text = |g: &Vec<u8>| format_grid(g, puzzle.side());
    PuzzleRun {
        status: PuzzleStatus::of(sudoku::Status::of_count(found.len(), unique)),
        seconds,
        solution: found.first().map(text),
        other: found.get(1).map(text),
        ..PuzzleRun::timeout(line)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use cores::sudoku::bench::SlicePuzzle;

    use super::super::tests::needs;
    use super::super::{config, configs_of, run_task, RunLimits};
    use super::*;

    /// The first lines of ../shared/data/sudoku/royle_17clue_49151.txt and of
    /// forum_hardest_1106_375.txt (copied into cores/test_data/sudoku): every puzzle has
    /// exactly one solution (the collection's README).
    const ROYLE: &str = include_str!("../../../cores/test_data/sudoku/royle_17clue_first20.txt");
    const HARDEST: &str =
        include_str!("../../../cores/test_data/sudoku/forum_hardest_1106_first10.txt");

    fn slice(file: &str, text: &str, box_rows: usize, box_cols: usize) -> Slice {
        let puzzles = text
            .lines()
            .enumerate()
            .map(|(i, t)| SlicePuzzle::new(i + 1, t))
            .collect();
        Slice::new(file, box_rows, box_cols, puzzles)
    }

    fn limits(seconds: u64) -> RunLimits {
        RunLimits::with_wall(Duration::from_secs(seconds))
    }

    fn run(s: &Slice, name: &str, seconds: u64) -> RunRecord {
        run_slice(s, config(name).unwrap(), &limits(seconds))
    }

    #[test]
    fn every_in_process_solver_answers_the_17_clue_slice_uniquely_and_they_agree() {
        let s = Slice {
            difficulty_samples: 16,
            ..slice("royle.txt", ROYLE, 3, 3)
        };
        let mut records = Vec::new();
        for cfg in configs_of(Family::Sudoku).filter(|c| matches!(c.engine, Engine::Sudoku(_))) {
            let r = run_slice(&s, cfg, &limits(120));
            assert_eq!(r.status, Status::Solved, "{}: {:?}", cfg.name, r.message);
            assert_eq!(r.puzzles().len(), 20);
            for p in r.puzzles() {
                assert_eq!(
                    p.status,
                    PuzzleStatus::Unique,
                    "{} line {}",
                    cfg.name,
                    p.line
                );
                assert!(p.solution.as_ref().is_some_and(|g| g.len() == 81));
                let d = p.difficulty.expect("difficulty asked for");
                assert!(d.tree_nodes >= 1.0 && d.samples == 16, "{d:?}");
            }
            assert_eq!(r.cpu_measure, Measure::Thread);
            // The alldifferent levels bring their search statistics, the others none.
            let alldiff = matches!(cfg.engine, Engine::Sudoku(sudoku::Solver::Alldiff(_)));
            for p in r.puzzles() {
                match p.stats {
                    Some(s) => {
                        assert!(alldiff, "{}", cfg.name);
                        assert!(s.nodes >= 1 && s.propagations >= 27, "{}: {s:?}", cfg.name);
                        assert!(s.removed.is_some_and(|n| n > 0), "{}: {s:?}", cfg.name);
                    }
                    None => assert!(!alldiff, "{} line {}", cfg.name, p.line),
                }
            }
            records.push(r);
        }
        assert_eq!(records.len(), 8);
        assert_eq!(cores::bench::cross_check(&records), vec![]);
        let grids: Vec<_> = records
            .iter()
            .map(|r| r.puzzles()[7].solution.clone())
            .collect();
        assert!(grids.windows(2).all(|w| w[0] == w[1]));
    }

    #[test]
    fn several_solutions_none_and_a_4x4_slice() {
        // 4x4: the empty grid has many solutions; "123." with a 4 at r3c4 leaves r1c4 no
        // digit (row 1 has 1, 2, 3; column 4 has 4), although no two givens clash; the third
        // line is a full grid.
        let none = ["123.", "....", "...4", "...."].concat();
        let text = format!("................\n{none}\n1234341221434321\n");
        let s = Slice {
            unique: true,
            ..slice("four.txt", &text, 2, 2)
        };
        for name in ["ps12", "dlx", "sat", "alldiff"] {
            let r = run(&s, name, 30);
            let statuses: Vec<PuzzleStatus> = r.puzzles().iter().map(|p| p.status).collect();
            assert_eq!(statuses[0], PuzzleStatus::Multiple, "{name}");
            let p = &r.puzzles()[0];
            assert_ne!(p.solution, p.other, "{name}: two different grids");
            assert_eq!(statuses[1], PuzzleStatus::NoSolution, "{name}");
            assert_eq!(r.puzzles()[1].solution, None);
            assert_eq!(statuses[2], PuzzleStatus::Unique, "{name}");
            assert_eq!(r.status, Status::Solved, "{name}: {:?}", r.message);
        }
    }

    #[test]
    fn a_unit_out_of_time_keeps_what_it_answered_and_says_timeout() {
        let s = slice("hardest.txt", HARDEST, 3, 3);
        let r = run_slice(
            &s,
            config("ps12").unwrap(),
            &RunLimits::with_wall(Duration::ZERO),
        );
        assert_eq!(r.status, Status::Timeout);
        assert_eq!(r.termination, Termination::Walltime);
        assert!(r
            .puzzles()
            .iter()
            .all(|p| p.status == PuzzleStatus::Timeout));
        assert_eq!(r.puzzles().len(), 10);
    }

    #[test]
    fn a_task_of_the_wrong_family_or_a_bad_slice_is_an_error_record() {
        let s = slice("hardest.txt", HARDEST, 3, 3);
        let r = run_task(
            Family::Sudoku,
            &s.id,
            &s.to_json(),
            "native",
            &limits(5),
            &Default::default(),
        );
        assert_eq!(r.status, Status::Error);
        assert!(
            r.message.as_deref().unwrap().contains("solves domino"),
            "{:?}",
            r.message
        );
        assert_eq!(r.family(), Family::Sudoku);
        let mut bad = s.clone();
        bad.puzzles[3].text = "12".into();
        let r = run_task(
            Family::Sudoku,
            &bad.id,
            &bad.to_json(),
            "ps12",
            &limits(5),
            &Default::default(),
        );
        assert_eq!(r.status, Status::Error);
        let m = r.message.unwrap();
        assert!(m.starts_with("hardest.txt:4: "), "{m}");
        let r = run_task(
            Family::Sudoku,
            "x",
            "{",
            "ps12",
            &limits(5),
            &Default::default(),
        );
        assert!(r.message.unwrap().contains("does not parse"));
    }

    #[test]
    fn the_external_solvers_answer_a_hard_slice_and_agree_with_ps12() {
        let s = Slice {
            puzzles: slice("hardest.txt", HARDEST, 3, 3).puzzles[..3].to_vec(),
            id: Slice::id_of("hardest.txt", 1, 3),
            ..slice("hardest.txt", HARDEST, 3, 3)
        };
        // GNU Prolog leaves a compiled file per consult in its TMPDIR: none may be left here.
        let leftovers = || {
            std::fs::read_dir(std::env::temp_dir())
                .unwrap()
                .filter(|e| {
                    e.as_ref()
                        .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("gplc"))
                })
                .count()
        };
        let before = leftovers();
        let mut records = vec![run(&s, "ps12", 30)];
        for name in [
            "minisat",
            "gprolog",
            "minizinc",
            "minizinc-value",
            "minizinc-bounds",
            "minizinc-domain",
        ] {
            if !needs(name) {
                return;
            }
            let r = run(&s, name, 120);
            assert_eq!(r.status, Status::Solved, "{name}: {:?}", r.message);
            assert!(!r.solver_version.is_empty());
            assert!(r.puzzles().iter().all(|p| p.status == PuzzleStatus::Unique));
            // MiniZinc's runs bring Gecode's statistics: a hard puzzle needs search, and the
            // search for a second solution fails somewhere.
            for p in r.puzzles() {
                assert_eq!(p.stats.is_some(), name.starts_with("minizinc"), "{name}");
                if let Some(st) = p.stats {
                    assert!(st.nodes > 1 && st.failures >= 1, "{name}: {st:?}");
                    assert!(
                        st.propagations > 0 && st.solve_seconds.is_some(),
                        "{name}: {st:?}"
                    );
                }
            }
            records.push(r);
        }
        assert_eq!(cores::bench::cross_check(&records), vec![]);
        assert_eq!(
            leftovers(),
            before,
            "gprolog left files in the temporary folder"
        );
    }

    #[test]
    fn a_diagonal_slice_is_solved_under_its_variant_by_every_configuration() {
        use cores::problems::Variant;
        // Made by `dancehall sudoku generate --seed 3 --box 3x3 --variant diagonal`: unique
        // as a diagonal Sudoku, with several solutions as a plain one.
        let puzzle =
            "1....785.......73.8....9.............4..2.3..6..........526.....7..........5.....";
        let solution =
            "192437856564182739837659124751348692948726315623915487385264971276891543419573268";
        let diagonal = Slice {
            variants: vec![Variant::Diagonal],
            ..slice("diag.txt", puzzle, 3, 3)
        };
        for cfg in configs_of(Family::Sudoku) {
            if let Engine::SudokuExternal(_) = cfg.engine {
                if !needs(cfg.name) {
                    return;
                }
            }
            let r = run_slice(&diagonal, cfg, &limits(60));
            assert_eq!(r.status, Status::Solved, "{}: {:?}", cfg.name, r.message);
            let p = &r.puzzles()[0];
            assert_eq!(p.status, PuzzleStatus::Unique, "{}", cfg.name);
            assert_eq!(p.solution.as_deref(), Some(solution), "{}", cfg.name);
        }
        let plain = run(&slice("plain.txt", puzzle, 3, 3), "ps12", 60);
        assert_eq!(plain.puzzles()[0].status, PuzzleStatus::Multiple);
    }
}
