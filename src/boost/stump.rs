//! Confidence-rated decision stumps: a one-feature test splitting blocks into at most three
//! parts, each predicting one real confidence per class (Schapire & Singer 1999, section 4:
//! "domain-partitioning" weak hypotheses).

use crate::matrix::FeatureMatrix;
use serde::{Deserialize, Serialize};

/// The test a stump applies to a block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StumpTest {
    /// Numeric column `column`: `x ≤ threshold` (true), `x > threshold` (false), `NaN` (missing).
    AtMost { column: usize, threshold: f64 },
    /// Token column `column`: present (true) or absent (false). Never missing.
    Present { column: usize },
}

/// Which part of a stump's partition a block falls into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Branch {
    True = 0,
    False = 1,
    Missing = 2,
}

/// One boosting round's weak hypothesis: a test and, per branch, one confidence per class
/// (positive votes for the class, negative against, magnitude = confidence).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stump {
    pub test: StumpTest,
    /// `outputs[branch][class]` for branches [`Branch::True`], [`Branch::False`],
    /// [`Branch::Missing`] (all zeros for token tests and for features never missing in
    /// training, i.e. the stump abstains).
    pub outputs: [Vec<f64>; 3],
}

impl Stump {
    /// The branch block `row` of `x` takes. A column the matrix does not have reads as
    /// missing (numeric) or absent (token), so a model applied to a narrower schema degrades
    /// instead of failing; the checked prediction methods reject such matrices beforehand.
    pub fn branch(&self, x: &FeatureMatrix, row: usize) -> Branch {
        match self.test {
            StumpTest::AtMost { column, threshold } => {
                let v = x.numeric().get((row, column)).copied().unwrap_or(f64::NAN);
                if v.is_nan() {
                    Branch::Missing
                } else if v <= threshold {
                    Branch::True
                } else {
                    Branch::False
                }
            }
            StumpTest::Present { column } => {
                if x.tokens().contains(row, column) {
                    Branch::True
                } else {
                    Branch::False
                }
            }
        }
    }

    /// Per-class confidences for block `row`.
    pub fn output(&self, x: &FeatureMatrix, row: usize) -> &[f64] {
        &self.outputs[self.branch(x, row) as usize]
    }

    /// Adds this stump's output to every block's scores (`scores` is blocks × classes).
    pub(crate) fn add_to(&self, x: &FeatureMatrix, scores: &mut ndarray::Array2<f64>) {
        for (row, mut s) in scores.outer_iter_mut().enumerate() {
            for (acc, &o) in s.iter_mut().zip(self.output(x, row)) {
                *acc += o;
            }
        }
    }
}
