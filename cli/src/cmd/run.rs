//! `dancehall run` (being built: see issue 3).

#[derive(clap::Args, Debug)]
pub struct RunArgs {}

pub fn run(_args: RunArgs) -> anyhow::Result<()> {
    anyhow::bail!("`dancehall run` is not built yet")
}
