//! Experiments from configuration: corpus, views, learners, co-training and cross-validation by
//! page (or site), with the baselines the paper compares against (section 7).
//!
//! Input: an [`ExperimentConfig`] (TOML under `configs/`). Output: [`ExperimentResults`], every
//! figure of the run, measured on held-out folds: error rate per co-training round for the
//! stylistic, lexical and combined learners and for self-training; the single-view learner (both
//! views' features, no unlabelled data: the paper's comparison point), the majority class and
//! linfa-ensemble's SAMME as constants; predictions for per-class tables and confusion matrices.
//!
//! Invariants: no page's blocks sit on both sides of a fold; the same config and seed give the
//! same numbers bit for bit (seeded shuffles, deterministic learners, folds computed in parallel
//! but collected in order), with one exception outside our code: the SAMME baseline's trees come
//! from linfa-trees 0.8, which sums Gini frequencies and breaks modal-class ties in `HashMap`
//! order (seeded per process), so its error can move by a block or two between runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use linfa::ParamGuard;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::boost::{self, AdaBoostMhParams, AdaBoostMhValidParams};
use crate::corpus::{label_files, load_labelled, LabelScheme, SchemeMapping};
use crate::cotrain::{self, CoTrainParams, Stop, TwoViews};
use crate::divide::{Divider, DividerConfig};
use crate::eval;
use crate::lexical::IdfTable;
use crate::matrix::FeatureMatrix;
use crate::page::{LoadOptions, Page};
use crate::stylistic::StyleOptions;
use crate::views::{ViewBuilder, ViewConfig};

/// Version of the results format (`results.json`).
pub const RESULTS_FORMAT: u32 = 1;

/// An experiment, as written in `configs/*.toml`. Paths are relative to the current directory
/// (the repository root, where the README's commands run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Seed of every random choice (folds, pool order).
    pub seed: u64,
    pub corpus: CorpusConfig,
    pub pool: PoolConfig,
    #[serde(default)]
    pub views: ViewConfig,
    pub boosting: BoostingConfig,
    pub cotraining: CoTrainingConfig,
    pub evaluation: EvaluationConfig,
    /// The context stage of trained models (`parcels train`, `parcels cross-extract`); none by
    /// default, as in the paper. See [`crate::context`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::context::ContextConfig>,
}

/// The labelled blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusConfig {
    /// Directories of label files.
    pub labels: Vec<PathBuf>,
    /// Root of the corpora the label files name.
    pub corpora: PathBuf,
    /// Label scheme of the label files.
    pub scheme: String,
    /// Scheme the learners are trained in, when coarser than the files' (through the built-in
    /// mapping; e.g. `song-3level` for the paper's section 7.3); default: `scheme`.
    #[serde(default)]
    pub train_scheme: Option<String>,
    /// Scheme the results are reported in (through the built-in mapping from the training
    /// scheme); default: the training scheme.
    #[serde(default)]
    pub report_scheme: Option<String>,
    /// Divider configuration (tag inventory); default: the built-in fine-grained one.
    #[serde(default)]
    pub divider: Option<PathBuf>,
}

/// The unlabelled pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolConfig {
    /// Manifests: `page-in-corpus<TAB>site` per line.
    pub manifests: Vec<PathBuf>,
    /// Corpus (directory under `corpora`) of the manifests' pages.
    pub corpus: String,
    /// Root of that corpus; default: the labelled corpus's root.
    #[serde(default)]
    pub corpora: Option<PathBuf>,
}

