//! Confidence-rated decision stumps: a one-feature test splitting blocks into at most three
//! parts, each predicting one real confidence per class (Schapire & Singer 1999, section 4:
//! "domain-partitioning" weak hypotheses). A stump may carry a stump under each of its parts
//! (`children`), and they theirs: a tree, still one domain partition with one confidence per
//! part and class, so everything S&S prove of domain-partitioning hypotheses holds for it (see
//! `AdaBoostMhParams::depth` and `AdaBoostMhParams::splits`).

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
    /// For a tree (`depth = 2`, `splits` > 1), the stump that splits the blocks of each branch
    /// further; a branch without one is a leaf predicting `outputs[branch]`. Absent from stump
    /// models, whose JSON is unchanged by this field.
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

    /// This stump and every stump under it, parents before children.
    pub fn nodes(&self) -> impl Iterator<Item = &Stump> {
        let mut out = vec![self];
        let mut at = 0;
        while let Some(node) = out.get(at).copied() {
            out.extend(node.children.iter().flat_map(|c| c.iter().flatten()));
            at += 1;
        }
        out.into_iter()
    }

    /// Levels of tests: 1 for a stump, 2 for a stump with children, and so on.
    pub fn levels(&self) -> usize {
        1 + self.children.iter().flat_map(|c| c.iter().flatten()).map(Stump::levels).max().unwrap_or(0)
    }

    /// The branch block `row` takes, reading a token test's blocks from `present`.
    fn branch_with(&self, x: &FeatureMatrix, present: &TokenRows, row: usize) -> Branch {
        match self.test {
            StumpTest::Present { column } => {
                if present.rows(column).binary_search(&(row as u32)).is_ok() {
                    Branch::True
                } else {
                    Branch::False
                }
            }
            StumpTest::AtMost { .. } => self.branch(x, row),
        }
    }

    /// Adds to the scores of blocks `rows` the output of the leaf each reaches under this node.
    fn add_leaves_to(&self, x: &FeatureMatrix, present: &TokenRows, rows: &[usize], scores: &mut ndarray::Array2<f64>) {
        let mut parts: [Vec<usize>; 3] = Default::default();
        for &row in rows {
            parts[self.branch_with(x, present, row) as usize].push(row);
        }
        for (b, part) in parts.iter().enumerate() {
            match self.children.as_ref().and_then(|c| c[b].as_ref()) {
                Some(child) => child.add_leaves_to(x, present, part, scores),
                None => {
                    for &row in part {
                        add(scores.row_mut(row).iter_mut(), &self.outputs[b]);
                    }
                }
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
        if self.children.is_some() {
            // A tree: the blocks are parted node by node down to their leaves.
            let rows: Vec<usize> = (0..x.n_rows().min(scores.nrows())).collect();
            self.add_leaves_to(x, present, &rows, scores);
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
