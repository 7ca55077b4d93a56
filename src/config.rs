//! Experiment configuration: one TOML file (under `configs/`) says everything a run or a trained
//! model depends on: the labelled sets and their label scheme, the unlabelled pool, the divider
//! inventory, which feature groups make each view, boosting, co-training (`u`, `k`, `r`, the
//! selection rule), the baselines and the folds of the evaluation, and the context stage.
//!
//! Input: a TOML file, or a string and the directory it stands for. Output: an
//! [`ExperimentConfig`], checked once ([`ExperimentConfig::load`]): unknown keys, missing files
//! and impossible values are errors naming the file before any work starts.
//!
//! Paths in a config are relative to the directory of the config file, as in Cargo manifests,
//! so `parcels experiment /anywhere/configs/demo.toml` works from any directory.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::corpus::{LabelScheme, SchemeMapping};
use crate::divide::{Divider, DividerConfig};
use crate::views::ViewConfig;

/// An experiment, as written in `configs/*.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Seed of every random choice (folds, pool order).
    pub seed: u64,
    pub corpus: CorpusConfig,
    pub pool: PoolConfig,
    #[serde(default)]
    pub views: ViewConfig,
    pub boosting: BoostingConfig,
    pub cotraining: CoTrainingConfig,
    pub evaluation: EvaluationConfig,
    /// The context stage: a third learner over both views' probabilities of a block and its
    /// neighbours; none by default, as in the paper. See [`crate::context`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::context::ContextConfig>,
    /// The seed papers' systems' settings (`[seed_systems]`, [`crate::baselines::settings`]);
    /// the papers' values by default.
    #[serde(default, skip_serializing_if = "crate::baselines::SeedSystems::is_default")]
    pub seed_systems: crate::baselines::SeedSystems,
    /// The directory relative paths are resolved against (the config file's directory); not
    /// part of the file.
    #[serde(skip)]
    pub base: PathBuf,
}

/// The labelled blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusConfig {
    /// Directories of label files.
    pub labels: Vec<PathBuf>,
    /// Root of the corpora the label files name.
    pub corpora: PathBuf,
    /// Label scheme of the label files (a built-in name or a scheme file). A label file in
    /// another built-in scheme is carried into this one through the built-in mapping between
    /// them (`gold-text` → `l3s-gn1`), so one config can learn from corpora labelled in
    /// different schemes; a file with no such mapping is an error naming it.
    pub scheme: String,
    /// Scheme the learners are trained in, when coarser than the files' (through the built-in
    /// mapping; e.g. `song-3level` for the paper's section 7.3); default: `scheme`.
    #[serde(default)]
    pub train_scheme: Option<String>,
    /// Scheme the results are reported in (through the built-in mapping from the training
    /// scheme); default: the training scheme.
    #[serde(default)]
    pub report_scheme: Option<String>,
    /// Divider configuration (tag inventory); default: the built-in fine-grained one.
    #[serde(default)]
    pub divider: Option<PathBuf>,
    /// A sample of the labelled corpus: a file naming label files (`0001.json`), one per line
    /// (`#` starts a comment); default: every label file of `labels`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<PathBuf>,
}

/// The label file names a sample file lists (`[corpus] pages`, `[evaluation.test] pages`), in
/// its order: one per line, `#` starts a comment.
pub fn read_sample(path: &Path) -> Result<Vec<String>, std::io::Error> {
    let text = crate::files::read_regular_to_string(path)?;
    Ok(text.lines().map(|l| l.split('#').next().unwrap_or_default().trim()).filter(|l| !l.is_empty()).map(str::to_string).collect())
}

/// The unlabelled pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolConfig {
    /// Manifests: `page-in-corpus<TAB>site` per line.
    pub manifests: Vec<PathBuf>,
    /// Corpus (directory under `corpora`) of the manifests' pages.
    pub corpus: String,
    /// Root of that corpus; default: the labelled corpus's root.
    #[serde(default)]
    pub corpora: Option<PathBuf>,
}

/// Boosting rounds: a number, or `"cv"` to choose them by cross-validation on each fold's
/// training data (as the paper did).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Rounds {
    Fixed(usize),
    Chosen(String),
}

impl fmt::Display for Rounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rounds::Fixed(n) => write!(f, "{n}"),
            Rounds::Chosen(_) => f.write_str("chosen by cross-validation on each fold's training pages"),
        }
    }
}

