//! Experiments: a config's learners measured on held-out folds, with the baselines the paper
//! compares against (section 7).
//!
//! Input: an [`ExperimentConfig`] (TOML under `configs/`). Output: [`ExperimentResults`], every
//! figure of the run, measured on held-out folds: error rate per co-training round for the
//! stylistic, lexical and combined learners; the context stage when the config has one; each
//! baseline ([`crate::baselines`]); predictions for per-class tables and confusion matrices.
//!
//! A labelled budget (`evaluation.budget_pages`) cuts each fold's training side to that many
//! pages, drawn with the replicate's seed (`evaluation.draw_seed`), the held-out side untouched;
//! the pages left over are unused or become the fold's pool (`evaluation.left_over`). A list of
//! trainable pages (`evaluation.train_pages`) keeps a fold's training side to the pages it names
//! before any budget, on the folds of the whole corpus. Each round
//! of each fold records [`RoundDiagnostics`]: the class mix of each view's additions, their
//! precision where the pool's labels are known, the views' agreement on the fresh pool, and
//! how often both views are wrong on the held-out blocks of each class.
//!
//! With a held-out test corpus (`[evaluation.test]`, e.g. labelled pages of 2008 and a test
//! corpus of modern pages) the folds cut the test corpus instead: each fold trains on the
//! labelled corpus (cut to the budget), takes its pool from the test corpus's pages outside the
//! held-out fold (so the self-labels' precision is known) and is scored on the held-out fold.
//! Where the report scheme names its main-text classes, each fold also records the main-text F1
//! of its held-out pages ([`FoldResult::main_text_f1`]).
//!
//! Each fold trains through the one training path ([`crate::train::fit`]), the very function
//! `parcels train` ships models from, and evaluates what it returns.
//!
//! Invariants: no page's blocks sit on both sides of a fold; no fold is empty (more folds than
//! pages or sites is an error before any page is read, and a fold without held-out blocks is an
//! error, never a 0 in a mean); the same config and seed give the same
//! numbers bit for bit (seeded shuffles, deterministic learners, folds computed in parallel but
//! collected in order), with one exception outside our code: the `boilerpipe` seed baselines'
//! trees come from linfa-trees 0.8, which breaks modal-class ties in `HashMap` order (seeded per
//! process), so their error can move by a block or two between runs. (SAMME's stumps are our
//! own for that reason: `boost::baselines`.)

use std::collections::BTreeMap;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::baselines::{self, Baseline, Fold};
use crate::config::{Budget, LeftOver};
use crate::cotrain::{RoundModels, Stop, TwoViews};
use crate::dataset::{prepare, BlockInfo, DataError, PoolBlocks, Prepared};
use crate::eval;
use crate::progress::{Event, Progress, Stage};
use crate::train::{fit_steps, fit_with_pool, TrainError};

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
    #[error("fold {fold}: no labelled page left on the training side")]
    EmptyTrainingSide { fold: usize },
    /// A fold with no held-out block: its error rate would be a 0 averaged into the others.
    #[error("fold {fold}: no held-out block (more folds than pages or sites with blocks?)")]
    EmptyFold { fold: usize },
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
    /// With a labelled budget: the training-side pages kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub train_pages: Vec<String>,
    /// Main-text F1 per learner and round (like `errors`): the mean over the held-out pages of
    /// each page's word-weighted block F1 of the report scheme's main-text classes
    /// ([`eval::mean_page_f1`]; `None` when no held-out page has main text); empty when the
    /// report scheme has no article roles.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub main_text_f1: BTreeMap<String, Vec<Option<f64>>>,
    /// Per co-training round (round 0 first): why the round helped or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<RoundDiagnostics>,
}

