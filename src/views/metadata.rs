//! The `metadata` feature group (lexical view, opt-in): whether a block's words are the title,
//! author or date the page declares about itself, and whether they are shaped like a date or a
//! byline.
//!
//! Input: a page (its `<head>` and JSON-LD) and its division. Output: one dense row per block
//! (names and meanings in [`FEATURES`]).
//!
//! Page metadata is read from JSON-LD (`<script type="application/ld+json">`, every object in
//! it, `@graph` included: `headline`, `name` of an article-like `@type`, `author` as a string, an
//! object's `name` or a list of those, `datePublished`, `dateCreated`, `dateModified`), from
//! OpenGraph and other `<meta>` tags (`og:title`, `twitter:title`, `author`,
//! `article:published_time`, Dublin Core, Parse.ly, …) and from `<title>`. An `author` given only
//! as a reference (`{"@id": "#jane"}`, as many SEO plugins write it) is the page's object of that
//! `@id`, in any of its JSON-LD scripts. A script with raw line breaks or tabs inside its strings
//! (invalid JSON, but common) is read with them as spaces; one that still does not parse is
//! ignored, never an error.
//!
//! Why the lexical view: every column compares the block's *words* with words (the declared
//! title, author and date) or looks at their shape (a date, "By Jane Doe"). None depends on how
//! the block looks or where it sits, which is the stylistic view's side. This is how the title,
//! reporter and date classes stop being guesses: on today's pages the page says what its title,
//! author and date are, and the block that repeats them is the one to label.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::groups::{FeatureGroup, GroupError, GroupOutput, PageContext, ViewKind};
use crate::corpus::gold::date_forms;

/// The group's columns, `(name, meaning)`, in column order.
pub(crate) const FEATURES: &[(&str, &str)] = &[
    ("meta.title_recall", "share of the declared title's distinct words found in the block (best-matching title; 0 if the page declares none)"),
    ("meta.title_precision", "share of the block's distinct words found in that title (NaN without words)"),
    ("meta.title_best", "1 if the block matches a declared title best of all the page's blocks (F1 of the two shares, above 0.5)"),
    ("meta.author_recall", "share of a declared author's name words found in the block (best-matching author)"),
    ("meta.author_precision", "share of the block's distinct words found in that author's name (NaN without words)"),
    ("meta.author_best", "1 if the block matches a declared author best of all the page's blocks (F1 above 0.5)"),
    ("meta.date_match", "1 if the block writes a declared date in full (ISO, `May 4, 2025`, `4th May 2025`, `05/04/2025`, …), 0.5 for month and year only"),
    ("meta.date_shapes", "date-shaped expressions in the block: a month name with a day or year, yyyy-mm-dd, dd/mm/yyyy, `3 hours ago`"),
    ("meta.date_share", "words of those expressions / words of the block (NaN without words)"),
    ("meta.byline", "1 if the block starts like a byline: `By`, `Written by`, `Posted by`, `Author:` then a capitalised word"),
    ("meta.capitalised", "share of the block's words that start with a capital letter (NaN without words)"),
    ("meta.has_title", "1 if the page declares a title in JSON-LD or `<meta>` (page-wide)"),
    ("meta.has_author", "1 if it declares an author (page-wide)"),
    ("meta.has_date", "1 if it declares a date (page-wide)"),
    ("meta.article", "1 if its JSON-LD `@type` or `og:type` says article, news article, blog posting or report (page-wide)"),
];

/// What a page declares about itself: its title, authors and dates, read from JSON-LD,
/// OpenGraph and `<meta>` tags. Used by the `metadata` feature group and by the article's
/// reporter and date ([`crate::fields`]).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct PageMetadata {
    /// Declared titles (JSON-LD, `<meta>`), then `<title>` and its longest part between ` | `,
    /// ` - `, ` – `, ` — `, ` :: `.
    pub titles: Vec<String>,
    /// Whether any title came from JSON-LD or `<meta>` (not just `<title>`).
    pub declared_title: bool,
    /// Declared author names (JSON-LD `author`/`creator`, `<meta name=author>` and the like).
    pub authors: Vec<String>,
    /// Declared dates as written (ISO in practice).
    pub dates: Vec<String>,
    /// The publication dates among them (JSON-LD `datePublished`, `dateCreated`, `uploadDate`;
    /// `<meta>` dates whose name does not say modified or updated), in document order.
    pub published: Vec<String>,
    /// Whether JSON-LD `@type` or `og:type` says the page is an article.
    pub article: bool,
    /// Names the page gives itself or an organisation: `og:site_name`, `application-name`,
    /// JSON-LD `publisher`, and the `name` of a JSON-LD `Organization`, `WebSite` or of an
    /// `author` typed as an organisation. An author among them is the site, not a byline.
    pub organisations: Vec<String>,
}

