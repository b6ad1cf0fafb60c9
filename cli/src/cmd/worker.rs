//! `dancehall worker` (being built: see issue 3).

#[derive(clap::Args, Debug)]
pub struct WorkerArgs {}

pub fn run(_args: WorkerArgs) -> anyhow::Result<()> {
    anyhow::bail!("`dancehall worker` is not built yet")
}
