//! Tokens and stems: a block's text in, a list of [`Token`]s and their stems out.
//!
//! Input: a block's text as the divider gives it (visible text plus image `alt` text, whitespace
//! collapsed). Output: [`Token`]s in reading order, each a word, a number or a punctuation mark,
//! split the way the Penn Treebank splits text (so the part-of-speech tagger sees `do n't`,
//! `company 's`, `( 5 )`); and for each word or number its *stem*, the unit the TF×IDF weights and
//! the IDF table count.
//!
//! Stems: lower-cased, then stemmed with the Snowball English stemmer of `rust-stemmers`
//! (Porter2, Porter's own revision of his 1980 algorithm). The crate offers no implementation of
//! the original 1980 algorithm the paper names; Porter2 corrects a handful of its known errors
//! (`generously`, `news`/`new`), is what the crate maintains, and gives the same stems for the
//! usual suffixes (`running` → `run`, `caresses` → `caress`). Numbers are not stemmed but
//! replaced by their *shape*: `<year>` (1800–2099), `<time>` (`9:30`, `10:30:15`), `<num>` (any
//! other number, ordinal or numeric token such as `1,000`, `3.5`, `2nd`, `12/05`); addresses by
//! `<url>` and `<email>`. A page's numbers then share a few stems rather than spreading over
//! thousands of stems seen once.
//!
//! Invariants: tokenising never fails or panics (any string is accepted); a token's text is never
//! empty and never contains whitespace; [`TOKENISER_VERSION`] changes whenever the stems a text
//! yields change, because the shipped IDF table records the version it was counted with.

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};

/// Version of the tokeniser and stem normalisation. The IDF table records it; a table built with
/// another version is refused on load, since its stems would not match.
pub const TOKENISER_VERSION: u32 = 1;

/// Tokens longer than this many chars (runs of junk, base64 in alt text) become `<long>`.
const MAX_TOKEN_CHARS: usize = 40;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TokenKind {
    /// Has at least one letter (`news`, `e-mail`, `mp3`, `U.S.`, `n't`).
    Word,
    /// Digits with separators only (`2008`, `1,000`, `3.5`, `10:30`).
    Number,
    /// Neither: punctuation and symbols (`.`, `,`, `$`, `...`, `--`).
    Punct,
}

/// One token of a block's text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Token {
    /// The token as written (curly apostrophes straightened).
    pub text: String,
    pub kind: TokenKind,
}

/// Abbreviations that keep their final period (otherwise a trailing period is a sentence end).
const ABBREVIATIONS: &[&str] = &[
    "mr.", "mrs.", "ms.", "dr.", "prof.", "sr.", "jr.", "st.", "mt.", "inc.", "ltd.", "co.", "corp.", "vs.", "etc.", "jan.", "feb.", "mar.", "apr.", "jun.",
    "jul.", "aug.", "sep.", "sept.", "oct.", "nov.", "dec.", "gov.", "sen.", "rep.", "gen.", "col.", "lt.", "sgt.", "no.", "vol.", "p.m.", "a.m.", "u.s.",
    "u.k.", "e.g.", "i.e.",
];

/// Clitics split off the end of a word, Penn Treebank style (`don't` → `do n't`).
const CLITICS: &[&str] = &["n't", "'s", "'re", "'ve", "'ll", "'d", "'m"];

/// Splits a block's text into tokens (see the module docs).
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for chunk in text.split_whitespace() {
        let chunk = straighten_quotes(chunk);
        tokenize_chunk(&chunk, &mut out);
    }
    out
}

/// Replaces curly apostrophes and quotes by their ASCII forms so `don’t` splits like `don't`.
fn straighten_quotes(s: &str) -> Cow<'_, str> {
    if s.chars().any(|c| matches!(c, '\u{2018}' | '\u{2019}' | '\u{201C}' | '\u{201D}')) {
        Cow::Owned(
            s.chars()
                .map(|c| match c {
                    '\u{2018}' | '\u{2019}' => '\'',
                    '\u{201C}' | '\u{201D}' => '"',
                    c => c,
                })
                .collect(),
        )
    } else {
        Cow::Borrowed(s)
    }
}

