//! Divider throughput on the L3S-GN1 pages, next to html5ever parsing alone, in one run.
//!
//! `cargo bench --bench divide` (reads ../shared/corpora/l3s-gn1/original, or the directory in
//! `$PARCELS_BENCH_PAGES`). Single-threaded; prints the median of several passes over all pages.
//! Three stages are timed side by side on the same bytes held in memory:
//! - `html5ever parse`: `scraper::Html::parse_document` on the decoded text (the floor);
//! - `load`: encoding detection + decoding + repairs + parsing (`Page::from_bytes`);
//! - `load + divide`: the above plus the divider.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use parcels::divide::Divider;
use parcels::page::{detect_encoding, LoadOptions, Page};

const PASSES: usize = 5;

fn main() {
    let dir = std::env::var_os("PARCELS_BENCH_PAGES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/l3s-gn1/original"));
    let paths = match parcels::files::list_pages(std::slice::from_ref(&dir)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bench divide: {e}");
            return;
        }
    };
    let pages: Vec<(PathBuf, Vec<u8>)> = paths.into_iter().filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b))).collect();
    let texts: Vec<String> = pages.iter().map(|(_, b)| detect_encoding(b).0.decode(b).0.into_owned()).collect();
    let mb = pages.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1e6;
    let opts = LoadOptions::default();
    let divider = Divider::default();

    let parse = median(|| {
        for t in &texts {
            std::hint::black_box(scraper::Html::parse_document(t));
        }
    });
    let load = median(|| {
        for (p, b) in &pages {
            let _ = std::hint::black_box(Page::from_bytes(p, b, &opts));
        }
    });
    let mut blocks = 0;
    let divide = median(|| {
        blocks = 0;
        for (p, b) in &pages {
            if let Ok(page) = Page::from_bytes(p, b, &opts) {
                blocks += std::hint::black_box(divider.divide(&page)).blocks.len();
            }
        }
    });
    let n = pages.len() as f64;
    println!("divide bench: {} pages ({mb:.1} MB) from {}, {blocks} blocks, median of {PASSES} passes, 1 thread", pages.len(), dir.display());
    println!("{:<16} {:>10} {:>10} {:>10}", "stage", "seconds", "pages/s", "vs parse");
    for (name, t) in [("html5ever parse", parse), ("load", load), ("load + divide", divide)] {
        println!("{:<16} {:>10.3} {:>10.1} {:>9.2}x", name, t.as_secs_f64(), n / t.as_secs_f64(), t.as_secs_f64() / parse.as_secs_f64());
    }
}

fn median(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..PASSES)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[PASSES / 2]
}
