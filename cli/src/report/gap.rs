//! The gap table of a domino benchmark job, which opens its report: per instance and
//! configuration the verified objective, the proven bound and their gap; per instance the best
//! objective and the best bound over every configuration, and who proved that bound and how
//! (`cores::domino::BoundBy`); per configuration the gap summed over the suite and the
//! instances proven; and the instances no configuration closes. On instances where nothing
//! is proven quickly (the tight suite, seed 001's "Further Considerations") the gap says
//! what the time alone does not: how far each configuration got.
//!
//! Rules (the report's reader sees them in the table's heading):
//! - a run's objective counts when its status is `optimal` or `feasible` (a verified
//!   placement), its bound when it is not `wrong` (as `model::Best` takes them);
//! - a run's gap is `bound - objective`, shown `-` when it lacks either;
//! - the summed gap counts every run of the configuration that ran (an `unavailable` run is no
//!   measurement, as in PAR2), the shown gaps as they are and the others against what any
//!   run has without searching: a run without a bound, or with a bound above the count bound
//!   `min(tiles, floor(n^2 / 3))` (`BoundBy::count_bound`), is measured against the count
//!   bound, one without a placement as the empty placement (0 tiles, always valid). So a
//!   configuration that proves nothing and places nothing adds the count bound, one whose
//!   solver reports a valid bound weaker than counting (CP-SAT's 40 on an instance of 39
//!   tiles) is not charged for more than counting gives, configurations that ran everywhere
//!   sum over the same instances, and a smaller sum is a better configuration (the run's own
//!   cell still shows the bound it reported);
//! - an instance's best bound is the smallest bound of any configuration, or the count bound
//!   when it is smaller or no configuration has one (then attributed to the report, by
//!   `count`); the instance is closed when its best objective (0 without one) reaches it,
//!   whichever configurations the two figures come from. A best bound below the best
//!   objective is a contradiction (the report's problems name it): such an instance is listed
//!   apart, as contradicted, never as closed.
//!
//! - a bound certificate (`cores::domino::Certificate`, `dancehall domino certify --db`) on
//!   an instance of the same content is checked again here and shown beside the instance: a
//!   certified refutation's bound (the bound column says `certified` when it is the best
//!   bound, `certified: at most C` when it is smaller), a verified placement's size (a line
//!   of its own, [`placed_summary`]). Neither
//!   changes a configuration's figures. A certified bound below the best objective, or a
//!   placement above the best bound, is a contradiction, and a certificate that does not
//!   hold together a problem.
//!
//! Invariant: a configuration's `summed_gap` is the sum of the `counted_gap` of its runs that
//! ran; every instance is exactly one of closed, unclosed (listed in `unclosed`) or contradicted.

use cores::label::Label;
use std::collections::BTreeMap;

use cores::bench::Status;
use cores::domino::{instance_sha256, BoundBy, Certificate, Difficulty, Instance};
use serde::Serialize;

use super::model::{configs, Run};

/// The gap table of a domino job.
#[derive(Debug, Clone, Serialize)]
pub struct GapTable {
    /// Per configuration, in report order.
    pub configs: Vec<GapConfig>,
    /// Instances whose best objective is below their best bound (or that have no bound at
    /// all: an instance missing from the frozen batches), in id order.
    pub unclosed: Vec<String>,
    /// Instances whose best bound is below their best objective (a contradiction).
    pub contradicted: Vec<String>,
    /// Per instance, in id order.
    pub instances: Vec<GapInstance>,
}

/// One configuration over the suite.
#[derive(Debug, Clone, Serialize)]
pub struct GapConfig {
    pub config: String,
    pub runs: usize,
    /// Runs whose configuration was not installed on the workers.
    pub unavailable: usize,
    /// Runs proven optimal.
    pub proven: usize,
    /// Runs that ran without a bound of their own, measured against the count bound.
    pub without_bound: usize,
    /// The sum of the `counted_gap` of its runs that ran (see the module rules).
    pub summed_gap: u64,
}

