//! The Dancing Links benchmark: our engine (`cores::xcc::Dlx`, counters on, as
//! shipped) side by side with the `dlx` crate (crates.io, the strongest Rust peer) and, when
//! the environment variable `DLX1_BIN` names a binary, Knuth's DLX1 in C, all on the same
//! DLX-format text in one run.
//!
//! Each input is built by `cores::problems`, reduced by its prefix if it has one (DLX text
//! has no prefix: the 6x6 Sudoku's fixed first row becomes the problem that remains after
//! it, exactly what `dancehall export` writes), written once with `write_dlx` and parsed back
//! with `parse_dlx`; that one text is what every solver reads. All solvers must agree on the
//! solution count, or the run aborts.
//!
//! Timing: every solver runs `DLX_BENCH_REPS` times (default 5) per input; the table shows
//! the best (minimum) and the median CPU seconds (see `mod clock`), and the rates and ratios
//! use the best, the figure least disturbed by other load on the machine. Our engine and the
//! crate are timed around the search alone (building the links excluded). DLX1 is timed
//! around its whole process (start, reading stdin, search); the median time of a run with its option
//! `T1` (time-out at the second node: start, input and one node) is subtracted, so that its figure
//! is the search alone too.
//!
//! The crate is built with its `unsafe-fast-index` feature (unchecked indexing, as ours) and
//! its default 64-bit integers (its `32-bit` feature measured no faster here); it runs
//! `dlx::x` (Algorithm X) with `mrv_chooser(prefer_any(), no_tiebreak())`, which picks the
//! leftmost shortest item like DLX1 and ours, so all three walk the same tree.
//!
//! Counting conventions: our `nodes` follow DLX1 (every node entered, solutions and dead ends
//! included) and so do our `updates` (option nodes unlinked, plus one per item covered, even
//! one with no options left). DLX1's "nodes" also include the solution leaves. The `dlx`
//! crate's level profile counts inner nodes and dead ends only, so its nodes are shown as
//! that sum plus the solutions; its updates leave out the item of a dead end (it does not
//! cover an item with no options), so they fall short of DLX1's by the number of dead ends.
//!
//! Usage: `cargo bench -p cores --bench dlx [-- FILTER...]` (a filter keeps the inputs whose
//! name contains it, and can name the extra input `pentomino 6x10 all`, which the default run
//! leaves out; `DLX_BENCH_DUMP=DIR` also writes each input's text to `DIR/<name>.dlx`); `DLX1_BIN=/path/to/dlx1 cargo bench -p cores --bench dlx`, or
//! `scripts/bench-dlx1.sh`, which builds nothing and fetches nothing.

use std::io::Write as _;
use std::process::{Command, Stdio};

use cores::problems::ProblemSpec;
use cores::xcc::{parse_dlx, reduce, write_dlx, Dlx};

use dlx::choose::{mrv_chooser, no_tiebreak, prefer_any};

/// The fixed inputs, then extra ones that run only when a filter names them.
fn inputs() -> Vec<(&'static str, ProblemSpec)> {
    vec![
        ("queens 12", ProblemSpec::Queens { n: 12 }),
        ("queens 13", ProblemSpec::Queens { n: 13 }),
        (
            "langford 11",
            ProblemSpec::Langford {
                n: 11,
                break_symmetry: false,
            },
        ),
        ("sudoku 2x3 row 1 fixed", {
            let mut s = ProblemSpec::sudoku(2, 3);
            if let ProblemSpec::Sudoku { fix_first_row, .. } = &mut s {
                *fix_first_row = true;
            }
            s
        }),
        // Symmetry broken (X in one quadrant, as in Knuth's "Dancing Links" paper): 2,339
        // tilings instead of 9,356, a quarter of the tree, so that a run stays short.
        (
            "pentomino 6x10 sym-broken",
            ProblemSpec::Pentomino {
                width: 10,
                height: 6,
                break_symmetry: true,
            },
        ),
        // Extras. All 9,356 tilings (about four times as long); one size up of queens and
        // Langford (the sizes of the comparison table in the README's benchmark section).
        (
            "pentomino 6x10 all",
            ProblemSpec::Pentomino {
                width: 10,
                height: 6,
                break_symmetry: false,
            },
        ),
        ("queens 14", ProblemSpec::Queens { n: 14 }),
        (
            "langford 12",
            ProblemSpec::Langford {
                n: 12,
                break_symmetry: false,
            },
        ),
    ]
}

