//! A trained boosted-stump model and its predictions: per-class scores, labels, calibrated
//! probabilities and confidences, round-by-round (staged) scores, JSON persistence.

use super::stump::{Stump, StumpTest, TokenRows};
use super::{AdaBoostMhParams, AdaBoostMhValidParams, BoostError};
use crate::matrix::{FeatureMatrix, FeatureSchema};
use ndarray::{Array1, Array2, ArrayView1};
use serde::{Deserialize, Serialize};

/// Version of the saved-model layout; bump when fields change meaning.
pub const FORMAT_VERSION: u32 = 1;

/// Most classes a loaded model may have ([`AdaBoostMh::validate`]); block labelling schemes
/// have a handful.
pub const MAX_CLASSES: usize = 1024;

/// Largest confidence magnitude a loaded stump may have ([`AdaBoostMh::validate`]). A trained
/// stump's confidence is ½ ln((W₊ + ε)/(W₋ + ε)) with weights summing to 1 and ε > 0 (Schapire
/// & Singer 1999, section 4.2), so it stays below ½ ln(1 + 1/ε) < 373 for every positive `f64`
/// ε (the shipped models' largest is 4.1). A larger value can only come from an edited file: it
/// would outvote every other stump (and sums of such values overflow to ±∞ and NaN).
pub const MAX_CONFIDENCE: f64 = 1000.0;

/// Why training stopped adding stumps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopReason {
    /// All `n_rounds` rounds were run.
    AllRounds,
    /// The last stump splits the training blocks into class-pure parts (Z ≈ 0); more rounds
    /// would only repeat it.
    PerfectFit,
    /// No stump has Z < 1: every split is as good as abstaining, so boosting cannot progress.
    NoUsefulSplit,
    /// Reweighting overflowed or vanished; the offending stump was not added.
    NonFiniteWeights,
}

/// A boosted-stump classifier over one view (or both views joined): a sequence of stumps, one
/// per round, whose per-class outputs add up to each block's class scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdaBoostMh {
    pub(crate) format_version: u32,
    pub(crate) n_classes: usize,
    pub(crate) schema: FeatureSchema,
    pub(crate) stumps: Vec<Stump>,
    /// Z_t, the reweighting normaliser of each round.
    pub(crate) round_z: Vec<f64>,
    pub(crate) stop_reason: StopReason,
    pub(crate) epsilon: f64,
    pub(crate) params: AdaBoostMhValidParams,
    /// The first records' schema found equal to `schema`, kept so that later records sharing
    /// its name lists (every page's matrix from one view builder) pass the check without
    /// comparing tens of thousands of names again.
    #[serde(skip)]
    pub(crate) checked: CheckedSchema,
}

/// Memo of [`AdaBoostMh::check_schema`]; not part of the model (always equal, never saved).
#[derive(Debug, Clone, Default)]
pub(crate) struct CheckedSchema(std::sync::OnceLock<FeatureSchema>);

impl PartialEq for CheckedSchema {
    fn eq(&self, _: &CheckedSchema) -> bool {
        true
    }
}

/// Labels and confidences of a set of blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct BoostPredictions {
    /// Per block, the class with the highest score (lowest index on ties).
    pub classes: Array1<usize>,
    /// Per block, the calibrated probability of that class (see the module docs), in [1/k, 1].
    pub confidences: Array1<f64>,
    /// Per block and class, the summed stump outputs f_l(x).
    pub scores: Array2<f64>,
}

impl AdaBoostMh {
    /// Default parameters, to chain setters on (as `linfa_trees::DecisionTree::params()`).
    pub fn params() -> AdaBoostMhParams {
        AdaBoostMhParams::new()
    }

    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// The stumps, in round order.
    pub fn stumps(&self) -> &[Stump] {
        &self.stumps
    }

    /// Normaliser Z_t of each round; their product bounds the training Hamming loss, and k
    /// times it bounds the training error (S&S 1999, Theorem 1 applied to the (block, class)
    /// pairs of AdaBoost.MH).
    pub fn round_normalizers(&self) -> &[f64] {
        &self.round_z
    }

    pub fn stop_reason(&self) -> StopReason {
        self.stop_reason
    }

    /// The ε used in the stump outputs.
    pub fn smoothing(&self) -> f64 {
        self.epsilon
    }

    /// Column names the model was trained on.
    pub fn schema(&self) -> &FeatureSchema {
        &self.schema
    }

    pub fn training_params(&self) -> &AdaBoostMhValidParams {
        &self.params
    }

