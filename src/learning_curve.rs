//! The aggregated report of a sweep ([`crate::sweep`]): per point of the x axis (a labelled
//! budget) and per series (the other axes, e.g. the selection rule), each learner's mean error
//! with a 95% interval over the units (replicates × folds), the paired comparisons of
//! co-training against the single-view learner and self-training (bootstrap interval of the
//! mean difference, Wilcoxon signed-rank p-value, [`crate::stats`]), the diagnostics of the
//! rounds, and one SVG plot per series (mean lines, interval bands, a legend saying what a band is).
//!
//! Input: a [`SweepConfig`] and its [`CellResults`]. Output: files in the report directory:
//! `report.md`, `learning-curve.csv` (means and intervals), `comparisons.csv`, `diagnostics.csv`,
//! `units.csv` (every unit's errors, to recompute anything), `learning-curve-<series>.svg`.
//!
//! Units are paired: the same replicate and the same fold give the same held-out blocks and the
//! same labelled pages to every learner of a cell. "Supervised, all labels" is the single-view
//! learner of the cell with the x value `all` (same series, replicate and fold): every labelled
//! page of the fold's training side. The best round is chosen on the held-out blocks themselves,
//! so it is optimistic and only described; the comparisons use the last round and the round the
//! sweep file names in advance (`report.round`).

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use crate::experiment::{FoldResult, COMBINED, SELF_TRAINING, SINGLE_VIEW};
use crate::files::write_atomic;
use crate::report::ReportError;
use crate::stats::{bootstrap_mean, differences, wilcoxon, Interval, SignedRank};
use crate::sweep::{CellResults, SweepConfig};

/// The learners' measures a point shows, in order; `{r}` is the sweep's named round.
const CO_R0: &str = "co-training, round 0";
const CO_LAST: &str = "co-training, last round";
const CO_BEST: &str = "co-training, best round";
const SINGLE: &str = "single view";
const SELF_LAST: &str = "self-training, last round";
const SUPERVISED: &str = "supervised, all labels";

fn co_at(r: usize) -> String {
    format!("co-training, round {r}")
}

fn self_at(r: usize) -> String {
    format!("self-training, round {r}")
}

/// One unit: a fold of a replicate.
struct Unit<'a> {
    replicate: String,
    fold: &'a FoldResult,
}

/// The figures of one point of one series.
pub struct Point {
    pub series: String,
    pub x: String,
    /// Round with the lowest mean co-training error (chosen on the held-out blocks).
    pub best_round: usize,
    /// Per measure: the per-unit errors (units in the same order for every measure).
    pub values: Vec<(String, Vec<f64>)>,
    /// The same measures' main-text F1 per unit ([`FoldResult::main_text_f1`]), where the cells
    /// have it (the best round is the error's); empty otherwise.
    pub f1: Vec<(String, Vec<f64>)>,
    pub units: Vec<(String, usize)>,
    /// Diagnostics summed over units.
    pub diagnostics: Diagnostics,
}

/// The rounds' diagnostics of a point, over units and rounds 1 to the last.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    /// Self-labels added and how many were right (where the pool's labels are known).
    pub added: usize,
    pub judged: usize,
    pub correct: usize,
    /// Additions in classes under 5% of the labelled blocks.
    pub rare_added: usize,
    /// Mean share of the fresh pools both views labelled alike.
    pub agreement: Option<f64>,
    /// Held-out blocks both views got wrong over independence's prediction, at round 0 and at
    /// the last round.
    pub both_wrong_r0: Option<f64>,
    pub both_wrong_last: Option<f64>,
    /// Additions per class (training scheme), both views.
    pub by_class: Vec<usize>,
    pub classes: Vec<String>,
}

/// A paired comparison at one point: `a − b` per unit (negative: `a` makes fewer errors).
pub struct Comparison {
    pub a: String,
    pub b: String,
    pub difference: Interval,
    pub test: SignedRank,
}

fn unquote(v: &str) -> String {
    v.trim_matches('"').to_string()
}

