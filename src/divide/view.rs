//! The division made visible: the page re-serialised with every block outlined and numbered, like
//! the paper's Figure 3 ("contiguous dark regions indicate a single block").
//!
//! Scripts never run in the view: `<script>` elements, `on*` event attributes and `javascript:`
//! URLs are dropped, and a Content-Security-Policy forbids scripts the page could still smuggle
//! in. The serialiser is iterative, like the divider.

use std::collections::HashMap;
use std::fmt::Write;

use ego_tree::iter::Edge;
use ego_tree::{NodeId, NodeRef};
use scraper::Node;

use super::{Division, SkipWalk, Visit};
use crate::page::Page;

/// Elements with no end tag.
const VOID: &[&str] = &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"];

/// Elements dropped with their content: they would run code, or send the reader elsewhere
/// (`<base>` re-targets every relative link).
const DROPPED: &[&str] = &["script", "base"];

/// Background colours cycled over block numbers; neighbouring blocks differ.
const PALETTE: &[&str] = &["#ffd8a8", "#b2f2bb", "#a5d8ff", "#fcc2d7", "#d0bfff", "#ffec99", "#99e9f2", "#e9ecef"];

/// Per-block decoration chosen by the caller (the annotator colours blocks by label).
pub struct BlockStyle {
    /// CSS background colour.
    pub color: String,
    /// Text of the badge shown before the block.
    pub badge: String,
}

/// Options for [`render`].
pub struct ViewOptions<'a> {
    /// Extra markup appended to `<head>` (style sheets, the annotator's script).
    pub head_extra: &'a str,
    /// Content-Security-Policy for the view. The default forbids every script.
    pub csp: &'a str,
    /// Decoration per block id; `None` numbers blocks and cycles `PALETTE`.
    pub styles: Option<&'a dyn Fn(usize) -> BlockStyle>,
}

impl Default for ViewOptions<'_> {
    fn default() -> Self {
        ViewOptions { head_extra: "", csp: "script-src 'none'; object-src 'none'", styles: None }
    }
}

const VIEW_CSS: &str = "\
.parcels-block{outline:1px solid #555;border-radius:2px}\
.parcels-badge{font:bold 10px/1.2 monospace;color:#fff;background:#333;padding:0 2px;margin-right:2px;\
border-radius:2px;vertical-align:top}\
";

/// Writes the page as HTML with every leaf wrapped in
/// `<span class="parcels-block" data-block="ID">` and a badge before each block's first leaf.
pub fn render(page: &Page, division: &Division, opts: &ViewOptions) -> String {
    let mut block_of: HashMap<NodeId, (usize, bool)> = HashMap::new();
    for block in &division.blocks {
        for (i, &node) in block.nodes.iter().enumerate() {
            block_of.insert(node, (block.id, i == 0));
        }
    }
    let style_of = |id: usize| match opts.styles {
        Some(f) => f(id),
        None => BlockStyle { color: PALETTE[id % PALETTE.len()].to_string(), badge: id.to_string() },
    };
    let mut out = String::with_capacity(page.size * 2);
    let mut head_done = false;
    let dropped = |node: NodeRef<'_, Node>| match node.value() {
        Node::Element(el) if DROPPED.contains(&el.name()) => Visit::Skip,
        Node::Element(el) if el.name() == "meta" && el.attr("http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh")) => Visit::Skip,
        _ => Visit::Enter,
    };
    for edge in SkipWalk::new(page.html.tree.root(), dropped) {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Doctype(d) => {
                    let _ = write!(out, "<!DOCTYPE {}", d.name());
                    if !d.public_id().is_empty() {
                        let _ = write!(out, " PUBLIC \"{}\"", d.public_id());
                        if !d.system_id().is_empty() {
                            let _ = write!(out, " \"{}\"", d.system_id());
                        }
                    } else if !d.system_id().is_empty() {
                        let _ = write!(out, " SYSTEM \"{}\"", d.system_id());
                    }
                    out.push('>');
                }
                Node::Element(el) => {
                    let tag = el.name();
                    let wrap = block_of.get(&node.id()).copied();
                    if let Some((id, first)) = wrap {
                        open_wrapper(&mut out, id, first, &style_of(id));
                    }
                    out.push('<');
                    out.push_str(tag);
                    for (name, value) in el.attrs() {
                        if is_unsafe_attr(name, value) {
                            continue;
                        }
                        let _ = write!(out, " {}=\"{}\"", name, escape_attr(value));
                    }
                    out.push('>');
                    if tag == "head" {
                        write_head_extra(&mut out, opts);
                        head_done = true;
                    }
                    if VOID.contains(&tag) && wrap.is_some() {
                        out.push_str("</span>");
                    }
                }
                Node::Text(t) => {
                    // Only an HTML <style> holds raw text: inside <svg> or <math> a `style` element's
                    // text is parsed as markup again by a browser, so it is escaped like any text
                    // (or `&lt;meta http-equiv=refresh&gt;` there would come back to life).
                    let raw = node
                        .parent()
                        .and_then(|p| p.value().as_element())
                        .is_some_and(|e| e.name() == "style" && &*e.name.ns == "http://www.w3.org/1999/xhtml");
                    let wrap = block_of.get(&node.id()).copied();
                    if let Some((id, first)) = wrap {
                        open_wrapper(&mut out, id, first, &style_of(id));
                    }
                    if raw {
                        out.push_str(&t.replace("</", "<\\/"));
                    } else {
                        escape_text(&mut out, &t[..]);
                    }
                    if wrap.is_some() {
                        out.push_str("</span>");
                    }
                }
                Node::Comment(_) | Node::Document | Node::Fragment | Node::ProcessingInstruction(_) => {}
            },
            Edge::Close(node) => {
                if let Node::Element(el) = node.value() {
                    let tag = el.name();
                    if VOID.contains(&tag) {
                        continue;
                    }
                    let _ = write!(out, "</{tag}>");
                    if block_of.contains_key(&node.id()) {
                        out.push_str("</span>");
                    }
                }
            }
        }
    }
    if !head_done {
        let mut head = String::new();
        write_head_extra(&mut head, opts);
        out.insert_str(0, &head);
    }
    out
}

