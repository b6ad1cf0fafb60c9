//! Benchmark specs: a TOML file with a `[benchmark]` table naming a suite of domino instances,
//! the solver configurations and the limits (bench-specs/README.md documents the format).
//!
//! Invariant: [`parse`] checks everything before anything is submitted: the TOML, unknown keys,
//! the suite folder and every batch file in it (file:line errors from the instance reader),
//! configuration names, instance ids, limits. The submitted job carries every batch file and
//! every model file frozen with its SHA-256, and one task per (instance, configuration) pair.

use std::path::{Path, PathBuf};

use coordinator::job::{BenchTask, FrozenFile};
use cores::domino::{parse_batch, Instance};
use serde::Deserialize;

use super::lines::line_of;
use crate::exit::user_error;

/// A loaded benchmark spec, ready to submit.
#[derive(Debug, Clone)]
pub struct BenchSpec {
    pub name: String,
    /// The spec file's text (kept with the job).
    pub text: String,
    pub batches: Vec<Batch>,
    /// Configuration names, in the order given.
    pub configs: Vec<String>,
    pub time_limit_seconds: f64,
    pub memory_limit_bytes: Option<u64>,
    /// Only these instance ids (`None`: all).
    pub instances: Option<Vec<String>>,
}

/// One batch file of the suite.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The file name (`batch01.txt`).
    pub name: String,
    pub text: String,
    pub instances: Vec<Instance>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    name: String,
    benchmark: toml::Spanned<RawBench>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBench {
    /// A folder of batch files (`batch*.txt`), relative to the spec.
    suite: PathBuf,
    /// Default: every configuration.
    configs: Option<Vec<String>>,
    #[serde(default = "default_time_limit")]
    time_limit_seconds: f64,
    memory_limit_mb: Option<u64>,
    instances: Option<Vec<String>>,
}

/// Issue 4: "Every run has a time limit (spec default 300 s)".
fn default_time_limit() -> f64 {
    300.0
}

/// Whether the TOML `text` is a benchmark spec (has a top-level `benchmark` table; a suite's
/// `[[benchmark]]` list is not one).
pub fn is_benchmark(text: &str) -> bool {
    text.parse::<toml::Table>()
        .is_ok_and(|t| t.get("benchmark").is_some_and(|b| b.is_table()))
}

/// Parses and checks benchmark spec `text` read from `path`.
pub fn parse(path: &Path, text: &str) -> anyhow::Result<BenchSpec> {
    let shown = path.display();
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(1, |s| line_of(text, s.start));
        user_error(format!("{shown}:{line}: {}", e.message()))
    })?;
    let at = line_of(text, raw.benchmark.span().start);
    let fail = |msg: String| user_error(format!("{shown}:{at}: [benchmark] {msg}"));
    let b = raw.benchmark.into_inner();
    if raw.name.trim().is_empty() {
        return Err(user_error(format!("{shown}:1: `name` must not be empty")));
    }
    if let Err(e) = proto::limits::check_time_limit(b.time_limit_seconds) {
        return Err(fail(format!(
            "time_limit_seconds = {}: {e}",
            b.time_limit_seconds
        )));
    }
    let memory_limit_bytes = match b.memory_limit_mb {
        None => None,
        Some(mb) => match mb.checked_mul(1 << 20) {
            Some(bytes) if proto::limits::check_memory_limit(bytes).is_ok() => Some(bytes),
            _ => {
                return Err(fail(format!(
                    "memory_limit_mb = {mb} is above {} MB (1 PiB)",
                    proto::limits::MAX_MEMORY_LIMIT_BYTES >> 20
                )))
            }
        },
    };
    let configs: Vec<String> = match b.configs {
        Some(c) if c.is_empty() => return Err(fail("configs is empty".into())),
        Some(c) => c,
        None => worker::bench::CONFIGS
            .iter()
            .map(|c| c.name.to_string())
            .collect(),
    };
    let known: Vec<&str> = worker::bench::CONFIGS.iter().map(|c| c.name).collect();
    for (i, c) in configs.iter().enumerate() {
        if !known.contains(&c.as_str()) {
            return Err(fail(format!(
                "unknown configuration `{c}` (known: {})",
                known.join(", ")
            )));
        }
        if configs[..i].contains(c) {
            return Err(fail(format!("configuration `{c}` is listed twice")));
        }
    }
    let dir = path.parent().unwrap_or(Path::new(".")).join(&b.suite);
    let batches = read_suite(&dir).map_err(|e| fail(format!("{e:#}")))?;
    if let Some(ids) = &b.instances {
        for id in ids {
            if !batches
                .iter()
                .any(|bt| bt.instances.iter().any(|i| &i.id == id))
            {
                return Err(fail(format!("instance `{id}` is not in {}", dir.display())));
            }
        }
    }
    Ok(BenchSpec {
        name: raw.name,
        text: text.to_string(),
        batches,
        configs,
        time_limit_seconds: b.time_limit_seconds,
        memory_limit_bytes,
        instances: b.instances,
    })
}

