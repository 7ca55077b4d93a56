//! The divider on small pages the project wrote (tests/pages/): exact blocks for a table layout
//! with nested tables, a div/CSS layout, a linear page, malformed markup and each encoding.

use std::path::PathBuf;

use parcels::divide::{Divider, LinkKind};
use parcels::page::{EncodingSource, LoadOptions, Page};

fn fixture(name: &str) -> Page {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pages").join(name);
    Page::load(&path, &LoadOptions::default()).unwrap()
}

/// (locator below /html[1]/body[1], text) of every block.
fn blocks(name: &str) -> Vec<(String, String)> {
    let page = fixture(name);
    Divider::default().divide(&page).blocks.into_iter().map(|b| (b.locator.trim_start_matches("/html[1]/body[1]").to_string(), b.text)).collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected.iter().map(|(l, t)| (l.to_string(), t.to_string())).collect()
}

#[test]
fn table_layout_with_nested_tables() {
    let t = "/table[1]/tbody[1]";
    assert_eq!(
        blocks("table.html"),
        pairs(&[
            (&format!("{t}/tr[1]/td[1]/img[1]"), "The Daily Courier"),
            (&format!("{t}/tr[2]/td[1]/table[1]/tbody[1]/tr[1]/td[1]/a[1]"), "Home"),
            (&format!("{t}/tr[2]/td[1]/table[1]/tbody[1]/tr[2]/td[1]/a[1]"), "World"),
            (&format!("{t}/tr[2]/td[1]/table[1]/tbody[1]/tr[3]/td[1]/a[1]"), "Sport"),
            (&format!("{t}/tr[2]/td[1]/form[1]"), "Search"),
            (&format!("{t}/tr[2]/td[2]/font[1]/b[1]"), "Storm closes harbour for third day"),
            (&format!("{t}/tr[2]/td[2]/font[2]"), "By Jane Miller, Staff Reporter"),
            (&format!("{t}/tr[2]/td[2]/font[2]"), "March 3, 2008"),
            (&format!("{t}/tr[2]/td[2]/p[1]"), "HALIFAX - Gale-force winds kept the harbour closed on Monday, the port authority said."),
            (&format!("{t}/tr[2]/td[2]/p[2]"), "Ferries to the islands were cancelled until the weather improves."),
            (&format!("{t}/tr[2]/td[2]/table[1]/tbody[1]/tr[1]/td[1]/img[1]"), "Waves over the pier"),
            (&format!("{t}/tr[2]/td[2]/table[1]/tbody[1]/tr[2]/td[1]/i[1]"), "Waves break over the pier on Sunday."),
            (&format!("{t}/tr[3]/td[1]/font[1]"), "© 2008 Daily Courier. All rights reserved."),
        ])
    );
}

#[test]
fn table_layout_block_details() {
    let page = fixture("table.html");
    let d = Divider::default().divide(&page);
    let masthead = &d.blocks[0].images[0];
    assert_eq!((masthead.width, masthead.height, masthead.linked), (Some(600), Some(80), false));
    assert_eq!(d.blocks[1].links[0].href, "/");
    assert_eq!(d.blocks[4].images.len(), 2, "text field and submit button");
    assert_eq!(d.blocks[9].links[0].text, "the weather");
    assert_eq!(d.blocks[5].container_path, "html/body/table/tbody/tr/td");
    assert_eq!(d.blocks[8].words, 13, "the dash is not a word");
}

#[test]
fn div_css_layout() {
    let c = "/div[3]/div[1]";
    assert_eq!(
        blocks("layers.html"),
        pairs(&[
            ("/div[1]/img[1]", "Metro Times"),
            ("/div[1]/div[1]/a[1]/img[1]", ""),
            ("/div[2]/ul[1]", "News Arts Jobs"),
            (&format!("{c}/h1[1]"), "Council approves new tram line"),
            (&format!("{c}/div[1]"), "By Luis Ochoa"),
            (&format!("{c}/div[2]"), "Published 12 May 2012"),
            (&format!("{c}/p[1]"), "The city council voted 9-2 on Tuesday to fund a tram line along the river."),
            (&format!("{c}/h2[1]"), "Costs"),
            (&format!("{c}/p[2]"), "The line is expected to cost $240 million."),
            ("/div[3]/div[2]/h3[1]", "Related"),
            ("/div[3]/div[2]/ul[1]", "Buses to get new routes Bridge repairs delayed"),
            ("/div[4]", "Tracking pixel text"),
            ("/div[5]", "Copyright 2012 Metro Times. Contact us"),
        ])
    );
    let d = Divider::default().divide(&fixture("layers.html"));
    assert!(d.blocks[11].hidden && !d.blocks[10].hidden);
    assert_eq!(d.blocks[12].links[0].kind, LinkKind::Mailto);
    assert_eq!(d.blocks[1].images[0].width, Some(468));
}

#[test]
fn linear_page() {
    assert_eq!(
        blocks("linear.html"),
        pairs(&[
            ("/h1[1]", "Village fair draws record crowd"),
            ("/p[1]", "More than five thousand people came to the fair on Saturday."),
            ("/p[2]", "The pie contest was won by a retired teacher."),
            ("/p[3]", "Copyright 2007 Valley Weekly"),
        ])
    );
}

