//! The article's location and source from its dateline: `LONDON (Reuters) - …`,
//! `SANTA MONICA, Calif. (AP) -- …`, `PARIS, Jan 8 (Reuters) - …`, `KATHMANDU: …`.
//!
//! Wire copy opens its first paragraph with where the story was filed and, in parentheses, the
//! agency that filed it. The 17-label scheme labels a dateline `location` or `source` only when
//! it stands as a block of its own, which is rare (8 `location` blocks in the 828 labelled pages):
//! most datelines are the first words of the lead paragraph, a `main-content` block, and no
//! block classifier can give them to the article's location and source fields. So the lead is
//! read here, by its shape:
//!
//! - a place: one to four words in capitals (`NEW YORK`, `ST. LOUIS`), or, only when an agency
//!   follows, in title case (`Beijing (PTI):`, `St. Louis, MO (Sports Network) -`);
//! - then, after commas, a region (`Calif.`, `Egypt`, a state's code `MO`) and a date (`Jan 8`,
//!   `Dec 20, 2025`);
//! - then an agency in parentheses, capitalised words without digits (`(AP)`, `(Reuters)`); a
//!   date in parentheses is passed over;
//! - then a dash (`-`, `--`, `–`, `—`) or a colon. After a colon, whose leads are more often
//!   labels ("UPDATE:", "QUICK SUMMARY:"), the place must be one word of four letters or more,
//!   or an agency must follow.
//!
//! Leads that are labels, not places ("UPDATE -", "WATCH:", "TLDR:") are left out by
//! [`NOT_PLACES`]. The `wire` feature group's `wire.dateline` column tests a looser form of the
//! same shape: a column is weighed by a learner, while these fields are output taken as they
//! stand, so here a doubtful lead gives nothing. Nothing here is learned, and nothing labels a
//! block: these are output fields, like the reporter and date of [`super::fill`].

/// Capitalised leads that open a paragraph like a dateline but name no place.
const NOT_PLACES: &[&str] = &[
    "update",
    "updated",
    "updates",
    "note",
    "editor's note",
    "editors' note",
    "editor’s note",
    "breaking",
    "breaking news",
    "watch",
    "video",
    "photos",
    "photo",
    "exclusive",
    "analysis",
    "opinion",
    "correction",
    "clarification",
    "new",
    "free",
    "live",
    "file",
    "warning",
    "spoiler",
    "alert",
    "notice",
    "important",
    "disclaimer",
    "summary",
    "quick summary",
    "background",
    "abstract",
    "introduction",
    "overview",
    "fact check",
    "review",
    "recipe",
    "claim",
    "verdict",
    "rating",
    "tldr",
    "tl;dr",
    "faq",
    "ps",
    "p.s.",
    "faqs",
    "q&a",
    "question",
    "answer",
    "edit",
    "addendum",
    "sponsored",
    "advertisement",
    "ad",
    "listen",
    "read",
    "read more",
    "related",
    "key takeaways",
    "takeaways",
    "bottom line",
    "the bottom line",
    "conclusion",
    "step",
    "tip",
    "tips",
];

/// Longest lead (characters before the dash or colon) read as a dateline.
const MAX_LEAD_CHARS: usize = 80;
/// Most words of the place, of a region, of an agency.
const MAX_PLACE_WORDS: usize = 4;
const MAX_REGION_WORDS: usize = 3;
const MAX_AGENCY_WORDS: usize = 5;
/// Most letters of a region written in capitals (`MO`, `N.Y.`, `D.C.`).
const MAX_CODE_LETTERS: usize = 3;

/// Where and by whom a story was filed, as its dateline writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dateline {
    /// The place with its region as written: `SANTA MONICA, Calif.`, `NEW YORK`.
    pub place: String,
    /// The agency in parentheses: `AP`, `Reuters`, `Sports Network`.
    pub agency: Option<String>,
}

