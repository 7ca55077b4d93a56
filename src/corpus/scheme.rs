//! Label schemes and the mappings between them, read from TOML (`configs/schemes/`,
//! `configs/mappings/`).
//!
//! A scheme is an ordered list of labels; a label's index in that list is its class index for
//! the learners. A mapping sends every label of one scheme to one label of another, so an
//! experiment can train on a fine scheme and report on a coarser one.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Why a scheme or mapping was refused. Every variant names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemeError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Toml { path: PathBuf, message: String },
    #[error("{path}: {problem}")]
    Invalid { path: PathBuf, problem: String },
}

/// One label of a scheme.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Label {
    /// Machine name used everywhere: files, reports, the command line (`main-content`).
    pub name: String,
    pub description: String,
    /// The annotator's keyboard shortcut (one character).
    pub key: String,
    /// Colour of the label in the annotator and in reports.
    pub color: String,
    /// A fine-grained label (marked with an asterisk in the paper's Table 1).
    #[serde(default)]
    pub fine: bool,
}

/// A label scheme: the classes a block can take.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelScheme {
    pub name: String,
    pub description: String,
    pub labels: Vec<Label>,
    /// Which labels make which part of an article, for `parcels extract`; a scheme without
    /// this section cannot extract articles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub article: Option<ArticleRoles>,
}

/// The labels whose blocks give each field of an extracted article. Every name must be a
/// label of the scheme.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArticleRoles {
    /// Labels of the article's body, joined in document order.
    pub main_text: Vec<String>,
    /// Single-valued fields: the most confident block of the label gives the field.
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub reporter: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub location: Option<String>,
    /// Label of the headings inside the body.
    #[serde(default)]
    pub subheader: Option<String>,
    /// When set, runs of parallel items join the body as a whole once most of a run is body
    /// (see [`ParallelItems`]); absent, each block's own label decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_items: Option<ParallelItems>,
}

/// The rule that takes a list into the body whole: blocks are *parallel items* when their
/// element paths differ in one index only (`…/div[3]/a/p[1]` and `…/div[4]/a/p[1]`: the cards of
/// a listing, the posts of a thread, the rows of a table). Each block's run is its deepest such
/// set with at least `min_items` blocks; when the body labels hold at least `min_share` of a
/// run's words (a block without words counts as one), every block of the run joins the body.
///
/// Why: the learners label blocks one by one, and the items of one list sit near the decision
/// boundary together, so some come out body and some not (a course catalogue with half its
/// course descriptions). A person reads the list as one thing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParallelItems {
    pub min_items: usize,
    pub min_share: f64,
}

impl ArticleRoles {
    /// Every label name the roles mention.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.main_text
            .iter()
            .map(String::as_str)
            .chain([&self.title, &self.date, &self.reporter, &self.source, &self.location, &self.subheader].into_iter().flatten().map(String::as_str))
    }
}

/// The scheme files shipped in `configs/schemes/`, compiled in so every command works without
/// them on disk.
const BUILT_IN_SCHEMES: &[(&str, &str)] = &[
    ("parcels-17", include_str!("../../configs/schemes/parcels-17.toml")),
    ("l3s-gn1", include_str!("../../configs/schemes/l3s-gn1.toml")),
    ("l3s-gn1-main", include_str!("../../configs/schemes/l3s-gn1-main.toml")),
    ("song-3level", include_str!("../../configs/schemes/song-3level.toml")),
    ("binary", include_str!("../../configs/schemes/binary.toml")),
    ("gold-text", include_str!("../../configs/schemes/gold-text.toml")),
];

const BUILT_IN_MAPPINGS: &[(&str, &str)] = &[
    ("parcels-17-to-song-3level", include_str!("../../configs/mappings/parcels-17-to-song-3level.toml")),
    ("parcels-17-to-binary", include_str!("../../configs/mappings/parcels-17-to-binary.toml")),
    ("parcels-17-to-l3s-gn1", include_str!("../../configs/mappings/parcels-17-to-l3s-gn1.toml")),
    ("l3s-gn1-to-binary", include_str!("../../configs/mappings/l3s-gn1-to-binary.toml")),
    ("l3s-gn1-seed-parcels-17", include_str!("../../configs/mappings/l3s-gn1-seed-parcels-17.toml")),
    ("gold-text-to-l3s-gn1", include_str!("../../configs/mappings/gold-text-to-l3s-gn1.toml")),
    ("gold-text-to-binary", include_str!("../../configs/mappings/gold-text-to-binary.toml")),
    ("l3s-gn1-to-l3s-gn1-main", include_str!("../../configs/mappings/l3s-gn1-to-l3s-gn1-main.toml")),
    ("gold-text-to-l3s-gn1-main", include_str!("../../configs/mappings/gold-text-to-l3s-gn1-main.toml")),
];

impl LabelScheme {
    /// A scheme shipped with parcels, by name (`parcels-17`, `l3s-gn1`, `l3s-gn1-main`, `song-3level`, `binary`,
    /// `gold-text`).
    pub fn built_in(name: &str) -> Option<LabelScheme> {
        let (_, text) = BUILT_IN_SCHEMES.iter().find(|(n, _)| *n == name)?;
        LabelScheme::from_toml_str(text, Path::new(&format!("<built-in {name}>"))).ok()
    }

