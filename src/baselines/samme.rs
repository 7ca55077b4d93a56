//! SAMME (Zhu et al. 2009) over Gini decision stumps ([`crate::boost::baselines::SammeStumps`]):
//! a boosting algorithm other than ours (discrete multi-class AdaBoost, scikit-learn's
//! `AdaBoostClassifier(algorithm="SAMME")` over depth-1 trees) on the single-view features, made
//! dense (every numeric column, NaN as −1, and the [`SAMME_TOKENS`] stems present in most
//! training blocks as 0/1). Reproducible: the same folds give the same model on every run.

use super::{Baseline, Fold};
use crate::matrix::FeatureMatrix;
use crate::train::TrainError;

/// SAMME with this many stumps.
pub struct Samme {
    pub stumps: usize,
}

/// Stems kept for SAMME, which needs a dense matrix: the most frequent in training.
pub const SAMME_TOKENS: usize = 300;

impl Baseline for Samme {
    fn name(&self) -> &str {
        "samme"
    }

    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError> {
        let (xtr, xte) = dense_features(&fold.train.single_view()?, &fold.test.single_view()?);
        let model = crate::boost::baselines::SammeStumps::fit(xtr.view(), ndarray::ArrayView1::from(fold.targets), fold.n_classes, self.stumps)
            .map_err(|e| TrainError::Baseline { baseline: "samme".into(), message: e.to_string() })?;
        Ok(vec![model.predict(xte.view()).to_vec()])
    }
}

/// Dense features for SAMME: every numeric column (NaN as −1) and the [`SAMME_TOKENS`] stems
/// present in most training blocks (as 0/1).
fn dense_features(train: &FeatureMatrix, test: &FeatureMatrix) -> (ndarray::Array2<f64>, ndarray::Array2<f64>) {
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
