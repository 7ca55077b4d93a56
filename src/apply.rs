//! Applying trained models: a config's learners trained on all its labelled data (through the
//! one training path, [`crate::train::fit`]) and saved in one self-contained, versioned model
//! file; the blocks of new pages classified and their article extracted.
//!
//! Input: an [`ExperimentConfig`] (for [`train`]) or a [`TrainedModel`] and pages. Output: the
//! model file (JSON: format version, parcels version, the config as a record, the label scheme,
//! the divider inventory itself, the IDF table's digest, both views' feature names, the
//! co-trained learners, the single-view learner and the context stage), per-block labels with
//! their confidence and the view that decided, and the article fields of a page.
//!
//! A model file needs nothing else to be used: no config, divider or scheme file is read when it
//! is loaded, so it works from any directory. Loading checks the format version first, then
//! that this parcels builds the same features (names and IDF table) the model was trained on.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use serde::{Deserialize, Serialize};

use crate::boost::AdaBoostMh;
use crate::corpus::{ArticleRoles, LabelScheme, ParallelItems};
use crate::cotrain::{TwoViews, View};
use crate::css::CssWarning;
use crate::dataset::{prepare, view_builder, DataError, Prepared};
use crate::divide::{Divider, DividerConfig, Division};
use crate::experiment::{fold_seed, ExperimentConfig};
use crate::files::write_atomic;
use crate::page::{LoadOptions, Page, PageError};
use crate::progress::{Event, Progress, Stage};
use crate::train::{fit, Fitted, TrainError};
use crate::views::PageMetadata;
use crate::views::ViewBuilder;

/// Version of the model file format; bumped on any incompatible change. Format 3 made models
/// self-contained (divider inventory, IDF digest, feature names).
pub const MODEL_FORMAT: u32 = 3;

/// Why a model could not be trained, read, written or applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    #[error("{path}: cannot read: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: cannot write: {source}")]
    Write { path: String, source: std::io::Error },
    #[error("{path}: not a parcels model: {message}")]
    Parse { path: String, message: String },
    #[error("{path}: model format {found}, this parcels reads format {MODEL_FORMAT}; retrain it with `parcels train`")]
    Format { path: String, found: u32 },
    #[error("{path}: {problem}")]
    Incompatible { path: String, problem: String },
    #[error("the model's scheme {scheme} does not say which labels make an article (its [article] section)")]
    NoArticleRoles { scheme: String },
    #[error(transparent)]
    Data(#[from] DataError),
    #[error(transparent)]
    Train(#[from] TrainError),
    #[error("fold {fold}: {source}")]
    Fold { fold: usize, source: Box<ModelError> },
    #[error("fold {fold} asked for, but the config has {folds} folds (numbered from 0)")]
    NoSuchFold { fold: usize, folds: usize },
    #[error("{path}: {source}")]
    Page { path: PathBuf, source: Box<ModelError> },
    #[error(transparent)]
    Load(#[from] PageError),
    #[error("{path}: {source}")]
    View { path: PathBuf, source: crate::views::ViewError },
}

/// The IDF table a model's lexical learner was trained with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdfDigest {
    pub documents: u64,
    pub stems: usize,
    /// [`crate::lexical::IdfTable::digest`].
    pub sha256: String,
}

/// The feature names of both views, in column order (the lexical stems are the IDF table's and
/// are covered by its digest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureNames {
    pub stylistic: Vec<String>,
    pub lexical: Vec<String>,
    /// Sparse token columns of the lexical view.
    pub lexical_tokens: usize,
    /// Sparse token columns of the stylistic view (none for the built-in groups).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stylistic_tokens: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Which labelled blocks some learners were trained on: how many pages and blocks, and a
/// fingerprint of every block's page and label. A model reused in another run (`--reuse-views`,
/// `--resume`) must have learned from the very blocks that run would train on: a fold's view
/// learners trained before pages were added to the corpus, for one, may have trained on pages
/// that the new folds hold out, and would score them as if unseen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrainingPages {
    pub pages: usize,
    pub blocks: usize,
    /// FNV-1a (64 bits, hex) over each block's corpus, page name and class index, in row order.
    pub fingerprint: String,
}

impl TrainingPages {
    /// The labelled blocks `rows` of `data`.
    pub fn of(data: &crate::dataset::LabelledData, rows: &[usize]) -> TrainingPages {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        };
        let mut pages = std::collections::BTreeSet::new();
        for &r in rows {
            let p = data.page_of[r];
            pages.insert(p);
            eat(data.page_corpora[p].as_bytes());
            eat(&[0]);
            eat(data.pages[p].0.as_bytes());
            eat(&[0]);
            eat(data.targets[r].to_string().as_bytes());
            eat(b"\n");
        }
        TrainingPages { pages: pages.len(), blocks: rows.len(), fingerprint: format!("{hash:016x}") }
    }

    /// `Err` naming both when a model's learners trained on `self` are reused to train on
    /// `wanted`.
    fn check(&self, wanted: &TrainingPages, learners: &str) -> Result<(), String> {
        if self == wanted {
            return Ok(());
        }
        Err(format!(
            "its {learners} were trained on other labelled blocks ({} pages, {} blocks, fingerprint {}) than this run trains on ({} pages, {} blocks, fingerprint {}): were pages labelled or the folds changed since? Train it again",
            self.pages, self.blocks, self.fingerprint, wanted.pages, wanted.blocks, wanted.fingerprint
        ))
    }
}

