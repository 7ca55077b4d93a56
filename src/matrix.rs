//! Feature matrices: one view's features over a set of blocks.
//!
//! **Input**: what a feature extractor produces for one view (stylistic or lexical) of a set of
//! blocks: dense numeric columns and sparse token columns, each with a name.
//! **Output**: a validated [`FeatureMatrix`] that learners read, that folds and co-training cut
//! into row subsets ([`FeatureMatrix::select_rows`]), grow ([`FeatureMatrix::vstack`]) and that the
//! single-view learner joins column-wise ([`FeatureMatrix::hstack`]).
//!
//! **Invariants** (checked by every constructor, reported as [`MatrixError`], never a panic):
//! - the numeric table has one row per block and one name per column; `f64::NAN` means
//!   "missing" (infinities are allowed: they compare like any other number);
//! - the token table is CSR with the same number of rows; within a row, token columns are
//!   strictly increasing (sorted, no duplicates), below the number of token names, and every
//!   stored weight is finite and `> 0`. A token is *present* in a block exactly when it is stored.
//!   The weight (TF×IDF) is kept for learners that use it; boosted stumps only use presence.

use linfa::dataset::Records;
use ndarray::{Array2, Axis};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Why a matrix could not be built or combined.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MatrixError {
    /// The number of column names differs from the number of columns.
    #[error("{kind} table has {columns} columns but {names} names")]
    NamesLength { kind: &'static str, columns: usize, names: usize },
    /// The numeric and token tables do not describe the same blocks.
    #[error("numeric table has {numeric_rows} rows but token table has {token_rows}")]
    RowCountMismatch { numeric_rows: usize, token_rows: usize },
    /// The CSR row pointer is malformed.
    #[error("token table row pointer is invalid: {reason}")]
    BadRowPointer { reason: String },
    /// A stored token column is not below the number of token columns.
    #[error("block {row}: token column {column} is out of range (n_columns = {n_columns})")]
    TokenColumnOutOfRange { row: usize, column: usize, n_columns: usize },
    /// Token columns within a row must be strictly increasing.
    #[error("block {row}: token columns are not strictly increasing at column {column}")]
    TokenColumnsUnsorted { row: usize, column: usize },
    /// Token weights must be finite and positive (absent tokens are simply not stored).
    #[error("block {row}: token column {column} has weight {weight}, expected finite and > 0")]
    BadTokenWeight { row: usize, column: usize, weight: f64 },
    /// A selected row does not exist.
    #[error("row {row} is out of range (n_rows = {n_rows})")]
    RowOutOfRange { row: usize, n_rows: usize },
    /// Two matrices stacked by rows must have the same columns with the same names.
    #[error("cannot stack rows: column schemas differ ({detail})")]
    SchemaMismatch { detail: String },
}

/// Sparse rows in CSR form: for each block, its present token columns (sorted) and weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SparseRows {
    n_columns: usize,
    /// `indptr[r]..indptr[r + 1]` indexes row `r`'s entries; `indptr.len() == n_rows + 1`.
    indptr: Vec<usize>,
    columns: Vec<usize>,
    weights: Vec<f64>,
}

impl SparseRows {
    /// Builds from raw CSR arrays, validating every invariant of the module docs.
    pub fn new(n_columns: usize, indptr: Vec<usize>, columns: Vec<usize>, weights: Vec<f64>) -> Result<Self, MatrixError> {
        let bad = |reason: String| Err(MatrixError::BadRowPointer { reason });
        if indptr.first() != Some(&0) {
            return bad("must start with 0".into());
        }
        if columns.len() != weights.len() {
            return bad(format!("{} columns but {} weights", columns.len(), weights.len()));
        }
        if indptr.last() != Some(&columns.len()) {
            return bad(format!("must end with nnz = {}", columns.len()));
        }
        if let Some(row) = indptr.windows(2).position(|p| p[0] > p[1]) {
            return bad(format!("decreases at row {row}"));
        }
        for (row, pair) in indptr.windows(2).enumerate() {
            let mut previous: Option<usize> = None;
            for k in pair[0]..pair[1] {
                let (column, weight) = (columns[k], weights[k]);
                if column >= n_columns {
                    return Err(MatrixError::TokenColumnOutOfRange { row, column, n_columns });
                }
                if previous.is_some_and(|p| p >= column) {
                    return Err(MatrixError::TokenColumnsUnsorted { row, column });
                }
                if !(weight.is_finite() && weight > 0.0) {
                    return Err(MatrixError::BadTokenWeight { row, column, weight });
                }
                previous = Some(column);
            }
        }
        Ok(Self { n_columns, indptr, columns, weights })
    }

