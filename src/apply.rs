//! Applying trained models: training the co-trained learners on all labelled data of a config,
//! saving them in one versioned model file, classifying the blocks of new pages and extracting
//! their article.
//!
//! Input: an [`ExperimentConfig`] (for `train`) or a [`TrainedModel`] and pages. Output: the
//! model file (JSON: format version, parcels version, the config, class names, both views'
//! learners and the single-view one), per-block labels with the confidence and the view that
//! decided, and the article fields of a page.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::boost::AdaBoostMh;
use crate::cotrain::{self, CoTrainParams, View};
use crate::divide::{Divider, Division};
use crate::experiment::{boost_params, divider_of, prepare, rounds_for, ExperimentConfig, ExperimentError, Prepared};
use crate::files::write_atomic;
use crate::lexical::IdfTable;
use crate::page::Page;
use crate::stylistic::StyleOptions;
use crate::views::ViewBuilder;

/// Version of the model file format; bumped on any incompatible change.
pub const MODEL_FORMAT: u32 = 1;

/// Why a model could not be trained, read, written or applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    #[error("{path}: cannot read: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: not a parcels model: {message}")]
    Parse { path: String, message: String },
    #[error("{path}: model format {found}, this parcels reads format {MODEL_FORMAT}")]
    Format { path: String, found: u32 },
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
    #[error("{0}")]
    Other(String),
}

/// A trained model: the co-trained stylistic and lexical learners, the single-view learner, and
/// what is needed to apply them (the config with its views, divider and scheme).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainedModel {
    pub format: u32,
    pub parcels_version: String,
    pub config: ExperimentConfig,
    /// Class names, in the order of the learners' class indices.
    pub classes: Vec<String>,
    /// Documents and stems of the IDF table the lexical learner was trained with.
    pub idf_documents: u64,
    pub idf_stems: usize,
    pub stylistic: AdaBoostMh,
    pub lexical: AdaBoostMh,
    pub single_view: AdaBoostMh,
    /// Labelled and self-labelled blocks the co-trained learners ended with.
    pub training_blocks: usize,
}

/// Trains the model of a config on all its labelled data, co-trained with its pool.
pub fn train(config: &ExperimentConfig, progress: &dyn Fn(&str)) -> Result<TrainedModel, ModelError> {
    let other = |e: &dyn std::fmt::Display| ModelError::Other(e.to_string());
    let Prepared { builder, scheme, data, pool, .. } = prepare(config, progress)?;
    let k = scheme.len();
    let rounds = |x: &crate::matrix::FeatureMatrix| rounds_for(config, x, &data.targets, &data.page_of, k, config.seed);
    progress("choosing boosting rounds");
    let single = data.views.single_view().map_err(|e| other(&e))?;
    let (rs, rl, rv) = (rounds(&data.views.stylistic)?, rounds(&data.views.lexical)?, rounds(&single)?);
    progress("co-training");
    let ct = CoTrainParams { u: config.cotraining.u, k: config.cotraining.k, rounds: config.cotraining.r, seed: config.seed };
    let mut training_blocks = 0;
    let co = cotrain::cotrain(&ct, (&boost_params(config, k, rs)?, &boost_params(config, k, rl)?), &data.views, &data.targets, &pool, k, |m| {
        training_blocks = m.training_blocks;
        progress(&format!("co-training round {}: {} training blocks", m.round, m.training_blocks));
    })
    .map_err(|e| other(&e))?;
    let single_view = boost_params(config, k, rv)?.train(&single, &data.targets).map_err(|e| other(&e))?;
    Ok(TrainedModel {
        format: MODEL_FORMAT,
        parcels_version: env!("CARGO_PKG_VERSION").to_string(),
        config: config.clone(),
        classes: scheme.names().map(str::to_string).collect(),
        idf_documents: builder.idf().documents(),
        idf_stems: builder.idf().len(),
        stylistic: co.stylistic,
        lexical: co.lexical,
        single_view,
        training_blocks,
    })
}

impl TrainedModel {
    /// Writes the model atomically (compact JSON).
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        let json = serde_json::to_string(self).map_err(|e| ModelError::Other(e.to_string()))?;
        write_atomic(path, json.as_bytes()).map_err(|source| ModelError::Io { path: path.display().to_string(), source })
    }

    pub fn load(path: &Path) -> Result<TrainedModel, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io { path: path.display().to_string(), source })?;
        TrainedModel::from_json(&text, &path.display().to_string())
    }

    /// Parses a model; `name` only names it in errors. The format version is checked first, so
    /// an old or newer file gets a clear message rather than a field error.
    pub fn from_json(text: &str, name: &str) -> Result<TrainedModel, ModelError> {
        #[derive(Deserialize)]
        struct Head {
            format: u32,
        }
        let head: Head = serde_json::from_str(text).map_err(|e| ModelError::Parse { path: name.to_string(), message: e.to_string() })?;
        if head.format != MODEL_FORMAT {
            return Err(ModelError::Format { path: name.to_string(), found: head.format });
        }
        serde_json::from_str(text).map_err(|e| ModelError::Parse { path: name.to_string(), message: e.to_string() })
    }
}

/// A model ready to apply: the trained learners with their divider and view builder.
pub struct Classifier {
    model: TrainedModel,
    divider: Divider,
    builder: ViewBuilder,
}

