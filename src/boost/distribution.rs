//! The boosting distribution D over (block, class) pairs: its layout (see the `search`
//! module docs), its initialisation and the reweighting step.

use super::kernels::{add_assign, padded};
use super::stump::{Branch, Stump};

/// Current distribution D over (block, class) pairs, in the layout of the module docs.
#[derive(Debug, Clone)]
pub(crate) struct Distribution {
    pub(super) k: usize,
    /// Row length of `neg`: k padded to a multiple of [`LANES`].
    pub(super) stride: usize,
    pub(super) labels: Vec<usize>,
    pub(super) pos: Vec<f64>,
    pub(super) neg: Vec<f64>,
    /// `neg` rounded to f32 (refreshed after every reweighting) for the screening stage:
    /// half the memory traffic of the f64 weights.
    pub(super) neg32: Vec<f32>,
    /// Per block (W₊ as f32, class): what the screening stage reads for W₊ with one load.
    pub(super) pos32: Vec<(f32, u32)>,
    /// Per-class W₊ and W₋ over all blocks (padded to the stride), from the f64 weights and
    /// from the f32 copy; kept up to date by [`Distribution::reweight`], which sums them in the
    /// same pass that normalises the weights.
    totals: [Vec<f64>; 4],
}

impl Distribution {
    /// D₁ from one initial weight per block (already normalised so that k times their sum is 1).
    pub fn new(labels: &[usize], k: usize, block_weights: &[f64]) -> Self {
        let stride = padded(k);
        let mut neg = vec![0.0; labels.len() * stride];
        for (i, (&y, &w)) in labels.iter().zip(block_weights).enumerate() {
            neg[i * stride..i * stride + k].iter_mut().for_each(|x| *x = w);
            neg[i * stride + y] = 0.0;
        }
        let labels32 = labels.iter().map(|&y| u32::try_from(y).unwrap_or(u32::MAX));
        let pos32 = block_weights.iter().zip(labels32).map(|(&w, y)| (w as f32, y)).collect();
        let mut d = Self {
            k,
            stride,
            labels: labels.to_vec(),
            pos: block_weights.to_vec(),
            neg32: neg.iter().map(|&x| x as f32).collect(),
            pos32,
            neg,
            totals: Default::default(),
        };
        d.totals = std::array::from_fn(|_| vec![0.0; stride]);
        for i in 0..d.labels.len() {
            d.add_to_totals(i);
        }
        d
    }

    /// Adds block `i`'s weights (f64 and f32) to the totals. Called for i = 0, 1, … in order,
    /// so every total is summed in block order.
    #[inline(always)]
    fn add_to_totals(&mut self, i: usize) {
        let s = self.stride;
        let [pos, neg, pos32, neg32] = &mut self.totals;
        let y = self.labels[i];
        pos[y] += self.pos[i];
        pos32[y] += f64::from(self.pos32[i].0);
        for (a, &w) in neg.iter_mut().zip(&self.neg[i * s..(i + 1) * s]) {
            *a += w;
        }
        for (a, &w) in neg32.iter_mut().zip(&self.neg32[i * s..(i + 1) * s]) {
            *a += f64::from(w);
        }
    }

    /// Per-class W₊ and W₋ over all blocks (padded to the stride), from the f64 weights or,
    /// with `rounded`, from the f32 copy the screening stage reads.
    pub(super) fn totals(&self, rounded: bool) -> (&[f64], &[f64]) {
        let [pos, neg, pos32, neg32] = &self.totals;
        if rounded {
            (pos32, neg32)
        } else {
            (pos, neg)
        }
    }

    /// D with every block outside `inside` at weight 0 (not renormalised): what a tree node's
    /// search must agree with (tests compare [`TrainIndex::best_split_in`](super::search::TrainIndex::best_split_in)
    /// with a search under it).
    #[cfg(test)]
    pub fn restricted(&self, inside: impl Fn(usize) -> bool) -> Self {
        let s = self.stride;
        let mut d = self.clone();
        d.totals.iter_mut().for_each(|t| t.fill(0.0));
        for i in 0..d.labels.len() {
            if !inside(i) {
                d.pos[i] = 0.0;
                d.pos32[i].0 = 0.0;
                d.neg[i * s..(i + 1) * s].fill(0.0);
                d.neg32[i * s..(i + 1) * s].fill(0.0);
            }
            d.add_to_totals(i);
        }
        d
    }

    /// Per-class W₊ and W₋ of the blocks `i` with `node_of[i] == node` (padded to the
    /// stride), from the f64 weights then from the f32 copy, summed in block order as
    /// [`totals`](Self::totals) are: the totals a tree node's search starts from.
    pub fn node_totals(&self, node_of: &[u16], node: u16) -> [Vec<f64>; 4] {
        let s = self.stride;
        let mut t: [Vec<f64>; 4] = std::array::from_fn(|_| vec![0.0; s]);
        let [pos, neg, pos32, neg32] = &mut t;
        for (i, _) in node_of.iter().enumerate().filter(|(_, &n)| n == node) {
            let y = self.labels[i];
            pos[y] += self.pos[i];
            pos32[y] += f64::from(self.pos32[i].0);
            for (a, &w) in neg.iter_mut().zip(&self.neg[i * s..(i + 1) * s]) {
                *a += w;
            }
            for (a, &w) in neg32.iter_mut().zip(&self.neg32[i * s..(i + 1) * s]) {
                *a += f64::from(w);
            }
        }
        t
    }

