//! `dancehall coordinator` (being built: see issue 3).

#[derive(clap::Args, Debug)]
pub struct CoordinatorArgs {}

pub fn run(_args: CoordinatorArgs) -> anyhow::Result<()> {
    anyhow::bail!("`dancehall coordinator` is not built yet")
}
