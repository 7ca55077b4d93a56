//! Baselines from the linfa ecosystem, fitted on the dense form of a
//! [`FeatureMatrix`] (numeric columns then token weights; missing
//! numeric values become `missing_fill`, since linfa-trees has no notion of missing).
//!
//! - [`fit_decision_tree`]: one `linfa-trees` CART tree.
//! - [`SammeStumps`]: AdaBoost SAMME (Zhu, Zou, Rosset & Hastie 2009, *Multi-class AdaBoost*,
//!   Algorithm 2) over Gini decision stumps (CART of depth 1, as scikit-learn's
//!   `AdaBoostClassifier(algorithm="SAMME")` over `DecisionTreeClassifier(max_depth=1)`),
//!   reweighting (not resampling). The pinned `linfa-ensemble` 0.8.0 only offers bagging
//!   (`EnsembleLearner`); its `AdaBoost` arrived in 0.8.1, which requires linfa 0.8.1. The
//!   stumps are ours ([`GiniStump`]), not linfa-trees': linfa-trees 0.8.0 breaks modal-class
//!   ties in `HashMap` order, seeded per process, so SAMME's figures moved between two runs of
//!   the same config, and it re-sorts every column for every tree, which made SAMME a third of
//!   `parcels experiment configs/paper-basic.toml`. [`GiniStump`] sorts each column once per
//!   training set and breaks every tie by index, so SAMME is reproducible.
//!
//! linfa-trees settings for [`fit_decision_tree`] (checked against linfa-trees 0.8.0's source;
//! they were first found when SAMME boosted its stumps, and stay for weighted uses of the tree):
//! - `min_weight_leaf` compares a side's summed *weight*; its default 1.0 rejects every split
//!   once weights sum to 1. It cannot be 0 or tiny either: linfa-trees gets each side's weight
//!   and class counts by f32 subtraction, so a side that should be empty can keep a rounding
//!   residue (up to n·2⁻²⁴ of the total), and its Gini impurity then asserts a positive class
//!   total (a panic). Weights should average 1 per block, and leaves must weigh
//!   [`MIN_WEIGHT_LEAF`] = half an average block.
//! - `min_weight_split` compares the node's *sample count*, not weight: 2 (its default) is
//!   right and is set explicitly.
//! - `min_impurity_decrease` defaults to 1e-5; it is set to its smallest allowed value, machine
//!   epsilon (linfa rejects less).

use super::BoostError;
use crate::matrix::FeatureMatrix;
use linfa::dataset::DatasetBase;
use linfa::traits::Fit;
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

/// A decision stump chosen by weighted Gini impurity (a CART tree of depth 1): blocks with
/// `x[feature] ≤ threshold` get class `left`, the others class `right`. A stump that found no
/// split lowering the impurity is a constant (`feature` = `None`).
#[derive(Debug, Clone, PartialEq)]
pub struct GiniStump {
    pub feature: Option<usize>,
    pub threshold: f64,
    pub left: usize,
    pub right: usize,
}

impl GiniStump {
    /// The stump's class for one block's features.
    pub fn predict_one(&self, row: ArrayView1<f64>) -> usize {
        match self.feature {
            Some(f) if row[f] > self.threshold || row[f].is_nan() => self.right,
            _ => self.left,
        }
    }