/// Boosting rounds: a number, or `"cv"` to choose them by cross-validation on each fold's
/// training data (as the paper did).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Rounds {
    Fixed(usize),
    Chosen(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoostingConfig {
    pub rounds: Rounds,
    /// With `rounds = "cv"`: the largest round count tried and the inner folds (by page).
    #[serde(default = "default_max_rounds")]
    pub max_rounds: usize,
    #[serde(default = "default_cv_folds")]
    pub cv_folds: usize,
    /// Thresholds tried per numeric feature (quantile bins); default: the learner's (255, exact
    /// for features with at most 255 distinct values). 32 halves fitting time.
    #[serde(default)]
    pub max_bins: Option<usize>,
}

fn default_max_rounds() -> usize {
    400
}

fn default_cv_folds() -> usize {
    3
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoTrainingConfig {
    pub u: usize,
    pub k: usize,
    pub r: usize,
}

/// How folds split the labelled pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    Page,
    Site,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluationConfig {
    pub folds: usize,
    #[serde(default = "default_split")]
    pub split: Split,
    /// Stumps of the SAMME baseline (linfa-ensemble); 0 leaves it out.
    #[serde(default = "default_samme")]
    pub samme_stumps: usize,
}

fn default_split() -> Split {
    Split::Page
}

fn default_samme() -> usize {
    200
}

/// Why an experiment could not start or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExperimentError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    #[error("{0}")]
    Data(String),
}

impl ExperimentConfig {
    /// Reads and validates a config: unknown keys, missing files and impossible values are
    /// errors before any work starts.
    pub fn load(path: &Path) -> Result<ExperimentConfig, ExperimentError> {
        let text = std::fs::read_to_string(path).map_err(|source| ExperimentError::Io { path: path.to_path_buf(), source })?;
        let config: ExperimentConfig = toml::from_str(&text).map_err(|e| ExperimentError::Config { path: path.to_path_buf(), message: e.to_string() })?;
        config.validate(path)?;
        Ok(config)
    }

    pub fn validate(&self, path: &Path) -> Result<(), ExperimentError> {
        let bad = |message: String| ExperimentError::Config { path: path.to_path_buf(), message };
        if self.evaluation.folds < 2 {
            return Err(bad(format!("evaluation.folds = {}: cross-validation needs at least 2 folds", self.evaluation.folds)));
        }
        let c = &self.cotraining;
        if c.u == 0 || c.k == 0 {
            return Err(bad(format!("cotraining: u ({}) and k ({}) must be positive", c.u, c.k)));
        }
        if c.k > c.u {
            return Err(bad(format!("cotraining: k ({}) cannot exceed u ({})", c.k, c.u)));
        }
        if let Some(ctx) = &self.context {
            if ctx.rounds == 0 || ctx.folds < 2 {
                return Err(bad(format!("context: rounds ({}) must be positive and folds ({}) at least 2", ctx.rounds, ctx.folds)));
            }
        }
        match &self.boosting.rounds {
            Rounds::Fixed(0) => return Err(bad("boosting.rounds must be at least 1".into())),
            Rounds::Chosen(s) if s != "cv" => return Err(bad(format!("boosting.rounds = {s:?}: a number or \"cv\""))),
            Rounds::Chosen(_) if self.boosting.max_rounds == 0 || self.boosting.cv_folds < 2 => {
                return Err(bad("boosting.max_rounds must be positive and boosting.cv_folds at least 2".into()))
            }
            _ => {}
        }
        let mut scheme = LabelScheme::resolve(&self.corpus.scheme).map_err(|e| bad(e.to_string()))?;
        if let Some(t) = &self.corpus.train_scheme {
            let to = LabelScheme::resolve(t).map_err(|e| bad(e.to_string()))?;
            if to.name != scheme.name && SchemeMapping::between(&scheme, &to).is_none() {
                return Err(bad(format!("no built-in mapping from {} to {}", scheme.name, to.name)));
            }
            scheme = to;
        }
        if let Some(r) = &self.corpus.report_scheme {
            let to = LabelScheme::resolve(r).map_err(|e| bad(e.to_string()))?;
            if to.name != scheme.name && SchemeMapping::between(&scheme, &to).is_none() {
                return Err(bad(format!("no built-in mapping from {} to {}", scheme.name, to.name)));
            }
        }
        for dir in &self.corpus.labels {
            if !dir.is_dir() {
                return Err(bad(format!("corpus.labels: {} is not a directory", dir.display())));
            }
        }
        if !self.corpus.corpora.is_dir() {
            return Err(bad(format!("corpus.corpora: {} is not a directory", self.corpus.corpora.display())));
        }
        for m in &self.pool.manifests {
            if !m.is_file() {
                return Err(bad(format!("pool.manifests: {} not found", m.display())));
            }
        }
        if let Some(d) = &self.corpus.divider {
            DividerConfig::load(d).map_err(|e| bad(e.to_string()))?;
        }
        Ok(())
    }
}

/// The labelled blocks of an experiment and the page (and site) of each.
pub struct LabelledData {
    pub views: TwoViews,
    /// Class index (training scheme) per block.
    pub targets: Vec<usize>,
    /// Page index per block, and the pages' names and sites.
    pub page_of: Vec<usize>,
    pub pages: Vec<(String, String)>,
    /// The corpus page behind each labelled page, in the order of `pages`.
    pub page_paths: Vec<PathBuf>,
    /// Blocks per class.
    pub class_counts: Vec<usize>,
    /// Labelled pages' blocks without a majority label (left out).
    pub unlabelled_blocks: usize,
}

/// Loads the labelled blocks and builds their views.
pub fn load_labelled_data(config: &ExperimentConfig, divider: &Divider, builder: &ViewBuilder, scheme: &LabelScheme) -> Result<LabelledData, ExperimentError> {
    let mut files = Vec::new();
    for dir in &config.corpus.labels {
        files.extend(label_files(dir).map_err(|e| ExperimentError::Data(e.to_string()))?);
    }
    type PageData = (String, String, PathBuf, TwoViews, Vec<usize>, usize);
    let per_page: Vec<Result<PageData, String>> = files
        .par_iter()
        .map(|f| {
            let lp = load_labelled(f, &config.corpus.corpora, divider, scheme).map_err(|e| e.to_string())?;
            let v = builder.build(&lp.page, &lp.division).map_err(|e| format!("{}: {e}", f.display()))?;
            let keep: Vec<usize> = (0..lp.gold.len()).filter(|&i| lp.gold[i].label.is_some()).collect();
            let targets = keep.iter().filter_map(|&i| lp.gold[i].label).collect();
            let views = TwoViews { stylistic: v.stylistic, lexical: v.lexical }.select_rows(&keep).map_err(|e| e.to_string())?;
            let name = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
            Ok((name, lp.labels.site.clone().unwrap_or_default(), lp.page.path.clone(), views, targets, lp.gold.len() - keep.len()))
        })
        .collect();
    let mut data: Option<LabelledData> = None;
    for r in per_page {
        let (name, site, path, views, targets, unlabelled) = r.map_err(ExperimentError::Data)?;
        let d = data.get_or_insert_with(|| LabelledData {
            views: views.select_rows(&[]).unwrap_or_else(|_| views.clone()),
            targets: Vec::new(),
            page_of: Vec::new(),
            pages: Vec::new(),
            page_paths: Vec::new(),
            class_counts: vec![0; scheme.len()],
            unlabelled_blocks: 0,
        });
        d.views.append(&views).map_err(|e| ExperimentError::Data(e.to_string()))?;
        let page = d.pages.len();
        d.page_of.extend(std::iter::repeat_n(page, targets.len()));
        for &t in &targets {
            d.class_counts[t] += 1;
        }
        d.targets.extend(targets);
        d.pages.push((name, site));
        d.page_paths.push(path);
        d.unlabelled_blocks += unlabelled;
    }
    data.ok_or_else(|| ExperimentError::Data("no labelled pages".into()))
}

/// Loads the unlabelled pool's pages and builds their views (all blocks).
pub fn load_pool(config: &ExperimentConfig, divider: &Divider, builder: &ViewBuilder) -> Result<(TwoViews, usize), ExperimentError> {
    let root = config.pool.corpora.clone().unwrap_or_else(|| config.corpus.corpora.clone());
    let mut pages = Vec::new();
    for m in &config.pool.manifests {
        let text = std::fs::read_to_string(m).map_err(|source| ExperimentError::Io { path: m.clone(), source })?;
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let page = line.split('\t').next().unwrap_or(line).trim();
            pages.push(root.join(&config.pool.corpus).join(page));
        }
    }
    let built: Vec<Result<TwoViews, String>> = pages
        .par_iter()
        .map(|p| {
            let page = Page::load(p, &LoadOptions::default()).map_err(|e| e.to_string())?;
            let division = divider.divide(&page);
            let v = builder.build(&page, &division).map_err(|e| format!("{}: {e}", p.display()))?;
            Ok(TwoViews { stylistic: v.stylistic, lexical: v.lexical })
        })
        .collect();
    let mut pool: Option<TwoViews> = None;
    for b in built {
        let b = b.map_err(ExperimentError::Data)?;
        match &mut pool {
            Some(p) => p.append(&b).map_err(|e| ExperimentError::Data(e.to_string()))?,
            None => pool = Some(b),
        }
    }
    pool.map(|p| (p, pages.len())).ok_or_else(|| ExperimentError::Data("the unlabelled pool is empty".into()))
}

