//! Known-answer, invariant and reference tests of the boosting learner.

use super::*;
use crate::matrix::{FeatureMatrix, SparseRows};
use linfa::ParamGuard;
use ndarray::{array, Array1, Array2};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn matrix(numeric: Array2<f64>, token_rows: Vec<Vec<usize>>, n_tokens: usize) -> FeatureMatrix {
    let rows = token_rows.into_iter().map(|r| r.into_iter().map(|c| (c, 1.0)).collect());
    let tokens = SparseRows::from_rows(n_tokens, rows).expect("valid token rows");
    let p = numeric.ncols();
    FeatureMatrix::new(numeric, names("n", p), tokens, names("t", n_tokens)).expect("valid")
}

fn exact(n_rounds: usize) -> AdaBoostMhValidParams {
    AdaBoostMhParams::new().n_rounds(n_rounds).max_bins(None).check().expect("valid params")
}

/// Random blocks: numeric columns drawn from a few levels (ties) or continuous, ~10% missing,
/// sparse tokens, and labels that depend on some of them.
fn random_data(seed: u64, m: usize, k: usize) -> (FeatureMatrix, Vec<usize>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let p = 5;
    let q = 8;
    let mut numeric = Array2::zeros((m, p));
    for ((_, j), v) in numeric.indexed_iter_mut() {
        *v = if rng.gen_bool(0.1) {
            f64::NAN
        } else if j % 2 == 0 {
            f64::from(rng.gen_range(0..4))
        } else {
            rng.gen_range(-1.0..1.0)
        };
    }
    let tokens: Vec<Vec<usize>> = (0..m).map(|_| (0..q).filter(|_| rng.gen_bool(0.25)).collect()).collect();
    let labels = (0..m)
        .map(|i| {
            let a = numeric[(i, 1)];
            let signal = usize::from(a > 0.2) + usize::from(tokens[i].contains(&3));
            if rng.gen_bool(0.7) {
                signal % k
            } else {
                rng.gen_range(0..k)
            }
        })
        .collect();
    (matrix(numeric, tokens, q), labels)
}

#[test]
fn first_stump_on_separable_toy_set_has_hand_worked_values() {
    // Column 0 separates {0,1} | {2,3} at 2.5; column 1 splits every class in half (Z = 1).
    let x = matrix(array![[1., 1.], [2., 2.], [3., 1.], [4., 2.]], vec![vec![]; 4], 0);
    let model = exact(5).train(&x, &[0, 0, 1, 1]).expect("trains");
    // Z = 0: both parts are class-pure, so training stops after this stump.
    assert_eq!(model.stop_reason(), StopReason::PerfectFit);
    assert_eq!(model.stumps().len(), 1);
    let s = &model.stumps()[0];
    assert_eq!(s.test, StumpTest::AtMost { column: 0, threshold: 2.5 });
    // D₁ = 1/8 per pair, ε = 1/(4·2) = 1/8. Left part: W₊⁰ = 2/8, W₋⁰ = 0, so
    // c = ½·ln((2/8 + 1/8)/(0 + 1/8)) = ½·ln 3 ≈ 0.5493 for class 0 and −½·ln 3 for class 1.
    let c = 0.5 * 3f64.ln();
    assert!((s.outputs[0][0] - c).abs() < 1e-12 && (s.outputs[0][1] + c).abs() < 1e-12);
    assert!((s.outputs[1][0] + c).abs() < 1e-12 && (s.outputs[1][1] - c).abs() < 1e-12);
    assert_eq!(s.outputs[2], vec![0.0, 0.0], "no missing values: the stump abstains");
    // Every pair is multiplied by e^(−½ ln 3) = 1/√3, so Z₁ = 1/√3.
    assert!((model.round_normalizers()[0] - 1.0 / 3f64.sqrt()).abs() < 1e-12);
}

#[test]
fn normalisers_multiply_to_the_exponential_loss_and_bound_training_error() {
    let (x, y) = random_data(7, 80, 3);
    let k = 3.0;
    let model = exact(25).train(&x, &y).expect("trains");
    let z = model.round_normalizers();
    assert_eq!(z.len(), 25);
    let mut product = 1.0;
    for &zt in z {
        assert!(zt < 1.0, "every round must reduce the loss, got Z = {zt}");
        product *= zt;
    }
    let f = model.decision_function(&x).expect("same schema");
    // Σ_{i,l} D₁(i,l)·exp(−Y_il f_l(xᵢ)) with D₁ = 1/(m·k).
    let loss: f64 =
        f.rows().into_iter().zip(&y).map(|(row, &yi)| row.iter().enumerate().map(|(l, &fl)| (if l == yi { -fl } else { fl }).exp()).sum::<f64>()).sum::<f64>()
            / (80.0 * k);
    assert!((loss - product).abs() < 1e-9 * product, "{loss} vs {product}");
    let errors = f.rows().into_iter().zip(&y).filter(|(r, &yi)| argmax(r.view()) != yi).count();
    assert!((errors as f64 / 80.0) <= k * product);
    assert!(errors < 40, "a planted signal should be learnt, {errors} errors of 80");
}

