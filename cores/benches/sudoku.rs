//! Puzzles per second with the uniqueness check (count up to two), per solver, on the
//! shared Sudoku collections (bench-specs/sudoku/collections, copies of
//! ../shared/data/sudoku; see their README), beside the `sudoku`
//! crate (crates.io, a port of JCZSolve) and, when `TDOKU_BENCH` names a tdoku timing
//! program built locally from tdoku's public source (never committed), beside tdoku, all
//! in the same run.
//!
//! Usage: `cargo bench -p cores --bench sudoku -- [--seconds S] [--quick] [FILE...]`
//! (`--quick`: only the band kernel, the `sudoku` crate and tdoku). Each
//! configuration runs over the file's puzzles in order until all are done or S seconds
//! (default 3) have passed, and reports the rate over the puzzles it did (a set done in
//! less than half of S is run again until half of S has passed: the mean pass). Timing covers the
//! solving only: the answers of our solvers are then checked by the verifier (a grid that
//! fails it aborts the benchmark) and every status must agree with the file's README.
//! `TDOKU_BENCH=/path/prog` is run as `prog FILE` and its `puzzles/s` figure is quoted.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cores::sudoku::{answer, bands, solutions, Puzzle, PuzzleReader, Solver, Status};

fn default_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/sudoku/collections");
    [
        "royle_17clue_49151.txt",
        "magictour_top1465.txt",
        "forum_hardest_1106_375.txt",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect()
}

struct Row {
    config: String,
    done: usize,
    secs: f64,
    unique: usize,
}

/// Runs `solve` on puzzles in order until all are done or the budget is spent; a set done
/// within half the budget is run again, pass after pass, until half the budget has passed,
/// and the figure is the mean time of the complete passes after the first (a warm-up): an
/// average over about a second and a half, as tdoku's timing program averages over its 3 s
/// (a best-of-three of passes of 30 ms swung by a third between runs on the shared VM).
fn timed<T>(
    puzzles: &[Puzzle],
    budget: Duration,
    mut solve: impl FnMut(&Puzzle) -> T,
) -> (Vec<T>, f64) {
    let start = Instant::now();
    let mut first: Option<Vec<T>> = None;
    let (mut passes, mut total) = (0u32, 0.0);
    loop {
        let pass = Instant::now();
        let mut out = Vec::with_capacity(puzzles.len());
        for chunk in puzzles.chunks(64) {
            for p in chunk {
                out.push(solve(p));
            }
            if start.elapsed() >= budget {
                break;
            }
        }
        let secs = pass.elapsed().as_secs_f64();
        let complete = out.len() == puzzles.len();
        if !complete {
            // The budget ran out within the first pass: its partial figure is the one.
            return (out, secs);
        }
        if first.is_none() {
            first = Some(out);
            // The first pass warms up (caches, the CPU's clock); it counts only if alone.
            if start.elapsed() >= budget / 2 {
                return (first.expect("just set"), secs);
            }
            continue;
        }
        passes += 1;
        total += secs;
        if start.elapsed() >= budget / 2 {
            break;
        }
    }
    (first.expect("at least one pass"), total / f64::from(passes))
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let mut seconds = 3.0;
    let mut quick = false;
    let mut files = Vec::new();
    while let Some(a) = args.next() {
        if a == "--quick" {
            quick = true;
        } else if a == "--seconds" {
            seconds = args
                .next()
                .and_then(|s| s.parse().ok())
                .expect("--seconds S");
        } else {
            files.push(PathBuf::from(a));
        }
    }
    if files.is_empty() {
        files = default_files();
    }
    let budget = Duration::from_secs_f64(seconds);
    let tdoku = std::env::var_os("TDOKU_BENCH");
    println!(
        "{:<36}{:<15}{:>8}{:>10}{:>13}{:>8}",
        "file", "config", "puzzles", "seconds", "puzzles/s", "unique"
    );
    for file in files {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let puzzles: Vec<Puzzle> = PuzzleReader::new(None)
            .unwrap()
            .parse_all(&text)
            .map(|p| p.unwrap_or_else(|e| panic!("{}: {e}", file.display())))
            .collect();
        // serg_benchmark: every puzzle has 2+ solutions (README); the others are unique.
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let want = if name.starts_with("serg") {
            Status::Multiple
        } else {
            Status::Unique
        };
        let mut rows = Vec::new();

        // Our fastest path without allocation: the band kernel's counter.
        let (counts, secs) = timed(&puzzles, budget, |p| {
            bands::count(p.givens().try_into().expect("9x9"), 2)
        });
        for (p, c) in puzzles.iter().zip(&counts) {
            let found = if c.solutions > 0 {
                vec![c.first.to_vec()]
            } else {
                vec![]
            };
            // The second grid is not kept by `count`: check the first, and the number.
            let a = answer(p, "ps12 band kernel", found, true).unwrap_or_else(|e| panic!("{e}"));
            let status = if c.solutions >= 2 {
                Status::Multiple
            } else {
                a.status
            };
            assert_eq!(status, want, "ps12 on {}", p.text());
        }
        let guesses: u64 = counts.iter().map(|c| c.guesses).sum();
        println!(
            "{name:<36}ps12 (bands): {:.2} guesses per puzzle",
            guesses as f64 / counts.len().max(1) as f64
        );
        rows.push(Row {
            config: "ps12 (bands)".into(),
            done: counts.len(),
            secs,
            unique: counts.iter().filter(|c| c.solutions == 1).count(),
        });

        let slow: &[Solver] = if quick {
            &[]
        } else {
            &[
                Solver::Ps12Generic,
                Solver::Dlx,
                Solver::Alldiff,
                Solver::Sat,
                Solver::SatNaive,
            ]
        };
        for &solver in slow {
            let (found, secs) = timed(&puzzles, budget, |p| solutions(p, solver, 2));
            let done = found.len();
            let mut unique = 0;
            for (p, f) in puzzles.iter().zip(found) {
                let f = f.unwrap_or_else(|e| panic!("{solver}: {e}"));
                let a = answer(p, solver.name(), f, true).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(a.status, want, "{solver} on {}", p.text());
                unique += usize::from(a.status == Status::Unique);
            }
            rows.push(Row {
                config: solver.name().into(),
                done,
                secs,
                unique,
            });
        }

        let (verdicts, secs) = timed(&puzzles, budget, |p| {
            sudoku::Sudoku::from_bytes_slice(p.givens())
                .map(|s| s.is_uniquely_solvable())
                .unwrap_or(false)
        });
        rows.push(Row {
            config: "sudoku crate".into(),
            done: verdicts.len(),
            secs,
            unique: verdicts.iter().filter(|&&u| u).count(),
        });

        for r in &rows {
            println!(
                "{name:<36}{:<15}{:>8}{:>10.3}{:>13.0}{:>8}",
                r.config,
                r.done,
                r.secs,
                r.done as f64 / r.secs,
                r.unique
            );
        }
        if let Some(prog) = &tdoku {
            match Command::new(prog).arg(&file).output() {
                Ok(o) => print!("{name:<36}tdoku: {}", String::from_utf8_lossy(&o.stdout)),
                Err(e) => println!("{name:<36}tdoku: unavailable ({e})"),
            }
        }
    }
}
