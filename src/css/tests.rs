//! Cascade tests on hand-written pages (`tests/pages/css/`) with known answers.

use std::path::{Path, PathBuf};

use super::*;
use crate::page::LoadOptions;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pages/css").join(name)
}

fn load(name: &str, opts: &CssOptions) -> (Page, StyledDom) {
    let page = Page::load(fixture(name), &LoadOptions::default()).expect("fixture loads");
    let styled = StyledDom::compute(&page, opts).expect("styles compute");
    (page, styled)
}

fn inline(html: &str) -> (Page, StyledDom) {
    let page = Page::from_bytes("inline.html", html.as_bytes(), &LoadOptions::default()).expect("page parses");
    let styled = StyledDom::compute(&page, &CssOptions::default()).expect("styles compute");
    (page, styled)
}

const RED: Rgba = Rgba([255, 0, 0, 255]);
const GREEN: Rgba = Rgba([0, 128, 0, 255]);
const BLUE: Rgba = Rgba([0, 0, 255, 255]);

fn approx(a: f32, b: f32) -> bool {
    (a - b).abs() < 0.01
}

#[test]
fn specificity_beats_source_order() {
    let (page, s) = load("cascade.html", &CssOptions::default());
    let lead = s.select(&page, "p.lead").unwrap();
    assert_eq!(lead.color, GREEN);
}

#[test]
fn important_beats_inline_and_inline_beats_sheet() {
    let (page, s) = load("cascade.html", &CssOptions::default());
    assert_eq!(s.select(&page, "p.imp").unwrap().color, BLUE);
    assert_eq!(s.select(&page, "#main p:nth-child(3)").unwrap().color, Rgba([255, 0, 255, 255]));
}

#[test]
fn em_and_percent_font_sizes_resolve_against_the_parent() {
    let (page, s) = load("cascade.html", &CssOptions::default());
    // body: 10pt = 13.333px; `div p` 1.5em = 20px; span 50% = 6.667px; b inherits it.
    assert!(approx(s.select(&page, "body").unwrap().font_size, 40.0 / 3.0));
    assert!(approx(s.select(&page, "p.lead").unwrap().font_size, 20.0));
    let b = s.select(&page, "span.pct b").unwrap();
    assert!(approx(b.font_size, 20.0 / 3.0), "{}", b.font_size);
    assert_eq!(b.font_weight, 700);
}

#[test]
fn media_print_ignored_and_screen_applied() {
    let (page, s) = load("cascade.html", &CssOptions::default());
    let p = s.select(&page, "p.screen").unwrap();
    assert_eq!(p.display, Display::Block);
    assert!(!p.is_hidden());
    assert_eq!(p.font_weight, 700);
}

#[test]
fn ie_hacks_and_broken_rules_are_skipped() {
    let (page, s) = load("cascade.html", &CssOptions::default());
    // The hack rule keeps its valid declaration; the rule after the broken ones applies.
    assert_eq!(s.select(&page, "p.hack").unwrap().color, Rgba([128, 0, 128, 255]));
    assert!(approx(s.select(&page, "p.after").unwrap().font_size, 30.0));
    assert!(s.stats.parse_warnings > 0);
}

#[test]
fn font_element_maps_size_colour_and_face() {
    let (page, s) = load("cascade.html", &CssOptions::default());
    let f = s.select(&page, "#f").unwrap();
    assert!(approx(f.font_size, 24.0));
    assert_eq!(f.color, RED);
    assert_eq!(&*f.font_family, "verdana");
}

#[test]
fn quirks_mode_tables_do_not_inherit_font_size() {
    let (page, s) = load("cascade.html", &CssOptions::default());
    assert!(s.quirks);
    assert!(approx(s.select(&page, "#td").unwrap().font_size, 16.0));
}

