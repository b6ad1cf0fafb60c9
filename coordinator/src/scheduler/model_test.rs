//! Seeded random model test of the scheduler (matklad, "Properly Testing Concurrent Data
//! Structures"): random operations (lease, heartbeat, clock advance, expire, report,
//! re-split report, duplicate and wrong late reports, unknown tokens, release, release as
//! failed, a worker known dead, restart) are applied both to the scheduler and to a small
//! model written independently here; after each step the verdicts, granted units and counts
//! must agree, and at the end every job's total must be the true count of the synthetic tree
//! less the subtrees of the units held for failing or dying, each unit accepted exactly once.
//! The model's deaths: every expiry of a lease granted since the last restart, and every
//! lease of a worker known dead; a unit with a death is granted alone. The root's
//! children carry weights (1, 3, 2^40): every unit split from one keeps its weight, and the
//! weighted total (beyond 2^64) is exact.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use num_bigint::BigUint;

use super::{NewJob, NewUnit, Scheduler, SchedulerConfig};
use crate::job::{
    prefixes_text, AlarmKind, Count, JobSettings, JobState, LeaseEnd, LeaseToken, Millis, Prefix,
    UnitId, UnitResult, UnitState, Verdict, WorkerId,
};

const DEPTH: usize = 4;
const FANOUT: u32 = 3;
const LEASE_MS: u64 = 1_000;
/// The random model's failures limit (low, so that units are held often).
const FAILURES: u32 = 2;
/// The random model's deaths limit.
const DEATHS: u32 = 2;
/// The weights of the root's children (the job's first units).
const WEIGHTS: [u128; FANOUT as usize] = [1, 3, 1 << 40];

/// The weight of the unit at `prefix`: that of the root's child it lies below.
fn weight(prefix: &[u32]) -> u128 {
    WEIGHTS[prefix[0] as usize]
}

/// The synthetic search tree: every prefix shorter than DEPTH has FANOUT children; a leaf's
/// solutions are a fixed pseudo-random function of its path.
fn count(prefix: &[u32]) -> u128 {
    if prefix.len() == DEPTH {
        let h = prefix.iter().fold(0x9E37u64, |h, &x| {
            h.wrapping_mul(31).wrapping_add(u64::from(x) + 7)
        });
        // Large values, so that a job's total needs more than 64 bits.
        return u128::from(h % 5) << 70;
    }
    (0..FANOUT)
        .map(|c| {
            let mut p = prefix.to_vec();
            p.push(c);
            count(&p)
        })
        .sum()
}

fn token_gen(counter: Arc<AtomicU64>) -> impl FnMut() -> LeaseToken + Send + 'static {
    move || LeaseToken(format!("tok{:08}", counter.fetch_add(1, Ordering::Relaxed)))
}

fn result(solutions: u128, remaining: Vec<Prefix>) -> UnitResult {
    UnitResult {
        solutions: Count::from(solutions),
        nodes: 10,
        updates: 20,
        estimate_nodes: 0.0,
        wall_seconds: 0.5,
        cpu_seconds: 0.25,
        host: "model".into(),
        remaining,
        run_record_json: String::new(),
        core: Default::default(),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum MState {
    Queued,
    Leased {
        token: LeaseToken,
        worker: WorkerId,
        deadline: Millis,
    },
    Accepted {
        solutions: u128,
        remaining: String,
    },
}

#[derive(Clone, Debug)]
struct MUnit {
    prefix: Prefix,
    state: MState,
    /// Leases released as failed.
    failures: u32,
    /// Leases that expired (granted since the last restart) or whose worker was known dead.
    deaths: u32,
}

impl MUnit {
    fn new(prefix: Prefix) -> MUnit {
        MUnit {
            prefix,
            state: MState::Queued,
            failures: 0,
            deaths: 0,
        }
    }

    /// Queued, but failed or died too often to be leased again.
    fn held(&self) -> bool {
        self.state == MState::Queued && (self.failures >= FAILURES || self.deaths >= DEATHS)
    }
}

/// The model: one job, units by id, leases by token.
struct Model {
    units: BTreeMap<UnitId, MUnit>,
    next_unit: UnitId,
    /// Every token ever granted, with its unit.
    tokens: BTreeMap<LeaseToken, UnitId>,
    accepted_verdicts: BTreeMap<UnitId, u32>,
    alarms: usize,
    /// Tokens live at the last restart: their expiry is no death.
    inherited: BTreeSet<LeaseToken>,
    /// Units held for their deaths.
    died: usize,
    /// Expiries of inherited leases (no deaths).
    inherited_expiries: usize,
}

impl Model {
    fn expire(&mut self, now: Millis) -> usize {
        let mut n = 0;
        let ids: Vec<UnitId> = self.units.keys().copied().collect();
        for uid in ids {
            if let MState::Leased {
                deadline, token, ..
            } = &self.units[&uid].state
            {
                if *deadline < now {
                    let death = !self.inherited.contains(token);
                    self.units.get_mut(&uid).unwrap().state = MState::Queued;
                    if death {
                        self.die(uid);
                    } else {
                        self.inherited_expiries += 1;
                    }
                    n += 1;
                }
            }
        }
        n
    }

    /// A death of `uid` (whose lease has just ended): at the limit, held with an alarm.
    fn die(&mut self, uid: UnitId) {
        let u = self.units.get_mut(&uid).unwrap();
        u.deaths += 1;
        if u.deaths == DEATHS {
            self.alarms += 1;
            self.died += 1;
        }
    }

    /// Worker `w` is known dead: its live leases end, each a death. How many.
    fn worker_died(&mut self, w: WorkerId) -> usize {
        let ids: Vec<UnitId> = self
            .units
            .iter()
            .filter(|(_, u)| matches!(u.state, MState::Leased { worker, .. } if worker == w))
            .map(|(&id, _)| id)
            .collect();
        for &uid in &ids {
            self.units.get_mut(&uid).unwrap().state = MState::Queued;
            self.die(uid);
        }
        ids.len()
    }

    /// The units a lease of up to `n` by `w` grants: the queued ones, oldest first; a unit
    /// with a death only alone, to a worker holding nothing; nothing to a worker holding such
    /// a unit.
    fn grantable(&self, w: WorkerId, n: usize) -> Vec<UnitId> {
        let holding: Vec<&MUnit> = self
            .units
            .values()
            .filter(|u| matches!(u.state, MState::Leased { worker, .. } if worker == w))
            .collect();
        let mut want = Vec::new();
        if holding.iter().any(|u| u.deaths > 0) {
            return want;
        }
        for (&id, u) in &self.units {
            if want.len() >= n {
                break;
            }
            if u.state != MState::Queued || u.held() {
                continue;
            }
            if u.deaths > 0 {
                if holding.is_empty() && want.is_empty() {
                    want.push(id);
                    break;
                }
                continue;
            }
            want.push(id);
        }
        want
    }

    fn live(&self, token: &LeaseToken) -> Option<(UnitId, WorkerId)> {
        let uid = *self.tokens.get(token)?;
        match &self.units[&uid].state {
            MState::Leased {
                token: t, worker, ..
            } if t == token => Some((uid, *worker)),
            _ => None,
        }
    }

    fn held(&self) -> impl Iterator<Item = &MUnit> {
        self.units.values().filter(|u| u.held())
    }

    fn accepted_total(&self) -> u128 {
        self.units
            .values()
            .map(|u| match u.state {
                MState::Accepted { solutions, .. } => solutions,
                _ => 0,
            })
            .sum()
    }

    fn weighted_total(&self) -> u128 {
        self.units
            .values()
            .map(|u| match u.state {
                MState::Accepted { solutions, .. } => weight(&u.prefix) * solutions,
                _ => 0,
            })
            .sum()
    }

    /// The verdict a report should get (after expiry), applying it to the model.
    fn report(&mut self, token: &LeaseToken, solutions: u128, remaining: &[Prefix]) -> Verdict {
        if let Some((uid, _)) = self.live(token) {
            self.units.get_mut(&uid).unwrap().state = MState::Accepted {
                solutions,
                remaining: prefixes_text(remaining),
            };
            *self.accepted_verdicts.entry(uid).or_default() += 1;
            for r in remaining {
                self.units.insert(self.next_unit, MUnit::new(r.clone()));
                self.next_unit += 1;
            }
            return Verdict::Accepted;
        }
        let Some(uid) = self.tokens.get(token) else {
            return Verdict::Stale;
        };
        match &self.units[uid].state {
            MState::Accepted {
                solutions: s,
                remaining: r,
            } => {
                if *r != prefixes_text(remaining) || *s == solutions {
                    Verdict::Duplicate
                } else {
                    self.alarms += 1;
                    Verdict::Mismatch
                }
            }
            _ => Verdict::Stale,
        }
    }
}

fn pick<'a, T>(rng: &mut ChaCha8Rng, v: &'a [T]) -> Option<&'a T> {
    if v.is_empty() {
        None
    } else {
        Some(&v[rng.random_range(0..v.len())])
    }
}