/// The points of a sweep, series by series, x in the grid's order.
pub fn points(sweep: &SweepConfig, cells: &[CellResults]) -> Vec<Point> {
    let rx = &sweep.report;
    let named = rx.round;
    // An x that is no axis of the grid (a sweep of replicates only) has one value for every
    // cell, shown as `all` (the default x, the labelled budget, is then every page).
    let x_axis = sweep.grid.iter().find(|a| a.key == rx.x);
    let x_values: Vec<String> = x_axis.map_or_else(|| vec!["all".to_string()], |a| a.values.iter().map(|v| unquote(&v.to_string())).collect());
    let series_of = |c: &CellResults| -> String {
        let s: Vec<String> = c
            .cell
            .settings
            .iter()
            .filter(|(k, _)| *k != rx.x && *k != rx.replicate)
            .map(|(k, v)| format!("{}={}", k.rsplit('.').next().unwrap_or(k), unquote(v)))
            .collect();
        if s.is_empty() {
            "all cells".into()
        } else {
            s.join(",")
        }
    };
    let mut series: Vec<String> = Vec::new();
    for c in cells {
        let s = series_of(c);
        if !series.contains(&s) {
            series.push(s);
        }
    }
    let x_of = |c: &CellResults| if x_axis.is_some() { c.cell.value(&rx.x).map(unquote).unwrap_or_default() } else { "all".to_string() };
    let rep_of = |c: &CellResults| c.cell.value(&rx.replicate).map(unquote).unwrap_or_default();
    let mut out = Vec::new();
    for s in &series {
        for x in &x_values {
            let units: Vec<Unit> = cells
                .iter()
                .filter(|c| series_of(c) == *s && x_of(c) == *x)
                .flat_map(|c| c.results.folds.iter().map(move |f| Unit { replicate: rep_of(c), fold: f }))
                .filter(|u| u.fold.test_blocks > 0)
                .collect();
            if units.is_empty() {
                continue;
            }
            let curve = |u: &Unit, learner: &str| u.fold.errors.get(learner).cloned().unwrap_or_default();
            let at = |v: &[f64], r: usize| v.get(r.min(v.len().saturating_sub(1))).copied().unwrap_or(f64::NAN);
            let rounds = units.iter().map(|u| curve(u, COMBINED).len()).max().unwrap_or(1);
            let mean_at = |r: usize| units.iter().map(|u| at(&curve(u, COMBINED), r)).sum::<f64>() / units.len() as f64;
            let best_round = (0..rounds).min_by(|&a, &b| mean_at(a).total_cmp(&mean_at(b)).then(a.cmp(&b))).unwrap_or(0);
            let col = |f: &dyn Fn(&Unit) -> f64| units.iter().map(f).collect::<Vec<f64>>();
            let measures = |curve: &dyn Fn(&FoldResult, &str) -> Vec<f64>| {
                let mut values = vec![
                    (CO_R0.to_string(), col(&|u| at(&curve(u.fold, COMBINED), 0))),
                    (CO_LAST.to_string(), col(&|u| at(&curve(u.fold, COMBINED), usize::MAX))),
                    (CO_BEST.to_string(), col(&|u| at(&curve(u.fold, COMBINED), best_round))),
                    (SINGLE.to_string(), col(&|u| at(&curve(u.fold, SINGLE_VIEW), 0))),
                    (SELF_LAST.to_string(), col(&|u| at(&curve(u.fold, SELF_TRAINING), usize::MAX))),
                ];
                if let Some(r) = named {
                    values.insert(1, (co_at(r), col(&|u| at(&curve(u.fold, COMBINED), r))));
                    values.push((self_at(r), col(&|u| at(&curve(u.fold, SELF_TRAINING), r))));
                }
                // Supervised on all labels: the single-view learner of the `all` cell of the
                // same series, replicate and fold.
                let supervised = col(&|u| {
                    cells
                        .iter()
                        .find(|c| series_of(c) == *s && x_of(c) == "all" && rep_of(c) == u.replicate)
                        .and_then(|c| c.results.folds.iter().find(|f| f.fold == u.fold.fold))
                        .and_then(|f| curve(f, SINGLE_VIEW).first().copied())
                        .unwrap_or(f64::NAN)
                });
                if supervised.iter().any(|v| !v.is_nan()) {
                    values.push((SUPERVISED.to_string(), supervised));
                }
                values
            };
            let values = measures(&|f, l| f.errors.get(l).cloned().unwrap_or_default());
            let f1 = if units.iter().any(|u| !u.fold.main_text_f1.is_empty()) {
                measures(&|f, l| f.main_text_f1.get(l).map(|v| v.iter().map(|x| x.unwrap_or(f64::NAN)).collect()).unwrap_or_default())
            } else {
                Vec::new()
            };
            let first = cells.iter().find(|c| series_of(c) == *s && x_of(c) == *x);
            let diagnostics = first.map_or_else(Diagnostics::default, |c| diagnose(&units, &c.results.classes, &c.results.class_counts));
            out.push(Point {
                series: s.clone(),
                x: x.clone(),
                best_round,
                values,
                f1,
                units: units.iter().map(|u| (u.replicate.clone(), u.fold.fold)).collect(),
                diagnostics,
            });
        }
    }
    out
}