/// The dateline at the start of `text`, or `None` when it does not open with one. A text that
/// is only the dateline (`WASHINGTON (AP) -`, a dateline standing as its own block) has one too.
pub fn dateline(text: &str) -> Option<Dateline> {
    let t = text.trim_start();
    let (at, colon) = separator(t)?;
    let head = t[..at].trim();
    let after = after_separator(t, at);
    if head.is_empty() || head.chars().count() > MAX_LEAD_CHARS {
        return None;
    }
    // "NEW YORK -- With" or a dateline alone; not "WARNING:not a place".
    if !after.trim().is_empty() && !after.starts_with(char::is_whitespace) {
        return None;
    }
    let (before, agency) = match head.strip_suffix(')').and_then(|h| h.rfind('(').map(|i| (h[..i].trim_end(), &h[i + 1..]))) {
        Some((before, inner)) if inner.chars().any(|c| c.is_ascii_digit()) => (before, None),
        Some((before, inner)) => (before, Some(agency_name(inner)?)),
        None => (head, None),
    };
    let mut parts = before.split(',').map(str::trim);
    let place = parts.next().filter(|p| !p.is_empty())?;
    let capitals = all_capitals(place);
    if !(capitals || agency.is_some() && title_case(place, MAX_PLACE_WORDS)) || place.split_whitespace().count() > MAX_PLACE_WORDS {
        return None;
    }
    if NOT_PLACES.contains(&place.to_lowercase().as_str()) || letters(place) < 3 {
        return None;
    }
    if colon && agency.is_none() && (place.contains(' ') || letters(place) < 4) {
        return None;
    }
    let mut location = place.to_string();
    for part in parts {
        if is_date(part) {
            continue;
        }
        // `Calif.`, `New York`, `MO`; a region in capitals is a state's code, not a word
        // ("SELECT, TABLE, WITH — retrieve rows", a manual's heading).
        let code = all_capitals(part) && letters(part) <= MAX_CODE_LETTERS;
        if !title_case(part, MAX_REGION_WORDS) && !code {
            return None;
        }
        location.push_str(", ");
        location.push_str(part);
    }
    Some(Dateline { place: location, agency })
}

/// Where the lead ends: the first dash (`-` between spaces, `--`, `–`, `—`) or colon within
/// [`MAX_LEAD_CHARS`], and whether it is a colon.
fn separator(t: &str) -> Option<(usize, bool)> {
    let end = t.char_indices().nth(MAX_LEAD_CHARS + 1).map_or(t.len(), |(i, _)| i);
    let window = &t[..end];
    [(" - ", false), ("--", false), ("–", false), ("—", false), (":", true)]
        .iter()
        .filter_map(|&(s, colon)| window.find(s).map(|i| (i, colon)))
        .min_by_key(|&(i, _)| i)
        .or_else(|| window.strip_suffix(" -").map(|h| (h.len(), false)))
}

/// What follows the separator at `at`: the text after the dash or colon.
fn after_separator(t: &str, at: usize) -> &str {
    t[at..].trim_start().trim_start_matches(['-', '–', '—', ':'])
}

/// An agency's name: one to five words, the first capitalised, and no digit (`AP`, `Sports
/// Network`; not "including currency").
fn agency_name(inner: &str) -> Option<String> {
    let inner = inner.trim();
    let words = inner.split_whitespace().count();
    let ok = (1..=MAX_AGENCY_WORDS).contains(&words)
        && inner.starts_with(char::is_uppercase)
        && inner.chars().all(|c| c.is_alphabetic() || c == ' ' || c == '.' || c == '&' || c == '-' || c == '\'' || c == '’');
    ok.then(|| inner.to_string())
}

/// How many letters a text has.
fn letters(s: &str) -> usize {
    s.chars().filter(|c| c.is_alphabetic()).count()
}

/// Every letter a capital, at least one letter, and nothing but letters, spaces, `.`, `'`, `-`.
fn all_capitals(s: &str) -> bool {
    s.chars().any(char::is_alphabetic) && s.chars().all(|c| c.is_uppercase() || matches!(c, ' ' | '.' | '\'' | '’' | '-'))
}

