//! parcels: web page block classification by stylistic and lexical co-training, after PARCELS
//! (Lee, Kan & Lai, *Stylistic and Lexical Co-training for Web Block Classification*, WIDM 2004).
//!
//! The pipeline, one module per stage:
//! [`page`] (bytes → parsed page) → [`divide`] (page → fine-grained blocks) → [`css`] (computed
//! styles) → [`stylistic`] and [`lexical`] (each view's features) → [`views`] (one [`matrix`]
//! per view) → [`boost`] (one AdaBoost.MH learner per view) → [`cotrain`] (the learners teach
//! each other) → [`experiment`] (configs, folds, baselines) → [`eval`] → [`report`].
//! [`apply`] trains models on all labelled data and classifies and extracts new pages.
//! [`models`] holds the model shipped with parcels; [`output`] the records the commands print.
//! [`corpus`] turns annotations into labelled blocks; the command line itself lives in the
//! `parcels` binary (src/main.rs, src/cli/).

pub mod annotate;
pub mod apply;
pub mod baselines;
pub mod boost;
pub mod config;
pub mod context;
pub mod corpus;
pub mod cotrain;
pub mod css;
pub mod dataset;
pub mod divide;
pub mod eval;
pub mod experiment;
pub mod files;
pub mod learning_curve;
pub mod lexical;
pub mod markdown;
pub mod matrix;
pub mod models;
pub mod output;
pub mod page;
pub mod progress;
#[cfg(feature = "python")]
pub mod python;
pub mod report;
pub mod stats;
pub mod stylistic;
pub mod sweep;
pub mod train;
pub mod views;
pub mod warc;
