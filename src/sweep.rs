//! Sweeps: one command runs an experiment for every cell of a grid (labelled budgets, replicate
//! seeds, selection rules, `k` …) over a base config, keeps every cell's results, and a report
//! aggregates them ([`crate::learning_curve`]).
//!
//! Input: a sweep file (TOML under `configs/`, [`SweepConfig`]): the base experiment config,
//! overrides applied to every cell (`set`, the `--set KEY=VALUE` of `parcels experiment`), and
//! the grid's axes (`[[grid]]`, a key and its values). Output: one [`CellResults`] file per cell
//! in the sweep's directory (`cells/<cell>.json`) and the aggregated report.
//!
//! Invariants: every cell's config is loaded and validated before any work starts (a bad value
//! names the cell); cells run in the grid's order (the first axis varies slowest); a cell whose
//! file exists with the same resolved config is not run again, so an interrupted sweep resumes
//! where it stopped; cells sharing `[corpus]`, `[pool]` and `[views]` share one read of the data
//! ([`crate::dataset::prepare`]) and the same folds (folds come from `seed`, which replicates do
//! not change: they set `evaluation.draw_seed`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, ExperimentConfig};
use crate::dataset::{prepare, Prepared};
use crate::experiment::{run_prepared, steps, ExperimentError, ExperimentResults};
use crate::files::write_atomic;
use crate::progress::{Event, Progress};

/// Version of the cell files (`cells/<cell>.json`).
pub const CELL_FORMAT: u32 = 1;

/// A sweep, as written in `configs/*.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The experiment config every cell starts from (relative to the sweep file).
    pub base: PathBuf,
    /// Overrides applied to every cell, as `KEY=VALUE` (`boosting.rounds=100`).
    #[serde(default)]
    pub set: Vec<String>,
    /// The grid's axes; the cells are every combination of their values.
    pub grid: Vec<Axis>,
    /// How the report reads the grid.
    #[serde(default)]
    pub report: SweepReport,
    /// The directory relative paths are resolved against; not part of the file.
    #[serde(skip)]
    pub dir: PathBuf,
}

/// One axis of a grid: a config key and the values it takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    /// A key path of the experiment config (`evaluation.budget_pages`).
    pub key: String,
    pub values: Vec<toml::Value>,
}

/// Which axes play which part in the aggregated report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepReport {
    /// The axis along the plot's x axis.
    #[serde(default = "default_x")]
    pub x: String,
    /// The axis whose values are replicates (paired with the folds as the units of a mean).
    #[serde(default = "default_replicate")]
    pub replicate: String,
    /// A co-training round named before the run (not chosen on the results) at which the
    /// co-trained learner is also compared; default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<usize>,
    /// Bootstrap resamples of the intervals.
    #[serde(default = "default_resamples")]
    pub resamples: usize,
}

impl Default for SweepReport {
    fn default() -> Self {
        SweepReport { x: default_x(), replicate: default_replicate(), round: None, resamples: default_resamples() }
    }
}

fn default_x() -> String {
    "evaluation.budget_pages".into()
}

fn default_replicate() -> String {
    "evaluation.draw_seed".into()
}

fn default_resamples() -> usize {
    10_000
}

/// Why a sweep could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("cell {cell}: {source}")]
    Config { cell: String, source: Box<ConfigError> },
    #[error("cell {cell}: {source}")]
    Run { cell: String, source: Box<ExperimentError> },
    #[error("{path}: cannot write: {message}")]
    Write { path: PathBuf, message: String },
}

/// One cell of a grid: its name and its overrides, one per axis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// `budget_pages=2,draw_seed=3,selection=top-k`: the axes' last key segments and values.
    pub name: String,
    /// `(key, value)` per axis, the value as TOML.
    pub settings: Vec<(String, String)>,
}

impl Cell {
    /// The value this cell gives `key`, as written in TOML (`2`, `"top-k"`).
    pub fn value(&self, key: &str) -> Option<&str> {
        self.settings.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The file name of the cell's results (its name with characters outside `[A-Za-z0-9._=,-]`
    /// replaced by `_`).
    pub fn file_name(&self) -> String {
        let safe: String = self.name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '=' | ',' | '-') { c } else { '_' }).collect();
        format!("{safe}.json")
    }
}

/// What a cell keeps: its settings and the experiment's results without the per-block gold and
/// predictions (every error rate and diagnostic stays), so a sweep's files stay small.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellResults {
    pub format: u32,
    pub cell: Cell,
    pub results: ExperimentResults,
    pub wall_seconds: f64,
}

