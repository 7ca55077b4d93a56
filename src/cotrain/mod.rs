//! Co-training of the stylistic and the lexical learner (Blum & Mitchell 1998, as adapted by the
//! PARCELS paper, section 6), and self-training of a single learner for comparison.
//!
//! Each round (paper section 6):
//! 1. draw a fresh pool of `u` unlabelled blocks (blocks drawn once are never drawn again, and
//!    those not chosen are not reconsidered);
//! 2. let each learner label the pool;
//! 3. add each learner's most confident self-labelled blocks to the shared training set, split
//!    across classes in the proportions of the initial labelled data, `⌈k·p_c⌉` for each class
//!    `c` with share `p_c > 0` (rounded up so rare classes still contribute, as the paper did);
//!    the stylistic learner chooses first, and a block chosen by it is not offered to the
//!    lexical learner in the same round;
//! 4. retrain both learners on the grown training set.
//!
//! Rounds stop after `r` rounds or when the unlabelled data runs out ([`Stop`] says which).
//! The combined classifier labels each block with the more confident view's label (ties go to
//! the stylistic view). Everything is deterministic for a given seed: the pool order comes from
//! a seeded `StdRng`, ties in confidence are broken by pool position.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::boost::{AdaBoostMh, AdaBoostMhValidParams, BoostError, BoostPredictions};
use crate::matrix::{FeatureMatrix, MatrixError};

mod selection;
pub use selection::{by_name as selection_by_name, Agreement, ClassProportional, Pick, Selection, SelectionContext, TopK, SELECTIONS};

/// The same blocks seen through both views (row `i` of each matrix is the same block).
#[derive(Debug, Clone)]
pub struct TwoViews {
    pub stylistic: FeatureMatrix,
    pub lexical: FeatureMatrix,
}

impl TwoViews {
    pub fn n_rows(&self) -> usize {
        self.stylistic.n_rows()
    }

    pub fn select_rows(&self, rows: &[usize]) -> Result<TwoViews, MatrixError> {
        Ok(TwoViews { stylistic: self.stylistic.select_rows(rows)?, lexical: self.lexical.select_rows(rows)? })
    }

    pub fn append(&mut self, other: &TwoViews) -> Result<(), MatrixError> {
        self.stylistic.append(&other.stylistic)?;
        self.lexical.append(&other.lexical)
    }

    /// Both views' features side by side: what the single-view learner sees.
    pub fn single_view(&self) -> Result<FeatureMatrix, MatrixError> {
        self.stylistic.hstack(&self.lexical)
    }
}

/// Co-training parameters (the paper's `u`, `k`, `r`) and the seed of the pool order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoTrainParams {
    /// Unlabelled blocks drawn each round.
    pub u: usize,
    /// Self-labelled blocks each learner adds per round (before rounding class shares up).
    pub k: usize,
    /// Maximum number of rounds.
    pub rounds: usize,
    pub seed: u64,
}

/// Why co-training stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// All `r` rounds ran.
    AllRounds,
    /// The unlabelled data ran out after this many rounds.
    PoolExhausted { after_round: usize },
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::AllRounds => f.write_str("all rounds ran"),
            Stop::PoolExhausted { after_round } => write!(f, "the pool ran out after round {after_round}"),
        }
    }
}

