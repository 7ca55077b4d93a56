//! Markdown of a page's main text (`parcels extract --format markdown`, trafilatura's
//! `--output-format markdown` being the reference): the article's title as a level-1 heading,
//! then the main text's blocks rendered from their place in the page's DOM, keeping headings,
//! lists (nested, ordered or not), links and data tables (GitHub pipe tables).
//!
//! Input: the parsed [`Page`], its [`Division`] (each block knows its leaves' DOM nodes), the
//! [`Article`] assembled from the classified blocks, and optionally the page's URL (links are
//! then made absolute, after the page's `<base href>`). Output: CommonMark text ending in a
//! newline.
//!
//! Which blocks make the main text is read off the article itself: its `main_text` is the chosen
//! blocks' texts joined by newlines in document order ([`crate::apply::article`]), so the blocks
//! are found by matching them against it in order ([`main_text_blocks`]); the assembly's rules
//! live in one place. Should that ever fail to match, the main text is written as plain
//! paragraphs rather than guessed.
//!
//! Invariants: only the text of the chosen blocks' leaves appears, in document order, whitespace
//! collapsed as in the blocks' text; images with alt text are `![alt](src)`, other replaced
//! elements (iframes, images without alt text) are left out; Markdown
//! syntax in the page's text is escaped; the DOM is walked iteratively, so a page's nesting depth
//! never reaches the stack.

use std::collections::{HashMap, HashSet};

use ego_tree::iter::Edge;
use ego_tree::{NodeId, NodeRef};
use scraper::Node;
use url::Url;

use crate::apply::Article;
use crate::divide::Division;
use crate::page::Page;

/// The article of a page as Markdown: `# title`, then the main text (see the module docs).
/// `url` is the page's address, when known, for absolute links.
pub fn article_markdown(page: &Page, division: &Division, article: &Article, url: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(title) = article.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        out.push_str("# ");
        out.push_str(&escape(title, false));
        out.push('\n');
    }
    let body = match main_text_blocks(division, &article.main_text) {
        Some(mut blocks) => {
            // A title that is also the main text's first block is written once, as the heading.
            if blocks.first().and_then(|&b| division.blocks.get(b)).is_some_and(|b| Some(b.text.trim()) == article.title.as_deref().map(str::trim)) {
                blocks.remove(0);
            }
            render(page, division, &blocks, page_base(page, url).as_ref())
        }
        None => {
            article.main_text.lines().filter(|l| !l.trim().is_empty()).map(|l| escape_line_start(&escape(l.trim(), false))).collect::<Vec<_>>().join("\n\n")
        }
    };
    if !body.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(body.trim_end());
        out.push('\n');
    }
    out
}

/// The ids of the blocks whose texts, joined by newlines in document order, make `main_text`
/// (blocks are matched greedily in order; empty blocks are never part of it). `None` when the
/// main text is not such a join.
pub fn main_text_blocks(division: &Division, main_text: &str) -> Option<Vec<usize>> {
    let mut rest = main_text;
    let mut chosen = Vec::new();
    for b in &division.blocks {
        if rest.is_empty() {
            break;
        }
        if b.text.is_empty() {
            continue;
        }
        if let Some(after) = rest.strip_prefix(b.text.as_str()) {
            if after.is_empty() || after.starts_with('\n') {
                chosen.push(b.id);
                rest = after.strip_prefix('\n').unwrap_or(after);
            }
        }
    }
    rest.is_empty().then_some(chosen)
}

/// The URL relative links of a page resolve against: its `<base href>` read against `url`, or
/// `url` itself; `None` without a (parsable) `url`.
pub fn page_base(page: &Page, url: Option<&str>) -> Option<Url> {
    let url = Url::parse(url?.trim()).ok()?;
    let base = page.html.tree.root().descendants().find_map(|n| match n.value() {
        Node::Element(el) if el.name() == "base" => el.attr("href"),
        _ => None,
    });
    Some(base.and_then(|b| url.join(b.trim()).ok()).unwrap_or(url))
}

/// `href` made absolute against `base`; unchanged without a base or when it does not parse.
pub fn resolve(base: Option<&Url>, href: &str) -> String {
    match base.and_then(|b| b.join(href.trim()).ok()) {
        Some(u) => u.to_string(),
        None => href.to_string(),
    }
}

