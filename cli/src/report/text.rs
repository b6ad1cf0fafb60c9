//! A report as text for a terminal (`--format table`) and as CSV (`--format csv`: the rows
//! behind it, one per current benchmark run or per counting unit). Both open with the
//! verdict line: what does not check, or that everything does.

use cores::label::Label;
use std::fmt::Write as _;

use cores::bench::Family;

use super::figures::seconds;
use super::gap::{self, GapTable};
use super::model::{BenchReport, CountReport, JobReport, Quantiles, Report, Row, Sums};

/// The first line of every report: the problems, or that there are none; `UNCHECKED`
/// instead of `CHECKED` when some job's answers were verified by nothing (a MiniZinc suite
/// without a checker), each such job on a line below.
pub fn verdict(report: &Report) -> String {
    let problems = report.problems();
    let unchecked = report.unchecked();
    let mut s = if !problems.is_empty() {
        let mut s = format!("PROBLEMS ({}): the results may be wrong", problems.len());
        for p in &problems {
            let _ = write!(s, "\n  {p}");
        }
        s
    } else if !unchecked.is_empty() {
        "UNCHECKED: no wrong run, no contradiction between configurations, no alarm, but \
         some answers were verified by nothing"
            .into()
    } else {
        "CHECKED: no wrong run, no contradiction between configurations, no alarm".into()
    };
    for u in &unchecked {
        let _ = write!(s, "\n  unchecked: {u}");
    }
    s
}

/// `--format table`.
pub fn table(report: &Report) -> String {
    let mut out = verdict(report);
    out.push('\n');
    for job in &report.jobs {
        out.push('\n');
        match job {
            JobReport::Count(c) => out.push_str(&count_table(c)),
            JobReport::Benchmark(b) => out.push_str(&bench_table(b)),
        }
    }
    out
}

fn quantiles(q: &Option<Quantiles>, unit: &str) -> String {
    match q {
        Some(q) => format!(
            "min {:.3}{unit}, q1 {:.3}{unit}, median {:.3}{unit}, q3 {:.3}{unit}, max {:.3}{unit}",
            q.min, q.q1, q.median, q.q3, q.max
        ),
        None => "none".into(),
    }
}

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref().map_or("-".into(), |v| v.to_string())
}

/// `matched`, `DIFFERS` or `-` (nothing expected, or no result yet).
pub fn matched_word(m: Option<bool>) -> &'static str {
    match m {
        Some(true) => "matched",
        Some(false) => "DIFFERS",
        None => "-",
    }
}