/// A trained model: the co-trained stylistic and lexical learners, the single-view learner, the
/// context stage, and everything needed to apply them anywhere.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainedModel {
    pub format: u32,
    pub parcels_version: String,
    /// The config it was trained from, as a record (its paths are not read again).
    pub config: ExperimentConfig,
    /// The scheme the learners were trained in: class names in the order of the learners'
    /// class indices, and which labels make an article.
    pub scheme: LabelScheme,
    /// The divider inventory the blocks were made with.
    pub divider: DividerConfig,
    pub idf: IdfDigest,
    pub features: FeatureNames,
    pub stylistic: AdaBoostMh,
    pub lexical: AdaBoostMh,
    pub single_view: AdaBoostMh,
    /// The context stage, when the config asks for one: it gives the final labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<AdaBoostMh>,
    /// Labelled and self-labelled blocks the co-trained learners ended with.
    pub training_blocks: usize,
    /// The labelled blocks the view learners were trained on (`None` in models trained before
    /// 2026-11-29, which are not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub views_trained_on: Option<TrainingPages>,
    /// The labelled blocks the context stage was trained on: the views' blocks, or others when
    /// the stage was trained again beside saved views (`parcels train --reuse-views`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage_trained_on: Option<TrainingPages>,
}

/// Trains the model of a config on all its labelled data, co-trained with its pool. With
/// `views_from`, a model trained from this config but for its `[context]`, only the context
/// stage is trained, beside that model's view learners (as `parcels cross-extract
/// --reuse-views` does per fold).
pub fn train(config: &ExperimentConfig, progress: &dyn Progress, views_from: Option<&Path>) -> Result<TrainedModel, ModelError> {
    let steps = if views_from.is_some() { u64::from(config.context.is_some()) } else { crate::train::fit_steps(config) };
    progress.event(&Event::Planned { steps });
    let prepared = prepare(config, progress)?;
    let all: Vec<usize> = (0..prepared.data.targets.len()).collect();
    match views_from {
        None => train_on(config, &prepared, &all, config.seed, None, progress),
        Some(path) => with_views_from(config, &prepared, &all, path, config.seed, None, progress),
    }
}

/// [`train`], saving the view learners to `views_to` as soon as they are trained, before the
/// context stage trains: a model file without the stage (atomically). The stage is the longest
/// step on a large corpus (an hour and more); if the run is cut in it, `train` with
/// `views_from` = `views_to` trains only the stage, and gives the model this run would have
/// given. Without a stage in the config, `views_to` is the model itself.
pub fn train_saving_views(config: &ExperimentConfig, progress: &dyn Progress, views_to: &Path) -> Result<TrainedModel, ModelError> {
    progress.event(&Event::Planned { steps: crate::train::fit_steps(config) });
    let prepared = prepare(config, progress)?;
    let all: Vec<usize> = (0..prepared.data.targets.len()).collect();
    train_on_saving_views(config, &prepared, &all, config.seed, None, progress, views_to)
}

/// [`train_on`] in two steps, the view learners saved to `views_to` between them (see
/// [`train_saving_views`]): the views trained as with a config without `[context]`, then the
/// stage trained beside them ([`with_stage`], as for saved views), which is the stage [`fit`] trains.
fn train_on_saving_views(
    config: &ExperimentConfig,
    prepared: &Prepared,
    rows: &[usize],
    seed: u64,
    fold: Option<usize>,
    progress: &dyn Progress,
    views_to: &Path,
) -> Result<TrainedModel, ModelError> {
    let views_config = ExperimentConfig { context: None, ..config.clone() };
    let views = train_on(&views_config, prepared, rows, seed, fold, progress)?;
    views.save(views_to)?;
    if config.context.is_none() {
        return Ok(views);
    }
    with_stage(config, prepared, rows, views, seed, fold, progress)
}

/// Trains a model on some labelled blocks (`rows` of the prepared data), co-trained with the
/// whole pool; `seed` orders the pool and the inner folds that choose boosting rounds.
pub fn train_on(
    config: &ExperimentConfig,
    prepared: &Prepared,
    rows: &[usize],
    seed: u64,
    fold: Option<usize>,
    progress: &dyn Progress,
) -> Result<TrainedModel, ModelError> {
    let fitted = fit(config, prepared, rows, seed, fold, progress, |_| {})?;
    Ok(TrainedModel::new(config, prepared, rows, fitted)?)
}

impl TrainedModel {
    /// The model file of learners fitted on the labelled blocks `rows` of `prepared`.
    pub fn new(config: &ExperimentConfig, prepared: &Prepared, rows: &[usize], fitted: Fitted) -> Result<TrainedModel, DataError> {
        let builder = &prepared.builder;
        let trained_on = TrainingPages::of(&prepared.data, rows);
        Ok(TrainedModel {
            format: MODEL_FORMAT,
            parcels_version: env!("CARGO_PKG_VERSION").to_string(),
            config: config.clone(),
            scheme: prepared.scheme.clone(),
            divider: config.divider_config()?,
            idf: idf_digest(builder),
            features: feature_names(builder),
            stylistic: fitted.stylistic,
            lexical: fitted.lexical,
            single_view: fitted.single_view,
            training_blocks: fitted.training_blocks,
            stage_trained_on: fitted.context.is_some().then(|| trained_on.clone()),
            context: fitted.context,
            views_trained_on: Some(trained_on),
        })
    }

    /// The model's learners with their names: the stylistic, lexical and single-view learners,
    /// and the context stage's when the model has one.
    pub fn learners(&self) -> impl Iterator<Item = (&'static str, &AdaBoostMh)> {
        [("stylistic", Some(&self.stylistic)), ("lexical", Some(&self.lexical)), ("single-view", Some(&self.single_view)), ("context", self.context.as_ref())]
            .into_iter()
            .filter_map(|(name, m)| Some((name, m?)))
    }

