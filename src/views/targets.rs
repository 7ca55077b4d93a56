//! The `targets` feature group (lexical view, opt-in): where a block's links lead.
//!
//! Input: a page and its division. Output: one dense row per block (names and meanings in
//! [`FEATURES`]; `NaN` for a block without links) and token columns `path:WORD` for the words
//! of its links' paths that `src/views/targets.toml` lists.
//!
//! Why: the fine-grained classes that take most of the 17-label model's errors are short links
//! whose class is what the link is *for*: a follow button is site content, a section link site
//! navigation, a story's headline a related link (`reports/parcels-17-both-eras/`). Their text
//! is one or two words ("Twitter", "Health", "Read more") and their looks are alike; their
//! targets are not. A story's link has a long slug of its own words and often a date in its
//! path; navigation leads a level or two down to sections, tags and authors; a follow button
//! leads to another host, a social network's; "Add to cart", "Call us" and "Share" lead to a
//! cart, a `tel:` number, a `javascript:` handler.
//!
//! Why the lexical view: a link's target is words the page writes, in its markup rather than
//! its text, as the paper's lexical view counts links by kind (section 5.3.2: mail-to, image,
//! text links). Nothing here depends on how the block looks or where it sits.
//!
//! The page's own host, which tells internal links from external ones, is the host of its
//! `<link rel=canonical>`, `og:url` or `<base href>`, else the host most of its absolute links
//! lead to. Relative links are internal.

use std::collections::HashMap;

use serde::Deserialize;

use super::groups::{FeatureGroup, GroupError, GroupOutput, PageContext, ViewKind};

/// The group's columns, `(name, meaning)`, in column order.
pub(crate) const FEATURES: &[(&str, &str)] = &[
    ("tgt.links", "links in the block"),
    ("tgt.external", "share of its links that lead to another host than the page's"),
    ("tgt.social", "share that lead to a social network or share service (targets.toml)"),
    ("tgt.action", "share that are not pages: `javascript:`, `tel:`, `sms:`, `mailto:`, or an empty or bare `#` target"),
    ("tgt.fragment", "share that lead to a place on this page (`#name`)"),
    ("tgt.root", "share that lead to a site's front page (`/` or a host alone)"),
    ("tgt.depth", "mean number of path segments of its page links"),
    ("tgt.slug_words", "mean words in the last path segment of its page links (a story's slug is long)"),
    ("tgt.dated", "share of its page links with a year (1990-2039) or a date in their path"),
    ("tgt.query", "share of its page links with a query string"),
];

/// The vocabulary file, `targets.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VocabularyFile {
    social_hosts: Vec<String>,
    path_words: Vec<String>,
}

/// The parsed vocabulary: social hosts, and the token column of each listed path word.
#[derive(Debug)]
struct Vocabulary {
    social: Vec<String>,
    words: HashMap<String, usize>,
    names: Vec<String>,
}

const VOCABULARY_TOML: &str = include_str!("targets.toml");

impl Vocabulary {
    fn parse(text: &str) -> Result<Vocabulary, String> {
        let file: VocabularyFile = toml::from_str(text).map_err(|e| format!("targets.toml: {e}"))?;
        let mut words = HashMap::new();
        let mut names = Vec::new();
        for w in &file.path_words {
            if words.insert(w.clone(), names.len()).is_some() {
                return Err(format!("targets.toml: path word {w:?} is listed twice"));
            }
            names.push(format!("path:{w}"));
        }
        Ok(Vocabulary { social: file.social_hosts, words, names })
    }

    fn builtin() -> Result<&'static Vocabulary, GroupError> {
        static V: std::sync::OnceLock<Result<Vocabulary, String>> = std::sync::OnceLock::new();
        V.get_or_init(|| Vocabulary::parse(VOCABULARY_TOML)).as_ref().map_err(|e| GroupError::Other(e.clone().into()))
    }

    fn is_social(&self, host: &str) -> bool {
        self.social.iter().any(|s| host == s || host.strip_suffix(s.as_str()).is_some_and(|rest| rest.ends_with('.')))
    }
}

/// What one link's target is, read from its `href`.
#[derive(Debug, PartialEq)]
enum Target {
    /// Not a page: a script, a phone number, a mail address, an empty or bare `#` target.
    Action,
    /// A place on this page.
    Fragment,
    /// A page: its host if the link names one (lower-cased, without `www.`), its path segments,
    /// and whether it has a query string.
    Page { host: Option<String>, segments: Vec<String>, query: bool },
}

/// URL schemes whose links lead to no page, matched without regard to case.
const ACTION_SCHEMES: [&str; 5] = ["javascript:", "tel:", "sms:", "mailto:", "callto:"];

