//! Models are checked once, when they are loaded (issue 18): the shipped models pass, and a
//! shipped model corrupted in one field at a time is refused with the file's name and the
//! first inconsistency, never applied. Each corruption here was first seen to panic, fail on
//! every page or label pages silently wrong before the check existed.

use std::path::{Path, PathBuf};
use std::process::Command;

use parcels::apply::TrainedModel;
use serde_json::{json, Value};

fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/models")
}

/// Every model file in `corpora/models/`, loaded, with its path; at least the two shipped ones.
fn shipped_models() -> Vec<(PathBuf, TrainedModel)> {
    let mut models = Vec::new();
    for entry in std::fs::read_dir(models_dir()).expect("corpora/models") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            let model = TrainedModel::load(&path).unwrap_or_else(|e| panic!("{}", parcels::output::error_chain(&e)));
            models.push((path, model));
        }
    }
    assert!(models.len() >= 2, "default.json and parcels-17.json at least, found {}", models.len());
    models
}

/// The shipped default model (it has a context stage) as JSON to corrupt.
fn default_model() -> Value {
    serde_json::from_str(parcels::models::DEFAULT_MODEL_JSON).expect("the default model is JSON")
}

/// The load error of a corrupted model, as text.
fn refused(model: &Value) -> String {
    match TrainedModel::from_json(&model.to_string(), "bad.json") {
        Ok(_) => panic!("a corrupted model was accepted"),
        Err(e) => parcels::output::error_chain(&e),
    }
}

/// Asserts the load error names the file and says `needle`.
fn assert_refused(model: &Value, needle: &str) {
    let err = refused(model);
    assert!(err.starts_with("bad.json: "), "{err}");
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
}

#[test]
fn every_shipped_model_passes_validation() {
    for (path, model) in shipped_models() {
        parcels::models::validate(&model, &path.display().to_string()).expect("valid");
    }
    parcels::models::default_model().expect("the compiled-in model loads");
}

#[test]
fn an_article_label_missing_from_the_label_list_is_refused() {
    // Before: `extract` silently left the title empty on every page.
    let mut m = default_model();
    m["scheme"]["article"]["title"] = json!("nope");
    assert_refused(&m, "the label scheme \"l3s-gn1\": [article] names \"nope\", which is not a label of the scheme");
    let mut m = default_model();
    m["scheme"]["article"]["main_text"].as_array_mut().unwrap().push(json!("nope"));
    assert_refused(&m, "[article] names \"nope\"");
}

#[test]
fn a_label_named_twice_is_refused() {
    // Before: every page failed with a feature schema error (the context stage's columns are
    // named after the labels).
    let mut m = default_model();
    m["scheme"]["labels"][1]["name"] = json!("not-content");
    assert_refused(&m, "label \"not-content\" appears twice");
}

#[test]
fn a_renamed_label_no_longer_matching_the_context_columns_is_refused() {
    // Before: "feature schema differs from the model's" on every page.
    let mut m = default_model();
    m["scheme"]["labels"][5]["name"] = json!("renamed");
    assert_refused(
        &m,
        "the context learner's column 5 is \"ctx.stylistic.comments\", but the context features of the scheme's labels has \"ctx.stylistic.renamed\" there",
    );
}

#[test]
fn learners_and_labels_disagreeing_on_the_class_count_are_refused() {
    let mut m = default_model();
    m["scheme"]["labels"].as_array_mut().unwrap().pop();
    assert_refused(&m, "the stylistic learner has 6 classes, the scheme l3s-gn1 has 5");
    let mut m = default_model();
    m["lexical"]["n_classes"] = json!(7);
    assert_refused(&m, "the lexical learner: inconsistent model: stump 0 branch 0 has 6 confidences for 7 classes");
}

#[test]
fn a_stump_column_out_of_range_is_refused() {
    let mut m = default_model();
    let test = &mut m["stylistic"]["stumps"][0]["test"];
    let column = if test["AtMost"].is_object() { &mut test["AtMost"]["column"] } else { &mut test["Present"]["column"] };
    // Beyond any learner's columns (numeric and token) in any model we ship.
    *column = json!(100_000_000);
    assert_refused(&m, "the stylistic learner: inconsistent model: stump 0 tests");
}

#[test]
fn an_empty_learner_is_refused() {
    // Before: every block took the first class (stylistic), or the context stage made every
    // block main text, exit 0.
    for learner in ["stylistic", "lexical", "single_view", "context"] {
        let mut m = default_model();
        m[learner]["stumps"] = json!([]);
        m[learner]["round_z"] = json!([]);
        let name = learner.replace('_', "-");
        assert_refused(&m, &format!("the {name} learner has no stumps (it would label every block \"not-content\")"));
    }
}