/// `<meta>` names and properties that hold a title, an author, a date (lower-cased).
const META_TITLE: &[&str] = &["og:title", "twitter:title", "title", "dc.title", "parsely-title", "sailthru.title", "headline"];
const META_AUTHOR: &[&str] = &["author", "article:author", "dc.creator", "parsely-author", "sailthru.author", "byl", "byline", "cxenseparse:author"];
const META_DATE: &[&str] = &[
    "article:published_time",
    "article:modified_time",
    "og:updated_time",
    "datepublished",
    "datemodified",
    "date",
    "pubdate",
    "publish-date",
    "publish_date",
    "dc.date",
    "dc.date.issued",
    "dcterms.created",
    "parsely-pub-date",
    "sailthru.date",
];
/// JSON-LD and OpenGraph types of an article page (lower-cased `@type` contains one of these).
const ARTICLE_TYPES: &[&str] = &["article", "blogposting", "report", "posting"];

impl PageMetadata {
    /// Reads the page's JSON-LD, `<meta>` tags and `<title>`.
    pub fn read(html: &scraper::Html) -> PageMetadata {
        let mut meta = PageMetadata::default();
        let mut html_title = None;
        let is_json_ld = |el: &scraper::node::Element| el.name() == "script" && el.attr("type").is_some_and(|t| t.to_ascii_lowercase().contains("ld+json"));
        // Every script first, so that a reference can name an object of a later script.
        let scripts: Vec<Option<Value>> = html
            .tree
            .nodes()
            .filter(|node| node.value().as_element().is_some_and(is_json_ld))
            .map(|node| parse_json_ld(&node.children().filter_map(|c| c.value().as_text().map(|t| t.to_string())).collect::<String>()))
            .collect();
        let mut ids = Ids::default();
        scripts.iter().flatten().for_each(|v| ids.collect(v, 0));
        let mut scripts = scripts.iter();
        for node in html.tree.nodes() {
            let Some(el) = node.value().as_element() else { continue };
            match el.name() {
                "script" if is_json_ld(el) => {
                    if let Some(Some(value)) = scripts.next() {
                        meta.json_ld(value, 0, &ids);
                    }
                }
                "meta" => {
                    let key = el.attr("property").or_else(|| el.attr("name")).or_else(|| el.attr("itemprop")).unwrap_or_default().to_ascii_lowercase();
                    let Some(content) = el.attr("content").map(str::trim).filter(|c| !c.is_empty()) else { continue };
                    if META_TITLE.contains(&key.as_str()) {
                        meta.titles.push(content.to_string());
                        meta.declared_title = true;
                    } else if META_AUTHOR.contains(&key.as_str()) && !content.starts_with("http") {
                        let name = content.strip_prefix("By ").or_else(|| content.strip_prefix("by ")).unwrap_or(content);
                        meta.authors.push(name.to_string());
                    } else if META_DATE.contains(&key.as_str()) {
                        meta.dates.push(content.to_string());
                        if !key.contains("modified") && !key.contains("updated") {
                            meta.published.push(content.to_string());
                        }
                    } else if key == "og:site_name" || key == "application-name" {
                        meta.organisations.push(content.to_string());
                    } else if key == "og:type" && ARTICLE_TYPES.iter().any(|t| content.to_ascii_lowercase().contains(t)) {
                        meta.article = true;
                    }
                }
                "title" if html_title.is_none() => {
                    let text: String = node.descendants().filter_map(|c| c.value().as_text().map(|t| t.to_string())).collect();
                    html_title = Some(text.split_whitespace().collect::<Vec<_>>().join(" "));
                }
                _ => {}
            }
        }
        if let Some(title) = html_title.filter(|t| !t.is_empty()) {
            let longest = TITLE_SEPARATORS
                .iter()
                .flat_map(|sep| title.split(sep))
                .filter(|part| part.len() < title.len())
                .max_by_key(|part| part.len())
                .map(str::to_string);
            meta.titles.push(title);
            meta.titles.extend(longest);
        }
        // A publisher is met twice: as `publisher` and as an `Organization` object.
        let mut seen = HashSet::new();
        meta.organisations.retain(|o| seen.insert(o.to_lowercase()));
        meta
    }