    /// A built-in scheme by name, or a scheme file by path.
    pub fn resolve(name_or_path: &str) -> Result<LabelScheme, SchemeError> {
        if let Some(s) = LabelScheme::built_in(name_or_path) {
            return Ok(s);
        }
        LabelScheme::load(name_or_path)
    }

    pub fn load(path: impl AsRef<Path>) -> Result<LabelScheme, SchemeError> {
        let path = path.as_ref();
        let text = crate::files::read_regular_to_string(path).map_err(|source| SchemeError::Io { path: path.to_path_buf(), source })?;
        LabelScheme::from_toml_str(&text, path)
    }

    pub fn from_toml_str(text: &str, path: &Path) -> Result<LabelScheme, SchemeError> {
        let scheme: LabelScheme = toml::from_str(text).map_err(|e| SchemeError::Toml { path: path.to_path_buf(), message: e.to_string() })?;
        let invalid = |problem: String| SchemeError::Invalid { path: path.to_path_buf(), problem };
        if scheme.labels.is_empty() {
            return Err(invalid("a scheme needs at least one label".into()));
        }
        let mut names = HashSet::new();
        let mut keys = HashSet::new();
        for l in &scheme.labels {
            if l.name.is_empty() || !l.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
                return Err(invalid(format!("label {:?}: names are lower-case letters, digits and '-'", l.name)));
            }
            if !names.insert(l.name.as_str()) {
                return Err(invalid(format!("label {:?} appears twice", l.name)));
            }
            if l.key.chars().count() != 1 || !keys.insert(l.key.as_str()) {
                return Err(invalid(format!("label {:?}: key {:?} must be one character, unique in the scheme", l.name, l.key)));
            }
        }
        if let Some(roles) = &scheme.article {
            if roles.main_text.is_empty() {
                return Err(invalid("[article] main_text needs at least one label".into()));
            }
            if let Some(p) = roles.parallel_items {
                if p.min_items < 2 || !(p.min_share > 0.0 && p.min_share <= 1.0) {
                    return Err(invalid(format!(
                        "[article.parallel_items] needs min_items of at least 2 and min_share in (0, 1], not {} and {}",
                        p.min_items, p.min_share
                    )));
                }
            }
            if let Some(unknown) = roles.names().find(|n| !names.contains(n)) {
                return Err(invalid(format!("[article] names {unknown:?}, which is not a label of the scheme")));
            }
        }
        Ok(scheme)
    }

    /// Class index of a label name.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.labels.iter().position(|l| l.name == name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.labels.iter().map(|l| l.name.as_str())
    }

    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

/// A mapping from every label of one scheme to a label of another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchemeMapping {
    pub from: String,
    pub to: String,
    /// A partial mapping carries only the labels it lists (used to seed labels where the
    /// correspondence is exact); a full one must map every label.
    #[serde(default)]
    pub partial: bool,
    pub map: BTreeMap<String, String>,
}

impl SchemeMapping {
    /// A built-in mapping by name (`parcels-17-to-binary`, …), or a mapping file by path,
    /// checked against the two schemes it names.
    pub fn resolve(name_or_path: &str, from: &LabelScheme, to: &LabelScheme) -> Result<SchemeMapping, SchemeError> {
        let (text, path) = match BUILT_IN_MAPPINGS.iter().find(|(n, _)| *n == name_or_path) {
            Some((_, text)) => (text.to_string(), PathBuf::from(format!("<built-in {name_or_path}>"))),
            None => {
                let path = PathBuf::from(name_or_path);
                let text = crate::files::read_regular_to_string(&path).map_err(|source| SchemeError::Io { path: path.clone(), source })?;
                (text, path)
            }
        };
        let mapping: SchemeMapping = toml::from_str(&text).map_err(|e| SchemeError::Toml { path: path.clone(), message: e.to_string() })?;
        mapping.check(from, to, &path)?;
        Ok(mapping)
    }

    /// The built-in mapping between two schemes, if one ships.
    pub fn between(from: &LabelScheme, to: &LabelScheme) -> Option<SchemeMapping> {
        SchemeMapping::resolve(&format!("{}-to-{}", from.name, to.name), from, to).ok()
    }

    fn check(&self, from: &LabelScheme, to: &LabelScheme, path: &Path) -> Result<(), SchemeError> {
        let invalid = |problem: String| SchemeError::Invalid { path: path.to_path_buf(), problem };
        if self.from != from.name || self.to != to.name {
            return Err(invalid(format!("maps {} to {}, not {} to {}", self.from, self.to, from.name, to.name)));
        }
        for l in from.names() {
            match self.map.get(l) {
                None if self.partial => {}
                None => return Err(invalid(format!("label {l:?} of {} is not mapped", from.name))),
                Some(t) if to.index(t).is_none() => return Err(invalid(format!("{l:?} maps to {t:?}, not a label of {}", to.name))),
                _ => {}
            }
        }
        if let Some(extra) = self.map.keys().find(|k| from.index(k).is_none()) {
            return Err(invalid(format!("{extra:?} is not a label of {}", from.name)));
        }
        Ok(())
    }

