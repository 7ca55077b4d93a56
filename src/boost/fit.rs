//! The boosting loop (Schapire & Singer 1999, algorithm AdaBoost.MH; BoosTexter's "real
//! AdaBoost.MH"): initialise D, then each round pick the stump minimising Z, set its
//! confidences, reweight, until the round budget or a stop condition.

use super::distribution::Distribution;
use super::model::{AdaBoostMh, StopReason, FORMAT_VERSION};
use super::search::{Candidate, TrainIndex};
use super::stump::{Branch, Stump};
use super::{AdaBoostMhValidParams, BoostError};
use crate::matrix::FeatureMatrix;

/// A best Z at or below this means every part of the partition is pure for every class: the
/// training set is fitted and further rounds would only repeat the stump.
const PERFECT_Z: f64 = 1e-12;
/// A best Z at or above 1 − this means no stump has an edge over abstaining.
const NO_EDGE: f64 = 1e-12;

impl AdaBoostMhValidParams {
    /// Trains on `records` (one row per block) with class indices `targets`.
    pub fn train(&self, records: &FeatureMatrix, targets: &[usize]) -> Result<AdaBoostMh, BoostError> {
        self.train_weighted(records, targets, None)
    }

    /// Like [`train`](Self::train), with one non-negative weight per block multiplying its
    /// initial distribution (linfa dataset weights arrive here).
    pub fn train_weighted(&self, records: &FeatureMatrix, targets: &[usize], sample_weights: Option<&[f64]>) -> Result<AdaBoostMh, BoostError> {
        self.train_observed(records, targets, sample_weights, &mut |_| {})
    }

    /// Like [`train_weighted`](Self::train_weighted), calling `on_round(t)` after round `t`
    /// (from 1) is fitted: for a caller that reports how far a long training is. The rounds and
    /// the model are those of `train_weighted`.
    pub fn train_observed(
        &self,
        records: &FeatureMatrix,
        targets: &[usize],
        sample_weights: Option<&[f64]>,
        on_round: &mut dyn FnMut(usize),
    ) -> Result<AdaBoostMh, BoostError> {
        let n_classes = self.resolve_classes(records, targets)?;
        let mut d = self.initial_distribution(targets, n_classes, sample_weights)?;
        let epsilon = self.smoothing().unwrap_or(1.0 / (records.n_rows() * n_classes) as f64);
        let index = TrainIndex::new(records, self.max_bins());
        let mut stumps = Vec::new();
        let mut round_z = Vec::new();
        let mut stop_reason = StopReason::AllRounds;
        for _round in 0..self.n_rounds() {
            // Step 1 (weak learner): the stump minimising Z under D_t.
            let Some(best) = index.best_split(&d) else {
                stop_reason = StopReason::NoUsefulSplit;
                break;
            };
            if best.z >= 1.0 - NO_EDGE || !best.z.is_finite() {
                stop_reason = StopReason::NoUsefulSplit;
                break;
            }
            let mut fitted_z = best.z;
            // Step 3: D_{t+1}(i,l) = D_t(i,l)·exp(−Y_il·h_t(xᵢ,l)) / Z_t.
            let (stump, reweighted) = if self.splits() > 1 {
                let Some(grown) = super::tree::grow(&index, &d, best, self.splits(), epsilon) else {
                    stop_reason = StopReason::NoUsefulSplit;
                    break;
                };
                fitted_z = grown.z;
                let outputs: Vec<&[f64]> = grown.outputs.iter().map(Vec::as_slice).collect();
                let z = d.reweight_leaves(&outputs, &grown.leaves);
                (grown.tree, z)
            } else {
                let branches = index.branches(&best);
                let mut stump = build_stump(&d, &best, &branches, None, &index, epsilon);
                let z = if self.depth() >= 2 {
                    let leaves = grow_children(&index, &d, &mut stump, &branches, epsilon);
                    d.reweight_leaves(&leaf_outputs(&stump), &leaves)
                } else {
                    d.reweight(&stump, &branches)
                };
                (stump, z)
            };
            let Some(z) = reweighted else {
                stop_reason = StopReason::NonFiniteWeights;
                break;
            };
            stumps.push(stump);
            round_z.push(z);
            on_round(stumps.len());
            if fitted_z <= PERFECT_Z {
                stop_reason = StopReason::PerfectFit;
                break;
            }
        }
        Ok(AdaBoostMh {
            format_version: FORMAT_VERSION,
            n_classes,
            schema: records.schema().clone(),
            stumps,
            round_z,
            stop_reason,
            epsilon,
            params: self.clone(),
            checked: Default::default(),
        })
    }

    fn resolve_classes(&self, records: &FeatureMatrix, targets: &[usize]) -> Result<usize, BoostError> {
        if records.n_rows() != targets.len() {
            return Err(BoostError::TargetsMismatch { records: records.n_rows(), targets: targets.len() });
        }
        if targets.is_empty() {
            return Err(BoostError::EmptyTrainingSet);
        }
        let inferred = targets.iter().max().map_or(0, |m| m + 1);
        let n_classes = self.n_classes().unwrap_or(inferred.max(2));
        if n_classes < 2 {
            return Err(BoostError::TooFewClasses { n_classes });
        }
        if let Some((row, &label)) = targets.iter().enumerate().find(|(_, &y)| y >= n_classes) {
            return Err(BoostError::LabelOutOfRange { row, label, n_classes });
        }
        if let Some(w) = self.class_weights().filter(|w| w.len() != n_classes) {
            return Err(BoostError::ClassWeightsLength { expected: n_classes, got: w.len() });
        }
        Ok(n_classes)
    }

