//! Hostile pages complete in bounded time and memory: each case once took minutes or gigabytes
//! (see the bounds' documentation). The sizes here run in a couple of seconds in release; the
//! tests check the output and the recorded repairs, not the time.

use parcels::css::{CssOptions, CssWarning, StyledDom, CLASSES_PER_RULE_TEST, MAX_AUTHOR_CANDIDATES_PER_PAGE, MAX_RULES_PER_PAGE};
use parcels::divide::Divider;
use parcels::page::{truncate_elements, LoadOptions, Page, Repair, MAX_ELEMENTS};
use parcels::stylistic::table::{MAX_GRID_SLOTS, MAX_SPAN};
use parcels::stylistic::{extract, StyleOptions};

fn load(html: &str) -> Page {
    Page::from_bytes("hostile.html", html.as_bytes(), &LoadOptions::default()).expect("page loads")
}

fn column(names: &[String], name: &str) -> usize {
    names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no feature {name}"))
}

#[test]
fn sibling_paragraphs_beyond_the_element_bound_are_cut_with_a_repair() {
    let n = MAX_ELEMENTS + 20_000;
    let html = format!("<html><body>{}</body></html>", "<p>x</p>".repeat(n));
    let page = load(&html);
    assert_eq!(page.repairs, [Repair::TruncatedElements]);
    let elements = page.html.tree.nodes().filter(|n| n.value().is_element()).count();
    // The parser adds the implied `<head>`.
    assert_eq!(elements, MAX_ELEMENTS + 1);
    let division = Divider::default().divide(&page);
    // html and body are two of the elements kept; every other one is a paragraph block.
    assert_eq!(division.blocks.len(), MAX_ELEMENTS - 2);
    assert!(division.blocks.iter().all(|b| b.text == "x"));
}

#[test]
fn the_element_scan_skips_comments_and_raw_text() {
    let html = "<p>a</p><!-- <b><b><b> --><script>if (a<b) { x = '<i>' }</script><p>b</p><p>c</p>";
    // p, script, p: the third start tag is where a page keeping two is cut.
    assert_eq!(truncate_elements(html, 3), html.rfind("<p>"));
    assert_eq!(truncate_elements(html, 2), html.find("<p>b"));
    assert_eq!(truncate_elements(html, 4), None);
    // A real page keeps everything (and is not copied).
    let page = load("<html><body><p>Hello <b>world</b></p></body></html>");
    assert!(page.repairs.is_empty());
}

#[test]
fn a_large_table_computes_its_cell_features_in_linear_time() {
    // 40,000 cells: the old per-cell scans of the whole table made this 3.2 billion steps.
    let n = 200;
    let row = format!("<tr>{}</tr>", "<td>x</td>".repeat(n));
    let html = format!("<html><body><table>{}</table></body></html>", row.repeat(n));
    let page = load(&html);
    assert!(page.repairs.is_empty());
    let division = Divider::default().divide(&page);
    assert_eq!(division.blocks.len(), n * n);
    let f = extract(&page, &division, &StyleOptions::default()).expect("features");
    let (rows, cols) = (column(&f.names, "table.rows"), column(&f.names, "table.cols"));
    let (row_same, col_same) = (column(&f.names, "table.row_same_type"), column(&f.names, "table.col_same_type"));
    let neighbours = column(&f.names, "table.neighbours_same_type");
    for r in &f.rows {
        assert_eq!((r[rows], r[cols]), (n as f64, n as f64));
        assert_eq!((r[row_same], r[col_same], r[neighbours]), (1.0, 1.0, 1.0));
    }
}

#[test]
fn deeply_nested_inline_elements_divide_in_linear_time() {
    // 90,000 nested spans (below the element bound), each with text: the divider looked for the nearest container
    // through the whole stack for every text leaf.
    let n = 90_000;
    let html = format!("<html><body><div>{}{}</div></body></html>", "<span>x".repeat(n), "</span>".repeat(n));
    let page = load(&html);
    assert!(page.repairs.is_empty());
    let division = Divider::default().divide(&page);
    assert_eq!(division.blocks.len(), 1);
    assert_eq!(division.blocks[0].text.len(), n);
}