/// Tokenises one whitespace-free chunk: leading punctuation, the core, trailing punctuation.
fn tokenize_chunk(chunk: &str, out: &mut Vec<Token>) {
    // A clitic already written apart (`city 's`, as in pre-tokenised text) stays one token.
    if CLITICS.iter().any(|c| chunk.eq_ignore_ascii_case(c)) {
        out.push(Token { text: chunk.to_string(), kind: TokenKind::Word });
        return;
    }
    let start = chunk.find(char::is_alphanumeric);
    let Some(start) = start else {
        push_punct_runs(chunk, out);
        return;
    };
    // The core ends after its last alphanumeric char, plus a final period for abbreviations.
    let end = chunk.rfind(char::is_alphanumeric).map_or(chunk.len(), |i| i + char_len(chunk, i));
    push_punct_runs(&chunk[..start], out);
    let mut core_end = end;
    if chunk[end..].starts_with('.') && is_abbreviation(&chunk[start..end + 1]) {
        core_end = end + 1;
    }
    push_core(&chunk[start..core_end], out);
    push_punct_runs(&chunk[core_end..], out);
}

fn char_len(s: &str, i: usize) -> usize {
    s[i..].chars().next().map_or(1, char::len_utf8)
}

fn is_abbreviation(word: &str) -> bool {
    let lower = word.to_lowercase();
    if ABBREVIATIONS.contains(&lower.as_str()) {
        return true;
    }
    // Single letters with periods: initials (`J.`) and acronyms (`U.N.`).
    let parts: Vec<&str> = lower.trim_end_matches('.').split('.').collect();
    parts.iter().all(|p| p.chars().count() == 1 && p.chars().all(char::is_alphabetic))
}

/// Pushes a run of punctuation, keeping repeated marks together (`...`, `--`, `!!`) and giving
/// every other mark its own token.
fn push_punct_runs(s: &str, out: &mut Vec<Token>) {
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let mut j = i + c.len_utf8();
        while let Some(&(k, d)) = chars.peek() {
            if d != c {
                break;
            }
            j = k + d.len_utf8();
            chars.next();
        }
        out.push(Token { text: s[i..j].to_string(), kind: TokenKind::Punct });
    }
}

/// Pushes the core of a chunk, splitting a clitic off its end.
fn push_core(core: &str, out: &mut Vec<Token>) {
    for clitic in CLITICS {
        let Some(cut) = core.len().checked_sub(clitic.len()) else { continue };
        if cut > 0 && core.is_char_boundary(cut) && core[cut..].eq_ignore_ascii_case(clitic) {
            push_word(&core[..cut], out);
            out.push(Token { text: core[cut..].to_string(), kind: TokenKind::Word });
            return;
        }
    }
    push_word(core, out);
}

fn push_word(w: &str, out: &mut Vec<Token>) {
    if w.is_empty() {
        return;
    }
    // No letters: digits and separators (the core starts and ends with an alphanumeric char).
    let kind = if w.chars().any(char::is_alphabetic) { TokenKind::Word } else { TokenKind::Number };
    out.push(Token { text: w.to_string(), kind });
}

/// Turns tokens into stems: one stem per word or number, punctuation dropped.
pub struct Stemming {
    stemmer: Stemmer,
}

impl Default for Stemming {
    fn default() -> Self {
        Stemming { stemmer: Stemmer::create(Algorithm::English) }
    }
}

impl Stemming {
    /// The stem of a token, or `None` for punctuation (see the module docs for shapes).
    pub fn stem(&self, token: &Token) -> Option<String> {
        match token.kind {
            TokenKind::Punct => None,
            TokenKind::Number => Some(number_shape(&token.text).to_string()),
            TokenKind::Word => Some(self.stem_word(&token.text)),
        }
    }

