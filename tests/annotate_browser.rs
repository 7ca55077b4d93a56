//! The annotator end to end in a real browser: `parcels annotate` on a temporary corpus of three
//! pages from `tests/pages/`, driven by Debian's headless Chromium through chromedriver (W3C
//! WebDriver, a small client over `std::net` below). Blocks are labelled by clicking a block
//! then pressing a label's key, by clicking the legend, and by keyboard navigation; a label is
//! cleared; links inside blocks do not navigate; the unlabelled filter skips labelled blocks;
//! the person moves to the next page. Then the server is killed (SIGKILL) and the label files
//! on disk are checked: labels, spans exactly covering the blocks' characters, provenance `hand`.
//!
//! Without the browser the test is skipped, saying so on standard error ("skipped: no chromium
//! at /usr/bin/chromium"), unless `PARCELS_REQUIRE_BROWSER=1`: then a missing browser is a
//! failure. `.ci/run` installs `chromium` and `chromium-driver` and sets it, so CI can never
//! pass this test without running it. `PARCELS_CHROMIUM` and `PARCELS_CHROMEDRIVER` point the
//! test at other binaries (and let the skip itself be tested).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use parcels::corpus::{LabelFile, LabelScheme};
use parcels::divide::Divider;
use parcels::page::{LoadOptions, Page};
use serde_json::{json, Value};

/// Debian's paths of the browser and its driver (`PARCELS_CHROMEDRIVER`, `PARCELS_CHROMIUM`
/// override them).
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
/// Set to `1` where the browser must be present (CI): a missing browser fails the test.
const REQUIRE_BROWSER: &str = "PARCELS_REQUIRE_BROWSER";
const WAIT: Duration = Duration::from_secs(15);
/// W3C WebDriver's key for element references.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// W3C WebDriver's key for shadow root references.
const SHADOW: &str = "shadow-6066-11e4-a52e-4f735466cecf";
/// W3C WebDriver key codes.
const ARROW_UP: &str = "\u{E013}";
const ARROW_DOWN: &str = "\u{E015}";
const BACKSPACE: &str = "\u{E003}";

/// A child process killed and reaped when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A temporary directory removed at the end.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// One HTTP/1.1 exchange; answers the status and the JSON body. The body is read by its
/// `Content-Length` (chromedriver keeps connections open whatever the client asks).
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect {port}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let fail = |e: std::io::Error| format!("{method} {path}: {e}");
    let mut status_line = String::new();
    reader.read_line(&mut status_line).map_err(fail)?;
    let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| format!("bad status line: {status_line:?}"))?;
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).map_err(fail)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    let mut raw = Vec::new();
    match length {
        Some(n) => {
            raw.resize(n, 0);
            reader.read_exact(&mut raw).map_err(fail)?;
        }
        None => {
            reader.read_to_end(&mut raw).map_err(fail)?;
        }
    }
    let text = String::from_utf8_lossy(&raw);
    let value = if text.trim().is_empty() { Value::Null } else { serde_json::from_str(&text).map_err(|e| format!("{method} {path}: {e}: {text}"))? };
    Ok((status, value))
}

/// A WebDriver session; deleted (closing the browser) when dropped.
struct Browser {
    port: u16,
    session: String,
}

