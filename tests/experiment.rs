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
        // Every config under configs/ (experiments, sweeps: every cell's config, divider inventories)
        // loads and passes its checks.
        let mut checked = 0;
        for entry in std::fs::read_dir(root().join("configs")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            if text.lines().any(|l| l.starts_with("base = ")) {
                let sweep = parcels::sweep::SweepConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
                assert!(!sweep.cells().unwrap_or_else(|e| panic!("{}: {e}", path.display())).is_empty());
            } else if text.lines().any(|l| l.trim() == "[corpus]") {
                ExperimentConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            } else {
                parcels::divide::DividerConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            }
            checked += 1;
        }
        assert!(checked >= 20, "{checked} configs");
    }
}

fn refused(edit: impl Fn(&str) -> String) -> String {
    std::env::set_current_dir(root()).unwrap();
    let text = std::fs::read_to_string("configs/demo.toml").unwrap();
    let dir = std::env::temp_dir().join(format!("parcels-exp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("bad-{}.toml", text.len() + edit("").len()));
    // Paths are relative to the config file: point them back at the repository.
    let text = text.replace("\"../", &format!("\"{}/", root().display()));
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
    assert!(refused(|t| t.replace("\nr = 10\n", "\nr = 10\nselection = \"best\"\n")).contains("unknown (known: class-proportional, top-k, agreement)"));
    assert!(refused(|t| t.replace("samme_stumps = 100", "baselines = [\"oracle\"]")).contains("unknown baseline \"oracle\""));
}

#[test]
fn configs_work_from_any_directory() {
    // Paths in a config are relative to its file, not to the working directory.
    let config = ExperimentConfig::load(&root().join("configs/demo.toml")).unwrap();
    assert!(config.path(&config.corpus.corpora).join("demo").is_dir());
}

/// Pools are drawn from pages nobody labelled, and pages get labelled later: a pool page that is
/// also a labelled page is left out of the pool, and the run says so.
#[test]
fn a_labelled_page_in_the_pool_is_left_out_of_it() {
    use parcels::progress::Event;
    let mut c = demo();
    let dir = std::env::temp_dir().join(format!("parcels-pool-overlap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("pool.tsv");
    let drawn = std::fs::read_to_string(root().join("corpora/demo/pool.tsv")).unwrap();
    // One labelled page of the demo corpus, written as the pool manifests write pages.
    std::fs::write(&manifest, format!("{drawn}pages/coastlinepost-1.html\tcoastlinepost\n")).unwrap();
    c.pool.manifests = vec![manifest];
    let events = std::sync::Mutex::new(Vec::new());
    let prepared = parcels::dataset::prepare(&c, &|e: &Event| events.lock().unwrap().push(e.clone())).unwrap();
    let drawn_pages = drawn.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).count();
    assert_eq!(prepared.pool_pages, drawn_pages);
    assert!(prepared.pool_blocks.sites.iter().all(|s| s != "coastlinepost"));
    assert!(events.lock().unwrap().contains(&Event::LeftOutOfPool { pages: 1 }));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn more_folds_than_sites_is_an_error_before_any_training() {
    let mut config = demo();
    config.evaluation.folds = 10; // the demo corpus has 8 sites
    let err = run(&config, &parcels::progress::Quiet).unwrap_err().to_string();
    assert_eq!(err, "evaluation.folds = 10, but the labelled data has only 8 sites: every fold needs at least one");
}

#[test]
fn folds_split_by_site_and_runs_repeat_bit_for_bit() {
    let config = demo();
    let a = run(&config, &parcels::progress::Quiet).unwrap();
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
    let b = run(&config, &parcels::progress::Quiet).unwrap();
    // Everything repeats except the linfa SAMME baseline: linfa-trees 0.8 sums Gini frequencies
    // and breaks modal-class ties in `HashMap` order, which is seeded per process.
    let strip = |r: &parcels::experiment::ExperimentResults| {
        let mut v = serde_json::to_value(r).unwrap();
        for f in v["folds"].as_array_mut().unwrap() {
            f["predictions"].as_object_mut().unwrap().remove("samme");
            f["errors"].as_object_mut().unwrap().remove("samme");
        }
        v
    };
    assert_eq!(strip(&a), strip(&b), "same config and seed, different numbers");
    let mut other = config.clone();
    other.seed += 1;
    let c = run(&other, &parcels::progress::Quiet).unwrap();
    assert_ne!(strip(&a)["folds"], strip(&c)["folds"], "the seed must matter");
}

#[test]
fn reports_are_written_and_rebuilt_from_results() {
    let results = run(&demo(), &parcels::progress::Quiet).unwrap();
    let dir = std::env::temp_dir().join(format!("parcels-report-{}", std::process::id()));
    parcels::report::write_all(&results, &dir).unwrap();
    for f in ["results.json", "run.json", "curves.csv", "per-class.csv", "confusion-combined.csv", "error-curve.svg", "report.md"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let svg = std::fs::read_to_string(dir.join("error-curve.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("combined"));
    let curves = std::fs::read_to_string(dir.join("curves.csv")).unwrap();
    assert!(curves.starts_with("learner,round,mean,fold0"));
    std::fs::remove_file(dir.join("report.md")).unwrap();
    let back = parcels::report::load(&dir).unwrap();
    parcels::report::write_derived(&back, &dir).unwrap();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("## Per-class F1"));
    // Words, not Rust values; no volatile figures in the tracked files.
    assert!(md.contains("4 folds by site") && !md.contains("Fixed(") && !md.contains("AllRounds"), "{md}");
    assert!(!md.contains("Wall time") && !std::fs::read_to_string(dir.join("results.json")).unwrap().contains("wall_seconds"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A contributor's baseline, written in one file (here, this test) and run beside the built-in
/// ones on the same folds, without touching the library.
struct AlwaysFirstClass;

impl parcels::baselines::Baseline for AlwaysFirstClass {
    fn name(&self) -> &str {
        "always-first"
    }

    fn predict(&self, fold: &parcels::baselines::Fold) -> Result<Vec<Vec<usize>>, parcels::train::TrainError> {
        Ok(vec![vec![0; fold.test.n_rows()]])
    }
}

#[test]
fn a_contributed_baseline_runs_on_the_same_folds_and_reaches_the_report() {
    let mut config = demo();
    config.cotraining.r = 1;
    config.evaluation.samme_stumps = 0;
    let mut baselines = parcels::baselines::from_config(&config);
    assert_eq!(baselines.iter().map(|b| b.name().to_string()).collect::<Vec<_>>(), ["single-view", "self-training", "majority"]);
    baselines.push(Box::new(AlwaysFirstClass));
    let results = parcels::experiment::run_with(&config, &baselines, &parcels::progress::Quiet).unwrap();
    for f in &results.folds {
        // Class 0 of parcels-17 is what every block is called: its error is the share of blocks
        // of other classes.
        let expected = f.gold.iter().filter(|&&g| g != 0).count() as f64 / f.gold.len() as f64;
        assert_eq!(f.errors["always-first"], [expected]);
    }
    assert_eq!(parcels::report::learners(&results).last().map(String::as_str), Some("always-first"));
    assert!(parcels::report::report_md(&results).contains("| always-first |"));
}

#[test]
fn the_context_stage_is_measured_when_the_config_has_one() {
    let mut config = demo();
    config.cotraining.r = 1;
    config.evaluation.samme_stumps = 0;
    config.context = Some(parcels::context::ContextConfig {
        rounds: 20,
        folds: 2,
        depth: None,
        structure: false,
        page: false,
        split: parcels::config::Split::Page,
        keep_agreement: false,
        choose_from_views: false,
        block_columns: parcels::context::BlockColumns::None,
        neighbour_columns: false,
        splits: None,
    });
    let results = run(&config, &parcels::progress::Quiet).unwrap();
    for f in &results.folds {
        assert_eq!(f.errors["context"].len(), 1, "one figure: the context stage over the last round's views");
        assert!(f.errors["context"][0] < f.errors["majority"][0]);
    }
    assert!(parcels::report::report_md(&results).contains("| context |"));
}

#[test]
fn fifty_folds_fail_before_any_page_is_read() {
    // Issue 18: `folds = 50` on a small corpus ran for minutes with no output. The label files
    // alone (16 pages, 8 sites) refuse it: with the corpora root emptied, reading a page would
    // fail with another error.
    let mut config = demo();
    config.evaluation.folds = 50;
    let empty = std::env::temp_dir().join(format!("parcels-no-pages-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    config.corpus.corpora = empty.clone();
    let started = std::time::Instant::now();
    let err = run(&config, &parcels::progress::Quiet).unwrap_err().to_string();
    assert_eq!(err, "evaluation.folds = 50, but the labelled data has only 8 sites: every fold needs at least one");
    config.evaluation.split = parcels::experiment::Split::Page;
    let err = run(&config, &parcels::progress::Quiet).unwrap_err().to_string();
    assert_eq!(err, "evaluation.folds = 50, but the labelled data has only 16 pages: every fold needs at least one");
    assert!(started.elapsed().as_secs() < 5, "refused at once");
    std::fs::remove_dir_all(&empty).unwrap();
}

/// The demo config with a held-out test corpus: the demo labels cut to the `pages` sample,
/// folds by site over it.
fn with_test_corpus(text: &str, pages: &str) -> String {
    let labels = root().join("corpora/demo/labels");
    text.lines().map(|l| if l.starts_with("manifests = [") { "manifests = []".to_string() } else { l.to_string() }).collect::<Vec<_>>().join("\n").replace(
        "samme_stumps = 100",
        &format!("samme_stumps = 0\n\n[evaluation.test]\nlabels = [\"{}\"]\nscheme = \"parcels-17\"\npages = \"{pages}\"", labels.display()),
    )
}

#[test]
fn a_test_corpus_is_validated_like_the_rest() {
    let dir = std::env::temp_dir().join(format!("parcels-exp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pages = dir.join("sample.txt");
    std::fs::write(&pages, "# a sample\ncoastlinepost-1.json\nno-such-page.json\n").unwrap();
    let p = pages.display().to_string();
    assert!(refused(|t| with_test_corpus(t, &p)).contains("names no-such-page.json, which is in none of evaluation.test.labels"));
    let pool = root().join("corpora/demo/pool.tsv").display().to_string();
    assert!(refused(|t| with_test_corpus(t, &p).replace("manifests = []", &format!("manifests = [\"{pool}\"]"))).contains("pool.manifests must be empty"));
    assert!(refused(|t| with_test_corpus(t, &p).replace("scheme = \"parcels-17\"\npages", "scheme = \"song-3level\"\npages"))
        .contains("no built-in mapping from song-3level to the training scheme parcels-17"));
    assert!(refused(|t| with_test_corpus(t, &p).replace("\n[evaluation.test]", "\n[unused]")).contains("unknown field `unused`"));
    assert!(refused(|t| t.lines().map(|l| if l.starts_with("manifests") { "manifests = []" } else { l }).collect::<Vec<_>>().join("\n"))
        .contains("pool.manifests is empty"));
}

#[test]
fn a_test_corpus_is_cut_by_the_folds_and_gives_each_fold_its_pool() {
    std::env::set_current_dir(root()).unwrap();
    let dir = std::env::temp_dir().join(format!("parcels-test-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The sample: the demo's pages of four sites (a, b, c, d), two pages each.
    let names: Vec<String> = std::fs::read_dir(root().join("corpora/demo/labels"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    let mut sample: Vec<String> = names.clone();
    sample.sort();
    sample.truncate(8);
    std::fs::write(dir.join("sample.txt"), sample.join("\n")).unwrap();
    let text = std::fs::read_to_string("configs/demo.toml").unwrap().replace("\"../", &format!("\"{}/", root().display()));
    let text = with_test_corpus(&text, &dir.join("sample.txt").display().to_string()).replace("folds = 4", "folds = 2");
    let path = dir.join("cross.toml");
    std::fs::write(&path, text).unwrap();
    let mut config = ExperimentConfig::load(&path).unwrap();
    config.boosting.rounds = Rounds::Fixed(10);
    config.cotraining.r = 2;
    config.evaluation.budget_pages = parcels::config::Budget::Pages(4);
    let results = run(&config, &parcels::progress::Quiet).unwrap();
    let summary = results.test_corpus.clone().expect("a test corpus summary");
    assert_eq!(summary.pages, 8);
    assert_eq!((results.labelled_pages, results.pool_pages), (names.len(), 8));
    let mut tested = BTreeSet::new();
    for f in &results.folds {
        tested.extend(f.test_pages.iter().cloned());
        // Trained on 4 labelled pages of the whole labelled corpus (the budget).
        assert_eq!(f.train_pages.len(), 4);
        // The pool's labels are known: every round after round 0 judges its self-labels.
        assert!(f.diagnostics.iter().skip(1).all(|d| d.correct.is_some()), "precision of the self-labels");
        assert_eq!(f.main_text_f1["combined"].len(), 3);
        assert!(f.main_text_f1["combined"].iter().all(|v| v.is_some_and(|x| (0.0..=1.0).contains(&x))));
    }
    let sampled: BTreeSet<String> = sample.iter().map(|n| n.trim_end_matches(".json").to_string()).collect();
    assert_eq!(tested, sampled, "the folds cut the test sample, each page once");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 20: the TiMBL thesis's protocols and the seed systems that read the pool. Folds by
/// site never put a held-out page's site on the training side: `timbl` (merged) is then
/// `timbl-across-site` block for block, and `timbl-within-site` is refused with the cause named,
/// never scored on an empty memory.
#[test]
fn timbl_protocols_on_folds_by_site() {
    let mut config = demo();
    config.cotraining.r = 1;
    config.evaluation.samme_stumps = 0;
    assert_eq!(config.evaluation.split, parcels::config::Split::Site);
    let names = ["timbl", "timbl-across-site", "max-subsequence-semi", "crf"];
    config.evaluation.baselines = Some(names.iter().map(|n| n.to_string()).collect());
    let results = run(&config, &parcels::progress::Quiet).unwrap();
    for f in &results.folds {
        assert_eq!(f.predictions["timbl"], f.predictions["timbl-across-site"], "fold {}", f.fold);
        assert_eq!(f.predictions["max-subsequence-semi"][0].len(), f.gold.len());
    }
    config.evaluation.baselines = Some(vec!["timbl-within-site".into()]);
    let e = run(&config, &parcels::progress::Quiet).unwrap_err().to_string();
    assert!(e.contains("timbl-within-site") && e.contains("several pages per site"), "{e}");
}