    /// Stems of every word and number of `text`, in order.
    pub fn stems(&self, text: &str) -> Vec<String> {
        tokenize(text).iter().filter_map(|t| self.stem(t)).collect()
    }

    fn stem_word(&self, word: &str) -> String {
        let lower = word.to_lowercase();
        if lower.chars().count() > MAX_TOKEN_CHARS {
            return "<long>".into();
        }
        if lower.contains('@') && lower.contains('.') {
            return "<email>".into();
        }
        if lower.starts_with("http") && lower.contains("://") || lower.starts_with("www.") {
            return "<url>".into();
        }
        if lower.chars().any(|c| c.is_ascii_digit()) {
            // Ordinals and numbers with units (`2nd`, `10am`, `5km`) are numbers to the reader;
            // other mixtures (`mp3`, `g8`) are names, kept whole.
            let digits_first = lower.chars().next().is_some_and(|c| c.is_ascii_digit());
            return if digits_first { "<num>".into() } else { lower };
        }
        // Apostrophes and periods inside words (`o'brien`, `u.s.`) do not change the stem.
        let cleaned: String = lower.chars().filter(|c| *c != '.').collect();
        if cleaned.is_empty() {
            return lower;
        }
        self.stemmer.stem(&cleaned).into_owned()
    }
}

/// The shape of a number token: `<year>`, `<time>` or `<num>`.
pub fn number_shape(text: &str) -> &'static str {
    let b = text.as_bytes();
    if b.len() == 4 && b.iter().all(u8::is_ascii_digit) && matches!(&text[..2], "18" | "19" | "20") {
        return "<year>";
    }
    let parts: Vec<&str> = text.split(':').collect();
    let is_time = (parts.len() == 2 || parts.len() == 3)
        && !parts[0].is_empty()
        && parts[0].len() <= 2
        && parts.iter().all(|p| p.bytes().all(|c| c.is_ascii_digit()))
        && parts[1..].iter().all(|p| p.len() == 2);
    if is_time {
        "<time>"
    } else {
        "<num>"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn porter_stems_known_answers() {
        let s = Stemming::default();
        for (word, stem) in [
            ("running", "run"),
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("cats", "cat"),
            ("relational", "relat"),
            ("Hopeful", "hope"),
            ("announced", "announc"),
            ("Newsletter", "newslett"),
        ] {
            let t = Token { text: word.into(), kind: TokenKind::Word };
            assert_eq!(s.stem(&t).as_deref(), Some(stem), "{word}");
        }
    }

    #[test]
    fn penn_style_splitting() {
        assert_eq!(texts("Don't (see) the company's \"news\"..."), ["Do", "n't", "(", "see", ")", "the", "company", "'s", "\"", "news", "\"", "..."]);
        assert_eq!(texts("Mr. Smith of the U.S. left."), ["Mr.", "Smith", "of", "the", "U.S.", "left", "."]);
        assert_eq!(texts("It cost $5,000 -- or 3.5%!"), ["It", "cost", "$", "5,000", "--", "or", "3.5", "%", "!"]);
        assert_eq!(texts("don’t"), ["do", "n't"]);
    }

    #[test]
    fn numbers_become_shapes() {
        let s = Stemming::default();
        assert_eq!(
            s.stems("In 2008 at 10:30 about 1,000 people, the 2nd time, bought mp3 players"),
            ["in", "<year>", "at", "<time>", "about", "<num>", "peopl", "the", "<num>", "time", "bought", "mp3", "player"]
        );
        assert_eq!(s.stems("Mail a@b.com or see www.example.com"), ["mail", "<email>", "or", "see", "<url>"]);
    }

    #[test]
    fn odd_input_does_not_panic() {
        for s in ["", " ", "...", "'", "'s", "n't", "\u{FFFC}", "ﬁ’s", "a'", "日本語のテキスト", "٣٤٥", "x.y.z."] {
            let _ = Stemming::default().stems(s);
        }
        assert_eq!(texts("'s 'x"), ["'s", "'", "x"]);
    }
}