#[test]
fn token_and_numeric_features_compete() {
    let numeric = array![[1.], [2.], [3.], [4.], [5.], [6.]];
    let tokens = vec![vec![0], vec![], vec![0], vec![], vec![0], vec![]];
    let x = matrix(numeric, tokens, 1);
    // Token 0 is present exactly in class 1: it must beat every threshold.
    let by_token = exact(1).train(&x, &[1, 0, 1, 0, 1, 0]).expect("trains");
    assert_eq!(by_token.stumps()[0].test, StumpTest::Present { column: 0 });
    assert!(by_token.stumps()[0].outputs[0][1] > 0.0);
    // Labels following the numeric order: a threshold at 3.5 is pure, the token is not.
    let by_value = exact(1).train(&x, &[1, 1, 1, 0, 0, 0]).expect("trains");
    assert_eq!(by_value.stumps()[0].test, StumpTest::AtMost { column: 0, threshold: 3.5 });
}

#[test]
fn class_weights_change_the_chosen_stump() {
    // Column 0 isolates the 6 blocks of class 0; column 1 isolates the 2 blocks of class 2.
    let mut numeric = Array2::zeros((14, 2));
    let mut y = Vec::new();
    for i in 0..14 {
        let class = if i < 6 {
            0
        } else if i < 12 {
            1
        } else {
            2
        };
        numeric[(i, 0)] = if class == 0 { 0.0 } else { 1.0 };
        numeric[(i, 1)] = if class == 2 { 0.0 } else { 1.0 };
        y.push(class);
    }
    let x = matrix(numeric, vec![vec![]; 14], 0);
    let plain = exact(1).train(&x, &y).expect("trains");
    assert!(matches!(plain.stumps()[0].test, StumpTest::AtMost { column: 0, .. }));
    let weighted = AdaBoostMhParams::new().n_rounds(1).class_weights(Some(vec![1.0, 1.0, 20.0])).check().expect("valid").train(&x, &y).expect("trains");
    assert!(matches!(weighted.stumps()[0].test, StumpTest::AtMost { column: 1, .. }));
}

#[test]
fn multiclass_confidences_have_the_right_signs() {
    // Three classes at three levels of one column.
    let numeric = array![[0.], [0.], [5.], [5.], [9.], [9.]];
    let y = [0, 0, 1, 1, 2, 2];
    let x = matrix(numeric, vec![vec![]; 6], 0);
    let model = exact(10).train(&x, &y).expect("trains");
    let f = model.decision_function(&x).expect("same schema");
    for (row, &yi) in f.rows().into_iter().zip(&y) {
        for (l, &fl) in row.iter().enumerate() {
            if l == yi {
                assert!(fl > 0.0, "own class must score positive: {row}");
            } else {
                assert!(fl < 0.0, "other classes must score negative: {row}");
            }
        }
    }
    let p = model.predict_with_confidence(&x).expect("same schema");
    assert_eq!(p.classes.to_vec(), y.to_vec());
    assert!(p.confidences.iter().all(|&c| c > 1.0 / 3.0 && c <= 1.0));
}

#[test]
fn missing_values_take_the_missing_branch() {
    let x = matrix(array![[1.], [f64::NAN], [3.], [f64::NAN]], vec![vec![]; 4], 0);
    let model = exact(1).train(&x, &[0, 1, 0, 1]).expect("trains");
    let s = &model.stumps()[0];
    assert_eq!(s.branch(&x, 1), Branch::Missing);
    assert_ne!(s.branch(&x, 0), Branch::Missing);
    // Missing part holds only class 1: ½·ln((2/8 + 1/8)/(1/8)) for class 1.
    assert!((s.outputs[2][1] - 0.5 * 3f64.ln()).abs() < 1e-12);
    let test = matrix(array![[f64::NAN], [2.0]], vec![vec![]; 2], 0);
    let pred = model.predict_classes(&test).expect("same schema");
    assert_eq!(pred[0], 1);
}

#[test]
fn balanced_classes_with_no_information_stop_without_stumps() {
    let x = matrix(Array2::from_elem((4, 1), 1.0), vec![vec![]; 4], 0);
    let model = exact(10).train(&x, &[0, 1, 0, 1]).expect("trains");
    assert_eq!(model.stop_reason(), StopReason::NoUsefulSplit);
    assert!(model.stumps().is_empty());
}

/// Per part of a partition: [W₊ per class, W₋ per class].
type PartWeights = [[Vec<f64>; 2]; 3];

/// Straightforward AdaBoost.MH: full D matrix, every candidate threshold by brute force.
struct Reference {
    tests: Vec<StumpTest>,
    outputs: Vec<[Vec<f64>; 3]>,
}