/// Runs one seeded sequence; returns how often each verdict was seen (and restarts).
fn run_model(seed: u64, steps: usize) -> BTreeMap<String, usize> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let counter = Arc::new(AtomicU64::new(0));
    let config = SchedulerConfig {
        lease_duration_ms: LEASE_MS,
        attempts_alarm: 0,
        failures_limit: FAILURES,
        deaths_limit: DEATHS,
        max_units_per_lease: 4,
        retry_after_ms: 10,
    };
    let mut s = Scheduler::new(config.clone(), token_gen(counter.clone()));
    let mut now: Millis = 1_000_000;
    let workers: Vec<WorkerId> = (0..3)
        .map(|i| s.register(now, &format!("w{i}"), "h", 1, "t"))
        .collect();
    // Units: the root's children, and one counted directly (as the partitioner does).
    let units: Vec<NewUnit> = (0..FANOUT)
        .map(|c| NewUnit {
            prefix: vec![c],
            weight: Count::from(weight(&[c])),
            estimate: None,
            task: None,
            term: None,
            counted: None,
            split: false,
            parent: None,
        })
        .collect();
    let job = s.add_job(
        now,
        NewJob {
            name: "model".into(),
            kind: crate::job::JobKind::Count,
            manifest: None,
            files: Vec::new(),
            prefix: vec![],
            symmetry_factor: Count::one(),
            settings: JobSettings {
                unit_node_limit: None,
                unit_time_budget_ms: None,
                audit_share: 0.0,
                seed: 0,
                ..Default::default()
            },
            dlx: String::new(),
            spec: String::new(),
            units,
        },
    );
    let mut m = Model {
        units: (0..FANOUT)
            .map(|c| (u64::from(c) + 1, MUnit::new(vec![c])))
            .collect(),
        next_unit: u64::from(FANOUT) + 1,
        tokens: BTreeMap::new(),
        accepted_verdicts: BTreeMap::new(),
        alarms: 0,
        inherited: BTreeSet::new(),
        died: 0,
        inherited_expiries: 0,
    };
    let mut past: Vec<(WorkerId, LeaseToken, UnitId, UnitResult)> = Vec::new();
    let mut alarms_seen = 0;

    for step in 0..steps {
        let op = rng.random_range(0..100);
        let ctx = format!("seed {seed} step {step} op {op}");
        match op {
            0..=24 => {
                let w = *pick(&mut rng, &workers).unwrap();
                let n = rng.random_range(1..6u32);
                m.expire(now);
                let want = m.grantable(w, n.min(config.max_units_per_lease) as usize);
                let got = s.lease(now, w, n).unwrap();
                let ids: Vec<UnitId> = got.units.iter().map(|g| g.unit.id).collect();
                assert_eq!(ids, want, "{ctx}: granted units");
                if ids.iter().any(|id| m.units[id].deaths > 0) {
                    *seen.entry("alone".into()).or_default() += 1;
                }
                for g in got.units {
                    assert_eq!(g.unit.prefix, m.units[&g.unit.id].prefix, "{ctx}");
                    assert_eq!(g.lease.deadline, now + LEASE_MS);
                    assert!(m.tokens.insert(g.lease.token.clone(), g.unit.id).is_none());
                    m.units.get_mut(&g.unit.id).unwrap().state = MState::Leased {
                        token: g.lease.token,
                        worker: w,
                        deadline: now + LEASE_MS,
                    };
                }
            }
            25..=34 => {
                let w = *pick(&mut rng, &workers).unwrap();
                let all: Vec<LeaseToken> = m.tokens.keys().cloned().collect();
                let mut ask: Vec<LeaseToken> = (0..rng.random_range(0..4))
                    .filter_map(|_| pick(&mut rng, &all).cloned())
                    .collect();
                ask.sort();
                ask.dedup();
                m.expire(now);
                let got = s.heartbeat(now, w, &ask).unwrap();
                let mut want_ext = Vec::new();
                let mut want_inv = Vec::new();
                for t in &ask {
                    match m.live(t) {
                        Some((uid, holder)) if holder == w => {
                            want_ext.push(t.clone());
                            if let MState::Leased { deadline, .. } =
                                &mut m.units.get_mut(&uid).unwrap().state
                            {
                                *deadline = now + LEASE_MS;
                            }
                        }
                        _ => want_inv.push(t.clone()),
                    }
                }
                assert_eq!(got.extended, want_ext, "{ctx}: extended");
                assert_eq!(got.invalid, want_inv, "{ctx}: invalid");
            }
            35..=44 => {
                now += rng.random_range(0..LEASE_MS * 3 / 2);
            }
            45..=49 => {
                assert_eq!(s.expire(now), m.expire(now), "{ctx}: expired");
            }
            50..=64 => {
                // A truthful report through a live or ended token, sometimes stopped early.
                let live: Vec<LeaseToken> = m
                    .tokens
                    .keys()
                    .filter(|t| m.live(t).is_some())
                    .cloned()
                    .collect();
                let all: Vec<LeaseToken> = m.tokens.keys().cloned().collect();
                let t = if rng.random_bool(0.8) {
                    pick(&mut rng, &live)
                } else {
                    pick(&mut rng, &all)
                };
                let Some(t) = t.cloned() else { continue };
                let uid = m.tokens[&t];
                let prefix = m.units[&uid].prefix.clone();
                let mut remaining = Vec::new();
                if prefix.len() < DEPTH && rng.random_bool(0.3) {
                    for c in 0..FANOUT {
                        if rng.random_bool(0.5) {
                            let mut p = prefix.clone();
                            p.push(c);
                            remaining.push(p);
                        }
                    }
                }
                let solutions = count(&prefix) - remaining.iter().map(|r| count(r)).sum::<u128>();
                let res = result(solutions, remaining.clone());
                let w = m.live(&t).map(|(_, w)| w).unwrap_or(workers[0]);
                m.expire(now);
                let want = m.report(&t, solutions, &remaining);
                let got = s.report(now, w, &t, uid, res.clone());
                assert_eq!(got.verdict, want, "{ctx}: verdict ({})", got.message);
                assert_eq!(got.unit, Some(uid));
                *seen.entry(format!("{:?}", got.verdict)).or_default() += 1;
                if got.verdict == Verdict::Accepted && !remaining.is_empty() {
                    *seen.entry("split".into()).or_default() += 1;
                }
                past.push((w, t, uid, res));
            }
            75..=82 => {
                // Resend an earlier report unchanged, or with a wrong count.
                let Some((w, t, uid, res)) = pick(&mut rng, &past).cloned() else {
                    continue;
                };
                let mut res = res;
                if rng.random_bool(0.3) {
                    res.solutions += Count::one();
                }
                m.expire(now);
                let n = res
                    .solutions
                    .to_u128()
                    .expect("the model's counts are below 2^128");
                let want = m.report(&t, n, &res.remaining);
                let got = s.report(now, w, &t, uid, res);
                assert_eq!(
                    got.verdict, want,
                    "{ctx}: repeated report ({})",
                    got.message
                );
                *seen.entry(format!("{:?}", got.verdict)).or_default() += 1;
            }
            83..=85 => {
                let t = LeaseToken(format!("forged{step}"));
                m.expire(now);
                let got = s.report(now, workers[1], &t, 1, result(5, vec![]));
                assert_eq!(got.verdict, Verdict::Stale, "{ctx}");
                assert_eq!(got.unit, None);
            }
            65..=74 | 86..=93 => {
                // A release: 65..=74, a worker's own live lease whose run failed; 86..=89,
                // random tokens from a random worker; 90..=93, a worker's own live lease.
                // Those two are handed back unrun, or sometimes as failed too.
                let failed_run = op <= 74;
                let own = failed_run || op >= 90;
                let mut w = *pick(&mut rng, &workers).unwrap();
                let all: Vec<LeaseToken> = m.tokens.keys().cloned().collect();
                let mut ask: Vec<LeaseToken> = (0..rng.random_range(0..4))
                    .filter_map(|_| pick(&mut rng, &all).cloned())
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect();
                // A failure is counted; at the limit its unit is held.
                let failure =
                    (failed_run || rng.random_bool(0.3)).then_some("the search panicked: boom");
                if own {
                    m.expire(now);
                    let live: Vec<LeaseToken> = all
                        .iter()
                        .filter(|t| m.live(t).is_some())
                        .cloned()
                        .collect();
                    if let Some(t) = pick(&mut rng, &live) {
                        w = m.live(t).unwrap().1;
                        ask = vec![t.clone()];
                    }
                }
                m.expire(now);
                let mut want = 0;
                for t in &ask {
                    if let Some((uid, holder)) = m.live(t) {
                        if holder == w {
                            let u = m.units.get_mut(&uid).unwrap();
                            u.state = MState::Queued;
                            if failure.is_some() {
                                u.failures += 1;
                                if u.failures == FAILURES {
                                    m.alarms += 1;
                                    *seen.entry("held".into()).or_default() += 1;
                                }
                            }
                            want += 1;
                        }
                    }
                }
                let got = s.release(now, w, &ask, failure).unwrap();
                assert_eq!(got, want, "{ctx}: released");
            }
            97..=99 => {
                // A worker known dead (its process ended): its leases end at once, deaths.
                let w = *pick(&mut rng, &workers).unwrap();
                m.expire(now);
                let want = m.worker_died(w);
                let got = s.worker_died(now, w, "killed by SIGKILL").unwrap();
                assert_eq!(got, want, "{ctx}: leases of the dead worker");
                *seen.entry("worker-died".into()).or_default() += usize::from(got > 0);
            }
            _ => {
                // Restart from the persisted state; the leases live now are no deaths when
                // they expire.
                let snap = s.snapshot();
                s = Scheduler::restore(config.clone(), snap.clone(), token_gen(counter.clone()));
                *seen.entry("restart".into()).or_default() += 1;
                assert_eq!(s.snapshot(), snap, "{ctx}: restore is lossless");
                m.inherited = m
                    .units
                    .values()
                    .filter_map(|u| match &u.state {
                        MState::Leased { token, .. } => Some(token.clone()),
                        _ => None,
                    })
                    .collect();
            }
        }
        s.check_invariants();
        let st = s.status(job).unwrap();
        assert_eq!(
            st.solutions,
            Count::from(m.accepted_total()),
            "{ctx}: running total"
        );
        assert_eq!(
            st.weighted_solutions,
            Count::from(m.weighted_total()),
            "{ctx}: weighted total"
        );
        assert!(st.weighted);
        assert_eq!(st.units_held, m.held().count() as u64, "{ctx}: held");
        alarms_seen += s.take_changes().alarms.len();
        assert_eq!(alarms_seen, m.alarms, "{ctx}: alarms");
        for (uid, n) in &m.accepted_verdicts {
            assert_eq!(*n, 1, "{ctx}: unit {uid} accepted {n} times");
        }
        for (uid, u) in &m.units {
            let st = s.unit(*uid).unwrap().state;
            let ok = match u.state {
                MState::Queued => st == UnitState::Queued,
                MState::Leased { .. } => st == UnitState::Leased,
                MState::Accepted { ref remaining, .. } => {
                    st == if remaining.is_empty() {
                        UnitState::Done
                    } else {
                        UnitState::Split
                    }
                }
            };
            assert!(ok, "{ctx}: unit {uid} is {st:?}, model {:?}", u.state);
            assert_eq!(
                s.unit(*uid).unwrap().weight,
                Count::from(weight(&u.prefix)),
                "{ctx}: unit {uid}"
            );
            assert_eq!(
                s.unit(*uid).unwrap().failures,
                u.failures,
                "{ctx}: unit {uid}"
            );
            assert_eq!(s.unit(*uid).unwrap().deaths, u.deaths, "{ctx}: unit {uid}");
        }
    }

    // Drain: lease everything and report truthfully until only held units are left open
    // (the other leases expire meanwhile, deaths too).
    let mut rounds = 0;
    loop {
        let st = s.status(job).unwrap();
        if st.units_leased == 0 && st.units_queued == st.units_held {
            break;
        }
        rounds += 1;
        assert!(rounds < 10_000, "seed {seed}: the job never settles");
        now += 1;
        m.expire(now);
        let want = m.grantable(workers[2], 4);
        let g = s.lease(now, workers[2], 4).unwrap();
        let ids: Vec<UnitId> = g.units.iter().map(|g| g.unit.id).collect();
        assert_eq!(ids, want, "seed {seed}: drain round {rounds}");
        for g in g.units {
            let n = count(&g.unit.prefix);
            let v = s.report(
                now,
                workers[2],
                &g.lease.token,
                g.unit.id,
                result(n, vec![]),
            );
            assert_eq!(v.verdict, Verdict::Accepted);
            m.units.get_mut(&g.unit.id).unwrap().state = MState::Accepted {
                solutions: n,
                remaining: String::new(),
            };
        }
    }
    *seen.entry("died".into()).or_default() += m.died;
    *seen.entry("inherited".into()).or_default() += m.inherited_expiries;
    // The held units' subtrees are all that is missing; a job with none is done.
    let st = s.status(job).unwrap();
    let held: Vec<&Prefix> = m.held().map(|u| &u.prefix).collect();
    assert_eq!(st.units_held, held.len() as u64, "seed {seed}: held");
    let missing: u128 = held.iter().map(|p| count(p)).sum();
    assert_eq!(
        st.solutions,
        Count::from(count(&[]) - missing),
        "seed {seed}: exact total"
    );
    let weighted: u128 = (0..FANOUT).map(|c| weight(&[c]) * count(&[c])).sum();
    let missing: u128 = held.iter().map(|p| weight(p) * count(p)).sum();
    assert_eq!(
        st.weighted_solutions,
        Count::from(weighted - missing),
        "seed {seed}: exact weighted total"
    );
    assert_eq!(st.units_queued, st.units_held);
    assert_eq!(st.units_done + st.units_held, st.units_total);
    if held.is_empty() {
        assert_eq!(st.job.state, JobState::Done, "seed {seed}");
        assert!(
            st.solutions > Count::from(u64::MAX),
            "the total needs more than 64 bits"
        );
        *seen.entry("done".into()).or_default() += 1;
    } else {
        assert_eq!(st.job.state, JobState::Running, "seed {seed}: held units");
        assert!(s.lease(now, workers[0], 4).unwrap().idle, "seed {seed}");
    }
    s.check_invariants();
    seen
}

