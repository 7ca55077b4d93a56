//! Self-training: the single-view learner taught by its own most confident labels, with the same
//! `u`, `k`, `r` and selection rule as co-training ([`crate::cotrain::self_train`]), to tell
//! co-training's gain from plain self-labelling.

use super::{Baseline, Fold};
use crate::train::{boost_params, cotrain_params, TrainError, SINGLE_VIEW};

/// Self-training's classes for the held-out blocks after each round (round 0: the single-view
/// learner).
pub struct SelfTraining;

impl Baseline for SelfTraining {
    fn name(&self) -> &str {
        "self-training"
    }

    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError> {
        let (train, test, pool) = (fold.train.single_view()?, fold.test.single_view()?, fold.pool.single_view()?);
        let rounds = fold.fitted.boosting_rounds.get(SINGLE_VIEW).copied().unwrap_or(1);
        let params = boost_params(fold.config, fold.targets, fold.n_classes, rounds)?;
        let selection = fold.config.selection().ok_or_else(|| TrainError::Selection(fold.config.cotraining.selection.clone()))?;
        let mut predictions = Vec::new();
        let mut failure = None;
        crate::cotrain::self_train(&cotrain_params(fold.config, fold.seed), &params, &train, fold.targets, &pool, fold.n_classes, selection, |_, m| {
            match m.predict_classes(&test) {
                Ok(p) => predictions.push(p.to_vec()),
                Err(e) => failure = Some(e),
            }
        })?;
        match failure {
            Some(e) => Err(e.into()),
            None => Ok(predictions),
        }
    }
}