fn reference_boost(x: &FeatureMatrix, y: &[usize], k: usize, rounds: usize) -> Reference {
    let m = y.len();
    let eps = 1.0 / (m * k) as f64;
    let sign = |i: usize, l: usize| if y[i] == l { 1.0 } else { -1.0 };
    let mut d = vec![vec![1.0 / (m * k) as f64; k]; m];
    let mut candidates: Vec<StumpTest> = Vec::new();
    for j in 0..x.n_numeric() {
        let mut v: Vec<f64> = x.numeric().column(j).iter().copied().filter(|v| !v.is_nan()).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        for b in 0..v.len() {
            let threshold = if b + 1 < v.len() { (v[b] + v[b + 1]) / 2.0 } else { v[b] };
            candidates.push(StumpTest::AtMost { column: j, threshold });
        }
    }
    for t in 0..x.n_tokens() {
        candidates.push(StumpTest::Present { column: t });
    }
    let part = |test: &StumpTest, i: usize| Stump { test: test.clone(), outputs: [vec![], vec![], vec![]], children: None }.branch(x, i) as usize;
    let mut out = Reference { tests: Vec::new(), outputs: Vec::new() };
    for _ in 0..rounds {
        let mut best: Option<(f64, &StumpTest, PartWeights)> = None;
        for c in &candidates {
            let mut w: PartWeights = std::array::from_fn(|_| [vec![0.0; k], vec![0.0; k]]);
            for i in 0..m {
                for l in 0..k {
                    let side = if sign(i, l) > 0.0 { 0 } else { 1 };
                    w[part(c, i)][side][l] += d[i][l];
                }
            }
            let z: f64 = 2.0 * w.iter().map(|p| (0..k).map(|l| (p[0][l] * p[1][l]).sqrt()).sum::<f64>()).sum::<f64>();
            if best.as_ref().is_none_or(|b| z < b.0) {
                best = Some((z, c, w));
            }
        }
        let Some((_, test, w)) = best else { break };
        let outputs: [Vec<f64>; 3] = std::array::from_fn(|j| (0..k).map(|l| 0.5 * ((w[j][0][l] + eps) / (w[j][1][l] + eps)).ln()).collect());
        let mut z = 0.0;
        for (i, row) in d.iter_mut().enumerate() {
            for (l, dil) in row.iter_mut().enumerate() {
                *dil *= (-sign(i, l) * outputs[part(test, i)][l]).exp();
                z += *dil;
            }
        }
        d.iter_mut().flatten().for_each(|v| *v /= z);
        out.tests.push(test.clone());
        out.outputs.push(outputs);
    }
    out
}

/// Trains `rounds` exact rounds and the brute-force reference on the same data, asserts that
/// every round picks the reference's test, and returns both for further checks.
fn same_tests_as_the_reference(x: &FeatureMatrix, y: &[usize], k: usize, rounds: usize, seed: u64) -> (AdaBoostMh, Reference) {
    let reference = reference_boost(x, y, k, rounds);
    let model = exact(rounds).train(x, y).expect("trains");
    assert_eq!(model.stumps().len(), reference.tests.len(), "seed {seed}");
    for (t, s) in model.stumps().iter().enumerate() {
        assert_eq!(s.test, reference.tests[t], "seed {seed}, round {t}");
    }
    (model, reference)
}

#[test]
fn fast_search_agrees_with_a_brute_force_reference() {
    for seed in [1, 2, 3] {
        let (x, y) = random_data(seed, 40, 3);
        let (model, reference) = same_tests_as_the_reference(&x, &y, 3, 15, seed);
        for (t, s) in model.stumps().iter().enumerate() {
            for j in 0..3 {
                for l in 0..3 {
                    let (a, b) = (s.outputs[j][l], reference.outputs[t][j][l]);
                    assert!((a - b).abs() < 1e-9, "seed {seed} round {t}: {a} vs {b}");
                }
            }
        }
    }
}

#[test]
fn fast_search_agrees_with_the_reference_on_17_and_40_classes() {
    // 17 classes use the register kernels with 5 lane groups, as the benchmark does; 40
    // classes (10 groups) the general fallback.
    for k in [17, 40] {
        agrees_with_reference(k);
    }
}

fn agrees_with_reference(k: usize) {
    let (mut x, mut y) = random_data(23, 150, k);
    // Make sure the largest class occurs, so both implementations see k classes.
    y[0] = k - 1;
    x = x.select_rows(&(0..150).collect::<Vec<_>>()).expect("rows exist");
    let reference = reference_boost(&x, &y, k, 6);
    let model = exact(6).train(&x, &y).expect("trains");
    assert_eq!(model.n_classes(), k);
    assert_eq!(model.stumps().len(), 6);
    for (t, s) in model.stumps().iter().enumerate() {
        assert_eq!(s.test, reference.tests[t], "round {t}");
        for (mine, theirs) in s.outputs.iter().flatten().zip(reference.outputs[t].iter().flatten()) {
            assert!((mine - theirs).abs() < 1e-9, "round {t}: {mine} vs {theirs}");
        }
    }
}

