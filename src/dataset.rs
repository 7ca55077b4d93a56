//! A config's data: its labelled blocks (both views, gold class in the training scheme, page and
//! site of each) and its unlabelled pool (both views), read once and shared by every fold of an
//! experiment, by `parcels train` and by cross-validated extraction.
//!
//! Input: an [`ExperimentConfig`]. Output: [`Prepared`]. Pages are read and their views built in
//! parallel, and put together in the order of the label files (sorted) and of the manifests, so
//! the same config gives the same rows.
//!
//! A config with a held-out test corpus (`[evaluation.test]`) also reads it, mapped into the
//! training scheme ([`Prepared::test`]); its blocks are then the pool. `[corpus] pages` and
//! `[evaluation.test] pages` restrict either corpus to a sample of its label files. The folds
//! are checked against the label files before any page is read.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::config::{ConfigError, ExperimentConfig, Split};
use crate::corpus::scheme::SchemeError;
use crate::corpus::{label_files, load_labelled_into, CorpusError, LabelScheme, Manifest, SchemeMapping};
use crate::cotrain::TwoViews;
use crate::divide::Divider;
use crate::lexical::{IdfError, IdfTable};
use crate::matrix::MatrixError;
use crate::page::{LoadOptions, Page, PageError};
use crate::progress::{Event, Loaded, Progress, Stage};
use crate::stylistic::StyleOptions;
use crate::views::{ViewBuilder, ViewError};

