//! The report as one self-contained HTML file: the verdict first, then per job its tables,
//! its charts (inline SVG from `charts`) and, for benchmarks, the picture of each instance's
//! best verified placement (`cores::domino::to_svg`). No script, no external style, font or
//! image: it reads the same without a network.

use cores::label::Label;
use std::fmt::Write as _;

use super::charts::{bench_charts, count_charts, puzzle_charts, Chart};
use super::figures::seconds;
use super::gap::{self, GapTable};
use super::markup::escape;
use super::model::{BenchReport, CountReport, JobReport, Report, Row};
use super::text;

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}\
table{border-collapse:collapse;margin:1em 0;font-size:14px}\
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}\
th:first-child,td:first-child{text-align:left}\
.verdict{padding:0.8em;font-weight:bold}.ok{background:#e3f4e3}.bad{background:#f8d7d7}.unchecked{background:#fdf3d0}\
figure{margin:1.5em 0}figcaption{font-weight:bold;margin-bottom:0.3em}\
figcaption .caption{font-weight:normal;font-size:14px}\
.boards{display:flex;flex-wrap:wrap;gap:1em}.boards figure{margin:0;width:220px}\
.boards svg{width:220px;height:auto}";

/// The whole page.
pub fn page(report: &Report, title: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        escape(title),
        escape(title)
    );
    let problems = report.problems();
    let class = if !problems.is_empty() {
        "bad"
    } else if !report.unchecked().is_empty() {
        "unchecked"
    } else {
        "ok"
    };
    let _ = write!(s, "<div class=\"verdict {class}\" id=\"verdict\">");
    for (i, line) in text::verdict(report).lines().enumerate() {
        if i > 0 {
            s.push_str("<br>");
        }
        s.push_str(&escape(line.trim()));
    }
    s.push_str("</div>\n");
    counting_glance(&mut s, report);
    for job in &report.jobs {
        if let JobReport::Benchmark(b) = job {
            at_a_glance(&mut s, b);
        }
    }
    for job in &report.jobs {
        match job {
            JobReport::Count(c) => count_section(&mut s, c),
            JobReport::Benchmark(b) => bench_section(&mut s, b),
        }
    }
    s.push_str("</body></html>\n");
    s
}

/// What a reader of counting jobs wants first: one row per job with its total (or why it
/// has none), its orbits where it is an orbit count, what its spec expected and whether it
/// matched, its units, wall time and speed-up over the sum of its unit times. The details
/// (each job's text block and charts) follow.
fn counting_glance(s: &mut String, report: &Report) {
    let jobs: Vec<&CountReport> = report
        .jobs
        .iter()
        .filter_map(|j| match j {
            JobReport::Count(c) => Some(c),
            JobReport::Benchmark(_) => None,
        })
        .collect();
    if jobs.is_empty() {
        return;
    }
    s.push_str("<h2 id=\"glance-counts\">At a glance: counting jobs</h2>\n");
    let rows = jobs.iter().map(|c| {
        let h = &c.head;
        let total = match &c.count {
            Some(sums) => sums.total.clone(),
            None => format!("incomplete ({} of {} units)", c.units_counted, c.units),
        };
        let orbits = c
            .orbits
            .as_ref()
            .map_or("-".to_string(), |o| match (&o.orbits, &o.error) {
                (Some(n), _) => format!("{n} (|G| {})", o.group_order),
                (None, Some(_)) => "does not divide".into(),
                (None, None) => "incomplete".into(),
            });

        vec![
            format!("{} {}", h.id, h.name),
            h.state.as_str().to_string(),
            total,
            orbits,
            c.expected().unwrap_or_else(|| "-".into()),
            text::matched_word(c.matched()).to_string(),
            format!("{}/{}", c.units_counted, c.units),
            seconds(h.wall_seconds),
            c.speedup.map_or("-".into(), |x| format!("{x:.2}x")),
        ]
    });
    table(
        s,
        &[
            "job",
            "state",
            "total",
            "orbits",
            "expected",
            "matched",
            "units",
            "wall time",
            "speed-up",
        ],
        rows,
    );
}