    /// Fits the stump with the lowest weighted Gini impurity W_L·(1 − Σ_c p_Lc²) + W_R·(1 −
    /// Σ_c p_Rc²), thresholds at midpoints between consecutive distinct values (as CART).
    /// `sorted[f]` lists the rows by increasing value of feature f ([`sort_columns`]). Ties go to
    /// the lowest feature, then the lowest threshold; leaf classes to the lowest class index.
    pub fn fit(records: ArrayView2<f64>, sorted: &[Vec<u32>], targets: &[usize], weights: &[f64], n_classes: usize) -> Self {
        let k = n_classes;
        let mut total = vec![0.0; k];
        for (&y, &w) in targets.iter().zip(weights) {
            total[y] += w;
        }
        let w_all: f64 = total.iter().sum();
        let constant = Self { feature: None, threshold: f64::NAN, left: argmax_slice(&total), right: argmax_slice(&total) };
        if w_all.is_nan() || w_all <= 0.0 {
            return constant;
        }
        // Σ_c W_c²/W of the unsplit node; a split must raise Σ over both sides beyond it.
        let unsplit = total.iter().map(|t| t * t).sum::<f64>() / w_all;
        let mut best: Option<(f64, usize, usize)> = None; // (score, feature, position in order)
        let (mut left, mut right_sq) = (vec![0.0; k], Vec::with_capacity(records.nrows()));
        for (f, order) in sorted.iter().enumerate() {
            let column = records.column(f);
            // Right sides' Σ_c W_c² at every position, walking down (sums of non-negative
            // terms, never a difference, so a small side keeps its precision).
            right_sq.clear();
            right_sq.resize(order.len() + 1, 0.0);
            left.iter_mut().for_each(|x| *x = 0.0);
            let mut sq = 0.0;
            for (p, &r) in order.iter().enumerate().rev() {
                let (y, w) = (targets[r as usize], weights[r as usize]);
                sq += w * (2.0 * left[y] + w);
                left[y] += w;
                right_sq[p] = sq;
            }
            left.iter_mut().for_each(|x| *x = 0.0);
            let (mut sq, mut w_left) = (0.0, 0.0);
            for (p, pair) in order.windows(2).enumerate() {
                let (r, next) = (pair[0] as usize, pair[1] as usize);
                let (y, w) = (targets[r], weights[r]);
                sq += w * (2.0 * left[y] + w);
                left[y] += w;
                w_left += w;
                // A cut only between distinct values (0.0 and −0.0 are one value).
                let (a, b) = (column[r], column[next]);
                if a == b || (a.is_nan() && b.is_nan()) {
                    continue;
                }
                let w_right = w_all - w_left;
                if w_left <= 0.0 || w_right <= 0.0 {
                    continue;
                }
                let score = sq / w_left + right_sq[p + 1] / w_right;
                if best.is_none_or(|(b, _, _)| score > b) {
                    best = Some((score, f, p));
                }
            }
        }
        let Some((_, f, p)) = best.filter(|&(score, _, _)| score > unsplit * (1.0 + 1e-12)) else {
            return constant;
        };
        let order = &sorted[f];
        let mut left = vec![0.0; k];
        for &r in &order[..=p] {
            left[targets[r as usize]] += weights[r as usize];
        }
        let right: Vec<f64> = total.iter().zip(&left).map(|(t, l)| t - l).collect();
        let column = records.column(f);
        let (a, b) = (column[order[p] as usize], column[order[p + 1] as usize]);
        Self { feature: Some(f), threshold: super::bins::separating_midpoint(a, b), left: argmax_slice(&left), right: argmax_slice(&right) }
    }
}

/// Per feature, the rows in increasing order of its value (`total_cmp`, so NaN last; ties by
/// row), computed once per training set.
pub fn sort_columns(records: ArrayView2<f64>) -> Vec<Vec<u32>> {
    records
        .columns()
        .into_iter()
        .map(|col| {
            let mut order: Vec<u32> = (0..col.len()).map(|r| u32::try_from(r).unwrap_or(u32::MAX)).collect();
            order.sort_by(|&a, &b| col[a as usize].total_cmp(&col[b as usize]).then(a.cmp(&b)));
            order
        })
        .collect()
}

/// The first index of the largest value.
fn argmax_slice(x: &[f64]) -> usize {
    let mut best = 0;
    for (i, &v) in x.iter().enumerate() {
        if v > x[best] {
            best = i;
        }
    }
    best
}

