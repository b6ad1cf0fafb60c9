//! The report's charts, drawn with `plotters` into SVG text for inlining in the HTML page:
//! seed 001's four analysis figures (time by configuration and difficulty, time against board
//! size, time against number of tiles, distribution of times per configuration) and its figure
//! 9 (mean time per configuration on the hardest difficulty of the job, unproven runs at their
//! limit), a cactus plot
//! (instances proven against time, as solver competitions draw it), a log-log scatter of one
//! configuration against another with unproven runs on the edge; for a Sudoku job, a cactus
//! plot of puzzles answered against each puzzle's solver time and puzzles per second by
//! configuration and file; for counting jobs, estimated against measured nodes per unit and
//! the workers' shares.
//!
//! Times are wall seconds of current runs; runs of unavailable configurations are left out.
//! Log axes start at 1 ms: faster runs are drawn at 1 ms.

use cores::label::Label;
use std::collections::BTreeMap;

use plotters::chart::SeriesLabelStyle;
use plotters::coord::CoordTranslate;
use plotters::prelude::*;

use super::figures;
use super::model::{configs, BenchReport, CountReport, Quantiles, Run};
use cores::bench::Status;
use cores::domino::Difficulty;

/// One chart: an id (the HTML anchor), a title, the SVG text and what a reader must know to
/// read it (how it counts), when the title cannot say it all.
pub struct Chart {
    pub id: &'static str,
    pub title: String,
    pub svg: String,
    pub caption: Option<String>,
}

const SIZE: (u32, u32) = (760, 420);
const FLOOR: f64 = 1e-3;
const FONT: &str = "sans-serif";

type Draw = Result<(), Box<dyn std::error::Error>>;

fn draw(id: &'static str, title: &str, f: impl FnOnce(&mut String) -> Draw) -> Chart {
    let mut svg = String::new();
    if let Err(e) = f(&mut svg) {
        svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"60\">\
             <text x=\"10\" y=\"30\">chart not drawn: {}</text></svg>",
            SIZE.0,
            super::markup::escape(&e.to_string())
        );
    }
    Chart {
        id,
        title: title.to_owned(),
        svg,
        caption: None,
    }
}

/// The legend as every chart draws it: top left, on a white box.
fn legend<'s, 'a, 'b, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    labels: &'s mut SeriesLabelStyle<'a, 'b, DB, CT>,
) -> &'s mut SeriesLabelStyle<'a, 'b, DB, CT> {
    labels
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT, 12))
}

fn colour(i: usize) -> RGBColor {
    const C: [RGBColor; 10] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
    ];
    C[i % C.len()]
}

fn seconds(r: &Run) -> f64 {
    r.record.wall_seconds.max(FLOOR)
}

/// The runs that measured something (not `unavailable`), by configuration in report order.
fn measured(b: &BenchReport) -> Vec<(String, Vec<&Run>)> {
    configs(&b.runs)
        .into_iter()
        .map(|c| {
            let rs: Vec<&Run> = b
                .runs
                .iter()
                .filter(|r| r.record.config == c && r.record.status != Status::Unavailable)
                .collect();
            (c, rs)
        })
        .filter(|(_, rs)| !rs.is_empty())
        .collect()
}

/// A configuration's name and its measured runs.
type Series<'r> = (String, Vec<&'r Run>);

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Every chart of a benchmark job: a domino job's by difficulty, board size and tiles too;
/// a MiniZinc suite's (no difficulty, no board) the distribution, cactus and scatter charts.
pub fn bench_charts(b: &BenchReport) -> Vec<Chart> {
    let data = measured(b);
    let limit = b
        .runs
        .iter()
        .map(|r| r.record.time_limit_seconds)
        .fold(1.0, f64::max);
    if b.family == cores::bench::Family::MznSuite {
        return vec![
            distribution(&data, limit),
            cactus(&data, limit),
            scatter(&data, limit),
        ];
    }
    let mut charts = vec![
        by_difficulty(&data),
        by_size(
            &data,
            "time-by-board-size",
            "Mean time against board size (n x n)",
            "board side n",
            |r| r.n.map(|n| n as f64),
        ),
        by_size(
            &data,
            "time-by-tiles",
            "Mean time against number of tiles",
            "tiles",
            |r| r.tiles.map(|t| t as f64),
        ),
        distribution(&data, limit),
        on_hardest(&data),
        cactus(&data, limit),
    ];
    charts.push(scatter(&data, limit));
    charts
}

