//! Experiments: a config's learners measured on held-out folds, with the baselines the paper
//! compares against (section 7).
//!
//! Input: an [`ExperimentConfig`] (TOML under `configs/`). Output: [`ExperimentResults`], every
//! figure of the run, measured on held-out folds: error rate per co-training round for the
//! stylistic, lexical and combined learners; the context stage when the config has one; each
//! baseline ([`crate::baselines`]); predictions for per-class tables and confusion matrices.
//!
//! Each fold trains through the one training path ([`crate::train::fit`]), the very function
//! `parcels train` ships models from, and evaluates what it returns.
//!
//! Invariants: no page's blocks sit on both sides of a fold; no fold is empty (more folds than
//! pages or sites is an error before any training); the same config and seed give the same
//! numbers bit for bit (seeded shuffles, deterministic learners, folds computed in parallel but
//! collected in order), with one exception outside our code: the SAMME baseline's trees come
//! from linfa-trees 0.8, which breaks modal-class ties in `HashMap` order (seeded per process),
//! so its error can move by a block or two between runs.

use std::collections::BTreeMap;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::baselines::{self, Baseline, Fold};
use crate::cotrain::Stop;
use crate::dataset::{prepare, BlockInfo, DataError, Prepared};
use crate::eval;
use crate::progress::{Event, Progress, Stage};
use crate::train::{fit, fit_steps, TrainError};

pub use crate::config::{BoostingConfig, CoTrainingConfig, CorpusConfig, EvaluationConfig, ExperimentConfig, PoolConfig, Rounds, Split};
pub use crate::train::{COMBINED, CONTEXT, LEXICAL, SINGLE_VIEW, STYLISTIC};

/// Version of the results format (`results.json`).
pub const RESULTS_FORMAT: u32 = 1;

/// Names of built-in baselines in results (see [`crate::baselines`]).
pub const SELF_TRAINING: &str = "self-training";
pub const MAJORITY: &str = "majority";
pub const SAMME: &str = "samme";

/// Why an experiment could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExperimentError {
    #[error(transparent)]
    Data(#[from] DataError),
    #[error("fold {fold}: {source}")]
    Fold { fold: usize, source: TrainError },
}

/// One fold's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FoldResult {
    pub fold: usize,
    pub test_pages: Vec<String>,
    pub train_blocks: usize,
    pub test_blocks: usize,
    /// Boosting rounds used per learner (stylistic, lexical, single-view).
    pub boosting_rounds: BTreeMap<String, usize>,
    pub stop: Stop,
    pub self_training_stop: Stop,
    /// Self-labelled blocks added per co-training round.
    pub added: Vec<usize>,
    /// Gold labels of the test blocks (report scheme).
    pub gold: Vec<usize>,
    /// Predictions per learner and round (report scheme); constant learners have one round.
    pub predictions: BTreeMap<String, Vec<Vec<usize>>>,
    /// Error rate per learner and round.
    pub errors: BTreeMap<String, Vec<f64>>,
}

/// Everything an experiment measured; `results.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExperimentResults {
    pub format: u32,
    pub parcels_version: String,
    pub config: ExperimentConfig,
    /// Class names of the training and of the report scheme.
    pub classes: Vec<String>,
    pub report_classes: Vec<String>,
    pub labelled_pages: usize,
    pub labelled_sites: usize,
    pub labelled_blocks: usize,
    pub class_counts: Vec<usize>,
    pub unlabelled_blocks_left_out: usize,
    pub pool_pages: usize,
    pub pool_blocks: usize,
    pub folds: Vec<FoldResult>,
    /// Volatile figures of this run: written to `run.json` ([`crate::report::RUN_FILE`]), not to
    /// `results.json`, so rebuilding a tracked report changes it only where the results change.
    #[serde(skip)]
    pub wall_seconds: f64,
    #[serde(skip)]
    pub peak_memory_mb: Option<f64>,
}

