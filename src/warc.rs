//! Page loading from web archives: the HTML pages held in a WARC file (`.warc`, or `.warc.gz`
//! compressed whole or record by record, as Common Crawl ships them).
//!
//! [`WarcPages`] streams a file's records: it keeps `response` records whose HTTP payload is
//! HTML, skips every other record (requests, metadata, `warcinfo`, images, …) without reading
//! its body, and hands out each page's bytes with what the archive knows of it: the
//! `WARC-Target-URI`, the `WARC-Record-ID` and the charset of the HTTP `Content-Type`. Memory
//! stays that of one record whatever the file's size; a record larger than the page size limit
//! is skipped with an error.
//!
//! A damaged record (a header that does not parse, a body shorter than its `Content-Length`, a
//! corrupt HTTP head) becomes one [`WarcItem::Failed`] and the reader goes on at the next
//! `WARC/` version line. In a gzip-compressed file a corrupt *compressed* stream cannot be
//! resynchronised: the reader reports it and stops there.
//!
//! Record framing is ours (it must resynchronise after damage and bound memory before reading
//! a body); the record headers are parsed by the `warc` crate (MIT) and the HTTP head by
//! `httparse` (MIT OR Apache-2.0).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use encoding_rs::Encoding;
use warc::{RecordType, WarcHeader, WarcReader};

/// Why a WARC file could not be opened or read at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WarcError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: not a WARC file (it does not start with a `WARC/` version line)")]
    NotWarc { path: PathBuf },
}

/// An HTML page taken from a WARC `response` record.
#[derive(Debug, Clone)]
pub struct WarcPage {
    /// `WARC-Target-URI`: the address the page was fetched from.
    pub url: Option<String>,
    /// `WARC-Record-ID` (`<urn:uuid:…>`).
    pub record_id: String,
    /// `WARC-Date`.
    pub date: Option<String>,
    /// The HTTP status code of the response.
    pub status: u16,
    /// The charset named by the HTTP `Content-Type`, when it names a known one.
    pub charset: Option<&'static Encoding>,
    /// The HTTP payload: the page's bytes (transfer and content encodings undone).
    pub body: Vec<u8>,
}

/// One item of a WARC file: a page, or a record that should have been one and could not be read.
#[derive(Debug)]
pub enum WarcItem {
    Page(WarcPage),
    /// A damaged or oversized record; `record_id` and `url` when its header could be read.
    Failed {
        record_id: Option<String>,
        url: Option<String>,
        offset: u64,
        message: String,
    },
}

/// Streams the HTML pages of a WARC file (see the module docs).
pub struct WarcPages {
    path: PathBuf,
    reader: BufReader<Counted<Box<dyn Read + Send>>>,
    compressed: bool,
    max_bytes: usize,
    done: bool,
}

/// Counts the bytes read through it (for record offsets in messages).
struct Counted<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// Whether a file name says WARC (`.warc`, `.warc.gz`, any case).
pub fn is_warc_path(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_ascii_lowercase();
    name.ends_with(".warc") || name.ends_with(".warc.gz")
}

/// Header bytes allowed in a record beyond the page size limit (the HTTP head).
const HTTP_HEAD_ALLOWANCE: u64 = 256 * 1024;

impl WarcPages {
    /// Opens a WARC file; gzip compression (whole-file or per record) is recognised by its magic
    /// bytes. Pages larger than `max_bytes` become [`WarcItem::Failed`].
    pub fn open(path: &Path, max_bytes: usize) -> Result<WarcPages, WarcError> {
        let io = |source| WarcError::Io { path: path.to_path_buf(), source };
        let mut file = BufReader::new(std::fs::File::open(path).map_err(io)?);
        let compressed = file.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
        let inner: Box<dyn Read + Send> = if compressed { Box::new(flate2::bufread::MultiGzDecoder::new(file)) } else { Box::new(file) };
        let mut reader = BufReader::with_capacity(256 * 1024, Counted { inner, count: 0 });
        let start = reader.fill_buf().map_err(io)?;
        if !start.is_empty() && !start.starts_with(b"WARC/") {
            return Err(WarcError::NotWarc { path: path.to_path_buf() });
        }
        Ok(WarcPages { path: path.to_path_buf(), reader, compressed, max_bytes, done: false })
    }