fn diagnose(units: &[Unit], classes: &[String], class_counts: &[usize]) -> Diagnostics {
    let total: usize = class_counts.iter().sum();
    let rare: Vec<bool> = class_counts.iter().map(|&c| (c as f64) < 0.05 * total as f64).collect();
    let mut d = Diagnostics { by_class: vec![0; classes.len()], classes: classes.to_vec(), ..Diagnostics::default() };
    let (mut agree_sum, mut agree_n) = (0.0, 0usize);
    let joint = |rounds: &dyn Fn(&FoldResult) -> Option<usize>| -> Option<f64> {
        let (mut observed, mut expected) = (0.0, 0.0);
        for u in units {
            let Some(r) = rounds(u.fold) else { continue };
            let Some(rd) = u.fold.diagnostics.get(r) else { continue };
            for c in &rd.errors_by_class {
                observed += c[3] as f64;
                if c[0] > 0 {
                    expected += c[1] as f64 * c[2] as f64 / c[0] as f64;
                }
            }
        }
        (expected > 0.0).then(|| observed / expected)
    };
    d.both_wrong_r0 = joint(&|_| Some(0));
    d.both_wrong_last = joint(&|f| f.diagnostics.len().checked_sub(1));
    for u in units {
        for rd in u.fold.diagnostics.iter().skip(1) {
            for view in &rd.added {
                for (c, &n) in view.iter().enumerate() {
                    d.added += n;
                    if let Some(slot) = d.by_class.get_mut(c) {
                        *slot += n;
                    }
                    if rare.get(c).copied().unwrap_or(false) {
                        d.rare_added += n;
                    }
                }
            }
            if let Some(correct) = &rd.correct {
                d.judged += rd.added.iter().flatten().sum::<usize>();
                d.correct += correct.iter().sum::<usize>();
            }
            if let Some(a) = rd.pool_agreement {
                agree_sum += a;
                agree_n += 1;
            }
        }
    }
    d.agreement = (agree_n > 0).then(|| agree_sum / agree_n as f64);
    d
}

impl Point {
    /// The per-unit errors of a measure.
    pub fn get(&self, measure: &str) -> Option<&[f64]> {
        self.values.iter().find(|(m, _)| m == measure).map(|(_, v)| v.as_slice())
    }

    /// The paired comparisons: co-training (last round, and the named round) against the single
    /// view and self-training, and its last round against its round 0.
    pub fn comparisons(&self, named: Option<usize>, resamples: usize, seed: u64) -> Vec<Comparison> {
        self.compare(&self.values, named, resamples, seed)
    }

    /// The same comparisons on main-text F1 (positive: the first learner extracts better).
    pub fn f1_comparisons(&self, named: Option<usize>, resamples: usize, seed: u64) -> Vec<Comparison> {
        self.compare(&self.f1, named, resamples, seed)
    }

    fn compare(&self, values: &[(String, Vec<f64>)], named: Option<usize>, resamples: usize, seed: u64) -> Vec<Comparison> {
        let get = |m: &str| values.iter().find(|(n, _)| n == m).map(|(_, v)| v.as_slice());
        let mut pairs: Vec<(String, String)> = vec![(CO_LAST.into(), SINGLE.into()), (CO_LAST.into(), SELF_LAST.into()), (CO_LAST.into(), CO_R0.into())];
        if let Some(r) = named {
            pairs.push((co_at(r), SINGLE.into()));
            pairs.push((co_at(r), self_at(r)));
        }
        pairs
            .into_iter()
            .filter_map(|(a, b)| {
                let d = differences(get(&a)?, get(&b)?);
                Some(Comparison { difference: bootstrap_mean(&d, resamples, seed), test: wilcoxon(&d), a, b })
            })
            .collect()
    }
}

