//! The `density` feature group (stylistic view, opt-in): text and link density of a block, of its
//! neighbours and of its container (Kohlschütter, Fankhauser and Nejdl, "Boilerplate detection
//! using shallow text features", WSDM 2010), and where the block sits relative to the page's
//! densest run of text.
//!
//! Input: a page's division. Output: one dense row per block (names and meanings in
//! [`FEATURES`]); `NaN` where a value does not apply (no neighbour, no words).
//!
//! Why the stylistic view: density measures the *shape* of a block's text, never its words.
//! Text density is how full the block's lines are when wrapped to a fixed width (Kohlschütter's
//! section 4.2: words per wrapped line), link density the share of its words drawn as links;
//! both are what a reader sees at a glance before reading (a dense paragraph, a ragged list of
//! links), and the run features say where the block sits relative to the page's body of text.
//! The lexical view reads which words a block has; none of these columns depends on which words.
//!
//! The densest run: each block scores (unlinked words − linked words − `block_penalty`); the run
//! of consecutive blocks with the largest total score (Kadane's maximum subarray; ties: the
//! earliest) is the page's densest run of text, in the spirit of Finn, Kushmerick and Smyth's
//! body text extraction (2001). Settings are data, in `density.toml`.

use std::collections::HashMap;
use std::sync::OnceLock;

use ego_tree::NodeId;
use serde::Deserialize;

use super::groups::{FeatureGroup, GroupError, GroupOutput, PageContext, ViewKind};
use crate::divide::Block;

/// The group's columns, `(name, meaning)`, in column order.
pub(crate) const FEATURES: &[(&str, &str)] = &[
    ("dens.text", "text density: words per line when the block's text is wrapped at `wrap_width` characters, the last line left out (Kohlschütter et al. 2010; one line: its words)"),
    ("dens.link", "link density: share of the block's words inside hyperlinks (NaN without words)"),
    ("dens.prev_text", "text density of the previous block (NaN for the first)"),
    ("dens.next_text", "text density of the next block (NaN for the last)"),
    ("dens.prev_link", "link density of the previous block"),
    ("dens.next_link", "link density of the next block"),
    ("dens.container_text", "text density of all blocks of the block's container (the element around the divider's container of the block) together: words / wrapped lines"),
    ("dens.container_link", "link density of the container's blocks together"),
    ("dens.container_words", "words of the container's blocks / words of the page"),
    ("dens.words", "words of the block / words of the page"),
    ("dens.run_inside", "1 if the block lies in the page's densest run of text"),
    ("dens.run_offset", "blocks between the block and the densest run / blocks of the page (negative before it, 0 inside)"),
    ("dens.run_position", "position inside the densest run, 0 first to 1 last (NaN outside it)"),
    ("dens.run_words", "words of the densest run / words of the page (page-wide)"),
];

/// The settings file, compiled in.
const SETTINGS_TOML: &str = include_str!("density.toml");

/// Settings of the density group (`density.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    /// Line width in characters for text density (Kohlschütter et al. wrap at 80).
    wrap_width: usize,
    /// Score subtracted per block when looking for the densest run.
    block_penalty: f64,
}

impl Settings {
    fn builtin() -> Result<&'static Settings, GroupError> {
        static SETTINGS: OnceLock<Result<Settings, String>> = OnceLock::new();
        SETTINGS
            .get_or_init(|| match toml::from_str::<Settings>(SETTINGS_TOML) {
                Ok(s) if s.wrap_width == 0 => Err("density.toml: wrap_width must be at least 1".into()),
                Ok(s) => Ok(s),
                Err(e) => Err(format!("density.toml: {e}")),
            })
            .as_ref()
            .map_err(|e| GroupError::Other(e.clone().into()))
    }
}

/// A word as the divider counts them: a whitespace-separated token with a letter or digit.
fn is_word(token: &str) -> bool {
    token.chars().any(char::is_alphanumeric)
}

/// `(words, wrapped lines, words on the last line)` of a text wrapped greedily at `width`.
fn wrap(text: &str, width: usize) -> (usize, usize, usize) {
    let (mut words, mut lines, mut last, mut line_len) = (0, 0, 0, 0);
    for token in text.split_whitespace() {
        let len = token.chars().count();
        if lines == 0 || (line_len > 0 && line_len + 1 + len > width) {
            lines += 1;
            last = 0;
            line_len = len;
        } else {
            line_len += 1 + len;
        }
        if is_word(token) {
            words += 1;
            last += 1;
        }
    }
    (words, lines, last)
}

