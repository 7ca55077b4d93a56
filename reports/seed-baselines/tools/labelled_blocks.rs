//! The labelled blocks of a config, in the order its experiment's rows have them: page name,
//! words and characters of each block, as TSV (for `reports/seed-baselines/page_measures.py`,
//! which needs each held-out block's page and size to score pages and words).
//!
//! `cargo run --release --example labelled_blocks configs/seed-baselines-l3s.toml > blocks.tsv`

use parcels::config::ExperimentConfig;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: labelled_blocks CONFIG")?;
    let config = ExperimentConfig::load(std::path::Path::new(&path))?;
    let prepared = parcels::dataset::prepare(&config, &parcels::progress::Quiet)?;
    let data = prepared.test.as_ref().unwrap_or(&prepared.data);
    println!("page\twords\tchars");
    for (r, b) in data.blocks.iter().enumerate() {
        println!("{}\t{}\t{}", data.pages[data.page_of[r]].0, b.words, b.text.chars().count());
    }
    Ok(())
}