/// Columns where one value, or missing, covers most blocks: the screening stage derives that
/// part from the totals instead of summing it (`NumericColumn::largest`).
fn mostly_one_value_data(seed: u64, m: usize, k: usize) -> (FeatureMatrix, Vec<usize>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut numeric = Array2::zeros((m, 4));
    for i in 0..m {
        numeric[(i, 0)] = if rng.gen_bool(0.9) { 0.0 } else { f64::from(rng.gen_range(1..5)) };
        numeric[(i, 1)] = if rng.gen_bool(0.8) { f64::NAN } else { rng.gen_range(-1.0..1.0) };
        numeric[(i, 2)] = if rng.gen_bool(0.7) { 3.0 } else { f64::from(rng.gen_range(0..6)) };
        numeric[(i, 3)] = rng.gen_range(-1.0..1.0);
    }
    let labels = (0..m)
        .map(|i| {
            let signal = usize::from(numeric[(i, 0)] > 0.0) + 2 * usize::from(numeric[(i, 1)] > 0.0) + usize::from(numeric[(i, 2)] < 3.0);
            if rng.gen_bool(0.75) {
                signal % k
            } else {
                rng.gen_range(0..k)
            }
        })
        .collect();
    (matrix(numeric, vec![Vec::new(); m], 0), labels)
}

#[test]
fn columns_of_mostly_one_value_or_missing_give_the_reference_stumps() {
    for (seed, k) in [(7, 3), (8, 5), (9, 17)] {
        let (x, mut y) = mostly_one_value_data(seed, 200, k);
        y[0] = k - 1;
        let (model, reference) = same_tests_as_the_reference(&x, &y, k, 12, seed);
        for (t, s) in model.stumps().iter().enumerate() {
            for (mine, theirs) in s.outputs.iter().flatten().zip(reference.outputs[t].iter().flatten()) {
                assert!((mine - theirs).abs() < 1e-9, "seed {seed} round {t}: {mine} vs {theirs}");
            }
        }
    }
}

#[test]
fn tokens_with_the_same_blocks_are_searched_once_and_the_lowest_wins() {
    let (x, y) = random_data(5, 60, 3);
    // Column 0 copies token 3 (which carries the signal), columns 1..=8 are tokens 0..=7 (so
    // column 4 repeats column 0), 9 and 10 are empty and 11 copies token 1 (column 2).
    let rows: Vec<Vec<usize>> = (0..60)
        .map(|i| {
            let present = |t: usize| x.tokens().contains(i, t);
            let mut r: Vec<usize> = (0..8).filter(|&t| present(t)).map(|t| t + 1).collect();
            if present(3) {
                r.push(0);
            }
            if present(1) {
                r.push(11);
            }
            r
        })
        .collect();
    let wide = matrix(x.numeric().clone(), rows, 12);
    // 5 numeric features and token columns 0, 1, 2, 3, 5, 6, 7, 8, 9.
    assert_eq!(super::search::TrainIndex::new(&wide, None).n_searched(), 5 + 9);
    let reference = reference_boost(&wide, &y, 3, 12);
    let model = exact(12).train(&wide, &y).expect("trains");
    let tests: Vec<StumpTest> = model.stumps().iter().map(|s| s.test.clone()).collect();
    assert_eq!(tests, reference.tests);
    assert!(tests.contains(&StumpTest::Present { column: 0 }), "the signal token is chosen by its lowest column: {tests:?}");
}

#[test]
fn portable_and_avx2_kernels_give_the_same_model() {
    use std::sync::atomic::Ordering;
    let (x, y) = random_data(29, 200, 6);
    let params = AdaBoostMhParams::new().n_rounds(25).check().expect("valid");
    let fast = params.train(&x, &y).expect("trains");
    super::kernels::FORCE_PORTABLE.store(true, Ordering::SeqCst);
    let portable = params.train(&x, &y);
    super::kernels::FORCE_PORTABLE.store(false, Ordering::SeqCst);
    assert_eq!(fast, portable.expect("trains"));
}

#[test]
fn binning_is_exact_when_values_fit_in_the_bins() {
    // Columns have ≤ 4 levels or 40 continuous values; 64 bins hold every distinct value.
    let (x, y) = random_data(5, 40, 3);
    let exact_model = exact(10).train(&x, &y).expect("trains");
    let binned = AdaBoostMhParams::new().n_rounds(10).max_bins(Some(64)).check().expect("valid").train(&x, &y).expect("trains");
    assert_eq!(exact_model.stumps(), binned.stumps());
    let coarse = AdaBoostMhParams::new().n_rounds(10).max_bins(Some(2)).check().expect("valid").train(&x, &y).expect("trains");
    assert_ne!(exact_model.stumps(), coarse.stumps(), "2 bins must restrict thresholds");
}

#[test]
fn training_is_deterministic_across_runs_and_thread_counts() {
    let (x, y) = random_data(11, 120, 4);
    let params = AdaBoostMhParams::new().n_rounds(30).check().expect("valid");
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("thread pool");
    let one = pool(1).install(|| params.train(&x, &y)).expect("trains");
    let two = pool(2).install(|| params.train(&x, &y)).expect("trains");
    let again = params.train(&x, &y).expect("trains");
    assert_eq!(one, two);
    assert_eq!(one, again);
}

#[test]
fn an_observed_training_reports_every_round_and_trains_the_same_model() {
    let (x, y) = random_data(12, 120, 4);
    let params = hamming(25, 3);
    let mut seen = Vec::new();
    let observed = params.train_observed(&x, &y, None, &mut |t| seen.push(t)).expect("trains");
    assert_eq!(observed, params.train(&x, &y).expect("trains"));
    assert_eq!(seen, (1..=observed.stumps().len()).collect::<Vec<_>>());
    assert!(!seen.is_empty());
}

