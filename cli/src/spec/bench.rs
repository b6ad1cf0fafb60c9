//! Benchmark specs: a TOML file with a `[benchmark]` table naming a problem family and its
//! suite (domino: a folder of batch files; Sudoku: puzzle files; a MiniZinc suite: a model,
//! its checker and data files, `super::mzn_suite`), the solver configurations and the limits
//! (bench-specs/README.md documents the format).
//!
//! Invariant: [`parse`] checks everything before anything is submitted: the TOML, unknown keys
//! and keys of the other family, the suite folder and every batch file in it, every puzzle of
//! every puzzle file (file:line errors from the family's reader), configuration names and
//! families, instance ids, limits. The submitted job carries every batch (or puzzle) file and
//! every model file frozen with its SHA-256, and one task per (instance, configuration) pair,
//! a Sudoku instance being a slice of consecutive puzzles of one file.

use cores::label::Label;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use coordinator::job::{BenchTask, FileKind, FrozenFile};
use cores::bench::{ConfigDef, Family};
use cores::domino::{parse_batch, Instance};
use cores::problems::Variant;
use cores::sudoku::bench::{Slice, SlicePuzzle};
use cores::sudoku::{PuzzleReader, Shape};
use serde::Deserialize;

use super::configs::{declared, RawConfig};
use super::lines::line_of;
use super::mzn_suite::{MznSuite, Paths};
use crate::exit::user_error;

/// A loaded benchmark spec, ready to submit.
#[derive(Debug, Clone)]
pub struct BenchSpec {
    pub name: String,
    /// The spec file's text (kept with the job).
    pub text: String,
    /// Configuration names, in the order given.
    pub configs: Vec<String>,
    /// The definition of each of `configs`, in the same order (built in or declared).
    pub defs: Vec<ConfigDef>,
    /// The declared configurations' own files (frozen name, text).
    pub declared_files: Vec<(String, String)>,
    /// Per unit: one domino instance, or one Sudoku slice.
    pub time_limit_seconds: f64,
    pub memory_limit_bytes: Option<u64>,
    pub suite: Suite,
}

/// What a benchmark runs on, by family.
#[derive(Debug, Clone)]
pub enum Suite {
    Domino {
        batches: Vec<Batch>,
        /// Only these instance ids (`None`: all).
        instances: Option<Vec<String>>,
    },
    Sudoku(PuzzleSuite),
    MznSuite(MznSuite),
}

/// One batch file of a domino suite.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The file name (`batch01.txt`).
    pub name: String,
    pub text: String,
    pub instances: Vec<Instance>,
}

/// The puzzle files of a Sudoku benchmark and how they are cut into units.
#[derive(Debug, Clone)]
pub struct PuzzleSuite {
    pub files: Vec<PuzzleFile>,
    pub box_rows: usize,
    pub box_cols: usize,
    pub variants: Vec<Variant>,
    /// Solve with the uniqueness check (count up to two); default true.
    pub unique: bool,
    /// Random paths of each puzzle's difficulty estimate (0: none).
    pub difficulty_samples: u64,
    /// The configuration whose units measure each puzzle's difficulty (once per puzzle: it
    /// does not depend on the solver).
    pub difficulty_by: String,
    /// Puzzles per unit, by configuration.
    pub unit_puzzles: BTreeMap<String, usize>,
}

