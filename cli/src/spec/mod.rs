//! Bench specs (bench-specs/README.md documents the format): TOML files naming counting jobs
//! (`count`, with `[units]` read by `units`) and benchmark jobs (`bench`). Every reader
//! returns domain types (problems, prefixes, factors, `coordinator::job::BenchTask`s); the
//! requests that go on the wire are built elsewhere, from these.
//!
//! Invariant: [`load`] checks everything a spec asks for before anything is started or
//! written; every failure is a user error naming the file, the line and the problem.

use std::path::Path;

use crate::exit::user_error;

pub mod bench;
pub(crate) mod cache;
pub mod configs;
pub mod count;
mod lines;
pub mod mzn_suite;
pub mod orbits;
pub mod three_band;
pub mod two_band;
pub mod units;

pub use bench::BenchSpec;
pub use count::{JobSpec, Partition};

/// A spec file: its text (kept with every job submitted from it), its counting jobs and its
/// benchmark jobs, each in file order.
#[derive(Debug)]
pub struct Spec {
    pub text: String,
    pub jobs: Vec<JobSpec>,
    pub benchmarks: Vec<BenchSpec>,
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| user_error(format!("{}: cannot read the spec: {e}", path.display())))
}

/// Reads and checks the spec at `path`: a benchmark spec when it has a `[benchmark]` table,
/// else counting jobs.
pub fn load(path: &Path) -> anyhow::Result<Spec> {
    let text = read(path)?;
    if bench::is_benchmark(&text) {
        let b = bench::parse(path, &text)?;
        return Ok(Spec {
            text,
            jobs: Vec::new(),
            benchmarks: vec![b],
        });
    }
    let jobs = count::parse(path, &text)?;
    let benchmarks = suite_benchmarks(path, &text)?;
    Ok(Spec {
        text,
        jobs,
        benchmarks,
    })
}

/// The `[[benchmark]]` tables of a suite: each holds a benchmark spec's `name` beside its
/// `[benchmark]` keys, and is read as that spec.
fn suite_benchmarks(path: &Path, text: &str) -> anyhow::Result<Vec<BenchSpec>> {
    let table: toml::Table = text
        .parse()
        .map_err(|e| user_error(format!("{}: {e}", path.display())))?;
    let Some(list) = table.get("benchmark").and_then(|b| b.as_array()) else {
        return Ok(Vec::new());
    };
    let mut out: Vec<BenchSpec> = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let shown = format!("{} [[benchmark]] {}", path.display(), i + 1);
        let mut keys = entry
            .as_table()
            .cloned()
            .ok_or_else(|| user_error(format!("{shown}: not a table")))?;
        let name = keys
            .remove("name")
            .ok_or_else(|| user_error(format!("{shown}: no `name`")))?;
        let mut one = toml::Table::new();
        one.insert("name".into(), name);
        one.insert("benchmark".into(), toml::Value::Table(keys));
        let synthetic = toml::to_string(&one)?;
        let b =
            bench::parse(path, &synthetic).map_err(|e| user_error(format!("{shown}: {e:#}")))?;
        if out.iter().any(|o| o.name == b.name) {
            return Err(user_error(format!(
                "{shown}: name `{}` is used twice",
                b.name
            )));
        }
        out.push(BenchSpec {
            text: text.to_owned(),
            ..b
        });
    }
    Ok(out)
}

impl Spec {
    /// Generates the units its jobs put off at loading (`WeightedUnits::pending`, e.g. a
    /// two-band count's classes), before they are submitted or listed.
    pub fn expand_units(&mut self) -> anyhow::Result<()> {
        for job in &mut self.jobs {
            if let Some(u) = job.units.as_mut().filter(|u| u.pending.is_some()) {
                u.expand()
                    .map_err(|e| user_error(format!("job `{}`: [units]: {e}", job.name)))?;
                job.label = u.label.clone();
            }
        }
        Ok(())
    }
}

/// Reads the spec at `path`, which must hold counting jobs only, its units generated.
pub fn load_count(path: &Path) -> anyhow::Result<Spec> {
    let mut spec = load(path)?;
    if !spec.benchmarks.is_empty() {
        return Err(user_error(format!(
            "{}: a benchmark spec ([benchmark]) is not a counting job here",
            path.display()
        )));
    }
    spec.expand_units()?;
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_spec_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let spec = load(&path).unwrap_or_else(|e| panic!("{e:#}"));
                let tasks: usize = spec.benchmarks.iter().map(|b| b.tasks().len()).sum();
                assert!(spec.jobs.len() + tasks > 0, "{}", path.display());
                n += 1;
            }
        }
        assert!(n >= 10, "only {n} specs in {}", dir.display());
    }

    /// The 12x12 spec (2x6 boxes) loads with its expected total, past 2^128 (Pettersen 2006;
    /// `results/reference/sudoku-12x12-2x6/README.md`), and its classes put off: enumerating
    /// them takes minutes.
    #[test]
    fn the_12x12_spec_loads_a_total_past_2_128_with_its_classes_put_off() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/sudoku-12x12-2x6.toml");
        let spec = load(&path).unwrap();
        let job = &spec.jobs[0];
        let want = "38296278920738107863746324732012492486187417600000";
        let total = job.expected_total.as_ref().unwrap();
        assert_eq!(total.to_string(), want);
        assert_eq!(total.bits(), 165);
        assert_eq!(job.symmetry_factor, cores::count::Count::one());
        let u = job.units.as_ref().unwrap();
        assert!(u.units.is_empty() && u.class_terms.is_none());
        assert!(matches!(
            u.pending,
            Some(units::Pending::TwoBand {
                parts: 16,
                resume: None,
                ..
            })
        ));
        assert_eq!(
            u.core,
            cores::count_core::CoreSpec::TwoBand {
                box_rows: 2,
                box_cols: 6
            }
        );
    }

    /// A two-band job's classes are enumerated by `expand_units`: at 6x6 their sizes E(C)
    /// sum to C(6,3)^3 = 8,000 (every top-band configuration, `cores::grids::two_band`).
    #[test]
    fn expand_units_enumerates_a_put_off_two_band_job() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.toml");
        std::fs::write(
            &path,
            "name = \"t\"\n[problem]\nfamily = \"sudoku\"\nbox_rows = 2\nbox_cols = 3\n\
             [units]\ngenerator = \"two-band\"\n",
        )
        .unwrap();
        let mut spec = load(&path).unwrap();
        assert!(spec.jobs[0].units.as_ref().unwrap().units.is_empty());
        spec.expand_units().unwrap();
        let job = &spec.jobs[0];
        let u = job.units.as_ref().unwrap();
        assert!(u.pending.is_none());
        let classes = u.class_terms.as_ref().unwrap();
        assert_eq!(classes.len(), u.units.len());
        let sizes: cores::count::Count = u.units.iter().map(|(_, w)| w).sum();
        assert_eq!(sizes, cores::count::Count::from(8000u32));
        assert_eq!(job.label, u.label);
        assert!(
            job.label.contains(&format!("{} classes", classes.len())),
            "{}",
            job.label
        );
    }
}
