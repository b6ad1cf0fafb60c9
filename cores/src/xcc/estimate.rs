//! Knuth's Monte Carlo estimate of a backtrack tree ("Estimating the efficiency of backtrack
//! programs", Math. Comp. 29, 1975; seed 000's "Poor Man's Monte Carlo"): follow a random
//! path from the root, choosing each child uniformly; with d_0, d_1, ... the degrees met,
//! 1 + d_0 + d_0 d_1 + ... estimates the number of nodes, the same weights on each node's cost
//! estimate the updates, and the product of the degrees at a solution leaf (0 at a dead end)
//! estimates the number of solutions. Each estimate is unbiased; we report the mean over the
//! samples and its standard error. Deterministic for a seed.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::dlx::Dlx;
use super::problem::{OptionId, Problem};
use super::search::{Choice, PrefixError};

/// A sample mean and its standard error.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeanSe {
    pub mean: f64,
    pub std_err: f64,
}

/// Estimated size of the tree below a prefix node.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Estimate {
    pub samples: u64,
    pub nodes: MeanSe,
    pub updates: MeanSe,
    pub solutions: MeanSe,
}

#[derive(Default)]
struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    /// Welford's update.
    fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    fn finish(&self) -> MeanSe {
        let std_err = if self.n > 1.0 {
            (self.m2 / (self.n - 1.0) / self.n).sqrt()
        } else {
            0.0
        };
        MeanSe {
            mean: self.mean,
            std_err,
        }
    }
}

/// Estimates the tree below `prefix` with `samples` random paths under the MRV rule.
pub fn estimate(
    problem: &Problem,
    prefix: &[OptionId],
    samples: u64,
    seed: u64,
) -> Result<Estimate, PrefixError> {
    let mut dlx = Dlx::with_choice(problem, Choice::Mrv);
    dlx.apply_prefix(prefix)?;
    Ok(estimate_from(&mut dlx, samples, seed))
}

/// Estimates the tree below the prefix node of an existing solver (its choice rule applies).
pub fn estimate_from(dlx: &mut Dlx<'_>, samples: u64, seed: u64) -> Estimate {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut nodes, mut updates, mut solutions) =
        (Moments::default(), Moments::default(), Moments::default());
    for _ in 0..samples {
        let (n, u, s) = dlx.random_path(&mut rng);
        nodes.push(n);
        updates.push(u);
        solutions.push(s);
    }
    Estimate {
        samples,
        nodes: nodes.finish(),
        updates: updates.finish(),
        solutions: solutions.finish(),
    }
}
