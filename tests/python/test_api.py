"""The Python API against the command line: same records, errors as exceptions, both views'
feature matrices, and WARC files the tests write themselves from the pages in tests/pages."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import parcels
from conftest import PAGES, ROOT
from warcfile import write_warc

FIXTURES = ["linear.html", "table.html", "layers.html", "malformed.html", "latin1.html"]


def cli_line(record) -> bytes:
    """A record as the CLI writes it: compact JSON, UTF-8 unescaped, one line."""
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


@pytest.mark.parametrize("name", FIXTURES)
def test_extract_record_is_the_cli_record_byte_for_byte(cli, name):
    rel = f"tests/pages/{name}"
    expected = cli("extract", rel)
    got = cli_line(parcels.extract((ROOT / rel).read_bytes(), path=rel))
    assert got == expected


def test_a_page_handed_in_is_named_as_the_cli_names_standard_input(cli):
    data = (PAGES / "table.html").read_bytes()
    assert cli_line(parcels.extract(data)) == cli("extract", "-", stdin=data)
    assert parcels.extract(data)["path"] == "-"


def test_classify_and_divide_give_the_cli_blocks_in_its_field_order(cli):
    rel = "tests/pages/layers.html"
    data = (ROOT / rel).read_bytes()
    classified = json.loads(cli("classify", rel))
    assert parcels.classify(data, path=rel) == classified["blocks"]
    divided = json.loads(cli("divide", rel))
    blocks = parcels.divide(data, path=rel)
    assert blocks == divided["blocks"]
    # Field order as printed, not sorted (divide's blocks are structs, not JSON maps).
    assert list(blocks[0]) == list(divided["blocks"][0])
    assert list(blocks[0])[:2] == ["id", "locator"]


def test_str_and_bytes_give_the_same_article():
    data = (PAGES / "linear.html").read_bytes()
    assert parcels.extract(data) == parcels.extract(data.decode("utf-8"))
    # A declared legacy page: bytes are decoded by its <meta>; a str is already text.
    latin = (PAGES / "latin1.html").read_bytes()
    from_bytes = parcels.extract(latin)
    from_str = parcels.extract(latin.decode("cp1252"))
    assert from_bytes["main_text"] == from_str["main_text"]
    assert from_bytes["blocks"] == from_str["blocks"]


def test_url_is_recorded():
    record = parcels.extract((PAGES / "linear.html").read_bytes(), url="http://example.org/fair")
    assert record["url"] == "http://example.org/fair"
    assert list(record)[0] == "url", "in front, as the CLI puts it in records of web-archive pages"
    assert record["title"] == "Village fair draws record crowd"


@pytest.mark.parametrize("fmt,cli_format", [("markdown", "markdown"), ("txt", "text"), ("json", "json")])
def test_output_format_gives_the_cli_output_as_a_string(cli, fmt, cli_format):
    rel = "tests/pages/table.html"
    url = "http://news.example/2008/03/story.html"
    got = parcels.extract((ROOT / rel).read_bytes(), url=url, path=rel, output_format=fmt)
    assert isinstance(got, str)
    expected = cli("extract", "--format", cli_format, "--url", url, rel).decode("utf-8")
    if fmt == "json":
        expected = expected.rstrip("\n")  # one record: the line without its newline
    assert got == expected
    if fmt == "markdown":
        assert "[the weather](http://news.example/weather)" in got
    with pytest.raises(parcels.ParcelsError, match="output_format"):
        parcels.extract("<p>x</p>", output_format="xml")


def test_errors_are_parcels_errors_with_the_rust_message(tmp_path):
    with pytest.raises(parcels.ParcelsError, match=r"^-: page is empty$"):
        parcels.extract(b"   \n")
    with pytest.raises(ValueError, match="page is empty"):
        parcels.classify("", path="empty.html")
    with pytest.raises(parcels.ParcelsError, match="above the limit of 10 bytes"):
        parcels.extract(b"<p>" + b"x" * 100, max_bytes=10)
    with pytest.raises(TypeError, match="str or bytes, not int"):
        parcels.extract(42)
    missing = tmp_path / "missing.json"
    with pytest.raises(parcels.ParcelsError, match="missing.json: cannot read"):
        parcels.Model.load(missing)
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(parcels.ParcelsError, match="bad.json: not a parcels model"):
        parcels.Model.load(bad)
    not_warc = tmp_path / "page.warc"
    not_warc.write_bytes(b"<html>not an archive</html>")
    with pytest.raises(parcels.ParcelsError, match="page.warc: not a WARC file"):
        parcels.extract_warc(not_warc)
    with pytest.raises(parcels.ParcelsError, match="nothing.warc: cannot read"):
        parcels.extract_warc(tmp_path / "nothing.warc")


def test_a_model_file_loads_and_gives_what_the_built_in_model_gives(tmp_path):
    model = parcels.Model.load(ROOT / "corpora" / "models" / "default.json")
    assert model.labels == parcels.Model.default().labels
    assert model.scheme == "l3s-gn1"
    data = (PAGES / "table.html").read_bytes()
    assert parcels.extract(data, model=model) == parcels.extract(data)


def test_feature_matrices_have_a_row_per_block_and_a_name_per_column():
    data = (PAGES / "layers.html").read_bytes()
    blocks = parcels.classify(data)
    stylistic, s_names, lexical, l_names = parcels.features(data)
    assert isinstance(stylistic, np.ndarray) and stylistic.dtype == np.float64
    assert stylistic.shape == (len(blocks), len(s_names))
    assert lexical.shape == (len(blocks), len(l_names))
    assert len(set(s_names)) == len(s_names) and len(set(l_names)) == len(l_names)
    # The lexical view's numeric columns come first; `words` counts each block's words.
    words = l_names.index("words")
    dense = lexical.toarray()
    for i, b in enumerate(blocks):
        assert dense[i, words] == len(b["text"].split()), b["text"]
    # Stem columns (`tok:…`, after the numeric ones) hold TF x IDF weights: positive where
    # present. (Numeric columns may be NaN: a value a block does not have, such as the share of
    # its words matching the page's title when it has no words.)
    stems = dense[:, [j for j, n in enumerate(l_names) if n.startswith("tok:")]]
    assert stems.shape[1] > 0
    assert (stems >= 0).all() and (stems > 0).any()


def test_features_without_scipy_are_csr_parts(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_scipy(name, *args, **kwargs):
        if name.startswith("scipy"):
            raise ImportError("no scipy here")
        return real_import(name, *args, **kwargs)

    data = (PAGES / "linear.html").read_bytes()
    _, _, with_scipy, _ = parcels.features(data)
    monkeypatch.setattr(builtins, "__import__", no_scipy)
    _, _, parts, names = parcels.features(data)
    data_, indices, indptr, shape = parts
    assert shape == with_scipy.shape
    assert len(indptr) == shape[0] + 1 and indptr[-1] == len(data_) == len(indices)
    np.testing.assert_array_equal(indices, with_scipy.indices)


def test_threads_share_the_work_and_get_the_same_records():
    pages = [(PAGES / n).read_bytes() for n in FIXTURES] * 4
    alone = [parcels.extract(p) for p in pages]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(parcels.extract, pages))
    assert together == alone


def test_the_gil_is_released_while_a_page_is_processed():
    # A Python thread counts while the main thread extracts a large page; if parcels held the
    # GIL the counter could only move between calls, not during one.
    big = b"<html><body>" + b"".join(b"<div><p>Paragraph %d of a long page with words.</p></div>" % i for i in range(3000)) + b"</body></html>"
    counts = []
    stop = threading.Event()

    def count():
        n = 0
        while not stop.is_set():
            n += 1
        counts.append(n)

    t = threading.Thread(target=count)
    t.start()
    try:
        before = threading.active_count()
        parcels.divide(big)
        parcels.extract(big)
    finally:
        stop.set()
        t.join()
    assert before == 2 and counts[0] > 1000


def warc_pages():
    return [
        ("http://example.org/linear", (PAGES / "linear.html").read_bytes(), None),
        ("http://example.org/table", (PAGES / "table.html").read_bytes(), "utf-8"),
        ("http://example.org/latin1", (PAGES / "latin1.html").read_bytes(), "iso-8859-1"),
    ]


@pytest.mark.parametrize("name", ["pages.warc", "pages.warc.gz"])
def test_extract_warc_gives_one_record_per_page_with_url_and_record_id(tmp_path, name):
    path = tmp_path / name
    ids = write_warc(path, warc_pages())
    records = list(parcels.extract_warc(path))
    assert [(r["url"], r["warc_record_id"]) for r in records] == ids
    for record, (url, body, _) in zip(records, warc_pages()):
        assert list(record)[:2] == ["url", "warc_record_id"]
        assert record["path"] == str(path)
        direct = parcels.extract(body, url=url, path=str(path))
        direct["warc_record_id"] = record["warc_record_id"]
        assert record == direct


def test_the_http_charset_decodes_a_page_without_a_declaration(tmp_path):
    body = b"<html><body><p>Le caf\xe9 du coin ferme ses portes apr\xe8s trente ans.</p></body></html>"
    path = tmp_path / "charset.warc"
    write_warc(path, [("http://example.fr/", body, "iso-8859-1")])
    (record,) = list(parcels.extract_warc(path))
    assert "café" in record["blocks"][0]["text"] and "après" in record["blocks"][0]["text"]


def test_a_damaged_record_is_an_error_record_and_the_file_goes_on(tmp_path):
    good = tmp_path / "good.warc"
    write_warc(good, warc_pages())
    raw = good.read_bytes()
    # Cut the second response's Content-Length short by 5 bytes and put garbage after it.
    marker = b"WARC-Target-URI: http://example.org/table\r\n"
    at = raw.index(marker, raw.index(marker) + 1)  # the response, after the request
    length_at = raw.index(b"Content-Length: ", at) + len(b"Content-Length: ")
    end = raw.index(b"\r\n", length_at)
    claimed = int(raw[length_at:end])
    damaged = raw[:length_at] + str(claimed - 5).encode() + raw[end:]
    path = tmp_path / "damaged.warc"
    path.write_bytes(damaged)
    records = list(parcels.extract_warc(path))
    urls = [r["url"] for r in records]
    assert urls == ["http://example.org/linear", "http://example.org/table", "http://example.org/latin1"], records
    assert list(records[1]) == ["url", "warc_record_id", "error", "path"], records[1]
    assert records[1]["error"].startswith("record at byte ") and records[1]["path"] == str(path)
    assert "error" not in records[0] and "error" not in records[2]