    /// The target label of a source label name.
    pub fn apply<'a>(&'a self, label: &str) -> Option<&'a str> {
        self.map.get(label).map(String::as_str)
    }

    /// Source class index to target class index, for every source class.
    pub fn index_table(&self, from: &LabelScheme, to: &LabelScheme) -> Vec<usize> {
        from.names().map(|l| self.apply(l).and_then(|t| to.index(t)).unwrap_or(0)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_schemes_and_mappings_are_consistent() {
        let p17 = LabelScheme::built_in("parcels-17").unwrap();
        assert_eq!(p17.len(), 17);
        assert_eq!(p17.index("main-content"), Some(0));
        assert_eq!(p17.labels.iter().filter(|l| l.fine).count(), 7, "the paper marks seven labels fine-grained");
        for (name, _) in BUILT_IN_SCHEMES {
            assert!(LabelScheme::built_in(name).is_some(), "{name}");
        }
        for (name, text) in BUILT_IN_MAPPINGS {
            let m: SchemeMapping = toml::from_str(text).unwrap();
            let from = LabelScheme::built_in(&m.from).unwrap();
            let to = LabelScheme::built_in(&m.to).unwrap();
            SchemeMapping::resolve(name, &from, &to).unwrap();
        }
        let song = LabelScheme::built_in("song-3level").unwrap();
        let m = SchemeMapping::between(&p17, &song).unwrap();
        assert_eq!(m.apply("advertisement"), Some("level-1"));
        assert_eq!(m.index_table(&p17, &song)[0], 2);
        // The extraction classes: every L3S-GN1 class but the body and the headline folds away.
        let (l3s, main) = (LabelScheme::built_in("l3s-gn1").unwrap(), LabelScheme::built_in("l3s-gn1-main").unwrap());
        assert_eq!(main.len(), 3);
        let m = SchemeMapping::between(&l3s, &main).unwrap();
        assert_eq!((m.apply("comments"), m.apply("full-text"), m.apply("headline")), (Some("not-content"), Some("full-text"), Some("headline")));
    }

    #[test]
    fn bad_schemes_and_mappings_are_refused_with_the_file_named() {
        let err = LabelScheme::from_toml_str("name='x'\ndescription=''\nlabels=[]", Path::new("s.toml")).unwrap_err();
        assert!(err.to_string().starts_with("s.toml:"), "{err}");
        let dup =
            "name='x'\ndescription=''\n[[labels]]\nname='a'\ndescription=''\nkey='a'\ncolor=''\n[[labels]]\nname='b'\ndescription=''\nkey='a'\ncolor=''\n";
        assert!(LabelScheme::from_toml_str(dup, Path::new("s.toml")).unwrap_err().to_string().contains("key"));
        let p17 = LabelScheme::built_in("parcels-17").unwrap();
        let bin = LabelScheme::built_in("binary").unwrap();
        let dir = std::env::temp_dir().join(format!("parcels-scheme-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.toml");
        std::fs::write(&path, "from='parcels-17'\nto='binary'\n[map]\nmain-content='content'\n").unwrap();
        let err = SchemeMapping::resolve(path.to_str().unwrap(), &p17, &bin).unwrap_err();
        assert!(err.to_string().contains("\"title\" of parcels-17 is not mapped"), "{err}");
    }

    #[test]
    fn article_roles_name_labels_of_the_scheme() {
        let p17 = LabelScheme::built_in("parcels-17").unwrap();
        let roles = p17.article.as_ref().expect("parcels-17 says which labels make an article");
        assert_eq!(roles.main_text, ["main-content", "subheader", "content-link"]);
        assert_eq!(LabelScheme::built_in("l3s-gn1").unwrap().article.unwrap().title.as_deref(), Some("headline"));
        let scheme = |article: &str| format!("name='x'\ndescription=''\n[[labels]]\nname='a'\ndescription=''\nkey='a'\ncolor=''\n[article]\n{article}\n");
        assert!(LabelScheme::from_toml_str(&scheme("main_text=['a']\ntitle='a'"), Path::new("s.toml")).is_ok());
        let err = LabelScheme::from_toml_str(&scheme("main_text=['a']\ntitle='b'"), Path::new("s.toml")).unwrap_err();
        assert_eq!(err.to_string(), "s.toml: [article] names \"b\", which is not a label of the scheme");
        let err = LabelScheme::from_toml_str(&scheme("main_text = ['a']\n[article.parallel_items]\nmin_items = 1\nmin_share = 0.5"), Path::new("s.toml"))
            .unwrap_err();
        assert!(err.to_string().contains("min_items of at least 2"), "{err}");
        let l3s = LabelScheme::built_in("l3s-gn1").unwrap().article.unwrap();
        assert_eq!(l3s.parallel_items, Some(ParallelItems { min_items: 3, min_share: 0.5 }));
        let err = LabelScheme::from_toml_str(&scheme("main_text=[]"), Path::new("s.toml")).unwrap_err();
        assert!(err.to_string().contains("main_text needs at least one label"), "{err}");
    }
}
