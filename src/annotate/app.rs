//! The annotator's requests and answers, without any networking: [`Annotator::handle`] turns a
//! parsed [`Request`] into a [`Response`], so the rules (addressing by index, validation,
//! atomic saves, refusing mismatched label files) are unit-tested directly.
//!
//! Routes: `GET /` (the page list with progress), `GET /page/N` (the page view),
//! `POST /api/label` (`{"page": N, "block": B, "label": "name" | null}`; answers the page's
//! block labels). Everything else is 404; a request that is malformed, too large, from another
//! host or origin, or without the run's token is refused with a 4xx and writes nothing.

use std::fmt::Write;
use std::sync::{Mutex, MutexGuard};

use rand::RngCore;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::render;
use super::PageEntry;
use crate::corpus::{BlockLabel, LabelFile, LabelScheme};
use crate::divide::view::{escape_html, BlockStyle};
use crate::divide::{Divider, Division};
use crate::page::{LoadOptions, Page};

/// The annotator's script and style, compiled in.
pub(super) const SCRIPT: &str = include_str!("assets/annotator.js");
pub(super) const STYLE: &str = include_str!("assets/annotator.css");

/// Largest request body accepted: a label request is under 100 bytes.
pub const MAX_BODY: usize = 4096;

/// How an unlabelled block looks: hatched, so it stands apart from every label colour.
const UNLABELLED: &str = "repeating-linear-gradient(135deg,#fff 0 5px,#dee2e6 5px 10px)";

/// Provenance of labels set in the annotator.
const PROVENANCE: &str = "hand";

/// A parsed HTTP request: only what the annotator looks at.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub method: String,
    /// The request target (`/page/3?unlabelled=1`).
    pub target: String,
    pub host: Option<String>,
    pub origin: Option<String>,
    pub content_type: Option<String>,
    /// The `X-Parcels-Token` header.
    pub token: Option<String>,
    pub body: Vec<u8>,
}

/// An HTTP response.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// Content-Security-Policy header, if any (every HTML answer has one).
    pub csp: Option<String>,
}

impl Response {
    fn json(status: u16, value: &impl Serialize) -> Response {
        let body = serde_json::to_vec(value).unwrap_or_default();
        Response { status, content_type: "application/json", body, csp: None }
    }

    fn error(status: u16, message: impl Into<String>) -> Response {
        Response::json(status, &ErrorBody { error: message.into() })
    }

    fn html(status: u16, body: String, csp: String) -> Response {
        Response { status, content_type: "text/html; charset=utf-8", body: body.into_bytes(), csp: Some(csp) }
    }

    /// The body as text (tests and logs).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

#[derive(Serialize)]
struct ErrorBody {
    error: String,
}

/// Why a page cannot be annotated; shown to the person.
#[derive(Debug)]
struct Refusal {
    status: u16,
    message: String,
}

impl Refusal {
    fn new(status: u16, message: impl Into<String>) -> Refusal {
        Refusal { status, message: message.into() }
    }
}

/// A page opened for annotation: divided, with its labels checked against it.
struct Opened {
    page: Page,
    division: Division,
    labels: LabelFile,
}

/// Per-page progress shown in the list.
#[derive(Debug, Clone)]
enum Progress {
    Counted { labelled: usize, blocks: usize },
    Failed(String),
}

/// The body of a label request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelRequest {
    page: usize,
    block: usize,
    /// A label name of the scheme, or `null` to clear the block. Required: with serde's default
    /// a missing `label` would read as `null`, and a request that forgot it would clear the
    /// block. A `deserialize_with` field gets no such default, so its absence is an error.
    #[serde(deserialize_with = "required_nullable")]
    label: Option<String>,
}

/// Deserialises an `Option` that must be present (as a value or as `null`).
fn required_nullable<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)
}

/// One block's current label, as the page view needs it.
#[derive(Debug, Serialize)]
struct BlockState {
    label: Option<String>,
    mixed: bool,
}

/// The answer to a label request: the page's labels after the change.
#[derive(Debug, Serialize)]
struct LabelAnswer {
    blocks: Vec<BlockState>,
    labelled: usize,
    total: usize,
    file: String,
}

/// The annotator: the fixed page list and what is needed to open and label its pages.
pub struct Annotator {
    corpus: String,
    pages: Vec<PageEntry>,
    scheme: LabelScheme,
    divider: Divider,
    port: u16,
    /// Per-run secrets: the CSP nonce of the annotator's script, and the token every change
    /// must carry (another web site cannot read it, so it cannot forge a change).
    nonce: String,
    token: String,
    /// Serialises label changes: each is a read-modify-write of a label file.
    writing: Mutex<()>,
    progress: Mutex<Vec<Option<Progress>>>,
}