    /// The file this reader reads.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes of (uncompressed) WARC consumed so far.
    fn offset(&self) -> u64 {
        self.reader.get_ref().count - self.reader.buffer().len() as u64
    }

    /// Moves to the next line that starts with `WARC/` after a damaged record. False at the end
    /// of the file or when the stream itself cannot be read any more.
    fn resync(&mut self) -> bool {
        if self.compressed {
            // A gzip member boundary cannot be found from inside the decompressed stream.
            return false;
        }
        // Called inside a damaged record's body or right after it: the first line may be a
        // record's start.
        let mut at_line_start = true;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok([]) | Err(_) => return false,
                Ok(b) => b,
            };
            let mut consumed = buf.len();
            for i in 0..buf.len() {
                if (at_line_start || i > 0 && buf[i - 1] == b'\n') && buf[i..].starts_with(b"WARC/") {
                    consumed = i;
                    break;
                }
                // A `WARC/` cut by the buffer's end is found on the next fill: keep its start.
                if buf.len() - i < 5 && (i == 0 || buf[i - 1] == b'\n') && b"WARC/".starts_with(&buf[i..]) {
                    consumed = i;
                    break;
                }
            }
            if consumed < buf.len() && buf[consumed..].starts_with(b"WARC/") {
                self.reader.consume(consumed);
                return true;
            }
            at_line_start = consumed > 0 && buf[consumed - 1] == b'\n';
            let consumed = consumed.max(1);
            self.reader.consume(consumed);
        }
    }

    /// Reads the next record: `Ok(None)` at the end, `Ok(Some(None))` for a record that is not
    /// an HTML page, and for one that could not be read, what is known of it and whether the
    /// reader still stands at a record boundary.
    fn read_record(&mut self) -> Result<Option<Option<WarcItem>>, RecordFailure> {
        let max_body = self.max_bytes as u64 + HTTP_HEAD_ALLOWANCE;
        let mut warc = WarcReader::new(&mut self.reader);
        let mut records = warc.stream_records();
        let mut record = match records.next_item() {
            None => return Ok(None),
            Some(Err(e)) => return Err(RecordFailure::damaged(None, None, format!("record header: {e}"))),
            Some(Ok(r)) => r,
        };
        let record_id = Some(record.warc_id().to_string());
        let url = record.header(WarcHeader::TargetURI).map(|u| u.into_owned());
        let date = record.header(WarcHeader::Date).map(|d| d.into_owned());
        let length = record.content_length();
        let wanted = *record.warc_type() == RecordType::Response
            && record.header(WarcHeader::ContentType).is_some_and(|t| t.to_ascii_lowercase().contains("application/http"));
        let mut body = Vec::new();
        if wanted && length <= max_body {
            if let Err(e) = (&mut record).take(max_body).read_to_end(&mut body) {
                return Err(RecordFailure::damaged(record_id, url, format!("record body: {e}")));
            }
        }
        // Skip what was not read (the whole body of an unwanted record), then the CRLF CRLF.
        if let Err(e) = std::io::copy(&mut record, &mut std::io::sink()) {
            return Err(RecordFailure::damaged(record_id, url, format!("record body: {e}")));
        }
        if (body.len() as u64) < length && wanted && length <= max_body {
            return Err(RecordFailure::damaged(record_id, url, format!("record body: {} bytes of {length} (truncated record)", body.len())));
        }
        let mut end = [0u8; 4];
        match self.reader.read_exact(&mut end) {
            Ok(()) if &end == b"\r\n\r\n" => {}
            Ok(()) => {
                return Err(RecordFailure::damaged(
                    record_id,
                    url,
                    format!("record does not end with CRLF CRLF after its {length} bytes (wrong Content-Length?)"),
                ))
            }
            // The last record of a file cut right after its body: the body is whole.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {}
            Err(e) => return Err(RecordFailure::damaged(record_id, url, format!("record end: {e}"))),
        }
        if !wanted {
            return Ok(Some(None));
        }
        if length > max_body {
            return Err(RecordFailure {
                record_id,
                url,
                message: format!("record of {length} bytes is larger than the page limit ({} bytes)", self.max_bytes),
                at_boundary: true,
            });
        }
        let id = record_id.clone().unwrap_or_default();
        match http_page(&body, self.max_bytes) {
            Ok(None) => Ok(Some(None)),
            Ok(Some((status, charset, payload))) => Ok(Some(Some(WarcItem::Page(WarcPage { url, record_id: id, date, status, charset, body: payload })))),
            Err(message) => Err(RecordFailure { record_id, url, message, at_boundary: true }),
        }
    }
}