    /// Fails unless `x` has exactly the training columns (same names, same order).
    pub fn check_schema(&self, x: &FeatureMatrix) -> Result<(), BoostError> {
        let schema = x.schema();
        if schema.same_lists(&self.schema) || self.checked.0.get().is_some_and(|c| schema.same_lists(c)) {
            return Ok(());
        }
        if schema == &self.schema {
            // Holding the lists keeps them alive, so an equal address always means equal names.
            let _ = self.checked.0.set(schema.clone());
            return Ok(());
        }
        Err(BoostError::SchemaMismatch {
            detail: format!(
                "model has {} numeric + {} token columns, records have {} + {} (or names differ)",
                self.schema.numeric_names.len(),
                self.schema.token_names.len(),
                x.n_numeric(),
                x.n_tokens()
            ),
        })
    }

    /// Class scores f_l(x) = Σ_t h_t(x, l), blocks × classes (scikit-learn's
    /// `decision_function`).
    pub fn decision_function(&self, x: &FeatureMatrix) -> Result<Array2<f64>, BoostError> {
        self.check_schema(x)?;
        Ok(self.scores_unchecked(x))
    }

    pub(crate) fn scores_unchecked(&self, x: &FeatureMatrix) -> Array2<f64> {
        let mut scores = Array2::zeros((x.n_rows(), self.n_classes));
        let present = TokenRows::new(&self.stumps, x);
        for stump in &self.stumps {
            stump.add_to(x, &present, &mut scores);
        }
        scores
    }

    /// Most likely class of each block.
    pub fn predict_classes(&self, x: &FeatureMatrix) -> Result<Array1<usize>, BoostError> {
        Ok(self.decision_function(x)?.rows().into_iter().map(argmax).collect())
    }

    /// Per block, calibrated class probabilities (rows sum to 1); see the module docs.
    pub fn predict_proba(&self, x: &FeatureMatrix) -> Result<Array2<f64>, BoostError> {
        Ok(to_probabilities(self.decision_function(x)?))
    }

    /// Classes, confidences and scores in one pass.
    pub fn predict_with_confidence(&self, x: &FeatureMatrix) -> Result<BoostPredictions, BoostError> {
        let scores = self.decision_function(x)?;
        let classes: Array1<usize> = scores.rows().into_iter().map(argmax).collect();
        let confidences = scores.rows().into_iter().zip(&classes).map(|(row, &c)| probabilities(row)[c]).collect();
        Ok(BoostPredictions { classes, confidences, scores })
    }

    /// Scores after each round: item t is the decision function of the first t+1 stumps
    /// (scikit-learn's `staged_decision_function`).
    pub fn staged_decision_function<'a>(&'a self, x: &'a FeatureMatrix) -> Result<StagedScores<'a>, BoostError> {
        self.check_schema(x)?;
        Ok(StagedScores { model: self, x, present: TokenRows::new(&self.stumps, x), next: 0, scores: Array2::zeros((x.n_rows(), self.n_classes)) })
    }

    /// Predicted classes after each round.
    pub fn staged_predict<'a>(&'a self, x: &'a FeatureMatrix) -> Result<impl Iterator<Item = Array1<usize>> + 'a, BoostError> {
        Ok(self.staged_decision_function(x)?.map(|s| s.rows().into_iter().map(argmax).collect()))
    }

    /// Saves as JSON (floats are written and read back exactly).
    pub fn to_json(&self) -> Result<String, BoostError> {
        Ok(serde_json::to_string(self)?)
    }

    /// Loads a model saved by [`to_json`](Self::to_json), rejecting other format versions and
    /// inconsistent models (see [`validate`](Self::validate)).
    pub fn from_json(json: &str) -> Result<Self, BoostError> {
        let model: Self = serde_json::from_str(json)?;
        model.validate()?;
        Ok(model)
    }