/// The boosted learners' settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoostingConfig {
    pub rounds: Rounds,
    /// With `rounds = "cv"`: the largest round count tried and the inner folds (by page).
    #[serde(default = "default_max_rounds")]
    pub max_rounds: usize,
    #[serde(default = "default_cv_folds")]
    pub cv_folds: usize,
    /// Thresholds tried per numeric feature (quantile bins); default: the learner's (255, exact
    /// for features with at most 255 distinct values). 32 halves fitting time.
    #[serde(default)]
    pub max_bins: Option<usize>,
    /// Levels of each round's weak hypothesis: 1, the paper's stumps (default), or 2, two-level
    /// trees ([`crate::boost::AdaBoostMhParams::depth`]).
    #[serde(default = "default_depth", skip_serializing_if = "is_default_depth")]
    pub depth: usize,
    /// How much rarer classes weigh at the start of boosting: each labelled block's initial
    /// weight is multiplied by (n / (k·n_c))^`class_balance`, n_c the labelled blocks of its
    /// class c, k the classes present. 0 (default) treats blocks alike, as the paper; 1 gives
    /// every class the same total weight; 0.5 is between.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub class_balance: f64,
    /// How much longer blocks weigh at the start of boosting: each block's initial weight is
    /// multiplied by (1 + its words)^`word_weight`. Article extraction is scored on words, so a
    /// 200-word paragraph wrongly dropped costs what 200 one-word menu links cost, while by
    /// default (0, the paper's) boosting spends its rounds on the many short blocks alike; 1
    /// weighs blocks by their words. The inner folds that choose the number of rounds
    /// (`rounds = "cv"`) weigh blocks alike.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub word_weight: f64,
    /// How much smaller corpora weigh at the start of boosting: each labelled block's initial
    /// weight (after `word_weight`) is multiplied by (W / (C·W_c))^`corpus_balance`, W_c the
    /// initial weight of the training blocks of its corpus (a label file's `corpus`), C the
    /// corpora present. 0 (default) lets each corpus weigh what its blocks weigh; 1 gives every
    /// corpus the same total weight, so an era with fewer labelled pages is not drowned by a
    /// larger one. Pool blocks keep their weight.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub corpus_balance: f64,
    /// How far the stumps' votes are pulled towards 0: the smoothing ε of the stump outputs
    /// ½·ln((W₊+ε)/(W₋+ε)) is `smoothing` / (m·k), for m training blocks and k classes. 1
    /// (default) is Schapire & Singer's ε = 1/(m·k) (1999, section 4.2), which keeps a vote
    /// finite and little else: a token that a few dozen blocks of one site carry, all of one
    /// class, votes almost as loudly as the page's structure. A larger value quiets the votes
    /// of parts of the data that carry little weight (rare tokens, and the late rounds, which
    /// fit the few blocks boosting has not yet got right), a regulariser for sites the
    /// learner never saw.
    #[serde(default = "default_smoothing", skip_serializing_if = "is_default_smoothing")]
    pub smoothing: f64,
}

fn default_smoothing() -> f64 {
    1.0
}

fn is_default_smoothing(x: &f64) -> bool {
    *x == default_smoothing()
}

fn ctx_depth(c: &ExperimentConfig) -> Option<usize> {
    c.context.as_ref().and_then(|x| x.depth)
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn default_depth() -> usize {
    1
}

fn is_default_depth(d: &usize) -> bool {
    *d == default_depth()
}

fn default_max_rounds() -> usize {
    400
}

fn default_cv_folds() -> usize {
    3
}

/// Co-training (paper section 6): each round a fresh pool of `u` unlabelled blocks, each learner
/// adds `k` self-labelled blocks, for `r` rounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoTrainingConfig {
    pub u: usize,
    pub k: usize,
    pub r: usize,
    /// Which self-labelled blocks join the training set ([`crate::cotrain::SELECTIONS`]);
    /// default: the paper's `class-proportional`.
    #[serde(default = "default_selection", skip_serializing_if = "is_default_selection")]
    pub selection: String,
}

fn default_selection() -> String {
    "class-proportional".into()
}

fn is_default_selection(s: &String) -> bool {
    *s == default_selection()
}

/// How folds split the labelled pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    Page,
    Site,
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Split::Page => "page",
            Split::Site => "site",
        })
    }
}

