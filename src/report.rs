//! Reports: the files an experiment leaves in `reports/<experiment>/`, all derived from
//! `results.json` (so `parcels report DIR` can rebuild them).
//!
//! - `results.json`: everything ([`ExperimentResults`]);
//! - `curves.csv`: error rate per round for each learner, mean over folds and per fold;
//! - `per-class.csv`: precision, recall, F1 and support per label, for each learner at round 0,
//!   round 1 and the last round (the paper's Table 3), pooled over folds;
//! - `confusion-<learner>.csv`: confusion matrices at the last round, pooled over folds;
//! - `error-curve.svg`: error rate against co-training round (the paper's Figure 4), with the
//!   spread over folds;
//! - `report.md`: configuration, corpus, the curve, the per-class table, the relative error
//!   reductions the paper reports, and the paper's own figures for orientation.

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use crate::eval::{self, ClassMetrics};
use crate::experiment::{ExperimentResults, COMBINED, CONTEXT, LEXICAL, MAJORITY, SAMME, SELF_TRAINING, SINGLE_VIEW, STYLISTIC};
use crate::files::write_atomic;

/// Learners in the order reports show them; others found in the results (a library user's own
/// baselines) follow in name order.
pub const LEARNERS: &[&str] = &[LEXICAL, STYLISTIC, COMBINED, CONTEXT, SINGLE_VIEW, SELF_TRAINING, MAJORITY, SAMME];

/// The learners of a run, in report order.
pub fn learners(results: &ExperimentResults) -> Vec<String> {
    let present: std::collections::BTreeSet<&String> = results.folds.iter().flat_map(|f| f.errors.keys()).collect();
    let mut out: Vec<String> = LEARNERS.iter().filter(|l| present.iter().any(|p| p == *l)).map(|l| l.to_string()).collect();
    out.extend(present.into_iter().filter(|p| !LEARNERS.contains(&p.as_str())).cloned());
    out
}

/// What the run's volatile figures (time, memory) go into, beside `results.json`: not tracked,
/// so rebuilding a tracked report changes it only where the figures change.
pub const RUN_FILE: &str = "run.json";

/// Why a report could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    #[error("{path}: {message}")]
    File { path: String, message: String },
    #[error("cannot draw the error curve: {message}")]
    Chart { message: String },
}

fn file_err(path: &Path, e: impl std::fmt::Display) -> ReportError {
    ReportError::File { path: path.display().to_string(), message: e.to_string() }
}

/// The number of rounds shown: the longest co-training run over folds (a fold that stopped early
/// keeps its last value).
pub fn n_rounds(results: &ExperimentResults) -> usize {
    results.folds.iter().flat_map(|f| f.errors.values().map(Vec::len)).max().unwrap_or(1)
}

/// Error of `learner` in `fold` at `round` (the last available round if the fold stopped
/// earlier; constant learners have one value).
fn error_at(results: &ExperimentResults, fold: usize, learner: &str, round: usize) -> Option<f64> {
    // A fold without held-out blocks has no error rate (it is never averaged in as 0).
    if results.folds[fold].test_blocks == 0 {
        return None;
    }
    let e = results.folds[fold].errors.get(learner)?;
    e.get(round.min(e.len().checked_sub(1)?)).copied()
}

/// Mean over folds of `learner`'s error at each round.
pub fn mean_curve(results: &ExperimentResults, learner: &str) -> Vec<f64> {
    (0..n_rounds(results))
        .map(|r| {
            let v: Vec<f64> = (0..results.folds.len()).filter_map(|f| error_at(results, f, learner, r)).collect();
            if v.is_empty() {
                f64::NAN
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        })
        .collect()
}

/// Gold and predicted labels of `learner` at `round`, pooled over folds.
fn pooled(results: &ExperimentResults, learner: &str, round: usize) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut gold = Vec::new();
    let mut pred = Vec::new();
    for f in &results.folds {
        let rounds = f.predictions.get(learner)?;
        let p = rounds.get(round.min(rounds.len().checked_sub(1)?))?;
        gold.extend_from_slice(&f.gold);
        pred.extend_from_slice(p);
    }
    Some((gold, pred))
}

/// Per-class metrics of `learner` at `round`, pooled over folds.
pub fn per_class(results: &ExperimentResults, learner: &str, round: usize) -> Option<Vec<ClassMetrics>> {
    let (g, p) = pooled(results, learner, round)?;
    let m = eval::confusion(&g, &p, results.report_classes.len());
    Some(eval::per_class(&m, &results.report_classes))
}

