//! The `semantics` feature group (stylistic view, opt-in): what today's markup says a block is
//! part of, as sparse tokens.
//!
//! Input: a page, its division. Output: per block, one token column for every markup token of the
//! elements from the block's leaves up to the root: `tag:NAME` (element names, the HTML5
//! sectioning elements `article`, `main`, `nav`, `aside`, `header`, `footer`, `section`,
//! `figure` among them), `role:ROLE` (ARIA roles), `class:WORD` (the words of `class` and `id`,
//! split at `-`, `_`, other non-alphanumerics and camelCase: `article-body` and `articleBody`
//! give `article` and `body`), `prop:NAME` (schema.org `itemprop`) and `type:NAME` (schema.org
//! `itemtype`). Weight 1 for present tokens (the stumps test presence); absent tokens are not
//! stored.
//!
//! Why the stylistic view: these tokens are how the page is *built*, the author's structure
//! around the block, not what the block's words say. A reader never sees `class="byline"`; the
//! lexical view, which reads the block's visible words, cannot see it either. So the two views
//! stay two different ways of seeing a block, as co-training needs (paper section 6): the
//! stylistic learner can tell a navigation list from an article paragraph by where it sits in
//! the markup, the lexical learner by its words. 2008 pages said the same with tables and
//! `<font>`; today's say it with sectioning elements, ARIA roles and class names.
//!
//! Invariant: the columns are data-independent. The vocabulary is fixed in `semantics.toml`
//! (compiled in); a class/id word outside it goes to one of a fixed number of hashed columns
//! (`class#N`, FNV-1a), so a model gives the same column to the same token on any page.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::OnceLock;

use ego_tree::NodeId;
use serde::Deserialize;

use super::groups::{FeatureGroup, GroupError, GroupOutput, PageContext, ViewKind};
use crate::lexical::IdfTable;

/// The vocabulary file, compiled in.
const VOCABULARY_TOML: &str = include_str!("semantics.toml");

/// The markup tokens that get a column of their own, as `semantics.toml` lists them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct VocabularyFile {
    hash_buckets: usize,
    tags: Vec<String>,
    roles: Vec<String>,
    words: Vec<String>,
    itemprops: Vec<String>,
    itemtypes: Vec<String>,
}

/// The group's token columns: names in column order and each listed token's column.
#[derive(Debug)]
struct Vocabulary {
    names: Vec<String>,
    columns: HashMap<String, usize>,
    /// Column of `class#0`.
    first_bucket: usize,
    buckets: usize,
}

impl Vocabulary {
    fn parse(text: &str) -> Result<Vocabulary, String> {
        let file: VocabularyFile = toml::from_str(text).map_err(|e| format!("semantics.toml: {e}"))?;
        if file.hash_buckets == 0 {
            return Err("semantics.toml: hash_buckets must be at least 1".into());
        }
        let mut names = Vec::new();
        let mut columns = HashMap::new();
        let lists = [("tag", &file.tags), ("role", &file.roles), ("class", &file.words), ("prop", &file.itemprops), ("type", &file.itemtypes)];
        for (kind, list) in lists {
            for token in list {
                let name = format!("{kind}:{token}");
                if columns.insert(name.clone(), names.len()).is_some() {
                    return Err(format!("semantics.toml: {name} is listed twice"));
                }
                names.push(name);
            }
        }
        let first_bucket = names.len();
        names.extend((0..file.hash_buckets).map(|b| format!("class#{b}")));
        Ok(Vocabulary { names, columns, first_bucket, buckets: file.hash_buckets })
    }

    /// The compiled-in vocabulary, parsed once per process.
    fn builtin() -> Result<&'static Vocabulary, GroupError> {
        static VOCABULARY: OnceLock<Result<Vocabulary, String>> = OnceLock::new();
        VOCABULARY.get_or_init(|| Vocabulary::parse(VOCABULARY_TOML)).as_ref().map_err(|e| GroupError::Other(e.clone().into()))
    }

    /// The token columns of one element.
    fn element_columns(&self, el: &scraper::node::Element, out: &mut Vec<usize>) {
        let mut listed = |name: String| {
            if let Some(&c) = self.columns.get(&name) {
                out.push(c);
            }
        };
        listed(format!("tag:{}", el.name()));
        for role in el.attr("role").into_iter().flat_map(str::split_whitespace) {
            listed(format!("role:{}", role.to_ascii_lowercase()));
        }
        for prop in el.attr("itemprop").into_iter().flat_map(str::split_whitespace) {
            listed(format!("prop:{prop}"));
        }
        for item_type in el.attr("itemtype").into_iter().flat_map(str::split_whitespace) {
            let last = item_type.trim_end_matches('/').rsplit('/').next().unwrap_or(item_type);
            listed(format!("type:{last}"));
        }
        for attr in ["class", "id"] {
            for word in el.attr(attr).map(class_words).unwrap_or_default() {
                match self.columns.get(&format!("class:{word}")) {
                    Some(&c) => out.push(c),
                    None => out.push(self.first_bucket + (fnv1a(&word) % self.buckets as u64) as usize),
                }
            }
        }
    }
}