    /// D₁(i,l) ∝ sample_weight(i) · class_weight(yᵢ), uniform 1/(m·k) by default
    /// (S&S 1999, AdaBoost.MH: "initialize D₁(i,l) = 1/(mk)").
    fn initial_distribution(&self, targets: &[usize], k: usize, sample_weights: Option<&[f64]>) -> Result<Distribution, BoostError> {
        let m = targets.len();
        if let Some(w) = sample_weights {
            if w.len() != m {
                return Err(BoostError::SampleWeights { reason: format!("{} weights for {m} blocks", w.len()) });
            }
            if let Some(x) = w.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
                return Err(BoostError::SampleWeights { reason: format!("weight {x} is not finite and ≥ 0") });
            }
        }
        let block_weight = |i: usize| {
            let s = sample_weights.map_or(1.0, |w| w[i]);
            let c = self.class_weights().map_or(1.0, |w| w[targets[i]]);
            s * c
        };
        let total: f64 = (0..m).map(|i| block_weight(i) * k as f64).sum();
        if !(total.is_finite() && total > 0.0) {
            return Err(BoostError::SampleWeights { reason: "weights sum to zero or overflow".into() });
        }
        let weights: Vec<f64> = (0..m).map(|i| block_weight(i) / total).collect();
        Ok(Distribution::new(targets, k, &weights))
    }
}

/// Step 2: the chosen partition's confidences c_jl = ½·ln((W₊ʲˡ + ε)/(W₋ʲˡ + ε)) (S&S 1999,
/// section 4.1, with the smoothing of section 4.2), over the blocks of `node` (all blocks
/// without one). A branch with no training weight predicts 0.
fn build_stump(d: &Distribution, best: &Candidate, branches: &[Branch], node: Option<(&[u16], u16)>, index: &TrainIndex, epsilon: f64) -> Stump {
    let weights = d.branch_weights(branches, node);
    let outputs = weights.map(|(pos, neg)| confidences(&pos, &neg, epsilon));
    Stump { test: index.test(best), outputs, children: None }
}

/// A part's confidences c_l = ½·ln((W₊ˡ + ε)/(W₋ˡ + ε)), one per class of `pos` and `neg`
/// (S&S 1999, section 4.1, smoothed as in section 4.2): a stump's branches and a tree's leaves.
pub(super) fn confidences(pos: &[f64], neg: &[f64], epsilon: f64) -> Vec<f64> {
    pos.iter().zip(neg).map(|(&p, &n)| 0.5 * ((p + epsilon) / (n + epsilon)).ln()).collect()
}

/// Depth 2: under each branch of `root` holding training weight, the stump minimising Z over
/// that branch's blocks alone ([`TrainIndex::best_split_in`] on the branch's blocks, split from
/// the whole index by [`TrainIndex::split`]).
/// Returns each block's leaf in [`leaf_outputs`]' numbering.
fn grow_children(index: &TrainIndex, d: &Distribution, root: &mut Stump, branches: &[Branch], epsilon: f64) -> Vec<u16> {
    let node_of: Vec<u16> = branches.iter().map(|&b| b as u16).collect();
    let part_of: Vec<u8> = branches.iter().map(|&b| b as u8).collect();
    let nodes = index.split(None, &part_of, 3);
    let mut leaves = node_of.clone();
    let mut children: [Option<Stump>; 3] = Default::default();
    for (j, (child, node_index)) in children.iter_mut().zip(&nodes).enumerate() {
        let node = j as u16;
        let totals = d.node_totals(&node_of, node);
        let total: f64 = totals[0].iter().chain(&totals[1]).sum();
        if !(total.is_finite() && total > 0.0) {
            continue;
        }
        let Some(best) = index.best_split_in(d, &totals, node_index) else { continue };
        let under = index.branches(&best);
        let stump = build_stump(d, &best, &under, Some((&node_of, node)), index, epsilon);
        for (leaf, (&b, &u)) in leaves.iter_mut().zip(node_of.iter().zip(&under)) {
            if b == node {
                *leaf = 3 + 3 * node + u as u16;
            }
        }
        *child = Some(stump);
    }
    root.children = Some(Box::new(children));
    leaves
}

/// The confidences of each leaf of a tree: the root's three branches (used where a branch has
/// no child), then each child's three branches (child j's branch b is leaf 3 + 3j + b).
fn leaf_outputs(tree: &Stump) -> Vec<&[f64]> {
    let mut out: Vec<&[f64]> = tree.outputs.iter().map(Vec::as_slice).collect();
    for j in 0..3 {
        match tree.children.as_ref().and_then(|c| c[j].as_ref()) {
            Some(child) => out.extend(child.outputs.iter().map(Vec::as_slice)),
            None => out.extend(std::iter::repeat_n(&[][..], 3)),
        }
    }
    out
}
