//! The annotator's page view, built as a DOM and serialised by html5ever, then checked the way a
//! browser would read it.
//!
//! Why not [`crate::divide::view::render`] (the `parcels divide --html` view)? It writes the
//! page as text and decides per element how to escape it; a parsed tree does not always
//! re-serialise into the same tree. `<svg><style>&lt;meta http-equiv=refresh …&gt;</style>`
//! parses into an SVG `<style>` holding the text `<meta …>`; written raw (as HTML `<style>`
//! text is), a browser reads a live `<meta http-equiv=refresh>` that navigates away. Here:
//!
//! 1. the page's own tree is sanitised in place (dangerous elements detached, dangerous
//!    attributes removed, the annotator's reserved names taken from the page);
//! 2. block wrappers and the annotator's head are inserted as nodes, never as text;
//! 3. html5ever serialises the tree: it escapes by namespace (SVG `<style>` text is escaped);
//! 4. the result is parsed again (html5ever implements the browsers' parsing algorithm) and
//!    checked; anything dangerous left, whatever produced it, makes the view an error rather
//!    than a page served (fail closed).
//!
//! Detached nodes keep their ids, so the division (made before) stays valid; a block leaf that
//! was detached simply has no wrapper.

use std::fmt;

use ego_tree::NodeId;
use scraper::node::{Element, Text};
use scraper::{ElementRef, Html, Node, StrTendril};

use crate::divide::view::{escape_attr, BlockStyle};
use crate::divide::Division;
use crate::page::Page;

/// Elements removed with their content: they run code (`script`, plug-ins), load other
/// documents (`iframe`, `frame`, `portal`), re-target every relative URL (`base`), or set an
/// attribute to a URL over time (SVG `set`, `animate`; the `javascript:` filter sees only
/// their literal values).
const DROPPED: &[&str] = &["script", "base", "object", "embed", "applet", "iframe", "frame", "portal", "set", "animate"];

/// The prefix of every id and class the annotator uses (`parcels-toolbar`, `parcels-block` …).
/// A page's own ids and classes with it are renamed or removed, so `getElementById` and the
/// script's selectors find only the annotator's elements.
const RESERVED_PREFIX: &str = "parcels-";

/// Attributes the annotator's script reads on its own elements (`data-block`, `data-badge`) or
/// sets on `<html>` for tests and tools (`data-parcels-*`).
fn reserved_attr(name: &str) -> bool {
    matches!(name, "data-block" | "data-badge" | "data-label") || name.starts_with("data-parcels-")
}

/// The annotator's own head elements, inserted first in `<head>`.
pub(super) struct Head<'a> {
    /// Content-Security-Policy, also in a `<meta>` (the HTTP header carries it as well).
    pub csp: &'a str,
    /// Style sheet text (must not contain `</style`).
    pub style: &'a str,
    /// The per-run nonce of the one script allowed to run.
    pub nonce: &'a str,
    /// Script text (must not contain `</script`).
    pub script: &'a str,
}

/// Why a page cannot be shown safely: the check of the served markup found something that the
/// sanitiser should have removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsafeView(pub String);

impl fmt::Display for UnsafeView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "this page cannot be shown safely ({}); nothing was served", self.0)
    }
}

impl std::error::Error for UnsafeView {}

/// The page as the annotator serves it: sanitised, every block leaf wrapped in
/// `<span class="parcels-block" data-block="ID">` (with a badge before a block's first leaf),
/// the annotator's head first in `<head>`. Modifies `page`'s tree.
pub(super) fn page_view(page: &mut Page, division: &Division, style_of: &dyn Fn(usize) -> BlockStyle, head: &Head) -> Result<String, UnsafeView> {
    sanitise(&mut page.html);
    wrap_blocks(&mut page.html, division, style_of);
    insert_head(&mut page.html, head)?;
    let out = serialise(&page.html)?;
    check(&out, head)?;
    Ok(out)
}

