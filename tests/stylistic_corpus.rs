//! Every page of the shared corpora computes its stylistic features without panicking, with a
//! dense row per block. Skipped (with a message) when `../shared/corpora` is absent.

use std::path::{Path, PathBuf};
use std::time::Instant;

use parcels::divide::Divider;
use parcels::page::{LoadOptions, Page};
use parcels::stylistic::{extract, StyleOptions};
use rayon::prelude::*;

const CORPORA: &[&str] = &["l3s-gn1/original", "dragnet/input", "cleaneval-dev/input"];

fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let mut files = Vec::new();
    for dir in CORPORA {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        files.extend(entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()));
    }
    files.sort();
    (!files.is_empty()).then_some(files)
}

#[test]
fn every_corpus_page_computes_stylistic_features() {
    let Some(files) = corpus_files() else {
        eprintln!("skipped: ../shared/corpora not found");
        return;
    };
    let start = Instant::now();
    let divider = Divider::default();
    let opts = StyleOptions::default();
    let results: Vec<(usize, usize)> = files
        .par_iter()
        .map(|path| {
            let Ok(page) = Page::load(path, &LoadOptions::default()) else { return (0, 0) };
            let division = divider.divide(&page);
            let features = extract(&page, &division, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(features.rows.len(), division.blocks.len(), "{}", path.display());
            for row in &features.rows {
                assert_eq!(row.len(), features.names.len());
                assert!(row.iter().all(|v| v.is_finite() || v.is_nan()), "{}: infinite feature", path.display());
            }
            (1, division.blocks.len())
        })
        .collect();
    let pages: usize = results.iter().map(|r| r.0).sum();
    let blocks: usize = results.iter().map(|r| r.1).sum();
    eprintln!("{pages} of {} pages, {blocks} blocks, in {:.1?}", files.len(), start.elapsed());
    assert!(pages * 10 >= files.len() * 9, "most pages load");
}
