//! The `wire` feature group (lexical view, opt-in): whether a block says where the story comes
//! from (a news agency, a source or syndication line, a copyright line) or opens with a dateline.
//!
//! Input: a page's division. Output: one dense row per block (names and meanings in
//! [`FEATURES`]); `NaN` for shares of a block without words.
//!
//! Why: `source` and `location` are the classes the PARCELS paper could not find at all (F1 = 0)
//! and issue 15 names what they need: "dateline shapes (`LONDON (Reuters) —`), source/agency
//! names". The word stems of the `tokens` group see "reuters" or "press" as two columns among
//! thousands, each met on a handful of the ~100 source blocks of the corpus; a column that counts
//! *any* agency name, and one that sees the shape of a dateline or a "Source:" line, lets one
//! stump carry what the corpus teaches about all of them. The names, acronyms and lead-ins are
//! data (`src/views/wire.toml`).
//!
//! Why the lexical view: every column reads the block's words and their capitals, never how the
//! block looks or where it sits.

use serde::Deserialize;

use super::groups::{FeatureGroup, GroupError, GroupOutput, PageContext, ViewKind};
use super::metadata::words;

/// The group's columns, `(name, meaning)`, in column order.
pub(crate) const FEATURES: &[(&str, &str)] = &[
    ("wire.agencies", "news agency or wire service names and acronyms the block writes (wire.toml: `Reuters`, `Associated Press`, `AFP`, `news service`, …)"),
    ("wire.agency_share", "words of those names / words of the block (NaN without words)"),
    ("wire.bracketed", "1 if an agency name stands alone in parentheses: `(AP)`, `(Reuters)`"),
    ("wire.lead", "1 if the block starts with a source or syndication lead-in (wire.toml: `Source:`, `Courtesy of`, `Originally published`, …)"),
    ("wire.copyright", "1 if the block has a copyright mark: `©`, `(c)`, `copyright`, `all rights reserved`"),
    ("wire.dateline", "1 if the block starts like a dateline: a place in capitals (1-4 words), up to 6 more words (a date, a state), then a parenthesis or a dash: `LONDON (Reuters) -`, `NEW DELHI, Jan 3 -`"),
    ("wire.caps_lead", "words in capitals the block starts with (`HALIFAX`, `NEW DELHI`), at most 6"),
    ("wire.caps_share", "share of the block's words written in capitals (two letters or more; NaN without words)"),
];

/// The vocabulary file, `wire.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VocabularyFile {
    names: Vec<String>,
    acronyms: Vec<String>,
    leads: Vec<String>,
}

/// The parsed vocabulary: names and lead-ins as runs of lower-cased words, acronyms as written.
#[derive(Debug)]
struct Vocabulary {
    names: Vec<Vec<String>>,
    acronyms: Vec<String>,
    leads: Vec<Vec<String>>,
}

const VOCABULARY_TOML: &str = include_str!("wire.toml");

impl Vocabulary {
    fn parse(text: &str) -> Result<Vocabulary, String> {
        let file: VocabularyFile = toml::from_str(text).map_err(|e| format!("wire.toml: {e}"))?;
        let runs = |list: &[String], what: &str| -> Result<Vec<Vec<String>>, String> {
            let mut out: Vec<Vec<String>> = Vec::new();
            for entry in list {
                let w = words(entry);
                if w.is_empty() {
                    return Err(format!("wire.toml: {what} {entry:?} has no words"));
                }
                if out.contains(&w) {
                    return Err(format!("wire.toml: {what} {entry:?} is listed twice"));
                }
                out.push(w);
            }
            // Longest first, so the longest name that matches at a word wins.
            out.sort_by_key(|w| std::cmp::Reverse(w.len()));
            Ok(out)
        };
        Ok(Vocabulary { names: runs(&file.names, "name")?, acronyms: file.acronyms, leads: runs(&file.leads, "lead-in")? })
    }

    fn builtin() -> Result<&'static Vocabulary, GroupError> {
        static V: std::sync::OnceLock<Result<Vocabulary, String>> = std::sync::OnceLock::new();
        V.get_or_init(|| Vocabulary::parse(VOCABULARY_TOML)).as_ref().map_err(|e| GroupError::Other(e.clone().into()))
    }

    /// `(agency names, words they cover)` in a text.
    fn agencies(&self, text: &str) -> (usize, usize) {
        self.agencies_in(&raw_words(text))
    }

    /// [`Vocabulary::agencies`] of a text already split into [`raw_words`].
    fn agencies_in(&self, raw: &[&str]) -> (usize, usize) {
        let lower: Vec<String> = raw.iter().map(|w| w.to_lowercase()).collect();
        let (mut names, mut covered, mut i) = (0, 0, 0);
        while i < lower.len() {
            let len =
                self.names.iter().find(|n| lower[i..].starts_with(n)).map(Vec::len).or_else(|| self.acronyms.iter().any(|a| a.as_str() == raw[i]).then_some(1));
            match len {
                Some(len) => {
                    names += 1;
                    covered += len;
                    i += len;
                }
                None => i += 1,
            }
        }
        (names, covered)
    }

    /// Whether a text starts with a lead-in.
    fn leads_in(&self, text: &str) -> bool {
        // Only the first words can start a lead-in (the longest is first).
        let longest = self.leads.first().map_or(0, Vec::len);
        let w: Vec<String> = raw_words(text).into_iter().take(longest).map(str::to_lowercase).collect();
        self.leads.iter().any(|l| w.starts_with(l))
    }
}

/// A text's words as written: runs of letters, digits and `_` (as [`words`] splits them).
fn raw_words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect()
}

