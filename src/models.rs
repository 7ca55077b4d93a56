//! Models shipped with parcels, and the checks every model passes when it is loaded.
//!
//! The default model is the one the project trains from its own corpora
//! (`corpora/models/default.json`, rebuilt as corpora/models/README.md says), compiled into the
//! library so `parcels extract page.html` works anywhere.
//!
//! A model file is JSON that a person can edit and a disk can corrupt; serde checks only its
//! types. [`validate`] checks the rest once, at load ([`TrainedModel::from_json`] calls it), so
//! that a model either applies cleanly to every page or is refused with the file's name and its
//! first inconsistency, never panics or labels every page silently wrong.

use std::path::Path;

use crate::apply::{ModelError, TrainedModel};
use crate::boost::AdaBoostMh;
use crate::corpus::LabelScheme;
use crate::divide::DividerConfig;
use crate::matrix::FeatureSchema;
use crate::views::{Registry, ViewKind};

/// The default model's JSON text (`corpora/models/default.json`).
pub const DEFAULT_MODEL_JSON: &str = include_str!("../corpora/models/default.json");

/// The default model, parsed.
pub fn default_model() -> Result<TrainedModel, ModelError> {
    TrainedModel::from_json(DEFAULT_MODEL_JSON, "the built-in default model")
}

/// Checks that the parts of a model agree with one another (`name` names the model in the
/// error); the learners' own consistency ([`AdaBoostMh::validate`]) and their class counts are
/// checked before this by [`TrainedModel::from_json`]. In order:
///
/// - the label scheme passes the checks of a scheme file (labels present, names unique, every
///   `[article]` label a label of the scheme), since extraction looks the article's labels up
///   by name and a missing one silently empties its field;
/// - the divider inventory passes the checks of a divider file;
/// - the config's views name only feature groups this parcels has;
/// - no learner is empty: a learner without stumps gives every block the first class;
/// - each learner's columns are the ones the model's feature lists name: the stylistic and
///   lexical learners' columns are `features.stylistic` and `features.lexical` (and as many
///   token columns as `features` says), the single-view learner's are the stylistic columns
///   then the lexical ones, and the context stage's are the ones [`crate::context::features`]
///   builds for the scheme's labels. A learner whose columns differ would fail on every page.
pub fn validate(model: &TrainedModel, name: &str) -> Result<(), ModelError> {
    let problem = |problem: String| ModelError::Incompatible { path: name.to_string(), problem };
    check_scheme(&model.scheme).map_err(|p| problem(format!("the label scheme {:?}: {p}", model.scheme.name)))?;
    check_divider(&model.divider).map_err(|p| problem(format!("the divider inventory: {p}")))?;
    let registry = Registry::builtin();
    for (view, groups) in [(ViewKind::Stylistic, &model.config.views.stylistic), (ViewKind::Lexical, &model.config.views.lexical)] {
        let known = registry.known_names(view);
        if let Some(g) = groups.iter().find(|g| !known.contains(&g.as_str())) {
            return Err(problem(format!("its {} view has a feature group {g:?} this parcels does not know (known: {})", view.name(), known.join(", "))));
        }
    }
    for (learner, m) in model.learners() {
        if m.stumps().is_empty() {
            let first = model.scheme.labels.first().map_or("", |l| l.name.as_str());
            return Err(problem(format!("the {learner} learner has no stumps (it would label every block {first:?})")));
        }
    }
    let f = &model.features;
    let stylistic = Columns { numeric: f.stylistic.clone(), tokens: f.stylistic_tokens };
    let lexical = Columns { numeric: f.lexical.clone(), tokens: f.lexical_tokens };
    check_columns("stylistic", &model.stylistic, &stylistic, "`features.stylistic`").map_err(problem)?;
    check_columns("lexical", &model.lexical, &lexical, "`features.lexical`").map_err(problem)?;
    let both = Columns { numeric: [f.stylistic.as_slice(), f.lexical.as_slice()].concat(), tokens: f.stylistic_tokens + f.lexical_tokens };
    check_columns("single-view", &model.single_view, &both, "the stylistic then the lexical features").map_err(problem)?;
    // The two views' token names must also come in that order.
    let sv = &model.single_view.schema().token_names;
    let joined = model.stylistic.schema().token_names.iter().chain(model.lexical.schema().token_names.iter());
    if let Some((i, (a, b))) = sv.iter().zip(joined).enumerate().find(|(_, (a, b))| a != b) {
        return Err(problem(format!("the single-view learner's token column {i} is {a:?}, but the stylistic then the lexical tokens have {b:?} there")));
    }
    if let Some(context) = &model.context {
        let classes: Vec<String> = model.scheme.names().map(str::to_string).collect();
        let k = classes.len();
        let empty = ndarray::Array2::<f64>::zeros((0, k));
        let block_columns = model.config.context_block_columns();
        // The neighbours' columns are checked below, against the views' names.
        let inputs =
            crate::context::ContextInputs { neighbour_columns: false, ..model.config.context_inputs(model.config.context_structure().then_some(&[][..])) };
        let built = crate::context::features(empty.view(), empty.view(), &[], inputs, &classes);
        let mut expected = Columns { numeric: built.schema().numeric_names.to_vec(), tokens: built.schema().token_names.len() };
        // The block's own view columns follow, as the view learners have them.
        for (wanted, learner) in [(block_columns.stylistic(), &model.stylistic), (block_columns.lexical(), &model.lexical)] {
            if wanted {
                expected.numeric.extend(learner.schema().numeric_names.iter().cloned());
                expected.tokens += learner.schema().token_names.len();
            }
        }
        if model.config.context_neighbour_columns() {
            expected.numeric.extend(crate::context::neighbour_names(&model.stylistic.schema().numeric_names, &model.lexical.schema().numeric_names));
        }
        check_columns("context", context, &expected, "the context features of the scheme's labels").map_err(problem)?;
    }
    Ok(())
}