    /// Collects what one JSON-LD value declares, recursing into objects and lists (depth ≤ 16).
    fn json_ld(&mut self, value: &Value, depth: usize, ids: &Ids) {
        if depth > 16 {
            return;
        }
        match value {
            Value::Array(items) => items.iter().for_each(|v| self.json_ld(v, depth + 1, ids)),
            Value::Object(map) => {
                let types: Vec<String> = match map.get("@type") {
                    Some(Value::String(t)) => vec![t.to_ascii_lowercase()],
                    Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_ascii_lowercase).collect(),
                    _ => Vec::new(),
                };
                let article = types.iter().any(|t| ARTICLE_TYPES.iter().any(|a| t.contains(a)));
                self.article |= article;
                if let Some(Value::String(h)) = map.get("headline") {
                    self.titles.push(h.clone());
                    self.declared_title = true;
                } else if let (true, Some(Value::String(n))) = (article, map.get("name")) {
                    self.titles.push(n.clone());
                    self.declared_title = true;
                }
                if let Some(author) = map.get("author").or_else(|| map.get("creator")) {
                    self.authors.extend(author_names(author, ids));
                    self.organisations.extend(organisation_names(author, ids));
                }
                if let Some(publisher) = map.get("publisher") {
                    self.organisations.extend(author_names(publisher, ids));
                }
                if types.iter().any(|t| ORGANISATION_TYPES.contains(&t.as_str()) || t == "website") {
                    self.organisations.extend(map.get("name").and_then(Value::as_str).map(str::to_string));
                }
                for key in ["datePublished", "dateCreated", "dateModified", "uploadDate"] {
                    if let Some(Value::String(d)) = map.get(key) {
                        self.dates.push(d.clone());
                        if key != "dateModified" {
                            self.published.push(d.clone());
                        }
                    }
                }
                for (key, v) in map {
                    // Comments, answers and reviews have authors and dates of their own.
                    let theirs = ["author", "creator", "comment", "comments", "review", "reviews", "suggestedAnswer", "acceptedAnswer"].contains(&key.as_str());
                    if matches!(v, Value::Object(_) | Value::Array(_)) && !theirs {
                        self.json_ld(v, depth + 1, ids);
                    }
                }
            }
            _ => {}
        }
    }
}

/// A JSON-LD script's value. Raw control characters (line breaks, tabs) inside strings make
/// the JSON invalid but are common; when the text does not parse, it is read again with each of
/// them as a space (outside strings they are whitespace anyway).
fn parse_json_ld(text: &str) -> Option<Value> {
    let text = text.trim();
    serde_json::from_str(text).ok().or_else(|| {
        let spaced: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        serde_json::from_str(&spaced).ok()
    })
}

/// The JSON-LD objects of a page by their `@id`: the first object with that `@id` and anything
/// else in it (a bare `{"@id": …}` is a reference, not a definition). Borrowed from the parsed
/// scripts, so nothing is copied.
#[derive(Default)]
struct Ids<'v>(HashMap<&'v str, &'v Value>);

impl<'v> Ids<'v> {
    fn collect(&mut self, value: &'v Value, depth: usize) {
        if depth > 16 {
            return;
        }
        match value {
            Value::Array(items) => items.iter().for_each(|v| self.collect(v, depth + 1)),
            Value::Object(map) => {
                if let (Some(Value::String(id)), true) = (map.get("@id"), map.len() > 1) {
                    self.0.entry(id.as_str()).or_insert(value);
                }
                map.values().for_each(|v| self.collect(v, depth + 1));
            }
            _ => {}
        }
    }

    /// The object a reference names (one step: the definition itself is not followed), or the
    /// value itself.
    fn resolve<'a>(&'a self, value: &'a Value) -> &'a Value {
        match value {
            Value::Object(map) if !map.contains_key("name") => match map.get("@id") {
                Some(Value::String(id)) => self.0.get(id.as_str()).copied().unwrap_or(value),
                _ => value,
            },
            _ => value,
        }
    }
}