fn write_head_extra(out: &mut String, opts: &ViewOptions) {
    let _ = write!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\"><meta charset=\"utf-8\"><style>{VIEW_CSS}</style>{}",
        escape_attr(opts.csp),
        opts.head_extra
    );
}

fn open_wrapper(out: &mut String, id: usize, first: bool, style: &BlockStyle) {
    let _ = write!(out, "<span class=\"parcels-block\" data-block=\"{id}\" style=\"background:{}\">", escape_attr(&style.color));
    if first {
        let _ = write!(out, "<span class=\"parcels-badge\" data-badge=\"{id}\">{}</span>", escape_html(&style.badge));
    }
}

fn is_unsafe_attr(name: &str, value: &str) -> bool {
    let name = name.to_ascii_lowercase();
    if name.starts_with("on") || name == "srcdoc" {
        return true;
    }
    let v: String = value.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect::<String>().to_ascii_lowercase();
    v.starts_with("javascript:") || v.starts_with("vbscript:") || (name != "src" && v.starts_with("data:text/html"))
}

fn escape_text(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            c => out.push(c),
        }
    }
}

/// Escapes text for HTML element content.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_text(&mut out, s);
    out
}

/// Escapes text for a double-quoted HTML attribute value.
pub fn escape_attr(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divide::Divider;
    use crate::page::{LoadOptions, Page};

    #[test]
    fn view_numbers_blocks_and_drops_scripts() {
        let page = Page::from_bytes(
            "v.html",
            b"<html><head><script>alert(1)</script><base href=http://elsewhere.example/><meta http-equiv=Refresh content='0;url=http://elsewhere.example/'></head><body onload=\"x()\"><p>One</p><p>Two <a href=\"javascript:evil()\">t</a></p><img src=a.png onerror=\"x()\"></body></html>",
            &LoadOptions::default(),
        )
        .unwrap();
        let division = Divider::default().divide(&page);
        let html = render(&page, &division, &ViewOptions::default());
        assert!(!html.contains("alert"));
        assert!(!html.contains("elsewhere"), "no redirect or re-targeting survives");
        assert!(!html.contains("onload") && !html.contains("onerror") && !html.contains("javascript:"));
        assert!(html.contains("script-src 'none'"));
        for b in &division.blocks {
            assert!(html.contains(&format!("data-badge=\"{}\"", b.id)), "badge {} missing", b.id);
        }
        assert_eq!(division.blocks.len(), 3);
        // The image is wrapped, and its wrapper is closed right after the void element.
        assert!(
            html.contains("data-block=\"2\" style=\"background:#a5d8ff\"><span class=\"parcels-badge\" data-badge=\"2\">2</span><img src=\"a.png\"></span>"),
            "{html}"
        );
    }

    #[test]
    fn markup_escaped_inside_svg_style_stays_escaped() {
        let page = Page::from_bytes(
            "v.html",
            b"<p>x</p><svg><style>&lt;meta http-equiv=refresh content=\"0;url=http://evil/\"&gt;</style></svg>",
            &LoadOptions::default(),
        )
        .unwrap();
        let html = render(&page, &Divider::default().divide(&page), &ViewOptions::default());
        let again = scraper::Html::parse_document(&html);
        let refresh = scraper::Selector::parse("meta[http-equiv]").unwrap();
        assert!(again.select(&refresh).all(|m| !m.value().attr("content").unwrap_or("").contains("evil")), "{html}");
    }

    #[test]
    fn style_text_is_kept_raw() {
        let page = Page::from_bytes("v.html", b"<style>p > a { color: red }</style><p>x", &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let html = render(&page, &division, &ViewOptions::default());
        assert!(html.contains("p > a { color: red }"), "{html}");
    }
}