/// Points of a cactus line at most (a Sudoku configuration answers tens of thousands of
/// puzzles; the sorted times are sampled at evenly spaced ranks, the last one included).
const CACTUS_POINTS: usize = 400;

/// Every chart of a Sudoku benchmark job.
pub fn puzzle_charts(b: &BenchReport) -> Vec<Chart> {
    let data = measured(b);
    vec![puzzle_cactus(&data), puzzle_rates(b)]
}

/// Puzzles answered against each puzzle's solver seconds, per configuration (log time).
fn puzzle_cactus(data: &[(String, Vec<&Run>)]) -> Chart {
    draw(
        "puzzle-cactus",
        "Cactus plot: puzzles answered within a solver time per puzzle",
        |svg| {
            let times: Vec<(String, Vec<f64>)> = data
                .iter()
                .map(|(name, rs)| {
                    let mut t: Vec<f64> = rs
                        .iter()
                        .flat_map(|r| r.record.puzzles())
                        .filter(|p| p.status.is_answer())
                        .map(|p| p.seconds.max(1e-6))
                        .collect();
                    t.sort_by(f64::total_cmp);
                    (name.clone(), t)
                })
                .collect();
            let most = times.iter().map(|(_, t)| t.len()).max().unwrap_or(1).max(1);
            let slowest = times
                .iter()
                .flat_map(|(_, t)| t.last().copied())
                .fold(1e-3, f64::max);
            let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d(0.0..most as f64 * 1.02, (1e-6..slowest * 2.0).log_scale())?;
            chart
                .configure_mesh()
                .x_desc("puzzles answered")
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_desc("solver seconds per puzzle (log)")
                .label_style((FONT, 13))
                .draw()?;
            for (i, (name, t)) in times.iter().enumerate() {
                let step = t.len().div_ceil(CACTUS_POINTS).max(1);
                let mut pts: Vec<(f64, f64)> = (0..t.len())
                    .step_by(step)
                    .map(|k| ((k + 1) as f64, t[k]))
                    .collect();
                if let Some(&last) = t.last() {
                    pts.push((t.len() as f64, last));
                }
                let c = colour(i);
                chart
                    .draw_series(LineSeries::new(pts, c.stroke_width(2)))?
                    .label(format!("{name} ({})", t.len()))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                    });
            }
            legend(&mut chart.configure_series_labels()).draw()?;
            root.present()?;
            Ok(())
        },
    )
}

/// Puzzles per second of each configuration on each puzzle file (log scale), from the
/// report's table.
fn puzzle_rates(b: &BenchReport) -> Chart {
    draw(
        "puzzle-rates",
        "Puzzles per second by configuration and puzzle file",
        |svg| {
            let rows: Vec<_> = b.puzzle_rows.iter().filter(|r| r.file != "all").collect();
            let mut files: Vec<&str> = Vec::new();
            let mut names: Vec<&str> = Vec::new();
            for r in &rows {
                if !files.contains(&r.file.as_str()) {
                    files.push(&r.file);
                }
                if !names.contains(&r.config.as_str()) {
                    names.push(&r.config);
                }
            }
            let rate = |c: &str, f: &str| {
                rows.iter()
                    .find(|r| r.config == c && r.file == f)
                    .and_then(|r| r.puzzles_per_second)
            };
            let top = rows
                .iter()
                .filter_map(|r| r.puzzles_per_second)
                .fold(10.0, f64::max);
            let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(64)
                // Three decades of headroom keep the bars below the legend.
                .build_cartesian_2d(
                    0.0..files.len().max(1) as f64,
                    (1.0..top * 1000.0).log_scale(),
                )?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_desc("puzzles per second (log)")
                .y_label_formatter(&|y| format!("{y:.0}"))
                .label_style((FONT, 13))
                .draw()?;
            let width = 0.8 / names.len().max(1) as f64;
            for (i, name) in names.iter().enumerate() {
                let c = colour(i);
                chart
                    .draw_series(files.iter().enumerate().filter_map(|(f, file)| {
                        let v = rate(name, file)?;
                        let x0 = f as f64 + 0.1 + i as f64 * width;
                        Some(Rectangle::new(
                            [(x0, 1.0), (x0 + width * 0.9, v)],
                            c.filled(),
                        ))
                    }))?
                    .label(name.to_string())
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled())
                    });
            }
            for (f, file) in files.iter().enumerate() {
                let short: String = file.trim_end_matches(".txt").chars().take(24).collect();
                chart.draw_series(std::iter::once(Text::new(
                    short,
                    (f as f64 + 0.1, 1.0),
                    (FONT, 12).into_font(),
                )))?;
            }
            legend(&mut chart.configure_series_labels()).draw()?;
            root.present()?;
            Ok(())
        },
    )
}

