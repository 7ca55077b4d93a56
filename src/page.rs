//! Page loading: bytes in, parsed document out.
//!
//! Input: a file path (or bytes with a name). Output: a [`Page`] holding the decoded text's DOM
//! (html5ever through `scraper`), the SHA-256 of the bytes as read, and how the encoding was
//! decided.
//!
//! Encoding is decided the way browsers do, in this order: a byte-order mark, then a
//! `<meta charset>` or `<meta http-equiv="Content-Type" content="…; charset=…">` found by a
//! prescan of the first bytes, then a statistical guess (`chardetng`, the detector Firefox uses).
//! Two deliberate differences from browsers, because mojibake and replacement characters would
//! cost the lexical view its words: a page that declares UTF-8 but is not valid UTF-8 is decoded
//! with the statistical guess, and a page that declares a legacy encoding (often ISO-8859-1 in
//! 2008 news pages whose CMS had moved to UTF-8) but is valid UTF-8 with non-ASCII characters is
//! decoded as UTF-8.
//!
//! Invariants: nothing here panics or recurses over the input; hostile input (empty files, binary
//! junk, text without markup, named pipes and other non-regular files, inputs above the size
//! limit) is an error naming the file; gzip input (`.html.gz` or gzip magic) is decompressed
//! transparently, within the same size limit.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use encoding_rs::Encoding;
use sha2::{Digest, Sha256};

/// Limits applied while loading pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Largest page accepted, in bytes (after gzip decompression).
    pub max_bytes: usize,
    /// Deepest nesting of block-level elements kept; deeper start tags are dropped before
    /// parsing (see [`flatten_deep_nesting`]).
    pub max_nesting: usize,
    /// Most elements (start tags) kept; the page is cut before the first start tag beyond it
    /// (see [`truncate_elements`]).
    pub max_elements: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        // The largest page in ../shared/corpora is about 1.1 MB; 32 MiB leaves room for real
        // pages while refusing inputs that would only exhaust memory.
        // Chromium stops nesting its DOM at 512 levels for the same reason we do.
        // Every later stage (parsing, the cascade, the divider, the features and their output)
        // costs time and memory in proportion to the elements, and so the blocks, of a page:
        // MAX_ELEMENTS bounds them all (see its documentation for the corpora's figures).
        LoadOptions { max_bytes: 32 * 1024 * 1024, max_nesting: 512, max_elements: MAX_ELEMENTS }
    }
}

/// Why a page could not be loaded. Every variant names the page.
///
/// The I/O and gzip variants carry the underlying error as a field but not as an error
/// `source`: their message already includes it, and callers print error chains (`{:#}`), which
/// would say it twice.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PageError {
    #[error("{path}: cannot read: {error}{}", url_hint(path))]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{path}: not a regular file ({kind}); parcels reads pages from regular files only")]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{path}: page is empty")]
    Empty { path: PathBuf },
    #[error("{path}: page is {size} bytes, above the limit of {limit} bytes")]
    TooLarge { path: PathBuf, size: u64, limit: usize },
    #[error("{path}: page is more than {limit} bytes after decompression, above the limit")]
    TooLargeDecompressed { path: PathBuf, limit: usize },
    #[error("{path}: not HTML: {percent}% of the first {sample} bytes are control bytes (binary data?)")]
    Binary { path: PathBuf, percent: u32, sample: usize },
    #[error("{path}: not HTML: no markup (such as <html>, <body>, <p> or <div>) in the first {sample} characters")]
    NoMarkup { path: PathBuf, sample: usize },
    #[error("{path}: cannot decompress gzip data: {error}")]
    Gzip { path: PathBuf, error: std::io::Error },
}

/// A hint for a page argument that is a URL: parcels does not fetch pages.
fn url_hint(path: &Path) -> &'static str {
    let text = path.to_string_lossy().to_ascii_lowercase();
    if text.starts_with("http://") || text.starts_with("https://") {
        " (parcels reads saved files, not URLs: save the page first and give its file)"
    } else {
        ""
    }
}

/// What kind of non-regular file `t` is, for [`PageError::NotAFile`].
pub fn file_kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// How the character encoding of a page was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncodingSource {
    /// A UTF-8 or UTF-16 byte-order mark.
    Bom,
    /// A `<meta>` declaration found by the prescan.
    Meta,
    /// `chardetng`'s statistical guess (no usable declaration).
    Guess,
    /// A UTF-8 declaration contradicted by invalid UTF-8; `chardetng`'s guess was used.
    GuessOverMeta,
    /// A legacy declaration contradicted by bytes that are valid UTF-8 with non-ASCII
    /// characters; decoded as UTF-8.
    Utf8OverMeta,
    /// The charset of the HTTP `Content-Type` the page was served with (a page from a web
    /// archive): the HTML standard's transport-layer encoding, which comes before `<meta>`.
    Http,
}

/// A loaded page: the parsed document and what is known about its bytes.
pub struct Page {
    /// Where the page came from (a file path, or a name given by the caller).
    pub path: PathBuf,
    /// Lower-case hex SHA-256 of the bytes as read (before any gzip decompression): label files
    /// name pages by this checksum, so a changed page is detected rather than mislabelled.
    pub sha256: String,
    /// Size of the bytes as read.
    pub size: usize,
    /// The character encoding the page was decoded with.
    pub encoding: &'static Encoding,
    /// How that encoding was decided.
    pub encoding_source: EncodingSource,
    /// Whether decoding met malformed byte sequences (replaced by U+FFFD).
    pub decode_errors: bool,
    /// Repairs made to the text before parsing, beyond what the HTML standard does.
    pub repairs: Vec<Repair>,
    /// The parsed document (html5ever's tree builder, so malformed markup is repaired the way a
    /// browser repairs it).
    pub html: scraper::Html,
}

impl fmt::Debug for Page {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("path", &self.path)
            .field("sha256", &self.sha256)
            .field("size", &self.size)
            .field("encoding", &self.encoding.name())
            .field("encoding_source", &self.encoding_source)
            .finish_non_exhaustive()
    }
}

