//! Counting specs: TOML files naming counting jobs (bench-specs/README.md documents the format).
//!
//! A file holds one job (top-level `name`, `[problem]`, optional `symmetry_factor` and
//! `[partition]`) or a suite of jobs (`[[job]]` tables with the same keys; a top-level
//! `[partition]` is the default of every job). `[problem]` is a
//! [`cores::problems::ProblemSpec`] (`family = "sudoku"`, ...) or `family = "dlx"` with
//! `file = "..."`, a problem in Knuth's DLX format, the path relative to the spec.
//!
//! Invariant: [`parse`] validates everything a job needs (TOML syntax, unknown keys, problem
//! parameters, the DLX file, the symmetry factor, the partition settings) before anything is
//! started or written; every failure is a user error naming the file, the line and the problem.

use std::path::{Path, PathBuf};

use cores::count::Count;
use cores::count_core::CoreSpec;
use cores::problems::{Built, ProblemSpec};
use cores::xcc::{OptionId, Problem};
use serde::de::Error as _;
use serde::Deserialize;

use super::lines::{blame_line, line_of};
use super::units::{UnitsEntry, WeightedUnits};
use crate::exit::user_error;

/// One counting job, ready to submit.
#[derive(Debug, Clone)]
pub struct JobSpec {
    pub name: String,
    pub problem: Problem,
    pub prefix: Vec<OptionId>,
    /// Counts are multiplied by this for the full total (1: none).
    pub symmetry_factor: Count,
    /// What the factor stands for, e.g. "sudoku 2x3 fixed-first-row".
    pub label: String,
    pub partition: Partition,
    /// The job as a list of weighted units (`[units]`), and the core to count them with.
    pub units: Option<WeightedUnits>,
    /// The core the job's units are counted with: `[units]`'s, else the engine (`run`'s
    /// problem arguments choose their own: `crate::core_arg`).
    pub core: CoreSpec,
    /// The total the job must reach (`expected_total`: counted or weighted, times the
    /// symmetry factor), from the literature; `run` fails when it differs.
    pub expected_total: Option<Count>,
    /// An orbit count's expected orbits (`expected_orbits`: the weighted sum over the group's
    /// order), from the literature; `run` fails when it differs or does not divide.
    pub expected_orbits: Option<Count>,
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
    /// The core that counts the units (a job without `[units]`): `dlx`, `queens`,
    /// `sudoku-bands` or `sudoku-groups`; default the family's, as `run` with the problem's
    /// arguments chooses (the bitboard queens core for `queens`, else the engine).
    pub core: Option<String>,
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
            core: self.core.clone().or_else(|| default.core.clone()),
        }
    }

    pub fn check(&self) -> Result<(), String> {
        if let Some(core) = &self.core {
            if !super::units::CORE_NAMES.contains(&core.as_str()) {
                return Err(format!(
                    "core = \"{core}\" is not a core (expected one of {})",
                    super::units::CORE_NAMES.join(", ")
                ));
            }
        }
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
}

