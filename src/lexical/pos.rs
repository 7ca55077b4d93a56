//! Part-of-speech tagging for the lexical view (paper section 5.3.2: the ratio of each tag to the
//! block's tokens, and aggregates such as all nouns).
//!
//! Input: a block's [`Token`]s. Output: one [`PosTag`] per token, from the Penn Treebank tag set
//! (36 word tags plus 8 punctuation tags; the paper's QTAG used a 32-tag variant of it), and
//! [`tag_ratios`], the per-tag and aggregate ratios the learner sees.
//!
//! # The choice of tagger
//! It must run offline with no model download at run time and keep the project permissive
//! (MIT OR Apache-2.0). The `pos-tagger` crate embeds a Brill lexicon but is GPL-3.0, so it is
//! out. What is here is a rule-based tagger in three steps, all our own code and data except one
//! lexicon:
//! 1. *Lexicon*: a closed-class lexicon written for this module (determiners, pronouns,
//!    prepositions, conjunctions, modals, the forms of *be*, *have*, *do*, irregular verb forms,
//!    number words, days and months; [`CLOSED_CLASS`], [`IRREGULAR_VERBS`]) decides most function
//!    words. Open-class words are looked up in the `wiktionary-part-of-speech-extract` crate
//!    (MIT OR Apache-2.0, an FST of the English Wiktionary's part-of-speech headings: coarse
//!    classes only, noun/verb/adjective/adverb), which says *which* open classes a word can have.
//! 2. *Morphology* turns coarse classes into Penn tags (`-s` plural or 3rd person, `-ed` past,
//!    `-ing` gerund, `-er`/`-est` comparison) and guesses words no lexicon has from their suffix
//!    (`-tion` noun, `-ous` adjective, `-ly` adverb) and their case (capitalised inside a sentence:
//!    proper noun).
//! 3. *Context rules* in the manner of Brill's transformation rules pick among the candidates,
//!    left to right, from the previous tag and the next token's candidates (after `to` or a modal
//!    a verb is a base form; after a determiner a noun; an `-ed` form after *have* or *be* is a
//!    participle; `'s` after a pronoun is *is*, after a noun possessive; and so on).
//!
//! The Wiktionary lexicon is noisy, which shapes the order of the steps: it lists `the` as an
//! adverb and preposition and `of` as a verb, and lacks common nouns (`car`, `army`, `year`,
//! `government`). So our closed-class lexicon is consulted first, only the four open classes are
//! read from Wiktionary, and a word it lacks without a telling suffix is guessed a noun or verb.
//!
//! An HMM trained on our own hand-tagged text was considered and rejected: a few hundred tokens
//! are far too few to estimate transition and emission probabilities, while the rules encode
//! the same regularities directly.
//!
//! Measured token accuracy on the hand-tagged sample in `corpora/pos/` (news-like sentences and
//! page boilerplate written for this project, Penn tags; `tests/lexical_pos.rs` asserts floors a
//! little below these), on text no rule was tuned on: **95.4% (229/240 tokens) on the held-out
//! news sentences** and **93.5% (145/155) on held-out web blocks** (captions, bylines, footers;
//! written after tuning). On the development half the rules were tuned on: 99.6% (268/269).
//! Without the Wiktionary lexicon (closed-class lexicon, suffixes and context only,
//! [`Tagger::without_open_lexicon`]) the held-out figure drops to 89.6%, so the lexicon earns
//! its 1.7 MB. Typical remaining errors: sentence-initial capitalised plurals the lexicon lacks
//! (`Shares`, `Reporters` → NNP), noun/verb readings of `-s` words (`plans`, `opens`),
//! participles after a noun (`views expressed` → VBD), noun-noun compounds (`print edition` →
//! JJ NN). The sample is small and written by us, so read the figures as "about 95% on clean
//! news sentences"; title-case navigation is harder (and its gold tags disputable).
//!
//! Licence of the lexicon data: the crate is published as MIT OR Apache-2.0 (and its `fst`
//! dependency as MIT/Unlicense). Its data is derived from the English Wiktionary, whose text is
//! CC BY-SA; the crate keeps only which part-of-speech headings a word has, facts rather than
//! text, but a project that wants no doubt can use [`Tagger::without_open_lexicon`] (and drop the
//! dependency) at the cost measured above.
//!
//! Panics: the crate's `TagSet::tags` panics on a mask bit outside its 13 classes; all 298,452
//! entries of its FST (version 0.1.2, pinned) were streamed and checked to have none, so no word
//! can reach that panic.
//!
//! Invariants: tagging never fails; one tag per token; the same tokens always get the same tags.

use std::collections::HashMap;
use std::sync::OnceLock;

use wiktionary_part_of_speech_extract::{Tag as WikiTag, ENGLISH_TAG_LOOKUP};

use super::tokens::{Token, TokenKind};

macro_rules! pos_tags {
    ($($variant:ident => $name:literal, $doc:literal;)*) => {
        /// A Penn Treebank part-of-speech tag.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
        pub enum PosTag {
            $(#[doc = $doc] #[serde(rename = $name)] $variant,)*
        }

        impl PosTag {
            /// Every tag, in feature-column order.
            pub const ALL: &'static [PosTag] = &[$(PosTag::$variant,)*];

            /// The tag as the Penn Treebank writes it (`NN`, `PRP$`, `.`).
            pub fn name(self) -> &'static str {
                match self { $(PosTag::$variant => $name,)* }
            }

            /// The tag with Penn name `name`.
            pub fn from_name(name: &str) -> Option<PosTag> {
                match name { $($name => Some(PosTag::$variant),)* _ => None }
            }
        }
    };
}