impl Page {
    /// Reads and parses the page at `path`. Only regular files are read (after following
    /// symbolic links): opening a named pipe would block the batch until something writes to
    /// it, and a device may never end.
    pub fn load(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<Page, PageError> {
        let path = path.as_ref();
        let io = |error| PageError::Io { path: path.to_path_buf(), error };
        // Checked before opening, because `open` itself blocks on a FIFO without a writer.
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(PageError::NotAFile { path: path.to_path_buf(), kind: file_kind(meta.file_type()) });
        }
        let file = std::fs::File::open(path).map_err(io)?;
        // Checked again on the open file: the path may have been replaced in between.
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(PageError::NotAFile { path: path.to_path_buf(), kind: file_kind(meta.file_type()) });
        }
        let size = meta.len();
        if size > opts.max_bytes as u64 {
            return Err(PageError::TooLarge { path: path.to_path_buf(), size, limit: opts.max_bytes });
        }
        let mut bytes = Vec::with_capacity(size as usize);
        // Read at most one byte past the limit: the file may have grown since `metadata`.
        file.take(opts.max_bytes as u64 + 1).read_to_end(&mut bytes).map_err(io)?;
        Page::from_bytes(path, &bytes, opts)
    }

    /// Parses a page from bytes; `path` only names it in errors and output.
    pub fn from_bytes(path: impl AsRef<Path>, bytes: &[u8], opts: &LoadOptions) -> Result<Page, PageError> {
        Page::from_served_bytes(path, bytes, None, opts)
    }

    /// Parses a page served over HTTP with the charset `transport` (from its `Content-Type`),
    /// which decides the encoding after a byte-order mark and before any `<meta>`, as in a
    /// browser; valid UTF-8 still wins over a legacy charset, as it does over `<meta>`.
    pub fn from_served_bytes(path: impl AsRef<Path>, bytes: &[u8], transport: Option<&'static Encoding>, opts: &LoadOptions) -> Result<Page, PageError> {
        let path = path.as_ref().to_path_buf();
        if bytes.len() > opts.max_bytes {
            return Err(PageError::TooLarge { path, size: bytes.len() as u64, limit: opts.max_bytes });
        }
        let sha256 = hex(&Sha256::digest(bytes));
        let size = bytes.len();
        let content: Cow<[u8]> = if bytes.starts_with(&[0x1f, 0x8b]) { Cow::Owned(gunzip(&path, bytes, opts.max_bytes)?) } else { Cow::Borrowed(bytes) };
        if content.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(PageError::Empty { path });
        }
        if let Some((percent, sample)) = looks_binary(&content) {
            return Err(PageError::Binary { path, percent, sample });
        }
        let (encoding, encoding_source) = match transport {
            Some(declared) if Encoding::for_bom(&content).is_none() => transport_encoding(&content, declared),
            _ => detect_encoding(&content),
        };
        let (text, used, decode_errors) = encoding.decode(&content);
        // A file holding only a byte-order mark (and whitespace) is as empty as an empty file.
        if text.trim_start_matches(|c: char| c == '\u{feff}' || c.is_whitespace()).is_empty() {
            return Err(PageError::Empty { path });
        }
        if !has_markup(&text) {
            return Err(PageError::NoMarkup { path, sample: SNIFF_CHARS });
        }
        let mut repairs = Vec::new();
        let mut text: Cow<str> = text;
        if let Some((closed, title, other)) = close_unterminated_raw_text(&text) {
            text = Cow::Owned(closed);
            if title {
                repairs.push(Repair::ClosedTitle);
            }
            if other {
                repairs.push(Repair::ClosedRawText);
            }
        }
        if let Some(bounded) = drop_extra_attributes(&text, MAX_ATTRIBUTES) {
            text = Cow::Owned(bounded);
            repairs.push(Repair::DroppedAttributes);
        }
        let (flat, cut) = bound_structure(&text, opts.max_nesting, opts.max_elements);
        if let Some(flat) = flat {
            text = Cow::Owned(flat);
            repairs.push(Repair::FlattenedNesting);
        }
        if let Some(cut) = cut {
            text = Cow::Owned(text[..cut].to_string());
            repairs.push(Repair::TruncatedElements);
        }
        let mut html = scraper::Html::parse_document(&text);
        if shown_words(&html) < NOSCRIPT_WORDS {
            let unscripted = parse_without_scripting(&text);
            if shown_words(&unscripted) >= NOSCRIPT_WORDS {
                html = unscripted;
                repairs.push(Repair::ReadNoscript);
            }
        }
        Ok(Page { path, sha256, size, encoding: used, encoding_source, decode_errors, repairs, html })
    }
}

/// A repair parcels made to a page's text before parsing (browsers do not make these).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Repair {
    /// A `<title>` without an appropriate `</title>` was closed at the first markup after it.
    /// Without this the whole page is title text (five L3S-GN1 pages were stored with their
    /// `</title>` cut off, yet their annotators saw and labelled the article; a 2008 crawl has
    /// `</titlevalue="true" -->`, which the tokenizer does not take for an end tag).
    ClosedTitle,
    /// A `<textarea>`, `<style>`, `<script>` or `<xmp>` without an appropriate end tag was
    /// closed at the first markup after it, for the same reason as [`Repair::ClosedTitle`].
    ClosedRawText,
    /// Block nesting deeper than [`LoadOptions::max_nesting`] was flattened.
    FlattenedNesting,
    /// The page shows fewer than [`NOSCRIPT_WORDS`] words without running its scripts, yet at
    /// least that many with its `<noscript>` elements shown, so it was read as a browser
    /// without scripting reads it: the `<noscript>` content is part of the page. Discourse forums serve their
    /// posts so to readers without JavaScript (19 WCXB dev pages, no page of L3S-GN1, Dragnet or
    /// CleanEval). parcels runs no scripts, so every other page is read as a browser with
    /// scripting reads it, `<noscript>` content hidden, as before.
    ReadNoscript,
    /// The page had more than [`LoadOptions::max_elements`] elements and was cut before the
    /// first start tag beyond them (the rest of the page is not read).
    TruncatedElements,
    /// A start tag had more than [`MAX_ATTRIBUTES`] attributes; the later ones were dropped.
    DroppedAttributes,
}

/// A page that shows fewer words than this outside `<noscript>` is read without scripting
/// when that shows at least as many ([`Repair::ReadNoscript`]).
pub const NOSCRIPT_WORDS: usize = 50;
/// Elements whose text a reader does not see. `<noscript>` content, parsed with scripting on,
/// is one text node holding markup; parsed without, its elements are unwrapped
/// ([`parse_without_scripting`]), so no `<noscript>` is left to hide.
const HIDDEN: &[&str] = &["script", "style", "template", "head", "noscript", "title"];

/// Words of the page's text outside the [`HIDDEN`] elements; counting stops at [`NOSCRIPT_WORDS`].
fn shown_words(html: &scraper::Html) -> usize {
    let mut words = 0;
    for node in html.tree.root().descendants() {
        let scraper::Node::Text(text) = node.value() else { continue };
        let seen = node.ancestors().all(|a| a.value().as_element().is_none_or(|e| !HIDDEN.contains(&e.name())));
        if seen {
            words += text.split_whitespace().count();
            if words >= NOSCRIPT_WORDS {
                break;
            }
        }
    }
    words
}

/// Parses a document as a browser with scripting disabled does: `<noscript>` content is
/// markup, not text, and shown. Each `<noscript>` element is then replaced by its children, so
/// that the divider, the style sheets and the views, which skip `<noscript>` as a scripted
/// browser hides it, see its content as the page's.
fn parse_without_scripting(text: &str) -> scraper::Html {
    use html5ever::tendril::TendrilSink;
    let opts = html5ever::ParseOpts {
        tree_builder: html5ever::tree_builder::TreeBuilderOpts { scripting_enabled: false, ..Default::default() },
        ..Default::default()
    };
    let mut html = html5ever::driver::parse_document(scraper::HtmlTreeSink::new(scraper::Html::new_document()), opts).one(text);
    let noscripts: Vec<ego_tree::NodeId> =
        html.tree.root().descendants().filter(|n| n.value().as_element().is_some_and(|e| e.name() == "noscript")).map(|n| n.id()).collect();
    for id in noscripts {
        let children: Vec<ego_tree::NodeId> = html.tree.get(id).into_iter().flat_map(|n| n.children()).map(|c| c.id()).collect();
        if let Some(mut noscript) = html.tree.get_mut(id) {
            for child in children {
                noscript.insert_id_before(child);
            }
            noscript.detach();
        }
    }
    html
}

