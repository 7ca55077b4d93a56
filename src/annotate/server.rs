//! A minimal HTTP/1.1 server for the annotator, on `std::net` alone: one thread per
//! connection, one request per connection (`Connection: close`), bounded heads and bodies.
//! Enough for one person's browser on 127.0.0.1; nothing here trusts the request beyond parsing
//! it into an [`app::Request`].
//!
//! Slow or silent clients cannot lock the person out: a connection has a fixed time for its
//! whole request and another for its whole response (deadlines, not per-read timeouts, which a
//! client sending a byte now and then would renew forever), at most
//! [`Limits::max_connections`] are handled at once, and one more is answered `503` at once by a
//! single refusing thread, which never waits on a client: it answers without blocking, then
//! keeps the connection open for [`BUSY_LINGER`] (at most [`BUSY_QUEUE`] of them) before
//! closing it, so a crowd of silent connections beyond the cap cannot delay the person's `503`
//! (they once queued for a 300 ms read each: 70 of them made it wait 11.7 s).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use super::app::{self, Annotator, Request, Response};

/// Largest request line plus headers.
const MAX_HEAD: usize = 16 * 1024;
/// Refused connections waiting for their `503` or for their close; beyond this many the
/// oldest is closed early (and new ones unanswered if even the hand-over queue is full).
const BUSY_QUEUE: usize = 64;
/// How long a refused connection stays open after its `503`: time for the client to send its
/// request and read the answer, since closing a socket with unread data resets the connection
/// and the client may lose the answer.
const BUSY_LINGER: Duration = Duration::from_millis(300);
/// Most bytes read (and dropped) from a refused connection: its request head and a body.
const BUSY_DRAIN: usize = MAX_HEAD + app::MAX_BODY;

/// The server's limits. The defaults suit one person's browser (which opens a handful of
/// connections, some speculative and never used); tests use small ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections handled at once.
    pub max_connections: usize,
    /// Time from accepting a connection to the end of its request.
    pub request_time: Duration,
    /// Time to write the whole response.
    pub response_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_connections: 32, request_time: Duration::from_secs(10), response_time: Duration::from_secs(30) }
    }
}

/// A request that could not be parsed, with the status to answer.
struct Malformed(u16, &'static str);

/// Serves `annotator` on `listener` until the process ends.
pub fn serve(listener: TcpListener, annotator: Arc<Annotator>) {
    serve_with(listener, annotator, Limits::default());
}

/// Serves `annotator` on `listener` with `limits` until the process ends.
pub fn serve_with(listener: TcpListener, annotator: Arc<Annotator>, limits: Limits) {
    let open = Arc::new(AtomicUsize::new(0));
    let (busy, refused) = mpsc::sync_channel::<TcpStream>(BUSY_QUEUE);
    // If this thread cannot start, `busy.try_send` fails and full-server connections are closed
    // unanswered: still bounded.
    let _ = std::thread::Builder::new().name("annotate-503".into()).spawn(move || refuse_busy(&refused));
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(_) => {
                // Out of file descriptors, most likely: wait rather than spin.
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
        };
        if open.fetch_add(1, Ordering::SeqCst) >= limits.max_connections {
            open.fetch_sub(1, Ordering::SeqCst);
            let _ = busy.try_send(stream);
            continue;
        }
        let slot = Slot(Arc::clone(&open));
        let annotator = Arc::clone(&annotator);
        // On failure the closure, with the stream and the slot, is dropped: closed and freed.
        let _ = std::thread::Builder::new().name("annotate-conn".into()).spawn(move || {
            let _slot = slot;
            connection(&stream, &annotator, limits);
        });
    }
}

/// One taken connection slot, given back when dropped (also if its thread panics).
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A stream whose reads and writes all end by one instant: each call gets the time left.
struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl Deadline<'_> {
    fn left(&self) -> std::io::Result<Duration> {
        match self.until.checked_duration_since(Instant::now()) {
            Some(d) if !d.is_zero() => Ok(d),
            _ => Err(std::io::ErrorKind::TimedOut.into()),
        }
    }
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.set_read_timeout(Some(self.left()?))?;
        (&mut &*self.stream).read(buf)
    }
}

impl Write for Deadline<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        (&mut &*self.stream).write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        (&mut &*self.stream).flush()
    }
}

fn connection(stream: &TcpStream, annotator: &Annotator, limits: Limits) {
    let mut reader = BufReader::new(Deadline { stream, until: Instant::now() + limits.request_time });
    let (response, head_only) = match read_request(&mut reader) {
        Ok(None) => return,
        Ok(Some(req)) => (annotator.handle(&req), req.method == "HEAD"),
        Err(Malformed(status, message)) => (plain(status, message), false),
    };
    let mut writer = Deadline { stream, until: Instant::now() + limits.response_time };
    let _ = write_response(&mut writer, &response, head_only);
    let _ = stream.shutdown(Shutdown::Write);
}

fn plain(status: u16, message: &str) -> Response {
    Response { status, content_type: "text/plain; charset=utf-8", body: message.as_bytes().to_vec(), csp: None }
}

