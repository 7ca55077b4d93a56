//! The article's reporter and date: what the page declares about itself first, then the blocks.
//!
//! A block classifier finds the one byline or dateline block among a page's hundreds poorly:
//! the class is rare (about one block in 250 on WCXB dev), so it seldom wins a block's argmax,
//! and a byline block usually carries more than the name ("By Jane Doe | May 4, 2025 | 5 min
//! read"). Today's pages, however, state their author and publication date in JSON-LD,
//! OpenGraph or `<meta>` (read by [`crate::views::PageMetadata`]), as trafilatura and the other
//! extractors use them. So [`fill`] takes:
//! - the **reporter** from the declared authors (every distinct name, joined by `, `); without
//!   one, from the block the classifier chose, cut to the name ([`byline_name`]);
//! - the **date** from the first declared publication date (never a modified date while a
//!   published one exists), written `YYYY-MM-DD`; without one, from the chosen block, written
//!   `YYYY-MM-DD` when a date can be read in it ([`first_date`]), else as it stands.
//!
//! Between the two come what the page's *markup* marks ([`Marked`]): an element whose `rel`,
//! `itemprop`, `class` or `id` says author or byline (`<span class="author-name">`,
//! `<a rel="author">`), a `<time datetime>` or an `itemprop="datePublished"`. Many pages
//! declare nothing in their head yet mark their byline so for their own style sheets; and a
//! declared author that is the site itself (`<meta name=author content="Cleveland Clinic">`,
//! a JSON-LD `Organization`) gives way to a person marked in the page.
//!
//! The **location** and **source** come from the dateline that opens the main text
//! (`LONDON (Reuters) - …`; [`dateline`]) before the blocks labelled so.
//!
//! Nothing here is learned, and nothing labels a block: these are the article's output fields.
//! 2008 pages declare almost nothing, so there the blocks decide as before.

use std::collections::HashSet;

use ego_tree::iter::Edge;
use scraper::{ElementRef, Html, Node};

use crate::views::{class_words, words, PageMetadata, MONTH_WORDS, TITLE_SEPARATORS};

mod dateline;

pub use dateline::{dateline, lead_dateline, source_name, standing_dateline, Dateline};

/// Words of the paragraph whose opening is read as the article's dateline ([`lead_dateline`]):
/// the first line of the main text this long; shorter lines before it are captions, kickers or
/// a dateline standing alone.
pub const LEAD_WORDS: usize = 8;

/// Declared authors beyond this many are left out (a JSON-LD list of every contributor).
const MAX_AUTHORS: usize = 8;

/// Blocks looked at after the title block (and [`NEAR_BEFORE`] before it) when neither the
/// page's metadata nor the classifier gives a field: bylines and datelines sit next to the
/// headline. 12 was chosen looking at WCXB dev (6, 12 and 25 blocks found 76, 89 and 99 right
/// dates on the 232 dated pages that declare none, and a date on 34, 47 and 65 of the 579
/// undated pages).
pub const NEAR_AFTER: usize = 12;
/// Blocks looked at before the title block.
pub const NEAR_BEFORE: usize = 3;
/// A block longer than this many words is article text, not a dateline.
const DATELINE_WORDS: usize = 30;

/// Fills `reporter` and `date` of an article, in this order of trust: what the page declares
/// (JSON-LD, `<meta>`), an author that is the site or an organisation only after a person
/// marked in the page, a modified date only after every other source; what its markup marks
/// ([`Marked`]); the block the classifier labelled so (cut to a name, read as a date); the
/// blocks next to the title (`texts` are the page's block texts in document order, `title` the
/// article's title): the first byline among them (`near_byline`) gives the reporter, the first
/// short one with a date in it the date; last, a short block anywhere that signs the post
/// (`Posted by …`, `Written by …`, `Authors: …` under a blog post).
pub fn fill(meta: &PageMetadata, marked: &Marked, texts: &[&str], title: Option<&str>, reporter: &mut Option<String>, date: &mut Option<String>) {
    let window = near_title(texts, title);
    let near = || window.iter();
    *reporter = declared_person(meta)
        .or_else(|| marked.bylines.first().cloned())
        .or_else(|| declared_reporter(meta))
        .or_else(|| reporter.as_deref().and_then(byline_name))
        .or_else(|| near_byline(window))
        .or_else(|| texts.iter().filter(|t| t.split_whitespace().count() <= DATELINE_WORDS).find_map(|t| byline_name(&t[signed_lead(t)?..])));
    let block_date = || date.as_deref().map(|d| first_date(d).unwrap_or_else(|| d.trim().to_string()));
    let near_date = || near().filter(|t| t.split_whitespace().count() <= DATELINE_WORDS).find_map(|t| first_date(t));
    *date = match meta.published.iter().find_map(|d| first_date(d)) {
        Some(published) => Some(published),
        // A modified date alone (`article:modified_time`) is when the page was last touched,
        // often years after the article: what the page shows comes before it.
        None => marked.dates.first().cloned().or_else(block_date).or_else(near_date).or_else(|| declared_date(meta)),
    };
}

/// The blocks next to the title: [`NEAR_BEFORE`] before its block and [`NEAR_AFTER`] from it
/// (from the first block when the title is no block's text).
fn near_title<'a, 'b>(texts: &'a [&'b str], title: Option<&str>) -> &'a [&'b str] {
    let at = title.and_then(|t| texts.iter().position(|b| *b == t)).unwrap_or(0);
    &texts[at.saturating_sub(NEAR_BEFORE)..texts.len().min(at + NEAR_AFTER)]
}

/// Fills `location` and `source` of an article from the dateline that opens its main text
/// ([`lead_dateline`]): the place, and the agency when the dateline names one. The blocks the
/// classifier labelled `location` or `source` are kept where the text has no dateline (or, for
/// the source, one without an agency), a copyright or credit line cut to its holder's name
/// ([`source_name`]): a dateline is what the story says of itself, while the classes of a
/// dateline block seldom win a block's argmax. Without one in the main text, a dateline standing
/// as its own block next to the title ([`standing_dateline`]; `texts` are the page's block
/// texts in document order, `title` the article's title) counts as well.
pub fn fill_source_and_location(main_text: &str, texts: &[&str], title: Option<&str>, location: &mut Option<String>, source: &mut Option<String>) {
    if let Some(name) = source.as_deref().and_then(source_name) {
        *source = Some(name);
    }
    let standing = || near_title(texts, title).iter().find_map(|t| standing_dateline(t));
    if let Some(d) = lead_dateline(main_text, LEAD_WORDS).or_else(standing) {
        *location = Some(d.place);
        if d.agency.is_some() {
            *source = d.agency;
        }
    }
}

/// The declared authors that are people: [`declared_reporter`] without the names the page
/// also declares as its site or an organisation ([`PageMetadata::organisations`]).
fn declared_person(meta: &PageMetadata) -> Option<String> {
    let organisations: Vec<HashSet<String>> = meta.organisations.iter().map(|o| words(o).into_iter().collect()).collect();
    joined_names(meta.authors.iter().filter(|a| !organisations.contains(&words(a).into_iter().collect())))
}