/// Writes the aggregated report of a sweep into `dir`.
pub fn write(sweep: &SweepConfig, cells: &[CellResults], dir: &Path) -> Result<(), ReportError> {
    std::fs::create_dir_all(dir).map_err(|e| ReportError::File { path: dir.display().to_string(), message: e.to_string() })?;
    let put = |name: &str, text: &str| {
        write_atomic(&dir.join(name), text.as_bytes()).map_err(|e| ReportError::File { path: dir.join(name).display().to_string(), message: e.to_string() })
    };
    let pts = points(sweep, cells);
    let rx = &sweep.report;
    let seed = 16;
    let mut curve = String::from("series,x,measure,mean,low,high,units\n");
    let mut comp = String::from("series,x,a,b,mean_difference,low,high,w_plus,w_minus,nonzero,p,method\n");
    let mut diag = String::from("series,x,added,rare_class_share,judged,precision,pool_agreement,both_wrong_ratio_round0,both_wrong_ratio_last\n");
    let mut units = String::from("series,x,replicate,fold,measure,error\n");
    let mut md = format!("# {}\n\n{}\n\n", sweep.name, sweep.description);
    let base = cells.first().map(|c| &c.results);
    if let Some(r) = base {
        let c = &r.config;
        let _ = writeln!(
            md,
            "Base config `{}` with {}; grid: {}. Labelled: {} blocks on {} pages; pool: {} blocks on {} pages; {} folds by {} (seed {}), the same in every cell. \
             Boosting rounds {}, max_bins {}, u = {}, k = {}, r = {}.\n",
            sweep.base.display(),
            if sweep.set.is_empty() { "no overrides".to_string() } else { format!("`{}`", sweep.set.join("`, `")) },
            sweep.grid.iter().map(|a| format!("{} ∈ {{{}}}", a.key, a.values.iter().map(|v| unquote(&v.to_string())).collect::<Vec<_>>().join(", "))).collect::<Vec<_>>().join("; "),
            r.labelled_blocks,
            r.labelled_pages,
            r.pool_blocks,
            r.pool_pages,
            c.evaluation.folds,
            c.evaluation.split,
            c.seed,
            c.boosting.rounds,
            c.boosting.max_bins.map_or("default".into(), |b| b.to_string()),
            c.cotraining.u,
            c.cotraining.k,
            c.cotraining.r
        );
        if let Some(t) = &r.test_corpus {
            let _ = writeln!(
                md,
                "Held-out test corpus (`[evaluation.test]`, labels `{}`): {} blocks on {} pages from {} sites. The folds cut the test corpus; each fold trains on the labelled corpus (cut to the budget), takes its unlabelled pool from the test corpus's pages outside the held-out fold (their labels hidden from the learners and used only to judge the self-labels: the precision column) and is scored on the held-out fold's blocks.\n",
                c.evaluation.test.as_ref().map(|t| t.labels.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join("`, `")).unwrap_or_default(),
                t.blocks,
                t.pages,
                t.sites
            );
        }
    }
    let _ = writeln!(
        md,
        "Every figure is a mean over units (replicates × folds; a unit is one fold of one replicate, paired across learners) of the error rate on the fold's held-out blocks, \
         with a 95% percentile bootstrap interval ({} resamples). Differences are paired per unit (negative: the first learner errs less); p is the two-sided Wilcoxon signed-rank test. \
         The best round is chosen on the held-out blocks themselves (optimistic, shown for orientation, not tested); round {} was named before the run. \
         Supervised, all labels: the single-view learner trained on every labelled page of the fold's training side.\n",
        rx.resamples,
        rx.round.map_or("—".into(), |r| r.to_string())
    );
    let mut series: Vec<&str> = Vec::new();
    for p in &pts {
        if !series.contains(&p.series.as_str()) {
            series.push(&p.series);
        }
    }
    for s in &series {
        let sp: Vec<&Point> = pts.iter().filter(|p| p.series == *s).collect();
        let measures: Vec<String> = sp.first().map(|p| p.values.iter().map(|(m, _)| m.clone()).collect()).unwrap_or_default();
        let _ = writeln!(md, "## {s}\n\n![learning curve](learning-curve-{}.svg)\n", file_part(s));
        let _ = writeln!(md, "| budget (pages) | units | {} | best round |", measures.join(" | "));
        let _ = writeln!(md, "|---|---:|{}---:|", "---:|".repeat(measures.len()));
        for p in &sp {
            let mut row = format!("| {} | {} |", p.x, p.units.len());
            for (m, v) in &p.values {
                let i = bootstrap_mean(v, rx.resamples, seed);
                let _ = write!(row, " {} |", pct_interval(&i));
                let _ = writeln!(curve, "{s},{},{m},{:.6},{:.6},{:.6},{}", p.x, i.mean, i.low, i.high, i.n);
                for ((rep, fold), e) in p.units.iter().zip(v) {
                    let _ = writeln!(units, "{s},{},{rep},{fold},{m},{e:.6}", p.x);
                }
            }
            let _ = writeln!(md, "{row} {} |", p.best_round);
        }
        let _ = writeln!(md, "\n### Paired differences (percentage points)\n\n| budget | comparison | mean difference [95% interval] | W+ / W− (n) | p |\n|---|---|---:|---:|---:|");
        for p in &sp {
            for c in p.comparisons(rx.round, rx.resamples, seed) {
                write_comparison(&mut md, &mut comp, s, &p.x, &c, ErrorPoints);
            }
        }
        let _ = writeln!(
            md,
            "\n### Diagnostics (rounds 1 to the last, both views)\n\n| budget | self-labels added | in rare classes (< 5% of labels) | precision | views agree on the pool | both wrong ÷ independence, round 0 | same, last round | most added classes |\n|---|---:|---:|---:|---:|---:|---:|---|"
        );
        for p in &sp {
            let d = &p.diagnostics;
            let share = |a: usize, b: usize| if b == 0 { "—".to_string() } else { format!("{:.1}%", 100.0 * a as f64 / b as f64) };
            let opt = |v: Option<f64>, pct: bool| v.map_or("—".into(), |v| if pct { format!("{:.1}%", 100.0 * v) } else { format!("{v:.2}") });
            let mut top: Vec<(usize, &String)> = d.by_class.iter().copied().zip(&d.classes).filter(|(n, _)| *n > 0).collect();
            top.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            let top: Vec<String> = top.iter().take(3).map(|(n, c)| format!("{c} {}", share(*n, d.added))).collect();
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                p.x,
                d.added,
                share(d.rare_added, d.added),
                share(d.correct, d.judged),
                opt(d.agreement, true),
                opt(d.both_wrong_r0, false),
                opt(d.both_wrong_last, false),
                top.join(", ")
            );
            let _ = writeln!(
                diag,
                "{s},{},{},{},{},{},{},{},{}",
                p.x,
                d.added,
                if d.added > 0 { format!("{:.6}", d.rare_added as f64 / d.added as f64) } else { String::new() },
                d.judged,
                if d.judged > 0 { format!("{:.6}", d.correct as f64 / d.judged as f64) } else { String::new() },
                d.agreement.map_or(String::new(), |v| format!("{v:.6}")),
                d.both_wrong_r0.map_or(String::new(), |v| format!("{v:.6}")),
                d.both_wrong_last.map_or(String::new(), |v| format!("{v:.6}"))
            );
        }
        if sp.iter().any(|p| !p.f1.is_empty()) {
            write_f1(&mut md, &mut curve, &mut comp, s, &sp, rx.round, rx.resamples, seed);
        }
        md.push('\n');
        put(&format!("learning-curve-{}.svg", file_part(s)), &svg(sweep, &sp, s)?)?;
    }
    let wall: f64 = cells.iter().map(|c| c.wall_seconds).sum();
    let _ = writeln!(
        md,
        "Files: `learning-curve.csv`, `comparisons.csv`, `diagnostics.csv`, `units.csv` (every unit's error per measure). {} cells; their runs took {:.0} s in all on the machine that ran them. \
         The cells' results are in `cells/`; rebuild this report from them with `parcels sweep <sweep file> --out <this directory> --report <this directory> --report-only`, or run the cells not finished by leaving out `--report-only` (finished cells are not run again).",
        cells.len(),
        wall
    );
    put("learning-curve.csv", &curve)?;
    put("comparisons.csv", &comp)?;
    put("diagnostics.csv", &diag)?;
    put("units.csv", &units)?;
    put("report.md", &md)
}

