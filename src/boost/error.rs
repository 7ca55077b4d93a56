//! Errors of the boosting learner.

use crate::matrix::MatrixError;

/// Why boosting could not validate its parameters, train, predict or load a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BoostError {
    /// A parameter is outside its allowed range.
    #[error("invalid parameter {name} = {value}: {constraint}")]
    InvalidParam { name: &'static str, value: String, constraint: &'static str },
    /// Class weights must give one weight per class.
    #[error("{got} class weights given for {expected} classes")]
    ClassWeightsLength { expected: usize, got: usize },
    /// Sample weights must give one finite, non-negative weight per block, not all zero.
    #[error("invalid sample weights: {reason}")]
    SampleWeights { reason: String },
    /// Records and targets describe a different number of blocks.
    #[error("{records} blocks but {targets} targets")]
    TargetsMismatch { records: usize, targets: usize },
    /// A target is not a class index below the number of classes.
    #[error("block {row} has class {label}, but there are {n_classes} classes")]
    LabelOutOfRange { row: usize, label: usize, n_classes: usize },
    /// Nothing to learn from.
    #[error("the training set has no blocks")]
    EmptyTrainingSet,
    /// Fewer than two classes.
    #[error("boosting needs at least 2 classes, got {n_classes}")]
    TooFewClasses { n_classes: usize },
    /// The records to predict do not have the columns the model was trained on.
    #[error("feature schema differs from the model's: {detail}")]
    SchemaMismatch { detail: String },
    /// Cross-validation folds are unusable.
    #[error("invalid folds: {reason}")]
    Folds { reason: String },
    /// A saved model has a format this version cannot read.
    #[error("model format version {found}, this build reads {expected}")]
    FormatVersion { found: u32, expected: u32 },
    /// A saved model is internally inconsistent (edited or corrupted): applying it could index
    /// out of range or produce non-finite scores.
    #[error("inconsistent model: {detail}")]
    InvalidModel { detail: String },
    #[error(transparent)]
    Matrix(#[from] MatrixError),
    #[error(transparent)]
    Linfa(#[from] linfa::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}
