//! Multi-class Hamming trees (Kégl, *The return of AdaBoost.MH: multi-class Hamming trees*,
//! ICLR 2014): a round's weak hypothesis grown as a tree whose classes share one partition of
//! the blocks, each leaf voting one confidence per class, c_jl = ½·ln((W₊ʲˡ + ε)/(W₋ʲˡ + ε)), as
//! a stump's parts do (Schapire & Singer 1999, section 4). The tree is a domain-partitioning
//! hypothesis, so its Z = 2·Σ_j Σ_l sqrt(W₊ʲˡ·W₋ʲˡ) is a sum over its leaves, and splitting a
//! leaf changes Z by that leaf's term alone. The tree therefore grows best-first: each step
//! splits the leaf whose best split (the stump minimising Z over the leaf's blocks) lowers Z
//! most, until the tree has its budget of tests or no split lowers Z.
//!
//! A stump model adds one column's vote per round, so it cannot say "short *and* after a
//! title *and* the view calls it navigation": a tree can, in one round.
//!
//! Speed: a leaf's split is searched over its own blocks alone ([`TrainIndex::best_split_in`]
//! on the leaf's [`NodeIndex`]): when a leaf is split, its blocks' sorted order in every column
//! is partitioned among its children ([`TrainIndex::split`], one walk of the leaf's blocks per
//! column), so the children's searches walk and read the weights of their own blocks only.

use super::distribution::Distribution;
use super::partition::NodeIndex;
use super::search::{Candidate, TrainIndex};
use super::stump::{Stump, StumpTest};

/// A grown tree with what the boosting round needs of it.
pub(super) struct Grown {
    pub tree: Stump,
    /// Per training block, its leaf (an index into `outputs`).
    pub leaves: Vec<u16>,
    /// Per leaf, its confidence per class.
    pub outputs: Vec<Vec<f64>>,
    /// The tree's Z over the training blocks.
    pub z: f64,
}

/// A node of the tree being grown.
struct Building {
    /// Per-class W₊ and W₋ of its blocks (f64, then from the f32 copy; padded).
    totals: [Vec<f64>; 4],
    /// Its best split and how much that split lowers Z, while it is an unsplit leaf.
    best: Option<(Candidate, f64)>,
    /// Its test and the node under each branch, once split (a branch with no block has none).
    split: Option<(StumpTest, [Option<u16>; 3])>,
    /// Its blocks in every column's search order, while it is a leaf that may be split (the
    /// root has none: its blocks are all the training blocks).
    index: Option<NodeIndex>,
}

/// Grows one round's tree of at most `max_splits` tests under D, from the root's split `root`
/// (the round's best stump, already searched; the root is split by it whatever its gain, as a
/// stump round would be). Node ids fit `u16` for up to 21,000 tests, far beyond the
/// parameter's limit.
pub(super) fn grow(index: &TrainIndex, d: &Distribution, root: Candidate, max_splits: usize, epsilon: f64) -> Option<Grown> {
    let n = d.labels.len();
    let mut node_of = vec![0u16; n];
    let (pos, neg) = d.totals(false);
    let (pos32, neg32) = d.totals(true);
    let totals = [pos.to_vec(), neg.to_vec(), pos32.to_vec(), neg32.to_vec()];
    let mut nodes = vec![Building { totals, best: Some((root, f64::INFINITY)), split: None, index: None }];
    for made in 1..=max_splits {
        // The leaf whose split lowers Z most; the lowest id on ties.
        let leaf_gains = nodes.iter().enumerate().filter_map(|(j, node)| node.best.map(|(_, gain)| (j, gain)).filter(|&(_, gain)| gain > 0.0));
        let Some((j, _)) = leaf_gains.reduce(|a, b| if b.1 > a.1 { b } else { a }) else {
            break;
        };
        let Some((c, _)) = nodes[j].best.take() else { break };
        let parent_index = nodes[j].index.take();
        let branches = index.branches(&c);
        let parent = j as u16;
        let mut used = [false; 3];
        for (&node, &b) in node_of.iter().zip(&branches) {
            if node == parent {
                used[b as usize] = true;
            }
        }
        let mut children = [None; 3];
        for (id, (child, _)) in (nodes.len()..).zip(children.iter_mut().zip(used).filter(|(_, u)| *u)) {
            *child = Some(id as u16);
        }
        for (node, &b) in node_of.iter_mut().zip(&branches) {
            if *node == parent {
                *node = children[b as usize].unwrap_or(parent);
            }
        }
        nodes[j].split = Some((index.test(&c), children));
        // The last split's children stay leaves: they need no search, so no index.
        let mut indexes = if made < max_splits {
            let part_of: Vec<u8> = branches.iter().map(|&b| b as u8).collect();
            index.split(parent_index.as_ref(), &part_of, 3)
        } else {
            Vec::new()
        };
        for (b, id) in children.into_iter().enumerate().filter_map(|(b, id)| Some((b, id?))) {
            let totals = d.node_totals(&node_of, id);
            let node_index = indexes.get_mut(b).map(std::mem::take);
            let best = node_index.as_ref().and_then(|node| index.best_split_in(d, &totals, node));
            let best = best.map(|c| (c, unsplit_z(&totals) - c.z));
            nodes.push(Building { totals, best, split: None, index: node_index });
        }
    }
    // Leaves numbered in node order.
    let k = d.k;
    let mut leaf_of_node = vec![u16::MAX; nodes.len()];
    let mut outputs = Vec::new();
    let mut z = 0.0;
    for (j, node) in nodes.iter().enumerate() {
        if node.split.is_none() {
            leaf_of_node[j] = outputs.len() as u16;
            outputs.push(votes(&node.totals, k, epsilon));
            z += unsplit_z(&node.totals);
        }
    }
    let leaves = node_of.iter().map(|&j| leaf_of_node[j as usize]).collect();
    // The root always has its split (its gain is infinite), so a tree comes back.
    let tree = to_stump(&nodes, 0, k, epsilon)?;
    Some(Grown { tree, leaves, outputs, z })
}

/// 2·Σ_l sqrt(W₊ˡ·W₋ˡ): the Z of a node left whole.
fn unsplit_z(totals: &[Vec<f64>; 4]) -> f64 {
    2.0 * totals[0].iter().zip(&totals[1]).map(|(p, q)| (p * q).sqrt()).sum::<f64>()
}

/// A node's confidences per class (l < k), from its totals.
fn votes(totals: &[Vec<f64>; 4], k: usize, epsilon: f64) -> Vec<f64> {
    super::fit::confidences(&totals[0][..k], &totals[1][..k], epsilon)
}

/// The split node `j` and what is under it as a [`Stump`] with children: a branch leading to a
/// leaf predicts the leaf's votes; a branch leading to a split node predicts through its child
/// (its `outputs` entry holds that node's own votes, unused); a branch without blocks abstains.
/// `None` if node `j` is a leaf.
fn to_stump(nodes: &[Building], j: usize, k: usize, epsilon: f64) -> Option<Stump> {
    let (test, under) = nodes[j].split.as_ref()?;
    let mut outputs: [Vec<f64>; 3] = std::array::from_fn(|_| vec![0.0; k]);
    let mut children: [Option<Stump>; 3] = Default::default();
    for b in 0..3 {
        if let Some(c) = under[b] {
            let c = c as usize;
            outputs[b] = votes(&nodes[c].totals, k, epsilon);
            children[b] = to_stump(nodes, c, k, epsilon);
        }
    }
    let children = children.iter().any(Option::is_some).then(|| Box::new(children));
    Some(Stump { test: test.clone(), outputs, children })
}
