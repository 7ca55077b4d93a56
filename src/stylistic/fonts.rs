//! Font features (paper section 5.2.4): the block's words' size, weight, colour, family and
//! link-ness as differences from the page's normal text, never as raw values, so a model learns
//! "larger than normal" rather than "18 pixels".
//!
//! Every statistic is weighted by characters: a leaf counts as many times as it has
//! non-whitespace characters. The page's normal text is the character-weighted median size and
//! weight and the most frequent colour, family and background over the visible text of all
//! blocks.

use std::collections::HashMap;
use std::sync::Arc;

use crate::css::{ComputedStyle, Rgba};

/// Feature names and meanings, in row order.
pub const NAMES: &[(&str, &str)] = &[
    ("font.size_ratio", "mean font size of the block's text / the page's median size (1 = normal; NaN without text)"),
    ("font.larger", "1 if size_ratio > 1.1 (larger than normal)"),
    ("font.smaller", "1 if size_ratio < 0.9 (smaller than normal)"),
    ("font.weight_diff", "(mean weight of the block's text − the page's median weight) / 300 (bold on normal text = 1)"),
    ("font.bold_share", "share of the block's characters in a bold face (weight ≥ 600)"),
    ("font.italic_share", "share of the block's characters in italic"),
    ("font.underline_share", "share of the block's characters underlined"),
    ("font.color_differs", "1 if the block's main text colour differs from the page's main text colour"),
    ("font.color_distance", "RGB distance between those two colours, 0–1"),
    ("font.family_differs", "1 if the block's main font family differs from the page's"),
    ("font.background_differs", "1 if the background behind the block's text differs from the page's main background"),
    ("font.link_share", "share of the block's characters inside hyperlinks"),
];

/// The page's normal text.
#[derive(Debug, Clone)]
pub struct PageFont {
    size: f64,
    weight: f64,
    color: Rgba,
    family: Arc<str>,
    background: Rgba,
}

/// One leaf of text: its characters and style.
pub type TextLeaf<'s> = (usize, &'s ComputedStyle);

impl PageFont {
    /// The normal text of a page, from all visible text leaves.
    pub fn new<'s>(leaves: impl Iterator<Item = TextLeaf<'s>>) -> PageFont {
        let mut sizes = Vec::new();
        let mut weights = Vec::new();
        let mut colors: HashMap<Rgba, usize> = HashMap::new();
        let mut families: HashMap<Arc<str>, usize> = HashMap::new();
        let mut backgrounds: HashMap<Rgba, usize> = HashMap::new();
        for (chars, style) in leaves {
            if chars == 0 || style.is_hidden() {
                continue;
            }
            sizes.push((f64::from(style.font_size), chars));
            weights.push((f64::from(style.font_weight), chars));
            *colors.entry(style.color).or_default() += chars;
            *families.entry(Arc::clone(&style.font_family)).or_default() += chars;
            *backgrounds.entry(style.effective_background).or_default() += chars;
        }
        PageFont {
            size: weighted_median(&mut sizes).unwrap_or(16.0),
            weight: weighted_median(&mut weights).unwrap_or(400.0),
            color: mode(colors).unwrap_or(Rgba::BLACK),
            family: mode(families).unwrap_or_else(|| Arc::from("serif")),
            background: mode(backgrounds).unwrap_or(Rgba::WHITE),
        }
    }

    /// Writes the font features of a block made of `leaves`, `link_chars` of whose characters
    /// are in hyperlinks.
    pub fn features(&self, leaves: &[TextLeaf], link_chars: usize, out: &mut [f64]) {
        let total: usize = leaves.iter().map(|l| l.0).sum();
        if total == 0 {
            out.fill(f64::NAN);
            return;
        }
        let t = total as f64;
        let mut size = 0.0;
        let mut weight = 0.0;
        let (mut bold, mut italic, mut underline) = (0usize, 0usize, 0usize);
        let mut colors: HashMap<Rgba, usize> = HashMap::new();
        let mut families: HashMap<Arc<str>, usize> = HashMap::new();
        let mut backgrounds: HashMap<Rgba, usize> = HashMap::new();
        for &(chars, s) in leaves {
            size += f64::from(s.font_size) * chars as f64;
            weight += f64::from(s.font_weight) * chars as f64;
            bold += if s.is_bold() { chars } else { 0 };
            italic += if s.italic { chars } else { 0 };
            underline += if s.decoration & crate::css::values::decoration::UNDERLINE != 0 { chars } else { 0 };
            *colors.entry(s.color).or_default() += chars;
            *families.entry(Arc::clone(&s.font_family)).or_default() += chars;
            *backgrounds.entry(s.effective_background).or_default() += chars;
        }
        let ratio = if self.size > 0.0 { size / t / self.size } else { f64::NAN };
        let color = mode(colors).unwrap_or(self.color);
        let family = mode(families).unwrap_or_else(|| Arc::clone(&self.family));
        let background = mode(backgrounds).unwrap_or(self.background);
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let values = [
            ratio,
            flag(ratio > 1.1),
            flag(ratio < 0.9),
            (weight / t - self.weight) / 300.0,
            bold as f64 / t,
            italic as f64 / t,
            underline as f64 / t,
            flag(color != self.color),
            color.distance(self.color),
            flag(family != self.family),
            flag(background != self.background),
            (link_chars as f64 / t).min(1.0),
        ];
        out.copy_from_slice(&values);
    }
}

/// The character-weighted median; ties between halves take the lower value.
fn weighted_median(values: &mut [(f64, usize)]) -> Option<f64> {
    values.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: usize = values.iter().map(|v| v.1).sum();
    let mut seen = 0;
    for &(v, w) in values.iter() {
        seen += w;
        if seen * 2 >= total {
            return Some(v);
        }
    }
    None
}

/// The most frequent key; ties go to the smallest key so the result does not depend on hash
/// order.
fn mode<K: Ord + Clone>(counts: HashMap<K, usize>) -> Option<K> {
    counts.into_iter().max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0))).map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_is_character_weighted() {
        // 10 chars at 12px, 3 at 30px: half of 13 is reached inside the 12px run.
        assert_eq!(weighted_median(&mut [(30.0, 3), (12.0, 10)]), Some(12.0));
        assert_eq!(weighted_median(&mut []), None);
    }
}