pos_tags! {
    CC => "CC", "coordinating conjunction";
    CD => "CD", "cardinal number";
    DT => "DT", "determiner";
    EX => "EX", "existential there";
    FW => "FW", "foreign word";
    IN => "IN", "preposition or subordinating conjunction";
    JJ => "JJ", "adjective";
    JJR => "JJR", "adjective, comparative";
    JJS => "JJS", "adjective, superlative";
    LS => "LS", "list item marker";
    MD => "MD", "modal";
    NN => "NN", "noun, singular or mass";
    NNS => "NNS", "noun, plural";
    NNP => "NNP", "proper noun, singular";
    NNPS => "NNPS", "proper noun, plural";
    PDT => "PDT", "predeterminer";
    POS => "POS", "possessive ending";
    PRP => "PRP", "personal pronoun";
    PRPS => "PRP$", "possessive pronoun";
    RB => "RB", "adverb";
    RBR => "RBR", "adverb, comparative";
    RBS => "RBS", "adverb, superlative";
    RP => "RP", "particle";
    SYM => "SYM", "symbol";
    TO => "TO", "to";
    UH => "UH", "interjection";
    VB => "VB", "verb, base form";
    VBD => "VBD", "verb, past tense";
    VBG => "VBG", "verb, gerund or present participle";
    VBN => "VBN", "verb, past participle";
    VBP => "VBP", "verb, non-3rd person singular present";
    VBZ => "VBZ", "verb, 3rd person singular present";
    WDT => "WDT", "wh-determiner";
    WP => "WP", "wh-pronoun";
    WPS => "WP$", "possessive wh-pronoun";
    WRB => "WRB", "wh-adverb";
    Period => ".", "sentence-final punctuation";
    Comma => ",", "comma";
    Colon => ":", "colon, semicolon, dash, ellipsis";
    LParen => "(", "opening bracket";
    RParen => ")", "closing bracket";
    Quote => "\"", "quotation mark";
    Dollar => "$", "currency sign";
    Hash => "#", "pound sign";
}

use PosTag::*;

/// Aggregate ratios (`pos-all:NAME`), the paper's "a noun ratio adds the separate plural and
/// singular noun ratios together".
pub const AGGREGATES: &[(&str, &[PosTag])] = &[
    ("noun", &[NN, NNS, NNP, NNPS]),
    ("verb", &[VB, VBD, VBG, VBN, VBP, VBZ, MD]),
    ("adjective", &[JJ, JJR, JJS]),
    ("adverb", &[RB, RBR, RBS]),
    ("proper-noun", &[NNP, NNPS]),
    ("pronoun", &[PRP, PRPS, WP, WPS]),
    ("number", &[CD]),
    ("punctuation", &[Period, Comma, Colon, LParen, RParen, Quote, Dollar, Hash, SYM]),
];

/// Ratio of each tag of [`PosTag::ALL`] to the number of tokens, then each aggregate of
/// [`AGGREGATES`]; all zero for no tokens.
pub fn tag_ratios(tags: &[PosTag]) -> Vec<f64> {
    // Tags are indexed by their position in `ALL`, which the enum's declaration order gives.
    let mut counts = [0usize; PosTag::ALL.len()];
    for t in tags {
        counts[*t as usize] += 1;
    }
    let ratio = |n: usize| if tags.is_empty() { 0.0 } else { n as f64 / tags.len() as f64 };
    let count = |t: &PosTag| counts[*t as usize];
    let mut out: Vec<f64> = PosTag::ALL.iter().map(|t| ratio(count(t))).collect();
    out.extend(AGGREGATES.iter().map(|(_, members)| ratio(members.iter().map(count).sum())));
    out
}