impl JobSpec {
    /// A job from a built problem (the `run` command's problem arguments).
    pub fn from_built(name: String, built: Built, partition: Partition, core: CoreSpec) -> Self {
        JobSpec {
            core,
            name,
            problem: built.problem,
            prefix: built.prefix,
            // A builder's factor is a product of small factorials: bounded, u128 at its edge.
            symmetry_factor: Count::from(built.symmetry_factor),
            label: built.label,
            partition,
            units: None,
            expected_total: None,
            expected_orbits: None,
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

/// A symmetry factor or an expected figure: a positive TOML integer, or a decimal string
/// (of any size) for values past i64.
#[derive(Debug, Clone)]
struct Factor(Count);

impl<'de> Deserialize<'de> for Factor {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Text(String),
        }
        let n = match Raw::deserialize(d)? {
            Raw::Int(i) => u64::try_from(i)
                .map(Count::from)
                .map_err(|_| format!("{i} is negative")),
            Raw::Text(s) => s.trim().parse::<Count>().map_err(|e| e.to_string()),
        };
        match n {
            Ok(n) if !n.is_zero() => Ok(Factor(n)),
            Ok(_) => Err(D::Error::custom("must be a positive integer, got 0")),
            Err(e) => Err(D::Error::custom(format!(
                "must be a positive integer (or a decimal string past 2^63): {e}"
            ))),
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
    expected_orbits: Option<toml::Spanned<Factor>>,
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
    expected_orbits: Option<toml::Spanned<Factor>>,
    #[serde(default)]
    job: Vec<toml::Spanned<RawJob>>,
    /// A suite's benchmark jobs (`[[benchmark]]`), read by `spec::bench`.
    #[serde(default, rename = "benchmark")]
    _benchmarks: Vec<toml::Table>,
}

/// The figures a spec expects of its job `name` (`expected_total`, `expected_orbits`), read
/// from a spec's text as stored with its job (for reports, which have the database only).
/// `None` when the text is not a spec with that job.
pub fn expected(text: &str, name: &str) -> Option<(Option<Count>, Option<Count>)> {
    #[derive(Deserialize)]
    struct Job {
        name: Option<String>,
        expected_total: Option<Factor>,
        expected_orbits: Option<Factor>,
    }
    #[derive(Deserialize)]
    struct File {
        #[serde(flatten)]
        top: Job,
        #[serde(default)]
        job: Vec<Job>,
    }
    let file: File = toml::from_str(text).ok()?;
    std::iter::once(file.top)
        .chain(file.job)
        .find(|j| j.name.as_deref() == Some(name))
        .map(|j| {
            (
                j.expected_total.map(|f| f.0),
                j.expected_orbits.map(|f| f.0),
            )
        })
}

/// The keys of a job beside its name and problem.
struct JobKeys {
    factor: Option<toml::Spanned<Factor>>,
    partition: Partition,
    units: Option<toml::Spanned<UnitsEntry>>,
    expected_total: Option<Factor>,
    expected_orbits: Option<toml::Spanned<Factor>>,
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
                    expected_orbits: raw.expected_orbits,
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
                        expected_orbits: j.expected_orbits,
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
        (None, true) if !raw._benchmarks.is_empty() => {}
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
        expected_orbits,
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
    let family_spec = match &entry {
        ProblemEntry::Family(spec) => Some(spec.clone()),
        ProblemEntry::Dlx(_) => None,
    };
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
    // A resumed ledger, or the total's ledger of an orbit count, was counted on one problem:
    // never import its counts into another.
    if let Some((u, offset)) = &units {
        let resumed = u.resume.as_ref().and_then(|r| r.problem.as_ref());
        let total = u
            .orbits
            .as_ref()
            .and_then(|o| o.identity.as_ref())
            .and_then(|(_, t)| t.problem.as_ref());
        if let Some((want, from)) = resumed.or(total) {
            let got = cores::bench::sha256_hex(&cores::xcc::write_dlx(&built.problem));
            if &got != want {
                let what = if resumed.is_some() {
                    "resumes a ledger"
                } else {
                    "imports the total of a ledger"
                };
                return Err(at(
                    *offset,
                    format!(
                        "[units] {what} counted on another problem: {from} names problem \
                         {want}, this spec's problem is {got}"
                    ),
                ));
            }
        }
    }
    let orbit_job = units.as_ref().is_some_and(|(u, _)| u.orbits.is_some());
    if let (Some(e), false) = (&expected_orbits, orbit_job) {
        return Err(at(
            e.span().start,
            "expected_orbits belongs to an orbit count ([units] generator = \"sudoku-orbits\")"
                .into(),
        ));
    }
    // The factor of [units] (a generator's, or a ledger's `factor` column) is the one its
    // weights were made for: a spec that states another is refused.
    let generated = units
        .as_ref()
        .and_then(|(u, _)| u.symmetry_factor.clone().map(|f| (f, u.label.clone())));
    let symmetry_factor = match (factor, generated) {
        (None, Some((f, _))) => f,
        (Some(f), Some((g, label))) if f.get_ref().0 != g => {
            return Err(at(
                f.span().start,
                format!(
                    "symmetry_factor = {} contradicts the factor {g} of [units] ({label})",
                    f.get_ref().0
                ),
            ))
        }
        (factor, _) => match factor {
            // A builder's factor is a product of small factorials: bounded, u128 at its edge.
            None => Count::from(built.symmetry_factor),
            Some(f) => {
                let declared = f.get_ref().0.clone();
                if built.symmetry_factor != 1 && Count::from(built.symmetry_factor) != declared {
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
    // The core: [units]' own, else [partition]'s `core`, else the family's default.
    let core =
        match (&units, &partition.core) {
            (Some((_, offset)), Some(_)) => return Err(at(
                *offset,
                "[partition] core applies to a job the coordinator cuts; with [units] name the \
                 core in [units]"
                    .into(),
            )),
            (Some((u, _)), None) => u.core,
            (None, Some(name)) => super::units::named_core(name, family_spec.as_ref())
                .map_err(|m| at(problem_at, format!("[partition] {m}")))?,
            (None, None) => super::units::default_core(family_spec.as_ref(), &built.problem),
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
        core,
        units: units.map(|(u, _)| u),
        expected_total: expected_total.map(|f| f.0),
        expected_orbits: expected_orbits.map(|f| f.into_inner().0),
    })
}

/// Reads a DLX file into a [`Built`] with no prefix and factor 1.
pub fn load_dlx(path: &std::path::Path) -> anyhow::Result<Built> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| user_error(format!("{}: cannot read: {e}", path.display())))?;
    let problem = cores::xcc::parse_dlx(&text)
        .map_err(|e| user_error(format!("{}:{}: {}", path.display(), e.line, e.message())))?;
    Ok(Built {
        problem,
        picture: cores::problems::Picture::Options,
        prefix: Vec::new(),
        symmetry_factor: 1,
        label: format!("dlx {}", path.display()),
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
        // 6! relabellings of the first row (OEIS A291187: 28,200,960 grids / 720).
        assert_eq!(jobs[0].symmetry_factor, Count::from(720u32));
        let p = &jobs[0].partition;
        assert_eq!(
            (p.unit_node_budget, p.unit_time_budget_seconds),
            (Some(5000), Some(2.5))
        );
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
    fn the_expected_figures_of_a_stored_spec_are_found_by_job_name() {
        let one = "name = \"a\"\nexpected_total = 288\nexpected_orbits = \"2\"\n[problem]\n";
        let c = |n: u32| Some(Count::from(n));
        assert_eq!(expected(one, "a"), Some((c(288), c(2))));
        assert_eq!(expected(one, "b"), None);
        let suite = "[[job]]\nname = \"a\"\n[[job]]\nname = \"b\"\nexpected_total = \"5\"\n";
        assert_eq!(expected(suite, "b"), Some((c(5), None)));
        assert_eq!(expected(suite, "a"), Some((None, None)));
        assert_eq!(expected("not toml [", "a"), None);
    }

    #[test]
    fn a_large_factor_goes_as_a_string() {
        let jobs = parse(
            Path::new("t.toml"),
            "name = \"x\"\nsymmetry_factor = \"340282366920938463463374607431768211455\"\n\
             [problem]\nfamily = \"queens\"\nn = 4\n",
        )
        .unwrap();
        assert_eq!(jobs[0].symmetry_factor, Count::from(u128::MAX));
    }

    #[test]
    fn figures_past_u128_are_read_exact_and_bad_ones_say_why() {
        // The 12x12 Sudoku (2x6 boxes) count, past 2^128, as `expected_total`.
        let n = "38296278920738107863746324732012492486187417600000";
        let text = format!(
            "name = \"x\"\nexpected_total = \"{n}\"\nsymmetry_factor = \"{n}\"\n\
             [problem]\nfamily = \"queens\"\nn = 4\n"
        );
        let jobs = parse(Path::new("t.toml"), &text).unwrap();
        assert_eq!(jobs[0].expected_total.as_ref().unwrap().to_string(), n);
        assert_eq!(jobs[0].symmetry_factor.to_string(), n);
        for (bad, why) in [
            ("\"-5\"", "without a sign"),
            ("\"12x\"", "'x'"),
            ("0", "got 0"),
        ] {
            let text = format!(
                "name = \"x\"\nexpected_total = {bad}\n[problem]\nfamily = \"queens\"\nn = 4\n"
            );
            let e = format!("{:#}", parse(Path::new("t.toml"), &text).unwrap_err());
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    /// A job the coordinator cuts is counted by its family's core unless `[partition] core`
    /// says otherwise: a queens spec by the bitboard queens core (as `run queens N`), a Sudoku
    /// spec by the engine; a core that cannot count the problem, an unknown core, or a
    /// `[partition] core` beside `[units]` is refused at its line.
    #[test]
    fn a_cut_job_takes_its_familys_core_unless_partition_names_one() {
        let core = |text: &str| parse(Path::new("t.toml"), text).unwrap()[0].core;
        let queens = "name = \"q\"\n[problem]\nfamily = \"queens\"\nn = 8\n";
        assert_eq!(core(queens), CoreSpec::Queens { n: 8 });
        assert_eq!(
            core(&format!("{queens}[partition]\ncore = \"dlx\"\n")),
            CoreSpec::Dlx
        );
        let sudoku = "name = \"s\"\n[problem]\nfamily = \"sudoku\"\nbox_rows = 2\nbox_cols = 2\n";
        assert_eq!(core(sudoku), CoreSpec::Dlx);
        assert_eq!(
            core(&format!("{sudoku}[partition]\ncore = \"sudoku-bands\"\n")),
            CoreSpec::SudokuBands {
                box_rows: 2,
                box_cols: 2
            }
        );
        let e = err(&format!("{sudoku}[partition]\ncore = \"queens\"\n"));
        assert!(
            e.starts_with("t.toml:2:") && e.contains("[partition] core `queens`"),
            "{e}"
        );
        let e = err(&format!("{queens}[partition]\ncore = \"fast\"\n"));
        assert!(
            e.starts_with("t.toml:5:") && e.contains("\"fast\" is not a core"),
            "{e}"
        );
        let e = err(&format!(
            "{queens}[units]\ngenerator = \"queens-first-row\"\n[partition]\ncore = \"dlx\"\n"
        ));
        assert!(
            e.starts_with("t.toml:5:") && e.contains("name the core in [units]"),
            "{e}"
        );
    }
}