impl SweepConfig {
    /// Reads and checks a sweep file (the cells' configs are checked by [`SweepConfig::cells`]).
    pub fn load(path: &Path) -> Result<SweepConfig, SweepError> {
        let text = crate::files::read_regular_to_string(path).map_err(|source| SweepError::Io { path: path.to_path_buf(), source })?;
        let mut sweep: SweepConfig = toml::from_str(&text).map_err(|e| SweepError::Invalid { path: path.to_path_buf(), message: e.to_string() })?;
        sweep.dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        let bad = |message: String| SweepError::Invalid { path: path.to_path_buf(), message };
        if sweep.grid.is_empty() {
            return Err(bad("grid: at least one axis".into()));
        }
        for a in &sweep.grid {
            if a.values.is_empty() {
                return Err(bad(format!("grid: {} has no values", a.key)));
            }
            if sweep.grid.iter().filter(|b| b.key == a.key).count() > 1 {
                return Err(bad(format!("grid: {} is an axis twice", a.key)));
            }
        }
        if sweep.report.resamples == 0 {
            return Err(bad("report.resamples must be positive".into()));
        }
        Ok(sweep)
    }

    /// The base config's path.
    pub fn base_path(&self) -> PathBuf {
        if self.base.is_absolute() {
            self.base.clone()
        } else {
            self.dir.join(&self.base)
        }
    }

    /// The grid's cells, the first axis varying slowest.
    pub fn grid_cells(&self) -> Vec<Cell> {
        let mut cells = vec![Vec::<(String, String)>::new()];
        for axis in &self.grid {
            cells = cells.into_iter().flat_map(|c| axis.values.iter().map(move |v| [c.clone(), vec![(axis.key.clone(), v.to_string())]].concat())).collect();
        }
        cells
            .into_iter()
            .map(|settings| {
                let name = settings.iter().map(|(k, v)| format!("{}={}", k.rsplit('.').next().unwrap_or(k), v.trim_matches('"'))).collect::<Vec<_>>().join(",");
                Cell { name, settings }
            })
            .collect()
    }

    /// Every cell with its resolved, validated config.
    pub fn cells(&self) -> Result<Vec<(Cell, ExperimentConfig)>, SweepError> {
        let base = self.base_path();
        self.grid_cells()
            .into_iter()
            .map(|cell| {
                let mut sets = self.set.clone();
                sets.extend(cell.settings.iter().map(|(k, v)| format!("{k}={v}")));
                let config = ExperimentConfig::load_with(&base, &sets).map_err(|e| SweepError::Config { cell: cell.name.clone(), source: Box::new(e) })?;
                Ok((cell, config))
            })
            .collect()
    }
}

/// The part of a config that decides its prepared data.
fn data_key(c: &ExperimentConfig) -> String {
    serde_json::json!([c.corpus, c.pool, c.views]).to_string()
}

/// A finished cell's results in `dir`, if its file is there and was run with `config`.
pub fn finished(dir: &Path, cell: &Cell, config: &ExperimentConfig) -> Option<CellResults> {
    let text = std::fs::read_to_string(dir.join("cells").join(cell.file_name())).ok()?;
    let done: CellResults = serde_json::from_str(&text).ok()?;
    // Compared as written (the directory a config was read from is not part of it).
    let same = serde_json::to_value(&done.results.config).ok()? == serde_json::to_value(config).ok()?;
    (done.format == CELL_FORMAT && same).then_some(done)
}

/// The cells of a sweep already finished in `dir`, in grid order (nothing is run).
pub fn finished_cells(sweep: &SweepConfig, dir: &Path) -> Result<Vec<CellResults>, SweepError> {
    Ok(sweep.cells()?.iter().filter_map(|(cell, config)| finished(dir, cell, config)).collect())
}