#[test]
fn linked_imported_and_assets_sheets() {
    let opts = CssOptions { assets_dir: Some(fixture("assets")), ..CssOptions::default() };
    let (page, s) = load("linked.html", &opts);
    // linked.css imports imported.css first, then overrides its colour; the weight survives.
    let a = s.select(&page, "#a").unwrap();
    assert_eq!(a.color, RED);
    assert_eq!(a.font_weight, 700);
    assert!(approx(s.select(&page, "#b").unwrap().font_size, 20.0));
    assert!(s.select(&page, "#c").unwrap().italic, "found under assets by URL path");
    assert!(!s.select(&page, "#a").unwrap().is_hidden(), "print sheet not read");
    assert_eq!(s.stats.external_sheets, 3);
    assert_eq!(s.stats.missing_sheets, 1);
    assert_eq!(s.warnings.len(), 1);
    assert!(matches!(&s.warnings[0], CssWarning::MissingSheet { href, .. } if href == "missing.css"));
}

#[test]
fn missing_assets_dir_is_an_error_naming_it() {
    let page = Page::from_bytes("x.html", b"<p>x</p>", &LoadOptions::default()).unwrap();
    let opts = CssOptions { assets_dir: Some(PathBuf::from("/nonexistent/assets")), ..CssOptions::default() };
    let err = StyledDom::compute(&page, &opts).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/assets"));
}

#[test]
fn inheritance_and_non_inherited_properties() {
    let (page, s) = inline(
        "<!DOCTYPE html><div style='color: #00f; background: #ff0; width: 300px; position: absolute; z-index: 3; \
         font-family: \"Trebuchet MS\", sans-serif'><p>child</p></div>",
    );
    let p = s.select(&page, "p").unwrap();
    assert_eq!(p.color, BLUE);
    assert_eq!(&*p.font_family, "trebuchet ms");
    assert_eq!(p.background, Rgba([0, 0, 0, 0]), "background is not inherited");
    assert_eq!(p.effective_background, Rgba([255, 255, 0, 255]));
    assert_eq!(p.width, Length::Auto);
    assert_eq!(p.position, Position::Static);
    assert_eq!(p.z_index, None);
    let div = s.select(&page, "div").unwrap();
    assert_eq!(div.z_index, Some(3));
    assert_eq!(div.width, Length::Px(300.0));
}

#[test]
fn display_none_hides_descendants_and_visibility_can_be_restored() {
    let (page, s) = inline(
        "<!DOCTYPE html><style>.x{display:none} .h{visibility:hidden} .v{visibility:visible}</style>\
         <div class=x><p>a</p></div><div class=h><p>b</p><p class=v>c</p></div>",
    );
    assert!(s.select(&page, ".x p").unwrap().is_hidden());
    assert!(s.select(&page, ".h p").unwrap().is_hidden());
    assert!(!s.select(&page, ".h p.v").unwrap().is_hidden());
}

#[test]
fn user_agent_headings_links_and_bold() {
    let (page, s) = inline("<!DOCTYPE html><h1>T</h1><h3>s</h3><a href=x>l</a><b><b>x</b></b>");
    let h1 = s.select(&page, "h1").unwrap();
    assert!(approx(h1.font_size, 32.0));
    assert_eq!(h1.font_weight, 700);
    assert!(approx(s.select(&page, "h3").unwrap().font_size, 18.72));
    let a = s.select(&page, "a").unwrap();
    assert_eq!(a.color, Rgba::LINK_BLUE);
    assert_eq!(a.decoration & values::decoration::UNDERLINE, values::decoration::UNDERLINE);
    assert_eq!(s.select(&page, "b b").unwrap().font_weight, 900);
}

#[test]
fn link_pseudo_class_matches_anchors_with_href() {
    let (page, s) = inline("<!DOCTYPE html><style>a:link{color:#f00} a:hover{color:#0f0}</style><a href=x>l</a>");
    assert_eq!(s.select(&page, "a").unwrap().color, RED);
}