/// Closed-class words and other words whose tags the open-class lexicon gets wrong, with their
/// candidate tags, most likely first. Hand-written for this module.
pub const CLOSED_CLASS: &[(&str, &[PosTag])] = &[
    // Determiners and predeterminers.
    ("the", &[DT]),
    ("a", &[DT]),
    ("an", &[DT]),
    ("this", &[DT]),
    ("these", &[DT]),
    ("those", &[DT]),
    ("that", &[IN, DT, WDT]),
    ("every", &[DT]),
    ("each", &[DT]),
    ("no", &[DT, UH]),
    ("some", &[DT]),
    ("any", &[DT]),
    ("another", &[DT]),
    ("all", &[DT, PDT]),
    ("both", &[DT, CC]),
    ("either", &[DT, CC]),
    ("neither", &[DT, CC]),
    // Pronouns.
    ("i", &[PRP]),
    ("you", &[PRP]),
    ("he", &[PRP]),
    ("she", &[PRP]),
    ("it", &[PRP]),
    ("we", &[PRP]),
    ("they", &[PRP]),
    ("me", &[PRP]),
    ("him", &[PRP]),
    ("us", &[PRP]),
    ("them", &[PRP]),
    ("myself", &[PRP]),
    ("yourself", &[PRP]),
    ("himself", &[PRP]),
    ("herself", &[PRP]),
    ("itself", &[PRP]),
    ("ourselves", &[PRP]),
    ("themselves", &[PRP]),
    ("my", &[PRPS]),
    ("your", &[PRPS]),
    ("his", &[PRPS]),
    ("its", &[PRPS]),
    ("our", &[PRPS]),
    ("their", &[PRPS]),
    ("her", &[PRPS, PRP]),
    ("which", &[WDT]),
    ("whichever", &[WDT]),
    ("who", &[WP]),
    ("whom", &[WP]),
    ("what", &[WP]),
    ("whose", &[WPS]),
    ("where", &[WRB]),
    ("when", &[WRB]),
    ("why", &[WRB]),
    ("how", &[WRB]),
    ("whenever", &[WRB]),
    ("wherever", &[WRB]),
    // Conjunctions, prepositions, particles.
    ("and", &[CC]),
    ("or", &[CC]),
    ("but", &[CC]),
    ("nor", &[CC]),
    ("plus", &[CC]),
    ("&", &[CC]),
    ("of", &[IN]),
    ("in", &[IN]),
    ("on", &[IN]),
    ("at", &[IN]),
    ("by", &[IN]),
    ("for", &[IN]),
    ("with", &[IN]),
    ("from", &[IN]),
    ("about", &[IN, RB]),
    ("into", &[IN]),
    ("over", &[IN, RP]),
    ("after", &[IN]),
    ("before", &[IN]),
    ("under", &[IN]),
    ("between", &[IN]),
    ("through", &[IN]),
    ("during", &[IN]),
    ("without", &[IN]),
    ("within", &[IN]),
    ("against", &[IN]),
    ("among", &[IN]),
    ("amid", &[IN]),
    ("across", &[IN]),
    ("since", &[IN]),
    ("until", &[IN]),
    ("till", &[IN]),
    ("upon", &[IN]),
    ("via", &[IN]),
    ("per", &[IN]),
    ("than", &[IN]),
    ("because", &[IN]),
    ("although", &[IN]),
    ("though", &[IN]),
    ("while", &[IN]),
    ("whether", &[IN]),
    ("if", &[IN]),
    ("unless", &[IN]),
    ("as", &[IN]),
    ("like", &[IN, VB, VBP]),
    ("near", &[IN]),
    ("toward", &[IN]),
    ("towards", &[IN]),
    ("around", &[IN, RB]),
    ("behind", &[IN]),
    ("beyond", &[IN]),
    ("despite", &[IN]),
    ("except", &[IN]),
    ("inside", &[IN]),
    ("outside", &[IN]),
    ("throughout", &[IN]),
    ("onto", &[IN]),
    ("above", &[IN]),
    ("below", &[IN]),
    ("along", &[IN]),
    ("beside", &[IN]),
    ("besides", &[IN]),
    ("whereas", &[IN]),
    ("so", &[RB, IN]),
    ("up", &[RP, IN, RB]),
    ("down", &[RP, IN, RB]),
    ("out", &[RP, IN, RB]),
    ("off", &[RP, IN, RB]),
    ("to", &[TO]),
    // Modals and clitics.
    ("can", &[MD]),
    ("could", &[MD]),
    ("will", &[MD]),
    ("would", &[MD]),
    ("shall", &[MD]),
    ("should", &[MD]),
    ("may", &[MD]),
    ("might", &[MD]),
    ("must", &[MD]),
    ("'ll", &[MD]),
    ("wo", &[MD]),
    ("ca", &[MD]),
    ("'d", &[MD]),
    ("n't", &[RB]),
    ("not", &[RB]),
    ("'s", &[POS, VBZ]),
    ("'re", &[VBP]),
    ("'ve", &[VBP]),
    ("'m", &[VBP]),
    // Be, have, do.
    ("be", &[VB]),
    ("am", &[VBP]),
    ("is", &[VBZ]),
    ("are", &[VBP]),
    ("was", &[VBD]),
    ("were", &[VBD]),
    ("been", &[VBN]),
    ("being", &[VBG]),
    ("have", &[VBP, VB]),
    ("has", &[VBZ]),
    ("had", &[VBD, VBN]),
    ("having", &[VBG]),
    ("do", &[VBP, VB]),
    ("does", &[VBZ]),
    ("did", &[VBD]),
    ("done", &[VBN]),
    ("doing", &[VBG]),
    // Adverbs the open-class lexicon lists under many classes.
    ("very", &[RB]),
    ("also", &[RB]),
    ("just", &[RB]),
    ("only", &[RB, JJ]),
    ("even", &[RB]),
    ("too", &[RB]),
    ("still", &[RB]),
    ("already", &[RB]),
    ("again", &[RB]),
    ("never", &[RB]),
    ("always", &[RB]),
    ("often", &[RB]),
    ("now", &[RB]),
    ("then", &[RB]),
    ("here", &[RB]),
    ("there", &[EX, RB]),
    ("yet", &[RB]),
    ("ago", &[RB]),
    ("soon", &[RB]),
    ("ever", &[RB]),
    ("perhaps", &[RB]),
    ("almost", &[RB]),
    ("quite", &[RB]),
    ("rather", &[RB]),
    ("really", &[RB]),
    ("else", &[RB]),
    ("however", &[RB]),
    ("maybe", &[RB]),
    ("once", &[RB]),
    ("twice", &[RB]),
    ("away", &[RB]),
    ("back", &[RB]),
    ("together", &[RB]),
    ("instead", &[RB]),
    ("well", &[RB]),
    ("later", &[RB]),
    ("not", &[RB]),
    ("please", &[UH]),
    ("yes", &[UH]),
    ("oh", &[UH]),
    // Adjectives and quantifiers.
    ("first", &[JJ]),
    ("second", &[JJ]),
    ("third", &[JJ]),
    ("fourth", &[JJ]),
    ("fifth", &[JJ]),
    ("last", &[JJ]),
    ("next", &[JJ]),
    ("other", &[JJ]),
    ("such", &[JJ]),
    ("many", &[JJ]),
    ("few", &[JJ]),
    ("several", &[JJ]),
    ("own", &[JJ]),
    ("same", &[JJ]),
    ("much", &[JJ, RB]),
    ("enough", &[JJ, RB]),
    ("more", &[JJR, RBR]),
    ("less", &[JJR, RBR]),
    ("fewer", &[JJR]),
    ("better", &[JJR, RBR]),
    ("worse", &[JJR, RBR]),
    ("most", &[JJS, RBS]),
    ("least", &[JJS, RBS]),
    ("best", &[JJS, RBS]),
    ("worst", &[JJS]),
    ("new", &[JJ]),
    ("related", &[JJ]),
    ("latest", &[JJS]),
    // Number words.
    ("one", &[CD]),
    ("two", &[CD]),
    ("three", &[CD]),
    ("four", &[CD]),
    ("five", &[CD]),
    ("six", &[CD]),
    ("seven", &[CD]),
    ("eight", &[CD]),
    ("nine", &[CD]),
    ("ten", &[CD]),
    ("eleven", &[CD]),
    ("twelve", &[CD]),
    ("twenty", &[CD]),
    ("thirty", &[CD]),
    ("forty", &[CD]),
    ("fifty", &[CD]),
    ("hundred", &[CD]),
    ("thousand", &[CD]),
    ("million", &[CD]),
    ("billion", &[CD]),
    ("trillion", &[CD]),
    // Nouns the lexicon misses or misclassifies, frequent on news pages.
    ("people", &[NNS]),
    ("children", &[NNS]),
    ("men", &[NNS]),
    ("women", &[NNS]),
    ("police", &[NNS]),
    ("news", &[NN]),
    ("government", &[NN]),
    ("copyright", &[NN]),
    ("home", &[NN, RB]),
    ("website", &[NN]),
    ("email", &[NN, VB]),
    ("species", &[NN, NNS]),
    ("series", &[NN, NNS]),
    // Days and months (capitalised or not).
    ("monday", &[NNP]),
    ("tuesday", &[NNP]),
    ("wednesday", &[NNP]),
    ("thursday", &[NNP]),
    ("friday", &[NNP]),
    ("saturday", &[NNP]),
    ("sunday", &[NNP]),
    ("january", &[NNP]),
    ("february", &[NNP]),
    ("march", &[NNP, NN, VB]),
    ("april", &[NNP]),
    ("june", &[NNP]),
    ("july", &[NNP]),
    ("august", &[NNP]),
    ("september", &[NNP]),
    ("october", &[NNP]),
    ("november", &[NNP]),
    ("december", &[NNP]),
];