/// One instance: its best figures and every configuration's.
#[derive(Debug, Clone, Serialize)]
pub struct GapInstance {
    pub instance: String,
    pub difficulty: String,
    /// `min(tiles, floor(n^2 / 3))`; `None` when the instance is not among the frozen ones.
    pub count_bound: Option<u32>,
    /// The largest verified objective of any configuration.
    pub best_objective: Option<u32>,
    /// The smallest proven bound (the count bound included).
    pub best_bound: Option<u32>,
    /// The configuration whose bound is the best; `None` when it is the report's count.
    pub bound_config: Option<String>,
    /// How the best bound was proven (`None`: a record stored before provenances were).
    pub bound_by: Option<BoundBy>,
    /// `best_bound - best_objective` (0 tiles without an objective); negative is a
    /// contradiction.
    pub gap: Option<i64>,
    pub runs: Vec<GapRun>,
    /// The smallest bound a certified refutation of its content proves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certified_bound: Option<u32>,
    /// The largest verified placement a certificate on its content holds (its claim false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certified_placed: Option<u32>,
}

/// One configuration's current run on one instance.
#[derive(Debug, Clone, Serialize)]
pub struct GapRun {
    pub config: String,
    pub status: Status,
    pub objective: Option<u32>,
    pub bound: Option<u32>,
    pub bound_by: Option<BoundBy>,
    /// `bound - objective` when the run has both.
    pub gap: Option<u32>,
    /// What the run adds to its configuration's summed gap: (the smaller of its bound and the
    /// count bound) minus (its objective, else 0); `None` only without either bound.
    pub counted_gap: Option<u32>,
}

impl GapTable {
    /// Every instance closed, none contradicted: the table is one line.
    pub fn all_closed(&self) -> bool {
        self.unclosed.is_empty() && self.contradicted.is_empty()
    }

    /// The cells of instance `x`, one per configuration in table order (`no run` where the
    /// configuration has none on it).
    pub fn cells(&self, x: &GapInstance) -> Vec<String> {
        self.configs
            .iter()
            .map(|c| {
                x.runs
                    .iter()
                    .find(|r| r.config == c.config)
                    .map_or_else(|| "no run".into(), cell)
            })
            .collect()
    }

    /// Takes in the bound certificates on the job's instances (`frozen`, matched by content):
    /// each instance's certified bound and certified placement. The problems they show:
    /// a certificate that does not hold together on its instance, a certified bound below the
    /// best objective, a placement above the best bound.
    pub fn add_certificates(
        &mut self,
        certs: &[Certificate],
        frozen: &BTreeMap<String, Instance>,
    ) -> Vec<String> {
        let by_sha: BTreeMap<String, &Instance> =
            frozen.values().map(|i| (instance_sha256(i), i)).collect();
        let mut problems = Vec::new();
        for c in certs {
            let Some(inst) = by_sha.get(&c.instance_sha256) else {
                continue;
            };
            if let Err(e) = c.check(inst) {
                problems.push(format!(
                    "{}: the certificate of {} tiles does not hold: {e}",
                    inst.id, c.tiles
                ));
                continue;
            }
            let Some(x) = self.instances.iter_mut().find(|x| x.instance == inst.id) else {
                continue;
            };
            if let Some(b) = c.bound() {
                x.certified_bound = Some(x.certified_bound.map_or(b, |o| o.min(b)));
                if let Some(o) = x.best_objective.filter(|&o| o > b) {
                    problems.push(format!(
                        "{}: a certified refutation ({} tiles do not fit, checked by {}) is \
                         below the verified objective {o}",
                        x.instance,
                        c.tiles,
                        c.checker.as_deref().unwrap_or("?")
                    ));
                }
            }
            if let Some(p) = c.placed() {
                x.certified_placed = Some(x.certified_placed.map_or(p, |o| o.max(p)));
                if let Some(b) = x.best_bound.filter(|&b| b < p) {
                    problems.push(format!(
                        "{}: a verified placement of {p} tiles (certify) is above the best \
                         bound {b} ({})",
                        x.instance,
                        bound_source(x)
                    ));
                }
            }
        }
        problems
    }

    /// The instances with a certified bound, in id order.
    pub fn certified(&self) -> Vec<&GapInstance> {
        self.instances
            .iter()
            .filter(|x| x.certified_bound.is_some())
            .collect()
    }

    /// How many instances' best bounds each provenance gave, most first (`count` also for
    /// the report's own; `not recorded` for records older than provenances).
    pub fn provenances(&self) -> Vec<(String, usize)> {
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for x in self.instances.iter().filter(|x| x.best_bound.is_some()) {
            *by.entry(by_name(x.bound_by)).or_default() += 1;
        }
        let mut out: Vec<(String, usize)> = by.into_iter().collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }
}