/// One puzzle file: its whole text (frozen) and the puzzles the benchmark runs.
#[derive(Debug, Clone)]
pub struct PuzzleFile {
    /// The file name (`royle_17clue_49151.txt`).
    pub name: String,
    pub text: String,
    pub puzzles: Vec<SlicePuzzle>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    name: String,
    benchmark: toml::Spanned<RawBench>,
    /// Declared configurations (`[[config]]`).
    #[serde(default)]
    config: Vec<toml::Spanned<RawConfig>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBench {
    /// `domino` (the default), `sudoku` or `mzn-suite`.
    family: Option<String>,
    /// MiniZinc suite: the model file, or its files in order, relative to the spec.
    model: Option<Paths>,
    /// MiniZinc suite: the solution checker (`.mzc`).
    checker: Option<PathBuf>,
    /// MiniZinc suite: data files (`.dzn`, `.json`) or folders of them.
    data: Option<Vec<PathBuf>>,
    /// Domino: a folder of batch files (`batch*.txt`), relative to the spec.
    suite: Option<PathBuf>,
    /// Default: every configuration of the family.
    configs: Option<Vec<String>>,
    #[serde(default = "default_time_limit")]
    time_limit_seconds: f64,
    memory_limit_mb: Option<u64>,
    /// Domino and MiniZinc suite: only these instances.
    instances: Option<Vec<String>>,
    /// Sudoku: puzzle files (one puzzle a line), relative to the spec.
    puzzle_files: Option<Vec<PathBuf>>,
    /// Sudoku: the box shape (`3x3`); default: inferred from the first puzzle's length.
    #[serde(rename = "box")]
    box_shape: Option<String>,
    /// Sudoku: variants (`diagonal`, `hyper`, `disjoint`); they need `box`.
    variants: Option<Vec<Variant>>,
    /// Sudoku: the uniqueness check (default true).
    unique: Option<bool>,
    /// Sudoku: only the first N puzzles of each file.
    puzzles_per_file: Option<usize>,
    /// Sudoku: puzzles per unit for every configuration (default: each configuration's).
    unit_puzzles: Option<usize>,
    /// Sudoku: puzzles per unit of particular configurations.
    unit_puzzles_by_config: Option<BTreeMap<String, usize>>,
    /// Sudoku: random paths of the difficulty estimate per puzzle (default 32; 0: none).
    difficulty_samples: Option<u64>,
    /// Sudoku: the configuration whose units measure the difficulty (default: the first).
    difficulty_by: Option<String>,
}

/// Issue 4: "Every run has a time limit (spec default 300 s)".
fn default_time_limit() -> f64 {
    300.0
}

/// Random paths of a puzzle's difficulty estimate unless the spec says otherwise.
const DEFAULT_DIFFICULTY_SAMPLES: u64 = 32;

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
    let family = match b.family.as_deref() {
        None => Family::Domino,
        Some(f) => Family::parse(f).ok_or_else(|| {
            fail(format!(
                "unknown family `{f}` (known: {})",
                Family::ALL
                    .iter()
                    .map(|f| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?,
    };
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
    let declared =
        declared(path, text, family, raw.config).map_err(|e| user_error(format!("{e:#}")))?;
    let mut known: Vec<&str> = worker::bench::configs_of(family).map(|c| c.name).collect();
    for d in &declared {
        if !known.contains(&d.def.name.as_str()) {
            known.push(&d.def.name);
        }
    }
    if known.is_empty() {
        return Err(fail(format!(
            "a {family} benchmark has no built-in configurations: declare some (`[[config]]` \
             tables with `engine = \"minizinc\"`)"
        )));
    }
    let configs: Vec<String> = match &b.configs {
        Some(c) if c.is_empty() => return Err(fail("configs is empty".into())),
        Some(c) => c.clone(),
        None => known.iter().map(|c| c.to_string()).collect(),
    };
    for (i, c) in configs.iter().enumerate() {
        if !known.contains(&c.as_str()) {
            return Err(fail(format!(
                "unknown {family} configuration `{c}` (known: {})",
                known.join(", ")
            )));
        }
        if configs[..i].contains(c) {
            return Err(fail(format!("configuration `{c}` is listed twice")));
        }
    }
    let defs: Vec<ConfigDef> = configs
        .iter()
        .map(|c| match declared.iter().find(|d| &d.def.name == c) {
            Some(d) => d.def.clone(),
            None => worker::bench::config(c)
                .expect("a known configuration")
                .definition(),
        })
        .collect();
    let declared_files = declared
        .iter()
        .filter(|d| configs.contains(&d.def.name))
        .flat_map(|d| d.files.iter().cloned())
        .collect();
    let base = path.parent().unwrap_or(Path::new("."));
    let suite = match family {
        Family::Domino => domino_suite(&b, base).map_err(|e| fail(format!("{e:#}")))?,
        Family::Sudoku => {
            Suite::Sudoku(puzzle_suite(&b, base, &configs).map_err(|e| fail(format!("{e:#}")))?)
        }
        Family::MznSuite => {
            let suite = mzn_suite(&b, base).map_err(|e| fail(format!("{e:#}")))?;
            for d in &declared {
                super::mzn_suite::check_variant(&d.def, &d.files, suite.sense)
                    .map_err(|e| user_error(format!("{shown}: {e:#}")))?;
            }
            Suite::MznSuite(suite)
        }
    };
    Ok(BenchSpec {
        name: raw.name,
        text: text.to_string(),
        configs,
        defs,
        declared_files,
        time_limit_seconds: b.time_limit_seconds,
        memory_limit_bytes,
        suite,
    })
}

/// Refuses the keys of `family`'s spec that another family uses.
fn only_keys(family: Family, keys: &[(&str, bool)]) -> anyhow::Result<()> {
    for (key, given) in keys {
        if *given {
            anyhow::bail!("`{key}` is not a key of a {family} benchmark");
        }
    }
    Ok(())
}

/// The keys only a Sudoku benchmark has.
fn sudoku_keys(b: &RawBench) -> [(&'static str, bool); 9] {
    [
        ("puzzle_files", b.puzzle_files.is_some()),
        ("box", b.box_shape.is_some()),
        ("variants", b.variants.is_some()),
        ("unique", b.unique.is_some()),
        ("puzzles_per_file", b.puzzles_per_file.is_some()),
        ("unit_puzzles", b.unit_puzzles.is_some()),
        ("unit_puzzles_by_config", b.unit_puzzles_by_config.is_some()),
        ("difficulty_samples", b.difficulty_samples.is_some()),
        ("difficulty_by", b.difficulty_by.is_some()),
    ]
}

/// The keys only a MiniZinc suite has.
fn mzn_keys(b: &RawBench) -> [(&'static str, bool); 3] {
    [
        ("model", b.model.is_some()),
        ("checker", b.checker.is_some()),
        ("data", b.data.is_some()),
    ]
}

fn mzn_suite(b: &RawBench, base: &Path) -> anyhow::Result<MznSuite> {
    only_keys(Family::MznSuite, &[("suite", b.suite.is_some())])?;
    only_keys(Family::MznSuite, &sudoku_keys(b))?;
    super::mzn_suite::read(
        base,
        b.model.as_ref(),
        b.checker.as_deref(),
        b.data.as_deref(),
        b.instances.as_deref(),
    )
}

fn domino_suite(b: &RawBench, base: &Path) -> anyhow::Result<Suite> {
    only_keys(Family::Domino, &mzn_keys(b))?;
    only_keys(Family::Domino, &sudoku_keys(b))?;
    let Some(suite) = &b.suite else {
        anyhow::bail!("no `suite` (a folder of batch files)");
    };
    let dir = base.join(suite);
    let batches = read_suite(&dir)?;
    if let Some(ids) = &b.instances {
        for id in ids {
            if !batches
                .iter()
                .any(|bt| bt.instances.iter().any(|i| &i.id == id))
            {
                anyhow::bail!("instance `{id}` is not in {}", dir.display());
            }
        }
    }
    Ok(Suite::Domino {
        batches,
        instances: b.instances.clone(),
    })
}

fn puzzle_suite(b: &RawBench, base: &Path, configs: &[String]) -> anyhow::Result<PuzzleSuite> {
    only_keys(Family::Sudoku, &mzn_keys(b))?;
    only_keys(
        Family::Sudoku,
        &[
            ("suite", b.suite.is_some()),
            ("instances", b.instances.is_some()),
        ],
    )?;
    let paths = match &b.puzzle_files {
        Some(p) if !p.is_empty() => p,
        _ => anyhow::bail!("no `puzzle_files` (files of one puzzle a line)"),
    };
    let shape = match &b.box_shape {
        None => None,
        Some(text) => {
            let dims: Vec<usize> = text
                .split('x')
                .map(|d| d.trim().parse().ok())
                .collect::<Option<Vec<_>>>()
                .filter(|d| d.len() == 2)
                .ok_or_else(|| anyhow::anyhow!("box = \"{text}\": expected RxC, e.g. 3x3"))?;
            Some(Shape {
                variants: b.variants.clone().unwrap_or_default(),
                ..Shape::new(dims[0], dims[1])
            })
        }
    };
    if shape.is_none() && b.variants.as_ref().is_some_and(|v| !v.is_empty()) {
        anyhow::bail!("`variants` needs `box` (e.g. box = \"3x3\")");
    }
    let mut reader = PuzzleReader::new(shape.as_ref())?;
    let mut files: Vec<PuzzleFile> = Vec::new();
    let mut side = shape.as_ref().map(Shape::side);
    let mut dims = shape.as_ref().map(|s| (s.box_rows, s.box_cols));
    for p in paths {
        let path = base.join(p);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if files.iter().any(|f| f.name == name) {
            anyhow::bail!("two puzzle files are named {name}");
        }
        let mut puzzles = Vec::new();
        for (i, l) in text.lines().enumerate() {
            let t = l.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if b.puzzles_per_file.is_some_and(|n| puzzles.len() >= n) {
                break;
            }
            let puzzle = reader
                .parse_line(i + 1, t)
                .map_err(|e| anyhow::anyhow!("{}:{}: {}", path.display(), e.line, e.error))?;
            let g = &puzzle.geometry().shape;
            match dims {
                None => {
                    dims = Some((g.box_rows, g.box_cols));
                    side = Some(g.side());
                }
                Some(d) if d != (g.box_rows, g.box_cols) => anyhow::bail!(
                    "{}:{}: a {}x{} puzzle among {}x{} ones (one shape per benchmark)",
                    path.display(),
                    i + 1,
                    g.side(),
                    g.side(),
                    side.unwrap_or(0),
                    side.unwrap_or(0)
                ),
                Some(_) => {}
            }
            puzzles.push(SlicePuzzle::new(i + 1, t));
        }
        if puzzles.is_empty() {
            anyhow::bail!("{}: no puzzles", path.display());
        }
        files.push(PuzzleFile {
            name,
            text,
            puzzles,
        });
    }
    let (box_rows, box_cols) = dims.expect("at least one puzzle was read");
    let variants = shape.map(|s| s.variants).unwrap_or_default();
    let mut unit_puzzles = BTreeMap::new();
    for c in configs {
        let default = worker::bench::config(c).map_or(1, |c| c.unit_puzzles);
        unit_puzzles.insert(c.clone(), b.unit_puzzles.unwrap_or(default));
    }
    for (c, n) in b.unit_puzzles_by_config.iter().flatten() {
        if !configs.contains(c) {
            anyhow::bail!("unit_puzzles_by_config names `{c}`, which is not among the configs");
        }
        unit_puzzles.insert(c.clone(), *n);
    }
    if let Some((c, _)) = unit_puzzles.iter().find(|(_, n)| **n == 0) {
        anyhow::bail!("configuration `{c}`: 0 puzzles per unit");
    }
    let difficulty_by = match &b.difficulty_by {
        Some(c) if !configs.contains(c) => {
            anyhow::bail!("difficulty_by names `{c}`, which is not among the configs")
        }
        Some(c) => c.clone(),
        None => configs[0].clone(),
    };
    Ok(PuzzleSuite {
        files,
        box_rows,
        box_cols,
        variants,
        unique: b.unique.unwrap_or(true),
        difficulty_samples: b.difficulty_samples.unwrap_or(DEFAULT_DIFFICULTY_SAMPLES),
        difficulty_by,
        unit_puzzles,
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

fn frozen(kind: FileKind, name: &str, text: &str) -> FrozenFile {
    FrozenFile {
        kind,
        name: name.into(),
        sha256: cores::bench::sha256_hex(text),
        text: text.into(),
    }
}

impl BenchSpec {
    /// The tasks: domino (instance, configuration) pairs, batch by batch, instance by
    /// instance; Sudoku slices, file by file, configuration by configuration, each slice the
    /// configuration's `unit_puzzles` consecutive puzzles (only `difficulty_by`'s slices
    /// measure difficulty).
    pub fn tasks(&self) -> Vec<BenchTask> {
        let task =
            |family: Family, id: String, json: String, batch: &str, config: &str| BenchTask {
                family,
                instance_id: id,
                instance_sha256: cores::bench::sha256_hex(&json),
                instance_json: json,
                batch: batch.to_string(),
                config: config.to_string(),
                time_limit_seconds: self.time_limit_seconds,
                memory_limit_bytes: self.memory_limit_bytes,
                // A built-in configuration as it is goes to workers that name it; a declared
                // one to workers with its engine.
                needs: self
                    .defs
                    .iter()
                    .find(|d| d.name == config)
                    .filter(|d| worker::bench::config(config).is_none_or(|c| c.definition() != **d))
                    .and_then(ConfigDef::needs),
            };
        let mut out = Vec::new();
        match &self.suite {
            Suite::Domino { batches, instances } => {
                for b in batches {
                    // The instance's own line, as frozen (its hash is checked against the
                    // batch).
                    let lines: Vec<&str> =
                        b.text.lines().filter(|l| !l.trim().is_empty()).collect();
                    for (inst, line) in b.instances.iter().zip(lines) {
                        if instances
                            .as_ref()
                            .is_some_and(|ids| !ids.contains(&inst.id))
                        {
                            continue;
                        }
                        for c in &self.configs {
                            let json = line.trim().to_string();
                            out.push(task(Family::Domino, inst.id.clone(), json, &b.name, c));
                        }
                    }
                }
            }
            Suite::MznSuite(s) => {
                for d in &s.data {
                    let inst = s.instance(d);
                    if s.instances
                        .as_ref()
                        .is_some_and(|ids| !ids.contains(&inst.id))
                    {
                        continue;
                    }
                    for c in &self.configs {
                        out.push(task(
                            Family::MznSuite,
                            inst.id.clone(),
                            inst.to_json(),
                            &d.name,
                            c,
                        ));
                    }
                }
            }
            Suite::Sudoku(s) => {
                for f in &s.files {
                    for c in &self.configs {
                        for chunk in f.puzzles.chunks(s.unit_puzzles[c]) {
                            let slice = Slice {
                                variants: s.variants.clone(),
                                unique: s.unique,
                                difficulty_samples: if *c == s.difficulty_by {
                                    s.difficulty_samples
                                } else {
                                    0
                                },
                                ..Slice::new(&f.name, s.box_rows, s.box_cols, chunk.to_vec())
                            };
                            out.push(task(
                                Family::Sudoku,
                                slice.id.clone(),
                                slice.to_json(),
                                &f.name,
                                c,
                            ));
                        }
                    }
                }
            }
        }
        out
    }

    /// The batch (or puzzle) files, for domino every built-in model file and the declared
    /// configurations' files, and the definition of every configuration that is not a
    /// built-in as it is, frozen with their hashes. A built-in configuration's definition is
    /// its name and the frozen models (in the manifest already), so a spec without declared
    /// configurations has the manifest it had before definitions existed, and resumes the
    /// jobs submitted then; its workers hash the built-in definition themselves.
    pub fn files(&self) -> Vec<FrozenFile> {
        let mut files = self.suite_files();
        files.extend(
            self.declared_files
                .iter()
                .map(|(name, text)| frozen(FileKind::Model, name, text)),
        );
        files.extend(
            self.defs
                .iter()
                .filter(|d| worker::bench::config(&d.name).is_none_or(|c| c.definition() != **d))
                .map(|d| frozen(FileKind::Config, &d.name, &d.to_json())),
        );
        files
    }

    fn suite_files(&self) -> Vec<FrozenFile> {
        match &self.suite {
            Suite::Domino { batches, .. } => {
                let mut files: Vec<FrozenFile> = batches
                    .iter()
                    .map(|b| frozen(FileKind::Batch, &b.name, &b.text))
                    .collect();
                files.extend(
                    worker::bench::models::MODELS
                        .iter()
                        .map(|m| frozen(FileKind::Model, m.name, m.text)),
                );
                files
            }
            Suite::Sudoku(s) => s
                .files
                .iter()
                .map(|f| frozen(FileKind::Batch, &f.name, &f.text))
                .collect(),
            // The model files and the checker as `model` files, each data file a `batch`.
            Suite::MznSuite(s) => s
                .models
                .iter()
                .chain(&s.checker)
                .map(|f| frozen(FileKind::Model, &f.name, &f.text))
                .chain(
                    s.data
                        .iter()
                        .map(|f| frozen(FileKind::Batch, &f.name, &f.text)),
                )
                .collect(),
        }
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
        let Suite::Domino { batches, .. } = &s.suite else {
            panic!("a domino suite")
        };
        assert_eq!(batches.len(), 10);
        assert_eq!(
            batches.iter().map(|b| b.instances.len()).sum::<usize>(),
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
            cores::bench::sha256_hex(&t[0].instance_json)
        );
        let files = s.files();
        assert_eq!(
            files.iter().filter(|f| f.kind == FileKind::Batch).count(),
            10
        );
        assert_eq!(
            files.iter().filter(|f| f.kind == FileKind::Model).count(),
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
        let domino = worker::bench::configs_of(Family::Domino).count();
        assert_eq!(s.configs.len(), domino);
        assert_eq!(s.time_limit_seconds, 300.0);
        assert_eq!(s.tasks().len(), 100 * domino);
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

    fn sudoku_spec(dir: &Path, extra: &str) -> anyhow::Result<BenchSpec> {
        let spec = dir.join("s.toml");
        parse(
            &spec,
            &format!("name = \"s\"\n[benchmark]\nfamily = \"sudoku\"\n{extra}"),
        )
    }

    #[test]
    fn the_quick_sudoku_spec_cuts_its_files_into_slices_per_configuration() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/sudoku-quick.toml");
        let s = parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        let Suite::Sudoku(suite) = &s.suite else {
            panic!("a Sudoku suite")
        };
        // 20 + 10 + 10 puzzles (the first lines of three shared collections).
        assert_eq!(
            suite
                .files
                .iter()
                .map(|f| f.puzzles.len())
                .collect::<Vec<_>>(),
            [20, 10, 10]
        );
        assert_eq!((suite.box_rows, suite.box_cols, suite.unique), (3, 3, true));
        let tasks = s.tasks();
        let configs = worker::bench::configs_of(Family::Sudoku).count();
        assert_eq!(tasks.len(), 4 * configs);
        let first = &tasks[0];
        assert_eq!(first.family, Family::Sudoku);
        assert_eq!(first.instance_id, "royle_17clue_first20.txt:1-10");
        assert_eq!(first.batch, "royle_17clue_first20.txt");
        let slices: Vec<Slice> = tasks
            .iter()
            .map(|t| Slice::from_json(&t.instance_json).unwrap())
            .collect();
        // Difficulty is measured once per puzzle: by the first configuration's slices.
        for (t, sl) in tasks.iter().zip(&slices) {
            assert_eq!(
                sl.difficulty_samples > 0,
                t.config == s.configs[0],
                "{}",
                t.config
            );
            assert_eq!(sl.id, t.instance_id);
        }
        let files = s.files();
        assert_eq!(
            files.iter().filter(|f| f.kind == FileKind::Batch).count(),
            3
        );
        // Only the puzzle files: built-in configurations freeze no definition (the manifest
        // is the one of jobs submitted before definitions existed).
        assert!(files.iter().all(|f| f.kind == FileKind::Batch));
        // The coordinator's own check accepts what the spec makes.
        coordinator::bench::check_tasks(&tasks, &s.files()).unwrap();
    }

    #[test]
    fn sudoku_spec_errors_name_the_file_line_and_problem() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("p.txt"),
            "# a comment\n1234341221434321\n11..............\n",
        )
        .unwrap();
        let e = format!(
            "{:#}",
            sudoku_spec(dir.path(), "puzzle_files = [\"p.txt\"]\n").unwrap_err()
        );
        assert!(e.contains("p.txt:3: "), "{e}");
        std::fs::write(dir.path().join("q.txt"), "1234341221434321\n").unwrap();
        for (extra, says) in [
            (
                "puzzle_files = [\"q.txt\"]\nsuite = \"x\"\n",
                "`suite` is not a key of a sudoku",
            ),
            (
                "puzzle_files = [\"q.txt\"]\nconfigs = [\"native\"]\n",
                "unknown sudoku configuration `native`",
            ),
            (
                "puzzle_files = [\"q.txt\"]\nvariants = [\"diagonal\"]\n",
                "`variants` needs `box`",
            ),
            ("puzzle_files = [\"nowhere.txt\"]\n", "nowhere.txt"),
            ("puzzle_files = []\n", "no `puzzle_files`"),
            (
                "puzzle_files = [\"q.txt\"]\nunit_puzzles = 0\n",
                "0 puzzles per unit",
            ),
            (
                "puzzle_files = [\"q.txt\"]\ndifficulty_by = \"sat\"\nconfigs = [\"ps12\"]\n",
                "difficulty_by",
            ),
            ("puzzle_files = [\"q.txt\"]\nbox = \"3\"\n", "expected RxC"),
        ] {
            let e = format!("{:#}", sudoku_spec(dir.path(), extra).unwrap_err());
            assert!(
                e.contains("s.toml:2: [benchmark]") && e.contains(says),
                "{e} ({says})"
            );
        }
        let e = format!(
            "{:#}",
            parse(
                &dir.path().join("d.toml"),
                "name = \"d\"\n[benchmark]\nsuite = \".\"\nunique = true\n"
            )
            .unwrap_err()
        );
        assert!(e.contains("`unique` is not a key of a domino"), "{e}");
    }

    #[test]
    fn the_minizinc_example_freezes_its_model_checker_and_data() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/minizinc-example.toml");
        let s = parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        let Suite::MznSuite(suite) = &s.suite else {
            panic!("a MiniZinc suite")
        };
        assert_eq!(suite.sense, cores::bench::Sense::Maximize);
        assert_eq!(s.configs, ["gecode", "gecode-cut"]);
        let tasks = s.tasks();
        // Four data files (k04, k08.json, k20, k30) under two configurations.
        assert_eq!(tasks.len(), 8);
        let inst = cores::bench::MznInstance::from_json(&tasks[2].instance_json).unwrap();
        assert_eq!((inst.id.as_str(), inst.data.as_str()), ("k08", "k08.json"));
        assert_eq!(inst.models, ["knapsack.mzn"]);
        assert_eq!(inst.checker.as_deref(), Some("knapsack.mzc"));
        assert!(tasks.iter().all(|t| t.family == Family::MznSuite
            && t.needs.as_deref() == Some("engine:minizinc:org.gecode.gecode")));
        let files = s.files();
        let count = |k: FileKind| files.iter().filter(|f| f.kind == k).count();
        // knapsack.mzn and .mzc, the variant's two files; two definitions; four data files.
        assert_eq!(
            (
                count(FileKind::Model),
                count(FileKind::Config),
                count(FileKind::Batch)
            ),
            (4, 2, 4)
        );
        coordinator::bench::check_tasks(&tasks, &files).unwrap();
    }

    #[test]
    fn the_families_keys_do_not_mix() {
        let e =
            err("name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\nmodel = \"m.mzn\"\n");
        assert!(e.contains("`model` is not a key of a domino"), "{e}");
        let e = err(
            "name = \"q\"\n[benchmark]\nfamily = \"mzn-suite\"\nsuite = \"x\"\n\
             [[config]]\nname = \"g\"\nengine = \"minizinc\"\n",
        );
        assert!(e.contains("`suite` is not a key of a mzn-suite"), "{e}");
        let e = err("name = \"q\"\n[benchmark]\nfamily = \"mzn-suite\"\nmodel = \"m.mzn\"\n");
        assert!(e.contains("no built-in configurations"), "{e}");
        let e = err("name = \"q\"\n[benchmark]\nfamily = \"mzn-suite\"\n\
             [[config]]\nname = \"g\"\nengine = \"clingo\"\n");
        assert!(
            e.contains("`engine = \"minizinc\"` configurations only"),
            "{e}"
        );
    }

    #[test]
    fn a_diagonal_sudoku_spec_carries_its_variant_into_every_slice() {
        let dir = tempfile::tempdir().unwrap();
        // r1c1 = 1 and r4c4 = 1 lie on the main diagonal: a clash only under `diagonal`.
        std::fs::write(dir.path().join("d.txt"), "1..............1\n").unwrap();
        let extra = "puzzle_files = [\"d.txt\"]\nbox = \"2x2\"\nvariants = [\"diagonal\"]\n";
        let e = format!("{:#}", sudoku_spec(dir.path(), extra).unwrap_err());
        assert!(e.contains("d.txt:1: "), "{e}");
        std::fs::write(dir.path().join("d.txt"), "1...............\n").unwrap();
        let s = sudoku_spec(dir.path(), extra).unwrap();
        let slice = Slice::from_json(&s.tasks()[0].instance_json).unwrap();
        assert_eq!(slice.variants, vec![Variant::Diagonal]);
        assert_eq!((slice.box_rows, slice.box_cols), (2, 2));
    }
}