/// What a page's markup marks as its byline and publication date, in document order. Read
/// from the elements outside `<nav>`, `<footer>`, `<script>` and the like, and outside any
/// element whose `class` or `id` says comment, review, related, menu or breadcrumb (a
/// commenter's or a reviewer's name is not the byline), unless that element holds the page's
/// `<main>` or `<article>` (a layout wrapper whose class says `flex-nav-expanded`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Marked {
    /// Names from the elements marked as author: `rel="author"`, `itemprop="author"` or
    /// `creator`, a link to an author's archive (`href` with `/author/` or `/authors/`), a
    /// `class`/`id` word that starts with `author` (not `authori…`), ends with `username`
    /// (`bigusername`) or is `byline`, `writer` or `username` (words as the `semantics` group splits them: `authorName` → `author`,
    /// `name`; `blog__authorname` → `blog`, `authorname`), not one that also says avatar,
    /// image, bio or description. The element's text cut to a name ([`byline_name`]): at most
    /// [`MARKED_NAME_WORDS`] words, more than two letters, no date (nor a day and a month), no
    /// word of `NOT_NAMES` ("about", "view", "posts", "min", "read", …); when the element's
    /// text is no name (a byline box with the avatar, the role and the bio), the first element
    /// inside it whose text is one.
    pub bylines: Vec<String>,
    /// Dates, `YYYY-MM-DD`: an `itemprop="datePublished"` or `dateCreated` first (its `content`
    /// or `datetime`, else its text); then `<time>` elements (`datetime`, else text) and
    /// elements with a `class`/`id` word `date`, `published`, `pubdate`, `posted` whose short
    /// text has a date, in document order.
    pub dates: Vec<String>,
    /// The texts of the `<h1>` elements, white space collapsed, in document order: where a
    /// page shows its headline when it marks one at all.
    pub headings: Vec<String>,
    /// The texts of the `<h1>` elements that are the site's logo: the whole heading a link to
    /// the site's home page (`<h1><a href="/">RogerBW's Blog</a></h1>`). Blogs and
    /// documentation sites set their name so, and then it is no headline.
    pub logos: Vec<String>,
}

/// A name marked in the markup longer than this many words is a sentence, not a byline.
pub const MARKED_NAME_WORDS: usize = 6;
/// `class`/`id` words that mark an author's element (beside words that start with "author").
const AUTHOR_WORDS: &[&str] = &["byline", "writer", "username"];
/// Words that show an author-marked element holds a label or a link, not a name.
const NOT_NAMES: &[&str] = &[
    "by", "author", "authors", "article", "about", "posts", "post", "view", "profile", "follow", "more", "share", "comments", "written", "contact", "articles",
    "all", "see", "bio", "min", "mins", "minute", "minutes", "read",
];
/// `class`/`id` words of the subtrees that hold no byline of this article.
const NOT_ARTICLE: &[&str] = &["comment", "comments", "review", "reviews", "related", "menu", "breadcrumb", "breadcrumbs", "footer", "nav", "navigation"];
/// Elements whose subtree is never read.
const SKIPPED: &[&str] = &["script", "style", "noscript", "template", "nav", "footer", "head", "svg"];

impl Marked {
    /// One iterative pass over the page's elements.
    pub fn read(html: &Html) -> Marked {
        let mut marked = Marked::default();
        let mut published = Vec::new();
        // Depth of the open elements, and the depth at which a skipped subtree began.
        let (mut depth, mut skipping): (usize, Option<usize>) = (0, None);
        for edge in html.tree.root().traverse() {
            match edge {
                Edge::Open(node) => {
                    let Node::Element(el) = node.value() else { continue };
                    depth += 1;
                    if skipping.is_some() {
                        continue;
                    }
                    let attr_words = |name: &str| el.attr(name).map(class_words).unwrap_or_default();
                    let (class, id) = (attr_words("class"), attr_words("id"));
                    let says = |list: &[&str]| class.iter().chain(&id).any(|w| list.contains(&w.as_str()));
                    // `<body class="footer-on-bottom has-sidebar">`: the page's own classes name
                    // its parts, not the page.
                    let container = ["html", "body", "main", "article"].contains(&el.name());
                    // A wrapper of the whole layout (`<div class="flex-nav-expanded">` around
                    // Reddit's post) holds the headline: its classes name the page's state, not
                    // a menu.
                    let holds_article = || node.descendants().any(|d| d.value().as_element().is_some_and(|e| ["main", "article"].contains(&e.name())));
                    if SKIPPED.contains(&el.name()) || !container && says(NOT_ARTICLE) && !holds_article() {
                        skipping = Some(depth);
                        continue;
                    }
                    let Some(element) = ElementRef::wrap(node) else { continue };
                    let (rel, itemprop) = (attr_words("rel"), attr_words("itemprop"));
                    // `authorName`, `blog__authorname`: a class word that starts with author
                    // (not authority, authorize).
                    let author_word =
                        |w: &String| AUTHOR_WORDS.contains(&w.as_str()) || w.ends_with("username") || w.starts_with("author") && !w.starts_with("authori");
                    // A link to the author's archive (`/author/jane-doe/`, WordPress and others).
                    let author_link = el.name() == "a" && el.attr("href").is_some_and(|h| h.contains("/author/") || h.contains("/authors/"));
                    let author = rel.iter().any(|w| w == "author")
                        || itemprop.iter().any(|w| w == "author" || w == "creator")
                        || author_link
                        || class.iter().chain(&id).any(author_word)
                            && !says(&["avatar", "image", "img", "photo", "picture", "thumbnail", "bio", "description", "desc"]);
                    if author && el.name() != "meta" && el.name() != "link" {
                        let mut name = marked_name(&element_text(element));
                        // A byline box also holds the avatar, the role and the bio: the first
                        // element inside whose text is a name.
                        if name.is_none() {
                            name = element.descendants().skip(1).filter_map(ElementRef::wrap).find_map(|e| marked_name(&element_text(e)));
                        }
                        if let Some(name) = name {
                            if !marked.bylines.iter().any(|b| b.eq_ignore_ascii_case(&name)) {
                                marked.bylines.push(name);
                            }
                        }
                    }
                    if el.name() == "h1" {
                        let text = element_text(element);
                        let home = |a: ElementRef| a.value().name() == "a" && a.value().attr("href").is_some_and(is_home) && element_text(a) == text;
                        if !text.is_empty() {
                            let logo =
                                element.descendants().filter_map(ElementRef::wrap).any(home) || element.ancestors().filter_map(ElementRef::wrap).any(home);
                            if logo { &mut marked.logos } else { &mut marked.headings }.push(text);
                        }
                    }
                    let stamp = || el.attr("content").or_else(|| el.attr("datetime")).and_then(first_date).or_else(|| short_date(&element_text(element)));
                    if itemprop.iter().any(|w| w == "published" || w == "created") {
                        published.extend(stamp());
                    } else if el.name() == "time" || says(&["date", "published", "pubdate", "posted"]) {
                        marked.dates.extend(stamp());
                    }
                }
                Edge::Close(node) => {
                    if node.value().is_element() {
                        if skipping == Some(depth) {
                            skipping = None;
                        }
                        depth -= 1;
                    }
                }
            }
        }
        published.append(&mut marked.dates);
        marked.dates = published;
        marked
    }
}

