//! `dancehall bench ...`: throughput benchmarks.

#[derive(clap::Subcommand, Debug)]
pub enum BenchCmd {}

pub fn run(cmd: BenchCmd) -> anyhow::Result<()> {
    match cmd {}
}