    /// Builds from per-block lists of `(token column, weight)`; each list is sorted here, so
    /// callers may give tokens in any order (duplicates are still an error).
    pub fn from_rows<I>(n_columns: usize, rows: I) -> Result<Self, MatrixError>
    where
        I: IntoIterator<Item = Vec<(usize, f64)>>,
    {
        let mut indptr = vec![0];
        let (mut columns, mut weights) = (Vec::new(), Vec::new());
        for mut row in rows {
            row.sort_by_key(|&(c, _)| c);
            for (c, w) in row {
                columns.push(c);
                weights.push(w);
            }
            indptr.push(columns.len());
        }
        Self::new(n_columns, indptr, columns, weights)
    }

    /// `n_rows` blocks with no tokens at all.
    pub fn empty(n_rows: usize, n_columns: usize) -> Self {
        Self { n_columns, indptr: vec![0; n_rows + 1], columns: Vec::new(), weights: Vec::new() }
    }

    pub fn n_rows(&self) -> usize {
        // `indptr` has n_rows + 1 entries; saturate so a malformed deserialised value reads as
        // empty instead of underflowing.
        self.indptr.len().saturating_sub(1)
    }

    pub fn n_columns(&self) -> usize {
        self.n_columns
    }

    /// Number of stored (present) entries.
    pub fn nnz(&self) -> usize {
        self.columns.len()
    }

    /// Present token columns of block `row` (sorted) and their weights; empty if out of range.
    pub fn row(&self, row: usize) -> (&[usize], &[f64]) {
        match (self.indptr.get(row), self.indptr.get(row + 1)) {
            // `get`: a malformed deserialised table reads as empty rows rather than panicking.
            (Some(&a), Some(&b)) => (self.columns.get(a..b).unwrap_or(&[]), self.weights.get(a..b).unwrap_or(&[])),
            _ => (&[], &[]),
        }
    }

    /// Whether token `column` is present in block `row` (binary search in the row).
    pub fn contains(&self, row: usize, column: usize) -> bool {
        self.row(row).0.binary_search(&column).is_ok()
    }

    /// Column-major copy of the presence pattern: for each token column, the rows holding it
    /// (increasing). Learners scan these lists so a column costs only its non-zeros.
    pub(crate) fn column_rows(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.n_columns];
        for row in 0..self.n_rows() {
            for &c in self.row(row).0 {
                // Row counts above u32::MAX are not a realistic number of blocks; saturate
                // rather than wrap if it ever happens.
                if let Some(list) = out.get_mut(c) {
                    list.push(u32::try_from(row).unwrap_or(u32::MAX));
                }
            }
        }
        out
    }

    fn select_rows(&self, rows: &[usize]) -> Self {
        let mut indptr = Vec::with_capacity(rows.len() + 1);
        indptr.push(0);
        let (mut columns, mut weights) = (Vec::new(), Vec::new());
        for &r in rows {
            let (c, w) = self.row(r);
            columns.extend_from_slice(c);
            weights.extend_from_slice(w);
            indptr.push(columns.len());
        }
        Self { n_columns: self.n_columns, indptr, columns, weights }
    }

    fn append_rows(&mut self, other: &SparseRows) {
        let offset = self.columns.len();
        self.columns.extend_from_slice(&other.columns);
        self.weights.extend_from_slice(&other.weights);
        self.indptr.extend(other.indptr[1..].iter().map(|&p| p + offset));
    }

    /// Row-wise concatenation of columns: `other`'s columns are shifted by `self.n_columns`.
    fn hstack(&self, other: &SparseRows) -> Self {
        let mut indptr = vec![0];
        let (mut columns, mut weights) = (Vec::new(), Vec::new());
        for r in 0..self.n_rows() {
            let (c, w) = self.row(r);
            columns.extend_from_slice(c);
            weights.extend_from_slice(w);
            let (c, w) = other.row(r);
            columns.extend(c.iter().map(|&x| x + self.n_columns));
            weights.extend_from_slice(w);
            indptr.push(columns.len());
        }
        Self { n_columns: self.n_columns + other.n_columns, indptr, columns, weights }
    }
}

