#!/usr/bin/env python3
"""Every page of every corpus through every page command of parcels (issue 18, "Also check").

Runs `divide`, `features --view stylistic`, `features --view lexical`, `classify` and
`extract` over every page of every corpus in the shared corpora folder, in batches (one
process per batch, `--threads 1`, under `nice -n 10`, a time limit per batch), and records per
corpus and command: pages, pages that failed (with the message), panics (exit 101, a signal
such as the abort of a stack overflow, or "panicked" on standard error), hangs (a batch or a
page past its time limit), and the pages that came out with zero blocks. A batch that panics
or hangs is run again page by page, so that the page responsible is named.

The slowest pages are found in two steps: the candidates are the largest pages (decompressed
bytes) and the pages with the most blocks (from `divide`); each candidate is then run alone
through each command and timed (wall time and peak memory from `wait4`). Batch times give the
mean per page.

Writes a Markdown report (default `reports/robustness/all-corpora.md`) and a JSON file with
every figure next to it. Standard library only.

    nice -n 10 python3 reports/robustness/all-corpora.py \
        --parcels target/release/parcels --corpora ../shared/corpora
"""

import argparse
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Where each corpus keeps its pages (the corpora README's table lists the folders). A folder
# of the README that is missing here is reported, not skipped silently.
PAGE_GLOBS = {
    "l3s-gn1": "original/*.html",
    "dragnet": "input/*.html",
    "cleaneval-dev": "input/*.html",
    "wcxb-dev": "html/*.html.gz",
}

COMMANDS = {
    "divide": ["divide", "--format", "json"],
    "features-stylistic": ["features", "--view", "stylistic", "--format", "tsv"],
    "features-lexical": ["features", "--view", "lexical", "--format", "tsv"],
    "classify": ["classify", "--format", "json"],
    "extract": ["extract", "--format", "json"],
}

# Why a page divides into zero blocks, found by looking at the page (filled in by hand after a
# run; a zero-block page missing here is reported as "not yet looked at").
ZERO_BLOCK_REASONS = {
    "R427.html": "an error page (156 bytes: `<title>ERROR</title>` and an empty `<body>`); the "
    "crawl failed, although the Dragnet gold text has an article for it",
    "0585.html.gz": "client-rendered (Next.js): the body is an empty `<div id=\"__next\">` and "
    "scripts, the content sits in the `__NEXT_DATA__` JSON; no visible text; WCXB's gold "
    "`main_content` is null too",
    "4577.html.gz": "client-rendered (React): an empty `<div id=\"root\">`, a loading skeleton "
    "without text and only `<noscript>You need to enable JavaScript…</noscript>` (never "
    "rendered, so skipped); WCXB's gold `main_content` is null",
    "4681.html.gz": "a loading skeleton (`<gg-app>` with empty `<span>`s and `<div class=line>`), "
    "no text; WCXB's gold `main_content` is null",
    "4871.html.gz": "the body is only `<div hidden=\"\"></div>`; WCXB's gold `main_content` "
    "is null",
}


def readme_folders(corpora):
    """The corpus folders named in the first column of the corpora README's table."""
    readme = corpora / "README.md"
    if not readme.exists():
        return []
    folders = []
    for line in readme.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\|\s*`([^`]+)/`\s*\|", line)
        if m:
            folders.append(m.group(1))
    return folders


def pages_of(corpora):
    out = {}
    for name, pattern in PAGE_GLOBS.items():
        pages = sorted((corpora / name).glob(pattern))
        if pages:
            out[name] = pages
    return out


# GNU time measures the peak memory: a child forked from this (large) Python process would
# report Python's resident set as its own maximum.
GNU_TIME = "/usr/bin/time"


def run_timed(argv, timeout, stdout, stderr, tmp):
    """Runs argv in its own process group; returns (exit code or None on time-out, seconds,
    peak resident memory in KB or None)."""
    rss_file = tmp / "rss"
    if os.path.exists(GNU_TIME):
        argv = [GNU_TIME, "-q", "-f", "%M", "-o", str(rss_file), *argv]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=stderr, start_new_session=True)
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None, time.perf_counter() - start, None
    secs = time.perf_counter() - start
    try:
        rss = int(rss_file.read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        rss = None
    return rc, secs, rss


def parse_output(command, out_path, batch):
    """Blocks per page from the command's standard output, and error records (classify and
    extract write `{"path", "error"}` records)."""
    blocks, errors = {}, {}
    with open(out_path, encoding="utf-8", errors="replace") as f:
        if command.startswith("features"):
            for line in f:
                if line.startswith("path\t"):
                    continue
                path = line.split("\t", 1)[0]
                blocks[path] = blocks.get(path, 0) + 1
        else:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                record = json.loads(line)
                if "error" in record:
                    errors[record["path"]] = record["error"]
                else:
                    blocks[record["path"]] = len(record.get("blocks", []))
    return blocks, errors


def parse_stderr(err_text, batch):
    """Per-page messages on standard error (`PATH: message`), split into errors and
    warnings later by whether the page also has an output record."""
    messages = {}
    for line in err_text.splitlines():
        for path in batch:
            if line.startswith(path + ": "):
                messages.setdefault(path, []).append(line[len(path) + 2 :])
                break
    return messages


def is_panic(rc, err_text):
    """A Rust panic exits 101; an abort (stack overflow, a panic while panicking) or another
    signal shows as a negative code, or as 128 + the signal through GNU time."""
    if rc is None:
        return False
    return rc == 101 or rc < 0 or rc > 128 or "panicked" in err_text or "overflowed its stack" in err_text


def run_batch(parcels, command, batch, timeout, tmp):
    """One process over `batch`; returns per-page results and the batch's outcome."""
    argv = ["nice", "-n", "10", parcels, *COMMANDS[command], "--threads", "1", *batch]
    out_path, err_path = tmp / "out", tmp / "err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        rc, secs, rss = run_timed(argv, timeout, out, err, tmp)
    err_text = err_path.read_text(encoding="utf-8", errors="replace")
    try:
        blocks, errors = parse_output(command, out_path, batch)
        bad_output = None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        blocks, errors, bad_output = {}, {}, f"unparsable output: {e}"
    messages = parse_stderr(err_text, batch)
    return {
        "rc": rc,
        "secs": secs,
        "rss_kb": rss,
        "panic": is_panic(rc, err_text),
        "hang": rc is None,
        "bad_output": bad_output,
        "stderr_tail": err_text[-2000:],
        "blocks": blocks,
        "errors": errors,
        "messages": messages,
    }


def check_corpus(parcels, command, name, pages, args, tmp):
    """All pages of one corpus through one command, in batches; a batch that panics, hangs or
    writes unparsable output is run again page by page."""
    result = {
        "pages": len(pages),
        "batch_secs": 0.0,
        "batches": 0,
        "errors": {},
        "panics": {},
        "hangs": {},
        "zero_blocks": [],
        "warnings": 0,
        "blocks": 0,
        "blocks_per_page": {},
    }
    strs = [str(p) for p in pages]
    for i in range(0, len(strs), args.batch):
        batch = strs[i : i + args.batch]
        r = run_batch(parcels, command, batch, args.timeout, tmp)
        result["batches"] += 1
        result["batch_secs"] += r["secs"]
        outcomes = []
        if r["panic"] or r["hang"] or r["bad_output"]:
            print(
                f"  {name} {command}: batch {i // args.batch} "
                f"{'panicked' if r['panic'] else 'hung' if r['hang'] else r['bad_output']}"
                "; running its pages one by one",
                file=sys.stderr,
            )
            for page in batch:
                outcomes.append((page, run_batch(parcels, command, [page], args.page_timeout, tmp)))
        else:
            outcomes = [(page, r) for page in batch]
        for page, pr in outcomes:
            # A batch that panicked or hung was rerun page by page, so here `pr` is either a
            # clean batch or this page's own run.
            if pr["panic"]:
                result["panics"][page] = [f"exit {pr['rc']}", *pr["stderr_tail"].strip().splitlines()[-3:]]
                continue
            if pr["hang"]:
                result["hangs"][page] = pr["secs"]
                continue
            msgs = pr["messages"].get(page, [])
            if page in pr["errors"]:
                result["errors"][page] = pr["errors"][page]
            elif page in pr["blocks"]:
                n = pr["blocks"][page]
                result["warnings"] += len(msgs)
                result["blocks"] += n
                result["blocks_per_page"][page] = n
                if n == 0:
                    result["zero_blocks"].append(page)
            elif command.startswith("features"):
                # TSV has no row for a page without blocks, and warnings (style sheets not
                # found) share standard error with errors: the page alone tells them apart by
                # its exit status.
                alone = run_batch(parcels, command, [page], args.page_timeout, tmp)
                if alone["rc"] == 0 and not alone["blocks"]:
                    result["warnings"] += len(alone["messages"].get(page, []))
                    result["blocks_per_page"][page] = 0
                    result["zero_blocks"].append(page)
                else:
                    result["errors"][page] = f"exit {alone['rc']}: " + "; ".join(alone["messages"].get(page, []))
            elif msgs:
                result["errors"][page] = "; ".join(msgs)
            else:
                result["errors"][page] = "no output record and no message"
    return result


def page_size(path):
    if path.name.endswith(".gz"):
        with gzip.open(path, "rb") as f:
            return len(f.read())
    return path.stat().st_size


def time_candidates(parcels, candidates, args, tmp):
    """Each candidate alone through each command: wall seconds and peak memory."""
    times = {c: [] for c in COMMANDS}
    for command in COMMANDS:
        for page in candidates:
            argv = ["nice", "-n", "10", parcels, *COMMANDS[command], "--threads", "1", str(page)]
            with open(os.devnull, "wb") as null, open(tmp / "err", "wb") as err:
                rc, secs, rss = run_timed(argv, args.page_timeout, null, err, tmp)
            times[command].append(
                {"page": str(page), "secs": secs, "rss_kb": rss, "rc": rc}
            )
        times[command].sort(key=lambda t: -t["secs"])
    return times


def fmt_secs(s):
    return f"{s:.2f}"


def write_report(args, summary, times, candidates, elapsed, missing):
    lines = []
    w = lines.append
    w("# Every corpus page through every page command")
    w("")
    w(
        "Issue 18, \"Also check\": every page of every corpus in the shared corpora folder "
        "through `divide`, `features --view stylistic`, `features --view lexical`, `classify` "
        "and `extract`. Written by `reports/robustness/all-corpora.py`; do not edit by hand "
        "(the zero-block reasons live in the script)."
    )
    w("")
    w("Command:")
    w("")
    w("```")
    w(summary["command"])
    w("```")
    w("")
    w(
        f"Binary: `{args.parcels}` ({summary['version']}), commit `{summary['commit']}`. "
        f"Batches of {args.batch} pages, `--threads 1`, `nice -n 10`, {args.timeout:.0f} s per "
        f"batch and {args.page_timeout:.0f} s per page when a batch is rerun page by page. "
        f"Machine: {os.cpu_count()} cores shared with other jobs, so times are upper bounds. "
        f"Whole run: {elapsed / 60:.1f} min wall."
    )
    w("")
    if missing:
        w(f"Folders of the corpora README not checked (no page pattern known): {', '.join(missing)}.")
        w("")
    w("## Outcome per corpus and command")
    w("")
    w("| corpus | command | pages | blocks | failed | panics | hangs | zero blocks | warnings | batch time (s) | mean ms/page |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = {"pages": 0, "errors": 0, "panics": 0, "hangs": 0}
    for corpus, per in summary["corpora"].items():
        for command, r in per.items():
            w(
                f"| {corpus} | {command} | {r['pages']} | {r['blocks']} | {len(r['errors'])} | "
                f"{len(r['panics'])} | {len(r['hangs'])} | {len(r['zero_blocks'])} | "
                f"{r['warnings']} | {r['batch_secs']:.1f} | "
                f"{1000 * r['batch_secs'] / max(r['pages'], 1):.0f} |"
            )
            totals["pages"] += r["pages"]
            totals["errors"] += len(r["errors"])
            totals["panics"] += len(r["panics"])
            totals["hangs"] += len(r["hangs"])
    w("")
    w(
        f"In all: {totals['pages']} page runs, {totals['errors']} failed with a message, "
        f"{totals['panics']} panics, {totals['hangs']} hangs. \"warnings\" counts per-page "
        "messages on standard error for pages that did produce a record (mostly external style "
        "sheets that were not crawled)."
    )
    w("")
    w("## Panics and hangs")
    w("")
    any_ph = False
    for corpus, per in summary["corpora"].items():
        for command, r in per.items():
            for page, tail in r["panics"].items():
                any_ph = True
                w(f"- panic: `{command}` on `{page}`: {' / '.join(tail)}")
            for page, secs in r["hangs"].items():
                any_ph = True
                w(f"- hang: `{command}` on `{page}` (killed after {secs:.0f} s)")
    if not any_ph:
        w("None.")
    w("")
    w("## Pages that failed")
    w("")
    failed = {}
    for corpus, per in summary["corpora"].items():
        for command, r in per.items():
            for page, msg in r["errors"].items():
                failed.setdefault((page, msg), []).append(command)
    if failed:
        w("| page | commands | message |")
        w("|---|---|---|")
        for (page, msg), commands in sorted(failed.items()):
            cell = msg.replace("|", "\\|")
            w(f"| `{page}` | {', '.join(commands)} | {cell} |")
    else:
        w("None.")
    w("")
    w("## Pages with zero blocks")
    w("")
    zero = {}
    for corpus, per in summary["corpora"].items():
        for command, r in per.items():
            for page in r["zero_blocks"]:
                zero.setdefault(page, []).append(command)
    if zero:
        w("| page | commands | reason (found by looking at the page) |")
        w("|---|---|---|")
        for page, commands in sorted(zero.items()):
            reason = ZERO_BLOCK_REASONS.get(Path(page).name, "not yet looked at")
            w(f"| `{page}` | {', '.join(commands)} | {reason} |")
    else:
        w("None.")
    w("")
    w("## The five slowest pages per command")
    w("")
    w(
        f"Candidates: the {args.candidates} largest pages (decompressed bytes) and the "
        f"{args.candidates} pages with the most blocks from `divide`, {len(candidates)} pages in "
        "all; each run alone (`--threads 1`, one process per page, so the times include start-up "
        "and, for `classify` and `extract`, loading the compiled-in model). Peak memory is the "
        "process's maximum resident set."
    )
    w("")
    for command, rows in times.items():
        w(f"**{command}**")
        w("")
        w("| page | bytes | blocks | seconds | peak MB | exit |")
        w("|---|---:|---:|---:|---:|---:|")
        for t in rows[:5]:
            info = candidates[t["page"]]
            w(
                f"| `{t['page']}` | {info['bytes']} | {info['blocks']} | {fmt_secs(t['secs'])} | "
                f"{'' if t['rss_kb'] is None else round(t['rss_kb'] / 1024)} | {t['rc']} |"
            )
        w("")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parcels", default="target/release/parcels")
    ap.add_argument("--corpora", default="../shared/corpora")
    ap.add_argument("--batch", type=int, default=100, help="pages per process")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per batch")
    ap.add_argument("--page-timeout", type=float, default=120, help="seconds per single page")
    ap.add_argument("--candidates", type=int, default=12, help="slow-page candidates per criterion")
    ap.add_argument("--only", action="append", help="corpus folder to check (repeatable)")
    ap.add_argument("--out", default="reports/robustness/all-corpora.md")
    args = ap.parse_args()

    corpora = Path(args.corpora)
    all_pages = pages_of(corpora)
    if args.only:
        all_pages = {k: v for k, v in all_pages.items() if k in args.only}
    missing = [f for f in readme_folders(corpora) if f not in PAGE_GLOBS]
    version = subprocess.run(
        [args.parcels, "--version"], capture_output=True, text=True
    ).stdout.strip()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=Path(args.parcels).resolve().parent,
        capture_output=True,
        text=True,
    ).stdout.strip() or "unknown"
    summary = {
        "command": "nice -n 10 python3 " + " ".join(sys.argv),
        "version": version,
        "commit": commit,
        "corpora": {},
    }
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for name, pages in all_pages.items():
            summary["corpora"][name] = {}
            for command in COMMANDS:
                t0 = time.perf_counter()
                r = check_corpus(args.parcels, command, name, pages, args, tmp)
                summary["corpora"][name][command] = r
                print(
                    f"{name} {command}: {r['pages']} pages, {len(r['errors'])} failed, "
                    f"{len(r['panics'])} panics, {len(r['hangs'])} hangs, "
                    f"{len(r['zero_blocks'])} zero-block, {time.perf_counter() - t0:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        # Slow-page candidates: the largest pages and the pages with the most blocks.
        sizes = {}
        for pages in all_pages.values():
            for p in pages:
                sizes[str(p)] = page_size(p)
        divide_blocks = {}
        for per in summary["corpora"].values():
            divide_blocks.update(per["divide"]["blocks_per_page"])
        by_size = sorted(sizes, key=lambda p: -sizes[p])[: args.candidates]
        by_blocks = sorted(divide_blocks, key=lambda p: -divide_blocks[p])[: args.candidates]
        chosen = list(dict.fromkeys(by_size + by_blocks))
        candidates = {
            p: {"bytes": sizes[p], "blocks": divide_blocks.get(p, "")} for p in chosen
        }
        print(f"timing {len(chosen)} candidate pages one by one", file=sys.stderr, flush=True)
        times = time_candidates(args.parcels, [Path(p) for p in chosen], args, tmp)
    elapsed = time.perf_counter() - start
    summary["times"] = times
    summary["candidates"] = candidates
    summary["elapsed_secs"] = elapsed
    report = write_report(args, summary, times, candidates, elapsed, missing)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = out.with_suffix(".md.tmp")
    tmp_out.write_text(report, encoding="utf-8")
    os.replace(tmp_out, out)
    json_out = out.with_suffix(".json")
    tmp_json = json_out.with_suffix(".json.tmp")
    # Per-page block counts stay out of the file (a megabyte); the report's figures are in.
    for per in summary["corpora"].values():
        for r in per.values():
            r.pop("blocks_per_page", None)
    tmp_json.write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")
    os.replace(tmp_json, json_out)
    print(f"wrote {out} and {json_out}", file=sys.stderr)


if __name__ == "__main__":
    main()
