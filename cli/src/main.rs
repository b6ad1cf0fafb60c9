//! `dancehall`: count, solve and benchmark combinatorial search problems, locally or across
//! machines. This binary only parses arguments and calls the library crates.

// Module docs link to private items on purpose: they are read as the developers' map,
// `cargo doc --document-private-items` (scripts/test.sh checks it builds without warnings).
#![allow(rustdoc::private_intra_doc_links)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cluster;
mod cmd;
mod core_arg;
mod database;
mod exit;
mod remote;
mod report;
mod runtime;
mod spec;

/// Count, solve and benchmark combinatorial search problems at scale.
#[derive(Parser, Debug)]
#[command(name = "dancehall", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the solutions of a problem in this process.
    Count(cmd::problem::CountArgs),
    /// Estimate the search tree's size by Knuth's random-path Monte Carlo method.
    Estimate(cmd::problem::EstimateArgs),
    /// Write a problem in Knuth's DLX text format to stdout.
    Export(cmd::problem::ExportArgs),
    /// Print the per-depth profile of a search (Depth Covers Backtracks Degrees).
    Trace(cmd::problem::TraceArgs),
    /// The next row's fillings of a Sudoku or Latin square as a permanent, with its bounds.
    Bounds(cmd::bounds::BoundsArgs),
    /// Benchmarks that print throughput figures.
    #[command(subcommand)]
    Bench(cmd::bench::BenchCmd),
    /// Run a job (a bench spec or a problem) on a local coordinator with local workers.
    Run(cmd::run::RunArgs),
    /// Start a coordinator.
    Coordinator(cmd::coordinator::CoordinatorArgs),
    /// Start a worker that leases units from a coordinator.
    Worker(cmd::worker::WorkerArgs),
    /// Submit a bench spec to a running coordinator.
    Submit(cmd::submit::SubmitArgs),
    /// Show a job's status and progress.
    Status(cmd::submit::StatusArgs),
    /// List the jobs of a coordinator.
    Jobs(cmd::submit::JobsArgs),
    /// Cancel a job on a running coordinator.
    Cancel(cmd::submit::CancelArgs),
    /// Queue runs of a benchmark job again by status (e.g. `--status timeout,error`).
    Retry(cmd::submit::RetryArgs),
    /// A counting job's accepted units as CSV (givens or prefix, weight, count, ...).
    Ledger(cmd::ledger::LedgerArgs),
    /// A spec's weighted units (what its `[units]` makes) as CSV, without counting.
    Units(cmd::units::UnitsArgs),
    /// What the database says about jobs: tables, CSV, JSON or an HTML page with charts.
    Report(report::ReportArgs),
    /// Run one read-only SQL query on the database (views: v_jobs, v_unit_results, v_bench_runs).
    Query(cmd::query::QueryArgs),
    /// Bring a database written by an older dancehall up to this one's schema.
    Migrate(cmd::migrate::MigrateArgs),
    /// The domino placement benchmark (seed 001).
    #[command(subcommand)]
    Domino(cmd::domino::DominoCmd),
    /// Solve puzzles, one per line in, one answer per line out.
    #[command(subcommand)]
    Solve(cmd::solve::SolveCmd),
    /// Sudoku puzzles: redundant givens, minimal puzzle generation, grid symmetries.
    #[command(subcommand)]
    Sudoku(cmd::sudoku::SudokuCmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("DANCEHALL_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let result = match cli.command {
        Command::Count(a) => cmd::problem::count(a),
        Command::Estimate(a) => cmd::problem::estimate(a),
        Command::Export(a) => cmd::problem::export(a),
        Command::Trace(a) => cmd::problem::trace(a),
        Command::Bounds(a) => cmd::bounds::run(a),
        Command::Bench(c) => cmd::bench::run(c),
        Command::Run(a) => cmd::run::run(a),
        Command::Coordinator(a) => cmd::coordinator::run(a),
        Command::Worker(a) => cmd::worker::run(a),
        Command::Submit(a) => cmd::submit::submit(a),
        Command::Status(a) => cmd::submit::status(a),
        Command::Jobs(a) => cmd::submit::jobs(a),
        Command::Cancel(a) => cmd::submit::cancel(a),
        Command::Retry(a) => cmd::submit::retry(a),
        Command::Ledger(a) => cmd::ledger::run(a),
        Command::Units(a) => cmd::units::run(a),
        Command::Report(a) => report::run(a),
        Command::Query(a) => cmd::query::run(a),
        Command::Migrate(a) => cmd::migrate::run(a),
        Command::Domino(c) => cmd::domino::run(c),
        Command::Solve(c) => cmd::solve::run(c),
        Command::Sudoku(c) => cmd::sudoku::run(c),
    };
    exit::report(result)
}