/// A provenance as the tables write it.
pub fn by_name(by: Option<BoundBy>) -> String {
    by.map_or_else(|| "not recorded".into(), |b| b.as_str().into())
}

/// Who proved an instance's best bound and how: `native: cell-search`, `count` (the
/// report's), `-` without a bound; `, certified` when a certified refutation proves it too,
/// `; certified: at most C` when one proves a smaller bound than any run.
pub fn bound_source(x: &GapInstance) -> String {
    let who = match (&x.bound_config, x.best_bound) {
        (_, None) => "-".into(),
        (Some(c), _) => format!("{c}: {}", by_name(x.bound_by)),
        (None, _) => by_name(x.bound_by),
    };
    match (x.certified_bound, x.best_bound) {
        (Some(c), Some(b)) if c == b => format!("{who}, certified"),
        (Some(c), Some(b)) if c < b => format!("{who}; certified: at most {c}"),
        _ => who,
    }
}

/// The line that lists the certified bounds: `certified (...): 2 of 20 instances: b01-t3 at
/// most 22 (optimal: 22 placed), b01-t4 at most 21 (...)`; `None` without any.
pub fn certified_summary(g: &GapTable) -> Option<String> {
    let each: Vec<String> = g
        .certified()
        .iter()
        .filter_map(|x| {
            let b = x.certified_bound?;
            let closed = match x.best_objective {
                Some(o) if o == b => format!(" (optimal: {o} placed)"),
                Some(o) => format!(" ({o} placed)"),
                None => String::new(),
            };
            Some(format!("{} at most {b}{closed}", x.instance))
        })
        .collect();
    listed(
        "certified bounds (a refutation's DRAT proof checked outside the solvers, `dancehall \
         domino certify`)",
        &each,
        g.instances.len(),
    )
}

/// The line that lists the verified placements of certificates whose claim was false:
/// `verified placements (...): 2 of 20 instances: b01-t1 32 tiles (runs: 31; bound 37), ...`;
/// `None` without any.
pub fn placed_summary(g: &GapTable) -> Option<String> {
    let each: Vec<String> = g
        .instances
        .iter()
        .filter_map(|x| {
            let p = x.certified_placed?;
            Some(format!(
                "{} {p} tiles (runs: {}; bound {})",
                x.instance,
                dash(x.best_objective),
                dash(x.best_bound)
            ))
        })
        .collect();
    listed(
        "verified placements (a solver's model that `dancehall domino certify` decoded and the \
         verifier accepted; no configuration's run)",
        &each,
        g.instances.len(),
    )
}

/// `heading: N of T instances: a, b, ...` for the `N` entries `each` of `T` instances;
/// `None` without any.
fn listed(heading: &str, each: &[String], instances: usize) -> Option<String> {
    (!each.is_empty()).then(|| {
        format!(
            "{heading}: {} of {instances} instances: {}",
            each.len(),
            each.join(", ")
        )
    })
}

/// A figure as the tables write it, `-` without one.
fn dash(v: Option<u32>) -> String {
    v.map_or("-".to_owned(), |v| v.to_string())
}

/// A run as one cell: `objective/bound gap`, `-` for what it lacks (`21/24 3`, `20/- -`).
pub fn cell(r: &GapRun) -> String {
    if r.status == Status::Unavailable {
        return "unavailable".into();
    }
    format!("{}/{} {}", dash(r.objective), dash(r.bound), dash(r.gap))
}

/// The heading that says how the table counts.
pub const RULES: &str = "cells: objective/bound gap ('-': none); a configuration's summed gap \
    counts a run without a bound, or with one above the count bound min(tiles, n^2/3), against \
    the count bound, a run without a placement as 0 tiles, and no unavailable run";

