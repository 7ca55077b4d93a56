//! The gold-text importer: block labels from corpora whose gold is *text* (WCXB, Dragnet,
//! CleanEval), by aligning the gold words with the page text.
//!
//! Gold text says which words of a page are its main text (and, for WCXB, its title, author and
//! date; for Dragnet, its comments) but not where on the page they are. The importer divides the
//! page with the given [`Divider`], cuts the page text and the gold into words (runs of
//! alphanumeric characters, lower-cased), and aligns the two word sequences with a patience diff
//! (unique words as anchors, Myers between them). Matched runs shorter than [`MIN_RUN`] words
//! far from any longer run are dropped: they are common words matched by chance in menus and
//! sidebars. Every page word that aligns takes the label of its gold word; the punctuation and
//! space between two words of one label take that label. Title, author and date are short: each
//! is matched as a whole phrase (its words in a row), the occurrence inside or nearest the
//! aligned main text, and never where it would overlap another field. The date is looked for in
//! the written forms of the gold's ISO date (`2025-09-04`, `September 4, 2025`, `4 Sep 2025`,
//! …). The rest of the page text is `other`: by the gold, it is not part of the article. Images
//! and other objects (U+FFFC in the page text) stay unlabelled: the gold is text only.
//!
//! Labels carry their provenance: `gold-aligned` where a gold word or phrase was found,
//! `gold-complement` for `other`. Pages where the alignment covers less than a threshold of the
//! gold main text get no label file (they are reported), since their `other` would be wrong.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::labels::{Alignment, LabelFile, Span};
use super::scheme::LabelScheme;
use crate::divide::{Divider, Division, OBJECT_CHAR};
use crate::output::error_chain;
use crate::page::{LoadOptions, Page, PageError};

/// The labels of the `gold-text` scheme, in its order.
pub const GOLD_LABELS: [&str; 6] = ["main-text", "title", "author", "date", "comments", "other"];
const MAIN: u8 = 0;
const TITLE: u8 = 1;
const AUTHOR: u8 = 2;
const DATE: u8 = 3;
const COMMENTS: u8 = 4;
const OTHER: u8 = 5;

/// Provenance of labels found in the gold text.
pub const PROVENANCE_ALIGNED: &str = "gold-aligned";
/// Provenance of `other`: page text the gold does not hold.
pub const PROVENANCE_COMPLEMENT: &str = "gold-complement";

/// Matched runs at least this many words long are trusted wherever they are.
pub const MIN_RUN: usize = 4;

/// A diff that has not finished in this long falls back to what it found.
const DIFF_DEADLINE: Duration = Duration::from_secs(10);

/// The corpora the importer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoldCorpus {
    /// WCXB (Foley 2026): `html/ID.html.gz`, `ground-truth/ID.json`, `metadata.json`.
    Wcxb,
    /// Dragnet (Peters & Lecocq 2013): `input/N.html`, `GoldStandard/N.txt` with comments after
    /// a `!@#$%^&*()  COMMENTS` line.
    Dragnet,
    /// CleanEval: `input/N.html`, `GoldStandard/N.txt` with a `URL:` line and `<p>`, `<h>`,
    /// `<l>` markers.
    CleanEval,
}

/// Why a page could not be imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GoldError {
    #[error(transparent)]
    Page(#[from] PageError),
    #[error("{path}: cannot read the gold: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: not a gold file: {message}")]
    Parse { path: PathBuf, message: String },
}

/// The gold of one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gold {
    pub main: String,
    pub comments: Option<String>,
    pub title: Option<String>,
    pub author: Option<String>,
    /// ISO date (`2025-09-04`, possibly with a time, or only `2025-09`).
    pub date: Option<String>,
    /// The page's URL when the gold gives it.
    pub url: Option<String>,
}

/// One page of a gold corpus.
#[derive(Debug, Clone)]
pub struct GoldPage {
    /// File stem (`0001`, `100`).
    pub id: String,
    /// The page's path inside its corpus (`html/0001.html.gz`).
    pub page: String,
    pub gold: PathBuf,
}

/// WCXB's `metadata.json`: page type and domain by file id.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    pub files: BTreeMap<String, (String, String)>,
}

impl Metadata {
    /// Reads `metadata.json` of a WCXB directory (empty for other corpora or when missing).
    pub fn load(corpus: GoldCorpus, root: &Path) -> Metadata {
        if corpus != GoldCorpus::Wcxb {
            return Metadata::default();
        }
        let text = std::fs::read_to_string(root.join("metadata.json")).unwrap_or_default();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let mut files = BTreeMap::new();
        if let Some(map) = v.get("files").and_then(|f| f.as_object()) {
            for (id, f) in map {
                let s = |k: &str| f.get(k).and_then(|x| x.as_str()).unwrap_or_default().to_string();
                files.insert(id.clone(), (s("page_type"), s("domain")));
            }
        }
        Metadata { files }
    }
}