#[test]
fn json_round_trip_predicts_bit_for_bit() {
    let (x, y) = random_data(13, 100, 3);
    let model = exact(20).train(&x, &y).expect("trains");
    let json = model.to_json().expect("serialises");
    let loaded = AdaBoostMh::from_json(&json).expect("loads");
    assert_eq!(loaded, model);
    let a = model.decision_function(&x).expect("schema");
    let b = loaded.decision_function(&x).expect("schema");
    assert!(a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits()));
    let bumped = json.replace("\"format_version\":1", "\"format_version\":99");
    assert!(matches!(AdaBoostMh::from_json(&bumped), Err(BoostError::FormatVersion { found: 99, .. })));
}

#[test]
fn last_staged_output_equals_the_decision_function() {
    let (x, y) = random_data(17, 60, 3);
    let model = exact(12).train(&x, &y).expect("trains");
    let staged: Vec<Array2<f64>> = model.staged_decision_function(&x).expect("schema").collect();
    assert_eq!(staged.len(), model.stumps().len());
    assert_eq!(staged.last(), Some(&model.decision_function(&x).expect("schema")));
    let labels: Vec<Array1<usize>> = model.staged_predict(&x).expect("schema").collect();
    assert_eq!(labels.last(), Some(&model.predict_classes(&x).expect("schema")));
    // The first stage is the first stump alone.
    let mut first = Array2::zeros((60, 3));
    model.stumps()[0].add_to(&x, &super::stump::TokenRows::new(model.stumps(), &x), &mut first);
    assert_eq!(staged[0], first);
}

#[test]
fn pinned_groups_keep_their_folds_and_the_rest_are_dealt_as_before() {
    let groups: Vec<usize> = (0..40).map(|r| r % 10).collect();
    assert_eq!(folds_by_group_pinned(&groups, 3, 42, &Default::default()), folds_by_group(&groups, 3, 42));
    let pinned: std::collections::BTreeMap<usize, usize> = [(4, 2), (7, 0)].into_iter().collect();
    let folds = folds_by_group_pinned(&groups, 3, 42, &pinned);
    let fold_of_row = |r: usize| folds.iter().position(|f| f.contains(&r)).unwrap();
    for (r, &g) in groups.iter().enumerate() {
        assert_eq!(fold_of_row(r), fold_of_row(g), "group {g} is whole");
    }
    assert_eq!(fold_of_row(4), 2);
    assert_eq!(fold_of_row(7), 0);
    assert_eq!(folds.iter().map(Vec::len).sum::<usize>(), 40);
}

/// A model of fewer rounds is the longer model's first stumps: boosting is sequential and nothing
/// in a round depends on the round budget. So a model trained for N rounds can be cut to M < N
/// rounds and be the M-round model (`reports/all-eras/reextract.py --stage-rounds` relies on it).
#[test]
fn fewer_rounds_are_the_first_stumps_of_more_rounds() {
    let (x, y) = random_data(23, 80, 4);
    for depth in [1, 2] {
        let params = |n| AdaBoostMhParams::new().n_rounds(n).depth(depth).check().expect("valid params");
        let long = params(30).train(&x, &y).expect("trains");
        let short = params(11).train(&x, &y).expect("trains");
        assert_eq!(long.stumps().len(), 30, "depth {depth}: all rounds run");
        assert_eq!(short.stumps(), &long.stumps()[..11], "depth {depth}");
        assert_eq!(short.round_normalizers(), &long.round_normalizers()[..11], "depth {depth}");
    }
}

#[test]
fn confidence_is_a_probability_monotone_in_the_margin() {
    let base = array![0.5, 0.2, -0.3];
    let c0 = confidence(base.view());
    assert!((1.0 / 3.0..=1.0).contains(&c0));
    let p = probabilities(base.view());
    assert!((p.sum() - 1.0).abs() < 1e-12);
    // Hand-worked: σ(1) = 0.731059, σ(0.4) = 0.598688, σ(−0.6) = 0.354344.
    assert!((c0 - 0.731059 / (0.731059 + 0.598688 + 0.354344)).abs() < 1e-5);
    let up = confidence(array![0.9, 0.2, -0.3].view());
    let rival = confidence(array![0.5, 0.4, -0.3].view());
    assert!(up > c0 && rival < c0, "{up} > {c0} > {rival}");
    assert_eq!(confidence(array![0.0, 0.0].view()), 0.5);
    assert!(confidence(array![40.0, -40.0].view()) <= 1.0);
    assert_eq!(argmax(array![1.0, 3.0, 3.0].view()), 1, "ties go to the lowest class");
}

