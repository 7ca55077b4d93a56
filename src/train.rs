//! The one training path: what a config's learners become when trained on some labelled blocks.
//! `parcels experiment` evaluates what [`fit`] returns on each fold, `parcels train` saves what it
//! returns on all labelled blocks, and `parcels cross-extract` extracts each fold's held-out pages
//! with it, so the model that ships is the model that was measured.
//!
//! Input: a config, its [`Prepared`] data, the labelled rows to learn from and a seed. Output:
//! [`Fitted`]: the stylistic and lexical learners co-trained with the pool (paper section 6), the
//! single-view learner on both views' features (the paper's comparison point), and the context
//! stage when the config has one ([`crate::context`]). [`decide`] then labels blocks with them:
//! the more confident view's label (paper section 6), or the context stage's.
//!
//! Boosting rounds are a number or chosen per learner by cross-validation on the training
//! pages (`rounds = "cv"`, inner folds by page seeded by `seed`).

use std::collections::BTreeMap;

use linfa::ParamGuard;
use ndarray::Array2;
use rayon::prelude::*;

use crate::boost::{self, to_probabilities, AdaBoostMh, AdaBoostMhParams, AdaBoostMhValidParams, BoostError, BoostPredictions};
use crate::config::{ExperimentConfig, Rounds};
use crate::context::{Arbitration, ContextError, ContextInputs};
use crate::cotrain::{self, CoTrainError, CoTrainParams, RoundModels, Stop, TwoViews, View};
use crate::dataset::{PoolBlocks, Prepared};
use crate::matrix::{FeatureMatrix, MatrixError};
use crate::progress::{Event, Progress, Stage};

/// Learner names in results, curves and reports.
pub const STYLISTIC: &str = "stylistic";
pub const LEXICAL: &str = "lexical";
pub const COMBINED: &str = "combined";
pub const CONTEXT: &str = "context";
pub const SINGLE_VIEW: &str = "single-view";