/// The pages of a gold corpus directory, sorted by number.
pub fn pages(corpus: GoldCorpus, root: &Path) -> std::io::Result<Vec<GoldPage>> {
    let (dir, suffix) = match corpus {
        GoldCorpus::Wcxb => ("html", ".html.gz"),
        GoldCorpus::Dragnet | GoldCorpus::CleanEval => ("input", ".html"),
    };
    let mut out: Vec<GoldPage> = std::fs::read_dir(root.join(dir))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let id = name.strip_suffix(suffix)?.to_string();
            let gold = match corpus {
                GoldCorpus::Wcxb => root.join("ground-truth").join(format!("{id}.json")),
                _ => root.join("GoldStandard").join(format!("{id}.txt")),
            };
            Some(GoldPage { page: format!("{dir}/{name}"), id, gold })
        })
        .collect();
    let number = |id: &str| id.chars().filter(char::is_ascii_digit).collect::<String>().parse::<u64>().unwrap_or(0);
    out.sort_by(|a, b| number(&a.id).cmp(&number(&b.id)).then(a.id.cmp(&b.id)));
    Ok(out)
}

/// Reads the gold of a page.
pub fn read_gold(corpus: GoldCorpus, path: &Path) -> Result<Gold, GoldError> {
    let bytes = std::fs::read(path).map_err(|source| GoldError::Io { path: path.to_path_buf(), source })?;
    let text = decode_gold(&bytes);
    match corpus {
        GoldCorpus::Wcxb => wcxb_gold(&text).map_err(|message| GoldError::Parse { path: path.to_path_buf(), message }),
        GoldCorpus::Dragnet => Ok(dragnet_gold(&text)),
        GoldCorpus::CleanEval => Ok(cleaneval_gold(&text)),
    }
}

/// The text of a gold file: UTF-8, or UTF-16 with a byte-order mark (some Dragnet files), or
/// Windows-1252 when the bytes are not UTF-8.
fn decode_gold(bytes: &[u8]) -> String {
    if let Some((encoding, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        return encoding.decode_without_bom_handling(&bytes[bom..]).0.into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes).0.into_owned(),
    }
}

/// A WCXB `ground-truth/ID.json`.
pub fn wcxb_gold(text: &str) -> Result<Gold, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let gt = v.get("ground_truth").ok_or("no ground_truth")?;
    let field = |k: &str| gt.get(k).and_then(|x| x.as_str()).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
    Ok(Gold {
        main: field("main_content").unwrap_or_default(),
        comments: None,
        title: field("title"),
        author: field("author"),
        date: field("publish_date"),
        url: v.get("url").and_then(|x| x.as_str()).map(str::to_string),
    })
}

/// A Dragnet `GoldStandard/N.txt`: the article, then after the `COMMENTS` line the comments.
pub fn dragnet_gold(text: &str) -> Gold {
    const MARK: &str = "!@#$%^&*()";
    let (main, comments) = match text.find(MARK) {
        Some(at) => {
            let rest = &text[at + MARK.len()..];
            let rest = rest.trim_start().strip_prefix("COMMENTS").unwrap_or(rest);
            (&text[..at], Some(decode_entities(rest)).filter(|c| !c.trim().is_empty()))
        }
        None => (text, None),
    };
    Gold { main: decode_entities(main), comments, ..Gold::default() }
}

/// A CleanEval `GoldStandard/N.txt`: `URL:` line, then text with `<p>`, `<h>`, `<l>` markers.
pub fn cleaneval_gold(text: &str) -> Gold {
    let mut url = None;
    let mut body = text;
    if let Some(first) = text.lines().next() {
        if let Some(u) = first.trim().strip_prefix("URL:") {
            url = Some(u.trim().to_string());
            body = &text[first.len()..];
        }
    }
    let main = body.replace("<p>", " ").replace("<h>", " ").replace("<l>", " ");
    Gold { main: decode_entities(&main), url, ..Gold::default() }
}

/// The few HTML entities that turn up in text-only gold files.
fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    s.replace("&nbsp;", " ")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A word of a text: `[start, end)` in chars, lower-cased.
#[derive(Debug, Clone, PartialEq)]
struct Word {
    start: usize,
    end: usize,
    text: String,
}

/// The words of a text: maximal runs of alphanumeric characters, lower-cased.
fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut n = 0;
    for (i, c) in text.chars().enumerate() {
        n = i + 1;
        if c.is_alphanumeric() {
            let entry = current.get_or_insert_with(|| (i, String::new()));
            entry.1.extend(c.to_lowercase());
        } else if let Some((start, w)) = current.take() {
            out.push(Word { start, end: i, text: w });
        }
    }
    if let Some((start, w)) = current.take() {
        out.push(Word { start, end: n, text: w });
    }
    out
}

/// Whether a gold field was found on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldMatch {
    /// The gold has no such field.
    Absent,
    Found,
    NotFound,
}

impl FieldMatch {
    pub fn as_str(self) -> &'static str {
        match self {
            FieldMatch::Absent => "-",
            FieldMatch::Found => "found",
            FieldMatch::NotFound => "not-found",
        }
    }
}

/// The figures of one page's alignment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GoldAlignment {
    /// Words of the gold main text; those aligned to a page word; those whose page word lies in
    /// a block whose (majority) label is `main-text`.
    pub gold_words: usize,
    pub aligned_words: usize,
    pub covered_words: usize,
    /// The same for the gold comments (Dragnet).
    pub comment_words: usize,
    pub comment_aligned: usize,
    pub comment_covered: usize,
    /// Blocks of the page with text; those holding at least one word from the gold; those
    /// holding words from the gold and words not from it.
    pub text_blocks: usize,
    pub gold_blocks: usize,
    pub split_blocks: usize,
    pub title: FieldMatch,
    pub author: FieldMatch,
    pub date: FieldMatch,
}