/// Errors of co-training: a bad parameter, or the learner's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoTrainError {
    #[error("co-training: {0}")]
    Params(String),
    #[error(transparent)]
    Boost(#[from] BoostError),
    #[error(transparent)]
    Matrix(#[from] MatrixError),
}

impl CoTrainParams {
    pub fn validate(&self) -> Result<(), CoTrainError> {
        if self.u == 0 || self.k == 0 {
            return Err(CoTrainError::Params(format!("u ({}) and k ({}) must be positive", self.u, self.k)));
        }
        if self.k > self.u {
            return Err(CoTrainError::Params(format!("k ({}) cannot exceed u ({})", self.k, self.u)));
        }
        Ok(())
    }
}

/// Blocks to add per class and learner each round: `⌈k·p_c⌉` for classes present in the initial
/// labelled data, 0 for the others.
pub fn class_quotas(labels: &[usize], n_classes: usize, k: usize) -> Vec<usize> {
    let mut counts = vec![0usize; n_classes];
    for &l in labels {
        if l < n_classes {
            counts[l] += 1;
        }
    }
    let n = labels.len().max(1);
    // Exact integer ceiling of k·count/n.
    counts.iter().map(|&c| (k * c).div_ceil(n)).collect()
}

/// Picks, for each class, the `quota` most confident blocks the learner labelled with it, among
/// blocks not yet taken. Returns (pool position, class) pairs and marks them taken.
pub fn most_confident(pred: &BoostPredictions, quotas: &[usize], taken: &mut [bool]) -> Vec<(usize, usize)> {
    let mut chosen = Vec::new();
    for (class, &quota) in quotas.iter().enumerate() {
        if quota == 0 {
            continue;
        }
        let mut candidates: Vec<usize> = (0..pred.classes.len()).filter(|&i| pred.classes[i] == class && !taken[i]).collect();
        candidates.sort_by(|&a, &b| pred.confidences[b].total_cmp(&pred.confidences[a]).then(a.cmp(&b)));
        for &i in candidates.iter().take(quota) {
            taken[i] = true;
            chosen.push((i, class));
        }
    }
    chosen
}

/// Which view labelled a block in the combined classifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum View {
    Stylistic,
    Lexical,
    /// The context stage of a trained model, which relabels blocks from both views'
    /// probabilities for them and their neighbours ([`crate::context`]).
    Context,
}

/// The combined classifier: each block takes the label of the more confident view.
pub fn combine(stylistic: &BoostPredictions, lexical: &BoostPredictions) -> Vec<(usize, f64, View)> {
    (0..stylistic.classes.len())
        .map(|i| {
            let (s, l) = (stylistic.confidences[i], lexical.confidences[i]);
            if s >= l {
                (stylistic.classes[i], s, View::Stylistic)
            } else {
                (lexical.classes[i], l, View::Lexical)
            }
        })
        .collect()
}

/// The two learners after a round (round 0: trained on the labelled data only).
pub struct RoundModels<'a> {
    pub round: usize,
    pub stylistic: &'a AdaBoostMh,
    pub lexical: &'a AdaBoostMh,
    /// Blocks in the training set now.
    pub training_blocks: usize,
    /// What the round did with its fresh pool (round 0: nothing).
    pub teaching: &'a Teaching<'a>,
}

/// What a round of [`teach`] did with its fresh pool, for diagnostics: the pool rows drawn, the
/// blocks chosen (positions into `drawn`, view 0 stylistic and 1 lexical in co-training), and
/// the share of drawn blocks every view labelled alike (`None` with one view or no pool).
#[derive(Debug, Clone, Copy, Default)]
pub struct Teaching<'a> {
    pub drawn: &'a [usize],
    pub picks: &'a [Pick],
    pub agreement: Option<f64>,
}

/// The result of a co-training run.
pub struct CoTrained {
    pub stylistic: AdaBoostMh,
    pub lexical: AdaBoostMh,
    pub rounds: usize,
    pub stop: Stop,
    /// Self-labelled blocks added in each round.
    pub added: Vec<usize>,
}

/// One view in the teaching loop: the blocks it is trained on, the same pool blocks seen through
/// it, and its learner's boosting parameters.
pub struct ViewSpec<'a> {
    pub train: &'a FeatureMatrix,
    pub pool: &'a FeatureMatrix,
    pub boost: &'a AdaBoostMhValidParams,
}