/// Raw-text and RCDATA elements that swallow the rest of the page when their end tag is missing
/// or mangled, and so are closed by [`close_unterminated_raw_text`]. (`noscript`, `iframe`,
/// `noembed` and `noframes` are skipped over when closed but not repaired: their content is not
/// shown, so swallowing the page there is what browsers do too, and rarer.)
const REPAIRED_RAW_TEXT: &[&str] = &["title", "textarea", "style", "script", "xmp"];

/// Closes every `title`, `textarea`, `style`, `script` or `xmp` element that has no
/// *appropriate* end tag (`</name` followed by whitespace, `/` or `>`, as the HTML tokenizer
/// requires; `</titlevalue=…>` is not one), just before the first markup that follows its start
/// tag: any `<` for the RCDATA elements (`title`, `textarea`), a `<` followed by a letter, `/`
/// or `!` for the others (their text may hold comparisons). Returns the repaired text and
/// whether a title and whether another element was closed, or `None` (no copy) when the page
/// needs no repair.
///
/// Linear in the text: the search for each element name's end tag is remembered, so a page of
/// 200,000 unterminated `<script>x<p>` does not search the rest of the page 200,000 times (it
/// did: 2.4 MB took more than two minutes).
pub fn close_unterminated_raw_text(text: &str) -> Option<(String, bool, bool)> {
    const SKIPPED: &[&str] = &["noscript", "iframe", "noembed", "noframes"];
    let bytes = text.as_bytes();
    let mut inserts: Vec<(usize, &'static str)> = Vec::new();
    // Per name (REPAIRED_RAW_TEXT, then SKIPPED): the answer of the last search for its end tag
    // (the first one at or after where that search started, or none there). It still answers a
    // later search from `from` if it found nothing, or found a tag at or after `from`.
    let mut last_end: [Option<Option<usize>>; 9] = [None; 9];
    let mut i = 0;
    while let Some(off) = bytes.get(i..).and_then(|rest| rest.iter().position(|&b| b == b'<')) {
        let start = i + off;
        let rest = &bytes[start + 1..];
        if rest.starts_with(b"!--") {
            match find(bytes, start + 4, b"-->") {
                Some(e) => i = e + 3,
                None => break,
            }
            continue;
        }
        let name_len = rest.iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        let name = &rest[..name_len];
        let boundary = rest.get(name_len).is_none_or(|&b| tag_name_ends(b));
        if name_len == 0 || !boundary {
            i = start + 1;
            continue;
        }
        let Some(slot) = REPAIRED_RAW_TEXT.iter().chain(SKIPPED).position(|n| n.as_bytes().eq_ignore_ascii_case(name)) else {
            i = start + 1 + name_len;
            continue;
        };
        let repaired = REPAIRED_RAW_TEXT.get(slot);
        let Some(open_end) = find(bytes, start, b">").map(|e| e + 1) else { break };
        let close = match last_end[slot] {
            Some(known) if known.is_none_or(|at| at >= open_end) => known,
            _ => find_end_tag(bytes, open_end, name),
        };
        last_end[slot] = Some(close);
        if let Some(close) = close {
            i = close + 2 + name_len;
            continue;
        }
        let Some(&element) = repaired else {
            i = open_end;
            continue;
        };
        let rcdata = matches!(element, "title" | "textarea");
        let markup = bytes[open_end..]
            .iter()
            .enumerate()
            .position(|(k, &b)| b == b'<' && (rcdata || bytes.get(open_end + k + 1).is_some_and(|&n| n.is_ascii_alphabetic() || n == b'/' || n == b'!')));
        let insert_at = markup.map_or(bytes.len(), |p| p + open_end);
        inserts.push((insert_at, element));
        i = insert_at;
    }
    if inserts.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 12 * inserts.len());
    let mut at = 0;
    for &(pos, name) in &inserts {
        out.push_str(&text[at..pos]);
        out.push_str("</");
        out.push_str(name);
        out.push('>');
        at = pos;
    }
    out.push_str(&text[at..]);
    let title = inserts.iter().any(|&(_, n)| n == "title");
    let other = inserts.iter().any(|&(_, n)| n != "title");
    Some((out, title, other))
}

/// Whether `b` ends a tag name in the HTML tokenizer (whitespace, `/` or `>`).
fn tag_name_ends(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>')
}

/// How many characters at the start of a page [`has_markup`] looks at.
pub const SNIFF_CHARS: usize = 16 * 1024;

/// Tags whose presence makes a text a page. The WHATWG MIME sniffing standard's "text/html"
/// patterns (which it looks for only at the very start), plus common body tags: pages of 2008
/// often open with a long run of text or server-side junk before their first tag.
const SNIFF_TAGS: &[&str] = &[
    "!doctype", "html", "head", "body", "title", "meta", "link", "script", "style", "iframe", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "div", "p", "br",
    "hr", "table", "tr", "td", "a", "b", "i", "em", "strong", "font", "span", "center", "ul", "ol", "li", "img", "form", "article", "section", "header", "nav",
    "main", "noscript", "base",
];

/// Whether `text` looks like HTML: one of `SNIFF_TAGS` (a tag name followed by whitespace,
/// `/` or `>`) or a comment (`<!--`, as in the WHATWG patterns) within its first
/// [`SNIFF_CHARS`] characters. A configuration file, a log or a plain-text document has none,
/// and dividing it would give one block holding the whole file.
pub fn has_markup(text: &str) -> bool {
    let end = text.char_indices().nth(SNIFF_CHARS).map_or(text.len(), |(i, _)| i);
    let bytes = &text.as_bytes()[..end];
    bytes.iter().enumerate().filter(|&(_, &b)| b == b'<').any(|(at, _)| {
        let rest = &bytes[at + 1..];
        rest.starts_with(b"!--") || SNIFF_TAGS.iter().any(|tag| starts_with_ci(rest, tag.as_bytes()) && rest.get(tag.len()).is_none_or(|&b| tag_name_ends(b)))
    })
}

/// Block-level elements whose start tag makes html5ever look for an open `<p>` through the whole
/// stack of open elements ("close a p element in button scope"): nested without end, they make
/// parsing quadratic (100,000 nested `<div>` take half a minute).
const SCOPE_SCANNING: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "main",
    "menu",
    "nav",
    "ol",
    "section",
    "summary",
    "ul",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "listing",
    "form",
];

/// Elements whose content is raw text: no tags inside them are counted.
const RAW_TEXT: &[&str] = &["script", "style", "textarea", "title", "xmp", "noscript", "iframe", "noembed", "noframes"];

/// A start or end tag found by [`TagScan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ScannedTag<'a> {
    /// Offset of its `<`.
    start: usize,
    /// Offset just past its `>` (the end of the text if it has none).
    end: usize,
    closing: bool,
    /// The name as written (ASCII letters and digits, starting with a letter).
    name: &'a [u8],
}

/// The light tokenizer behind [`flatten_deep_nesting`] and [`truncate_elements`]: the start and
/// end tags of a text in order, where a tag is `<` or `</` followed by an ASCII letter (as in
/// the HTML tokenizer) and ends at the first `>` after its name. Comments are skipped, and so is
/// the content of a raw-text element (`RAW_TEXT`) up to its appropriate end tag (the parser
/// takes no tags inside them either).
struct TagScan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> TagScan<'a> {
    fn new(text: &'a str) -> TagScan<'a> {
        TagScan { bytes: text.as_bytes(), at: 0 }
    }
}

impl<'a> Iterator for TagScan<'a> {
    type Item = ScannedTag<'a>;

