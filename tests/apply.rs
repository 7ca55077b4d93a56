//! Training a model from a config, saving and loading it, classifying and extracting pages.

use std::path::{Path, PathBuf};
use std::process::Command;

use parcels::apply::{cross_extract, train, train_saving_views, Classifier, FoldModels, TrainedModel};
use parcels::experiment::{ExperimentConfig, Rounds};
use parcels::page::{LoadOptions, Page};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn small_demo() -> ExperimentConfig {
    std::env::set_current_dir(root()).unwrap();
    let mut c = ExperimentConfig::load(Path::new("configs/demo.toml")).unwrap();
    c.boosting.rounds = Rounds::Fixed(30);
    c.cotraining.r = 2;
    c
}

#[test]
fn a_saved_model_predicts_exactly_like_the_trained_one_and_extracts_articles() {
    let model = train(&small_demo(), &parcels::progress::Quiet, None).unwrap();
    assert_eq!(model.scheme.len(), 17);
    let dir = std::env::temp_dir().join(format!("parcels-apply-{}", std::process::id()));
    let path = dir.join("model.json");
    model.save(&path).unwrap();
    let loaded = TrainedModel::load(&path).unwrap();
    let page = Page::load(root().join("corpora/demo/pool/citybeacon-1.html"), &LoadOptions::default()).unwrap();
    let a = Classifier::new(model).unwrap().classify(&page).unwrap().blocks;
    let loaded = Classifier::new(loaded).unwrap();
    let parcels::apply::Classified { division, blocks: b, .. } = loaded.classify(&page).unwrap();
    assert_eq!(a.len(), division.blocks.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((x.id, &x.label, x.confidence.to_bits(), x.view), (y.id, &y.label, y.confidence.to_bits(), y.view));
    }
    // An unseen page of a site in the pool: the article comes out in document order.
    let parcels::apply::Extracted { article: art, blocks, .. } = loaded.extract(&page).unwrap();
    assert_eq!(blocks.len(), b.len());
    assert!(art.main_text.contains("bike lanes"), "{}", art.main_text);
    assert!(!art.main_text.contains("Advertisement"));

    // The command line: a batch goes on past a bad page, text and JSON formats.
    let empty = dir.join("empty.html");
    std::fs::write(&empty, b"").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["extract", "--model"])
        .arg(&path)
        .arg(root().join("corpora/demo/pool/citybeacon-1.html"))
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line: serde_json::Value = serde_json::from_slice(out.stdout.split(|&c| c == b'\n').next().unwrap()).unwrap();
    for key in ["path", "title", "main_text", "date", "reporter", "source", "location", "subheaders", "blocks"] {
        assert!(line.get(key).is_some(), "{key} missing");
    }
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty.html: page is empty"));
    // The bad page also gets a record on stdout, so a JSON Lines reader sees every page.
    let records: Vec<serde_json::Value> = out.stdout.split(|&c| c == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect();
    assert_eq!(records.len(), 2);
    assert!(records[1]["path"].as_str().unwrap().ends_with("empty.html"));
    assert!(records[1]["error"].as_str().unwrap().contains("page is empty"), "{}", records[1]);
    let out =
        Command::new(env!("CARGO_BIN_EXE_parcels")).args(["classify", "--model"]).arg(&path).arg(root().join("tests/pages/linear.html")).output().unwrap();
    assert!(out.status.success());
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["blocks"].as_array().unwrap().len(), 4);
    assert!(line["blocks"][0]["confidence"].as_f64().unwrap() > 0.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn classify_gives_each_block_the_probabilities_its_label_was_chosen_from() {
    let page = root().join("tests/pages/linear.html");
    let out = Command::new(env!("CARGO_BIN_EXE_parcels")).args(["classify", "--probabilities"]).arg(&page).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let labels: Vec<String> = parcels::models::default_model().unwrap().scheme.names().map(str::to_string).collect();
    let blocks = record["blocks"].as_array().unwrap();
    assert!(!blocks.is_empty());
    for b in blocks {
        let p = b["probabilities"].as_object().unwrap();
        assert_eq!(p.keys().cloned().collect::<std::collections::BTreeSet<String>>(), labels.iter().cloned().collect::<std::collections::BTreeSet<String>>());
        let sum: f64 = p.values().map(|v| v.as_f64().unwrap()).sum();
        assert!((sum - 1.0).abs() < 1e-4, "{b}");
        let label = b["label"].as_str().unwrap();
        assert!(p.values().all(|v| v.as_f64().unwrap() <= p[label].as_f64().unwrap()), "the label is the most probable: {b}");
    }
    // Without the flag, records keep their shape; text output has no room for them.
    let out = Command::new(env!("CARGO_BIN_EXE_parcels")).args(["classify"]).arg(&page).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("probabilities"));
    let out = Command::new(env!("CARGO_BIN_EXE_parcels")).args(["classify", "--probabilities", "--format", "text"]).arg(&page).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--probabilities needs --format json"));
}

