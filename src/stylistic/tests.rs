//! Stylistic feature tests on hand-written pages (`tests/pages/css/`) with known answers.

use std::path::Path;

use super::*;
use crate::divide::Divider;
use crate::page::LoadOptions;

fn features(name: &str) -> (Division, StylisticFeatures) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pages/css").join(name);
    let page = Page::load(&path, &LoadOptions::default()).expect("fixture loads");
    let division = Divider::default().divide(&page);
    let features = extract(&page, &division, &StyleOptions::default()).expect("features compute");
    (division, features)
}

fn from_html(html: &str) -> (Division, StylisticFeatures) {
    let page = Page::from_bytes("inline.html", html.as_bytes(), &LoadOptions::default()).expect("page parses");
    let division = Divider::default().divide(&page);
    let features = extract(&page, &division, &StyleOptions::default()).expect("features compute");
    (division, features)
}

/// The block whose text is exactly `text`.
fn block(division: &Division, text: &str) -> usize {
    division
        .blocks
        .iter()
        .position(|b| b.text == text)
        .unwrap_or_else(|| panic!("no block {text:?} in {:?}", division.blocks.iter().map(|b| &b.text).collect::<Vec<_>>()))
}

fn assert_feature(f: &StylisticFeatures, block: usize, name: &str, expected: f64) {
    let v = f.get(block, name).unwrap_or_else(|| panic!("no feature {name}"));
    if expected.is_nan() {
        assert!(v.is_nan(), "{name} of block {block}: {v}, expected NaN");
    } else {
        assert!((v - expected).abs() < 1e-6, "{name} of block {block}: {v}, expected {expected}");
    }
}

#[test]
fn table_grid_honours_rowspan_and_colspan() {
    let (d, f) = features("table.html");
    let twelve = block(&d, "12");
    assert_feature(&f, twelve, "table.in_table", 1.0);
    // "Apples" spans rows 1–2 at column 0, so "12" moves to column 1.
    assert_feature(&f, twelve, "table.row", 2.0);
    assert_feature(&f, twelve, "table.col", 1.0);
    assert_feature(&f, twelve, "table.rows", 4.0);
    assert_feature(&f, twelve, "table.cols", 3.0);
    assert_feature(&f, twelve, "table.depth", 1.0);
    assert_feature(&f, twelve, "table.numeric", 1.0);
    // Row 2 holds "Apples and pears" (3 words, spanning) and "3.50" (numeric): one of two shares.
    assert_feature(&f, twelve, "table.row_same_type", 0.5);
    assert_feature(&f, twelve, "table.col_same_type", 0.0);
    assert_feature(&f, twelve, "table.row_rel", 2.5 / 4.0);
    // Neighbours: "Apples" (left, words), "3.50" (right, numeric), "wide cell" (above, words),
    // "mid" (below, words): one of four.
    assert_feature(&f, twelve, "table.neighbours_same_type", 0.25);
    let wide = block(&d, "wide cell");
    assert_feature(&f, wide, "table.colspan", 2.0);
    assert_feature(&f, wide, "table.col", 1.0);
    assert_feature(&f, wide, "table.last_in_row", 1.0);
    assert_feature(&f, wide, "table.first_in_row", 0.0);
    let apples = block(&d, "Apples and pears");
    assert_feature(&f, apples, "table.rowspan", 2.0);
    assert_feature(&f, apples, "table.header_row", 0.0);
    let name = block(&d, "Name");
    assert_feature(&f, name, "table.th", 1.0);
    assert_feature(&f, name, "table.header_row", 1.0);
    assert_feature(&f, name, "table.first_in_col", 1.0);
    assert_feature(&f, name, "table.parent_row_rel", f64::NAN);
}

