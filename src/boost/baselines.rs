//! Baselines from the linfa ecosystem, fitted on the dense form of a
//! [`FeatureMatrix`] (numeric columns then token weights; missing
//! numeric values become `missing_fill`, since linfa-trees has no notion of missing).
//!
//! - [`fit_decision_tree`]: one `linfa-trees` CART tree.
//! - [`SammeStumps`]: AdaBoost SAMME (Zhu, Zou, Rosset & Hastie 2009, *Multi-class AdaBoost*,
//!   Algorithm 2) over `linfa-trees` depth-1 trees, reweighting (not resampling) and
//!   deterministic. The pinned `linfa-ensemble` 0.8.0 only offers bagging
//!   (`EnsembleLearner`); its `AdaBoost` arrived in 0.8.1, which requires linfa 0.8.1, so the
//!   same algorithm is written here over the same stumps.
//!
//! linfa-trees settings boosting needs (checked against linfa-trees 0.8.0's source):
//! - `min_weight_leaf` compares a side's summed *weight*; its default 1.0 rejects every split
//!   once boosting weights sum to 1. It cannot be 0 or tiny either: linfa-trees gets each
//!   side's weight and class counts by f32 subtraction, so a side that should be empty can keep
//!   a rounding residue (up to n·2⁻²⁴ of the total), and its Gini impurity then asserts a
//!   positive class total (panic, seen after ~100 SAMME rounds with weights summing to 1 and a
//!   10⁻⁷ minimum). So SAMME passes weights scaled to sum to the number of blocks (the tree's
//!   choices are scale-free) and leaves must weigh [`MIN_WEIGHT_LEAF`] = half an average block.
//! - `min_weight_split` compares the node's *sample count*, not weight: 2 (its default) is
//!   right and is set explicitly.
//! - `min_impurity_decrease` defaults to 1e-5, which late-round tiny weights never reach; it is
//!   set to its smallest allowed value, machine epsilon (linfa rejects less).
//! - linfa-trees *prunes* a stump whose two leaves predict the same class into a constant;
//!   SAMME then sees a weak learner no better than the majority class and stops if its error
//!   reaches 1 − 1/k.

use super::BoostError;
use crate::matrix::FeatureMatrix;
use linfa::dataset::DatasetBase;
use linfa::traits::{Fit, Predict};
use linfa_trees::{DecisionTree, DecisionTreeParams};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

/// Smallest side weight linfa-trees may split off, with weights averaging 1 per block.
pub const MIN_WEIGHT_LEAF: f32 = 0.5;

/// Tree parameters that let linfa-trees learn from boosting weights.
pub fn boosting_tree_params(max_depth: Option<usize>) -> DecisionTreeParams<f64, usize> {
    DecisionTree::params().max_depth(max_depth).min_weight_split(2.0).min_weight_leaf(MIN_WEIGHT_LEAF).min_impurity_decrease(f64::EPSILON)
}

/// One CART tree (Gini) on dense records, unweighted.
pub fn fit_decision_tree(records: ArrayView2<f64>, targets: ArrayView1<usize>, max_depth: Option<usize>) -> Result<DecisionTree<f64, usize>, BoostError> {
    let data = DatasetBase::new(records, targets);
    Ok(boosting_tree_params(max_depth).fit(&data)?)
}

/// [`fit_decision_tree`] on the dense form of a feature matrix (missing values read as 0).
pub fn fit_decision_tree_on(records: &FeatureMatrix, targets: ArrayView1<usize>, max_depth: Option<usize>) -> Result<DecisionTree<f64, usize>, BoostError> {
    fit_decision_tree(records.to_dense(0.0).view(), targets, max_depth)
}

/// AdaBoost SAMME over linfa-trees stumps: a vote of stumps weighted by α.
#[derive(Debug, Clone)]
pub struct SammeStumps {
    stumps: Vec<(DecisionTree<f64, usize>, f64)>,
    n_classes: usize,
}