/// Irregular verb forms: past tense and past participle, and base forms that are also past forms.
pub const IRREGULAR_VERBS: &[(&str, &[PosTag])] = &[
    ("said", &[VBD, VBN]),
    ("made", &[VBD, VBN]),
    ("went", &[VBD]),
    ("gone", &[VBN]),
    ("took", &[VBD]),
    ("taken", &[VBN]),
    ("came", &[VBD]),
    ("saw", &[VBD]),
    ("seen", &[VBN]),
    ("knew", &[VBD]),
    ("known", &[VBN]),
    ("got", &[VBD, VBN]),
    ("gotten", &[VBN]),
    ("gave", &[VBD]),
    ("given", &[VBN]),
    ("found", &[VBD, VBN]),
    ("thought", &[VBD, VBN]),
    ("told", &[VBD, VBN]),
    ("became", &[VBD]),
    ("left", &[VBD, VBN, JJ]),
    ("felt", &[VBD, VBN]),
    ("brought", &[VBD, VBN]),
    ("began", &[VBD]),
    ("begun", &[VBN]),
    ("kept", &[VBD, VBN]),
    ("held", &[VBD, VBN]),
    ("wrote", &[VBD]),
    ("written", &[VBN]),
    ("stood", &[VBD, VBN]),
    ("heard", &[VBD, VBN]),
    ("meant", &[VBD, VBN]),
    ("met", &[VBD, VBN]),
    ("ran", &[VBD]),
    ("paid", &[VBD, VBN]),
    ("sat", &[VBD, VBN]),
    ("spoke", &[VBD]),
    ("spoken", &[VBN]),
    ("led", &[VBD, VBN]),
    ("grew", &[VBD]),
    ("grown", &[VBN]),
    ("lost", &[VBD, VBN]),
    ("fell", &[VBD]),
    ("fallen", &[VBN]),
    ("sent", &[VBD, VBN]),
    ("built", &[VBD, VBN]),
    ("understood", &[VBD, VBN]),
    ("drew", &[VBD]),
    ("drawn", &[VBN]),
    ("broke", &[VBD]),
    ("broken", &[VBN]),
    ("spent", &[VBD, VBN]),
    ("rose", &[VBD]),
    ("risen", &[VBN]),
    ("drove", &[VBD]),
    ("driven", &[VBN]),
    ("bought", &[VBD, VBN]),
    ("wore", &[VBD]),
    ("worn", &[VBN]),
    ("chose", &[VBD]),
    ("chosen", &[VBN]),
    ("sought", &[VBD, VBN]),
    ("threw", &[VBD]),
    ("thrown", &[VBN]),
    ("caught", &[VBD, VBN]),
    ("dealt", &[VBD, VBN]),
    ("won", &[VBD, VBN]),
    ("sold", &[VBD, VBN]),
    ("fought", &[VBD, VBN]),
    ("flew", &[VBD]),
    ("flown", &[VBN]),
    ("forgot", &[VBD]),
    ("forgotten", &[VBN]),
    ("hid", &[VBD]),
    ("hidden", &[VBN]),
    ("shot", &[VBD, VBN, NN]),
    ("slept", &[VBD, VBN]),
    ("struck", &[VBD, VBN]),
    ("stole", &[VBD]),
    ("stolen", &[VBN]),
    ("taught", &[VBD, VBN]),
    ("ate", &[VBD]),
    ("eaten", &[VBN]),
    ("froze", &[VBD]),
    ("frozen", &[VBN]),
    ("rode", &[VBD]),
    ("ridden", &[VBN]),
    ("shook", &[VBD]),
    ("shaken", &[VBN]),
    ("sang", &[VBD]),
    ("sung", &[VBN]),
    ("fled", &[VBD, VBN]),
    ("laid", &[VBD, VBN]),
    ("become", &[VB, VBN, VBP]),
    ("come", &[VB, VBN, VBP]),
    ("run", &[VB, VBN, VBP, NN]),
    ("cut", &[VB, VBD, VBN, VBP, NN]),
    ("put", &[VB, VBD, VBN, VBP]),
    ("hit", &[VB, VBD, VBN, VBP, NN]),
    ("set", &[VB, VBD, VBN, VBP, NN]),
    ("let", &[VB, VBD, VBN, VBP]),
    ("read", &[VB, VBD, VBN, VBP]),
    ("spread", &[VB, VBD, VBN, VBP, NN]),
    ("cost", &[VB, VBD, VBN, VBP, NN]),
    ("hurt", &[VB, VBD, VBN, VBP]),
    ("shut", &[VB, VBD, VBN, VBP]),
    ("quit", &[VB, VBD, VBN, VBP]),
];