/// Why a config's data could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Scheme(#[from] SchemeError),
    #[error(transparent)]
    Divider(#[from] crate::divide::ConfigError),
    #[error(transparent)]
    Idf(#[from] IdfError),
    #[error(transparent)]
    Labels(#[from] CorpusError),
    #[error(transparent)]
    Page(#[from] PageError),
    #[error("{path}: {source}")]
    View { path: PathBuf, source: ViewError },
    /// The config's `[views]` names groups the registry does not have.
    #[error("views: {0}")]
    Views(ViewError),
    #[error(transparent)]
    Manifest(#[from] crate::corpus::ManifestError),
    #[error("no built-in mapping from scheme {from} to {to}")]
    NoMapping { from: String, to: String },
    #[error("no labelled pages in {dirs}")]
    NoLabelledPages { dirs: String },
    /// A pool page's views do not have one row per block of its division.
    #[error("{path}: {blocks} blocks but {rows} feature rows")]
    PoolRows { path: PathBuf, blocks: usize, rows: usize },
    #[error("the unlabelled pool is empty")]
    EmptyPool,
    #[error("evaluation.folds = {folds}, but the {corpus} has only {groups} {split}s: every fold needs at least one")]
    TooManyFolds { folds: usize, groups: usize, split: Split, corpus: &'static str },
    #[error(transparent)]
    Matrix(#[from] MatrixError),
    /// `[evaluation] folds_from` cannot be followed.
    #[error("evaluation.folds_from: {path}: {problem}")]
    FoldsFrom { path: String, problem: String },
}

/// The labelled blocks of a config and the page (and site) of each.
pub struct LabelledData {
    pub views: TwoViews,
    /// Class index (training scheme) per block.
    pub targets: Vec<usize>,
    /// Page index per block, and the pages' names and sites.
    pub page_of: Vec<usize>,
    pub pages: Vec<(String, String)>,
    /// The corpus page behind each labelled page, in the order of `pages`.
    pub page_paths: Vec<PathBuf>,
    /// The corpus each labelled page belongs to (its label file's `corpus`), in the order of
    /// `pages`.
    pub page_corpora: Vec<String>,
    /// Blocks per class.
    pub class_counts: Vec<usize>,
    /// Labelled pages' blocks without a majority label (left out).
    pub unlabelled_blocks: usize,
    /// What the seed papers' baselines read beyond the two views, one per block (row).
    pub blocks: Vec<BlockInfo>,
}

/// A labelled block as the seed papers' systems see it ([`crate::baselines`]): its text, where
/// it sits in the DOM and in document order, and its word and link counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockInfo {
    /// The block's text (whitespace collapsed).
    pub text: String,
    /// Its position among its page's blocks in document order (from 0, before unlabelled blocks
    /// are left out).
    pub position: usize,
    /// Element path of its container, such as `/html[1]/body[1]/div[3]/p[2]`.
    pub container: String,
    /// Tag names from the root down to its container, such as `html/body/div/p`.
    pub tag_path: String,
    /// The innermost element holding all its text (the last step of its locator, without the
    /// index): the most recent unclosed tag before its text.
    pub tag: String,
    /// Words, and words inside hyperlinks.
    pub words: usize,
    pub link_words: usize,
}

impl BlockInfo {
    /// The seed baselines' view of block `b` of a division.
    pub fn of(block: &crate::divide::Block) -> BlockInfo {
        let last = block.locator.rsplit('/').next().unwrap_or_default();
        BlockInfo {
            text: block.text.clone(),
            position: block.id,
            container: block.container.clone(),
            tag_path: block.container_path.clone(),
            tag: last.split('[').next().unwrap_or_default().to_ascii_lowercase(),
            words: block.words,
            link_words: block.links.iter().map(|l| crate::divide::count_words(&l.text)).sum(),
        }
    }
}

impl LabelledData {
    /// Rows of this corpus taken as an unlabelled pool (the test corpus outside a held-out fold,
    /// or the pages a budget leaves over), as the seed papers' systems see them.
    pub fn pool_blocks(&self, rows: &[usize]) -> PoolBlocks {
        PoolBlocks {
            blocks: rows.iter().filter_map(|&r| self.blocks.get(r).cloned()).collect(),
            page_of: rows.iter().filter_map(|&r| self.page_of.get(r).copied()).collect(),
            sites: self.pages.iter().map(|(name, site)| if site.is_empty() { name.clone() } else { site.clone() }).collect(),
        }
    }

    /// The group of each block that cross-validation keeps whole: its page, or its site (pages
    /// without a site are their own site).
    pub fn groups(&self, split: Split) -> Vec<usize> {
        match split {
            Split::Page => self.page_of.clone(),
            Split::Site => {
                let mut site_ids: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
                let page_site: Vec<usize> = self
                    .pages
                    .iter()
                    .map(|(name, site)| {
                        let key = if site.is_empty() { name.as_str() } else { site.as_str() };
                        let n = site_ids.len();
                        *site_ids.entry(key).or_insert(n)
                    })
                    .collect();
                self.page_of.iter().map(|&p| page_site[p]).collect()
            }
        }
    }

    /// The rows of each cross-validation fold of `config` (`[evaluation] folds`, `split`, `seed`
    /// and `folds_from`): each page, or each site, whole in one fold.
    pub fn folds(&self, config: &ExperimentConfig) -> Result<Vec<Vec<usize>>, DataError> {
        let ev = &config.evaluation;
        let groups = self.groups(ev.split);
        let mut pinned = std::collections::BTreeMap::new();
        if let Some(p) = &ev.folds_from {
            let path = config.path(p);
            let problem = |problem: String| DataError::FoldsFrom { path: path.display().to_string(), problem };
            let listed = crate::config::read_folds(&path, ev.folds).map_err(problem)?;
            let mut first_row = vec![None; self.pages.len()];
            for (r, &p) in self.page_of.iter().enumerate() {
                first_row[p].get_or_insert(r);
            }
            for (p, (name, site)) in self.pages.iter().enumerate() {
                let (Some(&fold), Some(r)) = (listed.get(name), first_row[p]) else { continue };
                if let Some(other) = pinned.insert(groups[r], fold).filter(|&f| f != fold) {
                    return Err(problem(format!("the pages of site {site} are in folds {other} and {fold}; a site is held out whole")));
                }
            }
        }
        Ok(crate::boost::folds_by_group_pinned(&groups, ev.folds, config.seed, &pinned))
    }
}

/// What an experiment and a trained model both start from: the divider and view builder of the
/// config, the training scheme, the labelled blocks (targets in training classes) and the
/// unlabelled pool.
pub struct Prepared {
    pub divider: Divider,
    pub builder: ViewBuilder,
    /// The scheme the learners are trained in.
    pub scheme: LabelScheme,
    pub data: LabelledData,
    pub pool: TwoViews,
    pub pool_pages: usize,
    /// What the seed papers' baselines read of the pool's blocks (row for row with `pool`),
    /// with each block's pool page and each page's site.
    pub pool_blocks: PoolBlocks,
    /// The held-out test corpus (`[evaluation.test]`), targets in the training scheme; its
    /// blocks are also `pool` (each experiment fold takes the pages outside its held-out fold).
    pub test: Option<LabelledData>,
    /// Per labelled page (in the order of `data.pages`): whether a fold may train on it
    /// (`[evaluation] train_pages`); `None`: every page.
    pub trainable: Option<Vec<bool>>,
}

impl Prepared {
    /// The rows of a fold's training side that `[evaluation] train_pages` lets it train on, in
    /// order (all of them without that setting).
    pub fn trainable_rows(&self, side: Vec<usize>) -> Vec<usize> {
        match &self.trainable {
            None => side,
            Some(ok) => side.into_iter().filter(|&r| ok[self.data.page_of[r]]).collect(),
        }
    }
}

/// The view builder of a config: its feature groups, the shipped IDF table.
pub fn view_builder(config: &ExperimentConfig) -> Result<ViewBuilder, DataError> {
    let idf = IdfTable::dragnet()?;
    ViewBuilder::new(&config.views, idf, StyleOptions::default()).map_err(DataError::Views)
}

/// Loads a config's labelled data and pool, mapped into its training scheme.
pub fn prepare(config: &ExperimentConfig, progress: &dyn Progress) -> Result<Prepared, DataError> {
    let label_scheme = config.scheme(&config.corpus.scheme)?;
    let (scheme, train_map) = match &config.corpus.train_scheme {
        Some(t) if t != &label_scheme.name => {
            let to = config.scheme(t)?;
            let m = SchemeMapping::between(&label_scheme, &to).ok_or_else(|| DataError::NoMapping { from: label_scheme.name.clone(), to: t.clone() })?;
            (to.clone(), Some(m.index_table(&label_scheme, &to)))
        }
        _ => (label_scheme.clone(), None),
    };
    let divider = config.divider()?;
    let builder = view_builder(config)?;
    // Before any page is read: every fold must hold a page (or site) of the corpus the folds
    // cut, or its figures would be zeros averaged into the others.
    let files = sampled_files(config, &config.corpus.labels, config.corpus.pages.as_deref())?;
    let folded = match &config.evaluation.test {
        Some(t) => sampled_files(config, &t.labels, t.pages.as_deref())?,
        None => files.clone(),
    };
    check_folds(config, &folded)?;
    progress.event(&Event::Stage { fold: None, stage: Stage::LoadingLabelled });
    let mut data = load_labelled_files(&files, &config.path(&config.corpus.corpora), &divider, &builder, &label_scheme)
        .map_err(|e| no_pages(e, &config.corpus.labels, config))?;
    if let Some(t) = &train_map {
        remap(&mut data, t, scheme.len());
    }
    progress.event(&Event::Loaded { what: Loaded::Labelled, pages: data.pages.len(), blocks: data.targets.len() });
    let trainable = trainable_pages(config, &data)?;
    if let Some(t) = &config.evaluation.test {
        // The test corpus is both the pool (outside each held-out fold) and the held-out blocks.
        progress.event(&Event::Stage { fold: None, stage: Stage::LoadingPool });
        let from = config.scheme(&t.scheme)?;
        let root = config.path(t.corpora.as_ref().unwrap_or(&config.corpus.corpora));
        let mut test = load_labelled_files(&folded, &root, &divider, &builder, &from).map_err(|e| no_pages(e, &t.labels, config))?;
        if from.name != scheme.name {
            let m = SchemeMapping::between(&from, &scheme).ok_or_else(|| DataError::NoMapping { from: from.name.clone(), to: scheme.name.clone() })?;
            remap(&mut test, &m.index_table(&from, &scheme), scheme.len());
        }
        progress.event(&Event::Loaded { what: Loaded::Pool, pages: test.pages.len(), blocks: test.targets.len() });
        check_groups(config, test.groups(config.evaluation.split))?;
        let pool = test.views.clone();
        let pool_pages = test.pages.len();
        let pool_blocks = test.pool_blocks(&(0..test.targets.len()).collect::<Vec<_>>());
        return Ok(Prepared { divider, builder, scheme, data, pool, pool_pages, pool_blocks, test: Some(test), trainable });
    }
    check_groups(config, data.groups(config.evaluation.split))?;
    progress.event(&Event::Stage { fold: None, stage: Stage::LoadingPool });
    let (pool, pool_blocks) = load_pool(config, &divider, &builder, &data.page_paths, progress)?;
    let pool_pages = pool_blocks.sites.len();
    progress.event(&Event::Loaded { what: Loaded::Pool, pages: pool_pages, blocks: pool.n_rows() });
    Ok(Prepared { divider, builder, scheme, data, pool, pool_pages, pool_blocks, test: None, trainable })
}

/// Which labelled pages `[evaluation] train_pages` names (by label file name), one flag per page.
fn trainable_pages(config: &ExperimentConfig, data: &LabelledData) -> Result<Option<Vec<bool>>, DataError> {
    let Some(p) = &config.evaluation.train_pages else { return Ok(None) };
    let path = config.path(p);
    let names: std::collections::BTreeSet<String> = crate::config::read_sample(&path)
        .map_err(|source| ConfigError::Io { path: path.clone(), source })?
        .iter()
        .map(|n| Path::new(n).file_stem().and_then(|s| s.to_str()).unwrap_or(n).to_string())
        .collect();
    Ok(Some(data.pages.iter().map(|(name, _)| names.contains(name)).collect()))
}

/// Maps a corpus's targets through a scheme mapping's index table and recounts its classes.
fn remap(data: &mut LabelledData, table: &[usize], classes: usize) {
    data.targets.iter_mut().for_each(|c| *c = table[*c]);
    data.class_counts = vec![0; classes];
    for &c in &data.targets {
        data.class_counts[c] += 1;
    }
}

/// Names the directories of a corpus that turned out to hold no labelled page.
fn no_pages(e: DataError, dirs: &[PathBuf], config: &ExperimentConfig) -> DataError {
    match e {
        DataError::NoLabelledPages { .. } => {
            DataError::NoLabelledPages { dirs: dirs.iter().map(|d| config.path(d).display().to_string()).collect::<Vec<_>>().join(", ") }
        }
        e => e,
    }
}

/// The label files of some directories of a config, sorted within each directory.
fn config_label_files(dirs: &[PathBuf], config: &ExperimentConfig) -> Result<Vec<PathBuf>, DataError> {
    let mut files = Vec::new();
    for dir in dirs {
        files.extend(label_files(&config.path(dir))?);
    }
    Ok(files)
}

/// The label files of a corpus: all of its directories', or the sample its `pages` file names
/// (in the directories' order).
fn sampled_files(config: &ExperimentConfig, dirs: &[PathBuf], pages: Option<&Path>) -> Result<Vec<PathBuf>, DataError> {
    let files = config_label_files(dirs, config)?;
    let Some(p) = pages else { return Ok(files) };
    let path = config.path(p);
    let names: std::collections::BTreeSet<String> =
        crate::config::read_sample(&path).map_err(|source| ConfigError::Io { path: path.clone(), source })?.into_iter().collect();
    Ok(files.into_iter().filter(|f| f.file_name().and_then(|n| n.to_str()).is_some_and(|n| names.contains(n))).collect())
}

/// Fails before any page is read when the folds outnumber the pages (or sites) the label files
/// name: each file is one page, its `site` (or its name) its site.
fn check_folds(config: &ExperimentConfig, files: &[PathBuf]) -> Result<(), DataError> {
    let groups: std::collections::BTreeSet<String> = files
        .iter()
        .map(|f| {
            let name = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
            match config.evaluation.split {
                Split::Page => Ok(name),
                Split::Site => {
                    let file = crate::corpus::LabelFile::load(f).map_err(CorpusError::from)?;
                    Ok(file.site.filter(|s| !s.is_empty()).unwrap_or(name))
                }
            }
        })
        .collect::<Result<_, DataError>>()?;
    if groups.len() < config.evaluation.folds {
        return Err(DataError::TooManyFolds {
            folds: config.evaluation.folds,
            groups: groups.len(),
            split: config.evaluation.split,
            corpus: folded_corpus(config),
        });
    }
    Ok(())
}

/// What the folds cut, in messages.
fn folded_corpus(config: &ExperimentConfig) -> &'static str {
    if config.evaluation.test.is_some() {
        "test corpus"
    } else {
        "labelled data"
    }
}

/// The same check on the blocks read (a page whose blocks are all unlabelled holds no block).
fn check_groups(config: &ExperimentConfig, groups: Vec<usize>) -> Result<(), DataError> {
    let groups = groups.into_iter().collect::<std::collections::BTreeSet<_>>().len();
    if groups < config.evaluation.folds {
        return Err(DataError::TooManyFolds { folds: config.evaluation.folds, groups, split: config.evaluation.split, corpus: folded_corpus(config) });
    }
    Ok(())
}

type PageData = (String, String, String, PathBuf, TwoViews, Vec<usize>, usize, Vec<BlockInfo>);

/// Loads the labelled blocks of a config's `[corpus]` and builds their views.
pub fn load_labelled_data(config: &ExperimentConfig, divider: &Divider, builder: &ViewBuilder, scheme: &LabelScheme) -> Result<LabelledData, DataError> {
    let files = sampled_files(config, &config.corpus.labels, config.corpus.pages.as_deref())?;
    load_labelled_files(&files, &config.path(&config.corpus.corpora), divider, builder, scheme).map_err(|e| no_pages(e, &config.corpus.labels, config))
}

/// Loads the blocks of some label files (pages under `corpora`, labels in `scheme`) and builds
/// their views, in the files' order.
pub fn load_labelled_files(
    files: &[PathBuf],
    corpora: &Path,
    divider: &Divider,
    builder: &ViewBuilder,
    scheme: &LabelScheme,
) -> Result<LabelledData, DataError> {
    let corpora = corpora.to_path_buf();
    let per_page: Vec<Result<PageData, DataError>> = files
        .par_iter()
        .map(|f| {
            let lp = load_labelled_into(f, &corpora, divider, scheme)?;
            let v = builder.build(&lp.page, &lp.division).map_err(|source| DataError::View { path: f.clone(), source })?;
            let keep: Vec<usize> = (0..lp.gold.len()).filter(|&i| lp.gold[i].label.is_some()).collect();
            let targets = keep.iter().filter_map(|&i| lp.gold[i].label).collect();
            let views = TwoViews { stylistic: v.stylistic, lexical: v.lexical }.select_rows(&keep)?;
            let name = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
            let infos = keep.iter().filter_map(|&i| lp.division.blocks.get(i).map(BlockInfo::of)).collect();
            Ok((
                name,
                lp.labels.site.clone().unwrap_or_default(),
                lp.labels.corpus.clone(),
                lp.page.path.clone(),
                views,
                targets,
                lp.gold.len() - keep.len(),
                infos,
            ))
        })
        .collect();
    let mut data: Option<LabelledData> = None;
    for r in per_page {
        let (name, site, corpus, path, views, targets, unlabelled, infos) = r?;
        let d = match &mut data {
            Some(d) => d,
            None => data.insert(LabelledData {
                views: views.select_rows(&[])?,
                targets: Vec::new(),
                page_of: Vec::new(),
                pages: Vec::new(),
                page_paths: Vec::new(),
                page_corpora: Vec::new(),
                class_counts: vec![0; scheme.len()],
                unlabelled_blocks: 0,
                blocks: Vec::new(),
            }),
        };
        d.views.append(&views)?;
        let page = d.pages.len();
        d.page_of.extend(std::iter::repeat_n(page, targets.len()));
        for &t in &targets {
            d.class_counts[t] += 1;
        }
        d.targets.extend(targets);
        d.pages.push((name, site));
        d.page_paths.push(path);
        d.page_corpora.push(corpus);
        d.unlabelled_blocks += unlabelled;
        d.blocks.extend(infos);
    }
    data.ok_or_else(|| DataError::NoLabelledPages { dirs: String::new() })
}

/// The pool's blocks as the seed papers' systems see them: one [`BlockInfo`] per pool row, the
/// pool page of each (pages in manifest order, blocks of a page contiguous and in document
/// order) and the site of each page (the manifest's, or empty).
#[derive(Debug, Clone, Default)]
pub struct PoolBlocks {
    pub blocks: Vec<BlockInfo>,
    pub page_of: Vec<usize>,
    pub sites: Vec<String>,
}

/// Loads the unlabelled pool's pages and builds their views (all blocks), with what the seed
/// papers' systems read of each block.
///
/// A pool page that is also one of the labelled pages (`labelled`, compared as canonical paths)
/// is left out of the pool, and [`Event::LeftOutOfPool`] says how many: a pool is drawn from
/// pages nobody labelled, and a labelled page in it would let a fold's learners self-label a
/// page of the held-out fold, or see a training page twice. Pools are drawn once and pages are
/// labelled later (`corpora/tools/select_modern.py`, stage 8), so the manifests stay as drawn.
pub fn load_pool(
    config: &ExperimentConfig,
    divider: &Divider,
    builder: &ViewBuilder,
    labelled: &[PathBuf],
    progress: &dyn Progress,
) -> Result<(TwoViews, PoolBlocks), DataError> {
    let root = config.path(config.pool.corpora.as_ref().unwrap_or(&config.corpus.corpora)).join(&config.pool.corpus);
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let labelled: std::collections::HashSet<PathBuf> = labelled.iter().map(|p| canonical(p)).collect();
    let mut pages = Vec::new();
    let mut sites = Vec::new();
    let mut left_out = 0;
    for m in &config.pool.manifests {
        let path = config.path(m);
        let manifest = Manifest::load(&path)?;
        for e in &manifest.entries {
            let page = root.join(&e.page);
            if labelled.contains(&canonical(&page)) {
                left_out += 1;
                continue;
            }
            pages.push(page);
            sites.push(e.site.clone().unwrap_or_default());
        }
    }
    if left_out > 0 {
        progress.event(&Event::LeftOutOfPool { pages: left_out });
    }
    let built: Vec<Result<(TwoViews, Vec<BlockInfo>), DataError>> = pages
        .par_iter()
        .map(|p| {
            let page = Page::load(p, &LoadOptions::default())?;
            let division = divider.divide(&page);
            let v = builder.build(&page, &division).map_err(|source| DataError::View { path: p.clone(), source })?;
            Ok((TwoViews { stylistic: v.stylistic, lexical: v.lexical }, division.blocks.iter().map(BlockInfo::of).collect()))
        })
        .collect();
    let mut pool: Option<TwoViews> = None;
    let mut blocks = PoolBlocks { sites, ..PoolBlocks::default() };
    for (page, b) in built.into_iter().enumerate() {
        let (b, infos) = b?;
        if infos.len() != b.n_rows() {
            return Err(DataError::PoolRows { path: pages[page].clone(), blocks: infos.len(), rows: b.n_rows() });
        }
        blocks.page_of.extend(std::iter::repeat_n(page, infos.len()));
        blocks.blocks.extend(infos);
        match &mut pool {
            Some(p) => p.append(&b)?,
            None => pool = Some(b),
        }
    }
    pool.map(|p| (p, blocks)).ok_or(DataError::EmptyPool)
}

#[cfg(test)]
mod tests {
    use super::BlockInfo;
    use crate::divide::Divider;
    use crate::page::{LoadOptions, Page};

    #[test]
    fn block_info_reads_text_place_and_link_words() {
        let html = "<html><body><div><p>Read <a href='/x'>the full story</a> here</p><h2>Next</h2></div></body></html>";
        let page = Page::from_bytes("t.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let infos: Vec<BlockInfo> = division.blocks.iter().map(BlockInfo::of).collect();
        assert_eq!(infos.len(), 2);
        // "Read the full story here": 5 words, 3 of them in the link; innermost element p.
        assert_eq!(infos[0].text, "Read the full story here");
        assert_eq!((infos[0].words, infos[0].link_words, infos[0].position), (5, 3, 0));
        assert_eq!(infos[0].tag, "p");
        assert_eq!(infos[0].tag_path, "html/body/div/p");
        assert_eq!(infos[1].tag, "h2");
        assert_eq!(infos[1].position, 1);
        assert!(infos[1].container.ends_with("/h2[1]"), "{}", infos[1].container);
    }
}
