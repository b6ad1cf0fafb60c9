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

/// Reads the spec at `path`, which must hold counting jobs only.
pub fn load_count(path: &Path) -> anyhow::Result<Spec> {
    let spec = load(path)?;
    if !spec.benchmarks.is_empty() {
        return Err(user_error(format!(
            "{}: a benchmark spec ([benchmark]) is not a counting job here",
            path.display()
        )));
    }
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
}