/// Column names shared between matrices: a view's token columns are the IDF table's stems
/// (tens of thousands of names), so every page's matrix shares one list instead of copying it,
/// and two matrices built from the same list compare equal without reading the names.
/// Serialised as a plain list of strings.
#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(from = "Vec<String>", into = "Vec<String>")]
pub struct Names(Arc<[String]>);

impl Names {
    /// Whether `self` and `other` are the same shared list (equal without comparing names).
    pub fn same_list(&self, other: &Names) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for Names {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.0
    }
}

impl From<Vec<String>> for Names {
    fn from(names: Vec<String>) -> Self {
        Names(names.into())
    }
}

impl From<Names> for Vec<String> {
    fn from(names: Names) -> Self {
        names.0.to_vec()
    }
}

impl PartialEq for Names {
    fn eq(&self, other: &Names) -> bool {
        self.same_list(other) || self.0[..] == other.0[..]
    }
}

impl Eq for Names {}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

/// Names of one matrix's columns, in order: what a saved model records so it can check that it
/// is applied to the features it was trained on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureSchema {
    pub numeric_names: Names,
    pub token_names: Names,
}

impl FeatureSchema {
    /// Whether both name lists are shared with `other`'s (equal without comparing names).
    pub fn same_lists(&self, other: &FeatureSchema) -> bool {
        self.numeric_names.same_list(&other.numeric_names) && self.token_names.same_list(&other.token_names)
    }
}

/// One view's features for a set of blocks: dense numeric columns (`NaN` = missing) and sparse
/// token columns (present when stored, weight > 0).
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureMatrix {
    numeric: Array2<f64>,
    tokens: SparseRows,
    schema: FeatureSchema,
}

impl FeatureMatrix {
    /// Builds a matrix, checking that names match columns and both tables have the same blocks.
    pub fn new(numeric: Array2<f64>, numeric_names: Vec<String>, tokens: SparseRows, token_names: Vec<String>) -> Result<Self, MatrixError> {
        Self::with_names(numeric, numeric_names.into(), tokens, token_names.into())
    }

    /// [`FeatureMatrix::new`] with shared name lists (not copied): what a view builder does for
    /// every page, since a lexical view has a name per stem of its IDF table.
    pub fn with_names(numeric: Array2<f64>, numeric_names: Names, tokens: SparseRows, token_names: Names) -> Result<Self, MatrixError> {
        if numeric.ncols() != numeric_names.len() {
            return Err(MatrixError::NamesLength { kind: "numeric", columns: numeric.ncols(), names: numeric_names.len() });
        }
        if tokens.n_columns() != token_names.len() {
            return Err(MatrixError::NamesLength { kind: "token", columns: tokens.n_columns(), names: token_names.len() });
        }
        if numeric.nrows() != tokens.n_rows() {
            return Err(MatrixError::RowCountMismatch { numeric_rows: numeric.nrows(), token_rows: tokens.n_rows() });
        }
        Ok(Self { numeric, tokens, schema: FeatureSchema { numeric_names, token_names } })
    }

    /// A matrix with numeric columns only, named `x0`, `x1`, … (the form of linfa's dense
    /// records).
    pub fn from_dense(numeric: Array2<f64>) -> Self {
        let names: Vec<String> = (0..numeric.ncols()).map(|j| format!("x{j}")).collect();
        let rows = numeric.nrows();
        Self { numeric, tokens: SparseRows::empty(rows, 0), schema: FeatureSchema { numeric_names: names.into(), token_names: Names::default() } }
    }

    /// Number of blocks.
    pub fn n_rows(&self) -> usize {
        self.numeric.nrows()
    }

    pub fn n_numeric(&self) -> usize {
        self.numeric.ncols()
    }

    pub fn n_tokens(&self) -> usize {
        self.tokens.n_columns()
    }

    /// Numeric table, blocks × numeric columns, `NaN` = missing.
    pub fn numeric(&self) -> &Array2<f64> {
        &self.numeric
    }

    pub fn tokens(&self) -> &SparseRows {
        &self.tokens
    }

    pub fn numeric_names(&self) -> &[String] {
        &self.schema.numeric_names
    }

    pub fn token_names(&self) -> &[String] {
        &self.schema.token_names
    }

    pub fn schema(&self) -> &FeatureSchema {
        &self.schema
    }