/// Cross-validation and the baselines measured beside the co-trained learners.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluationConfig {
    pub folds: usize,
    #[serde(default = "default_split")]
    pub split: Split,
    /// Stumps of the SAMME baseline (linfa-ensemble); 0 leaves it out.
    #[serde(default = "default_samme")]
    pub samme_stumps: usize,
    /// Baselines to run, by name ([`crate::baselines::BUILT_IN`]); default: all of them (SAMME
    /// only with `samme_stumps > 0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baselines: Option<Vec<String>>,
    /// The labelled budget: each fold's training side cut to this many pages, drawn by
    /// [`EvaluationConfig::draw_seed`] (the held-out side untouched), by `parcels run` and
    /// `parcels cross-extract` alike; default: all of them.
    #[serde(default, skip_serializing_if = "Budget::is_all")]
    pub budget_pages: Budget,
    /// The pages a fold may train on: a file naming label files (`0001.json`), one per line (`#`
    /// starts a comment); each fold's training side keeps only the pages it names (before any
    /// budget), while the folds and the held-out pages stay those of the whole corpus. So two
    /// labelled sets, one inside the other, are compared on the same folds and the same test
    /// pages: whether the pages outside the list pay. Default: every page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_pages: Option<PathBuf>,
    /// The folds of an earlier run, kept: a file of `label-file<TAB>fold` lines (`0001.json\t3`,
    /// `#` starts a comment; folds count from 0). A listed page goes to its fold with the rest of
    /// its site (by page with `split = "page"`); the pages and sites it does not list are dealt
    /// to the folds with `seed` as usual. So a corpus that grew is measured on the folds of its
    /// earlier run: each old page is held out by the same fold, whose training side gains the new
    /// pages of the other folds, which pairs the two runs page by page with one new run.
    /// Default: every page dealt with `seed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folds_from: Option<PathBuf>,
    /// What becomes of the training side's pages the budget leaves out: `"unused"` (default),
    /// or `"pool"`, which makes them the unlabelled pool in place of `[pool]`, so the precision of
    /// the self-labels can be measured against their labels.
    #[serde(default, skip_serializing_if = "LeftOver::is_unused")]
    pub left_over: LeftOver,
    /// Seed of a replicate: the pages a budget keeps and the order the pool is drawn in. The
    /// folds stay those of `seed`, so replicates are paired fold by fold. Default: none (pool
    /// order from `seed`, as before budgets existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_seed: Option<u64>,
    /// A held-out test corpus (`[evaluation.test]`): with one, the folds (`folds`, `split`) cut
    /// the test corpus, not the labelled one; each fold trains on the labelled corpus (cut to
    /// `budget_pages`), takes its unlabelled pool from the test corpus's pages outside the
    /// held-out fold (their labels hidden from the learners, kept to judge the self-labels) and
    /// is scored on the held-out fold's blocks. `[pool]` must then list no manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<TestCorpusConfig>,
}

/// A test corpus from another era or source than the labelled one (`[evaluation.test]`): its
/// label files, the root of the corpora they name, and their label scheme, which must map
/// into the labelled corpus's training scheme.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCorpusConfig {
    /// Directories of the test corpus's label files.
    pub labels: Vec<PathBuf>,
    /// Root of the corpora its label files name; default: `corpus.corpora`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpora: Option<PathBuf>,
    /// Label scheme of its label files (a built-in name or a scheme file); mapped into the
    /// training scheme through the built-in mapping.
    pub scheme: String,
    /// A sample of the test corpus: a file naming label files (`0001.json`), one per line (`#`
    /// starts a comment); default: every label file of `labels`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<PathBuf>,
}

/// A labelled budget: a number of pages, or `"all"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Budget {
    /// Every page of the training side.
    #[default]
    All,
    /// This many pages of the training side (all of them if it has fewer).
    Pages(usize),
}

impl Budget {
    fn is_all(&self) -> bool {
        *self == Budget::All
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::All => f.write_str("all"),
            Budget::Pages(n) => write!(f, "{n}"),
        }
    }
}

impl Serialize for Budget {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Budget::All => s.serialize_str("all"),
            Budget::Pages(n) => s.serialize_u64(*n as u64),
        }
    }
}

impl<'de> Deserialize<'de> for Budget {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Budget, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Pages(u64),
            Word(String),
        }
        match Raw::deserialize(d)? {
            Raw::Pages(0) => Err(serde::de::Error::custom("budget_pages must be at least 1 (or \"all\")")),
            Raw::Pages(n) => Ok(Budget::Pages(n as usize)),
            Raw::Word(w) if w == "all" => Ok(Budget::All),
            Raw::Word(w) => Err(serde::de::Error::custom(format!("budget_pages = {w:?}: a number of pages or \"all\""))),
        }
    }
}

/// What the training side's pages outside the budget become.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeftOver {
    /// Left out of the fold.
    #[default]
    Unused,
    /// The fold's unlabelled pool (their labels hidden from the learners, kept for diagnostics).
    Pool,
}

impl LeftOver {
    fn is_unused(&self) -> bool {
        *self == LeftOver::Unused
    }
}

fn default_split() -> Split {
    Split::Page
}

fn default_samme() -> usize {
    200
}

/// Why a config was refused. Every variant names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

impl ExperimentConfig {
    /// Reads and validates a config: unknown keys, missing files and impossible values are
    /// errors before any work starts. Relative paths in it are relative to its directory.
    pub fn load(path: &Path) -> Result<ExperimentConfig, ConfigError> {
        let text = crate::files::read_regular_to_string(path).map_err(|source| ConfigError::Io { path: path.to_path_buf(), source })?;
        let base = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        ExperimentConfig::from_toml(&text, path, &base)
    }