/// What a co-training round did, for a researcher asking why a run helped or not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundDiagnostics {
    pub round: usize,
    /// Self-labelled blocks added per view (stylistic, lexical) and class (training scheme).
    pub added: Vec<Vec<usize>>,
    /// How many of each view's additions carry their true class, where the pool's labels are
    /// known (`evaluation.left_over = "pool"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct: Option<Vec<usize>>,
    /// Share of the round's fresh pool both views label alike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool_agreement: Option<f64>,
    /// Per true class (training scheme) of the held-out blocks: `[blocks, stylistic wrong,
    /// lexical wrong, both wrong]`. Were the views independent given the class, both would be
    /// wrong on about `s·l/n` blocks of the class ([`RoundDiagnostics::both_wrong_ratio`]).
    pub errors_by_class: Vec<[usize; 4]>,
}

impl RoundDiagnostics {
    /// Held-out blocks both views got wrong, over what independence given the class predicts
    /// (`Σ_c s_c·l_c/n_c`); 1 is conditionally independent, above 1 the views fail together.
    /// `None` when independence predicts no such block.
    pub fn both_wrong_ratio(&self) -> Option<f64> {
        let observed: usize = self.errors_by_class.iter().map(|c| c[3]).sum();
        let expected: f64 = self.errors_by_class.iter().filter(|c| c[0] > 0).map(|c| c[1] as f64 * c[2] as f64 / c[0] as f64).sum();
        (expected > 0.0).then(|| observed as f64 / expected)
    }

    /// Share of the additions (both views) that carry their true class, where known.
    pub fn precision(&self) -> Option<f64> {
        let correct: usize = self.correct.as_ref()?.iter().sum();
        let added: usize = self.added.iter().flatten().sum();
        (added > 0).then(|| correct as f64 / added as f64)
    }
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
    /// With a held-out test corpus (`[evaluation.test]`): its pages, sites, blocks and blocks
    /// per class (training scheme); the folds cut it, and the pool is its pages outside each
    /// held-out fold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_corpus: Option<TestCorpusSummary>,
    pub folds: Vec<FoldResult>,
    /// Volatile figures of this run: written to `run.json` ([`crate::report::RUN_FILE`]), not to
    /// `results.json`, so rebuilding a tracked report changes it only where the results change.
    #[serde(skip)]
    pub wall_seconds: f64,
    #[serde(skip)]
    pub peak_memory_mb: Option<f64>,
}

/// The size of a held-out test corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCorpusSummary {
    pub pages: usize,
    pub sites: usize,
    pub blocks: usize,
    pub class_counts: Vec<usize>,
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
    progress.event(&Event::Planned { steps: steps(config, baselines.len()) });
    let prepared = prepare(config, progress)?;
    run_prepared(config, &prepared, baselines, progress)
}

/// Runs an experiment on data already prepared for a config with the same `[corpus]`, `[pool]`
/// and `[views]` (a sweep prepares once for all its cells). Announces no plan: the caller does.
pub fn run_prepared(
    config: &ExperimentConfig,
    prepared: &Prepared,
    baselines: &[Box<dyn Baseline>],
    progress: &dyn Progress,
) -> Result<ExperimentResults, ExperimentError> {
    let started = Instant::now();
    let Prepared { scheme, data, pool, pool_pages, .. } = prepared;
    let report = match &config.corpus.report_scheme {
        Some(r) if r != &scheme.name => {
            let to = config.scheme(r).map_err(DataError::from)?;
            let m = crate::corpus::SchemeMapping::between(scheme, &to).ok_or_else(|| DataError::NoMapping { from: scheme.name.clone(), to: r.clone() })?;
            Some((m.index_table(scheme, &to), to))
        }
        _ => None,
    };
    let to_report = |c: usize| report.as_ref().map_or(c, |(t, _)| t[c]);
    // The report scheme's main-text classes, for the main-text F1 of each held-out page.
    let report_scheme = report.as_ref().map_or(scheme, |(_, s)| s);
    let main_text: Vec<bool> = match &report_scheme.article {
        Some(a) => report_scheme.names().map(|n| a.main_text.iter().any(|m| m == n)).collect(),
        None => Vec::new(),
    };
    // The folds cut the test corpus when there is one, else the labelled corpus.
    let folded = prepared.test.as_ref().unwrap_or(data);
    let folds = folded.folds(config)?;
    if let Some(f) = folds.iter().position(Vec::is_empty) {
        return Err(ExperimentError::EmptyFold { fold: f });
    }
    let results: Vec<Result<FoldResult, ExperimentError>> =
        folds.par_iter().enumerate().map(|(f, test_rows)| run_fold(config, f, test_rows, prepared, baselines, &to_report, &main_text, progress)).collect();
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
        test_corpus: prepared.test.as_ref().map(|t| TestCorpusSummary {
            pages: t.pages.len(),
            sites: t.pages.iter().map(|(_, s)| s.as_str()).collect::<std::collections::BTreeSet<_>>().len(),
            blocks: t.targets.len(),
            class_counts: t.class_counts.clone(),
        }),
        folds,
        wall_seconds: started.elapsed().as_secs_f64(),
        peak_memory_mb: peak_memory_mb(),
    })
}

