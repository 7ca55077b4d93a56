//! Wall time and peak memory of a whole experiment (default `configs/paper-basic.toml`; another
//! config as `PARCELS_BENCH_CONFIG`), run once from the repository root:
//! `cargo bench --bench experiment`. Prints the mean error table's last round for orientation.

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if std::env::set_current_dir(&root).is_err() {
        eprintln!("bench experiment: cannot enter {}", root.display());
        return;
    }
    let config = std::env::var("PARCELS_BENCH_CONFIG").unwrap_or_else(|_| "configs/paper-basic.toml".into());
    let config = match parcels::experiment::ExperimentConfig::load(std::path::Path::new(&config)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("bench experiment: {e}");
            return;
        }
    };
    let start = Instant::now();
    match parcels::experiment::run(&config, &parcels::progress::Quiet) {
        Ok(results) => {
            let combined = parcels::report::mean_curve(&results, parcels::experiment::COMBINED);
            println!(
                "experiment bench: {} ({} labelled blocks, {} pool blocks, {} folds, {} threads): wall {:.1} s, peak memory {:.0} MB, combined error last round {:.3}",
                config.name,
                results.labelled_blocks,
                results.pool_blocks,
                results.folds.len(),
                rayon::current_num_threads(),
                start.elapsed().as_secs_f64(),
                parcels::experiment::peak_memory_mb().unwrap_or(f64::NAN),
                combined.last().copied().unwrap_or(f64::NAN)
            );
        }
        Err(e) => eprintln!("bench experiment: {e}"),
    }
}