/// Reads every `*.txt` batch file of a suite folder, in name order.
pub fn read_suite(dir: &Path) -> anyhow::Result<Vec<Batch>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("cannot read the suite folder {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        anyhow::bail!("no batch files (*.txt) in {}", dir.display());
    }
    let mut batches = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for p in paths {
        let text = std::fs::read_to_string(&p)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
        let instances = parse_batch(&text)
            .map_err(|e| anyhow::anyhow!("{}:{}: {}", p.display(), e.line, e.problem))?;
        for i in &instances {
            if !seen.insert(i.id.clone()) {
                anyhow::bail!(
                    "{}: instance id `{}` appears twice in the suite",
                    p.display(),
                    i.id
                );
            }
        }
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        batches.push(Batch {
            name,
            text,
            instances,
        });
    }
    Ok(batches)
}

fn frozen(kind: &str, name: &str, text: &str) -> FrozenFile {
    FrozenFile {
        kind: kind.into(),
        name: name.into(),
        sha256: coordinator::store::sha256_hex(text),
        text: text.into(),
    }
}

impl BenchSpec {
    /// The (instance, configuration) pairs, batch by batch, instance by instance.
    pub fn tasks(&self) -> Vec<BenchTask> {
        let mut out = Vec::new();
        for b in &self.batches {
            // The instance's own line, as frozen (its hash is checked against the batch).
            let lines: Vec<&str> = b.text.lines().filter(|l| !l.trim().is_empty()).collect();
            for (inst, line) in b.instances.iter().zip(lines) {
                if let Some(ids) = &self.instances {
                    if !ids.contains(&inst.id) {
                        continue;
                    }
                }
                for c in &self.configs {
                    out.push(BenchTask {
                        instance_id: inst.id.clone(),
                        instance_json: line.trim().to_string(),
                        instance_sha256: coordinator::store::sha256_hex(line.trim()),
                        config: c.clone(),
                        time_limit_seconds: self.time_limit_seconds,
                        memory_limit_bytes: self.memory_limit_bytes,
                        batch: b.name.clone(),
                    });
                }
            }
        }
        out
    }

    /// The batch files and every model file, frozen with their hashes.
    pub fn files(&self) -> Vec<FrozenFile> {
        let mut files: Vec<FrozenFile> = self
            .batches
            .iter()
            .map(|b| frozen("batch", &b.name, &b.text))
            .collect();
        files.extend(
            worker::bench::models::MODELS
                .iter()
                .map(|m| frozen("model", m.name, m.text)),
        );
        files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/spec.toml")
    }

    fn err(text: &str) -> String {
        format!("{:#}", parse(&suite(), text).unwrap_err())
    }

