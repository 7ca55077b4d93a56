use super::*;
use crate::divide::Divider;
use crate::page::{LoadOptions, Page};

fn division(html: &str) -> Division {
    let page = Page::from_bytes("t.html", html.as_bytes(), &LoadOptions::default()).unwrap();
    Divider::default().divide(&page)
}

/// Three documents: "the cat sat", "the dog sat", "the cat ran" (stems).
fn toy_idf() -> IdfTable {
    IdfTable::from_counts(3, [("cat", 2), ("dog", 1), ("ran", 1), ("sat", 2), ("the", 3)].map(|(s, d)| (s.to_string(), d)), 1)
}

fn col(name: &str) -> usize {
    numeric_feature_names().iter().position(|n| n == name).unwrap()
}

#[test]
fn tf_idf_hand_computed() {
    // "The cat sat on the cat.": the ×2 (idf 1), cat ×2 (idf ln(4/3)+1), sat ×1, on unknown ×1.
    let d = division("<p>The cat sat on the cat.</p>");
    let f = extract(&d, &toy_idf());
    let idf = toy_idf();
    let (cat, sat, the, unk) = (idf.id("cat").unwrap(), idf.id("sat").unwrap(), idf.id("the").unwrap(), idf.len() as u32);
    let expect = [(cat, 2.0 * 1.287_682_07), (sat, 1.287_682_07), (the, 2.0), (unk, 2.386_294_36)];
    assert_eq!(f.tokens[0].len(), expect.len());
    for ((id, w), (eid, ew)) in f.tokens[0].iter().zip(expect) {
        assert_eq!(*id, eid);
        assert!((w - ew).abs() < 1e-6, "{id}: {w} vs {ew}");
    }
    let row = &f.numeric[0];
    assert_eq!(row[col("words")], 6.0);
    assert_eq!(row[col("vocabulary")], 4.0);
    assert!((row[col("vocabulary-ratio")] - 4.0 / 6.0).abs() < 1e-12);
    assert!((row[col("unknown-stem-ratio")] - 1.0 / 6.0).abs() < 1e-12);
    // 7 tokens: DT NN VBD IN DT NN .
    assert!((row[col("pos:DT")] - 2.0 / 7.0).abs() < 1e-12);
    assert!((row[col("pos-all:noun")] - 2.0 / 7.0).abs() < 1e-12);
    assert!((row[col("pos-all:punctuation")] - 1.0 / 7.0).abs() < 1e-12);
}

#[test]
fn link_counters() {
    let html = "<ul><li><a href='mailto:ed@x.org'>Mail us</a></li><li><a href='/big.JPG?s=1'>Photo</a></li>\
                <li><a href='/a'>Home</a></li><li><a href='/b.html'>News</a></li></ul>";
    let d = division(html);
    assert_eq!(d.blocks.len(), 1);
    let f = extract(&d, &toy_idf());
    let r = &f.numeric[0];
    let got = [col("mailto-links"), col("image-links"), col("text-links"), col("total-links")].map(|c| r[c]);
    assert_eq!(got, [1.0, 1.0, 2.0, 4.0]);
}

#[test]
fn empty_block_has_zero_ratios_and_no_tokens() {
    let d = division("<p>x</p><img src=logo.gif>");
    let f = extract(&d, &toy_idf());
    assert_eq!(f.len(), 2);
    assert!(f.tokens[1].is_empty());
    assert_eq!(f.numeric[1][col("images")], 1.0);
    assert!(f.numeric[1].iter().all(|v| v.is_finite()));
    assert_eq!(f.numeric[1][col("words")], 0.0);
}