/// The gap table of `runs` (a domino job's current runs) on the `frozen` instances.
pub fn gap_table(runs: &[Run], frozen: &BTreeMap<String, Instance>) -> GapTable {
    let names = configs(runs);
    let mut by_instance: BTreeMap<&str, Vec<&Run>> = BTreeMap::new();
    for r in runs {
        by_instance.entry(&r.record.instance).or_default().push(r);
    }
    let instances: Vec<GapInstance> = by_instance
        .iter()
        .map(|(id, rs)| instance(id, rs, frozen.get(*id), &names))
        .collect();
    let configs = names
        .iter()
        .map(|c| {
            let mine: Vec<&GapRun> = instances
                .iter()
                .flat_map(|x| x.runs.iter().filter(|g| &g.config == c))
                .collect();
            let ran: Vec<&GapRun> = mine
                .iter()
                .copied()
                .filter(|g| g.status != Status::Unavailable)
                .collect();
            GapConfig {
                config: c.clone(),
                runs: mine.len(),
                unavailable: mine.len() - ran.len(),
                proven: ran.iter().filter(|g| g.status == Status::Optimal).count(),
                without_bound: ran.iter().filter(|g| g.bound.is_none()).count(),
                summed_gap: ran
                    .iter()
                    .filter_map(|g| g.counted_gap)
                    .map(u64::from)
                    .sum(),
            }
        })
        .collect();
    // An instance without any bound (not among the frozen ones) is not closed either.
    let listed = |keep: fn(Option<i64>) -> bool| {
        instances
            .iter()
            .filter(|x| keep(x.gap))
            .map(|x| x.instance.clone())
            .collect()
    };
    GapTable {
        configs,
        unclosed: listed(|g| g.is_none_or(|g| g > 0)),
        contradicted: listed(|g| g.is_some_and(|g| g < 0)),
        instances,
    }
}

/// One instance's row; its runs in the order of `names` (a configuration without a run on it
/// has none).
fn instance(id: &str, rs: &[&Run], inst: Option<&Instance>, names: &[String]) -> GapInstance {
    let count_bound = inst.map(BoundBy::count_bound);
    let runs: Vec<GapRun> = names
        .iter()
        .filter_map(|c| rs.iter().find(|r| &r.record.config == c))
        .map(|r| gap_run(r, count_bound))
        .collect();
    let best_objective = runs.iter().filter_map(|g| g.objective).max();
    // The first configuration with the smallest bound, one that says how it proved it first.
    let best_run = runs
        .iter()
        .filter(|g| g.bound.is_some())
        .min_by_key(|g| (g.bound, g.bound_by.is_none()));
    let (best_bound, bound_config, bound_by) = match (best_run, count_bound) {
        (Some(g), Some(c)) if c < g.bound.unwrap_or(u32::MAX) => {
            (Some(c), None, Some(BoundBy::Count))
        }
        (Some(g), _) => (g.bound, Some(g.config.clone()), g.bound_by),
        (None, Some(c)) => (Some(c), None, Some(BoundBy::Count)),
        (None, None) => (None, None, None),
    };
    GapInstance {
        instance: id.to_owned(),
        difficulty: rs[0].difficulty.map_or("-", Difficulty::as_str).to_owned(),
        count_bound,
        best_objective,
        best_bound,
        bound_config,
        bound_by,
        gap: best_bound.map(|b| i64::from(b) - i64::from(best_objective.unwrap_or(0))),
        runs,
        certified_bound: None,
        certified_placed: None,
    }
}