#[test]
fn presentational_attributes() {
    let (page, s) = inline(
        "<body bgcolor=#ffffff text=#333333 link=#990000><table bgcolor=eeeeee width=80% align=right>\
         <tr><td width=120 height=30>x <a href=y>l</a></td></tr></table><img src=a.gif width=468 height=60></body>",
    );
    let body = s.select(&page, "body").unwrap();
    assert_eq!(body.color, Rgba([0x33, 0x33, 0x33, 255]));
    let table = s.select(&page, "table").unwrap();
    assert_eq!(table.background, Rgba([0xee, 0xee, 0xee, 255]));
    assert_eq!(table.width, Length::Percent(80.0));
    assert_eq!(table.float, Float::Right);
    let td = s.select(&page, "td").unwrap();
    assert_eq!(td.width, Length::Px(120.0));
    assert_eq!(td.height, Length::Px(30.0));
    assert_eq!(td.effective_background, Rgba([0xee, 0xee, 0xee, 255]));
    assert_eq!(s.select(&page, "a").unwrap().color, Rgba([0x99, 0, 0, 255]));
    assert_eq!(s.select(&page, "img").unwrap().width, Length::Px(468.0));
}

#[test]
fn sheet_overrides_presentational_hint() {
    let (page, s) = inline("<!DOCTYPE html><style>font{color:#00f}</style><font color=red>x</font>");
    assert_eq!(s.select(&page, "font").unwrap().color, BLUE);
}

#[test]
fn deep_pages_do_not_recurse() {
    let html = format!("<!DOCTYPE html>{}x{}", "<span style='font-size:larger'>".repeat(5000), "</span>".repeat(5000));
    let (_page, s) = inline(&html);
    assert!(s.len() > 5000);
}

#[test]
fn import_cycles_are_read_once_and_style_media_attributes_apply() {
    let (page, s) = load("cycle.html", &CssOptions::default());
    let x = s.select(&page, "#x").unwrap();
    assert_eq!(x.color, RED);
    assert_eq!(x.font_weight, 700);
    assert!(!x.is_hidden(), "<style media=print> ignored");
    assert!(approx(x.font_size, 32.0), "2rem of a 16px root");
    assert_eq!(s.stats.external_sheets, 2);
    assert_eq!(s.stats.missing_sheets, 0);
}

#[test]
fn important_in_sheet_loses_to_important_inline() {
    let (page, s) = inline("<!DOCTYPE html><style>#p{color:#f00 !important}</style><p id=p style='color:#00f !important'>x</p>");
    assert_eq!(s.select(&page, "p").unwrap().color, BLUE);
}

/// Golden output: the computed style of every `<body>` element of `cascade.html` and
/// `layers.html`, one JSON line each. Regenerate with `PARCELS_UPDATE_GOLDEN=1` after an
/// intended change, and review the diff.
#[test]
fn golden_computed_styles() {
    for name in ["cascade.html", "layers.html", "table.html"] {
        let (page, s) = load(name, &CssOptions::default());
        let body = scraper::Selector::parse("body, body *").unwrap();
        let mut out = String::new();
        for el in page.html.select(&body) {
            let style = s.style(el.id()).unwrap();
            let label = match (el.value().id(), el.value().classes().next()) {
                (Some(id), _) => format!("{}#{id}", el.value().name()),
                (None, Some(c)) => format!("{}.{c}", el.value().name()),
                _ => el.value().name().to_string(),
            };
            out.push_str(&format!("{label}\t{}\n", serde_json::to_string(style).unwrap()));
        }
        let golden = fixture(&format!("{name}.styles.golden"));
        if std::env::var_os("PARCELS_UPDATE_GOLDEN").is_some() {
            std::fs::write(&golden, &out).unwrap();
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        assert!(expected == out, "{} differs from the computed styles (PARCELS_UPDATE_GOLDEN=1 to regenerate):\n{out}", golden.display());
    }
}

/// A fresh temporary directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parcels-css-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn load_at(path: &Path, html: &str, opts: &CssOptions) -> (Page, StyledDom) {
    std::fs::write(path, html).unwrap();
    let page = Page::load(path, &LoadOptions::default()).unwrap();
    let styled = StyledDom::compute(&page, opts).unwrap();
    (page, styled)
}

