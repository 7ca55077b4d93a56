"""Writes small WARC files for the Python tests and the throughput runs (never shipped pages).

``write_warc(path, pages)`` writes a ``warcinfo`` record, then per page a ``request`` record
(which parcels must skip) and a ``response`` record holding an HTTP 200 with the page, each
record gzip-compressed on its own when ``path`` ends in ``.gz`` (as Common Crawl ships them).

Run as a script it builds shards from a directory of pages, for measuring::

    python tests/python/warcfile.py PAGES_DIR OUT_DIR --shards 4 [--limit 400]
"""

from __future__ import annotations

import argparse
import gzip
import uuid
from pathlib import Path
from typing import Iterable, List, Optional, Tuple

# (url, page bytes, HTTP charset or None)
Page = Tuple[str, bytes, Optional[str]]


def record(kind: str, uri: str, content_type: str, block: bytes, record_id: Optional[str] = None) -> Tuple[str, bytes]:
    """One WARC/1.0 record; returns its record id and bytes."""
    rid = record_id or f"<urn:uuid:{uuid.uuid4()}>"
    head = (
        "WARC/1.0\r\n"
        f"WARC-Type: {kind}\r\n"
        f"WARC-Record-ID: {rid}\r\n"
        "WARC-Date: 2024-01-02T03:04:05Z\r\n"
        + (f"WARC-Target-URI: {uri}\r\n" if uri else "")
        + f"Content-Type: {content_type}\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    )
    return rid, head.encode("ascii") + block + b"\r\n\r\n"


def response(url: str, body: bytes, charset: Optional[str] = None) -> Tuple[str, bytes]:
    ctype = "text/html" + (f"; charset={charset}" if charset else "")
    http = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n\r\n".encode("ascii") + body
    return record("response", url, "application/http; msgtype=response", http)


def request(url: str) -> Tuple[str, bytes]:
    host = url.split("/")[2] if "://" in url else "example.org"
    http = f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode("ascii")
    return record("request", url, "application/http; msgtype=request", http)


def write_warc(path: Path, pages: Iterable[Page]) -> List[Tuple[str, str]]:
    """Writes the pages as a WARC file; returns ``(url, WARC-Record-ID)`` of each response."""
    compress = path.name.endswith(".gz")
    out: List[bytes] = []
    ids = []
    _, info = record("warcinfo", "", "application/warc-fields", b"software: parcels tests\r\n")
    out.append(info)
    for url, body, charset in pages:
        out.append(request(url)[1])
        rid, resp = response(url, body, charset)
        out.append(resp)
        ids.append((url, rid))
    data = b"".join(gzip.compress(r, mtime=0) for r in out) if compress else b"".join(out)
    path.write_bytes(data)
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description="Build WARC shards from a directory of HTML pages (for throughput runs).")
    parser.add_argument("pages", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--limit", type=int, default=0, help="at most this many pages (0: all)")
    args = parser.parse_args()
    files = sorted(p for p in args.pages.rglob("*") if p.is_file() and p.suffix in (".html", ".htm", ".gz"))
    if args.limit:
        files = files[: args.limit]
    args.out.mkdir(parents=True, exist_ok=True)
    for s in range(args.shards):
        chunk = files[s :: args.shards]
        pages = []
        for f in chunk:
            body = f.read_bytes()
            if f.suffix == ".gz":
                body = gzip.decompress(body)
            pages.append((f"http://example.org/{f.relative_to(args.pages).as_posix()}", body, None))
        write_warc(args.out / f"shard-{s:03d}.warc.gz", pages)
        print(f"{args.out / f'shard-{s:03d}.warc.gz'}: {len(pages)} pages")


if __name__ == "__main__":
    main()
