"""The Dask pipeline on a LocalCluster of 2 worker processes over 3 WARC shards the test writes:
every page comes out exactly once, outputs are whole files, and a rerun skips finished shards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed")

from parcels import distributed  # noqa: E402
from conftest import PAGES  # noqa: E402
from warcfile import write_warc  # noqa: E402

PAGE_FILES = ["linear.html", "table.html", "layers.html", "malformed.html", "latin1.html"]


def make_shards(root: Path):
    """3 shards (one nested, one per-record gzip) of 4, 5 and 6 pages; returns every response's
    (url, record id)."""
    expected = set()
    layout = [("a.warc", 4), ("b.warc.gz", 5), ("nested/c.warc.gz", 6)]
    for n, (name, count) in enumerate(layout):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        pages = []
        for i in range(count):
            f = PAGE_FILES[i % len(PAGE_FILES)]
            pages.append((f"http://example.org/shard{n}/{i}/{f}", (PAGES / f).read_bytes(), None))
        expected.update(write_warc(path, pages))
    (root / "notes.txt").write_text("not a shard\n", encoding="utf-8")
    return expected


def read_out(out: Path):
    seen = []
    for f in sorted(out.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            seen.append((r["url"], r["warc_record_id"]))
            assert "error" not in r, r
    return seen


def test_every_page_comes_out_once_on_two_worker_processes_and_reruns_resume(tmp_path):
    inp, out = tmp_path / "in", tmp_path / "out"
    expected = make_shards(inp)
    shards = distributed.find_shards(inp)
    assert [name for _, name in shards] == ["a.jsonl", "b.jsonl", "nested__c.jsonl"]

    summary = distributed.run(shards, out, workers=2)
    assert summary["failed"] == [] and summary["done"] == 3 and summary["skipped"] == 0
    assert summary["pages"] == 15 and summary["error_records"] == 0
    seen = read_out(out)
    assert len(seen) == len(set(seen)) == 15
    assert set(seen) == expected
    assert sorted(p.name for p in out.iterdir()) == ["a.jsonl", "b.jsonl", "nested__c.jsonl"], "no temporary files left"

    # Resume: one output lost; the rerun (through the command line) does only that shard.
    kept = (out / "a.jsonl").read_bytes()
    lost = (out / "b.jsonl").read_bytes()
    (out / "b.jsonl").unlink()
    assert distributed.main([str(inp), str(out), "--workers", "2"]) == 0
    assert (out / "b.jsonl").read_bytes() == lost
    assert (out / "a.jsonl").read_bytes() == kept
    assert sorted(read_out(out)) == sorted(seen)


def test_a_list_file_names_shards_and_bad_inputs_are_reported(tmp_path):
    inp = tmp_path / "in"
    make_shards(inp)
    listing = tmp_path / "shards.txt"
    listing.write_text("# shards\nin/a.warc\n\n" + str(inp / "nested" / "c.warc.gz") + "\n", encoding="utf-8")
    assert [(p.name, n) for p, n in distributed.find_shards(listing)] == [("a.warc", "a.jsonl"), ("c.warc.gz", "c.jsonl")]
    listing.write_text("in/notes.txt\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1: in/notes.txt: not a .warc"):
        distributed.find_shards(listing)
    listing.write_text("in/a.warc\nother/a.warc.gz\n", encoding="utf-8")
    with pytest.raises(ValueError, match="would both write a.jsonl"):
        distributed.find_shards(listing)
    with pytest.raises(ValueError, match="no such file"):
        distributed.find_shards(tmp_path / "missing")


def test_a_shard_that_cannot_be_read_leaves_no_output(tmp_path):
    bad = tmp_path / "bad.warc"
    bad.write_bytes(b"<html>not an archive</html>")
    out = tmp_path / "out.jsonl"
    import parcels

    with pytest.raises(parcels.ParcelsError, match="not a WARC file"):
        distributed.process_shard(str(bad), str(out))
    assert list(tmp_path.iterdir()) == [bad]


def test_parquet_output_holds_the_json_lines_records(tmp_path):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    inp = tmp_path / "in"
    make_shards(inp)
    shards = distributed.find_shards(inp, distributed.FORMATS["parquet"])
    assert [name for _, name in shards] == ["a.parquet", "b.parquet", "nested__c.parquet"]
    warc = str(shards[1][0])
    as_jsonl = tmp_path / "b.jsonl"
    as_parquet = tmp_path / "b.parquet"
    done = distributed.process_shard(warc, str(as_parquet))
    assert (done["pages"], done["errors"]) == (5, 0)
    distributed.process_shard(warc, str(as_jsonl))
    records = [json.loads(line) for line in as_jsonl.read_text(encoding="utf-8").splitlines()]
    rows = pq.read_table(as_parquet).to_pylist()
    assert len(rows) == len(records) == 5
    for row, record in zip(rows, records):
        # Every field of the record, as written; columns it lacks are null.
        assert {k: v for k, v in row.items() if k in record} == record
        assert all(row[k] is None for k in row if k not in record)