#[test]
fn scheduler_agrees_with_the_model() {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for seed in 0..80 {
        for (k, n) in run_model(seed, 400) {
            *seen.entry(k).or_default() += n;
        }
    }
    // The random operations reach every case.
    for k in [
        "Accepted",
        "Duplicate",
        "Stale",
        "Mismatch",
        "split",
        "restart",
        "held",
        "died",
        "worker-died",
        "alone",
        "inherited",
        "done",
    ] {
        assert!(
            seen.get(k).copied().unwrap_or(0) >= 10,
            "{k} seen too rarely: {seen:?}"
        );
    }
}

fn two_worker_job(audit_share: f64, units: usize) -> (Scheduler, Vec<WorkerId>, u64) {
    let counter = Arc::new(AtomicU64::new(0));
    let mut s = Scheduler::new(SchedulerConfig::default(), token_gen(counter));
    let ws = vec![
        s.register(0, "a", "h", 1, "t"),
        s.register(0, "b", "h", 1, "t"),
    ];
    let job = s.add_job(
        0,
        NewJob {
            name: "audit".into(),
            kind: crate::job::JobKind::Count,
            manifest: None,
            files: Vec::new(),
            prefix: vec![],
            symmetry_factor: Count::one(),
            settings: JobSettings {
                unit_node_limit: None,
                unit_time_budget_ms: None,
                audit_share,
                seed: 7,
                ..Default::default()
            },
            dlx: String::new(),
            spec: String::new(),
            units: (0..units as u32)
                .map(|c| NewUnit {
                    prefix: vec![c],
                    weight: Count::one(),
                    estimate: None,
                    task: None,
                    term: None,
                    counted: None,
                    split: false,
                    parent: None,
                })
                .collect(),
        },
    );
    (s, ws, job)
}