/// Learner names in results, curves and reports.
pub const STYLISTIC: &str = "stylistic";
pub const LEXICAL: &str = "lexical";
pub const COMBINED: &str = "combined";
pub const SELF_TRAINING: &str = "self-training";
pub const SINGLE_VIEW: &str = "single-view";
pub const MAJORITY: &str = "majority";
pub const SAMME: &str = "samme";

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
    pub wall_seconds: f64,
    pub peak_memory_mb: Option<f64>,
}

/// What an experiment and a trained model both start from: the divider and view builder of
/// the config, the training scheme, the labelled blocks (targets in training classes) and the
/// unlabelled pool.
pub struct Prepared {
    pub divider: Divider,
    pub builder: ViewBuilder,
    /// The scheme the learners are trained in.
    pub scheme: LabelScheme,
    pub data: LabelledData,
    pub pool: TwoViews,
    pub pool_pages: usize,
}

/// The divider a config names (or the built-in fine-grained one).
pub fn divider_of(config: &ExperimentConfig) -> Result<Divider, ExperimentError> {
    Ok(match &config.corpus.divider {
        Some(p) => Divider::new(DividerConfig::load(p).map_err(|e| ExperimentError::Data(e.to_string()))?),
        None => Divider::default(),
    })
}

/// Loads a config's labelled data and pool, mapped into its training scheme.
pub fn prepare(config: &ExperimentConfig, progress: &dyn Fn(&str)) -> Result<Prepared, ExperimentError> {
    let data_err = |e: &dyn std::fmt::Display| ExperimentError::Data(e.to_string());
    let label_scheme = LabelScheme::resolve(&config.corpus.scheme).map_err(|e| data_err(&e))?;
    let (scheme, train_map) = match &config.corpus.train_scheme {
        Some(t) if t != &label_scheme.name => {
            let to = LabelScheme::resolve(t).map_err(|e| data_err(&e))?;
            let m = SchemeMapping::between(&label_scheme, &to).ok_or_else(|| ExperimentError::Data(format!("no mapping to {t}")))?;
            (to.clone(), Some(m.index_table(&label_scheme, &to)))
        }
        _ => (label_scheme.clone(), None),
    };
    let divider = divider_of(config)?;
    let idf = IdfTable::dragnet().map_err(|e| data_err(&e))?;
    let builder = ViewBuilder::new(&config.views, idf, StyleOptions::default()).map_err(|e| data_err(&e))?;
    progress("loading labelled pages");
    let mut data = load_labelled_data(config, &divider, &builder, &label_scheme)?;
    if let Some(t) = &train_map {
        data.targets.iter_mut().for_each(|c| *c = t[*c]);
        data.class_counts = vec![0; scheme.len()];
        for &c in &data.targets {
            data.class_counts[c] += 1;
        }
    }
    progress("loading the unlabelled pool");
    let (pool, pool_pages) = load_pool(config, &divider, &builder)?;
    Ok(Prepared { divider, builder, scheme, data, pool, pool_pages })
}

