//! Exponential back-off with jitter for calls to a coordinator that may be away.
//!
//! Invariant: the n-th delay after a reset lies in `[d/2, d]` with `d = min(max, base * 2^n)`
//! ("equal jitter": never zero, so a crowd of workers that lost the coordinator at the same
//! moment neither hammers it nor returns in lock-step). The jitter comes from a seeded RNG so
//! that tests are deterministic.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Delays between retries of one kind of call.
#[derive(Debug, Clone)]
pub struct Backoff {
    base: Duration,
    max: Duration,
    failures: u32,
    rng: ChaCha8Rng,
}

impl Backoff {
    /// `base` is the first ceiling, `max` the largest; `seed` drives the jitter.
    pub fn new(base: Duration, max: Duration, seed: u64) -> Self {
        Backoff {
            base,
            max: max.max(base),
            failures: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The usual setting for a worker: 200 ms doubling up to 30 s.
    pub fn for_worker(seed: u64) -> Self {
        Backoff::new(Duration::from_millis(200), Duration::from_secs(30), seed)
    }

    /// Ceiling of the next delay: `min(max, base * 2^failures)`.
    fn ceiling(&self) -> Duration {
        let factor = 1u32.checked_shl(self.failures.min(31)).unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.max)
    }

    /// Records a failure and returns how long to wait before the next try.
    pub fn next_delay(&mut self) -> Duration {
        let ceiling = self.ceiling();
        self.failures = self.failures.saturating_add(1);
        let half = ceiling / 2;
        let nanos = (ceiling - half).as_nanos() as u64;
        half + Duration::from_nanos(self.rng.random_range(0..=nanos))
    }

    /// Number of failures since the last success.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// A call succeeded: the next failure starts from `base` again.
    pub fn reset(&mut self) {
        self.failures = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_within_their_band_and_stop_at_the_cap() {
        let base = Duration::from_millis(100);
        let max = Duration::from_secs(3);
        let mut b = Backoff::new(base, max, 7);
        for n in 0..12u32 {
            let d = b.next_delay();
            let ceiling = (base * 2u32.pow(n)).min(max);
            assert!(
                d >= ceiling / 2 && d <= ceiling,
                "delay {n}: {d:?} vs {ceiling:?}"
            );
        }
        assert_eq!(b.failures(), 12);
        // Deep into failures the ceiling stays at `max` and nothing overflows.
        for _ in 0..100 {
            assert!(b.next_delay() <= max);
        }
    }

    #[test]
    fn reset_starts_again_from_the_base() {
        let base = Duration::from_millis(50);
        let mut b = Backoff::new(base, Duration::from_secs(10), 1);
        for _ in 0..6 {
            b.next_delay();
        }
        b.reset();
        assert_eq!(b.failures(), 0);
        assert!(b.next_delay() <= base);
    }

    #[test]
    fn jitter_is_seeded_and_spreads_workers() {
        let delays = |seed| {
            let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60), seed);
            (0..5).map(|_| b.next_delay()).collect::<Vec<_>>()
        };
        assert_eq!(delays(3), delays(3));
        assert_ne!(delays(3), delays(4));
    }
}