/// Runs every cell of a sweep not finished in `dir` and returns all cells' results in grid
/// order. Progress: one [`Event::Planned`] for the cells left, the experiments' events, and an
/// [`Event::Cell`] as each cell ends.
pub fn run(sweep: &SweepConfig, dir: &Path, progress: &dyn Progress) -> Result<Vec<CellResults>, SweepError> {
    let cells = sweep.cells()?;
    let cells_dir = dir.join("cells");
    std::fs::create_dir_all(&cells_dir).map_err(|e| SweepError::Write { path: cells_dir.clone(), message: e.to_string() })?;
    let mut out: Vec<Option<CellResults>> = cells.iter().map(|(cell, config)| finished(dir, cell, config)).collect();
    let left: Vec<usize> = (0..cells.len()).filter(|&i| out[i].is_none()).collect();
    let planned: u64 = left.iter().map(|&i| steps(&cells[i].1, crate::baselines::from_config(&cells[i].1).len())).sum();
    progress.event(&Event::Planned { steps: planned });
    let mut prepared: Option<(String, Prepared)> = None;
    let total = cells.len();
    for (n, &i) in left.iter().enumerate() {
        let (cell, config) = &cells[i];
        let key = data_key(config);
        if prepared.as_ref().is_none_or(|(k, _)| *k != key) {
            prepared.take();
            let p = prepare(config, progress).map_err(|e| SweepError::Run { cell: cell.name.clone(), source: Box::new(e.into()) })?;
            prepared = Some((key, p));
        }
        let Some((_, data)) = &prepared else { continue };
        let started = Instant::now();
        let baselines = crate::baselines::from_config(config);
        let mut results = run_prepared(config, data, &baselines, progress).map_err(|e| SweepError::Run { cell: cell.name.clone(), source: Box::new(e) })?;
        for f in &mut results.folds {
            f.gold.clear();
            f.predictions.clear();
        }
        let done = CellResults { format: CELL_FORMAT, cell: cell.clone(), results, wall_seconds: started.elapsed().as_secs_f64() };
        let path = cells_dir.join(cell.file_name());
        let json = serde_json::to_string(&done).map_err(|e| SweepError::Write { path: path.clone(), message: e.to_string() })?;
        write_atomic(&path, json.as_bytes()).map_err(|e| SweepError::Write { path: path.clone(), message: e.to_string() })?;
        progress.event(&Event::Cell { done: total - left.len() + n + 1, total, name: cell.name.clone(), seconds: done.wall_seconds });
        out[i] = Some(done);
    }
    Ok(out.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(text: &str) -> Result<SweepConfig, SweepError> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        let path = dir.join("test-sweep.toml");
        let mut s: SweepConfig = toml::from_str(text).map_err(|e| SweepError::Invalid { path: path.clone(), message: e.to_string() })?;
        s.dir = dir;
        Ok(s)
    }

    #[test]
    fn grids_expand_first_axis_slowest_and_every_cell_is_validated() {
        let s = sweep(
            r#"
name = "t"
base = "demo.toml"
set = ["cotraining.r=2"]
[[grid]]
key = "evaluation.budget_pages"
values = [1, "all"]
[[grid]]
key = "cotraining.selection"
values = ["class-proportional", "top-k"]
"#,
        )
        .unwrap();
        let names: Vec<String> = s.grid_cells().into_iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            [
                "budget_pages=1,selection=class-proportional",
                "budget_pages=1,selection=top-k",
                "budget_pages=all,selection=class-proportional",
                "budget_pages=all,selection=top-k"
            ]
        );
        let cells = s.cells().unwrap();
        assert_eq!(cells[1].1.cotraining.selection, "top-k");
        assert_eq!(cells[1].1.cotraining.r, 2);
        assert_eq!(cells[1].0.value("cotraining.selection"), Some("\"top-k\""));
        assert_eq!(cells[2].1.evaluation.budget_pages, crate::config::Budget::All);
        assert_eq!(cells[1].0.file_name(), "budget_pages=1,selection=top-k.json");
        // A bad value in one cell names the cell before anything runs.
        let bad = sweep("name = \"t\"\nbase = \"demo.toml\"\n[[grid]]\nkey = \"cotraining.selection\"\nvalues = [\"top-k\", \"best\"]\n").unwrap();
        let err = bad.cells().unwrap_err().to_string();
        assert!(err.starts_with("cell selection=best:") && err.contains("unknown"), "{err}");
    }

    #[test]
    fn a_finished_cell_is_found_only_with_the_same_config() {
        let s = sweep("name = \"t\"\nbase = \"demo.toml\"\n[[grid]]\nkey = \"evaluation.draw_seed\"\nvalues = [1]\n").unwrap();
        let (cell, config) = s.cells().unwrap().remove(0);
        let dir = std::env::temp_dir().join(format!("parcels-sweep-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("cells")).unwrap();
        let results = ExperimentResults {
            format: crate::experiment::RESULTS_FORMAT,
            parcels_version: String::new(),
            config: config.clone(),
            classes: vec![],
            report_classes: vec![],
            labelled_pages: 0,
            labelled_sites: 0,
            labelled_blocks: 0,
            class_counts: vec![],
            unlabelled_blocks_left_out: 0,
            pool_pages: 0,
            pool_blocks: 0,
            test_corpus: None,
            folds: vec![],
            wall_seconds: 0.0,
            peak_memory_mb: None,
        };
        let done = CellResults { format: CELL_FORMAT, cell: cell.clone(), results, wall_seconds: 1.0 };
        std::fs::write(dir.join("cells").join(cell.file_name()), serde_json::to_string(&done).unwrap()).unwrap();
        assert!(finished(&dir, &cell, &config).is_some());
        let mut other = config.clone();
        other.cotraining.k += 1;
        assert!(finished(&dir, &cell, &other).is_none(), "a changed config runs again");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