#[test]
fn names_and_svmlight_indices_agree() {
    let idf = toy_idf();
    let names = feature_names(&idf);
    let k = numeric_feature_names().len();
    assert_eq!(names.len(), k + idf.len() + 1);
    assert_eq!(names[k], "tok:cat");
    assert_eq!(names.last().unwrap(), "tok:<unknown>");
    let f = extract(&division("<p>cat</p><p>dog dog</p>"), &idf);
    let svm = f.to_svmlight(Some(&[3]), Some(7));
    let lines: Vec<&str> = svm.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("3 qid:7 1:1 2:1 3:1 "), "{}", lines[0]);
    // cat is token id 0, so index k + 1; dog is id 1 with weight 2 × (ln(4/2) + 1).
    assert!(lines[0].ends_with(&format!(" {}:1.287682", k + 1)), "{}", lines[0]);
    assert!(lines[1].starts_with("0 qid:7 1:2 2:1 3:0.5 "), "{}", lines[1]);
    assert!(lines[1].ends_with(&format!(" {}:3.386294", k + 2)), "{}", lines[1]);
    // Indices ascend on every line.
    for line in lines {
        let idx: Vec<usize> = line.split(' ').skip(2).map(|p| p.split(':').next().unwrap().parse().unwrap()).collect();
        assert!(idx.windows(2).all(|w| w[0] < w[1]));
    }
    let mut table = Vec::new();
    write_feature_names(&mut table, &idf).unwrap();
    let table = String::from_utf8(table).unwrap();
    assert!(table.starts_with("index\tname\n1\twords\n2\tvocabulary\n"));
    assert!(table.contains(&format!("\n{}\ttok:cat\n", k + 1)));
}

#[test]
fn tsv_and_json_name_the_features() {
    let idf = toy_idf();
    let f = extract(&division("<p>The cat.</p>"), &idf);
    let tsv = f.to_tsv(&idf);
    assert!(tsv.starts_with("block\twords\tvocabulary\t"));
    assert!(tsv.lines().nth(1).unwrap().ends_with("\tcat:1.287682 the:1"));
    let json = serde_json::to_string(&f.named_rows(&idf)).unwrap();
    assert!(json.starts_with("[{\"block\":0,\"numeric\":{\"words\":2.0,"), "{json}");
    assert!(json.ends_with("\"tokens\":{\"cat\":1.2876820724517808,\"the\":1.0}}]"), "{json}");
}

#[test]
fn cache_changes_nothing_and_follows_the_table() {
    let pages = ["<p>The cats ran. Cats run!</p><p>Running cats</p>", "<h1>Cats</h1><p>the dog sat, the cat sat</p>"];
    let idf = toy_idf();
    let other = IdfTable::from_counts(9, [("cat".to_string(), 9)], 1);
    let mut cache = LexicalCache::default();
    for html in pages {
        let d = division(html);
        assert_eq!(LexicalExtractor::new(&idf).extract_with(&d, &mut cache), extract(&d, &idf));
        // Switching tables with the same cache must not reuse the first table's ids.
        assert_eq!(LexicalExtractor::new(&other).extract_with(&d, &mut cache), extract(&d, &other));
    }
}

#[test]
fn per_thread_cache_tells_same_sized_tables_apart() {
    // Two tables with the same page count and stem count but different stems: the memo of the
    // first must not give its ids to the second, even if the first is dropped and the second
    // reuses its memory.
    let d = division("<p>The cat sat. The dog ran. The dog.</p>");
    let first = IdfTable::from_counts(4, [("cat".to_string(), 2), ("sat".to_string(), 1)], 1);
    let fresh_first = LexicalExtractor::new(&first).extract_with(&d, &mut LexicalCache::default());
    assert_eq!(extract(&d, &first), fresh_first);
    drop(first);
    let second = IdfTable::from_counts(4, [("dog".to_string(), 2), ("ran".to_string(), 1)], 1);
    let fresh_second = LexicalExtractor::new(&second).extract_with(&d, &mut LexicalCache::default());
    assert_ne!(fresh_first.tokens, fresh_second.tokens);
    assert_eq!(extract(&d, &second), fresh_second);
    // A clone is the same table: equal, and it may share the memo.
    let clone = second.clone();
    assert_eq!(clone, second);
    assert_eq!(clone.instance(), second.instance());
    assert_eq!(extract(&d, &clone), fresh_second);
}

#[test]
fn numeric_names_are_stable() {
    let names = numeric_feature_names();
    assert_eq!(names.len(), 61);
    assert_eq!(
        &names[..9],
        ["words", "vocabulary", "vocabulary-ratio", "unknown-stem-ratio", "images", "mailto-links", "image-links", "text-links", "total-links"]
    );
    assert_eq!(names[9], "pos:CC");
    assert_eq!(names[53], "pos-all:noun");
    assert_eq!(names[60], "pos-all:punctuation");
}
