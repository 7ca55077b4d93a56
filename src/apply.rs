//! Applying trained models: training the co-trained learners on all labelled data of a config,
//! saving them in one versioned model file, classifying the blocks of new pages and extracting
//! their article.
//!
//! Input: an [`ExperimentConfig`] (for `train`) or a [`TrainedModel`] and pages. Output: the
//! model file (JSON: format version, parcels version, the config, class names, both views'
//! learners and the single-view one), per-block labels with the confidence and the view that
//! decided, and the article fields of a page.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use ndarray::Array2;
use serde::{Deserialize, Serialize};

use crate::boost::{to_probabilities, AdaBoostMh};
use crate::corpus::{ArticleRoles, LabelScheme};
use crate::cotrain::{self, CoTrainParams, View};
use crate::divide::{Divider, Division};
use crate::experiment::{boost_params, divider_of, fold_groups, fold_seed, prepare, rounds_for, ExperimentConfig, ExperimentError, Prepared};
use crate::files::write_atomic;
use crate::lexical::IdfTable;
use crate::page::{LoadOptions, Page};
use crate::stylistic::StyleOptions;
use crate::views::ViewBuilder;

/// Version of the model file format; bumped on any incompatible change.
pub const MODEL_FORMAT: u32 = 2;

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
    /// The scheme the learners were trained in: class names in the order of the learners'
    /// class indices, and which labels make an article.
    pub scheme: LabelScheme,
    /// Documents and stems of the IDF table the lexical learner was trained with.
    pub idf_documents: u64,
    pub idf_stems: usize,
    pub stylistic: AdaBoostMh,
    pub lexical: AdaBoostMh,
    pub single_view: AdaBoostMh,
    /// The context stage, when the config asks for one: it gives the final labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<AdaBoostMh>,
    /// Labelled and self-labelled blocks the co-trained learners ended with.
    pub training_blocks: usize,
}

/// Trains the model of a config on all its labelled data, co-trained with its pool.
pub fn train(config: &ExperimentConfig, progress: &dyn Fn(&str)) -> Result<TrainedModel, ModelError> {
    let prepared = prepare(config, progress)?;
    let all: Vec<usize> = (0..prepared.data.targets.len()).collect();
    train_on(config, &prepared, &all, config.seed, progress)
}

/// Trains a model on some labelled blocks (`rows` of the prepared data), co-trained with the
/// whole pool; `seed` orders the pool and the inner folds that choose boosting rounds.
pub fn train_on(config: &ExperimentConfig, prepared: &Prepared, rows: &[usize], seed: u64, progress: &dyn Fn(&str)) -> Result<TrainedModel, ModelError> {
    let other = |e: &dyn std::fmt::Display| ModelError::Other(e.to_string());
    let Prepared { builder, scheme, data, pool, .. } = prepared;
    let k = scheme.len();
    let views = data.views.select_rows(rows).map_err(|e| other(&e))?;
    let targets: Vec<usize> = rows.iter().map(|&r| data.targets[r]).collect();
    let pages: Vec<usize> = rows.iter().map(|&r| data.page_of[r]).collect();
    let rounds = |x: &crate::matrix::FeatureMatrix| rounds_for(config, x, &targets, &pages, k, seed);
    progress("choosing boosting rounds");
    let single = views.single_view().map_err(|e| other(&e))?;
    let (rs, rl, rv) = (rounds(&views.stylistic)?, rounds(&views.lexical)?, rounds(&single)?);
    progress("co-training");
    let ct = CoTrainParams { u: config.cotraining.u, k: config.cotraining.k, rounds: config.cotraining.r, seed };
    let mut training_blocks = 0;
    let co = cotrain::cotrain(&ct, (&boost_params(config, k, rs)?, &boost_params(config, k, rl)?), &views, &targets, pool, k, |m| {
        training_blocks = m.training_blocks;
        progress(&format!("co-training round {}: {} training blocks", m.round, m.training_blocks));
    })
    .map_err(|e| other(&e))?;
    let single_view = boost_params(config, k, rv)?.train(&single, &targets).map_err(|e| other(&e))?;
    let context = match &config.context {
        None => None,
        Some(ctx) => {
            progress("context stage: cross-fitting the views");
            let (ps, pl) = (boost_params(config, k, rs)?, boost_params(config, k, rl)?);
            let (s, l) = crate::context::cross_fitted_probabilities((&ps, &pl), &views, &targets, &pages, ctx.folds, seed).map_err(|e| other(&e))?;
            let classes: Vec<String> = scheme.names().map(str::to_string).collect();
            let x = crate::context::features(s.view(), l.view(), &pages, &classes);
            progress("context stage: training");
            Some(boost_params(config, k, ctx.rounds)?.train(&x, &targets).map_err(|e| other(&e))?)
        }
    };
    Ok(TrainedModel {
        format: MODEL_FORMAT,
        parcels_version: env!("CARGO_PKG_VERSION").to_string(),
        config: config.clone(),
        scheme: scheme.clone(),
        idf_documents: builder.idf().documents(),
        idf_stems: builder.idf().len(),
        stylistic: co.stylistic,
        lexical: co.lexical,
        single_view,
        context,
        training_blocks,
    })
}

