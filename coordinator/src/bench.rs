//! Benchmark jobs at the coordinator: checking a submitted job ([`check_tasks`]), its manifest
//! hash ([`manifest_sha256`]), and the coordinator's own check of every run record before it is
//! stored ([`check_record`]).
//!
//! Invariant: a stored record claiming `optimal` or `feasible` carries a placement that
//! `cores::domino::verify` accepts on the job's frozen instance, whose size is the record's
//! objective and does not exceed its bound. A worker's record that fails this is stored as
//! `wrong`, with the verifier's complaint, never as solved; a record for another instance or
//! configuration, or one that is not a record at all, is refused (the unit runs again).

use std::collections::BTreeSet;

use cores::domino::{parse_line, verify, Placement};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::job::{BenchRecord, BenchTask, FrozenFile};
use crate::store::sha256_hex;

/// The statuses a record may have (worker::bench::Status).
pub const STATUSES: [&str; 6] = [
    "optimal",
    "feasible",
    "timeout",
    "unavailable",
    "error",
    "wrong",
];

/// Whether `s` names a status.
pub fn is_status(s: &str) -> bool {
    STATUSES.contains(&s)
}

/// Checks a submitted benchmark job: at least one task; each instance parses and matches its
/// hash and id, and is a line of its batch file when that file is frozen with the job; limits
/// are sane; (instance, configuration) pairs are distinct; file hashes match their texts.
pub fn check_tasks(tasks: &[BenchTask], files: &[FrozenFile]) -> Result<(), String> {
    if tasks.is_empty() {
        return Err("a benchmark job needs at least one task".into());
    }
    for f in files {
        if sha256_hex(&f.text) != f.sha256 {
            return Err(format!(
                "file {} ({}): the sha256 does not match its text",
                f.name, f.kind
            ));
        }
    }
    let mut pairs = BTreeSet::new();
    for t in tasks {
        let what = format!("task ({}, {})", t.instance_id, t.config);
        let instance = parse_line(&t.instance_json).map_err(|e| format!("{what}: {e}"))?;
        if instance.id != t.instance_id {
            return Err(format!("{what}: the instance's id is {}", instance.id));
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
        let batch = files
            .iter()
            .find(|f| f.kind == "batch" && f.name == t.batch);
        if let Some(b) = batch {
            if !b.text.lines().any(|l| l.trim() == t.instance_json.trim()) {
                return Err(format!("{what}: the instance is not a line of {}", b.name));
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
        .map(|f| format!("file\t{}\t{}\t{}", f.kind, f.name, f.sha256))
        .collect();
    lines.extend(tasks.iter().map(|t| {
        format!(
            "task\t{}\t{}\t{}\t{}\t{}",
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

/// The fields of a run record the coordinator reads; the rest is stored as sent.
#[derive(Deserialize)]
struct RecordView {
    instance: String,
    config: String,
    status: String,
    objective: Option<u32>,
    bound: Option<u32>,
    #[serde(default)]
    placement: Vec<Placement>,
}

/// Checks a worker's run record for `task`. `Err` refuses it (malformed, or for another task);
/// `Ok` is the record to store, re-labelled `wrong` when the coordinator's verifier disagrees
/// with a claimed solution (the bool is then true).
pub fn check_record(task: &BenchTask, json: &str) -> Result<(BenchRecord, bool), String> {
    let mut value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("the run record is not JSON: {e}"))?;
    let view =
        RecordView::deserialize(&value).map_err(|e| format!("the run record is malformed: {e}"))?;
    if view.instance != task.instance_id || view.config != task.config {
        return Err(format!(
            "the run record is for ({}, {}), the unit runs ({}, {})",
            view.instance, view.config, task.instance_id, task.config
        ));
    }
    if !is_status(&view.status) {
        return Err(format!("unknown run status {:?}", view.status));
    }
    let solved = matches!(view.status.as_str(), "optimal" | "feasible");
    let complaint = if solved { judge(task, &view)? } else { None };
    let mut record = BenchRecord {
        status: view.status.clone(),
        objective: if solved { view.objective } else { None },
        bound: view.bound,
        json: json.to_string(),
    };
    let Some(why) = complaint else {
        return Ok((record, false));
    };
    let why = format!("the coordinator's verifier rejects the answer: {why}");
    value["status"] = "wrong".into();
    let message = match value.get("message").and_then(|m| m.as_str()) {
        Some(m) if !m.is_empty() => format!("{why}\n{m}"),
        _ => why,
    };
    value["message"] = message.into();
    record.status = "wrong".into();
    record.objective = None;
    record.json = value.to_string();
    Ok((record, true))
}

/// Why a solved record is wrong (`None`: it holds).
fn judge(task: &BenchTask, view: &RecordView) -> Result<Option<String>, String> {
    let instance = parse_line(&task.instance_json)
        .map_err(|e| format!("the unit's instance does not parse: {e}"))?;
    let Some(objective) = view.objective else {
        return Ok(Some(format!("status {} without an objective", view.status)));
    };
    if let Err(v) = verify(&instance, &view.placement) {
        return Ok(Some(v.to_string()));
    }
    if objective as usize != view.placement.len() {
        return Ok(Some(format!(
            "objective {objective} but the placement has {} tiles",
            view.placement.len()
        )));
    }
    match view.bound {
        Some(b) if b < objective => Ok(Some(format!(
            "bound {b} is below its own placement of {objective} tiles"
        ))),
        Some(b) if view.status == "optimal" && b != objective => Ok(Some(format!(
            "claims optimality of {objective} with bound {b}"
        ))),
        None if view.status == "optimal" => Ok(Some("claims optimality without a bound".into())),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// b01-e1 of the public suite's batch01.txt is too big to write out here; a 3x3 board with
    /// two tiles is enough to exercise the verifier's paths.
    const INSTANCE: &str =
        r#"{"id": "t1", "difficulty": "easy", "n": 3, "k": 2, "tiles": [[1,0,2],[2,2,0]]}"#;

    fn task(config: &str) -> BenchTask {
        BenchTask {
            instance_id: "t1".into(),
            instance_json: INSTANCE.into(),
            instance_sha256: sha256_hex(INSTANCE),
            batch: "batch01.txt".into(),
            config: config.into(),
            time_limit_seconds: 5.0,
            memory_limit_bytes: None,
        }
    }

    fn record(status: &str, objective: Option<u32>, bound: Option<u32>, placement: &str) -> String {
        serde_json::json!({
            "instance": "t1", "config": "native", "status": status,
            "objective": objective, "bound": bound, "wall_seconds": 0.1,
            "placement": serde_json::from_str::<serde_json::Value>(placement).unwrap(),
            "message": null, "host": {"hostname": "h"}
        })
        .to_string()
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
        assert_eq!(
            (r.status.as_str(), r.objective, r.bound),
            ("optimal", Some(2), Some(2))
        );
        assert_eq!(r.json, json);
    }

    #[test]
    fn an_illegal_placement_is_stored_as_wrong() {
        let json = record("optimal", Some(2), Some(2), CLASH);
        let (r, amended) = check_record(&task("native"), &json).unwrap();
        assert!(amended);
        assert_eq!((r.status.as_str(), r.objective), ("wrong", None));
        let v: serde_json::Value = serde_json::from_str(&r.json).unwrap();
        assert_eq!(v["status"], "wrong");
        assert!(v["message"].as_str().unwrap().contains("verifier"), "{v}");
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
            assert!(amended && r.status == "wrong", "{status} {obj:?} {bound:?}");
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
            (r.status.as_str(), r.objective, r.bound),
            ("timeout", None, Some(2))
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
        let bad = record("solved", Some(2), Some(2), APART);
        assert!(check_record(&task("native"), &bad)
            .unwrap_err()
            .contains("solved"));
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
            kind: "model".into(),
            name: "m.mzn".into(),
            sha256: sha256_hex("x"),
            text: "y".into(),
        };
        assert!(check_tasks(std::slice::from_ref(&t), &[f])
            .unwrap_err()
            .contains("m.mzn"));
        // A frozen batch file must hold the task's instance.
        let batch = |text: &str| FrozenFile {
            kind: "batch".into(),
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
}
