#!/usr/bin/env python3
"""Hostile pages through the release binary: wall time, peak memory and outcome of each.

Writes every input under /tmp/parcels-hostile (nothing is committed), runs each command under
`/usr/bin/time -v` with a time limit and an address-space limit, and prints a Markdown table
(input, command, wall, max RSS, outcome) for reports/robustness/hostile.md.

    cargo build --release
    python3 reports/robustness/hostile.py [--bin target/release/parcels] [--only NAME]

Issue 18 asked for each case to give a result or a clear error within seconds and bounded
memory; the bounds that make them do so are listed in the README's "Limits" section.
"""

import argparse
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import time

OUT = "/tmp/parcels-hostile"
TIMEOUT_S = 120
ADDRESS_SPACE = 16 * 1024**3  # a runaway case fails instead of taking the shared machine down


def page(body, head=""):
    return f"<html><head>{head}</head><body>{body}</body></html>"


def nested(tag, n, text="x"):
    return page(f"<{tag}>{text}" * n + f"</{tag}>" * n)


def write(name, text, mode="w"):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)
    return path


def make_inputs():
    """(name, path, description) of every hostile input."""
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    cases = []

    def add(name, text, what, mode="w"):
        cases.append((name, write(name, text, mode), what))

    add("siblings.html", page("<p>x</p>" * 1_000_000), "a million sibling `<p>x</p>` (8 MB)")
    row = "<tr>" + "<td>x</td>" * 300 + "</tr>"
    add("table300.html", page("<table>" + row * 300 + "</table>"), "a 300×300 table")
    add("inline.html", page("<div>" + "<span>x" * 100_000 + "</span>" * 100_000 + "</div>"), "100,000 nested `<span>x`")
    add("star-rules.html", page("<p>a <b>b</b></p>" * 100, "<style>" + "* { color: red }\n" * 200_000 + "</style>"), "200,000 `*` rules")
    add(
        "span-attrs.html",
        page('<table><tr><td colspan=100000>wide</td><td rowspan=65534>tall</td></tr><tr><td colspan=4294967297>x</td></tr></table>'),
        "`colspan=100000`, `rowspan=65534`, `colspan=2^32+1`",
    )
    add("span-grid.html", page("<table>" + "<tr><td colspan=100 rowspan=100>x</td>" * 20_000 + "</table>"), "20,000 rows of `colspan=100 rowspan=100` cells")
    add(
        "huge-values.html",
        page(
            '<div style="z-index: 99999999999999999999; font-size: 1e308px; width: 1e39px; margin-left: -1e308px">big</div>'
            '<p style="font-size: 99999999999999999999999999999999999999999pt; line-height: 1e300">x</p>'
            '<font size="+2147483647">f</font><font size="-99999999999">g</font>'
            '<div style="font-size: calc(1e308px * 10)">c</div>'
        ),
        "huge z-index, font sizes, widths, `calc` overflow",
    )
    add("raw-text.html", page("<script>x<p>" * 200_000), "200,000 `<script>` without an end tag (2.4 MB)")
    add("attributes.html", page("<p " + " ".join(f"a{i}=1" for i in range(200_000)) + ">x</p>"), "200,000 attributes on one `<p>` (1.8 MB)")
    rules = "".join(f".c{i}{{color:red}}" for i in range(10_000))
    classes = " ".join(f"c{i}" for i in range(10_000))
    add("classes.html", page(f'<p class="{classes}">x</p>' * 50, f"<style>{rules}</style>"), "50 `<p>` of 10,000 classes, 10,000 class rules (3 MB)")
    add("line50mb.html", "<p>" + "word " * (10 * 1024 * 1024) + "</p>", "a 50 MB line of text (above the 32 MiB page limit)")
    add("line30mb.html", "<p>" + "word " * (6 * 1024 * 1024) + "</p>", "a 30 MB line of text (one block)")
    add("attr20mb.html", page('<p title="' + "a" * (20 * 1024 * 1024) + '">x</p><p>after</p>'), "a 20 MB attribute")
    for tag in ["table", "ul", "span", "font", "a", "b"]:
        add(f"deep-{tag}.html", nested(tag, 100_000), f"100,000-deep `<{tag}>` with text")
    add("deep-div.html", nested("div", 100_000), "100,000-deep `<div>` with text")
    sel = ":not(" * 500 + "p" + ")" * 500 + "{color:red}" + ":is(" * 500 + "p" + ")" * 500 + "{color:blue}"
    add("not-500.html", page("<p>text</p>", f"<style>{sel}</style>"), "`:not(`/`:is(` nested 500 deep")
    add("brackets.html", page("<p>text</p>", "<style>" + "@media screen{" * 10_000 + "p{color:red}" + "}" * 10_000 + "</style>"), "`@media` blocks nested 10,000 deep")
    add("style-value.html", page("<p style=\"color: " + "calc(" * 10_000 + "1" + ")" * 10_000 + "\">text</p>"), "`calc(` nested 10,000 deep in a `style` attribute")
    # Exponential @import fan-out: six imports per sheet, each through a different `..` path.
    for i in range(6):
        os.makedirs(os.path.join(OUT, "imports", f"d{i}"), exist_ok=True)
    write("imports/s.css", "".join(f'@import "d{i}/../s.css";\n' for i in range(6)) + "p { color: red }\n")
    add("imports/page.html", page("<p>text</p>", '<link rel=stylesheet href="s.css">'), "`@import` fan-out (6 per sheet, `dN/../s.css`)")
    add("imports/loop.html", page("<p>text</p>", "<style>@import 'loop.html';</style>"), "a page importing itself")
    add("passwd.html", page("<p>text</p>", '<link rel=stylesheet href="../../../../../../etc/passwd">'), "`<link href=../../../../etc/passwd>`")
    add("title.html", '<html><head><title>Foo</titlevalue="true" -->\n</head><body><h1>Headline</h1><p>Story text.</p></body></html>', "`</titlevalue=\"true\" -->`")
    bomb = gzip.compress(b"<p>" + b"a" * (200 * 1024 * 1024), 9)
    add("bomb.html.gz", bomb, f"gzip bomb ({len(bomb) // 1024} KB → 200 MB)", mode="wb")
    add("bom.html", b"\xef\xbb\xbf", "a file holding only a UTF-8 BOM", mode="wb")
    add("cargo.html", '[package]\nname = "parcels"\nversion = "0.1.0"\n', "non-HTML text (a Cargo.toml)")
    # A directory with a named pipe and symbolic-link loops (a file loop, a directory loop).
    d = os.path.join(OUT, "dir")
    os.makedirs(os.path.join(d, "sub"))
    write("dir/ok.html", page("<p>fine</p>"))
    os.mkfifo(os.path.join(d, "pipe.html"))
    os.symlink("l2.html", os.path.join(d, "l1.html"))
    os.symlink("l1.html", os.path.join(d, "l2.html"))
    os.symlink("..", os.path.join(d, "sub", "up"))
    cases.append(("dir/", d, "a directory: a page, a named pipe, `l1.html`↔`l2.html`, `sub/up → ..`"))
    fifo = os.path.join(OUT, "model.json")
    os.mkfifo(fifo)
    return cases


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run(argv):
    """Runs argv under /usr/bin/time -v; returns (wall s, max RSS MB, rc, stdout bytes, stdout head, stderr lines)."""
    start = time.monotonic()
    with open(os.path.join(OUT, "stdout"), "wb") as out:
        try:
            p = subprocess.run(["/usr/bin/time", "-v"] + argv, stdout=out, stderr=subprocess.PIPE, preexec_fn=limit, timeout=TIMEOUT_S)
            rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = "timeout", ""
    wall = time.monotonic() - start
    rss = 0.0
    msgs = []
    for line in err.splitlines():
        s = line.strip()
        if s.startswith("Maximum resident set size"):
            rss = int(s.split(":")[1]) / 1024
        elif s.startswith("Elapsed (wall clock)"):
            pass
        elif not line.startswith("\t") and s and not s.startswith("Command"):
            msgs.append(s)
    size = os.path.getsize(os.path.join(OUT, "stdout"))
    with open(os.path.join(OUT, "stdout"), "rb") as f:
        head = f.readline()
        if head.startswith(b"path\t"):
            # TSV features: a header line, then one line per block.
            head = b"tsv %d" % sum(1 for _ in f)
    return wall, rss, rc, size, head, msgs