/// Runs an experiment with the baselines its config names.
pub fn run(config: &ExperimentConfig, progress: &dyn Progress) -> Result<ExperimentResults, ExperimentError> {
    run_with(config, &baselines::from_config(config), progress)
}

/// The steps an experiment reports ([`Event::Step`]): per fold, the training path's and one per
/// baseline.
pub fn steps(config: &ExperimentConfig, baselines: usize) -> u64 {
    config.evaluation.folds as u64 * (fit_steps(config) + baselines as u64)
}

/// Runs an experiment with the given baselines (a library user's own among them).
pub fn run_with(config: &ExperimentConfig, baselines: &[Box<dyn Baseline>], progress: &dyn Progress) -> Result<ExperimentResults, ExperimentError> {
    let started = Instant::now();
    progress.event(&Event::Planned { steps: steps(config, baselines.len()) });
    let prepared = prepare(config, progress)?;
    let Prepared { scheme, data, pool, pool_pages, .. } = &prepared;
    let report = match &config.corpus.report_scheme {
        Some(r) if r != &scheme.name => {
            let to = config.scheme(r).map_err(DataError::from)?;
            let m = crate::corpus::SchemeMapping::between(scheme, &to).ok_or_else(|| DataError::NoMapping { from: scheme.name.clone(), to: r.clone() })?;
            Some((m.index_table(scheme, &to), to))
        }
        _ => None,
    };
    let to_report = |c: usize| report.as_ref().map_or(c, |(t, _)| t[c]);
    let groups = data.groups(config.evaluation.split);
    let folds = crate::boost::folds_by_group(&groups, config.evaluation.folds, config.seed);
    let results: Vec<Result<FoldResult, ExperimentError>> =
        folds.par_iter().enumerate().map(|(f, test_rows)| run_fold(config, f, test_rows, &prepared, baselines, &to_report, progress)).collect();
    let folds = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    let sites: std::collections::BTreeSet<&str> = data.pages.iter().map(|(_, s)| s.as_str()).collect();
    Ok(ExperimentResults {
        format: RESULTS_FORMAT,
        parcels_version: env!("CARGO_PKG_VERSION").to_string(),
        config: config.clone(),
        classes: scheme.names().map(str::to_string).collect(),
        report_classes: report.as_ref().map_or_else(|| scheme.names().map(str::to_string).collect(), |(_, s)| s.names().map(str::to_string).collect()),
        labelled_pages: data.pages.len(),
        labelled_sites: sites.len(),
        labelled_blocks: data.targets.len(),
        class_counts: data.class_counts.clone(),
        unlabelled_blocks_left_out: data.unlabelled_blocks,
        pool_pages: *pool_pages,
        pool_blocks: pool.n_rows(),
        folds,
        wall_seconds: started.elapsed().as_secs_f64(),
        peak_memory_mb: peak_memory_mb(),
    })
}

/// The seed of fold `f`, derived from the config's seed.
pub fn fold_seed(config: &ExperimentConfig, f: usize) -> u64 {
    config.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(f as u64)
}

