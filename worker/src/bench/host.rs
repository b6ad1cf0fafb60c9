//! The machine a run ran on, stored with every run for reproducibility (issue 4: "each run
//! also stores the host (CPU model, cores, memory, kernel) and the dancehall version").
//!
//! Read from `/proc` (Linux); a field that cannot be read is empty or zero, never a guess.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostInfo {
    /// The host name (`/proc/sys/kernel/hostname`).
    pub hostname: String,
    /// `model name` of the first processor in `/proc/cpuinfo`.
    pub cpu_model: String,
    /// Processors this process may run on (`available_parallelism`).
    pub cores: u32,
    /// `MemTotal` of `/proc/meminfo`, in bytes.
    pub memory_bytes: u64,
    /// `/proc/sys/kernel/osrelease` (`6.1.0-18-amd64`).
    pub kernel: String,
    /// The dancehall version that ran the benchmark.
    pub dancehall_version: String,
}

impl HostInfo {
    /// Reads this machine's description (a few small files; cache it per process).
    pub fn detect() -> HostInfo {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        HostInfo {
            hostname: read("/proc/sys/kernel/hostname").trim().to_owned(),
            cpu_model: cpu_model(&read("/proc/cpuinfo")),
            cores: std::thread::available_parallelism()
                .map(|n| n.get() as u32)
                .unwrap_or(0),
            memory_bytes: mem_total(&read("/proc/meminfo")),
            kernel: read("/proc/sys/kernel/osrelease").trim().to_owned(),
            dancehall_version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }

    /// The description of this machine, read once per process.
    pub fn current() -> &'static HostInfo {
        static HOST: std::sync::OnceLock<HostInfo> = std::sync::OnceLock::new();
        HOST.get_or_init(HostInfo::detect)
    }
}

fn cpu_model(cpuinfo: &str) -> String {
    cpuinfo
        .lines()
        .find_map(|l| {
            let (key, value) = l.split_once(':')?;
            (key.trim() == "model name").then(|| value.trim().to_owned())
        })
        .unwrap_or_default()
}

fn mem_total(meminfo: &str) -> u64 {
    meminfo
        .lines()
        .find_map(|l| {
            let rest = l.strip_prefix("MemTotal:")?;
            let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpuinfo_and_meminfo() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n\nprocessor\t: 1\nmodel name\t: other\n";
        assert_eq!(cpu_model(cpuinfo), "Intel(R) Xeon(R) CPU @ 2.20GHz");
        assert_eq!(
            mem_total("MemTotal:       24682416 kB\nMemFree: 1 kB\n"),
            24682416 * 1024
        );
        assert_eq!(mem_total("nothing"), 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_linux_host_is_described() {
        let h = HostInfo::detect();
        assert!(h.cores >= 1);
        assert!(h.memory_bytes > 0);
        assert!(!h.kernel.is_empty());
        assert_eq!(h.dancehall_version, env!("CARGO_PKG_VERSION"));
    }
}