#[test]
fn nested_table_knows_its_place_in_the_parent() {
    let (d, f) = features("table.html");
    let nested = block(&d, "nested bottom right");
    assert_feature(&f, nested, "table.depth", 2.0);
    assert_feature(&f, nested, "table.row", 1.0);
    assert_feature(&f, nested, "table.col", 1.0);
    assert_feature(&f, nested, "table.rows", 2.0);
    assert_feature(&f, nested, "table.row_cells", 2.0);
    // Held by the outer cell at row 3 of 4, column 2 of 3.
    assert_feature(&f, nested, "table.parent_row_rel", 3.5 / 4.0);
    assert_feature(&f, nested, "table.parent_col_rel", 2.5 / 3.0);
    assert_feature(&f, nested, "layout.by_table", 1.0);
    assert_feature(&f, nested, "layout.page_tabular", 1.0);
}

#[test]
fn positioned_layers_overlap_and_stack() {
    let (d, f) = features("layers.html");
    let nav = block(&d, "Home World");
    let ad = d.blocks.iter().position(|b| !b.images.is_empty()).expect("image block");
    let headline = block(&d, "Headline");
    assert_feature(&f, nav, "layout.page_layer", 1.0);
    assert_feature(&f, nav, "layout.by_layer", 1.0);
    assert_feature(&f, nav, "layer.absolute", 1.0);
    // nav overlaps the ad only; the ad overlaps nav and main and sits above both.
    assert_feature(&f, nav, "layer.overlaps", 1.0);
    assert_feature(&f, nav, "layer.above", 0.0);
    assert_feature(&f, ad, "layer.overlaps", 2.0);
    assert_feature(&f, ad, "layer.above", 1.0);
    assert_feature(&f, ad, "layer.z_index", 10.0);
    // Levels on the page: 0, 1, 2, 10.
    assert_feature(&f, ad, "layer.z_rank", 1.0);
    assert_feature(&f, nav, "layer.z_rank", 1.0 / 3.0);
    // The page's maximal x and y are main's right and bottom edges, 1000 px.
    assert_feature(&f, headline, "layer.x", 0.25);
    assert_feature(&f, headline, "layer.y", 0.0);
    assert_feature(&f, headline, "layer.width", 0.75);
    assert_feature(&f, headline, "layer.height", 1.0);
    let side = block(&d, "side");
    assert_feature(&f, side, "layer.float_right", 1.0);
    assert_feature(&f, side, "layer.width", 0.25);
    assert_feature(&f, side, "table.in_table", 0.0);
    assert_feature(&f, side, "table.row", f64::NAN);
}

#[test]
fn fonts_are_relative_to_the_page() {
    let (d, f) = features("layers.html");
    let headline = block(&d, "Headline");
    assert_feature(&f, headline, "font.size_ratio", 2.0);
    assert_feature(&f, headline, "font.larger", 1.0);
    assert_feature(&f, headline, "font.weight_diff", 1.0);
    assert_feature(&f, headline, "font.bold_share", 1.0);
    assert_feature(&f, headline, "font.color_differs", 1.0);
    let nav = block(&d, "Home World");
    assert_feature(&f, nav, "font.link_share", 1.0);
    assert_feature(&f, nav, "font.underline_share", 1.0);
    assert_feature(&f, nav, "font.size_ratio", 1.0);
    let body = d.blocks.iter().position(|b| b.text.starts_with("Body text")).unwrap();
    assert_feature(&f, body, "font.color_differs", 0.0);
    assert_feature(&f, body, "font.weight_diff", 0.0);
    assert_feature(&f, body, "font.link_share", 0.0);
}

#[test]
fn images_sizes_and_area_share() {
    let (d, f) = features("layers.html");
    let ad = d.blocks.iter().position(|b| !b.images.is_empty()).unwrap();
    assert_feature(&f, ad, "img.count", 1.0);
    assert_feature(&f, ad, "img.max_width", 300.0);
    assert_feature(&f, ad, "img.max_height", 250.0);
    assert_feature(&f, ad, "img.area_share", 1.0);
    assert_feature(&f, ad, "img.only", 1.0);
    let headline = block(&d, "Headline");
    assert_feature(&f, headline, "img.count", 0.0);
    assert_feature(&f, headline, "img.max_width", f64::NAN);
}