pub fn count_table(c: &CountReport) -> String {
    let h = &c.head;
    let mut s = format!(
        "counting job {} ({}): {}, {:.2} s\n",
        h.id,
        h.name,
        h.state.as_str(),
        h.wall_seconds
    );
    let (sums, complete) = c.sums();
    let (weighted, total, counted) = (&sums.weighted_total, &sums.total, &sums.counted);
    let what = if c.weighted {
        format!("{weighted} (sum of weight x count; the counts alone sum to {counted})")
    } else {
        format!("{counted} counted")
    };
    if !complete {
        let _ = writeln!(
            s,
            "  total        incomplete: {} of {} units counted, the job is {}; not a count \
             (so far: {total} = {what} x symmetry factor {})",
            c.units_counted,
            c.units,
            h.state.as_str(),
            c.symmetry_factor
        );
    } else if c.symmetry_factor == "1" {
        let _ = writeln!(s, "  total        {total}: {what}");
    } else {
        let _ = writeln!(
            s,
            "  total        {total} = {what} x symmetry factor {}",
            c.symmetry_factor
        );
    }
    if let Some(o) = &c.orbits {
        let _ = writeln!(
            s,
            "  orbits       {} (sum of class size x term over the group's order {})",
            match (&o.orbits, &o.error) {
                (Some(n), _) => n.clone(),
                (None, Some(e)) => format!("none: {e}"),
                (None, None) => "incomplete".into(),
            },
            o.group_order
        );
    }
    if let Some(want) = c.expected() {
        let _ = writeln!(s, "  expected     {want}: {}", matched_word(c.matched()));
    }
    let _ = writeln!(
        s,
        "  units        {} ({} counted); nodes {}, updates {}",
        c.units, c.units_counted, c.nodes, c.updates
    );
    if let Some(deaths) = h.deaths_line() {
        let _ = writeln!(s, "  deaths       {deaths}");
    }
    let _ = writeln!(
        s,
        "  estimate     estimated / measured nodes per unit: {}",
        quantiles(&c.estimate_ratio, "")
    );
    let _ = writeln!(s, "  unit time    {}", quantiles(&c.unit_seconds, " s"));
    let _ = writeln!(
        s,
        "  balance      longest / median unit time: {}",
        c.balance.map_or("-".into(), |b| format!("{b:.2}"))
    );
    let _ = writeln!(
        s,
        "  speed-up     {:.2} s of unit time in {:.2} s of wall time: {}",
        c.sum_unit_seconds,
        h.wall_seconds,
        c.speedup.map_or("-".into(), |x| format!("{x:.2}"))
    );
    let _ = writeln!(
        s,
        "  {:<24} {:<16} {:>7} {:>10} {:>7}",
        "worker", "host", "units", "seconds", "share"
    );
    for w in &c.workers {
        let _ = writeln!(
            s,
            "  {:<24} {:<16} {:>7} {:>10.3} {:>6.1}%",
            w.worker,
            w.host,
            w.units,
            w.seconds,
            100.0 * w.share
        );
    }
    s
}

/// The configuration x difficulty table.
pub fn rows_table(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<19} {:<7} {:>5} {:>7} {:>8} {:>7} {:>6} {:>6} {:>10} {:>10} {:>10}\n",
        "configuration",
        "diff",
        "runs",
        "proven",
        "feasible",
        "timeout",
        "error",
        "wrong",
        "median",
        "total",
        "PAR2"
    );
    for r in rows {
        if r.unavailable == r.runs {
            let _ = writeln!(
                out,
                "{:<19} {:<7} {:>5}  unavailable on the workers",
                r.config, r.difficulty, r.runs
            );
            continue;
        }
        let _ = writeln!(
            out,
            "{:<19} {:<7} {:>5} {:>7} {:>8} {:>7} {:>6} {:>6} {:>10} {:>10} {:>10}",
            r.config,
            r.difficulty,
            r.runs,
            r.optimal,
            r.feasible,
            r.timeout,
            r.error + r.unavailable,
            r.wrong,
            seconds(r.median_seconds),
            seconds(r.total_seconds),
            r.par2.map_or("-".into(), seconds)
        );
    }
    out
}

pub fn bench_table(b: &BenchReport) -> String {
    let h = &b.head;
    let mut s = format!(
        "benchmark job {} ({}): {}, {} current runs on {} instances, {:.2} s (hosts: {})\n",
        h.id,
        h.name,
        h.state.as_str(),
        b.runs.len(),
        b.instances,
        h.wall_seconds,
        b.hosts.join(", ")
    );
    if let Some(deaths) = h.deaths_line() {
        let _ = writeln!(s, "deaths: {deaths}");
    }
    for d in &b.disagreements {
        let _ = writeln!(s, "CONTRADICTION {d}");
    }
    for w in &b.wrong {
        let _ = writeln!(s, "WRONG {w}");
    }
    if b.family == Family::Sudoku {
        s.push_str(&puzzle_table(b));
        s.push_str(&definitions_table(b));
        return s;
    }
    if let Some(g) = &b.gap {
        s.push_str(&gap_table(g));
    }
    s.push_str(&rows_table(&b.rows));
    if b.rows.iter().any(|r| r.config == "native") {
        let missing = b.proven_elsewhere("native");
        if missing.is_empty() {
            s.push_str("native proves every instance that any configuration proves\n");
        } else {
            let _ = writeln!(
                s,
                "proven by another configuration but not by native: {}",
                missing.join(", ")
            );
        }
    }
    let _ = writeln!(
        s,
        "{:<12} {:<7} {:>5} {:>5} {:<7} reached by",
        "instance", "diff", "best", "bound", "proven"
    );
    for x in &b.best {
        let _ = writeln!(
            s,
            "{:<12} {:<7} {:>5} {:>5} {:<7} {}",
            x.instance,
            x.difficulty,
            opt(&x.objective),
            opt(&x.bound),
            if x.proven { "yes" } else { "no" },
            x.reached_by.join(", ")
        );
    }
    s.push_str(&definitions_table(b));
    s
}

