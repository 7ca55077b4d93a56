//! Settings of the seed papers' systems (`[seed_systems]` in an experiment config): the
//! parameters their papers give, as data, so that a config can change them and every report
//! records them. Every field has the paper's value as its default; a config without the table
//! runs the papers' settings.
//!
//! ```toml
//! [seed_systems.max_subsequence]   # Pasternack & Roth 2009, section 6.2.4 and 7.5
//! iterations = 10                  # bootstrap iterations
//! select = 0.6                     # share of the pool's pages kept as L each iteration
//! window = 10                      # w, the window radius of the confidence score v
//! cutoff = 64                      # d, the distance cutoff of the importance weights
//! boost = 24.0                     # c, the importance weights' scoring constant
//!
//! [seed_systems.timbl]             # the TiMBL thesis
//! max_train = 0                    # 0: every training block; n: a seeded sample of n
//!
//! [seed_systems.crf]               # Gibson, Wellner & Lubar 2007, section 7 "No Duplicates"
//! dedup = true                     # drop training pages that near-duplicate a held-out page
//! shingle = 5                      # words per shingle
//! near_duplicate = 0.5             # containment at or above which a page is a near duplicate
//! ```

use serde::{Deserialize, Serialize};

/// `[seed_systems]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedSystems {
    #[serde(default)]
    pub max_subsequence: MssSettings,
    #[serde(default)]
    pub timbl: TimblSettings,
    #[serde(default)]
    pub crf: CrfSettings,
}

/// The semi-supervised bootstrap of maximum subsequence segmentation (seed 001, section 6.2.4;
/// the values of section 7.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MssSettings {
    pub iterations: usize,
    pub select: f64,
    pub window: usize,
    pub cutoff: usize,
    pub boost: f64,
}

impl Default for MssSettings {
    fn default() -> Self {
        MssSettings { iterations: 10, select: 0.6, window: 10, cutoff: 64, boost: 24.0 }
    }
}

/// IB1's training instances (seed 000).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimblSettings {
    /// At most this many training instances, drawn with the fold's seed; 0 keeps all (the
    /// thesis's setting).
    pub max_train: usize,
}

/// The CRF's protocol (seed 003, section 7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CrfSettings {
    pub dedup: bool,
    pub shingle: usize,
    pub near_duplicate: f64,
}

impl Default for CrfSettings {
    fn default() -> Self {
        CrfSettings { dedup: true, shingle: 5, near_duplicate: 0.5 }
    }
}

impl SeedSystems {
    /// Whether every setting is the papers' (the table is then left out of recorded configs, so
    /// results of configs without it keep their bytes).
    pub fn is_default(&self) -> bool {
        *self == SeedSystems::default()
    }

    /// The first setting out of range, as `name = value: constraint`.
    pub fn check(&self) -> Result<(), String> {
        let m = &self.max_subsequence;
        if m.iterations == 0 {
            return Err("seed_systems.max_subsequence.iterations = 0: the bootstrap needs at least one iteration".into());
        }
        if !(m.select > 0.0 && m.select <= 1.0) {
            return Err(format!("seed_systems.max_subsequence.select = {}: must be in (0, 1]", m.select));
        }
        if m.window == 0 || m.cutoff == 0 {
            return Err(format!("seed_systems.max_subsequence: window ({}) and cutoff ({}) must be positive", m.window, m.cutoff));
        }
        if !(m.boost >= 0.0 && m.boost.is_finite()) {
            return Err(format!("seed_systems.max_subsequence.boost = {}: must be finite and at least 0", m.boost));
        }
        let c = &self.crf;
        if c.shingle == 0 {
            return Err("seed_systems.crf.shingle = 0: a shingle needs at least one word".into());
        }
        if !(c.near_duplicate > 0.0 && c.near_duplicate <= 1.0) {
            return Err(format!("seed_systems.crf.near_duplicate = {}: must be in (0, 1]", c.near_duplicate));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_papers_and_bad_values_are_named() {
        let s: SeedSystems = toml::from_str("").unwrap();
        assert!(s.is_default());
        assert_eq!(s.max_subsequence.cutoff, 64);
        assert!(s.check().is_ok());
        let s: SeedSystems = toml::from_str("[max_subsequence]\nselect = 1.5\n").unwrap();
        assert!(s.check().unwrap_err().contains("select = 1.5"));
        let s: SeedSystems = toml::from_str("[crf]\nshingle = 0\n").unwrap();
        assert!(s.check().unwrap_err().contains("seed_systems.crf.shingle"));
        assert!(toml::from_str::<SeedSystems>("[timbl]\nprotocol = 1\n").is_err(), "unknown keys are refused");
    }
}