fn target(href: &str) -> Target {
    let href = href.trim();
    let scheme_is = |s: &str| href.get(..s.len()).is_some_and(|p| p.eq_ignore_ascii_case(s));
    if href.is_empty() || href == "#" || ACTION_SCHEMES.iter().any(|s| scheme_is(s)) {
        return Target::Action;
    }
    if href.starts_with('#') {
        return Target::Fragment;
    }
    // A relative link resolves against a stand-in base, whose host then means "this site".
    static BASE: std::sync::OnceLock<url::Url> = std::sync::OnceLock::new();
    let base = BASE.get_or_init(|| url::Url::parse(RELATIVE_BASE).expect("a valid URL"));
    let Ok(url) = base.join(href) else {
        return Target::Page { host: None, segments: Vec::new(), query: false };
    };
    let host = url.host_str().filter(|h| *h != base.host_str().unwrap_or_default()).map(|h| h.strip_prefix("www.").unwrap_or(h).to_string());
    let segments = url.path_segments().map_or_else(Vec::new, |s| s.filter(|s| !s.is_empty()).map(str::to_ascii_lowercase).collect());
    Target::Page { host, segments, query: url.query().is_some() }
}

/// The base relative links are resolved against ([`target`]); its host stands for the page's own.
const RELATIVE_BASE: &str = "http://relative.invalid/";

/// The words of a path segment: runs of letters (digits and punctuation split them).
fn segment_words(segment: &str) -> impl Iterator<Item = &str> {
    segment.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty())
}

/// Whether a path has a year segment (1990–2039) or a date written into one (`2025-05-04`).
fn dated(segments: &[String]) -> bool {
    let year = |s: &str| s.len() == 4 && s.parse::<u32>().is_ok_and(|y| (1990..2040).contains(&y));
    segments.iter().any(|s| {
        year(s)
            || s.split(['-', '_'])
                .collect::<Vec<_>>()
                .windows(3)
                .any(|w| year(w[0]) && w[1].len() <= 2 && w[1].parse::<u8>().is_ok() && w[2].len() <= 2 && w[2].parse::<u8>().is_ok())
    })
}

/// The page's own host: canonical link, `og:url` or `<base href>`, else the host most of its
/// links' targets name (ties: the first in alphabetical order); `None` if it has neither.
fn page_host<'t>(html: &scraper::Html, links: impl Iterator<Item = &'t Target>) -> Option<String> {
    let declared = ["link[rel=canonical]", "meta[property=\"og:url\"]", "base[href]"].iter().find_map(|css| {
        let selector = scraper::Selector::parse(css).ok()?;
        let el = html.select(&selector).next()?;
        let url = el.value().attr("href").or_else(|| el.value().attr("content"))?;
        match target(url) {
            Target::Page { host: Some(h), .. } if !h.is_empty() => Some(h),
            _ => None,
        }
    });
    declared.or_else(|| {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for link in links {
            if let Target::Page { host: Some(h), .. } = link {
                *counts.entry(h.as_str()).or_default() += 1;
            }
        }
        counts.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0))).map(|(h, _)| h.to_string())
    })
}

/// The `targets` group.
pub(super) struct Targets;

impl FeatureGroup for Targets {
    fn name(&self) -> &str {
        "targets"
    }

    fn view(&self) -> ViewKind {
        ViewKind::Lexical
    }

    fn features(&self) -> Vec<(String, String)> {
        FEATURES.iter().map(|(n, m)| (n.to_string(), m.to_string())).collect()
    }