/// The main-text F1 tables of a series: means with intervals and the paired comparisons; the
/// CSV rows carry the measure's name with the suffix ` (main-text F1)`.
#[allow(clippy::too_many_arguments)]
fn write_f1(md: &mut String, curve: &mut String, comp: &mut String, s: &str, sp: &[&Point], named: Option<usize>, resamples: usize, seed: u64) {
    let measures: Vec<String> = sp.iter().find(|p| !p.f1.is_empty()).map(|p| p.f1.iter().map(|(m, _)| m.clone()).collect()).unwrap_or_default();
    let _ = writeln!(
        md,
        "\n### Main-text F1 (mean over units of the mean over held-out pages; higher is better)\n\n| budget (pages) | units | {} |\n|---|---:|{}",
        measures.join(" | "),
        "---:|".repeat(measures.len())
    );
    for p in sp {
        let mut row = format!("| {} | {} |", p.x, p.units.len());
        for (m, v) in &p.f1 {
            let i = bootstrap_mean(v, resamples, seed);
            let _ = write!(row, " {} |", if i.mean.is_nan() { "—".into() } else { format!("{:.3} [{:.3}, {:.3}]", i.mean, i.low, i.high) });
            let _ = writeln!(curve, "{s},{},{m} (main-text F1),{:.6},{:.6},{:.6},{}", p.x, i.mean, i.low, i.high, i.n);
        }
        let _ = writeln!(md, "{row}");
    }
    let _ = writeln!(md, "\n#### Paired differences in main-text F1 (positive: the first extracts better)\n\n| budget | comparison | mean difference [95% interval] | W+ / W− (n) | p |\n|---|---|---:|---:|---:|");
    for p in sp {
        for c in p.f1_comparisons(named, resamples, seed) {
            write_comparison(md, comp, s, &p.x, &c, MainTextF1);
        }
    }
}

/// How a paired comparison's differences are written: block error in percentage points, or
/// main-text F1 as it is (its CSV rows name the measure with the suffix ` (main-text F1)`).
#[derive(Clone, Copy)]
enum Measure {
    ErrorPoints,
    MainTextF1,
}
use Measure::{ErrorPoints, MainTextF1};