#[test]
fn audits_run_on_another_worker_and_flag_a_mismatch() {
    let (mut s, ws, job) = two_worker_job(1.0, 3);
    // Worker a does all three units.
    let g = s.lease(1, ws[0], 10).unwrap();
    assert_eq!(g.units.len(), 3);
    for g in &g.units {
        let r = s.report(
            2,
            ws[0],
            &g.lease.token,
            g.unit.id,
            result(u128::from(g.unit.prefix[0]) + 10, vec![]),
        );
        assert_eq!(r.verdict, Verdict::Accepted);
    }
    let st = s.status(job).unwrap();
    assert_eq!(
        st.job.state,
        JobState::Done,
        "audits do not hold a job open"
    );
    assert_eq!((st.audits_total, st.audits_done), (3, 0));
    assert_eq!(st.solutions, Count::from(10u32 + 11 + 12));
    // Worker a may not audit its own units.
    assert!(s.lease(3, ws[0], 10).unwrap().units.is_empty());
    let g = s.lease(3, ws[1], 10).unwrap();
    assert_eq!(g.units.len(), 3);
    assert!(g
        .units
        .iter()
        .all(|g| g.node_limit.is_none() && g.time_budget_ms.is_none()));
    let mut verdicts = Vec::new();
    for (i, g) in g.units.iter().enumerate() {
        let of = g.unit.audit_of.unwrap();
        let truth = u128::from(s.unit(of).unwrap().prefix[0]) + 10;
        let claimed = if i == 1 { truth + 1 } else { truth };
        verdicts.push(
            s.report(4, ws[1], &g.lease.token, g.unit.id, result(claimed, vec![]))
                .verdict,
        );
    }
    assert_eq!(
        verdicts,
        vec![Verdict::Accepted, Verdict::Mismatch, Verdict::Accepted]
    );
    let st = s.status(job).unwrap();
    assert_eq!(
        st.solutions,
        Count::from(10u32 + 11 + 12),
        "audits are never added"
    );
    assert_eq!(st.weighted_solutions, st.solutions);
    assert!(!st.weighted);
    assert_eq!((st.audits_total, st.audits_done), (3, 3));
    assert_eq!(st.alarms.len(), 1);
    assert_eq!(st.alarms[0].kind, AlarmKind::AuditMismatch);
    s.check_invariants();
}

#[test]
fn audit_share_picks_about_that_share() {
    let n = (1..=10_000u64)
        .filter(|&u| super::audit_selected(3, u, 0.1))
        .count();
    assert!((800..1200).contains(&n), "{n}");
    assert!(!super::audit_selected(3, 5, 0.0));
}

