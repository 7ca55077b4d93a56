//! The document walk that defines page-text coordinates: a pre-order traversal of open and close
//! edges that leaves out whole subtrees (`script`, `style`, hidden inputs…) or only the children
//! of an element (replaced elements such as `<img>` or `<iframe>`).
//!
//! The divider, the block view and the L3S label import all read pages through this one walk, so
//! they agree on which text exists; each decides per element what to leave out.

use ego_tree::iter::{Edge, Traverse};
use ego_tree::{NodeId, NodeRef};
use scraper::Node;

/// What the walk does with a node it opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Visit {
    /// Yield its open edge, its subtree and its close edge.
    Enter,
    /// Leave out the node and its whole subtree (neither edge is yielded).
    Skip,
    /// Yield its open and close edges but none of its descendants.
    Childless,
}

/// Pre-order open/close edges of a tree, minus the subtrees the `decide` function leaves out.
pub(crate) struct SkipWalk<'a, F> {
    edges: Traverse<'a, Node>,
    decide: F,
    /// The node whose subtree is being left out, and whether its close edge is yielded.
    skipping: Option<(NodeId, bool)>,
}

impl<'a, F: FnMut(NodeRef<'a, Node>) -> Visit> SkipWalk<'a, F> {
    /// A walk of `root`'s subtree (root included); `decide` is asked once per node the walk
    /// reaches (never for nodes inside a left-out subtree).
    pub(crate) fn new(root: NodeRef<'a, Node>, decide: F) -> Self {
        SkipWalk { edges: root.traverse(), decide, skipping: None }
    }
}

impl<'a, F: FnMut(NodeRef<'a, Node>) -> Visit> Iterator for SkipWalk<'a, F> {
    type Item = Edge<'a, Node>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.edges.next()? {
                Edge::Open(node) => {
                    if self.skipping.is_some() {
                        continue;
                    }
                    match (self.decide)(node) {
                        Visit::Enter => return Some(Edge::Open(node)),
                        Visit::Skip => self.skipping = Some((node.id(), false)),
                        Visit::Childless => {
                            self.skipping = Some((node.id(), true));
                            return Some(Edge::Open(node));
                        }
                    }
                }
                Edge::Close(node) => {
                    if let Some((id, yield_close)) = self.skipping {
                        if id != node.id() {
                            continue;
                        }
                        self.skipping = None;
                        if !yield_close {
                            continue;
                        }
                    }
                    return Some(Edge::Close(node));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `+tag` / `-tag` per element edge, `"text"` per text open edge.
    fn edges(html: &str, decide: impl FnMut(NodeRef<'_, Node>) -> Visit) -> Vec<String> {
        let doc = scraper::Html::parse_fragment(html);
        SkipWalk::new(doc.tree.root(), decide)
            .filter_map(|e| match e {
                Edge::Open(n) => match n.value() {
                    Node::Element(el) => Some(format!("+{}", el.name())),
                    Node::Text(t) => Some(format!("{:?}", &t[..])),
                    _ => None,
                },
                Edge::Close(n) => n.value().as_element().map(|el| format!("-{}", el.name())),
            })
            .collect()
    }

    fn by_tag(node: NodeRef<'_, Node>) -> Visit {
        match node.value().as_element().map(|e| e.name()) {
            Some("script") => Visit::Skip,
            Some("object") => Visit::Childless,
            _ => Visit::Enter,
        }
    }

    #[test]
    fn skipped_subtrees_vanish_and_childless_elements_keep_their_edges() {
        let got = edges("<p>a<script>x<b>y</b></script>b<object><i>z</i></object>c</p>", by_tag);
        assert_eq!(got, ["+html", "+p", "\"a\"", "\"b\"", "+object", "-object", "\"c\"", "-p", "-html"]);
    }

    #[test]
    fn nested_skips_end_at_the_outer_close() {
        // A script inside an object is never asked about: the object's children are left out.
        let mut asked = Vec::new();
        let got = edges("<object><script></script><b>x</b></object><script><object></object></script><u>y</u>", |n| {
            if let Some(el) = n.value().as_element() {
                asked.push(el.name().to_string());
            }
            by_tag(n)
        });
        assert_eq!(got, ["+html", "+object", "-object", "+u", "\"y\"", "-u", "-html"]);
        assert_eq!(asked, ["html", "object", "script", "u"]);
    }
}
