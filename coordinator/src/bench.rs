//! Benchmark jobs at the coordinator: checking a submitted job ([`check_tasks`]), its manifest
//! hash ([`manifest_sha256`]), and the coordinator's own check of every run record before it is
//! stored ([`check_record`]).
//!
//! Invariant: a stored record claiming a solved status carries answers its family's verifier
//! accepts on the job's frozen instance (`cores::bench::judge`): for a domino instance a
//! placement that `cores::domino::verify` accepts, whose size is the record's objective and
//! does not exceed its bound; for a Sudoku slice a verified grid for every puzzle it claims
//! solved. A worker's record that fails this is stored as `wrong`, with the verifier's
//! complaint, never as solved; a record for another instance or configuration, or one that is
//! not a record at all, is refused (the unit runs again).

use cores::label::Label;
use std::collections::{BTreeMap, BTreeSet};

use cores::bench::{judge, Family, Instance, RunRecord, Status};
use sha2::{Digest, Sha256};

use crate::job::{BenchRecord, BenchTask, FileKind, FrozenFile};
use cores::bench::sha256_hex;

/// Who speaks in the message of a record the coordinator relabels `wrong`.
pub const JUDGE: &str = "rejected by the coordinator";

/// Checks a submitted benchmark job: at least one task; each instance parses as its family's
/// and matches its hash and id, and is in its batch file when that file is frozen with the job
/// (a domino instance is a line of it; a Sudoku slice's every puzzle is the line of the file
/// it names); limits are sane; (instance, configuration) pairs are distinct; file hashes match
/// their texts.
pub fn check_tasks(tasks: &[BenchTask], files: &[FrozenFile]) -> Result<(), String> {
    if tasks.is_empty() {
        return Err("a benchmark job needs at least one task".into());
    }
    for f in files {
        if sha256_hex(&f.text) != f.sha256 {
            return Err(format!(
                "file {} ({}): the sha256 does not match its text",
                f.name,
                f.kind.as_str()
            ));
        }
    }
    // Each frozen batch file split into lines once (a Sudoku file has tens of thousands, and
    // every slice of it is checked against them).
    let batches: BTreeMap<&str, (&FrozenFile, Vec<&str>)> = files
        .iter()
        .filter(|f| f.kind == FileKind::Batch)
        .map(|f| (f.name.as_str(), (f, f.text.lines().collect())))
        .collect();
    let mut pairs = BTreeSet::new();
    for t in tasks {
        let what = format!("task ({}, {})", t.instance_id, t.config);
        let instance =
            Instance::parse(t.family, &t.instance_json).map_err(|e| format!("{what}: {e}"))?;
        if instance.id() != t.instance_id {
            return Err(format!("{what}: the instance's id is {}", instance.id()));
        }
        if sha256_hex(&t.instance_json) != t.instance_sha256 {
            return Err(format!(
                "{what}: the sha256 does not match the instance text"
            ));
        }
        if t.config.trim().is_empty() {
            return Err(format!("{what}: no configuration"));
        }
        proto::limits::check_time_limit(t.time_limit_seconds)
            .map_err(|e| format!("{what}: {e}"))?;
        proto::limits::check_memory_limit(t.memory_limit_bytes.unwrap_or(0))
            .map_err(|e| format!("{what}: {e}"))?;
        if !pairs.insert((t.instance_id.as_str(), t.config.as_str())) {
            return Err(format!("{what} appears twice"));
        }
        match (&instance, batches.get(t.batch.as_str())) {
            (Instance::Domino(_), Some((b, lines))) => {
                if !lines.iter().any(|l| l.trim() == t.instance_json.trim()) {
                    return Err(format!("{what}: the instance is not a line of {}", b.name));
                }
            }
            (Instance::Sudoku(s), b) => {
                let Some((b, lines)) = b else {
                    return Err(format!("{what}: its puzzle file {} is not frozen", t.batch));
                };
                if s.file != b.name {
                    return Err(format!(
                        "{what}: the slice is of {}, the task of {}",
                        s.file, b.name
                    ));
                }
                s.read().map_err(|e| format!("{what}: {e}"))?;
                for p in &s.puzzles {
                    let line = p.line.checked_sub(1).and_then(|i| lines.get(i));
                    if line.map(|l| l.trim()) != Some(p.text.trim()) {
                        return Err(format!(
                            "{what}: the puzzle of line {} is not that line of {}",
                            p.line, b.name
                        ));
                    }
                }
            }
            (Instance::Domino(_), None) => {}
            (Instance::MznSuite(i), b) => {
                let Some((b, _)) = b else {
                    return Err(format!("{what}: its data file {} is not frozen", t.batch));
                };
                if i.data != b.name || i.text != b.text {
                    return Err(format!(
                        "{what}: the instance's data is not the frozen file {}",
                        b.name
                    ));
                }
                for m in i.models.iter().chain(&i.checker) {
                    if !files
                        .iter()
                        .any(|f| f.kind == FileKind::Model && &f.name == m)
                    {
                        return Err(format!("{what}: its model file {m} is not frozen"));
                    }
                }
            }
        }
    }
    Ok(())
}