#[test]
fn cancel_ends_leases_and_queues() {
    let (mut s, ws, job) = two_worker_job(0.0, 4);
    let g = s.lease(1, ws[0], 1).unwrap();
    let t = g.units[0].lease.token.clone();
    s.cancel(2, job).unwrap();
    let st = s.status(job).unwrap();
    assert_eq!(st.job.state, JobState::Cancelled);
    assert_eq!((st.units_queued, st.units_leased), (0, 0));
    let hb = s.heartbeat(3, ws[0], std::slice::from_ref(&t)).unwrap();
    assert_eq!(hb.invalid, vec![t.clone()]);
    assert_eq!(
        s.report(3, ws[0], &t, 1, result(1, vec![])).verdict,
        Verdict::Stale
    );
    let l = s.lease(4, ws[1], 4).unwrap();
    assert!(l.units.is_empty());
    assert!(l.idle);
    s.check_invariants();
}

#[test]
fn malformed_remaining_is_rejected_and_requeued() {
    let (mut s, ws, job) = two_worker_job(0.0, 1);
    let g = s.lease(1, ws[0], 1).unwrap();
    let u = &g.units[0];
    let r = s.report(
        2,
        ws[0],
        &u.lease.token,
        u.unit.id,
        result(1, vec![vec![9, 9]]),
    );
    assert_eq!(r.verdict, Verdict::Rejected);
    assert_eq!(s.unit(u.unit.id).unwrap().state, UnitState::Queued);
    assert_eq!(s.status(job).unwrap().alarms[0].kind, AlarmKind::Rejected);
    assert_eq!(s.status(job).unwrap().solutions, Count::from(0u32));
    s.check_invariants();
}

/// A core that answers a unit malformed does so on every lease: each rejected report counts
/// as a failed run, and at the failures limit the unit is held (not leased again), its job's
/// other unit still counted.
#[test]
fn a_unit_whose_reports_are_rejected_failures_limit_times_is_held() {
    let limit = SchedulerConfig::default().failures_limit;
    let (mut s, ws, job) = two_worker_job(0.0, 2);
    for now in 1..=u64::from(limit) {
        let g = s.lease(now, ws[0], 1).unwrap();
        let u = &g.units[0];
        assert_eq!(u.unit.id, 1, "lease {now}: unit 1 is queued again");
        let r = s.report(
            now,
            ws[0],
            &u.lease.token,
            u.unit.id,
            result(1, vec![vec![9, 9]]),
        );
        assert_eq!(r.verdict, Verdict::Rejected);
        assert_eq!(s.unit(1).unwrap().failures, now as u32);
        s.check_invariants();
    }
    let g = s.lease(10, ws[1], 2).unwrap();
    let ids: Vec<UnitId> = g.units.iter().map(|g| g.unit.id).collect();
    assert_eq!(ids, vec![2], "the held unit is not leased again");
    let st = s.status(job).unwrap();
    assert_eq!((st.units_queued, st.units_held), (1, 1));
    let kinds: Vec<AlarmKind> = st.alarms.iter().map(|a| a.kind).collect();
    let mut want = vec![AlarmKind::Rejected; limit as usize];
    want.push(AlarmKind::Failed);
    assert_eq!(kinds, want);
    assert!(
        st.alarms[limit as usize]
            .message
            .contains("report rejected"),
        "{}",
        st.alarms[limit as usize].message
    );
    s.check_invariants();
}

#[test]
fn attempts_alarm_is_raised_once() {
    let (mut s, ws, job) = two_worker_job(0.0, 1);
    let mut now = 0;
    for _ in 0..7 {
        now += SchedulerConfig::default().lease_duration_ms + 1;
        assert_eq!(s.lease(now, ws[0], 1).unwrap().units.len(), 1);
    }
    let alarms = s.status(job).unwrap().alarms;
    assert_eq!(alarms.len(), 1);
    assert_eq!(alarms[0].kind, AlarmKind::Attempts);
}

/// A job of weighted units (and a share of audits), worker a reporting every unit.
fn weighted_job(weights: &[u128], audit_share: f64) -> (Scheduler, Vec<WorkerId>, u64) {
    let (mut s, ws, _) = two_worker_job(0.0, 0);
    let job = s.add_job(
        0,
        NewJob {
            name: "weighted".into(),
            kind: crate::job::JobKind::Count,
            manifest: None,
            files: Vec::new(),
            prefix: vec![],
            symmetry_factor: Count::one(),
            settings: JobSettings {
                audit_share,
                ..Default::default()
            },
            dlx: String::new(),
            spec: String::new(),
            units: weights
                .iter()
                .enumerate()
                .map(|(c, &w)| NewUnit {
                    prefix: vec![c as u32],
                    weight: Count::from(w),
                    estimate: None,
                    task: None,
                    term: None,
                    counted: None,
                    split: false,
                    parent: None,
                })
                .collect(),
        },
    );
    (s, ws, job)
}

#[test]
fn split_children_and_audits_keep_their_weight_and_the_weighted_total_is_exact() {
    let big: u128 = 10u128.pow(20);
    let (mut s, ws, job) = weighted_job(&[big, 3], 1.0);
    let g = s.lease(1, ws[0], 10).unwrap();
    assert_eq!(g.units.len(), 2);
    let (a, b) = (&g.units[0], &g.units[1]);
    assert_eq!(
        (a.unit.weight.clone(), b.unit.weight.clone()),
        (Count::from(big), Count::from(3u8))
    );
    // Unit a stops early and hands back two subtrees; unit b finishes.
    let r = s.report(
        2,
        ws[0],
        &a.lease.token,
        a.unit.id,
        result(5, vec![vec![0, 1], vec![0, 2]]),
    );
    assert_eq!(r.verdict, Verdict::Accepted);
    let r = s.report(2, ws[0], &b.lease.token, b.unit.id, result(7, vec![]));
    assert_eq!(r.verdict, Verdict::Accepted);
    let children: Vec<_> = s
        .job_units(job)
        .into_iter()
        .filter(|(u, _)| u.parent == Some(a.unit.id) && u.audit_of.is_none())
        .map(|(u, _)| (u.prefix.clone(), u.weight.clone()))
        .collect();
    let big_c = Count::from(big);
    assert_eq!(
        children,
        vec![(vec![0, 1], big_c.clone()), (vec![0, 2], big_c)]
    );
    let audit = s
        .job_units(job)
        .into_iter()
        .find(|(u, _)| u.audit_of == Some(b.unit.id))
        .map(|(u, _)| u.weight.clone());
    assert_eq!(
        audit,
        Some(Count::from(3u8)),
        "an audit keeps the weight of the unit it checks"
    );
    // The children and the audit, by worker b.
    let g = s.lease(3, ws[1], 10).unwrap();
    assert_eq!(g.units.len(), 3);
    for g in &g.units {
        let n = if g.unit.audit_of.is_some() { 7 } else { 11 };
        let r = s.report(4, ws[1], &g.lease.token, g.unit.id, result(n, vec![]));
        assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    }
    let st = s.status(job).unwrap();
    assert_eq!(st.job.state, JobState::Done);
    assert_eq!(st.solutions, Count::from(5u8 + 7 + 11 + 11));
    let want = big * (5 + 11 + 11) + 3 * 7;
    assert!(want > u128::from(u64::MAX));
    assert_eq!(
        st.weighted_solutions,
        Count::from(want),
        "audits are never added"
    );
    assert!(st.weighted);
    // A restart keeps every weight.
    let snap = s.snapshot();
    let again = Scheduler::restore(SchedulerConfig::default(), snap, || LeaseToken("x".into()));
    assert_eq!(
        again.status(job).unwrap().weighted_solutions,
        Count::from(want)
    );
    s.check_invariants();
}