impl Browser {
    fn start(port: u16, chromium: &Path, profile: &Path) -> Browser {
        let deadline = Instant::now() + WAIT;
        while !matches!(http(port, "GET", "/status", None), Ok((200, ref v)) if v["value"]["ready"] == true) {
            assert!(Instant::now() < deadline, "chromedriver did not start on port {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,900",
        ];
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args}
        }}});
        let (status, v) = http(port, "POST", "/session", Some(&caps)).expect("new session");
        assert_eq!(status, 200, "cannot start Chromium: {v}");
        let session = v["value"]["sessionId"].as_str().expect("session id").to_string();
        Browser { port, session }
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let (status, v) = http(self.port, method, &path, body.as_ref()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    fn url(&self) -> String {
        self.call("GET", "/url", None).as_str().unwrap_or_default().to_string()
    }

    /// Elements matching a CSS selector (empty when none).
    fn find_all(&self, css: &str) -> Vec<String> {
        let v = self.call("POST", "/elements", Some(json!({"using": "css selector", "value": css})));
        v.as_array().into_iter().flatten().filter_map(|e| e[ELEMENT].as_str().map(str::to_string)).collect()
    }

    /// Waits for an element matching `css`, which is how the test waits for saves and pages.
    fn wait_for(&self, css: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(e) = self.find_all(css).into_iter().next() {
                return e;
            }
            if Instant::now() > deadline {
                let source = self.call("GET", "/source", None);
                let head: String = source.as_str().unwrap_or_default().chars().take(400).collect();
                panic!("timed out waiting for {css} on {}: {head}", self.url());
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    fn click(&self, css: &str) {
        let e = self.wait_for(css);
        self.call("POST", &format!("/element/{e}/click"), Some(json!({})));
    }

    /// Clicks an element of the toolbar, which lives in a shadow root.
    fn click_in_toolbar(&self, css: &str) {
        let host = self.wait_for("#parcels-toolbar");
        let shadow = self.call("GET", &format!("/element/{host}/shadow"), None);
        let shadow = shadow[SHADOW].as_str().expect("toolbar shadow root");
        let found = self.call("POST", &format!("/shadow/{shadow}/element"), Some(json!({"using": "css selector", "value": css})));
        let e = found[ELEMENT].as_str().unwrap_or_else(|| panic!("{css} not in the toolbar"));
        self.call("POST", &format!("/element/{e}/click"), Some(json!({})));
    }

    /// Presses and releases each key in turn (W3C actions).
    fn keys(&self, keys: &[&str]) {
        let actions: Vec<Value> = keys.iter().flat_map(|k| [json!({"type": "keyDown", "value": k}), json!({"type": "keyUp", "value": k})]).collect();
        self.call("POST", "/actions", Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})));
    }

    /// Waits until the view reports `saved` changes saved and block `current` selected.
    fn settled(&self, saved: usize, current: usize) {
        self.wait_for(&format!("html[data-parcels-saved=\"{saved}\"][data-parcels-current=\"{current}\"]"));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(self.port, "DELETE", &format!("/session/{}", self.session), None);
    }
}

/// Starts `parcels annotate` and reads the URL it prints.
fn start_server(corpus: &Path, labels: &Path) -> (Killed, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["annotate", "--corpus"])
        .arg(corpus)
        .arg("--labels")
        .arg(labels)
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start parcels annotate");
    let stdout = child.stdout.take().expect("stdout");
    let server = Killed(child);
    let mut lines = BufReader::new(stdout).lines();
    let url = loop {
        let line = lines.next().expect("parcels annotate exited before printing its URL").expect("read stdout");
        if let Some(rest) = line.strip_prefix("open ") {
            break rest.split_whitespace().next().unwrap_or_default().trim_end_matches('/').to_string();
        }
    };
    (server, url)
}

/// The labelled blocks of a page, read back from its label file, checking that each span covers
/// exactly one labelled block's characters, with provenance `hand`.
fn labels_on_disk(label_file: &Path, page: &Path) -> Vec<(usize, String)> {
    let file = LabelFile::load(label_file).unwrap_or_else(|e| panic!("{e}"));
    let page = Page::load(page, &LoadOptions::default()).expect("page");
    let division = Divider::default().divide(&page);
    file.verify(label_file, &page, &division).expect("label file matches its page");
    let scheme = LabelScheme::built_in("parcels-17").expect("scheme");
    let gold = file.block_labels(&division, &scheme);
    let mut labelled = Vec::new();
    for (b, g) in division.blocks.iter().zip(&gold) {
        if let Some(c) = g.label {
            assert!(!g.mixed && g.share == 1.0, "block {} is not labelled whole: {g:?}", b.id);
            assert_eq!(g.provenance.as_deref(), Some("hand"));
            labelled.push((b.id, scheme.labels[c].name.clone()));
        }
    }
    // Blocks are separated by a newline in the page text, so each labelled block is one span.
    let spans: Vec<(usize, usize, &str)> = file.spans.iter().map(|s| (s.start, s.end, s.label.as_str())).collect();
    let blocks: Vec<(usize, usize, &str)> = labelled.iter().map(|(id, l)| (division.blocks[*id].chars[0], division.blocks[*id].chars[1], l.as_str())).collect();
    assert_eq!(spans, blocks, "spans must cover exactly the labelled blocks' characters");
    assert!(file.spans.iter().all(|s| s.provenance == "hand"));
    labelled
}

/// The browser and its driver, or `None` after saying on standard error why the test is
/// skipped; with `PARCELS_REQUIRE_BROWSER=1` a missing browser panics instead.
fn browser() -> Option<(PathBuf, PathBuf)> {
    let path = |var: &str, default: &str| std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from);
    let chromium = path("PARCELS_CHROMIUM", CHROMIUM);
    let chromedriver = path("PARCELS_CHROMEDRIVER", CHROMEDRIVER);
    let missing = [("chromium", &chromium), ("chromedriver", &chromedriver)].into_iter().find(|(_, p)| !p.is_file());
    let Some((name, at)) = missing else {
        return Some((chromium, chromedriver));
    };
    let reason = format!("no {name} at {}", at.display());
    if std::env::var_os(REQUIRE_BROWSER).is_some_and(|v| v == "1") {
        panic!("{reason}, and {REQUIRE_BROWSER}=1 requires it (apt-get install chromium chromium-driver, as .ci/run does)");
    }
    eprintln!("skipped: {reason} (apt-get install chromium chromium-driver; {REQUIRE_BROWSER}=1 makes this a failure)");
    None
}