/// Renders the given blocks of a divided page as Markdown (without a title).
pub fn render(page: &Page, division: &Division, blocks: &[usize], base: Option<&Url>) -> String {
    let chosen: HashSet<usize> = blocks.iter().copied().collect();
    let mut leaf_block: HashMap<NodeId, usize> = HashMap::new();
    for b in division.blocks.iter().filter(|b| chosen.contains(&b.id)) {
        for &n in &b.nodes {
            leaf_block.insert(n, b.id);
        }
    }
    // Every node with a chosen leaf in its subtree; the walk enters only these.
    let tree = &page.html.tree;
    let mut marked: HashSet<NodeId> = HashSet::new();
    for &leaf in leaf_block.keys() {
        let mut node = tree.get(leaf);
        while let Some(n) = node {
            if !marked.insert(n.id()) {
                break;
            }
            node = n.parent();
        }
    }
    let mut r = Renderer { base, ..Renderer::default() };
    let mut skipping: Option<NodeId> = None;
    for edge in tree.root().traverse() {
        match edge {
            Edge::Open(node) => {
                if skipping.is_some() {
                    continue;
                }
                if !marked.contains(&node.id()) {
                    skipping = Some(node.id());
                    continue;
                }
                match node.value() {
                    Node::Element(el) if el.name() == "img" => {
                        if let Some(&b) = leaf_block.get(&node.id()) {
                            r.image(b, el.attr("alt").unwrap_or_default(), el.attr("src"));
                        }
                    }
                    Node::Element(_) => r.open(node, &marked),
                    Node::Text(t) => {
                        if let Some(&b) = leaf_block.get(&node.id()) {
                            r.text(b, t);
                        }
                    }
                    _ => {}
                }
            }
            Edge::Close(node) => {
                if skipping == Some(node.id()) {
                    skipping = None;
                    continue;
                }
                if skipping.is_none() && matches!(node.value(), Node::Element(_)) {
                    r.close(node);
                }
            }
        }
    }
    r.finish()
}

/// Elements rendered inline: their boundaries are not paragraph breaks.
const INLINE: &[&str] = &[
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "blink", "br", "cite", "code", "data", "del", "dfn", "em", "font", "i", "img", "ins", "kbd", "label",
    "mark", "nobr", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
];

/// Elements inside a table that make it a layout table (its cells hold page structure, not
/// values): such a table is rendered as the paragraphs of its cells, not as a pipe table.
const LAYOUT_IN_TABLE: &[&str] = &["table", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "blockquote", "pre", "form", "p", "div"];

/// Longest text of a cell (in chars) in a table still rendered as a pipe table: a cell holding
/// more is prose laid out by a table (2000s pages put whole articles in one cell), and a
/// Markdown table cell cannot hold paragraphs. 300 chars is about two sentences.
const MAX_DATA_CELL_CHARS: usize = 300;

/// Whether a table holding chosen text is a data table: no structure inside its cells (see
/// [`LAYOUT_IN_TABLE`]), short cells, and chosen text in at least two rows and two cells of a
/// row (a one-row table lays out a line, and is its cells' paragraphs).
fn is_data_table(table: NodeRef<'_, Node>, marked: &HashSet<NodeId>) -> bool {
    // Structure first: a layout table usually shows it early, before any cell is measured.
    let structure = table.descendants().skip(1).any(|n| n.value().as_element().is_some_and(|el| LAYOUT_IN_TABLE.contains(&el.name())));
    if structure {
        return false;
    }
    // Rows holding chosen text, and the most cells with chosen text in one row.
    let (mut rows, mut widest) = (0, 0);
    for row in table.descendants().filter(|n| n.value().as_element().is_some_and(|el| el.name() == "tr") && marked.contains(&n.id())) {
        let mut cells = 0;
        for cell in row.children().filter(|n| n.value().as_element().is_some_and(|el| matches!(el.name(), "td" | "th")) && marked.contains(&n.id())) {
            let chars: usize = cell.descendants().filter_map(|d| d.value().as_text()).map(|t| t.trim().chars().count()).sum();
            if chars > MAX_DATA_CELL_CHARS {
                return false;
            }
            cells += 1;
        }
        rows += 1;
        widest = usize::max(widest, cells);
    }
    rows >= 2 && widest >= 2
}