/// How many of `inputs()` run when no filter is given.
const DEFAULT_INPUTS: usize = 5;

/// One solver's figures on one input.
#[derive(Debug, Clone)]
struct Measured {
    solutions: u128,
    nodes: u64,
    updates: u64,
    /// Seconds of each repetition.
    times: Vec<f64>,
}

impl Measured {
    fn best(&self) -> f64 {
        self.times.iter().copied().fold(f64::INFINITY, f64::min)
    }

    fn median(&self) -> f64 {
        median(&self.times)
    }
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

impl Measured {
    /// Adds one repetition's figures; the counts must be those of the earlier repetitions.
    fn record(m: &mut Option<Measured>, what: &str, run: (u128, u64, u64, f64)) {
        let (solutions, nodes, updates, secs) = run;
        match m {
            None => {
                *m = Some(Measured {
                    solutions,
                    nodes,
                    updates,
                    times: vec![secs],
                })
            }
            Some(m) => {
                if (m.solutions, m.nodes, m.updates) != (solutions, nodes, updates) {
                    fail(&format!(
                        "{what}: counts changed between repetitions: {:?} then {:?}",
                        (m.solutions, m.nodes, m.updates),
                        (solutions, nodes, updates)
                    ));
                }
                m.times.push(secs);
            }
        }
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("\nBENCHMARK ABORTED: {msg}");
    std::process::exit(1);
}

/// CPU-time clocks (Linux): the machine is shared, so wall-clock time would charge other
/// processes' load to whichever solver happens to run beside them. Our engine and the crate
/// run on this thread (`CLOCK_THREAD_CPUTIME_ID`); DLX1 is a child process, measured by the
/// growth of `getrusage(RUSAGE_CHILDREN)` (user + system) across its wait. Elsewhere both
/// fall back to wall-clock time. The two calls are declared here rather than through the
/// `libc` crate, to keep the bench's dependencies to the peer it measures.
#[cfg(target_os = "linux")]
mod clock {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }

    /// `struct rusage` on 64-bit Linux: two `timeval`s, then 14 `long`s.
    #[repr(C)]
    struct Rusage {
        utime: [i64; 2],
        stime: [i64; 2],
        rest: [i64; 14],
    }

    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
        fn getrusage(who: i32, usage: *mut Rusage) -> i32;
    }

    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    const RUSAGE_CHILDREN: i32 = -1;

    pub const NAME: &str = "CPU seconds (thread CPU time; DLX1: its process's user + system)";

    /// CPU seconds used by this thread so far.
    pub fn thread() -> f64 {
        let mut ts = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable `struct timespec` (two 64-bit fields on 64-bit
        // Linux); the call writes nothing else.
        let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
        ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
    }

    /// CPU seconds used so far by the children this process has waited for.
    pub fn children() -> f64 {
        let mut ru = Rusage {
            utime: [0; 2],
            stime: [0; 2],
            rest: [0; 14],
        };
        // SAFETY: `ru` has the size and layout of `struct rusage` on 64-bit Linux.
        let rc = unsafe { getrusage(RUSAGE_CHILDREN, &mut ru) };
        assert_eq!(rc, 0, "getrusage(RUSAGE_CHILDREN) failed");
        let tv = |t: [i64; 2]| t[0] as f64 + t[1] as f64 * 1e-6;
        tv(ru.utime) + tv(ru.stime)
    }
}

#[cfg(not(target_os = "linux"))]
mod clock {
    use std::sync::OnceLock;

    pub const NAME: &str = "wall-clock seconds";

    fn since_start() -> f64 {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64()
    }

    pub fn thread() -> f64 {
        since_start()
    }