/// One classified block.
#[derive(Debug, Clone, Serialize)]
pub struct ClassifiedBlock {
    pub id: usize,
    pub locator: String,
    pub label: String,
    /// The deciding view's calibrated confidence, in [1/k, 1].
    pub confidence: f64,
    pub view: View,
    pub text: String,
}

impl Classifier {
    pub fn new(model: TrainedModel) -> Result<Classifier, ModelError> {
        let other = |e: &dyn std::fmt::Display| ModelError::Other(e.to_string());
        let divider = divider_of(&model.config)?;
        let idf = IdfTable::dragnet().map_err(|e| other(&e))?;
        if idf.documents() != model.idf_documents || idf.len() != model.idf_stems {
            return Err(ModelError::Other(format!(
                "the model was trained with an IDF table of {} documents and {} stems; this parcels ships {} and {}",
                model.idf_documents,
                model.idf_stems,
                idf.documents(),
                idf.len()
            )));
        }
        let builder = ViewBuilder::new(&model.config.views, idf, StyleOptions::default()).map_err(|e| other(&e))?;
        Ok(Classifier { model, divider, builder })
    }

    pub fn model(&self) -> &TrainedModel {
        &self.model
    }

    /// Divides a page and labels every block with the more confident view's label.
    pub fn classify(&self, page: &Page) -> Result<(Division, Vec<ClassifiedBlock>), ModelError> {
        let other = |e: &dyn std::fmt::Display| ModelError::Other(format!("{}: {e}", page.path.display()));
        let division = self.divider.divide(page);
        if division.blocks.is_empty() {
            return Ok((division, Vec::new()));
        }
        let views = self.builder.build(page, &division).map_err(|e| other(&e))?;
        let s = self.model.stylistic.predict_with_confidence(&views.stylistic).map_err(|e| other(&e))?;
        let l = self.model.lexical.predict_with_confidence(&views.lexical).map_err(|e| other(&e))?;
        let blocks = cotrain::combine(&s, &l)
            .into_iter()
            .zip(&division.blocks)
            .map(|((class, confidence, view), b)| ClassifiedBlock {
                id: b.id,
                locator: b.locator.clone(),
                label: self.model.classes.get(class).cloned().unwrap_or_default(),
                confidence,
                view,
                text: b.text.clone(),
            })
            .collect();
        Ok((division, blocks))
    }
}

/// The article of a page, from its classified blocks.
#[derive(Debug, Clone, Serialize)]
pub struct Article {
    pub title: Option<String>,
    /// Text of the `main-content`, `subheader` and `content-link` blocks in document order, one
    /// block per line.
    pub main_text: String,
    pub date: Option<String>,
    pub reporter: Option<String>,
    pub source: Option<String>,
    pub location: Option<String>,
    pub subheaders: Vec<String>,
}

/// Labels whose blocks make the main text.
const MAIN_TEXT: &[&str] = &["main-content", "subheader", "content-link"];

/// Assembles the article fields: the main text in document order; for single-valued fields the
/// most confident block of that label.
pub fn article(blocks: &[ClassifiedBlock]) -> Article {
    let best = |label: &str| {
        blocks
            .iter()
            .filter(|b| b.label == label && !b.text.is_empty())
            .max_by(|a, b| a.confidence.total_cmp(&b.confidence).then(b.id.cmp(&a.id)))
            .map(|b| b.text.clone())
    };
    let main_text = blocks
        .iter()
        .filter(|b| MAIN_TEXT.contains(&b.label.as_str()) && !b.text.is_empty())
        .map(|b| b.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Article {
        title: best("title"),
        main_text,
        date: best("date"),
        reporter: best("reporter"),
        source: best("source"),
        location: best("location"),
        subheaders: blocks.iter().filter(|b| b.label == "subheader" && !b.text.is_empty()).map(|b| b.text.clone()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(id: usize, label: &str, confidence: f64, text: &str) -> ClassifiedBlock {
        ClassifiedBlock { id, locator: String::new(), label: label.into(), confidence, view: View::Lexical, text: text.into() }
    }

    #[test]
    fn article_fields_come_from_the_labelled_blocks() {
        let blocks = [
            block(0, "site-nav", 0.9, "Home News"),
            block(1, "title", 0.6, "Storm closes harbour"),
            block(2, "title", 0.4, "Weather"),
            block(3, "date", 0.7, "March 3, 2008"),
            block(4, "main-content", 0.8, "Gale-force winds kept the harbour closed."),
            block(5, "subheader", 0.5, "Ferries"),
            block(6, "content-link", 0.5, "Read the full report"),
            block(7, "main-content", 0.8, ""),
            block(8, "site-content", 0.9, "Copyright"),
        ];
        let a = article(&blocks);
        assert_eq!(a.title.as_deref(), Some("Storm closes harbour"));
        assert_eq!(a.main_text, "Gale-force winds kept the harbour closed.\nFerries\nRead the full report");
        assert_eq!(a.date.as_deref(), Some("March 3, 2008"));
        assert_eq!((a.reporter, a.subheaders), (None, vec!["Ferries".to_string()]));
    }

    #[test]
    fn model_files_check_their_format() {
        let err = TrainedModel::from_json("{\"format\": 99}", "m.json").unwrap_err();
        assert!(err.to_string().contains("m.json: model format 99"), "{err}");
        let err = TrainedModel::from_json("not json", "m.json").unwrap_err();
        assert!(err.to_string().starts_with("m.json: not a parcels model"), "{err}");
    }
}