#[test]
fn cross_validation_picks_a_round_count_from_the_curve() {
    let (x, y) = random_data(19, 90, 3);
    let groups: Vec<usize> = (0..90).map(|i| i / 6).collect();
    let folds = folds_by_group(&groups, 3, 42);
    assert_eq!(folds, folds_by_group(&groups, 3, 42));
    assert_eq!(folds.iter().map(Vec::len).sum::<usize>(), 90);
    for fold in &folds {
        // Groups (pages) never straddle folds.
        for &r in fold {
            assert!(fold.iter().filter(|&&s| groups[s] == groups[r]).count() == 6);
        }
    }
    let params = exact(1);
    let choice = choose_rounds_by_cv(&params, &x, &y, &folds, 20).expect("valid folds");
    assert_eq!(choice.cv_error.len(), 20);
    let best = choice.cv_error[choice.n_rounds - 1];
    assert!(choice.cv_error.iter().all(|&e| e >= best));
    assert!(choice.cv_error[..choice.n_rounds - 1].iter().all(|&e| e > best));
    let overlapping = vec![vec![0, 1], vec![1, 2]];
    assert!(matches!(choose_rounds_by_cv(&params, &x, &y, &overlapping, 5), Err(BoostError::Folds { .. })));
}

#[test]
fn bad_training_data_is_an_error_not_a_panic() {
    let x = matrix(array![[1.], [2.]], vec![vec![]; 2], 0);
    let p = exact(3);
    assert!(matches!(p.train(&x, &[0]), Err(BoostError::TargetsMismatch { .. })));
    let fixed = AdaBoostMhParams::new().n_classes(Some(2)).check().expect("valid");
    assert!(matches!(fixed.train(&x, &[0, 2]), Err(BoostError::LabelOutOfRange { row: 1, label: 2, n_classes: 2 })));
    let empty = matrix(Array2::zeros((0, 1)), vec![], 0);
    assert!(matches!(p.train(&empty, &[]), Err(BoostError::EmptyTrainingSet)));
    assert!(matches!(p.train_weighted(&x, &[0, 1], Some(&[1.0, f64::NAN])), Err(BoostError::SampleWeights { .. })));
    let model = p.train(&x, &[0, 1]).expect("trains");
    let other = FeatureMatrix::from_dense(array![[1., 2.]]);
    assert!(matches!(model.decision_function(&other), Err(BoostError::SchemaMismatch { .. })));
}

#[test]
fn scores_are_the_stumps_outputs_summed_block_by_block_bit_for_bit() {
    let (x, y) = random_data(29, 80, 3);
    let model = exact(25).train(&x, &y).expect("trains");
    assert!(model.stumps().iter().any(|s| matches!(s.test, super::stump::StumpTest::Present { .. })), "a token stump is tested");
    let scores = model.decision_function(&x).expect("schema");
    for row in 0..x.n_rows() {
        let mut expected = vec![0.0; 3];
        for stump in model.stumps() {
            for (e, o) in expected.iter_mut().zip(stump.output(&x, row)) {
                *e += o;
            }
        }
        let got: Vec<f64> = scores.row(row).to_vec();
        assert_eq!(got, expected, "block {row}");
    }
}

/// Many rare words, as a real vocabulary: the search leaves out the token columns whose bound
/// cannot beat the round's best numeric cut (`search::TokenBound`), and still picks the stumps
/// of an exhaustive search.
#[test]
fn rare_tokens_left_out_by_the_bound_do_not_change_the_stumps() {
    for (seed, k) in [(31, 3), (32, 6)] {
        let mut rng = StdRng::seed_from_u64(seed);
        let m = 160;
        let numeric = Array2::from_shape_fn((m, 2), |_| rng.gen_range(-1.0..1.0));
        let n_tokens = 120;
        let tokens: Vec<Vec<usize>> = (0..m).map(|_| (0..n_tokens).filter(|&t| rng.gen_bool(if t < 4 { 0.3 } else { 0.02 })).collect()).collect();
        let mut y: Vec<usize> = (0..m)
            .map(|i| {
                let signal = usize::from(numeric[(i, 0)] > 0.0) + usize::from(tokens[i].contains(&1));
                if rng.gen_bool(0.8) {
                    signal % k
                } else {
                    rng.gen_range(0..k)
                }
            })
            .collect();
        y[0] = k - 1;
        let x = matrix(numeric, tokens, n_tokens);
        same_tests_as_the_reference(&x, &y, k, 25, seed);
    }
}

fn trees(n_rounds: usize) -> AdaBoostMhValidParams {
    AdaBoostMhParams::new().n_rounds(n_rounds).max_bins(None).depth(2).check().expect("valid params")
}

/// XOR of two binary features over quadrants of unequal size (10, 10, 5 and 15 blocks), so
/// that the first feature alone has an edge: no sum of one-feature votes separates XOR
/// (g(0)+h(0) < 0 < g(0)+h(1) and g(1)+h(1) < 0 < g(1)+h(0) add up to a contradiction); a
/// greedy two-level tree does.
fn xor_data() -> (FeatureMatrix, Vec<usize>) {
    let quadrants = [(0.0, 0.0, 10), (0.0, 1.0, 10), (1.0, 0.0, 5), (1.0, 1.0, 15)];
    let m: usize = quadrants.iter().map(|q| q.2).sum();
    let mut numeric = Array2::zeros((m, 2));
    let mut labels = Vec::new();
    for (a, b, n) in quadrants {
        for _ in 0..n {
            numeric[(labels.len(), 0)] = a;
            numeric[(labels.len(), 1)] = b;
            labels.push(usize::from(a != b));
        }
    }
    (matrix(numeric, vec![vec![]; m], 0), labels)
}