def outcome(rc, size, head, msgs):
    parts = [f"exit {rc}"]
    # The first record only (one page per record); blocks counted without parsing a huge line.
    if head.startswith(b"tsv "):
        parts.append(f"{int(head[4:]):,} blocks")
    first = head.rstrip(b"\n")
    blocks = first.count(b'{"id":') or first.count(b'{"block":')
    if len(first) > (1 << 20):
        first = first[: 1 << 10]
    try:
        rec = json.loads(first) if first.startswith(b"{") else None
    except ValueError:
        rec = {}
    if rec is not None:
        if blocks:
            parts.append(f"{blocks:,} blocks")
        if "title" in rec:
            title = (rec.get("title") or "")[:24]
            parts.append(f"title “{title}”")
        r = first.find(b'"repairs":[') if rec == {} else -1
        repairs = rec.get("repairs") or (json.loads(first[r + 10 : first.index(b"]", r) + 1]) if r >= 0 else None)
        if repairs:
            parts.append("repairs " + ",".join(repairs))
        if "error" in rec:
            parts.append("error record")
    elif size:
        parts.append(f"{size:,} bytes out")
    for m in msgs[:3]:
        m = m.replace(OUT + "/", "")
        parts.append("stderr: " + (m if len(m) < 140 else m[:137] + "…"))
    return "; ".join(parts).replace("|", "\\|")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/parcels")
    ap.add_argument("--only", help="run only inputs whose name contains this")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    cases = make_inputs()
    commands = [
        ("divide", ["divide"]),
        ("features --view stylistic --format tsv", ["features", "--view", "stylistic", "--format", "tsv", "--threads", "1"]),
        ("extract --no-blocks", ["extract", "--no-blocks", "--threads", "1"]),
    ]
    print("| input | command | wall (s) | max RSS (MB) | outcome |")
    print("|---|---|---:|---:|---|")
    for name, path, what in cases:
        if args.only and args.only not in name:
            continue
        runs = commands
        if name == "dir/":
            runs = commands[:1] + [("extract --model model.json (a named pipe)", ["extract", "--model", os.path.join(OUT, "model.json")])]
            targets = {"divide": [path], "extract --model model.json (a named pipe)": [os.path.join(OUT, "dir", "ok.html")]}
        for label, argv in runs:
            target = targets[label] if name == "dir/" else [path]
            wall, rss, rc, size, head, msgs = run([binary] + argv + target)
            print(f"| {what} | `{label}` | {wall:.2f} | {rss:.0f} | {outcome(rc, size, head, msgs)} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