impl GoldAlignment {
    /// Share of the gold main-text words covered by blocks labelled `main-text` (1 when the
    /// gold is empty).
    pub fn coverage(&self) -> f64 {
        ratio(self.covered_words, self.gold_words)
    }

    /// Share of the gold main-text words aligned to a page word.
    pub fn aligned_share(&self) -> f64 {
        ratio(self.aligned_words, self.gold_words)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// The label (index into [`GOLD_LABELS`]) of every char of the page text, and the figures.
/// `block_of` gives each page-text char its block.
struct Aligned {
    per_char: Vec<Option<u8>>,
    /// Page-word labels (for the split count) and page-word index of each aligned gold word.
    word_class: Vec<u8>,
    gold_to_page: Vec<Option<usize>>,
    gold_class: Vec<u8>,
    page_words: Vec<Word>,
    fields: [FieldMatch; 3],
    chars: Alignment,
}

/// Aligns the gold with a page text.
fn align(text: &str, gold: &Gold) -> Aligned {
    let chars: Vec<char> = text.chars().collect();
    let page_words = words(text);
    let mut gold_words: Vec<Word> = words(&gold.main);
    let mut gold_class = vec![MAIN; gold_words.len()];
    if let Some(c) = &gold.comments {
        let cw = words(c);
        gold_class.extend(std::iter::repeat_n(COMMENTS, cw.len()));
        gold_words.extend(cw);
    }
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut gold_ids: Vec<u32> = Vec::with_capacity(gold_words.len());
    for w in &gold_words {
        let n = ids.len() as u32;
        gold_ids.push(*ids.entry(w.text.as_str()).or_insert(n));
    }
    let mut page_ids: Vec<u32> = Vec::with_capacity(page_words.len());
    for w in &page_words {
        let n = ids.len() as u32;
        page_ids.push(*ids.entry(w.text.as_str()).or_insert(n));
    }
    let ops = similar::capture_diff_slices_deadline(similar::Algorithm::Patience, &gold_ids, &page_ids, Some(Instant::now() + DIFF_DEADLINE));
    // Matched runs (gold index, page index, length), adjacent ones joined.
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for op in ops {
        if let similar::DiffOp::Equal { old_index, new_index, len } = op {
            match runs.last_mut() {
                Some(r) if r.0 + r.2 == old_index && r.1 + r.2 == new_index => r.2 += len,
                _ => runs.push((old_index, new_index, len)),
            }
        }
    }
    let runs = trusted_runs(&runs, gold_words.len());
    let mut word_class = vec![OTHER; page_words.len()];
    let mut gold_to_page = vec![None; gold_words.len()];
    for &(g, p, len) in &runs {
        for k in 0..len {
            word_class[p + k] = gold_class[g + k];
            gold_to_page[g + k] = Some(p + k);
        }
    }
    join_split_words(&gold_words, &gold_class, &page_words, &mut gold_to_page, &mut word_class);
    // Fields: whole phrases, inside or nearest the aligned main text, never overlapping.
    let main_words: Vec<usize> = (0..page_words.len()).filter(|&p| word_class[p] == MAIN).collect();
    let region = main_words.first().zip(main_words.last()).map(|(&a, &b)| (a, b));
    let mut field_words: Vec<(usize, usize, u8)> = Vec::new();
    let mut fields = [FieldMatch::Absent; 3];
    let date_forms = gold.date.as_deref().map(date_forms).unwrap_or_default();
    let title_forms: Vec<String> = gold.title.iter().cloned().collect();
    let author_forms: Vec<String> = gold.author.iter().cloned().collect();
    for (slot, (class, forms)) in [(TITLE, &title_forms), (AUTHOR, &author_forms), (DATE, &date_forms)].into_iter().enumerate() {
        if forms.is_empty() {
            continue;
        }
        fields[slot] = FieldMatch::NotFound;
        let mut best: Option<(usize, usize, usize)> = None; // (distance, start word, end word)
        for form in forms {
            let phrase: Vec<String> = words(form).into_iter().map(|w| w.text).collect();
            if phrase.is_empty() || phrase.len() > page_words.len() {
                continue;
            }
            for s in 0..=page_words.len() - phrase.len() {
                let e = s + phrase.len();
                if !page_words[s..e].iter().zip(&phrase).all(|(w, p)| &w.text == p) {
                    continue;
                }
                if field_words.iter().any(|&(a, b, _)| s < b && a < e) {
                    continue;
                }
                let distance = match region {
                    Some((a, _)) if e <= a => a - e + 1,
                    Some((_, b)) if s > b => s - b,
                    Some(_) => 0,
                    None => s,
                };
                if best.is_none_or(|(d, _, _)| distance < d) {
                    best = Some((distance, s, e));
                }
            }
        }
        if let Some((_, s, e)) = best {
            fields[slot] = FieldMatch::Found;
            field_words.push((s, e, class));
            word_class[s..e].fill(class);
        }
    }
    // Characters: words take their label; the gaps without letters or digits between two words
    // of one label take it too, as does punctuation stuck to a labelled word; the rest is other.
    let mut per_char: Vec<Option<u8>> = vec![None; chars.len()];
    for (w, &c) in page_words.iter().zip(&word_class) {
        if c != OTHER {
            per_char[w.start..w.end].fill(Some(c));
        }
    }
    for &(s, e, class) in &field_words {
        per_char[page_words[s].start..page_words[e - 1].end].fill(Some(class));
    }
    fill_gaps(&mut per_char, &chars);
    // Text the gold does not hold is other; images and other objects (U+FFFC) are not text,
    // and the gold says nothing about them: they stay unlabelled.
    let per_char: Vec<Option<u8>> = per_char.into_iter().zip(&chars).map(|(c, &ch)| if ch == OBJECT_CHAR { None } else { Some(c.unwrap_or(OTHER)) }).collect();
    let mut a = Alignment { labelled_chars: 0, aligned_chars: 0, content_chars: 0, content_aligned: 0 };
    for (i, w) in gold_words.iter().enumerate() {
        let n = w.end - w.start;
        let ok = gold_to_page[i].is_some();
        a.labelled_chars += n;
        a.aligned_chars += if ok { n } else { 0 };
        if gold_class[i] == MAIN {
            a.content_chars += n;
            a.content_aligned += if ok { n } else { 0 };
        }
    }
    Aligned { per_char, word_class, gold_to_page, gold_class, page_words, fields, chars: a }
}

/// Words cut differently on the two sides, right after an aligned word: a gold word that is two
/// page words joined (a drop capital that is a leaf of its own: "A" + "dvertise"), or a page
/// word that is two gold words joined (a gold file that lost a space: "regulationthat").
fn join_split_words(gold: &[Word], gold_class: &[u8], page: &[Word], gold_to_page: &mut [Option<usize>], word_class: &mut [u8]) {
    let mut taken: Vec<bool> = vec![false; page.len()];
    for p in gold_to_page.iter().flatten() {
        taken[*p] = true;
    }
    let free = |taken: &[bool], p: usize| p < page.len() && !taken[p];
    let mut last: Option<usize> = None;
    let mut i = 0;
    while i < gold.len() {
        if let Some(p) = gold_to_page[i] {
            last = Some(p);
            i += 1;
            continue;
        }
        let Some(p) = last else {
            i += 1;
            continue;
        };
        let (a, b) = (p + 1, p + 2);
        if free(&taken, a)
            && free(&taken, b)
            && gold[i].text.len() == page[a].text.len() + page[b].text.len()
            && gold[i].text.starts_with(&page[a].text)
            && gold[i].text.ends_with(&page[b].text)
        {
            for q in [a, b] {
                taken[q] = true;
                word_class[q] = gold_class[i];
            }
            gold_to_page[i] = Some(a);
            last = Some(b);
            i += 1;
            continue;
        }
        if i + 1 < gold.len() && gold_to_page[i + 1].is_none() && free(&taken, a) && gold_class[i] == gold_class[i + 1] {
            let w = &page[a].text;
            if w.len() == gold[i].text.len() + gold[i + 1].text.len() && w.starts_with(&gold[i].text) && w.ends_with(&gold[i + 1].text) {
                taken[a] = true;
                word_class[a] = gold_class[i];
                gold_to_page[i] = Some(a);
                gold_to_page[i + 1] = Some(a);
                last = Some(a);
                i += 2;
                continue;
            }
        }
        i += 1;
    }
}

/// Keeps matched runs of [`MIN_RUN`] words or more (or the whole gold), and shorter runs only
/// near a long one: within `2 × gold gap + 8` page words of it.
fn trusted_runs(runs: &[(usize, usize, usize)], gold_len: usize) -> Vec<(usize, usize, usize)> {
    let strong = |r: &(usize, usize, usize)| r.2 >= MIN_RUN.min(gold_len.max(1));
    let near = |r: &(usize, usize, usize), s: &(usize, usize, usize)| {
        let (gap_g, gap_p) = if s.0 < r.0 { (r.0 - (s.0 + s.2), r.1.saturating_sub(s.1 + s.2)) } else { (s.0 - (r.0 + r.2), s.1.saturating_sub(r.1 + r.2)) };
        gap_p <= 2 * gap_g + 8
    };
    runs.iter()
        .enumerate()
        .filter(|&(i, r)| {
            strong(r)
                || runs[..i].iter().rev().find(|s| strong(s)).is_some_and(|s| near(r, s))
                || runs[i + 1..].iter().find(|s| strong(s)).is_some_and(|s| near(r, s))
        })
        .map(|(_, r)| *r)
        .collect()
}

/// Stretches of characters without a letter or digit between two characters of one label take
/// that label; punctuation (not white space) next to a labelled character takes its label.
fn fill_gaps(per_char: &mut [Option<u8>], chars: &[char]) {
    let mut i = 0;
    while i < chars.len() {
        if per_char[i].is_some() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && per_char[i].is_none() && !chars[i].is_alphanumeric() {
            i += 1;
        }
        if i == start {
            i += 1;
            continue;
        }
        let before = start.checked_sub(1).and_then(|j| per_char[j]);
        let after = per_char.get(i).copied().flatten();
        if before.is_some() && before == after {
            per_char[start..i].fill(before);
            continue;
        }
        // Punctuation stuck to the labelled word on either side.
        if let Some(b) = before {
            let mut j = start;
            while j < i && !chars[j].is_whitespace() {
                per_char[j] = Some(b);
                j += 1;
            }
        }
        if let Some(a) = after {
            let mut j = i;
            while j > start && !chars[j - 1].is_whitespace() && per_char[j - 1].is_none() {
                per_char[j - 1] = Some(a);
                j -= 1;
            }
        }
    }
}

const MONTHS: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/// The written forms of an ISO date (`2025-09-04`, with or without a time; `2025-09`): ISO,
/// `September 4, 2025`, `Sep 4 2025`, `4 September 2025`, `4th Sept 2025`, … A bare year, or
/// anything else, has none.
pub fn date_forms(iso: &str) -> Vec<String> {
    let date = iso.trim().get(..10.min(iso.trim().len())).unwrap_or_default();
    let parts: Vec<&str> = date.split('-').collect();
    let num = |s: &str| s.parse::<usize>().ok();
    let (Some(y), Some(m)) = (parts.first().and_then(|s| num(s)), parts.get(1).and_then(|s| num(s))) else {
        return Vec::new();
    };
    if !(1..=12).contains(&m) || !(1000..=9999).contains(&y) {
        return Vec::new();
    }
    let month = MONTHS[m - 1];
    let mut names = vec![month.to_string(), month[..3].to_string()];
    if m == 9 {
        names.push("sept".to_string());
    }
    let Some(d) = parts.get(2).and_then(|s| num(s.get(..2).unwrap_or(s))).filter(|d| (1..=31).contains(d)) else {
        return names.iter().map(|n| format!("{n} {y}")).collect();
    };
    let suffix = match d {
        1 | 21 | 31 => "st",
        2 | 22 => "nd",
        3 | 23 => "rd",
        _ => "th",
    };
    let mut out = vec![format!("{y}-{m:02}-{d:02}")];
    for n in &names {
        for day in [format!("{d}"), format!("{d:02}"), format!("{d}{suffix}")] {
            out.push(format!("{n} {day} {y}"));
            out.push(format!("{day} {n} {y}"));
        }
    }
    out.dedup();
    out
}

/// Labelled spans from per-char labels (`None`: unlabelled).
fn spans(per_char: &[Option<u8>]) -> Vec<Span> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < per_char.len() {
        let Some(c) = per_char[i] else {
            i += 1;
            continue;
        };
        let start = i;
        while i < per_char.len() && per_char[i] == Some(c) {
            i += 1;
        }
        let provenance = if c == OTHER { PROVENANCE_COMPLEMENT } else { PROVENANCE_ALIGNED };
        out.push(Span { start, end: i, label: GOLD_LABELS[c as usize].to_string(), provenance: provenance.to_string() });
    }
    out
}

/// Labels a divided page from its gold: the label file's spans and alignment, and the figures.
pub fn label_page(labels: &mut LabelFile, division: &Division, gold: &Gold, scheme: &LabelScheme) -> GoldAlignment {
    let a = align(&division.text, gold);
    labels.spans = spans(&a.per_char);
    labels.alignment = Some(a.chars);
    let blocks = labels.block_labels(division, scheme);
    let mut block_of = vec![None; a.per_char.len()];
    for (i, b) in division.blocks.iter().enumerate() {
        for slot in block_of.iter_mut().take(b.chars[1]).skip(b.chars[0]) {
            *slot = Some(i);
        }
    }
    let block_label = |p: usize| block_of[a.page_words[p].start].and_then(|b| blocks[b].label);
    let mut r = GoldAlignment {
        gold_words: 0,
        aligned_words: 0,
        covered_words: 0,
        comment_words: 0,
        comment_aligned: 0,
        comment_covered: 0,
        text_blocks: 0,
        gold_blocks: 0,
        split_blocks: 0,
        title: a.fields[0],
        author: a.fields[1],
        date: a.fields[2],
    };
    for (g, &class) in a.gold_class.iter().enumerate() {
        let aligned = a.gold_to_page[g];
        let covered = aligned.is_some_and(|p| block_label(p) == Some(class as usize));
        let (n, al, cov) = if class == MAIN {
            (&mut r.gold_words, &mut r.aligned_words, &mut r.covered_words)
        } else {
            (&mut r.comment_words, &mut r.comment_aligned, &mut r.comment_covered)
        };
        *n += 1;
        *al += usize::from(aligned.is_some());
        *cov += usize::from(covered);
    }
    // Per block: does it hold gold words, other words, or both?
    let mut has = vec![(false, false); division.blocks.len()];
    for (w, &c) in a.page_words.iter().zip(&a.word_class) {
        if let Some(b) = block_of[w.start] {
            if c == OTHER {
                has[b].1 = true;
            } else {
                has[b].0 = true;
            }
        }
    }
    r.text_blocks = has.iter().filter(|h| h.0 || h.1).count();
    r.gold_blocks = has.iter().filter(|h| h.0).count();
    r.split_blocks = has.iter().filter(|h| h.0 && h.1).count();
    r
}

/// The site of a page: the host of its canonical or `og:url` address, if it names one.
pub fn canonical_host(page: &Page) -> Option<String> {
    let sel = scraper::Selector::parse("link[rel=canonical], meta[property='og:url']").ok()?;
    page.html.select(&sel).find_map(|el| {
        let url = el.value().attr("href").or_else(|| el.value().attr("content"))?.trim();
        (url.starts_with("http://") || url.starts_with("https://")).then(|| super::l3s::host(url)).filter(|h| !h.is_empty())
    })
}

/// One imported page.
pub struct ImportedGold {
    pub labels: LabelFile,
    pub figures: GoldAlignment,
}

/// Imports one page: divides it, reads and aligns its gold. `corpus_name` is the corpus's
/// directory under the corpora root (`wcxb-dev`).
pub fn import_page(
    corpus: GoldCorpus,
    root: &Path,
    corpus_name: &str,
    page: &GoldPage,
    meta: &Metadata,
    divider: &Divider,
    scheme: &LabelScheme,
) -> Result<ImportedGold, GoldError> {
    let gold = read_gold(corpus, &page.gold)?;
    let loaded = Page::load(root.join(&page.page), &LoadOptions::default())?;
    let division = divider.divide(&loaded);
    let mut labels = LabelFile::new(corpus_name, &page.page, &loaded, &division, scheme);
    labels.site = match corpus {
        GoldCorpus::Wcxb => meta.files.get(&page.id).map(|(_, d)| d.clone()).filter(|d| !d.is_empty()),
        GoldCorpus::Dragnet => canonical_host(&loaded),
        GoldCorpus::CleanEval => gold.url.as_deref().map(super::l3s::host).filter(|h| !h.is_empty()),
    }
    .or_else(|| Some(page.id.clone()));
    let figures = label_page(&mut labels, &division, &gold, scheme);
    Ok(ImportedGold { labels, figures })
}

/// What happened to one page of a batch.
#[derive(Debug, Clone)]
pub enum PageOutcome {
    /// Labelled and saved.
    Saved(GoldAlignment),
    /// Aligned, but covering less than the threshold of the gold: no label file.
    Low(GoldAlignment),
    /// The gold main text has no words: no label file.
    EmptyGold,
    Failed(String),
}

/// One row of a batch: page id, site, page type (WCXB), outcome.
#[derive(Debug, Clone)]
pub struct PageRow {
    pub id: String,
    pub site: String,
    pub page_type: String,
    pub outcome: PageOutcome,
}

/// The outcome of a batch ([`import_all`]).
#[derive(Debug, Default)]
pub struct GoldSummary {
    pub rows: Vec<PageRow>,
}

/// Sums of the figures over pages.
#[derive(Debug, Clone, Copy, Default)]
pub struct Totals {
    pub pages: usize,
    pub gold_words: usize,
    pub aligned_words: usize,
    pub covered_words: usize,
    pub comment_words: usize,
    pub comment_covered: usize,
    pub text_blocks: usize,
    pub gold_blocks: usize,
    pub split_blocks: usize,
    /// Pages whose gold has the field, and pages where it was found: title, author, date.
    pub fields: [(usize, usize); 3],
    /// Mean per-page coverage.
    pub mean_coverage: f64,
}

impl GoldSummary {
    /// Figures over the pages that aligned (saved and low).
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        let mut sum = 0.0;
        for row in &self.rows {
            let (PageOutcome::Saved(a) | PageOutcome::Low(a)) = &row.outcome else { continue };
            t.pages += 1;
            t.gold_words += a.gold_words;
            t.aligned_words += a.aligned_words;
            t.covered_words += a.covered_words;
            t.comment_words += a.comment_words;
            t.comment_covered += a.comment_covered;
            t.text_blocks += a.text_blocks;
            t.gold_blocks += a.gold_blocks;
            t.split_blocks += a.split_blocks;
            sum += a.coverage();
            for (k, f) in [a.title, a.author, a.date].into_iter().enumerate() {
                if f != FieldMatch::Absent {
                    t.fields[k].0 += 1;
                    t.fields[k].1 += usize::from(f == FieldMatch::Found);
                }
            }
        }
        t.mean_coverage = if t.pages == 0 { 0.0 } else { sum / t.pages as f64 };
        t
    }