    /// Reads a config with overrides (`cotraining.k=100`, `evaluation.baselines=["majority"]`):
    /// each sets one key of the file before it is checked, so an override is validated exactly
    /// like the file (an unknown key or a bad value is an error naming the override).
    pub fn load_with(path: &Path, overrides: &[String]) -> Result<ExperimentConfig, ConfigError> {
        let text = crate::files::read_regular_to_string(path).map_err(|source| ConfigError::Io { path: path.to_path_buf(), source })?;
        let base = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        let text = apply_overrides(&text, overrides).map_err(|message| ConfigError::Invalid { path: path.to_path_buf(), message })?;
        ExperimentConfig::from_toml(&text, path, &base)
    }

    /// Parses and validates a config's text; `path` names it in errors, `base` is the directory
    /// its relative paths are relative to.
    pub fn from_toml(text: &str, path: &Path, base: &Path) -> Result<ExperimentConfig, ConfigError> {
        let mut config: ExperimentConfig = toml::from_str(text).map_err(|e| ConfigError::Invalid { path: path.to_path_buf(), message: e.to_string() })?;
        config.base = base.to_path_buf();
        config.validate(path)?;
        Ok(config)
    }

    /// A path of the config, resolved against its directory.
    pub fn path(&self, p: &Path) -> PathBuf {
        if p.is_absolute() || self.base.as_os_str().is_empty() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        }
    }

    /// A path for messages: as written, and what it resolved to when that differs.
    fn shown(&self, p: &Path) -> String {
        let resolved = self.path(p);
        if resolved == p {
            p.display().to_string()
        } else {
            format!("{} (relative to {}: {})", p.display(), self.base.display(), resolved.display())
        }
    }

    /// A label scheme named in the config: a built-in name, or a scheme file relative to the
    /// config.
    pub fn scheme(&self, name: &str) -> Result<LabelScheme, crate::corpus::scheme::SchemeError> {
        match LabelScheme::built_in(name) {
            Some(s) => Ok(s),
            None => LabelScheme::load(self.path(Path::new(name))),
        }
    }

    /// The divider inventory the config names (or the built-in fine-grained one).
    pub fn divider_config(&self) -> Result<DividerConfig, crate::divide::ConfigError> {
        match &self.corpus.divider {
            Some(p) => DividerConfig::load(self.path(p)),
            None => Ok(DividerConfig::default()),
        }
    }

    /// The divider the config names.
    pub fn divider(&self) -> Result<Divider, crate::divide::ConfigError> {
        Ok(Divider::new(self.divider_config()?))
    }

    /// Whether the config's context stage sees the element tree (`[context] structure`): its
    /// learner then needs each block's container path.
    pub fn context_structure(&self) -> bool {
        self.context.as_ref().is_some_and(|c| c.structure)
    }

    /// Whether the config's context stage sees the whole page (`[context] page`).
    pub fn context_page(&self) -> bool {
        self.context.as_ref().is_some_and(|c| c.page)
    }

    /// Which of a block's own view columns the config's context stage sees (`[context]
    /// block_columns`); none without a context stage.
    pub fn context_block_columns(&self) -> crate::context::BlockColumns {
        self.context.as_ref().map(|c| c.block_columns).unwrap_or_default()
    }

    /// Whether the context stage sees the neighbouring blocks' numeric view columns
    /// (`[context] neighbour_columns`); false without a stage.
    pub fn context_neighbour_columns(&self) -> bool {
        self.context.as_ref().is_some_and(|c| c.neighbour_columns)
    }

    /// What the config's context stage builds its columns from (`[context] page`,
    /// `block_columns`, `neighbour_columns`), given the blocks' container paths for the
    /// element-tree columns; all off without a stage. Training, cross-validation and
    /// extraction build the stage's columns from this one place, so they cannot drift apart.
    pub fn context_inputs<'a>(&self, containers: Option<&'a [&'a str]>) -> crate::context::ContextInputs<'a> {
        crate::context::ContextInputs {
            containers,
            page: self.context_page(),
            block_columns: self.context_block_columns(),
            neighbour_columns: self.context_neighbour_columns(),
        }
    }

    /// How the context stage's answer is combined with the views' (`[context] keep_agreement`,
    /// `choose_from_views`); the default when there is no context stage.
    pub fn context_arbitration(&self) -> crate::context::Arbitration {
        self.context.as_ref().map(|c| c.arbitration()).unwrap_or_default()
    }

    /// The co-training selection rule the config names.
    pub fn selection(&self) -> Option<&'static dyn crate::cotrain::Selection> {
        crate::cotrain::selection_by_name(&self.cotraining.selection)
    }

    /// Checks every value and every path; `path` names the config in errors.
    pub fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let bad = |message: String| ConfigError::Invalid { path: path.to_path_buf(), message };
        if self.evaluation.folds < 2 {
            return Err(bad(format!("evaluation.folds = {}: cross-validation needs at least 2 folds", self.evaluation.folds)));
        }
        if self.evaluation.left_over == LeftOver::Pool && self.evaluation.budget_pages == Budget::All {
            return Err(bad("evaluation.left_over = \"pool\" needs evaluation.budget_pages: with all pages kept, nothing is left over".into()));
        }
        let c = &self.cotraining;
        if c.u == 0 || c.k == 0 {
            return Err(bad(format!("cotraining: u ({}) and k ({}) must be positive", c.u, c.k)));
        }
        if c.k > c.u {
            return Err(bad(format!("cotraining: k ({}) cannot exceed u ({})", c.k, c.u)));
        }
        if self.selection().is_none() {
            let known: Vec<&str> = crate::cotrain::SELECTIONS.iter().map(|s| s.name()).collect();
            return Err(bad(format!("cotraining.selection = {:?}: unknown (known: {})", c.selection, known.join(", "))));
        }
        if let Some(names) = &self.evaluation.baselines {
            for n in names {
                if crate::baselines::by_name(n, self).is_none() {
                    let known: Vec<&str> = crate::baselines::BUILT_IN.iter().map(|(n, _)| *n).collect();
                    return Err(bad(format!("evaluation.baselines: unknown baseline {n:?} (known: {})", known.join(", "))));
                }
            }
        }
        self.seed_systems.check().map_err(&bad)?;
        if let Some(ctx) = &self.context {
            if ctx.rounds == 0 || ctx.folds < 2 {
                return Err(bad(format!("context: rounds ({}) must be positive and folds ({}) at least 2", ctx.rounds, ctx.folds)));
            }
        }
        let b = &self.boosting;
        if !(1..=2).contains(&b.depth) || ctx_depth(self).is_some_and(|d| !(1..=2).contains(&d)) {
            return Err(bad("boosting.depth and context.depth must be 1 (stumps) or 2 (two-level trees)".into()));
        }
        if let Some(splits) = self.context.as_ref().and_then(|c| c.splits) {
            let max = crate::boost::MAX_SPLITS;
            if !(1..=max).contains(&splits) {
                return Err(bad(format!("context.splits = {splits}: must be from 1 (stumps) to {max} tests per tree")));
            }
            if splits > 1 && ctx_depth(self).unwrap_or(b.depth) > 1 {
                return Err(bad(format!("context.splits = {splits} grows Hamming trees, which exclude two-level trees: set context.depth = 1")));
            }
        }
        if !(b.word_weight.is_finite() && (0.0..=1.0).contains(&b.word_weight)) {
            return Err(bad(format!("boosting.word_weight = {}: must be between 0 (blocks alike) and 1 (blocks weigh their words)", b.word_weight)));
        }
        if !(b.corpus_balance.is_finite() && (0.0..=1.0).contains(&b.corpus_balance)) {
            return Err(bad(format!("boosting.corpus_balance = {}: must be between 0 (blocks alike) and 1 (corpora alike)", b.corpus_balance)));
        }
        if !(b.smoothing.is_finite() && b.smoothing > 0.0) {
            return Err(bad(format!("boosting.smoothing = {}: must be a number above 0 (1 is the learner's own ε = 1/(m·k))", b.smoothing)));
        }
        if !(b.class_balance.is_finite() && (0.0..=1.0).contains(&b.class_balance)) {
            return Err(bad(format!("boosting.class_balance = {}: must be between 0 (blocks alike) and 1 (classes alike)", b.class_balance)));
        }
        match &self.boosting.rounds {
            Rounds::Fixed(0) => return Err(bad("boosting.rounds must be at least 1".into())),
            Rounds::Chosen(s) if s != "cv" => return Err(bad(format!("boosting.rounds = {s:?}: a number or \"cv\""))),
            Rounds::Chosen(_) if self.boosting.max_rounds == 0 || self.boosting.cv_folds < 2 => {
                return Err(bad("boosting.max_rounds must be positive and boosting.cv_folds at least 2".into()))
            }
            _ => {}
        }
        let mut scheme = self.scheme(&self.corpus.scheme).map_err(|e| bad(e.to_string()))?;
        if let Some(t) = &self.corpus.train_scheme {
            let to = self.scheme(t).map_err(|e| bad(e.to_string()))?;
            if to.name != scheme.name && SchemeMapping::between(&scheme, &to).is_none() {
                return Err(bad(format!("no built-in mapping from {} to {}", scheme.name, to.name)));
            }
            scheme = to;
        }
        if let Some(r) = &self.corpus.report_scheme {
            let to = self.scheme(r).map_err(|e| bad(e.to_string()))?;
            if to.name != scheme.name && SchemeMapping::between(&scheme, &to).is_none() {
                return Err(bad(format!("no built-in mapping from {} to {}", scheme.name, to.name)));
            }
        }
        for dir in &self.corpus.labels {
            if !self.path(dir).is_dir() {
                return Err(bad(format!("corpus.labels: {} is not a directory", self.shown(dir))));
            }
        }
        self.check_sample(&self.corpus.labels, self.corpus.pages.as_deref(), "corpus.pages", "corpus.labels").map_err(bad)?;
        self.check_sample(&self.corpus.labels, self.evaluation.train_pages.as_deref(), "evaluation.train_pages", "corpus.labels").map_err(bad)?;
        if let Some(p) = &self.evaluation.folds_from {
            read_folds(&self.path(p), self.evaluation.folds).map_err(|e| bad(format!("evaluation.folds_from: {}: {e}", self.shown(p))))?;
        }
        if !self.path(&self.corpus.corpora).is_dir() {
            return Err(bad(format!("corpus.corpora: {} is not a directory", self.shown(&self.corpus.corpora))));
        }
        for m in &self.pool.manifests {
            if !self.path(m).is_file() {
                return Err(bad(format!("pool.manifests: {} not found", self.shown(m))));
            }
        }
        match &self.evaluation.test {
            None if self.pool.manifests.is_empty() => {
                return Err(bad(
                    "pool.manifests is empty: the unlabelled pool needs at least one manifest (or an [evaluation.test] corpus to draw it from)".into()
                ))
            }
            None => {}
            Some(t) => self.validate_test(t, &scheme).map_err(bad)?,
        }
        self.divider_config().map_err(|e| bad(e.to_string()))?;
        Ok(())
    }
}