#[test]
fn two_level_trees_fit_what_stumps_cannot() {
    let (x, y) = xor_data();
    let errors = |m: &AdaBoostMh| m.predict_classes(&x).expect("schema").iter().zip(&y).filter(|(p, t)| p != t).count();
    let stumps = exact(30).train(&x, &y).expect("trains");
    assert!(errors(&stumps) >= 5, "an additive model of stumps gets a whole quadrant wrong: {} errors", errors(&stumps));
    let tree = trees(1).train(&x, &y).expect("trains");
    assert_eq!(tree.stumps().len(), 1, "one round, one tree");
    assert!(tree.stumps()[0].children.is_some());
    assert_eq!(errors(&tree), 0, "one tree of depth 2 separates XOR");
}

#[test]
fn trees_keep_the_boosting_invariants() {
    let (x, y) = random_data(31, 90, 3);
    let model = trees(15).train(&x, &y).expect("trains");
    // One normaliser per round, multiplying to the exponential loss.
    assert_eq!(model.round_normalizers().len(), model.stumps().len());
    let product: f64 = model.round_normalizers().iter().product();
    let f = model.decision_function(&x).expect("schema");
    let loss: f64 =
        f.rows().into_iter().zip(&y).map(|(row, &yi)| row.iter().enumerate().map(|(l, &fl)| (if l == yi { -fl } else { fl }).exp()).sum::<f64>()).sum::<f64>()
            / (90.0 * 3.0);
    assert!((loss - product).abs() < 1e-9 * product, "{loss} vs {product}");
    // Trees fit the training set at least as well as the same number of stumps.
    let stumps = exact(15).train(&x, &y).expect("trains");
    let stump_loss: f64 = stumps.round_normalizers().iter().product();
    assert!(product <= stump_loss, "{product} > {stump_loss}");
    // Scores are the leaves' outputs summed block by block, bit for bit.
    for row in 0..x.n_rows() {
        let mut expected = vec![0.0; 3];
        for tree in model.stumps() {
            for (e, o) in expected.iter_mut().zip(tree.output(&x, row)) {
                *e += o;
            }
        }
        assert_eq!(f.row(row).to_vec(), expected, "block {row}");
    }
    let staged: Vec<Array2<f64>> = model.staged_decision_function(&x).expect("schema").collect();
    assert_eq!(staged.last(), Some(&f));
    // Saved and loaded, a tree model predicts bit for bit; a stump model's JSON has no trace
    // of trees (models saved before trees existed load and save unchanged).
    let loaded = AdaBoostMh::from_json(&model.to_json().expect("serialises")).expect("loads");
    assert_eq!(loaded, model);
    assert!(model.to_json().expect("serialises").contains("\"depth\":2"));
    let stump_json = stumps.to_json().expect("serialises");
    assert!(!stump_json.contains("children") && !stump_json.contains("depth"));
}

#[test]
fn a_tree_deeper_than_two_levels_is_rejected_on_load() {
    let (x, y) = xor_data();
    let mut model = trees(1).train(&x, &y).expect("trains");
    let grandchild = model.stumps[0].clone();
    if let Some(children) = model.stumps[0].children.as_mut() {
        if let Some(child) = children[0].as_mut() {
            child.children = grandchild.children;
        }
    }
    let json = model.to_json().expect("serialises");
    assert!(matches!(AdaBoostMh::from_json(&json), Err(BoostError::InvalidModel { .. })));
}

fn hamming(n_rounds: usize, splits: usize) -> AdaBoostMhValidParams {
    AdaBoostMhParams::new().n_rounds(n_rounds).max_bins(None).splits(splits).check().expect("valid params")
}

/// A tree node's search reads only its own blocks' weights, yet picks what a search of all
/// blocks under D restricted to the node (zero elsewhere) picks, bit for bit: nodes of every
/// size, under the uneven distributions of later rounds.
#[test]
fn a_node_search_is_the_search_under_d_restricted_to_the_node() {
    use super::distribution::Distribution;
    use super::search::TrainIndex;
    for seed in 0..12u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let k = [3, 5, 17][seed as usize % 3];
        let (x, y) = random_data(100 + seed, 150, k);
        let labels: Vec<usize> = y.iter().map(|&l| l % k).collect();
        let weights: Vec<f64> = (0..150).map(|_| 10f64.powf(rng.gen_range(-3.0..0.0))).collect();
        let total: f64 = weights.iter().sum::<f64>() * k as f64;
        let d = Distribution::new(&labels, k, &weights.iter().map(|w| w / total).collect::<Vec<_>>());
        let index = TrainIndex::new(&x, None);
        let node_of: Vec<u16> = (0..150).map(|_| rng.gen_range(0..4)).collect();
        let part_of: Vec<u8> = node_of.iter().map(|&n| n as u8).collect();
        // Nodes split from the whole index, and from a node (blocks of nodes 2 and 3 first
        // split into one node, then that node into two).
        let mut nodes = index.split(None, &part_of, 4);
        let merged: Vec<u8> = part_of.iter().map(|&p| p.min(2)).collect();
        let parent = index.split(None, &merged, 3).pop().expect("three nodes");
        let mut again = index.split(Some(&parent), &part_of.iter().map(|&p| p.saturating_sub(2)).collect::<Vec<_>>(), 2);
        nodes.append(&mut again);
        for (j, node_index) in nodes.iter().enumerate() {
            let node = [0, 1, 2, 3, 2, 3][j];
            let restricted = d.restricted(|i| node_of[i] == node);
            let expected = index.best_split(&restricted);
            let got = index.best_split_in(&d, &d.node_totals(&node_of, node), node_index);
            assert_eq!(got.map(|c| (c.z.to_bits(), c.feature, c.bin)), expected.map(|c| (c.z.to_bits(), c.feature, c.bin)), "seed {seed}, node {node}");
        }
    }
}

