//! The machine a run ran on ([`HostInfo`], part of every `RunRecord`), read from `/proc`
//! (Linux): the host name (`/proc/sys/kernel/hostname`), the first processor's `model name`
//! (`/proc/cpuinfo`), the processors this process may use (`available_parallelism`),
//! `MemTotal` (`/proc/meminfo`), the kernel release (`/proc/sys/kernel/osrelease`) and this
//! dancehall's version. A field that cannot be read is empty or zero, never a guess.

use cores::bench::HostInfo;

/// Reads this machine's description (a few small files; [`current`] caches it).
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
    HOST.get_or_init(detect)
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
        let h = detect();
        assert!(h.cores >= 1);
        assert!(h.memory_bytes > 0);
        assert!(!h.kernel.is_empty());
        assert_eq!(h.dancehall_version, env!("CARGO_PKG_VERSION"));
    }
}
