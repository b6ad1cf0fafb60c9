//! `dancehall count | estimate | export | trace` on a problem given by family arguments or a
//! DLX file (being built: see issue 2).

#[derive(clap::Args, Debug)]
pub struct CountArgs {}
#[derive(clap::Args, Debug)]
pub struct EstimateArgs {}
#[derive(clap::Args, Debug)]
pub struct ExportArgs {}
#[derive(clap::Args, Debug)]
pub struct TraceArgs {}

pub fn count(_a: CountArgs) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
pub fn estimate(_a: EstimateArgs) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
pub fn export(_a: ExportArgs) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
pub fn trace(_a: TraceArgs) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