impl ExperimentConfig {
    /// Checks a test corpus: its directories, its sample file, its scheme's mapping into the
    /// training scheme `train`, and the settings it excludes.
    fn validate_test(&self, t: &TestCorpusConfig, train: &LabelScheme) -> Result<(), String> {
        if !self.pool.manifests.is_empty() {
            return Err("[evaluation.test]: pool.manifests must be empty (each fold's pool is the test corpus's pages outside the held-out fold)".into());
        }
        if self.evaluation.left_over == LeftOver::Pool {
            return Err("[evaluation.test]: evaluation.left_over = \"pool\" cannot be used with a test corpus (the pool is the test corpus's)".into());
        }
        let from = self.scheme(&t.scheme).map_err(|e| format!("evaluation.test.scheme: {e}"))?;
        if from.name != train.name && SchemeMapping::between(&from, train).is_none() {
            return Err(format!("evaluation.test.scheme: no built-in mapping from {} to the training scheme {}", from.name, train.name));
        }
        if t.labels.is_empty() {
            return Err("evaluation.test.labels: no directory given".into());
        }
        for dir in &t.labels {
            if !self.path(dir).is_dir() {
                return Err(format!("evaluation.test.labels: {} is not a directory", self.shown(dir)));
            }
        }
        let root = t.corpora.as_ref().unwrap_or(&self.corpus.corpora);
        if !self.path(root).is_dir() {
            return Err(format!("evaluation.test.corpora: {} is not a directory", self.shown(root)));
        }
        self.check_sample(&t.labels, t.pages.as_deref(), "evaluation.test.pages", "evaluation.test.labels")
    }

