//! Bench specs: TOML files naming counting jobs (bench-specs/README.md documents the format).
//!
//! A file holds one job (top-level `name`, `[problem]`, optional `symmetry_factor` and
//! `[partition]`) or a suite of jobs (`[[job]]` tables with the same keys; a top-level
//! `[partition]` is the default of every job). `[problem]` is a
//! [`cores::problems::ProblemSpec`] (`family = "sudoku"`, ...) or `family = "dlx"` with
//! `file = "..."`, a problem in Knuth's DLX format, the path relative to the spec.
//!
//! Invariant: [`load`] validates everything a job needs (TOML syntax, unknown keys, problem
//! parameters, the DLX file, the symmetry factor, the partition settings) before anything is
//! started or written; every failure is a user error naming the file, the line and the problem.

use std::path::{Path, PathBuf};

use cores::problems::{Built, ProblemSpec};
use cores::xcc::{write_dlx, OptionId, Problem};
use proto::v1 as pb;
use serde::de::Error as _;
use serde::Deserialize;

use crate::cmd::exit::user_error;
use crate::cmd::problem::load_dlx;
use crate::units::{UnitsEntry, WeightedUnits};

/// A loaded spec file: its text (kept with each submitted job) and its jobs.
#[derive(Debug)]
pub struct SpecFile {
    pub text: String,
    pub jobs: Vec<JobSpec>,
}

/// One counting job, ready to submit.
#[derive(Debug, Clone)]
pub struct JobSpec {
    pub name: String,
    pub problem: Problem,
    pub prefix: Vec<OptionId>,
    /// Counts are multiplied by this for the full total (1: none).
    pub symmetry_factor: u128,
    /// What the factor stands for, e.g. "sudoku 2x3 fixed-first-row".
    pub label: String,
    pub partition: Partition,
    /// The job as a list of weighted units (`[units]`), and the core to count them with.
    pub units: Option<WeightedUnits>,
    /// The total the job must reach (`expected_total`: counted or weighted, times the
    /// symmetry factor), from the literature; `run` fails when it differs.
    pub expected_total: Option<u128>,
}

/// How a job is cut into units; `None` leaves the coordinator's default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Partition {
    /// Target seconds of search per unit on one core (the coordinator turns it into a node
    /// budget from the engine's measured rate; default 1 s, shorter for small jobs).
    pub unit_seconds: Option<f64>,
    /// Split units whose Monte Carlo estimate exceeds this many nodes (a budget below 20 ms of
    /// search is raised, with a warning).
    pub unit_node_budget: Option<u64>,
    /// A unit running longer hands its unexplored subtrees back (dynamic re-split).
    pub unit_time_budget_seconds: Option<f64>,
    /// A unit stops after about this many nodes and hands the rest back (a deterministic
    /// re-split, e.g. for tests).
    pub unit_node_limit: Option<u64>,
    /// Share of units re-run on another worker and compared (0 to 1).
    pub audit_share: Option<f64>,
    /// At most this many units at submission.
    pub max_units: Option<u32>,
    /// Random paths per estimate.
    pub estimate_samples: Option<u32>,
    /// Seed of the estimates.
    pub seed: Option<u64>,
}

impl Partition {
    /// `self`'s settings, with `default`'s where `self` has none.
    pub fn or(&self, default: &Partition) -> Partition {
        Partition {
            unit_seconds: self.unit_seconds.or(default.unit_seconds),
            unit_node_budget: self.unit_node_budget.or(default.unit_node_budget),
            unit_time_budget_seconds: self
                .unit_time_budget_seconds
                .or(default.unit_time_budget_seconds),
            unit_node_limit: self.unit_node_limit.or(default.unit_node_limit),
            audit_share: self.audit_share.or(default.audit_share),
            max_units: self.max_units.or(default.max_units),
            estimate_samples: self.estimate_samples.or(default.estimate_samples),
            seed: self.seed.or(default.seed),
        }
    }