    fn next(&mut self) -> Option<ScannedTag<'a>> {
        let bytes = self.bytes;
        loop {
            let start = self.at + bytes.get(self.at..)?.iter().position(|&b| b == b'<')?;
            let rest = &bytes[start + 1..];
            if rest.starts_with(b"!--") {
                self.at = find(bytes, start + 4, b"-->").map_or(bytes.len(), |e| e + 3);
                continue;
            }
            let closing = rest.first() == Some(&b'/');
            let name_start = start + 1 + usize::from(closing);
            if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
                self.at = start + 1;
                continue;
            }
            let name_len = bytes[name_start..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
            let name = &bytes[name_start..name_start + name_len];
            let after_name = name_start + name_len;
            let end = bytes[after_name..].iter().position(|&b| b == b'>').map_or(bytes.len(), |e| after_name + e + 1);
            self.at = if !closing && is_one_of(name, RAW_TEXT) { find_end_tag(bytes, end, name).unwrap_or(bytes.len()) } else { end };
            return Some(ScannedTag { start, end, closing, name });
        }
    }
}

/// Whether a tag name is one of `names` (lower case), in any case.
fn is_one_of(name: &[u8], names: &[&str]) -> bool {
    names.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(name))
}

/// Drops start tags of block-level elements nested deeper than `limit`, and as many of their end
/// tags, before parsing; returns `None` (no copy) when the page nests no deeper. Browsers bound
/// the DOM depth the same way (Chromium at 512); no real page comes near it, while a hostile one
/// nested 100,000 deep would make the parser quadratic. The scan is `TagScan`'s light
/// tokenizer, counting only the elements in `SCOPE_SCANNING`.
pub fn flatten_deep_nesting(text: &str, limit: usize) -> Option<String> {
    let (cuts, _) = scan_structure(text, limit, usize::MAX);
    apply_cuts(text, &cuts)
}

/// One pass of [`TagScan`] for both bounds: the tags [`flatten_deep_nesting`] drops (as byte
/// ranges), and where [`truncate_elements`] would cut the text as it is (ignoring the drops).
fn scan_structure(text: &str, max_nesting: usize, max_elements: usize) -> (Vec<(usize, usize)>, Option<usize>) {
    let (mut depth, mut dropped, mut count) = (0usize, 0usize, 0usize);
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut cut_at = None;
    for tag in TagScan::new(text) {
        if !tag.closing {
            if count == max_elements && cut_at.is_none() {
                cut_at = Some(tag.start);
            }
            count += 1;
        }
        if !is_one_of(tag.name, SCOPE_SCANNING) {
            continue;
        }
        if tag.closing {
            if dropped > 0 {
                dropped -= 1;
                cuts.push((tag.start, tag.end));
            } else {
                depth = depth.saturating_sub(1);
            }
        } else if !text.as_bytes()[..tag.end].ends_with(b"/>") {
            if depth >= max_nesting {
                dropped += 1;
                cuts.push((tag.start, tag.end));
            } else {
                depth += 1;
            }
        }
    }
    (cuts, cut_at)
}