fn lexicon(table: &'static [(&'static str, &'static [PosTag])]) -> HashMap<&'static str, &'static [PosTag]> {
    table.iter().copied().collect()
}

fn closed_class() -> &'static HashMap<&'static str, &'static [PosTag]> {
    static MAP: OnceLock<HashMap<&'static str, &'static [PosTag]>> = OnceLock::new();
    MAP.get_or_init(|| lexicon(CLOSED_CLASS))
}

fn irregular() -> &'static HashMap<&'static str, &'static [PosTag]> {
    static MAP: OnceLock<HashMap<&'static str, &'static [PosTag]>> = OnceLock::new();
    MAP.get_or_init(|| lexicon(IRREGULAR_VERBS))
}

/// The part-of-speech tagger (see the module docs). Cheap to create; shareable across threads.
#[derive(Debug, Clone, Copy)]
pub struct Tagger {
    use_open_lexicon: bool,
}

impl Default for Tagger {
    fn default() -> Self {
        Tagger { use_open_lexicon: true }
    }
}

/// Candidate tags of words already seen, by word and by whether it started a sentence. Valid for
/// one [`Tagger`] configuration; start a new one per page or per thread.
#[derive(Debug, Default)]
pub struct TagCache(HashMap<String, [Option<Cands>; 2]>);

/// A token's candidate tags, most likely first: a small copyable list (never more than
/// [`Cands::MAX`]; the lexicons give at most six), so the cache hands them out without allocating.
#[derive(Debug, Clone, Copy)]
struct Cands {
    tags: [PosTag; Cands::MAX],
    len: u8,
}

impl Cands {
    const MAX: usize = 8;

    /// The first [`Cands::MAX`] tags of `tags`; `NN` alone if `tags` is empty.
    fn new(tags: &[PosTag]) -> Cands {
        let mut c = Cands { tags: [NN; Cands::MAX], len: 0 };
        for t in tags.iter().take(Cands::MAX) {
            c.tags[c.len as usize] = *t;
            c.len += 1;
        }
        if c.len == 0 {
            c.len = 1;
        }
        c
    }
}

impl std::ops::Deref for Cands {
    type Target = [PosTag];
    fn deref(&self) -> &[PosTag] {
        &self.tags[..self.len as usize]
    }
}

/// Open-class word classes, as the Wiktionary lexicon gives them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct OpenClasses {
    noun: bool,
    verb: bool,
    adjective: bool,
    adverb: bool,
}

impl OpenClasses {
    fn any(self) -> bool {
        self.noun || self.verb || self.adjective || self.adverb
    }
}

impl Tagger {
    /// The tagger without the Wiktionary open-class lexicon (closed-class lexicon, suffixes and
    /// context only), to measure what the lexicon buys.
    pub fn without_open_lexicon() -> Tagger {
        Tagger { use_open_lexicon: false }
    }

    /// One tag per token.
    pub fn tag(&self, tokens: &[Token]) -> Vec<PosTag> {
        self.tag_cached(tokens, &mut TagCache::default())
    }

    /// One tag per token, reusing the candidate lists of words seen before (a page's blocks
    /// repeat most of their words; the lexicon lookups are the tagger's main cost).
    pub fn tag_cached(&self, tokens: &[Token], cache: &mut TagCache) -> Vec<PosTag> {
        let cands: Vec<Cands> = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let start = is_sentence_start(tokens, i);
                if t.kind != TokenKind::Word {
                    return Cands::new(&self.candidates(t, start));
                }
                if let Some(c) = cache.0.get(t.text.as_str()).and_then(|slots| slots[start as usize]) {
                    return c;
                }
                let c = Cands::new(&self.candidates(t, start));
                cache.0.entry(t.text.clone()).or_default()[start as usize] = Some(c);
                c
            })
            .collect();
        let mut tags: Vec<PosTag> = Vec::with_capacity(tokens.len());
        for i in 0..tokens.len() {
            let ctx = Context { tokens, cands: &cands, tags: &tags, i };
            let tag = if cands[i].len() == 1 { cands[i][0] } else { choose(&ctx) };
            tags.push(tag);
        }
        tags
    }

    /// Candidate tags for one token, most likely first (never empty).
    fn candidates(&self, token: &Token, sentence_start: bool) -> Vec<PosTag> {
        match token.kind {
            TokenKind::Punct => vec![punct_tag(&token.text)],
            TokenKind::Number => vec![CD],
            TokenKind::Word => self.word_candidates(&token.text, sentence_start),
        }
    }

    fn word_candidates(&self, word: &str, sentence_start: bool) -> Vec<PosTag> {
        let lower = word.to_lowercase();
        let capitalised = word.chars().next().is_some_and(char::is_uppercase);
        if let Some(tags) = closed_class().get(lower.as_str()) {
            // Capitalised inside a sentence, a modal or a noun of the list is part of a name
            // (`in May`, `BBC News`); function words are not (`The Associated Press`).
            if capitalised && !sentence_start && matches!(tags[0], MD | NN | NNS) {
                return vec![NNP];
            }
            return tags.to_vec();
        }
        if lower.chars().any(|c| c.is_ascii_digit()) {
            // `34-year-old`, `2nd`, `mp3`: ordinals and number compounds modify nouns.
            return if lower.starts_with(|c: char| c.is_ascii_digit()) && lower.contains('-') { vec![JJ] } else { vec![CD, NN] };
        }
        if let Some(tags) = irregular().get(lower.as_str()) {
            if !capitalised || sentence_start {
                return tags.to_vec();
            }
        }
        let open = self.open_classes(&lower);
        if capitalised && sentence_start && !open.any() && self.plural_of_known_noun(&lower) {
            // `Residents were told`: the lexicon lists the singular only.
            return vec![NNS, VBZ];
        }
        if capitalised && (!sentence_start || !open.any()) {
            // Capitalised inside a sentence, or unknown to the lexicon: a name. (NNPS is left
            // to no rule: `Jones` and `Associated Press` look plural and are not.)
            return vec![NNP];
        }
        if open.any() {
            return open_candidates(&lower, open);
        }
        guess_from_suffix(&lower)
    }

    /// Whether `lower` is the plural of a noun the open-class lexicon has (`residents`).
    fn plural_of_known_noun(&self, lower: &str) -> bool {
        let singular = if let Some(stem) = lower.strip_suffix("ies") {
            format!("{stem}y")
        } else if let Some(stem) = lower.strip_suffix('s') {
            stem.to_string()
        } else {
            return false;
        };
        singular.len() > 2 && self.open_classes(&singular).noun
    }

    fn open_classes(&self, lower: &str) -> OpenClasses {
        if !self.use_open_lexicon {
            return OpenClasses::default();
        }
        let mut c = OpenClasses::default();
        if let Some(set) = ENGLISH_TAG_LOOKUP.get(lower) {
            for t in set.tags() {
                match t {
                    WikiTag::Noun => c.noun = true,
                    WikiTag::Verb => c.verb = true,
                    WikiTag::Adjective => c.adjective = true,
                    WikiTag::Adverb => c.adverb = true,
                    _ => {}
                }
            }
        }
        c
    }
}