/// Seed 001's figure 5: mean time by configuration and difficulty.
fn by_difficulty(data: &[(String, Vec<&Run>)]) -> Chart {
    draw(
        "time-by-difficulty",
        "Mean time by configuration and difficulty",
        |svg| {
            let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
            root.fill(&WHITE)?;
            let groups = Difficulty::ALL.len() as f64;
            let means: Vec<Vec<f64>> = data
                .iter()
                .map(|(_, rs)| {
                    Difficulty::ALL
                        .iter()
                        .map(|d| {
                            let t: Vec<f64> = rs
                                .iter()
                                .filter(|r| r.difficulty == Some(*d))
                                .map(|r| r.record.wall_seconds)
                                .collect();
                            mean(&t)
                        })
                        .collect()
                })
                .collect();
            let top = means.iter().flatten().fold(0.0f64, |a, &b| a.max(b)) * 1.15 + 1e-3;
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(56)
                .build_cartesian_2d(0.0..groups, 0.0..top)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_desc("mean wall seconds")
                .label_style((FONT, 13))
                .draw()?;
            let width = 0.8 / data.len().max(1) as f64;
            for (i, ((name, _), m)) in data.iter().zip(&means).enumerate() {
                let c = colour(i);
                chart
                    .draw_series(m.iter().enumerate().map(|(d, &v)| {
                        let x0 = d as f64 + 0.1 + i as f64 * width;
                        Rectangle::new([(x0, 0.0), (x0 + width * 0.9, v)], c.filled())
                    }))?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled())
                    });
            }
            for (d, diff) in Difficulty::ALL.iter().enumerate() {
                chart.draw_series(std::iter::once(Text::new(
                    diff.as_str(),
                    (d as f64 + 0.45, -top * 0.02),
                    (FONT, 14).into_font(),
                )))?;
            }
            legend(&mut chart.configure_series_labels()).draw()?;
            root.present()?;
            Ok(())
        },
    )
}

/// The hardest difficulty any of `data`'s runs has: the last of `Difficulty::ALL` (which
/// lists them easiest first) present, so `tight` when a job has tight instances, else `hard`.
fn hardest(data: &[Series]) -> Option<Difficulty> {
    Difficulty::ALL.iter().copied().rev().find(|&d| {
        data.iter()
            .any(|(_, rs)| rs.iter().any(|r| r.difficulty == Some(d)))
    })
}

/// A run's time in figure 9: its wall time when it proved its instance optimal (at most its
/// limit), else its time limit (a time-out, or a run that ended unproven for another reason).
fn at_limit(r: &Run) -> f64 {
    let limit = r.record.time_limit_seconds;
    if r.record.status.is_finished() {
        r.record.wall_seconds.min(limit)
    } else {
        limit
    }
}