    /// The blocks `rows`, in that order (repeats allowed), with the same columns.
    pub fn select_rows(&self, rows: &[usize]) -> Result<Self, MatrixError> {
        let n_rows = self.n_rows();
        if let Some(&row) = rows.iter().find(|&&r| r >= n_rows) {
            return Err(MatrixError::RowOutOfRange { row, n_rows });
        }
        Ok(Self { numeric: self.numeric.select(Axis(0), rows), tokens: self.tokens.select_rows(rows), schema: self.schema.clone() })
    }

    /// `self`'s blocks followed by `other`'s; both must have the same schema.
    pub fn vstack(&self, other: &FeatureMatrix) -> Result<Self, MatrixError> {
        let mut out = self.clone();
        out.append(other)?;
        Ok(out)
    }

    /// Appends `other`'s blocks in place (co-training grows the labelled pool this way).
    pub fn append(&mut self, other: &FeatureMatrix) -> Result<(), MatrixError> {
        if self.schema != other.schema {
            return Err(MatrixError::SchemaMismatch {
                detail: format!("{}+{} columns vs {}+{} columns or different names", self.n_numeric(), self.n_tokens(), other.n_numeric(), other.n_tokens()),
            });
        }
        self.numeric.append(Axis(0), other.numeric.view()).map_err(|e| MatrixError::SchemaMismatch { detail: e.to_string() })?;
        self.tokens.append_rows(&other.tokens);
        Ok(())
    }

    /// The same blocks with `self`'s columns followed by `other`'s (numeric then tokens), e.g.
    /// the stylistic and lexical views joined for the single-view learner.
    pub fn hstack(&self, other: &FeatureMatrix) -> Result<Self, MatrixError> {
        if self.n_rows() != other.n_rows() {
            return Err(MatrixError::RowCountMismatch { numeric_rows: self.n_rows(), token_rows: other.n_rows() });
        }
        let numeric =
            ndarray::concatenate(Axis(1), &[self.numeric.view(), other.numeric.view()]).map_err(|e| MatrixError::SchemaMismatch { detail: e.to_string() })?;
        let numeric_names: Vec<String> = self.schema.numeric_names.iter().chain(other.schema.numeric_names.iter()).cloned().collect();
        let token_names: Vec<String> = self.schema.token_names.iter().chain(other.schema.token_names.iter()).cloned().collect();
        Ok(Self {
            numeric,
            tokens: self.tokens.hstack(&other.tokens),
            schema: FeatureSchema { numeric_names: numeric_names.into(), token_names: token_names.into() },
        })
    }

    /// Dense copy: numeric columns (missing replaced by `missing`) then token weights (0 when
    /// absent). For learners that only take dense input, such as linfa-trees.
    pub fn to_dense(&self, missing: f64) -> Array2<f64> {
        let (n, p) = (self.n_rows(), self.n_numeric());
        let mut out = Array2::zeros((n, p + self.n_tokens()));
        for ((r, c), &v) in self.numeric.indexed_iter() {
            out[(r, c)] = if v.is_nan() { missing } else { v };
        }
        for r in 0..n {
            let (cols, ws) = self.tokens.row(r);
            for (&c, &w) in cols.iter().zip(ws) {
                out[(r, p + c)] = w;
            }
        }
        out
    }
}

/// Lets a `linfa::DatasetBase<FeatureMatrix, Array1<usize>>` be built; features are counted as
/// numeric columns plus token columns.
impl Records for FeatureMatrix {
    type Elem = f64;

    fn nsamples(&self) -> usize {
        self.n_rows()
    }

