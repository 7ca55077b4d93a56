//! The two views of a block (paper sections 3 and 5): the feature tables the stylistic and the
//! lexical learner see.
//!
//! Input: a page and its division. Output: [`PageViews`], one [`FeatureMatrix`] per view with one
//! row per block, built from the feature groups an experiment names. The stylistic view comes
//! from [`crate::stylistic`] (dense; NaN = missing), the lexical view from [`crate::lexical`]
//! (dense counts and ratios plus sparse TF×IDF stems whose columns are the IDF table's ids, so
//! every page's lexical matrix has the same columns).

use serde::{Deserialize, Serialize};

use crate::divide::Division;
use crate::lexical::{self, IdfTable};
use crate::matrix::{FeatureMatrix, MatrixError, SparseRows};
use crate::page::Page;
use crate::stylistic::{self, StyleError, StyleOptions};

/// Which feature groups make each view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewConfig {
    /// Groups of the stylistic view: `placement`, `layout`, `layer`, `table`, `font`, `image`, `css`.
    pub stylistic: Vec<String>,
    /// Groups of the lexical view: `words`, `links`, `pos`, `tokens`.
    pub lexical: Vec<String>,
}

impl Default for ViewConfig {
    fn default() -> Self {
        ViewConfig {
            stylistic: STYLISTIC_GROUPS.iter().map(|(g, _)| g.to_string()).collect(),
            lexical: LEXICAL_GROUPS.iter().map(|(g, _)| g.to_string()).chain(["tokens".to_string()]).collect(),
        }
    }
}

/// Stylistic groups and the name prefixes of their features.
const STYLISTIC_GROUPS: &[(&str, &[&str])] = &[
    ("placement", &["pos.", "hidden"]),
    ("layout", &["layout."]),
    ("layer", &["layer."]),
    ("table", &["table."]),
    ("font", &["font."]),
    ("image", &["img."]),
    ("css", &["css."]),
];

/// Lexical groups of dense features (the sparse `tokens` group is separate).
const LEXICAL_GROUPS: &[(&str, &[&str])] = &[
    ("words", &["words", "vocabulary", "vocabulary-ratio", "unknown-stem-ratio"]),
    ("links", &["images", "mailto-links", "image-links", "text-links", "total-links"]),
    ("pos", &["pos:", "pos-all:"]),
];

