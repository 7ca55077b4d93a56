//! `parcels experiment`, `parcels report`, `parcels train`, `parcels cross-extract`: commands
//! that train (the bodies are as they were in the library's `cli` module; `crate::experiment`,
//! `crate::report`, `crate::apply` and `crate::files` resolve to the library's modules through
//! the `use` in main.rs).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use parcels::output::article_record;

use super::{batch_status, progress};

/// `parcels experiment`: runs a co-training experiment from a config and writes its reports.
#[derive(Debug, Clone, clap::Args)]
pub struct ExperimentArgs {
    /// Experiment configuration (TOML, see configs/).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Report directory; default reports/<experiment name>.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Override the config's seed.
    #[arg(long)]
    pub seed: Option<u64>,
}

/// Runs `parcels experiment`.
pub fn experiment(args: &ExperimentArgs) -> anyhow::Result<ExitCode> {
    use crate::experiment::{run, ExperimentConfig};
    let mut config = ExperimentConfig::load(&args.config)?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(&config.name));
    let rounds = (config.evaluation.folds * (config.cotraining.r + 1)) as u64;
    let bar = progress(rounds, &config.name);
    let counter = std::sync::atomic::AtomicU64::new(0);
    let results = run(&config, &|msg: &str| {
        if msg.starts_with("fold ") {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            bar.inc(1);
        }
        bar.set_message(format!("{}: {msg}", config.name));
    })?;
    bar.finish_and_clear();
    crate::report::write_all(&results, &out)?;
    let md = crate::report::report_md(&results);
    let table: String =
        md.lines().skip_while(|l| !l.starts_with("## Error rates")).take_while(|l| !l.starts_with("## Per-class")).collect::<Vec<_>>().join("\n");
    println!("{table}");
    println!("reports written to {} ({:.1} s)", out.display(), results.wall_seconds);
    Ok(ExitCode::SUCCESS)
}

/// `parcels report`: rebuilds the report files of a finished experiment from its results.json.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// Report directory holding results.json.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Runs `parcels report`.
pub fn report(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let results = crate::report::load(&args.dir)?;
    crate::report::write_derived(&results, &args.dir)?;
    println!("rebuilt the reports in {}", args.dir.display());
    Ok(ExitCode::SUCCESS)
}

/// `parcels train`: trains the co-trained models of a config on all its labelled data.
#[derive(Debug, Clone, clap::Args)]
pub struct TrainArgs {
    /// Experiment configuration (its corpus, pool, views, boosting and co-training settings).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Where the model file goes (JSON, written atomically).
    #[arg(long, value_name = "MODEL.json")]
    pub out: PathBuf,
}

/// Runs `parcels train`.
pub fn train(args: &TrainArgs) -> anyhow::Result<ExitCode> {
    let config = crate::experiment::ExperimentConfig::load(&args.config)?;
    let bar = progress(config.cotraining.r as u64 + 1, &config.name);
    let model = crate::apply::train(&config, &|msg| {
        if msg.starts_with("co-training round") {
            bar.inc(1);
        }
        bar.set_message(msg.to_string());
    })?;
    bar.finish_and_clear();
    model.save(&args.out)?;
    println!(
        "{}: {} classes, {} training blocks after co-training; stumps: stylistic {}, lexical {}, single-view {}",
        args.out.display(),
        model.scheme.len(),
        model.training_blocks,
        model.stylistic.stumps().len(),
        model.lexical.stumps().len(),
        model.single_view.stumps().len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `parcels cross-extract`: cross-validated extraction of a config's labelled pages, for
/// comparing extractors on pages no model was trained on.
#[derive(Debug, Clone, clap::Args)]
pub struct CrossExtractArgs {
    /// Experiment configuration: its labelled pages, pool, learners and `[evaluation]` folds
    /// (`split = "site"` keeps each site's pages in one fold).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Where the JSON Lines go (written atomically): per labelled page, `parcels extract`'s record
    /// plus `fold`.
    #[arg(long, value_name = "OUT.jsonl")]
    pub out: PathBuf,
    /// Also save each fold's model here as `fold-N.json`, to re-extract its held-out pages
    /// without training again.
    #[arg(long, value_name = "DIR")]
    pub save_models: Option<PathBuf>,
}

/// Runs `parcels cross-extract`.
pub fn cross_extract(args: &CrossExtractArgs) -> anyhow::Result<ExitCode> {
    let config = crate::experiment::ExperimentConfig::load(&args.config)?;
    let folds = config.evaluation.folds as u64;
    let bar = progress(folds * (config.cotraining.r as u64 + 1), &config.name);
    let (pages, models) = crate::apply::cross_extract(&config, &|msg| {
        if msg.contains("co-training round") {
            bar.inc(1);
        }
        bar.set_message(msg.to_string());
    })?;
    bar.finish_and_clear();
    let mut out = String::new();
    let mut failed = 0;
    for p in &pages {
        let record = match &p.result {
            Ok((article, blocks)) => {
                let mut v = article_record(&p.path, article, blocks)?;
                v["fold"] = serde_json::Value::from(p.fold);
                v
            }
            Err(e) => {
                failed += 1;
                eprintln!("{}: {e}", p.path.display());
                serde_json::json!({ "path": p.path.display().to_string(), "fold": p.fold, "error": e })
            }
        };
        out.push_str(&record.to_string());
        out.push('\n');
    }
    crate::files::write_atomic(&args.out, out.as_bytes()).with_context(|| format!("{}: cannot write", args.out.display()))?;
    if let Some(dir) = &args.save_models {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        for (f, model) in models.iter().enumerate() {
            model.save(&dir.join(format!("fold-{f}.json")))?;
        }
    }
    eprintln!("{}: {} pages in {} folds, {} failed", args.out.display(), pages.len(), folds, failed);
    Ok(batch_status(failed, pages.len()))
}
