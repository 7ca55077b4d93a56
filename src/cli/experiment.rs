//! `parcels experiment`, `parcels report`, `parcels train`, `parcels cross-extract`: the commands
//! that train, with their progress rendered by [`super::progress::Reporter`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use parcels::output::article_record;

use super::batch_status;
use super::progress::Reporter;

/// `parcels experiment`: runs a co-training experiment from a config and writes its reports.
#[derive(Debug, Clone, clap::Args)]
pub struct ExperimentArgs {
    /// Experiment configuration (TOML, see configs/).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Override one key of the config, as `KEY=VALUE` (`cotraining.k=100`,
    /// `cotraining.selection=top-k`, `evaluation.baselines=["majority"]`); repeatable; checked
    /// like the file.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Report directory; default target/reports/<experiment name> (outside the tracked tree).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Override the config's seed.
    #[arg(long)]
    pub seed: Option<u64>,
}

/// Runs `parcels experiment`.
pub fn experiment(args: &ExperimentArgs) -> anyhow::Result<ExitCode> {
    use parcels::experiment::{run, ExperimentConfig};
    let mut config = ExperimentConfig::load_with(&args.config, &args.set)?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    let out = args.out.clone().unwrap_or_else(|| default_report_dir(&config.name));
    let reporter = Reporter::new(&config.name);
    let results = run(&config, &reporter);
    reporter.finish(results.is_ok());
    let results = results?;
    parcels::report::write_all(&results, &out)?;
    print!("{}", parcels::report::error_table(&results));
    println!("reports written to {} ({:.1} s)", out.display(), results.wall_seconds);
    Ok(ExitCode::SUCCESS)
}

/// Where a run's reports go without `--out`: under `target/`, outside the tracked tree, so
/// trying a config never rewrites the reports the repository keeps (those are rebuilt with
/// `--out reports/<name>`).
fn default_report_dir(name: &str) -> PathBuf {
    PathBuf::from("target").join("reports").join(name)
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
    let results = parcels::report::load(&args.dir)?;
    parcels::report::write_derived(&results, &args.dir)?;
    println!("rebuilt the reports in {}", args.dir.display());
    Ok(ExitCode::SUCCESS)
}

/// `parcels train`: trains the co-trained models of a config on all its labelled data.
#[derive(Debug, Clone, clap::Args)]
pub struct TrainArgs {
    /// Experiment configuration (its corpus, pool, views, boosting and co-training settings).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Override one key of the config, as `KEY=VALUE` (`cotraining.k=100`,
    /// `cotraining.selection=top-k`, `evaluation.baselines=["majority"]`); repeatable; checked
    /// like the file.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Where the model file goes (JSON, written atomically).
    #[arg(long, value_name = "MODEL.json")]
    pub out: PathBuf,
    /// Train only the context stage, beside the view learners of this model (trained from this
    /// config but for its `[context]`): minutes instead of the co-training's twenty. The stage
    /// learns from views cross-fitted on today's labelled pages; the model records which pages
    /// its views and its stage were trained on.
    #[arg(long, value_name = "MODEL.json")]
    pub reuse_views: Option<PathBuf>,
    /// Also save the view learners here (a model file without the context stage), as soon as
    /// they are trained and before the stage trains: the stage takes an hour and more on a large
    /// corpus, and if the run is cut in it, `--reuse-views` on this file trains only the stage
    /// and gives the model the whole run would have given.
    #[arg(long, value_name = "MODEL.json", conflicts_with = "reuse_views")]
    pub save_views: Option<PathBuf>,
}

/// Runs `parcels train`.
pub fn train(args: &TrainArgs) -> anyhow::Result<ExitCode> {
    let config = parcels::experiment::ExperimentConfig::load_with(&args.config, &args.set)?;
    let reporter = Reporter::new(&config.name);
    let model = match &args.save_views {
        Some(views) => parcels::apply::train_saving_views(&config, &reporter, views),
        None => parcels::apply::train(&config, &reporter, args.reuse_views.as_deref()),
    };
    reporter.finish(model.is_ok());
    let model = model?;
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
    /// Override one key of the config, as `KEY=VALUE` (`cotraining.k=100`,
    /// `cotraining.selection=top-k`, `evaluation.baselines=["majority"]`); repeatable; checked
    /// like the file.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Where the JSON Lines go (written atomically): per labelled page, `parcels extract`'s record
    /// plus `fold`.
    #[arg(long, value_name = "OUT.jsonl")]
    pub out: PathBuf,
    /// Also save each fold's model here as `fold-N.json`, as soon as the fold is trained: to
    /// re-extract its held-out pages without training again, or to resume a cut run. With a
    /// context stage, each fold's view learners are saved too (`fold-N.views.json`) before its
    /// stage trains, so a run cut in a stage resumes from the stage.
    #[arg(long, value_name = "DIR")]
    pub save_models: Option<PathBuf>,
    /// Resume a run that was cut short: a fold whose model is already in the `--save-models`
    /// directory (trained with this very config on the fold's very pages; checked) is loaded,
    /// not trained again; a fold with only its view learners there trains only its context
    /// stage. The records are those of an uncut run.
    #[arg(long, requires = "save_models")]
    pub resume: bool,
    /// Train only the context stage: take each fold's view learners from a `--save-models`
    /// directory of a run of this config (the two may differ only in `[context]`), so a change
    /// to the stage costs minutes, not the co-training's hour. Views trained on other pages than
    /// the fold's (pages labelled since, other folds) are refused. With the same `[context]`,
    /// the run reproduces the saved one.
    #[arg(long, value_name = "DIR")]
    pub reuse_views: Option<PathBuf>,
    /// Run only these folds (`--folds 0,2`; numbered from 0): the folds are the whole run's, the
    /// others are neither trained nor extracted. To compare two configs on part of the folds, or
    /// to spread a run over several sittings with `--save-models` and `--resume`.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub folds: Option<Vec<usize>>,
}

/// Runs `parcels cross-extract`.
pub fn cross_extract(args: &CrossExtractArgs) -> anyhow::Result<ExitCode> {
    let config = parcels::experiment::ExperimentConfig::load_with(&args.config, &args.set)?;
    // The distinct folds asked for (`--folds 0,0` runs fold 0 once).
    let folds = args.folds.as_ref().map_or(config.evaluation.folds, |f| f.iter().collect::<std::collections::BTreeSet<_>>().len());
    let reporter = Reporter::new(&config.name);
    if let Some(dir) = &args.save_models {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    let fold_models = parcels::apply::FoldModels {
        views_from: args.reuse_views.as_deref(),
        save_to: args.save_models.as_deref(),
        resume: args.resume,
        only: args.folds.as_deref(),
    };
    let done = parcels::apply::cross_extract(&config, &reporter, &fold_models);
    reporter.finish(done.is_ok());
    let (pages, _models) = done?;
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
                serde_json::json!({ "path": p.path.display().to_string(), "fold": p.fold, "error": e.to_string() })
            }
        };
        out.push_str(&record.to_string());
        out.push('\n');
    }
    parcels::files::write_atomic(&args.out, out.as_bytes()).with_context(|| format!("{}: cannot write", args.out.display()))?;
    eprintln!("{}: {} pages in {} folds, {} failed", args.out.display(), pages.len(), folds, failed);
    Ok(batch_status(failed, pages.len()))
}