/// The seed of fold `f` (pool order, inner folds), derived from the config's seed, or from the
/// replicate's `evaluation.draw_seed` when there is one.
pub fn fold_seed(config: &ExperimentConfig, f: usize) -> u64 {
    let base = config.evaluation.draw_seed.map_or(config.seed, |d| d ^ 0xD1B5_4A32_D192_ED03);
    base.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(f as u64)
}

/// Seed of fold `f`'s draw of a labelled budget: the pages [`budget_rows`] keeps. `parcels run`
/// and `parcels cross-extract` draw alike, so at one budget and seed both train on the same pages.
pub fn budget_seed(config: &ExperimentConfig, f: usize) -> u64 {
    fold_seed(config, f) ^ 0x5851_F42D_4C95_7F2D
}

/// The training-side rows a budget keeps, and those it leaves over: whole pages, `budget` of
/// them drawn with `seed` (all of them when the side has no more). Rows stay in order.
pub fn budget_rows(train_rows: &[usize], page_of: &[usize], budget: Budget, seed: u64) -> (Vec<usize>, Vec<usize>) {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let Budget::Pages(n) = budget else {
        return (train_rows.to_vec(), Vec::new());
    };
    let mut pages: Vec<usize> = train_rows.iter().map(|&r| page_of[r]).collect();
    pages.sort_unstable();
    pages.dedup();
    pages.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    let kept: std::collections::BTreeSet<usize> = pages.into_iter().take(n).collect();
    train_rows.iter().partition(|&&r| kept.contains(&page_of[r]))
}

/// The diagnostics of one round: `test_classes` are the held-out blocks' true classes,
/// `pool_classes` the true classes of the pool's blocks where known.
pub fn round_diagnostics(
    models: &RoundModels,
    stylistic: &[usize],
    lexical: &[usize],
    test_classes: &[usize],
    pool_classes: Option<&[usize]>,
    n_classes: usize,
) -> RoundDiagnostics {
    let t = models.teaching;
    let mut added = vec![vec![0; n_classes]; 2];
    let mut correct = vec![0; 2];
    for p in t.picks {
        if let Some(slot) = added.get_mut(p.view).and_then(|v| v.get_mut(p.class)) {
            *slot += 1;
        }
        if let Some(truth) = pool_classes.and_then(|g| t.drawn.get(p.position).and_then(|&row| g.get(row))) {
            if *truth == p.class {
                correct[p.view.min(1)] += 1;
            }
        }
    }
    let mut errors_by_class = vec![[0usize; 4]; n_classes];
    for ((&g, &s), &l) in test_classes.iter().zip(stylistic).zip(lexical) {
        if let Some(c) = errors_by_class.get_mut(g) {
            let (sw, lw) = (s != g, l != g);
            c[0] += 1;
            c[1] += usize::from(sw);
            c[2] += usize::from(lw);
            c[3] += usize::from(sw && lw);
        }
    }
    RoundDiagnostics { round: models.round, added, correct: pool_classes.map(|_| correct), pool_agreement: t.agreement, errors_by_class }
}