fn gap_run(r: &Run, count_bound: Option<u32>) -> GapRun {
    let rec = &r.record;
    let objective = rec.objective().filter(|_| rec.status.is_solved());
    let bound = rec.bound().filter(|_| rec.status != Status::Wrong);
    let bound_by = rec.bound_by().filter(|_| bound.is_some());
    let gap = match (bound, objective) {
        (Some(b), Some(o)) => Some(b.saturating_sub(o)),
        _ => None,
    };
    GapRun {
        config: rec.config.clone(),
        status: rec.status,
        objective,
        bound,
        bound_by,
        gap,
        counted_gap: match (bound, count_bound) {
            (Some(b), Some(c)) => Some(b.min(c)),
            (b, c) => b.or(c),
        }
        .map(|b| b.saturating_sub(objective.unwrap_or(0))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cores::bench::{HostInfo, RunRecord};

    /// b01-e3 of the public suite: 3 tiles on 5 x 5, all of which fit (count bound 3).
    const E3: &str = r#"{"id": "e3", "difficulty": "easy", "n": 5, "k": 4,
        "tiles": [[0, 3, 4], [2, 0, 2], [2, 3, 4]]}"#;

    fn run(
        instance: &str,
        config: &str,
        status: Status,
        objective: Option<u32>,
        bound: Option<u32>,
    ) -> Run {
        let mut record = RunRecord {
            status,
            ..RunRecord::blank(instance, config, 1.0, HostInfo::default())
        };
        record.set_objective(objective);
        record.set_bound(bound);
        record.set_bound_by(bound.map(|_| BoundBy::Solver));
        Run {
            record,
            batch: "b.txt".into(),
            difficulty: Some(Difficulty::Easy),
            n: None,
            tiles: None,
        }
    }

    #[test]
    fn a_wrong_bound_is_no_bound_a_contradiction_is_not_closed_and_an_unknown_instance_is_open() {
        let frozen: BTreeMap<String, Instance> =
            [("e3".to_string(), cores::domino::parse_line(E3).unwrap())].into();
        let runs = [
            // e3: a wrong run's bound of 1 is not evidence; b proves 2 below a's 3 placed.
            run("e3", "a", Status::Feasible, Some(3), None),
            run("e3", "b", Status::Optimal, Some(2), Some(2)),
            run("e3", "c", Status::Wrong, None, Some(1)),
            // x is not frozen: no count bound, so a run without a bound counts nothing.
            run("x", "a", Status::Feasible, Some(5), None),
            run("x", "b", Status::Timeout, None, None),
        ];
        let g = gap_table(&runs, &frozen);
        assert_eq!(g.contradicted, ["e3"]);
        assert_eq!(g.unclosed, ["x"]);
        assert!(!g.all_closed());
        let e3 = &g.instances[0];
        assert_eq!(
            (
                e3.best_objective,
                e3.best_bound,
                e3.gap,
                e3.bound_config.as_deref()
            ),
            (Some(3), Some(2), Some(-1), Some("b"))
        );
        assert_eq!(e3.runs[2].bound, None, "a wrong run's bound");
        let x = &g.instances[1];
        assert_eq!((x.count_bound, x.best_bound, x.gap), (None, None, None));
        // a: e3 counts 3 - 3 = 0 (no bound: the count), x nothing; b: 0 and nothing;
        // c: e3 against the count, 3 - 0.
        let sums: Vec<(&str, u64, usize)> = g
            .configs
            .iter()
            .map(|c| (c.config.as_str(), c.summed_gap, c.without_bound))
            .collect();
        assert_eq!(sums, [("a", 0, 2), ("b", 0, 1), ("c", 3, 1)]);
        assert_eq!(bound_source(e3), "b: solver");
        assert_eq!(cell(&e3.runs[0]), "3/- -");
        assert_eq!(g.cells(x), ["5/- -", "-/- -", "no run"]);
    }

    /// A bound above the count bound is valid but weaker than counting: the run's cell shows
    /// it as reported, its configuration's sum counts the count bound (e3's 3) instead.
    #[test]
    fn a_bound_above_the_count_bound_is_summed_as_the_count_bound() {
        let frozen: BTreeMap<String, Instance> =
            [("e3".to_string(), cores::domino::parse_line(E3).unwrap())].into();
        let runs = [
            run("e3", "a", Status::Feasible, Some(1), Some(5)),
            run("e3", "b", Status::Feasible, Some(1), Some(2)),
        ];
        let g = gap_table(&runs, &frozen);
        let e3 = &g.instances[0];
        assert_eq!(cell(&e3.runs[0]), "1/5 4");
        assert_eq!(e3.runs[0].counted_gap, Some(2), "3 - 1, not 5 - 1");
        assert_eq!(
            e3.runs[1].counted_gap,
            Some(1),
            "its own 2 - 1, below the count"
        );
        let sums: Vec<u64> = g.configs.iter().map(|c| c.summed_gap).collect();
        assert_eq!(sums, [2, 1]);
        assert_eq!(
            (e3.best_bound, e3.bound_config.as_deref()),
            (Some(2), Some("b"))
        );
    }

    /// Certificates on the instance's content show beside it and are checked again; the ones
    /// that contradict the runs, or do not hold, are problems; a certificate on other content
    /// (an edited tile) does not apply.
    #[test]
    fn certificates_certify_bounds_and_contradict_runs_that_they_refute() {
        use cores::domino::{Orientation, Placement, Verdict};
        let e3 = cores::domino::parse_line(E3).unwrap();
        let frozen: BTreeMap<String, Instance> = [("e3".to_string(), e3.clone())].into();
        // a placed 1 tile, b proved at most 2 (not the optimum: all 3 fit on 5 x 5).
        let runs = [
            run("e3", "a", Status::Feasible, Some(1), None),
            run("e3", "b", Status::Feasible, None, Some(2)),
        ];
        let cert = |tiles: u32, verdict: Verdict, placement: Vec<Placement>| Certificate {
            instance: "e3".into(),
            instance_sha256: instance_sha256(&e3),
            tiles,
            verdict,
            placement,
            formula_sha256: "f".into(),
            solver: None,
            solver_seconds: None,
            proof_bytes: Some(1),
            checker: Some("rate 0.3.0".into()),
            checker_seconds: Some(0.1),
            solver_peak_memory_bytes: None,
            checker_peak_memory_bytes: None,
            host: "h".into(),
            dancehall_version: "0".into(),
        };
        let at = |tile, row, col| Placement {
            tile,
            row,
            col,
            orientation: Orientation::H,
            mirrored: false,
        };
        // Certified: 3 tiles do not fit (at most 2) and 4 (at most 3); the smaller counts.
        let mut g = gap_table(&runs, &frozen);
        let proofs = [
            cert(4, Verdict::Certified, vec![]),
            cert(3, Verdict::Certified, vec![]),
        ];
        assert!(g.add_certificates(&proofs, &frozen).is_empty());
        let x = &g.instances[0];
        assert_eq!((x.certified_bound, x.certified_placed), (Some(2), None));
        assert_eq!(bound_source(x), "b: solver, certified");
        assert_eq!(placed_summary(&g), None);
        assert_eq!(
            certified_summary(&g).unwrap(),
            "certified bounds (a refutation's DRAT proof checked outside the solvers, \
             `dancehall domino certify`): 1 of 1 instances: e3 at most 2 (1 placed)"
        );

        // "2 tiles do not fit", below b's bound of 2 and still at a's 1 placed: the smaller
        // bound is named.
        let mut g = gap_table(&runs, &frozen);
        assert!(g
            .add_certificates(&[cert(2, Verdict::Certified, vec![])], &frozen)
            .is_empty());
        assert_eq!(
            bound_source(&g.instances[0]),
            "b: solver; certified: at most 1"
        );

        // Three tiles in rows 0, 2 and 4 fit: above b's bound of 2, a contradiction that
        // names b.
        let mut g = gap_table(&runs, &frozen);
        let three = vec![at(0, 0, 0), at(1, 2, 0), at(2, 4, 0)];
        let problems = g.add_certificates(&[cert(3, Verdict::Fits, three.clone())], &frozen);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("placement of 3 tiles") && problems[0].contains("b: solver"),
            "{problems:?}"
        );
        assert_eq!(g.instances[0].certified_placed, Some(3));
        assert_eq!(certified_summary(&g), None);
        assert_eq!(
            placed_summary(&g).unwrap(),
            "verified placements (a solver's model that `dancehall domino certify` decoded and \
             the verifier accepted; no configuration's run): 1 of 1 instances: e3 3 tiles \
             (runs: 1; bound 2)"
        );

        // A certified bound below what a run placed (a: 1 tile; "1 tile does not fit").
        let mut g = gap_table(&runs, &frozen);
        let problems = g.add_certificates(&[cert(1, Verdict::Certified, vec![])], &frozen);
        assert!(
            problems.len() == 1 && problems[0].contains("below the verified objective 1"),
            "{problems:?}"
        );

        // A placement the verifier refuses (tiles 0 and 1 touch with 0 against 2), and a
        // certificate of other content, which does not apply.
        let mut g = gap_table(&runs, &frozen);
        let touching = vec![at(0, 0, 0), at(1, 1, 0)];
        let mut elsewhere = cert(3, Verdict::Certified, vec![]);
        elsewhere.instance_sha256 = "00".into();
        let problems = g.add_certificates(&[cert(2, Verdict::Fits, touching), elsewhere], &frozen);
        assert!(
            problems.len() == 1 && problems[0].contains("does not hold"),
            "{problems:?}"
        );
        assert_eq!(
            (
                g.instances[0].certified_bound,
                g.instances[0].certified_placed
            ),
            (None, None)
        );
    }
}