/// Whether a link goes to the site's home page or its index: `/`, `https://host/`, `./`,
/// `../index.html` (a documentation page's link up to its table of contents).
fn is_home(href: &str) -> bool {
    let path = href.split_once("://").map_or(href, |(_, rest)| rest.find('/').map_or("/", |at| &rest[at..]));
    let mut path = path.trim();
    while let Some(rest) = path.strip_prefix("../").or_else(|| path.strip_prefix("./")) {
        path = rest;
    }
    matches!(path, "" | "/" | ".." | "index.html" | "/index.html" | "index.php" | "/index.php")
}

/// An element's text, white space collapsed; reading stops after about 400 characters.
fn element_text(element: ElementRef) -> String {
    let mut text = String::new();
    for t in element.text() {
        if text.len() > 400 {
            break;
        }
        text.push_str(t);
        text.push(' ');
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The date in a short text (at most [`DATELINE_WORDS`] words).
fn short_date(text: &str) -> Option<String> {
    (text.split_whitespace().count() <= DATELINE_WORDS).then(|| first_date(text)).flatten()
}

/// The name in an author-marked element's text, or `None` when it is no name.
fn marked_name(text: &str) -> Option<String> {
    let name = byline_name(text)?;
    let w = words(&name);
    // "Mar 6" is a date without its year, "NB" an avatar's initials.
    let day_and_month = w.iter().any(|w| is_month(w)) && w.iter().any(|w| w.chars().all(|c| c.is_ascii_digit()));
    let ok = (1..=MARKED_NAME_WORDS).contains(&w.len())
        && name.chars().filter(|c| c.is_alphabetic()).count() > 2
        && !w.iter().any(|w| NOT_NAMES.contains(&w.as_str()))
        && !day_and_month
        && first_date(&name).is_none();
    ok.then_some(name)
}

/// A block longer than this many words is no headline.
const HEADLINE_WORDS: usize = 40;
/// Word-set F1 with a declared title from which a block counts as the headline.
const HEADLINE_MATCH: f64 = 0.5;
/// The same for a block that is an `<h1>`: "Cloud" is the headline of a page titled "Latest
/// Cloud Computing News | CIO Dive" (word-set F1 0.4). 0.3 was chosen on the even-numbered
/// WCXB dev pages (0.2, 0.3, 0.4 and 0.5 gave title F1 0.888, 0.890, 0.890 and 0.885).
const HEADING_MATCH: f64 = 0.3;

/// Separators at which a site's name is cut from a declared title, beside the
/// [`TITLE_SEPARATORS`] the longest part is found at ("Dental Care · ONE Health Ohio").
const MORE_TITLE_SEPARATORS: &[&str] = &[" · ", " » "];

/// The article's title: the block that best matches a title the page declares, as the page
/// shows it; else the first declared title (site name cut); else the first `<h1>`; else
/// `classified`, the classifier's title block.
///
/// The declared titles, in order of trust: JSON-LD `headline`, `og:title` and the like, the
/// `<title>` and its longest part ([`PageMetadata::titles`]). A part that names the site or an
/// organisation ([`PageMetadata::organisations`]: "The Writing Center" in "Book Reviews – The
/// Writing Center") is cut from every declared title first, or the site's logo block would
/// match the declared title better than the headline does.
///
/// A block matches with word-set F1 at least 0.5 (an `<h1>` at least 0.3) and at most 40
/// words. Among matching blocks an `<h1>` ([`Marked::headings`]) comes first, then the higher
/// F1, then the more trusted declared title, then the first in the page: pages carry their
/// site's name as a logo, in a breadcrumb or a footer as often as their headline, but mark the
/// headline as the `<h1>`. A block that is the site's name (its words among an organisation's)
/// or an `<h1>` that is the site's logo ([`Marked::logos`]) is no candidate, unless the page
/// declares no title but its name.
///
/// On WCXB dev with the shipped default model, title F1 went from 0.464 (the classifier's
/// title block alone) to 0.846 with the declared titles, to 0.895 with the cut site names
/// and the `<h1>`, and to 0.900 without the site's name and logo as candidates
/// (`reports/wcxb-extract/fields.md`).
pub fn title(meta: &PageMetadata, marked: &Marked, texts: &[&str], classified: Option<String>) -> Option<String> {
    let declared = declared_titles(meta);
    let headings: HashSet<String> = marked.headings.iter().map(|h| h.to_lowercase()).collect();
    let logos: HashSet<String> = marked.logos.iter().map(|h| h.to_lowercase()).collect();
    // The site's name as a block (its logo, its footer) is no headline, unless the page declares
    // no title but the site's name.
    let organisations = organisation_words(meta);
    let all_site = declared.iter().all(|(_, d)| organisations.iter().any(|o| d.is_subset(o)));
    let names_site = |block: &HashSet<String>| !all_site && organisations.iter().any(|o| block.is_subset(o));
    // (is an <h1>, F1, -rank of the declared title it matches), the block's text.
    let mut best: Option<((bool, f64, isize), &str)> = None;
    // Without a declared title no block can match one: the blocks are not looked at.
    let candidates = texts.iter().filter(|_| !declared.is_empty());
    for text in candidates.filter(|t| !t.trim().is_empty() && t.split_whitespace().count() <= HEADLINE_WORDS) {
        let block: HashSet<String> = words(text).into_iter().collect();
        let normalised = text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        if logos.contains(&normalised) || names_site(&block) {
            continue;
        }
        let h1 = headings.contains(&normalised);
        let mut matched: Option<(usize, f64)> = None;
        for (rank, (_, d)) in declared.iter().enumerate() {
            let f = word_f1(&block, d);
            if matched.is_none_or(|(_, b)| f > b) {
                matched = Some((rank, f));
            }
        }
        let Some((rank, score)) = matched else { continue };
        let key = (h1, score, -(rank as isize));
        if score >= if h1 { HEADING_MATCH } else { HEADLINE_MATCH } && best.is_none_or(|(b, _)| key > b) {
            best = Some((key, text));
        }
    }
    if let Some((_, text)) = best {
        return Some(text.trim().to_string());
    }
    declared.into_iter().next().map(|(text, ..)| text).or_else(|| marked.headings.first().cloned()).or(classified)
}

/// The declared titles in order of trust (see [`title`]), each with its word set, the site's
/// and organisations' names cut from them.
fn declared_titles(meta: &PageMetadata) -> Vec<(String, HashSet<String>)> {
    let set = |text: &str| -> HashSet<String> { words(text).into_iter().collect() };
    let organisations = organisation_words(meta);
    let names_organisation = |part: &str| {
        let part = set(part);
        organisations.iter().any(|o| part.is_subset(o))
    };
    // The title's parts between separators that name no organisation; white space (a
    // no-break space around `|` too) collapsed first.
    let kept_parts = |title: &str| -> Vec<String> {
        let mut parts = vec![title.split_whitespace().collect::<Vec<_>>().join(" ")];
        for sep in TITLE_SEPARATORS.iter().chain(MORE_TITLE_SEPARATORS) {
            parts = parts.iter().flat_map(|p| p.split(sep).map(|p| p.trim().to_string())).collect();
        }
        parts.into_iter().filter(|p| !set(p).is_empty() && !names_organisation(p)).collect()
    };
    // A title that is all site name (`og:title` "Glossier") stays as it is.
    let cut = |title: &str| Some(kept_parts(title)).filter(|p| !p.is_empty()).map(|p| p.join(" | ")).unwrap_or_else(|| title.to_string());
    meta.titles.iter().map(|t| cut(t)).map(|t| (t.clone(), set(&t))).filter(|(_, s)| !s.is_empty()).collect()
}

/// The word sets of the names the page gives itself or an organisation
/// ([`PageMetadata::organisations`]), those without words left out.
fn organisation_words(meta: &PageMetadata) -> Vec<HashSet<String>> {
    meta.organisations.iter().map(|o| words(o).into_iter().collect::<HashSet<_>>()).filter(|o| !o.is_empty()).collect()
}

/// F1 of two word sets, `2·common / (|a| + |b|)` (0 when either is empty). Computed from the
/// counts, not as `2rp / (r + p)` of a recall and a precision as the `metadata` group does:
/// the two round differently, and ties between blocks must be broken the same way every time.
fn word_f1(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let common = a.intersection(b).count() as f64;
    if common == 0.0 {
        0.0
    } else {
        2.0 * common / (a.len() + b.len()) as f64
    }
}

/// The page's declared authors, each once (compared without case), joined by `, `; `None`
/// when it declares none. A value that is a URL or longer than 100 characters is no name.
pub fn declared_reporter(meta: &PageMetadata) -> Option<String> {
    joined_names(meta.authors.iter())
}

/// Names each once (compared without case), joined by `, `: at most [`MAX_AUTHORS`], none
/// that is a URL or longer than 100 characters.
fn joined_names<'a>(authors: impl Iterator<Item = &'a String>) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    for a in authors {
        let a = a.trim();
        // "A, B, C" declared twice, once as one string and once name by name.
        let parts = |n: &str| n.split(',').map(|p| p.trim().to_lowercase()).filter(|p| !p.is_empty()).collect::<Vec<_>>();
        let known: HashSet<String> = names.iter().flat_map(|n| parts(n)).collect();
        let seen = parts(a).iter().all(|p| known.contains(p));
        if !a.is_empty() && a.len() <= 100 && !a.contains("://") && !seen && names.len() < MAX_AUTHORS {
            names.push(a);
        }
    }
    (!names.is_empty()).then(|| names.join(", "))
}

