//! Hyper-parameters, following linfa's pattern: [`AdaBoostMhParams`] (unchecked, consuming
//! setters) → [`linfa::ParamGuard::check`] → [`AdaBoostMhValidParams`] (private fields).

use super::BoostError;
use linfa::ParamGuard;
use serde::{Deserialize, Serialize};

/// Default cap on candidate thresholds per numeric feature; see [`AdaBoostMhParams::max_bins`].
pub const DEFAULT_MAX_BINS: usize = 255;

/// Validated boosting parameters; obtained from [`AdaBoostMhParams`] through `check`, or used
/// implicitly by `fit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdaBoostMhValidParams {
    n_rounds: usize,
    n_classes: Option<usize>,
    smoothing: Option<f64>,
    max_bins: Option<usize>,
    class_weights: Option<Vec<f64>>,
    /// 1: stumps (absent from saved models, which read as stumps); 2: two-level trees.
    #[serde(default = "stump_depth", skip_serializing_if = "is_stump_depth")]
    depth: usize,
    /// Tests per round's Hamming tree (1: stumps or the `depth` trees; absent from saved models,
    /// which read as 1).
    #[serde(default = "stump_depth", skip_serializing_if = "is_stump_depth")]
    splits: usize,
}

/// Most tests a round's tree may have ([`AdaBoostMhParams::splits`]).
pub const MAX_SPLITS: usize = 64;

fn stump_depth() -> usize {
    1
}

fn is_stump_depth(d: &usize) -> bool {
    *d == 1
}

impl AdaBoostMhValidParams {
    /// Maximum number of boosting rounds (stumps).
    pub fn n_rounds(&self) -> usize {
        self.n_rounds
    }

    /// Number of classes, or `None` to use `1 + the largest training label`.
    pub fn n_classes(&self) -> Option<usize> {
        self.n_classes
    }

    /// The ε of the smoothed stump outputs, or `None` for `1 / (n_blocks · n_classes)`.
    pub fn smoothing(&self) -> Option<f64> {
        self.smoothing
    }

    /// Cap on candidate thresholds per numeric feature (`None`: every distinct value).
    pub fn max_bins(&self) -> Option<usize> {
        self.max_bins
    }

    /// Per-class multipliers of the initial distribution (`None`: all 1).
    pub fn class_weights(&self) -> Option<&[f64]> {
        self.class_weights.as_deref()
    }

    /// Levels of each round's weak hypothesis: 1 for stumps, 2 for two-level trees.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Tests per round's Hamming tree; 1 for stumps (and for `depth = 2` trees).
    pub fn splits(&self) -> usize {
        self.splits
    }

    /// Most tests one round's weak hypothesis has: what a saved model's trees are checked
    /// against.
    pub fn max_tests(&self) -> usize {
        if self.depth >= 2 {
            4
        } else {
            self.splits
        }
    }

    /// Most levels of tests one round's weak hypothesis has.
    pub fn max_levels(&self) -> usize {
        if self.depth >= 2 {
            2
        } else {
            self.splits
        }
    }

    /// A copy with a different round count (used by cross-validation and callers that pick
    /// the round count after validation).
    pub fn with_n_rounds(&self, n_rounds: usize) -> Result<Self, BoostError> {
        AdaBoostMhParams(Self { n_rounds, ..self.clone() }).check()
    }

    /// A copy with a different weak-hypothesis depth (the context stage may differ from the
    /// views).
    pub fn with_depth(&self, depth: usize) -> Result<Self, BoostError> {
        AdaBoostMhParams(Self { depth, ..self.clone() }).check()
    }

    /// A copy whose rounds add Hamming trees of up to `splits` tests (the context stage may
    /// differ from the views).
    pub fn with_splits(&self, splits: usize) -> Result<Self, BoostError> {
        AdaBoostMhParams(Self { splits, ..self.clone() }).check()
    }