/// Regression: a total past 2^128 was `None` (then "overflow" on the wire); it is exact.
#[test]
fn a_total_past_u128_is_exact() {
    let (mut s, ws, job) = weighted_job(&[u128::MAX / 2, 1], 0.0);
    let g = s.lease(1, ws[0], 10).unwrap();
    for g in &g.units {
        let r = s.report(2, ws[0], &g.lease.token, g.unit.id, result(3, vec![]));
        assert_eq!(r.verdict, Verdict::Accepted);
    }
    let st = s.status(job).unwrap();
    assert_eq!(st.solutions, Count::from(6u8));
    assert!(
        (u128::MAX / 2).checked_mul(3).is_none(),
        "(2^127 - 1) x 3 overflows u128"
    );
    let want = BigUint::from(u128::MAX / 2) * 3u32 + 3u32;
    assert_eq!(st.weighted_solutions.as_biguint(), &want);
    assert_eq!(st.weighted_solutions.bits(), 129);
    // The unweighted sum too.
    let (mut s, ws, job) = weighted_job(&[1, 1], 0.0);
    let g = s.lease(1, ws[0], 10).unwrap();
    for g in &g.units {
        let r = s.report(
            2,
            ws[0],
            &g.lease.token,
            g.unit.id,
            result(u128::MAX, vec![]),
        );
        assert_eq!(r.verdict, Verdict::Accepted);
    }
    let st = s.status(job).unwrap();
    let want = BigUint::from(u128::MAX) * 2u32;
    assert_eq!(st.solutions.as_biguint(), &want);
    assert_eq!(st.weighted_solutions, st.solutions);
}

#[test]
fn a_sudoku_bands_result_that_hands_back_subtrees_is_rejected() {
    let (mut s, ws, job) = weighted_job(&[1], 0.0);
    let g = s.lease(1, ws[0], 1).unwrap();
    let u = &g.units[0];
    let mut r = result(1, vec![vec![0, 4]]);
    r.core = crate::job::CountCore::SudokuBands;
    let out = s.report(2, ws[0], &u.lease.token, u.unit.id, r);
    assert_eq!(out.verdict, Verdict::Rejected);
    assert_eq!(s.unit(u.unit.id).unwrap().state, UnitState::Queued);
    assert_eq!(s.status(job).unwrap().alarms[0].kind, AlarmKind::Rejected);
}

#[test]
fn a_report_from_another_worker_than_the_lease_holder_is_not_counted() {
    let (mut s, ws, job) = weighted_job(&[1], 0.0);
    let g = s.lease(1, ws[0], 1).unwrap();
    let u = &g.units[0];
    let r = s.report(2, ws[1], &u.lease.token, u.unit.id, result(5, vec![]));
    assert_eq!(r.verdict, Verdict::Stale, "{}", r.message);
    assert!(r.message.contains("belongs to worker"), "{}", r.message);
    assert_eq!(s.status(job).unwrap().solutions, Count::from(0u32));
    // The lease runs on for its holder.
    let r = s.report(3, ws[0], &u.lease.token, u.unit.id, result(5, vec![]));
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    assert_eq!(s.status(job).unwrap().solutions, Count::from(5u32));
}

/// Regression: a unit whose run failed on every worker was released and leased again at once,
/// forever (200,699 leases in 25 minutes), and its job never ended.
#[test]
fn a_unit_whose_runs_fail_failures_limit_times_is_held() {
    let (mut s, ws, job) = two_worker_job(0.0, 3);
    let limit = SchedulerConfig::default().failures_limit;
    assert_eq!(limit, 3);
    let lease_ms = SchedulerConfig::default().lease_duration_ms;
    let mut now = 1;
    let lease_one = |s: &mut Scheduler, now: Millis| {
        let g = s.lease(now, ws[0], 1).unwrap();
        assert_eq!(g.units.len(), 1, "unit 1 is leasable");
        assert_eq!(g.units[0].unit.id, 1);
        g.units[0].lease.token.clone()
    };
    // Failures, a plain release and an expiry between them: only failures count.
    for i in 1..limit {
        let t = lease_one(&mut s, now);
        let why = format!("bad prefix: option {i} clashes");
        assert_eq!(s.release(now, ws[0], &[t], Some(&why)).unwrap(), 1);
        assert_eq!(s.unit(1).unwrap().failures, i);
        let t = lease_one(&mut s, now);
        assert_eq!(s.release(now, ws[0], &[t], None).unwrap(), 1);
        lease_one(&mut s, now);
        now += lease_ms + 1;
        assert_eq!(s.expire(now), 1);
        assert_eq!(
            s.unit(1).unwrap().failures,
            i,
            "releases and expiries are no failures"
        );
    }
    let changes = s.take_changes();
    assert!(changes.alarms.iter().all(|a| a.kind != AlarmKind::Failed));
    let t = lease_one(&mut s, now);
    assert_eq!(
        s.release(
            now,
            ws[0],
            std::slice::from_ref(&t),
            Some("the search panicked: boom")
        )
        .unwrap(),
        1
    );
    // Held: queued, never leased again; one alarm with the count and the last reason.
    let unit = s.unit(1).unwrap();
    assert_eq!((unit.state, unit.failures), (UnitState::Queued, limit));
    let changes = s.take_changes();
    assert_eq!(changes.alarms.len(), 1);
    let a = &changes.alarms[0];
    assert_eq!((a.kind, a.unit, a.job), (AlarmKind::Failed, Some(1), job));
    assert_eq!(
        a.message,
        "unit 1 failed 3 times (the search panicked: boom); held, the count is incomplete"
    );
    let ended: Vec<LeaseEnd> = changes
        .leases
        .iter()
        .filter_map(|l| l.ended.map(|(_, why)| why))
        .collect();
    assert_eq!(
        ended,
        vec![LeaseEnd::Failed],
        "the lease ends as failed, not released"
    );
    assert_eq!(changes.units[0].failures, limit, "the count is written");
    // The job's other units still lease (and finish); unit 1 never again, however long.
    let g = s.lease(now, ws[1], 10).unwrap();
    let ids: Vec<UnitId> = g.units.iter().map(|g| g.unit.id).collect();
    assert_eq!(ids, vec![2, 3]);
    for g in &g.units {
        let r = s.report(now, ws[1], &g.lease.token, g.unit.id, result(4, vec![]));
        assert_eq!(r.verdict, Verdict::Accepted);
    }
    for _ in 0..3 {
        now += lease_ms + 1;
        let l = s.lease(now, ws[0], 10).unwrap();
        assert!(l.units.is_empty());
        assert!(l.idle, "nothing leasable is left");
    }
    let st = s.status(job).unwrap();
    assert_eq!(
        st.job.state,
        JobState::Running,
        "a held unit keeps its job open"
    );
    assert_eq!(
        (
            st.units_done,
            st.units_leased,
            st.units_queued,
            st.units_held
        ),
        (2, 0, 1, 1)
    );
    assert_eq!(st.solutions, Count::from(8u32));
    let failed: Vec<_> = st
        .alarms
        .iter()
        .filter(|a| a.kind == AlarmKind::Failed)
        .collect();
    assert_eq!(failed.len(), 1, "exactly one alarm");
    // Its lease history: two failures, one release, one expiry, the third failure.
    let ends = lease_ends(&s, 1);
    assert_eq!(
        ends,
        [
            LeaseEnd::Expired,
            LeaseEnd::Expired,
            LeaseEnd::Released,
            LeaseEnd::Released,
            LeaseEnd::Failed,
            LeaseEnd::Failed,
            LeaseEnd::Failed,
        ]
    );
    s.check_invariants();
}