    fn token_names(&self, _idf: &crate::lexical::IdfTable) -> Vec<String> {
        Vocabulary::builtin().map(|v| v.names.clone()).unwrap_or_default()
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
        let vocabulary = Vocabulary::builtin()?;
        let blocks = &ctx.division().blocks;
        // Each link is parsed once: the page's host is counted from the same targets.
        let targets: Vec<Vec<Target>> = blocks.iter().map(|b| b.links.iter().map(|l| target(&l.href)).collect()).collect();
        let own = page_host(&ctx.page().html, targets.iter().flatten());
        for (i, links) in targets.iter().enumerate() {
            let n = links.len();
            if n == 0 {
                continue;
            }
            let (mut external, mut social, mut action, mut fragment, mut root) = (0usize, 0usize, 0usize, 0usize, 0usize);
            let (mut pages, mut depth, mut slug, mut with_date, mut query) = (0usize, 0usize, 0usize, 0usize, 0usize);
            let mut tokens: Vec<(usize, f64)> = Vec::new();
            for link in links {
                match link {
                    Target::Action => action += 1,
                    Target::Fragment => fragment += 1,
                    Target::Page { host, segments, query: q } => {
                        if let Some(h) = host {
                            if own.as_deref().is_some_and(|o| o != h) {
                                external += 1;
                            }
                            if vocabulary.is_social(h) {
                                social += 1;
                            }
                        }
                        root += usize::from(segments.is_empty());
                        pages += 1;
                        depth += segments.len();
                        slug += segments.last().map_or(0, |s| segment_words(s).count());
                        with_date += usize::from(dated(segments));
                        query += usize::from(*q);
                        for w in segments.iter().flat_map(|s| segment_words(s)) {
                            if let Some(&c) = vocabulary.words.get(w) {
                                if !tokens.iter().any(|&(t, _)| t == c) {
                                    tokens.push((c, 1.0));
                                }
                            }
                        }
                    }
                }
            }
            let share = |k: usize| k as f64 / n as f64;
            let per_page = |k: usize| if pages == 0 { f64::NAN } else { k as f64 / pages as f64 };
            let row = [
                n as f64,
                share(external),
                share(social),
                share(action),
                share(fragment),
                share(root),
                per_page(depth),
                per_page(slug),
                per_page(with_date),
                per_page(query),
            ];
            out.row_mut(i).copy_from_slice(&row);
            out.set_tokens(i, tokens)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vocabulary_parses_without_duplicates() {
        let v = Vocabulary::builtin().unwrap();
        assert_eq!(v.names[v.words["cart"]], "path:cart");
        assert!(v.is_social("facebook.com") && v.is_social("m.facebook.com") && !v.is_social("notfacebook.com"));
        assert!(Vocabulary::parse("social_hosts = []\npath_words = [\"a\", \"a\"]").is_err());
    }

    #[test]
    fn targets_tell_pages_from_actions_and_fragments() {
        assert_eq!(target("javascript:void(0)"), Target::Action);
        assert_eq!(target("TEL:1-800-476-7830"), Target::Action);
        assert_eq!(target(""), Target::Action);
        assert_eq!(target("#comments"), Target::Fragment);
        assert_eq!(
            target("https://www.Example.com:8080/news/2025/05/04/storm-closes-harbour?utm=x#top"),
            Target::Page {
                host: Some("example.com".into()),
                segments: vec!["news".into(), "2025".into(), "05".into(), "04".into(), "storm-closes-harbour".into()],
                query: true
            }
        );
        assert_eq!(target("/tag/health/"), Target::Page { host: None, segments: vec!["tag".into(), "health".into()], query: false });
        assert_eq!(target("//cdn.x.org"), Target::Page { host: Some("cdn.x.org".into()), segments: vec![], query: false });
        assert!(dated(&["2025-05-04-storm".into()]) && dated(&["2019".into()]) && !dated(&["1234".into(), "a-b-c".into()]));
    }

    fn rows(html: &str) -> Vec<(String, Vec<f64>, Vec<String>)> {
        use crate::page::{LoadOptions, Page};
        let page = Page::from_bytes("t.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = crate::divide::Divider::default().divide(&page);
        let style = crate::stylistic::StyleOptions::default();
        let styled = crate::css::StyledDom::compute(&page, &style.css).unwrap();
        let ctx = PageContext::new(&page, &division, &styled, &style, None);
        let v = Vocabulary::builtin().unwrap();
        let mut out = GroupOutput::new(ctx.blocks(), FEATURES.len(), v.names.len());
        Targets.compute(&ctx, &mut out).unwrap();
        (0..ctx.blocks())
            .map(|b| (division.blocks[b].text.clone(), out.row(b).to_vec(), out.tokens(b).iter().map(|&(c, _)| v.names[c].clone()).collect()))
            .collect()
    }

    #[test]
    fn a_follow_button_a_section_link_and_a_story_link_differ_by_where_they_lead() {
        let html = "<html><head><link rel=canonical href='https://www.news.example/world/2025/05/04/storm'></head><body>\
            <ul><li><a href='https://twitter.com/newsexample'>Twitter</a></li></ul>\
            <div><a href='/world/'>World</a></div>\
            <p><a href='https://news.example/2025/05/03/harbour-reopens-after-three-days-of-storms'>Harbour reopens</a></p>\
            <p><a href='tel:555'>Call us</a> <a href='/cart?add=1'>Add to cart</a></p>\
            <p>No links here at all.</p></body></html>";
        let r = rows(html);
        let col = |name: &str| FEATURES.iter().position(|(n, _)| *n == name).unwrap();
        let find = |text: &str| r.iter().find(|(t, _, _)| t.starts_with(text)).unwrap_or_else(|| panic!("{text} in {r:?}"));
        let twitter = &find("Twitter").1;
        assert_eq!((twitter[col("tgt.external")], twitter[col("tgt.social")]), (1.0, 1.0));
        let world = find("World");
        assert_eq!((world.1[col("tgt.external")], world.1[col("tgt.depth")], world.1[col("tgt.slug_words")]), (0.0, 1.0, 1.0));
        let story = &find("Harbour").1;
        assert_eq!((story[col("tgt.external")], story[col("tgt.dated")], story[col("tgt.slug_words")]), (0.0, 1.0, 7.0));
        let actions = find("Call us");
        assert_eq!((actions.1[col("tgt.links")], actions.1[col("tgt.action")], actions.1[col("tgt.query")]), (2.0, 0.5, 1.0));
        assert_eq!(actions.2, ["path:cart"]);
        assert!(find("No links").1.iter().all(|x| x.is_nan()));
    }
}