/// Seed 001's figure 9 ("Further Considerations"): mean time per configuration on the much
/// harder instances (the job's hardest difficulty, [`hardest`]), one bar per configuration,
/// unproven runs counted at their time limit (the dashed line).
fn on_hardest(data: &[Series]) -> Chart {
    let hard = hardest(data);
    let name = hard.map_or("hardest", Difficulty::as_str);
    let bars: Vec<(&str, Vec<&Run>)> = data
        .iter()
        .map(|(c, rs)| {
            let on: Vec<&Run> = rs
                .iter()
                .copied()
                .filter(|r| hard.is_some() && r.difficulty == hard)
                .collect();
            (c.as_str(), on)
        })
        .filter(|(_, rs)| !rs.is_empty())
        .collect();
    let runs: Vec<&Run> = bars.iter().flat_map(|(_, rs)| rs.iter().copied()).collect();
    let instances: std::collections::BTreeSet<&str> =
        runs.iter().map(|r| r.record.instance.as_str()).collect();
    let unproven = runs
        .iter()
        .filter(|r| !r.record.status.is_finished())
        .count();
    let limit = runs
        .iter()
        .map(|r| r.record.time_limit_seconds)
        .fold(0.0, f64::max);
    let title = format!("Mean time per configuration on the {name} instances (seed 001, figure 9)");
    let mut chart = draw("time-hardest", &title, |svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let means: Vec<f64> = bars
            .iter()
            .map(|(_, rs)| mean(&rs.iter().map(|r| at_limit(r)).collect::<Vec<_>>()))
            .collect();
        let top = means.iter().fold(limit, |a, &b| a.max(b)) * 1.15 + 1e-3;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..bars.len().max(1) as f64, 0.0..top)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("mean wall seconds (unproven: the limit)")
            .label_style((FONT, 13))
            .draw()?;
        if limit > 0.0 {
            chart.draw_series(DashedLineSeries::new(
                [(0.0, limit), (bars.len() as f64, limit)],
                6,
                4,
                RED.mix(0.6).stroke_width(1),
            ))?;
        }
        for (i, ((config, _), &m)) in bars.iter().zip(&means).enumerate() {
            let x = i as f64;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x + 0.15, 0.0), (x + 0.85, m)],
                colour(i).filled(),
            )))?;
            chart.draw_series(std::iter::once(Text::new(
                figures::seconds(m),
                (x + 0.15, m + top * 0.03),
                (FONT, 11).into_font(),
            )))?;
            chart.draw_series(std::iter::once(Text::new(
                config.to_string(),
                (x + 0.15, -top * 0.02),
                (FONT, 11).into_font(),
            )))?;
        }
        root.present()?;
        Ok(())
    });
    chart.caption = Some(match hard {
        None => "no run has an instance of a known difficulty".into(),
        Some(_) => format!(
            "{} {name} instances, {} runs; time-outs counted at the limit: a run that did not \
             prove its instance optimal counts as its time limit ({}, the dashed line; {unproven} \
             such runs); unavailable configurations left out",
            instances.len(),
            runs.len(),
            figures::seconds(limit)
        ),
    });
    chart
}

/// Seed 001's figures 6 and 7: mean time per value of `key`, one line per configuration.
fn by_size(
    data: &[(String, Vec<&Run>)],
    id: &'static str,
    title: &str,
    x_desc: &str,
    key: impl Fn(&Run) -> Option<f64>,
) -> Chart {
    draw(id, title, |svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let lines: Vec<(String, Vec<(f64, f64)>)> = data
            .iter()
            .map(|(name, rs)| {
                let mut by: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
                for r in rs {
                    if let Some(k) = key(r) {
                        by.entry(k as u64).or_default().push(seconds(r));
                    }
                }
                let pts = by.into_iter().map(|(k, t)| (k as f64, mean(&t))).collect();
                (name.clone(), pts)
            })
            .collect();
        let xs = lines.iter().flat_map(|(_, p)| p.iter().map(|q| q.0));
        let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let (lo, hi) = if lo > hi {
            (0.0, 1.0)
        } else {
            (lo - 0.5, hi + 0.5)
        };
        let top = lines
            .iter()
            .flat_map(|(_, p)| p.iter().map(|q| q.1))
            .fold(FLOOR * 10.0, f64::max)
            * 2.0;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, (FLOOR..top).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            // Board sides and tile counts are whole numbers: label the whole ticks only.
            .x_label_formatter(&|x: &f64| {
                if (x - x.round()).abs() < 1e-9 {
                    format!("{}", x.round() as i64)
                } else {
                    String::new()
                }
            })
            .y_desc("mean wall seconds (log)")
            .label_style((FONT, 13))
            .draw()?;
        for (i, (name, pts)) in lines.iter().enumerate() {
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                });
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
        }
        legend(&mut chart.configure_series_labels()).draw()?;
        root.present()?;
        Ok(())
    })
}

/// Seed 001's figure 8: the distribution of times per configuration (box and whiskers: min,
/// quartiles, max; log scale).
fn distribution(data: &[(String, Vec<&Run>)], limit: f64) -> Chart {
    draw(
        "time-distribution",
        "Distribution of times per configuration",
        |svg| {
            let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
            root.fill(&WHITE)?;
            let n = data.len().max(1) as f64;
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(60)
                .build_cartesian_2d(0.0..n, (FLOOR..limit * 2.0).log_scale())?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_desc("wall seconds (log)")
                .label_style((FONT, 13))
                .draw()?;
            for (i, (name, rs)) in data.iter().enumerate() {
                let t: Vec<f64> = rs.iter().map(|r| seconds(r)).collect();
                let Some(q) = Quantiles::of(&t) else { continue };
                let c = colour(i);
                let x = i as f64 + 0.5;
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x, q.min), (x, q.max)],
                    c.stroke_width(1),
                )))?;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x - 0.3, q.q1), (x + 0.3, q.q3)],
                    c.mix(0.35).filled(),
                )))?;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x - 0.3, q.q1), (x + 0.3, q.q3)],
                    c.stroke_width(1),
                )))?;
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x - 0.3, q.median), (x + 0.3, q.median)],
                    BLACK.stroke_width(2),
                )))?;
                chart.draw_series(std::iter::once(Text::new(
                    name.clone(),
                    (i as f64 + 0.1, FLOOR * 1.2),
                    (FONT, 11).into_font(),
                )))?;
            }
            root.present()?;
            Ok(())
        },
    )
}