/// Kohlschütter's text density of one wrapped text: words per line without the last line (which
/// is usually short), or the words of a single line.
fn text_density((words, lines, last): (usize, usize, usize)) -> f64 {
    match lines {
        0 => 0.0,
        1 => words as f64,
        _ => (words - last) as f64 / (lines - 1) as f64,
    }
}

/// Words of a block inside hyperlinks (at most its words).
pub(super) fn linked_words(block: &Block) -> usize {
    let linked: usize = block.links.iter().map(|l| l.text.split_whitespace().filter(|t| is_word(t)).count()).sum();
    linked.min(block.words)
}

/// Each block's score in the search for the densest run: unlinked words − linked words −
/// `block_penalty`.
fn run_scores(words: &[usize], linked: &[usize], settings: &Settings) -> Vec<f64> {
    words.iter().zip(linked).map(|(&w, &l)| (w - l) as f64 - l as f64 - settings.block_penalty).collect()
}

/// `[start, end)` of a division's densest run of text, as the `density` group finds it: where the
/// page's body of text begins and ends.
pub(super) fn body_run(blocks: &[Block]) -> Result<Option<(usize, usize)>, GroupError> {
    let settings = Settings::builtin()?;
    let words: Vec<usize> = blocks.iter().map(|b| wrap(&b.text, settings.wrap_width).0).collect();
    let linked: Vec<usize> = blocks.iter().zip(&words).map(|(b, &w)| linked_words(b).min(w)).collect();
    Ok(densest_run(&run_scores(&words, &linked, settings)))
}

/// `[start, end)` of the maximal-score run of consecutive blocks (the earliest on ties); `None`
/// when no run scores above 0.
fn densest_run(scores: &[f64]) -> Option<(usize, usize)> {
    let (mut best, mut best_run) = (0.0, None);
    let (mut sum, mut start) = (0.0, 0);
    for (i, &s) in scores.iter().enumerate() {
        if sum <= 0.0 {
            sum = 0.0;
            start = i;
        }
        sum += s;
        if sum > best {
            best = sum;
            best_run = Some((start, i + 1));
        }
    }
    best_run
}

/// The `density` group.
pub(super) struct Density;

