//! Confidence-rated decision stumps: a one-feature test splitting blocks into at most three
//! parts, each predicting one real confidence per class (Schapire & Singer 1999, section 4:
//! "domain-partitioning" weak hypotheses). A stump may carry a stump under each of its parts
//! (`children`): a two-level tree, still one domain partition (into at most nine parts) with
//! one confidence per part and class, so everything S&S prove of domain-partitioning
//! hypotheses holds for it (see `AdaBoostMhParams::depth`).

use crate::matrix::FeatureMatrix;
use serde::{Deserialize, Serialize};

/// The test a stump applies to a block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StumpTest {
    /// Numeric column `column`: `x ≤ threshold` (true), `x > threshold` (false), `NaN` (missing).
    AtMost { column: usize, threshold: f64 },
    /// Token column `column`: present (true) or absent (false). Never missing.
    Present { column: usize },
}

/// Which part of a stump's partition a block falls into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Branch {
    True = 0,
    False = 1,
    Missing = 2,
}

/// One boosting round's weak hypothesis: a test and, per branch, one confidence per class
/// (positive votes for the class, negative against, magnitude = confidence).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stump {
    pub test: StumpTest,
    /// `outputs[branch][class]` for branches [`Branch::True`], [`Branch::False`],
    /// [`Branch::Missing`] (all zeros for token tests and for features never missing in
    /// training, i.e. the stump abstains).
    pub outputs: [Vec<f64>; 3],
    /// For a two-level tree (`depth = 2`), the stump that splits the blocks of each branch
    /// further; a branch without one is a leaf predicting `outputs[branch]`. Children have no
    /// children. Absent from stump models, whose JSON is unchanged by this field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<Box<[Option<Stump>; 3]>>,
}

impl Stump {
    /// The branch block `row` of `x` takes. A column the matrix does not have reads as
    /// missing (numeric) or absent (token), so a model applied to a narrower schema degrades
    /// instead of failing; the checked prediction methods reject such matrices beforehand.
    pub fn branch(&self, x: &FeatureMatrix, row: usize) -> Branch {
        match self.test {
            StumpTest::AtMost { column, threshold } => {
                let v = x.numeric().get((row, column)).copied().unwrap_or(f64::NAN);
                if v.is_nan() {
                    Branch::Missing
                } else if v <= threshold {
                    Branch::True
                } else {
                    Branch::False
                }
            }
            StumpTest::Present { column } => {
                if x.tokens().contains(row, column) {
                    Branch::True
                } else {
                    Branch::False
                }
            }
        }
    }

    /// Per-class confidences for block `row` (the leaf it reaches in a tree).
    pub fn output(&self, x: &FeatureMatrix, row: usize) -> &[f64] {
        let b = self.branch(x, row);
        match self.child(b) {
            Some(child) => child.output(x, row),
            None => &self.outputs[b as usize],
        }
    }

    /// The stump under branch `b`, if this is a tree with one there.
    pub fn child(&self, b: Branch) -> Option<&Stump> {
        self.children.as_ref().and_then(|c| c[b as usize].as_ref())
    }

    /// This stump and its children, if any.
    pub fn nodes(&self) -> impl Iterator<Item = &Stump> {
        std::iter::once(self).chain(self.children.iter().flat_map(|c| c.iter().flatten()))
    }

    /// The branch every block of `x` takes (the fast paths of [`Stump::add_to`]).
    fn branches(&self, x: &FeatureMatrix, present: &TokenRows) -> Vec<Branch> {
        match self.test {
            StumpTest::AtMost { column, threshold } if column < x.n_numeric() => x
                .numeric()
                .column(column)
                .iter()
                .map(|&v| {
                    if v.is_nan() {
                        Branch::Missing
                    } else if v <= threshold {
                        Branch::True
                    } else {
                        Branch::False
                    }
                })
                .collect(),
            StumpTest::AtMost { .. } => vec![Branch::Missing; x.n_rows()],
            StumpTest::Present { column } => {
                let mut out = vec![Branch::False; x.n_rows()];
                for &r in present.rows(column) {
                    if let Some(b) = out.get_mut(r as usize) {
                        *b = Branch::True;
                    }
                }
                out
            }
        }
    }