fn run_fold(
    config: &ExperimentConfig,
    f: usize,
    test_rows: &[usize],
    prepared: &Prepared,
    baselines: &[Box<dyn Baseline>],
    to_report: &(dyn Fn(usize) -> usize + Sync),
    progress: &dyn Progress,
) -> Result<FoldResult, ExperimentError> {
    let err = |source: TrainError| ExperimentError::Fold { fold: f, source };
    let Prepared { scheme, data, pool, .. } = prepared;
    let k = scheme.len();
    let train_rows = crate::boost::rows_outside(test_rows, data.targets.len());
    let test = data.views.select_rows(test_rows).map_err(|e| err(e.into()))?;
    let gold: Vec<usize> = test_rows.iter().map(|&r| to_report(data.targets[r])).collect();
    let seed = fold_seed(config, f);
    let report = |p: &[usize]| -> Vec<usize> { p.iter().map(|&c| to_report(c)).collect() };

    let mut predictions: BTreeMap<String, Vec<Vec<usize>>> = BTreeMap::new();
    let mut failure: Option<TrainError> = None;
    let fitted = fit(config, prepared, &train_rows, seed, Some(f), progress, |m| {
        let (s, l) = match (m.stylistic.predict_with_confidence(&test.stylistic), m.lexical.predict_with_confidence(&test.lexical)) {
            (Ok(s), Ok(l)) => (s, l),
            (Err(e), _) | (_, Err(e)) => {
                failure = Some(e.into());
                return;
            }
        };
        let combined: Vec<usize> = crate::cotrain::combine(&s, &l).into_iter().map(|(c, _, _)| to_report(c)).collect();
        predictions.entry(STYLISTIC.into()).or_default().push(s.classes.iter().map(|&c| to_report(c)).collect());
        predictions.entry(LEXICAL.into()).or_default().push(l.classes.iter().map(|&c| to_report(c)).collect());
        predictions.entry(COMBINED.into()).or_default().push(combined);
    })
    .map_err(err)?;
    if let Some(e) = failure {
        return Err(err(e));
    }
    if fitted.context.is_some() {
        let test_pages: Vec<usize> = test_rows.iter().map(|&r| data.page_of[r]).collect();
        let classes: Vec<String> = scheme.names().map(str::to_string).collect();
        let decided = fitted.decide(&test, &test_pages, &classes).map_err(err)?;
        predictions.insert(CONTEXT.into(), vec![decided.decided.iter().map(|&(c, _, _)| to_report(c)).collect()]);
    }
    let train = data.views.select_rows(&train_rows).map_err(|e| err(e.into()))?;
    let targets: Vec<usize> = train_rows.iter().map(|&r| data.targets[r]).collect();
    let train_pages: Vec<usize> = train_rows.iter().map(|&r| data.page_of[r]).collect();
    // The seed papers' baselines also read each block's text, place and counts.
    let test_pages: Vec<usize> = test_rows.iter().map(|&r| data.page_of[r]).collect();
    let train_blocks: Vec<BlockInfo> = train_rows.iter().filter_map(|&r| data.blocks.get(r).cloned()).collect();
    let test_blocks: Vec<BlockInfo> = test_rows.iter().filter_map(|&r| data.blocks.get(r).cloned()).collect();
    let fold = Fold {
        config,
        index: f,
        seed,
        n_classes: k,
        train: &train,
        targets: &targets,
        train_pages: &train_pages,
        test: &test,
        pool,
        fitted: &fitted,
        train_blocks: &train_blocks,
        test_blocks: &test_blocks,
        test_pages: &test_pages,
    };
    for b in baselines {
        progress.event(&Event::Stage { fold: Some(f), stage: Stage::Baseline(b.name().to_string()) });
        let rounds = b.predict(&fold).map_err(err)?;
        predictions.insert(b.name().to_string(), rounds.iter().map(|p| report(p)).collect());
        progress.event(&Event::Step);
    }
    let errors = predictions.iter().map(|(name, rounds)| (name.clone(), rounds.iter().map(|p| eval::error_rate(&gold, p)).collect())).collect();
    Ok(FoldResult {
        fold: f,
        test_pages: {
            let mut p: Vec<String> = test_rows.iter().map(|&r| data.pages[data.page_of[r]].0.clone()).collect();
            p.dedup();
            p
        },
        train_blocks: targets.len(),
        test_blocks: gold.len(),
        boosting_rounds: fitted.boosting_rounds.clone(),
        stop: fitted.stop,
        self_training_stop: fitted.stop,
        added: fitted.added.clone(),
        gold,
        predictions,
        errors,
    })
}

/// Peak resident memory of this process (VmHWM), in MB, where /proc tells it.
pub fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
