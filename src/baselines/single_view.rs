//! The single-view learner: one boosted learner on both views' features, trained on the labelled
//! blocks only (the paper's comparison point in section 7). It is trained by the one training
//! path ([`crate::train::fit`]), so the experiment measures the learner a model file carries.

use super::{Baseline, Fold};
use crate::train::TrainError;

/// The fitted single-view learner's classes for the held-out blocks.
pub struct SingleView;

impl Baseline for SingleView {
    fn name(&self) -> &str {
        crate::train::SINGLE_VIEW
    }

    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError> {
        let test = fold.test.single_view()?;
        Ok(vec![fold.fitted.single_view.predict_classes(&test)?.to_vec()])
    }
}