    /// Checks the internal consistency of a model read from outside (a file can be edited or
    /// corrupted, and serde only checks types): the format version; 2 to [`MAX_CLASSES`]
    /// classes; each stump's three confidence vectors having one finite value per class, none
    /// beyond ±`MAX_CONFIDENCE`; each stump's column within the schema's numeric or token columns, with a threshold that is not NaN; finite
    /// round normalisers, no more of them than stumps; a finite, non-negative smoothing ε; and
    /// column names that are unique within each table, as a matrix built from records requires.
    /// A model that passes can be applied to any matrix of its schema without panicking or
    /// reading out of range.
    pub fn validate(&self) -> Result<(), BoostError> {
        if self.format_version != FORMAT_VERSION {
            return Err(BoostError::FormatVersion { found: self.format_version, expected: FORMAT_VERSION });
        }
        let invalid = |detail: String| Err(BoostError::InvalidModel { detail });
        if self.n_classes < 2 {
            return invalid(format!("{} classes; a model has at least 2", self.n_classes));
        }
        // Scores are allocated blocks × classes before any stump is read, so a model without
        // stumps could still ask for any amount of memory through this number alone.
        if self.n_classes > MAX_CLASSES {
            return invalid(format!("{} classes, above the limit of {MAX_CLASSES}", self.n_classes));
        }
        let (n_numeric, n_tokens) = (self.schema.numeric_names.len(), self.schema.token_names.len());
        for (t, tree) in self.stumps.iter().enumerate() {
            let (levels, tests) = (tree.levels(), tree.nodes().count());
            if levels > self.params.max_levels() || tests > self.params.max_tests() {
                return invalid(format!(
                    "stump {t} is a tree of {tests} tests in {levels} levels; its parameters allow {} in {}",
                    self.params.max_tests(),
                    self.params.max_levels()
                ));
            }
            for stump in tree.nodes() {
                match stump.test {
                    StumpTest::AtMost { column, threshold } => {
                        if column >= n_numeric {
                            return invalid(format!("stump {t} tests numeric column {column}, but the schema has {n_numeric}"));
                        }
                        if threshold.is_nan() {
                            return invalid(format!("stump {t} has a NaN threshold"));
                        }
                    }
                    StumpTest::Present { column } => {
                        if column >= n_tokens {
                            return invalid(format!("stump {t} tests token column {column}, but the schema has {n_tokens}"));
                        }
                    }
                }
                for (branch, outputs) in stump.outputs.iter().enumerate() {
                    if outputs.len() != self.n_classes {
                        return invalid(format!("stump {t} branch {branch} has {} confidences for {} classes", outputs.len(), self.n_classes));
                    }
                    if let Some(v) = outputs.iter().find(|v| !v.is_finite()) {
                        return invalid(format!("stump {t} branch {branch} has a non-finite confidence {v}"));
                    }
                    if let Some(v) = outputs.iter().find(|v| v.abs() > MAX_CONFIDENCE) {
                        return invalid(format!("stump {t} branch {branch} has a confidence {v:e}, beyond ±{MAX_CONFIDENCE} (no trained stump reaches 373)"));
                    }
                }
            }
        }
        if self.round_z.len() > self.stumps.len() {
            return invalid(format!("{} round normalisers for {} stumps", self.round_z.len(), self.stumps.len()));
        }
        if let Some(z) = self.round_z.iter().find(|z| !z.is_finite()) {
            return invalid(format!("non-finite round normaliser {z}"));
        }
        if !(self.epsilon.is_finite() && self.epsilon >= 0.0) {
            return invalid(format!("smoothing ε = {}", self.epsilon));
        }
        for (kind, names) in [("numeric", &self.schema.numeric_names), ("token", &self.schema.token_names)] {
            let mut seen = std::collections::HashSet::with_capacity(names.len());
            if let Some(dup) = names.iter().find(|n| !seen.insert(n.as_str())) {
                return invalid(format!("{kind} column name {dup:?} appears twice"));
            }
        }
        Ok(())
    }
}

/// Iterator of scores after each boosting round; see
/// [`AdaBoostMh::staged_decision_function`].
pub struct StagedScores<'a> {
    model: &'a AdaBoostMh,
    x: &'a FeatureMatrix,
    present: TokenRows,
    next: usize,
    scores: Array2<f64>,
}

impl Iterator for StagedScores<'_> {
    type Item = Array2<f64>;

    fn next(&mut self) -> Option<Array2<f64>> {
        let stump = self.model.stumps.get(self.next)?;
        stump.add_to(self.x, &self.present, &mut self.scores);
        self.next += 1;
        Some(self.scores.clone())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.model.stumps.len() - self.next;
        (left, Some(left))
    }
}

/// Index of the largest score; the lowest index among equals (and 0 for an empty row).
pub fn argmax(scores: ArrayView1<f64>) -> usize {
    let mut best = 0;
    for (l, &s) in scores.iter().enumerate() {
        if s.total_cmp(&scores[best]).is_gt() {
            best = l;
        }
    }
    best
}

/// Calibrated class probabilities from one block's scores: the logistic link on 2·f_l
/// (P(Y_l = +1 | x) = 1/(1 + e^(−2 f_l)), Friedman, Hastie & Tibshirani 2000, Lemma 1 applied
/// per class), normalised to sum to 1 across classes.
pub fn probabilities(scores: ArrayView1<f64>) -> Array1<f64> {
    // Per class σ(2f); σ(t) = 1/(1+e^(−t)) written so it never overflows.
    let sigma = |t: f64| {
        if t >= 0.0 {
            1.0 / (1.0 + (-t).exp())
        } else {
            let e = t.exp();
            e / (1.0 + e)
        }
    };
    let p: Array1<f64> = scores.mapv(|f| sigma(2.0 * f));
    let total = p.sum();
    if total > 0.0 && total.is_finite() {
        p / total
    } else {
        // Every class at −∞ score: nothing to prefer.
        Array1::from_elem(scores.len(), 1.0 / scores.len().max(1) as f64)
    }
}

