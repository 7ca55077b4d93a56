//! Benchmark of the boosted-stump learner (issue 5): fit and predict times, peak memory, and
//! the same data through the SAMME baseline (discrete AdaBoost over Gini stumps).
//!
//! Data (fixed seed): 2,000 training and 1,000 test blocks, 100 numeric features and 3,000
//! sparse token features (≈2% non-zero), 17 classes; each class raises a few numeric features
//! and makes 20 "signature" tokens likelier, so the task is learnable. Both sets are written in
//! SVMlight format to `target/bench-data/` (numeric columns 0..100, tokens 100..3100, zero-based)
//! so `benches/peers/boost_peers.py` times scikit-learn and LightGBM on identical data; the
//! results go to `target/bench-data/boost_rust.json`.
//!
//! Run: `cargo bench --bench boost` (or `python3 benches/peers/boost_peers.py` for all tools).
//! Environment: `BOOST_BENCH_REPS` (default 5) repetitions, median reported;
//! `BOOST_BENCH_SAMME` (default 200) SAMME stumps, 0 to skip; `BOOST_BENCH_TRAIN` (default
//! 2,000) training blocks, to see the learner where the weights outgrow the cache (the svmlight
//! files and peers then see that many too); `BOOST_BENCH_TREES` (default
//! `depth2,4,8`) the tree arms: `depth2` for two-level trees, a number for Hamming trees of that
//! many tests.

use linfa::ParamGuard;
use ndarray::{Array1, Array2};
use parcels::boost::baselines::SammeStumps;
use parcels::boost::{AdaBoostMh, AdaBoostMhValidParams};
use parcels::matrix::{FeatureMatrix, SparseRows};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Training blocks by default (`BOOST_BENCH_TRAIN` sets another number).
const N_TRAIN: usize = 2000;
const N_TEST: usize = 1000;
const N_NUMERIC: usize = 100;
const N_TOKENS: usize = 3000;
const N_CLASSES: usize = 17;
const N_ROUNDS: usize = 200;
const SEED: u64 = 20040611;

/// Blocks of one set: features and labels.
struct BenchSet {
    x: FeatureMatrix,
    y: Vec<usize>,
}

fn generate(rng: &mut StdRng, n: usize) -> BenchSet {
    let mut numeric = Array2::zeros((n, N_NUMERIC));
    let mut rows = Vec::with_capacity(n);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let class = rng.gen_range(0..N_CLASSES);
        for j in 0..N_NUMERIC {
            // Features j ≡ class (mod 17) among the first 51 carry the class signal.
            let signal = if j < 3 * N_CLASSES && j % N_CLASSES == class { 0.6 } else { 0.0 };
            numeric[(i, j)] = rng.gen::<f64>() + signal;
        }
        let mut tokens = Vec::new();
        for t in 0..N_TOKENS {
            let own = t / 20 == class;
            // 20 signature tokens at 20%, the rest at 1.87%: ≈ 60 tokens, 2% of 3,000, per block.
            let p = if own { 0.2 } else { 0.0187 };
            if rng.gen_bool(p) {
                // TF×IDF-like positive weights.
                tokens.push((t, rng.gen_range(0.1..3.0)));
            }
        }
        rows.push(tokens);
        y.push(class);
    }
    let tokens = SparseRows::from_rows(N_TOKENS, rows).expect("generated rows are valid");
    let names = |p: &str, k: usize| (0..k).map(|j| format!("{p}{j}")).collect();
    let x = FeatureMatrix::new(numeric, names("n", N_NUMERIC), tokens, names("t", N_TOKENS)).expect("generated matrix is valid");
    BenchSet { x, y }
}

fn write_svmlight(set: &BenchSet, path: &Path) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for (i, y) in set.y.iter().enumerate() {
        write!(out, "{y}")?;
        for (j, v) in set.x.numeric().row(i).iter().enumerate() {
            write!(out, " {j}:{v}")?;
        }
        let (cols, ws) = set.x.tokens().row(i);
        for (c, w) in cols.iter().zip(ws) {
            write!(out, " {}:{w}", c + N_NUMERIC)?;
        }
        writeln!(out)?;
    }
    out.flush()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Process CPU time (user + system) in seconds, from /proc/self/stat (clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |k: usize| fields.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
    (ticks(11) + ticks(12)) / 100.0
}

