//! Finished unit results waiting for the coordinator's acknowledgement.
//!
//! Invariant: a result leaves the outbox only when the coordinator has answered its report
//! (accepted, or recorded as late/duplicate: either way it has it). Until then it is retried,
//! each entry on its own exponential back-off, so that a coordinator that goes away for a while
//! (a restart, a network cut) loses no finished work. Time is passed in, never read, so the
//! outbox is tested without clocks or a network.

use std::time::{Duration, Instant};

use crate::backoff::Backoff;

struct Entry<K, R> {
    key: K,
    report: R,
    due: Instant,
    backoff: Backoff,
}

/// Results keyed by `K` (a lease token), each with the time it may next be sent.
pub struct Outbox<K, R> {
    entries: Vec<Entry<K, R>>,
    seed: u64,
}

impl<K: PartialEq + Clone, R> Outbox<K, R> {
    /// `seed` seeds the jitter of every entry's back-off (each entry gets its own stream).
    pub fn new(seed: u64) -> Self {
        Outbox {
            entries: Vec::new(),
            seed,
        }
    }

    /// Adds a finished result, due at once. A result under a key already held replaces it
    /// (a unit reports once per lease).
    pub fn push(&mut self, key: K, report: R, now: Instant) {
        self.entries.retain(|e| e.key != key);
        self.seed = self.seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        self.entries.push(Entry {
            key,
            report,
            due: now,
            backoff: Backoff::for_worker(self.seed),
        });
    }

    /// Keys of the results that may be sent now, oldest first.
    pub fn due(&self, now: Instant) -> Vec<K> {
        self.entries
            .iter()
            .filter(|e| e.due <= now)
            .map(|e| e.key.clone())
            .collect()
    }

    pub fn get(&self, key: &K) -> Option<&R> {
        self.entries
            .iter()
            .find(|e| &e.key == key)
            .map(|e| &e.report)
    }

    /// The coordinator has the result: forget it.
    pub fn ack(&mut self, key: &K) -> Option<R> {
        let i = self.entries.iter().position(|e| &e.key == key)?;
        Some(self.entries.remove(i).report)
    }

    /// Sending failed (coordinator unreachable): try again after a back-off delay, which is
    /// returned.
    pub fn failed(&mut self, key: &K, now: Instant) -> Option<Duration> {
        let e = self.entries.iter_mut().find(|e| &e.key == key)?;
        let delay = e.backoff.next_delay();
        e.due = now + delay;
        Some(delay)
    }

    /// When the next result falls due, if any is waiting.
    pub fn next_due(&self) -> Option<Instant> {
        self.entries.iter().map(|e| e.due).min()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keys of everything still held (for a shutdown that gives up: those leases expire).
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|e| &e.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_stays_until_acknowledged() {
        let t0 = Instant::now();
        let mut out: Outbox<&str, u128> = Outbox::new(1);
        out.push("a", 288, t0);
        out.push("b", 48, t0);
        assert_eq!(out.due(t0), vec!["a", "b"]);

        // The coordinator is away: both wait, each on its own back-off.
        let da = out.failed(&"a", t0).unwrap();
        let db = out.failed(&"b", t0).unwrap();
        assert!(da > Duration::ZERO && db > Duration::ZERO);
        assert!(out.due(t0).is_empty());
        assert_eq!(out.next_due(), Some(t0 + da.min(db)));
        let later = t0 + da.max(db);
        assert_eq!(out.due(later), vec!["a", "b"]);

        // Only an acknowledgement removes a result, and only that one.
        assert_eq!(out.ack(&"a"), Some(288));
        assert_eq!(out.ack(&"a"), None);
        assert_eq!(out.len(), 1);
        assert_eq!(out.get(&"b"), Some(&48));
        assert_eq!(out.ack(&"b"), Some(48));
        assert!(out.is_empty());
        assert_eq!(out.next_due(), None);
    }

    #[test]
    fn repeated_failures_back_off_further() {
        let t0 = Instant::now();
        let mut out: Outbox<u32, ()> = Outbox::new(9);
        out.push(1, (), t0);
        let mut now = t0;
        let mut delays = Vec::new();
        for _ in 0..8 {
            let d = out.failed(&1, now).unwrap();
            now += d;
            assert_eq!(out.due(now), vec![1]);
            delays.push(d);
        }
        // Equal jitter: each ceiling doubles, so the 8th delay exceeds the 1st ceiling.
        assert!(delays[7] > Duration::from_millis(200), "{delays:?}");
        assert!(delays.iter().all(|d| *d <= Duration::from_secs(30)));
    }

    #[test]
    fn pushing_the_same_key_twice_keeps_one_result() {
        let t0 = Instant::now();
        let mut out: Outbox<u32, u32> = Outbox::new(0);
        out.push(5, 1, t0);
        out.push(5, 2, t0);
        assert_eq!(out.len(), 1);
        assert_eq!(out.get(&5), Some(&2));
        assert_eq!(out.failed(&6, t0), None);
    }
}