#[test]
fn universal_rules_beyond_the_rule_bound_are_dropped_with_a_warning() {
    let html = format!(
        "<html><head><style>{}</style></head><body>{}</body></html>",
        "* { color: red }\n".repeat(MAX_RULES_PER_PAGE + 30_000),
        "<p>a <b>b</b></p>".repeat(100)
    );
    let page = load(&html);
    let styled = StyledDom::compute(&page, &CssOptions::default()).expect("cascade");
    assert_eq!(styled.stats.author_rules, MAX_RULES_PER_PAGE);
    assert!(styled.warnings.iter().any(|w| matches!(w, CssWarning::RuleLimit { dropped: 30_000, max: MAX_RULES_PER_PAGE, .. })), "{:?}", styled.warnings);
    assert_eq!(styled.select(&page, "b").map(|s| s.color.0), Some([255, 0, 0, 255]));
}

#[test]
fn author_rule_matching_stops_at_the_page_budget_with_a_warning() {
    // Every element is tried against every universal rule: past the budget, the remaining
    // elements get the user-agent style only.
    let elements = 2 * MAX_AUTHOR_CANDIDATES_PER_PAGE / MAX_RULES_PER_PAGE;
    let html = format!(
        "<html><head><style>{}</style></head><body>{}<i>last</i></body></html>",
        "* { background-color: red }\n".repeat(MAX_RULES_PER_PAGE),
        "<p>a</p>".repeat(elements)
    );
    let page = load(&html);
    let styled = StyledDom::compute(&page, &CssOptions::default()).expect("cascade");
    let unstyled = styled.warnings.iter().find_map(|w| match w {
        CssWarning::CascadeBudget { elements, max: MAX_AUTHOR_CANDIDATES_PER_PAGE, .. } => Some(*elements),
        _ => None,
    });
    // html, head, style, body and the first paragraphs fit in the budget.
    let styled_elements = MAX_AUTHOR_CANDIDATES_PER_PAGE / MAX_RULES_PER_PAGE;
    assert_eq!(unstyled, Some(elements + 5 - styled_elements), "{:?}", styled.warnings);
    // Backgrounds are not inherited: the last element has none of its own.
    assert_eq!(styled.select(&page, "p").map(|s| s.background.0), Some([255, 0, 0, 255]));
    assert_eq!(styled.select(&page, "i").map(|s| s.background.0[3]), Some(0));
}

/// Every feature of every block is finite or missing (`NaN`), never infinite.
fn assert_finite_or_missing(f: &parcels::stylistic::StylisticFeatures) {
    for (b, row) in f.rows.iter().enumerate() {
        for (v, name) in row.iter().zip(&f.names) {
            assert!(v.is_finite() || v.is_nan(), "block {b}: {name} = {v}");
        }
    }
}

#[test]
fn many_large_spans_stop_at_the_grid_slot_bound() {
    // 20,000 rows of one `colspan=100 rowspan=100` cell filled 200 million grid slots (410 MB,
    // 1.6 s) before MAX_GRID_SLOTS; each cell covers 100 × 100 slots until the bound is reached.
    let n = 20_000;
    let html = format!("<html><body><table>{}</table></body></html>", "<tr><td colspan=100 rowspan=100>x</td>".repeat(n));
    let page = load(&html);
    let division = Divider::default().divide(&page);
    assert_eq!(division.blocks.len(), n);
    let f = extract(&page, &division, &StyleOptions::default()).expect("features");
    let (rowspan, colspan) = (column(&f.names, "table.rowspan"), column(&f.names, "table.colspan"));
    let full = MAX_GRID_SLOTS / (MAX_SPAN * MAX_SPAN);
    assert_eq!((f.rows[full - 1][rowspan], f.rows[full - 1][colspan]), (100.0, 100.0));
    assert_eq!((f.rows[full][rowspan], f.rows[full][colspan]), (1.0, 1.0));
    assert_eq!((f.rows[n - 1][rowspan], f.rows[n - 1][colspan]), (1.0, 1.0));
    assert_finite_or_missing(&f);
}

#[test]
fn huge_spans_z_indexes_and_font_sizes_give_finite_features() {
    let html = concat!(
        "<html><body><table><tr><td colspan=100000>wide</td><td rowspan=65534>tall</td></tr>",
        "<tr><td colspan=4294967297>overflowing span</td></tr></table>",
        "<div style=\"position: absolute; z-index: 99999999999999999999; font-size: 1e308px; width: 1e39px; margin-left: -1e308px\">big</div>",
        "<p style=\"font-size: 99999999999999999999999999999999999999999pt; line-height: 1e300\">huge font</p>",
        "<font size=\"+2147483647\">plus</font><font size=\"-99999999999\">minus</font>",
        "<div style=\"font-size: calc(1e308px * 10); z-index: -99999999999999999999\">calc</div></body></html>"
    );
    let page = load(html);
    let division = Divider::default().divide(&page);
    let texts: Vec<&str> = division.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["wide", "tall", "overflowing span", "big", "huge font", "plusminus", "calc"]);
    let f = extract(&page, &division, &StyleOptions::default()).expect("features");
    assert_finite_or_missing(&f);
    let colspan = column(&f.names, "table.colspan");
    let rowspan = column(&f.names, "table.rowspan");
    // Spans are capped at MAX_SPAN (rowspan also at the rows left in the table).
    assert_eq!((f.rows[0][colspan], f.rows[1][rowspan]), (MAX_SPAN as f64, 2.0));
    assert_eq!(f.rows[2][colspan], MAX_SPAN as f64);
}

