//! Agreement between two labellings of the same pages (a second, blind pass over a sample).
//!
//! Blocks are compared one by one where both passes gave a label. Reported: the share of blocks
//! with the same label, Cohen's κ (agreement corrected for the agreement expected from each
//! pass's label distribution), and per class the specific agreement 2·n(a=b=c) / (n(a=c) +
//! n(b=c)), which equals the F1 of one pass measured against the other.

use super::labels::BlockLabel;
use super::scheme::LabelScheme;

/// Agreement figures over a set of blocks.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Agreement {
    pub pages: usize,
    /// Blocks labelled in both passes.
    pub blocks: usize,
    /// Blocks labelled the same.
    pub agreed: usize,
    pub kappa: f64,
    /// Per class: (label, blocks with it in pass A, in pass B, in both, specific agreement).
    pub per_class: Vec<(String, usize, usize, usize, f64)>,
}

impl Agreement {
    pub fn observed(&self) -> f64 {
        if self.blocks == 0 {
            0.0
        } else {
            self.agreed as f64 / self.blocks as f64
        }
    }

    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "{} pages, {} blocks labelled in both passes: {:.1}% identical, Cohen's kappa {:.3}\n\n| label | pass A | pass B | both | specific agreement |\n|---|---:|---:|---:|---:|\n",
            self.pages,
            self.blocks,
            100.0 * self.observed(),
            self.kappa
        );
        for (l, a, b, both, s) in &self.per_class {
            if a + b > 0 {
                out.push_str(&format!("| {l} | {a} | {b} | {both} | {s:.2} |\n"));
            }
        }
        out
    }
}

/// Compares two labellings (per page, one `BlockLabel` per block, same division).
pub fn agreement(pages: &[(Vec<BlockLabel>, Vec<BlockLabel>)], scheme: &LabelScheme) -> Agreement {
    let k = scheme.len();
    let mut confusion = vec![vec![0usize; k]; k];
    for (a, b) in pages {
        for (x, y) in a.iter().zip(b) {
            if let (Some(x), Some(y)) = (x.label, y.label) {
                confusion[x][y] += 1;
            }
        }
    }
    let n: usize = confusion.iter().flatten().sum();
    let agreed: usize = (0..k).map(|i| confusion[i][i]).sum();
    let row: Vec<usize> = (0..k).map(|i| confusion[i].iter().sum()).collect();
    let col: Vec<usize> = (0..k).map(|j| (0..k).map(|i| confusion[i][j]).sum()).collect();
    let (po, pe) = if n == 0 {
        (0.0, 0.0)
    } else {
        let n = n as f64;
        (agreed as f64 / n, (0..k).map(|i| row[i] as f64 * col[i] as f64).sum::<f64>() / (n * n))
    };
    let kappa = if (1.0 - pe).abs() < 1e-12 { 1.0 } else { (po - pe) / (1.0 - pe) };
    let per_class = (0..k)
        .map(|c| {
            let both = confusion[c][c];
            let s = if row[c] + col[c] == 0 { 1.0 } else { 2.0 * both as f64 / (row[c] + col[c]) as f64 };
            (scheme.labels[c].name.clone(), row[c], col[c], both, s)
        })
        .collect();
    Agreement { pages: pages.len(), blocks: n, agreed, kappa, per_class }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(v: &[Option<usize>]) -> Vec<BlockLabel> {
        v.iter().map(|&label| BlockLabel { label, share: 1.0, mixed: false, provenance: None }).collect()
    }

    #[test]
    fn kappa_known_answer() {
        // Binary scheme, 10 blocks: A = 6 content / 4 not, B agrees on 8 (5 content, 3 not).
        // po = 0.8; A: 6 c, 4 n; B: 6 c, 4 n (one disagreement each way);
        // pe = 0.6·0.6 + 0.4·0.4 = 0.52; κ = (0.8 − 0.52) / 0.48 = 0.58333…
        let scheme = LabelScheme::built_in("binary").unwrap();
        let a = labels(&[Some(0), Some(0), Some(0), Some(0), Some(0), Some(0), Some(1), Some(1), Some(1), Some(1)]);
        let b = labels(&[Some(0), Some(0), Some(0), Some(0), Some(0), Some(1), Some(0), Some(1), Some(1), Some(1)]);
        let got = agreement(&[(a, b)], &scheme);
        assert_eq!((got.blocks, got.agreed), (10, 8));
        assert!((got.kappa - 0.28 / 0.48).abs() < 1e-12, "{}", got.kappa);
        assert_eq!(got.per_class[0], ("content".to_string(), 6, 6, 5, 5.0 / 6.0));
    }
}