/// Names in a JSON-LD `author`: a string, an object's `name` (a reference's object's), or a list
/// of those.
fn author_names(value: &Value, ids: &Ids) -> Vec<String> {
    match ids.resolve(value) {
        Value::String(s) if !s.starts_with("http") => vec![s.clone()],
        Value::Object(map) => map.get("name").and_then(Value::as_str).map(|s| vec![s.to_string()]).unwrap_or_default(),
        Value::Array(items) => items.iter().take(16).flat_map(|v| author_names(v, ids)).collect(),
        _ => Vec::new(),
    }
}

/// JSON-LD types of an organisation (lower-cased).
const ORGANISATION_TYPES: &[&str] = &[
    "organization",
    "corporation",
    "newsmediaorganization",
    "localbusiness",
    "educationalorganization",
    "governmentorganization",
    "medicalorganization",
    "ngo",
];

/// Names in a JSON-LD `author` whose `@type` is an organisation.
fn organisation_names(value: &Value, ids: &Ids) -> Vec<String> {
    let value = ids.resolve(value);
    match value {
        Value::Object(map) => {
            let organisation = map.get("@type").and_then(Value::as_str).is_some_and(|t| ORGANISATION_TYPES.contains(&t.to_ascii_lowercase().as_str()));
            if organisation {
                author_names(value, ids)
            } else {
                Vec::new()
            }
        }
        Value::Array(items) => items.iter().take(16).flat_map(|v| organisation_names(v, ids)).collect(),
        _ => Vec::new(),
    }
}

/// Separators between the parts of a `<title>` ("Storm closes harbour | Coast Gazette"): the
/// longest part is a declared title too. `crate::fields` cuts the site's name at these and a
/// few more.
pub(crate) const TITLE_SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " :: "];

/// Lower-cased runs of letters, digits and `_` (the `\w+` words WCXB scores with).
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// `(recall of the reference's distinct words in the block, precision of the block's distinct
/// words)` of the best-matching reference by F1; `(0, NaN)` without references or words.
fn best_overlap(block: &HashSet<String>, references: &[HashSet<String>]) -> (f64, f64) {
    let mut best = (0.0, if block.is_empty() { f64::NAN } else { 0.0 }, 0.0);
    for r in references.iter().filter(|r| !r.is_empty()) {
        if block.is_empty() {
            break;
        }
        let common = block.intersection(r).count() as f64;
        let (recall, precision) = (common / r.len() as f64, common / block.len() as f64);
        let f1 = if common == 0.0 { 0.0 } else { 2.0 * recall * precision / (recall + precision) };
        if f1 > best.2 {
            best = (recall, precision, f1);
        }
    }
    (best.0, best.1)
}

fn f1(recall: f64, precision: f64) -> f64 {
    if recall > 0.0 && precision > 0.0 {
        2.0 * recall * precision / (recall + precision)
    } else {
        0.0
    }
}

/// Whether `needle` occurs as consecutive words of `hay`.
fn contains_run(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Token sequences of the written forms of a declared date: the importer's forms
/// ([`date_forms`]: ISO, `September 4 2025`, `4th Sep 2025`, …) plus numeric `mm/dd/yyyy`,
/// `dd/mm/yyyy` and `dd.mm.yyyy`; the second list holds the month-and-year forms.
fn date_token_forms(declared: &str) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let forms = date_forms(declared);
    let mut full: Vec<Vec<String>> = Vec::new();
    let mut partial: Vec<Vec<String>> = Vec::new();
    for form in &forms {
        let w = words(form);
        if w.len() >= 3 {
            full.push(w);
        } else {
            partial.push(w);
        }
    }
    let d: Vec<&str> = declared.trim().get(..10).unwrap_or_default().split('-').collect();
    if let [y, m, day] = d[..] {
        if let (Ok(m), Ok(day)) = (m.parse::<u32>(), day.parse::<u32>()) {
            for (a, b) in [(m, day), (day, m)] {
                full.push(vec![a.to_string(), b.to_string(), y.to_string()]);
                full.push(vec![format!("{a:02}"), format!("{b:02}"), y.to_string()]);
            }
        }
    }
    if let Some(first) = forms.get(1) {
        // "may 4 2025" → month and year: "may 2025"
        let w = words(first);
        if w.len() == 3 {
            partial.push(vec![w[0].clone(), w[2].clone()]);
        }
    }
    (full, partial)
}

