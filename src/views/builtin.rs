//! The built-in feature groups: thin adapters that hand each group its columns of the stylistic
//! pass ([`StylePass`]) or the lexical pass ([`crate::lexical`]), computed once per page by the
//! [`PageContext`]. Their names and meanings live beside the code that computes them.

use crate::lexical::{self, pos, IdfTable, PosTag};
use crate::stylistic::{self, fonts, layout, table, StylePass};

use super::groups::{FeatureGroup, GroupError, GroupOutput, PageContext, ViewKind};

/// The built-in groups, one line each, in column order within each view.
pub(super) fn groups() -> Vec<Box<dyn FeatureGroup>> {
    vec![
        Box::new(Stylistic { name: "placement", features: stylistic::PLACEMENT, fill: |p, b, out| p.placement(b, out) }),
        Box::new(Stylistic { name: "layout", features: layout::LAYOUT_NAMES, fill: |p, b, out| out.copy_from_slice(layout_part(p, b, false)) }),
        Box::new(Stylistic { name: "layer", features: layout::LAYER_NAMES, fill: |p, b, out| out.copy_from_slice(layout_part(p, b, true)) }),
        Box::new(Stylistic { name: "table", features: table::NAMES, fill: |p, b, out| p.table(b, out) }),
        Box::new(Stylistic { name: "font", features: fonts::NAMES, fill: |p, b, out| p.font(b, out) }),
        Box::new(Stylistic { name: "image", features: stylistic::IMAGES, fill: |p, b, out| p.image(b, out) }),
        Box::new(Stylistic { name: "css", features: stylistic::CSS, fill: |p, _, out| p.css(out) }),
        Box::new(Lexical { name: "words", features: words }),
        Box::new(Lexical { name: "links", features: links }),
        Box::new(Lexical { name: "pos", features: part_of_speech }),
        Box::new(Tokens),
        Box::new(super::semantics::Semantics),
        Box::new(super::density::Density),
        Box::new(super::repetition::Repetition),
        Box::new(super::headline::Headline),
        Box::new(super::metadata::Metadata),
        Box::new(super::targets::Targets),
        Box::new(super::topic::Topic),
        Box::new(super::wire::Wire),
    ]
}

/// A built-in stylistic group: a slice of the stylistic pass's columns.
struct Stylistic {
    name: &'static str,
    features: &'static [(&'static str, &'static str)],
    fill: fn(&StylePass, usize, &mut [f64]),
}

impl FeatureGroup for Stylistic {
    fn name(&self) -> &str {
        self.name
    }

    fn view(&self) -> ViewKind {
        ViewKind::Stylistic
    }

    fn features(&self) -> Vec<(String, String)> {
        self.features.iter().map(|(n, m)| (n.to_string(), m.to_string())).collect()
    }

    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
        let pass = ctx.style_pass()?;
        for b in 0..out.blocks() {
            (self.fill)(pass, b, out.row_mut(b));
        }
        Ok(())
    }
}

/// The layout (`layer == false`) or layer columns of a block, which [`StylePass`] computes
/// together.
fn layout_part<'p>(pass: &'p StylePass, b: usize, layer: bool) -> &'p [f64] {
    let row = pass.layout_and_layers(b);
    let split = layout::LAYOUT_NAMES.len().min(row.len());
    if layer {
        &row[split..]
    } else {
        &row[..split]
    }
}

/// A built-in lexical group of dense columns: named columns of the lexical pass's numeric rows.
struct Lexical {
    name: &'static str,
    features: fn() -> Vec<(String, String)>,
}

impl FeatureGroup for Lexical {
    fn name(&self) -> &str {
        self.name
    }

    fn view(&self) -> ViewKind {
        ViewKind::Lexical
    }

    fn features(&self) -> Vec<(String, String)> {
        (self.features)()
    }

    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
        let pass = ctx.lexical()?;
        let all = lexical::numeric_feature_names();
        let columns: Vec<Option<usize>> = (self.features)().iter().map(|(n, _)| all.iter().position(|a| a == n)).collect();
        for b in 0..out.blocks() {
            let Some(numeric) = pass.numeric.get(b) else { continue };
            for (v, c) in out.row_mut(b).iter_mut().zip(&columns) {
                *v = c.and_then(|c| numeric.get(c)).copied().unwrap_or(f64::NAN);
            }
        }
        Ok(())
    }
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(n, m)| (n.to_string(), m.to_string())).collect()
}

/// Paper 5.3.1: how many words and how varied.
fn words() -> Vec<(String, String)> {
    owned(&[
        ("words", "word and number tokens of the block after tokenising (punctuation is none)"),
        ("vocabulary", "distinct stems of the block"),
        ("vocabulary-ratio", "vocabulary / words (0 without words)"),
        ("unknown-stem-ratio", "share of the block's stems missing from the IDF table (0 without words)"),
    ])
}

/// Paper 5.3 and 5.3.2: image count and the four link counts.
fn links() -> Vec<(String, String)> {
    owned(&[
        ("images", "images of the block"),
        ("mailto-links", "mailto: links of the block"),
        ("image-links", "links around an image"),
        ("text-links", "links around text"),
        ("total-links", "all links of the block"),
    ])
}

/// Paper 5.3.2: share of each part-of-speech tag, then the aggregates.
fn part_of_speech() -> Vec<(String, String)> {
    let tags = PosTag::ALL.iter().map(|t| (format!("pos:{}", t.name()), format!("share of the block's tokens tagged {}", t.name())));
    let aggregates = pos::AGGREGATES.iter().map(|(name, members)| {
        let tags: Vec<&str> = members.iter().map(|t| t.name()).collect();
        (format!("pos-all:{name}"), format!("share of the block's tokens tagged {}", tags.join(", ")))
    });
    tags.chain(aggregates).collect()
}

/// Paper 5.3.1: TF × IDF of every stem of the IDF table, sparse (absent stems are not stored).
struct Tokens;

impl FeatureGroup for Tokens {
    fn name(&self) -> &str {
        "tokens"
    }

    fn view(&self) -> ViewKind {
        ViewKind::Lexical
    }

    fn features(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    fn token_names(&self, idf: &IdfTable) -> Vec<String> {
        lexical::feature_names(idf).split_off(lexical::numeric_feature_names().len())
    }

    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
        let pass = ctx.lexical()?;
        for b in 0..out.blocks() {
            let Some(tokens) = pass.tokens.get(b) else { continue };
            out.set_tokens(b, tokens.iter().filter(|(_, w)| *w > 0.0).map(|&(id, w)| (id as usize, w)).collect())?;
        }
        Ok(())
    }
}