#[test]
fn hundred_thousand_deep_nesting_of_each_tag_is_bounded() {
    // Each of these once risked a recursion or a quadratic walk over page-controlled depth.
    let n = 100_000;
    for tag in ["table", "ul", "span", "font", "a", "b", "div"] {
        let html = format!("<html><body>{}{}</body></html>", format!("<{tag}>x").repeat(n), format!("</{tag}>").repeat(n));
        let page = load(&html);
        // The parser adds html, head and body; everything is bounded by the element cap.
        let elements = page.html.tree.nodes().filter(|n| n.value().is_element()).count();
        assert!(elements <= MAX_ELEMENTS + 3, "{tag}: {elements} elements");
        let division = Divider::default().divide(&page);
        let words: usize = division.blocks.iter().map(|b| b.words).sum();
        assert!(words > 0 && division.blocks.len() <= MAX_ELEMENTS, "{tag}: {} blocks, {words} words", division.blocks.len());
        let f = extract(&page, &division, &StyleOptions::default()).expect("features");
        assert_eq!(f.rows.len(), division.blocks.len(), "{tag}");
        match tag {
            // Inline elements: one block of text, cut at the element bound.
            "span" | "font" | "a" | "b" => assert_eq!(page.repairs, [Repair::TruncatedElements], "{tag}"),
            // Block elements: flattened at the nesting bound.
            "ul" | "div" => assert_eq!(page.repairs, [Repair::FlattenedNesting], "{tag}"),
            _ => {}
        }
    }
}

#[test]
fn a_20_mb_attribute_and_a_50_mb_line() {
    let html = format!("<html><body><p title=\"{}\">before</p><p>after</p></body></html>", "a".repeat(20 << 20));
    let page = load(&html);
    let division = Divider::default().divide(&page);
    let texts: Vec<&str> = division.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["before", "after"]);
    // A 50 MB line is above the page size limit: a clear error naming the page, no parse.
    let line = format!("<p>{}</p>", "word ".repeat(10 << 20));
    let err = Page::from_bytes("line.html", line.as_bytes(), &LoadOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), format!("line.html: page is {} bytes, above the limit of {} bytes", line.len(), 32 << 20));
    // Below the limit, one long line is one block.
    let line = format!("<p>{}</p>", "word ".repeat(1 << 20));
    let division = Divider::default().divide(&load(&line));
    assert_eq!(division.blocks.len(), 1);
    assert_eq!(division.blocks[0].words, 1 << 20);
}

#[test]
fn elements_with_thousands_of_classes_are_charged_per_class_against_the_budget() {
    // Each class rule tested on an element scans its class list: 25 elements of 10,000 classes
    // under 10,000 rules took 3.4 s of CPU and the budget counted only 250,000 tests.
    let (n, elements) = (5_000, 40);
    let rules: String = (0..n).map(|i| format!(".c{i} {{ color: red }}\n")).collect();
    let classes: String = (0..n).map(|i| format!("c{i} ")).collect();
    let html = format!("<html><head><style>{rules}</style></head><body>{}</body></html>", format!("<p class=\"{classes}\">x</p>").repeat(elements));
    let page = load(&html);
    let styled = StyledDom::compute(&page, &CssOptions::default()).expect("cascade");
    // Each paragraph has n candidate rules at 1 + n / 32 units each; html, head, style and
    // body have none.
    let per_element = n * (1 + n / CLASSES_PER_RULE_TEST);
    let styled_elements = MAX_AUTHOR_CANDIDATES_PER_PAGE / per_element;
    assert_eq!(styled_elements, 31);
    let unstyled = styled.warnings.iter().find_map(|w| match w {
        CssWarning::CascadeBudget { elements, .. } => Some(*elements),
        _ => None,
    });
    assert_eq!(unstyled, Some(elements - styled_elements), "{:?}", styled.warnings);
    assert_eq!(styled.select(&page, "p").map(|s| s.color.0), Some([255, 0, 0, 255]));
}