    fn nfeatures(&self) -> usize {
        self.n_numeric() + self.n_tokens()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn names(prefix: &str, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{prefix}{i}")).collect()
    }

    fn small() -> FeatureMatrix {
        let tokens = SparseRows::from_rows(3, vec![vec![(2, 1.0), (0, 0.5)], vec![], vec![(1, 2.0)]]).expect("valid rows");
        FeatureMatrix::new(array![[1.0, f64::NAN], [2.0, 3.0], [4.0, 5.0]], names("n", 2), tokens, names("t", 3)).expect("valid matrix")
    }

    #[test]
    fn constructor_rejects_bad_shapes_and_entries() {
        let t = SparseRows::empty(2, 0);
        assert!(matches!(
            FeatureMatrix::new(Array2::zeros((3, 1)), names("n", 1), t.clone(), vec![]),
            Err(MatrixError::RowCountMismatch { numeric_rows: 3, token_rows: 2 })
        ));
        assert!(matches!(
            FeatureMatrix::new(Array2::zeros((2, 2)), names("n", 1), t, vec![]),
            Err(MatrixError::NamesLength { kind: "numeric", columns: 2, names: 1 })
        ));
        assert!(matches!(SparseRows::new(2, vec![0, 2], vec![1, 1], vec![1.0, 1.0]), Err(MatrixError::TokenColumnsUnsorted { row: 0, column: 1 })));
        assert!(matches!(SparseRows::new(2, vec![0, 1], vec![2], vec![1.0]), Err(MatrixError::TokenColumnOutOfRange { row: 0, column: 2, n_columns: 2 })));
        assert!(matches!(SparseRows::new(2, vec![0, 1], vec![0], vec![0.0]), Err(MatrixError::BadTokenWeight { .. })));
        assert!(matches!(SparseRows::new(2, vec![0, 2, 1], vec![0], vec![1.0]), Err(MatrixError::BadRowPointer { .. })));
    }

    #[test]
    fn select_vstack_hstack_keep_contents() {
        let m = small();
        assert_eq!(m.n_rows(), 3);
        assert_eq!(m.tokens().row(0).0, &[0, 2]);
        let s = m.select_rows(&[2, 0]).expect("rows exist");
        assert_eq!(s.numeric()[(0, 1)], 5.0);
        assert!(s.numeric()[(1, 1)].is_nan());
        assert!(s.tokens().contains(0, 1) && s.tokens().contains(1, 2));
        assert!(!s.tokens().contains(1, 1));
        assert!(matches!(m.select_rows(&[3]), Err(MatrixError::RowOutOfRange { row: 3, n_rows: 3 })));

        let v = m.vstack(&s).expect("same schema");
        assert_eq!(v.n_rows(), 5);
        assert!(v.tokens().contains(3, 1) && v.tokens().contains(4, 0));
        assert_eq!(v.tokens().nnz(), 3 + 3);
        let other = FeatureMatrix::from_dense(Array2::zeros((3, 2)));
        assert!(matches!(m.vstack(&other), Err(MatrixError::SchemaMismatch { .. })));

        let h = m.hstack(&m).expect("same rows");
        assert_eq!((h.n_numeric(), h.n_tokens()), (4, 6));
        assert!(h.tokens().contains(2, 4) && h.tokens().contains(2, 1));
        assert_eq!(h.numeric()[(1, 3)], 3.0);
        assert_eq!(h.token_names()[5], "t2");
        assert_eq!(h.nfeatures(), 10);
    }

    #[test]
    fn shared_names_compare_without_copies_and_serialise_as_lists() {
        let m = small();
        let n = FeatureMatrix::with_names(m.numeric().clone(), m.schema().numeric_names.clone(), m.tokens().clone(), m.schema().token_names.clone())
            .expect("same shapes");
        assert!(n.schema().same_lists(m.schema()));
        let s = m.select_rows(&[1]).expect("row exists");
        assert!(s.schema().same_lists(m.schema()), "row subsets share the lists");
        // Equal names in different lists are still equal, just not shared.
        let copy = small();
        assert!(!copy.schema().same_lists(m.schema()));
        assert_eq!(copy.schema(), m.schema());
        let json = serde_json::to_string(m.schema()).expect("serialises");
        assert_eq!(json, r#"{"numeric_names":["n0","n1"],"token_names":["t0","t1","t2"]}"#);
        let back: FeatureSchema = serde_json::from_str(&json).expect("reads back");
        assert_eq!(&back, m.schema());
        assert!(matches!(
            FeatureMatrix::with_names(Array2::zeros((3, 1)), Names::default(), SparseRows::empty(3, 0), Names::default()),
            Err(MatrixError::NamesLength { kind: "numeric", columns: 1, names: 0 })
        ));
    }

    #[test]
    fn dense_copy_and_column_lists() {
        let m = small();
        let d = m.to_dense(-1.0);
        assert_eq!(d.ncols(), 5);
        assert_eq!(d[(0, 1)], -1.0);
        assert_eq!(d[(0, 4)], 1.0);
        assert_eq!(d[(1, 2)], 0.0);
        assert_eq!(m.tokens().column_rows(), vec![vec![0], vec![2], vec![0]]);
    }
}