    /// Checks a sample file (the setting `key`): it names at least one label file, each in one
    /// of `dirs` (the setting `dirs_key`).
    fn check_sample(&self, dirs: &[PathBuf], pages: Option<&Path>, key: &str, dirs_key: &str) -> Result<(), String> {
        let Some(p) = pages else { return Ok(()) };
        let names = read_sample(&self.path(p)).map_err(|e| format!("{key}: {}: {e}", self.shown(p)))?;
        if names.is_empty() {
            return Err(format!("{key}: {} names no label file", self.shown(p)));
        }
        for n in &names {
            if !dirs.iter().any(|d| self.path(d).join(n).is_file()) {
                return Err(format!("{key}: {} names {n}, which is in none of {dirs_key}", self.shown(p)));
            }
        }
        Ok(())
    }
}

/// The folds an `[evaluation] folds_from` file gives: label file stem (`0001` for `0001.json`)
/// to fold, each below `folds`; the error says which line is wrong and why.
pub fn read_folds(path: &Path, folds: usize) -> Result<std::collections::BTreeMap<String, usize>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut out = std::collections::BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {}: {why}: {line:?}", n + 1);
        let (name, fold) = line.split_once('\t').ok_or_else(|| bad("expected label-file<TAB>fold"))?;
        let fold: usize = fold.trim().parse().map_err(|_| bad("the fold is not a number"))?;
        if fold >= folds {
            return Err(bad(&format!("fold {fold}, but evaluation.folds = {folds} (folds count from 0)")));
        }
        let stem = Path::new(name.trim()).file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        if out.insert(stem, fold).is_some_and(|f| f != fold) {
            return Err(bad("the page is listed twice with different folds"));
        }
    }
    if out.is_empty() {
        return Err("names no page".to_string());
    }
    Ok(out)
}

