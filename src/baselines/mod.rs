//! Baselines: the learners an experiment measures beside the co-trained ones, on the same folds
//! and the same held-out blocks (paper section 7: the majority class and the single-view
//! learner; self-training, to tell co-training's gain from plain self-labelling; SAMME, a
//! boosting algorithm other than ours: discrete multi-class AdaBoost over Gini stumps).
//!
//! A baseline is one type implementing [`Baseline`] in its own file and one line in
//! [`BUILT_IN`]; a config picks baselines by name (`evaluation.baselines`), and reports show
//! every learner found in the results. A library user can also run an experiment with a
//! baseline of their own ([`crate::experiment::run_with`]).

pub mod blocks;
pub mod boilerpipe;
pub mod crf;
mod majority;
pub mod mss;
mod samme;
mod self_training;
pub mod settings;
mod single_view;
pub mod timbl;

use crate::config::ExperimentConfig;
use crate::cotrain::TwoViews;
use crate::dataset::BlockInfo;
use crate::train::{Fitted, TrainError};

pub use boilerpipe::Boilerpipe;
pub use crf::Crf;
pub use majority::Majority;
pub use mss::MaxSubsequence;
pub use samme::Samme;
pub use self_training::SelfTraining;
pub use settings::SeedSystems;
pub use single_view::SingleView;
pub use timbl::{Protocol, Timbl, Weighting};

/// One fold of an experiment, as a baseline sees it.
pub struct Fold<'a> {
    pub config: &'a ExperimentConfig,
    /// The fold's number and seed.
    pub index: usize,
    pub seed: u64,
    /// Classes of the training scheme.
    pub n_classes: usize,
    /// The training side: blocks, their classes and their pages.
    pub train: &'a TwoViews,
    pub targets: &'a [usize],
    pub train_pages: &'a [usize],
    /// The held-out blocks.
    pub test: &'a TwoViews,
    /// The unlabelled pool.
    pub pool: &'a TwoViews,
    /// What the one training path made of the training side (its single-view learner and
    /// boosting rounds are the baselines' too).
    pub fitted: &'a Fitted,
    /// Text, place in the DOM and in document order, word and link counts of each training and
    /// held-out block (for the seed papers' systems), and the page of each held-out block.
    /// Blocks of one page are contiguous and in document order on both sides.
    pub train_blocks: &'a [BlockInfo],
    pub test_blocks: &'a [BlockInfo],
    pub test_pages: &'a [usize],
    /// The site of each training and held-out block, numbered alike on both sides (and for the
    /// pool); a page without a site is a site of its own.
    pub train_sites: &'a [usize],
    pub test_sites: &'a [usize],
    /// The pool's blocks (row for row with `pool`), the pool page of each (blocks of a page
    /// contiguous, in document order) and its site.
    pub pool_blocks: &'a [BlockInfo],
    pub pool_pages: &'a [usize],
    pub pool_sites: &'a [usize],
}

/// A learner measured beside the co-trained ones.
pub trait Baseline: Send + Sync {
    /// Its name in results, curves and reports.
    fn name(&self) -> &str;
    /// The classes (training scheme) it gives the fold's held-out blocks, per round; a learner
    /// without rounds gives one.
    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError>;
}

/// Makes a baseline for a config.
pub type Constructor = fn(&ExperimentConfig) -> Box<dyn Baseline>;

/// The built-in baselines, in the order reports show them.
pub const BUILT_IN: &[(&str, Constructor)] = &[
    ("single-view", |_| Box::new(SingleView)),
    ("self-training", |_| Box::new(SelfTraining)),
    ("majority", |_| Box::new(Majority)),
    ("samme", |c| Box::new(Samme { stumps: c.evaluation.samme_stumps })),
    // The seed papers' systems (configs/seed-baselines.toml).
    ("boilerpipe", |_| Box::new(Boilerpipe { filter_depth: None })),
    ("boilerpipe-filter", |_| Box::new(Boilerpipe { filter_depth: Some(boilerpipe::FILTER_DEPTH) })),
    ("timbl", |_| Box::new(Timbl { k: 1, weighting: Weighting::GainRatio, protocol: Protocol::Merged })),
    ("timbl-ig", |_| Box::new(Timbl { k: 1, weighting: Weighting::InformationGain, protocol: Protocol::Merged })),
    ("timbl-chi2", |_| Box::new(Timbl { k: 1, weighting: Weighting::ChiSquare, protocol: Protocol::Merged })),
    ("timbl-within-site", |_| Box::new(Timbl { k: 1, weighting: Weighting::GainRatio, protocol: Protocol::WithinSite })),
    ("timbl-across-site", |_| Box::new(Timbl { k: 1, weighting: Weighting::GainRatio, protocol: Protocol::AcrossSite })),
    ("max-subsequence", |_| Box::new(MaxSubsequence { semi: false })),
    ("max-subsequence-semi", |_| Box::new(MaxSubsequence { semi: true })),
    ("crf", |_| Box::new(Crf { history: false })),
    ("crf-history", |_| Box::new(Crf { history: true })),
];

/// The built-in baseline called `name`.
pub fn by_name(name: &str, config: &ExperimentConfig) -> Option<Box<dyn Baseline>> {
    BUILT_IN.iter().find(|(n, _)| *n == name).map(|(_, make)| make(config))
}

/// The seed papers' systems among [`BUILT_IN`]: run only when a config names them, so configs
/// without `evaluation.baselines` keep their figures.
pub const SEED_SYSTEMS: &[&str] = &[
    "boilerpipe",
    "boilerpipe-filter",
    "timbl",
    "timbl-ig",
    "timbl-chi2",
    "timbl-within-site",
    "timbl-across-site",
    "max-subsequence",
    "max-subsequence-semi",
    "crf",
    "crf-history",
];

/// The baselines a config asks for: `evaluation.baselines`, or all built-in ones but the
/// [`SEED_SYSTEMS`] (SAMME only with `samme_stumps > 0`). Unknown names were refused when the
/// config was loaded.
pub fn from_config(config: &ExperimentConfig) -> Vec<Box<dyn Baseline>> {
    match &config.evaluation.baselines {
        Some(names) => names.iter().filter_map(|n| by_name(n, config)).collect(),
        None => BUILT_IN
            .iter()
            .filter(|(n, _)| (*n != "samme" || config.evaluation.samme_stumps > 0) && !SEED_SYSTEMS.contains(n))
            .map(|(_, make)| make(config))
            .collect(),
    }
}