    /// Writes the model atomically (compact JSON).
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        let json = serde_json::to_string(self).map_err(|e| ModelError::Parse { path: path.display().to_string(), message: e.to_string() })?;
        write_atomic(path, json.as_bytes()).map_err(|source| ModelError::Write { path: path.display().to_string(), source })
    }

    pub fn load(path: &Path) -> Result<TrainedModel, ModelError> {
        let text = crate::files::read_regular_to_string(path).map_err(|source| ModelError::Io { path: path.display().to_string(), source })?;
        TrainedModel::from_json(&text, &path.display().to_string())
    }

    /// Parses a model; `name` only names it in errors. The format version is checked first, so
    /// an old or newer file gets a clear message rather than a field error.
    pub fn from_json(text: &str, name: &str) -> Result<TrainedModel, ModelError> {
        #[derive(Deserialize)]
        struct Head {
            format: u32,
        }
        let head: Head = serde_json::from_str(text).map_err(|e| ModelError::Parse { path: name.to_string(), message: e.to_string() })?;
        if head.format != MODEL_FORMAT {
            return Err(ModelError::Format { path: name.to_string(), found: head.format });
        }
        let model: TrainedModel = serde_json::from_str(text).map_err(|e| ModelError::Parse { path: name.to_string(), message: e.to_string() })?;
        let k = model.scheme.len();
        for (learner, m) in model.learners() {
            // Internal consistency first, so applying the model can never index out of range.
            m.validate().map_err(|e| ModelError::Incompatible { path: name.to_string(), problem: format!("the {learner} learner: {e}") })?;
            if m.n_classes() != k {
                let problem = format!("the {learner} learner has {} classes, the scheme {} has {k}", m.n_classes(), model.scheme.name);
                return Err(ModelError::Incompatible { path: name.to_string(), problem });
            }
        }
        crate::models::validate(&model, name)?;
        Ok(model)
    }
}

/// The digest of the IDF table a view builder weighs stems with.
fn idf_digest(builder: &ViewBuilder) -> IdfDigest {
    IdfDigest { documents: builder.idf().documents(), stems: builder.idf().len(), sha256: builder.idf().digest() }
}

fn feature_names(builder: &ViewBuilder) -> FeatureNames {
    FeatureNames {
        stylistic: builder.stylistic_names().to_vec(),
        lexical: builder.lexical_names().to_vec(),
        lexical_tokens: builder.token_names().len(),
        stylistic_tokens: builder.stylistic_token_names().len(),
    }
}

/// One labelled page extracted by a model that never saw its fold.
#[derive(Debug)]
pub struct HeldOutPage {
    pub fold: usize,
    /// The corpus page.
    pub path: PathBuf,
    /// Its article and blocks, or why it could not be classified.
    pub result: Result<(Article, Vec<ClassifiedBlock>), ModelError>,
}

/// Cross-validated extraction: for each fold of the config's labelled pages (by page or by site,
/// as its `[evaluation]` says), trains a model on the other folds (with the whole pool) through
/// the one training path and extracts the fold's pages with it. So every labelled page is
/// extracted by a model that was not trained on it, nor, with `split = "site"`, on any page of
/// its site. Pages come back in fold order, then in the order of the labelled data; the fold
/// models come with them.
///
/// A labelled budget (`[evaluation] budget_pages`) cuts each fold's training side to that many
/// pages, drawn as `parcels run` draws them ([`crate::experiment::budget_seed`]); the held-out
/// pages are all extracted. Run at several budgets, that is the learning curve of extraction:
/// whether more labelled pages would still pay. The pages the budget leaves over are not used
/// (`left_over = "pool"` is `parcels run`'s; here the pool is always `[pool]`). A list of
/// trainable pages (`[evaluation] train_pages`) keeps each fold's training side to the pages it
/// names, on the folds of the whole corpus: a smaller labelled set measured on the same held-out
/// pages as the larger one, so the two are paired page by page.
///
/// Where the fold models come from and go to is `fold_models`' (see [`FoldModels`]): views
/// taken from an earlier run, each model saved as soon as it is trained, a cut run resumed.
pub fn cross_extract(
    config: &ExperimentConfig,
    progress: &dyn Progress,
    fold_models: &FoldModels,
) -> Result<(Vec<HeldOutPage>, Vec<TrainedModel>), ModelError> {
    let views_from = fold_models.views_from;
    let k = config.evaluation.folds;
    if let Some(&fold) = fold_models.only.and_then(|only| only.iter().find(|&&f| f >= k)) {
        return Err(ModelError::NoSuchFold { fold, folds: k });
    }
    let runs = |f: usize| fold_models.only.is_none_or(|only| only.contains(&f));
    let folds_n = (0..k).filter(|&f| runs(f)).count() as u64;
    let steps_per_fold = if views_from.is_some() { u64::from(config.context.is_some()) } else { crate::train::fit_steps(config) };
    progress.event(&Event::Planned { steps: folds_n * (steps_per_fold + 1) });
    let prepared = prepare(config, progress)?;
    let data = &prepared.data;
    let folds = data.folds(config)?;
    let per_fold: Vec<Result<(Vec<HeldOutPage>, TrainedModel), ModelError>> = folds
        .par_iter()
        .enumerate()
        .filter(|&(f, _)| runs(f))
        .map(|(f, test_rows)| {
            let in_fold = |source: ModelError| ModelError::Fold { fold: f, source: Box::new(source) };
            let side = prepared.trainable_rows(crate::boost::rows_outside(test_rows, data.targets.len()));
            let budget = config.evaluation.budget_pages;
            let (train_rows, _) = crate::experiment::budget_rows(&side, &data.page_of, budget, crate::experiment::budget_seed(config, f));
            let saved = fold_models.save_to.map(|dir| dir.join(fold_file(f)));
            // Where the fold's view learners go before its context stage trains, when the run
            // trains them.
            let views_to = fold_models.save_to.filter(|_| views_from.is_none() && config.context.is_some()).map(|dir| dir.join(fold_views_file(f)));
            let resumed = match &saved {
                Some(path) if fold_models.resume && path.exists() => Some(load_compatible(path, config, &prepared, false, Some(&train_rows)).map_err(in_fold)?),
                _ => None,
            };
            let model = match resumed {
                Some(model) => {
                    // Its training steps are done: the progress bar counts them.
                    (0..steps_per_fold).for_each(|_| progress.event(&Event::Step));
                    model
                }
                None => {
                    let seed = fold_seed(config, f);
                    let model = match (views_from, &views_to) {
                        (Some(dir), _) => with_views_from(config, &prepared, &train_rows, &dir.join(fold_file(f)), seed, Some(f), progress),
                        // Cut in the stage: the views are there, only the stage is trained.
                        (None, Some(views)) if fold_models.resume && views.exists() => {
                            (1..steps_per_fold).for_each(|_| progress.event(&Event::Step));
                            with_views_from(config, &prepared, &train_rows, views, seed, Some(f), progress)
                        }
                        (None, Some(views)) => train_on_saving_views(config, &prepared, &train_rows, seed, Some(f), progress, views),
                        (None, None) => train_on(config, &prepared, &train_rows, seed, Some(f), progress),
                    }
                    .map_err(in_fold)?;
                    if let Some(path) = &saved {
                        model.save(path).map_err(in_fold)?;
                    }
                    model
                }
            };
            let classifier = Classifier::new(model.clone()).map_err(in_fold)?;
            let mut pages: Vec<usize> = test_rows.iter().map(|&r| data.page_of[r]).collect();
            pages.dedup();
            progress.event(&Event::Stage { fold: Some(f), stage: Stage::Extracting { pages: pages.len() } });
            let held_out = pages
                .into_iter()
                .map(|p| {
                    let path = data.page_paths[p].clone();
                    let result = Page::load(&path, &LoadOptions::default())
                        .map_err(ModelError::from)
                        .and_then(|page| classifier.extract(&page))
                        .map(|e| (e.article, e.blocks));
                    HeldOutPage { fold: f, path, result }
                })
                .collect();
            progress.event(&Event::Step);
            Ok((held_out, model))
        })
        .collect();
    let (mut pages, mut models) = (Vec::new(), Vec::new());
    for fold in per_fold {
        let (p, m) = fold?;
        pages.extend(p);
        models.push(m);
    }
    Ok((pages, models))
}

