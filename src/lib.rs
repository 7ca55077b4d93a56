//! parcels: web page block classification by stylistic and lexical co-training, after PARCELS
//! (Lee, Kan & Lai, *Stylistic and Lexical Co-training for Web Block Classification*, WIDM 2004).
//!
//! The pipeline, one module per stage:
//! [`page`] (bytes → parsed page) → [`divide`] (page → fine-grained blocks) → feature tables per
//! view ([`matrix`]) → [`boost`] (one AdaBoost.MH learner per view) → … → [`cli`].
//! [`corpus`] turns annotations into labelled blocks.

pub mod annotate;
pub mod boost;
pub mod cli;
pub mod corpus;
pub mod divide;
pub mod files;
pub mod matrix;
pub mod page;