/// SHA-256 over the frozen files and the tasks, in a canonical order: equal for two
/// submissions of the same benchmark.
pub fn manifest_sha256(tasks: &[BenchTask], files: &[FrozenFile]) -> String {
    let mut lines: Vec<String> = files
        .iter()
        .map(|f| format!("file\t{}\t{}\t{}", f.kind.as_str(), f.name, f.sha256))
        .collect();
    lines.extend(tasks.iter().map(|t| {
        // Domino tasks hash as they did before tasks named their family, so that a benchmark
        // submitted before still resumes.
        let family = match t.family {
            Family::Domino => String::new(),
            f => format!("\t{f}"),
        };
        format!(
            "task\t{}\t{}\t{}\t{}\t{}{family}",
            t.instance_sha256,
            t.config,
            t.time_limit_seconds,
            t.memory_limit_bytes.unwrap_or(0),
            t.batch
        )
    }));
    lines.sort();
    let mut h = Sha256::new();
    for l in &lines {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// Checks a worker's run record for `task`. `Err` refuses it (malformed, or for another task);
/// `Ok` is the record to store, judged again on the task's frozen instance
/// (`cores::bench::judge`): relabelled `wrong` when a claim does not hold (the bool is then
/// true, and also for a record that arrived `wrong`, so that every wrong answer raises the
/// `wrong-answer` alarm, whichever judge found it). An unsolved record keeps no objective.
pub fn check_record(task: &BenchTask, json: &str) -> Result<(BenchRecord, bool), String> {
    let mut record = RunRecord::from_json(json).map_err(|e| e.to_string())?;
    if record.instance != task.instance_id || record.config != task.config {
        return Err(format!(
            "the run record is for ({}, {}), the unit runs ({}, {})",
            record.instance, record.config, task.instance_id, task.config
        ));
    }
    let instance = Instance::parse(task.family, &task.instance_json)
        .map_err(|e| format!("the unit's instance does not parse: {e}"))?;
    // A record the worker's own judge found wrong (a MiniZinc suite's checker rejected a
    // solution there) is a wrong answer as much as one the coordinator refutes: both raise
    // the alarm.
    let arrived_wrong = record.status == Status::Wrong;
    let amended = judge(&instance, &mut record, JUDGE).is_some() || arrived_wrong;
    if !record.status.is_solved() {
        record.set_objective(None);
    }
    let difficulty = match &instance {
        Instance::Domino(i) => Some(i.difficulty),
        Instance::Sudoku(_) | Instance::MznSuite(_) => None,
    };
    Ok((BenchRecord { record, difficulty }, amended))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cores::bench::HostInfo;
    use cores::domino::Difficulty;

    /// b01-e1 of the public suite's batch01.txt is too big to write out here; a 3x3 board with
    /// two tiles is enough to exercise the verifier's paths.
    const INSTANCE: &str =
        r#"{"id": "t1", "difficulty": "easy", "n": 3, "k": 2, "tiles": [[1,0,2],[2,2,0]]}"#;

    fn task(config: &str) -> BenchTask {
        BenchTask {
            family: Default::default(),
            instance_id: "t1".into(),
            instance_json: INSTANCE.into(),
            instance_sha256: sha256_hex(INSTANCE),
            batch: "batch01.txt".into(),
            config: config.into(),
            time_limit_seconds: 5.0,
            memory_limit_bytes: None,
            needs: None,
        }
    }

    fn record(status: &str, objective: Option<u32>, bound: Option<u32>, placement: &str) -> String {
        let mut r = RunRecord {
            status: Status::parse(status).unwrap(),
            ..RunRecord::blank("t1", "native", 5.0, HostInfo::default())
        };
        r.set_objective(objective);
        r.set_bound(bound);
        r.set_placement(serde_json::from_str(placement).unwrap());
        r.to_json()
    }

    /// Tile 0 in row 0 and tile 1 in row 1, side by side over three cells: values 1,0,2
    /// above 2,2,0 disagree, so the pair is not a legal placement (seed 001, case 1A).
    const CLASH: &str = r#"[{"tile":0,"row":0,"col":0,"orientation":"H","mirrored":false},
                            {"tile":1,"row":1,"col":0,"orientation":"H","mirrored":false}]"#;
    /// Tile 0 in row 0 and tile 1 in row 2: no contact.
    const APART: &str = r#"[{"tile":0,"row":0,"col":0,"orientation":"H","mirrored":false},
                            {"tile":1,"row":2,"col":0,"orientation":"H","mirrored":false}]"#;

    #[test]
    fn a_verified_optimum_is_stored_as_sent() {
        let json = record("optimal", Some(2), Some(2), APART);
        let (r, amended) = check_record(&task("native"), &json).unwrap();
        assert!(!amended);
        assert_eq!(r.record.to_json(), json);
        assert_eq!(r.difficulty, Some(Difficulty::Easy));
    }

    #[test]
    fn an_illegal_placement_is_stored_as_wrong() {
        let json = record("optimal", Some(2), Some(2), CLASH);
        let (r, amended) = check_record(&task("native"), &json).unwrap();
        assert!(amended);
        assert_eq!(
            (r.record.status, r.record.objective()),
            (Status::Wrong, None)
        );
        let message = r.record.message.unwrap();
        assert!(
            message.starts_with(JUDGE) && message.contains("verifier"),
            "{message}"
        );
    }

    #[test]
    fn objective_and_bound_must_agree_with_the_placement() {
        for (status, obj, bound) in [
            ("feasible", Some(3), None),
            ("optimal", Some(2), Some(1)),
            ("optimal", Some(2), None),
            ("feasible", None, None),
        ] {
            let (r, amended) =
                check_record(&task("native"), &record(status, obj, bound, APART)).unwrap();
            assert!(
                amended && r.record.status == Status::Wrong,
                "{status} {obj:?} {bound:?}"
            );
        }
        let (r, amended) =
            check_record(&task("native"), &record("feasible", Some(1), Some(2), "[]")).unwrap();
        assert!(amended, "objective 1 with an empty placement: {r:?}");
    }

    #[test]
    fn unsolved_records_are_stored_without_an_objective() {
        let (r, amended) =
            check_record(&task("native"), &record("timeout", None, Some(2), "[]")).unwrap();
        assert!(!amended);
        assert_eq!(
            (r.record.status, r.record.objective(), r.record.bound()),
            (Status::Timeout, None, Some(2))
        );
    }

    #[test]
    fn records_for_another_task_or_malformed_are_refused() {
        let json = record("optimal", Some(2), Some(2), APART);
        assert!(check_record(&task("clingo"), &json)
            .unwrap_err()
            .contains("native"));
        assert!(check_record(&task("native"), "{").is_err());
        assert!(check_record(&task("native"), "{\"instance\": \"t1\"}").is_err());
        let bad = record("optimal", Some(2), Some(2), APART).replace("optimal", "proved");
        assert!(check_record(&task("native"), &bad)
            .unwrap_err()
            .contains("proved"));
    }

    #[test]
    fn submitted_tasks_are_checked() {
        let t = task("native");
        assert!(check_tasks(std::slice::from_ref(&t), &[]).is_ok());
        assert!(check_tasks(&[], &[]).is_err());
        assert!(check_tasks(&[t.clone(), t.clone()], &[])
            .unwrap_err()
            .contains("twice"));
        let mut bad = t.clone();
        bad.instance_sha256 = "00".into();
        assert!(check_tasks(&[bad], &[]).unwrap_err().contains("sha256"));
        let mut bad = t.clone();
        bad.instance_id = "t2".into();
        assert!(check_tasks(&[bad], &[]).is_err());
        let mut bad = t.clone();
        bad.time_limit_seconds = 0.0;
        assert!(check_tasks(&[bad], &[]).is_err());
        let f = FrozenFile {
            kind: FileKind::Model,
            name: "m.mzn".into(),
            sha256: sha256_hex("x"),
            text: "y".into(),
        };
        assert!(check_tasks(std::slice::from_ref(&t), &[f])
            .unwrap_err()
            .contains("m.mzn"));
        // A frozen batch file must hold the task's instance.
        let batch = |text: &str| FrozenFile {
            kind: FileKind::Batch,
            name: "batch01.txt".into(),
            sha256: sha256_hex(text),
            text: text.into(),
        };
        let with = format!("{{\"id\": \"other\"}}\n{INSTANCE}\n");
        assert!(check_tasks(std::slice::from_ref(&t), &[batch(&with)]).is_ok());
        let e = check_tasks(&[t], &[batch("{\"id\": \"other\"}\n")]).unwrap_err();
        assert!(e.contains("not a line of batch01.txt"), "{e}");
    }

    #[test]
    fn the_manifest_ignores_order_and_sees_every_change() {
        let (a, b) = (task("native"), task("clingo"));
        let m = manifest_sha256(&[a.clone(), b.clone()], &[]);
        assert_eq!(m, manifest_sha256(&[b.clone(), a.clone()], &[]));
        let mut c = b.clone();
        c.time_limit_seconds = 6.0;
        assert_ne!(m, manifest_sha256(&[a, c], &[]));
    }

    /// Seed 000 section 1.3, Example 1, and its solution as printed under the trace.
    const EXAMPLE_1: &str =
        ".125.487..........75.....23..41.87...2..5..4...34.95..48.....17..........357.169.";
    const SOLUTION: &str =
        "612534879349287165758916423594128736827653941163479582486395217971862354235741698";

    fn sudoku_task(lines: &[(usize, &str)]) -> BenchTask {
        use cores::sudoku::bench::{Slice, SlicePuzzle};
        let puzzles = lines.iter().map(|&(l, t)| SlicePuzzle::new(l, t)).collect();
        let slice = Slice::new("p.txt", 3, 3, puzzles);
        let json = slice.to_json();
        BenchTask {
            family: Family::Sudoku,
            instance_id: slice.id,
            instance_sha256: sha256_hex(&json),
            instance_json: json,
            batch: "p.txt".into(),
            config: "ps12".into(),
            time_limit_seconds: 5.0,
            memory_limit_bytes: None,
            needs: None,
        }
    }

    fn puzzle_file(text: &str) -> FrozenFile {
        FrozenFile {
            kind: FileKind::Batch,
            name: "p.txt".into(),
            sha256: sha256_hex(text),
            text: text.into(),
        }
    }

    #[test]
    fn a_sudoku_slice_must_be_lines_of_its_frozen_puzzle_file() {
        let file = puzzle_file(&format!("# comment\n{EXAMPLE_1}\n{SOLUTION}\n"));
        let t = sudoku_task(&[(2, EXAMPLE_1), (3, SOLUTION)]);
        assert_eq!(
            check_tasks(std::slice::from_ref(&t), std::slice::from_ref(&file)),
            Ok(())
        );
        let e = check_tasks(std::slice::from_ref(&t), &[]).unwrap_err();
        assert!(e.contains("puzzle file p.txt is not frozen"), "{e}");
        let shifted = sudoku_task(&[(1, EXAMPLE_1)]);
        let e = check_tasks(&[shifted], std::slice::from_ref(&file)).unwrap_err();
        assert!(e.contains("line 1 is not that line of p.txt"), "{e}");
        let bad = sudoku_task(&[(2, "12")]);
        let e = check_tasks(&[bad], &[puzzle_file("x\n12\n")]).unwrap_err();
        assert!(e.contains("p.txt:2: "), "{e}");
    }

    #[test]
    fn a_sudoku_record_with_a_wrong_grid_is_stored_as_wrong() {
        use cores::bench::Answer;
        use cores::sudoku::bench::{PuzzleRun, PuzzleStatus};
        let t = sudoku_task(&[(2, EXAMPLE_1)]);
        let record = |grid: &str| {
            let mut r = RunRecord::blank_of(
                Family::Sudoku,
                &t.instance_id,
                "ps12",
                5.0,
                HostInfo::default(),
            );
            r.status = Status::Solved;
            r.answer = Answer::Sudoku {
                puzzles: vec![PuzzleRun {
                    status: PuzzleStatus::Unique,
                    solution: Some(grid.into()),
                    seconds: 0.001,
                    ..PuzzleRun::timeout(2)
                }],
            };
            r.to_json()
        };
        let (r, amended) = check_record(&t, &record(SOLUTION)).unwrap();
        assert!(!amended);
        assert_eq!((r.record.status, r.difficulty), (Status::Solved, None));
        let forged = SOLUTION.replacen('6', "7", 1);
        let (r, amended) = check_record(&t, &record(&forged)).unwrap();
        assert!(amended);
        assert_eq!(r.record.status, Status::Wrong);
        assert_eq!(r.record.puzzles()[0].status, PuzzleStatus::Wrong);
        assert!(r.record.message.unwrap().starts_with(JUDGE));
        // A domino answer for a Sudoku task is wrong, whatever it claims.
        let mut domino = RunRecord::blank(&t.instance_id, "ps12", 5.0, HostInfo::default());
        domino.status = Status::Optimal;
        let (r, amended) = check_record(&t, &domino.to_json()).unwrap();
        assert!(amended && r.record.status == Status::Wrong);
        let message = r.record.message.unwrap();
        assert!(
            message.contains("a domino answer for a sudoku instance"),
            "{message}"
        );
    }
}