/// A record that could not be read as a page.
struct RecordFailure {
    record_id: Option<String>,
    url: Option<String>,
    message: String,
    /// Whether the reader stands at the next record (the record was whole but unusable) or must
    /// look for it (the record was damaged).
    at_boundary: bool,
}

impl RecordFailure {
    fn damaged(record_id: Option<String>, url: Option<String>, message: String) -> RecordFailure {
        RecordFailure { record_id, url, message, at_boundary: false }
    }
}

impl Iterator for WarcPages {
    type Item = WarcItem;

    fn next(&mut self) -> Option<WarcItem> {
        while !self.done {
            let offset = self.offset();
            match self.read_record() {
                Ok(None) => self.done = true,
                Ok(Some(None)) => continue,
                Ok(Some(Some(item))) => return Some(item),
                Err(RecordFailure { record_id, url, message, at_boundary }) => {
                    if !at_boundary && !self.resync() {
                        self.done = true;
                    }
                    return Some(WarcItem::Failed { record_id, url, offset, message });
                }
            }
        }
        None
    }
}

/// The page of an HTTP response (status line, headers, payload): `None` when it is not an HTML
/// page with a 2xx status; an error for a head that does not parse or a payload that cannot be
/// decoded.
#[allow(clippy::type_complexity)]
fn http_page(bytes: &[u8], max_bytes: usize) -> Result<Option<(u16, Option<&'static Encoding>, Vec<u8>)>, String> {
    let mut headers = [httparse::EMPTY_HEADER; 128];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(bytes) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Err("HTTP head is cut off".into()),
        Err(e) => return Err(format!("HTTP head: {e}")),
    };
    let status = response.code.unwrap_or(0);
    let header = |name: &str| response.headers.iter().find(|h| h.name.eq_ignore_ascii_case(name)).map(|h| String::from_utf8_lossy(h.value).into_owned());
    let content_type = header("content-type").unwrap_or_default().to_ascii_lowercase();
    let html = content_type.contains("text/html") || content_type.contains("application/xhtml");
    if !(200..300).contains(&status) || !html {
        return Ok(None);
    }
    let charset = content_type
        .split(';')
        .skip(1)
        .filter_map(|p| p.trim().strip_prefix("charset="))
        .next()
        .and_then(|c| Encoding::for_label(c.trim_matches(['"', '\'']).as_bytes()));
    let mut payload = bytes[head_len..].to_vec();
    if header("transfer-encoding").is_some_and(|t| t.to_ascii_lowercase().contains("chunked")) {
        payload = dechunk(&payload).ok_or("HTTP chunked payload is malformed")?;
    }
    match header("content-encoding").map(|e| e.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") | Some("identity") => {}
        Some("gzip") | Some("x-gzip") => payload = inflate(flate2::read::MultiGzDecoder::new(&payload[..]), max_bytes)?,
        Some("deflate") => payload = inflate(flate2::read::ZlibDecoder::new(&payload[..]), max_bytes)?,
        Some(other) => return Err(format!("HTTP content encoding `{other}` is not supported")),
    }
    Ok(Some((status, charset, payload)))
}

fn inflate(reader: impl Read, max_bytes: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    reader.take(max_bytes as u64 + 1).read_to_end(&mut out).map_err(|e| format!("HTTP payload does not decompress: {e}"))?;
    Ok(out)
}

