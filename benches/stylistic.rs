//! Throughput of the stylistic view on the L3S-GN1 pages: the divider alone, next to the
//! divider plus the CSS cascade and stylistic features, single-threaded, on pages parsed
//! beforehand. Prints the median of several runs in pages per second.
//!
//! `cargo bench --bench stylistic` (set `PARCELS_BENCH_RUNS` to change the number of runs).

use std::path::Path;
use std::time::{Duration, Instant};

use parcels::css::{CssOptions, StyledDom};
use parcels::divide::Divider;
use parcels::page::{LoadOptions, Page};
use parcels::stylistic::{extract, StyleOptions};

const CORPUS: &str = "../shared/corpora/l3s-gn1/original";

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} not found", dir.display());
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    let pages: Vec<Page> = paths.iter().filter_map(|p| Page::load(p, &LoadOptions::default()).ok()).collect();
    let runs: usize = std::env::var("PARCELS_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let divider = Divider::default();
    let opts = StyleOptions::default();
    println!("{} L3S pages, {runs} runs, single thread", pages.len());

    let divide = median(runs, || {
        for page in &pages {
            std::hint::black_box(divider.divide(page));
        }
    });
    report("divide", pages.len(), divide);

    let cascade = median(runs, || {
        for page in &pages {
            std::hint::black_box(StyledDom::compute(page, &CssOptions::default()).ok());
        }
    });
    report("css cascade", pages.len(), cascade);

    let both = median(runs, || {
        for page in &pages {
            let division = divider.divide(page);
            std::hint::black_box(extract(page, &division, &opts).ok());
        }
    });
    report("divide + stylistic", pages.len(), both);
}

fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn report(what: &str, pages: usize, d: Duration) {
    let secs = d.as_secs_f64();
    println!("{what:>20}: {:8.1} pages/s  ({:.3} s per pass, {:.2} ms/page)", pages as f64 / secs, secs, secs * 1000.0 / pages as f64);
}