/// Where a cross-validation's fold models come from and go to (`parcels cross-extract`'s
/// `--reuse-views`, `--save-models` and `--resume`). The default trains every fold and keeps
/// its model in memory only.
#[derive(Debug, Clone, Copy, Default)]
pub struct FoldModels<'a> {
    /// A directory of fold models a run of this config saved (`fold-N.json`): each fold's
    /// stylistic, lexical and single-view learners are taken from there and only the context
    /// stage is trained ([`crate::train::refit_context`]), so a change to `[context]` costs the
    /// stage's training, not the co-training's. They must come from the same config but for
    /// `[context]` (checked); with the same `[context]` too, the run reproduces theirs.
    pub views_from: Option<&'a Path>,
    /// Save each fold's model here as `fold-N.json` as soon as it is trained (atomically), so
    /// that a run cut short keeps the folds it finished; with a context stage, also the fold's
    /// view learners as `fold-N.views.json` before the stage trains ([`fold_views_file`]).
    pub save_to: Option<&'a Path>,
    /// With `save_to`: a fold whose model is already there is loaded instead of trained, after
    /// checking it was trained with this very config on the blocks and features this parcels
    /// makes (else an error names the file); a fold with only its view learners there trains
    /// only its context stage beside them (checked likewise). Training is deterministic, so a
    /// resumed run gives the records an uncut one gives.
    pub resume: bool,
    /// Run only these folds (numbered from 0): the others are neither trained nor extracted, so
    /// two runs can be compared on part of the folds, or one run spread over sessions. The folds
    /// themselves are those of the whole run, and the models returned are those of these folds,
    /// in fold order.
    pub only: Option<&'a [usize]>,
}

/// The name of fold `f`'s model in a `--save-models` directory.
pub fn fold_file(f: usize) -> String {
    format!("fold-{f}.json")
}

/// The name of fold `f`'s view learners in a `--save-models` directory: saved as soon as they
/// are trained, before the fold's context stage trains (a model file without the stage), so
/// that `--resume` after a run cut in the stage trains only the stage.
pub fn fold_views_file(f: usize) -> String {
    format!("fold-{f}.views.json")
}

/// A saved model that was trained with `config` (but for its `[context]` when `any_context`) on
/// the blocks and features `prepared` makes, and, when `rows` are given, its learners on those
/// labelled blocks (the stage is not checked with `any_context`: it is about to be trained
/// again); else an error naming the file and what differs.
fn load_compatible(path: &Path, config: &ExperimentConfig, prepared: &Prepared, any_context: bool, rows: Option<&[usize]>) -> Result<TrainedModel, ModelError> {
    let name = path.display().to_string();
    let saved = TrainedModel::load(path)?;
    let incompatible = |problem: &str| ModelError::Incompatible { path: name.clone(), problem: problem.to_string() };
    let comparable = |c: &ExperimentConfig| ExperimentConfig { context: if any_context { None } else { c.context }, base: PathBuf::new(), ..c.clone() };
    if comparable(&saved.config) != comparable(config) {
        return Err(incompatible(if any_context {
            "was trained with another config than this one (they may differ only in [context])"
        } else {
            "was trained with another config than this one (remove it, or run without --resume)"
        }));
    }
    let builder = &prepared.builder;
    if saved.divider != config.divider_config().map_err(DataError::from)? || saved.idf != idf_digest(builder) || saved.features != feature_names(builder) {
        return Err(incompatible("was trained on other blocks or features than this parcels makes (divider, IDF table or feature names differ)"));
    }
    if let Some(rows) = rows {
        let wanted = TrainingPages::of(&prepared.data, rows);
        let learners = [(&saved.views_trained_on, "view learners"), (if any_context { &None } else { &saved.stage_trained_on }, "context stage")];
        for (trained_on, name) in learners {
            if let Some(trained_on) = trained_on {
                trained_on.check(&wanted, name).map_err(|problem| incompatible(&problem))?;
            }
        }
    }
    Ok(saved)
}