    pub fn check(&self) -> Result<(), String> {
        if let Some(t) = self.unit_seconds {
            if !(t > 0.0 && t.is_finite() && t < 1e9) {
                return Err(format!(
                    "unit_seconds = {t} must be a number of seconds > 0"
                ));
            }
        }
        if let Some(s) = self.audit_share {
            if !(0.0..=1.0).contains(&s) {
                return Err(format!("audit_share = {s} must lie between 0 and 1"));
            }
        }
        if let Some(t) = self.unit_time_budget_seconds {
            if !(t >= 0.0 && t.is_finite() && t < 1e9) {
                return Err(format!(
                    "unit_time_budget_seconds = {t} must be a number of seconds >= 0"
                ));
            }
        }
        Ok(())
    }

    pub fn to_proto(&self) -> pb::PartitionSettings {
        pb::PartitionSettings {
            unit_node_budget: self.unit_node_budget.unwrap_or(0),
            unit_time_budget_ms: self
                .unit_time_budget_seconds
                .map_or(0, |s| (s * 1000.0).round() as u64),
            audit_share: self.audit_share.unwrap_or(0.0),
            max_units: self.max_units.unwrap_or(0),
            estimate_samples: self.estimate_samples.unwrap_or(0),
            seed: self.seed.unwrap_or(0),
            unit_node_limit: self.unit_node_limit.unwrap_or(0),
            unit_seconds: self.unit_seconds.unwrap_or(0.0),
        }
    }
}

impl JobSpec {
    /// A job from a built problem (the `run` command's problem arguments).
    pub fn from_built(name: String, built: Built, partition: Partition) -> Self {
        JobSpec {
            name,
            problem: built.problem,
            prefix: built.prefix,
            symmetry_factor: built.symmetry_factor,
            label: built.label,
            partition,
            units: None,
            expected_total: None,
        }
    }

    /// The request that submits this job; `spec_text` is kept by the coordinator.
    pub fn submit_request(&self, spec_text: &str) -> pb::SubmitJobRequest {
        pb::SubmitJobRequest {
            header: proto::client::header(),
            name: self.name.clone(),
            spec: spec_text.to_string(),
            dlx: write_dlx(&self.problem),
            prefix: self.prefix.clone(),
            symmetry_factor: self.symmetry_factor.to_string(),
            partition: Some(self.partition.to_proto()),
            units: self
                .units
                .iter()
                .flat_map(|u| &u.units)
                .map(|(prefix, weight)| pb::WeightedPrefix {
                    options: prefix.clone(),
                    weight: weight.to_string(),
                })
                .collect(),
            core: self
                .units
                .as_ref()
                .map(|u| proto::core::core_spec_pb(u.core)),
            ..Default::default()
        }
    }
}

/// `[problem]`: a family of `cores::problems` or a DLX file.
#[derive(Debug)]
enum ProblemEntry {
    Family(ProblemSpec),
    Dlx(DlxEntry),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DlxEntry {
    #[allow(dead_code)]
    family: String,
    /// Relative to the spec file.
    file: PathBuf,
}

impl<'de> Deserialize<'de> for ProblemEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let table = toml::Table::deserialize(d)?;
        let value = toml::Value::Table(table);
        if value.get("family").and_then(|v| v.as_str()) == Some("dlx") {
            DlxEntry::deserialize(value)
                .map(ProblemEntry::Dlx)
                .map_err(D::Error::custom)
        } else {
            ProblemSpec::deserialize(value)
                .map(ProblemEntry::Family)
                .map_err(D::Error::custom)
        }
    }
}

/// A symmetry factor: a positive TOML integer, or a decimal string for values past i64.
#[derive(Debug, Clone, Copy)]
struct Factor(u128);

impl<'de> Deserialize<'de> for Factor {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Text(String),
        }
        let n = match Raw::deserialize(d)? {
            Raw::Int(i) => u128::try_from(i).ok(),
            Raw::Text(s) => s.trim().parse::<u128>().ok(),
        };
        match n {
            Some(n) if n >= 1 => Ok(Factor(n)),
            _ => Err(D::Error::custom(
                "must be a positive integer (or a decimal string past 2^63)",
            )),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    name: String,
    problem: toml::Spanned<ProblemEntry>,
    symmetry_factor: Option<toml::Spanned<Factor>>,
    partition: Option<toml::Spanned<Partition>>,
    units: Option<toml::Spanned<UnitsEntry>>,
    expected_total: Option<Factor>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    name: Option<String>,
    problem: Option<toml::Spanned<ProblemEntry>>,
    symmetry_factor: Option<toml::Spanned<Factor>>,
    partition: Option<toml::Spanned<Partition>>,
    units: Option<toml::Spanned<UnitsEntry>>,
    expected_total: Option<Factor>,
    #[serde(default)]
    job: Vec<toml::Spanned<RawJob>>,
}