/// A separator owed before the next text, the strongest asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
enum Break {
    #[default]
    None,
    /// A new line (list items).
    Line,
    /// A blank line (paragraphs, headings, lists, tables).
    Paragraph,
}

/// A list being rendered: ordered (with the next item's number) or not.
#[derive(Debug)]
struct List {
    ordered: bool,
    next: u64,
}

/// A data table being collected: its rows of cells, and whether a cell is open.
#[derive(Debug, Default)]
struct Table {
    node: Option<NodeId>,
    rows: Vec<Vec<String>>,
    in_cell: bool,
    /// A space owed before the next text of the open cell.
    space: bool,
}

/// A link whose text is being rendered: `open` once its `[` is written.
#[derive(Debug)]
struct Link {
    node: NodeId,
    href: String,
    open: bool,
}

/// The Markdown writer's state during the walk.
#[derive(Debug, Default)]
struct Renderer<'u> {
    base: Option<&'u Url>,
    out: String,
    brk: Break,
    /// A space owed before the next text on the current line.
    space: bool,
    at_line_start: bool,
    /// The first-line prefix of a list item whose text has not started (indent and marker).
    marker: Option<String>,
    /// Continuation indents of the open list items, innermost last.
    indents: Vec<String>,
    lists: Vec<List>,
    /// Level of the open heading.
    heading: Option<usize>,
    tables: Vec<Table>,
    link: Option<Link>,
    last_block: Option<usize>,
}