/// `text` without the byte ranges `cuts` (increasing, disjoint, on tag boundaries); `None` (no
/// copy) when there are none.
fn apply_cuts(text: &str, cuts: &[(usize, usize)]) -> Option<String> {
    if cuts.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(s, e) in cuts {
        out.push_str(&text[at..s]);
        at = e;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// [`flatten_deep_nesting`] then [`truncate_elements`] in one scan of the text when nothing is
/// flattened (every real page): the flattened text, whether it was flattened, and the cut.
fn bound_structure(text: &str, max_nesting: usize, max_elements: usize) -> (Option<String>, Option<usize>) {
    let (cuts, cut_at) = scan_structure(text, max_nesting, max_elements);
    match apply_cuts(text, &cuts) {
        Some(flat) => {
            let cut_at = truncate_elements(&flat, max_elements);
            (Some(flat), cut_at)
        }
        None => (None, cut_at),
    }
}

/// Most attributes kept on one start tag; later ones are dropped before parsing
/// ([`Repair::DroppedAttributes`]). html5ever drops a repeated attribute name by comparing each
/// new attribute with every earlier one of its tag, so a tag's attributes cost quadratic time:
/// 200,000 attributes on one `<p>` (1.8 MB) took 23 s to parse, and a 32 MiB page could hold
/// millions. With this bound a page costs at most its attributes × 512 comparisons: a 32 MiB page
/// of 9,636 tags with 512 attributes each (4.9 million) takes `parcels divide` 1.9 s and 626 MB. The most any element of the shared corpora's 3,432 pages
/// carries is 205, by Python's `html.parser`: a Dragnet page (R218) whose broken quotes turn a
/// reader's comment into attribute names; 512 leaves room for such pages.
pub const MAX_ATTRIBUTES: usize = 512;

/// Drops the attributes of each start tag beyond the first `max`, from the start of the first
/// extra attribute to the tag's `>`; `None` (no copy) when no tag has more. Start tags are found
/// as in the HTML tokenizer (`<` and an ASCII letter), outside comments and outside the content
/// of raw-text elements; attributes are read with the tokenizer's rules (a name runs to
/// whitespace, `/`, `>` or `=`; a value is quoted or runs to whitespace or `>`), so a `>` inside
/// a quoted value does not end the tag. Linear in the text.
pub fn drop_extra_attributes(text: &str, max: usize) -> Option<String> {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let space = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while let Some(off) = bytes.get(i..).and_then(|rest| rest.iter().position(|&b| b == b'<')) {
        let start = i + off;
        if bytes[start + 1..].starts_with(b"!--") {
            i = find(bytes, start + 4, b"-->").map_or(n, |e| e + 3);
            continue;
        }
        if !bytes.get(start + 1).is_some_and(u8::is_ascii_alphabetic) {
            i = start + 1;
            continue;
        }
        let name_end = start + 1 + bytes[start + 1..].iter().take_while(|&&b| !space(b) && b != b'/' && b != b'>').count();
        let name = &bytes[start + 1..name_end];
        // The attributes, up to the `>` that ends the tag.
        let (mut j, mut count, mut cut_from) = (name_end, 0usize, None);
        while j < n && bytes[j] != b'>' {
            if space(bytes[j]) || bytes[j] == b'/' {
                j += 1;
                continue;
            }
            count += 1;
            if count == max + 1 {
                cut_from = Some(j);
            }
            // The name (its first character may be `=`), then an optional value.
            j += 1;
            while j < n && !space(bytes[j]) && !matches!(bytes[j], b'/' | b'>' | b'=') {
                j += 1;
            }
            let mut k = j;
            while k < n && space(bytes[k]) {
                k += 1;
            }
            if k < n && bytes[k] == b'=' {
                k += 1;
                while k < n && space(bytes[k]) {
                    k += 1;
                }
                match bytes.get(k) {
                    Some(&q @ (b'"' | b'\'')) => k = bytes[k + 1..].iter().position(|&b| b == q).map_or(n, |e| k + 2 + e),
                    _ => {
                        while k < n && !space(bytes[k]) && bytes[k] != b'>' {
                            k += 1;
                        }
                    }
                }
                j = k;
            }
        }
        if let Some(from) = cut_from {
            cuts.push((from, j));
        }
        let end = (j + 1).min(n);
        i = if is_one_of(name, RAW_TEXT) { find_end_tag(bytes, end, name).unwrap_or(n) } else { end };
    }
    apply_cuts(text, &cuts)
}

/// Default [`LoadOptions::max_elements`]: 100,000 start tags (the parser may add the implied
/// `html`, `head` and `body`). The largest of the 3,432 pages of the shared corpora has 15,797
/// elements (2,715 blocks, 808 cells in a table, 56 levels of nesting), so no real page comes
/// near it; it bounds what a hostile page can cost: a million sibling `<p>x</p>` (8 MB) took
/// 11.75 GB and 106 s in `parcels features --view stylistic`. A page's blocks, a table's cells
/// and the inline nesting depth are all bounded by it (block nesting is bounded further by
/// [`LoadOptions::max_nesting`]).
pub const MAX_ELEMENTS: usize = 100_000;

/// The byte offset of the start tag after the first `limit` ones, where the page is cut to keep
/// `limit` elements; `None` when the page has no more (no copy is made). The scan is
/// `TagScan`'s light tokenizer: comments and the content of raw-text elements are skipped, and
/// a start tag is a `<` followed by an ASCII letter.
pub fn truncate_elements(text: &str, limit: usize) -> Option<usize> {
    TagScan::new(text).filter(|t| !t.closing).nth(limit).map(|t| t.start)
}

/// Position of the next appropriate end tag `</name` (any case, followed by whitespace, `/`,
/// `>` or the end of the text) at or after `from`.
fn find_end_tag(hay: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut i = from;
    while let Some(off) = hay.get(i..)?.iter().position(|&b| b == b'<') {
        let at = i + off;
        let rest = &hay[at + 1..];
        if rest.first() == Some(&b'/')
            && rest.len() > name.len()
            && rest[1..=name.len()].eq_ignore_ascii_case(name)
            && rest.get(name.len() + 1).is_none_or(|&b| tag_name_ends(b))
        {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

fn gunzip(path: &Path, bytes: &[u8], limit: usize) -> Result<Vec<u8>, PageError> {
    let mut out = Vec::new();
    let mut decoder = flate2::read::MultiGzDecoder::new(bytes).take(limit as u64 + 1);
    decoder.read_to_end(&mut out).map_err(|error| PageError::Gzip { path: path.to_path_buf(), error })?;
    if out.len() > limit {
        // Decompression stopped one byte past the limit, so the true size is unknown.
        return Err(PageError::TooLargeDecompressed { path: path.to_path_buf(), limit });
    }
    Ok(out)
}

/// Lower-case hexadecimal of a digest.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Share of C0 control bytes (other than tab, newline, form feed, carriage return and escape)
/// in the first 8 KiB above which a file is taken for binary data. Text pages in the corpora
/// have none or a handful (stray NULs); images, archives and executables have 10–30%.
const BINARY_CONTROL_SHARE: f64 = 0.10;
const BINARY_SAMPLE: usize = 8192;

fn looks_binary(bytes: &[u8]) -> Option<(u32, usize)> {
    // UTF-16 text is full of NULs but is text; a BOM says so.
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return None;
    }
    let sample = &bytes[..bytes.len().min(BINARY_SAMPLE)];
    let controls = sample.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | 0x1b)).count();
    let share = controls as f64 / sample.len() as f64;
    (share > BINARY_CONTROL_SHARE).then(|| ((share * 100.0).round() as u32, sample.len()))
}

/// How many bytes the `<meta>` prescan looks at. The HTML standard says 1024; pages of 2008
/// often put a long comment or script before their `<meta>`, and browsers then re-decode when
/// the tree builder meets it, so we look further.
const PRESCAN_BYTES: usize = 16 * 1024;

/// Decides the encoding of `bytes`: BOM, then `<meta>` prescan, then a statistical guess.
pub fn detect_encoding(bytes: &[u8]) -> (&'static Encoding, EncodingSource) {
    if let Some((enc, _)) = Encoding::for_bom(bytes) {
        return (enc, EncodingSource::Bom);
    }
    if let Some(declared) = prescan_meta(&bytes[..bytes.len().min(PRESCAN_BYTES)]) {
        // The standard maps UTF-16 declarations in a byte stream without BOM to UTF-8, and
        // `x-user-defined` to windows-1252.
        let declared = if declared == encoding_rs::UTF_16LE || declared == encoding_rs::UTF_16BE {
            encoding_rs::UTF_8
        } else if declared == encoding_rs::X_USER_DEFINED {
            encoding_rs::WINDOWS_1252
        } else {
            declared
        };
        let valid_utf8 = std::str::from_utf8(bytes).is_ok();
        if declared == encoding_rs::UTF_8 {
            return if valid_utf8 { (declared, EncodingSource::Meta) } else { (guess(bytes), EncodingSource::GuessOverMeta) };
        }
        // Multi-byte UTF-8 sequences almost never arise by chance in legacy-encoded text, so
        // valid UTF-8 with non-ASCII bytes is UTF-8 whatever the page claims.
        if valid_utf8 && !bytes.is_ascii() && declared.is_ascii_compatible() {
            return (encoding_rs::UTF_8, EncodingSource::Utf8OverMeta);
        }
        return (declared, EncodingSource::Meta);
    }
    (guess(bytes), EncodingSource::Guess)
}

/// The encoding of bytes served with the charset `declared`: the declaration, unless it is a
/// legacy one contradicted by valid UTF-8 with non-ASCII characters, or UTF-8 contradicted by
/// invalid bytes (then the statistical guess).
fn transport_encoding(bytes: &[u8], declared: &'static Encoding) -> (&'static Encoding, EncodingSource) {
    let valid_utf8 = std::str::from_utf8(bytes).is_ok();
    if declared == encoding_rs::UTF_8 || declared == encoding_rs::UTF_16LE || declared == encoding_rs::UTF_16BE {
        return if valid_utf8 { (encoding_rs::UTF_8, EncodingSource::Http) } else { (guess(bytes), EncodingSource::GuessOverMeta) };
    }
    if valid_utf8 && !bytes.is_ascii() && declared.is_ascii_compatible() {
        return (encoding_rs::UTF_8, EncodingSource::Utf8OverMeta);
    }
    (declared, EncodingSource::Http)
}

fn guess(bytes: &[u8]) -> &'static Encoding {
    // Valid UTF-8 is what chardetng would answer, at a fraction of the cost.
    if std::str::from_utf8(bytes).is_ok() {
        return encoding_rs::UTF_8;
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    detector.guess(None, chardetng::Utf8Detection::Allow)
}

/// Finds the first `<meta>` that declares a character encoding (the standard's "prescan a byte
/// stream to determine its encoding", simplified: comments are skipped, attributes are parsed
/// with or without quotes).
fn prescan_meta(bytes: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"<!--") {
            i = find(bytes, i + 4, b"-->").map_or(bytes.len(), |end| end + 3);
            continue;
        }
        if bytes[i] == b'<' && starts_with_ci(&bytes[i + 1..], b"meta") {
            let end = find(bytes, i, b">").unwrap_or(bytes.len());
            if let Some(enc) = meta_charset(&bytes[i + 5..end]) {
                return Some(enc);
            }
            i = end;
            continue;
        }
        i += 1;
    }
    None
}

