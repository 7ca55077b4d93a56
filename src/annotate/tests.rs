//! Request handling of the annotator, without a network: labels reach the disk with provenance
//! `hand`; bad requests are 4xx and write nothing; mismatched label files are refused.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use scraper::{Html, Selector};

use super::*;
use crate::corpus::LabelFile;

const PORT: u16 = 4242;

/// A corpus `news/` with two pages (one in a subdirectory), in a fresh temporary directory.
struct Fixture {
    dir: PathBuf,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = std::env::temp_dir().join(format!("parcels-annotate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let corpus = dir.join("news");
        std::fs::create_dir_all(corpus.join("sub")).unwrap();
        std::fs::write(corpus.join("a.html"), "<html><head><meta http-equiv=\"refresh\" content=\"0;url=http://x\"><base href=\"http://x/\"><meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'none'\"><script>alert(1)</script></head><body><h1>Headline</h1><p>Body text</p><p onclick=\"x()\">Footer</p></body></html>").unwrap();
        std::fs::write(corpus.join("sub/b.htm"), "<p>One</p><p>Two</p>").unwrap();
        Fixture { dir }
    }

    fn corpus(&self) -> PathBuf {
        self.dir.join("news")
    }

    fn labels(&self) -> PathBuf {
        self.dir.join("labels")
    }

    fn annotator(&self) -> Annotator {
        let (name, pages) = corpus_pages(&self.corpus(), None, Some(&self.labels())).unwrap();
        Annotator::new(name, pages, LabelScheme::built_in("parcels-17").unwrap(), Divider::default(), PORT)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn get(target: &str) -> Request {
    Request { method: "GET".into(), target: target.into(), host: Some(format!("127.0.0.1:{PORT}")), ..Request::default() }
}

fn post(a: &Annotator, body: &str) -> Request {
    Request {
        method: "POST".into(),
        target: "/api/label".into(),
        host: Some(format!("127.0.0.1:{PORT}")),
        content_type: Some("application/json".into()),
        token: Some(a.token().to_string()),
        body: body.as_bytes().to_vec(),
        ..Request::default()
    }
}

fn files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

#[test]
fn pages_are_listed_with_relative_names_and_label_files_by_stem() {
    let f = Fixture::new("list");
    let (name, pages) = corpus_pages(&f.corpus(), None, Some(&f.labels())).unwrap();
    assert_eq!(name, "news");
    let rel: Vec<&str> = pages.iter().map(|p| p.rel.as_str()).collect();
    assert_eq!(rel, ["a.html", "sub/b.htm"]);
    assert_eq!(pages[1].label_path, f.labels().join("b.json"));
    assert_eq!(crate::corpus::page_stem("x/y.html.gz"), "y");
    assert_eq!(crate::corpus::page_stem("html/4179.html.gz"), "4179");
    assert_eq!(crate::corpus::page_stem(".hidden"), ".hidden");
}

#[test]
fn labelling_a_block_saves_a_hand_span_at_once() {
    let f = Fixture::new("label");
    let a = f.annotator();
    // Page 0 is a.html: blocks "Headline" [0,8), "Body text" [9,18), "Footer" [19,25).
    let r = a.handle(&post(&a, r#"{"page":0,"block":1,"label":"main-content"}"#));
    assert_eq!(r.status, 200, "{}", r.text());
    let answer: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(answer["labelled"], 1);
    assert_eq!(answer["blocks"][1]["label"], "main-content");
    assert_eq!(answer["blocks"][0]["label"], serde_json::Value::Null);
    let file = LabelFile::load(f.labels().join("a.json")).unwrap();
    assert_eq!((file.corpus.as_str(), file.page.as_str(), file.scheme.as_str()), ("news", "a.html", "parcels-17"));
    assert_eq!(file.spans.len(), 1);
    let s = &file.spans[0];
    assert_eq!((s.start, s.end, s.label.as_str(), s.provenance.as_str()), (9, 18, "main-content", "hand"));
    // Relabel, then clear: the file follows every change.
    assert_eq!(a.handle(&post(&a, r#"{"page":0,"block":1,"label":"title"}"#)).status, 200);
    assert_eq!(LabelFile::load(f.labels().join("a.json")).unwrap().spans[0].label, "title");
    assert_eq!(a.handle(&post(&a, r#"{"page":0,"block":1,"label":null}"#)).status, 200);
    assert!(LabelFile::load(f.labels().join("a.json")).unwrap().spans.is_empty());
    // No temporary file is left behind.
    assert_eq!(files_in(&f.labels()), 1);
}

#[test]
fn bad_requests_are_refused_and_write_nothing() {
    let f = Fixture::new("bad");
    let a = f.annotator();
    let cases: &[(&str, u16)] = &[
        (r#"{"page":0,"block":3,"label":"title"}"#, 400),    // block out of range
        (r#"{"page":0,"block":0,"label":"headline"}"#, 400), // not in parcels-17
        (r#"{"page":2,"block":0,"label":"title"}"#, 404),    // page out of range
        (r#"{"page":0,"block":-1,"label":"title"}"#, 400),
        (r#"{"page":"../../etc/passwd","block":0,"label":"title"}"#, 400),
        (r#"{"page":0,"block":0,"label":"title","path":"/tmp/x.json"}"#, 400), // unknown field
        ("not json", 400),
    ];
    for (body, status) in cases {
        assert_eq!(a.handle(&post(&a, body)).status, *status, "{body}");
    }
    let ok = r#"{"page":0,"block":0,"label":"title"}"#;
    let mut no_token = post(&a, ok);
    no_token.token = None;
    assert_eq!(a.handle(&no_token).status, 403);
    let mut other_site = post(&a, ok);
    other_site.origin = Some("http://evil.example".into());
    assert_eq!(a.handle(&other_site).status, 403);
    let mut form = post(&a, ok);
    form.content_type = Some("application/x-www-form-urlencoded".into());
    assert_eq!(a.handle(&form).status, 415);
    let mut rebound = post(&a, ok);
    rebound.host = Some(format!("evil.example:{PORT}"));
    assert_eq!(a.handle(&rebound).status, 421);
    let mut big = post(&a, ok);
    big.body = vec![b' '; super::app::MAX_BODY + 1];
    assert_eq!(a.handle(&big).status, 413);
    for target in ["/page/../../etc/passwd", "/page/%2e%2e%2fa.html", "/page/-1", "/page/2", "/page/1e3", "/a.html", "/news/a.html", "/labels/a.json"] {
        assert_eq!(a.handle(&get(target)).status, 404, "{target}");
    }
    let mut get_label = get("/api/label");
    get_label.method = "GET".into();
    assert_eq!(a.handle(&get_label).status, 405);
    assert!(!f.labels().exists(), "nothing may be written by refused requests");
}

#[test]
fn a_label_file_for_a_changed_page_is_an_error_and_is_kept() {
    let f = Fixture::new("changed");
    let a = f.annotator();
    assert_eq!(a.handle(&post(&a, r#"{"page":1,"block":0,"label":"title"}"#)).status, 200);
    let path = f.labels().join("b.json");
    let before = std::fs::read(&path).unwrap();
    std::fs::write(f.corpus().join("sub/b.htm"), "<p>One</p><p>Two, edited</p>").unwrap();
    let r = a.handle(&post(&a, r#"{"page":1,"block":1,"label":"title"}"#));
    assert_eq!(r.status, 409, "{}", r.text());
    assert!(r.text().contains("b.json") && r.text().contains("page changed"), "{}", r.text());
    let view = a.handle(&get("/page/1"));
    assert_eq!(view.status, 409);
    assert!(view.text().contains("the page changed"), "{}", view.text());
    assert!(a.handle(&get("/")).text().contains("the page changed"));
    assert_eq!(std::fs::read(&path).unwrap(), before, "the label file must not be overwritten");
}

#[test]
fn a_label_file_of_another_page_or_scheme_is_refused() {
    let f = Fixture::new("other");
    let a = f.annotator();
    assert_eq!(a.handle(&post(&a, r#"{"page":0,"block":0,"label":"title"}"#)).status, 200);
    let path = f.labels().join("a.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"page\": \"a.html\"", "\"page\": \"elsewhere/a.html\"")).unwrap();
    let r = a.handle(&post(&a, r#"{"page":0,"block":1,"label":"title"}"#));
    assert_eq!(r.status, 409);
    assert!(r.text().contains("elsewhere/a.html"), "{}", r.text());
    std::fs::write(&path, &text).unwrap();
    let (name, pages) = corpus_pages(&f.corpus(), None, Some(&f.labels())).unwrap();
    let binary = Annotator::new(name, pages, LabelScheme::built_in("binary").unwrap(), Divider::default(), PORT);
    let r = binary.handle(&post(&binary, r#"{"page":0,"block":1,"label":"content"}"#));
    assert_eq!(r.status, 409);
    assert!(r.text().contains("scheme parcels-17"), "{}", r.text());
}

#[test]
fn the_view_runs_only_the_annotators_script() {
    let f = Fixture::new("view");
    let a = f.annotator();
    let r = a.handle(&get("/page/0?unlabelled=1"));
    assert_eq!(r.status, 200);
    let html = r.text();
    let csp = r.csp.clone().unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("script-src 'nonce-"), "{csp}");
    assert!(!html.contains("alert(1)") && !html.contains("onclick") && !html.contains("http-equiv=\"refresh"), "{html}");
    // No base URL, and no CSP of the page's own that could block the annotator.
    assert!(!html.contains("<base") && !html.contains("script-src 'none'"), "{html}");
    assert_eq!(html.matches("Content-Security-Policy").count(), 1);
    // One script, carrying the nonce, its data a constant of the script itself.
    assert_eq!(html.matches("<script nonce=").count(), 1);
    assert_eq!(html.matches("<script").count(), 1);
    assert!(html.contains("const PARCELS = {"), "{html}");
    assert!(!super::app::SCRIPT.to_ascii_lowercase().contains("</script"), "the script would end its own element");
    assert!(!super::app::STYLE.to_ascii_lowercase().contains("</style"), "the style sheet would end its own element");
    assert!(html.contains("data-block=\"2\""));
    let list = a.handle(&get("/")).text();
    assert!(list.contains("0 / 3"), "{list}");
}

#[test]
fn manifests_name_pages_inside_the_corpus_only() {
    let f = Fixture::new("manifest");
    let m = f.dir.join("pages.txt");
    std::fs::write(&m, "# only b\nsub/b.htm\tnews.example\n").unwrap();
    let (name, pages) = corpus_pages(&f.corpus(), Some(&m), Some(&f.labels())).unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!((pages[0].rel.as_str(), pages[0].site.as_deref()), ("sub/b.htm", Some("news.example")));
    // The site goes into new label files.
    let a = Annotator::new(name, pages, LabelScheme::built_in("parcels-17").unwrap(), Divider::default(), PORT);
    assert_eq!(a.handle(&post(&a, r#"{"page":0,"block":0,"label":"title"}"#)).status, 200);
    assert_eq!(LabelFile::load(f.labels().join("b.json")).unwrap().site.as_deref(), Some("news.example"));
    std::fs::write(&m, "../news/a.html\n").unwrap();
    let err = corpus_pages(&f.corpus(), Some(&m), Some(&f.labels())).unwrap_err();
    assert!(err.to_string().contains("pages.txt:1"), "{err}");
    std::fs::write(&m, "/etc/passwd\n").unwrap();
    assert!(corpus_pages(&f.corpus(), Some(&m), Some(&f.labels())).is_err());
    // Two pages that would share a label file are refused.
    std::fs::write(f.corpus().join("sub/a.html"), "<p>x</p>").unwrap();
    let err = corpus_pages(&f.corpus(), None, Some(&f.labels())).unwrap_err();
    assert!(err.to_string().contains("a.json"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_corpus_is_not_a_page() {
    let f = Fixture::new("symlink");
    std::fs::write(f.dir.join("secret.html"), "<p>secret</p>").unwrap();
    std::os::unix::fs::symlink(f.dir.join("secret.html"), f.corpus().join("leak.html")).unwrap();
    let (_, pages) = corpus_pages(&f.corpus(), None, Some(&f.labels())).unwrap();
    assert!(pages.iter().all(|p| !p.rel.contains("leak")), "{pages:?}");
}

#[test]
fn a_save_without_label_is_refused_not_a_clear() {
    let f = Fixture::new("nolabel");
    let a = f.annotator();
    assert_eq!(a.handle(&post(&a, r#"{"page":0,"block":1,"label":"title"}"#)).status, 200);
    let path = f.labels().join("a.json");
    let before = std::fs::read(&path).unwrap();
    let r = a.handle(&post(&a, r#"{"page":0,"block":1}"#));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("label"), "{}", r.text());
    assert_eq!(std::fs::read(&path).unwrap(), before, "a request without a label must not change the file");
    // What the script sends to clear (`label: null`, see assets/annotator.js) still clears.
    assert_eq!(a.handle(&post(&a, r#"{"page":0,"block":1,"label":null}"#)).status, 200);
    assert!(LabelFile::load(&path).unwrap().spans.is_empty());
}

/// The served view parsed as a browser parses it.
fn served_dom(a: &Annotator, page: usize) -> (Html, Response) {
    let r = a.handle(&get(&format!("/page/{page}")));
    assert_eq!(r.status, 200, "{}", r.text());
    (Html::parse_document(&r.text()), r)
}

fn select<'a>(dom: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    dom.select(&Selector::parse(css).unwrap()).collect()
}

/// Adds page `name` to the fixture's corpus and answers its index in a new annotator.
fn with_page(f: &Fixture, name: &str, html: &str) -> (Annotator, usize) {
    std::fs::write(f.corpus().join(name), html).unwrap();
    let (_, pages) = corpus_pages(&f.corpus(), None, Some(&f.labels())).unwrap();
    let index = pages.iter().position(|p| p.rel == name).unwrap();
    (f.annotator(), index)
}

#[test]
fn markup_escaped_inside_svg_style_is_not_served_live() {
    let f = Fixture::new("svgstyle");
    let (a, i) = with_page(
        &f,
        "svg.html",
        "<html><head><title>t</title></head><body><p>Text</p>\
         <svg><style>&lt;meta http-equiv=refresh content=\"0;url=http://evil/\"&gt;</style></svg>\
         <math><style>&lt;META HTTP-EQUIV=Refresh content=0&gt;&lt;base href=http://evil/&gt;</style></math>\
         <svg><style>&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;</style></svg><p>More</p></body></html>",
    );
    let (dom, r) = served_dom(&a, i);
    // The only `<meta http-equiv>` is the annotator's own CSP, the first element of <head>.
    let metas = select(&dom, "meta[http-equiv]");
    assert_eq!(metas.len(), 1, "{}", r.text());
    assert!(metas[0].value().attr("http-equiv").unwrap().eq_ignore_ascii_case("content-security-policy"));
    assert!(r.csp.as_deref().unwrap().starts_with(metas[0].value().attr("content").unwrap()));
    assert!(select(&dom, "base, img[onerror]").is_empty(), "{}", r.text());
    let scripts = select(&dom, "script");
    assert_eq!(scripts.len(), 1, "{}", r.text());
    assert!(scripts[0].value().attr("nonce").is_some());
    // The SVG style text is still there, as text.
    assert!(select(&dom, "svg style").iter().any(|s| s.text().collect::<String>().contains("http://evil/")));
}

#[test]
fn a_page_cannot_forge_the_annotators_ids() {
    let f = Fixture::new("forge");
    let (a, i) = with_page(
        &f,
        "forge.html",
        "<html id=\"parcels-data\" data-parcels-ready=\"1\"><head><style id=\"PARCELS-style\">p{}</style></head>\
         <body class=\"parcels-filter own\"><div id=\"parcels-toolbar\" class=\"parcels-block own\" data-block=\"0\">\
         <img name=\"getElementById\" src=\"a.png\" alt=\"pic\"><form name=\"querySelectorAll\"></form>Text</div>\
         <svg><style>&lt;script type=application/json id=parcels-data&gt;{}&lt;/script&gt;</style></svg><p>More</p></body></html>",
    );
    let (dom, r) = served_dom(&a, i);
    let html = r.text();
    // No page id, class or data attribute of the annotator's survives.
    for el in dom.tree.root().descendants().filter_map(|n| n.value().as_element()) {
        for (name, value) in el.attrs() {
            assert!(!(name == "id" && value.to_ascii_lowercase().starts_with("parcels-")), "id {value} on <{}>", el.name());
            assert!(!name.starts_with("data-parcels-"), "{name} on <{}>", el.name());
        }
    }
    assert!(select(&dom, "#page-parcels-data").len() == 1 && select(&dom, "#page-parcels-toolbar").len() == 1, "{html}");
    assert_eq!(select(&dom, "body.own").len(), 1);
    assert!(select(&dom, "body.parcels-filter, div.parcels-block, div[data-block]").is_empty(), "{html}");
    // Every block element is an annotator wrapper, one per leaf, numbered within the page.
    let blocks = select(&dom, ".parcels-block");
    assert!(!blocks.is_empty() && blocks.iter().all(|b| b.value().name() == "span" && b.value().attr("data-block").is_some()), "{html}");
    // No named image or form hides `document.getElementById` or `querySelectorAll`.
    assert!(select(&dom, "img[name], form[name]").is_empty(), "{html}");
    // The script's data is a constant of the nonce'd script, whatever the page holds.
    let script: String = select(&dom, "script")[0].text().collect();
    let json = script.strip_prefix("const PARCELS = ").and_then(|s| s.split_once(";\n")).map(|(j, _)| j).unwrap();
    let data: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(data["page"], i);
    assert_eq!(data["name"], "forge.html");
}

/// Sends one request over loopback and answers the status (0: closed without an answer).
fn http_status(port: u16, target: &str, wait: std::time::Duration) -> std::io::Result<u16> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(wait))?;
    write!(s, "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n")?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)?;
    let text = String::from_utf8_lossy(&out);
    Ok(text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0))
}

#[test]
fn slow_connections_do_not_lock_the_server_out() {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    let f = Fixture::new("slow");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (name, pages) = corpus_pages(&f.corpus(), None, Some(&f.labels())).unwrap();
    let a = Arc::new(Annotator::new(name, pages, LabelScheme::built_in("parcels-17").unwrap(), Divider::default(), port));
    let limits = server::Limits { max_connections: 4, request_time: Duration::from_secs(1), response_time: Duration::from_secs(2) };
    // The server thread outlives the test; it ends with the test process.
    std::thread::spawn(move || server::serve_with(listener, a, limits));
    let start = Instant::now();
    // Every slot taken: three connections that send nothing, one that sends a byte every
    // 100 ms (a per-read timeout would never cut it).
    let idle: Vec<std::net::TcpStream> = (0..3).map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
    let mut dribble = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let dribbler = std::thread::spawn(move || {
        let started = Instant::now();
        for b in b"GET / HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
            if dribble.write_all(&[*b]).is_err() {
                return started.elapsed();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        started.elapsed()
    });
    std::thread::sleep(Duration::from_millis(200));
    // Full: a normal request is answered 503 at once, not left waiting.
    let t = Instant::now();
    assert_eq!(http_status(port, "/", Duration::from_secs(3)).unwrap(), 503);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // Within a few seconds the slow connections are cut and a normal request is served.
    let mut status = 0;
    while status != 200 && start.elapsed() < Duration::from_secs(6) {
        std::thread::sleep(Duration::from_millis(100));
        status = http_status(port, "/", Duration::from_secs(3)).unwrap_or(0);
    }
    assert_eq!(status, 200, "still locked out after {:?}", start.elapsed());
    assert!(start.elapsed() < Duration::from_secs(4), "{:?}", start.elapsed());
    // The silent connections were closed unanswered; the dribbler was cut off mid-request.
    for mut s in idle {
        s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
        let mut buf = Vec::new();
        assert!(matches!(s.read_to_end(&mut buf), Ok(0)), "{}", String::from_utf8_lossy(&buf));
    }
    let cut = dribbler.join().unwrap();
    assert!(cut < Duration::from_secs(3), "a slow request held its connection for {cut:?}");
}

#[test]
fn a_crowd_of_silent_connections_beyond_the_cap_does_not_delay_the_503() {
    use std::io::Read;
    use std::time::{Duration, Instant};
    let f = Fixture::new("crowd");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (name, pages) = corpus_pages(&f.corpus(), None, Some(&f.labels())).unwrap();
    let a = Arc::new(Annotator::new(name, pages, LabelScheme::built_in("parcels-17").unwrap(), Divider::default(), port));
    let limits = server::Limits { max_connections: 2, request_time: Duration::from_secs(20), response_time: Duration::from_secs(20) };
    std::thread::spawn(move || server::serve_with(listener, a, limits));
    // Both slots held for the whole test, then 30 more connections that send nothing. The
    // refusing thread used to wait 300 ms for each one's request: 9 s before the next 503.
    let held: Vec<std::net::TcpStream> = (0..2).map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(100));
    let crowd: Vec<std::net::TcpStream> = (0..30).map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    assert_eq!(http_status(port, "/", Duration::from_secs(15)).unwrap(), 503);
    assert!(t.elapsed() < Duration::from_secs(2), "the 503 took {:?}", t.elapsed());
    // The silent ones got their 503 too, and were closed.
    let mut first = &crowd[0];
    first.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let mut answer = String::new();
    first.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    drop(held);
}
