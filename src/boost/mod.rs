//! BoosTexter-style boosted decision stumps: multi-class AdaBoost.MH with real-valued,
//! confidence-rated predictions (Schapire & Singer, *Improved boosting algorithms using
//! confidence-rated predictions*, 1999; *BoosTexter*, 2000), the learner PARCELS trains on each
//! view (paper section 6).
//!
//! **Input**: a [`FeatureMatrix`](crate::matrix::FeatureMatrix) (one row per block; numeric
//! columns with `NaN` for missing, sparse token columns) or a dense `Array2<f64>`, and one
//! class index `0..k` per block.
//! **Output**: an immutable [`AdaBoostMh`] model: one stump per round; for each block a score
//! per class ([`AdaBoostMh::decision_function`]), a label (argmax, lowest class on ties) and a
//! confidence ([`AdaBoostMh::predict_with_confidence`]).
//!
//! # Algorithm
//! A distribution D over (block, class) pairs starts uniform (times optional class weights).
//! Each round picks the stump minimising Z = 2·Σ_j Σ_l sqrt(W₊ʲˡ·W₋ʲˡ) over the parts j of
//! its partition, where W₊ʲˡ (W₋ʲˡ) is the weight of blocks in part j that are (are not) of
//! class l. Part j then predicts c_jl = ½·ln((W₊ʲˡ+ε)/(W₋ʲˡ+ε)) for class l, and D is
//! reweighted by exp(−Y·c). Stumps test a numeric column (`x ≤ θ`, `x > θ`, missing: three
//! parts) or a token column (present, absent); both kinds compete in the same round.
//!
//! With `depth = 2` ([`AdaBoostMhParams::depth`]) each round's stump is grown into a two-level
//! tree: under each of its parts, the stump minimising Z over that part's blocks alone (D
//! restricted to them). With `splits = s` ([`AdaBoostMhParams::splits`]) each round grows a
//! multi-class Hamming tree of up to s tests best-first (Kégl 2014; the `tree` module). A tree
//! is still one domain partition with c_jl set and D reweighted exactly as above, so the
//! invariants below hold for trees too; it lets a round say "short *and* inside an author box",
//! which a sum of stumps cannot. A node's search walks only its own blocks: each split partitions
//! its parent's sorted orders among its children (the `partition` module).
//!
//! **Invariants**: D sums to 1 after every round; the product of the round normalisers
//! ([`AdaBoostMh::round_normalizers`]) equals the training exponential loss and bounds the
//! training error (times k); the chosen stump does not depend on the number of rayon threads
//! (ties go to the lowest feature index, then the lowest threshold); a model loaded from JSON
//! predicts bit-for-bit like the saved one. Training never panics on data: bad shapes, labels,
//! weights and parameters are [`BoostError`]s. Training stops early for the reasons in
//! [`StopReason`].
//!
//! # Confidence
//! AdaBoost.MH minimises, per class l, the exponential loss E[exp(−Y_l·f_l(x))], whose
//! minimiser is f_l(x) = ½·ln(P(Y_l=+1|x) / P(Y_l=−1|x)) (Friedman, Hastie & Tibshirani 2000,
//! *Additive logistic regression*, Lemma 1). So p_l = 1/(1 + e^(−2 f_l)) estimates the
//! probability that the block is of class l. The one-vs-rest estimates need not sum to 1, so
//! they are normalised across classes, and the **confidence is the normalised probability of
//! the predicted class**, in [1/k, 1]. It grows with the winning score and falls as any other
//! class's score rises. Unlike a softmax over raw scores, it follows from the loss being
//! minimised, so two models trained on different views (stylistic, lexical) produce numbers on
//! the same probability scale, which co-training compares to pick the combined label and to
//! rank self-labelled blocks. The logistic saturates to 1 in f64 for scores above about 18,
//! which only happens after a (near-)perfect fit; such blocks then tie at the top.
//!
//! # Thresholds
//! Each numeric column is sorted once per training set. Columns with at most
//! [`AdaBoostMhParams::max_bins`] distinct values (255 by default; most layout features)
//! are searched at every midpoint between consecutive values, as BoosTexter does; continuous
//! columns are cut at that many quantiles.
//!
//! # Speed
//! Each round screens every cut of every feature from the weights rounded to f32, with f32
//! square roots, walking each numeric column's blocks in sorted order (class sums held in
//! registers) and each token column's non-zeros only; then it re-evaluates in f64 just the
//! cuts whose screened Z is within a proven error margin of the lowest, so the chosen stump is
//! the one an all-f64 search picks. Features are screened in parallel (rayon) and the
//! reduction is a total order, so any thread count gives the same model. On the issue's
//! benchmark (2,000 blocks, 3,100 features, 17 classes, 200 rounds) a fit takes about 1 s of
//! CPU; see `reports/benchmarks/boost.md`.
//!
//! # linfa
//! [`AdaBoostMhParams`] implements `ParamGuard`, so `fit` validates; the model implements
//! `PredictInplace` (hence `Predict`) for both record kinds, so linfa's `Dataset`, `fold` and
//! confusion matrices work:
//!
//! ```
//! use linfa::prelude::*;
//! use ndarray::{array, Array1};
//! use parcels::boost::AdaBoostMh;
//!
//! // Blocks described by (font size, link density); class 1 = navigation.
//! let records = array![[12., 0.9], [11., 0.8], [16., 0.1], [18., 0.0], [10., 0.7], [17., 0.2]];
//! let targets: Array1<usize> = array![1, 1, 0, 0, 1, 0];
//! let data = Dataset::new(records, targets);
//! let model = AdaBoostMh::params().n_rounds(5).fit(&data).expect("valid data");
//! let predicted = model.predict(&data);
//! let cm = predicted.confusion_matrix(&data).expect("same labels");
//! assert_eq!(cm.accuracy(), 1.0);
//! ```
//!
//! Baselines from the linfa ecosystem are in [`baselines`].

pub mod baselines;
mod bins;
mod cv;
mod distribution;
mod error;
mod fit;
mod kernels;
mod linfa_impl;
mod model;
mod params;
mod partition;
mod search;
mod stump;
mod tree;

pub use cv::{choose_rounds_by_cv, folds_by_group, folds_by_group_pinned, rows_outside, RoundsChoice};
pub use error::BoostError;
pub use model::{argmax, confidence, probabilities, to_probabilities, AdaBoostMh, BoostPredictions, StagedScores, StopReason, FORMAT_VERSION, MAX_CLASSES};
pub use params::{AdaBoostMhParams, AdaBoostMhValidParams, DEFAULT_MAX_BINS, MAX_SPLITS};
pub use stump::{Branch, Stump, StumpTest};

#[cfg(test)]
mod tests;