impl Renderer<'_> {
    fn in_cell(&self) -> bool {
        self.tables.last().is_some_and(|t| t.in_cell)
    }

    /// Asks for a separator before the next text (a space inside a table cell or a heading).
    fn brk(&mut self, kind: Break) {
        if self.in_cell() || self.heading.is_some() {
            self.space_owed();
            return;
        }
        self.close_link();
        self.brk = self.brk.max(kind);
    }

    fn space_owed(&mut self) {
        match self.tables.last_mut() {
            Some(t) if t.in_cell => t.space = true,
            _ => self.space = true,
        }
    }

    /// Writes the `](href)` of an open link (it reopens with the next text).
    fn close_link(&mut self) {
        let Some(link) = &mut self.link else { return };
        if !link.open {
            return;
        }
        link.open = false;
        let end = format!("]({})", link_target(&link.href));
        self.raw(&end);
    }

    /// Appends text with no separator handling (link ends).
    fn raw(&mut self, s: &str) {
        match self.tables.last_mut() {
            Some(t) if t.in_cell => {
                if let Some(cell) = t.rows.last_mut().and_then(|r| r.last_mut()) {
                    cell.push_str(s);
                }
            }
            _ => self.out.push_str(s),
        }
    }

    /// Starts a leaf of `block`: blocks that meet without structure between them (a `<br>`, an
    /// image, hidden text) are still separate paragraphs, as they are separate lines of the main
    /// text.
    fn enter_block(&mut self, block: usize) {
        if self.last_block.is_some_and(|b| b != block) && self.brk == Break::None {
            self.brk(Break::Paragraph);
        }
        self.last_block = Some(block);
    }

    /// An image of the main text: `![alt](src)`, as its alt text is part of the main text; an
    /// image without alt text is left out, one without `src` is its alt text.
    fn image(&mut self, block: usize, alt: &str, src: Option<&str>) {
        let alt = alt.split_whitespace().collect::<Vec<_>>().join(" ");
        if alt.is_empty() {
            return;
        }
        self.enter_block(block);
        let alt = escape(&alt, self.in_cell());
        match src.map(str::trim).filter(|s| !s.is_empty() && !s.starts_with("data:")) {
            Some(src) => self.put(&format!("![{alt}]({})", link_target(&resolve(self.base, src)))),
            None => self.put(&alt),
        }
    }

    fn text(&mut self, block: usize, text: &str) {
        self.enter_block(block);
        if text.starts_with(char::is_whitespace) {
            self.space_owed();
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        if !words.is_empty() {
            let in_cell = self.in_cell();
            self.put(&escape(&words.join(" "), in_cell));
            if text.ends_with(char::is_whitespace) {
                self.space_owed();
            }
        }
    }

    /// Writes escaped text, with the separators, prefixes and link opening it is owed.
    fn put(&mut self, s: &str) {
        let open = match &mut self.link {
            Some(l) if !l.open => {
                l.open = true;
                "["
            }
            _ => "",
        };
        if let Some(t) = self.tables.last_mut().filter(|t| t.in_cell) {
            if t.rows.is_empty() {
                t.rows.push(Vec::new());
            }
            let row = t.rows.last_mut().expect("a row was just ensured");
            if row.is_empty() {
                row.push(String::new());
            }
            let cell = row.last_mut().expect("a cell was just ensured");
            if t.space && !cell.is_empty() {
                cell.push(' ');
            }
            t.space = false;
            cell.push_str(open);
            cell.push_str(s);
            return;
        }
        if self.brk != Break::None && !self.out.is_empty() {
            self.out.push('\n');
            if self.brk == Break::Paragraph {
                self.out.push('\n');
            }
            self.at_line_start = true;
        }
        if self.out.is_empty() {
            self.at_line_start = true;
        }
        self.brk = Break::None;
        if self.at_line_start {
            match self.marker.take() {
                Some(m) => self.out.push_str(&m),
                None => self.out.push_str(self.indents.last().map_or("", String::as_str)),
            }
            if let Some(level) = self.heading {
                self.out.push_str(&"#".repeat(level));
                self.out.push(' ');
            }
            self.at_line_start = false;
            self.out.push_str(open);
            self.out.push_str(&escape_line_start(s));
        } else {
            if self.space {
                self.out.push(' ');
            }
            self.out.push_str(open);
            self.out.push_str(s);
        }
        self.space = false;
    }

    fn open(&mut self, node: NodeRef<'_, Node>, marked: &HashSet<NodeId>) {
        let Some(el) = node.value().as_element() else { return };
        let name = el.name();
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.brk(Break::Paragraph);
                if !self.in_cell() && self.heading.is_none() {
                    self.heading = Some(usize::from(name.as_bytes()[1] - b'0'));
                }
            }
            "ul" | "ol" if !self.in_cell() && self.heading.is_none() => {
                self.brk(if self.lists.is_empty() { Break::Paragraph } else { Break::Line });
                let start = el.attr("start").and_then(|s| s.trim().parse().ok()).unwrap_or(1);
                self.lists.push(List { ordered: name == "ol", next: start });
            }
            "li" if !self.in_cell() && self.heading.is_none() && !self.lists.is_empty() => {
                self.brk(Break::Line);
                let list = self.lists.last_mut().expect("checked non-empty");
                let bullet = if list.ordered { format!("{}. ", list.next) } else { "- ".to_string() };
                list.next += 1;
                let indent = self.indents.last().cloned().unwrap_or_default();
                self.marker = Some(format!("{indent}{bullet}"));
                self.indents.push(format!("{indent}{}", " ".repeat(bullet.len())));
            }
            "a" => {
                let href = el.attr("href").map(str::trim).unwrap_or_default();
                let scheme = href.split(':').next().unwrap_or_default().to_ascii_lowercase();
                if self.link.is_none() && !href.is_empty() && scheme != "javascript" {
                    self.link = Some(Link { node: node.id(), href: resolve(self.base, href), open: false });
                }
            }
            "table" if !self.in_cell() && self.heading.is_none() && is_data_table(node, marked) => {
                self.brk(Break::Paragraph);
                self.tables.push(Table { node: Some(node.id()), ..Table::default() });
            }
            "tr" if self.tables.last().is_some_and(|t| !t.in_cell) => {
                if let Some(t) = self.tables.last_mut() {
                    t.rows.push(Vec::new());
                }
            }
            "td" | "th" if self.tables.last().is_some_and(|t| !t.in_cell) => {
                if let Some(t) = self.tables.last_mut() {
                    if t.rows.is_empty() {
                        t.rows.push(Vec::new());
                    }
                    if let Some(row) = t.rows.last_mut() {
                        row.push(String::new());
                    }
                    t.in_cell = true;
                    t.space = false;
                }
            }
            "br" => self.space_owed(),
            _ if INLINE.contains(&name) => {}
            _ => self.brk(Break::Paragraph),
        }
    }

    fn close(&mut self, node: NodeRef<'_, Node>) {
        let Some(el) = node.value().as_element() else { return };
        let name = el.name();
        if self.link.as_ref().is_some_and(|l| l.node == node.id()) {
            self.close_link();
            self.link = None;
            return;
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" if self.heading.is_some() && !self.in_cell() => {
                self.close_link();
                self.heading = None;
                self.brk(Break::Paragraph);
            }
            "ul" | "ol" if !self.in_cell() && self.heading.is_none() && !self.lists.is_empty() => {
                self.lists.pop();
                self.brk(if self.lists.is_empty() { Break::Paragraph } else { Break::Line });
            }
            "li" if !self.in_cell() && self.heading.is_none() && !self.lists.is_empty() => {
                self.brk(Break::Line);
                self.marker = None;
                self.indents.pop();
            }
            "td" | "th" if self.in_cell() => {
                self.close_link();
                if let Some(t) = self.tables.last_mut() {
                    t.in_cell = false;
                }
            }
            "table" if self.tables.last().is_some_and(|t| t.node == Some(node.id())) => {
                let table = self.tables.pop().expect("checked above");
                let md = pipe_table(&table.rows);
                if !md.is_empty() {
                    self.brk(Break::Paragraph);
                    let indent = self.indents.last().cloned().unwrap_or_default();
                    let lines: Vec<String> = md.lines().map(|l| format!("{indent}{l}")).collect();
                    if !self.out.is_empty() {
                        self.out.push_str("\n\n");
                    }
                    self.out.push_str(&lines.join("\n"));
                    self.brk = Break::Paragraph;
                    self.at_line_start = false;
                    self.marker = None;
                }
            }
            _ if INLINE.contains(&name) => {}
            _ => self.brk(Break::Paragraph),
        }
    }

    fn finish(mut self) -> String {
        self.close_link();
        let mut out = self.out.trim_end().to_string();
        if !out.is_empty() {
            out.push('\n');
        }
        out
    }
}