/// Writes every report file into `dir`.
pub fn write_all(results: &ExperimentResults, dir: &Path) -> Result<(), ReportError> {
    // Compact: the per-round predictions of every learner make the pretty form several MB.
    let json = serde_json::to_string(results).map_err(|e| file_err(dir, e))?;
    write_atomic(&dir.join("results.json"), json.as_bytes()).map_err(|e| file_err(&dir.join("results.json"), e))?;
    let run = serde_json::json!({
        "parcels_version": results.parcels_version,
        "wall_seconds": results.wall_seconds,
        "peak_memory_mb": results.peak_memory_mb,
        "threads": rayon::current_num_threads(),
    });
    write_atomic(&dir.join(RUN_FILE), format!("{run}\n").as_bytes()).map_err(|e| file_err(&dir.join(RUN_FILE), e))?;
    write_derived(results, dir)
}

/// Writes the files derived from the results (everything but `results.json`).
pub fn write_derived(results: &ExperimentResults, dir: &Path) -> Result<(), ReportError> {
    let put = |name: &str, text: String| write_atomic(&dir.join(name), text.as_bytes()).map_err(|e| file_err(&dir.join(name), e));
    put("curves.csv", curves_csv(results))?;
    put("per-class.csv", per_class_csv(results))?;
    for learner in [COMBINED, CONTEXT, SINGLE_VIEW, LEXICAL, STYLISTIC] {
        if let Some(csv) = confusion_csv(results, learner) {
            put(&format!("confusion-{learner}.csv"), csv)?;
        }
    }
    let svg = error_curve_svg(results)?;
    put("error-curve.svg", svg)?;
    put("report.md", report_md(results))
}

/// Reads `results.json` from a report directory.
pub fn load(dir: &Path) -> Result<ExperimentResults, ReportError> {
    let path = dir.join("results.json");
    let text = crate::files::read_regular_to_string(&path).map_err(|e| file_err(&path, e))?;
    serde_json::from_str(&text).map_err(|e| file_err(&path, e))
}

fn curves_csv(results: &ExperimentResults) -> String {
    let folds = results.folds.len();
    let mut out = String::from("learner,round,mean");
    for f in 0..folds {
        let _ = write!(out, ",fold{f}");
    }
    out.push('\n');
    for learner in &learners(results) {
        let mean = mean_curve(results, learner);
        for (r, m) in mean.iter().enumerate() {
            let _ = write!(out, "{learner},{r},{m:.6}");
            for f in 0..folds {
                let _ = write!(out, ",{}", error_at(results, f, learner, r).map_or(String::new(), |e| format!("{e:.6}")));
            }
            out.push('\n');
        }
    }
    out
}

fn snapshot_rounds(results: &ExperimentResults) -> Vec<usize> {
    let last = n_rounds(results).saturating_sub(1);
    let mut r = vec![0, 1.min(last), last];
    r.dedup();
    r
}

fn per_class_csv(results: &ExperimentResults) -> String {
    let mut out = String::from("learner,round,label,precision,recall,f1,support\n");
    for learner in &learners(results) {
        for round in snapshot_rounds(results) {
            let Some(rows) = per_class(results, learner, round) else { continue };
            for m in rows {
                let _ = writeln!(out, "{learner},{round},{},{:.4},{:.4},{:.4},{}", m.label, m.precision, m.recall, m.f1, m.support);
            }
        }
    }
    out
}

fn confusion_csv(results: &ExperimentResults, learner: &str) -> Option<String> {
    let (g, p) = pooled(results, learner, n_rounds(results).saturating_sub(1))?;
    let m = eval::confusion(&g, &p, results.report_classes.len());
    let mut out = String::from("gold\\predicted");
    for c in &results.report_classes {
        let _ = write!(out, ",{c}");
    }
    out.push('\n');
    for (c, row) in results.report_classes.iter().zip(&m) {
        let _ = write!(out, "{c}");
        for v in row {
            let _ = write!(out, ",{v}");
        }
        out.push('\n');
    }
    Some(out)
}

const COLORS: &[RGBColor] = &[
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(127, 127, 127),
    RGBColor(140, 86, 75),
];