/// The job's configurations as frozen: declared or built in, engine, definition hash, and
/// the mean of the solver statistics their runs report.
pub fn definitions_table(b: &BenchReport) -> String {
    let mut s = String::new();
    if b.definitions.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "{:<22} {:<9} {:<26} {:<12} solver statistics (mean over runs)",
        "configuration", "kind", "engine", "definition"
    );
    for d in &b.definitions {
        let stats: Vec<String> = super::model::SHOWN_STATS
            .iter()
            .filter_map(|k| d.stats.get(*k).map(|(v, _)| format!("{k} {v:.0}")))
            .collect();
        let line = format!(
            "{:<22} {:<9} {:<26} {:<12} {}",
            d.name,
            if d.declared { "declared" } else { "built-in" },
            d.engine,
            &d.sha256[..d.sha256.len().min(12)],
            if stats.is_empty() {
                "-".to_owned()
            } else {
                stats.join(", ")
            }
        );
        let _ = writeln!(s, "{}", line.trim_end());
    }
    s
}

/// The first line of a gap table: every instance closed, or how many are not and which.
pub fn gap_summary(g: &GapTable) -> String {
    let n = g.instances.len();
    let by: Vec<String> = g
        .provenances()
        .iter()
        .map(|(b, k)| format!("{b} {k}"))
        .collect();
    let by = by.join(", ");
    if g.all_closed() {
        return format!(
            "gap: every instance is closed (best objective = best bound on all {n}; bounds by \
             {by})"
        );
    }
    let gaps = |ids: &[String]| -> String {
        let each: Vec<String> = ids
            .iter()
            .filter_map(|id| g.instances.iter().find(|x| &x.instance == id))
            .map(|x| {
                format!(
                    "{} ({} < {})",
                    x.instance,
                    opt(&x.best_objective),
                    opt(&x.best_bound)
                )
            })
            .collect();
        each.join(", ")
    };
    let mut s = format!(
        "gap: {} of {n} instances closed by no configuration (best objective < best bound): {}; \
         bounds by {by}",
        g.unclosed.len(),
        if g.unclosed.is_empty() {
            "none".into()
        } else {
            gaps(&g.unclosed)
        }
    );
    if !g.contradicted.is_empty() {
        let _ = write!(
            s,
            "; contradicted (best bound below best objective): {}",
            g.contradicted.join(", ")
        );
    }
    s
}