/// The keys of a job beside its name and problem.
struct JobKeys {
    factor: Option<toml::Spanned<Factor>>,
    partition: Partition,
    units: Option<toml::Spanned<UnitsEntry>>,
    expected_total: Option<Factor>,
}

/// 1-based line of byte offset `at` in `text`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// The line to blame for a TOML error: the key or value named in backquotes in the message
/// when it appears inside the span (serde names the field or variant), else the span's start.
fn blame_line(text: &str, span: std::ops::Range<usize>, message: &str) -> usize {
    let inside = &text[span.start.min(text.len())..span.end.min(text.len())];
    let quoted = message.split('`').nth(1).filter(|q| !q.is_empty());
    if let Some(q) = quoted {
        // A key first (an unknown field), then a value (an unknown variant).
        let key = |line: &str| line.split('=').next().unwrap_or("").trim() == q;
        let value =
            |line: &str| line.contains(&format!("\"{q}\"")) || line.contains(&format!("'{q}'"));
        for matches in [&key as &dyn Fn(&str) -> bool, &value] {
            if let Some(i) = inside.lines().position(matches) {
                return line_of(text, span.start) + i;
            }
        }
    }
    line_of(text, span.start)
}

/// A spec of either kind.
#[derive(Debug)]
pub enum AnySpec {
    Count(SpecFile),
    Bench(crate::bench_spec::BenchSpec),
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| user_error(format!("{}: cannot read the spec: {e}", path.display())))
}

/// Reads, checks and builds every job of the counting spec at `path`.
pub fn load(path: &Path) -> anyhow::Result<SpecFile> {
    match load_any(path)? {
        AnySpec::Count(f) => Ok(f),
        AnySpec::Bench(_) => Err(user_error(format!(
            "{}: a benchmark spec ([benchmark]) is not a counting job here",
            path.display()
        ))),
    }
}

/// Reads and checks the spec at `path`: a benchmark spec when it has a `[benchmark]` table,
/// else counting jobs.
pub fn load_any(path: &Path) -> anyhow::Result<AnySpec> {
    let text = read(path)?;
    if crate::bench_spec::is_benchmark(&text) {
        return crate::bench_spec::parse(path, &text).map(AnySpec::Bench);
    }
    let jobs = parse(path, &text)?;
    Ok(AnySpec::Count(SpecFile { text, jobs }))
}

/// Parses spec `text` (from `path`, for messages and relative DLX paths).
pub fn parse(path: &Path, text: &str) -> anyhow::Result<Vec<JobSpec>> {
    let shown = path.display();
    let at =
        |offset: usize, msg: &str| user_error(format!("{shown}:{}: {msg}", line_of(text, offset)));
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(1, |s| blame_line(text, s, e.message()));
        user_error(format!("{shown}:{line}: {}", e.message()))
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let default_partition = match &raw.partition {
        Some(p) => {
            p.get_ref().check().map_err(|m| at(p.span().start, &m))?;
            p.get_ref().clone()
        }
        None => Partition::default(),
    };

    let mut jobs = Vec::new();
    match (raw.problem, raw.job.is_empty()) {
        (Some(problem), true) => {
            let Some(name) = raw.name else {
                return Err(at(0, "a spec with a [problem] needs a top-level `name`"));
            };
            jobs.push(job(
                path,
                text,
                dir,
                name,
                problem,
                JobKeys {
                    factor: raw.symmetry_factor,
                    partition: default_partition,
                    units: raw.units,
                    expected_total: raw.expected_total,
                },
            )?);
        }
        (None, false) => {
            if let Some(u) = raw.units {
                return Err(at(
                    u.span().start,
                    "[units] belongs in each [[job]] of a suite",
                ));
            }
            if let Some(f) = raw.symmetry_factor {
                return Err(at(
                    f.span().start,
                    "symmetry_factor belongs in each [[job]] of a suite",
                ));
            }
            for j in raw.job {
                let span = j.span();
                let j = j.into_inner();
                let partition = match &j.partition {
                    Some(p) => {
                        p.get_ref().check().map_err(|m| at(p.span().start, &m))?;
                        p.get_ref().or(&default_partition)
                    }
                    None => default_partition.clone(),
                };
                if jobs.iter().any(|k: &JobSpec| k.name == j.name) {
                    return Err(at(
                        span.start,
                        &format!("job name `{}` is used twice", j.name),
                    ));
                }
                jobs.push(job(
                    path,
                    text,
                    dir,
                    j.name,
                    j.problem,
                    JobKeys {
                        factor: j.symmetry_factor,
                        partition,
                        units: j.units,
                        expected_total: j.expected_total,
                    },
                )?);
            }
        }
        (Some(p), false) => {
            return Err(at(
                p.span().start,
                "give either one [problem] or a list of [[job]] tables, not both",
            ))
        }
        (None, true) => return Err(at(0, "no [problem] and no [[job]]: nothing to count")),
    }
    Ok(jobs)
}