/// Whether token `i` starts a sentence: the first word of the block, or the first word after
/// sentence-final punctuation (quotes and brackets between do not count).
fn is_sentence_start(tokens: &[Token], i: usize) -> bool {
    for t in tokens[..i].iter().rev() {
        match t.text.as_str() {
            "\"" | "'" | "(" | "[" => continue,
            "." | "!" | "?" | ":" | "|" => return true,
            _ => return false,
        }
    }
    true
}

fn punct_tag(p: &str) -> PosTag {
    let first = p.chars().next().unwrap_or(' ');
    match first {
        '.' if p.len() >= 3 => Colon,
        '.' | '!' | '?' => Period,
        ',' => Comma,
        ':' | ';' | '-' | '\u{2013}' | '\u{2014}' => Colon,
        '(' | '[' | '{' => LParen,
        ')' | ']' | '}' => RParen,
        '"' | '\'' | '`' | '\u{AB}' | '\u{BB}' => Quote,
        '$' | '\u{A3}' | '\u{20AC}' | '\u{A5}' => Dollar,
        '#' => Hash,
        '%' => NN,
        '&' => CC,
        _ => SYM,
    }
}

/// Penn candidates from the open classes of a word and its suffixes.
fn open_candidates(w: &str, c: OpenClasses) -> Vec<PosTag> {
    let mut out = Vec::new();
    let plural_like = w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is");
    // Order: the suffix says which reading is most likely; the lexicon says which exist.
    if c.adverb && w.ends_with("ly") {
        out.push(RB);
    }
    if c.verb {
        if w.ends_with("ing") {
            out.push(VBG);
        } else if w.ends_with("ed") {
            out.extend([VBD, VBN]);
        }
    }
    if c.noun {
        out.push(if plural_like { NNS } else { NN });
    }
    if c.verb && !w.ends_with("ing") && !w.ends_with("ed") {
        if plural_like {
            out.push(VBZ);
        } else {
            out.extend([VB, VBP]);
        }
    }
    if c.adjective {
        out.push(comparison(w));
    }
    if c.verb && w.ends_with("ing") {
        out.push(NN);
    }
    if c.adverb && !out.contains(&RB) {
        out.push(RB);
    }
    out.dedup();
    if out.is_empty() {
        out.push(NN);
    }
    out
}

/// `JJR` for `-er`, `JJS` for `-est` adjectives, else `JJ`.
fn comparison(w: &str) -> PosTag {
    if w.len() > 5 && w.ends_with("est") {
        JJS
    } else if w.len() > 4 && w.ends_with("ier") {
        JJR
    } else {
        JJ
    }
}

/// Candidates for a word no lexicon has, from its suffix.
fn guess_from_suffix(w: &str) -> Vec<PosTag> {
    const NOUN: &[&str] = &["tion", "sion", "ment", "ness", "ity", "ance", "ence", "ship", "ism", "ist", "age", "ery", "hood", "dom"];
    const ADJ: &[&str] = &["able", "ible", "al", "ful", "ous", "ive", "less", "ic", "ish", "ary", "ant", "ent"];
    if w.ends_with("ly") {
        return vec![RB, JJ];
    }
    if w.ends_with("ing") {
        return vec![VBG, NN, JJ];
    }
    if w.ends_with("ed") {
        return vec![VBD, VBN, JJ];
    }
    if w.contains('-') {
        return vec![JJ, NN];
    }
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        return vec![NNS, VBZ];
    }
    if w.len() > 5 && w.ends_with("est") {
        return vec![JJS];
    }
    if NOUN.iter().any(|s| w.ends_with(s)) {
        return vec![NN];
    }
    if ADJ.iter().any(|s| w.ends_with(s)) {
        return vec![JJ, NN];
    }
    // No telling suffix: most such words are nouns (the lexicon lacks `car`, `army`, `year`),
    // and the context rules find the verbs (`to jeopardize`).
    vec![NN, VB, VBP]
}

/// What the context rules see at token `i`: all candidates, and the tags chosen so far.
struct Context<'a> {
    tokens: &'a [Token],
    cands: &'a [Cands],
    tags: &'a [PosTag],
    i: usize,
}

impl Context<'_> {
    fn lower(&self) -> String {
        self.tokens[self.i].text.to_lowercase()
    }
    fn prev(&self) -> Option<PosTag> {
        self.i.checked_sub(1).map(|j| self.tags[j])
    }
    /// The previous tag, skipping adverbs (`has not yet been`).
    fn prev_skipping_adverbs(&self) -> Option<(usize, PosTag)> {
        (0..self.i).rev().map(|j| (j, self.tags[j])).find(|(_, t)| !matches!(t, RB | RBR | RBS))
    }
    fn next_cands(&self) -> &[PosTag] {
        self.cands.get(self.i + 1).map_or(&[], |c| &c[..])
    }
    fn next_first(&self) -> Option<PosTag> {
        self.next_cands().first().copied()
    }
    fn has(&self, t: PosTag) -> bool {
        self.cands[self.i].contains(&t)
    }
    fn first(&self) -> PosTag {
        self.cands[self.i][0]
    }
}

