//! Experiments from configs: validation before any work, folds that never share a page or site,
//! and the same numbers for the same config and seed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use parcels::experiment::{run, ExperimentConfig, Rounds};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn demo() -> ExperimentConfig {
    std::env::set_current_dir(root()).unwrap();
    let mut c = ExperimentConfig::load(Path::new("configs/demo.toml")).unwrap();
    // A shorter run than the shipped demo: the properties do not depend on its length.
    c.boosting.rounds = Rounds::Fixed(25);
    c.cotraining.r = 3;
    c.evaluation.samme_stumps = 10;
    c
}

#[test]
fn shipped_configs_load() {
    std::env::set_current_dir(root()).unwrap();
    let demo = ExperimentConfig::load(Path::new("configs/demo.toml")).unwrap();
    assert_eq!((demo.cotraining.u, demo.cotraining.k, demo.cotraining.r), (100, 10, 10));
    if root().join("../shared/corpora").is_dir() {
        for (name, u, k, r) in [("paper-basic", 300, 20, 20), ("paper-css", 70, 10, 9), ("song-3level", 40, 4, 20)] {
            let c = ExperimentConfig::load(&root().join(format!("configs/{name}.toml"))).unwrap();
            assert_eq!((c.cotraining.u, c.cotraining.k, c.cotraining.r), (u, k, r), "{name}");
            assert_eq!(c.evaluation.folds, 5);
            assert!(c.context.is_none(), "{name}: the paper's experiments have no context stage");
        }
        for name in ["l3s-extract", "parcels-17-extract"] {
            let c = ExperimentConfig::load(&root().join(format!("configs/{name}.toml"))).unwrap();
            assert_eq!(c.context.map(|x| (x.rounds, x.folds)), Some((200, 3)), "{name}");
        }
    }
}

fn refused(edit: impl Fn(&str) -> String) -> String {
    std::env::set_current_dir(root()).unwrap();
    let text = std::fs::read_to_string("configs/demo.toml").unwrap();
    let dir = std::env::temp_dir().join(format!("parcels-exp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("bad-{}.toml", text.len() + edit("").len()));
    std::fs::write(&path, edit(&text)).unwrap();
    let err = ExperimentConfig::load(&path).expect_err("config must be refused").to_string();
    assert!(err.starts_with(&path.display().to_string()), "{err}");
    err
}

#[test]
fn impossible_configs_are_refused_before_any_work() {
    assert!(refused(|t| t.replace("[cotraining]\n", "[cotraining]\nlambda = 3\n")).contains("lambda"));
    assert!(refused(|t| t.replace("k = 10", "k = 200")).contains("cannot exceed u"));
    assert!(refused(|t| t.replace("folds = 4", "folds = 0")).contains("at least 2 folds"));
    assert!(refused(|t| t.replace("corpora/demo/pool.tsv", "corpora/demo/no-such-pool.tsv")).contains("not found"));
    assert!(refused(|t| t.replace("rounds = 100", "rounds = \"many\"")).contains("a number or \"cv\""));
    assert!(refused(|t| t.replace("scheme = \"parcels-17\"", "scheme = \"parcels-18\"")).contains("parcels-18"));
    assert!(refused(|t| format!("{t}\n[context]\nrounds = 0\n")).contains("context: rounds (0) must be positive"));
    assert!(refused(|t| format!("{t}\n[context]\nrounds = 50\nwindow = 3\n")).contains("window"));
}

#[test]
fn folds_split_by_site_and_runs_repeat_bit_for_bit() {
    let config = demo();
    let a = run(&config, &|_| {}).unwrap();
    // Every labelled page is tested exactly once; no site is on both sides of a fold.
    let mut seen = BTreeSet::new();
    for f in &a.folds {
        for p in &f.test_pages {
            assert!(seen.insert(p.clone()), "{p} tested twice");
        }
        let sites: BTreeSet<&str> = f.test_pages.iter().map(|p| p.split('-').next().unwrap()).collect();
        for other in a.folds.iter().filter(|o| o.fold != f.fold) {
            assert!(other.test_pages.iter().all(|p| !sites.contains(p.split('-').next().unwrap())), "a site straddles folds");
        }
        // Round 0 and r rounds of co-training; the learners are better than the majority class.
        assert_eq!(f.errors["combined"].len(), 4);
        assert!(f.errors["combined"][0] < f.errors["majority"][0]);
        assert!(f.added.iter().all(|&n| n > 0));
    }
    assert_eq!(seen.len(), a.labelled_pages);
    let b = run(&config, &|_| {}).unwrap();
    // Everything repeats except the linfa SAMME baseline: linfa-trees 0.8 sums Gini frequencies
    // and breaks modal-class ties in `HashMap` order, which is seeded per process.
    let strip = |r: &parcels::experiment::ExperimentResults| {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("wall_seconds");
        v.as_object_mut().unwrap().remove("peak_memory_mb");
        for f in v["folds"].as_array_mut().unwrap() {
            f["predictions"].as_object_mut().unwrap().remove("samme");
            f["errors"].as_object_mut().unwrap().remove("samme");
        }
        v
    };
    assert_eq!(strip(&a), strip(&b), "same config and seed, different numbers");
    let mut other = config.clone();
    other.seed += 1;
    let c = run(&other, &|_| {}).unwrap();
    assert_ne!(strip(&a)["folds"], strip(&c)["folds"], "the seed must matter");
}

#[test]
fn reports_are_written_and_rebuilt_from_results() {
    let results = run(&demo(), &|_| {}).unwrap();
    let dir = std::env::temp_dir().join(format!("parcels-report-{}", std::process::id()));
    parcels::report::write_all(&results, &dir).unwrap();
    for f in ["results.json", "curves.csv", "per-class.csv", "confusion-combined.csv", "error-curve.svg", "report.md"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let svg = std::fs::read_to_string(dir.join("error-curve.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("combined"));
    let curves = std::fs::read_to_string(dir.join("curves.csv")).unwrap();
    assert!(curves.starts_with("learner,round,mean,fold0"));
    std::fs::remove_file(dir.join("report.md")).unwrap();
    let back = parcels::report::load(&dir).unwrap();
    parcels::report::write_derived(&back, &dir).unwrap();
    assert!(std::fs::read_to_string(dir.join("report.md")).unwrap().contains("## Per-class F1"));
    std::fs::remove_dir_all(&dir).unwrap();
}