/// Sets `key.path=value` overrides in a config's TOML text. A value is read as a TOML value
/// (`100`, `"cv"`, `[\"majority\"]`, `true`); anything that is not one is taken as a string, so
/// `cotraining.selection=top-k` works without quotes.
pub fn apply_overrides(text: &str, overrides: &[String]) -> Result<String, String> {
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    let mut doc: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    for o in overrides {
        let (key, value) = o.split_once('=').ok_or_else(|| format!("--set {o}: expected KEY=VALUE, e.g. cotraining.k=100"))?;
        let parts: Vec<&str> = key.trim().split('.').map(str::trim).collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(format!("--set {o}: {key:?} is not a key path like cotraining.k"));
        }
        let value = value.trim();
        let value = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
            Ok(mut t) => t.remove("v").unwrap_or_else(|| toml::Value::String(value.to_string())),
            Err(_) => toml::Value::String(value.to_string()),
        };
        let (last, tables) = parts.split_last().ok_or_else(|| format!("--set {o}: empty key"))?;
        let mut table = &mut doc;
        for t in tables {
            let entry = table.entry(t.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            table = entry.as_table_mut().ok_or_else(|| format!("--set {o}: {t} is not a table"))?;
        }
        table.insert(last.to_string(), value);
    }
    toml::to_string(&doc).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_config_file() {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        let text = std::fs::read_to_string(base.join("demo.toml")).unwrap();
        let c = ExperimentConfig::from_toml(&text, &base.join("demo.toml"), &base).unwrap();
        assert_eq!(c.path(Path::new("../corpora")), base.join("../corpora"));
        assert_eq!(c.path(Path::new("/abs")), Path::new("/abs"));
        // The same text read as if it sat elsewhere names what its paths resolved to.
        let elsewhere = std::env::temp_dir();
        let err = ExperimentConfig::from_toml(&text, &elsewhere.join("demo.toml"), &elsewhere).unwrap_err().to_string();
        assert!(err.contains(&format!("relative to {}", elsewhere.display())), "{err}");
    }

    #[test]
    fn overrides_set_keys_and_are_validated_like_the_file() {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        let path = base.join("demo.toml");
        let sets = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let c = ExperimentConfig::load_with(&path, &sets(&["cotraining.k=20", "cotraining.selection=top-k", "boosting.rounds=\"cv\""])).unwrap();
        assert_eq!((c.cotraining.k, c.cotraining.selection.as_str()), (20, "top-k"));
        assert_eq!(c.boosting.rounds, Rounds::Chosen("cv".into()));
        let c = ExperimentConfig::load_with(&path, &sets(&["evaluation.baselines=[\"majority\"]", "context.rounds=5"])).unwrap();
        assert_eq!(c.evaluation.baselines, Some(vec!["majority".to_string()]));
        assert_eq!(c.context.map(|x| x.rounds), Some(5));
        let err = |s: &[&str]| ExperimentConfig::load_with(&path, &sets(s)).unwrap_err().to_string();
        assert!(err(&["cotraining.k=1000"]).contains("cannot exceed u"));
        assert!(err(&["cotraining.lambda=3"]).contains("lambda"));
        assert!(err(&["cotraining"]).contains("expected KEY=VALUE"));
        assert!(err(&["seed.x=1"]).contains("seed is not a table"));
        let c = ExperimentConfig::load_with(&path, &sets(&["boosting.depth=2", "context.rounds=5", "context.depth=1", "boosting.class_balance=0.5"])).unwrap();
        assert_eq!((c.boosting.depth, c.context.and_then(|x| x.depth), c.boosting.class_balance), (2, Some(1), 0.5));
        assert!(err(&["boosting.depth=3"]).contains("must be 1 (stumps) or 2"));
        assert!(err(&["context.rounds=5", "context.depth=0"]).contains("must be 1 (stumps) or 2"));
        assert!(err(&["context.rounds=5", "context.splits=0"]).contains("context.splits = 0"));
        assert!(err(&["context.rounds=5", "context.splits=65"]).contains("context.splits = 65"));
        assert!(err(&["context.rounds=5", "context.splits=4", "context.depth=2"]).contains("exclude two-level trees"));
        let c = ExperimentConfig::load_with(&path, &sets(&["context.rounds=5", "context.splits=4", "context.neighbour_columns=true"])).unwrap();
        assert_eq!(c.context.map(|x| (x.splits, x.neighbour_columns)), Some((Some(4), true)));
        let c = ExperimentConfig::load_with(&path, &sets(&["context.rounds=5", "context.structure=true", "context.split=\"site\""])).unwrap();
        assert_eq!(c.context.map(|x| (x.structure, x.split)), Some((true, Split::Site)));
        assert!(err(&["context.rounds=5", "context.split=\"domain\""]).contains("domain"));
        let c = ExperimentConfig::load_with(&path, &sets(&["context.rounds=5", "context.block_columns=\"stylistic\""])).unwrap();
        assert_eq!(c.context_block_columns(), crate::context::BlockColumns::Stylistic);
        assert!(err(&["context.rounds=5", "context.block_columns=\"words\""]).contains("words"));
        assert!(err(&["boosting.class_balance=1.5"]).contains("between 0"));
        assert!(err(&["boosting.word_weight=-0.5"]).contains("word_weight"));
        assert!(err(&["boosting.corpus_balance=2"]).contains("corpus_balance"));
        assert!(err(&["boosting.smoothing=0"]).contains("smoothing"));
        assert!(ExperimentConfig::load_with(&path, &sets(&["context.rounds=5", "context.keep_agreement=true"])).unwrap().context_arbitration().keep_agreement);
        assert_eq!(ExperimentConfig::load_with(&path, &sets(&["boosting.word_weight=0.5"])).unwrap().boosting.word_weight, 0.5);
    }

    #[test]
    fn budgets_read_as_pages_or_all_and_left_over_pages_need_a_budget() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/demo.toml");
        let sets = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let c = ExperimentConfig::load(&path).unwrap();
        assert_eq!((c.evaluation.budget_pages, c.evaluation.left_over, c.evaluation.draw_seed), (Budget::All, LeftOver::Unused, None));
        let c = ExperimentConfig::load_with(&path, &sets(&["evaluation.budget_pages=4", "evaluation.draw_seed=3", "evaluation.left_over=pool"])).unwrap();
        assert_eq!((c.evaluation.budget_pages, c.evaluation.left_over, c.evaluation.draw_seed), (Budget::Pages(4), LeftOver::Pool, Some(3)));
        let c = ExperimentConfig::load_with(&path, &sets(&["evaluation.budget_pages=all"])).unwrap();
        assert_eq!(c.evaluation.budget_pages, Budget::All);
        assert_eq!((Budget::All.to_string(), Budget::Pages(2).to_string()), ("all".to_string(), "2".to_string()));
        let err = |s: &[&str]| ExperimentConfig::load_with(&path, &sets(s)).unwrap_err().to_string();
        assert!(err(&["evaluation.budget_pages=0"]).contains("at least 1"));
        assert!(err(&["evaluation.budget_pages=most"]).contains("\"most\""));
        assert!(err(&["evaluation.left_over=pool"]).contains("needs evaluation.budget_pages"));
        let missing = err(&["evaluation.train_pages=no-such-list.txt"]);
        assert!(missing.contains("evaluation.train_pages") && missing.contains("no-such-list.txt"), "{missing}");
        // A folds file is read when the config is: a bad line is named with the file.
        let folds = std::env::temp_dir().join(format!("parcels-folds-{}.tsv", std::process::id()));
        for (text, why) in [
            ("a.json\t4\n", "fold 4, but evaluation.folds = 4"),
            ("a.json 1\n", "line 1: expected"),
            ("a.json\tone\n", "not a number"),
            ("# none\n", "names no page"),
        ] {
            std::fs::write(&folds, text).unwrap();
            let e = err(&[&format!("evaluation.folds_from={}", folds.display())]);
            assert!(e.contains("evaluation.folds_from") && e.contains(why), "{e}");
        }
        std::fs::write(&folds, "a.json\t1\nb.json\t3 # kept\n").unwrap();
        assert_eq!(read_folds(&folds, 4).unwrap().into_iter().collect::<Vec<_>>(), [("a".to_string(), 1), ("b".to_string(), 3)]);
        std::fs::remove_file(&folds).ok();
        // The default budget is not written back, so configs without one serialise as before.
        let text = toml::to_string(&ExperimentConfig::load(&path).unwrap()).unwrap();
        assert!(!text.contains("budget_pages") && !text.contains("draw_seed"), "{text}");
    }

    #[test]
    fn values_read_as_words_in_reports() {
        assert_eq!(Rounds::Fixed(100).to_string(), "100");
        assert_eq!(Split::Site.to_string(), "site");
    }
}
