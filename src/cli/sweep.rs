//! `parcels sweep`: runs every cell of a sweep's grid (resuming an interrupted sweep) and writes
//! the aggregated report, with progress rendered by [`super::progress::Reporter`].

use std::path::PathBuf;
use std::process::ExitCode;

use super::progress::Reporter;

/// `parcels sweep`: runs an experiment per cell of a grid and aggregates them.
#[derive(Debug, Clone, clap::Args)]
pub struct SweepArgs {
    /// Sweep configuration (TOML, see configs/learning-curve.toml).
    #[arg(value_name = "SWEEP")]
    pub config: PathBuf,
    /// Where each cell's results go (`cells/<cell>.json`; a cell already there with the same
    /// config is not run again); default target/sweeps/<sweep name>.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Where the aggregated report goes; default <out>/report.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Run nothing: aggregate the cells already finished (a sweep still running, or stopped).
    #[arg(long)]
    pub report_only: bool,
}

/// Runs `parcels sweep`.
pub fn sweep(args: &SweepArgs) -> anyhow::Result<ExitCode> {
    let sweep = parcels::sweep::SweepConfig::load(&args.config)?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("target").join("sweeps").join(&sweep.name));
    let cells = if args.report_only {
        parcels::sweep::finished_cells(&sweep, &out)?
    } else {
        let reporter = Reporter::new(&sweep.name);
        let cells = parcels::sweep::run(&sweep, &out, &reporter);
        reporter.finish(cells.is_ok());
        cells?
    };
    let report = args.report.clone().unwrap_or_else(|| out.join("report"));
    parcels::learning_curve::write(&sweep, &cells, &report)?;
    let total: f64 = cells.iter().map(|c| c.wall_seconds).sum();
    println!(
        "{} of {} cells in {} (their runs took {:.1} s in all); report written to {}",
        cells.len(),
        sweep.grid_cells().len(),
        out.join("cells").display(),
        total,
        report.display()
    );
    Ok(ExitCode::SUCCESS)
}