/// The first declared publication date that can be read, as `YYYY-MM-DD` (or `YYYY-MM`);
/// a modified date only when no publication date is declared.
pub fn declared_date(meta: &PageMetadata) -> Option<String> {
    meta.published.iter().chain(&meta.dates).find_map(|d| first_date(d))
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// The first date written in `text`, as `YYYY-MM-DD` (`YYYY-MM` for an ISO month), read in this
/// order: ISO `2025-05-04` (the start of an ISO timestamp); then the earliest of `May 4, 2025`,
/// `4 May 2025` (`4th of May 2025`), `2025 May 4` and the numeric dates of one word (`5/4/2025`
/// month first, as US sites write it, `15/12/2025`, `2025.12.17`, `17.12.2025`: see
/// `numeric_date`). English month names, full or abbreviated; relative dates ("3 hours ago") are not
/// read. The peer benchmark's scorer (`benches/peers/extract_peers.py`) reads the same forms
/// except the day-first and dotted ones, which parcels writes out as ISO.
pub fn first_date(text: &str) -> Option<String> {
    if let Some(iso) = iso_date(text) {
        return Some(iso);
    }
    let tokens = tokens(text);
    let month = |t: &str| {
        let t = t.to_ascii_lowercase();
        let t = t.trim_end_matches('.');
        is_month(t).then(|| MONTHS.iter().position(|m| t.starts_with(m))).flatten().map(|i| i as u32 + 1)
    };
    let day = |t: &str| {
        let d = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        (d.len() <= 2 && t.len() - d.len() <= 2).then(|| d.parse::<u32>().ok()).flatten().filter(|d| (1..=31).contains(d))
    };
    let year = |t: &str| (t.len() == 4).then(|| t.parse::<u32>().ok()).flatten();
    for i in 0..tokens.len() {
        let at = |k: usize| tokens.get(i + k).map(String::as_str).unwrap_or("");
        let found = if let (Some(m), Some(d), Some(y)) = (month(at(0)), day(at(1)), year(at(2))) {
            Some((y, m, d))
        } else if let (Some(d), Some(m), Some(y)) = (day(at(0)), month(at(1)), year(at(2))) {
            Some((y, m, d))
        } else if let (Some(d), true, Some(m), Some(y)) = (day(at(0)), at(1).eq_ignore_ascii_case("of"), month(at(2)), year(at(3))) {
            Some((y, m, d))
        } else if let (Some(y), Some(m), Some(d)) = (year(at(0)), month(at(1)), day(at(2))) {
            Some((y, m, d))
        } else {
            numeric_date(at(0))
        };
        if let Some((y, m, d)) = found {
            return Some(format!("{y:04}-{m:02}-{d:02}"));
        }
    }
    None
}

/// Whether a lower-cased word (its dot removed) is a month name or its abbreviation
/// (`sept` too), not a word that merely starts like one (`marching`, `mayor`).
fn is_month(t: &str) -> bool {
    MONTH_WORDS.contains(&t)
}

/// `YYYY-MM-DD` or `YYYY-MM` at the first ISO-shaped date in the text.
fn iso_date(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let digits = |at: usize, n: usize| b.get(at..at + n).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    (0..b.len()).find_map(|i| {
        let starts_number = i == 0 || !b[i - 1].is_ascii_digit();
        if !(starts_number && digits(i, 4) && b.get(i + 4) == Some(&b'-')) {
            return None;
        }
        let month_len = if digits(i + 5, 2) {
            2
        } else if digits(i + 5, 1) {
            1
        } else {
            return None;
        };
        let m: u32 = text[i + 5..i + 5 + month_len].parse().ok()?;
        let after = i + 5 + month_len;
        if !(1..=12).contains(&m) || b.get(after).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let y = &text[i..i + 4];
        if b.get(after) == Some(&b'-') {
            let day_len = if digits(after + 1, 2) {
                2
            } else if digits(after + 1, 1) {
                1
            } else {
                0
            };
            if let Some(d) = text.get(after + 1..after + 1 + day_len).and_then(|d| d.parse::<u32>().ok()).filter(|d| (1..=31).contains(d)) {
                return Some(format!("{y}-{m:02}-{d:02}"));
            }
        }
        Some(format!("{y}-{m:02}"))
    })
}

/// A numeric date in one word, as `(year, month, day)`: `M/D/YYYY` (month first, as US sites
/// write it) unless its first number cannot be a month (`15/12/2025` is day first);
/// `YYYY.MM.DD`; `D.M.YYYY` (day first, as European sites write it). Letters glued before the
/// date are left out: a byline run into its date ("Yucy3/4/2025") still dates the page.
fn numeric_date(t: &str) -> Option<(u32, u32, u32)> {
    let t = t.trim_start_matches(|c: char| c.is_alphabetic());
    let number = |p: &str| (!p.is_empty() && p.len() <= 2).then(|| p.parse::<u32>().ok()).flatten();
    let year = |p: &str| (p.len() == 4).then(|| p.parse::<u32>().ok()).flatten();
    let valid = |(y, m, d): (u32, u32, u32)| ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some((y, m, d));
    let parts: Vec<&str> = t.split(['/', '.']).collect();
    let [a, b, c] = parts[..] else { return None };
    if t.contains('/') && !t.contains('.') {
        let (first, second, y) = (number(a)?, number(b)?, year(c)?);
        return valid((y, first, second)).or_else(|| valid((y, second, first)).filter(|_| first > 12));
    }
    if t.contains('.') && !t.contains('/') {
        if let Some(y) = year(a) {
            return valid((y, number(b)?, number(c)?));
        }
        return valid((year(c)?, number(b)?, number(a)?));
    }
    None
}

/// Words of a text with the punctuation around them removed (`May 4, 2025.` → `May`, `4`,
/// `2025`); `/` and `.` stay inside a word for `5/4/2025` and `2025.12.17`.
fn tokens(text: &str) -> Vec<String> {
    text.split_whitespace().map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '/')).to_string()).filter(|w| !w.is_empty()).collect()
}