/// Runs an experiment; `progress` is told of each finished round (fold, learner, round, error).
pub fn run(config: &ExperimentConfig, progress: &(dyn Fn(&str) + Sync)) -> Result<ExperimentResults, ExperimentError> {
    let started = Instant::now();
    let Prepared { scheme, data, pool, pool_pages, .. } = prepare(config, progress)?;
    let report = match &config.corpus.report_scheme {
        Some(r) if r != &scheme.name => {
            let to = LabelScheme::resolve(r).map_err(|e| ExperimentError::Data(e.to_string()))?;
            let m = SchemeMapping::between(&scheme, &to).ok_or_else(|| ExperimentError::Data(format!("no mapping to {r}")))?;
            Some((m.index_table(&scheme, &to), to))
        }
        _ => None,
    };
    let to_report = |c: usize| report.as_ref().map_or(c, |(t, _)| t[c]);
    let groups = fold_groups(config, &data);
    let folds = boost::folds_by_group(&groups, config.evaluation.folds, config.seed);
    let k = scheme.len();
    let results: Vec<Result<FoldResult, ExperimentError>> =
        folds.par_iter().enumerate().map(|(f, test_rows)| run_fold(config, f, test_rows, &data, &pool, k, &to_report, progress)).collect();
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
        pool_pages,
        pool_blocks: pool.n_rows(),
        folds,
        wall_seconds: started.elapsed().as_secs_f64(),
        peak_memory_mb: peak_memory_mb(),
    })
}

