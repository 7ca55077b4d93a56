//! linfa integration: `Fit` for both record kinds (the blanket `ParamGuard` impl makes
//! `AdaBoostMhParams::fit` validate first) and `PredictInplace` (hence `Predict`).

use super::model::argmax;
use super::{AdaBoostMh, AdaBoostMhValidParams, BoostError};
use crate::matrix::FeatureMatrix;
use linfa::dataset::{AsSingleTargets, DatasetBase};
use linfa::traits::{Fit, Predict, PredictInplace};
use ndarray::{Array1, ArrayBase, Data, Ix2};

fn targets_and_weights<R: linfa::dataset::Records, T: AsSingleTargets<Elem = usize>>(dataset: &DatasetBase<R, T>) -> (Vec<usize>, Option<Vec<f64>>) {
    let targets = dataset.as_single_targets().to_vec();
    let weights = dataset.weights().map(|w| w.iter().map(|&x| f64::from(x)).collect());
    (targets, weights)
}

impl<T: AsSingleTargets<Elem = usize>> Fit<FeatureMatrix, T, BoostError> for AdaBoostMhValidParams {
    type Object = AdaBoostMh;

    /// Trains on the dataset's blocks; dataset weights, if any, scale the initial distribution.
    fn fit(&self, dataset: &DatasetBase<FeatureMatrix, T>) -> Result<AdaBoostMh, BoostError> {
        let (targets, weights) = targets_and_weights(dataset);
        self.train_weighted(&dataset.records, &targets, weights.as_deref())
    }
}

impl<D, T> Fit<ArrayBase<D, Ix2>, T, BoostError> for AdaBoostMhValidParams
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = usize>,
{
    type Object = AdaBoostMh;

    /// Dense records: every column is a numeric feature named `x0`, `x1`, …
    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<AdaBoostMh, BoostError> {
        let (targets, weights) = targets_and_weights(dataset);
        let records = FeatureMatrix::from_dense(dataset.records.to_owned());
        self.train_weighted(&records, &targets, weights.as_deref())
    }
}

/// linfa's `predict` cannot fail, so columns missing from `x` read as missing (numeric) or
/// absent (token) rather than failing; use [`AdaBoostMh::predict_classes`] to have the schema
/// checked. Rows beyond the length of `y` are not written.
impl PredictInplace<FeatureMatrix, Array1<usize>> for AdaBoostMh {
    fn predict_inplace(&self, x: &FeatureMatrix, y: &mut Array1<usize>) {
        let scores = self.scores_unchecked(x);
        for (target, row) in y.iter_mut().zip(scores.rows()) {
            *target = argmax(row);
        }
    }

    fn default_target(&self, x: &FeatureMatrix) -> Array1<usize> {
        Array1::zeros(x.n_rows())
    }
}

/// `model.predict(&matrix)`, as linfa offers for `&Array2` records (same caveat as above).
impl Predict<&FeatureMatrix, Array1<usize>> for AdaBoostMh {
    fn predict(&self, x: &FeatureMatrix) -> Array1<usize> {
        let mut y = self.default_target(x);
        self.predict_inplace(x, &mut y);
        y
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<usize>> for AdaBoostMh {
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array1<usize>) {
        let records = FeatureMatrix::from_dense(x.to_owned());
        self.predict_inplace(&records, y);
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<usize> {
        Array1::zeros(x.nrows())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linfa::prelude::*;
    use ndarray::array;

    #[test]
    fn fit_and_predict_through_linfa_traits() {
        let x = array![[1.0], [2.0], [3.0], [4.0]];
        let y: Array1<usize> = array![0, 0, 1, 1];
        let data = Dataset::new(x.clone(), y.clone());
        let model = AdaBoostMh::params().n_rounds(3).fit(&data).expect("fits");
        let pred: Array1<usize> = model.predict(&x);
        assert_eq!(pred, y);
        let bad = AdaBoostMh::params().n_rounds(0).fit(&data);
        assert!(matches!(bad, Err(BoostError::InvalidParam { name: "n_rounds", .. })));

        let fm = FeatureMatrix::from_dense(x);
        let data = DatasetBase::new(fm, y.clone());
        let model = AdaBoostMh::params().n_rounds(3).fit(&data).expect("fits");
        let pred: Array1<usize> = model.predict(&data);
        assert_eq!(pred, y);
        let direct: Array1<usize> = model.predict(&data.records);
        assert_eq!(direct, y);
        let cm = pred.confusion_matrix(&data).expect("labels");
        assert_eq!(cm.accuracy(), 1.0);
    }
}