impl SammeStumps {
    /// Fits up to `n_estimators` stumps. Stops early, as scikit-learn does, when a stump is
    /// perfect (kept with α = 1) or has weighted error ≥ 1 − 1/k (dropped unless first).
    pub fn fit(records: ArrayView2<f64>, targets: ArrayView1<usize>, n_classes: usize, n_estimators: usize) -> Result<Self, BoostError> {
        let n = records.nrows();
        if n == 0 {
            return Err(BoostError::EmptyTrainingSet);
        }
        let k = n_classes.max(2) as f64;
        let params = boosting_tree_params(Some(1));
        let mut w = Array1::from_elem(n, 1.0 / n as f64);
        let mut stumps = Vec::new();
        for _ in 0..n_estimators {
            // linfa-trees takes f32 weights; scaled to average 1 per block (see module docs).
            let scaled = w.mapv(|x| (x * n as f64) as f32);
            let data = DatasetBase::new(records, targets).with_weights(scaled);
            let tree = params.fit(&data)?;
            let pred: Array1<usize> = tree.predict(&records);
            let miss: Vec<bool> = pred.iter().zip(targets).map(|(p, y)| p != y).collect();
            // Algorithm 2, step 2(b): weighted error.
            let err: f64 = w.iter().zip(&miss).filter(|(_, &m)| m).map(|(x, _)| x).sum::<f64>() / w.sum();
            if err <= 0.0 {
                stumps.push((tree, 1.0));
                break;
            }
            if err >= 1.0 - 1.0 / k {
                if stumps.is_empty() {
                    stumps.push((tree, 1.0));
                }
                break;
            }
            // Step 2(c): α = ln((1 − err)/err) + ln(k − 1).
            let alpha = ((1.0 - err) / err).ln() + (k - 1.0).ln();
            // Step 2(d): up-weight the misclassified blocks, then renormalise.
            w.iter_mut().zip(&miss).filter(|(_, &m)| m).for_each(|(x, _)| *x *= alpha.exp());
            let total = w.sum();
            if !(total.is_finite() && total > 0.0) {
                break;
            }
            w /= total;
            stumps.push((tree, alpha));
        }
        Ok(Self { stumps, n_classes: n_classes.max(2) })
    }

    /// [`fit`](Self::fit) on the dense form of a feature matrix (missing values read as 0).
    pub fn fit_on(records: &FeatureMatrix, targets: ArrayView1<usize>, n_classes: usize, n_estimators: usize) -> Result<Self, BoostError> {
        Self::fit(records.to_dense(0.0).view(), targets, n_classes, n_estimators)
    }

    pub fn n_stumps(&self) -> usize {
        self.stumps.len()
    }

    /// Step 3: the class with the largest α-weighted vote (lowest index on ties).
    pub fn predict(&self, records: ArrayView2<f64>) -> Array1<usize> {
        let mut votes = Array2::<f64>::zeros((records.nrows(), self.n_classes));
        for (tree, alpha) in &self.stumps {
            let pred: Array1<usize> = tree.predict(&records);
            for (i, &c) in pred.iter().enumerate() {
                if let Some(v) = votes.get_mut((i, c)) {
                    *v += alpha;
                }
            }
        }
        votes.rows().into_iter().map(super::argmax).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn samme_and_tree_learn_a_threshold() {
        let x = array![[1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 1.0], [5.0, 0.0], [6.0, 1.0]];
        let y = array![0usize, 0, 1, 1, 2, 2];
        let tree = fit_decision_tree(x.view(), y.view(), None).expect("fits");
        let p: Array1<usize> = tree.predict(&x);
        assert_eq!(p, y);
        let samme = SammeStumps::fit(x.view(), y.view(), 3, 10).expect("fits");
        assert!(samme.n_stumps() >= 2, "one stump cannot separate 3 classes");
        assert_eq!(samme.predict(x.view()), y);
    }
}