fn is_noun(t: PosTag) -> bool {
    matches!(t, NN | NNS | NNP | NNPS)
}

fn is_verb(t: PosTag) -> bool {
    matches!(t, VB | VBD | VBG | VBN | VBP | VBZ | MD)
}

/// Tags after which a noun phrase continues (`the`, `our`, `new`, `company 's`).
fn opens_noun_phrase(t: PosTag) -> bool {
    matches!(t, DT | PRPS | POS | JJ | JJR | JJS | CD | WPS | PDT)
}

const BE: &[&str] = &["be", "is", "are", "was", "were", "been", "being", "am", "'s", "'re", "'m"];
const HAVE: &[&str] = &["have", "has", "had", "having", "'ve"];
const GET: &[&str] = &["get", "gets", "got", "gotten", "getting"];
/// Adverbs of degree, after which an adjective reading beats a participle (`very pleased`).
const DEGREE: &[&str] = &["very", "so", "too", "quite", "rather", "really", "extremely", "fairly", "how"];
/// Linking verbs, after which an adjective reading beats a noun (`remain low`, `seems weak`).
const LINKING: &[&str] = &[
    "remain", "remains", "remained", "seem", "seems", "seemed", "become", "becomes", "became", "stay", "stays", "stayed", "appear", "appears", "appeared",
    "look", "looks", "looked", "feel", "feels", "sound", "sounds",
];

/// Picks one of several candidates from the context: Brill-style rules, first match wins.
fn choose(c: &Context) -> PosTag {
    let lower = c.lower();
    let prev = c.prev();
    let next = c.next_first();
    let next_nominal = c.next_cands().iter().any(|t| matches!(t, NN | NNS | NNP | NNPS | JJ | JJR | JJS | CD));
    match lower.as_str() {
        "that" => {
            return if prev.is_some_and(|p| is_verb(p) || p == IN) || prev.is_none() && !next_nominal {
                IN
            } else if prev.is_some_and(is_noun) && next.is_some_and(|n| is_verb(n) || n == MD) {
                WDT
            } else if next_nominal && !next.is_some_and(|n| matches!(n, PRP | DT)) {
                DT
            } else {
                IN
            };
        }
        "'s" => return if prev.is_some_and(|p| matches!(p, PRP | EX | WP | WDT | DT)) { VBZ } else { POS },
        "her" => return if next_nominal { PRPS } else { PRP },
        "there" => return if c.next_cands().iter().any(|t| matches!(t, VBZ | VBP | VBD | MD)) { EX } else { RB },
        "about" | "around" => return if next == Some(CD) { RB } else { IN },
        "more" | "less" | "most" | "least" | "better" | "best" => {
            let adj_next = c.next_cands().first().is_some_and(|t| matches!(t, JJ | RB | VBN));
            let comparative = matches!(lower.as_str(), "more" | "less" | "better");
            return match (adj_next, comparative) {
                (true, true) => RBR,
                (true, false) => RBS,
                (false, true) if next_nominal => JJR,
                (false, false) if next_nominal => JJS,
                (false, true) => {
                    if is_verb_like(prev) {
                        RBR
                    } else {
                        JJR
                    }
                }
                (false, false) => {
                    if is_verb_like(prev) {
                        RBS
                    } else {
                        JJS
                    }
                }
            };
        }
        _ => {}
    }
    if c.has(RP) {
        // `sign up for`, `set off`: after a verb a particle; else a preposition.
        return if prev.is_some_and(|p| is_verb(p) && p != MD) { RP } else { c.first() };
    }
    let adj = c.cands[c.i].iter().copied().find(|t| matches!(t, JJ | JJR | JJS));
    // After an adverb of degree (`very pleased`, `so close`), the adjective reading wins.
    let prev_word = c.i.checked_sub(1).map(|j| c.tokens[j].text.to_lowercase());
    if let (Some(a), Some(pw)) = (adj, prev_word.as_deref()) {
        if DEGREE.contains(&pw) || LINKING.contains(&pw) {
            return a;
        }
    }
    // After `to` or a modal (or `do`/`did` + `not`), a verb is a base form.
    if let Some((j, p)) = c.prev_skipping_adverbs() {
        let pw = c.tokens[j].text.to_lowercase();
        // `'s` is a form of be only where it was tagged as a verb (`it 's`, not `Lebanon 's`).
        let be = BE.contains(&pw.as_str()) && is_verb(p);
        let do_form = matches!(pw.as_str(), "do" | "does" | "did");
        if (p == TO || p == MD || do_form) && c.has(VB) {
            return VB;
        }
        if (p == TO || p == MD) && c.has(VBP) {
            return VB;
        }
        // An -ed form after have or be (or get) is a participle.
        if c.has(VBN) && (HAVE.contains(&pw.as_str()) || be || GET.contains(&pw.as_str())) {
            return VBN;
        }
        // A -ing form after be is a progressive verb.
        if c.has(VBG) && be {
            return VBG;
        }
        // After be or an adverb of degree, an adjective reading wins (`is clear`, `so close`).
        if (be || c.prev() == Some(RB)) && c.cands[c.i].iter().any(|t| matches!(t, JJ | JJR | JJS)) {
            return c.cands[c.i].iter().copied().find(|t| matches!(t, JJ | JJR | JJS)).unwrap_or(JJ);
        }
    }
    // Inside a noun phrase: adjective before a noun, else noun.
    if prev.is_some_and(opens_noun_phrase) || prev == Some(IN) {
        let adj = c.cands[c.i].iter().copied().find(|t| matches!(t, JJ | JJR | JJS));
        let noun = c.cands[c.i].iter().copied().find(|t| is_noun(*t));
        let next_noun = c.next_cands().iter().any(|t| matches!(t, NN | NNS | NNP | NNPS));
        if let (Some(a), true) = (adj, next_noun) {
            return a;
        }
        if let Some(n) = noun {
            return n;
        }
        if c.has(VBG) {
            return VBG;
        }
        if let Some(a) = adj {
            return a;
        }
    }
    let start = prev.is_none() || matches!(prev, Some(Period | Colon | Quote | SYM));
    // Sentence-initial verb forms: imperatives (`Click here`, `Send this`) and participles
    // heading a by-line (`Posted by`).
    if start {
        if c.has(VB) && c.next_cands().iter().any(|t| matches!(t, DT | RB | PRP | PRPS | RP | IN | TO)) {
            return VB;
        }
        if c.has(VBN) && c.tokens.get(c.i + 1).is_some_and(|t| t.text.eq_ignore_ascii_case("by")) {
            return VBN;
        }
        if let Some(n) = c.cands[c.i].iter().copied().find(|t| is_noun(*t)) {
            return n;
        }
    }
    // After a subject (noun or pronoun), a finite verb.
    let subject = prev.is_some_and(|p| is_noun(p) || p == PRP || p == WP || p == WDT);
    if subject {
        let third_singular = prev.is_some_and(|p| matches!(p, NN | NNP))
            || c.i.checked_sub(1).is_some_and(|j| matches!(c.tokens[j].text.to_lowercase().as_str(), "he" | "she" | "it"));
        if c.has(VBD) {
            return VBD;
        }
        if c.has(VBZ) && (third_singular || prev == Some(WP)) {
            // `interest rates will`: a plural noun before a modal or verb is still a noun; so is
            // one after a noun that follows a verb or preposition (`reduce carbon emissions`),
            // where the noun phrase is an object, not a subject.
            let verb_next = next.is_some_and(is_verb);
            let object_np = c.i >= 2 && (is_verb(c.tags[c.i - 2]) || matches!(c.tags[c.i - 2], IN | TO));
            if !verb_next && !object_np {
                return VBZ;
            }
        }
        if c.has(VBP) && !third_singular && !matches!(prev, Some(WDT)) {
            return VBP;
        }
    }
    // A past form after a clause (`, officials said`) or with a following by-phrase.
    if c.has(VBN) && c.tokens.get(c.i + 1).is_some_and(|t| t.text.eq_ignore_ascii_case("by")) {
        return VBN;
    }
    // Adjective directly before a noun.
    if c.cands[c.i].iter().any(|t| matches!(t, JJ | JJR | JJS)) && c.next_cands().first().is_some_and(|t| matches!(t, NN | NNS)) {
        if let Some(a) = c.cands[c.i].iter().copied().find(|t| matches!(t, JJ | JJR | JJS)) {
            return a;
        }
    }
    c.first()
}