/// The group of each labelled block that cross-validation keeps whole: its page, or its site
/// (pages without a site are their own site).
pub fn fold_groups(config: &ExperimentConfig, data: &LabelledData) -> Vec<usize> {
    match config.evaluation.split {
        Split::Page => data.page_of.clone(),
        Split::Site => {
            let mut site_ids: BTreeMap<&str, usize> = BTreeMap::new();
            let page_site: Vec<usize> = data
                .pages
                .iter()
                .map(|(name, site)| {
                    let key = if site.is_empty() { name.as_str() } else { site.as_str() };
                    let n = site_ids.len();
                    *site_ids.entry(key).or_insert(n)
                })
                .collect();
            data.page_of.iter().map(|&p| page_site[p]).collect()
        }
    }
}

/// The seed of fold `f`, derived from the config's seed.
pub fn fold_seed(config: &ExperimentConfig, f: usize) -> u64 {
    config.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(f as u64)
}

/// Validated boosting parameters for `rounds` rounds, with the config's `max_bins`.
pub fn boost_params(config: &ExperimentConfig, n_classes: usize, rounds: usize) -> Result<AdaBoostMhValidParams, ExperimentError> {
    let mut p = AdaBoostMhParams::new().n_rounds(rounds).n_classes(Some(n_classes));
    if let Some(bins) = config.boosting.max_bins {
        p = p.max_bins(Some(bins));
    }
    p.check().map_err(|e| ExperimentError::Data(e.to_string()))
}

