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

/// A sample mean and its standard error; both also as base-10 logarithms (`-inf` for 0),
/// which stay finite where the estimates pass f64's range (`mean` and `std_err` are then
/// infinite: the trees of Sudoku grids from 25x25 on).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeanSe {
    pub mean: f64,
    pub std_err: f64,
    pub log10_mean: f64,
    pub log10_std_err: f64,
}

/// Estimated size of the tree below a prefix node.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Estimate {
    pub samples: u64,
    pub nodes: MeanSe,
    pub updates: MeanSe,
    pub solutions: MeanSe,
}

struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
    /// The samples' natural logarithms as sums scaled by `e^-top`: `top` the largest,
    /// `s1` the sum of `e^(l - top)`, `s2` of `e^(2 (l - top))`.
    top: f64,
    s1: f64,
    s2: f64,
}

impl Default for Moments {
    fn default() -> Moments {
        Moments {
            n: 0.0,
            mean: 0.0,
            m2: 0.0,
            top: f64::NEG_INFINITY,
            s1: 0.0,
            s2: 0.0,
        }
    }
}

impl Moments {
    /// Welford's update with `x`, and the scaled sums with `ln_x` (its logarithm).
    fn push(&mut self, x: f64, ln_x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
        if ln_x == f64::NEG_INFINITY {
            return;
        }
        if ln_x > self.top {
            let scale = (self.top - ln_x).exp();
            self.s1 *= scale;
            self.s2 *= scale * scale;
            self.top = ln_x;
        }
        let r = (ln_x - self.top).exp();
        self.s1 += r;
        self.s2 += r * r;
    }

    fn finish(&self) -> MeanSe {
        let std_err = if self.n > 1.0 {
            (self.m2 / (self.n - 1.0) / self.n).sqrt()
        } else {
            0.0
        };
        // In logarithms: mean = e^top s1 / n; the sample variance is
        // n / (n - 1) (e^2top s2 / n - mean^2), the standard error its square root over n.
        let ln10 = std::f64::consts::LN_10;
        let (log10_mean, log10_std_err) = if self.s1 == 0.0 {
            (f64::NEG_INFINITY, f64::NEG_INFINITY)
        } else {
            let (m1, m2) = (self.s1 / self.n, self.s2 / self.n);
            let spread = (m2 - m1 * m1).max(0.0);
            let ln_se = if self.n > 1.0 && spread > 0.0 {
                self.top + 0.5 * (spread.ln() - (self.n - 1.0).ln())
            } else {
                f64::NEG_INFINITY
            };
            ((self.top + m1.ln()) / ln10, ln_se / ln10)
        };
        // Past f64's range the sums are infinite and their differences NaN: say infinite.
        let (mean, std_err) = if self.mean.is_finite() && std_err.is_finite() {
            (self.mean, std_err)
        } else {
            (f64::INFINITY, f64::INFINITY)
        };
        MeanSe {
            mean,
            std_err,
            log10_mean,
            log10_std_err,
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
        let path = dlx.random_path(&mut rng);
        nodes.push(path.values[0], path.ln[0]);
        updates.push(path.values[1], path.ln[1]);
        solutions.push(path.values[2], path.ln[2]);
    }
    Estimate {
        samples,
        nodes: nodes.finish(),
        updates: updates.finish(),
        solutions: solutions.finish(),
    }
}