/// Every block's [`probabilities`], from a matrix of scores (rows: blocks), in place.
pub fn to_probabilities(mut scores: Array2<f64>) -> Array2<f64> {
    for mut row in scores.rows_mut() {
        let p = probabilities(row.view());
        row.assign(&p);
    }
    scores
}

/// Confidence of a block's predicted class: its calibrated probability, in [1/k, 1].
pub fn confidence(scores: ArrayView1<f64>) -> f64 {
    // 0 for an empty row (no class at all).
    probabilities(scores).get(argmax(scores)).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod validate_tests {
    use super::*;
    use crate::matrix::SparseRows;
    use linfa::ParamGuard;

    /// A small trained model: two numeric columns, one token column, three classes.
    fn model() -> (AdaBoostMh, FeatureMatrix) {
        let numeric = ndarray::array![[0.0, 5.0], [1.0, 4.0], [2.0, 3.0], [3.0, 2.0], [4.0, 1.0], [5.0, 0.0]];
        let tokens = SparseRows::from_rows(1, vec![vec![(0, 1.0)], vec![], vec![(0, 1.0)], vec![], vec![(0, 1.0)], vec![]]).unwrap();
        let x = FeatureMatrix::new(numeric, vec!["a".into(), "b".into()], tokens, vec!["t".into()]).unwrap();
        let model = AdaBoostMh::params().n_rounds(5).check().unwrap().train_weighted(&x, &[0, 0, 1, 1, 2, 2], None).unwrap();
        assert!(!model.stumps.is_empty());
        (model, x)
    }

    fn rejected(model: &AdaBoostMh, needle: &str) {
        let err = model.validate().unwrap_err();
        assert!(err.to_string().contains(needle), "{err}");
        // The JSON round trip refuses it too.
        assert!(AdaBoostMh::from_json(&serde_json::to_string(model).unwrap()).is_err());
    }

    #[test]
    fn a_trained_model_is_valid_and_round_trips() {
        let (model, x) = model();
        model.validate().unwrap();
        let back = AdaBoostMh::from_json(&model.to_json().unwrap()).unwrap();
        assert_eq!(back.predict_classes(&x).unwrap(), model.predict_classes(&x).unwrap());
    }

    #[test]
    fn shipped_models_are_valid() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/models");
        for name in ["default.json", "parcels-17.json"] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
            for view in ["stylistic", "lexical", "single_view", "context"] {
                if saved[view].is_null() {
                    continue;
                }
                let model: AdaBoostMh = serde_json::from_value(saved[view].clone()).unwrap();
                model.validate().unwrap_or_else(|e| panic!("{name} {view}: {e}"));
            }
        }
    }

    #[test]
    fn corrupted_models_are_rejected() {
        let (good, _) = model();
        let mut m = good.clone();
        m.stumps[0].outputs[1].pop();
        rejected(&m, "confidences for 3 classes");
        let mut m = good.clone();
        m.n_classes = 7;
        rejected(&m, "confidences for 7 classes");
        let mut m = good.clone();
        m.n_classes = 1;
        rejected(&m, "1 classes");
        let mut m = good.clone();
        (m.n_classes, m.stumps, m.round_z) = (usize::MAX, Vec::new(), Vec::new());
        rejected(&m, "above the limit");
        let mut m = good.clone();
        m.stumps[0].test = StumpTest::AtMost { column: 2, threshold: 1.0 };
        rejected(&m, "numeric column 2");
        let mut m = good.clone();
        m.stumps[0].test = StumpTest::Present { column: 1 };
        rejected(&m, "token column 1");
        let mut m = good.clone();
        m.stumps[0].test = StumpTest::AtMost { column: 0, threshold: f64::NAN };
        assert!(m.validate().unwrap_err().to_string().contains("NaN threshold"));
        let mut m = good.clone();
        m.stumps[0].outputs[0][0] = f64::INFINITY;
        assert!(m.validate().unwrap_err().to_string().contains("non-finite confidence"));
        let mut m = good.clone();
        m.stumps[0].outputs[2][1] = -1e308;
        rejected(&m, "has a confidence -1e308, beyond ±1000");
        let mut m = good.clone();
        m.round_z.push(0.5);
        m.round_z.push(0.5);
        m.round_z.extend(vec![0.5; m.stumps.len()]);
        rejected(&m, "round normalisers");
        let mut m = good.clone();
        m.epsilon = -1.0;
        rejected(&m, "smoothing");
        let mut m = good.clone();
        let mut names = m.schema.numeric_names.to_vec();
        names[1] = "a".into();
        m.schema.numeric_names = names.into();
        rejected(&m, "appears twice");
        let mut m = good;
        m.format_version = 99;
        assert!(matches!(m.validate(), Err(BoostError::FormatVersion { found: 99, .. })));
    }
}