/// Why learners could not be trained or applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrainError {
    #[error(transparent)]
    Boost(#[from] BoostError),
    #[error(transparent)]
    CoTrain(#[from] CoTrainError),
    #[error(transparent)]
    Context(#[from] ContextError),
    #[error(transparent)]
    Matrix(#[from] MatrixError),
    #[error("unknown co-training selection rule {0:?}")]
    Selection(String),
    #[error("{baseline}: {message}")]
    Baseline { baseline: String, message: String },
}

/// The learners of a config trained on some labelled blocks.
#[derive(Debug, Clone)]
pub struct Fitted {
    /// The co-trained stylistic and lexical learners after the last round.
    pub stylistic: AdaBoostMh,
    pub lexical: AdaBoostMh,
    /// Both views' features, labelled blocks only.
    pub single_view: AdaBoostMh,
    /// The context stage, when the config has one.
    pub context: Option<AdaBoostMh>,
    /// Boosting rounds used per learner (`stylistic`, `lexical`, `single-view`).
    pub boosting_rounds: BTreeMap<String, usize>,
    pub stop: Stop,
    /// Self-labelled blocks added per co-training round.
    pub added: Vec<usize>,
    /// Labelled and self-labelled blocks the co-trained learners ended with.
    pub training_blocks: usize,
}

/// Validated boosting parameters for `rounds` rounds, with the config's `max_bins`, `depth`
/// and class weights from `class_balance` over the labelled blocks' classes `targets`.
pub fn boost_params(config: &ExperimentConfig, targets: &[usize], n_classes: usize, rounds: usize) -> Result<AdaBoostMhValidParams, TrainError> {
    let mut p = AdaBoostMhParams::new().n_rounds(rounds).n_classes(Some(n_classes)).depth(config.boosting.depth);
    p = p.class_weights(class_weights(config.boosting.class_balance, targets, n_classes));
    // At 1 the learner's own ε = 1/(m·k) stands, so models trained before the setting keep
    // their saved parameters.
    if config.boosting.smoothing != 1.0 && !targets.is_empty() {
        p = p.smoothing(Some(config.boosting.smoothing / (targets.len() * n_classes) as f64));
    }
    if let Some(bins) = config.boosting.max_bins {
        p = p.max_bins(Some(bins));
    }
    Ok(p.check()?)
}

/// Per-class initial weights (n / (k·n_c))^`balance` over the classes present in `targets`
/// (1 for a class absent from them); `None` for `balance` = 0 or no targets.
pub fn class_weights(balance: f64, targets: &[usize], n_classes: usize) -> Option<Vec<f64>> {
    if balance == 0.0 || targets.is_empty() {
        return None;
    }
    let mut counts = vec![0usize; n_classes];
    for &t in targets {
        if let Some(c) = counts.get_mut(t) {
            *c += 1;
        }
    }
    let present = counts.iter().filter(|&&c| c > 0).count().max(1) as f64;
    let n = targets.len() as f64;
    Some(counts.iter().map(|&c| if c == 0 { 1.0 } else { (n / (present * c as f64)).powf(balance) }).collect())
}

/// The boosting rounds for one learner on some training data (`pages`: the page of each row,
/// which the inner cross-validation folds keep whole).
pub fn rounds_for(config: &ExperimentConfig, x: &FeatureMatrix, y: &[usize], pages: &[usize], k: usize, seed: u64) -> Result<usize, TrainError> {
    match &config.boosting.rounds {
        Rounds::Fixed(n) => Ok(*n),
        Rounds::Chosen(_) => {
            let inner = boost::folds_by_group(pages, config.boosting.cv_folds, seed);
            let params = boost_params(config, y, k, config.boosting.max_rounds)?;
            let choice = boost::choose_rounds_by_cv(&params, x, y, &inner, config.boosting.max_rounds)?;
            Ok(choice.n_rounds.max(1))
        }
    }
}

/// The co-training parameters of a config with a seed.
pub fn cotrain_params(config: &ExperimentConfig, seed: u64) -> CoTrainParams {
    CoTrainParams { u: config.cotraining.u, k: config.cotraining.k, rounds: config.cotraining.r, seed }
}

/// Trains a config's learners on some labelled blocks (`rows` of the prepared data), co-trained
/// with the whole pool; `seed` orders the pool and the inner folds that choose boosting rounds.
/// `observe` sees the co-trained learners after round 0 and after every round; `fold` only
/// labels the progress events.
pub fn fit(
    config: &ExperimentConfig,
    prepared: &Prepared,
    rows: &[usize],
    seed: u64,
    fold: Option<usize>,
    progress: &dyn Progress,
    observe: impl FnMut(&RoundModels),
) -> Result<Fitted, TrainError> {
    fit_with_pool(config, prepared, rows, (&prepared.pool, &prepared.pool_blocks), seed, fold, progress, observe)
}

/// [`fit`] with another unlabelled pool than the config's (an experiment's fold whose budget
/// leaves labelled pages over for the pool, `evaluation.left_over = "pool"`).
#[allow(clippy::too_many_arguments)]
pub fn fit_with_pool(
    config: &ExperimentConfig,
    prepared: &Prepared,
    rows: &[usize],
    pool: (&TwoViews, &PoolBlocks),
    seed: u64,
    fold: Option<usize>,
    progress: &dyn Progress,
    mut observe: impl FnMut(&RoundModels),
) -> Result<Fitted, TrainError> {
    let Prepared { scheme, data, .. } = prepared;
    let k = scheme.len();
    let views = data.views.select_rows(rows)?;
    let targets: Vec<usize> = rows.iter().map(|&r| data.targets[r]).collect();
    let pages: Vec<usize> = rows.iter().map(|&r| data.page_of[r]).collect();
    let (pool, pool_blocks) = pool;
    let weights = labelled_weights(config, prepared, rows);
    let (exponent, balance) = (config.boosting.word_weight, config.boosting.corpus_balance);
    let pool_weights =
        (exponent > 0.0 || balance > 0.0).then(|| word_weights((0..pool.n_rows()).map(|r| pool_blocks.blocks.get(r).map_or(0, |b| b.words)), exponent));
    let block_weights = weights.as_deref().zip(pool_weights.as_deref()).map(|(labelled, pool)| cotrain::BlockWeights { labelled, pool });
    let stage = |stage: Stage| progress.event(&Event::Stage { fold, stage });
    stage(Stage::ChoosingRounds);
    let single = views.single_view()?;
    // The three learners' round counts are independent: chosen in parallel.
    let learners = [(STYLISTIC, &views.stylistic), (LEXICAL, &views.lexical), (SINGLE_VIEW, &single)];
    let chosen: Vec<Result<usize, TrainError>> = learners.par_iter().map(|(_, x)| rounds_for(config, x, &targets, &pages, k, seed)).collect();
    let mut boosting_rounds = BTreeMap::new();
    for ((name, _), rounds) in learners.iter().zip(chosen) {
        boosting_rounds.insert(name.to_string(), rounds?);
    }
    let (ps, pl) = (boost_params(config, &targets, k, boosting_rounds[STYLISTIC])?, boost_params(config, &targets, k, boosting_rounds[LEXICAL])?);
    stage(Stage::CoTraining);
    let selection = config.selection().ok_or_else(|| TrainError::Selection(config.cotraining.selection.clone()))?;
    let mut training_blocks = 0;
    let co = cotrain::cotrain_with(&cotrain_params(config, seed), (&ps, &pl), &views, &targets, block_weights, pool, k, selection, |r| {
        training_blocks = r.training_blocks;
        observe(&RoundModels { round: r.round, stylistic: &r.learners[0], lexical: &r.learners[1], training_blocks: r.training_blocks, teaching: &r.teaching });
        progress.event(&Event::Round { fold, round: r.round, training_blocks: r.training_blocks });
        progress.event(&Event::Step);
    })?;
    let single_view = boost_params(config, &targets, k, boosting_rounds[SINGLE_VIEW])?.train_weighted(&single, &targets, weights.as_deref())?;
    let context = fit_context(config, prepared, rows, &views, (&ps, &pl), seed, fold, progress)?;
    Ok(Fitted { stylistic: co.stylistic, lexical: co.lexical, single_view, context, boosting_rounds, stop: co.stop, added: co.added, training_blocks })
}

/// The labelled blocks' initial boosting weights (`rows` of the prepared data): more for blocks
/// with more words (`[boosting] word_weight`) and each corpus's share evened out
/// (`corpus_balance`); `None` when both are off and every block weighs the same.
fn labelled_weights(config: &ExperimentConfig, prepared: &Prepared, rows: &[usize]) -> Option<Vec<f64>> {
    let data = &prepared.data;
    let exponent = config.boosting.word_weight;
    let weights = (exponent > 0.0).then(|| word_weights(rows.iter().map(|&r| data.blocks.get(r).map_or(0, |b| b.words)), exponent));
    let balance = config.boosting.corpus_balance;
    if balance > 0.0 {
        let corpora: Vec<&str> = rows.iter().map(|&r| data.page_corpora.get(data.page_of[r]).map_or("", String::as_str)).collect();
        Some(corpus_balanced(weights.unwrap_or_else(|| vec![1.0; rows.len()]), &corpora, balance))
    } else {
        weights
    }
}

/// Trains the context stage of a config (none without `[context]`) on some labelled blocks
/// (`rows` of the prepared data, whose view columns are `views`): its inputs are the views'
/// probabilities cross-fitted on the training pages with the view learners' parameters
/// `params`, so the stage learns from what the views say of pages they did not see.
#[allow(clippy::too_many_arguments)]
fn fit_context(
    config: &ExperimentConfig,
    prepared: &Prepared,
    rows: &[usize],
    views: &TwoViews,
    params: (&AdaBoostMhValidParams, &AdaBoostMhValidParams),
    seed: u64,
    fold: Option<usize>,
    progress: &dyn Progress,
) -> Result<Option<AdaBoostMh>, TrainError> {
    let Some(ctx) = &config.context else { return Ok(None) };
    let Prepared { scheme, data, .. } = prepared;
    let k = scheme.len();
    let targets: Vec<usize> = rows.iter().map(|&r| data.targets[r]).collect();
    let pages: Vec<usize> = rows.iter().map(|&r| data.page_of[r]).collect();
    let weights = labelled_weights(config, prepared, rows);
    let stage = |stage: Stage| progress.event(&Event::Stage { fold, stage });
    stage(Stage::ContextCrossFitting);
    // The blocks' groups for the cross-fitting; by page when too few sites.
    let all = data.groups(ctx.split);
    let groups: Vec<usize> = rows.iter().map(|&r| all[r]).collect();
    let groups = if distinct(&groups) >= ctx.folds { &groups } else { &pages };
    let (s, l) = crate::context::cross_fitted_probabilities(params, views, &targets, weights.as_deref(), groups, ctx.folds, seed)?;
    let classes: Vec<String> = scheme.names().map(str::to_string).collect();
    let containers = ctx.structure.then(|| containers_of(data, rows));
    let inputs = config.context_inputs(containers.as_deref());
    let x = crate::context::features(s.view(), l.view(), &pages, inputs, &classes);
    let x = crate::context::with_view_columns(x, inputs, views, &pages)?;
    stage(Stage::ContextTraining);
    let params = boost_params(config, &targets, k, ctx.rounds)?;
    let params = match ctx.depth {
        Some(depth) => params.with_depth(depth)?,
        None => params,
    };
    let params = match ctx.splits {
        Some(splits) => params.with_splits(splits)?,
        None => params,
    };
    let rounds = params.n_rounds();
    // Every 1% of the rounds: enough for a bar, few enough events for a log.
    let every = (rounds / 100).max(1);
    let mut on_round = |round: usize| {
        if round % every == 0 || round == rounds {
            progress.event(&Event::StageRound { fold, round, rounds });
        }
    };
    let model = params.train_observed(&x, &targets, weights.as_deref(), &mut on_round)?;
    progress.event(&Event::Step);
    Ok(Some(model))
}

/// Trains only the context stage of a config on some labelled blocks, for view learners trained
/// before (`stylistic` and `lexical`, which must have been trained on these rows with this
/// config but for its `[context]`): the stage [`fit`] would have trained beside them, since the
/// stage sees the views only through probabilities cross-fitted with their parameters. Makes a
/// change to the stage cost the stage's training, not the co-training's.
#[allow(clippy::too_many_arguments)]
pub fn refit_context(
    config: &ExperimentConfig,
    prepared: &Prepared,
    rows: &[usize],
    (stylistic, lexical): (&AdaBoostMh, &AdaBoostMh),
    seed: u64,
    fold: Option<usize>,
    progress: &dyn Progress,
) -> Result<Option<AdaBoostMh>, TrainError> {
    let views = prepared.data.views.select_rows(rows)?;
    fit_context(config, prepared, rows, &views, (stylistic.training_params(), lexical.training_params()), seed, fold, progress)
}

/// Initial boosting weights (1 + words)^`exponent` of blocks with these word counts
/// (`[boosting] word_weight`).
pub fn word_weights(words: impl Iterator<Item = usize>, exponent: f64) -> Vec<f64> {
    words.map(|w| (1.0 + w as f64).powf(exponent)).collect()
}

/// Block weights rescaled per corpus by (W / (C·W_c))^`balance` (`[boosting] corpus_balance`):
/// W the total weight, W_c that of the blocks of corpus c, C the corpora present.
pub fn corpus_balanced(mut weights: Vec<f64>, corpus_of: &[&str], balance: f64) -> Vec<f64> {
    let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
    for (w, c) in weights.iter().zip(corpus_of) {
        *totals.entry(c).or_default() += w;
    }
    let total: f64 = totals.values().sum();
    let corpora = totals.len() as f64;
    for (w, c) in weights.iter_mut().zip(corpus_of) {
        *w *= (total / (corpora * totals[c])).powf(balance);
    }
    weights
}

/// How many different values.
fn distinct(values: &[usize]) -> usize {
    values.iter().collect::<std::collections::HashSet<_>>().len()
}

/// The container element path of each of some labelled blocks (`rows`), for the context
/// stage's element-tree features; empty where the data carries no block details.
pub fn containers_of<'a>(data: &'a crate::dataset::LabelledData, rows: &[usize]) -> Vec<&'a str> {
    rows.iter().map(|&r| data.blocks.get(r).map_or("", |b| b.container.as_str())).collect()
}

/// The steps [`fit`] reports: one per co-training round (round 0 included), one for the context
/// stage.
pub fn fit_steps(config: &ExperimentConfig) -> u64 {
    config.cotraining.r as u64 + 1 + u64::from(config.context.is_some())
}

/// What the learners say of some blocks.
pub struct Decisions {
    /// Per block: the class, its confidence, and the view it follows (for the context stage:
    /// the view whose label it took, the more confident if both, [`View::Context`] if neither).
    pub decided: Vec<(usize, f64, View)>,
    /// Per block and class, the probabilities of the learner that decided the block.
    pub probabilities: Array2<f64>,
    /// Each view's own classes and confidences (their `scores` are left empty).
    pub stylistic: BoostPredictions,
    pub lexical: BoostPredictions,
}

/// Labels blocks (rows of `views`; `page_of` the page of each row, a page's rows consecutive in
/// document order) with the more confident view's label, or with the context stage's when there
/// is one; `classes` names the classes for the context features, and `inputs` must name the
/// optional context columns the stage was trained with: each block's container path with its
/// element-tree features (`[context] structure`), and only then, and `page` with its page-wide
/// ones (`[context] page`). `arbitration` says how the context stage's
/// answer and the views' combine: with `keep_agreement` the stage decides only the blocks the
/// views disagree on, with `choose_from_views` it picks one of the two views' classes there.
#[allow(clippy::too_many_arguments)]
pub fn decide(
    stylistic: &AdaBoostMh,
    lexical: &AdaBoostMh,
    context: Option<&AdaBoostMh>,
    arbitration: Arbitration,
    views: &TwoViews,
    page_of: &[usize],
    inputs: ContextInputs<'_>,
    classes: &[String],
) -> Result<Decisions, TrainError> {
    let mut s = stylistic.predict_with_confidence(&views.stylistic)?;
    let mut l = lexical.predict_with_confidence(&views.lexical)?;
    // The scores become probabilities; the predictions keep their classes and confidences.
    let ps = to_probabilities(std::mem::take(&mut s.scores));
    let pl = to_probabilities(std::mem::take(&mut l.scores));
    let (decided, probabilities) = match context {
        None => {
            let decided = cotrain::combine(&s, &l);
            let mut p = ps;
            for (i, (_, _, view)) in decided.iter().enumerate() {
                if *view == View::Lexical {
                    p.row_mut(i).assign(&pl.row(i));
                }
            }
            (decided, p)
        }
        Some(context) => {
            let x = crate::context::features(ps.view(), pl.view(), page_of, inputs, classes);
            let x = crate::context::with_view_columns(x, inputs, views, page_of)?;
            let c = context.predict_with_confidence(&x)?;
            let mut probabilities = to_probabilities(c.scores);
            // A block that takes one view's answer takes its class, confidence and probabilities.
            let take = |view: View, i: usize, probabilities: &mut Array2<f64>| {
                let (said, p) = if view == View::Lexical { (&l, &pl) } else { (&s, &ps) };
                probabilities.row_mut(i).assign(&p.row(i));
                (said.classes[i], said.confidences[i], view)
            };
            let decided = (0..c.classes.len())
                .map(|i| {
                    let agree = s.classes[i] == l.classes[i];
                    if arbitration.keep_agreement && agree {
                        let view = if l.confidences[i] > s.confidences[i] { View::Lexical } else { View::Stylistic };
                        return take(view, i, &mut probabilities);
                    }
                    let class = c.classes[i];
                    if arbitration.choose_from_views && !agree && class != s.classes[i] && class != l.classes[i] {
                        let view = if probabilities[[i, l.classes[i]]] > probabilities[[i, s.classes[i]]] { View::Lexical } else { View::Stylistic };
                        return take(view, i, &mut probabilities);
                    }
                    let (sc, lc) = (s.classes[i] == class, l.classes[i] == class);
                    let view = match (sc, lc) {
                        (true, true) if l.confidences[i] > s.confidences[i] => View::Lexical,
                        (true, _) => View::Stylistic,
                        (false, true) => View::Lexical,
                        (false, false) => View::Context,
                    };
                    (class, c.confidences[i], view)
                })
                .collect();
            (decided, probabilities)
        }
    };
    Ok(Decisions { decided, probabilities, stylistic: s, lexical: l })
}

impl Fitted {
    /// Labels blocks with these learners (see [`decide`]).
    pub fn decide(
        &self,
        arbitration: Arbitration,
        views: &TwoViews,
        page_of: &[usize],
        inputs: ContextInputs<'_>,
        classes: &[String],
    ) -> Result<Decisions, TrainError> {
        decide(&self.stylistic, &self.lexical, self.context.as_ref(), arbitration, views, page_of, inputs, classes)
    }
}

#[cfg(test)]
mod tests {
    use super::{boost_params, class_weights, corpus_balanced, word_weights};

    #[test]
    fn corpus_balance_gives_each_corpus_the_same_total_weight_at_one() {
        let corpora = ["a", "a", "a", "b"];
        let w = corpus_balanced(vec![1.0, 1.0, 2.0, 1.0], &corpora, 1.0);
        // W = 5: corpus a (4) scaled by 5/8, b (1) by 5/2; both then weigh 2.5.
        assert_eq!(w, [0.625, 0.625, 1.25, 2.5]);
        assert_eq!(corpus_balanced(vec![1.0, 3.0], &["a", "b"], 0.0), [1.0, 3.0]);
        let half = corpus_balanced(vec![1.0; 4], &corpora, 0.5);
        assert!((half[3] - 2f64.sqrt()).abs() < 1e-12 && half[0] < 1.0);
    }

    #[test]
    fn word_weights_grow_with_words_as_the_exponent_says() {
        assert_eq!(word_weights([0, 3, 99].into_iter(), 1.0), [1.0, 4.0, 100.0]);
        assert_eq!(word_weights([3, 99].into_iter(), 0.5), [2.0, 10.0]);
        assert_eq!(word_weights([5].into_iter(), 0.0), [1.0]);
    }

    #[test]
    fn class_weights_give_rare_classes_more_weight_as_balance_grows() {
        // 6 blocks of class 0, 2 of class 1, none of class 2 (k = 2 classes present, n = 8).
        let targets = [0, 0, 0, 0, 0, 0, 1, 1];
        assert_eq!(class_weights(0.0, &targets, 3), None);
        let balanced = class_weights(1.0, &targets, 3).unwrap();
        // n / (k·n_c): 8/12 and 8/4; both classes then weigh 6·(2/3) = 2·2 = 4 in total.
        assert!((balanced[0] - 2.0 / 3.0).abs() < 1e-12 && (balanced[1] - 2.0).abs() < 1e-12 && balanced[2] == 1.0);
        let sqrt = class_weights(0.5, &targets, 3).unwrap();
        assert!((sqrt[1] - 2f64.sqrt()).abs() < 1e-12 && sqrt[0] < 1.0);
    }

    #[test]
    fn smoothing_scales_the_learners_epsilon_from_one_over_m_times_k() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/demo.toml");
        let sets = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let targets = [0, 1, 1, 0, 2];
        let plain = crate::config::ExperimentConfig::load_with(&path, &[]).unwrap();
        // The default leaves ε to the learner, which takes 1/(m·k) from the data it fits.
        assert_eq!(boost_params(&plain, &targets, 3, 10).unwrap().smoothing(), None);
        let quiet = crate::config::ExperimentConfig::load_with(&path, &sets(&["boosting.smoothing=30"])).unwrap();
        let epsilon = boost_params(&quiet, &targets, 3, 10).unwrap().smoothing().unwrap();
        assert!((epsilon - 30.0 / 15.0).abs() < 1e-12, "{epsilon}");
    }
}