#[allow(clippy::too_many_arguments)]
fn run_fold(
    config: &ExperimentConfig,
    f: usize,
    test_rows: &[usize],
    prepared: &Prepared,
    baselines: &[Box<dyn Baseline>],
    to_report: &(dyn Fn(usize) -> usize + Sync),
    main_text: &[bool],
    progress: &dyn Progress,
) -> Result<FoldResult, ExperimentError> {
    let err = |source: TrainError| ExperimentError::Fold { fold: f, source };
    let Prepared { scheme, data, .. } = prepared;
    let k = scheme.len();
    let seed = fold_seed(config, f);
    if test_rows.is_empty() {
        return Err(ExperimentError::EmptyFold { fold: f });
    }
    // With a test corpus the folds cut it: the training side is every labelled block, the pool
    // the test corpus's blocks outside the held-out fold (their labels kept for diagnostics).
    let held = prepared.test.as_ref().unwrap_or(data);
    let side = match &prepared.test {
        Some(_) => (0..data.targets.len()).collect(),
        None => crate::boost::rows_outside(test_rows, data.targets.len()),
    };
    let side = prepared.trainable_rows(side);
    let (train_rows, left_over) = budget_rows(&side, &data.page_of, config.evaluation.budget_pages, budget_seed(config, f));
    if train_rows.is_empty() {
        return Err(ExperimentError::EmptyTrainingSide { fold: f });
    }
    let own_pool: Option<(TwoViews, Vec<usize>, PoolBlocks)> = match (&prepared.test, config.evaluation.left_over) {
        (Some(t), _) => {
            let outside = crate::boost::rows_outside(test_rows, t.targets.len());
            Some((t.views.select_rows(&outside).map_err(|e| err(e.into()))?, outside.iter().map(|&r| t.targets[r]).collect(), t.pool_blocks(&outside)))
        }
        (None, LeftOver::Pool) if !left_over.is_empty() => Some((
            data.views.select_rows(&left_over).map_err(|e| err(e.into()))?,
            left_over.iter().map(|&r| data.targets[r]).collect(),
            data.pool_blocks(&left_over),
        )),
        _ => None,
    };
    let pool = own_pool.as_ref().map_or(&prepared.pool, |(p, _, _)| p);
    let pool_classes = own_pool.as_ref().map(|(_, c, _)| c.as_slice());
    let pool_blocks = own_pool.as_ref().map_or(&prepared.pool_blocks, |(_, _, b)| b);
    let test = held.views.select_rows(test_rows).map_err(|e| err(e.into()))?;
    let test_classes: Vec<usize> = test_rows.iter().map(|&r| held.targets[r]).collect();
    let gold: Vec<usize> = test_classes.iter().map(|&c| to_report(c)).collect();
    let report = |p: &[usize]| -> Vec<usize> { p.iter().map(|&c| to_report(c)).collect() };

    let mut predictions: BTreeMap<String, Vec<Vec<usize>>> = BTreeMap::new();
    let mut diagnostics = Vec::new();
    let mut failure: Option<TrainError> = None;
    let fitted = fit_with_pool(config, prepared, &train_rows, (pool, pool_blocks), seed, Some(f), progress, |m| {
        let (s, l) = match (m.stylistic.predict_with_confidence(&test.stylistic), m.lexical.predict_with_confidence(&test.lexical)) {
            (Ok(s), Ok(l)) => (s, l),
            (Err(e), _) | (_, Err(e)) => {
                failure = Some(e.into());
                return;
            }
        };
        diagnostics.push(round_diagnostics(m, &s.classes.to_vec(), &l.classes.to_vec(), &test_classes, pool_classes, k));
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
        let test_pages: Vec<usize> = test_rows.iter().map(|&r| held.page_of[r]).collect();
        let classes: Vec<String> = scheme.names().map(str::to_string).collect();
        let containers = config.context_structure().then(|| crate::train::containers_of(held, test_rows));
        let inputs = config.context_inputs(containers.as_deref());
        let decided = fitted.decide(config.context_arbitration(), &test, &test_pages, inputs, &classes).map_err(err)?;
        predictions.insert(CONTEXT.into(), vec![decided.decided.iter().map(|&(c, _, _)| to_report(c)).collect()]);
    }
    let train = data.views.select_rows(&train_rows).map_err(|e| err(e.into()))?;
    let targets: Vec<usize> = train_rows.iter().map(|&r| data.targets[r]).collect();
    let train_pages: Vec<usize> = train_rows.iter().map(|&r| data.page_of[r]).collect();
    // The seed papers' baselines also read each block's text, place and counts.
    let test_pages: Vec<usize> = test_rows.iter().map(|&r| held.page_of[r]).collect();
    let train_blocks: Vec<BlockInfo> = train_rows.iter().filter_map(|&r| data.blocks.get(r).cloned()).collect();
    let test_blocks: Vec<BlockInfo> = test_rows.iter().filter_map(|&r| held.blocks.get(r).cloned()).collect();
    // Sites numbered once for the three sides (the protocols of the TiMBL thesis compare them).
    let mut sites = crate::baselines::blocks::SiteIds::default();
    let train_sites = sites.of_rows(&train_rows, data);
    let test_sites = sites.of_rows(test_rows, held);
    let pool_sites = sites.of_pool(pool_blocks);
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
        train_sites: &train_sites,
        test_sites: &test_sites,
        pool_blocks: &pool_blocks.blocks,
        pool_pages: &pool_blocks.page_of,
        pool_sites: &pool_sites,
    };
    // Baselines are independent of each other: they run in parallel (self-training alone is a
    // third of paper-basic's work), and their results are collected in their order.
    let predicted: Vec<Result<Vec<Vec<usize>>, TrainError>> = baselines
        .par_iter()
        .map(|b| {
            progress.event(&Event::Stage { fold: Some(f), stage: Stage::Baseline(b.name().to_string()) });
            let rounds = b.predict(&fold);
            progress.event(&Event::Step);
            rounds
        })
        .collect();
    for (b, rounds) in baselines.iter().zip(predicted) {
        let rounds = rounds.map_err(err)?;
        predictions.insert(b.name().to_string(), rounds.iter().map(|p| report(p)).collect());
    }
    let errors = predictions.iter().map(|(name, rounds)| (name.clone(), rounds.iter().map(|p| eval::error_rate(&gold, p)).collect())).collect();
    let main_text_f1 = if main_text.iter().any(|&m| m) {
        let words: Vec<usize> = test_rows.iter().map(|&r| held.blocks.get(r).map_or(0, |b| b.words)).collect();
        predictions
            .iter()
            .map(|(name, rounds)| (name.clone(), rounds.iter().map(|p| eval::mean_page_f1(&gold, p, &words, &test_pages, main_text)).collect()))
            .collect()
    } else {
        BTreeMap::new()
    };
    Ok(FoldResult {
        fold: f,
        test_pages: {
            let mut p: Vec<String> = test_rows.iter().map(|&r| held.pages[held.page_of[r]].0.clone()).collect();
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
        main_text_f1,
        train_pages: match config.evaluation.budget_pages {
            Budget::All => Vec::new(),
            Budget::Pages(_) => {
                let mut p: Vec<String> = train_rows.iter().map(|&r| data.pages[data.page_of[r]].0.clone()).collect();
                p.dedup();
                p
            }
        },
        diagnostics,
    })
}

/// Peak resident memory of this process (VmHWM), in MB, where /proc tells it.
pub fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cotrain::{Pick, Teaching};

    #[test]
    fn budgets_keep_whole_pages_and_leave_the_rest_over() {
        // Rows 0-1 page 0, 2-4 page 1, 5 page 2, 6-7 page 3; the training side is rows 0-5.
        let page_of = [0, 0, 1, 1, 1, 2, 3, 3];
        let side = [0, 1, 2, 3, 4, 5];
        let (kept, left) = budget_rows(&side, &page_of, Budget::Pages(2), 7);
        let pages: std::collections::BTreeSet<usize> = kept.iter().map(|&r| page_of[r]).collect();
        assert_eq!(pages.len(), 2, "{kept:?}");
        assert_eq!(kept.len() + left.len(), 6);
        assert!(left.iter().all(|r| !pages.contains(&page_of[*r])), "a page is never split");
        assert_eq!(budget_rows(&side, &page_of, Budget::Pages(2), 7), (kept, left), "same seed, same draw");
        assert_eq!(budget_rows(&side, &page_of, Budget::Pages(9), 7), (side.to_vec(), vec![]), "more pages than there are: all");
        assert_eq!(budget_rows(&side, &page_of, Budget::All, 7), (side.to_vec(), vec![]));
        // Over seeds, every page of the side is drawn sometimes.
        let drawn: std::collections::BTreeSet<usize> = (0..20).flat_map(|s| budget_rows(&side, &page_of, Budget::Pages(1), s).0).map(|r| page_of[r]).collect();
        assert_eq!(drawn.into_iter().collect::<Vec<_>>(), [0, 1, 2]);
    }

    #[test]
    fn round_diagnostics_count_additions_precision_and_joint_errors() {
        let m = crate::boost::AdaBoostMhParams::new().n_rounds(1).n_classes(Some(2));
        let x = crate::matrix::FeatureMatrix::from_dense(ndarray::arr2(&[[0.0], [1.0]]));
        let model = linfa::ParamGuard::check(m).unwrap().train(&x, &[0, 1]).unwrap();
        // Drawn pool rows 4, 2, 7; the stylistic view picked position 0 as class 1, the lexical
        // view position 2 as class 0. True classes of pool rows: row 4 is 1, row 7 is 1.
        let picks = [Pick { position: 0, class: 1, view: 0 }, Pick { position: 2, class: 0, view: 1 }];
        let teaching = Teaching { drawn: &[4, 2, 7], picks: &picks, agreement: Some(2.0 / 3.0) };
        let models = RoundModels { round: 3, stylistic: &model, lexical: &model, training_blocks: 10, teaching: &teaching };
        let pool_classes = [0, 0, 0, 0, 1, 0, 0, 1];
        // Held-out: 4 blocks of class 0, 2 of class 1.
        let gold = [0, 0, 0, 0, 1, 1];
        let s = [1, 1, 0, 0, 1, 0];
        let l = [1, 0, 1, 0, 0, 0];
        let d = round_diagnostics(&models, &s, &l, &gold, Some(&pool_classes), 2);
        assert_eq!(d.round, 3);
        assert_eq!(d.added, [vec![0, 1], vec![1, 0]]);
        assert_eq!(d.correct, Some(vec![1, 0]));
        assert_eq!(d.precision(), Some(0.5));
        assert_eq!(d.pool_agreement, Some(2.0 / 3.0));
        // Class 0: 4 blocks, stylistic wrong on 2, lexical on 2, both on 1 (block 0).
        // Class 1: 2 blocks, stylistic wrong on 1, lexical on 2, both on 1.
        assert_eq!(d.errors_by_class, [[4, 2, 2, 1], [2, 1, 2, 1]]);
        // Independence predicts 2·2/4 + 1·2/2 = 2 joint errors; 2 observed.
        assert_eq!(d.both_wrong_ratio(), Some(1.0));
        let unknown = round_diagnostics(&models, &s, &l, &gold, None, 2);
        assert_eq!((unknown.precision(), unknown.correct), (None, None));
    }
}
