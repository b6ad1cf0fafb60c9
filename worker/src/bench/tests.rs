//! End-to-end runs of the real solvers (installed by `scripts/install-solvers.sh`, which
//! `scripts/test.sh` runs first). A missing solver fails its test ([`needs`]) unless the
//! developer set `DANCEHALL_ALLOW_SKIP=1`. Each solver call is kept to about a second on small
//! instances.

use std::time::Duration;

use cores::domino::{self, BoundBy, Instance};

use super::*;

/// Instances with their source: the first four of the public suite's batch01
/// (../shared/data/domino/suite-public/batch01.txt), all of whose tiles fit, and three tight
/// boards generated for these tests, where they do not (the optimum comes from
/// `cores::domino::brute_force`, which shares no code with any solver here).
const SMALL: &[&str] = &[
    r#"{"id": "b01-e1", "difficulty": "easy", "n": 5, "k": 4, "tiles": [[1, 1, 4], [1, 2, 0], [4, 3, 0], [2, 2, 1]]}"#,
    r#"{"id": "b01-e2", "difficulty": "easy", "n": 5, "k": 2, "tiles": [[0, 1, 2], [1, 2, 1], [2, 2, 0], [2, 0, 1]]}"#,
    r#"{"id": "b01-e3", "difficulty": "easy", "n": 5, "k": 4, "tiles": [[0, 3, 4], [2, 0, 2], [2, 3, 4]]}"#,
    r#"{"id": "b01-e4", "difficulty": "easy", "n": 5, "k": 4, "tiles": [[1, 0, 0], [4, 3, 4], [2, 4, 0]]}"#,
    r#"{"id": "tight-1", "difficulty": "easy", "n": 3, "k": 3, "tiles": [[1, 1, 3], [3, 0, 3], [3, 1, 0], [2, 2, 0], [1, 1, 3], [0, 0, 1], [1, 3, 2]]}"#,
    r#"{"id": "tight-2", "difficulty": "easy", "n": 4, "k": 5, "tiles": [[4, 4, 1], [1, 4, 3], [5, 4, 1], [0, 3, 2], [1, 0, 4], [5, 5, 0], [4, 3, 3]]}"#,
    r#"{"id": "tight-3", "difficulty": "easy", "n": 3, "k": 2, "tiles": [[0, 0, 0], [1, 1, 1], [2, 2, 2]]}"#,
];

/// b01-h1 of the public suite: 24 tiles on 13 x 13.
const HARD: &str = r#"{"id": "b01-h1", "difficulty": "hard", "n": 13, "k": 7, "tiles": [[4, 3, 5], [1, 0, 7], [5, 6, 1], [6, 2, 4], [1, 5, 7], [6, 4, 0], [1, 2, 1], [7, 6, 5], [3, 0, 6], [4, 5, 7], [6, 7, 5], [6, 0, 5], [3, 6, 6], [5, 5, 4], [3, 6, 6], [2, 5, 4], [7, 2, 6], [6, 3, 0], [0, 6, 2], [0, 6, 1], [0, 0, 6], [4, 2, 1], [7, 2, 6], [5, 7, 2]]}"#;

fn instance(json: &str) -> Instance {
    domino::parse_line(json).expect("test instances are valid")
}

fn limits(seconds: u64) -> RunLimits {
    RunLimits {
        grace: Duration::from_millis(500),
        ..RunLimits::with_wall(Duration::from_secs(seconds))
    }
}

/// Whether the solver of configuration `name` is here: when it is not, a failure naming it and
/// its install script, or under `DANCEHALL_ALLOW_SKIP=1` a recorded skip
/// ([`crate::test_tools::present`]), after which the caller returns.
pub(super) fn needs(name: &str) -> bool {
    let a = config(name).unwrap().availability();
    let tool = format!("{name} ({})", a.reason.as_deref().unwrap_or("available"));
    crate::test_tools::present(a.available, &tool, "run scripts/install-solvers.sh")
}

fn assert_optimal(r: &RunRecord, optimum: u32) {
    assert_eq!(
        r.status,
        Status::Optimal,
        "{}/{}: {r:?}",
        r.instance,
        r.config
    );
    assert_eq!(r.objective(), Some(optimum), "{}/{}", r.instance, r.config);
    assert_eq!(r.bound(), Some(optimum), "{}/{}", r.instance, r.config);
    assert_eq!(r.placement().len() as u32, optimum);
    assert_eq!(
        r.termination,
        Termination::Normal,
        "{}/{}",
        r.instance,
        r.config
    );
}

