//! The `topic` feature group (lexical view, opt-in): how close a block's words are to the topic
//! of the page's article.
//!
//! Input: a page's division and the lexical pass's TF×IDF stem weights. Output: one dense row per
//! block (names and meanings in [`FEATURES`]); `NaN` where the block has no known stem or the
//! page has no body of text.
//!
//! Why: the guidelines tell `related-links` from `site-nav` by what the links are about: links to
//! stories on the article's topic are related, the site's latest or most popular stories are
//! navigation, though both are lists of headlines that look alike and sit in the same places.
//! Likewise a paragraph of the site's own pitch (`site-content`) sits in the body but talks about
//! something else. So each block is compared with the article itself: the words of the page's
//! densest run of text (the `density` group's body) and of its headline, the block's own words
//! left out of the body so that a paragraph is not compared with itself.
//!
//! Why the lexical view: every column compares words with words. Where the body lies is found by
//! counting words and links (as the `density` group does), but the columns say nothing of where
//! the block sits or how it looks.
//!
//! Measured on the 17-label recipe of both eras (2026-11-27, 352 pages, folds by site): no
//! measurable effect (−0.10 points of block error, p = 0.88; related-links F1 0.33 → 0.34), so
//! no shipped config names it (`reports/parcels-17-both-eras/README.md`, "352 pages").

use std::collections::HashMap;

use super::density::body_run;
use super::groups::{FeatureGroup, GroupError, GroupOutput, PageContext, ViewKind};
use super::headline::headline_block;

/// The group's columns, `(name, meaning)`, in column order.
pub(crate) const FEATURES: &[(&str, &str)] = &[
    ("topic.cosine", "cosine of the block's TF×IDF stem weights with the body's (the densest run of text, the block's own words taken out)"),
    ("topic.body_share", "share of the block's TF×IDF weight on stems that the body (without the block) also has"),
    ("topic.title_share", "share of the block's TF×IDF weight on stems of the headline block (NaN for the headline itself or a page without one)"),
];

/// The `topic` group.
pub(super) struct Topic;

impl FeatureGroup for Topic {
    fn name(&self) -> &str {
        "topic"
    }

    fn view(&self) -> ViewKind {
        ViewKind::Lexical
    }

    fn features(&self) -> Vec<(String, String)> {
        FEATURES.iter().map(|(n, m)| (n.to_string(), m.to_string())).collect()
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
        let blocks = &ctx.division().blocks;
        let lexical = ctx.lexical()?;
        // The IDF table's catch-all id for stems it lacks says nothing about the topic.
        let unknown = ctx.idf().map_or(u32::MAX, |idf| idf.len() as u32);
        let weights: Vec<Vec<(u32, f64)>> = lexical.tokens.iter().map(|t| t.iter().copied().filter(|&(id, _)| id != unknown).collect()).collect();
        let headline = headline_block(ctx);
        let body = body_run(blocks)?;
        let mut topic: HashMap<u32, f64> = HashMap::new();
        if let Some((start, end)) = body {
            for row in &weights[start..end.min(weights.len())] {
                for &(id, w) in row {
                    *topic.entry(id).or_default() += w;
                }
            }
        }
        let title: HashMap<u32, f64> = headline.map(|h| weights[h].iter().copied().collect()).unwrap_or_default();
        let topic_norm2: f64 = topic.values().map(|w| w * w).sum();
        for (b, row) in weights.iter().enumerate() {
            let total: f64 = row.iter().map(|&(_, w)| w).sum();
            if row.is_empty() || total <= 0.0 {
                continue;
            }
            let inside = body.is_some_and(|(s, e)| s <= b && b < e);
            let (mut dot, mut shared, mut rest_norm2) = (0.0, 0.0, topic_norm2);
            for &(id, w) in row {
                // The body without this block: its own weights taken out where it is part of it.
                let full = topic.get(&id).copied().unwrap_or(0.0);
                let t = if inside { (full - w).max(0.0) } else { full };
                if inside {
                    rest_norm2 += t * t - full * full;
                }
                dot += w * t;
                if t > 0.0 {
                    shared += w;
                }
            }
            let norm: f64 = row.iter().map(|&(_, w)| w * w).sum::<f64>().sqrt();
            let values = out.row_mut(b);
            if body.is_some() && rest_norm2 > 1e-12 {
                values[0] = dot / (norm * rest_norm2.max(0.0).sqrt());
                values[1] = shared / total;
            }
            if !title.is_empty() && headline != Some(b) {
                values[2] = row.iter().filter(|(id, _)| title.contains_key(id)).map(|&(_, w)| w).sum::<f64>() / total;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::css::StyledDom;
    use crate::divide::Divider;
    use crate::lexical::IdfTable;
    use crate::page::{LoadOptions, Page};
    use crate::stylistic::StyleOptions;

    #[test]
    fn links_on_the_articles_topic_score_above_the_sites_other_stories() {
        let body = "Gale force winds kept the harbour closed for a third day, and the ferries stayed in port while the storm battered the coast. ".repeat(3);
        let html = format!(
            r#"<html><head><meta property="og:title" content="Storm closes harbour"></head><body>
            <h1>Storm closes harbour</h1><p>{body}</p><p>{body}</p>
            <p><a href="/a">Ferries cancelled as storm winds batter the harbour</a></p>
            <p><a href="/b">City council approves new budget for libraries</a></p></body></html>"#
        );
        let page = Page::from_bytes("t.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let style = StyleOptions::default();
        let styled = StyledDom::compute(&page, &style.css).unwrap();
        let idf = IdfTable::dragnet().unwrap();
        let ctx = PageContext::new(&page, &division, &styled, &style, Some(&idf));
        let mut out = GroupOutput::new(division.blocks.len(), FEATURES.len(), 0);
        Topic.compute(&ctx, &mut out).unwrap();
        let texts: Vec<&str> = division.blocks.iter().map(|b| b.text.as_str()).collect();
        let at = |t: &str| texts.iter().position(|b| b.starts_with(t)).unwrap_or_else(|| panic!("{t} in {texts:?}"));
        let (headline, first, related, other) = (at("Storm"), at("Gale"), at("Ferries"), at("City"));
        // On topic against off topic, by every column.
        for c in 0..3 {
            assert!(out.row(related)[c] > out.row(other)[c], "column {c}: {} against {}", out.row(related)[c], out.row(other)[c]);
        }
        assert!(out.row(other)[1] < 0.1, "only `for` of the budget story is in the body: {}", out.row(other)[1]);
        // A body paragraph is compared with the rest of the body (the other, equal paragraph).
        assert!(out.row(first)[0] > 0.99, "{}", out.row(first)[0]);
        assert!(out.row(headline)[2].is_nan(), "the headline is not compared with itself");
    }
}