/// The boosting rounds for one learner on some training data (`pages`: the page of each row,
/// which the inner cross-validation folds keep whole).
pub fn rounds_for(config: &ExperimentConfig, x: &FeatureMatrix, y: &[usize], pages: &[usize], k: usize, seed: u64) -> Result<usize, ExperimentError> {
    match &config.boosting.rounds {
        Rounds::Fixed(n) => Ok(*n),
        Rounds::Chosen(_) => {
            let inner = boost::folds_by_group(pages, config.boosting.cv_folds, seed);
            let params = boost_params(config, k, config.boosting.max_rounds)?;
            let choice = boost::choose_rounds_by_cv(&params, x, y, &inner, config.boosting.max_rounds).map_err(|e| ExperimentError::Data(e.to_string()))?;
            Ok(choice.n_rounds.max(1))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run_fold(
    config: &ExperimentConfig,
    f: usize,
    test_rows: &[usize],
    data: &LabelledData,
    pool: &TwoViews,
    k: usize,
    to_report: &(dyn Fn(usize) -> usize + Sync),
    progress: &(dyn Fn(&str) + Sync),
) -> Result<FoldResult, ExperimentError> {
    let err = |e: String| ExperimentError::Data(format!("fold {f}: {e}"));
    let train_rows = boost::rows_outside(test_rows, data.targets.len());
    let train = data.views.select_rows(&train_rows).map_err(|e| err(e.to_string()))?;
    let test = data.views.select_rows(test_rows).map_err(|e| err(e.to_string()))?;
    let y: Vec<usize> = train_rows.iter().map(|&r| data.targets[r]).collect();
    let train_pages: Vec<usize> = train_rows.iter().map(|&r| data.page_of[r]).collect();
    let gold: Vec<usize> = test_rows.iter().map(|&r| to_report(data.targets[r])).collect();
    let seed = fold_seed(config, f);
    let single_train = train.single_view().map_err(|e| err(e.to_string()))?;
    let single_test = test.single_view().map_err(|e| err(e.to_string()))?;
    let mut rounds = BTreeMap::new();
    rounds.insert(STYLISTIC.to_string(), rounds_for(config, &train.stylistic, &y, &train_pages, k, seed)?);
    rounds.insert(LEXICAL.to_string(), rounds_for(config, &train.lexical, &y, &train_pages, k, seed)?);
    rounds.insert(SINGLE_VIEW.to_string(), rounds_for(config, &single_train, &y, &train_pages, k, seed)?);
    let s_params = boost_params(config, k, rounds[STYLISTIC])?;
    let l_params = boost_params(config, k, rounds[LEXICAL])?;
    let sv_params = boost_params(config, k, rounds[SINGLE_VIEW])?;
    let ct = CoTrainParams { u: config.cotraining.u, k: config.cotraining.k, rounds: config.cotraining.r, seed };

    let mut predictions: BTreeMap<String, Vec<Vec<usize>>> = BTreeMap::new();
    let mut failure: Option<String> = None;
    let co = cotrain::cotrain(&ct, (&s_params, &l_params), &train, &y, pool, k, |m| {
        let (Ok(s), Ok(l)) = (m.stylistic.predict_with_confidence(&test.stylistic), m.lexical.predict_with_confidence(&test.lexical)) else {
            failure = Some("prediction failed".into());
            return;
        };
        let combined: Vec<usize> = cotrain::combine(&s, &l).into_iter().map(|(c, _, _)| to_report(c)).collect();
        let s: Vec<usize> = s.classes.iter().map(|&c| to_report(c)).collect();
        let l: Vec<usize> = l.classes.iter().map(|&c| to_report(c)).collect();
        progress(&format!("fold {f} round {}: combined error {:.3}", m.round, eval::error_rate(&gold, &combined)));
        predictions.entry(STYLISTIC.into()).or_default().push(s);
        predictions.entry(LEXICAL.into()).or_default().push(l);
        predictions.entry(COMBINED.into()).or_default().push(combined);
    })
    .map_err(|e| err(e.to_string()))?;
    if let Some(e) = failure {
        return Err(err(e));
    }
    let mut self_preds = Vec::new();
    let (_, self_stop) = cotrain::self_train(&ct, &sv_params, &single_train, &y, &single_view_pool(pool).map_err(err)?, k, |_, m| {
        if let Ok(p) = m.predict_classes(&single_test) {
            self_preds.push(p.iter().map(|&c| to_report(c)).collect());
        }
    })
    .map_err(|e| err(e.to_string()))?;
    predictions.insert(SELF_TRAINING.into(), self_preds);
    // The single-view learner without unlabelled data is round 0 of self-training.
    let single = predictions[SELF_TRAINING].first().cloned().unwrap_or_default();
    predictions.insert(SINGLE_VIEW.into(), vec![single]);
    let majority = to_report(eval::majority(&y, k));
    predictions.insert(MAJORITY.into(), vec![vec![majority; gold.len()]]);
    if config.evaluation.samme_stumps > 0 {
        let (xtr, xte) = samme_features(&single_train, &single_test);
        let model =
            boost::baselines::SammeStumps::fit(xtr.view(), ndarray::ArrayView1::from(&y), k, config.evaluation.samme_stumps).map_err(|e| err(e.to_string()))?;
        predictions.insert(SAMME.into(), vec![model.predict(xte.view()).iter().map(|&c| to_report(c)).collect()]);
    }
    let errors = predictions.iter().map(|(name, rounds)| (name.clone(), rounds.iter().map(|p| eval::error_rate(&gold, p)).collect())).collect();
    Ok(FoldResult {
        fold: f,
        test_pages: {
            let mut p: Vec<String> = test_rows.iter().map(|&r| data.pages[data.page_of[r]].0.clone()).collect();
            p.dedup();
            p
        },
        train_blocks: y.len(),
        test_blocks: gold.len(),
        boosting_rounds: rounds,
        stop: co.stop,
        self_training_stop: self_stop,
        added: co.added,
        gold,
        predictions,
        errors,
    })
}

fn single_view_pool(pool: &TwoViews) -> Result<FeatureMatrix, String> {
    pool.single_view().map_err(|e| e.to_string())
}

/// Stems kept for the SAMME baseline, which needs a dense matrix: the most frequent in training.
const SAMME_TOKENS: usize = 300;

/// Dense features for linfa-ensemble's SAMME: every numeric column (NaN as −1) and the
/// [`SAMME_TOKENS`] stems present in most training blocks (as 0/1).
fn samme_features(train: &FeatureMatrix, test: &FeatureMatrix) -> (ndarray::Array2<f64>, ndarray::Array2<f64>) {
    let mut df = vec![0usize; train.n_tokens()];
    for r in 0..train.n_rows() {
        for &c in train.tokens().row(r).0 {
            df[c] += 1;
        }
    }
    let mut top: Vec<usize> = (0..df.len()).filter(|&c| df[c] > 0).collect();
    top.sort_by(|&a, &b| df[b].cmp(&df[a]).then(a.cmp(&b)));
    top.truncate(SAMME_TOKENS);
    let dense = |m: &FeatureMatrix| {
        let numeric = m.numeric();
        ndarray::Array2::from_shape_fn((m.n_rows(), numeric.ncols() + top.len()), |(r, c)| {
            if c < numeric.ncols() {
                let v = numeric[[r, c]];
                if v.is_nan() {
                    -1.0
                } else {
                    v
                }
            } else {
                f64::from(u8::from(m.tokens().contains(r, top[c - numeric.ncols()])))
            }
        })
    };
    (dense(train), dense(test))
}

/// Peak resident memory of this process (VmHWM), in MB, where /proc tells it.
pub fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