/// Removes what could act, navigate or fetch, and takes the annotator's reserved names from
/// the page. Comments go too (nothing of the page's is in them, and old IE conditional
/// comments are markup in waiting).
fn sanitise(html: &mut Html) {
    let mut doomed = Vec::new();
    let mut elements = Vec::new();
    for node in html.tree.root().descendants() {
        match node.value() {
            Node::Comment(_) | Node::ProcessingInstruction(_) => doomed.push(node.id()),
            Node::Element(el) if dropped_element(el) => doomed.push(node.id()),
            Node::Element(_) => elements.push(node.id()),
            _ => {}
        }
    }
    for id in doomed {
        if let Some(mut node) = html.tree.get_mut(id) {
            node.detach();
        }
    }
    for id in elements {
        if let Some(mut node) = html.tree.get_mut(id) {
            if let Node::Element(el) = node.value() {
                clean_attributes(el);
            }
        }
    }
}

/// Whether an element goes, with its content.
fn dropped_element(el: &Element) -> bool {
    let name = el.name();
    if DROPPED.contains(&name) {
        return true;
    }
    // Any `http-equiv`, whatever its value or case: refresh navigates, a CSP of the page's own
    // could block the annotator, set-cookie and the rest have no business in a view.
    if name == "meta" && el.attrs().any(|(n, _)| n.eq_ignore_ascii_case("http-equiv")) {
        return true;
    }
    // `<link>` may prefetch, preconnect or import; only style sheets are kept (the CSP lets
    // them be asked of this server only).
    if name == "link" {
        let rel = el.attr("rel").unwrap_or("").to_ascii_lowercase();
        return !rel.split_ascii_whitespace().all(|r| r == "stylesheet");
    }
    false
}

/// Removes event handlers, script URLs, nonces and reserved names from one element.
fn clean_attributes(el: &mut Element) {
    // A named `<img>` or `<form>` becomes a property of `document` that hides the real one
    // (`<img name=getElementById>`), breaking the annotator's script.
    let named_on_document = matches!(el.name(), "img" | "form");
    el.attrs.retain(|name, value| {
        let local = (*name.local).to_ascii_lowercase();
        if unsafe_attribute(&local, value) || local == "nonce" || reserved_attr(&local) || (named_on_document && local == "name") {
            return false;
        }
        if local == "id" && has_reserved_prefix(value) {
            // Renamed, not removed: the page's own CSS or anchors may still refer to it, and the
            // new name cannot collide with an annotator id.
            *value = StrTendril::from(format!("page-{}", &**value).as_str());
        }
        if local == "class" && value.split_ascii_whitespace().any(has_reserved_prefix) {
            let kept: Vec<&str> = value.split_ascii_whitespace().filter(|c| !has_reserved_prefix(c)).collect();
            *value = StrTendril::from(kept.join(" ").as_str());
        }
        true
    });
}

fn has_reserved_prefix(s: &str) -> bool {
    s.get(..RESERVED_PREFIX.len()).is_some_and(|p| p.eq_ignore_ascii_case(RESERVED_PREFIX))
}

/// Event handlers, `srcdoc` (a document of its own), and values that are script URLs or HTML
/// documents. Every attribute's value is looked at, not only known URL attributes: SVG and
/// old markup have many.
fn unsafe_attribute(local: &str, value: &str) -> bool {
    if local.starts_with("on") || local == "srcdoc" || local == "http-equiv" {
        return true;
    }
    // Browsers ignore whitespace and control characters inside a URL scheme (`java\tscript:`).
    let v: String = value.chars().filter(|c| !c.is_whitespace() && !c.is_control()).take(32).collect::<String>().to_ascii_lowercase();
    v.starts_with("javascript:") || v.starts_with("vbscript:") || (local != "src" && v.starts_with("data:text/html"))
}

/// Wraps every attached block leaf in a block span (as nodes, so text stays text).
fn wrap_blocks(html: &mut Html, division: &Division, style_of: &dyn Fn(usize) -> BlockStyle) {
    let Some((wrapper, badge)) = templates() else { return };
    let root = html.tree.root().id();
    for block in &division.blocks {
        let style = style_of(block.id);
        let mut first = true;
        for &leaf in &block.nodes {
            // A leaf inside a removed element (or the root itself) gets no wrapper.
            let attached = html.tree.get(leaf).is_some_and(|n| n.id() != root && n.ancestors().last().is_some_and(|a| a.id() == root));
            if !attached {
                continue;
            }
            let mut span = wrapper.clone();
            set_attr(&mut span, "data-block", &block.id.to_string());
            set_attr(&mut span, "style", &format!("background:{}", style.color));
            let Some(mut node) = html.tree.get_mut(leaf) else { continue };
            let span_id = node.insert_before(Node::Element(span)).id();
            let Some(mut span_node) = html.tree.get_mut(span_id) else { continue };
            span_node.append_id(leaf);
            if first {
                let mut b = badge.clone();
                set_attr(&mut b, "data-badge", &block.id.to_string());
                span_node.prepend(Node::Element(b)).append(Node::Text(Text { text: StrTendril::from(style.badge.as_str()) }));
                first = false;
            }
        }
    }
}