/// A model with the view learners of a saved model (`path`) and the context stage trained anew
/// on `rows` with `config`'s `[context]` (`seed`: the one the saved model was trained with;
/// `fold`: the cross-validation fold whose model it is, if any). The saved model must have been
/// trained with `config` but for its `[context]` (and on this parcels' features), or it is
/// refused, naming the file and what differs. A fold's saved views (`fold` given) must also
/// have been trained on `rows`, or they could have seen the pages the fold holds out; the views
/// of a whole-corpus model may lag behind it (pages labelled since), since the stage learns from
/// views cross-fitted on `rows` afresh, not from the saved ones: `stage_trained_on` then says
/// what the stage saw.
fn with_views_from(
    config: &ExperimentConfig,
    prepared: &Prepared,
    rows: &[usize],
    path: &Path,
    seed: u64,
    fold: Option<usize>,
    progress: &dyn Progress,
) -> Result<TrainedModel, ModelError> {
    let saved = load_compatible(path, config, prepared, true, fold.map(|_| rows))?;
    with_stage(config, prepared, rows, saved, seed, fold, progress)
}

/// `views` (a model's view learners) with `config` and the context stage of `config` trained
/// anew beside them on `rows` ([`crate::train::refit_context`]).
fn with_stage(
    config: &ExperimentConfig,
    prepared: &Prepared,
    rows: &[usize],
    views: TrainedModel,
    seed: u64,
    fold: Option<usize>,
    progress: &dyn Progress,
) -> Result<TrainedModel, ModelError> {
    let mut model = TrainedModel { config: config.clone(), ..views };
    model.context = crate::train::refit_context(config, prepared, rows, (&model.stylistic, &model.lexical), seed, fold, progress)?;
    model.stage_trained_on = model.context.is_some().then(|| TrainingPages::of(&prepared.data, rows));
    Ok(model)
}

/// A model ready to apply: the trained learners with their divider and view builder.
pub struct Classifier {
    model: TrainedModel,
    divider: Divider,
    builder: ViewBuilder,
    classes: Vec<String>,
}

/// What one view said of a block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViewLabel {
    pub label: String,
    /// The view's calibrated confidence, in [1/k, 1].
    pub confidence: f64,
}

/// Both views' labels of a block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViewLabels {
    pub stylistic: ViewLabel,
    pub lexical: ViewLabel,
}

/// One classified block.
#[derive(Debug, Clone, Serialize)]
pub struct ClassifiedBlock {
    pub id: usize,
    pub locator: String,
    pub label: String,
    /// The deciding learner's calibrated confidence, in [1/k, 1].
    pub confidence: f64,
    /// The view whose label the block took: the more confident view's (paper section 6); with a
    /// context stage, the view whose label it followed (the more confident if both), or
    /// `context` when it followed neither.
    pub view: View,
    /// What each view said on its own.
    pub views: ViewLabels,
    pub text: String,
}

impl Classifier {
    /// Prepares a model for use: its own divider inventory and the shipped IDF table, checked
    /// against what the model was trained with.
    pub fn new(model: TrainedModel) -> Result<Classifier, ModelError> {
        let incompatible = |problem: String| ModelError::Incompatible { path: "the model".into(), problem };
        let divider = Divider::new(model.divider.clone());
        let builder = view_builder(&model.config)?;
        let idf = builder.idf();
        if idf.documents() != model.idf.documents || idf.len() != model.idf.stems || idf.digest() != model.idf.sha256 {
            return Err(incompatible(format!(
                "trained with an IDF table of {} documents and {} stems (SHA-256 {}); this parcels ships {} and {} ({})",
                model.idf.documents,
                model.idf.stems,
                model.idf.sha256,
                idf.documents(),
                idf.len(),
                idf.digest()
            )));
        }
        let here = feature_names(&builder);
        if here != model.features {
            return Err(incompatible(format!(
                "its features differ from the ones this parcels builds for its view config (stylistic {} vs {}, lexical {} vs {})",
                model.features.stylistic.len(),
                here.stylistic.len(),
                model.features.lexical.len(),
                here.lexical.len()
            )));
        }
        let classes = model.scheme.names().map(str::to_string).collect();
        Ok(Classifier { model, divider, builder, classes })
    }

    pub fn model(&self) -> &TrainedModel {
        &self.model
    }

    /// Divides a page and labels every block.
    pub fn classify(&self, page: &Page) -> Result<Classified, ModelError> {
        let (classified, _) = self.classify_with_probabilities(page)?;
        Ok(classified)
    }