#[test]
fn deeply_nested_selectors_do_not_overflow_the_stack() {
    for depth in [500, 5000] {
        let html = format!(
            "<!DOCTYPE html><style>p{} .x {} {{ color: red }} p {{ color: green }}</style><p style='width: {}1px{}'>text</p>",
            ":not(".repeat(depth),
            ")".repeat(depth),
            "calc(".repeat(depth),
            ")".repeat(depth)
        );
        let (page, s) = inline(&html);
        assert_eq!(s.select(&page, "p").unwrap().color, GREEN);
        assert!(s.warnings.iter().any(|w| matches!(w, CssWarning::TooDeep { dropped: 1, .. })), "{:?}", s.warnings);
    }
}

#[test]
fn import_fan_out_reads_each_sheet_once() {
    let dir = temp_dir("fanout");
    // Six imports per sheet, each naming the same file by another path: 6^8 reads before.
    let imports: String = (0..6).map(|i| format!("@import \"d{i}/../s.css\";\n")).collect();
    for i in 0..6 {
        std::fs::create_dir_all(dir.join(format!("d{i}"))).unwrap();
    }
    std::fs::write(dir.join("s.css"), format!("{imports}p {{ color: red }}")).unwrap();
    let started = std::time::Instant::now();
    let (page, s) =
        load_at(&dir.join("p.html"), "<!DOCTYPE html><link rel=stylesheet href=s.css><link rel=stylesheet href=./d3/../s.css><p>x", &CssOptions::default());
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(s.stats.external_sheets, 1);
    assert_eq!(s.select(&page, "p").unwrap().color, RED);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sheets_per_page_are_capped() {
    let dir = temp_dir("cap");
    let n = MAX_SHEETS_PER_PAGE + 20;
    let mut html = String::from("<!DOCTYPE html>");
    for i in 0..n {
        std::fs::write(dir.join(format!("s{i}.css")), format!(".c{i} {{ color: red }}")).unwrap();
        html.push_str(&format!("<link rel=stylesheet href=s{i}.css>"));
    }
    html.push_str("<p>x");
    let (_, s) = load_at(&dir.join("p.html"), &html, &CssOptions::default());
    assert_eq!(s.stats.external_sheets, MAX_SHEETS_PER_PAGE);
    assert_eq!(s.warnings.iter().filter(|w| matches!(w, CssWarning::SheetLimit { .. })).count(), 1, "{:?}", s.warnings);
    // The byte budget: four sheets of 4 MiB fit in 16 MiB, a fifth does not.
    let big = format!("/*{}*/ p {{ color: red }}", "x".repeat(MAX_SHEET_BYTES as usize - 40));
    let mut html = String::from("<!DOCTYPE html>");
    for i in 0..5 {
        std::fs::write(dir.join(format!("big{i}.css")), &big).unwrap();
        html.push_str(&format!("<link rel=stylesheet href=big{i}.css>"));
    }
    let (_, s) = load_at(&dir.join("q.html"), &html, &CssOptions::default());
    assert_eq!(s.stats.external_sheets, 4);
    assert!(s.warnings.iter().any(|w| matches!(w, CssWarning::SheetLimit { limit, .. } if limit.contains("bytes"))), "{:?}", s.warnings);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sheets_outside_the_page_tree_are_not_read() {
    let dir = temp_dir("outside");
    let site = dir.join("site");
    let assets = dir.join("assets");
    std::fs::create_dir_all(site.join("css")).unwrap();
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::write(dir.join("secret.css"), "p { color: red }").unwrap();
    std::fs::write(assets.join("a.css"), "p { font-weight: bold }").unwrap();
    std::fs::write(site.join("css/ok.css"), "p { font-style: italic }").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("secret.css"), site.join("css/link.css")).unwrap();
    let html = "<!DOCTYPE html><link rel=stylesheet href=../../../../etc/passwd><link rel=stylesheet href=../secret.css>\
                <link rel=stylesheet href=css/link.css><link rel=stylesheet href=/css/ok.css><link rel=stylesheet href=http://x/a.css><p>x";
    let opts = CssOptions { assets_dir: Some(assets.clone()), ..CssOptions::default() };
    let (page, s) = load_at(&site.join("p.html"), html, &opts);
    let p = s.select(&page, "p").unwrap();
    assert_ne!(p.color, RED, "a sheet outside the page's tree was read");
    assert!(p.italic && p.is_bold(), "sheets in the page's tree and the assets are read");
    assert_eq!(s.stats.external_sheets, 2);
    let outside = s.warnings.iter().filter(|w| matches!(w, CssWarning::OutsideSheet { .. })).count();
    // /etc/passwd, ../secret.css and the symbolic link to it.
    assert_eq!(outside, if cfg!(unix) { 3 } else { 2 }, "{:?}", s.warnings);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fifo_sheet_is_refused_without_blocking() {
    let dir = temp_dir("fifo");
    let made = std::process::Command::new("mkfifo").arg(dir.join("pipe.css")).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo unavailable; skipped");
        return;
    }
    let (_, s) = load_at(&dir.join("p.html"), "<link rel=stylesheet href=pipe.css><p>x", &CssOptions::default());
    assert!(s.warnings.iter().any(|w| matches!(w, CssWarning::UnreadableSheet { problem, .. } if problem.contains("named pipe"))), "{:?}", s.warnings);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn import_chains_deeper_than_the_bound_stop_with_a_warning() {
    let dir = temp_dir("chain");
    // s0.css imports s1.css imports … s11.css: distinct sheets, so no cycle stops the chain.
    let n = MAX_IMPORT_DEPTH + 4;
    for i in 0..n {
        std::fs::write(dir.join(format!("s{i}.css")), format!("@import \"s{}.css\";\n.c{i} {{ color: red }}", i + 1)).unwrap();
    }
    let classes: String = (0..n).map(|i| format!("<p class=c{i}>x</p>")).collect();
    let (page, s) = load_at(&dir.join("p.html"), &format!("<!DOCTYPE html><link rel=stylesheet href=s0.css>{classes}"), &CssOptions::default());
    // The linked sheet is level 0; levels 1 to MAX_IMPORT_DEPTH are imported.
    assert_eq!(s.stats.external_sheets, MAX_IMPORT_DEPTH + 1);
    let deep: Vec<&CssWarning> = s.warnings.iter().filter(|w| matches!(w, CssWarning::ImportTooDeep { .. })).collect();
    assert_eq!(deep.len(), 1, "{:?}", s.warnings);
    let next = format!("s{}.css", MAX_IMPORT_DEPTH + 1);
    assert!(matches!(deep[0], CssWarning::ImportTooDeep { href, max: MAX_IMPORT_DEPTH, .. } if *href == next), "{deep:?}");
    assert_eq!(s.select(&page, &format!(".c{MAX_IMPORT_DEPTH}")).unwrap().color, RED);
    assert_ne!(s.select(&page, &format!(".c{}", MAX_IMPORT_DEPTH + 1)).unwrap().color, RED);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Found by the `css` fuzz target (`tests/fuzz/regressions/css/hsl-hue-of-1e11-degrees.css`):
/// a hue of 10¹¹ degrees, written out or made by `calc()`, trips a `debug_assert!` in
/// cssparser-color 0.5.0 (lightningcss reduces the hue modulo 360 in `f32`, which leaves it
/// outside [0, 1] at that size) and aborts a build with debug assertions. Release builds, and
/// since then our dev and test profiles (`Cargo.toml`), skip the assertion: the page is styled,
/// the colour is some opaque colour, and the rule after it still applies.
#[test]
fn a_hue_of_a_hundred_billion_degrees_styles_the_page() {
    let (page, s) = inline(
        r#"<html><head><style>
        p.a { color: hsl(100000000000 50% 50%) }
        p.b { color: hsl(calc(100000 * 1000000) 50% 50%) }
        p.c { color: rgb(1, 2, 3) }
        </style></head><body><p class="a">a</p><p class="b">b</p><p class="c">c</p>
        <font color="hsl(100000000000 50% 50%)">d</font></body></html>"#,
    );
    for class in ["p.a", "p.b"] {
        assert_eq!(s.select(&page, class).unwrap().color.0[3], 255, "{class}");
    }
    assert_eq!(s.select(&page, "p.c").unwrap().color, Rgba([1, 2, 3, 255]));
}