/// A block wrapper and a badge, as html5ever builds them (scraper does not re-export the
/// names needed to build elements from scratch). `None` cannot happen with html5ever; it would
/// only leave the blocks undecorated.
fn templates() -> Option<(Element, Element)> {
    let t = Html::parse_fragment("<span class=\"parcels-block\" data-block=\"\" style=\"\"></span><span class=\"parcels-badge\" data-badge=\"\"></span>");
    let mut spans = t.tree.root().descendants().filter_map(|n| n.value().as_element().filter(|e| e.name() == "span").cloned());
    Some((spans.next()?, spans.next()?))
}

fn set_attr(el: &mut Element, name: &str, value: &str) {
    for (n, v) in el.attrs.iter_mut() {
        if &*n.local == name {
            *v = StrTendril::from(value);
        }
    }
}

/// Puts the annotator's head elements first in the page's `<head>` (parsed from our own
/// markup, then grafted, so they are nodes like the rest).
fn insert_head(html: &mut Html, head: &Head) -> Result<(), UnsafeView> {
    let markup = format!(
        "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"{}\"><meta charset=\"utf-8\"><style>{}</style><script nonce=\"{}\">{}</script></head></html>",
        escape_attr(head.csp),
        head.style,
        escape_attr(head.nonce),
        head.script
    );
    let ours = Html::parse_document(&markup);
    let page_head = find(html, &["html", "head"]).ok_or_else(|| UnsafeView("the page has no <head>".into()))?;
    let grafted = html.tree.extend_tree(ours.tree).id();
    let their_head = {
        let root = html.tree.get(grafted).ok_or_else(|| UnsafeView("grafting failed".into()))?;
        let html_el = root.children().find(|c| c.value().as_element().is_some_and(|e| e.name() == "html"));
        let head_el = html_el.and_then(|h| h.children().find(|c| c.value().as_element().is_some_and(|e| e.name() == "head")));
        head_el.map(|h| h.children().map(|c| c.id()).collect::<Vec<NodeId>>()).ok_or_else(|| UnsafeView("the annotator's head did not parse".into()))?
    };
    let mut target = html.tree.get_mut(page_head).ok_or_else(|| UnsafeView("the page has no <head>".into()))?;
    for id in their_head.into_iter().rev() {
        target.prepend_id(id);
    }
    Ok(())
}

/// The node at a path of element names from the document root.
fn find(html: &Html, path: &[&str]) -> Option<NodeId> {
    let mut node = html.tree.root();
    for name in path {
        node = node.children().find(|c| c.value().as_element().is_some_and(|e| e.name() == *name))?;
    }
    Some(node.id())
}

/// The document as text: the page's own doctype (so quirks mode, which old pages' layout needs,
/// is kept; html5ever would write only `<!DOCTYPE name>`), then the `<html>` element by
/// html5ever.
fn serialise(html: &Html) -> Result<String, UnsafeView> {
    let mut out = String::new();
    for child in html.tree.root().children() {
        match child.value() {
            Node::Doctype(d) => out.push_str(&doctype(d.name(), d.public_id(), d.system_id())),
            Node::Element(_) => {
                if let Some(el) = ElementRef::wrap(child) {
                    out.push_str(&el.html());
                }
            }
            _ => {}
        }
    }
    if out.is_empty() {
        return Err(UnsafeView("empty document".into()));
    }
    Ok(out)
}