    /// [`Classifier::classify`], and per block (rows, in block order) the class probabilities of
    /// the learner that decided it (columns in the order of the model's labels): what a decision
    /// rule other than the most probable label, or a calibration, starts from.
    pub fn classify_with_probabilities(&self, page: &Page) -> Result<(Classified, ndarray::Array2<f64>), ModelError> {
        let in_page = |source: ModelError| ModelError::Page { path: page.path.clone(), source: Box::new(source) };
        let division = self.divider.divide(page);
        if division.blocks.is_empty() {
            let nothing = Classified { division, blocks: Vec::new(), warnings: Vec::new() };
            return Ok((nothing, ndarray::Array2::zeros((0, self.model.scheme.len()))));
        }
        let views = self.builder.build(page, &division).map_err(|source| ModelError::View { path: page.path.clone(), source })?;
        let warnings = views.warnings;
        let views = TwoViews { stylistic: views.stylistic, lexical: views.lexical };
        let m = &self.model;
        let containers: Option<Vec<&str>> = m.config.context_structure().then(|| division.blocks.iter().map(|b| b.container.as_str()).collect());
        let d = crate::train::decide(
            &m.stylistic,
            &m.lexical,
            m.context.as_ref(),
            m.config.context_arbitration(),
            &views,
            &vec![0; views.n_rows()],
            m.config.context_inputs(containers.as_deref()),
            &self.classes,
        )
        .map_err(|e| in_page(e.into()))?;
        let name = |c: usize| self.model.scheme.labels.get(c).map(|l| l.name.clone()).unwrap_or_default();
        let blocks = d
            .decided
            .iter()
            .zip(&division.blocks)
            .enumerate()
            .map(|(i, (&(class, confidence, view), b))| ClassifiedBlock {
                id: b.id,
                locator: b.locator.clone(),
                label: name(class),
                confidence,
                view,
                views: ViewLabels {
                    stylistic: ViewLabel { label: name(d.stylistic.classes[i]), confidence: d.stylistic.confidences[i] },
                    lexical: ViewLabel { label: name(d.lexical.classes[i]), confidence: d.lexical.confidences[i] },
                },
                text: b.text.clone(),
            })
            .collect();
        Ok((Classified { division, blocks, warnings }, d.probabilities))
    }

    /// Classifies a page's blocks and assembles its article from them; the reporter and date
    /// come from what the page declares (JSON-LD, `<meta>`) first, the location and source from
    /// the dateline that opens the main text ([`crate::fields`]).
    pub fn extract(&self, page: &Page) -> Result<Extracted, ModelError> {
        let roles = self.model.scheme.article.as_ref().ok_or_else(|| ModelError::NoArticleRoles { scheme: self.model.scheme.name.clone() })?;
        let (Classified { blocks, warnings, .. }, p) = self.classify_with_probabilities(page)?;
        let scheme = &self.model.scheme;
        let title = match roles.title.as_ref().and_then(|t| scheme.index(t)) {
            Some(c) => p.column(c).to_vec(),
            None => vec![0.0; blocks.len()],
        };
        let body: Vec<usize> = roles.main_text.iter().filter_map(|l| scheme.index(l)).collect();
        let main_text = p.rows().into_iter().map(|row| body.iter().map(|&c| row[c]).sum()).collect();
        let likelihoods = ArticleLikelihoods { title, main_text };
        let mut a = article(&blocks, roles, Some(&likelihoods));
        let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
        let meta = PageMetadata::read(&page.html);
        let marked = crate::fields::Marked::read(&page.html);
        a.title = crate::fields::title(&meta, &marked, &texts, a.title.take());
        crate::fields::fill(&meta, &marked, &texts, a.title.as_deref(), &mut a.reporter, &mut a.date);
        crate::fields::fill_source_and_location(&a.main_text, &texts, a.title.as_deref(), &mut a.location, &mut a.source);
        Ok(Extracted { article: a, blocks, warnings })
    }
}

/// A page's division and its classified blocks, in block order.
#[derive(Debug, Clone)]
pub struct Classified {
    pub division: Division,
    pub blocks: Vec<ClassifiedBlock>,
    /// What the CSS stage left out of the stylistic view (a missing or unreadable sheet, a
    /// limit reached), for the caller to report: the labels were made without it.
    pub warnings: Vec<CssWarning>,
}

/// A page's article, the classified blocks it was assembled from, and the CSS stage's warnings
/// (see [`Classified::warnings`]).
#[derive(Debug, Clone)]
pub struct Extracted {
    pub article: Article,
    pub blocks: Vec<ClassifiedBlock>,
    pub warnings: Vec<CssWarning>,
}

/// The article of a page, from its classified blocks.
#[derive(Debug, Clone, Serialize)]
pub struct Article {
    pub title: Option<String>,
    /// Text of the `main-content`, `subheader` and `content-link` blocks in document order, one
    /// block per line.
    pub main_text: String,
    pub date: Option<String>,
    pub reporter: Option<String>,
    pub source: Option<String>,
    pub location: Option<String>,
    pub subheaders: Vec<String>,
}

/// Per block, how likely it is to be the article's title and part of its main text (the sum of
/// the main-text labels' probabilities), from the learner that decided the block.
#[derive(Debug, Clone, Default)]
pub struct ArticleLikelihoods {
    pub title: Vec<f64>,
    pub main_text: Vec<f64>,
}

