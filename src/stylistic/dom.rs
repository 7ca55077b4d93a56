//! DOM helpers shared by the feature families: a block's anchor element, ancestor walks, text
//! measures. All iterative.

use ego_tree::{NodeId, NodeRef};
use scraper::Node;

use crate::divide::Block;
use crate::page::Page;

/// The element a leaf is drawn with: a text node's parent, a replaced element itself.
pub fn leaf_element(page: &Page, leaf: NodeId) -> Option<NodeId> {
    let node = page.html.tree.get(leaf)?;
    match node.value() {
        Node::Element(_) => Some(leaf),
        _ => node.parent().filter(|p| p.value().is_element()).map(|p| p.id()),
    }
}

/// The element that stands for a block in placement features: its first leaf's element.
pub fn block_element(page: &Page, block: &Block) -> Option<NodeId> {
    block.nodes.first().and_then(|&n| leaf_element(page, n))
}

/// The element's tag name, lower case.
pub fn tag<'a>(node: &NodeRef<'a, Node>) -> Option<&'a str> {
    node.value().as_element().map(|e| e.name())
}

/// The element and its element ancestors, nearest first.
pub fn self_and_ancestors<'a>(page: &'a Page, id: NodeId) -> impl Iterator<Item = NodeRef<'a, Node>> + 'a {
    let start = page.html.tree.get(id);
    start.into_iter().flat_map(|n| std::iter::once(n).chain(n.ancestors())).filter(|n| n.value().is_element())
}

/// Number of element ancestors (the root element has depth 0).
pub fn depth(page: &Page, id: NodeId) -> usize {
    self_and_ancestors(page, id).count().saturating_sub(1)
}

/// Non-whitespace characters of a text node (the weight of a leaf in font statistics).
pub fn text_chars(page: &Page, leaf: NodeId) -> usize {
    match page.html.tree.get(leaf).map(|n| n.value()) {
        Some(Node::Text(t)) => t.chars().filter(|c| !c.is_whitespace()).count(),
        _ => 0,
    }
}

/// Words (tokens with a letter or digit) and whether every word is numeric (digits with
/// number punctuation: `1,234.5`, `12:30`, `$5`, `-3%`).
pub fn word_profile(text: &str) -> (usize, bool) {
    let mut words = 0;
    let mut numeric = true;
    for w in text.split_whitespace() {
        if !w.chars().any(char::is_alphanumeric) {
            continue;
        }
        words += 1;
        if !w.chars().all(|c| c.is_ascii_digit() || ",.:/-+%$€£¥()".contains(c)) {
            numeric = false;
        }
    }
    (words, numeric && words > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_profiles() {
        assert_eq!(word_profile("1,234 56.7%"), (2, true));
        assert_eq!(word_profile("3 apples"), (2, false));
        assert_eq!(word_profile(" - "), (0, false));
    }
}