#[test]
fn a_missing_model_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["classify", "--model", "/no/such/model.json"])
        .arg(root().join("tests/pages/linear.html"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/model.json: cannot read"));
}

#[test]
fn cross_extraction_never_uses_a_model_trained_on_the_pages_site() {
    let mut config = small_demo();
    config.cotraining.r = 1;
    let (pages, models) = cross_extract(&config, &parcels::progress::Quiet, &FoldModels::default()).unwrap();
    assert_eq!(models.len(), 4);
    // Every labelled page once, each by the model of the fold holding its site.
    assert_eq!(pages.len(), 16);
    let mut paths: Vec<_> = pages.iter().map(|p| p.path.clone()).collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), 16);
    let site = |p: &Path| p.file_name().unwrap().to_str().unwrap().rsplit_once('-').unwrap().0.to_string();
    let mut fold_of_site = std::collections::BTreeMap::new();
    for p in &pages {
        let fold = *fold_of_site.entry(site(&p.path)).or_insert(p.fold);
        assert_eq!(fold, p.fold, "{} is not in its site's fold", p.path.display());
        let (article, blocks) = p.result.as_ref().unwrap();
        assert!(!blocks.is_empty());
        assert!(article.main_text.lines().all(|l| !l.is_empty()));
    }
    assert_eq!(pages.iter().map(|p| p.fold).max(), Some(3), "four folds");
    // The same config and seed give the same extractions.
    let (again, _) = cross_extract(&config, &parcels::progress::Quiet, &FoldModels::default()).unwrap();
    for (a, b) in pages.iter().zip(&again) {
        assert_eq!(a.result.as_ref().unwrap().0.main_text, b.result.as_ref().unwrap().0.main_text);
    }
}