/// The gap table (see `super::gap`): one line when every instance is closed, else the
/// summary, the summed gap per configuration and every instance's figures.
pub fn gap_table(g: &GapTable) -> String {
    let mut s = gap_summary(g);
    s.push('\n');
    if let Some(line) = gap::certified_summary(g) {
        let _ = writeln!(s, "{line}");
    }
    if let Some(line) = gap::placed_summary(g) {
        let _ = writeln!(s, "{line}");
    }
    if g.all_closed() {
        return s;
    }
    let _ = writeln!(
        s,
        "{:<19} {:>5} {:>7} {:>11} {:>14}",
        "configuration", "runs", "proven", "summed gap", "without bound"
    );
    for c in &g.configs {
        if c.unavailable == c.runs {
            let _ = writeln!(
                s,
                "{:<19} {:>5}  unavailable on the workers",
                c.config, c.runs
            );
            continue;
        }
        let _ = writeln!(
            s,
            "{:<19} {:>5} {:>7} {:>11} {:>14}",
            c.config,
            c.runs - c.unavailable,
            c.proven,
            c.summed_gap,
            c.without_bound
        );
    }
    let _ = writeln!(s, "{}", gap::RULES);
    let sources: Vec<String> = g.instances.iter().map(gap::bound_source).collect();
    let source_width = sources.iter().map(String::len).fold(8, usize::max);
    let cells: Vec<Vec<String>> = g.instances.iter().map(|x| g.cells(x)).collect();
    let widths: Vec<usize> = g
        .configs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            cells
                .iter()
                .map(|row| row[i].len())
                .fold(c.config.len(), usize::max)
        })
        .collect();
    let _ = write!(
        s,
        "{:<12} {:<7} {:>5} {:>5} {:>4} {:<source_width$}",
        "instance", "diff", "best", "bound", "gap", "bound by"
    );
    for (c, w) in g.configs.iter().zip(&widths) {
        let _ = write!(s, "  {:<w$}", c.config);
    }
    trim_line(&mut s);
    for ((x, source), row) in g.instances.iter().zip(&sources).zip(&cells) {
        let _ = write!(
            s,
            "{:<12} {:<7} {:>5} {:>5} {:>4} {:<source_width$}",
            x.instance,
            x.difficulty,
            opt(&x.best_objective),
            opt(&x.best_bound),
            opt(&x.gap),
            source
        );
        for (cell, w) in row.iter().zip(&widths) {
            let _ = write!(s, "  {cell:<w$}");
        }
        trim_line(&mut s);
    }
    s
}

/// Ends the line being written: without the padding of its last column.
fn trim_line(s: &mut String) {
    s.truncate(s.trim_end_matches(' ').len());
    s.push('\n');
}

/// The Sudoku table (configuration x puzzle file) and the hardest puzzles.
pub fn puzzle_table(b: &BenchReport) -> String {
    let f = |v: Option<f64>, digits: usize| v.map_or("-".to_owned(), |v| format!("{v:.digits$}"));
    let mut s = format!(
        "{:<13} {:<38} {:>6} {:>8} {:>8} {:>6} {:>5} {:>5} {:>7} {:>5} {:>5} {:>11} {:>9} {:>9} {:>8} {:>10}\n",
        "configuration",
        "file",
        "units",
        "puzzles",
        "answered",
        "unique",
        "multi",
        "none",
        "timeout",
        "error",
        "wrong",
        "puzzles/s",
        "median ms",
        "max ms",
        "searches",
        "tree nodes"
    );
    for r in &b.puzzle_rows {
        if r.unavailable_units == r.units {
            let _ = writeln!(
                s,
                "{:<13} {:<38} {:>6}  unavailable on the workers",
                r.config, r.file, r.units
            );
            continue;
        }
        let _ = writeln!(
            s,
            "{:<13} {:<38} {:>6} {:>8} {:>8} {:>6} {:>5} {:>5} {:>7} {:>5} {:>5} {:>11} {:>9} {:>9} {:>8} {:>10}",
            r.config,
            r.file,
            r.units,
            r.puzzles,
            r.answered,
            r.unique,
            r.multiple,
            r.none,
            r.timeout,
            r.error,
            r.wrong,
            f(r.puzzles_per_second, 0),
            f(r.median_ms, 3),
            f(r.max_ms, 1),
            f(r.mean_searches, 1),
            f(r.mean_tree_nodes, 0)
        );
    }
    if !b.hardest.is_empty() {
        let _ = writeln!(
            s,
            "hardest puzzles of each file (Monte Carlo tree estimate):\n{:<38} {:>7} {:>12} {:>8}  slowest",
            "file", "line", "tree nodes", "searches"
        );
        for h in &b.hardest {
            let _ = writeln!(
                s,
                "{:<38} {:>7} {:>12.0} {:>8}  {} {:.3} s",
                h.file, h.line, h.tree_nodes, h.searches, h.slowest, h.slowest_seconds
            );
        }
    }
    s
}

