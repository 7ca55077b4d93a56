//! The boosted-stump learner as a linfa citizen: `Dataset`, `Fit`, `Predict`, `fold`,
//! confusion matrices, on both record kinds, plus the linfa-trees baselines.

use linfa::prelude::*;
use ndarray::{Array1, Array2};
use parcels::boost::baselines::{fit_decision_tree_on, SammeStumps};
use parcels::boost::{choose_rounds_by_cv, folds_by_group, AdaBoostMh};
use parcels::matrix::{FeatureMatrix, SparseRows};

/// Blocks of 30 "pages" × 4 blocks: class 0 (navigation) has many links and the token "home",
/// class 1 (main content) is long, class 2 (footer) has the token "copyright".
fn blocks() -> (FeatureMatrix, Array1<usize>, Vec<usize>) {
    let n = 120;
    let mut numeric = Array2::zeros((n, 2));
    let mut tokens = Vec::new();
    let mut y = Vec::new();
    let mut page = Vec::new();
    for i in 0..n {
        let class = i % 3;
        // A deterministic wobble so the classes overlap a little on each feature.
        let wobble = ((i * 7919) % 13) as f64 / 13.0;
        numeric[(i, 0)] = if class == 0 { 0.6 + 0.4 * wobble } else { 0.5 * wobble };
        numeric[(i, 1)] = if class == 1 { 200.0 + 100.0 * wobble } else { 150.0 * wobble };
        let mut t = Vec::new();
        if class == 0 && i % 5 != 0 {
            t.push((0, 1.5));
        }
        if class == 2 && i % 7 != 0 {
            t.push((1, 2.0));
        }
        if i % 4 == 0 {
            t.push((2, 0.5)); // noise token
        }
        tokens.push(t);
        y.push(class);
        page.push(i / 4);
    }
    let tokens = SparseRows::from_rows(3, tokens).expect("valid rows");
    let x = FeatureMatrix::new(numeric, vec!["link_density".into(), "n_chars".into()], tokens, vec!["home".into(), "copyright".into(), "the".into()])
        .expect("valid matrix");
    (x, Array1::from(y), page)
}

#[test]
fn fit_predict_and_confusion_matrix_on_feature_matrices() {
    let (x, y, _) = blocks();
    let data = DatasetBase::new(x, y);
    let model = AdaBoostMh::params().n_rounds(30).fit(&data).expect("valid data");
    let predicted: Array1<usize> = model.predict(&data);
    let cm = predicted.confusion_matrix(&data).expect("same labels");
    assert!(cm.accuracy() > 0.95, "accuracy {}", cm.accuracy());
    let with_conf = model.predict_with_confidence(&data.records).expect("same schema");
    assert_eq!(with_conf.classes, predicted);
    assert!(with_conf.confidences.iter().all(|&c| (1.0 / 3.0..=1.0).contains(&c)));
}

#[test]
fn dense_records_work_with_linfa_fold() {
    let (x, y, _) = blocks();
    let data = Dataset::new(x.numeric().clone(), y);
    let params = AdaBoostMh::params().n_rounds(20);
    let mut accuracies = Vec::new();
    for (train, valid) in data.fold(4) {
        let model = params.fit(&train).expect("fold trains");
        let pred = model.predict(&valid);
        accuracies.push(pred.confusion_matrix(&valid).expect("labels").accuracy());
    }
    assert_eq!(accuracies.len(), 4);
    // Two numeric features separate the three classes well but not perfectly.
    assert!(accuracies.iter().all(|&a| a > 0.7), "{accuracies:?}");
}

#[test]
fn rounds_chosen_by_cross_validation_over_pages() {
    let (x, y, page) = blocks();
    let folds = folds_by_group(&page, 5, 7);
    let params = AdaBoostMh::params().check().expect("valid");
    let choice = choose_rounds_by_cv(&params, &x, y.as_slice().expect("contiguous"), &folds, 40).expect("valid folds");
    assert!((1..=40).contains(&choice.n_rounds));
    assert!(choice.cv_error[choice.n_rounds - 1] < 0.2, "{:?}", choice.cv_error);
}

#[test]
fn linfa_trees_baselines_learn_the_blocks() {
    let (x, y, _) = blocks();
    let tree = fit_decision_tree_on(&x, y.view(), Some(4)).expect("fits");
    let pred: Array1<usize> = tree.predict(&x.to_dense(0.0));
    let acc = pred.iter().zip(&y).filter(|(p, t)| p == t).count() as f64 / y.len() as f64;
    assert!(acc > 0.9, "tree accuracy {acc}");
    let samme = SammeStumps::fit_on(&x, y.view(), 3, 30).expect("fits");
    let pred = samme.predict(x.to_dense(0.0).view());
    let acc = pred.iter().zip(&y).filter(|(p, t)| p == t).count() as f64 / y.len() as f64;
    assert!(acc > 0.9, "SAMME accuracy {acc}");
}

/// SAMME's own Gini stumps are CART stumps: on data without ties they split where a
/// linfa-trees tree of depth 1 splits, so both label every block alike.
#[test]
fn gini_stumps_agree_with_linfa_trees_depth_one_trees() {
    use parcels::boost::baselines::{fit_decision_tree, sort_columns, GiniStump};
    use rand::{Rng, SeedableRng};
    for seed in 0..5u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let x = Array2::from_shape_fn((150, 4), |_| rng.gen_range(-1.0..1.0));
        let y: Array1<usize> = x
            .rows()
            .into_iter()
            .map(|r| {
                if r[1] > 0.3 {
                    2
                } else if r[2] + 0.3 * r[0] > 0.0 {
                    1
                } else {
                    0
                }
            })
            .collect();
        let tree = fit_decision_tree(x.view(), y.view(), Some(1)).expect("fits");
        let theirs: Array1<usize> = tree.predict(&x);
        let stump = GiniStump::fit(x.view(), &sort_columns(x.view()), y.as_slice().expect("contiguous"), &[1.0; 150], 3);
        let ours: Array1<usize> = x.rows().into_iter().map(|r| stump.predict_one(r)).collect();
        assert_eq!(ours, theirs, "seed {seed}: {stump:?}");
    }
}
