//! Throughput of the lexical view: pages per second for the divider alone and for divide +
//! lexical features, on the L3S-GN1 pages, one thread, median of several runs.
//!
//! Run: `cargo bench --bench lexical` (corpus from `../shared/corpora` or `$PARCELS_CORPORA`;
//! `PARCELS_BENCH_RUNS` sets the number of runs, default 5; `PARCELS_BENCH_LEXICAL_ONLY=1` runs
//! the lexical pass four times as often, for a profiler). Pages are loaded and parsed once,
//! before timing: the figures are for dividing and feature extraction only. The stage timings
//! run the tokeniser, stemmer and tagger without the per-page caches the extractor uses.

use std::path::PathBuf;
use std::time::Instant;

use parcels::divide::Divider;
use parcels::lexical::{tokenize, IdfTable, LexicalCache, LexicalExtractor, Stemming, Tagger};
use parcels::page::{LoadOptions, Page};

fn main() {
    let root = std::env::var_os("PARCELS_CORPORA").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"));
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

    let divisions: Vec<_> = pages.iter().map(|p| divider.divide(p)).collect();
    if std::env::var_os("PARCELS_BENCH_LEXICAL_ONLY").is_some() {
        // For profiling the lexical view alone: many passes, nothing else.
        let t = median_seconds(runs * 4, || divisions.iter().map(|d| extractor.extract(d).len()).sum());
        println!("lexical alone {:.1} pages/s", pages.len() as f64 / t);
        return;
    }
    let divide_only = median_seconds(runs, || pages.iter().map(|p| divider.divide(p).blocks.len()).sum());
    let with_lexical = median_seconds(runs, || pages.iter().map(|p| extractor.extract(&divider.divide(p)).tokens.iter().map(Vec::len).sum::<usize>()).sum());
    let lexical_only = median_seconds(runs, || divisions.iter().map(|d| extractor.extract(d).len()).sum());
    // A long-running process keeps one cache per thread across pages.
    let mut cache = LexicalCache::default();
    let with_cache = median_seconds(runs, || pages.iter().map(|p| extractor.extract_with(&divider.divide(p), &mut cache).len()).sum());
    // Stages of the lexical view alone, on the blocks' texts collected beforehand.
    let texts: Vec<String> = divisions.iter().flat_map(|d| d.blocks.iter().map(|b| b.text.clone())).collect();
    let stemming = Stemming::default();
    let tagger = Tagger::default();
    let tokenise = median_seconds(runs, || texts.iter().map(|t| tokenize(t).len()).sum());
    let stem = median_seconds(runs, || texts.iter().map(|t| stemming.stems(t).len()).sum());
    let tag = median_seconds(runs, || texts.iter().map(|t| tagger.tag(&tokenize(t)).len()).sum());
    let n = pages.len() as f64;
    println!("lexical bench: {} pages of {}, 1 thread, median of {runs} runs", pages.len(), dir.display());
    println!("  divide            {:8.1} pages/s  ({:.3} s per pass)", n / divide_only, divide_only);
    println!("  divide + lexical  {:8.1} pages/s  ({:.3} s per pass)", n / with_lexical, with_lexical);
    println!("  divide + lexical  {:8.1} pages/s  (one LexicalCache kept across pages)", n / with_cache);
    println!("  lexical alone     {:8.1} pages/s  (on pages divided beforehand)", n / lexical_only);
    println!("  stages of the lexical view on the {} block texts:", texts.len());
    println!("    tokenise        {:8.3} s per pass", tokenise);
    println!("    tokenise + stem {:8.3} s per pass", stem);
    println!("    tokenise + tag  {:8.3} s per pass", tag);
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