    /// W₊ʲˡ and W₋ʲˡ (l < k) for each branch j of a partition given per block, over the blocks
    /// of one tree node (`node_of[i] == node`) or, without one, over all blocks.
    pub fn branch_weights(&self, branches: &[Branch], node: Option<(&[u16], u16)>) -> [(Vec<f64>, Vec<f64>); 3] {
        let (k, s) = (self.k, self.stride);
        let mut w: [(Vec<f64>, Vec<f64>); 3] = std::array::from_fn(|_| (vec![0.0; s], vec![0.0; s]));
        for (i, &b) in branches.iter().enumerate() {
            if node.is_some_and(|(node_of, n)| node_of[i] != n) {
                continue;
            }
            let (pos, neg) = &mut w[b as usize];
            pos[self.labels[i]] += self.pos[i];
            add_assign(neg, &self.neg[i * s..(i + 1) * s]);
        }
        w.map(|(mut p, mut n)| {
            p.truncate(k);
            n.truncate(k);
            (p, n)
        })
    }

    /// Reweighting step (S&S 1999, AdaBoost.MH update, with α absorbed in h):
    /// D(i,l) ← D(i,l)·exp(−Y_il·h(xᵢ,l)) / Z_t. Returns the normaliser Z_t, or `None` when
    /// it is not a positive finite number (weights overflowed or vanished).
    pub fn reweight(&mut self, stump: &Stump, branches: &[Branch]) -> Option<f64> {
        let outputs: Vec<&[f64]> = stump.outputs.iter().map(Vec::as_slice).collect();
        let leaves: Vec<u16> = branches.iter().map(|&b| b as u16).collect();
        self.reweight_leaves(&outputs, &leaves)
    }

    /// The reweighting step for any domain partition: block i is in part `leaves[i]`, which
    /// predicts `outputs[leaves[i]]` (a stump's three branches, or a tree's leaves).
    pub fn reweight_leaves(&mut self, outputs: &[&[f64]], leaves: &[u16]) -> Option<f64> {
        let s = self.stride;
        // exp(±c) once per part and class rather than once per (block, class) pair; padding
        // classes get factor 1 (their weight stays 0).
        let factors = |sign: f64| -> Vec<Vec<f64>> {
            outputs
                .iter()
                .map(|o| {
                    let mut f: Vec<f64> = o.iter().map(|c| (sign * c).exp()).collect();
                    f.resize(s, 1.0);
                    f
                })
                .collect()
        };
        let (up, down) = (factors(1.0), factors(-1.0));
        let mut z = 0.0;
        for (i, &j) in leaves.iter().enumerate() {
            let j = j as usize;
            // Y = +1 for the true class: weight shrinks when the stump votes for it.
            self.pos[i] *= down[j][self.labels[i]];
            z += self.pos[i];
            // Y = −1 for the other classes: weight grows when the stump votes for them.
            for (w, &f) in self.neg[i * s..(i + 1) * s].iter_mut().zip(&up[j]) {
                *w *= f;
                z += *w;
            }
        }
        if !(z.is_finite() && z > 0.0) {
            return None;
        }
        self.totals.iter_mut().for_each(|t| t.fill(0.0));
        for i in 0..self.labels.len() {
            self.pos[i] /= z;
            self.pos32[i].0 = self.pos[i] as f32;
            for (w, w32) in self.neg[i * s..(i + 1) * s].iter_mut().zip(&mut self.neg32[i * s..(i + 1) * s]) {
                *w /= z;
                *w32 = *w as f32;
            }
            self.add_to_totals(i);
        }
        Some(z)
    }
}

#[cfg(test)]
mod tests {
    use super::super::stump::StumpTest;
    use super::*;

    #[test]
    fn reweighting_reports_overflow_instead_of_producing_infinities() {
        let mut d = Distribution::new(&[0, 1], 2, &[0.25, 0.25]);
        let stump = Stump { test: StumpTest::Present { column: 0 }, outputs: [vec![0.0, 0.0], vec![1e3, 1e3], vec![0.0, 0.0]], children: None };
        assert_eq!(d.reweight(&stump, &[Branch::False, Branch::False]), None);
        let mut d = Distribution::new(&[0, 1], 2, &[0.25, 0.25]);
        let z = d.reweight(&stump, &[Branch::True, Branch::True]);
        assert_eq!(z, Some(1.0), "zero outputs leave D unchanged");
    }
}