#[test]
fn a_plain_release_is_no_failure_and_never_holds() {
    let (mut s, ws, job) = two_worker_job(0.0, 1);
    for now in 1..=10 {
        let g = s.lease(now, ws[0], 1).unwrap();
        assert_eq!(g.units.len(), 1, "released units lease again");
        let t = g.units[0].lease.token.clone();
        assert_eq!(s.release(now, ws[0], &[t], None).unwrap(), 1);
    }
    assert_eq!(s.unit(1).unwrap().failures, 0);
    let st = s.status(job).unwrap();
    assert_eq!((st.units_queued, st.units_held), (1, 0));
    assert!(st.alarms.iter().all(|a| a.kind != AlarmKind::Failed));
    s.check_invariants();
}

/// How the leases of `unit` ended, sorted.
fn lease_ends(s: &Scheduler, unit: UnitId) -> Vec<LeaseEnd> {
    let mut ends: Vec<LeaseEnd> = s
        .snapshot()
        .leases
        .into_iter()
        .filter(|l| l.unit == unit)
        .map(|l| l.ended.unwrap().1)
        .collect();
    ends.sort();
    ends
}

/// Holds unit 1 of a two-unit job by failing it `failures_limit` times.
fn held_job() -> (Scheduler, Vec<WorkerId>, u64) {
    let (mut s, ws, job) = two_worker_job(0.0, 2);
    for now in 1..=u64::from(SchedulerConfig::default().failures_limit) {
        let g = s.lease(now, ws[0], 1).unwrap();
        assert_eq!(g.units[0].unit.id, 1);
        let t = g.units[0].lease.token.clone();
        s.release(now, ws[0], &[t], Some("bad prefix: x")).unwrap();
    }
    assert_eq!(s.status(job).unwrap().units_held, 1);
    (s, ws, job)
}

#[test]
fn a_restored_scheduler_keeps_a_held_unit_held() {
    let (s, ws, job) = held_job();
    let snap = s.snapshot();
    let mut again = Scheduler::restore(SchedulerConfig::default(), snap.clone(), || {
        LeaseToken("again".into())
    });
    again.check_invariants();
    assert_eq!(again.snapshot(), snap, "restore is lossless");
    let g = again.lease(10, ws[1], 10).unwrap();
    let ids: Vec<UnitId> = g.units.iter().map(|g| g.unit.id).collect();
    assert_eq!(ids, vec![2], "the held unit is not queued again");
    let st = again.status(job).unwrap();
    assert_eq!((st.units_queued, st.units_held), (1, 1));
    assert_eq!(
        st.alarms
            .iter()
            .filter(|a| a.kind == AlarmKind::Failed)
            .count(),
        1,
        "no second alarm"
    );
    assert!(again.take_changes().alarms.is_empty());
    // A coordinator restarted without a limit leases it again (the way out, once fixed).
    let config = SchedulerConfig {
        failures_limit: 0,
        ..SchedulerConfig::default()
    };
    let mut unheld = Scheduler::restore(config, snap, || LeaseToken("unheld".into()));
    unheld.check_invariants();
    let g = unheld.lease(10, ws[1], 10).unwrap();
    let ids: Vec<UnitId> = g.units.iter().map(|g| g.unit.id).collect();
    assert_eq!(ids, vec![1, 2]);
}

#[test]
fn a_cancelled_job_ends_its_held_units() {
    let (mut s, _, job) = held_job();
    s.cancel(5, job).unwrap();
    assert_eq!(s.unit(1).unwrap().state, UnitState::Cancelled);
    let st = s.status(job).unwrap();
    assert_eq!((st.units_queued, st.units_held), (0, 0));
    s.check_invariants();
}