/// The words of a `class` or `id` value: split at every non-alphanumeric character and at
/// camelCase humps (`articleBody`, `HTMLParser` → `html`, `parser`), lower-cased; words of one
/// letter and numbers are dropped.
pub(crate) fn class_words(value: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in value.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = part.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, cur) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
            // aB, or the last capital of a run followed by lower case (HTMLParser: HTML | Parser)
            if (prev.is_lowercase() && cur.is_uppercase()) || (prev.is_uppercase() && cur.is_uppercase() && next_lower) {
                words.push(chars[start..i].iter().collect::<String>());
                start = i;
            }
        }
        words.push(chars[start..].iter().collect::<String>());
    }
    words.into_iter().map(|w| w.to_lowercase()).filter(|w| w.chars().count() > 1 && !w.chars().all(|c| c.is_ascii_digit())).collect()
}

/// FNV-1a, 64 bits: stable across platforms and releases, unlike the standard library's hasher.
fn fnv1a(word: &str) -> u64 {
    word.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The `semantics` group: markup tokens of the block's elements and their ancestors.
pub(super) struct Semantics;

impl FeatureGroup for Semantics {
    fn name(&self) -> &str {
        "semantics"
    }

    fn view(&self) -> ViewKind {
        ViewKind::Stylistic
    }

    fn features(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    fn token_names(&self, _idf: &IdfTable) -> Vec<String> {
        Vocabulary::builtin().map(|v| v.names.clone()).unwrap_or_default()
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
        let vocabulary = Vocabulary::builtin()?;
        let tree = &ctx.page().html.tree;
        let mut per_element: HashMap<NodeId, Vec<usize>> = HashMap::new();
        for (b, block) in ctx.division().blocks.iter().enumerate() {
            let mut seen: HashSet<NodeId> = HashSet::new();
            let mut columns = BTreeSet::new();
            for &leaf in &block.nodes {
                let Some(node) = tree.get(leaf) else { continue };
                // The leaf itself (a replaced element such as <img>) and every ancestor, each once.
                for n in std::iter::once(node).chain(node.ancestors()) {
                    if !seen.insert(n.id()) {
                        break;
                    }
                    let Some(el) = n.value().as_element() else { continue };
                    let cols = per_element.entry(n.id()).or_insert_with(|| {
                        let mut cols = Vec::new();
                        vocabulary.element_columns(el, &mut cols);
                        cols
                    });
                    columns.extend(cols.iter().copied());
                }
            }
            out.set_tokens(b, columns.into_iter().map(|c| (c, 1.0)).collect())?;
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
    fn class_words_split_at_punctuation_and_camel_case() {
        assert_eq!(class_words("article-body"), ["article", "body"]);
        assert_eq!(class_words("articleBody post_meta"), ["article", "body", "post", "meta"]);
        assert_eq!(class_words("HTMLParser x col-12 mt-4"), ["html", "parser", "col", "mt"]);
        assert!(class_words("").is_empty());
    }

    #[test]
    fn the_vocabulary_parses_without_duplicates_and_ends_with_the_buckets() {
        let v = Vocabulary::builtin().unwrap();
        assert_eq!(v.buckets, 256);
        assert_eq!(v.names.len(), v.first_bucket + 256);
        assert_eq!(v.names[v.columns["tag:article"]], "tag:article");
        assert_eq!(v.names.last().map(String::as_str), Some("class#255"));
        assert!(Vocabulary::parse("hash_buckets = 1\ntags = [\"p\", \"p\"]\nroles = []\nwords = []\nitemprops = []\nitemtypes = []").is_err());
        assert!(Vocabulary::parse("hash_buckets = 0\ntags = []\nroles = []\nwords = []\nitemprops = []\nitemtypes = []").is_err());
        // FNV-1a of "a" (the published test vector).
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }

    /// The token names of a block, in column order.
    fn tokens_of(html: &str) -> Vec<(String, Vec<String>)> {
        let page = Page::from_bytes("s.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let style = StyleOptions::default();
        let styled = StyledDom::compute(&page, &style.css).unwrap();
        let ctx = PageContext::new(&page, &division, &styled, &style, None);
        let names = Semantics.token_names(&IdfTable::dragnet().unwrap());
        let mut out = GroupOutput::new(ctx.blocks(), 0, names.len());
        Semantics.compute(&ctx, &mut out).unwrap();
        division.blocks.iter().enumerate().map(|(b, block)| (block.text.clone(), out.tokens(b).iter().map(|&(c, _)| names[c].clone()).collect())).collect()
    }

    #[test]
    fn a_block_carries_its_ancestors_sectioning_roles_classes_and_schema_org() {
        let blocks = tokens_of(
            "<body><nav role=navigation class=site-nav><a href=/>Home</a></nav>\
             <main><article itemscope itemtype=https://schema.org/NewsArticle class=articleBody>\
             <h1 itemprop=headline>Storm closes harbour</h1><p class=zzqx>Winds kept it shut.</p></article></main></body>",
        );
        let (text, home) = &blocks[0];
        assert_eq!(text, "Home");
        assert_eq!(home, &["tag:nav", "tag:a", "role:navigation", "class:nav", "class:site"]);
        let (_, title) = &blocks[1];
        for t in ["tag:article", "tag:main", "tag:h1", "class:article", "class:body", "prop:headline", "type:NewsArticle"] {
            assert!(title.contains(&t.to_string()), "{t} in {title:?}");
        }
        assert!(!title.iter().any(|t| t == "tag:nav" || t == "tag:p"), "{title:?}");
        let (_, para) = &blocks[2];
        assert!(para.contains(&"tag:p".to_string()) && !para.contains(&"prop:headline".to_string()));
        let bucket = format!("class#{}", fnv1a("zzqx") % 256);
        assert!(para.contains(&bucket), "an unlisted class word goes to its hashed column: {para:?}");
    }
}