#[test]
fn malformed_markup_is_repaired_like_a_browser() {
    // html5ever moves the stray <p>s out of the table ("foster parenting"), drops stray end tags
    // and repairs misnested formatting elements.
    assert_eq!(
        blocks("malformed.html"),
        pairs(&[
            ("/p[1]", "Unclosed paragraph one"),
            ("/p[2]", "Unclosed paragraph two"),
            ("/table[1]/tbody[1]/tr[1]/td[1]", "Cell one"),
            ("/table[1]/tbody[1]/tr[1]/td[2]", "Cell two bold italic"),
            ("/div[1]", "Stray end tags"),
            ("/ul[1]", "first second"),
            ("/p[3]", "Text & entities <here> &bogus; and custom tags"),
        ])
    );
}

#[test]
fn each_encoding_decodes_to_the_same_words() {
    let cases = [
        ("latin1.html", "Café owners in São Paulo said “naïve” plans cost £200.", "windows-1252", EncodingSource::Meta),
        ("utf8-bom.html", "Zürich – “Grüße”", "UTF-8", EncodingSource::Bom),
        ("utf16le.html", "Москва news", "UTF-16LE", EncodingSource::Bom),
        ("shift_jis.html", "東京のニュース", "Shift_JIS", EncodingSource::Meta),
        (
            "undeclared-1252.html",
            "Déjà vu: the café’s crème brûlée is naïve and très chère, résumé à la façon française.",
            "windows-1252",
            EncodingSource::Guess,
        ),
    ];
    for (name, text, encoding, source) in cases {
        let page = fixture(name);
        assert_eq!((page.encoding.name(), page.encoding_source), (encoding, source), "{name}");
        assert_eq!(blocks(name), pairs(&[("/p[1]", text)]), "{name}");
    }
}

fn divide_bytes(bytes: &[u8]) -> Result<Vec<String>, String> {
    let page = Page::from_bytes("hostile.html", bytes, &LoadOptions::default()).map_err(|e| e.to_string())?;
    Ok(Divider::default().divide(&page).blocks.into_iter().map(|b| b.text).collect())
}

#[test]
fn hostile_inputs() {
    let deep = format!("{}deep{}", "<div>".repeat(100_000), "</div>".repeat(100_000));
    assert_eq!(divide_bytes(deep.as_bytes()).unwrap(), ["deep"]);
    let deep_tables = "<table><tr><td>".repeat(30_000) + "cell";
    assert_eq!(divide_bytes(deep_tables.as_bytes()).unwrap(), ["cell"]);
    // Beyond the element cap (page::MAX_ELEMENTS) the page is cut, and the cut is recorded.
    let deeper = "<table><tr><td>".repeat(100_000) + "cell";
    let page = Page::from_bytes("hostile.html", deeper.as_bytes(), &LoadOptions::default()).unwrap();
    assert!(page.repairs.iter().any(|r| format!("{r:?}").contains("TruncatedElements")), "{:?}", page.repairs);
    let deep_inline = "<b><i><font>".repeat(30_000) + "x";
    assert_eq!(divide_bytes(deep_inline.as_bytes()).unwrap(), ["x"]);
    // The HTML standard ignores NUL characters in body text.
    assert_eq!(divide_bytes(b"<p>nul\0byte</p>").unwrap(), ["nulbyte"]);
    assert_eq!(divide_bytes(b"").unwrap_err(), "hostile.html: page is empty");
    let junk: Vec<u8> = (0..10_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
    assert!(divide_bytes(&junk).unwrap_err().starts_with("hostile.html: not HTML"));
    // Text without any markup is not a page (a configuration file given by mistake).
    assert!(divide_bytes(b"no markup at all").unwrap_err().starts_with("hostile.html: not HTML: no markup"));
    assert_eq!(divide_bytes(b"<<<>>></></p></table><td>").unwrap(), ["<<<>>>"]);
}

#[test]
fn mangled_title_end_tag_gives_headline_and_text_blocks() {
    // Seen in a 2008 crawl: the tokenizer takes `</titlevalue="true" -->` for title text, so the
    // whole page was the title and divided into 0 blocks.
    let html = b"<html><head><title>Storm hits coast</titlevalue=\"true\" -->\n<meta name=x></head>\
        <body><h1>Storm hits coast</h1><div><p>The storm reached the coast on Monday.</p></div></body></html>";
    let page = Page::from_bytes("title.html", html, &LoadOptions::default()).unwrap();
    assert_eq!(page.repairs, [parcels::page::Repair::ClosedTitle]);
    let texts: Vec<String> = Divider::default().divide(&page).blocks.into_iter().map(|b| b.text).collect();
    assert_eq!(texts, ["Storm hits coast", "The storm reached the coast on Monday."]);
    // The other raw-text elements swallow the page the same way and are repaired the same way.
    for tag in ["textarea", "style", "script", "xmp"] {
        let html = format!("<html><head></head><body><{tag}>x</{tag}value=\"true\" --><h1>Headline</h1><p>Text.</p></body></html>");
        let page = Page::from_bytes("raw.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        assert_eq!(page.repairs, [parcels::page::Repair::ClosedRawText], "{tag}");
        let texts: Vec<String> = Divider::default().divide(&page).blocks.into_iter().map(|b| b.text).collect();
        assert!(texts.ends_with(&["Headline".to_string(), "Text.".to_string()]), "{tag}: {texts:?}");
    }
}