    /// A copy with a fixed number of classes (cross-validation fixes it from all the data so
    /// that every fold's model scores every class).
    pub(crate) fn with_n_classes(&self, n_classes: usize) -> Result<Self, BoostError> {
        AdaBoostMhParams(Self { n_classes: Some(n_classes), ..self.clone() }).check()
    }
}

/// Boosting parameters before validation. Start from [`AdaBoostMhParams::new`] (or
/// `AdaBoostMh::params()`) and chain setters.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaBoostMhParams(AdaBoostMhValidParams);

impl Default for AdaBoostMhParams {
    fn default() -> Self {
        Self::new()
    }
}

impl AdaBoostMhParams {
    /// Defaults: 100 rounds, classes inferred, ε = 1/(n·k), at most 255 thresholds per numeric
    /// feature, no class weights.
    pub fn new() -> Self {
        Self(AdaBoostMhValidParams {
            n_rounds: 100,
            n_classes: None,
            smoothing: None,
            max_bins: Some(DEFAULT_MAX_BINS),
            class_weights: None,
            depth: 1,
            splits: 1,
        })
    }

    /// Number of boosting rounds, each adding one stump (≥ 1). Training may stop earlier; the
    /// model records why.
    pub fn n_rounds(mut self, n_rounds: usize) -> Self {
        self.0.n_rounds = n_rounds;
        self
    }

    /// Fixes the number of classes (≥ 2). Set it when a training subset (a fold, an early
    /// co-training pool) may miss some classes: the model then still scores all of them.
    pub fn n_classes(mut self, n_classes: Option<usize>) -> Self {
        self.0.n_classes = n_classes;
        self
    }

    /// The ε added to both weights in the stump outputs ½·ln((W₊+ε)/(W₋+ε)), which keeps
    /// them finite when one side is empty. Schapire & Singer (1999, section 4.2) advise ε of
    /// order 1/(m·k); `None` uses exactly that.
    pub fn smoothing(mut self, epsilon: Option<f64>) -> Self {
        self.0.smoothing = epsilon;
        self
    }

    /// Caps candidate thresholds per numeric feature at `max_bins` quantile cut points (≥ 2).
    /// Features with at most that many distinct values (counts, flags, font sizes: most
    /// layout features) are searched exactly as BoosTexter does; `None` always searches
    /// every distinct value, which is slower on continuous features.
    pub fn max_bins(mut self, max_bins: Option<usize>) -> Self {
        self.0.max_bins = max_bins;
        self
    }

    /// Levels of the weak hypothesis each round adds (1 or 2; default 1, the paper's and
    /// BoosTexter's stumps). With 2, each part of the round's stump is split again by the
    /// stump that minimises Z over that part's blocks alone: a tree of at most nine parts,
    /// still a domain-partitioning hypothesis with one confidence per part and class (S&S
    /// 1999, section 4), chosen greedily as Kégl's Hamming trees are (Kégl, *The return of
    /// AdaBoost.MH: multi-class Hamming trees*, ICLR 2014). Stumps add one feature's vote at a
    /// time, so a stump model cannot say "short *and* inside an author box"; a tree can. A
    /// round costs up to four stump searches.
    pub fn depth(mut self, depth: usize) -> Self {
        self.0.depth = depth;
        self
    }

    /// Tests of the weak hypothesis each round adds (1 to [`MAX_SPLITS`]; default 1, stumps).
    /// With more, each round grows a multi-class Hamming tree (Kégl, ICLR 2014): all classes
    /// share its partition, each leaf votes one confidence per class, and it grows best-first,
    /// each step splitting the leaf whose best stump (over the leaf's blocks alone) lowers Z
    /// most. A tree of `s` tests has up to 2·s + 1 leaves (numeric tests also part off missing
    /// values). A round of 4 tests costs about 4 stump rounds on 20,000 blocks, each node's
    /// search walking only its own blocks (`reports/benchmarks/boost.md`). Exclusive with
    /// `depth = 2`.
    pub fn splits(mut self, splits: usize) -> Self {
        self.0.splits = splits;
        self
    }