/// A cactus plot: for each configuration, its proven runs sorted by time; x is how many
/// instances it proved within y seconds.
fn cactus(data: &[(String, Vec<&Run>)], limit: f64) -> Chart {
    draw(
        "cactus",
        "Cactus plot: instances proven (optimal, or a satisfaction answer or unsatisfiability) within a time",
        |svg| {
            let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
            root.fill(&WHITE)?;
            let most = data
                .iter()
                .map(|(_, rs)| rs.len())
                .max()
                .unwrap_or(1)
                .max(1);
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d(0.0..most as f64 + 1.0, (FLOOR..limit * 2.0).log_scale())?;
            chart
                .configure_mesh()
                .x_desc("instances proven")
                .y_desc("wall seconds (log)")
                .label_style((FONT, 13))
                .draw()?;
            for (i, (name, rs)) in data.iter().enumerate() {
                let mut t: Vec<f64> = rs
                    .iter()
                    .filter(|r| r.record.status.is_finished())
                    .map(|r| seconds(r))
                    .collect();
                t.sort_by(f64::total_cmp);
                let pts: Vec<(f64, f64)> = t
                    .iter()
                    .enumerate()
                    .map(|(k, &s)| ((k + 1) as f64, s))
                    .collect();
                let c = colour(i);
                chart
                    .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
                    .label(format!("{name} ({})", pts.len()))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                    });
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 2, c.filled())))?;
            }
            legend(&mut chart.configure_series_labels()).draw()?;
            root.present()?;
            Ok(())
        },
    )
}

/// The two configurations to compare: `native` against the configuration proving most
/// besides it (else the first two).
fn pair<'d>(data: &'d [Series<'d>]) -> Option<(&'d Series<'d>, &'d Series<'d>)> {
    let proven = |rs: &[&Run]| rs.iter().filter(|r| r.record.status.is_finished()).count();
    let a = data.iter().position(|(c, _)| c == "native").unwrap_or(0);
    let b = (0..data.len())
        .filter(|&i| i != a)
        .max_by_key(|&i| (proven(&data[i].1), std::cmp::Reverse(i)))?;
    Some((&data[a], &data[b]))
}

/// A log-log scatter of one configuration's time against another's per instance; a run that
/// did not prove its instance is drawn at the edge (twice the time limit), as a cross.
fn scatter(data: &[(String, Vec<&Run>)], limit: f64) -> Chart {
    let (title, pair) = match pair(data) {
        Some((a, b)) => (
            format!("{} against {} per instance", a.0, b.0),
            Some((a, b)),
        ),
        None => (
            "One configuration against another (needs two)".to_string(),
            None,
        ),
    };
    draw("scatter", &title, |svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let edge = limit * 2.0;
        let range = || (FLOOR..edge * 1.3).log_scale();
        let (xa, yb) = pair
            .map(|(a, b)| (a.0.clone(), b.0.clone()))
            .unwrap_or_default();
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(range(), range())?;
        chart
            .configure_mesh()
            .x_desc(format!("{xa} wall seconds (log)"))
            .y_desc(format!("{yb} wall seconds (log)"))
            .label_style((FONT, 13))
            .draw()?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(FLOOR, FLOOR), (edge, edge)],
            BLACK.mix(0.4).stroke_width(1),
        )))?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(edge, FLOOR), (edge, edge), (FLOOR, edge)],
            RED.mix(0.5).stroke_width(1),
        )))?;
        if let Some((a, b)) = pair {
            let at = |r: &Run| {
                if r.record.status.is_finished() {
                    seconds(r)
                } else {
                    edge
                }
            };
            let mut both = Vec::new();
            for ra in &a.1 {
                if let Some(rb) = b.1.iter().find(|r| r.record.instance == ra.record.instance) {
                    let proven = ra.record.status.is_finished() && rb.record.status.is_finished();
                    both.push(((at(ra), at(rb)), proven));
                }
            }
            chart.draw_series(
                both.iter()
                    .filter(|(_, p)| *p)
                    .map(|&(p, _)| Circle::new(p, 3, colour(0).filled())),
            )?;
            chart.draw_series(
                both.iter()
                    .filter(|(_, p)| !*p)
                    .map(|&(p, _)| Cross::new(p, 4, colour(3).stroke_width(2))),
            )?;
        }
        root.present()?;
        Ok(())
    })
}

