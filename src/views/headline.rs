//! The `headline` feature group (stylistic view, opt-in): where a block sits relative to the
//! article's headline and to the start of its body of text.
//!
//! Input: a page and its division. Output: one dense row per block (names and meanings in
//! [`FEATURES`]); `NaN` where the page has no headline block or no body run.
//!
//! Why: the fine-grained classes sit at fixed places around the headline. Bylines, datelines,
//! dates, reading times and standfirsts come between the headline and the first paragraph; a
//! kicker or a category chip just above it; related links and author boxes after the body. The
//! PARCELS paper could not classify date, reporter, location or source at all and named this
//! kind of feature as the remedy (issue 15: "the block's distance from the title and the start of
//! the main text"). The headline is the block [`crate::fields::title`] chooses (the block that
//! shows a title the page declares, an `<h1>` first); the body starts at the `density` group's
//! densest run of text.
//!
//! Why the stylistic view: every column is a count of blocks in reading order, the place where a
//! block sits, never which words it has. The headline is *found* by matching words with the
//! declared title, but which block it is does not tell the lexical view anything about the
//! other blocks' words: a byline two blocks under the headline looks the same to this group
//! whatever it says.

use super::density::body_run;
use super::groups::{FeatureGroup, GroupError, GroupOutput, PageContext, ViewKind};
use crate::fields::{self, Marked};

/// Offsets are clipped to this many blocks: beyond it, "far" is all a stump needs to know.
const FAR: f64 = 50.0;

/// The group's columns, `(name, meaning)`, in column order.
pub(crate) const FEATURES: &[(&str, &str)] = &[
    ("head.offset", "blocks from the headline block (negative before it, 0 for the headline), clipped to ±50"),
    ("head.distance", "blocks between the block and the headline, either side, clipped to 50"),
    ("head.body_offset", "blocks from the first block of the page's densest run of text (negative before it), clipped to ±50"),
    ("head.between", "1 if the block lies after the headline and before the densest run (where bylines, dates and standfirsts sit), else 0"),
];

/// The article's headline block: the block showing the title [`fields::title`] chooses (a title
/// the page declares, an `<h1>` first); `None` when no block shows it. Shared with the `topic`
/// group.
pub(super) fn headline_block(ctx: &PageContext<'_>) -> Option<usize> {
    let texts: Vec<&str> = ctx.division().blocks.iter().map(|b| b.text.as_str()).collect();
    fields::title(ctx.metadata(), &Marked::read(&ctx.page().html), &texts, None).and_then(|t| texts.iter().position(|b| b.trim() == t))
}

/// The `headline` group.
pub(super) struct Headline;

impl FeatureGroup for Headline {
    fn name(&self) -> &str {
        "headline"
    }

    fn view(&self) -> ViewKind {
        ViewKind::Stylistic
    }

    fn features(&self) -> Vec<(String, String)> {
        FEATURES.iter().map(|(n, m)| (n.to_string(), m.to_string())).collect()
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
        let blocks = &ctx.division().blocks;
        let headline = headline_block(ctx);
        let body = body_run(blocks)?.map(|(start, _)| start);
        let offset = |b: usize, from: Option<usize>| from.map_or(f64::NAN, |h| (b as f64 - h as f64).clamp(-FAR, FAR));
        for b in 0..blocks.len() {
            let between = match (headline, body) {
                (Some(h), Some(s)) => f64::from(u8::from(h < b && b < s)),
                _ => f64::NAN,
            };
            let head = offset(b, headline);
            out.row_mut(b).copy_from_slice(&[head, head.abs(), offset(b, body), between]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::css::StyledDom;
    use crate::divide::Divider;
    use crate::page::{LoadOptions, Page};
    use crate::stylistic::StyleOptions;

    #[test]
    fn blocks_are_placed_around_the_headline_and_the_body() {
        let body = "Gale force winds kept the harbour closed for a third day, and the ferries stayed in port. ".repeat(3);
        let html = format!(
            r#"<html><head><meta property="og:title" content="Storm closes harbour"></head><body>
            <ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul>
            <h1>Storm closes harbour</h1><p>By Jane Doe</p><p>May 4, 2025</p><p>{body}</p><p>{body}</p></body></html>"#
        );
        let page = Page::from_bytes("h.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let style = StyleOptions::default();
        let styled = StyledDom::compute(&page, &style.css).unwrap();
        let ctx = PageContext::new(&page, &division, &styled, &style, None);
        let mut out = GroupOutput::new(division.blocks.len(), FEATURES.len(), 0);
        Headline.compute(&ctx, &mut out).unwrap();
        let texts: Vec<&str> = division.blocks.iter().map(|b| b.text.as_str()).collect();
        let at = |t: &str| texts.iter().position(|b| b.starts_with(t)).unwrap();
        let (h, byline, date, first) = (at("Storm"), at("By Jane"), at("May 4"), at("Gale"));
        assert_eq!(out.row(h)[..2], [0.0, 0.0]);
        assert_eq!(out.row(byline)[..2], [1.0, 1.0]);
        assert_eq!(out.row(0)[0], -(h as f64));
        // The body starts at the first long paragraph; the byline and the date lie between.
        assert_eq!(out.row(first)[2], 0.0);
        assert_eq!(out.row(date)[2], -1.0);
        assert_eq!([out.row(byline)[3], out.row(date)[3], out.row(h)[3], out.row(first)[3]], [1.0, 1.0, 0.0, 0.0]);
    }
}