    /// Cost-sensitive boosting: the initial weight of every (block, class) pair is multiplied
    /// by the weight of the block's true class, so rare classes can count more. One finite
    /// positive weight per class; `None` (default) treats classes alike.
    pub fn class_weights(mut self, weights: Option<Vec<f64>>) -> Self {
        self.0.class_weights = weights;
        self
    }
}

fn invalid(name: &'static str, value: String, constraint: &'static str) -> BoostError {
    BoostError::InvalidParam { name, value, constraint }
}

impl ParamGuard for AdaBoostMhParams {
    type Checked = AdaBoostMhValidParams;
    type Error = BoostError;

    fn check_ref(&self) -> Result<&Self::Checked, Self::Error> {
        let p = &self.0;
        if p.n_rounds == 0 {
            return Err(invalid("n_rounds", "0".into(), "must be at least 1"));
        }
        if let Some(k) = p.n_classes.filter(|&k| k < 2) {
            return Err(invalid("n_classes", k.to_string(), "must be at least 2"));
        }
        if let Some(e) = p.smoothing.filter(|e| !(e.is_finite() && *e > 0.0)) {
            return Err(invalid("smoothing", e.to_string(), "must be finite and > 0"));
        }
        if !(1..=2).contains(&p.depth) {
            return Err(invalid("depth", p.depth.to_string(), "must be 1 (stumps) or 2 (two-level trees)"));
        }
        if !(1..=MAX_SPLITS).contains(&p.splits) {
            return Err(invalid("splits", p.splits.to_string(), "must be from 1 (stumps) to 64"));
        }
        if p.splits > 1 && p.depth > 1 {
            return Err(invalid("splits", p.splits.to_string(), "Hamming trees (splits > 1) and two-level trees (depth = 2) exclude each other"));
        }
        if let Some(b) = p.max_bins.filter(|&b| b < 2) {
            return Err(invalid("max_bins", b.to_string(), "must be at least 2"));
        }
        if let Some(w) = &p.class_weights {
            if w.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
                return Err(invalid("class_weights", format!("{w:?}"), "every weight must be finite and > 0"));
            }
            if let Some(k) = p.n_classes.filter(|&k| k != w.len()) {
                return Err(BoostError::ClassWeightsLength { expected: k, got: w.len() });
            }
        }
        Ok(p)
    }

    fn check(self) -> Result<Self::Checked, Self::Error> {
        self.check_ref()?;
        Ok(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_rejects_each_bad_parameter() {
        let bad = [
            AdaBoostMhParams::new().n_rounds(0),
            AdaBoostMhParams::new().n_classes(Some(1)),
            AdaBoostMhParams::new().smoothing(Some(0.0)),
            AdaBoostMhParams::new().smoothing(Some(f64::NAN)),
            AdaBoostMhParams::new().max_bins(Some(1)),
            AdaBoostMhParams::new().depth(0),
            AdaBoostMhParams::new().depth(3),
            AdaBoostMhParams::new().splits(0),
            AdaBoostMhParams::new().splits(MAX_SPLITS + 1),
            AdaBoostMhParams::new().splits(3).depth(2),
            AdaBoostMhParams::new().class_weights(Some(vec![1.0, -1.0])),
        ];
        for p in bad {
            assert!(matches!(p.clone().check(), Err(BoostError::InvalidParam { .. })), "{p:?} should be rejected");
        }
        let mismatch = AdaBoostMhParams::new().n_classes(Some(3)).class_weights(Some(vec![1.0, 2.0]));
        assert!(matches!(mismatch.check(), Err(BoostError::ClassWeightsLength { expected: 3, got: 2 })));
        let ok = AdaBoostMhParams::new().n_rounds(7).check().expect("valid");
        assert_eq!(ok.n_rounds(), 7);
        assert_eq!(ok.max_bins(), Some(DEFAULT_MAX_BINS));
    }
}