fn is_verb_like(t: Option<PosTag>) -> bool {
    t.is_some_and(is_verb)
}

/// One sentence of a hand-tagged sample: its tokens and their gold tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaggedSentence {
    pub words: Vec<String>,
    pub tags: Vec<PosTag>,
}

/// A line of a hand-tagged sample that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct SampleError {
    pub line: usize,
    pub message: String,
}

/// Reads a hand-tagged sample: one sentence per line, `word/TAG` tokens separated by spaces,
/// `#` lines ignored. An item without a slash or with an unknown tag is an error naming the line.
pub fn parse_tagged(text: &str) -> Result<Vec<TaggedSentence>, SampleError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |message: String| SampleError { line: n + 1, message };
        let mut sentence = TaggedSentence { words: Vec::new(), tags: Vec::new() };
        for item in line.split_whitespace() {
            let (w, t) = item.rsplit_once('/').ok_or_else(|| err(format!("`{item}` is not word/TAG")))?;
            let tag = PosTag::from_name(t).ok_or_else(|| err(format!("unknown tag `{t}`")))?;
            sentence.words.push(w.to_string());
            sentence.tags.push(tag);
        }
        out.push(sentence);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexical::tokens::tokenize;

    fn tag(s: &str) -> Vec<&'static str> {
        Tagger::default().tag(&tokenize(s)).into_iter().map(PosTag::name).collect()
    }

    #[test]
    fn short_sentences() {
        assert_eq!(tag("The dog runs."), ["DT", "NN", "VBZ", "."]);
        assert_eq!(tag("She has written two books."), ["PRP", "VBZ", "VBN", "CD", "NNS", "."]);
        assert_eq!(tag("He wants to cut taxes"), ["PRP", "VBZ", "TO", "VB", "NNS"]);
        assert_eq!(tag("Click here"), ["VB", "RB"]);
        assert_eq!(tag("We watch BBC News in May"), ["PRP", "VBP", "NNP", "NNP", "IN", "NNP"]);
    }

    #[test]
    fn ratios_hand_counted() {
        // DT NN VBZ . : each a quarter; nouns 1/4, verbs 1/4, punctuation 1/4.
        let tags = Tagger::default().tag(&tokenize("The dog runs."));
        let r = tag_ratios(&tags);
        let at = |t: PosTag| r[PosTag::ALL.iter().position(|x| *x == t).unwrap()];
        assert_eq!((at(DT), at(NN), at(VBZ), at(Period), at(JJ)), (0.25, 0.25, 0.25, 0.25, 0.0));
        let agg = |name: &str| r[PosTag::ALL.len() + AGGREGATES.iter().position(|(n, _)| *n == name).unwrap()];
        assert_eq!((agg("noun"), agg("verb"), agg("punctuation"), agg("adjective")), (0.25, 0.25, 0.25, 0.0));
        assert!(tag_ratios(&[]).iter().all(|v| *v == 0.0));
    }

    #[test]
    fn tag_names_round_trip() {
        assert_eq!(PosTag::ALL.len(), 44);
        for (i, t) in PosTag::ALL.iter().enumerate() {
            assert_eq!(*t as usize, i, "ALL is in declaration order");
            assert_eq!(PosTag::from_name(t.name()), Some(*t));
        }
    }
}