/// Why views could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    #[error("unknown {view} feature group {group:?} (known: {known})")]
    UnknownGroup { view: &'static str, group: String, known: String },
    #[error("the {view} view has no features")]
    Empty { view: &'static str },
    #[error(transparent)]
    Style(#[from] StyleError),
    #[error(transparent)]
    Matrix(#[from] MatrixError),
}

/// The features of every block of one page, per view (rows in block order).
#[derive(Debug, Clone)]
pub struct PageViews {
    pub stylistic: FeatureMatrix,
    pub lexical: FeatureMatrix,
}

/// Builds both views for pages, with the columns an experiment chose.
pub struct ViewBuilder {
    idf: IdfTable,
    style: StyleOptions,
    stylistic_columns: Vec<usize>,
    stylistic_names: Vec<String>,
    lexical_columns: Vec<usize>,
    lexical_names: Vec<String>,
    tokens: bool,
    token_names: Vec<String>,
}

fn select(names: &[String], groups: &[String], table: &[(&str, &[&str])], view: &'static str) -> Result<Vec<usize>, ViewError> {
    let mut prefixes = Vec::new();
    for g in groups {
        match table.iter().find(|(name, _)| name == g) {
            Some((_, p)) => prefixes.extend_from_slice(p),
            None if view == "lexical" && g == "tokens" => {}
            None => {
                let mut known: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
                if view == "lexical" {
                    known.push("tokens");
                }
                return Err(ViewError::UnknownGroup { view, group: g.clone(), known: known.join(", ") });
            }
        }
    }
    Ok((0..names.len()).filter(|&i| prefixes.iter().any(|p| if p.ends_with(['.', ':']) { names[i].starts_with(p) } else { names[i] == *p })).collect())
}

impl ViewBuilder {
    pub fn new(config: &ViewConfig, idf: IdfTable, style: StyleOptions) -> Result<ViewBuilder, ViewError> {
        let s_names = stylistic::feature_names();
        let stylistic_columns = select(&s_names, &config.stylistic, STYLISTIC_GROUPS, "stylistic")?;
        let l_names: Vec<String> = lexical::numeric_feature_names().to_vec();
        let lexical_columns = select(&l_names, &config.lexical, LEXICAL_GROUPS, "lexical")?;
        let tokens = config.lexical.iter().any(|g| g == "tokens");
        if stylistic_columns.is_empty() {
            return Err(ViewError::Empty { view: "stylistic" });
        }
        if lexical_columns.is_empty() && !tokens {
            return Err(ViewError::Empty { view: "lexical" });
        }
        let token_names = if tokens { lexical::feature_names(&idf).split_off(l_names.len()) } else { Vec::new() };
        Ok(ViewBuilder {
            stylistic_names: stylistic_columns.iter().map(|&i| s_names[i].clone()).collect(),
            lexical_names: lexical_columns.iter().map(|&i| l_names[i].clone()).collect(),
            stylistic_columns,
            lexical_columns,
            tokens,
            token_names,
            idf,
            style,
        })
    }

    /// Names of the stylistic view's columns.
    pub fn stylistic_names(&self) -> &[String] {
        &self.stylistic_names
    }

    /// Names of the lexical view's dense columns.
    pub fn lexical_names(&self) -> &[String] {
        &self.lexical_names
    }

    /// Names of the lexical view's sparse token columns (empty without the `tokens` group).
    pub fn token_names(&self) -> &[String] {
        &self.token_names
    }

    /// The IDF table the lexical view weights stems with.
    pub fn idf(&self) -> &IdfTable {
        &self.idf
    }

    /// Both views of every block of a divided page.
    pub fn build(&self, page: &Page, division: &Division) -> Result<PageViews, ViewError> {
        let s = stylistic::extract(page, division, &self.style)?;
        let l = lexical::extract(division, &self.idf);
        let n = division.blocks.len();
        let dense = |rows: &[Vec<f64>], cols: &[usize]| {
            ndarray::Array2::from_shape_fn((n, cols.len()), |(r, c)| rows.get(r).and_then(|row| row.get(cols[c])).copied().unwrap_or(f64::NAN))
        };
        let stylistic = FeatureMatrix::new(dense(&s.rows, &self.stylistic_columns), self.stylistic_names.clone(), SparseRows::empty(n, 0), Vec::new())?;
        let tokens = if self.tokens {
            let rows =
                (0..n).map(|r| l.tokens.get(r).map(|t| t.iter().filter(|(_, w)| *w > 0.0).map(|&(id, w)| (id as usize, w)).collect()).unwrap_or_default());
            SparseRows::from_rows(self.token_names.len(), rows)?
        } else {
            SparseRows::empty(n, 0)
        };
        let lexical = FeatureMatrix::new(dense(&l.numeric, &self.lexical_columns), self.lexical_names.clone(), tokens, self.token_names.clone())?;
        Ok(PageViews { stylistic, lexical })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divide::Divider;
    use crate::page::LoadOptions;

    #[test]
    fn views_have_one_row_per_block_and_the_chosen_groups() {
        let page = Page::from_bytes(
            "v.html",
            b"<table><tr><td><font size=+2><b>Storm closes harbour</b></font></td></tr><tr><td><p>Gale-force winds kept the harbour closed.</p><a href=/x>World</a></td></tr></table>",
            &LoadOptions::default(),
        )
        .unwrap();
        let division = Divider::default().divide(&page);
        let config = ViewConfig { stylistic: vec!["font".into(), "table".into()], lexical: vec!["links".into(), "tokens".into()] };
        let builder = ViewBuilder::new(&config, IdfTable::dragnet().unwrap(), StyleOptions::default()).unwrap();
        let v = builder.build(&page, &division).unwrap();
        assert_eq!(v.stylistic.n_rows(), division.blocks.len());
        assert_eq!(v.lexical.n_rows(), division.blocks.len());
        assert!(v.stylistic.numeric_names().iter().all(|n| n.starts_with("font.") || n.starts_with("table.")));
        assert_eq!(v.lexical.numeric_names(), ["images", "mailto-links", "image-links", "text-links", "total-links"]);
        assert!(v.lexical.n_tokens() > 20_000, "token columns are the IDF table's stems");
        let harbour = v.lexical.tokens().row(1).0.len();
        assert!(harbour >= 3, "the paragraph's stems are present");
        let err = ViewBuilder::new(&ViewConfig { stylistic: vec!["colour".into()], lexical: vec![] }, IdfTable::dragnet().unwrap(), StyleOptions::default());
        assert!(matches!(err, Err(ViewError::UnknownGroup { .. })));
    }
}