/// Answers the connections the server has no room for, in turn, until the server ends: each
/// gets its `503` at once (without blocking) and is closed [`BUSY_LINGER`] later.
fn refuse_busy(refused: &mpsc::Receiver<TcpStream>) {
    let mut lingering: VecDeque<(TcpStream, Instant)> = VecDeque::new();
    loop {
        let now = Instant::now();
        while lingering.front().is_some_and(|(_, until)| *until <= now) || lingering.len() > BUSY_QUEUE {
            if let Some((stream, _)) = lingering.pop_front() {
                drain(&stream);
            }
        }
        let next = match lingering.front() {
            Some((_, until)) => refused.recv_timeout(until.saturating_duration_since(now)),
            None => refused.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match next {
            Ok(stream) => {
                if answer_busy(&stream).is_ok() {
                    lingering.push_back((stream, Instant::now() + BUSY_LINGER));
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Writes the `503` of a refused connection without waiting for the client: what it has sent
/// is read, the short answer fits the socket's send buffer, and the writing side is closed.
fn answer_busy(stream: &TcpStream) -> std::io::Result<()> {
    stream.set_nonblocking(true)?;
    drain(stream);
    write_response(&mut &*stream, &plain(503, "the annotator is busy; try again"), false)?;
    stream.shutdown(Shutdown::Write)
}

/// Reads and drops what a refused client has sent so far (at most [`BUSY_DRAIN`] bytes), so
/// that closing the connection does not reset it under the answer.
fn drain(stream: &TcpStream) {
    let mut buf = [0u8; 4096];
    let mut total = 0;
    while total < BUSY_DRAIN {
        match (&mut &*stream).read(&mut buf) {
            Ok(n) if n > 0 => total += n,
            _ => break,
        }
    }
}

/// Reads one request; `Ok(None)` when the peer closed without sending one.
fn read_request(reader: &mut impl BufRead) -> Result<Option<Request>, Malformed> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let n = match reader.by_ref().take((MAX_HEAD + 1 - head.len()) as u64).read_until(b'\n', &mut line) {
            Ok(n) => n,
            // A connection opened and never used (browsers open some speculatively) is closed
            // without an answer; one that stopped half-way is told why.
            Err(_) if head.is_empty() && line.is_empty() => return Ok(None),
            Err(_) => return Err(Malformed(408, "incomplete request")),
        };
        if n == 0 {
            return if head.is_empty() { Ok(None) } else { Err(Malformed(400, "incomplete request head")) };
        }
        head.extend_from_slice(&line);
        if head.len() > MAX_HEAD {
            return Err(Malformed(431, "request head too large"));
        }
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    let head = std::str::from_utf8(&head).map_err(|_| Malformed(400, "request head is not UTF-8"))?;
    let mut lines = head.lines();
    let mut parts = lines.next().unwrap_or("").split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(Malformed(400, "bad request line"));
    };
    if !version.starts_with("HTTP/1.") || !target.starts_with('/') {
        return Err(Malformed(400, "bad request line"));
    }
    let mut req = Request { method: method.to_string(), target: target.to_string(), ..Request::default() };
    let mut length = 0usize;
    for line in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Err(Malformed(400, "bad header line"));
        };
        let value = value.trim().to_string();
        match name.trim().to_ascii_lowercase().as_str() {
            "host" => req.host = Some(value),
            "origin" => req.origin = Some(value),
            "content-type" => req.content_type = Some(value),
            "x-parcels-token" => req.token = Some(value),
            "content-length" => length = value.parse().map_err(|_| Malformed(400, "bad Content-Length"))?,
            "transfer-encoding" => return Err(Malformed(501, "chunked bodies are not accepted; send Content-Length")),
            _ => {}
        }
    }
    if length > app::MAX_BODY {
        return Err(Malformed(413, "request body too large"));
    }
    req.body = vec![0; length];
    reader.read_exact(&mut req.body).map_err(|_| Malformed(400, "request body shorter than Content-Length"))?;
    Ok(Some(req))
}

fn write_response(stream: &mut impl Write, r: &Response, head_only: bool) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len()
    );
    if let Some(csp) = &r.csp {
        head.push_str(&format!("Content-Security-Policy: {csp}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(&r.body)?;
    }
    stream.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        503 => "Service Unavailable",
        409 => "Conflict",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        _ => "Error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Result<Option<Request>, u16> {
        read_request(&mut BufReader::new(raw.as_bytes())).map_err(|Malformed(s, _)| s)
    }

    #[test]
    fn parses_a_label_request() {
        let raw = "POST /api/label HTTP/1.1\r\nHost: 127.0.0.1:9\r\nContent-Type: application/json\r\nX-Parcels-Token: t\r\nContent-Length: 5\r\n\r\n{\"a\"}";
        let req = parse(raw).unwrap().unwrap();
        assert_eq!(
            (req.method.as_str(), req.target.as_str(), req.host.as_deref(), req.token.as_deref()),
            ("POST", "/api/label", Some("127.0.0.1:9"), Some("t"))
        );
        assert_eq!(req.body, b"{\"a\"}");
    }

    #[test]
    fn refuses_malformed_and_oversized_requests() {
        assert!(parse("").unwrap().is_none());
        assert_eq!(parse("GET\r\n\r\n").unwrap_err(), 400);
        assert_eq!(parse("GET http://x/ HTTP/1.1\r\n\r\n").unwrap_err(), 400);
        assert_eq!(parse("POST /api/label HTTP/1.1\r\nContent-Length: 99999\r\n\r\n").unwrap_err(), 413);
        assert_eq!(parse("POST /api/label HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap_err(), 501);
        assert_eq!(parse("POST /api/label HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc").unwrap_err(), 400);
        let long = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(parse(&long).unwrap_err(), 431);
    }
}