/// A CSV field, quoted when it needs to be.
pub fn field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// `--format csv`: after the verdict (a `#` line), one row per current benchmark run, or per
/// unit of a counting job.
pub fn csv(report: &Report) -> String {
    let mut out = String::new();
    for line in verdict(report).lines() {
        let _ = writeln!(out, "# {}", line.trim());
    }
    for job in &report.jobs {
        match job {
            JobReport::Count(c) => out.push_str(&count_csv(c)),
            JobReport::Benchmark(b) => out.push_str(&bench_csv(b)),
        }
    }
    out
}

fn count_csv(c: &CountReport) -> String {
    let mut s = String::from(
        "job,kind,state,units,units_counted,counted,weighted_total,symmetry_factor,total,nodes,\
         updates,estimate_ratio_median,unit_seconds_median,balance,sum_unit_seconds,\
         wall_seconds,speedup,workers\n",
    );
    let f3 = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.3}"));
    // The totals of a finished job only: an unfinished one's sums are not counts.
    let count =
        |f: fn(&Sums) -> &String| c.count.as_ref().map(|s| f(s).clone()).unwrap_or_default();
    let _ = writeln!(
        s,
        "{},count,{},{},{},{},{},{},{},{},{},{},{},{},{:.3},{:.3},{},{}",
        c.head.id,
        c.head.state.as_str(),
        c.units,
        c.units_counted,
        count(|s| &s.counted),
        count(|s| &s.weighted_total),
        c.symmetry_factor,
        count(|s| &s.total),
        c.nodes,
        c.updates,
        f3(c.estimate_ratio.map(|q| q.median)),
        f3(c.unit_seconds.map(|q| q.median)),
        f3(c.balance),
        c.sum_unit_seconds,
        c.head.wall_seconds,
        f3(c.speedup),
        c.workers.len()
    );
    s
}

fn bench_csv(b: &BenchReport) -> String {
    let mut s = String::from(
        "job,family,instance,batch,difficulty,n,tiles,config,status,termination,objective,bound,\
         bound_by,puzzles,answered,puzzles_per_second,wall_seconds,cpu_seconds,time_limit_seconds,\
         solver_version,host,dancehall_version\n",
    );
    for r in &b.runs {
        let rec = &r.record;
        let sudoku = rec.family() == Family::Sudoku;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3},{},{},{},{},{}",
            b.head.id,
            rec.family(),
            field(&rec.instance),
            field(&r.batch),
            r.difficulty.map_or("", |d| d.as_str()),
            r.n.map_or(String::new(), |n| n.to_string()),
            r.tiles.map_or(String::new(), |t| t.to_string()),
            field(&rec.config),
            rec.status,
            rec.termination,
            rec.objective().map_or(String::new(), |v| v.to_string()),
            rec.bound().map_or(String::new(), |v| v.to_string()),
            rec.bound_by().map_or("", |b| b.as_str()),
            sudoku
                .then(|| rec.puzzles().len())
                .map_or(String::new(), |n| n.to_string()),
            sudoku
                .then(|| rec
                    .puzzles()
                    .iter()
                    .filter(|p| p.status.is_answer())
                    .count())
                .map_or(String::new(), |n| n.to_string()),
            cores::sudoku::bench::puzzles_per_second(rec.puzzles())
                .map_or(String::new(), |v| format!("{v:.1}")),
            rec.wall_seconds,
            rec.cpu_seconds.map_or(String::new(), |c| format!("{c:.3}")),
            rec.time_limit_seconds,
            field(&rec.solver_version),
            field(&rec.host.hostname),
            field(&rec.host.dancehall_version)
        );
    }
    s
}
