//! Throughput of the stylistic view on the L3S-GN1 pages, single-threaded, on pages parsed
//! beforehand: the divider alone, the CSS cascade alone, the feature families on an already
//! divided and styled page, and divide + stylistic (cascade and features) end to end. Prints the
//! median of several runs in pages per second.
//!
//! `cargo bench --bench stylistic` (set `PARCELS_BENCH_RUNS` to change the number of runs).

use std::path::Path;
use std::time::{Duration, Instant};

use parcels::css::{CssOptions, StyledDom};
use parcels::divide::Divider;
use parcels::page::{LoadOptions, Page};
use parcels::stylistic::{extract, extract_styled, StyleOptions};

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

    let divisions: Vec<_> = pages.iter().map(|p| divider.divide(p)).collect();
    let styled: Vec<_> = pages.iter().map(|p| StyledDom::compute(p, &CssOptions::default()).ok()).collect();
    // The configurations alternate within each run so a busy machine slows them alike.
    let mut times: [Vec<Duration>; 4] = Default::default();
    for _ in 0..runs.max(1) {
        times[0].push(timed(|| {
            for page in &pages {
                std::hint::black_box(divider.divide(page));
            }
        }));
        times[1].push(timed(|| {
            for page in &pages {
                std::hint::black_box(StyledDom::compute(page, &CssOptions::default()).ok());
            }
        }));
        times[2].push(timed(|| {
            for ((page, division), styled) in pages.iter().zip(&divisions).zip(&styled) {
                if let Some(styled) = styled {
                    std::hint::black_box(extract_styled(page, division, styled, &opts).ok());
                }
            }
        }));
        times[3].push(timed(|| {
            for page in &pages {
                let division = divider.divide(page);
                std::hint::black_box(extract(page, &division, &opts).ok());
            }
        }));
    }
    let labels = ["divide", "css cascade", "features (styled)", "divide + stylistic"];
    for (label, mut t) in labels.into_iter().zip(times) {
        t.sort();
        report(label, pages.len(), t[t.len() / 2]);
    }
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn report(what: &str, pages: usize, d: Duration) {
    let secs = d.as_secs_f64();
    println!("{what:>20}: {:8.1} pages/s  ({:.3} s per pass, {:.2} ms/page)", pages as f64 / secs, secs, secs * 1000.0 / pages as f64);
}