/// The charts of a counting job.
pub fn count_charts(c: &CountReport) -> Vec<Chart> {
    vec![estimates(c), shares(c)]
}

/// Knuth's estimate against the measured nodes per unit (log-log, with the diagonal).
fn estimates(c: &CountReport) -> Chart {
    draw(
        "estimate-vs-measured",
        "Estimated against measured nodes per unit",
        |svg| {
            let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
            root.fill(&WHITE)?;
            let hi = c
                .estimates
                .iter()
                .flat_map(|&(e, m)| [e, m])
                .fold(10.0, f64::max)
                * 2.0;
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d((1.0..hi).log_scale(), (1.0..hi).log_scale())?;
            chart
                .configure_mesh()
                .x_desc("measured nodes (log)")
                .y_desc("estimated nodes (log)")
                .label_style((FONT, 13))
                .draw()?;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(1.0, 1.0), (hi, hi)],
                BLACK.mix(0.4).stroke_width(1),
            )))?;
            chart.draw_series(
                c.estimates
                    .iter()
                    .map(|&(e, m)| Circle::new((m.max(1.0), e.max(1.0)), 2, colour(0).filled())),
            )?;
            root.present()?;
            Ok(())
        },
    )
}

/// Each worker's unit seconds.
fn shares(c: &CountReport) -> Chart {
    draw("worker-shares", "Unit time per worker", |svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let n = c.workers.len().max(1) as f64;
        let top = c.workers.iter().map(|w| w.seconds).fold(1e-3, f64::max) * 1.2;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..n, 0.0..top)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("unit wall seconds")
            .label_style((FONT, 13))
            .draw()?;
        for (i, w) in c.workers.iter().enumerate() {
            let x = i as f64;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x + 0.15, 0.0), (x + 0.85, w.seconds)],
                colour(i).filled(),
            )))?;
            chart.draw_series(std::iter::once(Text::new(
                format!("{} {:.0}%", w.worker, 100.0 * w.share),
                (x + 0.15, w.seconds + top * 0.03),
                (FONT, 11).into_font(),
            )))?;
        }
        root.present()?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cores::bench::{HostInfo, RunRecord};

    fn run(config: &str, difficulty: Difficulty, status: Status, wall: f64) -> Run {
        Run {
            record: RunRecord {
                status,
                wall_seconds: wall,
                ..RunRecord::blank("i", config, 10.0, HostInfo::default())
            },
            batch: "b.txt".into(),
            difficulty: Some(difficulty),
            n: None,
            tiles: None,
        }
    }

    #[test]
    fn figure_9_takes_the_last_difficulty_present_and_unproven_runs_at_their_limit() {
        let runs = [
            run("a", Difficulty::Easy, Status::Optimal, 1.0),
            run("a", Difficulty::Medium, Status::Optimal, 2.0),
        ];
        let data: Vec<Series> = vec![("a".into(), runs.iter().collect())];
        // The last of Difficulty::ALL that a run has (easiest first: tight once it is there).
        assert_eq!(hardest(&data), Some(Difficulty::Medium));
        assert_eq!(hardest(&[]), None);
        let last = *Difficulty::ALL.last().unwrap();
        let top = [run("a", last, Status::Optimal, 12.0)];
        let data: Vec<Series> = vec![("a".into(), runs.iter().chain(&top).collect())];
        assert_eq!(hardest(&data), Some(last));
        // A proof counts its time (at most the limit), anything else the limit.
        assert_eq!(at_limit(&top[0]), 10.0);
        assert_eq!(at_limit(&runs[1]), 2.0);
        assert_eq!(at_limit(&run("a", last, Status::Feasible, 3.0)), 10.0);
        let chart = on_hardest(&data);
        assert!(chart
            .title
            .contains(&format!("on the {} instances", last.as_str())));
        assert!(chart
            .caption
            .unwrap()
            .contains("1 runs; time-outs counted at the limit"));
    }
}