/// One paired comparison as a row of the Markdown table and of `comparisons.csv`.
fn write_comparison(md: &mut String, comp: &mut String, s: &str, x: &str, c: &Comparison, measure: Measure) {
    let (scale, decimals, suffix) = match measure {
        ErrorPoints => (100.0, 1, ""),
        MainTextF1 => (1.0, 3, " (main-text F1)"),
    };
    let (d, t) = (&c.difference, &c.test);
    let _ = writeln!(
        md,
        "| {x} | {} − {} | {:+.*} [{:+.*}, {:+.*}] | {} / {} ({}) | {} |",
        c.a,
        c.b,
        decimals,
        scale * d.mean,
        decimals,
        scale * d.low,
        decimals,
        scale * d.high,
        t.w_plus,
        t.w_minus,
        t.n,
        p_value(t.p)
    );
    let _ = writeln!(
        comp,
        "{s},{x},{}{suffix},{}{suffix},{:.6},{:.6},{:.6},{},{},{},{:.6},{:?}",
        c.a, c.b, d.mean, d.low, d.high, t.w_plus, t.w_minus, t.n, t.p, t.method
    );
}

fn file_part(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

fn pct_interval(i: &Interval) -> String {
    if i.mean.is_nan() {
        "—".into()
    } else {
        format!("{:.1}% [{:.1}, {:.1}]", 100.0 * i.mean, 100.0 * i.low, 100.0 * i.high)
    }
}

fn p_value(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("{p:.3}")
    }
}

const COLORS: &[RGBColor] =
    &[RGBColor(31, 119, 180), RGBColor(255, 127, 14), RGBColor(44, 160, 44), RGBColor(214, 39, 40), RGBColor(148, 103, 189), RGBColor(127, 127, 127)];