/// The learners after a round of [`teach`] (round 0: trained on the labelled data only), one
/// per view in the order given.
pub struct Round<'a> {
    pub round: usize,
    pub learners: &'a [AdaBoostMh],
    /// Blocks in the (shared) training set now.
    pub training_blocks: usize,
    /// What the round did with its fresh pool (round 0: nothing).
    pub teaching: Teaching<'a>,
}

/// The result of [`teach`]: the final learner of each view, and how the run went.
pub struct Taught {
    pub learners: Vec<AdaBoostMh>,
    pub rounds: usize,
    pub stop: Stop,
    /// Self-labelled blocks added in each round.
    pub added: Vec<usize>,
}

/// The one teaching loop behind co-training (two views) and self-training (one view): each round
/// a fresh pool of `u` blocks, every view's learner labels it, `selection` picks the
/// self-labelled blocks that join the shared training set (a block joins once, with the label of
/// the view that picked it), and every learner retrains (paper section 6, steps 1–4).
/// `observe` sees the learners after round 0 and after every round.
///
/// `weights`, when given, are the initial boosting weights of the labelled blocks and of the
/// pool's blocks (a self-labelled block keeps its pool weight).
pub fn teach(
    params: &CoTrainParams,
    views: &[ViewSpec],
    targets: &[usize],
    weights: Option<BlockWeights>,
    n_classes: usize,
    selection: &dyn Selection,
    mut observe: impl FnMut(&Round),
) -> Result<Taught, CoTrainError> {
    params.validate()?;
    let Some(first) = views.first() else {
        return Err(CoTrainError::Params("no view to train".into()));
    };
    let pool_rows = first.pool.n_rows();
    if views.iter().any(|v| v.pool.n_rows() != pool_rows || v.train.n_rows() != targets.len()) {
        return Err(CoTrainError::Params("the views do not see the same blocks".into()));
    }
    if let Some(w) = weights.filter(|w| w.labelled.len() != targets.len() || w.pool.len() != pool_rows) {
        return Err(CoTrainError::Params(format!(
            "{} labelled and {} pool weights for {} labelled and {pool_rows} pool blocks",
            w.labelled.len(),
            w.pool.len(),
            targets.len()
        )));
    }
    let quotas = class_quotas(targets, n_classes, params.k);
    let mut data: Vec<FeatureMatrix> = views.iter().map(|v| v.train.clone()).collect();
    let mut labels = targets.to_vec();
    let mut block_weights: Option<Vec<f64>> = weights.map(|w| w.labelled.to_vec());
    // The views' learners train in parallel (each training is deterministic; order is kept).
    let train_all = |data: &[FeatureMatrix], labels: &[usize], w: Option<&[f64]>| {
        views.par_iter().zip(data).map(|(v, x)| v.boost.train_weighted(x, labels, w)).collect::<Result<Vec<_>, _>>()
    };
    let mut learners = train_all(&data, &labels, block_weights.as_deref())?;
    observe(&Round { round: 0, learners: &learners, training_blocks: labels.len(), teaching: Teaching::default() });
    let order = pool_order(pool_rows, params.seed);
    let mut added = Vec::new();
    let mut stop = Stop::AllRounds;
    for round in 1..=params.rounds {
        // Step 1: a fresh pool of u blocks.
        let Some(drawn) = draw(&order, round, params.u) else {
            stop = Stop::PoolExhausted { after_round: round - 1 };
            break;
        };
        // Step 2: each learner labels the pool.
        let fresh = views.iter().map(|v| v.pool.select_rows(drawn)).collect::<Result<Vec<_>, _>>()?;
        let predictions = learners.iter().zip(&fresh).map(|(l, x)| l.predict_with_confidence(x)).collect::<Result<Vec<_>, _>>()?;
        // Step 3: the learners' most confident blocks, as the selection rule says.
        let chosen = selection.select(&predictions, &SelectionContext { quotas: &quotas, k: params.k });
        let rows: Vec<usize> = chosen.iter().map(|p| p.position).collect();
        for (x, f) in data.iter_mut().zip(&fresh) {
            x.append(&f.select_rows(&rows)?)?;
        }
        labels.extend(chosen.iter().map(|p| p.class));
        if let (Some(bw), Some(w)) = (block_weights.as_mut(), weights) {
            bw.extend(chosen.iter().map(|p| w.pool[drawn[p.position]]));
        }
        added.push(chosen.len());
        let agreement = agreement(&predictions);
        // Step 4: retrain every learner.
        learners = train_all(&data, &labels, block_weights.as_deref())?;
        observe(&Round { round, learners: &learners, training_blocks: labels.len(), teaching: Teaching { drawn, picks: &chosen, agreement } });
        if round * params.u >= order.len() && round < params.rounds {
            stop = Stop::PoolExhausted { after_round: round };
            break;
        }
    }
    Ok(Taught { rounds: added.len(), learners, stop, added })
}