impl Annotator {
    /// An annotator for `pages` of corpus `corpus`, served on 127.0.0.1:`port`.
    pub fn new(corpus: String, pages: Vec<PageEntry>, scheme: LabelScheme, divider: Divider, port: u16) -> Annotator {
        let progress = Mutex::new(vec![None; pages.len()]);
        Annotator { corpus, pages, scheme, divider, port, nonce: secret(), token: secret(), writing: Mutex::new(()), progress }
    }

    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// The token a label request must carry (tests).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Answers one request. Never panics on request data.
    pub fn handle(&self, req: &Request) -> Response {
        if !self.host_allowed(req.host.as_deref()) {
            return Response::error(421, "this server answers only http://127.0.0.1 on its own port");
        }
        let path = req.target.split(['?', '#']).next().unwrap_or("");
        match (req.method.as_str(), path) {
            ("GET" | "HEAD", "/") => self.list(),
            ("GET" | "HEAD", "/favicon.ico") => Response { status: 204, content_type: "text/plain", body: Vec::new(), csp: None },
            ("GET" | "HEAD", p) if p.starts_with("/page/") => match parse_index(&p["/page/".len()..]) {
                Some(i) if i < self.pages.len() => self.view(i),
                _ => Response::error(404, "no such page: pages are numbered 0 to (pages - 1)"),
            },
            ("POST", "/api/label") => self.label(req),
            (_, "/" | "/api/label") => Response::error(405, "method not allowed"),
            (_, p) if p.starts_with("/page/") => Response::error(405, "method not allowed"),
            _ => Response::error(404, "not found"),
        }
    }

    /// DNS rebinding defence: a browser sends the name it resolved, so only our own names pass.
    fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        [format!("127.0.0.1:{}", self.port), format!("localhost:{}", self.port)].iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    fn origin_allowed(&self, origin: Option<&str>) -> bool {
        match origin {
            None => true,
            Some(o) => self.host_allowed(o.strip_prefix("http://")),
        }
    }

    /// Loads and divides page `index` and its label file (a new, empty one if there is none),
    /// refusing a label file made for another page, page text or scheme.
    fn open(&self, index: usize) -> Result<Opened, Refusal> {
        let entry = self.pages.get(index).ok_or_else(|| Refusal::new(404, "no such page"))?;
        let page = Page::load(&entry.path, &LoadOptions::default()).map_err(|e| Refusal::new(500, e.to_string()))?;
        let division = self.divider.divide(&page);
        let labels = if entry.label_path.exists() {
            let labels = LabelFile::load(&entry.label_path).map_err(|e| Refusal::new(409, e.to_string()))?;
            self.check_label_file(entry, &labels)?;
            labels.verify(&entry.label_path, &page, &division).map_err(|e| Refusal::new(409, e.to_string()))?;
            labels
        } else {
            let mut labels = LabelFile::new(&self.corpus, &entry.rel, &page, &division, &self.scheme);
            labels.site = entry.site.clone();
            labels
        };
        Ok(Opened { page, division, labels })
    }

    fn check_label_file(&self, entry: &PageEntry, labels: &LabelFile) -> Result<(), Refusal> {
        let file = entry.label_path.display();
        if labels.corpus != self.corpus || labels.page != entry.rel {
            return Err(Refusal::new(
                409,
                format!(
                    "{file}: labels {}/{}, not {}/{}; move it away or choose another --labels directory",
                    labels.corpus, labels.page, self.corpus, entry.rel
                ),
            ));
        }
        if labels.scheme != self.scheme.name {
            return Err(Refusal::new(409, format!("{file}: labels in scheme {}, the annotator runs {} (--scheme)", labels.scheme, self.scheme.name)));
        }
        let unknown = labels.unknown_labels(&self.scheme);
        if !unknown.is_empty() {
            return Err(Refusal::new(409, format!("{file}: labels not in scheme {}: {}", self.scheme.name, unknown.join(", "))));
        }
        Ok(())
    }