#[test]
fn placement_model_clingo_and_native_find_the_brute_force_optimum() {
    for name in ["gecode-placement", "clingo"] {
        if !needs(name) {
            return;
        }
    }
    for json in SMALL {
        let inst = instance(json);
        let optimum = domino::brute_force(&inst).len() as u32;
        let records: Vec<RunRecord> = ["native", "gecode-placement", "clingo"]
            .iter()
            .map(|c| run(&inst, c, &limits(60)).unwrap())
            .collect();
        for r in &records {
            assert_optimal(r, optimum);
            assert!(r.cpu_seconds.is_some());
        }
        assert_eq!(cross_check(&records), vec![]);
        // The external records carry their measurement method and the exact command, and
        // their proof is the solver's.
        for r in &records[1..] {
            assert_eq!(r.bound_by(), Some(BoundBy::Solver), "{r:?}");
            assert_ne!(r.cpu_measure, Measure::None);
            assert_ne!(r.memory_measure, Measure::None);
            assert!(r.peak_memory_bytes.is_some_and(|m| m > 0), "{r:?}");
            assert!(!r.command.is_empty() && !r.solver_version.is_empty());
        }
    }
}

#[test]
fn the_seed_model_and_its_four_searches_find_the_optimum() {
    if !needs("gecode-basic") {
        return;
    }
    // b01-e3 (everything fits) and tight-3 (only two of three tiles fit).
    for json in [SMALL[2], SMALL[6]] {
        let inst = instance(json);
        let optimum = domino::brute_force(&inst).len() as u32;
        for name in [
            "gecode-basic",
            "gecode-inserted",
            "gecode-orientation",
            "gecode-posx",
        ] {
            let r = run(&inst, name, &limits(60)).unwrap();
            assert_optimal(&r, optimum);
            assert_eq!(r.solver, "gecode");
        }
    }
}

#[test]
fn a_tiny_limit_on_a_hard_instance_is_a_walltime_timeout_and_leaves_no_process() {
    if !needs("gecode-basic") {
        return;
    }
    let inst = instance(HARD);
    // MiniZinc needs seconds to compile this instance, so nothing is solved in 0.2 s.
    let mut l = limits(1);
    l.wall = Duration::from_millis(200);
    let r = run(&inst, "gecode-basic", &l).unwrap();
    assert_eq!(r.status, Status::Timeout, "{r:?}");
    assert_eq!(r.termination, Termination::Walltime);
    assert_eq!(r.objective(), None);
    // MiniZinc prints no bound: the record has none, nor a provenance.
    assert_eq!((r.bound(), r.bound_by()), (None, None));
    assert!(r.placement().is_empty());
    assert!(r.wall_seconds < 5.0, "{}", r.wall_seconds);
    let group = process::LAST_GROUP.with(|g| g.get());
    assert!(group > 0);
    assert!(process::live_group_members(group).is_empty());
}

#[test]
fn gecode_interrupted_at_its_limit_keeps_its_search_statistics() {
    if !needs("gecode-basic") {
        return;
    }
    // b01-h1: compiled in a second or two, not proven by Gecode's basic search in 8 s. At
    // the limit MiniZinc gets SIGINT, which stops Gecode as its own limit would: it prints
    // what its search did (killed by SIGTERM it printed only flattening's statistics). The
    // run is still a walltime run, never a proof, and ends within the grace.
    let inst = instance(HARD);
    let r = run(&inst, "gecode-basic", &limits(8)).unwrap();
    assert_eq!(r.termination, Termination::Walltime, "{r:?}");
    assert!(
        matches!(r.status, Status::Feasible | Status::Timeout),
        "{r:?}"
    );
    // Gecode prints its statistics when interrupted, with or without a solution.
    assert!(
        r.stats.get("nodes").is_some_and(|n| *n >= 1.0),
        "{:?}",
        r.stats
    );
    assert!(r.stats.contains_key("failures"), "{:?}", r.stats);
    assert!(r.wall_seconds < 8.0 + 2.0, "{}", r.wall_seconds);
    assert_ne!(r.signal, Some(libc::SIGKILL), "{r:?}");
    let group = process::LAST_GROUP.with(|g| g.get());
    assert!(process::live_group_members(group).is_empty());
}

