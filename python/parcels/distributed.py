"""Web archives at scale: parcels over WARC shards on a Dask cluster.

``python -m parcels.distributed IN OUT_DIR --workers N`` maps every WARC file (a *shard*) of
``IN`` — a directory searched recursively for ``.warc``/``.warc.gz`` files, a text file listing
one WARC path per line, or one WARC file — to ``parcels.extract_warc`` on the cluster's workers,
and writes one JSON Lines file per shard into ``OUT_DIR`` (``NAME.jsonl`` for ``NAME.warc.gz``):
one ``parcels extract`` record per page, with ``url`` and ``warc_record_id``, and an error record
for a damaged one, so every page of the shard is accounted for. With ``--format parquet`` (needs
pyarrow: ``pip install ".[parquet]"``) each shard is ``NAME.parquet`` instead, one row per record
with the columns of :func:`parquet_schema` (a column a record lacks is null).

Each output is written to a temporary file in ``OUT_DIR`` and renamed into place when the shard
is done, so a file that exists is complete. That makes a run resumable: a shard whose output
exists is skipped; rerunning after a crash or a lost worker does only what is missing.

Without ``--scheduler`` the pipeline starts a ``LocalCluster`` of ``--workers`` processes (one
thread each) on this machine; with ``--scheduler tcp://HOST:8786`` it runs on an existing Dask
cluster, whose workers must see the input and output paths (a shared file system).

Why Dask rather than Ray Data: the work is an embarrassingly parallel map from files to files,
with no shuffle and no data passed between tasks, which is what ``Client.map`` does with the
least machinery. Dask's scheduler and workers are pure-Python packages from PyPI (no separate
runtime or object store to start), ``LocalCluster`` starts in a test in about a second, and the
same code runs on a cluster started with ``dask scheduler`` / ``dask worker`` or any of Dask's
deployers (SSH, Kubernetes, HPC job queues). parcels already releases the GIL, so a worker may
also run several threads.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

WARC_SUFFIXES = (".warc", ".warc.gz")

#: Output formats and the suffix of their files.
FORMATS = {"jsonl": ".jsonl", "parquet": ".parquet"}

#: Records written to a Parquet file at a time (a row group each): memory stays bounded by this,
#: not by the shard.
PARQUET_BATCH = 1024


def parquet_schema():
    """The Parquet columns of an extract record: ``url``, ``warc_record_id``, ``path``,
    ``error`` (error records), the article's fields, and ``blocks`` as a list of structs with
    the fields of ``parcels.classify``'s blocks."""
    import pyarrow as pa

    said = pa.struct([("label", pa.string()), ("confidence", pa.float64())])
    block = pa.struct(
        [
            ("id", pa.int64()),
            ("locator", pa.string()),
            ("label", pa.string()),
            ("confidence", pa.float64()),
            ("view", pa.string()),
            ("views", pa.struct([("stylistic", said), ("lexical", said)])),
            ("text", pa.string()),
        ]
    )
    strings = ["url", "warc_record_id", "path", "error", "title", "main_text", "date", "reporter", "source", "location"]
    return pa.schema([(name, pa.string()) for name in strings] + [("subheaders", pa.list_(pa.string())), ("blocks", pa.list_(block))])


def is_warc(path: Path) -> bool:
    """Whether a file name says WARC (``.warc``, ``.warc.gz``, any case)."""
    name = path.name.lower()
    return name.endswith(WARC_SUFFIXES)


def find_shards(source: Path, suffix: str = ".jsonl") -> List[Tuple[Path, str]]:
    """The shards of an input with their output names: ``(warc path, NAME.jsonl)`` (or the
    output format's ``suffix``), sorted.

    A directory gives its WARC files (recursively; names made from the path under it, ``/``
    written ``__``), a WARC file itself, any other file one path per line (blank lines and lines
    starting with ``#`` skipped; relative paths from the list's directory). Two shards with the
    same output name are an error.
    """
    if source.is_dir():
        found = sorted(p for p in source.rglob("*") if p.is_file() and is_warc(p))
        shards = [(p, "__".join(p.relative_to(source).parts)) for p in found]
    elif is_warc(source):
        shards = [(source, source.name)]
    elif source.is_file():
        shards = []
        for n, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            p = Path(line)
            if not p.is_absolute():
                p = source.parent / p
            if not is_warc(p):
                raise ValueError(f"{source} line {n}: {line}: not a .warc or .warc.gz file")
            shards.append((p, p.name))
    else:
        raise ValueError(f"{source}: no such file or directory")
    named: Dict[str, Path] = {}
    out = []
    for path, name in shards:
        target = output_name(name, suffix)
        if target in named:
            raise ValueError(f"{path} and {named[target]} would both write {target}")
        named[target] = path
        out.append((path, target))
    return out


def output_name(warc_name: str, suffix: str = ".jsonl") -> str:
    """``NAME.jsonl`` (or ``NAME`` + ``suffix``) for ``NAME.warc`` or ``NAME.warc.gz``."""
    lower = warc_name.lower()
    for warc_suffix in (".warc.gz", ".warc"):
        if lower.endswith(warc_suffix):
            return warc_name[: -len(warc_suffix)] + suffix
    return warc_name + suffix


_MODELS: Dict[Optional[str], object] = {}


def _model(model_path: Optional[str]):
    """The model of a worker process, loaded once per process."""
    import parcels

    if model_path not in _MODELS:
        _MODELS[model_path] = parcels.Model.load(model_path) if model_path else parcels.Model.default()
    return _MODELS[model_path]


