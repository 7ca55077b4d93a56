//! The shipped IDF table (`corpora/idf/dragnet.tsv`) and how it is rebuilt.
//!
//! Until `parcels idf build` is wired into the binary, the table is rebuilt with
//! `cargo test --release --test lexical_idf -- --ignored build_dragnet_table`, which counts the
//! Dragnet pages (`../shared/corpora/dragnet/input/*.html`, or `$PARCELS_CORPORA/dragnet/input`).

use std::path::PathBuf;

use parcels::divide::Divider;
use parcels::lexical::{build_idf, IdfTable, TOKENISER_VERSION};
use parcels::page::LoadOptions;

/// Stems seen in fewer pages than this are left out of the shipped table (they get the
/// unknown-stem IDF); this keeps the file small while losing only stems no block shares.
const MIN_DF: u64 = 2;

fn shipped() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/idf/dragnet.tsv")
}

fn corpora() -> PathBuf {
    std::env::var_os("PARCELS_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"))
}

#[test]
fn shipped_table_loads_and_is_plausible() {
    let t = IdfTable::load(shipped()).unwrap();
    assert_eq!(t.documents(), 1381);
    assert_eq!(t.min_df(), MIN_DF);
    assert!(t.len() > 10_000, "{} stems", t.len());
    // Function words are in nearly every page; a news word in fewer; numbers share one stem.
    assert!(t.idf("the") < 1.05, "idf(the) = {}", t.idf("the"));
    assert!(t.idf("newslett") > t.idf("the"));
    assert!(t.df("<num>") > 1300);
    assert!(t.idf("zzzqqq-never") == t.unknown_idf());
    let _ = TOKENISER_VERSION;
}

#[test]
#[ignore = "rebuilds corpora/idf/dragnet.tsv from the Dragnet pages (about 5 s in release on 2 cores)"]
fn build_dragnet_table() {
    let dir = corpora().join("dragnet/input");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} not found", dir.display());
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .collect();
    paths.sort();
    let start = std::time::Instant::now();
    let build = build_idf(&paths, &Divider::default(), &LoadOptions::default(), MIN_DF).unwrap();
    for e in &build.skipped {
        eprintln!("skipped: {e}");
    }
    build.table.save(shipped()).unwrap();
    eprintln!(
        "{} pages ({} skipped), {} stems with df >= {MIN_DF}, in {:.1}s",
        build.table.documents(),
        build.skipped.len(),
        build.table.len(),
        start.elapsed().as_secs_f64()
    );
}
