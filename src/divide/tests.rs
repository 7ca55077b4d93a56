use super::*;
use crate::page::{LoadOptions, Page};

fn page(html: &str) -> Page {
    Page::from_bytes("t.html", html.as_bytes(), &LoadOptions::default()).unwrap()
}

fn texts(html: &str) -> Vec<String> {
    Divider::default().divide(&page(html)).blocks.into_iter().map(|b| b.text).collect()
}

#[test]
fn paragraphs_are_separate_blocks_and_inline_tags_merge() {
    assert_eq!(texts("<body><p>First <b>bold</b> para.</p><p>Second<i>ital</i></p></body>"), ["First bold para.", "Secondital"]);
}

#[test]
fn text_around_a_structural_element_splits() {
    assert_eq!(texts("<table><tr><td>a<p>b</p>c</td></tr></table>"), ["a", "b", "c"]);
}

#[test]
fn list_items_merge_under_their_list() {
    let html = "<ul><li><a href=/a>Home</a></li><li><a href=/b>News</a></li></ul><ul><li>Other</li></ul>";
    let d = Divider::default().divide(&page(html));
    assert_eq!(d.blocks.len(), 2);
    assert_eq!(d.blocks[0].text, "Home News");
    assert_eq!(d.blocks[0].links.len(), 2);
    assert_eq!(d.blocks[0].links[1], Link { href: "/b".into(), text: "News".into(), kind: LinkKind::Text });
    assert_eq!(d.blocks[0].container, "/html[1]/body[1]/ul[1]");
    assert_eq!(d.blocks[1].container, "/html[1]/body[1]/ul[2]");
}

#[test]
fn images_make_their_own_block_with_alt_text() {
    let html = "<div>Before <a href=big.jpg><img src=t.jpg alt=' Thumb ' width=80 height='60px'></a> after</div>";
    let d = Divider::default().divide(&page(html));
    let t: Vec<&str> = d.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(t, ["Before", "Thumb", "after"]);
    let img = &d.blocks[1].images[0];
    assert_eq!((img.width, img.height, img.linked), (Some(80), Some(60), true));
    assert_eq!(d.blocks[1].links[0].kind, LinkKind::Image);
    assert_eq!(d.blocks[1].locator, "/html[1]/body[1]/div[1]/a[1]/img[1]");
}

#[test]
fn textless_image_owns_an_object_character() {
    let d = Divider::default().divide(&page("<p>x</p><img src=logo.gif>"));
    assert_eq!(d.text, format!("x\n{OBJECT_CHAR}"));
    assert_eq!(d.blocks[1].text, "");
    assert_eq!(d.blocks[1].chars, [2, 3]);
}

#[test]
fn nesting_beyond_max_depth_joins_the_higher_ancestor() {
    // Five nested tables: with d = 4 the fifth table and its cells are ignored, so both of its
    // cells attach to the fourth table's cell and merge.
    let mut html = String::new();
    for _ in 0..4 {
        html.push_str("<table><tr><td>");
    }
    html.push_str("<table><tr><td>deep one</td><td>deep two</td></tr></table>");
    for _ in 0..4 {
        html.push_str("</td></tr></table>");
    }
    assert_eq!(texts(&html), ["deep one deep two"]);
    let config = DividerConfig { max_depth: 5, ..DividerConfig::default() };
    let d = Divider::new(config).divide(&page(&html));
    assert_eq!(d.blocks.iter().map(|b| b.text.as_str()).collect::<Vec<_>>(), ["deep one", "deep two"]);
}

#[test]
fn line_breaks_end_blocks_as_configured() {
    let html = "<td>line one<br>line two<br><br>next para<br> <br>third</td>";
    assert_eq!(texts(html), ["line one", "line two", "next para", "third"]);
    let mut config = DividerConfig { br_breaks: 2, ..DividerConfig::default() };
    let two: Vec<String> = Divider::new(config.clone()).divide(&page(html)).blocks.into_iter().map(|b| b.text).collect();
    assert_eq!(two, ["line one line two", "next para", "third"]);
    config.br_breaks = 0;
    assert_eq!(Divider::new(config).divide(&page(html)).blocks.len(), 1);
}

#[test]
fn skipped_elements_and_comments_give_no_text() {
    assert_eq!(
        texts("<head><title>T</title><style>p{}</style></head><body><script>var x='<p>no</p>'</script><!-- c --><p>yes</p><noscript>ns</noscript><template><p>t</p></template></body>"),
        ["yes"]
    );
}