/// Assembles the article fields from classified blocks, as the scheme's roles say: the main
/// text in document order; for single-valued fields the most confident block of that label.
///
/// `likelihoods`, when given, use the decider's class probabilities, because an article has one
/// title and a body, which the per-block argmax does not know:
/// - the title is the block most likely to be the title, whatever its own label (a class with
///   one block in a hundred seldom wins a block's argmax: with the L3S-GN1 model, 282 of the 496
///   development pages had no block labelled `headline`);
/// - when no block is labelled as main text, the body is made of the blocks at least half as
///   likely to be main text as the likeliest one (with the L3S-GN1 model 161 of 1,381 Dragnet
///   pages came out with no main text otherwise).
pub fn article(blocks: &[ClassifiedBlock], roles: &ArticleRoles, likelihoods: Option<&ArticleLikelihoods>) -> Article {
    let best = |label: &Option<String>| {
        let label = label.as_deref()?;
        blocks
            .iter()
            .filter(|b| b.label == label && !b.text.is_empty())
            .max_by(|a, b| a.confidence.total_cmp(&b.confidence).then(b.id.cmp(&a.id)))
            .map(|b| b.text.clone())
    };
    let mut in_body: Vec<bool> = blocks.iter().map(|b| roles.main_text.contains(&b.label)).collect();
    if let (Some(rule), true) = (roles.parallel_items, in_body.contains(&true)) {
        join_parallel_items(blocks, &mut in_body, rule);
    }
    let mut main_text =
        blocks.iter().zip(&in_body).filter(|(b, &body)| body && !b.text.is_empty()).map(|(b, _)| b.text.as_str()).collect::<Vec<_>>().join("\n");
    if let (true, Some(l)) = (main_text.is_empty(), likelihoods) {
        let with_text = || blocks.iter().zip(&l.main_text).filter(|(b, _)| !b.text.trim().is_empty());
        let top = with_text().map(|(_, &p)| p).fold(0.0, f64::max);
        main_text = with_text().filter(|(_, &p)| top > 0.0 && p >= top / 2.0).map(|(b, _)| b.text.as_str()).collect::<Vec<_>>().join("\n");
    }
    let subheaders = match &roles.subheader {
        Some(s) => blocks.iter().filter(|b| &b.label == s && !b.text.is_empty()).map(|b| b.text.clone()).collect(),
        None => Vec::new(),
    };
    let title = match likelihoods {
        Some(l) => blocks
            .iter()
            .zip(&l.title)
            .filter(|(b, _)| !b.text.trim().is_empty())
            .max_by(|(a, pa), (b, pb)| pa.total_cmp(pb).then(b.id.cmp(&a.id)))
            .map(|(b, _)| b.text.clone()),
        None => best(&roles.title),
    };
    Article {
        title,
        main_text,
        date: best(&roles.date),
        reporter: best(&roles.reporter),
        source: best(&roles.source),
        location: best(&roles.location),
        subheaders,
    }
}

