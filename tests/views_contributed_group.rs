//! A contributor's feature group, written outside the crate in this one file: registered beside
//! the built-in groups, named in a view config, its column appears with the right values.

use parcels::divide::{Divider, Division};
use parcels::lexical::IdfTable;
use parcels::page::{LoadOptions, Page};
use parcels::stylistic::StyleOptions;
use parcels::views::{FeatureGroup, GroupError, GroupOutput, PageContext, Registry, ViewBuilder, ViewConfig, ViewError, ViewKind};

/// "Shouting": how much of a block's text is in capitals (a typographic choice, so stylistic).
struct Shouting;

impl FeatureGroup for Shouting {
    fn name(&self) -> &str {
        "shouting"
    }

    fn view(&self) -> ViewKind {
        ViewKind::Stylistic
    }

    fn features(&self) -> Vec<(String, String)> {
        vec![
            ("shout.upper_share".into(), "upper-case letters / letters of the block (NaN without letters)".into()),
            ("shout.letters".into(), "letters of the block".into()),
        ]
    }

    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
        for (b, block) in ctx.division().blocks.iter().enumerate() {
            let letters = block.text.chars().filter(|c| c.is_alphabetic()).count();
            let upper = block.text.chars().filter(|c| c.is_uppercase()).count();
            let share = if letters == 0 { f64::NAN } else { upper as f64 / letters as f64 };
            out.row_mut(b).copy_from_slice(&[share, letters as f64]);
        }
        Ok(())
    }
}

fn page() -> (Page, Division) {
    let html = b"<body><p>STOP the PRESS</p><p>quiet words here</p><p>1984</p></body>";
    let page = Page::from_bytes("shout.html", html, &LoadOptions::default()).unwrap();
    let division = Divider::default().divide(&page);
    (page, division)
}

fn block(division: &Division, text: &str) -> usize {
    division.blocks.iter().position(|b| b.text == text).unwrap_or_else(|| panic!("no block {text:?}"))
}

fn config(stylistic: &[&str]) -> ViewConfig {
    ViewConfig { stylistic: stylistic.iter().map(|s| s.to_string()).collect(), ..ViewConfig::default() }
}

#[test]
fn a_registered_group_adds_its_columns_with_its_values() {
    let registry = Registry::builtin().with(Box::new(Shouting)).unwrap();
    assert_eq!(registry.names(ViewKind::Stylistic).last(), Some(&"shouting"));
    // Configs name it like a built-in group; it comes after the built-in ones (registry order).
    let cfg: ViewConfig = toml::from_str("stylistic = [\"shouting\", \"font\"]\nlexical = [\"words\"]").unwrap();
    let builder = ViewBuilder::with_groups(&cfg, IdfTable::dragnet().unwrap(), StyleOptions::default(), registry).unwrap();
    let names = builder.stylistic_names();
    assert_eq!(names.len(), 12 + 2);
    assert_eq!(&names[12..], ["shout.upper_share", "shout.letters"]);
    assert_eq!(names[0], "font.size_ratio");

    let (page, division) = page();
    let views = builder.build(&page, &division).unwrap();
    assert_eq!(views.stylistic.numeric_names(), names);
    let m = views.stylistic.numeric();
    // "STOP the PRESS": 12 letters, 9 capitals.
    let stop = block(&division, "STOP the PRESS");
    assert_eq!(m[[stop, 13]], 12.0);
    assert!((m[[stop, 12]] - 9.0 / 12.0).abs() < 1e-12, "{}", m[[stop, 12]]);
    let quiet = block(&division, "quiet words here");
    assert_eq!((m[[quiet, 12]], m[[quiet, 13]]), (0.0, 14.0));
    let year = block(&division, "1984");
    assert!(m[[year, 12]].is_nan(), "no letters: missing");
    assert_eq!(m[[year, 13]], 0.0);
    // The lexical view is untouched.
    assert_eq!(views.lexical.numeric_names(), ["words", "vocabulary", "vocabulary-ratio", "unknown-stem-ratio"]);
}

#[test]
fn built_in_columns_do_not_move_when_a_group_is_added() {
    let (page, division) = page();
    let plain = ViewBuilder::new(&ViewConfig::default(), IdfTable::dragnet().unwrap(), StyleOptions::default()).unwrap();
    let registry = Registry::builtin().with(Box::new(Shouting)).unwrap();
    let mut cfg = ViewConfig::default();
    cfg.stylistic.push("shouting".into());
    let extended = ViewBuilder::with_groups(&cfg, IdfTable::dragnet().unwrap(), StyleOptions::default(), registry).unwrap();
    let (a, b) = (plain.build(&page, &division).unwrap(), extended.build(&page, &division).unwrap());
    let n = a.stylistic.n_numeric();
    assert_eq!(b.stylistic.n_numeric(), n + 2);
    assert_eq!(&b.stylistic.numeric_names()[..n], a.stylistic.numeric_names());
    for r in 0..a.stylistic.n_rows() {
        for c in 0..n {
            assert_eq!(a.stylistic.numeric()[[r, c]].to_bits(), b.stylistic.numeric()[[r, c]].to_bits(), "block {r}, column {c}");
        }
    }
}

#[test]
fn unknown_groups_are_still_errors() {
    // Without registering it, the group is unknown.
    let err = ViewBuilder::new(&config(&["font", "shouting"]), IdfTable::dragnet().unwrap(), StyleOptions::default()).err().unwrap();
    assert!(matches!(&err, ViewError::UnknownGroup { view: "stylistic", group, .. } if group == "shouting"), "{err}");
    // Registered, a misspelt name is unknown and the message lists it among the known ones.
    let registry = Registry::builtin().with(Box::new(Shouting)).unwrap();
    let err = ViewBuilder::with_groups(&config(&["shoutin"]), IdfTable::dragnet().unwrap(), StyleOptions::default(), registry).err().unwrap();
    assert_eq!(
        err.to_string(),
        "unknown stylistic feature group \"shoutin\" (known: placement, layout, layer, table, font, image, css, semantics, density, repetition, headline, shouting)"
    );
    // A second group of the same name is refused.
    let err = Registry::builtin().with(Box::new(Shouting)).unwrap().with(Box::new(Shouting)).err().unwrap();
    assert!(matches!(err, ViewError::DuplicateGroup { .. }));
}
