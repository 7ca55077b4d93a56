//! What the seed papers' baselines share: a fold's blocks grouped by page, and the mapping from
//! the training scheme to content / not-content for the systems that only extract articles.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::config::ExperimentConfig;
use crate::corpus::SchemeMapping;
use crate::dataset::{LabelledData, PoolBlocks};
use crate::train::TrainError;

/// The runs of consecutive rows that share a page (a fold keeps each page's blocks together and
/// in document order).
pub fn page_runs(pages: &[usize]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = 0;
    for i in 1..=pages.len() {
        if i == pages.len() || pages[i] != pages[start] {
            if i > start {
                runs.push(start..i);
            }
            start = i;
        }
    }
    runs
}

/// Site names numbered in the order first met, so that the training, held-out and pool sides
/// of a fold share one numbering (a page without a site is a site of its own).
#[derive(Debug, Default)]
pub struct SiteIds {
    ids: BTreeMap<String, usize>,
}

impl SiteIds {
    /// The number of a site (or of a site-less page).
    pub fn id(&mut self, key: &str) -> usize {
        let n = self.ids.len();
        *self.ids.entry(key.to_string()).or_insert(n)
    }

    /// The site of each of `rows` of a labelled corpus.
    pub fn of_rows(&mut self, rows: &[usize], data: &LabelledData) -> Vec<usize> {
        rows.iter()
            .map(|&r| {
                let (name, site) = &data.pages[data.page_of[r]];
                self.id(if site.is_empty() { name } else { site })
            })
            .collect()
    }

    /// The site of each pool block (a site-less pool page is named by its number).
    pub fn of_pool(&mut self, pool: &PoolBlocks) -> Vec<usize> {
        pool.page_of
            .iter()
            .map(|&p| match pool.sites.get(p) {
                Some(s) if !s.is_empty() => self.id(s),
                _ => self.id(&format!("pool page {p}")),
            })
            .collect()
    }
}

/// A baseline's failure, named after it.
pub fn failure(baseline: &str, message: impl std::fmt::Display) -> TrainError {
    TrainError::Baseline { baseline: baseline.into(), message: message.to_string() }
}

/// Which classes of the config's training scheme are article content, through the built-in
/// mapping to the `binary` scheme (`configs/mappings/*-to-binary.toml`); the binary scheme's
/// own `content` class when it is the training scheme.
pub fn content_classes(config: &ExperimentConfig, baseline: &str) -> Result<Vec<bool>, TrainError> {
    let name = config.corpus.train_scheme.as_deref().unwrap_or(&config.corpus.scheme);
    let scheme = config.scheme(name).map_err(|e| failure(baseline, e))?;
    let binary = config.scheme("binary").map_err(|e| failure(baseline, e))?;
    if scheme.name == binary.name {
        return Ok(scheme.names().map(|n| n == "content").collect());
    }
    let mapping = SchemeMapping::between(&scheme, &binary)
        .ok_or_else(|| failure(baseline, format!("extracts articles, but there is no built-in mapping from scheme {} to binary", scheme.name)))?;
    Ok(scheme.names().map(|n| mapping.apply(n) == Some("content")).collect())
}

/// The class a binary decision stands for in the training scheme: the most frequent training
/// class among content classes (for `true`) and among the others (for `false`); lowest index on
/// ties, and the first class of that side when training has none.
pub fn representatives(targets: &[usize], content: &[bool]) -> [usize; 2] {
    let mut counts = vec![0usize; content.len()];
    for &t in targets {
        if let Some(c) = counts.get_mut(t) {
            *c += 1;
        }
    }
    let best = |side: bool| (0..content.len()).filter(|&c| content[c] == side).max_by(|&a, &b| counts[a].cmp(&counts[b]).then(b.cmp(&a))).unwrap_or(0);
    [best(false), best(true)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_runs_split_where_the_page_changes() {
        assert_eq!(page_runs(&[4, 4, 7, 7, 7, 2]), vec![0..2, 2..5, 5..6]);
        assert!(page_runs(&[]).is_empty());
    }

    #[test]
    fn sites_are_numbered_once_for_every_side() {
        let mut ids = SiteIds::default();
        assert_eq!((ids.id("a.com"), ids.id("b.com"), ids.id("a.com")), (0, 1, 0));
        // Pool pages 0 and 1 of sites b.com and (none): the second is a site of its own.
        let pool = PoolBlocks { blocks: Vec::new(), page_of: vec![0, 0, 1], sites: vec!["b.com".into(), String::new()] };
        assert_eq!(ids.of_pool(&pool), [1, 1, 2]);
    }

    #[test]
    fn representatives_are_the_most_frequent_class_on_each_side() {
        // Classes 0 and 2 are content; 1 and 3 are not. Training: 0, 2, 2, 1, 3, 3, 3.
        let content = [true, false, true, false];
        assert_eq!(representatives(&[0, 2, 2, 1, 3, 3, 3], &content), [3, 2]);
        // Ties go to the lower index; no content in training: the first content class.
        assert_eq!(representatives(&[1, 3], &content), [1, 0]);
    }
}