    /// Adds this stump's output to every block's scores (`scores` is blocks × classes). The
    /// test is matched once per stump, not per block, and rows are plain slices: applying a
    /// model is a tenth of `parcels extract`'s time. A token test reads the blocks holding its
    /// token from `present` (built once per matrix for all of a model's stumps) instead of
    /// searching every block's row. Each score receives the same additions in the same order as
    /// through [`Stump::output`], so the sums are bit-identical.
    pub(crate) fn add_to(&self, x: &FeatureMatrix, present: &TokenRows, scores: &mut ndarray::Array2<f64>) {
        if let Some(children) = &self.children {
            // A tree: each block's root branch, then its branch under that branch's child.
            let root = self.branches(x, present);
            let under: Vec<Option<Vec<Branch>>> = children.iter().map(|c| c.as_ref().map(|c| c.branches(x, present))).collect();
            for (row, mut s) in scores.outer_iter_mut().enumerate() {
                let b = root[row] as usize;
                let out = match (&children[b], &under[b]) {
                    (Some(child), Some(branches)) => &child.outputs[branches[row] as usize],
                    _ => &self.outputs[b],
                };
                add(s.iter_mut(), out);
            }
            return;
        }
        let k = scores.ncols();
        let Some(flat) = scores.as_slice_mut().filter(|_| k > 0) else {
            for (row, mut s) in scores.outer_iter_mut().enumerate() {
                add(s.iter_mut(), self.output(x, row));
            }
            return;
        };
        let rows = flat.chunks_exact_mut(k);
        match self.test {
            StumpTest::AtMost { column, threshold } if column < x.n_numeric() => {
                for (s, &v) in rows.zip(x.numeric().column(column)) {
                    let branch = if v.is_nan() {
                        Branch::Missing
                    } else if v <= threshold {
                        Branch::True
                    } else {
                        Branch::False
                    };
                    add(s.iter_mut(), &self.outputs[branch as usize]);
                }
            }
            StumpTest::AtMost { .. } => {
                for s in rows {
                    add(s.iter_mut(), &self.outputs[Branch::Missing as usize]);
                }
            }
            StumpTest::Present { column } => {
                let mut holding = present.rows(column).iter().map(|&r| r as usize).peekable();
                for (row, s) in rows.enumerate() {
                    let branch = if holding.next_if_eq(&row).is_some() { Branch::True } else { Branch::False };
                    add(s.iter_mut(), &self.outputs[branch as usize]);
                }
            }
        }
    }
}

/// For the token columns some stumps test, the blocks of a matrix holding each token
/// (increasing): one pass over the matrix's non-zeros per prediction instead of a binary search
/// per block and stump.
pub(crate) struct TokenRows {
    /// Per token column of the matrix, its slot in `rows` plus one (0: no stump tests it).
    slot: Vec<u32>,
    rows: Vec<Vec<u32>>,
}

impl TokenRows {
    pub(crate) fn new(stumps: &[Stump], x: &FeatureMatrix) -> Self {
        let tokens = x.tokens();
        let mut slot = vec![0u32; tokens.n_columns()];
        let mut rows = Vec::new();
        for stump in stumps.iter().flat_map(Stump::nodes) {
            if let StumpTest::Present { column } = stump.test {
                if let Some(s) = slot.get_mut(column).filter(|s| **s == 0) {
                    rows.push(Vec::new());
                    *s = u32::try_from(rows.len()).unwrap_or(u32::MAX);
                }
            }
        }
        if !rows.is_empty() {
            for row in 0..x.n_rows() {
                for &c in tokens.row(row).0 {
                    if let Some(list) = slot.get(c).and_then(|&s| (s as usize).checked_sub(1)).and_then(|s| rows.get_mut(s)) {
                        list.push(u32::try_from(row).unwrap_or(u32::MAX));
                    }
                }
            }
        }
        Self { slot, rows }
    }

    /// The blocks holding token `column` (none for a column no stump tests, or that the
    /// matrix does not have).
    pub(crate) fn rows(&self, column: usize) -> &[u32] {
        self.slot.get(column).and_then(|&s| (s as usize).checked_sub(1)).and_then(|s| self.rows.get(s)).map_or(&[], Vec::as_slice)
    }
}

/// `acc[l] += outputs[l]` for each class `l`.
fn add<'a>(acc: impl Iterator<Item = &'a mut f64>, outputs: &[f64]) {
    for (a, &o) in acc.zip(outputs) {
        *a += o;
    }
}