fn job(
    path: &Path,
    text: &str,
    dir: &Path,
    name: String,
    problem: toml::Spanned<ProblemEntry>,
    keys: JobKeys,
) -> anyhow::Result<JobSpec> {
    let JobKeys {
        factor,
        partition,
        units,
        expected_total,
    } = keys;
    let shown = path.display();
    let at = |offset: usize, msg: String| {
        user_error(format!("{shown}:{}: {msg}", line_of(text, offset)))
    };
    if name.trim().is_empty() {
        return Err(at(0, "a job's `name` must not be empty".into()));
    }
    let problem_at = problem.span().start;
    let entry = problem.into_inner();
    let units = match units {
        None => None,
        Some(u) => {
            let family = match &entry {
                ProblemEntry::Family(spec) => Some(spec),
                ProblemEntry::Dlx(_) => None,
            };
            let built = u
                .get_ref()
                .build(family, dir)
                .map_err(|m| at(u.span().start, format!("[units] {m}")))?;
            Some((built, u.span().start))
        }
    };
    let built = match entry {
        ProblemEntry::Family(spec) => spec
            .build()
            .map_err(|e| at(problem_at, format!("[problem] {}: {e}", spec.family())))?,
        ProblemEntry::Dlx(entry) => {
            let mut built = load_dlx(&dir.join(&entry.file))
                .map_err(|e| at(problem_at, format!("[problem] dlx: {e:#}")))?;
            built.label = format!("dlx {}", entry.file.display());
            built
        }
    };
    let generated = units
        .as_ref()
        .and_then(|(u, at)| u.symmetry_factor.map(|f| (f, *at)));
    let symmetry_factor = match (factor, generated) {
        (None, Some((f, _))) => f,
        (Some(f), Some((g, _))) if f.get_ref().0 != g => {
            return Err(at(
                f.span().start,
                format!(
                    "symmetry_factor = {} contradicts the factor {g} of the [units] generator",
                    f.get_ref().0
                ),
            ))
        }
        (factor, _) => match factor {
            None => built.symmetry_factor,
            Some(f) => {
                let declared = f.get_ref().0;
                if built.symmetry_factor != 1 && built.symmetry_factor != declared {
                    return Err(at(
                        f.span().start,
                        format!(
                            "symmetry_factor = {declared} contradicts the factor {} of `{}`",
                            built.symmetry_factor, built.label
                        ),
                    ));
                }
                declared
            }
        },
    };
    let label = match &units {
        Some((u, _)) => u.label.clone(),
        None => built.label,
    };
    Ok(JobSpec {
        name,
        problem: built.problem,
        prefix: built.prefix,
        symmetry_factor,
        label,
        partition,
        units: units.map(|(u, _)| u),
        expected_total: expected_total.map(|f| f.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        format!("{:#}", parse(Path::new("t.toml"), text).unwrap_err())
    }

    #[test]
    fn one_job_with_its_partition() {
        let jobs = parse(
            Path::new("t.toml"),
            "name = \"s6\"\n[problem]\nfamily = \"sudoku\"\nbox_rows = 2\nbox_cols = 3\n\
             fix_first_row = true\n[partition]\nunit_node_budget = 5000\n\
             unit_time_budget_seconds = 2.5\n",
        )
        .unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].name, "s6");
        // 6! relabellings of the first row (issue 2: 28,200,960 grids / 720).
        assert_eq!(jobs[0].symmetry_factor, 720);
        let p = jobs[0].partition.to_proto();
        assert_eq!((p.unit_node_budget, p.unit_time_budget_ms), (5000, 2500));
    }

    #[test]
    fn a_suite_inherits_the_top_level_partition() {
        let jobs = parse(
            Path::new("t.toml"),
            "[partition]\nmax_units = 9\nseed = 4\n\
             [[job]]\nname = \"a\"\nproblem = { family = \"queens\", n = 6 }\n\
             [[job]]\nname = \"b\"\nproblem = { family = \"latin\", n = 4 }\n\
             partition = { seed = 5 }\n",
        )
        .unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].partition.max_units, Some(9));
        assert_eq!(
            (jobs[1].partition.max_units, jobs[1].partition.seed),
            (Some(9), Some(5))
        );
    }

    #[test]
    fn errors_name_the_line_and_the_problem() {
        let e = err("name = \"x\"\n[problem]\nfamily = \"queens\"\nn = \"five\"\n");
        assert!(
            e.starts_with("t.toml:2:") && e.contains("invalid type"),
            "{e}"
        );
        let e = err("name = \"x\"\n[problem]\nfamily = \"sudoku\"\nbox_rows = 2\nbox_colz = 2\n");
        assert!(e.starts_with("t.toml:5:") && e.contains("box_colz"), "{e}");
        let e = err("name = \"x\"\n\n[problem]\nfamily = \"quens\"\nn = 5\n");
        assert!(
            e.starts_with("t.toml:4:") && e.contains("unknown variant"),
            "{e}"
        );
        let e = err("name = \"x\"\n[problem\n");
        assert!(e.starts_with("t.toml:2:"), "{e}");
        let e = err("name = \"x\"\nsymmetry = 2\n[problem]\nfamily = \"queens\"\nn = 5\n");
        assert!(e.starts_with("t.toml:2:") && e.contains("symmetry"), "{e}");
        let e = err("name = \"x\"\n[problem]\nfamily = \"queens\"\nn = 0\n");
        assert!(
            e.starts_with("t.toml:2:") && e.contains("out of range"),
            "{e}"
        );
        let e = err(
            "name = \"x\"\nsymmetry_factor = 3\n[problem]\nfamily = \"sudoku\"\n\
                     box_rows = 2\nbox_cols = 2\nfix_first_row = true\n",
        );
        assert!(
            e.starts_with("t.toml:2:") && e.contains("contradicts"),
            "{e}"
        );
        let e = err("name = \"x\"\nsymmetry_factor = 0\n[problem]\nfamily = \"queens\"\nn = 5\n");
        assert!(e.starts_with("t.toml:2:") && e.contains("positive"), "{e}");
        let e = err(
            "name = \"x\"\n[problem]\nfamily = \"queens\"\nn = 5\n[partition]\n\
                     audit_share = 2.0\n",
        );
        assert!(
            e.starts_with("t.toml:5:") && e.contains("audit_share"),
            "{e}"
        );
        assert!(err("").contains("nothing to count"));
        let e = err("[problem]\nfamily = \"dlx\"\nfile = \"missing.dlx\"\n");
        assert!(e.contains("needs a top-level `name`"), "{e}");
        let e = err("name = \"x\"\n[problem]\nfamily = \"dlx\"\nfile = \"missing.dlx\"\n");
        assert!(
            e.starts_with("t.toml:2:") && e.contains("missing.dlx"),
            "{e}"
        );
    }

    #[test]
    fn a_large_factor_goes_as_a_string() {
        let jobs = parse(
            Path::new("t.toml"),
            "name = \"x\"\nsymmetry_factor = \"340282366920938463463374607431768211455\"\n\
             [problem]\nfamily = \"queens\"\nn = 4\n",
        )
        .unwrap();
        assert_eq!(jobs[0].symmetry_factor, u128::MAX);
    }

    #[test]
    fn every_shipped_spec_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                match load_any(&path).unwrap_or_else(|e| panic!("{e:#}")) {
                    AnySpec::Count(spec) => assert!(!spec.jobs.is_empty(), "{}", path.display()),
                    AnySpec::Bench(spec) => assert!(!spec.tasks().is_empty(), "{}", path.display()),
                }
                n += 1;
            }
        }
        assert!(n >= 10, "only {n} specs in {}", dir.display());
    }
}