/// Takes runs of parallel items into the body whole ([`ParallelItems`]): `in_body` says, per
/// block, whether its label is a body label, and gets the blocks of every run whose body blocks
/// hold at least `min_share` of its words.
fn join_parallel_items(blocks: &[ClassifiedBlock], in_body: &mut [bool], rule: ParallelItems) {
    // FNV-1a over bytes, and one step of mixing hashes into a running one.
    fn fnv(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    }
    fn mix(h: u64, v: u64) -> u64 {
        (h ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
    }
    // Per block, the key of its run at each step of its element path (`/html[1]/body[1]/div[3]`):
    // the path's tags and every index but that step's. Prefix and suffix hashes make a block's
    // keys linear in its depth.
    let mut keys: Vec<Vec<u64>> = Vec::with_capacity(blocks.len());
    let mut entries: Vec<(u64, u32)> = Vec::new();
    let (mut steps, mut prefix, mut suffix): (Vec<(u64, u64)>, Vec<u64>, Vec<u64>) = Default::default();
    for (b, block) in blocks.iter().enumerate() {
        steps.clear();
        steps.extend(block.locator.split('/').filter(|s| !s.is_empty()).map(|s| {
            let (tag, index) = s.split_once('[').unwrap_or((s, ""));
            (fnv(tag.as_bytes()), fnv(index.as_bytes()))
        }));
        let d = steps.len();
        prefix.clear();
        prefix.resize(d + 1, 0);
        for j in 0..d {
            prefix[j + 1] = mix(mix(prefix[j], steps[j].0), steps[j].1);
        }
        suffix.clear();
        suffix.resize(d + 1, 0);
        for j in (0..d).rev() {
            suffix[j] = mix(mix(suffix[j + 1], steps[j].0), steps[j].1);
        }
        let block_keys: Vec<u64> = (0..d).map(|i| mix(mix(mix(mix(prefix[i], steps[i].0), suffix[i + 1]), d as u64), i as u64)).collect();
        entries.extend(block_keys.iter().map(|&k| (k, b as u32)));
        keys.push(block_keys);
    }
    entries.sort_unstable();
    let run = |key: u64| {
        let start = entries.partition_point(|e| e.0 < key);
        let end = entries.partition_point(|e| e.0 <= key);
        &entries[start..end]
    };
    let words: Vec<usize> = blocks.iter().map(|b| crate::divide::count_words(&b.text).max(1)).collect();
    let labelled = in_body.to_vec();
    let mut decided = std::collections::HashSet::new();
    for block_keys in &keys {
        // The deepest step at which the block has enough parallel items.
        let Some(&key) = block_keys.iter().rev().find(|&&k| run(k).len() >= rule.min_items) else { continue };
        if !decided.insert(key) {
            continue;
        }
        let members = run(key);
        let total: usize = members.iter().map(|&(_, b)| words[b as usize]).sum();
        let body: usize = members.iter().filter(|&&(_, b)| labelled[b as usize]).map(|&(_, b)| words[b as usize]).sum();
        if body as f64 >= rule.min_share * total as f64 {
            for &(_, b) in members {
                in_body[b as usize] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(id: usize, label: &str, confidence: f64, text: &str) -> ClassifiedBlock {
        let said = ViewLabel { label: label.into(), confidence };
        ClassifiedBlock {
            id,
            locator: String::new(),
            label: label.into(),
            confidence,
            view: View::Lexical,
            views: ViewLabels { stylistic: said.clone(), lexical: said },
            text: text.into(),
        }
    }

    #[test]
    fn a_run_of_parallel_items_joins_the_body_once_most_of_its_words_are_body() {
        let at = |id: usize, label: &str, locator: &str, text: &str| ClassifiedBlock { locator: locator.into(), ..block(id, label, 0.8, text) };
        let blocks = [
            at(0, "not-content", "/html[1]/body[1]/nav[1]/a[1]", "Home"),
            // Three cards; the middle one's description was called boilerplate.
            at(1, "full-text", "/html[1]/body[1]/main[1]/div[1]/p[1]", "one two three four five six"),
            at(2, "not-content", "/html[1]/body[1]/main[1]/div[2]/p[1]", "seven eight nine ten"),
            at(3, "full-text", "/html[1]/body[1]/main[1]/div[3]/p[1]", "eleven twelve"),
            // A footer menu with one item called body: 1 word of 4.
            at(4, "full-text", "/html[1]/body[1]/footer[1]/ul[1]/li[1]", "About"),
            at(5, "not-content", "/html[1]/body[1]/footer[1]/ul[1]/li[2]", "Contact us"),
            at(6, "not-content", "/html[1]/body[1]/footer[1]/ul[1]/li[3]", "Jobs"),
        ];
        let mut roles = ArticleRoles { main_text: vec!["full-text".into()], ..ArticleRoles::default() };
        let each = article(&blocks, &roles, None).main_text;
        assert_eq!(each, "one two three four five six\neleven twelve\nAbout");
        roles.parallel_items = Some(ParallelItems { min_items: 3, min_share: 0.5 });
        let runs = article(&blocks, &roles, None).main_text;
        assert_eq!(runs, "one two three four five six\nseven eight nine ten\neleven twelve\nAbout");
        // Two cards are no run at min_items 3; at 2 the cards' run is still the three.
        let two = [blocks[1].clone(), blocks[2].clone()];
        assert_eq!(article(&two, &roles, None).main_text, "one two three four five six");
        roles.parallel_items = Some(ParallelItems { min_items: 2, min_share: 0.5 });
        assert_eq!(article(&two, &roles, None).main_text, "one two three four five six\nseven eight nine ten");
        // Nothing labelled body: the rule adds nothing, the likelihood fallback decides.
        let none = [at(0, "not-content", "/a[1]", "x"), at(1, "not-content", "/a[2]", "y"), at(2, "not-content", "/a[3]", "z")];
        assert_eq!(article(&none, &roles, None).main_text, "");
    }

    #[test]
    fn article_fields_come_from_the_labelled_blocks() {
        let blocks = [
            block(0, "site-nav", 0.9, "Home News"),
            block(1, "title", 0.6, "Storm closes harbour"),
            block(2, "title", 0.4, "Weather"),
            block(3, "date", 0.7, "March 3, 2008"),
            block(4, "main-content", 0.8, "Gale-force winds kept the harbour closed."),
            block(5, "subheader", 0.5, "Ferries"),
            block(6, "content-link", 0.5, "Read the full report"),
            block(7, "main-content", 0.8, ""),
            block(8, "site-content", 0.9, "Copyright"),
        ];
        let roles = LabelScheme::built_in("parcels-17").unwrap().article.unwrap();
        let a = article(&blocks, &roles, None);
        assert_eq!(a.title.as_deref(), Some("Storm closes harbour"));
        assert_eq!(a.main_text, "Gale-force winds kept the harbour closed.\nFerries\nRead the full report");
        assert_eq!(a.date.as_deref(), Some("March 3, 2008"));
        assert_eq!((a.reporter, a.subheaders), (None, vec!["Ferries".to_string()]));
    }

    #[test]
    fn the_title_is_the_block_most_likely_to_be_one() {
        let blocks =
            [block(0, "site-nav", 0.9, "Home"), block(1, "main-content", 0.5, "Storm closes harbour"), block(2, "main-content", 0.8, "Gale-force winds.")];
        let roles = LabelScheme::built_in("parcels-17").unwrap().article.unwrap();
        assert_eq!(article(&blocks, &roles, None).title, None, "no block is labelled title");
        let likely = ArticleLikelihoods { title: vec![0.1, 0.45, 0.05], main_text: vec![0.05, 0.2, 0.3] };
        let a = article(&blocks, &roles, Some(&likely));
        assert_eq!(a.title.as_deref(), Some("Storm closes harbour"));
        // No block is labelled main text: the blocks at least half as likely as the best make it.
        assert_eq!(a.main_text, "Storm closes harbour\nGale-force winds.");
        let labelled = [block(0, "site-nav", 0.9, "Home"), block(1, "main-content", 0.5, "Body.")];
        let likely = ArticleLikelihoods { title: vec![0.1, 0.2], main_text: vec![0.4, 0.6] };
        assert_eq!(article(&labelled, &roles, Some(&likely)).main_text, "Body.", "labels win when there are some");
    }

    #[test]
    fn model_files_check_their_format() {
        let err = TrainedModel::from_json("{\"format\": 99}", "m.json").unwrap_err();
        assert!(err.to_string().contains("m.json: model format 99"), "{err}");
        let err = TrainedModel::from_json("not json", "m.json").unwrap_err();
        assert!(err.to_string().starts_with("m.json: not a parcels model"), "{err}");
    }

    #[test]
    fn a_model_that_parses_but_is_inconsistent_is_refused_at_load() {
        let text = include_str!("../corpora/models/parcels-17.json");
        assert!(TrainedModel::from_json(text, "p17.json").is_ok());
        // One label fewer in the scheme than the learners' classes.
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["scheme"]["labels"].as_array_mut().unwrap().pop();
        let err = TrainedModel::from_json(&v.to_string(), "p17.json").unwrap_err().to_string();
        assert!(err.starts_with("p17.json: ") && err.contains("17 classes, the scheme parcels-17 has 16"), "{err}");
        // A stump of the lexical learner pointing past the last column.
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["lexical"]["stumps"][0]["test"]["AtMost"]["column"] = serde_json::Value::from(9_999_999);
        let err = TrainedModel::from_json(&v.to_string(), "p17.json").unwrap_err().to_string();
        assert!(err.starts_with("p17.json: the lexical learner: "), "{err}");
    }
}