/// A doctype as the tokenizer read it. Identifiers cannot hold `>` or their own quote, so one of
/// the two quotes always works.
fn doctype(name: &str, public: &str, system: &str) -> String {
    let quote = |s: &str| if s.contains('"') { format!("'{s}'") } else { format!("\"{s}\"") };
    let mut d = String::from("<!DOCTYPE");
    if !name.is_empty() {
        d.push(' ');
        d.push_str(name);
    }
    if !public.is_empty() {
        d.push_str(" PUBLIC ");
        d.push_str(&quote(public));
        if !system.is_empty() {
            d.push(' ');
            d.push_str(&quote(system));
        }
    } else if !system.is_empty() {
        d.push_str(" SYSTEM ");
        d.push_str(&quote(system));
    }
    d.push('>');
    d
}

/// Parses the served markup as a browser would and refuses it if anything dangerous is there:
/// a script other than the annotator's (by its nonce, which the page cannot know), a dropped
/// element, a `<meta http-equiv>` other than the annotator's CSP, an unsafe attribute, or a
/// reserved id.
pub(super) fn check(served: &str, head: &Head) -> Result<(), UnsafeView> {
    let doc = Html::parse_document(served);
    let (mut scripts, mut metas) = (0, 0);
    for node in doc.tree.root().descendants() {
        let Node::Element(el) = node.value() else { continue };
        let name = el.name();
        if name == "script" {
            scripts += 1;
            if el.attr("nonce") != Some(head.nonce) || scripts > 1 {
                return Err(UnsafeView("a script other than the annotator's".into()));
            }
            continue;
        }
        if DROPPED.contains(&name) {
            return Err(UnsafeView(format!("a <{name}> element")));
        }
        if let Some((_, v)) = el.attrs().find(|(n, _)| n.eq_ignore_ascii_case("http-equiv")) {
            metas += 1;
            let ours = name == "meta" && v.eq_ignore_ascii_case("content-security-policy") && el.attr("content") == Some(head.csp);
            if !ours || metas > 1 {
                return Err(UnsafeView(format!("a <{name} http-equiv={v:?}> element")));
            }
            continue;
        }
        for (n, v) in el.attrs() {
            let n = n.to_ascii_lowercase();
            if unsafe_attribute(&n, v) || n == "nonce" || (n == "id" && has_reserved_prefix(v)) {
                return Err(UnsafeView(format!("attribute {n} on <{name}>")));
            }
        }
    }
    if scripts != 1 {
        return Err(UnsafeView("the annotator's script is missing".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: Head = Head { csp: "default-src 'none'", style: "p{}", nonce: "n0nce", script: "1" };

    #[test]
    fn the_check_refuses_what_the_sanitiser_should_have_removed() {
        let ok = "<html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\"><script nonce=\"n0nce\">1</script></head><body><p>x</p></body></html>";
        assert_eq!(check(ok, &HEAD), Ok(()));
        for bad in [
            ok.replace("<p>x</p>", "<meta http-equiv=refresh content=0>"),
            ok.replace("<p>x</p>", "<svg></svg><meta HTTP-EQUIV=Refresh content=0>"),
            ok.replace("<p>x</p>", "<script>alert(1)</script>"),
            ok.replace("<p>x</p>", "<script nonce=n0nce>2</script>"),
            ok.replace("<p>x</p>", "<p onclick=x()>x</p>"),
            ok.replace("<p>x</p>", "<a href=' java\tscript:x()'>x</a>"),
            ok.replace("<p>x</p>", "<base href=http://evil/>"),
            ok.replace("<p>x</p>", "<object data=x></object>"),
            ok.replace("<p>x</p>", "<p id=parcels-data>x</p>"),
            ok.replace("<script nonce=\"n0nce\">1</script>", ""),
        ] {
            assert!(check(&bad, &HEAD).is_err(), "{bad}");
        }
    }

    #[test]
    fn doctypes_keep_their_identifiers() {
        assert_eq!(doctype("html", "", ""), "<!DOCTYPE html>");
        assert_eq!(doctype("html", "-//W3C//DTD HTML 4.01 Transitional//EN", ""), "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\">");
        assert_eq!(doctype("html", "", "a\"b"), "<!DOCTYPE html SYSTEM 'a\"b'>");
        assert_eq!(doctype("", "", ""), "<!DOCTYPE>");
    }
}