    pub fn count(&self, f: impl Fn(&PageOutcome) -> bool) -> usize {
        self.rows.iter().filter(|r| f(&r.outcome)).count()
    }

    /// Per-page figures as TSV with a header line.
    pub fn to_tsv(&self) -> String {
        let mut tsv = String::from(
            "page\tsite\tpage_type\tstatus\tgold_words\taligned_share\tcovered_share\tcomment_words\tcomment_covered_share\ttext_blocks\tgold_blocks\tsplit_blocks\ttitle\tauthor\tdate\terror\n",
        );
        for r in &self.rows {
            let (status, a, error) = match &r.outcome {
                PageOutcome::Saved(a) => ("ok", Some(a), ""),
                PageOutcome::Low(a) => ("low", Some(a), ""),
                PageOutcome::EmptyGold => ("empty-gold", None, ""),
                PageOutcome::Failed(e) => ("error", None, e.as_str()),
            };
            let error = crate::output::tsv_field(error);
            match a {
                Some(a) => tsv.push_str(&format!(
                    "{}\t{}\t{}\t{status}\t{}\t{:.4}\t{:.4}\t{}\t{:.4}\t{}\t{}\t{}\t{}\t{}\t{}\t{error}\n",
                    r.id,
                    r.site,
                    r.page_type,
                    a.gold_words,
                    a.aligned_share(),
                    a.coverage(),
                    a.comment_words,
                    ratio(a.comment_covered, a.comment_words),
                    a.text_blocks,
                    a.gold_blocks,
                    a.split_blocks,
                    a.title.as_str(),
                    a.author.as_str(),
                    a.date.as_str()
                )),
                None => tsv.push_str(&format!("{}\t{}\t{}\t{status}\t\t\t\t\t\t\t\t\t\t\t\t{error}\n", r.id, r.site, r.page_type)),
            }
        }
        tsv
    }
}