#[test]
fn hidden_elements_are_recorded_and_not_merged_with_visible_text() {
    let d = Divider::default().divide(&page(
        "<div>shown <span style='DISPLAY : none'>gone</span> <span hidden>also</span> <span style='visibility:hidden !important'>too</span> end</div>",
    ));
    let got: Vec<(&str, bool)> = d.blocks.iter().map(|b| (b.text.as_str(), b.hidden)).collect();
    // Adjacent hidden leaves merge with each other, never with visible ones.
    assert_eq!(got, [("shown", false), ("gone also too", true), ("end", false)]);
}

#[test]
fn blocks_partition_the_page_text() {
    let html = "<div>a <b>b</b></div><p>c<img alt=d></p><ul><li>e</li><li>f</li></ul>";
    let d = Divider::default().divide(&page(html));
    let chars: Vec<char> = d.text.chars().collect();
    let mut next = 0;
    for b in &d.blocks {
        let [s, e] = b.chars;
        assert!(s == next || (s == next + 1 && chars[next] == '\n'), "gap before block {}", b.id);
        assert!(e > s);
        next = e;
    }
    assert_eq!(next, chars.len());
}

#[test]
fn locators_index_same_named_siblings() {
    let d = Divider::default().divide(&page("<div>a</div><div><p>b</p><p>c</p></div>"));
    let locs: Vec<&str> = d.blocks.iter().map(|b| b.locator.as_str()).collect();
    assert_eq!(locs, ["/html[1]/body[1]/div[1]", "/html[1]/body[1]/div[2]/p[1]", "/html[1]/body[1]/div[2]/p[2]"]);
    assert_eq!(d.blocks[2].container_path, "html/body/div/p");
}

#[test]
fn mailto_and_form_fields() {
    let d = Divider::default().divide(&page(
        "<form><input type=text name=q><input type=submit value='Search'><input type=hidden value=secret></form><p><a href='MAILTO:x@y.z'>Mail us</a></p>",
    ));
    assert_eq!(d.blocks[0].text, "Search");
    assert_eq!(d.blocks[0].images.len(), 2);
    assert!(!d.text.contains("secret"));
    assert_eq!(d.blocks[1].links[0].kind, LinkKind::Mailto);
}

#[test]
fn coarse_inventory_gives_fewer_blocks() {
    let html = "<div><h1>Title</h1><p>One</p><p>Two</p><ul><li>a</li></ul></div><div><p>Side</p></div>";
    let fine = Divider::default().divide(&page(html)).blocks.len();
    let coarse_cfg = DividerConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/divider-coarse.toml")).unwrap();
    let coarse = Divider::new(coarse_cfg).divide(&page(html));
    assert_eq!(fine, 5);
    assert_eq!(coarse.blocks.iter().map(|b| b.text.as_str()).collect::<Vec<_>>(), ["Title One Two a", "Side"]);
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 100_000;
    let html = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
    let d = Divider::default().divide(&page(&html));
    assert_eq!(d.blocks.len(), 1);
    assert_eq!(d.blocks[0].text, "deep");
}

#[test]
fn a_text_bearing_own_block_element_splits_a_byline_from_its_date() {
    let html = r#"<div>By <a href=/a>Jo Li</a> <time datetime="2024-03-03">March <b>3</b>, 2024</time> | 3 min read</div>"#;
    let mut config = DividerConfig::default();
    assert_eq!(texts(html), ["By Jo Li March 3, 2024 | 3 min read"], "the built-in inventory keeps the line whole");
    config.own_block.push("time".into());
    let d = Divider::new(config).divide(&page(html));
    let t: Vec<&str> = d.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(t, ["By Jo Li", "March 3, 2024", "| 3 min read"]);
    assert_eq!(d.blocks[1].locator, "/html[1]/body[1]/div[1]/time[1]");
    assert_eq!(d.blocks[1].container, "/html[1]/body[1]/div[1]", "the time element is no container");
    assert_eq!(Divider::default().divide(&page(html)).text, d.text, "the page text, and so the labels, do not change");
}

#[test]
fn the_bylines_divider_file_is_the_built_in_one_with_time_split_off() {
    let bylines = DividerConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/divider-bylines.toml")).unwrap();
    let mut expected = DividerConfig::default();
    expected.own_block.push("time".into());
    assert_eq!(bylines, expected);
}