/// The error curves as SVG: mean per learner, with the min–max spread over folds for the
/// co-trained learners.
pub fn error_curve_svg(results: &ExperimentResults) -> Result<String, ReportError> {
    let drawing = |e: &dyn std::fmt::Display| ReportError::Chart { message: e.to_string() };
    let rounds = n_rounds(results);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| drawing(&e))?;
        let names = learners(results);
        let max_err = names
            .iter()
            .flat_map(|l| (0..results.folds.len()).flat_map(move |f| (0..rounds).filter_map(move |r| error_at(results, f, l, r))))
            .fold(0.0f64, f64::max)
            .max(0.05);
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{}: error rate per co-training round", results.config.name), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d(0f64..(rounds.max(2) - 1) as f64, 0f64..(max_err * 1.1).min(1.0))
            .map_err(|e| drawing(&e))?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .x_labels(rounds.clamp(2, 21))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .x_desc("co-training round")
            .y_desc("error rate (held-out blocks)")
            .draw()
            .map_err(|e| drawing(&e))?;
        for learner in &names {
            let i = LEARNERS.iter().position(|l| l == learner).unwrap_or(LEARNERS.len() + names.iter().position(|n| n == learner).unwrap_or(0));
            let color = COLORS[i % COLORS.len()];
            let mean = mean_curve(results, learner);
            let spread: Vec<(f64, f64, f64)> = (0..rounds)
                .map(|r| {
                    let v: Vec<f64> = (0..results.folds.len()).filter_map(|f| error_at(results, f, learner, r)).collect();
                    (r as f64, v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(f64::NEG_INFINITY, f64::max))
                })
                .collect();
            // The spread over folds (min to max) only for the co-trained learners: the constant
            // baselines would cover the chart.
            if [LEXICAL, STYLISTIC, COMBINED].contains(&learner.as_str()) {
                let band: Vec<(f64, f64)> = spread.iter().map(|&(x, lo, _)| (x, lo)).chain(spread.iter().rev().map(|&(x, _, hi)| (x, hi))).collect();
                chart
                    .draw_series(std::iter::once(Polygon::new(band, color.mix(0.10))))
                    .map_err(|e| drawing(&e))?
                    .label(format!("{learner}: band = lowest to highest fold"))
                    .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 18, y + 5)], color.mix(0.25).filled()));
            }
            chart
                .draw_series(LineSeries::new(mean.iter().enumerate().map(|(r, &e)| (r as f64, e)), color.stroke_width(2)))
                .map_err(|e| drawing(&e))?
                .label(learner.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| drawing(&e))?;
        root.present().map_err(|e| drawing(&e))?;
    }
    Ok(svg)
}

/// Relative error reduction from `a` to `b` (positive: `b` is better).
fn reduction(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        0.0
    } else {
        (a - b) / a
    }
}

/// The paper's own figures (section 7), for orientation next to ours.
const PAPER_FIGURES: &str = "\
| experiment (paper) | majority | single-view | lexical r0 | stylistic r0 | combined r0 | reductions |
|---|---|---|---|---|---|---|
| 7.1 basic, 17 labels, u=300 k=20 r=20 | 70.6% | 35.0% | 33.2% | 32.5% | 38.4% | lexical 35.8%, stylistic 6.1%, combined 34.8%; combined vs single-view 28.5% |
| 7.2 XHTML/CSS, u=70 k=10 r=9 | 83.4% | 33.3% | 39.5% | 39.7% | 42.3% | co-training did not beat single-view |
| 7.3 Song 3-level, coarse blocks, u=40 k=4 r=20 | 34.1% | 19.5% | | | 21.1% → 17.6% | no clear gain |
";

/// The error table (Markdown): mean held-out error of every learner at round 0, round 1 and the
/// last round. `parcels experiment` prints it; `report.md` holds it.
pub fn error_table(results: &ExperimentResults) -> String {
    let last = n_rounds(results).saturating_sub(1);
    let mut out = String::from("| learner | round 0 | round 1 | last round |\n|---|---:|---:|---:|\n");
    for learner in &learners(results) {
        let m = mean_curve(results, learner);
        if m.iter().all(|v| v.is_nan()) {
            continue;
        }
        let at = |r: usize| m.get(r.min(m.len() - 1)).copied().unwrap_or(f64::NAN);
        let _ = writeln!(out, "| {learner} | {:.1}% | {:.1}% | {:.1}% |", 100.0 * at(0), 100.0 * at(1), 100.0 * at(last));
    }
    out
}

/// The sentence of relative error reductions, round 0 to `last`, naming only the learners that
/// were run (a baseline left out of the config is not "NaN%").
fn reductions(mean_at: &dyn Fn(&str, usize) -> f64, last: usize) -> String {
    let parts: Vec<String> = [(LEXICAL, "lexical"), (STYLISTIC, "stylistic"), (COMBINED, "combined"), (SELF_TRAINING, "self-training")]
        .iter()
        .filter_map(|&(l, name)| {
            let (a, b) = (mean_at(l, 0), mean_at(l, last));
            (a.is_finite() && b.is_finite()).then(|| format!("{name} {:.1}%", 100.0 * reduction(a, b)))
        })
        .collect();
    let mut out = String::new();
    if !parts.is_empty() {
        let _ = write!(out, "\nRelative error reduction from round 0 to round {last}: {}.", parts.join(", "));
    }
    let (single, combined) = (mean_at(SINGLE_VIEW, 0), mean_at(COMBINED, last));
    if single.is_finite() && combined.is_finite() {
        let _ = write!(out, " Combined at round {last} against the single-view learner: {:.1}%.", 100.0 * reduction(single, combined));
    }
    out.push_str("\n\n");
    out
}