/// One to `max` words, each starting with a capital, made of letters and `.`, `'`, `-`, and
/// each with a small letter unless it is a short code (`St. Louis`, `New York`, `MO`; not
/// `TABLE`).
fn title_case(s: &str, max: usize) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    (1..=max).contains(&words.len())
        && words.iter().all(|w| {
            w.starts_with(char::is_uppercase)
                && w.chars().all(|c| c.is_alphabetic() || matches!(c, '.' | '\'' | '’' | '-'))
                && (w.chars().any(char::is_lowercase) || letters(w) <= MAX_CODE_LETTERS)
        })
}

/// A date part of a dateline: `Jan 8`, `Dec. 20`, `2025`, `March 3 2008`.
fn is_date(part: &str) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    !words.is_empty()
        && words.iter().any(|w| w.chars().any(|c| c.is_ascii_digit()))
        && words.iter().all(|w| w.chars().all(|c| c.is_ascii_digit()) || super::is_month(&w.trim_end_matches('.').to_lowercase()))
}

/// The dateline of an article's main text: of its first paragraph of at least
/// `lead_words` words, or of a shorter line before it that is only a dateline.
pub fn lead_dateline(main_text: &str, lead_words: usize) -> Option<Dateline> {
    for line in main_text.lines() {
        let words = line.split_whitespace().count();
        if words >= lead_words {
            return dateline(line);
        }
        if let Some(d) = standing_dateline(line) {
            return Some(d);
        }
    }
    None
}

/// A dateline that is a whole text, as a dateline standing as its own block is written: a place
/// in capitals with nothing after its dash (`RENO, Nev. --`), or with an agency and nothing
/// after it or its colon (`WASHINGTON (AP):`, `BUFFALO, New York (AFP)`, no dash at all). A
/// short block is more often a heading or a button than a dateline ("FILTER:", "Email
/// (Required)"), so the place must be in capitals here, and a colon needs an agency.
pub fn standing_dateline(text: &str) -> Option<Dateline> {
    let t = text.trim();
    let d = match separator(t) {
        Some((at, colon)) if after_separator(t, at).trim().is_empty() => dateline(t).filter(|d| !colon || d.agency.is_some()),
        Some(_) => None,
        None if t.ends_with(')') => dateline(&format!("{t} -")).filter(|d| d.agency.is_some()),
        None => None,
    }?;
    all_capitals(d.place.split(',').next().unwrap_or_default()).then_some(d)
}

/// Marks after which a copyright or credit line names its holder, lower-cased, longest first
/// where one starts another.
const SOURCE_MARKS: &[&str] = &["copyrighted by", "copyright", "(c)", "©", "courtesy of", "source:", "source", "by"];
/// Most words of a source's name cut from a line; a longer remainder is no name.
const MAX_SOURCE_WORDS: usize = 8;