    /// `POST /api/label`: validates, applies and saves one change, answers the block labels.
    fn label(&self, req: &Request) -> Response {
        if req.token.as_deref() != Some(self.token.as_str()) {
            return Response::error(403, "missing or wrong X-Parcels-Token (reload the page)");
        }
        if !self.origin_allowed(req.origin.as_deref()) {
            return Response::error(403, "cross-origin request refused");
        }
        if !req.content_type.as_deref().is_some_and(|c| c.trim_start().to_ascii_lowercase().starts_with("application/json")) {
            return Response::error(415, "send application/json");
        }
        if req.body.len() > MAX_BODY {
            return Response::error(413, format!("request body above {MAX_BODY} bytes"));
        }
        let change: LabelRequest = match serde_json::from_slice(&req.body) {
            Ok(c) => c,
            Err(e) => return Response::error(400, format!("bad label request: {e}")),
        };
        if change.page >= self.pages.len() {
            return Response::error(404, format!("no page {}", change.page));
        }
        if let Some(l) = &change.label {
            if self.scheme.index(l).is_none() {
                return Response::error(400, format!("{l:?} is not a label of scheme {}", self.scheme.name));
            }
        }
        let _guard = lock(&self.writing);
        let mut opened = match self.open(change.page) {
            Ok(o) => o,
            Err(r) => return Response::error(r.status, r.message),
        };
        let Some(block) = opened.division.blocks.get(change.block) else {
            return Response::error(400, format!("no block {} on this page ({} blocks)", change.block, opened.division.blocks.len()));
        };
        let [start, end] = block.chars;
        match &change.label {
            Some(l) => opened.labels.set(start, end, l, PROVENANCE),
            None => opened.labels.clear(start, end),
        }
        let entry = &self.pages[change.page];
        if let Err(e) = opened.labels.save(&entry.label_path) {
            return Response::error(500, e.to_string());
        }
        let gold = opened.labels.block_labels(&opened.division, &self.scheme);
        self.record_progress(change.page, &gold);
        let answer = LabelAnswer {
            labelled: gold.iter().filter(|g| g.label.is_some()).count(),
            total: gold.len(),
            blocks: self.block_states(&gold),
            file: entry.label_path.display().to_string(),
        };
        Response::json(200, &answer)
    }

    fn block_states(&self, gold: &[BlockLabel]) -> Vec<BlockState> {
        gold.iter().map(|g| BlockState { label: g.label.and_then(|c| self.scheme.labels.get(c)).map(|l| l.name.clone()), mixed: g.mixed }).collect()
    }

    fn record_progress(&self, index: usize, gold: &[BlockLabel]) {
        if let Some(slot) = lock(&self.progress).get_mut(index) {
            *slot = Some(Progress::Counted { labelled: gold.iter().filter(|g| g.label.is_some()).count(), blocks: gold.len() });
        }
    }

    /// The CSP of every HTML answer: only the annotator's script (by nonce) runs, it may talk to
    /// this server only, and nothing is fetched from elsewhere (a 2008 page's dead hosts would
    /// only slow the view; relative images and style sheets are asked of us and get a 404).
    fn csp(&self) -> String {
        format!(
            "default-src 'none'; script-src 'nonce-{}'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
             font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'",
            self.nonce
        )
    }

    /// The CSP header: the same, and no framing by other pages (a `<meta>` CSP cannot say that).
    fn csp_header(&self) -> String {
        format!("{}; frame-ancestors 'none'", self.csp())
    }

    /// `GET /page/N`: the page with its blocks coloured by label, and the annotator's script.
    fn view(&self, index: usize) -> Response {
        let mut opened = match self.open(index) {
            Ok(o) => o,
            Err(r) => {
                if let Some(slot) = lock(&self.progress).get_mut(index) {
                    *slot = Some(Progress::Failed(r.message.clone()));
                }
                return self.refusal_page(index, &r);
            }
        };
        let gold = opened.labels.block_labels(&opened.division, &self.scheme);
        self.record_progress(index, &gold);
        let data = self.view_data(index, &opened.division, &gold);
        // The data is a constant of the nonce'd script itself, not an element the script looks
        // up: a page cannot shadow it (an element of the page with the same id would come
        // first in `getElementById`). `<`, U+2028 and U+2029 escaped so the JSON can neither
        // close its script element nor end a line of it in an old engine.
        let json = serde_json::to_string(&data).unwrap_or_default().replace('<', "\\u003c").replace('\u{2028}', "\\u2028").replace('\u{2029}', "\\u2029");
        let script = format!("const PARCELS = {json};\n{SCRIPT}");
        let csp = self.csp();
        let head = render::Head { csp: &csp, style: STYLE, nonce: &self.nonce, script: &script };
        let styles = |id: usize| self.block_style(id, gold.get(id));
        match render::page_view(&mut opened.page, &opened.division, &styles, &head) {
            Ok(html) => Response::html(200, html, self.csp_header()),
            Err(e) => self.refusal_page(index, &Refusal::new(500, e.to_string())),
        }
    }

    fn block_style(&self, id: usize, gold: Option<&BlockLabel>) -> BlockStyle {
        match gold.and_then(|g| g.label).and_then(|c| self.scheme.labels.get(c)) {
            Some(l) => BlockStyle { color: l.color.clone(), badge: format!("{id} {}", l.key) },
            None => BlockStyle { color: UNLABELLED.to_string(), badge: id.to_string() },
        }
    }