#[test]
fn cross_extraction_reusing_saved_views_reproduces_the_run_and_trains_only_the_context_stage() {
    let mut config = small_demo();
    config.cotraining.r = 1;
    config.context = Some(context_stage());
    let quiet = &parcels::progress::Quiet;
    let (pages, models) = cross_extract(&config, quiet, &FoldModels::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("parcels-reuse-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (f, m) in models.iter().enumerate() {
        m.save(&dir.join(format!("fold-{f}.json"))).unwrap();
    }
    let labels = |ps: &[parcels::apply::HeldOutPage]| -> Vec<(String, String, String)> {
        let blocks = ps.iter().flat_map(|p| p.result.as_ref().unwrap().1.iter());
        blocks.map(|b| (b.label.clone(), b.views.stylistic.label.clone(), b.views.lexical.label.clone())).collect()
    };
    let reuse = FoldModels { views_from: Some(&dir), ..FoldModels::default() };
    // The same config: the stage trained again beside the saved views is the saved stage.
    let (again, again_models) = cross_extract(&config, quiet, &reuse).unwrap();
    assert_eq!(labels(&again), labels(&pages));
    for (a, b) in models.iter().zip(&again_models) {
        assert_eq!(serde_json::to_string(a).unwrap(), serde_json::to_string(b).unwrap());
    }
    // Another stage: the views say the same of every block, the stage is the new config's.
    let stage = parcels::context::ContextConfig { rounds: 3, block_columns: parcels::context::BlockColumns::Both, ..context_stage() };
    config.context = Some(stage);
    let (other, other_models) = cross_extract(&config, quiet, &reuse).unwrap();
    let views = |ls: Vec<(String, String, String)>| ls.into_iter().map(|(_, s, l)| (s, l)).collect::<Vec<_>>();
    assert_eq!(views(labels(&other)), views(labels(&pages)));
    for (m, saved) in other_models.iter().zip(&models) {
        assert_eq!(m.config.context.as_ref(), Some(&stage));
        assert_eq!(m.context.as_ref().unwrap().stumps().len(), 3);
        assert_eq!(serde_json::to_string(&m.lexical).unwrap(), serde_json::to_string(&saved.lexical).unwrap());
    }
    // Views trained with another config are refused, naming the file.
    config.cotraining.r = 2;
    let err = cross_extract(&config, quiet, &reuse).expect_err("another co-training config");
    let message = err.to_string();
    assert!(message.contains("fold-0.json") && message.contains("another config"), "{message}");
    // Views trained on other pages than the fold's (here fold 0's, which trained on fold 1's
    // held-out pages) are refused: the folds of a corpus that grew since, for one.
    config.cotraining.r = 1;
    assert!(models[0].views_trained_on.is_some() && models[0].views_trained_on != models[1].views_trained_on);
    std::fs::copy(dir.join("fold-0.json"), dir.join("fold-1.json")).unwrap();
    let err = cross_extract(&config, quiet, &reuse).expect_err("fold 0's views for fold 1");
    let message = err.to_string();
    assert!(message.contains("fold-1.json") && message.contains("view learners were trained on other labelled blocks"), "{message}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_cut_cross_extraction_resumes_from_the_fold_models_it_saved() {
    let mut config = small_demo();
    config.cotraining.r = 1;
    let dir = std::env::temp_dir().join(format!("parcels-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = FoldModels { save_to: Some(&dir), ..FoldModels::default() };
    let (pages, models) = cross_extract(&config, &parcels::progress::Quiet, &save).unwrap();
    for (f, m) in models.iter().enumerate() {
        let saved = std::fs::read_to_string(dir.join(parcels::apply::fold_file(f))).unwrap();
        assert_eq!(saved, serde_json::to_string(m).unwrap(), "fold {f} saved as trained");
    }
    // Cut before folds 1 and 3 were saved: resuming trains those two only.
    std::fs::remove_file(dir.join("fold-1.json")).unwrap();
    std::fs::remove_file(dir.join("fold-3.json")).unwrap();
    let trained = std::sync::Mutex::new(std::collections::BTreeSet::new());
    let watch = |e: &parcels::progress::Event| {
        if let parcels::progress::Event::Stage { fold: Some(f), stage: parcels::progress::Stage::CoTraining } = e {
            trained.lock().unwrap().insert(*f);
        }
    };
    let resume = FoldModels { resume: true, ..save };
    let (again, again_models) = cross_extract(&config, &watch, &resume).unwrap();
    assert_eq!(trained.into_inner().unwrap().into_iter().collect::<Vec<_>>(), vec![1, 3]);
    let records = |ps: &[parcels::apply::HeldOutPage]| -> Vec<(PathBuf, usize, String, Vec<String>)> {
        ps.iter()
            .map(|p| {
                (p.path.clone(), p.fold, p.result.as_ref().unwrap().0.main_text.clone(), p.result.as_ref().unwrap().1.iter().map(|b| b.label.clone()).collect())
            })
            .collect()
    };
    assert_eq!(records(&again), records(&pages), "a resumed run gives the uncut run's records");
    for (a, b) in models.iter().zip(&again_models) {
        assert_eq!(serde_json::to_string(a).unwrap(), serde_json::to_string(b).unwrap());
    }
    assert!(dir.join("fold-3.json").exists());
    // Models of another config are not resumed from: the error names the file.
    config.cotraining.r = 2;
    let err = cross_extract(&config, &parcels::progress::Quiet, &resume).expect_err("another config");
    let message = err.to_string();
    assert!(message.contains("fold-") && message.contains("another config"), "{message}");
    // Nor a fold model trained on another fold's pages.
    config.cotraining.r = 1;
    std::fs::copy(dir.join("fold-2.json"), dir.join("fold-3.json")).unwrap();
    let err = cross_extract(&config, &parcels::progress::Quiet, &resume).expect_err("fold 2's model for fold 3");
    let message = err.to_string();
    assert!(message.contains("fold-3.json") && message.contains("other labelled blocks"), "{message}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn only_the_folds_asked_for_are_trained_and_extracted_on_the_whole_runs_folds() {
    let mut config = small_demo();
    config.cotraining.r = 1;
    let (all, all_models) = cross_extract(&config, &parcels::progress::Quiet, &FoldModels::default()).unwrap();
    let trained = std::sync::Mutex::new(std::collections::BTreeSet::new());
    let watch = |e: &parcels::progress::Event| {
        if let parcels::progress::Event::Stage { fold: Some(f), stage: parcels::progress::Stage::CoTraining } = e {
            trained.lock().unwrap().insert(*f);
        }
    };
    let only = [2, 0];
    let (some, some_models) = cross_extract(&config, &watch, &FoldModels { only: Some(&only), ..FoldModels::default() }).unwrap();
    assert_eq!(trained.into_inner().unwrap().into_iter().collect::<Vec<_>>(), vec![0, 2]);
    let records = |ps: &[parcels::apply::HeldOutPage]| -> Vec<(PathBuf, usize, Vec<String>)> {
        ps.iter().map(|p| (p.path.clone(), p.fold, p.result.as_ref().unwrap().1.iter().map(|b| b.label.clone()).collect())).collect()
    };
    let expected: Vec<_> = records(&all).into_iter().filter(|r| r.1 == 0 || r.1 == 2).collect();
    assert!(!expected.is_empty());
    assert_eq!(records(&some), expected, "the pages and labels of those folds in the whole run");
    assert_eq!(some_models.len(), 2);
    assert_eq!(serde_json::to_string(&some_models[1]).unwrap(), serde_json::to_string(&all_models[2]).unwrap());
    // A fold the config does not have is refused before any training.
    let err = cross_extract(&config, &parcels::progress::Quiet, &FoldModels { only: Some(&[1, 9]), ..FoldModels::default() }).expect_err("no fold 9");
    assert!(err.to_string().contains("fold 9"), "{err}");
}

#[test]
fn folds_from_an_earlier_run_hold_out_each_listed_page_in_its_fold_whatever_the_seed() {
    let mut config = small_demo();
    config.cotraining.r = 1;
    let stem = |p: &Path| p.file_name().unwrap().to_str().unwrap().split('.').next().unwrap().to_string();
    let folds_of = |c: &ExperimentConfig| -> Vec<(String, usize)> {
        let (pages, _) = cross_extract(c, &parcels::progress::Quiet, &FoldModels::default()).unwrap();
        let mut v: Vec<(String, usize)> = pages.iter().map(|p| (stem(&p.path), p.fold)).collect();
        v.sort();
        v
    };
    let first = folds_of(&config);
    let dir = std::env::temp_dir().join(format!("parcels-folds-from-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The earlier run's folds of all but two sites' pages; another seed deals the rest.
    let listed: Vec<&(String, usize)> = first.iter().filter(|(p, _)| !p.starts_with("coastlinepost") && !p.starts_with("harbourgazette")).collect();
    let file = dir.join("folds.tsv");
    let lines: String = listed.iter().map(|(p, f)| format!("{p}.json\t{f}\n")).collect();
    std::fs::write(&file, format!("# folds of the first run\n{lines}")).unwrap();
    config.seed = 7;
    assert_ne!(folds_of(&config), first, "another seed deals other folds");
    config.evaluation.folds_from = Some(file.clone());
    let kept = folds_of(&config);
    for (page, fold) in &listed {
        assert!(kept.contains(&(page.clone(), *fold)), "{page} left fold {fold}: {kept:?}");
    }
    assert_eq!(kept.len(), first.len(), "every page held out once");
    // A site split across folds is refused, naming the file and the site.
    let (a, b) = (&listed[0].0, listed.iter().find(|(p, _)| p.split('-').next() == listed[0].0.split('-').next() && p != &listed[0].0).unwrap());
    std::fs::write(&file, format!("{a}.json\t0\n{}.json\t1\n", b.0)).unwrap();
    let err = cross_extract(&config, &parcels::progress::Quiet, &FoldModels::default()).expect_err("a site in two folds").to_string();
    assert!(err.contains("folds.tsv") && err.contains("folds 0 and 1"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn training_only_the_context_stage_beside_a_models_views_gives_the_model_trained_whole() {
    let model = demo_with_context_stage();
    let dir = std::env::temp_dir().join(format!("parcels-train-reuse-{}", std::process::id()));
    let path = dir.join("model.json");
    std::fs::create_dir_all(&dir).unwrap();
    model.save(&path).unwrap();
    // The config demo_with_context_stage trains from.
    let mut config = small_demo();
    config.cotraining.r = 1;
    config.context = Some(context_stage());
    let again = train(&config, &parcels::progress::Quiet, Some(&path)).unwrap();
    assert_eq!(serde_json::to_string(&again).unwrap(), serde_json::to_string(&model).unwrap());
    config.context.as_mut().unwrap().rounds = 4;
    let other = train(&config, &parcels::progress::Quiet, Some(&path)).unwrap();
    assert_eq!(other.context.as_ref().unwrap().stumps().len(), 4);
    assert_eq!(serde_json::to_string(&other.stylistic).unwrap(), serde_json::to_string(&model.stylistic).unwrap());
    std::fs::remove_dir_all(&dir).ok();
}

/// `parcels train --save-views`: the views saved before the stage trains are those of the
/// whole model, and a run cut in the stage takes up from them (`--reuse-views`) to the very
/// model an uncut run gives.
#[test]
fn training_that_saves_its_views_first_gives_the_model_trained_whole_and_can_resume_from_them() {
    let model = demo_with_context_stage();
    let config = small_demo_with_stage();
    let dir = std::env::temp_dir().join(format!("parcels-save-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let views = dir.join("views.json");
    let whole = train_saving_views(&config, &parcels::progress::Quiet, &views).unwrap();
    assert_eq!(serde_json::to_string(&whole).unwrap(), serde_json::to_string(&model).unwrap());
    let saved = TrainedModel::load(&views).unwrap();
    assert!(saved.context.is_none() && saved.stage_trained_on.is_none(), "the views alone");
    assert_eq!(serde_json::to_string(&saved.lexical).unwrap(), serde_json::to_string(&model.lexical).unwrap());
    let resumed = train(&config, &parcels::progress::Quiet, Some(&views)).unwrap();
    assert_eq!(serde_json::to_string(&resumed).unwrap(), serde_json::to_string(&model).unwrap());
    std::fs::remove_dir_all(&dir).ok();
}

/// A cross-validation cut in a fold's context stage resumes from the fold's saved views: only
/// the stage trains again, and the records are the uncut run's.
#[test]
fn a_cross_extraction_cut_in_a_stage_resumes_from_the_folds_saved_views() {
    use parcels::progress::{Event, Stage};
    let config = small_demo_with_stage();
    let dir = std::env::temp_dir().join(format!("parcels-resume-stage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = FoldModels { save_to: Some(&dir), ..FoldModels::default() };
    let (pages, models) = cross_extract(&config, &parcels::progress::Quiet, &save).unwrap();
    for (f, m) in models.iter().enumerate() {
        let views = TrainedModel::load(&dir.join(parcels::apply::fold_views_file(f))).unwrap();
        assert!(views.context.is_none());
        assert_eq!(serde_json::to_string(&views.stylistic).unwrap(), serde_json::to_string(&m.stylistic).unwrap(), "fold {f}");
    }
    // Fold 2 cut in its stage: its model is missing, its views are there.
    std::fs::remove_file(dir.join(parcels::apply::fold_file(2))).unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let watch = |e: &Event| {
        if let Event::Stage { fold: Some(f), stage } = e {
            seen.lock().unwrap().push((*f, stage.clone()));
        }
    };
    let (again, again_models) = cross_extract(&config, &watch, &FoldModels { resume: true, ..save }).unwrap();
    let seen = seen.into_inner().unwrap();
    let trained: Vec<&(usize, Stage)> = seen.iter().filter(|(_, s)| !matches!(s, Stage::Extracting { .. })).collect();
    assert!(trained.iter().all(|(f, _)| *f == 2), "only fold 2 trains: {seen:?}");
    assert!(trained.iter().any(|(_, s)| matches!(s, Stage::ContextTraining)), "{seen:?}");
    assert!(!trained.iter().any(|(_, s)| matches!(s, Stage::CoTraining | Stage::ChoosingRounds)), "no co-training again: {seen:?}");
    for (a, b) in models.iter().zip(&again_models) {
        assert_eq!(serde_json::to_string(a).unwrap(), serde_json::to_string(b).unwrap());
    }
    let labels = |ps: &[parcels::apply::HeldOutPage]| -> Vec<(PathBuf, Vec<String>)> {
        ps.iter().map(|p| (p.path.clone(), p.result.as_ref().unwrap().1.iter().map(|b| b.label.clone()).collect())).collect()
    };
    assert_eq!(labels(&again), labels(&pages));
    assert!(dir.join(parcels::apply::fold_file(2)).exists(), "the resumed fold is saved");
    std::fs::remove_dir_all(&dir).ok();
}

/// The stage's training is one step that takes an hour on the shipped corpus: it reports its
/// rounds as it goes, up to the budget, in order.
#[test]
fn training_the_context_stage_reports_its_rounds() {
    use parcels::progress::Event;
    let mut config = small_demo();
    config.cotraining.r = 1;
    config.context = Some(context_stage());
    let events = std::sync::Mutex::new(Vec::new());
    let model = train(&config, &|e: &Event| events.lock().unwrap().push(e.clone()), None).unwrap();
    let rounds: Vec<(Option<usize>, usize, usize)> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            Event::StageRound { fold, round, rounds } => Some((*fold, *round, *rounds)),
            _ => None,
        })
        .collect();
    let fitted = model.context.as_ref().unwrap().stumps().len();
    assert_eq!(rounds, (1..=fitted).map(|r| (None, r, 10)).collect::<Vec<_>>());
}

#[test]
fn a_labelled_budget_cuts_what_each_fold_model_learns_from_but_not_what_it_extracts() {
    let mut config = small_demo();
    config.cotraining.r = 0;
    let (all_pages, all_models) = cross_extract(&config, &parcels::progress::Quiet, &FoldModels::default()).unwrap();
    config.evaluation.budget_pages = parcels::config::Budget::Pages(2);
    let (pages, models) = cross_extract(&config, &parcels::progress::Quiet, &FoldModels::default()).unwrap();
    // Every held-out page is still extracted, by the model of its fold.
    assert_eq!(pages.len(), all_pages.len());
    for (cut, all) in models.iter().zip(&all_models) {
        assert!(cut.training_blocks < all.training_blocks, "{} against {}", cut.training_blocks, all.training_blocks);
    }
    // The draw is the seed's: the same budget gives the same models.
    let (_, again) = cross_extract(&config, &parcels::progress::Quiet, &FoldModels::default()).unwrap();
    let blocks = |ms: &[TrainedModel]| ms.iter().map(|m| m.training_blocks).collect::<Vec<_>>();
    assert_eq!(blocks(&models), blocks(&again));
}

#[test]
fn a_list_of_trainable_pages_keeps_the_folds_and_held_out_pages_of_the_whole_corpus() {
    let mut config = small_demo();
    config.cotraining.r = 0;
    let (all_pages, all_models) = cross_extract(&config, &parcels::progress::Quiet, &FoldModels::default()).unwrap();
    // Train on five pages of three of the eight sites; every page is still held out once.
    let dir = std::env::temp_dir().join(format!("parcels-trainable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("trainable.txt");
    let names = ["coastlinepost-1.json", "coastlinepost-2.json", "harbourgazette-1.json", "harbourgazette-2.json"];
    std::fs::write(&list, format!("# a sample\n{}\nlakesidebulletin-1.json\n", names.join("\n"))).unwrap();
    config.evaluation.train_pages = Some(list);
    let (pages, models) = cross_extract(&config, &parcels::progress::Quiet, &FoldModels::default()).unwrap();
    let order = |ps: &[parcels::apply::HeldOutPage]| ps.iter().map(|p| (p.fold, p.path.clone())).collect::<Vec<_>>();
    assert_eq!(order(&pages), order(&all_pages), "same folds, same held-out pages");
    for (cut, all) in models.iter().zip(&all_models) {
        assert!(cut.training_blocks < all.training_blocks, "{} against {}", cut.training_blocks, all.training_blocks);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_built_in_default_model_extracts_without_options() {
    let out = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["extract", "--format", "text"])
        .arg(root().join("corpora/demo/pool/citybeacon-1.html"))
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("bike lanes"), "{text}");
}

#[test]
fn a_model_carries_its_divider_and_works_from_any_directory() {
    // Trained with the coarse divider of configs/divider-coarse.toml; used from the temporary
    // directory, where no config, divider or scheme file can be found.
    let mut config = small_demo();
    config.cotraining.r = 1;
    config.corpus.divider = Some(PathBuf::from("divider-coarse.toml"));
    let model = train(&config, &parcels::progress::Quiet, None).unwrap();
    let coarse = parcels::divide::DividerConfig::load(root().join("configs/divider-coarse.toml")).unwrap();
    assert_eq!(model.divider, coarse, "the inventory itself is in the model");
    let dir = std::env::temp_dir().join(format!("parcels-coarse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("coarse.json");
    model.save(&path).unwrap();
    let page = root().join("corpora/demo/pool/citybeacon-1.html");
    let out = Command::new(env!("CARGO_BIN_EXE_parcels")).args(["classify", "--model", "coarse.json"]).arg(&page).current_dir(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let loaded = Page::load(&page, &LoadOptions::default()).unwrap();
    let coarse_blocks = parcels::divide::Divider::new(coarse).divide(&loaded).blocks.len();
    let fine_blocks = parcels::divide::Divider::default().divide(&loaded).blocks.len();
    assert!(coarse_blocks < fine_blocks);
    assert_eq!(line["blocks"].as_array().unwrap().len(), coarse_blocks, "blocks of the model's own divider");
    // Each block says what both views said.
    let b = &line["blocks"][0];
    assert!(b["views"]["stylistic"]["label"].is_string() && b["views"]["lexical"]["confidence"].is_f64(), "{b}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Saves `model`, loads it back and checks that both label a demo page's blocks alike, to the
/// bit of their confidences.
fn assert_same_labels_after_save_and_load(model: TrainedModel, name: &str) {
    let dir = std::env::temp_dir().join(format!("parcels-apply-{name}-{}", std::process::id()));
    let path = dir.join("model.json");
    model.save(&path).unwrap();
    let loaded = Classifier::new(TrainedModel::load(&path).unwrap()).unwrap();
    let page = Page::load(root().join("corpora/demo/pool/citybeacon-1.html"), &LoadOptions::default()).unwrap();
    let a = Classifier::new(model).unwrap().classify(&page).unwrap().blocks;
    let b = loaded.classify(&page).unwrap().blocks;
    assert!(!a.is_empty());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((x.id, &x.label, x.confidence.to_bits(), x.view), (y.id, &y.label, y.confidence.to_bits(), y.view));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small context stage that decides every block (no arbitration settings).
fn context_stage() -> parcels::context::ContextConfig {
    parcels::context::ContextConfig {
        rounds: 10,
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
    }
}

/// The small demo model, co-trained one round, with [`context_stage`].
fn demo_with_context_stage() -> TrainedModel {
    train(&small_demo_with_stage(), &parcels::progress::Quiet, None).unwrap()
}

/// The config [`demo_with_context_stage`] trains: one co-training round and [`context_stage`].
fn small_demo_with_stage() -> ExperimentConfig {
    let mut config = small_demo();
    config.cotraining.r = 1;
    config.context = Some(context_stage());
    config
}

#[test]
fn a_model_of_two_level_trees_saves_loads_and_predicts_exactly() {
    let mut config = small_demo();
    config.boosting.depth = 2;
    config.cotraining.r = 1;
    config.context = Some(parcels::context::ContextConfig { depth: Some(1), ..context_stage() });
    let model = train(&config, &parcels::progress::Quiet, None).unwrap();
    assert!(model.stylistic.stumps().iter().all(|s| s.children.is_some()), "depth 2: every round is a tree");
    assert!(model.context.as_ref().unwrap().stumps().iter().all(|s| s.children.is_none()), "[context] depth = 1 overrides it");
    assert_same_labels_after_save_and_load(model, "trees");
}

#[test]
fn a_context_stage_that_sees_the_element_tree_saves_loads_and_predicts_exactly() {
    let mut config = small_demo();
    config.cotraining.r = 1;
    config.context = Some(parcels::context::ContextConfig { structure: true, split: parcels::config::Split::Site, ..context_stage() });
    let model = train(&config, &parcels::progress::Quiet, None).unwrap();
    let names = &model.context.as_ref().unwrap().schema().numeric_names;
    assert!(names.iter().any(|n| n.starts_with("ctx.up2.")), "the element-tree columns are there: {names:?}");
    assert_same_labels_after_save_and_load(model, "structure");
}

#[test]
fn a_context_stage_that_sees_the_whole_page_saves_loads_and_predicts_exactly() {
    let mut config = small_demo();
    config.cotraining.r = 1;
    config.context = Some(parcels::context::ContextConfig { structure: true, page: true, ..context_stage() });
    let model = train(&config, &parcels::progress::Quiet, None).unwrap();
    let names = &model.context.as_ref().unwrap().schema().numeric_names;
    assert!(names.iter().any(|n| n == "ctx.page.blocks"), "the page-wide columns are there: {names:?}");
    assert!(names.iter().any(|n| n.starts_with("ctx.up2.")), "beside the element-tree ones");
    assert_same_labels_after_save_and_load(model, "page");
}

#[test]
fn a_context_stage_that_sees_the_blocks_own_view_columns_saves_loads_and_predicts_exactly() {
    let mut config = small_demo();
    config.cotraining.r = 1;
    config.context = Some(parcels::context::ContextConfig { block_columns: parcels::context::BlockColumns::Both, ..context_stage() });
    let model = train(&config, &parcels::progress::Quiet, None).unwrap();
    let context = model.context.as_ref().unwrap().schema();
    let (stylistic, lexical) = (model.stylistic.schema(), model.lexical.schema());
    // The context columns, then the stylistic view's, then the lexical view's, tokens likewise.
    let own: Vec<&String> = stylistic.numeric_names.iter().chain(lexical.numeric_names.iter()).collect();
    let tail: Vec<&String> = context.numeric_names[context.numeric_names.len() - own.len()..].iter().collect();
    assert_eq!(tail, own);
    assert!(context.numeric_names[0].starts_with("ctx."));
    assert_eq!(context.token_names.len(), stylistic.token_names.len() + lexical.token_names.len());
    assert_same_labels_after_save_and_load(model, "block-columns");
}

#[test]
fn a_context_stage_of_hamming_trees_that_sees_the_neighbours_columns_saves_loads_and_predicts_exactly() {
    let mut config = small_demo();
    config.cotraining.r = 1;
    config.context = Some(parcels::context::ContextConfig { neighbour_columns: true, splits: Some(4), ..context_stage() });
    let model = train(&config, &parcels::progress::Quiet, None).unwrap();
    let context = model.context.as_ref().unwrap();
    let (stylistic, lexical) = (model.stylistic.schema(), model.lexical.schema());
    // The context columns, then the numeric columns of both views for the block before, then
    // for the block after.
    let own: Vec<&String> = stylistic.numeric_names.iter().chain(lexical.numeric_names.iter()).collect();
    let names = &context.schema().numeric_names;
    let tail = &names[names.len() - 2 * own.len()..];
    for (side, half) in ["prev", "next"].iter().zip(tail.chunks(own.len())) {
        let expected: Vec<String> = own.iter().map(|n| format!("ctx.{side}.{n}")).collect();
        assert_eq!(half, expected.as_slice());
    }
    assert!(context.stumps().iter().all(|t| t.nodes().count() <= 4), "at most 4 tests per round");
    assert!(context.stumps().iter().any(|t| t.children.is_some()), "the rounds grow trees");
    assert_same_labels_after_save_and_load(model, "hamming-neighbours");
}

#[test]
fn a_context_stage_that_keeps_agreements_decides_only_where_the_views_disagree() {
    let model = demo_with_context_stage();
    let mut keeping = model.clone();
    keeping.config.context.as_mut().unwrap().keep_agreement = true;
    let page = Page::load(root().join("corpora/demo/pool/citybeacon-1.html"), &LoadOptions::default()).unwrap();
    let always = Classifier::new(model).unwrap().classify(&page).unwrap().blocks;
    let kept = Classifier::new(keeping.clone()).unwrap().classify(&page).unwrap().blocks;
    assert_eq!(always.len(), kept.len());
    let (mut agreed, mut disagreed) = (0, 0);
    for (a, k) in always.iter().zip(&kept) {
        if k.views.stylistic.label == k.views.lexical.label {
            agreed += 1;
            assert_eq!(k.label, k.views.stylistic.label, "block {}: the views' shared label is kept", k.id);
            assert_ne!(k.view, parcels::cotrain::View::Context);
        } else {
            disagreed += 1;
            assert_eq!((&a.label, a.confidence.to_bits(), a.view), (&k.label, k.confidence.to_bits(), k.view), "block {}: the stage decides as before", k.id);
        }
    }
    assert!(agreed > 0 && disagreed > 0, "the page has both kinds of blocks ({agreed} agreed, {disagreed} not)");
    assert_same_labels_after_save_and_load(keeping, "keep-agreement");
}

#[test]
fn a_context_stage_that_chooses_from_the_views_gives_every_block_one_of_their_classes() {
    let model = demo_with_context_stage();
    let mut arbiter = model.clone();
    *arbiter.config.context.as_mut().unwrap() =
        parcels::context::ContextConfig { keep_agreement: true, choose_from_views: true, ..model.config.context.unwrap() };
    let page = Page::load(root().join("corpora/demo/pool/citybeacon-1.html"), &LoadOptions::default()).unwrap();
    let free = Classifier::new(model).unwrap().classify(&page).unwrap().blocks;
    let chosen = Classifier::new(arbiter.clone()).unwrap().classify(&page).unwrap().blocks;
    let mut third = 0;
    for (f, b) in free.iter().zip(&chosen) {
        let from = match b.view {
            parcels::cotrain::View::Stylistic => &b.views.stylistic,
            parcels::cotrain::View::Lexical => &b.views.lexical,
            other => panic!("block {}: decided by {other:?}, not by a view", b.id),
        };
        assert_eq!(b.label, from.label, "block {}: the class of the view that decided", b.id);
        if f.label != f.views.stylistic.label && f.label != f.views.lexical.label {
            third += 1;
            assert_eq!(b.confidence.to_bits(), from.confidence.to_bits(), "block {}: chosen, with the view's confidence", b.id);
        }
    }
    assert!(third > 0, "the free stage named a class neither view gave on some block of the page");
    assert_same_labels_after_save_and_load(arbiter, "choose-from-views");
}