/// Regression: the `failed` alarm fired only when a unit's failures *equalled* the limit,
/// while holding took "at least": a coordinator restarted with a lower `--failures-limit` held
/// units silently, both one that had failed often enough when it stopped and one that was
/// leased then and failed again. Every held unit has its alarm, raised once, when it becomes
/// held.
#[test]
fn a_unit_held_under_a_lower_limit_after_a_restart_has_its_failed_alarm_once() {
    let (mut s, ws, job) = two_worker_job(0.0, 3);
    // Units 1 and 2 fail twice under the default limit (3): not held.
    for now in 1..=2 {
        let g = s.lease(now, ws[0], 2).unwrap();
        let tokens: Vec<LeaseToken> = g.units.iter().map(|g| g.lease.token.clone()).collect();
        assert_eq!(
            g.units.iter().map(|g| g.unit.id).collect::<Vec<_>>(),
            [1, 2]
        );
        s.release(now, ws[0], &tokens, Some("bad prefix: x"))
            .unwrap();
    }
    // Unit 1 is queued when the coordinator stops, unit 2 leased.
    let g = s.lease(3, ws[0], 2).unwrap();
    assert_eq!(
        g.units.iter().map(|g| g.unit.id).collect::<Vec<_>>(),
        [1, 2]
    );
    s.release(3, ws[0], &[g.units[0].lease.token.clone()], None)
        .unwrap();
    let leased = g.units[1].lease.token.clone();
    assert_eq!(s.status(job).unwrap().units_held, 0);
    assert!(s.take_changes().alarms.is_empty());

    let lower = SchedulerConfig {
        failures_limit: 1,
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::restore(lower.clone(), s.snapshot(), || LeaseToken("again".into()));
    s.check_invariants();
    // Unit 1 is held at once; its alarm comes with the first operation (the server's first
    // is the expiry of leases that ended while it was down).
    assert_eq!(s.status(job).unwrap().units_held, 1);
    s.expire(4);
    s.check_invariants();
    let alarms = s.take_changes().alarms;
    assert_eq!(alarms.len(), 1, "{alarms:?}");
    assert_eq!(
        (alarms[0].kind, alarms[0].unit),
        (AlarmKind::Failed, Some(1))
    );
    assert_eq!(
        alarms[0].message,
        "unit 1 failed 2 times (at least the failures limit, 1); held, the count is incomplete"
    );
    // Unit 2's run fails a third time: held, with its alarm and the reason.
    assert_eq!(
        s.release(
            5,
            ws[0],
            std::slice::from_ref(&leased),
            Some("the search panicked: boom")
        )
        .unwrap(),
        1
    );
    s.check_invariants();
    let alarms = s.take_changes().alarms;
    assert_eq!(alarms.len(), 1, "{alarms:?}");
    assert_eq!(
        alarms[0].message,
        "unit 2 failed 3 times (the search panicked: boom); held, the count is incomplete"
    );
    let st = s.status(job).unwrap();
    assert_eq!(st.units_held, 2);
    // Restarted again under the same limit: no second alarm for either.
    let mut s = Scheduler::restore(lower, s.snapshot(), || LeaseToken("third".into()));
    s.expire(6);
    assert!(s.take_changes().alarms.is_empty());
    let failed = |s: &Scheduler| {
        s.status(job)
            .unwrap()
            .alarms
            .iter()
            .filter(|a| a.kind == AlarmKind::Failed)
            .map(|a| a.unit.unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(failed(&s), [1, 2], "one alarm per held unit");
    s.check_invariants();
}

/// Regression: a unit that kills its worker (an abort, out of memory) only expired, so it was
/// leased again forever. Each lease that ends with its worker's death (known dead, or
/// expired) counts a death; at the deaths limit the unit is held with one alarm `died`
/// naming the last reason. A unit with a death is leased alone, so the unit the dead worker
/// held beside it (one death, shared) runs alone after it and is counted.
#[test]
fn a_unit_whose_workers_die_deaths_limit_times_is_held_and_its_neighbour_is_not() {
    let (mut s, _, job) = two_worker_job(0.0, 3);
    let limit = SchedulerConfig::default().deaths_limit;
    assert!(limit > SchedulerConfig::default().failures_limit);
    let lease_ms = SchedulerConfig::default().lease_duration_ms;
    let abort = "worker local-0 (pid 7) was killed by signal 6 (SIGABRT)";
    // The first worker leases units 1 and 2; unit 1 kills it.
    let mut now = 1;
    let w = s.register(now, "local-0", "h", 1, "t");
    let g = s.lease(now, w, 2).unwrap();
    assert_eq!(
        g.units.iter().map(|g| g.unit.id).collect::<Vec<_>>(),
        [1, 2]
    );
    assert_eq!(s.worker_died(now, w, abort).unwrap(), 2);
    assert_eq!(
        (s.unit(1).unwrap().deaths, s.unit(2).unwrap().deaths),
        (1, 1)
    );
    s.check_invariants();
    // Each next worker gets unit 1 alone, and nothing more while it holds it; it dies too
    // (one of them silently: its lease expires).
    for death in 2..=limit {
        now += 1;
        let w = s.register(now, "local-0", "h", 1, "t");
        let g = s.lease(now, w, 4).unwrap();
        assert_eq!(g.units.iter().map(|g| g.unit.id).collect::<Vec<_>>(), [1]);
        assert!(s.lease(now, w, 4).unwrap().units.is_empty(), "alone");
        if death == 2 {
            now += lease_ms + 1;
            assert_eq!(s.expire(now), 1);
        } else {
            assert_eq!(s.worker_died(now, w, abort).unwrap(), 1);
        }
        assert_eq!(s.unit(1).unwrap().deaths, death);
        s.check_invariants();
    }
    // Held: never leased again; one alarm with the count and the last reason.
    let changes = s.take_changes();
    let died: Vec<_> = changes
        .alarms
        .iter()
        .filter(|a| a.kind == AlarmKind::Died)
        .collect();
    assert_eq!(died.len(), 1);
    assert_eq!(died[0].unit, Some(1));
    assert_eq!(
        died[0].message,
        format!("unit 1 died {limit} times ({abort}); held, the count is incomplete")
    );
    // Its lease history: one expiry, the other leases ended as died.
    let ends = lease_ends(&s, 1);
    let mut want = vec![LeaseEnd::Died; limit as usize - 1];
    want.insert(0, LeaseEnd::Expired);
    assert_eq!(ends, want);
    // Unit 2 (its one death shared) runs alone, then unit 3 as usual.
    let w = s.register(now, "local-1", "h", 1, "t");
    for want in [2, 3] {
        let g = s.lease(now, w, 4).unwrap();
        assert_eq!(
            g.units.iter().map(|g| g.unit.id).collect::<Vec<_>>(),
            [want]
        );
        let u = &g.units[0];
        let r = s.report(now, w, &u.lease.token, u.unit.id, result(5, vec![]));
        assert_eq!(r.verdict, Verdict::Accepted);
    }
    let l = s.lease(now, w, 4).unwrap();
    assert!(l.units.is_empty() && l.idle, "nothing leasable is left");
    let st = s.status(job).unwrap();
    assert_eq!(
        st.job.state,
        JobState::Running,
        "a held unit keeps its job open"
    );
    assert_eq!(
        (st.units_done, st.units_held, st.solutions.clone()),
        (2, 1, Count::from(10u8))
    );
    assert_eq!(s.unit(1).unwrap().failures, 0, "deaths are no failures");
    s.check_invariants();
    // A coordinator restarted with a lower deaths limit holds unit 2 too: its alarm comes
    // with the first operation, once.
    let lower = SchedulerConfig {
        deaths_limit: 1,
        ..SchedulerConfig::default()
    };
    let (mut s2, _, job2) = two_worker_job(0.0, 1);
    let w = s2.register(1, "x", "h", 1, "t");
    s2.lease(1, w, 1).unwrap();
    s2.worker_died(1, w, abort).unwrap();
    let mut s2 = Scheduler::restore(lower, s2.snapshot(), || LeaseToken("x".into()));
    s2.expire(2);
    let died: Vec<String> = s2
        .status(job2)
        .unwrap()
        .alarms
        .into_iter()
        .filter(|a| a.kind == AlarmKind::Died)
        .map(|a| a.message)
        .collect();
    assert_eq!(
        died,
        ["unit 1 died once (at least the deaths limit, 1); held, the count is incomplete"]
    );
    s2.expire(3);
    assert_eq!(s2.status(job2).unwrap().alarms.len(), 1, "once");
    s2.check_invariants();
}

/// A lease granted before a restart is no death when it expires after it: the coordinator's
/// downtime (or `run` killed with its workers), not the unit, may have ended it.
#[test]
fn a_lease_granted_before_a_restart_is_no_death_when_it_expires() {
    let (mut s, ws, _) = two_worker_job(0.0, 2);
    s.lease(1, ws[0], 1).unwrap();
    let mut s = Scheduler::restore(SchedulerConfig::default(), s.snapshot(), || {
        LeaseToken("again".into())
    });
    s.check_invariants();
    let later = 2 + SchedulerConfig::default().lease_duration_ms;
    assert_eq!(s.expire(later), 1);
    assert_eq!(s.unit(1).unwrap().deaths, 0);
    // Leased again after the restart and expired: a death.
    let g = s.lease(later, ws[1], 1).unwrap();
    assert_eq!(g.units[0].unit.id, 1);
    assert_eq!(s.expire(later * 3), 1);
    assert_eq!(s.unit(1).unwrap().deaths, 1);
    s.check_invariants();
}