#[test]
fn hamming_trees_fit_xor_in_one_round() {
    let (x, y) = xor_data();
    let model = hamming(1, 3).train(&x, &y).expect("trains");
    let errors = model.predict_classes(&x).expect("schema").iter().zip(&y).filter(|(p, t)| p != t).count();
    assert_eq!(errors, 0, "one tree of three tests separates XOR");
    let tree = &model.stumps()[0];
    assert!(tree.nodes().count() <= 3 && tree.levels() == 2, "{} tests in {} levels", tree.nodes().count(), tree.levels());
}

#[test]
fn hamming_trees_keep_the_boosting_invariants() {
    let (x, y) = random_data(41, 200, 4);
    for splits in [2, 5, 9] {
        let model = hamming(12, splits).train(&x, &y).expect("trains");
        assert!(model.stumps().iter().all(|t| t.nodes().count() <= splits), "at most {splits} tests per tree");
        assert!(model.stumps().iter().any(|t| t.nodes().count() > 1), "some round grows a tree");
        // The normalisers multiply to the exponential loss of the summed leaf outputs.
        let product: f64 = model.round_normalizers().iter().product();
        let f = model.decision_function(&x).expect("schema");
        let loss: f64 = f
            .rows()
            .into_iter()
            .zip(&y)
            .map(|(row, &yi)| row.iter().enumerate().map(|(l, &fl)| (if l == yi { -fl } else { fl }).exp()).sum::<f64>())
            .sum::<f64>()
            / (200.0 * 4.0);
        assert!((loss - product).abs() < 1e-9 * product, "splits {splits}: {loss} vs {product}");
        // Scores are the leaves' outputs, summed block by block, bit for bit.
        for row in 0..x.n_rows() {
            let mut expected = vec![0.0; 4];
            for tree in model.stumps() {
                for (e, o) in expected.iter_mut().zip(tree.output(&x, row)) {
                    *e += o;
                }
            }
            assert_eq!(f.row(row).to_vec(), expected, "splits {splits}, block {row}");
        }
        // Saved and loaded, a tree model predicts bit for bit.
        let loaded = AdaBoostMh::from_json(&model.to_json().expect("serialises")).expect("loads");
        assert_eq!(loaded, model);
        assert_eq!(loaded.decision_function(&x).expect("schema"), f);
    }
}

/// Best-first growth: a bigger budget of tests only adds splits to the same tree, each of which
/// lowers (or keeps) the round's Z, so the first round's normaliser falls with the budget.
#[test]
fn more_tests_per_tree_never_raise_the_first_rounds_z() {
    let (x, y) = random_data(43, 300, 5);
    let mut last = f64::INFINITY;
    for splits in 1..=8 {
        let z = hamming(1, splits).train(&x, &y).expect("trains").round_normalizers()[0];
        assert!(z <= last + 1e-12, "splits {splits}: Z {z} above {last}");
        last = z;
    }
    let stump = exact(1).train(&x, &y).expect("trains");
    let tree = hamming(1, 8).train(&x, &y).expect("trains");
    assert_eq!(tree.stumps()[0].test, stump.stumps()[0].test, "the root is the round's best stump");
}

#[test]
fn hamming_trees_are_deterministic_across_thread_counts() {
    let (x, y) = random_data(47, 160, 5);
    let params = hamming(10, 6);
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("thread pool");
    let one = pool(1).install(|| params.train(&x, &y)).expect("trains");
    let two = pool(2).install(|| params.train(&x, &y)).expect("trains");
    assert_eq!(one, two);
}

#[test]
fn a_tree_with_more_tests_than_its_parameters_allow_is_rejected_on_load() {
    let (x, y) = random_data(53, 200, 3);
    let mut model = hamming(3, 4).train(&x, &y).expect("trains");
    assert!(AdaBoostMh::from_json(&model.to_json().expect("serialises")).is_ok());
    // Graft the whole first tree under a leaf of itself: more tests than `splits` allows.
    let graft = model.stumps[0].clone();
    let root = &mut model.stumps[0];
    let children = root.children.get_or_insert_with(Default::default);
    let leaf = children.iter().position(Option::is_none).expect("a tree of 4 tests has a leaf branch under its root");
    children[leaf] = Some(graft);
    let json = model.to_json().expect("serialises");
    assert!(matches!(AdaBoostMh::from_json(&json), Err(BoostError::InvalidModel { .. })));
}