/// English month names and their abbreviations, lower-cased (`sept` too).
pub(crate) const MONTH_WORDS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];
const AGO_UNITS: &[&str] = &[
    "second", "seconds", "minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs", "day", "days", "week", "weeks", "month", "months", "year", "years",
];

/// Date-shaped expressions in a block's words and the words they cover: a month name next to a
/// day (1–31, with or without `st`/`nd`/`rd`/`th`) or a year (1900–2099); three numbers of a
/// numeric date (`2025 05 04`, `04 05 2025`, from `2025-05-04` or `04/05/2025`); `N unit ago`.
fn date_shapes(w: &[String]) -> (usize, usize) {
    let number = |s: &str, lo: u32, hi: u32| s.parse::<u32>().ok().filter(|n| (lo..=hi).contains(n)).is_some();
    let day = |s: &str| number(s.trim_end_matches(|c: char| c.is_ascii_alphabetic()), 1, 31) && s.len() <= 4;
    let year = |s: &str| s.len() == 4 && number(s, 1900, 2099);
    let (mut shapes, mut covered, mut i) = (0, 0, 0);
    while i < w.len() {
        let at = |k: usize| w.get(i + k).map(String::as_str).unwrap_or("");
        let month_first = MONTH_WORDS.contains(&at(0)) && (day(at(1)) || year(at(1)));
        let day_first = day(at(0)) && MONTH_WORDS.contains(&at(1));
        let numeric = (year(at(0)) && number(at(1), 1, 12) && day(at(2))) || (day(at(0)) && day(at(1)) && year(at(2)));
        let ago = number(at(0), 1, 999) && AGO_UNITS.contains(&at(1)) && at(2) == "ago";
        let len = match (month_first || day_first, numeric || ago) {
            (true, _) if year(at(2)) => 3,
            (true, _) => 2,
            (false, true) => 3,
            (false, false) => 0,
        };
        if len > 0 {
            shapes += 1;
            covered += len;
            i += len;
        } else {
            i += 1;
        }
    }
    (shapes, covered)
}

/// Whether a block's text starts like a byline: `By`, `Written by`, `Posted by`, `Words by`,
/// `Story by`, `Reporting by` (with or without `:`) or `Author:`, then a capitalised word.
fn byline(text: &str) -> bool {
    let t = text.trim_start();
    let lower = t.to_lowercase();
    let after_lead = ["written ", "posted ", "words ", "story ", "reporting "].iter().find(|p| lower.starts_with(*p)).map_or(0, |p| p.len());
    let rest =
        ["by:", "by ", "author:", "authors:", "author "].iter().find(|p| lower[after_lead..].starts_with(*p)).and_then(|p| t.get(after_lead + p.len()..));
    rest.and_then(|r| r.trim_start_matches(|c: char| c.is_whitespace() || c == ':').chars().next()).is_some_and(char::is_uppercase)
}

/// The `metadata` group.
pub(super) struct Metadata;