/// Words that end a byline's name: what follows is a date, a role or the reading time.
const AFTER_NAME: &[&str] = &["updated", "published", "posted", "on", "at", "last", "min", "minute", "minutes", "read", "reading"];

/// The name in a byline block: the text after a leading `By`, `Written by`, `Posted by`,
/// `Author:` (and the like), up to the first separator (`|`, `•`, `·`, ` - `, ` — `, a line
/// break), a date, or a word such as `Updated` or `Published`; at most 12 words. `None` when
/// nothing is left.
pub fn byline_name(text: &str) -> Option<String> {
    let t = text.trim();
    let rest = t.get(byline_lead(t).unwrap_or(0)..).unwrap_or(t).trim_start_matches(|c: char| c.is_whitespace() || c == ':');
    let cut = ["|", "•", "·", " - ", " — ", " – ", "\n", ": ", " in "].iter().filter_map(|s| rest.find(s)).min().unwrap_or(rest.len());
    let mut words = Vec::new();
    for w in rest[..cut].split_whitespace() {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        if AFTER_NAME.contains(&bare.as_str()) || first_date(w).is_some() || is_month(bare.trim_end_matches('.')) && words.len() >= 2 || words.len() == 12 {
            break;
        }
        words.push(w);
    }
    let name = words.join(" ").trim_end_matches([',', ';', ':']).trim().to_string();
    (!name.is_empty()).then_some(name)
}

/// Words that open a byline, lower-cased, longest first where one starts another.
const BYLINE_LEADS: &[&str] = &["written by", "posted by", "words by", "story by", "reporting by", "by", "authors", "author"];

/// Where the name starts when a text starts like a byline: `By`, `Written by`, `Posted by`,
/// `Words by`, `Story by`, `Reporting by` or `Author(s)` as words of their own; the name starts
/// after the spaces or colon that follow.
fn byline_lead(text: &str) -> Option<usize> {
    let t = text.trim_start();
    let lower = t.to_lowercase();
    // `ByDaryl Austin`: the space lost between two inline elements.
    let mut after_by = t.strip_prefix("By").unwrap_or("").chars();
    if after_by.next().is_some_and(char::is_uppercase) && after_by.next().is_some_and(char::is_lowercase) {
        return Some(text.len() - t.len() + 2);
    }
    let lead = BYLINE_LEADS.iter().copied().find(|lead| lower.starts_with(lead) && lower[lead.len()..].starts_with(|c: char| c.is_whitespace() || c == ':'))?;
    let name = t.get(lead.len()..)?.trim_start_matches(|c: char| c.is_whitespace() || c == ':');
    Some(text.len() - name.len())
}

/// The reporter from the blocks next to the title: the first that starts like a byline (`By
/// Jane Doe`, `ByJane Doe` with the space lost), a lead standing alone followed by the name
/// in the next block (`Written by` | `Edzel Tabing`), or a short dated block with a byline
/// after its date (`March 15, 2022 · 3 min read · By ASU Online`).
fn near_byline(texts: &[&str]) -> Option<String> {
    texts.iter().enumerate().find_map(|(i, t)| {
        if starts_like_byline(t) {
            return byline_name(t);
        }
        // The lead with nothing after it but a colon: the name is in the next block.
        let lead_alone = BYLINE_LEADS.contains(&t.trim().to_lowercase().trim_end_matches(|c: char| c.is_whitespace() || c == ':'));
        if lead_alone {
            return texts[i + 1..].iter().find(|n| !n.trim().is_empty()).and_then(|n| marked_name(n)).filter(|n| capitalised(n));
        }
        if t.split_whitespace().count() <= DATELINE_WORDS && first_date(t).is_some() {
            let at = t.find(" By ").or_else(|| t.find(" by ").filter(|&at| t[at + 4..].starts_with(char::is_uppercase)))?;
            // "book by December 30": a date, not a name.
            return byline_name(&t[at + 1..]).filter(|n| !n.split_whitespace().next().is_some_and(|w| is_month(&w.to_lowercase())));
        }
        None
    })
}

/// Whether every word of a name starts with a capital letter, its particles (`van`, `de`) aside:
/// "Edzel Tabing", "Ludwig van Beethoven", not "Starting an eco-friendly lifestyle".
fn capitalised(name: &str) -> bool {
    const PARTICLES: &[&str] = &["van", "von", "de", "der", "den", "da", "di", "du", "la", "le", "del", "bin", "al", "and", "&"];
    name.split_whitespace().all(|w| w.starts_with(|c: char| !c.is_lowercase()) || PARTICLES.contains(&w))
}

/// Leads that sign a post wherever they stand on the page (blog templates put them under the
/// post): `Posted by`, `Written by`, `Authored by`, `Author:`, `Authors:`; where the name starts.
fn signed_lead(text: &str) -> Option<usize> {
    let t = text.trim_start();
    let lower = t.to_lowercase();
    let lead = ["posted by", "written by", "authored by", "author:", "authors:"].into_iter().find(|l| lower.starts_with(l))?;
    let name = t[lead.len()..].trim_start_matches(|c: char| c.is_whitespace() || c == ':');
    name.starts_with(char::is_uppercase).then(|| text.len() - name.len())
}