#[test]
fn feature_names_that_differ_from_a_learners_columns_are_refused() {
    // Before: the learner's column renamed failed every page; the single-view one was never
    // noticed.
    let mut m = default_model();
    m["stylistic"]["schema"]["numeric_names"][0] = json!("zzz");
    assert_refused(&m, "the stylistic learner's column 0 is \"zzz\", but `features.stylistic` has \"pos.start\" there");
    let mut m = default_model();
    m["features"]["lexical"][2] = json!("zzz");
    assert_refused(&m, "the lexical learner's column 2 is \"vocabulary-ratio\", but `features.lexical` has \"zzz\" there");
    let mut m = default_model();
    let n = m["features"]["lexical"].as_array().unwrap().len();
    m["features"]["lexical"].as_array_mut().unwrap().pop();
    assert_refused(&m, &format!("the lexical learner has {n} numeric columns, `features.lexical` {}", n - 1));
    let mut m = default_model();
    let tokens = m["features"]["lexical_tokens"].as_u64().unwrap();
    m["features"]["lexical_tokens"] = json!(5);
    assert_refused(&m, &format!("the lexical learner has {tokens} token columns, the model's feature lists say 5"));
    let mut m = default_model();
    // The single-view learner's first lexical column: the stylistic features come first.
    let k = m["features"]["stylistic"].as_array().unwrap().len();
    let first_lexical = m["features"]["lexical"][0].as_str().unwrap().to_string();
    m["single_view"]["schema"]["numeric_names"][k] = json!("zzz");
    assert_refused(&m, &format!("the single-view learner's column {k} is \"zzz\", but the stylistic then the lexical features has \"{first_lexical}\" there"));
}

#[test]
fn a_divider_inventory_a_divider_file_could_not_have_is_refused() {
    // Before: accepted, and pages divided with no nesting at all.
    let mut m = default_model();
    m["divider"]["max_depth"] = json!(0);
    assert_refused(&m, "the divider inventory: max_depth: must be at least 1");
    let mut m = default_model();
    m["divider"]["content"].as_array_mut().unwrap().push(json!("div"));
    assert_refused(&m, "the divider inventory: content: \"div\" is also structural or skipped");
}

#[test]
fn extract_with_an_inconsistent_model_fails_once_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("parcels-model-validation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut m = default_model();
    m["context"]["stumps"] = json!([]);
    m["context"]["round_z"] = json!([]);
    let model = dir.join("empty-context.json");
    std::fs::write(&model, m.to_string()).unwrap();
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pages/linear.html");
    let out = Command::new(env!("CARGO_BIN_EXE_parcels")).arg("extract").arg("--model").arg(&model).arg(&page).output().expect("run parcels");
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(out.stdout.is_empty(), "no page is extracted with a refused model");
    assert!(stderr.contains(&format!("{}: the context learner has no stumps", model.display())), "{stderr}");
}

#[test]
fn a_view_naming_an_unknown_feature_group_is_refused_naming_the_file() {
    // Before: refused by the classifier as "views: unknown stylistic feature group", without
    // the file's name.
    let mut m = default_model();
    m["config"]["views"]["stylistic"][0] = json!("nope");
    assert_refused(&m, "its stylistic view has a feature group \"nope\" this parcels does not know (known: placement, ");
}

#[test]
fn a_huge_stump_confidence_is_refused() {
    // Before: 1e308 on the `full-text` class of two stumps per view labelled every block
    // `full-text`, exit 0. Infinite and NaN values do not even parse as JSON numbers.
    let mut m = default_model();
    m["stylistic"]["stumps"][1]["outputs"][0][2] = json!(1e308);
    assert_refused(&m, "the stylistic learner: inconsistent model: stump 1 branch 0 has a confidence 1e308, beyond ±1000");
    let text = default_model().to_string();
    let at = text.find("\"outputs\":[[").expect("a stump") + "\"outputs\":[[".len();
    let inf = format!("{}1e999,{}", &text[..at], &text[at..]);
    let err = TrainedModel::from_json(&inf, "bad.json").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.starts_with("bad.json: not a parcels model: number out of range"), "{err}");
}

/// A shipped model is what `parcels train` makes of the config in `configs/` that bears its
/// name: an adopted setting goes into both, or the README's recipe and the file disagree. The
/// config is compared as the model stores it (every setting, comments aside), so a change to
/// the config without retraining (or the reverse) fails here, naming the setting's section.
#[test]
fn every_shipped_model_was_trained_from_the_config_that_bears_its_name() {
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    for (path, model) in shipped_models() {
        let config_path = configs.join(format!("{}.toml", model.config.name));
        let config = parcels::config::ExperimentConfig::load(&config_path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (stored, current) = (serde_json::to_value(&model.config).unwrap(), serde_json::to_value(&config).unwrap());
        for (section, value) in current.as_object().unwrap() {
            assert_eq!(stored.get(section), Some(value), "{} was not trained from {}: [{section}] differs", path.display(), config_path.display());
        }
        assert_eq!(stored, current, "{}", path.display());
    }
}