def process_shard(warc: str, out: str, model_path: Optional[str] = None) -> Dict[str, object]:
    """Extracts every page of one WARC file into one JSON Lines file (a Parquet file when
    ``out`` ends in ``.parquet``), atomically.

    Returns ``{"shard", "out", "pages", "errors", "seconds", "skipped"}``. A shard whose output
    already exists is skipped (``skipped`` true). Records are written as ``parcels extract``
    writes them (compact separators, UTF-8 unescaped). A WARC file that cannot be opened raises
    ``parcels.ParcelsError`` and leaves no output, so the next run tries it again.
    """
    import parcels

    target = Path(out)
    if target.exists():
        return {"shard": warc, "out": out, "pages": 0, "errors": 0, "seconds": 0.0, "skipped": True}
    start = time.perf_counter()
    pages = errors = 0
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        if target.suffix == ".parquet":
            pages, errors = _write_parquet(parcels.extract_warc(warc, _model(model_path)), tmp)
        else:
            with open(tmp, "w", encoding="utf-8", newline="\n") as f:
                for record in parcels.extract_warc(warc, _model(model_path)):
                    pages += 1
                    errors += "error" in record
                    f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
                    f.write("\n")
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return {"shard": warc, "out": out, "pages": pages, "errors": errors, "seconds": time.perf_counter() - start, "skipped": False}


def _write_parquet(records: Iterable[Dict[str, object]], path: Path) -> Tuple[int, int]:
    """Writes records to a Parquet file in row groups of :data:`PARQUET_BATCH`; returns
    ``(records, error records)``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = parquet_schema()
    pages = errors = 0
    batch: List[Dict[str, object]] = []
    with pq.ParquetWriter(str(path), schema) as writer:
        for record in records:
            pages += 1
            errors += "error" in record
            batch.append(record)
            if len(batch) == PARQUET_BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    with open(path, "rb") as f:
        os.fsync(f.fileno())
    return pages, errors


def run(
    shards: Sequence[Tuple[Path, str]],
    out_dir: Path,
    *,
    workers: int = 2,
    threads_per_worker: int = 1,
    scheduler: Optional[str] = None,
    model: Optional[str] = None,
    progress=None,
) -> Dict[str, object]:
    """Runs the pipeline over ``shards`` (from :func:`find_shards`) into ``out_dir``.

    Starts a ``LocalCluster`` of ``workers`` processes unless ``scheduler`` names a running
    one. Shards whose output exists are skipped before any task is sent. Returns a summary:
    shards done, skipped and failed (with their messages), pages, error records, wall seconds.
    """
    from dask.distributed import Client, LocalCluster, as_completed

    out_dir.mkdir(parents=True, exist_ok=True)
    todo = [(str(p.resolve()), str((out_dir / name).resolve())) for p, name in shards if not (out_dir / name).exists()]
    summary: Dict[str, object] = {"shards": len(shards), "skipped": len(shards) - len(todo), "done": 0, "failed": [], "pages": 0, "error_records": 0}
    start = time.perf_counter()
    if todo:
        cluster = None
        if scheduler is None:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=threads_per_worker, processes=True, dashboard_address=None)
        try:
            with Client(cluster if cluster is not None else scheduler) as client:
                futures = client.map(process_shard, [w for w, _ in todo], [o for _, o in todo], model_path=model, pure=False)
                shard_of = {f.key: w for f, (w, _) in zip(futures, todo)}
                for future in as_completed(futures):
                    if future.status == "error":
                        summary["failed"].append({"shard": shard_of[future.key], "error": str(future.exception())})
                        continue
                    result = future.result()
                    summary["done"] += 1
                    summary["pages"] += result["pages"]
                    summary["error_records"] += result["errors"]
                    if progress is not None:
                        progress(result)
        finally:
            if cluster is not None:
                cluster.close()
    summary["seconds"] = round(time.perf_counter() - start, 3)
    return summary


def main(argv: Optional[Iterable[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m parcels.distributed",
        description="Extract the articles of WARC shards on a Dask cluster: one JSON Lines (or Parquet) file per shard, resumable.",
    )
    parser.add_argument("input", type=Path, help="a directory of .warc/.warc.gz files (searched recursively), a file listing one WARC path per line, or one WARC file")
    parser.add_argument("out_dir", type=Path, help="directory that receives NAME.jsonl (or NAME.parquet) per shard; shards whose file exists are skipped")
    parser.add_argument("--format", choices=sorted(FORMATS), default="jsonl", help="output per shard: JSON Lines, or Parquet (needs pyarrow) [default: jsonl]")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes of the local cluster [default: one per core]")
    parser.add_argument("--threads-per-worker", type=int, default=1, help="threads per worker process [default: 1]")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://HOST:8786) instead of a local cluster")
    parser.add_argument("--model", help="model file from `parcels train` [default: the model shipped with parcels]")
    args = parser.parse_args(None if argv is None else list(argv))
    if args.workers < 1 or args.threads_per_worker < 1:
        parser.error("--workers and --threads-per-worker must be at least 1")
    try:
        shards = find_shards(args.input, FORMATS[args.format])
        if args.format == "parquet":
            import pyarrow  # noqa: F401  (before any work: the workers need it too)
    except (OSError, ValueError, ImportError) as e:
        print(f"parcels.distributed: {e}", file=sys.stderr)
        return 1

    def progress(result):
        print(f"{result['shard']}: {result['pages']} pages ({result['errors']} errors) in {result['seconds']:.1f} s", file=sys.stderr)

    summary = run(shards, args.out_dir, workers=args.workers, threads_per_worker=args.threads_per_worker, scheduler=args.scheduler, model=args.model, progress=progress)
    print(json.dumps(summary, ensure_ascii=False))
    for failure in summary["failed"]:
        print(f"parcels.distributed: {failure['shard']}: {failure['error']}", file=sys.stderr)
    return 2 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
