//! The divider over every page of ../shared/corpora (about 1,900 real pages): no panic, no error
//! on these well-formed pages, and sane block counts. Prints blocks per page for each corpus.

mod common;

use std::collections::BTreeMap;

use parcels::divide::Divider;
use parcels::page::{LoadOptions, Page};
use rayon::prelude::*;

#[test]
fn every_corpus_page_divides() {
    let Some(root) = common::corpora() else { return };
    let pages = common::corpus_pages(&root);
    assert!(pages.len() > 1800, "expected about 1,900 pages, found {}", pages.len());
    let divider = Divider::default();
    let results: Vec<(&str, Result<usize, String>)> = pages
        .par_iter()
        .map(|(corpus, path)| {
            let r = Page::load(path, &LoadOptions::default()).map(|p| divider.divide(&p).blocks.len()).map_err(|e| e.to_string());
            (*corpus, r)
        })
        .collect();
    let errors: Vec<&String> = results.iter().filter_map(|(_, r)| r.as_ref().err()).collect();
    assert!(errors.is_empty(), "pages failed to load: {errors:#?}");

    let mut by_corpus: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (corpus, r) in &results {
        by_corpus.entry(corpus).or_default().push(*r.as_ref().unwrap());
    }
    for (corpus, mut counts) in by_corpus {
        counts.sort_unstable();
        let n = counts.len();
        let total: usize = counts.iter().sum();
        let (p10, median, p90, max) = (counts[n / 10], counts[n / 2], counts[n * 9 / 10], counts[n - 1]);
        eprintln!("{corpus}: {n} pages, {total} blocks; blocks per page: p10 {p10}, median {median}, p90 {p90}, max {max}");
        let empty = counts.iter().filter(|&&c| c == 0).count();
        assert!(empty * 100 <= n, "{corpus}: {empty} of {n} pages have no block");
        // The paper's fine-grained blocks: 1,625 blocks on 20 news pages, about 80 a page.
        assert!((30..=300).contains(&median), "{corpus}: median blocks per page {median}");
    }
}
