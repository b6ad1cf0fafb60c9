//! `dancehall domino ...` (being built: see issue 4).

#[derive(clap::Subcommand, Debug)]
pub enum DominoCmd {}

pub fn run(cmd: DominoCmd) -> anyhow::Result<()> {
    match cmd {}
}