impl FeatureGroup for Metadata {
    fn name(&self) -> &str {
        "metadata"
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
        let meta = ctx.metadata();
        let set = |s: &String| words(s).into_iter().collect::<HashSet<String>>();
        let titles: Vec<HashSet<String>> = meta.titles.iter().map(set).collect();
        let authors: Vec<HashSet<String>> = meta.authors.iter().map(set).collect();
        let (full_dates, partial_dates): (Vec<Vec<String>>, Vec<Vec<String>>) =
            meta.dates.iter().map(|d| date_token_forms(d)).fold((Vec::new(), Vec::new()), |mut acc, (f, p)| {
                acc.0.extend(f);
                acc.1.extend(p);
                acc
            });
        let page = [
            f64::from(u8::from(meta.declared_title)),
            f64::from(u8::from(!meta.authors.is_empty())),
            f64::from(u8::from(!meta.dates.is_empty())),
            f64::from(u8::from(meta.article)),
        ];
        let blocks = &ctx.division().blocks;
        let mut title_f1 = vec![0.0; blocks.len()];
        let mut author_f1 = vec![0.0; blocks.len()];
        for (b, block) in blocks.iter().enumerate() {
            let w = words(&block.text);
            let distinct: HashSet<String> = w.iter().cloned().collect();
            let (tr, tp) = best_overlap(&distinct, &titles);
            let (ar, ap) = best_overlap(&distinct, &authors);
            (title_f1[b], author_f1[b]) = (f1(tr, tp), f1(ar, ap));
            let date_match = if full_dates.iter().any(|f| contains_run(&w, f)) {
                1.0
            } else if partial_dates.iter().any(|f| contains_run(&w, f)) {
                0.5
            } else {
                0.0
            };
            let (shapes, covered) = date_shapes(&w);
            let per_word = |n: usize| if w.is_empty() { f64::NAN } else { n as f64 / w.len() as f64 };
            let capitalised = block
                .text
                .split_whitespace()
                .filter(|t| t.chars().any(char::is_alphanumeric))
                .filter(|t| t.chars().next().is_some_and(char::is_uppercase))
                .count();
            let row = out.row_mut(b);
            row[..11].copy_from_slice(&[
                tr,
                tp,
                0.0,
                ar,
                ap,
                0.0,
                date_match,
                shapes as f64,
                per_word(covered),
                f64::from(u8::from(byline(&block.text))),
                if w.is_empty() { f64::NAN } else { per_word(capitalised).min(1.0) },
            ]);
            row[11..].copy_from_slice(&page);
        }
        for (column, scores) in [(2, &title_f1), (5, &author_f1)] {
            let best = scores.iter().copied().fold(0.0, f64::max);
            if best > 0.5 {
                for (b, &s) in scores.iter().enumerate() {
                    out.row_mut(b)[column] = f64::from(u8::from(s == best));
                }
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
    use crate::page::{LoadOptions, Page};
    use crate::stylistic::StyleOptions;

    const PAGE: &str = r#"<html><head><title>Storm closes harbour | Coast Gazette</title>
        <meta property="og:title" content="Storm closes harbour">
        <meta name="author" content="By Jane Doe">
        <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"NewsArticle",
          "headline":"Storm closes the harbour","author":[{"@type":"Person","name":"Jane Doe"},"Ann Lee"],
          "datePublished":"2025-05-04T09:00:00Z"}]}</script>
        <script type="application/ld+json">{"headline": "broken", }</script></head>
        <body><h1>Storm closes harbour</h1><p>By Jane Doe</p><p>May 4, 2025</p>
        <p>Gale force winds kept the harbour closed, 3 hours ago.</p></body></html>"#;

    #[test]
    fn page_metadata_comes_from_json_ld_meta_and_title_and_bad_json_ld_is_skipped() {
        let page = Page::from_bytes("m.html", PAGE.as_bytes(), &LoadOptions::default()).unwrap();
        let meta = PageMetadata::read(&page.html);
        assert_eq!(meta.titles, ["Storm closes harbour", "Storm closes the harbour", "Storm closes harbour | Coast Gazette", "Storm closes harbour"]);
        assert!(meta.declared_title && meta.article);
        assert_eq!(meta.authors, ["Jane Doe", "Jane Doe", "Ann Lee"]);
        assert_eq!(meta.dates, ["2025-05-04T09:00:00Z"]);
        assert_eq!(meta.published, meta.dates);
        let none = Page::from_bytes("n.html", b"<p>x</p><script type=application/ld+json>{{{</script>", &LoadOptions::default()).unwrap();
        assert_eq!(PageMetadata::read(&none.html), PageMetadata::default());
    }