    pub fn children() -> f64 {
        since_start()
    }
}

/// Our engine, as shipped (counters on), on the parsed text.
fn run_ours(problem: &cores::xcc::Problem) -> (u128, u64, u64, f64) {
    let mut dlx = Dlx::new(problem);
    let t = clock::thread();
    let solutions = dlx.count();
    let secs = clock::thread() - t;
    let s = dlx.stats();
    (solutions, s.nodes, s.updates, secs)
}

/// The `dlx` crate's Algorithm X (`dlx::x`) with its MRV chooser (leftmost on ties, like
/// DLX1 and ours) on the same text, counting all solutions.
fn run_crate(text: &str) -> (u128, u64, u64, f64) {
    let spec = dlx::Spec::new(text, false)
        .unwrap_or_else(|e| fail(&format!("the dlx crate rejects the input: {e}")));
    let mut problem = dlx::x::Problem::from_spec(&spec, dlx::OptOrder::Seq)
        .unwrap_or_else(|e| fail(&format!("the dlx crate rejects the input: {e}")));
    let mut solver = dlx::Solver::new(&mut problem);
    let mut chooser = mrv_chooser(prefer_any(), no_tiebreak());
    let t = clock::thread();
    let mut solutions: u128 = 0;
    while solver.next_solution(&mut chooser) {
        solutions += 1;
    }
    let secs = clock::thread() - t;
    let inner: usize = solver.get_profile().iter().sum();
    let nodes = inner as u64 + solutions as u64;
    let updates = solver.get_updates() as u64;
    (solutions, nodes, updates, secs)
}

/// What DLX1 printed on its closing line: "Altogether S solutions, A+B mems, U updates,
/// Y bytes, N nodes, ccost C%."
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Dlx1Report {
    solutions: u128,
    updates: u64,
    nodes: u64,
}

fn parse_dlx1_report(stderr: &str) -> Option<Dlx1Report> {
    let line = stderr.lines().find(|l| l.starts_with("Altogether "))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let before = |label: &str| -> Option<&str> {
        let k = words
            .iter()
            .position(|w| w.trim_end_matches(',') == label)?;
        words.get(k.checked_sub(1)?).copied()
    };
    let solutions = words.get(1)?.parse().ok()?;
    let updates = before("updates")?.parse().ok()?;
    let nodes = before("nodes")?.parse().ok()?;
    Some(Dlx1Report {
        solutions,
        updates,
        nodes,
    })
}

/// Runs DLX1 once on `text` with the given options; returns its report and the seconds of
/// the whole process.
fn run_dlx1_process(bin: &str, args: &[&str], text: &str) -> (Dlx1Report, f64) {
    let t = clock::children();
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("cannot start DLX1_BIN={bin}: {e}")));
    {
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin
            .write_all(text.as_bytes())
            .unwrap_or_else(|e| fail(&format!("writing the input to {bin}: {e}")));
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| fail(&format!("waiting for {bin}: {e}")));
    let secs = clock::children() - t;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        fail(&format!(
            "{bin} {args:?} exited with {}: {stderr}",
            out.status
        ));
    }
    let report = parse_dlx1_report(&stderr).unwrap_or_else(|| {
        fail(&format!(
            "no \"Altogether ...\" line from {bin} {args:?}:\n{stderr}"
        ))
    });
    (report, secs)
}

/// DLX1's start-up and input time: the median of runs with `T1`, which times out on
/// entering the second node (`T0` would make DLX1 divide by zero mems in its closing line).
fn dlx1_start_up(bin: &str, text: &str, reps: usize) -> f64 {
    let runs: Vec<f64> = (0..reps)
        .map(|_| run_dlx1_process(bin, &["v1", "T1"], text).1)
        .collect();
    median(&runs)
}

/// DLX1 with `v1` (basic statistics only; `m0`, the default, counts without printing), its
/// start-up subtracted.
fn run_dlx1(bin: &str, text: &str, start_up: f64) -> (u128, u64, u64, f64) {
    let (r, secs) = run_dlx1_process(bin, &["v1"], text);
    (r.solutions, r.nodes, r.updates, (secs - start_up).max(0.0))
}