/// Imports every page of a gold corpus directory `root` in parallel; saves the label file
/// (`<id>.json`) of each page whose coverage reaches `min_coverage` in `out`; `on_page` is
/// called after each page. Pages that fail are listed, the others go on.
pub fn import_all(
    corpus: GoldCorpus,
    root: &Path,
    out: &Path,
    divider: &Divider,
    scheme: &LabelScheme,
    min_coverage: f64,
    on_page: &(dyn Fn() + Sync),
) -> std::io::Result<GoldSummary> {
    use rayon::prelude::*;
    let list = pages(corpus, root)?;
    let meta = Metadata::load(corpus, root);
    let name = root.canonicalize().unwrap_or_else(|_| root.to_path_buf()).file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let rows: Vec<PageRow> = list
        .par_iter()
        .map(|p| {
            let (page_type, domain) = meta.files.get(&p.id).cloned().unwrap_or_default();
            let mut site = domain;
            let outcome = match import_page(corpus, root, &name, p, &meta, divider, scheme) {
                Err(e) => PageOutcome::Failed(error_chain(&e)),
                Ok(imported) => {
                    site = imported.labels.site.clone().unwrap_or_default();
                    let f = imported.figures;
                    if f.gold_words == 0 {
                        PageOutcome::EmptyGold
                    } else if f.coverage() < min_coverage {
                        PageOutcome::Low(f)
                    } else {
                        match imported.labels.save(out.join(format!("{}.json", p.id))) {
                            Ok(()) => PageOutcome::Saved(f),
                            Err(e) => PageOutcome::Failed(error_chain(&e)),
                        }
                    }
                }
            };
            on_page();
            PageRow { id: p.id.clone(), site, page_type, outcome }
        })
        .collect();
    Ok(GoldSummary { rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labelled(html: &str, gold: &Gold) -> (Division, LabelFile, GoldAlignment) {
        let page = Page::from_bytes("p.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let scheme = LabelScheme::built_in("gold-text").unwrap();
        let mut labels = LabelFile::new("t", "p.html", &page, &division, &scheme);
        let a = label_page(&mut labels, &division, gold, &scheme);
        (division, labels, a)
    }

    fn block_names(d: &Division, f: &LabelFile) -> Vec<(String, &'static str)> {
        let scheme = LabelScheme::built_in("gold-text").unwrap();
        f.block_labels(d, &scheme).iter().zip(&d.blocks).map(|(l, b)| (b.text.clone(), l.label.map_or("-", |c| GOLD_LABELS[c]))).collect()
    }

    #[test]
    fn words_are_lower_cased_alphanumeric_runs_with_char_offsets() {
        let w = words("Ça va? Don’t—stop 42x");
        let t: Vec<(&str, usize, usize)> = w.iter().map(|w| (w.text.as_str(), w.start, w.end)).collect();
        assert_eq!(t, [("ça", 0, 2), ("va", 3, 5), ("don", 7, 10), ("t", 11, 12), ("stop", 13, 17), ("42x", 18, 21)]);
    }

    #[test]
    fn gold_text_labels_its_blocks_and_the_rest_is_other() {
        let html = "<ul><li>Home</li><li>News</li></ul><h1>Storm hits the coast</h1><p>By Jane Roe</p><p>March 3, 2024</p>\
                    <p>A storm hit the coast on Sunday, flooding the old town.</p><p>The mayor said the news was grim.</p><p>Share this story</p>";
        let gold = Gold {
            main: "A storm hit the coast on Sunday, flooding the old town.\n\nThe mayor said the news was grim.".into(),
            title: Some("Storm Hits the Coast".into()),
            author: Some("Jane  Roe".into()),
            date: Some("2024-03-03".into()),
            ..Gold::default()
        };
        let (d, f, a) = labelled(html, &gold);
        let got = block_names(&d, &f);
        let want = [
            ("Home News", "other"),
            ("Storm hits the coast", "title"),
            ("By Jane Roe", "author"),
            ("March 3, 2024", "date"),
            ("A storm hit the coast on Sunday, flooding the old town.", "main-text"),
            ("The mayor said the news was grim.", "main-text"),
            ("Share this story", "other"),
        ];
        assert_eq!(got.iter().map(|(t, l)| (t.as_str(), *l)).collect::<Vec<_>>(), want);
        assert_eq!((a.gold_words, a.aligned_words, a.covered_words), (18, 18, 18));
        assert_eq!((a.title, a.author, a.date), (FieldMatch::Found, FieldMatch::Found, FieldMatch::Found));
        // "By" is not the author's: the block is split between gold and other words.
        assert_eq!((a.text_blocks, a.gold_blocks, a.split_blocks), (7, 5, 1));
        let span = f.spans.iter().find(|s| s.label == "main-text").unwrap();
        assert_eq!(span.provenance, PROVENANCE_ALIGNED);
        assert!(f.spans.iter().filter(|s| s.label == "other").all(|s| s.provenance == PROVENANCE_COMPLEMENT));
    }

    #[test]
    fn images_between_gold_paragraphs_stay_unlabelled() {
        let html = "<p>The first paragraph of the story is here.</p><p><img src=a.jpg></p><p>The second paragraph of the story follows.</p>";
        let gold = Gold { main: "The first paragraph of the story is here.\n\nThe second paragraph of the story follows.".into(), ..Gold::default() };
        let (d, f, _) = labelled(html, &gold);
        assert_eq!(block_names(&d, &f).iter().map(|x| x.1).collect::<Vec<_>>(), ["main-text", "-", "main-text"]);
    }

    #[test]
    fn words_cut_differently_on_the_two_sides_are_joined() {
        // A drop capital is a leaf of its own; the gold lost a space ("regulationthat"), the
        // page another ("toeveryone").
        let html = "<p>The new rules say that</p><div>A</div><p>dvertising must stop before a regulation that applies toeveryone.</p>";
        let gold = Gold { main: "The new rules say that Advertising must stop before a regulationthat applies to everyone.".into(), ..Gold::default() };
        let (d, f, a) = labelled(html, &gold);
        assert_eq!((a.gold_words, a.aligned_words, a.split_blocks), (14, 14, 0));
        assert_eq!(block_names(&d, &f).iter().map(|x| x.1).collect::<Vec<_>>(), ["main-text"; 3]);
    }

    #[test]
    fn chance_matches_of_common_words_far_from_the_text_are_dropped() {
        let html = "<p>Home</p><p>The</p><p>Sports</p><p>Weather</p><p>Contact us</p><p>Jobs</p><p>About</p><p>Archive</p><p>More</p><p>Login</p><p>Help</p>\
                    <p>Apples fell from the tree in the night and rolled downhill.</p>";
        let gold = Gold { main: "The apples fell from the tree in the night and rolled downhill.".into(), ..Gold::default() };
        let (d, f, a) = labelled(html, &gold);
        let got = block_names(&d, &f);
        assert_eq!(got[1], ("The".to_string(), "other"));
        assert_eq!(got.last().unwrap().1, "main-text");
        assert_eq!((a.gold_words, a.aligned_words), (12, 11));
    }

    #[test]
    fn the_title_occurrence_nearest_the_text_wins_and_missing_fields_are_reported() {
        let html = "<p>Rain again</p><p>Menu</p><p>Other</p><h1>Rain again</h1><p>It rained all day in the valley and the rivers rose.</p>";
        let gold = Gold {
            main: "It rained all day in the valley and the rivers rose.".into(),
            title: Some("Rain again".into()),
            author: Some("Nobody Here".into()),
            ..Gold::default()
        };
        let (d, f, a) = labelled(html, &gold);
        let got = block_names(&d, &f);
        assert_eq!(got[0].1, "other");
        assert_eq!(got[3].1, "title");
        assert_eq!((a.title, a.author, a.date), (FieldMatch::Found, FieldMatch::NotFound, FieldMatch::Absent));
    }

    #[test]
    fn dragnet_comments_and_cleaneval_markers() {
        let g = dragnet_gold("Body text &amp; more.\n!@#$%^&*()  COMMENTS\nNice post!\n");
        assert_eq!(g.main.trim(), "Body text & more.");
        assert_eq!(g.comments.as_deref().map(str::trim), Some("Nice post!"));
        let html = "<p>Body text &amp; more.</p><div><p>Nice post!</p></div><p>Footer links here</p>";
        let (d, f, a) = labelled(html, &g);
        assert_eq!(block_names(&d, &f).iter().map(|x| x.1).collect::<Vec<_>>(), ["main-text", "comments", "other"]);
        assert_eq!((a.comment_words, a.comment_covered), (2, 2));
        let c = cleaneval_gold("URL: http://www.example.com/a\n<p>First para.\n<h> Head\n<l> * item\n");
        assert_eq!(c.url.as_deref(), Some("http://www.example.com/a"));
        assert!(!c.main.contains("<p>") && c.main.contains("Head") && !c.main.contains("URL"));
    }

    #[test]
    fn gold_files_in_utf16_and_1252_are_read() {
        let utf16: Vec<u8> = [0xFF, 0xFE].into_iter().chain("Héllo".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        assert_eq!(decode_gold(&utf16), "Héllo");
        assert_eq!(decode_gold(b"caf\xe9"), "café");
        assert_eq!(decode_gold("café".as_bytes()), "café");
    }

    #[test]
    fn date_forms_cover_the_usual_ways_of_writing_a_date() {
        let f = date_forms("2025-09-04T10:00:00Z");
        for want in ["2025-09-04", "september 4 2025", "sep 4 2025", "sept 4th 2025", "4 september 2025", "04 sep 2025"] {
            assert!(f.iter().any(|x| x == want), "{want} in {f:?}");
        }
        assert_eq!(date_forms("2025-09"), ["september 2025", "sep 2025", "sept 2025"]);
        assert!(date_forms("2025").is_empty() && date_forms("soon").is_empty());
    }
}