#[test]
fn a_wrong_placement_is_recorded_wrong() {
    if !needs("clingo") {
        return;
    }
    // tight-3: three tiles of different constant values on 3 x 3; two fit (rows 0 and 2).
    // A model without the adjacency rule stacks all three, which the verifier must reject.
    let inst = instance(SMALL[6]);
    let model = models::model("domino.lp").unwrap().text;
    let broken: String = model
        .lines()
        .filter(|l| !l.contains("V1 != V2"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(broken.len(), model.len());
    let a = config("clingo").unwrap().availability();
    let mut ext = external_for(Engine::Clingo, &a).unwrap();
    ext.models = vec![("domino.lp".into(), broken)];
    let r = run_external(&inst, "clingo-broken", &ext, &limits(60));
    assert_eq!(r.status, Status::Wrong, "{r:?}");
    assert_eq!(r.objective(), None);
    assert_eq!(r.placement().len(), 3);
    assert!(r.message.as_deref().unwrap().contains("verifier"), "{r:?}");

    // A MiniZinc model whose objective line overstates its placement is wrong too.
    if !needs("gecode-placement") {
        return;
    }
    let a = config("gecode-placement").unwrap().availability();
    let mut ext = external_for(config("gecode-placement").unwrap().engine, &a).unwrap();
    let text = models::model("domino-placement.mzn").unwrap().text;
    let lying = text.replace(
        "\"objective \\(objective)\\n\"",
        "\"objective \\(objective + 1)\\n\"",
    );
    assert_ne!(lying, text);
    ext.models = vec![("domino-placement.mzn".into(), lying)];
    let r = run_external(&inst, "gecode-lying", &ext, &limits(60));
    assert_eq!(r.status, Status::Wrong, "{r:?}");
    assert!(
        r.message.as_deref().unwrap().contains("claims objective 3"),
        "{r:?}"
    );
}

#[test]
fn a_broken_model_is_an_error_with_the_solver_message() {
    if !needs("gecode-placement") {
        return;
    }
    let inst = instance(SMALL[0]);
    let a = config("gecode-placement").unwrap().availability();
    let mut ext = external_for(config("gecode-placement").unwrap().engine, &a).unwrap();
    ext.models = vec![(
        "domino-placement.mzn".into(),
        "solve satisfy; constraint nosuch > 1;".into(),
    )];
    let r = run_external(&inst, "gecode-typo", &ext, &limits(60));
    assert_eq!(r.status, Status::Error, "{r:?}");
    assert_eq!(r.termination, Termination::Failed);
    assert!(
        r.message
            .as_deref()
            .unwrap()
            .contains("undefined identifier"),
        "{r:?}"
    );
}

#[test]
fn chuffed_is_unavailable_unless_installed() {
    let inst = instance(SMALL[0]);
    let a = config("chuffed").unwrap().availability();
    let r = run(&inst, "chuffed", &limits(60)).unwrap();
    assert_eq!(r.solver, "chuffed");
    if a.available {
        assert_optimal(&r, 4);
    } else {
        assert_eq!(r.status, Status::Unavailable, "{r:?}");
        assert_eq!(r.termination, Termination::Normal);
        assert!(r.message.is_some() && r.command.is_empty());
    }
}

#[test]
fn an_unknown_configuration_is_an_error() {
    let inst = instance(SMALL[0]);
    let e = run(&inst, "cplex", &limits(1)).unwrap_err();
    assert!(e.to_string().contains("gecode-placement"), "{e}");
}

#[test]
fn a_native_record_carries_how_its_bound_was_proven() {
    // tight-2: not every tile fits on 4 x 4, so a search (not counting) proves the optimum;
    // the record says which, as the optimiser's outcome does.
    let inst = instance(SMALL[5]);
    let want = domino::solve(&inst, &domino::SolveLimits::default());
    let r = run(&inst, "native", &limits(60)).unwrap();
    assert_optimal(&r, want.objective);
    assert_eq!(
        (r.bound(), r.bound_by()),
        (Some(want.bound), Some(want.bound_by))
    );
    assert_ne!(want.bound_by, BoundBy::Count, "{want:?}");
    // And its statistics: the searches' nodes and seconds, CaDiCaL's questions.
    assert!(r.stats["nodes"] >= 1.0, "{:?}", r.stats);
    let secs: f64 = ["search_s", "anneal_s", "improve_s", "sat_s"]
        .iter()
        .map(|k| r.stats[*k])
        .sum();
    assert!(
        secs <= r.wall_seconds,
        "{:?} in {} s",
        r.stats,
        r.wall_seconds
    );
    assert!(
        r.stats["sat_refuted"] <= r.stats["sat_questions"],
        "{:?}",
        r.stats
    );
    // b01-e3: every tile fits, so counting is the proof.
    let inst = instance(SMALL[2]);
    let r = run(&inst, "native", &limits(60)).unwrap();
    assert_optimal(&r, 3);
    assert_eq!(r.bound_by(), Some(BoundBy::Count));
    // Stopped at once on b01-h1: its bound is the count, 24 tiles, whatever it placed.
    let r = run(
        &instance(HARD),
        "native",
        &RunLimits::with_wall(Duration::ZERO),
    )
    .unwrap();
    assert_eq!(
        (r.bound(), r.bound_by()),
        (Some(24), Some(BoundBy::Count)),
        "{r:?}"
    );
    let text = r.to_json();
    assert!(text.contains(r#""bound_by":"count""#), "{text}");
}

#[test]
fn a_record_round_trips_through_json() {
    let inst = instance(SMALL[2]);
    let r = run(&inst, "native", &limits(10)).unwrap();
    assert_optimal(&r, 3);
    assert_eq!(r.cpu_measure, Measure::Thread);
    assert_eq!(r.host.dancehall_version, env!("CARGO_PKG_VERSION"));
    let text = serde_json::to_string(&r).unwrap();
    let back: RunRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(back, r);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["status"], "optimal");
    assert_eq!(v["answer"]["family"], "domino");
    assert_eq!(v["termination"], "none");
    assert_eq!(
        v["answer"]["placement"][0]["orientation"]
            .as_str()
            .map(|o| o == "H" || o == "V"),
        Some(true)
    );
}

/// Medium instances of the public suite (../shared/data/domino/suite-public/batch01.txt,
/// lines 6 and 8) with the optimum the native solver proves on them (all their tiles).
const PUBLIC_PROVED: &[(&str, u32)] = &[
    (
        r#"{"id": "b01-m2", "difficulty": "medium", "n": 8, "k": 4, "tiles": [[3, 1, 1], [2, 3, 4], [3, 0, 4], [4, 1, 3], [4, 3, 4], [4, 4, 0], [3, 1, 2], [3, 0, 1]]}"#,
        8,
    ),
    (
        r#"{"id": "b01-m4", "difficulty": "medium", "n": 7, "k": 3, "tiles": [[3, 0, 3], [2, 0, 1], [0, 2, 1], [0, 2, 2], [3, 1, 1], [0, 1, 3], [1, 0, 1], [3, 2, 1]]}"#,
        8,
    ),
];

#[test]
fn cp_sat_finds_the_optimum_of_brute_force_and_native() {
    if !needs("cp-sat") {
        return;
    }
    let brute = SMALL
        .iter()
        .map(|json| (*json, domino::brute_force(&instance(json)).len() as u32));
    for (json, optimum) in brute.chain(PUBLIC_PROVED.iter().copied()) {
        let inst = instance(json);
        let native = run(&inst, "native", &limits(60)).unwrap();
        assert_optimal(&native, optimum);
        let r = run(&inst, "cp-sat", &limits(60)).unwrap();
        assert_optimal(&r, optimum);
        assert_eq!(r.solver, "cp-sat");
        assert!(r.solver_version.starts_with("OR-Tools "), "{r:?}");
        assert_eq!(domino::verify(&inst, r.placement()), Ok(()));
        assert_eq!(cross_check([&native, &r]), vec![]);
        // The exact command: the frozen script, the data, its own limit and one worker.
        assert!(r.command[1].ends_with("domino-cpsat.py"), "{:?}", r.command);
        assert!(r.command[2].ends_with("instance.dzn"), "{:?}", r.command);
        assert_eq!(r.command[3..], ["--time-limit", "60", "--workers", "1"]);
        assert_eq!(r.models[0].name, "domino-cpsat.py");
        assert_ne!(r.cpu_measure, Measure::None);
        assert!(r.peak_memory_bytes.is_some_and(|m| m > 0), "{r:?}");
        // Its search statistics, as the script printed them (presolve may leave no search:
        // zero branches on the smallest boards).
        assert!(r.stats["wall_time"] > 0.0, "{:?}", r.stats);
        assert!(
            ["branches", "conflicts", "booleans"]
                .iter()
                .all(|k| r.stats.get(*k).is_some_and(|v| *v >= 0.0)),
            "{:?}",
            r.stats
        );
    }
}

#[test]
fn cp_sat_at_its_limit_is_a_walltime_run_with_a_bound_and_leaves_no_process() {
    if !needs("cp-sat") {
        return;
    }
    // b01-h1 (24 tiles on 13 x 13) takes CP-SAT several seconds to prove; in one second
    // it has at best a placement, never a proof.
    let inst = instance(HARD);
    let r = run(&inst, "cp-sat", &limits(1)).unwrap();
    assert!(
        matches!(r.status, Status::Feasible | Status::Timeout),
        "{r:?}"
    );
    assert_eq!(r.termination, Termination::Walltime, "{r:?}");
    assert!(r.wall_seconds < 5.0, "{}", r.wall_seconds);
    if r.status == Status::Feasible {
        assert!(
            r.bound().is_some_and(|b| b >= r.objective().unwrap()),
            "{r:?}"
        );
        // Stopped at its limit, it still says what its search did.
        assert!(r.stats.contains_key("branches"), "{r:?}");
    }
    // CP-SAT's bound, when it printed one, is its own.
    let by = r.bound().map(|_| BoundBy::Solver);
    assert_eq!(r.bound_by(), by, "{r:?}");
    let group = process::LAST_GROUP.with(|g| g.get());
    assert!(group > 0);
    assert!(process::live_group_members(group).is_empty());
}

#[test]
fn a_wrong_cp_sat_answer_is_recorded_wrong() {
    if !needs("cp-sat") {
        return;
    }
    // tight-3: three tiles of different constant values on 3 x 3; two fit (rows 0 and 2).
    let inst = instance(SMALL[6]);
    let a = config("cp-sat").unwrap().availability();
    let text = models::model("domino-cpsat.py").unwrap().text;
    let with = |old: &str, new: &str| {
        let changed = text.replace(old, new);
        assert_ne!(changed, text, "{old}");
        let mut ext = external_for(Engine::CpSat, &a).unwrap();
        ext.models = vec![("domino-cpsat.py".into(), changed)];
        run_external(&inst, "cp-sat-tampered", &ext, &limits(60))
    };
    // Without the contact rule the three tiles stack up, which the verifier rejects.
    let r = with(
        "model.add_at_most_one(xs + others)",
        "pass  # contact rule removed",
    );
    assert_eq!(r.status, Status::Wrong, "{r:?}");
    assert_eq!(r.placement().len(), 3);
    assert!(r.message.as_deref().unwrap().contains("verifier"), "{r:?}");
    // A claimed objective above the placement's size.
    let r = with(
        "lines.append(f\"objective {objective}\")",
        "lines.append(f\"objective {objective + 1}\")",
    );
    assert_eq!(r.status, Status::Wrong, "{r:?}");
    assert!(
        r.message.as_deref().unwrap().contains("claims objective 3"),
        "{r:?}"
    );
    // A proof with a bound below its own placement.
    let r = with(
        "print(f\"bound {math.floor(solver.best_objective_bound + 1e-6)}\", flush=True)",
        "print(\"bound 1\", flush=True)",
    );
    assert_eq!(r.status, Status::Wrong, "{r:?}");
    assert!(r.message.as_deref().unwrap().contains("bound 1"), "{r:?}");
    // A script that fails is an error with its message.
    let r = with("tiles, n = read_dzn(text)", "fail(\"no data today\")");
    assert_eq!(r.status, Status::Error, "{r:?}");
    assert_eq!(r.termination, Termination::Failed);
    assert!(
        r.message.as_deref().unwrap().contains("no data today"),
        "{r:?}"
    );
}

/// Regression: an arithmetic overflow in a Sudoku run (a debug build's panic) made the worker
/// hand the unit back, and the coordinator leased it again 200,699 times.
#[test]
fn a_run_that_panics_is_an_error_record_with_the_panic_message() {
    let l = limits(5);
    let r = run_caught(Family::Sudoku, "top.txt:1-10", "bands", &l, || {
        let n = std::hint::black_box(u32::MAX);
        let m = n.checked_mul(2).expect("attempt to multiply with overflow");
        RunRecord::blank("top.txt:1-10", "bands", f64::from(m), HostInfo::default())
    });
    assert_eq!(r.status, Status::Error, "{r:?}");
    assert_eq!(r.termination, Termination::Failed);
    assert_eq!(
        r.message.as_deref(),
        Some("the run panicked: attempt to multiply with overflow")
    );
    assert_eq!(
        (r.instance.as_str(), r.config.as_str()),
        ("top.txt:1-10", "bands")
    );
    assert_eq!(
        r.family(),
        Family::Sudoku,
        "the task's family, so the judge reads it"
    );
    assert_eq!(r.time_limit_seconds, 5.0);
    // A run that returns is its own record, untouched.
    let ok = run_caught(Family::Domino, "b01-e1", "native", &l, || {
        RunRecord::blank("b01-e1", "native", 1.0, HostInfo::default())
    });
    assert_eq!(ok.termination, Termination::Normal);
    assert_eq!(ok.message, None);
}