/// Initial boosting weights of the labelled blocks and of the unlabelled pool's blocks.
#[derive(Debug, Clone, Copy)]
pub struct BlockWeights<'a> {
    pub labelled: &'a [f64],
    pub pool: &'a [f64],
}

/// Co-trains the stylistic and the lexical learner with the paper's selection rule; `observe`
/// sees the learners after round 0 and after every round.
pub fn cotrain(
    params: &CoTrainParams,
    boost: (&AdaBoostMhValidParams, &AdaBoostMhValidParams),
    train: &TwoViews,
    targets: &[usize],
    pool: &TwoViews,
    n_classes: usize,
    mut observe: impl FnMut(&RoundModels),
) -> Result<CoTrained, CoTrainError> {
    cotrain_with(params, boost, train, targets, None, pool, n_classes, &ClassProportional, |r| {
        observe(&RoundModels { round: r.round, stylistic: &r.learners[0], lexical: &r.learners[1], training_blocks: r.training_blocks, teaching: &r.teaching })
    })
}

/// [`cotrain`] with another selection rule, and initial block weights when given.
#[allow(clippy::too_many_arguments)]
pub fn cotrain_with(
    params: &CoTrainParams,
    boost: (&AdaBoostMhValidParams, &AdaBoostMhValidParams),
    train: &TwoViews,
    targets: &[usize],
    weights: Option<BlockWeights>,
    pool: &TwoViews,
    n_classes: usize,
    selection: &dyn Selection,
    observe: impl FnMut(&Round),
) -> Result<CoTrained, CoTrainError> {
    let views =
        [ViewSpec { train: &train.stylistic, pool: &pool.stylistic, boost: boost.0 }, ViewSpec { train: &train.lexical, pool: &pool.lexical, boost: boost.1 }];
    let t = teach(params, &views, targets, weights, n_classes, selection, observe)?;
    let mut learners = t.learners.into_iter();
    let (Some(stylistic), Some(lexical)) = (learners.next(), learners.next()) else {
        return Err(CoTrainError::Params("co-training lost a view".into()));
    };
    Ok(CoTrained { stylistic, lexical, rounds: t.rounds, stop: t.stop, added: t.added })
}

/// Self-training of one learner with the same `u`, `k`, `r` and selection rule (its own most
/// confident blocks), to tell co-training's gain from plain self-labelling.
#[allow(clippy::too_many_arguments)]
pub fn self_train(
    params: &CoTrainParams,
    boost: &AdaBoostMhValidParams,
    train: &FeatureMatrix,
    targets: &[usize],
    pool: &FeatureMatrix,
    n_classes: usize,
    selection: &dyn Selection,
    mut observe: impl FnMut(usize, &AdaBoostMh),
) -> Result<(AdaBoostMh, Stop), CoTrainError> {
    let views = [ViewSpec { train, pool, boost }];
    let t = teach(params, &views, targets, None, n_classes, selection, |r| observe(r.round, &r.learners[0]))?;
    let model = t.learners.into_iter().next().ok_or_else(|| CoTrainError::Params("self-training lost its view".into()))?;
    Ok((model, t.stop))
}