fn meta_charset(attrs: &[u8]) -> Option<&'static Encoding> {
    let mut charset = None;
    let mut content = None;
    for (name, value) in parse_attributes(attrs) {
        match name.to_ascii_lowercase().as_slice() {
            b"charset" => charset = charset.or_else(|| Encoding::for_label(value.trim_ascii())),
            b"content" => content = Some(value),
            _ => {}
        }
    }
    // Browsers accept a charset in `content` even without `http-equiv="Content-Type"`; so do we.
    charset.or_else(|| content.and_then(charset_from_content))
}

/// The `charset=` parameter of a `Content-Type` value.
fn charset_from_content(content: &[u8]) -> Option<&'static Encoding> {
    let lower = content.to_ascii_lowercase();
    let at = find(&lower, 0, b"charset")?;
    let mut rest = lower[at + 7..].trim_ascii_start();
    rest = rest.strip_prefix(b"=")?.trim_ascii_start();
    let rest = rest.strip_prefix(b"\"").or_else(|| rest.strip_prefix(b"'")).unwrap_or(rest);
    let end = rest.iter().position(|&b| matches!(b, b'"' | b'\'' | b';') || b.is_ascii_whitespace()).unwrap_or(rest.len());
    Encoding::for_label(&rest[..end])
}

/// Splits `name=value` pairs of a tag's attribute text (values quoted or not).
fn parse_attributes(s: &[u8]) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    let n = s.len();
    while i < n {
        while i < n && (s[i].is_ascii_whitespace() || s[i] == b'/') {
            i += 1;
        }
        let start = i;
        while i < n && !s[i].is_ascii_whitespace() && s[i] != b'=' && s[i] != b'/' {
            i += 1;
        }
        let name = &s[start..i];
        while i < n && s[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value: &[u8] = b"";
        if i < n && s[i] == b'=' {
            i += 1;
            while i < n && s[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < n && (s[i] == b'"' || s[i] == b'\'') {
                let q = s[i];
                let vstart = i + 1;
                let vend = s[vstart..].iter().position(|&b| b == q).map_or(n, |p| vstart + p);
                value = &s[vstart..vend];
                i = (vend + 1).min(n);
            } else {
                let vstart = i;
                while i < n && !s[i].is_ascii_whitespace() {
                    i += 1;
                }
                value = &s[vstart..i];
            }
        }
        if !name.is_empty() {
            out.push((name, value));
        } else if i == start {
            i += 1;
        }
    }
    out
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from >= hay.len() {
        return None;
    }
    hay[from..].windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

fn starts_with_ci(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(bytes: &[u8]) -> Result<Page, PageError> {
        Page::from_bytes("t.html", bytes, &LoadOptions::default())
    }

    fn body_text(page: &Page) -> String {
        let sel = scraper::Selector::parse("body").unwrap();
        page.html.select(&sel).next().map(|b| b.text().collect()).unwrap_or_default()
    }

    #[test]
    fn meta_charset_latin1_is_windows_1252() {
        let page = load(b"<html><head><meta charset=\"ISO-8859-1\"></head><body>caf\xe9 \x93q\x94</body>").unwrap();
        assert_eq!(page.encoding, encoding_rs::WINDOWS_1252);
        assert_eq!(page.encoding_source, EncodingSource::Meta);
        assert_eq!(body_text(&page), "café \u{201c}q\u{201d}");
    }

    #[test]
    fn http_equiv_content_type() {
        let page = load(b"<meta http-equiv=Content-Type content='text/html; charset=windows-1251'><p>\xcf\xf0\xe8").unwrap();
        assert_eq!(page.encoding, encoding_rs::WINDOWS_1251);
        assert_eq!(body_text(&page), "При");
    }

    #[test]
    fn http_charset_comes_before_meta_and_after_the_bom() {
        let served = |bytes: &[u8], charset| Page::from_served_bytes("t.html", bytes, Some(charset), &LoadOptions::default()).unwrap();
        // Transport beats <meta>: the bytes are Latin-1 whatever the page claims.
        let page = served(b"<meta charset=utf-8><p>caf\xe9", encoding_rs::WINDOWS_1252);
        assert_eq!((page.encoding, page.encoding_source), (encoding_rs::WINDOWS_1252, EncodingSource::Http));
        assert_eq!(body_text(&page), "café");
        // Valid UTF-8 with non-ASCII wins over a legacy transport charset, as over <meta>.
        let page = served("<p>café".as_bytes(), encoding_rs::WINDOWS_1252);
        assert_eq!((page.encoding, page.encoding_source), (encoding_rs::UTF_8, EncodingSource::Utf8OverMeta));
        // A BOM beats everything.
        let page = served(b"\xef\xbb\xbf<p>caf\xc3\xa9", encoding_rs::WINDOWS_1251);
        assert_eq!((page.encoding, page.encoding_source), (encoding_rs::UTF_8, EncodingSource::Bom));
    }

    #[test]
    fn bom_beats_meta() {
        let page = load(b"\xef\xbb\xbf<meta charset=iso-8859-1><p>caf\xc3\xa9").unwrap();
        assert_eq!(page.encoding, encoding_rs::UTF_8);
        assert_eq!(page.encoding_source, EncodingSource::Bom);
        assert_eq!(body_text(&page), "café");
    }

    #[test]
    fn utf16_bom() {
        let mut bytes = vec![0xff, 0xfe];
        for u in "<p>héllo".encode_utf16() {
            bytes.extend_from_slice(&u.to_le_bytes());
        }
        let page = load(&bytes).unwrap();
        assert_eq!(page.encoding, encoding_rs::UTF_16LE);
        assert_eq!(body_text(&page), "héllo");
    }

    #[test]
    fn undeclared_utf8_is_guessed() {
        let page = load("<p>Zürich, São Paulo, naïve café — “quoted”</p>".as_bytes()).unwrap();
        assert_eq!(page.encoding, encoding_rs::UTF_8);
        assert_eq!(page.encoding_source, EncodingSource::Guess);
    }

    #[test]
    fn false_utf8_declaration_falls_back_to_guess() {
        let page = load(b"<meta charset=utf-8><p>Le caf\xe9 est tr\xe8s bon, d\xe9j\xe0 vu \xe0 l'\xe9cole</p>").unwrap();
        assert_eq!(page.encoding_source, EncodingSource::GuessOverMeta);
        assert!(body_text(&page).contains("café"), "{}", body_text(&page));
        assert!(!page.decode_errors);
    }

    #[test]
    fn valid_utf8_beats_a_latin1_declaration() {
        let page = load("<meta charset=iso-8859-1><p>Kosovo’s future</p>".as_bytes()).unwrap();
        assert_eq!(page.encoding_source, EncodingSource::Utf8OverMeta);
        assert_eq!(body_text(&page), "Kosovo’s future");
        // Pure ASCII keeps the declaration.
        let page = load(b"<meta charset=iso-8859-1><p>plain").unwrap();
        assert_eq!(page.encoding_source, EncodingSource::Meta);
    }

    #[test]
    fn meta_inside_comment_is_ignored() {
        let (enc, src) = detect_encoding(b"<!-- <meta charset=koi8-r> --><meta charset=utf-8>");
        assert_eq!((enc, src), (encoding_rs::UTF_8, EncodingSource::Meta));
    }

    #[test]
    fn empty_and_whitespace_are_errors() {
        assert!(matches!(load(b""), Err(PageError::Empty { .. })));
        assert!(matches!(load(b" \n\t "), Err(PageError::Empty { .. })));
    }

    #[test]
    fn binary_junk_is_an_error_naming_the_file() {
        let junk: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let err = load(&junk).unwrap_err();
        assert!(matches!(err, PageError::Binary { .. }));
        assert!(err.to_string().starts_with("t.html: not HTML"), "{err}");
    }

    #[test]
    fn tag_scan_skips_comments_raw_text_and_non_tags() {
        let text = "<!DOCTYPE html><P class=a>1 < 2<!-- <div> --><Script>'<b>'</scriptx></SCRIPT ><br/></p><1>";
        let tags: Vec<(usize, usize, bool, &str)> = TagScan::new(text).map(|t| (t.start, t.end, t.closing, std::str::from_utf8(t.name).unwrap())).collect();
        // `<!DOCTYPE`, `< 2`, the comment, the script's content (with `</scriptx>`) and `<1>`
        // are not tags.
        assert_eq!(tags, [(15, 26, false, "P"), (45, 53, false, "Script"), (68, 78, true, "SCRIPT"), (78, 83, false, "br"), (83, 87, true, "p")]);
        // Both bounds come from one scan; the cut is the third start tag.
        assert_eq!(scan_structure(text, 0, 2), (vec![], Some(78)));
        assert_eq!(truncate_elements(text, 2), Some(78));
        assert_eq!(truncate_elements(text, 3), None);
        let nested = "<div><div><p>x</p></div></div>";
        assert_eq!(scan_structure(nested, 1, 1), (vec![(5, 10), (18, 24)], Some(5)));
        // Flattened first, then cut on the flattened text (`<div><p>x</p></div>`).
        assert_eq!(bound_structure(nested, 1, 1), (Some("<div><p>x</p></div>".to_string()), Some(5)));
    }

    #[test]
    fn nul_bytes_in_text_are_tolerated() {
        let page = load(b"<p>a\0b</p>").unwrap();
        assert!(body_text(&page).starts_with('a'));
    }

    #[test]
    fn size_limit() {
        let opts = LoadOptions { max_bytes: 10, ..LoadOptions::default() };
        let err = Page::from_bytes("big.html", b"<p>more than ten bytes</p>", &opts).unwrap_err();
        assert!(matches!(err, PageError::TooLarge { size: 26, limit: 10, .. }), "{err}");
    }

    #[test]
    fn gzip_is_transparent_and_checksum_is_of_the_bytes_read() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"<p>zipped</p>").unwrap();
        let bytes = gz.finish().unwrap();
        let page = load(&bytes).unwrap();
        assert_eq!(body_text(&page), "zipped");
        assert_eq!(page.sha256, hex(&Sha256::digest(&bytes)));
        let broken = &bytes[..bytes.len() / 2];
        assert!(matches!(load(broken), Err(PageError::Gzip { .. })));
    }

    #[test]
    fn a_page_that_shows_nothing_without_scripts_is_read_as_without_scripting() {
        // A Discourse topic: an empty application shell, the posts inside <noscript>.
        let posts = "<p>".to_string() + &"word ".repeat(60) + "</p>";
        let shell = format!("<body><div id=app>Log In</div><noscript><div class=post><h1>Topic</h1>{posts}</div><noscript></noscript></noscript></body>");
        let page = load(shell.as_bytes()).unwrap();
        assert_eq!(page.repairs, [Repair::ReadNoscript]);
        // The <noscript> element is gone and its content is the page's, in its place.
        let noscript = scraper::Selector::parse("noscript").unwrap();
        assert_eq!(page.html.select(&noscript).count(), 0);
        let h1 = scraper::Selector::parse("body > div.post > h1").unwrap();
        assert_eq!(page.html.select(&h1).next().map(|h| h.inner_html()).as_deref(), Some("Topic"));
        assert!(body_text(&page).starts_with("Log InTopicword word"), "{}", body_text(&page));

        // A page that shows its text keeps its <noscript> hidden (one text node, as a browser
        // with scripting parses it), and so does a page that has little text either way.
        let shown = format!("<body>{posts}<noscript><p>Enable JavaScript to see the comments.</p></noscript></body>");
        let page = load(shown.as_bytes()).unwrap();
        assert!(page.repairs.is_empty());
        assert!(page.html.select(&noscript).next().is_some_and(|n| n.children().all(|c| c.value().is_text())));
        assert!(load(b"<body>Log In<noscript><p>Enable JavaScript.</p></noscript></body>").unwrap().repairs.is_empty());
    }

    #[test]
    fn missing_file_names_the_path() {
        let err = Page::load("/nonexistent/x.html", &LoadOptions::default()).unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent/x.html: cannot read"), "{err}");
    }

    #[test]
    fn deep_nesting_is_flattened_at_the_limit() {
        let flat = flatten_deep_nesting("<div><DIV><div>x</div></DIV></div><div>y</div>", 2).unwrap();
        assert_eq!(flat, "<div><DIV>x</DIV></div><div>y</div>");
        assert_eq!(flatten_deep_nesting("<div><div>x</div></div>", 2), None);
        // Tags in comments and scripts do not count.
        assert_eq!(flatten_deep_nesting("<div><!--<div><div>--><script>'<div><div>'</script>x</div>", 1), None);
        let deep = format!("{}deep{}", "<div>".repeat(100_000), "</div>".repeat(100_000));
        let page = load(deep.as_bytes()).unwrap();
        assert_eq!(page.repairs, [Repair::FlattenedNesting]);
        assert_eq!(body_text(&page), "deep");
        let depth = page.html.tree.nodes().filter(|n| n.value().as_element().is_some_and(|e| e.name() == "div")).count();
        assert_eq!(depth, 512);
    }

    #[test]
    fn unterminated_title_is_closed_at_the_first_markup() {
        let page = load(b"<html><head><title>Gale to drive Nation ...junk(); </SCRIPT><div><p>Article text</p></div>").unwrap();
        assert_eq!(page.repairs, [Repair::ClosedTitle]);
        assert!(body_text(&page).contains("Article text"));
        let close = |t: &str| close_unterminated_raw_text(t).map(|(s, _, _)| s);
        assert_eq!(close("<title>ok</title><p>x"), None);
        assert_eq!(close("<titles>x"), None);
        assert_eq!(close("<TITLE>t <p>x").as_deref(), Some("<TITLE>t </title><p>x"));
    }

    #[test]
    fn mangled_title_end_tag_is_repaired() {
        // Seen in a 2008 crawl: `</title` glued to an attribute is no end tag for the tokenizer.
        let html =
            b"<html><head><title>Foo</titlevalue=\"true\" -->\n</head><body><div><p>First paragraph of the story.</p><p>Second one.</p></div></body></html>";
        let page = load(html).unwrap();
        assert_eq!(page.repairs, [Repair::ClosedTitle]);
        let title = scraper::Selector::parse("title").unwrap();
        assert_eq!(page.html.select(&title).next().unwrap().text().collect::<String>(), "Foo");
        assert!(body_text(&page).contains("First paragraph of the story."), "{}", body_text(&page));
        let division = crate::divide::Divider::new(crate::divide::DividerConfig::default()).divide(&page);
        assert!(division.blocks.iter().any(|b| b.text.contains("First paragraph")), "{:?}", division.blocks);
    }

    #[test]
    fn mangled_raw_text_end_tags_are_repaired() {
        let close = |t: &str| close_unterminated_raw_text(t);
        // Appropriate end tags (whitespace, `/` or `>` after the name) need no repair.
        assert_eq!(close("<style>a{}</style ><script>1<2</script/><textarea>x</TEXTAREA>"), None);
        let (text, title, other) = close("<style>p{}</stylex><p>body").unwrap();
        assert_eq!(text, "<style>p{}</style></stylex><p>body");
        assert!(!title && other);
        // Script text may compare with `<`; only markup closes it.
        let (text, _, _) = close("<script>if (a < b) x()</scriptfoo><div>d").unwrap();
        assert_eq!(text, "<script>if (a < b) x()</script></scriptfoo><div>d");
        // Tags inside a closed raw-text element or a comment do not count.
        assert_eq!(close("<script>'<title>'</script><!-- <xmp> --><p>x"), None);
        let page = load(b"<xmp>code</xmpp><p>After the example.</p>").unwrap();
        assert_eq!(page.repairs, [Repair::ClosedRawText]);
        assert!(body_text(&page).contains("After the example."));
    }

    #[test]
    fn many_unterminated_scripts_are_closed_in_linear_time() {
        // Each `<script>` without an end tag searched the rest of the page for one: 200,000 of
        // them (2.4 MB) took more than two minutes.
        let n = 200_000;
        let html = format!("<html><body>{}<title>t</TITLE ></body></html>", "<script>x<p>".repeat(n));
        let started = std::time::Instant::now();
        let (closed, title, other) = close_unterminated_raw_text(&html).unwrap();
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
        assert!(!title && other);
        assert_eq!(closed.matches("</script>").count(), n);
        assert!(closed.starts_with("<html><body><script>x</script><p><script>x</script><p>"));
        assert!(closed.ends_with("<script>x</script><p><title>t</TITLE ></body></html>"));
        // A remembered end tag is used only while it lies ahead: the second `<style>` needs its
        // own repair although the first one's `</style>` was found.
        let (closed, _, _) = close_unterminated_raw_text("<style>a</style><p>x<style>b<p>y").unwrap();
        assert_eq!(closed, "<style>a</style><p>x<style>b</style><p>y");
        // An end tag found for one element still closes the next one if it lies ahead.
        assert_eq!(close_unterminated_raw_text("<style>a<p>x<style>b</style><p>y"), None);
    }

    #[test]
    fn attributes_beyond_the_bound_are_dropped_in_linear_time() {
        // 200,000 attributes on one tag took html5ever 23 s (it compares each with every earlier).
        let attrs: String = (0..200_000).map(|i| format!(" a{i}=1")).collect();
        let html = format!("<html><body><p id=first{attrs}>text</p><p>after</p></body></html>");
        let page = load(html.as_bytes()).unwrap();
        assert_eq!(page.repairs, [Repair::DroppedAttributes]);
        let p = scraper::Selector::parse("p").unwrap();
        let first = page.html.select(&p).next().unwrap();
        assert_eq!(first.value().attrs().count(), MAX_ATTRIBUTES);
        assert_eq!((first.value().attr("id"), first.value().attr(&format!("a{}", MAX_ATTRIBUTES - 2))), (Some("first"), Some("1")));
        assert_eq!(first.value().attr(&format!("a{}", MAX_ATTRIBUTES - 1)), None);
        assert_eq!(body_text(&page), "textafter");
        // Quoted values may hold `>`, `=` and spaces; unquoted values, `/` and empty values count.
        let cut = |t: &str, max| drop_extra_attributes(t, max);
        assert_eq!(cut("<a x='1 > 2' y=\"a=b\" z>t</a>", 2).as_deref(), Some("<a x='1 > 2' y=\"a=b\" >t</a>"));
        assert_eq!(cut("<img src=a.png/ alt = b c d/><p>", 2).as_deref(), Some("<img src=a.png/ alt = b ><p>"));
        assert_eq!(cut("<p a b>x</p><!-- <p a b c> --><script>'<p a b c>'</script>", 2), None);
        assert_eq!(cut("<P a b c>", 3), None);
    }

    #[test]
    fn fifo_is_refused_without_blocking() {
        let dir = std::env::temp_dir().join(format!("parcels-page-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe.html");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("mkfifo unavailable; skipped");
            return;
        }
        let err = Page::load(&fifo, &LoadOptions::default()).unwrap_err();
        assert!(matches!(err, PageError::NotAFile { .. }), "{err}");
        assert!(err.to_string().starts_with(&fifo.display().to_string()) && err.to_string().contains("named pipe"), "{err}");
        let err = Page::load(&dir, &LoadOptions::default()).unwrap_err();
        assert!(err.to_string().contains("directory"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_file_error_says_the_os_error_once() {
        use std::error::Error;
        let err = Page::load("/nonexistent.html", &LoadOptions::default()).unwrap_err();
        let msg = err.to_string();
        assert_eq!(msg.matches("os error 2").count(), 1, "{msg}");
        assert!(msg.starts_with("/nonexistent.html: cannot read: "), "{msg}");
        // No error source repeats the message when a caller prints the chain.
        assert!(err.source().is_none());
        assert!(!msg.contains("URL"));
        let err = Page::load("https://example.com/news.html", &LoadOptions::default()).unwrap_err();
        assert!(err.to_string().contains("not URLs"), "{err}");
    }

    #[test]
    fn non_html_text_is_refused() {
        let toml = b"[package]\nname = \"parcels\"\nversion = \"0.1.0\"\n\n[dependencies]\nscraper = \"=0.29.0\"\n";
        let err = load(toml).unwrap_err();
        assert!(matches!(err, PageError::NoMarkup { .. }), "{err}");
        assert!(err.to_string().starts_with("t.html: not HTML"), "{err}");
        assert!(matches!(load(b"just a sentence with a < b comparison"), Err(PageError::NoMarkup { .. })));
        // Markup after leading text, in any case, or a BOM and whitespace first, is a page.
        assert!(load(b"server junk\n<HTML><P>x").is_ok());
        assert!(load(b"\xef\xbb\xbf\n  <!DOCTYPE html><title>t</title>").is_ok());
        assert!(load(b"<div class=a>x</div>").is_ok());
        assert!(!has_markup("<pre-not-a-tag> <divx>"));
    }

    #[test]
    fn bom_only_file_is_empty() {
        assert!(matches!(load(b"\xef\xbb\xbf"), Err(PageError::Empty { .. })));
        assert!(matches!(load(b"\xef\xbb\xbf \r\n"), Err(PageError::Empty { .. })));
        assert!(matches!(load(b"\xff\xfe"), Err(PageError::Empty { .. })));
        assert!(matches!(load(b"\xfe\xff\x00 "), Err(PageError::Empty { .. })));
    }

    #[test]
    fn gzip_bomb_reports_the_limit_not_a_size() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"<p>").unwrap();
        gz.write_all(&vec![b'a'; 1000]).unwrap();
        let bytes = gz.finish().unwrap();
        let opts = LoadOptions { max_bytes: 100, ..LoadOptions::default() };
        let err = Page::from_bytes("bomb.html.gz", &bytes, &opts).unwrap_err();
        assert!(matches!(err, PageError::TooLargeDecompressed { limit: 100, .. }), "{err}");
        assert!(err.to_string().contains("more than 100 bytes after decompression"), "{err}");
    }

    #[test]
    fn checksum_known_answer() {
        let page = load(b"<p>abc").unwrap();
        assert_eq!(page.sha256, "d03862b547e5dbb21797bfcbd48bf4c474675e344b706e6445554ab6227de3a1");
    }
}
