//! `parcels extract` with the built-in default model over every page of ../shared/corpora
//! (about 1,900 real pages): every page gives an article, and nearly every one a main text.
//! Prints, per corpus, the pages with an empty main text and the median main-text length.

mod common;

use std::collections::BTreeMap;

use parcels::apply::{Classifier, TrainedModel};
use parcels::page::{LoadOptions, Page};
use rayon::prelude::*;

#[test]
fn every_corpus_page_gives_an_article() {
    let Some(root) = common::corpora() else { return };
    let pages = common::corpus_pages(&root);
    assert!(pages.len() > 1800, "expected about 1,900 pages, found {}", pages.len());
    let model = TrainedModel::from_json(parcels::models::DEFAULT_MODEL_JSON, "default model").unwrap();
    let classifier = Classifier::new(model).unwrap();
    let results: Vec<(&str, Result<usize, String>)> = pages
        .par_iter()
        .map(|(corpus, path)| {
            let r = Page::load(path, &LoadOptions::default())
                .map_err(|e| e.to_string())
                .and_then(|page| classifier.extract(&page).map_err(|e| e.to_string()))
                .map(|e| e.article.main_text.split_whitespace().count());
            (*corpus, r)
        })
        .collect();
    let errors: Vec<&String> = results.iter().filter_map(|(_, r)| r.as_ref().err()).collect();
    assert!(errors.is_empty(), "pages failed: {errors:#?}");
    let mut by_corpus: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (corpus, r) in &results {
        by_corpus.entry(corpus).or_default().push(*r.as_ref().unwrap());
    }
    for (corpus, mut words) in by_corpus {
        words.sort_unstable();
        let empty = words.iter().filter(|&&w| w == 0).count();
        eprintln!("{corpus}: {} pages, {empty} with an empty main text, median {} words", words.len(), words[words.len() / 2]);
        // News corpora: an article on nearly every page (CleanEval is general web pages).
        if corpus != "cleaneval-dev" {
            assert!(empty * 20 < words.len(), "{corpus}: {empty} of {} pages without main text", words.len());
        }
    }
}