/// The share of blocks every view labelled with the same class; `None` with fewer than two
/// views or no blocks.
pub fn agreement(predictions: &[BoostPredictions]) -> Option<f64> {
    let first = predictions.first()?;
    let n = first.classes.len();
    if predictions.len() < 2 || n == 0 {
        return None;
    }
    let alike = (0..n).filter(|&i| predictions.iter().all(|p| p.classes[i] == first.classes[i])).count();
    Some(alike as f64 / n as f64)
}

/// The pool blocks of `round` (from 1): the next `u` of the drawing order, or `None` when the
/// unlabelled data has run out.
fn draw(order: &[usize], round: usize, u: usize) -> Option<&[usize]> {
    let start = (round - 1) * u;
    (start < order.len()).then(|| &order[start..(start + u).min(order.len())])
}

/// The order in which pool blocks are drawn: a seeded shuffle.
fn pool_order(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boost::AdaBoostMhParams;
    use linfa::ParamGuard;
    use ndarray::Array2;

    #[test]
    fn agreement_is_the_share_of_blocks_labelled_alike() {
        let p = |c: &[usize]| BoostPredictions { classes: ndarray::arr1(c), confidences: ndarray::Array1::zeros(c.len()), scores: Array2::zeros((c.len(), 2)) };
        // 3 of 4 blocks alike.
        assert_eq!(agreement(&[p(&[0, 1, 1, 0]), p(&[0, 1, 0, 0])]), Some(0.75));
        assert_eq!(agreement(&[p(&[0, 1])]), None);
        assert_eq!(agreement(&[p(&[]), p(&[])]), None);
    }

    #[test]
    fn quotas_round_fractional_shares_up() {
        // 100 labelled blocks: 70 / 25 / 5 / 0 with k = 20 → 14, 5, 1, 0.
        let mut labels = vec![0; 70];
        labels.extend(vec![1; 25]);
        labels.extend(vec![2; 5]);
        assert_eq!(class_quotas(&labels, 4, 20), [14, 5, 1, 0]);
        // 3 blocks, one per class, k = 4: 4/3 rounds up to 2 each (6 > k, as in the paper).
        assert_eq!(class_quotas(&[0, 1, 2], 3, 4), [2, 2, 2]);
    }

    #[test]
    fn most_confident_respects_quotas_and_taken_blocks() {
        let pred = BoostPredictions {
            classes: ndarray::arr1(&[0, 0, 1, 0, 1]),
            confidences: ndarray::arr1(&[0.9, 0.5, 0.8, 0.95, 0.7]),
            scores: Array2::zeros((5, 2)),
        };
        let mut taken = vec![false, false, false, true, false];
        let chosen = most_confident(&pred, &[1, 2], &mut taken);
        assert_eq!(chosen, [(0, 0), (2, 1), (4, 1)]);
        assert_eq!(taken, [true, false, true, true, true]);
    }

    fn toy(n: usize, offset: f64) -> (TwoViews, Vec<usize>) {
        // Class = which half of [0, 1) the first feature of either view falls in.
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.618_033 + offset) % 1.0).collect();
        let y: Vec<usize> = x.iter().map(|&v| usize::from(v >= 0.5)).collect();
        let s = Array2::from_shape_fn((n, 2), |(i, j)| if j == 0 { x[i] } else { (i % 7) as f64 });
        let l = Array2::from_shape_fn((n, 1), |(i, _)| x[i] + 0.01);
        (TwoViews { stylistic: FeatureMatrix::from_dense(s), lexical: FeatureMatrix::from_dense(l) }, y)
    }

    #[test]
    fn cotraining_draws_fresh_pools_and_stops_when_they_run_out() {
        let (train, y) = toy(20, 0.1);
        let (pool, _) = toy(50, 0.3);
        let boost = AdaBoostMhParams::new().n_rounds(5).n_classes(Some(2)).check().unwrap();
        let params = CoTrainParams { u: 20, k: 4, rounds: 10, seed: 7 };
        let mut seen = Vec::new();
        let mut picked = Vec::new();
        let out = cotrain(&params, (&boost, &boost), &train, &y, &pool, 2, |r| {
            seen.push((r.round, r.training_blocks));
            picked.push((r.teaching.picks.len(), r.teaching.drawn.len(), r.teaching.agreement.is_some()));
        })
        .unwrap();
        // Round 0 draws nothing; each later round reports its picks (as many as were added), the
        // rows it drew, and the views' agreement on them.
        assert_eq!(picked[0], (0, 0, false));
        assert_eq!(picked[1..].iter().map(|p| p.0).collect::<Vec<_>>(), out.added);
        assert_eq!(picked[1..].iter().map(|p| p.1).collect::<Vec<_>>(), [20, 20, 10]);
        assert!(picked[1..].iter().all(|p| p.2));
        // 50 pool blocks in pools of 20: rounds 1-3 (the third pool has 10 blocks), then exhausted.
        assert_eq!(out.stop, Stop::PoolExhausted { after_round: 3 });
        assert_eq!(out.rounds, 3);
        // Each learner adds up to ⌈4·p_c⌉ blocks of each class a round.
        let per_learner: usize = class_quotas(&y, 2, 4).iter().sum();
        assert!(per_learner >= 4);
        assert!(out.added.iter().all(|&a| a <= 2 * per_learner && a > 0), "{:?}", out.added);
        assert_eq!(seen[0], (0, 20));
        assert_eq!(seen.last().unwrap().1, 20 + out.added.iter().sum::<usize>());
        // Same seed, same run.
        let again = cotrain(&params, (&boost, &boost), &train, &y, &pool, 2, |_| {}).unwrap();
        assert_eq!(again.added, out.added);
        let bad = CoTrainParams { k: 30, ..params };
        assert!(matches!(cotrain(&bad, (&boost, &boost), &train, &y, &pool, 2, |_| {}), Err(CoTrainError::Params(_))));
    }

    #[test]
    fn block_weights_steer_the_learners_and_must_cover_every_block() {
        let (train, y) = toy(20, 0.1);
        let (pool, _) = toy(50, 0.3);
        let boost = AdaBoostMhParams::new().n_rounds(5).n_classes(Some(2)).check().unwrap();
        let params = CoTrainParams { u: 20, k: 4, rounds: 2, seed: 7 };
        let run = |w: Option<BlockWeights>| cotrain_with(&params, (&boost, &boost), &train, &y, w, &pool, 2, &ClassProportional, |_| {});
        let plain = run(None).unwrap();
        // Weights alike are no weights: the distribution is normalised.
        let (ones, pool_ones) = (vec![3.0; 20], vec![3.0; 50]);
        let alike = run(Some(BlockWeights { labelled: &ones, pool: &pool_ones })).unwrap();
        assert_eq!(serde_json::to_string(&alike.stylistic).unwrap(), serde_json::to_string(&plain.stylistic).unwrap());
        // Weights that differ change what the learners learn.
        let skewed: Vec<f64> = (0..20).map(|i| if i % 3 == 0 { 50.0 } else { 1.0 }).collect();
        let steered = run(Some(BlockWeights { labelled: &skewed, pool: &pool_ones })).unwrap();
        assert_ne!(serde_json::to_string(&steered.stylistic).unwrap(), serde_json::to_string(&plain.stylistic).unwrap());
        let short = vec![1.0; 19];
        assert!(matches!(run(Some(BlockWeights { labelled: &short, pool: &pool_ones })), Err(CoTrainError::Params(_))));
    }
}