/// Wall and CPU timings of repeated runs.
struct Timing {
    median: f64,
    min: f64,
    cpu_median: f64,
}

fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (Timing, T) {
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..reps.max(1) {
        let (start, cpu_start) = (Instant::now(), cpu_seconds());
        last = Some(f());
        wall.push(start.elapsed().as_secs_f64());
        cpu.push(cpu_seconds() - cpu_start);
    }
    let min = wall.iter().copied().fold(f64::INFINITY, f64::min);
    let timing = Timing { median: median(wall), min, cpu_median: median(cpu) };
    (timing, last.expect("at least one repetition"))
}

/// Peak resident set size so far (VmHWM), in MiB.
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn accuracy(pred: &Array1<usize>, y: &[usize]) -> f64 {
    pred.iter().zip(y).filter(|(p, t)| p == t).count() as f64 / y.len() as f64
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn fit_in_pool(params: &AdaBoostMhValidParams, set: &BenchSet, threads: usize) -> AdaBoostMh {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    pool.install(|| params.train(&set.x, &set.y)).expect("bench data trains")
}

fn main() {
    let reps = env_usize("BOOST_BENCH_REPS", 5);
    let samme_stumps = env_usize("BOOST_BENCH_SAMME", N_ROUNDS);
    let mut rng = StdRng::seed_from_u64(SEED);
    let n_train = env_usize("BOOST_BENCH_TRAIN", N_TRAIN).max(1);
    let train = generate(&mut rng, n_train);
    let test = generate(&mut rng, N_TEST);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("bench data dir");
    write_svmlight(&train, &dir.join("boost_train.svm")).expect("write train");
    write_svmlight(&test, &dir.join("boost_test.svm")).expect("write test");
    let nnz_share = train.x.tokens().nnz() as f64 / (n_train * N_TOKENS) as f64;
    let mem_data = peak_mib();

    let max_bins = env_usize("BOOST_BENCH_MAX_BINS", parcels::boost::DEFAULT_MAX_BINS);
    let params = AdaBoostMh::params().max_bins(Some(max_bins)).n_rounds(N_ROUNDS).n_classes(Some(N_CLASSES)).check().expect("valid params");
    let (fit1, model) = time(reps, || fit_in_pool(&params, &train, 1));
    let (fit2, model2) = time(reps, || fit_in_pool(&params, &train, 2));
    assert_eq!(model, model2, "thread count must not change the model");
    let (predict, pred) = time(reps, || model.predict_classes(&test.x).expect("same schema"));
    let mem_fit = peak_mib();
    let acc = accuracy(&pred, &test.y);
    let train_acc = accuracy(&model.predict_classes(&train.x).expect("schema"), &train.y);
    println!(
        "data: {n_train} train / {N_TEST} test blocks, {N_NUMERIC} numeric + {N_TOKENS} token \
         features ({:.2}% non-zero), {N_CLASSES} classes, max_bins {max_bins}, {reps} reps",
        100.0 * nnz_share
    );
    println!("{:<36} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9} {:>8}", "learner", "fit s", "fit min", "fit cpu", "predict s", "peak MiB", "train acc", "test acc");
    let row = |name: &str, fit: &Timing, pred: f64, mem: f64, tr: f64, te: f64| {
        println!("{name:<36} {:>8.3} {:>8.3} {:>8.2} {pred:>9.4} {mem:>8.1} {tr:>9.3} {te:>8.3}", fit.median, fit.min, fit.cpu_median);
    };
    row("AdaBoost.MH 200 rounds, 1 thread", &fit1, predict.median, mem_fit, train_acc, acc);
    row("AdaBoost.MH 200 rounds, 2 threads", &fit2, predict.median, mem_fit, train_acc, acc);
    println!(
        "  stop reason {:?}, {} stumps; peak MiB before fitting {mem_data:.1}; load average {}",
        model.stop_reason(),
        model.stumps().len(),
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim()
    );
    // Trees per round (the `tree` module): the same rounds, each a two-level tree or a Hamming
    // tree of up to s tests; the ratio is the fit time per round against the stumps', in this run.
    let tree_arms = std::env::var("BOOST_BENCH_TREES").unwrap_or_else(|_| "depth2,4,8".into());
    for arm in tree_arms.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let base = AdaBoostMh::params().max_bins(Some(max_bins)).n_rounds(N_ROUNDS).n_classes(Some(N_CLASSES));
        let (name, p) = match arm {
            "depth2" => ("two-level trees (depth 2)".to_string(), base.depth(2)),
            s => match s.parse::<usize>() {
                Ok(s) => (format!("Hamming trees of {s} tests"), base.splits(s)),
                Err(_) => {
                    eprintln!("BOOST_BENCH_TREES: {s:?} is neither depth2 nor a number of tests; skipped");
                    continue;
                }
            },
        };
        let Ok(p) = p.check() else {
            eprintln!("BOOST_BENCH_TREES: {arm:?} is not a valid tree; skipped");
            continue;
        };
        let (fit, tree) = time(reps, || fit_in_pool(&p, &train, 1));
        let tests: usize = tree.stumps().iter().map(|t| t.nodes().count()).sum();
        let pred = tree.predict_classes(&test.x).expect("same schema");
        let tr = accuracy(&tree.predict_classes(&train.x).expect("schema"), &train.y);
        row(&format!("{name}, 1 thread"), &fit, f64::NAN, peak_mib(), tr, accuracy(&pred, &test.y));
        println!(
            "  {} rounds, {tests} tests; fit per round {:.2}× the stumps' (median over {reps})",
            tree.stumps().len(),
            (fit.median / tree.stumps().len().max(1) as f64) / (fit1.median / model.stumps().len().max(1) as f64)
        );
    }

    let mut json = format!(
        "{{\"reps\": {reps}, \"n_train\": {n_train}, \"n_test\": {N_TEST}, \"max_bins\": {max_bins}, \
         \"mh_fit_1t\": {}, \"mh_fit_1t_min\": {}, \"mh_fit_1t_cpu\": {}, \
         \"mh_fit_2t\": {}, \"mh_fit_2t_min\": {}, \"mh_predict\": {}, \
         \"mh_peak_mib\": {mem_fit}, \"mh_train_acc\": {train_acc}, \"mh_test_acc\": {acc}",
        fit1.median, fit1.min, fit1.cpu_median, fit2.median, fit2.min, predict.median
    );
    if samme_stumps > 0 {
        // Dense copies only now, so the peak above is the boosting learner's own.
        let dense_train = train.x.to_dense(0.0);
        let dense_test = test.x.to_dense(0.0);
        let y = Array1::from(train.y.clone());
        let (samme_fit, samme) = time(1, || SammeStumps::fit(dense_train.view(), y.view(), N_CLASSES, samme_stumps).expect("SAMME fits"));
        let start = Instant::now();
        let samme_pred = samme.predict(dense_test.view());
        let samme_predict = start.elapsed().as_secs_f64();
        let samme_acc = accuracy(&samme_pred, &test.y);
        let samme_train = accuracy(&samme.predict(dense_train.view()), &train.y);
        let name = format!("SAMME Gini stumps, {} stumps (1 run)", samme.n_stumps());
        row(&name, &samme_fit, samme_predict, peak_mib(), samme_train, samme_acc);
        json.push_str(&format!(
            ", \"samme_stumps\": {}, \"samme_fit\": {}, \"samme_predict\": {samme_predict}, \
             \"samme_peak_mib\": {}, \"samme_train_acc\": {samme_train}, \"samme_test_acc\": {samme_acc}",
            samme.n_stumps(),
            samme_fit.median,
            peak_mib()
        ));
    }
    json.push('}');
    std::fs::write(dir.join("boost_rust.json"), json).expect("write results");
}