struct Row {
    input: String,
    solver: &'static str,
    m: Measured,
}

/// The DLX1 report parser on lines of the form DLX1 prints (a harness-free bench has no
/// `#[test]`s, so it checks itself before measuring anything).
fn check_report_parser() {
    let s = "Altogether 92 solutions, 2345+123456 mems, 4567 updates, 8123 bytes, \
             2057 nodes, ccost 40%.\n";
    let want = Dlx1Report {
        solutions: 92,
        updates: 4567,
        nodes: 2057,
    };
    assert_eq!(parse_dlx1_report(s), Some(want));
    let one = "Altogether 1 solution, 1+2 mems, 3 updates, 4 bytes, 5 nodes, ccost 0%.";
    assert_eq!(parse_dlx1_report(one).map(|r| r.solutions), Some(1));
    assert_eq!(parse_dlx1_report("TIMEOUT!\n"), None);
}

fn main() {
    check_report_parser();
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let reps: usize = match std::env::var("DLX_BENCH_REPS") {
        Ok(s) => s
            .parse()
            .ok()
            .filter(|&r| r > 0)
            .unwrap_or_else(|| fail(&format!("DLX_BENCH_REPS={s} is not a positive integer"))),
        Err(_) => 5,
    };
    let dump = std::env::var_os("DLX_BENCH_DUMP").map(std::path::PathBuf::from);
    let dlx1 = std::env::var("DLX1_BIN").ok().filter(|s| !s.is_empty());
    match &dlx1 {
        Some(bin) => println!("DLX1: {bin} (options v1; start-up from runs with T1 subtracted)"),
        None => println!(
            "DLX1 skipped: set DLX1_BIN to a DLX1 binary to compare (scripts/bench-dlx1.sh)"
        ),
    }
    println!("repetitions per solver and input: {reps} (DLX_BENCH_REPS)");
    println!(
        "times: {}; best and median of the repetitions\n",
        clock::NAME
    );

    let mut rows: Vec<Row> = Vec::new();
    for (k, (name, spec)) in inputs().into_iter().enumerate() {
        let chosen = if filters.is_empty() {
            k < DEFAULT_INPUTS
        } else {
            filters.iter().any(|f| name.contains(f.as_str()))
        };
        if !chosen {
            continue;
        }
        let built = spec
            .build()
            .unwrap_or_else(|e| fail(&format!("{name}: {e}")));
        let problem = if built.prefix.is_empty() {
            built.problem
        } else {
            reduce(&built.problem, &built.prefix)
                .unwrap_or_else(|e| fail(&format!("{name}: reducing by the prefix: {e}")))
        };
        let text = write_dlx(&problem);
        let parsed =
            parse_dlx(&text).unwrap_or_else(|e| fail(&format!("{name}: our own text: {e}")));
        if parsed != problem {
            fail(&format!("{name}: parse_dlx(write_dlx(p)) differs from p"));
        }
        if let Some(dir) = &dump {
            let path = dir.join(format!("{}.dlx", name.replace(' ', "-")));
            std::fs::write(&path, &text)
                .unwrap_or_else(|e| fail(&format!("writing {}: {e}", path.display())));
        }
        eprintln!(
            "{name}: {} items ({} primary), {} options, {} bytes of DLX text",
            parsed.num_items(),
            parsed.num_primary(),
            parsed.num_options(),
            text.len()
        );

        // Interleaved repetitions, so that a burst of load elsewhere hits every solver.
        let start_up = dlx1.as_ref().map(|bin| dlx1_start_up(bin, &text, reps));
        let (mut ours, mut krate, mut knuth) = (None, None, None);
        for _ in 0..reps {
            Measured::record(&mut ours, "ours", run_ours(&parsed));
            Measured::record(&mut krate, "dlx crate", run_crate(&text));
            if let (Some(bin), Some(s)) = (&dlx1, start_up) {
                Measured::record(&mut knuth, "DLX1", run_dlx1(bin, &text, s));
            }
        }
        let (ours, krate) = (ours.expect("reps > 0"), krate.expect("reps > 0"));
        let knuth = knuth.zip(start_up);

        let mut counts = vec![("ours", ours.solutions), ("dlx crate", krate.solutions)];
        if let Some((k, _)) = &knuth {
            counts.push(("DLX1", k.solutions));
        }
        if counts.iter().any(|&(_, c)| c != ours.solutions) {
            fail(&format!(
                "{name}: the solvers disagree on the count: {counts:?}"
            ));
        }
        rows.push(Row {
            input: name.to_string(),
            solver: "ours",
            m: ours,
        });
        rows.push(Row {
            input: name.to_string(),
            solver: "dlx crate",
            m: krate,
        });
        if let Some((k, start_up)) = knuth {
            eprintln!("{name}: DLX1 start-up and input {start_up:.4} s (subtracted)");
            rows.push(Row {
                input: name.to_string(),
                solver: "DLX1",
                m: k,
            });
        }
    }
    print_table(&rows);
    print_ratios(&rows);
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<26} {:<9} {:>10} {:>12} {:>13} {:>9} {:>9} {:>10} {:>10}",
        "input",
        "solver",
        "solutions",
        "nodes",
        "updates",
        "best s",
        "median s",
        "Mnodes/s",
        "Mupd/s"
    );
    for r in rows {
        let best = r.m.best();
        println!(
            "{:<26} {:<9} {:>10} {:>12} {:>13} {:>9.4} {:>9.4} {:>10.2} {:>10.2}",
            r.input,
            r.solver,
            r.m.solutions,
            r.m.nodes,
            r.m.updates,
            best,
            r.m.median(),
            r.m.nodes as f64 / best / 1e6,
            r.m.updates as f64 / best / 1e6
        );
    }
}