/// The holder's name in a source block: `© 2008 The Associated Press. All rights reserved.` →
/// `The Associated Press`, `Copyright (c) PA Sport 2008, All Rights Reserved` → `PA Sport`,
/// `© Reuters2008All rights reserved` → `Reuters`, `SOURCE BET Networks` → `BET Networks`. The
/// marks (`SOURCE_MARKS`: copyright, ©, (c), courtesy of, source, by), years and the words "All
/// rights reserved" are taken away and the name ends at the first full stop, comma or `|`. `None` when the text has no mark or no name
/// is left (a block that is only the agency's name, "Press Trust of India", stands as it is).
pub fn source_name(text: &str) -> Option<String> {
    let t = text.trim();
    let t = t.strip_prefix('(').and_then(|inner| inner.strip_suffix(')')).unwrap_or(t);
    // ASCII lower case keeps every byte where it is, so positions found in `lower` hold in `t`.
    let lower = t.to_ascii_lowercase();
    // Where the name starts: after the last mark of the leading run of marks and years.
    let mut at = 0;
    let mut marked = false;
    loop {
        let rest = &lower[at..];
        let skipped = rest.len() - rest.trim_start_matches(|c: char| c.is_whitespace() || c.is_ascii_digit() || c == ':').len();
        let rest = &rest[skipped..];
        match SOURCE_MARKS.iter().find(|m| rest.starts_with(*m) && !rest[m.len()..].starts_with(char::is_alphabetic)) {
            Some(m) => {
                at += skipped + m.len();
                marked = true;
            }
            None if marked => {
                at += skipped;
                break;
            }
            // A mark after a word or two: "Photograph Copyright : Getty Images".
            None => {
                let (i, m) = SOURCE_MARKS.iter().filter(|m| **m != "by").find_map(|m| lower.find(*m).map(|i| (i, *m)))?;
                if t[..i].split_whitespace().count() > 2 {
                    return None;
                }
                at = i + m.len();
                marked = true;
            }
        }
    }
    let rest = &t[at..];
    let reserved = rest.to_ascii_lowercase().find("all rights reserved").unwrap_or(rest.len());
    let rest = &rest[..reserved];
    let cut = [". ", ",", "|", " - "].iter().filter_map(|s| rest.find(s)).min().unwrap_or(rest.len());
    // A year glued to the name ("Reuters2008") or after it ("PA Sport 2008").
    let name = rest[..cut]
        .trim_end_matches(|c: char| c.is_ascii_digit() || c.is_whitespace() || matches!(c, '.' | ',' | ';' | ':'))
        .trim_start_matches(|c: char| c.is_whitespace() || c == ':')
        .trim();
    let words = name.split_whitespace().count();
    ((1..=MAX_SOURCE_WORDS).contains(&words) && name.starts_with(char::is_alphabetic)).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dl(text: &str) -> Option<(String, Option<String>)> {
        dateline(text).map(|d| (d.place, d.agency))
    }

    fn some(place: &str, agency: Option<&str>) -> Option<(String, Option<String>)> {
        Some((place.to_string(), agency.map(str::to_string)))
    }

    #[test]
    fn wire_datelines_give_place_and_agency() {
        assert_eq!(dl("KARACHI (Reuters) - Pakistan captain Shoaib Malik has backed"), some("KARACHI", Some("Reuters")));
        assert_eq!(dl("SANTA MONICA, Calif. (AP) -- \"No Country for Old Men\" was"), some("SANTA MONICA, Calif.", Some("AP")));
        assert_eq!(dl("PARIS, Jan 8 (Reuters) - French President Nicolas Sarkozy"), some("PARIS", Some("Reuters")));
        assert_eq!(dl("RAJSHAHI, Dec 20, 2025 (BSS) - Homestead gardening has been"), some("RAJSHAHI", Some("BSS")));
        assert_eq!(dl("WASHINGTON (AP) — The Supreme Court appeared ready"), some("WASHINGTON", Some("AP")));
        assert_eq!(dl("ST. LOUIS (Ticker) -- Manny Legace finally yielded a goal"), some("ST. LOUIS", Some("Ticker")));
        assert_eq!(dl("Beijing (PTI): Four captive-bred giant pandas"), some("Beijing", Some("PTI")));
        assert_eq!(dl("St. Louis, MO (Sports Network) - Andy McDonald registered"), some("St. Louis, MO", Some("Sports Network")));
    }

    #[test]
    fn datelines_without_an_agency_give_the_place() {
        assert_eq!(dl("CAIRO, Egypt - Osama bin Laden warned"), some("CAIRO, Egypt", None));
        assert_eq!(dl("NEW YORK - The World Trade Center site's owner"), some("NEW YORK", None));
        assert_eq!(dl("KATHMANDU: Lukla Airport, the gateway"), some("KATHMANDU", None));
        assert_eq!(dl("WASHINGTON (January 24, 2017) — Mindfulness meditation is"), some("WASHINGTON", None));
        assert_eq!(dl("WASHINGTON (AP) -"), some("WASHINGTON", Some("AP")), "a dateline standing alone");
    }

    #[test]
    fn labels_and_sentences_are_no_datelines() {
        for text in [
            "QUICK SUMMARY: Dig into some of the best SEO tutorials",
            "TLDR: We’re postponing the announced billing change",
            "NEW: Message refers to events that occurred in May",
            "CD: FREE! 3D animation tool, 10 stock images",
            "UPDATE - the company has responded",
            "Courtesy: San Jose State Athletics",
            "Reno, Nev.—Natalie White recorded her seventh career",
            "The mayor said on Monday - in a statement - that",
            "Montreal - General manager Bob Gainey gives",
            "COVID-19 - what we know",
            "NEVADA 72, SAN JOSE STATE 51",
            "A - B testing is a method",
            "CVE-2024-49113 stems from an out-of-bounds read",
            "Budget (including currency): Trying to keep it under $3500",
            "SELECT, TABLE, WITH — retrieve rows from a table or view",
        ] {
            assert_eq!(dl(text), None, "{text}");
        }
    }

    #[test]
    fn the_lead_paragraph_is_read_or_a_dateline_standing_before_it() {
        let text = "Courtesy: San Jose State Athletics\nLONDON -- The tragic period romance \"Atonement\" dominated the race";
        assert_eq!(lead_dateline(text, 8).map(|d| d.place).as_deref(), Some("LONDON"));
        let alone = "WASHINGTON (AP) -\nThe Supreme Court appeared ready Wednesday to uphold the law";
        assert_eq!(lead_dateline(alone, 8).and_then(|d| d.agency).as_deref(), Some("AP"));
        // Only the first paragraph counts: a dateline further down is a quoted story's.
        // A place and an agency standing alone, without a dash.
        assert_eq!(standing_dateline("BUFFALO, New York (AFP)").map(|d| (d.place, d.agency)), Some(("BUFFALO, New York".into(), Some("AFP".into()))));
        assert_eq!(standing_dateline("NEW YORK"), None, "a place alone may be a heading");
        assert_eq!(standing_dateline("Photos (12)"), None);
        // Headings and buttons shaped like one.
        for text in ["Email (Required)", "Alex Foster (Grove)", "FILTER:", "Monday (Mumbai)"] {
            assert_eq!(standing_dateline(text), None, "{text}");
        }
        assert_eq!(standing_dateline("RENO, Nev. --").map(|d| d.place).as_deref(), Some("RENO, Nev."));
        let later = "The company said it would close the plant next year, officials said.\nLONDON -- Another story begins here with words";
        assert_eq!(lead_dateline(later, 8), None);
    }

    #[test]
    fn copyright_and_credit_lines_are_cut_to_the_holder() {
        let name = |t: &str| source_name(t);
        let own = |s: &str| Some(s.to_string());
        assert_eq!(name("© 2008 The Associated Press. All rights reserved. This material may not be published"), own("The Associated Press"));
        assert_eq!(name("Copyright 2008 Associated Press. All rights reserved."), own("Associated Press"));
        assert_eq!(name("Copyright 2008 by The Associated Press. All rights reserved."), own("The Associated Press"));
        assert_eq!(name("(Copyright 2008 by The Associated Press. All Rights Reserved.)"), own("The Associated Press"));
        assert_eq!(name("© Reuters2008All rights reserved."), own("Reuters"));
        assert_eq!(name("© Reuters 2007. All Rights Reserved. | Learn more about Reuters"), own("Reuters"));
        assert_eq!(name("Copyright (c) Press Association Ltd. 2007, All Rights Reserved."), own("Press Association Ltd"));
        assert_eq!(name("Copyright (c) PA Sport 2008, All Rights Reserved."), own("PA Sport"));
        assert_eq!(name("Copyright 2008 Courtesy of The Sports Network."), own("The Sports Network"));
        assert_eq!(name("(c) Indo-Asian News Service"), own("Indo-Asian News Service"));
        assert_eq!(name("SOURCE BET Networks"), own("BET Networks"));
        assert_eq!(name("Photograph Copyright : Getty Images"), own("Getty Images"));
        assert_eq!(name("By Agencies"), own("Agencies"));
        // No mark, or nothing that is a name after it: the block stands as it is.
        assert_eq!(name("Press Trust of India"), None);
        assert_eq!(name("All rights reserved. This copyrighted material may not be published, broadcast or redistributed."), None);
        assert_eq!(name("Central Banks: Fed - Dec 11 Meeting: 25bp rate cut by FXstreet.com"), None);
    }
}