/// AdaBoost SAMME over Gini stumps: a vote of stumps weighted by α.
#[derive(Debug, Clone)]
pub struct SammeStumps {
    stumps: Vec<(GiniStump, f64)>,
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
        if targets.len() != n {
            return Err(BoostError::TargetsMismatch { records: n, targets: targets.len() });
        }
        let n_classes = n_classes.max(2);
        if let Some((row, &label)) = targets.iter().enumerate().find(|(_, &y)| y >= n_classes) {
            return Err(BoostError::LabelOutOfRange { row, label, n_classes });
        }
        let k = n_classes as f64;
        let y: Vec<usize> = targets.to_vec();
        let sorted = sort_columns(records);
        let mut w = vec![1.0 / n as f64; n];
        let mut stumps = Vec::new();
        for _ in 0..n_estimators {
            let stump = GiniStump::fit(records, &sorted, &y, &w, n_classes);
            let miss: Vec<bool> = records.rows().into_iter().zip(&y).map(|(row, &t)| stump.predict_one(row) != t).collect();
            // Algorithm 2, step 2(b): weighted error.
            let err: f64 = w.iter().zip(&miss).filter(|(_, &m)| m).map(|(x, _)| x).sum::<f64>() / w.iter().sum::<f64>();
            if err <= 0.0 {
                stumps.push((stump, 1.0));
                break;
            }
            if err >= 1.0 - 1.0 / k {
                if stumps.is_empty() {
                    stumps.push((stump, 1.0));
                }
                break;
            }
            // Step 2(c): α = ln((1 − err)/err) + ln(k − 1).
            let alpha = ((1.0 - err) / err).ln() + (k - 1.0).ln();
            // Step 2(d): up-weight the misclassified blocks, then renormalise.
            w.iter_mut().zip(&miss).filter(|(_, &m)| m).for_each(|(x, _)| *x *= alpha.exp());
            let total: f64 = w.iter().sum();
            if !(total.is_finite() && total > 0.0) {
                break;
            }
            w.iter_mut().for_each(|x| *x /= total);
            stumps.push((stump, alpha));
        }
        Ok(Self { stumps, n_classes })
    }

    /// [`fit`](Self::fit) on the dense form of a feature matrix (missing values read as 0).
    pub fn fit_on(records: &FeatureMatrix, targets: ArrayView1<usize>, n_classes: usize, n_estimators: usize) -> Result<Self, BoostError> {
        Self::fit(records.to_dense(0.0).view(), targets, n_classes, n_estimators)
    }

    pub fn n_stumps(&self) -> usize {
        self.stumps.len()
    }

    /// The stumps and their weights α, in boosting order.
    pub fn stumps(&self) -> &[(GiniStump, f64)] {
        &self.stumps
    }

    /// Step 3: the class with the largest α-weighted vote (lowest index on ties).
    pub fn predict(&self, records: ArrayView2<f64>) -> Array1<usize> {
        let mut votes = Array2::<f64>::zeros((records.nrows(), self.n_classes));
        for (stump, alpha) in &self.stumps {
            for (i, row) in records.rows().into_iter().enumerate() {
                if let Some(v) = votes.get_mut((i, stump.predict_one(row))) {
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
    use linfa::traits::Predict;
    use ndarray::array;

    /// Hand-worked: values 1, 2, 3, 4 with classes 0, 0, 1, 1 and weights 0.1, 0.2, 0.3, 0.4.
    /// Cut after 1: left {0: 0.1}, right {0: 0.2, 1: 0.7}: Σ W²/W = 0.01/0.1 + (0.04 + 0.49)/0.9
    /// = 0.689; after 2: 0.09/0.3 + 0.49/0.7 = 1.0 (both pure); after 3: (0.01 + 0.09)/0.6 +
    /// 0.16/0.4 ≈ 0.567. So the cut is after 2, at the midpoint 2.5. Feature 1 is the same
    /// column reversed, as good but later: feature 0 wins the tie.
    #[test]
    fn gini_stump_has_hand_worked_split_and_breaks_ties_by_index() {
        let x = array![[1.0, -1.0], [2.0, -2.0], [3.0, -3.0], [4.0, -4.0]];
        let y = [0usize, 0, 1, 1];
        let w = [0.1, 0.2, 0.3, 0.4];
        let sorted = sort_columns(x.view());
        assert_eq!(sorted[1], vec![3, 2, 1, 0]);
        let s = GiniStump::fit(x.view(), &sorted, &y, &w, 2);
        assert_eq!(s, GiniStump { feature: Some(0), threshold: 2.5, left: 0, right: 1 });
        // Only feature 1: the cut between −3 and −2, classes the other way round.
        let reversed = x.slice(ndarray::s![.., 1..2]);
        let s = GiniStump::fit(reversed, &sort_columns(reversed), &y, &w, 2);
        assert_eq!(s, GiniStump { feature: Some(0), threshold: -2.5, left: 1, right: 0 });
    }

    /// A column that cannot separate the classes any better than no split gives a constant
    /// stump of the heaviest class; 0.0 and −0.0 are one value, never cut apart.
    #[test]
    fn no_useful_split_is_a_constant_stump() {
        let x = array![[0.0], [-0.0], [0.0], [-0.0]];
        let s = GiniStump::fit(x.view(), &sort_columns(x.view()), &[0, 1, 1, 0], &[0.2, 0.3, 0.3, 0.2], 2);
        assert_eq!((s.feature, s.left, s.right), (None, 1, 1));
        assert_eq!(s.predict_one(ndarray::array![5.0].view()), 1);
    }

    #[test]
    fn samme_is_the_same_model_on_every_run() {
        let x = array![[1.0, 3.0], [2.0, 1.0], [3.0, 3.0], [4.0, 1.0], [5.0, 3.0], [6.0, 1.0], [7.0, 2.0]];
        let y = array![0usize, 1, 0, 1, 2, 2, 0];
        let a = SammeStumps::fit(x.view(), y.view(), 3, 20).expect("fits");
        let b = SammeStumps::fit(x.view(), y.view(), 3, 20).expect("fits");
        assert_eq!(a.stumps(), b.stumps());
        assert!(SammeStumps::fit(x.view(), array![0usize, 1, 0, 1, 2, 2, 3].view(), 3, 5).is_err(), "label 3 of 3 classes");
    }

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