#[test]
fn label_pages_in_a_headless_browser() {
    let started = Instant::now();
    let Some((chromium, chromedriver)) = browser() else { return };
    let tmp = TempDir(std::env::temp_dir().join(format!("parcels-annotate-browser-{}", std::process::id())));
    let corpus = tmp.0.join("news");
    let labels = tmp.0.join("labels");
    std::fs::create_dir_all(&corpus).expect("temp corpus");
    let pages = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pages");
    for name in ["layers.html", "linear.html", "table.html"] {
        std::fs::copy(pages.join(name), corpus.join(name)).expect("copy page");
    }
    let (server, base) = start_server(&corpus, &labels);
    let driver_port = free_port();
    let driver = Killed(
        Command::new(&chromedriver).arg(format!("--port={driver_port}")).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("start chromedriver"),
    );
    let browser = Browser::start(driver_port, &chromium, &tmp.0.join("profile"));

    // layers.html (page 0): 3 headline, 4 byline, 5 dateline, 6 first paragraph, 7 "Costs".
    browser.goto(&format!("{base}/page/0"));
    browser.wait_for("html[data-parcels-ready=\"1\"]");
    // Clicking a link inside a block selects the block and does not follow the link.
    browser.click("a[href=\"/jobs\"]");
    browser.settled(0, 2);
    assert!(browser.url().ends_with("/page/0"), "a click followed a link: {}", browser.url());
    // The legend labels the selected block (the navigation) and moves on to the headline.
    browser.click_in_toolbar("button[data-label=\"site-nav\"]");
    browser.settled(1, 3);
    // Click + key; the key moves on to the next block, where keys go on labelling.
    browser.click(".parcels-block[data-block=\"3\"]");
    browser.keys(&["t"]);
    browser.settled(2, 4);
    browser.keys(&["p"]);
    browser.settled(3, 5);
    // Keyboard navigation: skip the dateline, label the paragraph.
    browser.keys(&[ARROW_DOWN, "m"]);
    browser.settled(4, 7);
    // Label "Costs", go back to it and clear it.
    browser.keys(&["h"]);
    browser.settled(5, 8);
    browser.keys(&[ARROW_UP, BACKSPACE]);
    browser.settled(6, 7);
    // The unlabelled filter: from the headline, down skips the labelled byline (4) to the
    // dateline (5); after labelling it, the labelled paragraph (6) is skipped too.
    browser.keys(&["u"]);
    browser.wait_for("html[data-parcels-filter=\"1\"]");
    browser.click(".parcels-block[data-block=\"3\"]");
    browser.settled(6, 3);
    browser.keys(&[ARROW_DOWN]);
    browser.settled(6, 5);
    browser.keys(&["d"]);
    browser.settled(7, 7);
    // The next page keeps the filter; the first unlabelled block is its headline.
    browser.keys(&["]"]);
    browser.wait_for("html[data-parcels-ready=\"1\"][data-parcels-filter=\"1\"][data-parcels-saved=\"0\"]");
    assert!(browser.url().contains("/page/1"), "not on the next page: {}", browser.url());
    browser.keys(&[ARROW_DOWN, "t"]);
    browser.settled(1, 1);
    // Every change is on disk already: kill everything before reading the files.
    drop(browser);
    drop(driver);
    drop(server);

    let got = labels_on_disk(&labels.join("layers.json"), &corpus.join("layers.html"));
    let want: Vec<(usize, String)> =
        [(2, "site-nav"), (3, "title"), (4, "reporter"), (5, "date"), (6, "main-content")].iter().map(|(b, l)| (*b, l.to_string())).collect();
    assert_eq!(got, want);
    assert_eq!(labels_on_disk(&labels.join("linear.json"), &corpus.join("linear.html")), [(0, "title".to_string())]);
    assert!(!labels.join("table.json").exists(), "an unvisited page got a label file");
    let file = LabelFile::load(labels.join("layers.json")).expect("layers.json");
    assert_eq!((file.corpus.as_str(), file.page.as_str()), ("news", "layers.html"));
    eprintln!("annotator browser test: {:.1} s", started.elapsed().as_secs_f64());
}
