//! How many training pages the CRF baseline leaves out as near duplicates of held-out pages
//! (`seed_systems.crf`, Gibson et al.'s "No Duplicates"), fold by fold, on a config's folds.
//!
//! `cargo run --release --example near_duplicates configs/seed-baselines-l3s.toml`

use parcels::baselines::blocks::{content_classes, page_runs};
use parcels::baselines::crf::duplicate_training_pages;
use parcels::config::ExperimentConfig;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: near_duplicates CONFIG")?;
    let config = ExperimentConfig::load(std::path::Path::new(&path))?;
    let prepared = parcels::dataset::prepare(&config, &parcels::progress::Quiet)?;
    let data = prepared.test.as_ref().unwrap_or(&prepared.data);
    if prepared.test.is_some() {
        return Err("configs with [evaluation.test] are not supported here".into());
    }
    let content = content_classes(&config, "crf")?;
    let groups = data.groups(config.evaluation.split);
    let folds = parcels::boost::folds_by_group(&groups, config.evaluation.folds, config.seed);
    println!("fold\ttraining pages\tnear duplicates\tpages left out");
    for (f, test_rows) in folds.iter().enumerate() {
        let train_rows = parcels::boost::rows_outside(test_rows, data.targets.len());
        let pick = |rows: &[usize]| -> Vec<_> { rows.iter().map(|&r| data.blocks[r].clone()).collect() };
        let (train_blocks, test_blocks) = (pick(&train_rows), pick(test_rows));
        let targets: Vec<usize> = train_rows.iter().map(|&r| data.targets[r]).collect();
        let train_pages: Vec<usize> = train_rows.iter().map(|&r| data.page_of[r]).collect();
        let test_pages: Vec<usize> = test_rows.iter().map(|&r| data.page_of[r]).collect();
        let runs = page_runs(&train_pages);
        let dropped = duplicate_training_pages(&train_blocks, &targets, &runs, &test_blocks, &test_pages, &content, &config.seed_systems.crf);
        let names: Vec<&str> = runs.iter().zip(&dropped).filter(|(_, &d)| d).map(|(run, _)| data.pages[train_pages[run.start]].0.as_str()).collect();
        println!("{f}\t{}\t{}\t{}", runs.len(), names.len(), names.join(" "));
    }
    Ok(())
}
