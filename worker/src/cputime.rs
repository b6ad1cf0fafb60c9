//! CPU time of the calling thread, for the CPU seconds a unit reports beside its wall time.
//!
//! Invariant: readings are only compared on the thread that took them (a unit runs on one
//! blocking thread from start to end). On a platform without a per-thread clock the reading
//! is `None` and the report carries no CPU time rather than a wrong one.

use std::time::Duration;

/// CPU time consumed so far by the calling thread (`CLOCK_THREAD_CPUTIME_ID`).
#[cfg(unix)]
pub fn thread_cpu_time() -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and the clock id is a constant libc knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return None;
    }
    Some(Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

#[cfg(not(unix))]
pub fn thread_cpu_time() -> Option<Duration> {
    None
}

/// Measures the CPU time of one piece of work on the current thread.
#[derive(Debug, Clone, Copy)]
pub struct CpuTimer(Option<Duration>);

impl CpuTimer {
    pub fn start() -> Self {
        CpuTimer(thread_cpu_time())
    }

    /// CPU seconds since [`CpuTimer::start`] on this thread, if the platform can tell.
    pub fn elapsed_secs(&self) -> Option<f64> {
        let start = self.0?;
        let now = thread_cpu_time()?;
        Some(now.saturating_sub(start).as_secs_f64())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn busy_work_costs_cpu_time_and_sleeping_does_not() {
        let timer = CpuTimer::start();
        let mut x = 0u64;
        let wall = std::time::Instant::now();
        while wall.elapsed() < Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let busy = timer.elapsed_secs().unwrap();
        assert!(busy > 0.0, "{busy}");

        let timer = CpuTimer::start();
        std::thread::sleep(Duration::from_millis(50));
        let idle = timer.elapsed_secs().unwrap();
        assert!(idle < 0.05, "sleeping cost {idle} s of CPU");
    }
}