/// What a reader of a domino benchmark wants first: the gap between the best objectives and
/// the best proven bounds (always, one line when every instance is closed), the
/// configurations ranked over all instances (proved, then PAR2, then total time) and the
/// instances no configuration proves.
fn at_a_glance(s: &mut String, b: &BenchReport) {
    let mut ranked: Vec<&Row> = b
        .rows
        .iter()
        .filter(|r| r.difficulty == "all" && r.unavailable < r.runs)
        .collect();
    if ranked.is_empty() && b.gap.is_none() {
        return;
    }
    let h = &b.head;
    let _ = writeln!(
        s,
        "<h2 id=\"glance-{}\">At a glance: job {} ({})</h2>",
        h.id,
        h.id,
        escape(&h.name)
    );
    if let Some(g) = &b.gap {
        gap_section(s, h.id, g);
    }
    if ranked.is_empty() {
        return;
    }
    ranked.sort_by(|x, y| {
        y.optimal
            .cmp(&x.optimal)
            .then(
                x.par2
                    .unwrap_or(f64::MAX)
                    .total_cmp(&y.par2.unwrap_or(f64::MAX)),
            )
            .then(x.total_seconds.total_cmp(&y.total_seconds))
    });
    let _ = writeln!(
        s,
        "<p class=\"glance\"><b>{}</b> wins: {} of {} instances proved, PAR2 {}, {} in all.</p>",
        escape(&ranked[0].config),
        ranked[0].optimal,
        ranked[0].runs,
        ranked[0].par2.map_or("-".into(), seconds),
        seconds(ranked[0].total_seconds)
    );
    table(
        s,
        &["rank", "configuration", "proved", "PAR2", "total time"],
        ranked.iter().enumerate().map(|(i, r)| {
            vec![
                (i + 1).to_string(),
                r.config.clone(),
                format!("{} / {}", r.optimal, r.runs),
                r.par2.map_or("-".into(), seconds),
                seconds(r.total_seconds),
            ]
        }),
    );
    let unproven: Vec<&str> = b
        .best
        .iter()
        .filter(|x| !x.proven)
        .map(|x| x.instance.as_str())
        .collect();
    let _ = writeln!(
        s,
        "<p class=\"glance\">Proved by no configuration: {}.</p>",
        if unproven.is_empty() {
            "none".to_string()
        } else {
            escape(&unproven.join(", "))
        }
    );
}

/// The gap table (`super::gap`): its summary line, and unless every instance is closed the
/// summed gap per configuration and every instance's figures.
fn gap_section(s: &mut String, job: u64, g: &GapTable) {
    let _ = writeln!(
        s,
        "<h3 id=\"gap-{job}\">Gap: best objective against best proven bound</h3>\n\
         <p class=\"gap\">{}</p>",
        escape(&text::gap_summary(g))
    );
    if let Some(line) = gap::certified_summary(g) {
        let _ = writeln!(s, "<p class=\"certified\">{}</p>", escape(&line));
    }
    if let Some(line) = gap::placed_summary(g) {
        let _ = writeln!(s, "<p class=\"certified\">{}</p>", escape(&line));
    }
    if g.all_closed() {
        return;
    }
    table(
        s,
        &[
            "configuration",
            "runs",
            "proven",
            "summed gap",
            "without bound",
        ],
        g.configs.iter().map(|c| {
            if c.unavailable == c.runs {
                return vec![
                    c.config.clone(),
                    c.runs.to_string(),
                    "unavailable".into(),
                    "-".into(),
                    "-".into(),
                ];
            }
            vec![
                c.config.clone(),
                (c.runs - c.unavailable).to_string(),
                c.proven.to_string(),
                c.summed_gap.to_string(),
                c.without_bound.to_string(),
            ]
        }),
    );
    let _ = writeln!(s, "<p class=\"gap-rules\">{}</p>", escape(gap::RULES));
    let mut head = vec!["instance", "difficulty", "best", "bound", "gap", "bound by"];
    head.extend(g.configs.iter().map(|c| c.config.as_str()));
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    table(
        s,
        &head,
        g.instances.iter().map(|x| {
            let mut row = vec![
                x.instance.clone(),
                x.difficulty.clone(),
                opt(x.best_objective.map(|v| v.to_string())),
                opt(x.best_bound.map(|v| v.to_string())),
                opt(x.gap.map(|v| v.to_string())),
                gap::bound_source(x),
            ];
            row.extend(g.cells(x));
            row
        }),
    );
}

