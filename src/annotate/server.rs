//! A minimal HTTP/1.1 server for the annotator, on `std::net` alone: one thread per
//! connection, one request per connection (`Connection: close`), bounded heads and bodies, read
//! and write timeouts. Enough for one person's browser on 127.0.0.1; nothing here trusts the
//! request beyond parsing it into an [`app::Request`].

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::app::{self, Annotator, Request, Response};

/// Largest request line plus headers.
const MAX_HEAD: usize = 16 * 1024;
/// Connections handled at once; more are closed at once (a browser opens a handful).
const MAX_CONNECTIONS: usize = 64;
/// A connection idle this long is dropped (browsers open speculative connections they may
/// never use).
const TIMEOUT: Duration = Duration::from_secs(15);

/// A request that could not be parsed, with the status to answer.
struct Malformed(u16, &'static str);

/// Serves `annotator` on `listener` until the process ends.
pub fn serve(listener: TcpListener, annotator: Arc<Annotator>) {
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            continue;
        }
        let (annotator, open) = (Arc::clone(&annotator), Arc::clone(&open));
        std::thread::spawn(move || {
            connection(stream, &annotator);
            open.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

fn connection(stream: TcpStream, annotator: &Annotator) {
    let _ = stream.set_read_timeout(Some(TIMEOUT));
    let _ = stream.set_write_timeout(Some(TIMEOUT));
    let mut reader = BufReader::new(&stream);
    let (response, head_only) = match read_request(&mut reader) {
        Ok(None) => return,
        Ok(Some(req)) => (annotator.handle(&req), req.method == "HEAD"),
        Err(Malformed(status, message)) => {
            (Response { status, content_type: "text/plain; charset=utf-8", body: message.as_bytes().to_vec(), csp: None }, false)
        }
    };
    let _ = write_response(&stream, &response, head_only);
}

/// Reads one request; `Ok(None)` when the peer closed without sending one.
fn read_request(reader: &mut impl BufRead) -> Result<Option<Request>, Malformed> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let n = reader.by_ref().take((MAX_HEAD + 1 - head.len()) as u64).read_until(b'\n', &mut line).map_err(|_| Malformed(408, "incomplete request"))?;
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

fn write_response(mut stream: &TcpStream, r: &Response, head_only: bool) -> std::io::Result<()> {
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
