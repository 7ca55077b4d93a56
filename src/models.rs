//! Models shipped with parcels.
//!
//! The default model is the one the project trains from its own corpora
//! (`corpora/models/default.json`, rebuilt as corpora/models/README.md says), compiled into the
//! library so `parcels extract page.html` works anywhere.

use crate::apply::{ModelError, TrainedModel};

/// The default model's JSON text (`corpora/models/default.json`).
pub const DEFAULT_MODEL_JSON: &str = include_str!("../corpora/models/default.json");

/// The default model, parsed.
pub fn default_model() -> Result<TrainedModel, ModelError> {
    TrainedModel::from_json(DEFAULT_MODEL_JSON, "the built-in default model")
}