fn table(s: &mut String, head: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    s.push_str("<table><tr>");
    for h in head {
        let _ = write!(s, "<th>{}</th>", escape(h));
    }
    s.push_str("</tr>\n");
    for r in rows {
        s.push_str("<tr>");
        for c in r {
            let _ = write!(s, "<td>{}</td>", escape(&c));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
}

fn charts(s: &mut String, job: u64, charts: Vec<Chart>) {
    for c in charts {
        let caption = c.caption.as_deref().map_or(String::new(), |t| {
            format!("<br><span class=\"caption\">{}</span>", escape(t))
        });
        let _ = write!(
            s,
            "<figure class=\"chart\" id=\"job{job}-{}\" data-chart=\"{}\">\
             <figcaption>{}{caption}</figcaption>\n{}\n</figure>\n",
            c.id,
            c.id,
            escape(&c.title),
            c.svg
        );
    }
}

fn count_section(s: &mut String, c: &CountReport) {
    let h = &c.head;
    let _ = writeln!(
        s,
        "<h2 id=\"job{}\">Counting job {}: {}</h2>",
        h.id,
        h.id,
        escape(&h.name)
    );
    let _ = writeln!(s, "<pre>{}</pre>", escape(&text::count_table(c)));
    charts(s, h.id, count_charts(c));
}

fn bench_section(s: &mut String, b: &BenchReport) {
    let h = &b.head;
    let _ = writeln!(
        s,
        "<h2 id=\"job{}\">Benchmark job {}: {}</h2>",
        h.id,
        h.id,
        escape(&h.name)
    );
    let _ = writeln!(
        s,
        "<p>{}, {} current runs on {} instances, {:.1} s; hosts: {}</p>",
        escape(h.state.as_str()),
        b.runs.len(),
        b.instances,
        h.wall_seconds,
        escape(&b.hosts.join(", "))
    );
    if let Some(deaths) = h.deaths_line() {
        let _ = writeln!(s, "<p>Deaths: {}</p>", escape(&deaths));
    }
    if !b.disagreements.is_empty() || !b.wrong.is_empty() {
        s.push_str("<h3>Disagreements and wrong answers</h3><ul>");
        for d in &b.disagreements {
            let _ = write!(s, "<li>contradiction: {}</li>", escape(d));
        }
        for w in &b.wrong {
            let _ = write!(s, "<li>wrong: {}</li>", escape(w));
        }
        s.push_str("</ul>\n");
    }
    if b.family == cores::bench::Family::Sudoku {
        puzzle_section(s, b);
        charts(s, h.id, puzzle_charts(b));
        definitions_section(s, b);
        return;
    }
    s.push_str("<h3>Configuration x difficulty</h3>\n");
    table(
        s,
        &[
            "configuration",
            "difficulty",
            "runs",
            "proven",
            "feasible",
            "timeout",
            "error",
            "unavailable",
            "wrong",
            "median",
            "total",
            "PAR2",
        ],
        b.rows.iter().map(|r| {
            vec![
                r.config.clone(),
                r.difficulty.clone(),
                r.runs.to_string(),
                r.optimal.to_string(),
                r.feasible.to_string(),
                r.timeout.to_string(),
                r.error.to_string(),
                r.unavailable.to_string(),
                r.wrong.to_string(),
                seconds(r.median_seconds),
                seconds(r.total_seconds),
                r.par2.map_or("-".into(), seconds),
            ]
        }),
    );
    charts(s, h.id, bench_charts(b));
    s.push_str("<h3>Best objective per instance</h3>\n");
    let opt = |v: Option<i64>| v.map_or("-".into(), |v| v.to_string());
    table(
        s,
        &[
            "instance",
            "difficulty",
            "best",
            "bound",
            "proven",
            "reached by",
        ],
        b.best.iter().map(|x| {
            vec![
                x.instance.clone(),
                x.difficulty.clone(),
                opt(x.objective),
                opt(x.bound),
                if x.proven { "yes" } else { "no" }.into(),
                x.reached_by.join(", "),
            ]
        }),
    );
    let boards = b.best_placements();
    if !boards.is_empty() {
        s.push_str("<h3>Best verified placements</h3>\n<div class=\"boards\">\n");
        for (inst, rec) in boards {
            let _ = writeln!(
                s,
                "<figure class=\"board\"><figcaption>{}: {} tiles ({})</figcaption>{}</figure>",
                escape(&inst.id),
                rec.placement().len(),
                escape(&rec.config),
                cores::domino::to_svg(inst, rec.placement())
            );
        }
        s.push_str("</div>\n");
    }
    definitions_section(s, b);
}

/// The job's configurations as frozen (declared or built in, engine, definition hash) and
/// the mean of their runs' solver statistics.
fn definitions_section(s: &mut String, b: &BenchReport) {
    if b.definitions.is_empty() {
        return;
    }
    s.push_str("<h3>Configurations and solver statistics</h3>\n");
    let shown = super::model::SHOWN_STATS;
    let mut head = vec!["configuration", "kind", "engine", "definition", "about"];
    head.extend(shown.iter().copied());
    table(
        s,
        &head,
        b.definitions.iter().map(|d| {
            let mut row = vec![
                d.name.clone(),
                if d.declared { "declared" } else { "built-in" }.into(),
                d.engine.clone(),
                d.sha256[..d.sha256.len().min(12)].to_owned(),
                d.about.clone(),
            ];
            row.extend(shown.iter().map(|k| {
                d.stats
                    .get(*k)
                    .map_or("-".into(), |(v, _)| format!("{v:.0}"))
            }));
            row
        }),
    );
}

/// A Sudoku job: configuration x puzzle file, and the hardest puzzles.
fn puzzle_section(s: &mut String, b: &BenchReport) {
    let f = |v: Option<f64>, digits: usize| v.map_or("-".to_owned(), |v| format!("{v:.digits$}"));
    s.push_str("<h3>Configuration x puzzle file</h3>\n");
    table(
        s,
        &[
            "configuration",
            "file",
            "units",
            "unavailable",
            "puzzles",
            "answered",
            "unique",
            "multiple",
            "none",
            "timeout",
            "error",
            "wrong",
            "puzzles/s",
            "median ms",
            "max ms",
            "PS-1-2 searches",
            "tree nodes",
        ],
        b.puzzle_rows.iter().map(|r| {
            vec![
                r.config.clone(),
                r.file.clone(),
                r.units.to_string(),
                r.unavailable_units.to_string(),
                r.puzzles.to_string(),
                r.answered.to_string(),
                r.unique.to_string(),
                r.multiple.to_string(),
                r.none.to_string(),
                r.timeout.to_string(),
                r.error.to_string(),
                r.wrong.to_string(),
                f(r.puzzles_per_second, 0),
                f(r.median_ms, 3),
                f(r.max_ms, 1),
                f(r.mean_searches, 1),
                f(r.mean_tree_nodes, 0),
            ]
        }),
    );
    if !b.hardest.is_empty() {
        s.push_str("<h3>Hardest puzzles of each file (Monte Carlo tree estimate)</h3>\n");
        table(
            s,
            &[
                "file",
                "line",
                "tree nodes",
                "PS-1-2 searches",
                "slowest",
                "seconds",
            ],
            b.hardest.iter().map(|h| {
                vec![
                    h.file.clone(),
                    h.line.to_string(),
                    format!("{:.0}", h.tree_nodes),
                    h.searches.to_string(),
                    h.slowest.clone(),
                    format!("{:.3}", h.slowest_seconds),
                ]
            }),
        );
    }
}
