//! Training a model from a config, saving and loading it, classifying and extracting pages.

use std::path::{Path, PathBuf};
use std::process::Command;

use parcels::apply::{article, train, Classifier, TrainedModel};
use parcels::experiment::{ExperimentConfig, Rounds};
use parcels::page::{LoadOptions, Page};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn small_demo() -> ExperimentConfig {
    std::env::set_current_dir(root()).unwrap();
    let mut c = ExperimentConfig::load(Path::new("configs/demo.toml")).unwrap();
    c.boosting.rounds = Rounds::Fixed(30);
    c.cotraining.r = 2;
    c
}

#[test]
fn a_saved_model_predicts_exactly_like_the_trained_one_and_extracts_articles() {
    let model = train(&small_demo(), &|_| {}).unwrap();
    assert_eq!(model.classes.len(), 17);
    let dir = std::env::temp_dir().join(format!("parcels-apply-{}", std::process::id()));
    let path = dir.join("model.json");
    model.save(&path).unwrap();
    let loaded = TrainedModel::load(&path).unwrap();
    let page = Page::load(root().join("corpora/demo/pool/citybeacon-1.html"), &LoadOptions::default()).unwrap();
    let (_, a) = Classifier::new(model).unwrap().classify(&page).unwrap();
    let (division, b) = Classifier::new(loaded).unwrap().classify(&page).unwrap();
    assert_eq!(a.len(), division.blocks.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((x.id, &x.label, x.confidence.to_bits(), x.view), (y.id, &y.label, y.confidence.to_bits(), y.view));
    }
    // An unseen page of a site in the pool: the article comes out in document order.
    let art = article(&b);
    assert!(art.main_text.contains("bike lanes"), "{}", art.main_text);
    assert!(!art.main_text.contains("Advertisement"));

    // The command line: a batch goes on past a bad page, text and JSON formats.
    let empty = dir.join("empty.html");
    std::fs::write(&empty, b"").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["extract", "--model"])
        .arg(&path)
        .arg(root().join("corpora/demo/pool/citybeacon-1.html"))
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line: serde_json::Value = serde_json::from_slice(out.stdout.split(|&c| c == b'\n').next().unwrap()).unwrap();
    for key in ["path", "title", "main_text", "date", "reporter", "source", "location", "subheaders", "blocks"] {
        assert!(line.get(key).is_some(), "{key} missing");
    }
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty.html: page is empty"));
    let out = Command::new(env!("CARGO_BIN_EXE_parcels")).args(["classify", "--model"]).arg(&path).arg(root().join("tests/pages/linear.html")).output().unwrap();
    assert!(out.status.success());
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["blocks"].as_array().unwrap().len(), 4);
    assert!(line["blocks"][0]["confidence"].as_f64().unwrap() > 0.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_model_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["classify", "--model", "/no/such/model.json"])
        .arg(root().join("tests/pages/linear.html"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/model.json: cannot read"));
}