    #[test]
    fn a_spec_names_the_suite_configurations_and_limits() {
        let s = parse(
            &suite(),
            "name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\n\
             configs = [\"native\", \"clingo\"]\ntime_limit_seconds = 5\n\
             instances = [\"b01-e1\", \"b10-h2\"]\nmemory_limit_mb = 512\n",
        )
        .unwrap();
        // The public suite: 10 batch files of 10 instances (its README).
        assert_eq!(s.batches.len(), 10);
        assert_eq!(
            s.batches.iter().map(|b| b.instances.len()).sum::<usize>(),
            100
        );
        let t = s.tasks();
        let pairs: Vec<(&str, &str)> = t
            .iter()
            .map(|t| (t.instance_id.as_str(), t.config.as_str()))
            .collect();
        assert_eq!(
            pairs,
            vec![
                ("b01-e1", "native"),
                ("b01-e1", "clingo"),
                ("b10-h2", "native"),
                ("b10-h2", "clingo")
            ]
        );
        assert_eq!(t[0].memory_limit_bytes, Some(512 << 20));
        assert_eq!(
            t[0].instance_sha256,
            coordinator::store::sha256_hex(&t[0].instance_json)
        );
        let files = s.files();
        assert_eq!(files.iter().filter(|f| f.kind == "batch").count(), 10);
        assert_eq!(
            files.iter().filter(|f| f.kind == "model").count(),
            worker::bench::models::MODELS.len()
        );
    }

    #[test]
    fn every_configuration_and_300_seconds_by_default() {
        let s = parse(
            &suite(),
            "name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\n",
        )
        .unwrap();
        assert_eq!(s.configs.len(), worker::bench::CONFIGS.len());
        assert_eq!(s.time_limit_seconds, 300.0);
        assert_eq!(s.tasks().len(), 100 * worker::bench::CONFIGS.len());
    }

    #[test]
    fn limits_past_their_bounds_are_errors_not_overflows() {
        let e = err(
            "name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\ntime_limit_seconds = 1e12\n",
        );
        assert!(e.contains("spec.toml:2:") && e.contains("a week"), "{e}");
        let e = err(
            "name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\n\
             memory_limit_mb = 9223372036854775807\n",
        );
        assert!(e.contains("memory_limit_mb") && e.contains("1 PiB"), "{e}");
    }

    #[test]
    fn errors_name_the_file_line_and_problem() {
        let e = err(
            "name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\nconfigs = [\"cplex\"]\n",
        );
        assert!(e.contains("spec.toml:2:") && e.contains("cplex"), "{e}");
        let e = err("name = \"q\"\n[benchmark]\nsuite = \"nowhere\"\n");
        assert!(e.contains("spec.toml:2:") && e.contains("nowhere"), "{e}");
        let e = err(
            "name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\ninstances = [\"zz\"]\n",
        );
        assert!(e.contains("`zz`"), "{e}");
        let e = err(
            "name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\ntime_limit_seconds = 0\n",
        );
        assert!(e.contains("time_limit_seconds"), "{e}");
        let e = err("name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\ntimelimit = 3\n");
        assert!(e.contains("spec.toml:4:") && e.contains("timelimit"), "{e}");
    }

    #[test]
    fn a_bad_batch_file_is_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("batch01.txt"),
            "{\"id\": \"a\", \"difficulty\": \"easy\", \"n\": 5, \"k\": 2, \"tiles\": [[0,1,2]]}\n\
             {\"id\": \"b\", \"difficulty\": \"easy\", \"n\": 5, \"k\": 2, \"tiles\": [[0,1,7]]}\n",
        )
        .unwrap();
        let spec = dir.path().join("s.toml");
        let e = format!(
            "{:#}",
            parse(&spec, "name = \"q\"\n[benchmark]\nsuite = \".\"\n").unwrap_err()
        );
        assert!(e.contains("batch01.txt:2:"), "{e}");
    }
}