/// A byline lead followed by a capital letter (`By Jane`, not `by the river`).
fn starts_like_byline(text: &str) -> bool {
    byline_lead(text).and_then(|at| text.get(at..)).is_some_and(|name| name.starts_with(char::is_uppercase))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_read_in_the_scorers_order_and_written_iso() {
        assert_eq!(first_date("2025-05-04T09:00:00Z").as_deref(), Some("2025-05-04"));
        assert_eq!(first_date("Posted 2024-3-7 at noon").as_deref(), Some("2024-03-07"));
        assert_eq!(first_date("2024-11").as_deref(), Some("2024-11"));
        assert_eq!(first_date("Updated May 4, 2025 10:31 a.m.").as_deref(), Some("2025-05-04"));
        assert_eq!(first_date("4th of Sept. 2023").as_deref(), Some("2023-09-04"));
        assert_eq!(first_date("Tue, 05 Mar 2024 10:00:00 GMT").as_deref(), Some("2024-03-05"));
        assert_eq!(first_date("2023 Dec 1").as_deref(), Some("2023-12-01"));
        assert_eq!(first_date("on 12/31/2022.").as_deref(), Some("2022-12-31"));
        // Day first where the first number cannot be a month; dotted dates; a byline glued to
        // its date.
        assert_eq!(first_date("Posted on the 15/12/2025 at 19:00").as_deref(), Some("2025-12-15"));
        assert_eq!(first_date("Essay - Published: 2025.12.17 | programming").as_deref(), Some("2025-12-17"));
        assert_eq!(first_date("Veröffentlicht am 3.11.2024").as_deref(), Some("2024-11-03"));
        assert_eq!(first_date("Yucy3/4/2025").as_deref(), Some("2025-03-04"));
        // Not dates: relative dates, a mayor, an ISO-looking number inside a longer one, month 13,
        // a version number, a ratio.
        for none in ["3 hours ago", "Mayor 4 2025", "12025-05-04", "2025-13-01", "13/31/2022", "13/13/2022", "v1.2.3", "2025.13.01", "1/2", ""] {
            assert_eq!(first_date(none), None, "{none}");
        }
    }

    #[test]
    fn the_title_is_the_block_that_shows_the_declared_title() {
        let m = PageMetadata { titles: vec!["Storm closes harbour | Coast Gazette".into(), "Storm closes harbour".into()], ..PageMetadata::default() };
        let texts = ["Coast Gazette", "Storm closes the harbour", "Storm closes harbour", "Gale force winds kept the harbour closed."];
        // Both blocks match; the exact one scores 1.0 against the second declared title.
        assert_eq!(title(&m, &Marked::default(), &texts, Some("Gale".into())).as_deref(), Some("Storm closes harbour"));
        // No block matches: the first declared title; nothing declared: the classifier's.
        assert_eq!(title(&m, &Marked::default(), &["Menu", "Body text here"], None).as_deref(), Some("Storm closes harbour | Coast Gazette"));
        assert_eq!(title(&PageMetadata::default(), &Marked::default(), &texts, Some("Gale".into())).as_deref(), Some("Gale"));
    }

    #[test]
    fn the_site_name_is_cut_from_the_declared_titles_and_the_h1_comes_first() {
        let m = PageMetadata {
            titles: vec!["Book Reviews – The Writing Center".into(), "Book Reviews – The Writing Center".into(), "The Writing Center".into()],
            organisations: vec!["The Writing Center".into()],
            ..PageMetadata::default()
        };
        // The logo matches the site's part exactly; with the site's name cut, the heading wins.
        let texts = ["The Writing Center", "Book Reviews", "Reviews of books we like"];
        assert_eq!(title(&m, &Marked::default(), &texts, None).as_deref(), Some("Book Reviews"));
        // Nothing in the page matches: the declared title without the site's name.
        assert_eq!(title(&m, &Marked::default(), &["Menu"], None).as_deref(), Some("Book Reviews"));

        // No site name declared: "Service" (`og:title`) and "Kubernetes" (the `<title>`'s
        // longest part) are matched exactly; `og:title` is trusted more, so the block that
        // shows it wins even though the logo comes first.
        let k = PageMetadata { titles: vec!["Service".into(), "Service | Kubernetes".into(), "Kubernetes".into()], ..PageMetadata::default() };
        assert_eq!(title(&k, &Marked::default(), &["Kubernetes", "Service"], None).as_deref(), Some("Service"));

        // An <h1> comes before a closer match elsewhere, and counts from word-set F1 0.3.
        let c = PageMetadata { titles: vec!["Latest Cloud Computing News | CIO Dive".into(), "Latest Cloud Computing News".into()], ..PageMetadata::default() };
        let marked = Marked { headings: vec!["Cloud".into()], ..Marked::default() };
        let texts = ["CIO Dive", "Cloud", "Cloud computing news for leaders"];
        assert_eq!(title(&c, &Marked::default(), &texts, None).as_deref(), Some("Cloud computing news for leaders"));
        assert_eq!(title(&c, &marked, &texts, None).as_deref(), Some("Cloud"));
    }

    #[test]
    fn a_byline_is_cut_to_the_name() {
        assert_eq!(byline_name("By Jane Doe | May 4, 2025 | 5 min read").as_deref(), Some("Jane Doe"));
        assert_eq!(byline_name("Written by: Ann Lee and Bo Kim Updated 3 hours ago").as_deref(), Some("Ann Lee and Bo Kim"));
        assert_eq!(byline_name("BY JOHN SMITH, Associated Press").as_deref(), Some("JOHN SMITH, Associated Press"));
        assert_eq!(byline_name("Jane Doe May 4, 2025").as_deref(), Some("Jane Doe"));
        assert_eq!(byline_name("Author: Jo · Editor"), Some("Jo".into()));
        assert_eq!(byline_name("By | May 4"), None);
        // "By" must be a word of its own: "Byron Lee" is a name.
        assert_eq!(byline_name("Byron Lee").as_deref(), Some("Byron Lee"));
    }

    fn meta(authors: &[&str], published: &[&str], dates: &[&str]) -> PageMetadata {
        let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        PageMetadata { authors: own(authors), published: own(published), dates: own(dates), ..PageMetadata::default() }
    }

    #[test]
    fn the_dateline_gives_location_and_source_before_the_blocks() {
        let fill = |text: &str, location: Option<&str>, source: Option<&str>| {
            let (mut l, mut s) = (location.map(str::to_string), source.map(str::to_string));
            fill_source_and_location(text, &[], None, &mut l, &mut s);
            (l, s)
        };
        let own = |s: &str| Some(s.to_string());
        let wire = "Photo: Reuters\nPARIS, Jan 8 (Reuters) - French President Nicolas Sarkozy defended on Tuesday";
        assert_eq!(fill(wire, Some("Paris"), Some("© Reuters 2007. All Rights Reserved.")), (own("PARIS"), own("Reuters")));
        // A dateline without an agency keeps the source block; no dateline keeps both blocks.
        let place_only = "LONDON -- The tragic period romance \"Atonement\" dominated the race for the awards";
        assert_eq!(fill(place_only, None, Some("The Associated Press")), (own("LONDON"), own("The Associated Press")));
        assert_eq!(fill(place_only, None, Some("© 2008 The Associated Press. All rights reserved.")), (own("LONDON"), own("The Associated Press")));
        let plain = "The tragic period romance \"Atonement\" dominated the race for the awards";
        assert_eq!(fill(plain, Some("HALIFAX"), None), (own("HALIFAX"), None));
        // A dateline block next to the title, outside the main text.
        let (mut l, mut s) = (None, None);
        fill_source_and_location(plain, &["Home", "Bush visits Iraq", "WASHINGTON (AFP)", plain], Some("Bush visits Iraq"), &mut l, &mut s);
        assert_eq!((l, s), (own("WASHINGTON"), own("AFP")));
    }

    #[test]
    fn declared_fields_win_and_the_blocks_fill_the_gaps() {
        let m = meta(&["Jane Doe", "jane doe", "https://x.org/jane", "Ann Lee"], &["2025-05-04T09:00:00Z"], &["2025-06-01", "2025-05-04T09:00:00Z"]);
        let (mut reporter, mut date) = (Some("By Someone Else".to_string()), Some("June 1, 2025".to_string()));
        fill(&m, &Marked::default(), &[], None, &mut reporter, &mut date);
        assert_eq!((reporter.as_deref(), date.as_deref()), (Some("Jane Doe, Ann Lee"), Some("2025-05-04")));
        // Only a modified date declared: it is the date.
        assert_eq!(declared_date(&meta(&[], &[], &["2025-06-01T00:00:00Z"])).as_deref(), Some("2025-06-01"));
        // Nothing declared: the blocks' values, cut to a name and read as a date.
        let (mut reporter, mut date) = (Some("By Someone Else | 2 min read".to_string()), Some("Posted: June 1, 2025".to_string()));
        fill(&PageMetadata::default(), &Marked::default(), &[], None, &mut reporter, &mut date);
        assert_eq!((reporter.as_deref(), date.as_deref()), (Some("Someone Else"), Some("2025-06-01")));
        let (mut reporter, mut date) = (None, Some(" yesterday ".to_string()));
        fill(&PageMetadata::default(), &Marked::default(), &[], None, &mut reporter, &mut date);
        assert_eq!((reporter, date.as_deref()), (None, Some("yesterday")));
    }

    #[test]
    fn without_metadata_or_labels_the_blocks_next_to_the_title_give_byline_and_date() {
        let long = "On May 4, 2025 the council met ".repeat(8);
        let mut texts = vec!["Menu", "Posted by Admin on June 2, 2020", "Storm closes harbour", "by the sea", long.as_str()];
        texts.extend(["Written by: Jane Doe", "Updated May 5, 2025"]);
        let (mut reporter, mut date) = (None, None);
        fill(&PageMetadata::default(), &Marked::default(), &texts, Some("Storm closes harbour"), &mut reporter, &mut date);
        // Three blocks before the title are looked at too, so the "Posted by" line wins; the
        // lower-case "by the sea" is no byline and the long paragraph is no dateline.
        assert_eq!((reporter.as_deref(), date.as_deref()), (Some("Admin"), Some("2020-06-02")));
        let (mut reporter, mut date) = (None, None);
        fill(&PageMetadata::default(), &Marked::default(), &texts[2..], Some("Storm closes harbour"), &mut reporter, &mut date);
        assert_eq!((reporter.as_deref(), date.as_deref()), (Some("Jane Doe"), Some("2025-05-05")));
        // Too far from the title: nothing.
        let far: Vec<&str> = std::iter::once("Storm closes harbour").chain(std::iter::repeat_n("x", NEAR_AFTER)).chain(["By Jane Doe"]).collect();
        let (mut reporter, mut date) = (None, None);
        fill(&PageMetadata::default(), &Marked::default(), &far, Some("Storm closes harbour"), &mut reporter, &mut date);
        assert_eq!((reporter, date), (None, None));
    }

    #[test]
    fn bylines_next_to_the_title_in_the_shapes_pages_write_them() {
        let reporter_of = |texts: &[&str]| {
            let (mut reporter, mut date) = (None, None);
            fill(&PageMetadata::default(), &Marked::default(), texts, Some("Storm closes harbour"), &mut reporter, &mut date);
            reporter
        };
        // The lead alone, the name in the next block (not a sentence, not lower case).
        assert_eq!(reporter_of(&["Storm closes harbour", "Written by", "Edzel Tabing"]).as_deref(), Some("Edzel Tabing"));
        assert_eq!(reporter_of(&["Storm closes harbour", "Written By", "Starting an eco-friendly lifestyle: tips"]), None);
        // The space lost between two inline elements; not "Byron" nor an acronym.
        assert_eq!(reporter_of(&["Storm closes harbour", "ByDaryl Austin"]).as_deref(), Some("Daryl Austin"));
        assert_eq!(reporter_of(&["Storm closes harbour", "Byron Bay beaches"]), None);
        // After the date in a short dated block; a deadline is not a name; a category after
        // " in " is cut.
        assert_eq!(reporter_of(&["Storm closes harbour", "March 15, 2022 · 3 min read · By ASU Online"]).as_deref(), Some("ASU Online"));
        assert_eq!(reporter_of(&["Storm closes harbour", "03/01/2017 by Agatha Caleo in Careers"]).as_deref(), Some("Agatha Caleo"));
        assert_eq!(reporter_of(&["Storm closes harbour", "Save when you book by December 30, 2025"]), None);
        // A post signed under it, anywhere on the page.
        let far: Vec<&str> = std::iter::once("Storm closes harbour")
            .chain(std::iter::repeat_n("x", NEAR_AFTER))
            .chain(["Posted by Colin Watson on 2025-12-18 in debusine."])
            .collect();
        assert_eq!(reporter_of(&far).as_deref(), Some("Colin Watson"));
    }

    #[test]
    fn authors_declared_twice_are_given_once() {
        let names = ["Craig Randall, Alli Miles".to_string(), "Craig Randall".to_string(), "Alli Miles".to_string(), "Bo Kim".to_string()];
        assert_eq!(joined_names(names.iter()).as_deref(), Some("Craig Randall, Alli Miles, Bo Kim"));
    }

    fn marked(html: &str) -> Marked {
        Marked::read(&Html::parse_document(html))
    }

    #[test]
    fn the_markup_marks_bylines_and_dates() {
        let m = marked(
            r#"<html><body class="footer-on-bottom has-sidebar">
            <div class="post-meta"><span class="byline">By</span> <a class="author-name" href="/a/jd">Jane Doe</a>
              <span class="authorAvatar">JD</span> <time datetime="2024-03-05T10:00">March 5</time></div>
            <p class="article-author-bio">Jane Doe writes about harbours and the sea for the Gazette.</p>
            <a rel="author" href="/a/bk">Bo Kim</a> <span class="author">About the author</span>
            <span class="posted-on">Posted on June 2, 2023</span> <span itemprop="datePublished" content="2024-03-01">1 March</span>
            <div class="comments"><span class="comment-author">Troll</span><time datetime="2025-01-01">x</time></div>
            <footer><span class="author">Site Owner</span></footer><nav><a rel="author">Nav Person</a><h1>Menu</h1></nav>
            <h1>  Storm closes
              harbour </h1><h1></h1>
            </body></html>"#,
        );
        // "By" alone, the avatar, the bio and "About the author" are no names; the comment, the
        // footer and the navigation are not read; the body's `footer-on-bottom` class is no footer.
        assert_eq!(m.bylines, ["Jane Doe", "Bo Kim"]);
        // itemprop="datePublished" first, then the others in document order.
        assert_eq!(m.dates, ["2024-03-01", "2024-03-05", "2023-06-02"]);
        // The <h1> texts, white space collapsed; an empty one and the navigation's are left out.
        assert_eq!(m.headings, ["Storm closes harbour"]);
        assert_eq!(marked("<p>nothing marked</p>"), Marked::default());
    }

    #[test]
    fn a_layout_wrapper_is_read_and_reviews_are_not() {
        // Reddit wraps the whole page in a class that says "nav"; it holds the <main>, so it is
        // no menu. A forum's `bigusername`. A product's reviews are user content, like comments.
        let m = marked(
            r#"<div class="grid flex-nav-expanded"><main><a class="author-name" href="/user/ControlCAD">ControlCAD</a>
            <a class="bigusername" href="member.php?u=1">microfast</a>
            <div class="product-reviews"><span class="review-author">Tom K.</span></div></main></div>
            <div class="nav-menu"><span class="author">Menu Person</span></div>"#,
        );
        assert_eq!(m.bylines, ["ControlCAD", "microfast"]);
    }

    #[test]
    fn the_site_s_logo_and_name_are_no_headline() {
        // A blog's name as an <h1> linking home, a documentation site's linking to its index.
        let m = marked(
            r#"<h1><a href="https://blog.example/">RogerBW's Blog</a></h1><h1><a href="../index.html">Docs</a></h1><h1>Advent <a href="/">of</a> Code</h1>"#,
        );
        assert_eq!((m.logos, m.headings), (vec!["RogerBW's Blog".to_string(), "Docs".into()], vec!["Advent of Code".to_string()]));
        for home in ["/", "./", "../../", "https://host", "https://host/", "index.html", "../index.html"] {
            assert!(is_home(home), "{home}");
        }
        for not_home in ["/blog/", "https://host/about", "#top", "../guide.html"] {
            assert!(!is_home(not_home), "{not_home}");
        }
        // The logo would match the whole <title> (F1 0.5); the site's name (`og:site_name`) as a
        // block is no headline either, so the block that shows `og:title` wins.
        let meta = PageMetadata {
            titles: vec!["Advent of Code week 2".into(), "RogerBW's Blog: Advent of Code week 2".into()],
            organisations: vec!["RogerBW's Blog".into()],
            ..PageMetadata::default()
        };
        let logo = Marked { logos: vec!["RogerBW's Blog".into()], ..Marked::default() };
        let texts = ["RogerBW's Blog", "Advent of Code week two", "RogerBW's Blog"];
        assert_eq!(title(&meta, &logo, &texts, None).as_deref(), Some("Advent of Code week two"));
        assert_eq!(title(&meta, &Marked::default(), &texts, None).as_deref(), Some("Advent of Code week two"));
        // A page that declares nothing but the site's name keeps the block that shows it.
        let home = PageMetadata { titles: vec!["Glossier".into()], organisations: vec!["Glossier".into()], ..PageMetadata::default() };
        assert_eq!(title(&home, &Marked::default(), &["Glossier", "Shop"], None).as_deref(), Some("Glossier"));
    }

    #[test]
    fn a_byline_box_gives_the_name_inside_it() {
        // The box holds initials, the name, the date and the bio: the first element inside
        // whose text is a name. "NB" (initials) and "Mar 6" (a date without its year) are none.
        let box_ = marked(
            r#"<div class="blog_author-box"><span class="initials">NB</span><span>Mar 6</span><div class="text-size-small">Nicole Burke</div>
            <p>Nicole Burke is a growth-focused marketer who writes about gardens and much else besides.</p></div>"#,
        );
        assert_eq!(box_.bylines, ["Nicole Burke"]);
        // `blog__authorname` (one class word starting with author) and a link to the author's
        // archive mark a name; `authority` does not.
        assert_eq!(marked(r#"<div class="blog__authorname">Michelle Lee</div>"#).bylines, ["Michelle Lee"]);
        assert_eq!(marked(r#"<p><a href="/author/daniel-renfrow/">Daniel Renfrow</a></p>"#).bylines, ["Daniel Renfrow"]);
        assert!(marked(r#"<div class="authority-badge">Trusted Source</div>"#).bylines.is_empty());
    }

    #[test]
    fn an_author_that_is_the_site_gives_way_to_a_person_in_the_markup() {
        let site = PageMetadata { authors: vec!["Coast Gazette".into()], organisations: vec!["coast gazette".into()], ..PageMetadata::default() };
        let by = Marked { bylines: vec!["Jane Doe".into()], ..Marked::default() };
        let (mut reporter, mut date) = (None, None);
        fill(&site, &by, &[], None, &mut reporter, &mut date);
        assert_eq!(reporter.as_deref(), Some("Jane Doe"));
        // Nothing marked: the site is the author after all.
        fill(&site, &Marked::default(), &[], None, &mut reporter, &mut date);
        assert_eq!(reporter.as_deref(), Some("Coast Gazette"));
        // A person declared wins over the markup.
        let person = PageMetadata { authors: vec!["Ann Lee".into()], ..site.clone() };
        fill(&person, &by, &[], None, &mut reporter, &mut date);
        assert_eq!(reporter.as_deref(), Some("Ann Lee"));
    }

    #[test]
    fn a_modified_date_alone_comes_after_the_dates_the_page_shows() {
        let modified = meta(&[], &[], &["2026-01-12T16:29:48+00:00"]);
        let shown = Marked { dates: vec!["2017-03-16".into()], ..Marked::default() };
        let (mut reporter, mut date) = (None, None);
        fill(&modified, &shown, &[], None, &mut reporter, &mut date);
        assert_eq!(date.as_deref(), Some("2017-03-16"));
        let texts = ["Nebulae tonight", "March 16, 2017"];
        let mut date = None;
        fill(&modified, &Marked::default(), &texts, Some("Nebulae tonight"), &mut reporter, &mut date);
        assert_eq!(date.as_deref(), Some("2017-03-16"));
        let mut date = None;
        fill(&modified, &Marked::default(), &[], None, &mut reporter, &mut date);
        assert_eq!(date.as_deref(), Some("2026-01-12"));
        // A declared publication date still comes first.
        let both = meta(&[], &["2016-01-01"], &["2026-01-12"]);
        fill(&both, &shown, &[], None, &mut reporter, &mut date);
        assert_eq!(date.as_deref(), Some("2016-01-01"));
    }
}
