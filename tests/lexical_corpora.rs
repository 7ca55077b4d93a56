//! Every page of the shared corpora computes its lexical features without panic, and the
//! features keep their invariants (row lengths, sorted sparse tokens, finite values).
//! Corpora: `../shared/corpora` or `$PARCELS_CORPORA`; skipped with a message when absent.

use std::path::PathBuf;

use rayon::prelude::*;

use parcels::divide::Divider;
use parcels::lexical::{numeric_feature_names, IdfTable, LexicalCache, LexicalExtractor};
use parcels::page::{LoadOptions, Page};

fn corpora() -> PathBuf {
    std::env::var_os("PARCELS_CORPORA").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"))
}

fn pages() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["l3s-gn1/original", "dragnet/input", "cleaneval-dev/input"] {
        let dir = corpora().join(sub);
        match std::fs::read_dir(&dir) {
            Ok(entries) => out.extend(entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file())),
            Err(_) => eprintln!("skipped: {} not found", dir.display()),
        }
    }
    out.sort();
    out
}

#[test]
fn every_corpus_page_computes_lexical_features() {
    let paths = pages();
    if paths.is_empty() {
        eprintln!("skipped: no corpus pages under {}", corpora().display());
        return;
    }
    let idf = IdfTable::load(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/idf/dragnet.tsv")).unwrap();
    let extractor = LexicalExtractor::new(&idf);
    let divider = Divider::default();
    let width = numeric_feature_names().len();
    let max_id = idf.len() as u32;
    let start = std::time::Instant::now();
    let results: Vec<Result<usize, String>> = paths
        .par_iter()
        .enumerate()
        .map_init(LexicalCache::default, |cache, (i, p)| {
            let page = match Page::load(p, &LoadOptions::default()) {
                Ok(page) => page,
                // Unreadable pages are the loader's business (reported, skipped), not ours.
                Err(e) => return Err(e.to_string()),
            };
            let division = divider.divide(&page);
            let f = extractor.extract_with(&division, cache);
            if i % 97 == 0 {
                // The cache is pure memoisation.
                assert_eq!(f, extractor.extract(&division), "{}: cache changed the features", p.display());
            }
            assert_eq!(f.len(), division.blocks.len(), "{}", p.display());
            for (row, toks) in f.numeric.iter().zip(&f.tokens) {
                assert_eq!(row.len(), width, "{}", p.display());
                assert!(row.iter().all(|v| v.is_finite() && *v >= 0.0), "{}", p.display());
                assert!(toks.windows(2).all(|w| w[0].0 < w[1].0), "{}: token ids not sorted", p.display());
                assert!(toks.iter().all(|(id, w)| *id <= max_id && w.is_finite() && *w > 0.0), "{}", p.display());
            }
            Ok(f.len())
        })
        .collect();
    let blocks: usize = results.iter().filter_map(|r| r.as_ref().ok()).sum();
    let skipped: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    for e in &skipped {
        eprintln!("not loadable: {e}");
    }
    eprintln!("{} pages, {} blocks, {} not loadable, in {:.1}s", paths.len(), blocks, skipped.len(), start.elapsed().as_secs_f64());
    assert!(skipped.len() * 100 < paths.len(), "more than 1% of the pages could not be loaded");
}