/// Whether a word is written in capitals: at least two letters, none lower-case.
fn in_capitals(word: &str) -> bool {
    word.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !word.chars().any(char::is_lowercase)
}

/// Whether some parenthesised part of a text is an agency name and nothing else.
fn bracketed(vocabulary: &Vocabulary, text: &str) -> bool {
    text.split('(').skip(1).filter_map(|rest| rest.split_once(')').map(|(inside, _)| inside)).any(|inside| {
        let n = raw_words(inside).len();
        n > 0 && n <= 6 && vocabulary.agencies(inside).1 == n
    })
}

/// Whether a text has a copyright mark.
fn copyright(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains('©') || lower.contains("(c)") || lower.contains("copyright") || lower.contains("all rights reserved")
}

/// `(words in capitals at the start, whether the start is a dateline)`: a place in capitals
/// (1–4 words; a trailing comma or colon allowed), then within 6 more words an opening
/// parenthesis or a dash.
fn dateline(text: &str) -> (usize, bool) {
    let spaced = text.replace(['—', '–', '―'], " — ");
    let tokens: Vec<&str> = spaced.split_whitespace().take(16).collect();
    let bare = |t: &str| t.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
    let lead = tokens.iter().take_while(|t| !t.starts_with('(') && in_capitals(&bare(t))).count();
    let ends_lead = |t: &str| t.ends_with(':') && lead > 0;
    let place = (1..=4).contains(&lead);
    let terminated = tokens.iter().skip(lead).take(7).any(|t| t.starts_with('(') || ["—", "-", "--"].contains(t))
        || tokens.get(lead.saturating_sub(1)).is_some_and(|t| ends_lead(t));
    (lead.min(6), place && terminated)
}

/// The `wire` group.
pub(super) struct Wire;

impl FeatureGroup for Wire {
    fn name(&self) -> &str {
        "wire"
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
        let vocabulary = Vocabulary::builtin()?;
        for (b, block) in ctx.division().blocks.iter().enumerate() {
            let text = block.text.as_str();
            let raw = raw_words(text);
            let per_word = |n: usize| if raw.is_empty() { f64::NAN } else { n as f64 / raw.len() as f64 };
            let (names, covered) = vocabulary.agencies_in(&raw);
            let (caps_lead, is_dateline) = dateline(text);
            let flag = |x: bool| f64::from(u8::from(x));
            out.row_mut(b).copy_from_slice(&[
                names as f64,
                per_word(covered),
                flag(bracketed(vocabulary, text)),
                flag(vocabulary.leads_in(text)),
                flag(copyright(text)),
                flag(is_dateline),
                caps_lead as f64,
                per_word(raw.iter().filter(|w| in_capitals(w)).count()),
            ]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vocabulary_parses_and_refuses_duplicates() {
        let v = Vocabulary::builtin().unwrap();
        assert!(v.names.windows(2).all(|w| w[0].len() >= w[1].len()), "longest names first");
        assert!(Vocabulary::parse("names = [\"AP news\", \"ap  NEWS\"]\nacronyms = []\nleads = []").is_err());
        assert!(Vocabulary::parse("names = [\"--\"]\nacronyms = []\nleads = []").is_err());
    }

    #[test]
    fn agency_names_are_counted_once_by_their_longest_match_and_acronyms_by_case() {
        let v = Vocabulary::builtin().unwrap();
        assert_eq!(v.agencies("Copyright 2008 The Associated Press. All rights reserved."), (1, 2));
        assert_eq!(v.agencies("© 2008 Australian Associated Press"), (1, 3));
        assert_eq!(v.agencies("Agence France-Presse and AFP"), (2, 4));
        assert_eq!(v.agencies("the ap style guide"), (0, 0), "an acronym keeps its case");
        assert!(bracketed(v, "WASHINGTON (AP) - The Senate voted"));
        assert!(!bracketed(v, "The vote (a close one) fell"));
        assert!(v.leads_in("Source: Magellan") && v.leads_in("(Courtesy of NASA)") && !v.leads_in("Open source software"));
    }

    #[test]
    fn datelines_are_a_place_in_capitals_then_a_parenthesis_or_a_dash() {
        assert_eq!(dateline("LONDON (Reuters) - Britain's economy grew"), (1, true));
        assert_eq!(dateline("NEW DELHI, Jan 3 - The government said"), (2, true));
        assert_eq!(dateline("WASHINGTON—The Senate voted"), (1, true));
        assert_eq!(dateline("HALIFAX"), (1, false));
        assert_eq!(dateline("The Senate voted - again"), (0, false));
        assert_eq!(dateline("BREAKING NEWS UPDATE FROM THE DESK - x"), (6, false), "too long for a place");
    }

    #[test]
    fn the_group_fills_one_row_per_block() {
        use crate::page::{LoadOptions, Page};
        let html = "<body><p>LONDON (Reuters) - Markets fell.</p><p>Source: AFP</p><p>Plain words here.</p></body>";
        let page = Page::from_bytes("t.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = crate::divide::Divider::default().divide(&page);
        let style = crate::stylistic::StyleOptions::default();
        let styled = crate::css::StyledDom::compute(&page, &style.css).unwrap();
        let ctx = PageContext::new(&page, &division, &styled, &style, None);
        let mut out = GroupOutput::new(ctx.blocks(), FEATURES.len(), 0);
        Wire.compute(&ctx, &mut out).unwrap();
        assert_eq!(out.row(0), [1.0, 0.25, 1.0, 0.0, 0.0, 1.0, 1.0, 0.25]);
        assert_eq!(out.row(1), [1.0, 0.5, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5]);
        assert_eq!(&out.row(2)[..6], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    }
}
