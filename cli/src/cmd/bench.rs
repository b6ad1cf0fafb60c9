//! `dancehall bench ...`: throughput benchmarks.

#[derive(clap::Subcommand, Debug)]
pub enum BenchCmd {
    /// Distributed counting: coordinator throughput, speed-up of 2 workers over 1, overhead
    /// per unit and balance of the units.
    Distributed(super::bench_distributed::DistributedArgs),
    /// `dancehall run SPEC` against one process, wall time and speed-up per spec.
    Speedup(super::bench_speedup::SpeedupArgs),
    /// One coordinator process under many simulated workers, and restarted on a big job.
    Load(super::bench_load::LoadArgs),
}

pub fn run(cmd: BenchCmd) -> anyhow::Result<()> {
    match cmd {
        BenchCmd::Distributed(a) => super::bench_distributed::run(a),
        BenchCmd::Speedup(a) => super::bench_speedup::run(a),
        BenchCmd::Load(a) => super::bench_load::run(a),
    }
}