/// The Markdown report.
pub fn report_md(results: &ExperimentResults) -> String {
    let c = &results.config;
    let last = n_rounds(results).saturating_sub(1);
    let mut out = format!("# {}\n\n{}\n\n", c.name, c.description);
    let _ = writeln!(
        out,
        "Labelled: {} blocks on {} pages from {} sites ({} blocks without a majority label left out). Unlabelled pool: {} blocks on {} pages. \
         Labels in {}, trained in {}, reported in {}; u = {}, k = {}, r = {}, selection rule {}, {} folds by {}, seed {}. Boosting rounds: {}.\n",
        results.labelled_blocks,
        results.labelled_pages,
        results.labelled_sites,
        results.unlabelled_blocks_left_out,
        results.pool_blocks,
        results.pool_pages,
        c.corpus.scheme,
        c.corpus.train_scheme.as_deref().unwrap_or(&c.corpus.scheme),
        c.corpus.report_scheme.as_deref().or(c.corpus.train_scheme.as_deref()).unwrap_or(&c.corpus.scheme),
        c.cotraining.u,
        c.cotraining.k,
        c.cotraining.r,
        c.cotraining.selection,
        c.evaluation.folds,
        c.evaluation.split,
        c.seed,
        c.boosting.rounds,
    );
    let stops: Vec<String> = results.folds.iter().map(|f| format!("fold {}: {}", f.fold, f.stop)).collect();
    let _ = writeln!(out, "Co-training stopped: {}.\n", stops.join("; "));
    out.push_str("## Class distribution (training scheme)\n\n| label | blocks | share |\n|---|---:|---:|\n");
    let total: usize = results.class_counts.iter().sum();
    let mut rows: Vec<(&String, usize)> = results.classes.iter().zip(results.class_counts.iter().copied()).collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.1));
    for (l, n) in rows {
        let _ = writeln!(out, "| {l} | {n} | {:.1}% |", 100.0 * n as f64 / total.max(1) as f64);
    }
    out.push_str("\n## Error rates (mean over folds, held-out blocks)\n\n![error curve](error-curve.svg)\n\nLines: mean error over folds at each co-training round; shaded bands (co-trained learners): the lowest to the highest fold. \
         Learners without rounds (baselines, the context stage) are flat.\n\n");
    out.push_str(&error_table(results));
    let mean_at = |l: &str, r: usize| {
        let m = mean_curve(results, l);
        m.get(r.min(m.len().saturating_sub(1))).copied().unwrap_or(f64::NAN)
    };
    out.push_str(&reductions(&mean_at, last));
    out.push_str("## Per-class F1 of the combined classifier (pooled over folds)\n\n| label | support | F1 round 1 | F1 last round |\n|---|---:|---:|---:|\n");
    if let (Some(first), Some(end)) = (per_class(results, COMBINED, 1.min(last)), per_class(results, COMBINED, last)) {
        let mut rows: Vec<(&ClassMetrics, &ClassMetrics)> = first.iter().zip(&end).collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.0.support));
        for (a, b) in rows {
            let _ = writeln!(out, "| {} | {} | {:.3} | {:.3} |", a.label, a.support, a.f1, b.f1);
        }
    }
    out.push_str("\n## The paper's figures, for orientation\n\n");
    out.push_str(PAPER_FIGURES);
    out.push_str(
        "\nOther files: `results.json` (everything), `curves.csv`, `per-class.csv`, `confusion-*.csv`. Rebuild them with `parcels report <this directory>`.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_name_only_the_learners_that_ran() {
        // Self-training not run: its mean curve is NaN, and the sentence says nothing of it.
        let mean_at = |l: &str, r: usize| match (l, r) {
            (SELF_TRAINING, _) => f64::NAN,
            (SINGLE_VIEW, _) => 0.5,
            (_, 0) => 0.4,
            _ => 0.3,
        };
        let s = reductions(&mean_at, 5);
        assert!(!s.contains("NaN") && !s.contains("self-training"), "{s}");
        // (0.4 - 0.3) / 0.4 = 25%; against the single view (0.5 - 0.3) / 0.5 = 40%.
        assert!(s.contains("lexical 25.0%, stylistic 25.0%, combined 25.0%."), "{s}");
        assert!(s.contains("against the single-view learner: 40.0%"), "{s}");
        let with = |l: &str, r: usize| if l == SELF_TRAINING { [0.4, 0.2][r.min(1)] } else { mean_at(l, r) };
        assert!(reductions(&with, 5).contains("self-training 50.0%"));
    }
}
