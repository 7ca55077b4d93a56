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
//! Speed: a leaf's split is searched over its own blocks ([`TrainIndex::best_split_in`]),
//! which skips the weights of every other block, the search's costly reads when the weights
//! outgrow the cache (blocks × classes × 8 bytes: 20 MB for the 17-label stage). It still walks
//! every block's index in each column's sorted order and in each token column to find the
//! node's, so a node costs that walk plus its own blocks' weights. On the boosting benchmark
//! with 60,000 blocks (`reports/benchmarks/boost.md`) a round of a 4-test tree (10 node
//! searches) costs 4.7 stump rounds and a `depth = 2` round (4 searches) 2.6; on 2,000 blocks,
//! whose weights fit the cache, 6.7 and 3.5. Keeping each node's blocks in sorted order per
//! column (partitioned from the parent's at each split) would make a node cost its blocks
//! alone; not done.

use super::distribution::Distribution;
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
    let mut nodes = vec![Building { totals, best: Some((root, f64::INFINITY)), split: None }];
    for made in 1..=max_splits {
        // The leaf whose split lowers Z most; the lowest id on ties.
        let leaf_gains = nodes.iter().enumerate().filter_map(|(j, node)| node.best.map(|(_, gain)| (j, gain)).filter(|&(_, gain)| gain > 0.0));
        let Some((j, _)) = leaf_gains.reduce(|a, b| if b.1 > a.1 { b } else { a }) else {
            break;
        };
        let Some((c, _)) = nodes[j].best.take() else { break };
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
        for id in children.into_iter().flatten() {
            let totals = d.node_totals(&node_of, id);
            // The last split's children stay leaves: their splits need no search.
            let best = (made < max_splits).then(|| index.best_split_in(d, &totals, &node_of, id)).flatten();
            let best = best.map(|c| (c, unsplit_z(&totals) - c.z));
            nodes.push(Building { totals, best, split: None });
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