/// One series' learning curve: x = the budgets in grid order, mean error lines with their 95%
/// bootstrap interval as a band.
fn svg(sweep: &SweepConfig, pts: &[&Point], series: &str) -> Result<String, ReportError> {
    let drawing = |e: &dyn std::fmt::Display| ReportError::Chart { message: e.to_string() };
    let rx = &sweep.report;
    let mut shown: Vec<String> = vec![CO_LAST.into()];
    if let Some(r) = rx.round {
        shown.insert(0, co_at(r));
    }
    shown.extend([SINGLE.to_string(), SELF_LAST.to_string(), SUPERVISED.to_string()]);
    let lines: Vec<(String, Vec<(f64, Interval)>)> = shown
        .iter()
        .map(|m| (m.clone(), pts.iter().enumerate().filter_map(|(i, p)| p.get(m).map(|v| (i as f64, bootstrap_mean(v, rx.resamples, 16)))).collect::<Vec<_>>()))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    let max = lines.iter().flat_map(|(_, v)| v.iter().map(|(_, i)| i.high)).filter(|v| v.is_finite()).fold(0.05f64, f64::max);
    let labels: Vec<String> = pts.iter().map(|p| p.x.clone()).collect();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (820, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| drawing(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{}: {series}", sweep.name), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d(-0.2f64..(labels.len().max(2) as f64 - 0.8), 0f64..(max * 1.1).min(1.0))
            .map_err(|e| drawing(&e))?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .x_labels(labels.len().max(2))
            .x_label_formatter(&|x| labels.get(x.round().max(0.0) as usize).filter(|_| (x - x.round()).abs() < 1e-6).cloned().unwrap_or_default())
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .x_desc("labelled pages per fold's training side")
            .y_desc("error rate (held-out blocks)")
            .draw()
            .map_err(|e| drawing(&e))?;
        for (n, (name, v)) in lines.iter().enumerate() {
            let color = COLORS[n % COLORS.len()];
            let band: Vec<(f64, f64)> = v.iter().map(|(x, i)| (*x, i.low)).chain(v.iter().rev().map(|(x, i)| (*x, i.high))).collect();
            chart
                .draw_series(std::iter::once(Polygon::new(band, color.mix(0.12))))
                .map_err(|e| drawing(&e))?
                .label(format!("{name}: band = 95% bootstrap interval of the mean"))
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 18, y + 5)], color.mix(0.3).filled()));
            chart
                .draw_series(LineSeries::new(v.iter().map(|(x, i)| (*x, i.mean)), color.stroke_width(2)))
                .map_err(|e| drawing(&e))?
                .label(format!("{name}: mean over replicates × folds"))
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
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::{ExperimentResults, RoundDiagnostics};
    use crate::sweep::{Cell, CELL_FORMAT};
    use std::collections::BTreeMap;

    fn fold(f: usize, combined: &[f64], single: f64, selft: &[f64]) -> FoldResult {
        let errors: BTreeMap<String, Vec<f64>> =
            [(COMBINED.to_string(), combined.to_vec()), (SINGLE_VIEW.to_string(), vec![single]), (SELF_TRAINING.to_string(), selft.to_vec())]
                .into_iter()
                .collect();
        let rd = |round: usize, added: Vec<Vec<usize>>, by: Vec<[usize; 4]>| RoundDiagnostics {
            round,
            added,
            correct: None,
            pool_agreement: Some(0.5),
            errors_by_class: by,
        };
        FoldResult {
            fold: f,
            test_pages: vec![],
            train_blocks: 10,
            test_blocks: 10,
            boosting_rounds: BTreeMap::new(),
            stop: crate::cotrain::Stop::AllRounds,
            self_training_stop: crate::cotrain::Stop::AllRounds,
            added: vec![],
            gold: vec![],
            predictions: BTreeMap::new(),
            errors,
            main_text_f1: BTreeMap::new(),
            train_pages: vec![],
            // Round 0: class 0 has 8 blocks, 4 and 2 wrong, 2 both: independence predicts 1.
            diagnostics: vec![
                rd(0, vec![vec![0, 0]; 2], vec![[8, 4, 2, 2], [2, 0, 0, 0]]),
                rd(1, vec![vec![3, 1], vec![0, 0]], vec![[8, 4, 2, 1], [2, 0, 0, 0]]),
            ],
        }
    }

    fn cell(sel: &str, x: &str, rep: &str, folds: Vec<FoldResult>) -> CellResults {
        let config = crate::config::ExperimentConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/demo.toml")).unwrap();
        let settings = vec![
            ("cotraining.selection".to_string(), format!("\"{sel}\"")),
            ("evaluation.budget_pages".to_string(), x.to_string()),
            ("evaluation.draw_seed".to_string(), rep.to_string()),
        ];
        CellResults {
            format: CELL_FORMAT,
            cell: Cell { name: format!("{sel},{x},{rep}"), settings },
            results: ExperimentResults {
                format: 1,
                parcels_version: String::new(),
                config,
                classes: vec!["a".into(), "b".into()],
                report_classes: vec!["a".into(), "b".into()],
                labelled_pages: 2,
                labelled_sites: 2,
                labelled_blocks: 100,
                class_counts: vec![97, 3],
                unlabelled_blocks_left_out: 0,
                pool_pages: 0,
                pool_blocks: 0,
                test_corpus: None,
                folds,
                wall_seconds: 0.0,
                peak_memory_mb: None,
            },
            wall_seconds: 1.0,
        }
    }

    #[test]
    fn points_pair_units_and_take_supervised_from_the_all_cell() {
        let sweep: SweepConfig = toml::from_str(
            "name = \"t\"\nbase = \"demo.toml\"\n[[grid]]\nkey = \"cotraining.selection\"\nvalues = [\"top-k\"]\n[[grid]]\nkey = \"evaluation.budget_pages\"\nvalues = [2, \"all\"]\n[[grid]]\nkey = \"evaluation.draw_seed\"\nvalues = [1, 2]\n[report]\nround = 1\n",
        )
        .unwrap();
        let cells = vec![
            cell("top-k", "2", "1", vec![fold(0, &[0.4, 0.3, 0.35], 0.5, &[0.5, 0.45, 0.45]), fold(1, &[0.6, 0.5, 0.5], 0.6, &[0.6, 0.6, 0.6])]),
            cell("top-k", "2", "2", vec![fold(0, &[0.5, 0.4, 0.4], 0.5, &[0.5, 0.5, 0.5]), fold(1, &[0.3, 0.3, 0.3], 0.4, &[0.4, 0.4, 0.4])]),
            cell("top-k", "all", "1", vec![fold(0, &[0.2], 0.21, &[0.2]), fold(1, &[0.2], 0.22, &[0.2])]),
            cell("top-k", "all", "2", vec![fold(0, &[0.2], 0.23, &[0.2]), fold(1, &[0.2], 0.24, &[0.2])]),
        ];
        let pts = points(&sweep, &cells);
        assert_eq!(pts.len(), 2);
        let p = &pts[0];
        assert_eq!((p.series.as_str(), p.x.as_str(), p.units.len()), ("selection=top-k", "2", 4));
        assert_eq!(p.get(CO_LAST).unwrap(), [0.35, 0.5, 0.4, 0.3]);
        assert_eq!(p.get(&co_at(1)).unwrap(), [0.3, 0.5, 0.4, 0.3]);
        assert_eq!(p.get(SUPERVISED).unwrap(), [0.21, 0.22, 0.23, 0.24], "paired by replicate and fold");
        // Mean combined error per round: r0 0.45, r1 0.375, r2 0.3875: the best is round 1.
        assert_eq!(p.best_round, 1);
        let c = p.comparisons(Some(1), 1000, 1);
        // Last round − single view: −0.15, −0.1, −0.1, −0.1; mean −0.1125; all four negative,
        // tied ranks: normal approximation.
        assert_eq!((c[0].a.as_str(), c[0].b.as_str()), (CO_LAST, SINGLE));
        assert!((c[0].difference.mean + 0.1125).abs() < 1e-12);
        assert_eq!((c[0].test.w_plus, c[0].test.w_minus, c[0].test.n), (0.0, 10.0, 4));
        // Diagnostics: 4 units × 4 additions, 3 of them in the rare class b? No: class 0 (a,
        // 97%) got 3 and class 1 (b, 3%) got 1 per unit, so a quarter are rare.
        assert_eq!((p.diagnostics.added, p.diagnostics.rare_added), (16, 4));
        assert_eq!(p.diagnostics.agreement, Some(0.5));
        // Round 0: 2 both wrong per unit where 4·2/8 = 1 expected; the last round 1 of 1.
        assert_eq!((p.diagnostics.both_wrong_r0, p.diagnostics.both_wrong_last), (Some(2.0), Some(1.0)));
        let dir = std::env::temp_dir().join(format!("parcels-lc-test-{}", std::process::id()));
        write(&sweep, &cells, &dir).unwrap();
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(md.contains("| 2 | co-training, last round − single view | -11.2"), "{md}");
        assert!(!md.contains("Main-text F1"), "no F1 section without F1 figures");
        let svg = std::fs::read_to_string(dir.join("learning-curve-selection_top-k.svg")).unwrap();
        assert!(svg.contains("95% bootstrap interval"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_sweep_of_replicates_only_pools_every_cell_into_one_point() {
        // x (the labelled budget by default) is no axis: one point, `all`, with every unit.
        let sweep: SweepConfig = toml::from_str(
            "name = \"t\"\nbase = \"demo.toml\"\n[[grid]]\nkey = \"evaluation.draw_seed\"\nvalues = [1, 2]\n[report]\nreplicate = \"evaluation.draw_seed\"\n",
        )
        .unwrap();
        let cells = vec![
            cell("top-k", "all", "1", vec![fold(0, &[0.4, 0.3], 0.5, &[0.5, 0.45]), fold(1, &[0.6, 0.5], 0.6, &[0.6, 0.6])]),
            cell("top-k", "all", "2", vec![fold(0, &[0.5, 0.4], 0.5, &[0.5, 0.5]), fold(1, &[0.3, 0.3], 0.4, &[0.4, 0.4])]),
        ];
        let pts = points(&sweep, &cells);
        assert_eq!(pts.len(), 1);
        assert_eq!((pts[0].x.as_str(), pts[0].units.len()), ("all", 4));
        assert_eq!(pts[0].get(CO_LAST).unwrap(), [0.3, 0.5, 0.4, 0.3]);
    }

    #[test]
    fn main_text_f1_is_tabled_and_compared_where_the_folds_have_it() {
        let sweep: SweepConfig = toml::from_str(
            "name = \"t\"\nbase = \"demo.toml\"\n[[grid]]\nkey = \"evaluation.budget_pages\"\nvalues = [4]\n[[grid]]\nkey = \"evaluation.draw_seed\"\nvalues = [1]\n",
        )
        .unwrap();
        let with_f1 = |f: usize, co: [f64; 2], single: f64, selft: f64| {
            let mut x = fold(f, &[0.3, 0.2], 0.3, &[0.3, 0.3]);
            x.main_text_f1 = [
                (COMBINED.to_string(), vec![Some(co[0]), Some(co[1])]),
                (SINGLE_VIEW.to_string(), vec![Some(single)]),
                (SELF_TRAINING.to_string(), vec![Some(selft), None]),
            ]
            .into_iter()
            .collect();
            x
        };
        let cells = vec![cell("top-k", "4", "1", vec![with_f1(0, [0.5, 0.8], 0.6, 0.7), with_f1(1, [0.4, 0.9], 0.7, 0.6)])];
        let pts = points(&sweep, &cells);
        let f1 = |m: &str| pts[0].f1.iter().find(|(n, _)| n == m).map(|(_, v)| v.clone()).unwrap();
        assert_eq!(f1(CO_LAST), [0.8, 0.9]);
        assert_eq!(f1(SINGLE), [0.6, 0.7]);
        // A round with no page to score is missing (NaN), never a 0 in a mean.
        assert!(f1(SELF_LAST).iter().all(|v| v.is_nan()));
        // Last round − single view: +0.2 on both units.
        let c = pts[0].f1_comparisons(None, 1000, 1);
        assert_eq!((c[0].a.as_str(), c[0].b.as_str()), (CO_LAST, SINGLE));
        assert!((c[0].difference.mean - 0.2).abs() < 1e-12);
        let dir = std::env::temp_dir().join(format!("parcels-lc-f1-{}", std::process::id()));
        write(&sweep, &cells, &dir).unwrap();
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(md.contains("### Main-text F1") && md.contains("| 4 | co-training, last round − single view | +0.200"), "{md}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