/// A GitHub pipe table of collected rows: the first row is the header; short rows are padded.
fn pipe_table(rows: &[Vec<String>]) -> String {
    let rows: Vec<&Vec<String>> = rows.iter().filter(|r| r.iter().any(|c| !c.trim().is_empty())).collect();
    let columns = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    if columns == 0 {
        return String::new();
    }
    let line = |r: &[String]| {
        let cells: Vec<&str> = (0..columns).map(|i| r.get(i).map_or("", |c| c.trim())).collect();
        format!("| {} |", cells.join(" | "))
    };
    let mut out = vec![line(rows[0]), format!("|{}", " --- |".repeat(columns))];
    out.extend(rows[1..].iter().map(|r| line(r)));
    out.join("\n")
}

/// A link target as Markdown accepts it: spaces and parentheses percent-encoded.
fn link_target(href: &str) -> String {
    href.replace(' ', "%20").replace('(', "%28").replace(')', "%29")
}

/// Escapes the characters Markdown would read as inline syntax (and `|` inside a table cell).
fn escape(text: &str, in_cell: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '_' | '`' | '[' | ']' | '<') || (in_cell && c == '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Escapes what Markdown would read as block syntax at the start of a line: headings, quotes,
/// list markers (`-`, `+`, `1.`), setext underlines.
fn escape_line_start(text: &str) -> String {
    if text.starts_with(['#', '>', '+', '-', '=']) {
        return format!("\\{text}");
    }
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    if (1..=9).contains(&digits) && text[digits..].starts_with(['.', ')']) {
        return format!("{}\\{}", &text[..digits], &text[digits..]);
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divide::Divider;
    use crate::page::LoadOptions;

    /// The Markdown of every block of a tiny page.
    fn markdown(body: &str, url: Option<&str>) -> String {
        let html = format!("<html><head><title>t</title></head><body>{body}</body></html>");
        let page = Page::from_bytes("t.html", html.as_bytes(), &LoadOptions::default()).expect("page loads");
        let division = Divider::default().divide(&page);
        let all: Vec<usize> = division.blocks.iter().map(|b| b.id).collect();
        render(&page, &division, &all, page_base(&page, url).as_ref())
    }

    #[test]
    fn a_heading_keeps_its_level() {
        assert_eq!(markdown("<h2>Storm closes <b>harbour</b></h2><p>Gale-force winds.</p>", None), "## Storm closes harbour\n\nGale-force winds.\n");
    }

    #[test]
    fn a_nested_list_is_indented_under_its_item() {
        let md = markdown("<ul><li>Ferries<ol><li>North</li><li>South</li></ol></li><li>Trains</li></ul>", None);
        assert_eq!(md, "- Ferries\n  1. North\n  2. South\n- Trains\n");
    }

    #[test]
    fn a_link_is_kept_and_made_absolute_with_a_url() {
        let body = "<p>Read <a href=\"/report.html\">the full report</a> now.</p>";
        assert_eq!(markdown(body, None), "Read [the full report](/report.html) now.\n");
        assert_eq!(markdown(body, Some("http://news.example/2008/story.html")), "Read [the full report](http://news.example/report.html) now.\n");
        // The page's <base href> is read against the URL.
        let based = "<base href=\"/archive/\"><p><a href=\"a.html\">A</a></p>";
        assert_eq!(markdown(based, Some("http://news.example/x")), "[A](http://news.example/archive/a.html)\n");
    }

    #[test]
    fn a_two_by_two_table_becomes_a_pipe_table() {
        let md = markdown("<p>Results:</p><table><tr><th>Town</th><th>Votes</th></tr><tr><td>Ely</td><td>1|2</td></tr></table>", None);
        assert_eq!(md, "Results:\n\n| Town | Votes |\n| --- | --- |\n| Ely | 1\\|2 |\n");
    }

    #[test]
    fn a_one_row_table_gives_paragraphs() {
        assert_eq!(markdown("<table><tr><td>Ely</td><td>Ross</td></tr></table>", None), "Ely\n\nRoss\n");
    }

    #[test]
    fn a_layout_table_gives_paragraphs() {
        let md = markdown("<table><tr><td><p>First paragraph.</p><p>Second.</p></td><td>Side</td></tr></table>", None);
        assert_eq!(md, "First paragraph.\n\nSecond.\n\nSide\n");
    }

    #[test]
    fn an_image_with_alt_text_is_kept() {
        let md = markdown("<p>Harbour:</p><img src=\"h.jpg\" alt=\"The [closed] harbour\"><img src=\"spacer.gif\">", Some("http://news.example/a/"));
        assert_eq!(md, "Harbour:\n\n![The \\[closed\\] harbour](http://news.example/a/h.jpg)\n");
    }

    #[test]
    fn markdown_syntax_in_the_text_is_escaped() {
        assert_eq!(markdown("<p># not a heading *really*</p><p>1. not a list</p>", None), "\\# not a heading \\*really\\*\n\n1\\. not a list\n");
    }

    #[test]
    fn only_the_chosen_blocks_are_rendered() {
        let html = "<html><body><div>Home News</div><h1>Storm</h1><p>Winds.</p><div>Copyright</div></body></html>";
        let page = Page::from_bytes("t.html", html.as_bytes(), &LoadOptions::default()).expect("page loads");
        let division = Divider::default().divide(&page);
        let main = main_text_blocks(&division, "Storm\nWinds.").expect("the main text is a join of blocks");
        assert_eq!(main, [1, 2]);
        assert_eq!(render(&page, &division, &main, None), "# Storm\n\nWinds.\n");
        assert_eq!(main_text_blocks(&division, "Winds.\nStorm"), None, "out of document order");
        let article = Article {
            title: Some("Storm".into()),
            main_text: "Winds.".into(),
            date: None,
            reporter: None,
            source: None,
            location: None,
            subheaders: Vec::new(),
        };
        assert_eq!(article_markdown(&page, &division, &article, None), "# Storm\n\nWinds.\n");
        // The title is the main text's first block: it is written once.
        let article = Article { main_text: "Storm\nWinds.".into(), ..article };
        assert_eq!(article_markdown(&page, &division, &article, None), "# Storm\n\nWinds.\n");
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let body = format!("{}deep{}", "<span>".repeat(50_000), "</span>".repeat(50_000));
        assert_eq!(markdown(&body, None), "deep\n");
    }
}
