//! Helpers shared by integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared corpora (`../shared/corpora` beside the repository, or `$PARCELS_CORPORA`).
/// Returns `None` outside CI when they are absent; in CI their absence is a failure, so a
/// misplaced checkout cannot pass by skipping.
pub fn corpora() -> Option<PathBuf> {
    let dir = std::env::var_os("PARCELS_CORPORA").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!("{}: corpora not found (set PARCELS_CORPORA)", dir.display());
    }
    eprintln!("skipping: {} not found", dir.display());
    None
}

/// Every page of the three corpora, sorted, with the corpus name.
pub fn corpus_pages(root: &std::path::Path) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    for (name, sub) in [("l3s-gn1", "l3s-gn1/original"), ("dragnet", "dragnet/input"), ("cleaneval-dev", "cleaneval-dev/input")] {
        let mut pages = parcels::files::list_pages(&[root.join(sub)]).unwrap_or_default();
        pages.sort();
        out.extend(pages.into_iter().map(|p| (name, p)));
    }
    out
}