/// The columns a learner should have: numeric names, and how many token columns.
struct Columns {
    numeric: Vec<String>,
    tokens: usize,
}

/// The first difference between a learner's columns and the expected ones, in words.
fn check_columns(learner: &str, model: &AdaBoostMh, expected: &Columns, source: &str) -> Result<(), String> {
    let FeatureSchema { numeric_names, token_names } = model.schema();
    if let Some(i) = numeric_names.iter().zip(&expected.numeric).position(|(a, b)| a != b) {
        return Err(format!("the {learner} learner's column {i} is {:?}, but {source} has {:?} there", numeric_names[i], expected.numeric[i]));
    }
    if numeric_names.len() != expected.numeric.len() {
        return Err(format!("the {learner} learner has {} numeric columns, {source} {}", numeric_names.len(), expected.numeric.len()));
    }
    if token_names.len() != expected.tokens {
        return Err(format!("the {learner} learner has {} token columns, the model's feature lists say {}", token_names.len(), expected.tokens));
    }
    Ok(())
}

/// A scheme read from a model gets the checks of a scheme file: written out as TOML and read
/// back through [`LabelScheme::from_toml_str`], so the two can never disagree.
fn check_scheme(scheme: &LabelScheme) -> Result<(), String> {
    let text = toml::to_string(scheme).map_err(|e| e.to_string())?;
    match LabelScheme::from_toml_str(&text, Path::new("model")) {
        Ok(_) => Ok(()),
        Err(crate::corpus::scheme::SchemeError::Invalid { problem, .. }) => Err(problem),
        Err(e) => Err(e.to_string()),
    }
}

/// The divider inventory of a model gets the checks of a divider file, the same way.
fn check_divider(divider: &DividerConfig) -> Result<(), String> {
    let text = toml::to_string(divider).map_err(|e| e.to_string())?;
    match DividerConfig::from_toml_str(&text, Path::new("model")) {
        Ok(_) => Ok(()),
        Err(crate::divide::ConfigError::Invalid { field, problem, .. }) => Err(format!("{field}: {problem}")),
        Err(e) => Err(e.to_string()),
    }
}
