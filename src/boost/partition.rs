//! The blocks of one tree node in the forms the search scans ([`NodeIndex`]), partitioned from
//! the parent's at each split, so that searching a node costs its own blocks alone.
//!
//! Every numeric column's sorted order holds every block once, so a node's order in a column is
//! the stable filter of its parent's to the node's blocks: the same blocks in the same order as
//! a walk of the whole column that skips the others. The search therefore adds the same weights
//! in the same order, and its sums are bit-identical to those of a search under D restricted to
//! the node. Only which part the screening leaves unsummed (the node's largest, not the whole
//! column's) differs, and screening only decides which cuts get their exact Z.

use super::bins::{largest_part, Sorted};

/// One tree node's training blocks in every column's search order.
#[derive(Debug, Clone, Default)]
pub(crate) struct NodeIndex {
    /// The node's blocks, increasing.
    pub(super) rows: Vec<u32>,
    /// Per numeric column, the node's blocks in its sorted order.
    pub(super) numeric: Vec<NodeColumn>,
    /// The node's blocks holding each token column, column after column (each increasing);
    /// none for the columns the search skips.
    pub(super) token_rows: Vec<u32>,
    /// Per token column, where its blocks end in `token_rows` (they start where the previous
    /// column's end).
    pub(super) token_ends: Vec<usize>,
}

impl NodeIndex {
    /// The node's blocks holding token column `t`.
    pub(super) fn token(&self, t: usize) -> &[u32] {
        let start = if t == 0 { 0 } else { self.token_ends[t - 1] };
        &self.token_rows[start..self.token_ends[t]]
    }
}

/// One numeric column's blocks of a node, sorted by bin, with the node's bin ends (see [`Sorted`]).
#[derive(Debug, Clone, Default)]
pub(super) struct NodeColumn {
    order: Vec<u32>,
    bin_ends: Vec<usize>,
    largest: usize,
}

impl NodeColumn {
    pub(super) fn sorted(&self) -> Sorted<'_> {
        Sorted { order: &self.order, bin_ends: &self.bin_ends, largest: self.largest }
    }
}

/// Splits `parent` (some blocks of one column, in sorted order) into `sizes.len()` nodes by
/// `part_of[block]`, keeping the order: node p gets `sizes[p]` blocks (every block is in every
/// column's order once, so a node's size is known before the walk).
pub(super) fn split_column(parent: Sorted, part_of: &[u8], sizes: &[usize]) -> Vec<NodeColumn> {
    let n_bins = parent.n_bins();
    let mut out: Vec<NodeColumn> =
        sizes.iter().map(|&size| NodeColumn { order: Vec::with_capacity(size), bin_ends: Vec::with_capacity(n_bins), largest: 0 }).collect();
    let mut start = 0;
    for b in 0..=n_bins {
        let end = parent.bin_ends.get(b).copied().unwrap_or(parent.order.len());
        for &r in &parent.order[start..end] {
            out[part_of[r as usize] as usize].order.push(r);
        }
        if b < n_bins {
            for node in &mut out {
                node.bin_ends.push(node.order.len());
            }
        }
        start = end;
    }
    for node in &mut out {
        node.largest = largest_part(&node.bin_ends, node.order.len());
    }
    out
}

/// Splits increasing `rows` into `n_parts` increasing lists by `part_of[row]`.
pub(super) fn split_rows(rows: &[u32], part_of: &[u8], n_parts: usize) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); n_parts];
    for &r in rows {
        out[part_of[r as usize] as usize].push(r);
    }
    out
}

/// Splits the parent's blocks of every token column (`parent_rows(t)`, increasing; only the
/// columns `searched[t]`) into `n_parts` nodes by `part_of[block]`: per node, its
/// `(token_rows, token_ends)`. Flat lists, so a split costs a few allocations however large
/// the vocabulary.
pub(super) fn split_tokens<'p>(searched: &[bool], parent_rows: impl Fn(usize) -> &'p [u32], part_of: &[u8], n_parts: usize) -> Vec<(Vec<u32>, Vec<usize>)> {
    let mut out: Vec<(Vec<u32>, Vec<usize>)> = (0..n_parts).map(|_| (Vec::new(), Vec::with_capacity(searched.len()))).collect();
    for (t, &searched) in searched.iter().enumerate() {
        if searched {
            for &r in parent_rows(t) {
                out[part_of[r as usize] as usize].0.push(r);
            }
        }
        for (rows, ends) in &mut out {
            ends.push(rows.len());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::bins::NumericColumn;
    use super::*;

    /// A node's column is the whole column's walk with the other blocks skipped, bin by bin,
    /// and its largest part is counted over the node's blocks.
    #[test]
    fn a_node_column_is_the_parents_order_filtered_to_the_node() {
        let values = ndarray::array![3.0, f64::NAN, 1.0, 3.0, 2.0, f64::NAN, 1.0, 3.0];
        let col = NumericColumn::new(values.view(), None);
        let part_of = [0u8, 1, 1, 0, 1, 0, 1, 0];
        let nodes = split_column(col.sorted(), &part_of, &[4, 4]);
        // Node 0: blocks 0, 3, 7 (value 3.0: bin 2) and 5 (missing).
        assert_eq!(nodes[0].order, vec![0, 3, 7, 5]);
        assert_eq!(nodes[0].bin_ends, vec![0, 0, 3]);
        assert_eq!(nodes[0].largest, 2);
        // Node 1: blocks 2, 6 (1.0), 4 (2.0), 1 (missing); bin 0 is its largest part.
        assert_eq!(nodes[1].order, vec![2, 6, 4, 1]);
        assert_eq!(nodes[1].bin_ends, vec![2, 3, 3]);
        assert_eq!(nodes[1].largest, 0);
        // Splitting a node again keeps the order.
        let again = split_column(nodes[1].sorted(), &[0, 0, 1, 0, 0, 0, 0, 0], &[3, 1]);
        assert_eq!((again[0].order.clone(), again[1].order.clone()), (vec![6, 4, 1], vec![2]));
        assert_eq!((again[0].bin_ends.clone(), again[1].bin_ends.clone()), (vec![1, 2, 2], vec![1, 1, 1]));
        assert_eq!(split_rows(&[1, 2, 4, 6], &part_of, 2), vec![vec![], vec![1, 2, 4, 6]]);
    }

    /// Token columns split into flat lists per node; a skipped column has no blocks in any.
    #[test]
    fn token_columns_split_into_flat_lists() {
        let columns: [&[u32]; 3] = [&[0, 1, 3], &[1, 2], &[0, 2, 3]];
        let parts = split_tokens(&[true, false, true], |t| columns[t], &[0, 1, 1, 0], 2);
        let node = |p: usize| NodeIndex { token_rows: parts[p].0.clone(), token_ends: parts[p].1.clone(), ..NodeIndex::default() };
        let (a, b) = (node(0), node(1));
        assert_eq!((a.token(0), a.token(1), a.token(2)), (&[0, 3][..], &[][..], &[0, 3][..]));
        assert_eq!((b.token(0), b.token(1), b.token(2)), (&[1][..], &[][..], &[2][..]));
    }
}