/// One labelled page extracted by a model that never saw its fold.
#[derive(Debug, Clone)]
pub struct HeldOutPage {
    pub fold: usize,
    /// The corpus page.
    pub path: PathBuf,
    /// Its article and blocks, or why it could not be classified.
    pub result: Result<(Article, Vec<ClassifiedBlock>), String>,
}

/// Cross-validated extraction: for each fold of the config's labelled pages (by page or by site,
/// as its `[evaluation]` says), trains a model on the other folds (with the whole pool) and
/// extracts the fold's pages with it. So every labelled page is extracted by a model that was
/// not trained on it, nor, with `split = "site"`, on any page of its site. Pages come back in
/// fold order, then in the order of the labelled data; the fold models come with them.
pub fn cross_extract(config: &ExperimentConfig, progress: &(dyn Fn(&str) + Sync)) -> Result<(Vec<HeldOutPage>, Vec<TrainedModel>), ModelError> {
    let prepared = prepare(config, progress)?;
    let data = &prepared.data;
    let groups = fold_groups(config, data);
    let folds = crate::boost::folds_by_group(&groups, config.evaluation.folds, config.seed);
    let per_fold: Vec<Result<(Vec<HeldOutPage>, TrainedModel), ModelError>> = folds
        .par_iter()
        .enumerate()
        .map(|(f, test_rows)| {
            let train_rows = crate::boost::rows_outside(test_rows, data.targets.len());
            let model = train_on(config, &prepared, &train_rows, fold_seed(config, f), &|m| progress(&format!("fold {f}: {m}")))?;
            let classifier = Classifier::new(model.clone())?;
            let mut pages: Vec<usize> = test_rows.iter().map(|&r| data.page_of[r]).collect();
            pages.dedup();
            progress(&format!("fold {f}: extracting {} held-out pages", pages.len()));
            let held_out = pages
                .into_iter()
                .map(|p| {
                    let path = data.page_paths[p].clone();
                    let result = Page::load(&path, &LoadOptions::default())
                        .map_err(|e| e.to_string())
                        .and_then(|page| classifier.extract(&page).map_err(|e| e.to_string()));
                    HeldOutPage { fold: f, path, result }
                })
                .collect();
            Ok((held_out, model))
        })
        .collect();
    let (mut pages, mut models) = (Vec::new(), Vec::new());
    for fold in per_fold {
        let (p, m) = fold?;
        pages.extend(p);
        models.push(m);
    }
    Ok((pages, models))
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
        let (division, blocks, _) = self.decide(page)?;
        Ok((division, blocks))
    }

    /// Classifies a page's blocks; also returns, per block, the class probabilities of the
    /// learner that decided it.
    fn decide(&self, page: &Page) -> Result<(Division, Vec<ClassifiedBlock>, Array2<f64>), ModelError> {
        let other = |e: &dyn std::fmt::Display| ModelError::Other(format!("{}: {e}", page.path.display()));
        let division = self.divider.divide(page);
        if division.blocks.is_empty() {
            return Ok((division, Vec::new(), Array2::zeros((0, self.model.scheme.len()))));
        }
        let views = self.builder.build(page, &division).map_err(|e| other(&e))?;
        let s = self.model.stylistic.predict_with_confidence(&views.stylistic).map_err(|e| other(&e))?;
        let l = self.model.lexical.predict_with_confidence(&views.lexical).map_err(|e| other(&e))?;
        let (decided, p): (Vec<(usize, f64, View)>, Array2<f64>) = match &self.model.context {
            None => {
                let decided = cotrain::combine(&s, &l);
                let (mut p, pl) = (to_probabilities(s.scores), to_probabilities(l.scores));
                for (i, (_, _, view)) in decided.iter().enumerate() {
                    if *view == View::Lexical {
                        p.row_mut(i).assign(&pl.row(i));
                    }
                }
                (decided, p)
            }
            Some(context) => {
                let (ps, pl) = (to_probabilities(s.scores), to_probabilities(l.scores));
                let classes: Vec<String> = self.model.scheme.names().map(str::to_string).collect();
                let x = crate::context::features(ps.view(), pl.view(), &vec![0; ps.nrows()], &classes);
                let c = context.predict_with_confidence(&x).map_err(|e| other(&e))?;
                let decided = c.classes.iter().zip(&c.confidences).map(|(&class, &conf)| (class, conf, View::Context)).collect();
                (decided, to_probabilities(c.scores))
            }
        };
        let blocks = decided
            .into_iter()
            .zip(&division.blocks)
            .map(|((class, confidence, view), b)| ClassifiedBlock {
                id: b.id,
                locator: b.locator.clone(),
                label: self.model.scheme.labels.get(class).map(|l| l.name.clone()).unwrap_or_default(),
                confidence,
                view,
                text: b.text.clone(),
            })
            .collect();
        Ok((division, blocks, p))
    }

    /// Classifies a page's blocks and assembles its article from them.
    pub fn extract(&self, page: &Page) -> Result<(Article, Vec<ClassifiedBlock>), ModelError> {
        let roles = self.model.scheme.article.as_ref().ok_or_else(|| {
            ModelError::Other(format!("the model's scheme {} does not say which labels make an article (its [article] section)", self.model.scheme.name))
        })?;
        let (_, blocks, p) = self.decide(page)?;
        let scheme = &self.model.scheme;
        let title = match roles.title.as_ref().and_then(|t| scheme.index(t)) {
            Some(c) => p.column(c).to_vec(),
            None => vec![0.0; blocks.len()],
        };
        let body: Vec<usize> = roles.main_text.iter().filter_map(|l| scheme.index(l)).collect();
        let main_text = p.rows().into_iter().map(|row| body.iter().map(|&c| row[c]).sum()).collect();
        let likelihoods = ArticleLikelihoods { title, main_text };
        Ok((article(&blocks, roles, Some(&likelihoods)), blocks))
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

/// Per block, how likely it is to be the article's title and part of its main text (the sum of
/// the main-text labels' probabilities), from the learner that decided the block.
#[derive(Debug, Clone, Default)]
pub struct ArticleLikelihoods {
    pub title: Vec<f64>,
    pub main_text: Vec<f64>,
}

/// Assembles the article fields from classified blocks, as the scheme's roles say: the main
/// text in document order; for single-valued fields the most confident block of that label.
///
/// `likelihoods`, when given, use the decider's class probabilities, because an article has one
/// title and a body, which the per-block argmax does not know:
/// - the title is the block most likely to be the title, whatever its own label (a class with
///   one block in a hundred seldom wins a block's argmax: with the L3S-GN1 model, 282 of the 496
///   development pages had no block labelled `headline`);
/// - when no block is labelled as main text, the body is made of the blocks at least half as
///   likely to be main text as the likeliest one (with the L3S-GN1 model 161 of 1,381 Dragnet
///   pages came out with no main text otherwise).
pub fn article(blocks: &[ClassifiedBlock], roles: &ArticleRoles, likelihoods: Option<&ArticleLikelihoods>) -> Article {
    let best = |label: &Option<String>| {
        let label = label.as_deref()?;
        blocks
            .iter()
            .filter(|b| b.label == label && !b.text.is_empty())
            .max_by(|a, b| a.confidence.total_cmp(&b.confidence).then(b.id.cmp(&a.id)))
            .map(|b| b.text.clone())
    };
    let mut main_text =
        blocks.iter().filter(|b| roles.main_text.contains(&b.label) && !b.text.is_empty()).map(|b| b.text.as_str()).collect::<Vec<_>>().join("\n");
    if let (true, Some(l)) = (main_text.is_empty(), likelihoods) {
        let with_text = || blocks.iter().zip(&l.main_text).filter(|(b, _)| !b.text.trim().is_empty());
        let top = with_text().map(|(_, &p)| p).fold(0.0, f64::max);
        main_text = with_text().filter(|(_, &p)| top > 0.0 && p >= top / 2.0).map(|(b, _)| b.text.as_str()).collect::<Vec<_>>().join("\n");
    }
    let subheaders = match &roles.subheader {
        Some(s) => blocks.iter().filter(|b| &b.label == s && !b.text.is_empty()).map(|b| b.text.clone()).collect(),
        None => Vec::new(),
    };
    let title = match likelihoods {
        Some(l) => blocks
            .iter()
            .zip(&l.title)
            .filter(|(b, _)| !b.text.trim().is_empty())
            .max_by(|(a, pa), (b, pb)| pa.total_cmp(pb).then(b.id.cmp(&a.id)))
            .map(|(b, _)| b.text.clone()),
        None => best(&roles.title),
    };
    Article {
        title,
        main_text,
        date: best(&roles.date),
        reporter: best(&roles.reporter),
        source: best(&roles.source),
        location: best(&roles.location),
        subheaders,
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
        let roles = LabelScheme::built_in("parcels-17").unwrap().article.unwrap();
        let a = article(&blocks, &roles, None);
        assert_eq!(a.title.as_deref(), Some("Storm closes harbour"));
        assert_eq!(a.main_text, "Gale-force winds kept the harbour closed.\nFerries\nRead the full report");
        assert_eq!(a.date.as_deref(), Some("March 3, 2008"));
        assert_eq!((a.reporter, a.subheaders), (None, vec!["Ferries".to_string()]));
    }

    #[test]
    fn the_title_is_the_block_most_likely_to_be_one() {
        let blocks =
            [block(0, "site-nav", 0.9, "Home"), block(1, "main-content", 0.5, "Storm closes harbour"), block(2, "main-content", 0.8, "Gale-force winds.")];
        let roles = LabelScheme::built_in("parcels-17").unwrap().article.unwrap();
        assert_eq!(article(&blocks, &roles, None).title, None, "no block is labelled title");
        let likely = ArticleLikelihoods { title: vec![0.1, 0.45, 0.05], main_text: vec![0.05, 0.2, 0.3] };
        let a = article(&blocks, &roles, Some(&likely));
        assert_eq!(a.title.as_deref(), Some("Storm closes harbour"));
        // No block is labelled main text: the blocks at least half as likely as the best make it.
        assert_eq!(a.main_text, "Storm closes harbour\nGale-force winds.");
        let labelled = [block(0, "site-nav", 0.9, "Home"), block(1, "main-content", 0.5, "Body.")];
        let likely = ArticleLikelihoods { title: vec![0.1, 0.2], main_text: vec![0.4, 0.6] };
        assert_eq!(article(&labelled, &roles, Some(&likely)).main_text, "Body.", "labels win when there are some");
    }

    #[test]
    fn model_files_check_their_format() {
        let err = TrainedModel::from_json("{\"format\": 99}", "m.json").unwrap_err();
        assert!(err.to_string().contains("m.json: model format 99"), "{err}");
        let err = TrainedModel::from_json("not json", "m.json").unwrap_err();
        assert!(err.to_string().starts_with("m.json: not a parcels model"), "{err}");
    }
}