impl FeatureGroup for Density {
    fn name(&self) -> &str {
        "density"
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
        let settings = Settings::builtin()?;
        let blocks = &ctx.division().blocks;
        let n = blocks.len();
        let wrapped: Vec<(usize, usize, usize)> = blocks.iter().map(|b| wrap(&b.text, settings.wrap_width)).collect();
        let text: Vec<f64> = wrapped.iter().map(|&w| text_density(w)).collect();
        let words: Vec<usize> = wrapped.iter().map(|w| w.0).collect();
        let linked: Vec<usize> = blocks.iter().zip(&words).map(|(b, &w)| linked_words(b).min(w)).collect();
        let link: Vec<f64> = words.iter().zip(&linked).map(|(&w, &l)| if w == 0 { f64::NAN } else { l as f64 / w as f64 }).collect();
        let page_words = words.iter().sum::<usize>().max(1) as f64;
        // Containers: (words, wrapped lines, linked words) of all their blocks. A block's container
        // is the element around its divider container (the divider's container of a paragraph is
        // the paragraph itself; its siblings share the element around it).
        let mut containers: HashMap<Option<NodeId>, (usize, usize, usize)> = HashMap::new();
        let tree = &ctx.page().html.tree;
        let container = |block: &Block| block.container_node.and_then(|id| tree.get(id)).and_then(|n| n.parent()).map(|p| p.id());
        for (b, block) in blocks.iter().enumerate() {
            let c = containers.entry(container(block)).or_default();
            *c = (c.0 + words[b], c.1 + wrapped[b].1, c.2 + linked[b]);
        }
        let run = densest_run(&run_scores(&words, &linked, settings));
        let run_words = run.map_or(0, |(s, e)| words[s..e].iter().sum::<usize>());
        for b in 0..n {
            let (cw, cl, clinked) = containers.get(&container(&blocks[b])).copied().unwrap_or_default();
            let (inside, offset, position) = match run {
                Some((s, _)) if b < s => (0.0, -((s - b) as f64) / n as f64, f64::NAN),
                Some((_, e)) if b >= e => (0.0, (b + 1 - e) as f64 / n as f64, f64::NAN),
                Some((s, e)) => (1.0, 0.0, if e - s > 1 { (b - s) as f64 / (e - s - 1) as f64 } else { 0.0 }),
                None => (0.0, f64::NAN, f64::NAN),
            };
            let row = [
                text[b],
                link[b],
                if b > 0 { text[b - 1] } else { f64::NAN },
                text.get(b + 1).copied().unwrap_or(f64::NAN),
                if b > 0 { link[b - 1] } else { f64::NAN },
                link.get(b + 1).copied().unwrap_or(f64::NAN),
                if cl == 0 { 0.0 } else { cw as f64 / cl as f64 },
                if cw == 0 { f64::NAN } else { clinked as f64 / cw as f64 },
                cw as f64 / page_words,
                words[b] as f64 / page_words,
                inside,
                offset,
                position,
                run_words as f64 / page_words,
            ];
            out.row_mut(b).copy_from_slice(&row);
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
    fn text_density_is_words_per_wrapped_line_without_the_last() {
        // 10-character lines: "aaaa bbbb" | "cccc dddd" | "ee" → 5 words, 3 lines, 1 on the last.
        assert_eq!(wrap("aaaa bbbb cccc dddd ee", 10), (5, 3, 1));
        assert_eq!(text_density((5, 3, 1)), 2.0);
        assert_eq!(text_density(wrap("one two", 80)), 2.0, "one line: its words");
        assert_eq!(text_density(wrap("", 80)), 0.0);
        assert_eq!(wrap("— a", 80), (1, 1, 1), "a dash is no word");
    }

    #[test]
    fn the_densest_run_is_the_maximum_subarray() {
        assert_eq!(densest_run(&[-3.0, 4.0, -1.0, 5.0, -10.0, 2.0]), Some((1, 4)));
        assert_eq!(densest_run(&[-1.0, -2.0]), None);
        assert_eq!(densest_run(&[2.0, -5.0, 2.0]), Some((0, 1)), "the earliest on ties");
    }

    #[test]
    fn a_page_of_links_then_an_article() {
        let para = "Gale force winds kept the harbour closed for a third day on Tuesday while ferries waited outside and crews checked the moorings twice.";
        let html = format!("<body><div><a href=/a>Home</a></div><div><a href=/b>World news</a></div><div><p>{para}</p><p>{para}</p></div></body>");
        let page = Page::from_bytes("d.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let texts: Vec<&str> = division.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["Home", "World news", para, para]);
        let style = StyleOptions::default();
        let styled = StyledDom::compute(&page, &style.css).unwrap();
        let ctx = PageContext::new(&page, &division, &styled, &style, None);
        let mut out = GroupOutput::new(4, FEATURES.len(), 0);
        Density.compute(&ctx, &mut out).unwrap();
        let col = |name: &str| FEATURES.iter().position(|(n, _)| *n == name).unwrap();
        // The paragraph: 23 words, 134 characters → lines of 80: 14 words + 9 words; density 14.
        assert_eq!(division.blocks[2].words, 23);
        assert_eq!(out.row(2)[col("dens.text")], 14.0);
        assert_eq!(out.row(2)[col("dens.link")], 0.0);
        assert_eq!(out.row(0)[col("dens.link")], 1.0);
        assert_eq!(out.row(1)[col("dens.text")], 2.0);
        assert_eq!(out.row(2)[col("dens.prev_link")], 1.0);
        assert!(out.row(3)[col("dens.next_text")].is_nan());
        // Both paragraphs share their container: 46 words over 4 lines.
        assert_eq!(out.row(3)[col("dens.container_text")], 11.5);
        assert_eq!(out.row(3)[col("dens.container_words")], 46.0 / 49.0);
        // Scores (penalty 5): -6, -7, 18, 18 → the run is the two paragraphs.
        assert_eq!(out.row(0)[col("dens.run_inside")], 0.0);
        assert_eq!(out.row(0)[col("dens.run_offset")], -2.0 / 4.0);
        assert_eq!(out.row(3)[col("dens.run_inside")], 1.0);
        assert_eq!(out.row(3)[col("dens.run_position")], 1.0);
        assert_eq!(out.row(1)[col("dens.run_words")], 46.0 / 49.0);
    }
}