    fn view_data(&self, index: usize, division: &Division, gold: &[BlockLabel]) -> serde_json::Value {
        let labels: Vec<_> =
            self.scheme.labels.iter().map(|l| serde_json::json!({"name": l.name, "key": l.key, "color": l.color, "description": l.description})).collect();
        let texts: Vec<String> = division.blocks.iter().map(|b| excerpt(&b.text, 160)).collect();
        serde_json::json!({
            "page": index,
            "pages": self.pages.len(),
            "name": self.pages[index].rel,
            "file": self.pages[index].label_path.display().to_string(),
            "token": self.token,
            "scheme": self.scheme.name,
            "labels": labels,
            "unlabelled": UNLABELLED,
            "blocks": self.block_states(gold),
            "texts": texts,
            // The toolbar's style sheet, for its shadow root.
            "style": STYLE,
        })
    }

    /// A page that cannot be annotated: the reason, and the way on.
    fn refusal_page(&self, index: usize, r: &Refusal) -> Response {
        let mut body = String::from("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>parcels annotate: cannot open page</title></head><body>");
        let _ = write!(
            body,
            "<h1>Page {} of {}: {}</h1><p class=\"error\" id=\"parcels-error\">{}</p><p>Nothing was written.</p><p><a href=\"/\">page list</a>",
            index + 1,
            self.pages.len(),
            escape_html(&self.pages[index].rel),
            escape_html(&r.message)
        );
        if index + 1 < self.pages.len() {
            let _ = write!(body, " · <a href=\"/page/{}\">next page</a>", index + 1);
        }
        body.push_str("</p></body></html>");
        Response::html(r.status, body, self.csp_header())
    }

    /// `GET /`: every page with its progress (labelled blocks / blocks) or its problem.
    fn list(&self) -> Response {
        let missing: Vec<usize> = lock(&self.progress).iter().enumerate().filter(|(_, p)| p.is_none()).map(|(i, _)| i).collect();
        let counted: Vec<(usize, Progress)> = missing.par_iter().map(|&i| (i, self.count(i))).collect();
        let progress = {
            let mut cache = lock(&self.progress);
            for (i, p) in counted {
                cache[i] = Some(p);
            }
            cache.clone()
        };
        let (mut done_blocks, mut all_blocks) = (0, 0);
        let mut rows = String::new();
        for (i, (entry, p)) in self.pages.iter().zip(&progress).enumerate() {
            let cell = match p {
                Some(Progress::Counted { labelled, blocks }) => {
                    done_blocks += labelled;
                    all_blocks += blocks;
                    let pct = if *blocks == 0 { 100 } else { 100 * labelled / blocks };
                    format!("<td class=\"n\">{labelled} / {blocks}</td><td><span class=\"bar\"><span style=\"width:{pct}%\"></span></span></td>")
                }
                Some(Progress::Failed(m)) => format!("<td colspan=\"2\" class=\"error\">{}</td>", escape_html(m)),
                None => "<td colspan=\"2\"></td>".to_string(),
            };
            let _ = writeln!(rows, "<tr><td class=\"n\">{}</td><td><a href=\"/page/{i}\">{}</a></td>{cell}</tr>", i + 1, escape_html(&entry.rel));
        }
        let body = format!(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>parcels annotate: {corpus}</title><style>{STYLE}</style></head>\
             <body class=\"parcels-list\"><h1>{corpus}: {n} pages</h1><p>{done_blocks} of {all_blocks} blocks labelled, scheme {scheme}. \
             Open a page, then: click a block or move with the arrow keys, press a label's key.</p>\
             <table><tr><th>#</th><th>page</th><th>labelled / blocks</th><th></th></tr>\n{rows}</table></body></html>",
            corpus = escape_html(&self.corpus),
            n = self.pages.len(),
            scheme = escape_html(&self.scheme.name),
        );
        Response::html(200, body, self.csp_header())
    }

    fn count(&self, index: usize) -> Progress {
        match self.open(index) {
            Ok(o) => {
                let gold = o.labels.block_labels(&o.division, &self.scheme);
                Progress::Counted { labelled: gold.iter().filter(|g| g.label.is_some()).count(), blocks: gold.len() }
            }
            Err(r) => Progress::Failed(r.message),
        }
    }
}

/// The first `max` chars of a block's text, with an ellipsis when cut.
fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// A page index from a URL segment: decimal digits only (no signs, no paths).
fn parse_index(s: &str) -> Option<usize> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// 128 random bits from the OS, hex: unguessable per-run secrets.
fn secret() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    crate::page::hex(&bytes)
}

/// Locks a mutex; a thread that panicked while holding it leaves data that is still usable (a
/// cache, or nothing at all).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