    #[test]
    fn an_author_given_by_reference_is_the_object_of_that_id() {
        // Yoast-style: the article names its author by `@id`; the Person is defined in the graph
        // of another script, and the organisation the same way. A string with a raw line break
        // is not JSON, but is read.
        let html = "<html><head>
            <script type=\"application/ld+json\">{\"@graph\":[{\"@type\":\"Article\",\"headline\":\"Gale\",
              \"author\":[{\"@id\":\"#jane\"},{\"@id\":\"#desk\"},{\"@id\":\"#nobody\"}]}]}</script>
            <script type=\"application/ld+json\">[{\"@id\":\"#jane\",\"@type\":\"Person\",\"name\":\"Jane Doe\"},
              {\"@id\":\"#desk\",\"@type\":\"Organization\",\"name\":\"Coast Desk\"}]</script>
            <script type=\"application/ld+json\">{\"@type\":\"NewsArticle\",\"author\":\"Ann\tLee\",\"description\":\"two\nlines\"}</script>
            </head><body></body></html>";
        let page = Page::from_bytes("r.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let meta = PageMetadata::read(&page.html);
        assert_eq!(meta.authors, ["Jane Doe", "Coast Desk", "Ann Lee"]);
        assert_eq!(meta.organisations, ["Coast Desk"]);
    }

    #[test]
    fn comments_authors_are_not_the_articles_and_organisations_are_named() {
        let html = r#"<html><head><meta property="og:site_name" content="Coast Gazette">
            <script type="application/ld+json">{"@type":"DiscussionForumPosting","author":{"@type":"Person","name":"OP"},
              "datePublished":"2024-01-02","publisher":{"@type":"Organization","name":"Gazette Media"},
              "comment":[{"@type":"Comment","author":{"name":"Replier"},"dateCreated":"2024-02-03"}]}</script>
            <script type="application/ld+json">{"@type":"Article","author":{"@type":"Organization","name":"Coast Desk"}}</script>
            </head><body></body></html>"#;
        let page = Page::from_bytes("f.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let meta = PageMetadata::read(&page.html);
        assert_eq!(meta.authors, ["OP", "Coast Desk"]);
        assert_eq!(meta.published, ["2024-01-02"]);
        assert_eq!(meta.organisations, ["Coast Gazette", "Gazette Media", "Coast Desk"]);
    }

    #[test]
    fn shapes_of_dates_and_bylines() {
        assert_eq!(date_shapes(&words("Updated May 4, 2025 at 9:00")), (1, 3));
        assert_eq!(date_shapes(&words("4th Sept and 2025-05-04 and 04/05/2025")), (3, 2 + 3 + 3));
        assert_eq!(date_shapes(&words("posted 3 hours ago by 12 people in 2025")), (1, 3));
        assert!(byline("By Jane Doe") && byline("  Written by: Jane") && byline("Author: Ann Lee"));
        assert!(!byline("by the way") && !byline("Bypass closed") && !byline(""));
        let (full, partial) = date_token_forms("2025-05-04T09:00:00Z");
        assert!(full.contains(&words("May 4 2025")) && full.contains(&words("04/05/2025")) && full.contains(&words("5/4/2025")));
        assert_eq!(partial, [words("may 2025")]);
    }

    #[test]
    fn blocks_that_repeat_the_declared_title_author_and_date() {
        let page = Page::from_bytes("m.html", PAGE.as_bytes(), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let texts: Vec<&str> = division.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["Storm closes harbour", "By Jane Doe", "May 4, 2025", "Gale force winds kept the harbour closed, 3 hours ago."]);
        let style = StyleOptions::default();
        let styled = StyledDom::compute(&page, &style.css).unwrap();
        let ctx = PageContext::new(&page, &division, &styled, &style, None);
        let mut out = GroupOutput::new(4, FEATURES.len(), 0);
        Metadata.compute(&ctx, &mut out).unwrap();
        let col = |name: &str| FEATURES.iter().position(|(n, _)| *n == name).unwrap();
        let at = |b: usize, name: &str| out.row(b)[col(name)];
        // The heading is the og:title exactly: recall 1, precision 1, best.
        assert_eq!((at(0, "meta.title_recall"), at(0, "meta.title_precision"), at(0, "meta.title_best")), (1.0, 1.0, 1.0));
        // The paragraph's best title is the JSON-LD headline "Storm closes the harbour": 2 of its
        // 4 words ("the", "harbour"), 2 of the block's 10 distinct words.
        assert_eq!((at(3, "meta.title_recall"), at(3, "meta.title_precision"), at(3, "meta.title_best")), (0.5, 0.2, 0.0));
        // "By Jane Doe": both author words, 2 of its 3 words.
        assert_eq!((at(1, "meta.author_recall"), at(1, "meta.author_precision"), at(1, "meta.author_best")), (1.0, 2.0 / 3.0, 1.0));
        assert_eq!((at(1, "meta.byline"), at(0, "meta.byline")), (1.0, 0.0));
        assert_eq!((at(2, "meta.date_match"), at(2, "meta.date_shapes"), at(2, "meta.date_share")), (1.0, 1.0, 1.0));
        assert_eq!((at(3, "meta.date_match"), at(3, "meta.date_shapes"), at(3, "meta.date_share")), (0.0, 1.0, 0.3));
        assert_eq!(at(1, "meta.capitalised"), 1.0);
        for b in 0..4 {
            assert_eq!(&out.row(b)[col("meta.has_title")..], [1.0, 1.0, 1.0, 1.0]);
        }
    }
}
