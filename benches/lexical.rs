//! Throughput of the lexical view: pages per second for the divider alone and for divide +
//! lexical features, on the L3S-GN1 pages, one thread, median of several runs.
//!
//! Run: `cargo bench --bench lexical` (corpus from `../shared/corpora` or `$PARCELS_CORPORA`;
//! `PARCELS_BENCH_RUNS` sets the number of runs, default 5). Pages are loaded and parsed once,
//! before timing: the figures are for dividing and feature extraction only.

use std::path::PathBuf;
use std::time::Instant;

use parcels::divide::Divider;
use parcels::lexical::{IdfTable, LexicalExtractor};
use parcels::page::{LoadOptions, Page};

fn main() {
    let root = std::env::var_os("PARCELS_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"));
    let dir = root.join("l3s-gn1/original");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} not found", dir.display());
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let pages: Vec<Page> = paths.iter().filter_map(|p| Page::load(p, &LoadOptions::default()).ok()).collect();
    let idf_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/idf/dragnet.tsv");
    let idf = match IdfTable::load(&idf_path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let runs: usize = std::env::var("PARCELS_BENCH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(5).max(1);
    let divider = Divider::default();
    let extractor = LexicalExtractor::new(&idf);

    let divide_only = median_seconds(runs, || pages.iter().map(|p| divider.divide(p).blocks.len()).sum());
    let with_lexical = median_seconds(runs, || {
        pages.iter().map(|p| extractor.extract(&divider.divide(p)).tokens.iter().map(Vec::len).sum::<usize>()).sum()
    });
    let n = pages.len() as f64;
    println!("lexical bench: {} pages of {}, 1 thread, median of {runs} runs", pages.len(), dir.display());
    println!("  divide            {:8.1} pages/s  ({:.3} s per pass)", n / divide_only, divide_only);
    println!("  divide + lexical  {:8.1} pages/s  ({:.3} s per pass)", n / with_lexical, with_lexical);
    println!("  lexical alone     {:8.1} pages/s  (difference of the two)", n / (with_lexical - divide_only).max(1e-9));
}

/// Median wall time of `runs` calls of `f`; `f` returns a count so the work is not optimised away.
fn median_seconds(runs: usize, mut f: impl FnMut() -> usize) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
