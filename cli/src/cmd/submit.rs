//! `dancehall submit`, `status`, `jobs` (being built: see issue 3).

#[derive(clap::Args, Debug)]
pub struct SubmitArgs {}
#[derive(clap::Args, Debug)]
pub struct StatusArgs {}
#[derive(clap::Args, Debug)]
pub struct JobsArgs {}

pub fn submit(_args: SubmitArgs) -> anyhow::Result<()> {
    anyhow::bail!("`dancehall submit` is not built yet")
}
pub fn status(_args: StatusArgs) -> anyhow::Result<()> {
    anyhow::bail!("`dancehall status` is not built yet")
}
pub fn jobs(_args: JobsArgs) -> anyhow::Result<()> {
    anyhow::bail!("`dancehall jobs` is not built yet")
}