#[test]
fn presentational_font_size_plus_two() {
    let (d, f) = from_html("<body><p>normal text that is the page's main text, long enough</p><p><font size=+2>Big</font></p></body>");
    let big = block(&d, "Big");
    // +2 → size 5 → 24px against 16px.
    assert_feature(&f, big, "font.size_ratio", 1.5);
    assert_feature(&f, big, "layout.page_linear", 1.0);
    assert_feature(&f, big, "layout.by_linear", 1.0);
}

#[test]
fn hidden_by_style_sheet() {
    let (d, f) = from_html("<!DOCTYPE html><style>.gone{display:none}</style><p>shown</p><div class=gone><p>gone</p></div>");
    assert_feature(&f, block(&d, "shown"), "hidden", 0.0);
    assert_feature(&f, block(&d, "gone"), "hidden", 1.0);
}

#[test]
fn missing_sheet_is_a_feature_and_a_warning() {
    // Without an assets directory, both missing.css and the remote site.css are missing.
    let (_, f) = features("linked.html");
    assert_eq!(f.warnings.len(), 2);
    assert_feature(&f, 0, "css.missing_sheets", 2.0);
}

#[test]
fn rows_are_dense_and_finite_or_nan() {
    let (d, f) = features("table.html");
    assert_eq!(f.rows.len(), d.blocks.len());
    for row in &f.rows {
        assert_eq!(row.len(), f.names.len());
        assert!(row.iter().all(|v| v.is_finite() || v.is_nan()));
    }
    let json = f.to_json().unwrap();
    assert!(json.contains("\"table.row\""));
    assert!(f.to_tsv().lines().count() == d.blocks.len() + 1);
}

/// The feature names in the first column of the module docs' `# Features` table.
fn documented_names() -> Vec<String> {
    include_str!("mod.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("//! | `"))
        .filter_map(|l| l.split(" | ").next())
        .flat_map(|cell| cell.split('`').filter(|s| !s.trim().is_empty() && s.trim() != "/").map(str::to_string).collect::<Vec<_>>())
        .collect()
}

#[test]
fn module_table_and_registry_list_the_same_features_in_the_same_order() {
    let names = feature_names();
    let unique: std::collections::BTreeSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "duplicate feature names");
    let documented = documented_names();
    assert!(documented.len() > 60, "the table parses: {documented:?}");
    assert!(documented.contains(&"layer.relative".to_string()) && documented.contains(&"layer.fixed".to_string()), "cells with several names");
    for name in &names {
        assert!(documented.contains(name), "{name} of the registry is missing from the module docs table");
    }
    for name in &documented {
        assert!(names.contains(name), "{name} of the module docs table is no registry feature");
    }
    assert_eq!(documented, names, "the table lists the features in column order");
}

#[test]
fn pass_names_follow_the_registry_groups() {
    let registry = crate::views::Registry::builtin();
    let groups = registry.names(crate::views::ViewKind::Stylistic);
    assert_eq!(groups, ["placement", "layout", "layer", "table", "font", "image", "css"]);
    let (_, f) = features("table.html");
    assert_eq!(f.names, feature_names());
    assert_eq!(f.names.len(), 5 + 7 + 13 + 25 + 12 + 7 + 2);
    assert_eq!(&f.names[..2], ["pos.start", "pos.index_rel"]);
    assert_eq!(f.names[5], "layout.page_tabular");
    assert_eq!(f.names[12], "layer.relative");
    assert_eq!(f.names.last().map(String::as_str), Some("css.author_rules"));
}

#[test]
fn records_json_is_what_a_json_map_per_block_writes() {
    let (_, f) = from_html("<html><body><table><tr><td>1</td><td>two words</td></tr></table><p>text</p></body></html>");
    assert!(f.rows.iter().flatten().any(|v| v.is_nan()), "some feature is missing");
    let maps: Vec<serde_json::Map<String, serde_json::Value>> = f
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut m = serde_json::Map::new();
            m.insert("block".to_string(), serde_json::Value::from(i));
            for (name, v) in f.names.iter().zip(row) {
                m.insert(name.clone(), serde_json::Number::from_f64(*v).map_or(serde_json::Value::Null, serde_json::Value::Number));
            }
            m
        })
        .collect();
    assert_eq!(f.to_records_json().expect("json"), serde_json::to_string_pretty(&maps).expect("json"));
}