/// Speed ratios (their best seconds / our best seconds: above 1 means we are faster) and
/// the targets the engine is held to: at least 2 against DLX1 and at least 1.3 against the
/// `dlx` crate on every input.
fn print_ratios(rows: &[Row]) {
    println!(
        "\n{:<26} {:>16} {:>6} {:>16} {:>6}   tree (nodes, updates) vs DLX1",
        "input", "vs dlx crate", "", "vs DLX1", ""
    );
    let mut inputs: Vec<&str> = rows.iter().map(|r| r.input.as_str()).collect();
    inputs.dedup();
    let mut all_met = true;
    for input in inputs {
        let get = |s: &str| rows.iter().find(|r| r.input == input && r.solver == s);
        let Some(ours) = get("ours") else { continue };
        let verdict = |ratio: f64, target: f64| {
            let met = ratio >= target;
            (if met { "ok" } else { "MISSED" }, met)
        };
        let (c_ratio, c_txt) = match get("dlx crate") {
            Some(c) => {
                let r = c.m.best() / ours.m.best();
                let (v, met) = verdict(r, 1.3);
                all_met &= met;
                (format!("{r:.2}x"), v)
            }
            None => ("-".into(), ""),
        };
        let (k_ratio, k_txt, tree) = match get("DLX1") {
            Some(k) => {
                let r = k.m.best() / ours.m.best();
                let (v, met) = verdict(r, 2.0);
                all_met &= met;
                let same = |a: u64, b: u64| {
                    if a == b {
                        "same".to_string()
                    } else {
                        format!("{a} vs {b}")
                    }
                };
                let tree = format!(
                    "nodes {}, updates {}",
                    same(ours.m.nodes, k.m.nodes),
                    same(ours.m.updates, k.m.updates)
                );
                (format!("{r:.2}x"), v, tree)
            }
            None => ("skipped".into(), "", String::new()),
        };
        println!(
            "{:<26} {:>16} {:>6} {:>16} {:>6}   {}",
            input, c_ratio, c_txt, k_ratio, k_txt, tree
        );
    }
    println!(
        "\nratios: their best seconds / our best seconds (targets: >= 1.3 vs the dlx crate, \
         >= 2 vs DLX1){}",
        if all_met {
            "; all measured targets met"
        } else {
            "; SOME TARGETS MISSED"
        }
    );
}