/// Undoes HTTP chunked transfer coding; `None` when the chunks are malformed.
fn dechunk(mut bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    loop {
        let line_end = bytes.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&bytes[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        bytes = &bytes[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(bytes.get(..size)?);
        bytes = bytes.get(size..)?.strip_prefix(b"\r\n")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A WARC record of `kind` with `block` as its body.
    fn record(kind: &str, id: &str, uri: &str, content_type: &str, block: &[u8]) -> Vec<u8> {
        let mut r = format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{id}>\r\nWARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: {uri}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        r.extend_from_slice(block);
        r.extend_from_slice(b"\r\n\r\n");
        r
    }

    fn response(id: &str, uri: &str, http_headers: &str, payload: &[u8]) -> Vec<u8> {
        let mut block = format!("HTTP/1.1 200 OK\r\n{http_headers}\r\n").into_bytes();
        block.extend_from_slice(payload);
        record("response", id, uri, "application/http; msgtype=response", &block)
    }

    /// A directory of its own per test file, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn write(name: &str, bytes: &[u8]) -> (TempDir, PathBuf) {
        let dir = TempDir(std::env::temp_dir().join(format!("parcels-warc-{name}-{}", std::process::id())));
        std::fs::create_dir_all(dir.path()).unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn sample() -> Vec<u8> {
        let mut w = record("warcinfo", "00000000-0000-0000-0000-000000000000", "", "application/warc-fields", b"software: test\r\n");
        w.extend(record(
            "request",
            "00000000-0000-0000-0000-000000000001",
            "http://a.example/",
            "application/http; msgtype=request",
            b"GET / HTTP/1.1\r\n\r\n",
        ));
        w.extend(response("00000000-0000-0000-0000-000000000002", "http://a.example/", "Content-Type: text/html; charset=ISO-8859-1\r\n", b"<p>caf\xe9</p>"));
        w.extend(response("00000000-0000-0000-0000-000000000003", "http://a.example/logo.png", "Content-Type: image/png\r\n", b"\x89PNG"));
        w.extend(response(
            "00000000-0000-0000-0000-000000000004",
            "http://b.example/",
            "Content-Type: text/html\r\nTransfer-Encoding: chunked\r\n",
            b"4\r\n<p>b\r\n5\r\n</p>!\r\n0\r\n\r\n",
        ));
        w
    }

    fn pages(path: &Path) -> Vec<WarcItem> {
        WarcPages::open(path, 1 << 20).unwrap().collect()
    }

    #[test]
    fn html_responses_are_taken_and_other_records_skipped() {
        for (name, bytes) in [("a.warc", sample()), ("a.warc.gz", gzip(&sample()))] {
            let (_d, path) = write(name, &bytes);
            let items = pages(&path);
            assert_eq!(items.len(), 2, "{name}");
            let WarcItem::Page(p) = &items[0] else { panic!("{name}: {:?}", items[0]) };
            assert_eq!(p.url.as_deref(), Some("http://a.example/"));
            assert_eq!(p.record_id, "<urn:uuid:00000000-0000-0000-0000-000000000002>");
            assert_eq!(p.charset, Some(encoding_rs::WINDOWS_1252));
            assert_eq!(p.body, b"<p>caf\xe9</p>");
            let WarcItem::Page(p) = &items[1] else { panic!() };
            assert_eq!(p.body, b"<p>b</p>!", "chunked payload joined");
        }
    }

    #[test]
    fn per_record_gzip_as_common_crawl_ships_it() {
        let mut bytes = Vec::new();
        for r in [
            response("00000000-0000-0000-0000-00000000000a", "http://a.example/1", "Content-Type: text/html\r\n", b"<p>one</p>"),
            response("00000000-0000-0000-0000-00000000000b", "http://a.example/2", "Content-Type: text/html\r\n", b"<p>two</p>"),
        ] {
            bytes.extend(gzip(&r));
        }
        let (_d, path) = write("cc.warc.gz", &bytes);
        let bodies: Vec<Vec<u8>> = pages(&path).into_iter().map(|i| if let WarcItem::Page(p) = i { p.body } else { panic!("{i:?}") }).collect();
        assert_eq!(bodies, [b"<p>one</p>".to_vec(), b"<p>two</p>".to_vec()]);
    }

    #[test]
    fn a_damaged_record_is_reported_and_the_file_goes_on() {
        let good = response("00000000-0000-0000-0000-000000000005", "http://c.example/", "Content-Type: text/html\r\n", b"<p>after</p>");
        let mut bad = response("00000000-0000-0000-0000-000000000006", "http://bad.example/", "Content-Type: text/html\r\n", b"<p>bad</p>");
        // Claim 5 bytes fewer than the body holds: the record's end is not where it says; then
        // a line of garbage before the next record.
        let text = String::from_utf8(bad.clone()).unwrap();
        let claimed = text.split("Content-Length: ").nth(1).unwrap().split("\r\n").next().unwrap().parse::<usize>().unwrap();
        bad = text.replacen(&format!("Content-Length: {claimed}"), &format!("Content-Length: {}", claimed - 5), 1).into_bytes();
        let mut bytes = bad;
        bytes.extend(b"garbage line\r\n");
        bytes.extend(&good);
        let (_d, path) = write("bad.warc", &bytes);
        let items = pages(&path);
        assert_eq!(items.len(), 2, "{items:?}");
        assert!(matches!(&items[0], WarcItem::Failed { url: Some(u), .. } if u == "http://bad.example/"), "{:?}", items[0]);
        assert!(matches!(&items[1], WarcItem::Page(p) if p.body == b"<p>after</p>"));
    }

    #[test]
    fn a_truncated_file_ends_with_an_error_item() {
        let mut bytes = response("00000000-0000-0000-0000-000000000007", "http://d.example/", "Content-Type: text/html\r\n", b"<p>whole</p>");
        let cut = response("00000000-0000-0000-0000-000000000008", "http://e.example/", "Content-Type: text/html\r\n", &[b'x'; 500]);
        bytes.extend(&cut[..cut.len() - 300]);
        let (_d, path) = write("cut.warc", &bytes);
        let items = pages(&path);
        assert_eq!(items.len(), 2, "{items:?}");
        assert!(matches!(&items[1], WarcItem::Failed { message, .. } if message.contains("truncated")), "{:?}", items[1]);
        // Compressed and cut inside the gzip stream: reported, not a panic or a hang.
        let (_d2, path) = write("cut.warc.gz", &gzip(&bytes)[..200]);
        let items = pages(&path);
        assert!(matches!(items.last(), Some(WarcItem::Failed { .. })), "{items:?}");
    }

    #[test]
    fn records_over_the_page_limit_are_skipped_with_an_error() {
        let mut bytes = response("00000000-0000-0000-0000-000000000009", "http://big.example/", "Content-Type: text/html\r\n", &vec![b'a'; 300 * 1024]);
        bytes.extend(response("00000000-0000-0000-0000-000000000010", "http://small.example/", "Content-Type: text/html\r\n", b"<p>s</p>"));
        let (_d, path) = write("big.warc", &bytes);
        let items: Vec<WarcItem> = WarcPages::open(&path, 10).unwrap().collect();
        assert_eq!(items.len(), 2, "{items:?}");
        assert!(matches!(&items[0], WarcItem::Failed { message, .. } if message.contains("larger than the page limit")), "{:?}", items[0]);
        assert!(matches!(&items[1], WarcItem::Page(p) if p.body == b"<p>s</p>"), "the big body was skipped, not misread");
    }

    #[test]
    fn not_a_warc_file_and_missing_files_are_errors_naming_the_file() {
        let (_d, path) = write("page.warc", b"<html>not an archive</html>");
        let e = WarcPages::open(&path, 1 << 20).err().unwrap();
        assert!(e.to_string().contains("page.warc") && e.to_string().contains("not a WARC"), "{e}");
        let missing = _d.path().join("missing.warc");
        let e = WarcPages::open(&missing, 1 << 20).err().unwrap();
        assert!(e.to_string().contains("missing.warc"), "{e}");
        assert!(!missing.exists(), "opening must not create the file");
    }

    #[test]
    fn warc_names_are_recognised() {
        assert!(is_warc_path(Path::new("x/CC-MAIN-1.warc.gz")));
        assert!(is_warc_path(Path::new("a.WARC")));
        assert!(!is_warc_path(Path::new("a.html.gz")));
    }

    #[test]
    fn dechunk_rejects_bad_sizes() {
        assert_eq!(dechunk(b"3\r\nabc\r\n0\r\n\r\n").as_deref(), Some(&b"abc"[..]));
        assert_eq!(dechunk(b"zz\r\nabc\r\n"), None);
        assert_eq!(dechunk(b"9\r\nabc\r\n"), None);
    }
}
