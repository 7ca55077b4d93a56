//! The majority class of the training side for every block (the paper's section 7 floor).

use super::{Baseline, Fold};
use crate::train::TrainError;

/// Every held-out block gets the most frequent training class (lowest index on ties).
pub struct Majority;

impl Baseline for Majority {
    fn name(&self) -> &str {
        "majority"
    }

    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError> {
        let majority = crate::eval::majority(fold.targets, fold.n_classes);
        Ok(vec![vec![majority; fold.test.n_rows()]])
    }
}
