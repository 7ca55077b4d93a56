#!/usr/bin/env python3
"""Main-text extraction of parcels against the Python extractors people use.

    python3 benches/peers/extract_peers.py [--venv DIR] [--corpora DIR] [--pages-limit N]
        [--corpus dragnet|l3s|wcxb ...] [--tools a,b,…|all] [--peer-input bytes|text]
        [--l3s-cv FILE.jsonl | --reuse] [--cv-extra CORPUS:NAME=FILE.jsonl ...]
        [--model NAME=PATH ...] [--reps N] [--out DIR]

A full run of Dragnet and L3S (1,381 + 496 pages) takes about 5-7 minutes on 2 cores; WCXB dev
(1,497 larger pages) adds about as much again.

rs-trafilatura (crates.io, Rust, MIT OR Apache-2.0) is run by a small program of ours,
`benches/peers/rs-trafilatura/` (its own Cargo workspace and lock file, built once into
`target/peers-rs`), as a whole process over the page files with default `Options`, timed like
parcels. It was developed on WCXB: its WCXB dev figures are not on pages unseen by it.

WCXB dev (`wcxb-dev/html/ID.html.gz`, gold `ground-truth/ID.json`) is scored with WCXB's own
metric, re-implemented from its `evaluate.py` (see `wcxb_word_scores`): lower-cased `\\w+`
tokens, multiset overlap, per-page precision, recall and F1 averaged over all pages (empty
extraction or failure: 0), per page type as its script reads the type; the with/without snippet
rates; title F1 as below; "author found" (word-bag F1 with the gold author ≥ 0.5) and "date
found" (the date, normalised to YYYY-MM-DD, equals the gold publish date) over the pages whose
gold has one. parcels' WCXB quality row is the default model (never trained on WCXB); models
cross-validated by domain come in with `--cv-extra wcxb:NAME=FILE`.

Peers: trafilatura, readability-lxml, jusText, boilerpy3 (ArticleExtractor) and resiliparse
(`extract_plain_text(..., main_content=True)`), at pinned versions in a virtual environment that
the script creates (default `target/peers-venv`) and then re-executes itself in.

Corpora (read in place, never copied; default `../shared/corpora`):

* Dragnet: `dragnet/input/N.html`, gold `dragnet/GoldStandard/N.txt`. The gold files come in
  three encodings (UTF-8; UTF-16 with BOM; Windows-1252), decoded by BOM, then strict UTF-8, then
  cp1252. The gold is cut at the first comment-marker line: the corpus README names
  `!@#$%^&*()  COMMENTS`, but the files also spell it with one or three spaces, a tab, typos
  (`COMMNENTS`, `!!@#…`, `!@#$%$%^…`), `CORRECTED`, or the bare `!@#$%^&*()`; every variant
  contains `!@#$%`, which is what is searched for. Comments are not main text. No gold titles.
* L3S-GN1: extract from `original/UUID.html`; the gold comes from `annotated/UUID.html`. Every
  text node takes the label of its innermost enclosing `x-nc-selN` element (spans nest: e.g.
  sel0 inside sel2, sel3 inside sel2), so nothing is counted twice; subtrees of `x-nc-invisible`
  elements and of script/style/noscript/template/head/title are skipped. Gold main text = text
  labelled sel2 (full text) in document order, gold title = text labelled sel1 (headline).
  Text runs are concatenated as a browser would render them: block elements and `<br>` break
  lines, inline boundaries do not, and text of another label between two sel2 runs separates
  them. The annotated files are UTF-8 without a charset declaration and are parsed as such.

Metric: the one of Zyte's article-extraction-benchmark, replicated from its `evaluate.py`
(github.com/scrapinghub/article-extraction-benchmark, commit 11b407d4, functions
`string_shingle_matching`, `_ngrams`, `_tokenize`, `precision_score`, `recall_score`,
`metrics_from_tp_fp_fns`):

* tokens: `re.findall(r'\\w+', text)` (Unicode; NOT lower-cased: the benchmark compiles the
  pattern with IGNORECASE, which does not change what `\\w+` matches, and keeps the case);
* shingles: word 4-grams as a multiset (Counter); a text of 1-3 tokens gives one shingle of all
  its tokens, an empty text none;
* per page: tp = Σ min(gold count, extracted count), fp = Σ excess extracted, fn = Σ excess gold,
  normalised by tp+fp+fn (does not change the ratios); precision = tp/(tp+fp), recall =
  tp/(tp+fn) (1.0 when fp = fn = 0);
* precision is averaged over the pages whose extraction is non-empty (tp+fp > 0), recall over
  the pages whose gold is non-empty (tp+fn > 0); F1 = harmonic mean of the two means.
  Consequences, exactly as in the benchmark: an empty extraction (or a failure, treated as
  empty) costs recall 0 on that page but does not enter the precision mean; a page with empty
  gold enters only the precision mean (0 if anything was extracted); a page where both are
  empty enters neither. The bootstrap confidence intervals of `evaluate.py` are not computed.

Title F1: token F1 between the bags (multisets) of lower-cased `\\w+` words of the extracted
title and the gold headline, averaged over the pages with a non-empty gold headline (L3S only);
a missing title scores 0. jusText and resiliparse give no title.

Settings (what a user would write for main text):
* trafilatura `bare_extraction(html, include_comments=False, include_tables=True,
  with_metadata=True)`: its text is token-identical to `extract(html, include_comments=False,
  include_tables=True)`, and the metadata gives the title. Metadata (title, date, author) costs
  about half of trafilatura's time; parcels' time includes date and bylines too. The row
  `trafilatura-text` (`--tools all`, left out by default to keep a full run short) times plain
  `extract()` without metadata.
* readability `Document(html)`, `.summary()` turned into text (block elements break lines) and
  `.title()` (which re-parses the page: that is the API's cost). With bytes, readability looks
  for a declared charset and otherwise runs chardet, which makes it much slower on pages
  without a declaration.
* jusText `justext(html, get_stoplist('English'))`, the non-boilerplate paragraphs.
* boilerpy3 `ArticleExtractor().get_doc(str)`, `.content` and `.title`; with its default
  raise_on_failure=True its parser fails on some malformed pages (counted as failures).
* resiliparse `HTMLTree.parse_from_bytes(html, detect_encoding(html))` (as its documentation shows;
  `parse_from_bytes` alone does not detect) then `extract_plain_text(tree, main_content=True,
  comments=False)`: `comments=False` is the counterpart of trafilatura's
  `include_comments=False` (resiliparse's default keeps comment sections as main content).

Peer input: with `--peer-input bytes` (default) every peer gets the page's bytes and decodes them
itself (boilerpy3 takes only text: it gets the bytes decoded by BOM, strict UTF-8, the `<meta>`
charset, then cp1252). With `--peer-input text` every peer gets that same decoded text instead
(resiliparse via `HTMLTree.parse`). Worth knowing: many L3S originals are stored as UTF-8 while
still declaring ISO-8859-1 or windows-1252; tools that trust the declaration produce mojibake on
them. parcels (valid UTF-8 wins over a legacy declaration) and trafilatura (UTF-8 first) do not.
The JSON counts pages whose output shows mojibake that the gold does not.

parcels: Dragnet quality from `parcels extract` with the default model (never trained on Dragnet
pages; its IDF table was counted over the Dragnet inputs, without gold) and with every
`--model NAME=PATH`. L3S quality only from a cross-validated run (`--l3s-cv FILE.jsonl`, the
output of `parcels cross-extract configs/l3s-extract.toml`, one model per fold, folds by site);
without `--l3s-cv` the script runs that command itself, or reuses target/peers/l3s-cv.jsonl with
`--reuse`. A JSONL whose records carry no `fold` is reported as NOT cross-validated. Pages
with an error record (`{"path", "error"}`) or absent from parcels' output count as failures
(empty extraction).

Throughput: every peer is timed over the corpus's pages already in memory as bytes (no disk
reads, no gold parsing), `time.perf_counter`, one process, after an untimed warm-up pass over
the first 20 pages (trafilatura's date search builds dateparser's per-locale regexes lazily:
seconds on the first page that needs them; later first encounters stay in the timing, use
`--reps 3` to drop them).
parcels is timed as the whole `parcels extract` process given the same page files (as paths:
the same pages in --pages-limit runs), stdout to a temporary file, once with
RAYON_NUM_THREADS=1 (comparable to the single-threaded peers; includes process start, model
load and reading the files, which handicaps parcels slightly) and once with all cores. Each
timing runs `--reps` times; the median counts. On L3S the parcels speed is that of the default
model (cross-extract's time includes training).

Writes `peers.md` (table, date, versions, machine, metric) and `peers.json` (all figures, per-page
P/R per tool) atomically under `--out` (default reports/extraction), and prints the table.
"""

import argparse
import datetime
import json
import logging
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_VENV = ROOT / "target" / "peers-venv"
DEFAULT_CORPORA = ROOT.parent / "shared" / "corpora"
DEFAULT_OUT = ROOT / "reports" / "extraction"
DEFAULT_CV = ROOT / "target" / "peers" / "l3s-cv.jsonl"
CV_CONFIG = "configs/l3s-extract.toml"
PINS = {
    "trafilatura": "2.3.1",
    "readability-lxml": "0.9",
    "jusText": "3.0.2",
    "boilerpy3": "1.0.7",
    "Resiliparse": "2.0.1",
    "lxml_html_clean": "0.4.6",
    "lxml": "6.1.3",
}
REEXEC_FLAG = "PARCELS_PEERS_IN_VENV"
WARM_UP_PAGES = 20
PEER_NAMES = ["trafilatura", "trafilatura-text", "readability", "justext", "boilerpy3",
              "resiliparse", "rs-trafilatura"]
DEFAULT_PEERS = [name for name in PEER_NAMES if name != "trafilatura-text"]  # time budget
# rs-trafilatura is a Rust crate: a small program of ours (benches/peers/rs-trafilatura) runs it
# as a whole process over the page files, timed like parcels.
PROCESS_PEERS = {"rs-trafilatura"}
RS_TRAFILATURA_DIR = Path(__file__).resolve().parent / "rs-trafilatura"
RS_TRAFILATURA_BIN = ROOT / "target" / "peers-rs" / "release" / "rs-trafilatura-peer"
CORPUS_NAMES = ["dragnet", "l3s", "wcxb"]
WCXB_TYPES = ["article", "forum", "product", "collection", "listing", "documentation",
              "service"]


def progress(msg):
    print(f"[peers] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Environment: the pinned virtual environment, then re-execution inside it.

def installed_versions(python):
    """The versions of the pinned distributions in the environment of `python` (None: absent)."""
    code = ("import importlib.metadata as m, json, sys\n"
            "out = {}\n"
            "for d in sys.argv[1:]:\n"
            "    try: out[d] = m.version(d)\n"
            "    except m.PackageNotFoundError: out[d] = None\n"
            "print(json.dumps(out))")
    proc = subprocess.run([str(python), "-c", code, *PINS], capture_output=True, text=True)
    return json.loads(proc.stdout) if proc.returncode == 0 else {}


def ensure_venv(venv):
    """Creates `venv` with the pinned peers when absent or different; returns its python."""
    python = venv / "bin" / "python"
    if not python.exists():
        progress(f"creating virtual environment {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if installed_versions(python) != PINS:
        # pip 23.2 fails resolving lxml[html-clean] (AssertionError): upgrade it first.
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
                       check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet",
                        *(f"{d}=={v}" for d, v in PINS.items())], check=True)
        found = installed_versions(python)
        if found != PINS:
            sys.exit(f"extract_peers: {venv} does not hold the pinned versions: {found}")
    return python


def reexec_in_venv(venv, script=None):
    """Replaces this process with the same command (`script`, default this file) run by the
    venv's python (once)."""
    if Path(sys.prefix).resolve() == venv.resolve():
        return
    if os.environ.get(REEXEC_FLAG):
        sys.exit(f"extract_peers: re-executed, but sys.prefix {sys.prefix} is not {venv}")
    python = ensure_venv(venv)
    env = dict(os.environ, **{REEXEC_FLAG: "1"})
    os.execve(str(python), [str(python), str(Path(script or __file__).resolve()), *sys.argv[1:]], env)


# --------------------------------------------------------------------------------------------
# Decoding and HTML → text.

BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([-\w.:]+)""", re.I)
MOJIBAKE = re.compile("â€|Ã[\u0080-\u00bf]|Â[\u00a0-\u00bf]")


def decode_text(data, declared=None):
    """Bytes → str: BOM, strict UTF-8, the `declared` encoding, then cp1252 (never fails)."""
    for bom, enc in BOMS:
        if data.startswith(bom):
            return data.decode(enc, "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if declared:
        try:
            return data.decode(declared, "replace")
        except LookupError:
            pass
    return data.decode("cp1252", "replace")


def decode_html(data):
    """A page's bytes → str, like parcels: valid UTF-8 wins over a legacy <meta> charset."""
    m = META_CHARSET.search(data[:16384])
    return decode_text(data, m.group(1).decode("ascii", "replace") if m else None)


BLOCK_TAGS = frozenset("""address article aside blockquote body br caption center dd details
    dialog div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr html
    legend li main nav ol option p pre section summary table tbody td tfoot th thead tr ul
    """.split())
SKIP_TAGS = frozenset("head script style noscript template title".split())
BREAK = object()


def text_runs(root, label_of=lambda el: None, skip_class=None):
    """Yields (label, text) for every text node under `root` in document order, where label is
    the innermost `label_of(element)` that is not None, and (None, BREAK) at block boundaries.
    Skips comments, SKIP_TAGS and elements with class `skip_class`."""
    from lxml import etree
    labels = []          # (element, label) of the open labelled elements
    skipping = None      # the element whose subtree is skipped
    current = lambda: labels[-1][1] if labels else None  # noqa: E731
    for event, el in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        if event in ("comment", "pi"):
            if skipping is None and el.tail:
                yield current(), el.tail
            continue
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if event == "start":
            if skipping is not None:
                continue
            classes = (el.get("class") or "").split()
            if tag in SKIP_TAGS or (skip_class and skip_class in classes):
                skipping = el
                continue
            if tag in BLOCK_TAGS:
                yield None, BREAK
            label = label_of(el)
            if label is not None:
                labels.append((el, label))
            if el.text:
                yield current(), el.text
        else:
            if skipping is el:
                skipping = None
            elif skipping is not None:
                continue
            else:
                if labels and labels[-1][0] is el:
                    labels.pop()
                if tag in BLOCK_TAGS:
                    yield None, BREAK
            if el.tail and el is not root:
                yield current(), el.tail


def normalise_lines(text):
    """Collapses white space within lines, drops empty lines."""
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def runs_text(runs, wanted):
    """Concatenates the runs labelled `wanted`; a block boundary or text of another label
    between two of them becomes a line break (white space of another label: a space)."""
    out, sep = [], ""
    for label, text in runs:
        if text is BREAK:
            sep = "\n"
        elif label == wanted:
            if sep and out:
                out.append(sep)
            out.append(text)
            sep = ""
        elif text.strip():
            sep = "\n"
        elif not sep:
            sep = " "
    return normalise_lines("".join(out))


def element_text(root):
    """The rendered text of an lxml element, one line per block."""
    return runs_text(list(text_runs(root, label_of=lambda el: 0)), 0)


# --------------------------------------------------------------------------------------------
# Corpora and gold.

COMMENT_MARKER = re.compile(r"!@#\$%")


def dragnet_pages(corpora, limit):
    """The Dragnet pages (sorted by file name) with their gold main text; and gold notes."""
    base = corpora / "dragnet"
    inputs = sorted((base / "input").glob("*.html"))
    notes = Counter(inputs=len(inputs), missing_gold=0, comments_cut=0, empty_gold=0)
    pages = []
    for path in inputs:
        if limit and len(pages) >= limit:
            break
        gold_path = base / "GoldStandard" / (path.stem + ".txt")
        if not gold_path.is_file():
            notes["missing_gold"] += 1
            continue
        raw = gold_path.read_bytes()
        notes["gold_" + gold_encoding(raw)] += 1
        gold = decode_text(raw).replace("\r\n", "\n").replace("\r", "\n")
        m = COMMENT_MARKER.search(gold)
        if m:
            notes["comments_cut"] += 1
            gold = gold[:gold.rfind("\n", 0, m.start()) + 1]
        gold = normalise_lines(gold)
        if not tokenize(gold):
            notes["empty_gold"] += 1
        pages.append(dict(key=path.stem, path=path, html=path.read_bytes(), gold=gold,
                          title=None, comments_cut=bool(m)))
    return pages, dict(notes)


def gold_encoding(raw):
    for bom, enc in BOMS:
        if raw.startswith(bom):
            return enc.replace("-sig", "") + "-bom"
    try:
        raw.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        return "cp1252"


SEL_CLASS = re.compile(r"^x-nc-sel(\d)$")


def sel_label(el):
    for cls in (el.get("class") or "").split():
        m = SEL_CLASS.match(cls)
        if m:
            return int(m.group(1))
    return None


def l3s_gold(annotated):
    """(gold main text, gold title) of an annotated L3S-GN1 page (UTF-8 bytes)."""
    from lxml import html
    root = html.document_fromstring(annotated, parser=html.HTMLParser(encoding="utf-8"))
    runs = list(text_runs(root, label_of=sel_label, skip_class="x-nc-invisible"))
    return runs_text(runs, 2), " ".join(runs_text(runs, 1).split())


def l3s_pages(corpora, limit):
    base = corpora / "l3s-gn1"
    originals = sorted((base / "original").glob("*.html"))
    notes = Counter(inputs=len(originals), missing_gold=0, empty_gold=0, empty_gold_title=0)
    pages = []
    for path in originals:
        if limit and len(pages) >= limit:
            break
        annotated = base / "annotated" / path.name
        if not annotated.is_file():
            notes["missing_gold"] += 1
            continue
        gold, title = l3s_gold(annotated.read_bytes())
        if not tokenize(gold):
            notes["empty_gold"] += 1
        if not tokenize(title):
            notes["empty_gold_title"] += 1
        pages.append(dict(key=path.stem, path=path, html=path.read_bytes(), gold=gold,
                          title=title))
    out = dict(notes)
    out["empty_gold_pages"] = [p["key"] for p in pages if not tokenize(p["gold"])]
    return pages, out


def wcxb_page_type(data):
    """The page type as WCXB's evaluate.py reads it: `_internal.page_type.primary` (a string is
    taken as is, absent means article), `category` counted as `collection`."""
    kind = ((data.get("_internal") or {}).get("page_type")) or {}
    if isinstance(kind, dict):
        kind = kind.get("primary", "article")
    elif not isinstance(kind, str):
        kind = "article"
    return "collection" if kind == "category" else kind


def wcxb_pages(corpora, limit):
    """The WCXB dev pages (sorted by file id) with gold main text, title, author, date, page
    type, domain and the with/without snippets of `ground-truth/ID.json`."""
    import gzip
    base = corpora / "wcxb-dev"
    meta = json.loads((base / "metadata.json").read_text(encoding="utf-8"))["files"]
    inputs = sorted((base / "html").glob("*.html.gz"))
    notes = Counter(inputs=len(inputs), missing_gold=0, empty_gold=0, gold_author=0,
                    gold_date=0)
    pages = []
    for path in inputs:
        if limit and len(pages) >= limit:
            break
        key = path.name.split(".")[0]
        gold_path = base / "ground-truth" / f"{key}.json"
        if not gold_path.is_file():
            notes["missing_gold"] += 1
            continue
        data = json.loads(gold_path.read_text(encoding="utf-8"))
        gt = data.get("ground_truth")
        if not isinstance(gt, dict):
            notes["missing_gold"] += 1
            continue
        gold = gt.get("main_content") or ""
        if not tokenize(gold):
            notes["empty_gold"] += 1
        author, date = gt.get("author") or None, gt.get("publish_date") or None
        notes["gold_author"] += bool(author)
        notes["gold_date"] += bool(date)
        pages.append(dict(key=key, path=path, html=gzip.decompress(path.read_bytes()),
                          gold=gold, title=gt.get("title") or None, author=author, date=date,
                          page_type=wcxb_page_type(data),
                          domain=(meta.get(key) or {}).get("domain"),
                          with_=gt.get("with") or [], without=gt.get("without") or []))
    return pages, dict(notes)


CORPUS_PAGES = {"dragnet": lambda c, n: dragnet_pages(c, n), "l3s": lambda c, n: l3s_pages(c, n),
                "wcxb": lambda c, n: wcxb_pages(c, n)}


# --------------------------------------------------------------------------------------------
# Metric (article-extraction-benchmark, evaluate.py; see the module docstring).

TOKEN_RE = re.compile(r"\w+", re.UNICODE | re.MULTILINE | re.IGNORECASE | re.DOTALL)


def tokenize(text):
    return TOKEN_RE.findall(text or "")


def shingles(text, n=4):
    tokens = tokenize(text)
    return Counter(tuple(tokens[i:i + n]) for i in range(max(1, len(tokens) - n + 1))
                   if tokens[i:i + n])


def shingle_matching(gold, pred):
    """(tp, fp, fn) over 4-gram shingle multisets, normalised to sum 1 (evaluate.py's
    string_shingle_matching)."""
    g, p = shingles(gold), shingles(pred)
    tp = fp = fn = 0.0
    for key in g.keys() | p.keys():
        gc, pc = g.get(key, 0), p.get(key, 0)
        tp += min(gc, pc)
        fp += max(0, pc - gc)
        fn += max(0, gc - pc)
    s = tp + fp + fn
    return (tp / s, fp / s, fn / s) if s > 0 else (tp, fp, fn)


def precision_score(tp, fp, fn):
    if fp == fn == 0:
        return 1.0
    if tp == fp == 0:
        return 0.0
    return tp / (tp + fp)


def recall_score(tp, fp, fn):
    if fp == fn == 0:
        return 1.0
    if tp == fn == 0:
        return 0.0
    return tp / (tp + fn)


def page_scores(tp_fp_fn):
    """Per-page (precision or None, recall or None): None where evaluate.py leaves the page out
    of that mean."""
    tp, fp, fn = tp_fp_fn
    p = precision_score(tp, fp, fn) if tp + fp > 0 else None
    r = recall_score(tp, fp, fn) if tp + fn > 0 else None
    return p, r


def corpus_scores(per_page):
    ps = [p for p, _ in per_page if p is not None]
    rs = [r for _, r in per_page if r is not None]
    p = statistics.mean(ps) if ps else float("nan")
    r = statistics.mean(rs) if rs else float("nan")
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return dict(precision=p, recall=r, f1=f1, precision_pages=len(ps), recall_pages=len(rs))


def title_f1(pred, gold):
    g, p = Counter(w.lower() for w in tokenize(gold)), Counter(w.lower() for w in tokenize(pred))
    overlap = sum((g & p).values())
    return 2 * overlap / (sum(g.values()) + sum(p.values())) if overlap else 0.0


# WCXB's own metric, re-implemented from its evaluate.py (github.com/Murrough-Foley/
# web-content-extraction-benchmark, functions `tokenize`, `word_f1`, `snippet_check`): lower-cased
# `\w+` tokens, multiset overlap, per-page P/R/F1 averaged over ALL pages (an empty extraction or
# a failure scores 0/0/0; a page with empty gold scores 1 if nothing is extracted, else 0).

def wcxb_tokens(text):
    return re.findall(r"\w+", (text or "").lower())


def wcxb_word_scores(pred, gold):
    """(precision, recall, F1) of one page, as WCXB's `word_f1`."""
    p, g = wcxb_tokens(pred), wcxb_tokens(gold)
    if not g:
        return (1.0, 1.0, 1.0) if not p else (0.0, 0.0, 0.0)
    if not p:
        return 0.0, 0.0, 0.0
    overlap = sum((Counter(p) & Counter(g)).values())
    precision, recall = overlap / len(p), overlap / len(g)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def snippet_rate(text, snippets):
    """Share of `snippets` found in `text` (case-insensitive substring), as WCXB's
    `snippet_check`; 1.0 without snippets."""
    if not snippets:
        return 1.0
    lower = (text or "").lower()
    return sum(1 for s in snippets if s.lower() in lower) / len(snippets)


AUTHOR_FOUND_F1 = 0.5


def author_found(pred, gold):
    """An author counts as found when the F1 of the lower-cased `\w+` word bags of the
    extracted and gold author is at least 0.5 ("Dylan Bailey" for "Dylan Bailey, MS, RD, FAND"
    is found; "Danielle DeSiato" for three named authors is not)."""
    return title_f1(pred or "", gold) >= AUTHOR_FOUND_F1


ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})(?:-(\d{1,2}))?(?!\d)")
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
MONTH_DAY_YEAR = re.compile(MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", re.I)
DAY_MONTH_YEAR = re.compile(r"(?<!\d)(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + MONTH + r",?\s+(\d{4})", re.I)
YEAR_MONTH_DAY = re.compile(r"(?<!\d)(\d{4})\s+" + MONTH + r"\s+(\d{1,2})(?!\d)", re.I)
SLASH_DATE = re.compile(r"(?<!\d)(\d{1,2})/(\d{1,2})/(\d{4})(?!\d)")


def normalise_date(text):
    """A tool's date → `YYYY-MM-DD` (or `YYYY-MM`), or None: the first date written in the text,
    the same rules for every tool. Read in order: ISO `2025-09-04`; `September 4, 2025`;
    `4 September 2025`; `2025 Sep 4`; `9/4/2025` (month first, as US sites write it). Relative
    dates ("6 days ago") are not read."""
    if not text:
        return None
    text = str(text)
    m = ISO_DATE.search(text)
    if m:
        y, mo, d = m.groups()
        return f"{y}-{int(mo):02d}" + (f"-{int(d):02d}" if d else "")
    found = []
    for pattern, order in ((MONTH_DAY_YEAR, "mdy"), (DAY_MONTH_YEAR, "dmy"),
                           (YEAR_MONTH_DAY, "ymd"), (SLASH_DATE, "MDY")):
        for m in pattern.finditer(text):
            parts = dict(zip(order, m.groups()))
            month = (MONTHS.index(parts["m"][:3].lower()) + 1 if "m" in parts
                     else int(parts["M"]))
            day = int(parts.get("d") or parts.get("D"))
            year = int(parts.get("y") or parts.get("Y"))
            if 1 <= month <= 12 and 1 <= day <= 31:
                found.append((m.start(), f"{year:04d}-{month:02d}-{day:02d}"))
    return min(found)[1] if found else None


def date_found(pred, gold):
    """The extracted date, normalised, equals the gold publish date (a gold `YYYY-MM` matches
    any day of that month)."""
    got = normalise_date(pred)
    return bool(got) and got[:len(gold)] == gold


# --------------------------------------------------------------------------------------------
# Peers: each takes the page (bytes, or str with --peer-input text) → (main text, title|None).

def make_peers(peer_input):
    """name → (extract function, gives a title). A function returns (main text, title) or
    (main text, title, {"author", "date"}) when the tool gives those."""
    logging.disable(logging.CRITICAL)  # trafilatura and readability log every discarded page
    import justext
    import lxml.html
    import trafilatura
    from boilerpy3 import extractors
    from readability import Document
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import detect_encoding
    from resiliparse.parse.html import HTMLTree

    stoplist = justext.get_stoplist("English")
    as_text = peer_input == "text"

    def prepare(page):
        return decode_html(page) if as_text else page

    def run_trafilatura(page):
        doc = trafilatura.bare_extraction(prepare(page), include_comments=False,
                                          include_tables=True, with_metadata=True)
        if doc is None:
            return "", None
        return doc.text or "", doc.title, dict(author=doc.author, date=doc.date)

    def run_trafilatura_text(page):
        return trafilatura.extract(prepare(page), include_comments=False,
                                   include_tables=True) or "", None

    def run_readability(page):
        doc = Document(prepare(page))
        summary = doc.summary()
        text = element_text(lxml.html.fromstring(summary)) if summary.strip() else ""
        return text, doc.title()

    def run_justext(page):
        paragraphs = justext.justext(prepare(page), stoplist)
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate), None

    def run_boilerpy3(page):
        doc = extractors.ArticleExtractor().get_doc(decode_html(page) if isinstance(page, bytes)
                                                    else page)
        return doc.content or "", doc.title

    def run_resiliparse(page):
        if as_text:
            tree = HTMLTree.parse(decode_html(page))
        else:
            tree = HTMLTree.parse_from_bytes(page, detect_encoding(page))
        return extract_plain_text(tree, main_content=True, comments=False), None

    return {
        "trafilatura": (run_trafilatura, True),
        "trafilatura-text": (run_trafilatura_text, False),
        "readability": (run_readability, True),
        "justext": (run_justext, False),
        "boilerpy3": (run_boilerpy3, True),
        "resiliparse": (run_resiliparse, False),
    }


def describe(error):
    """`Type: message`, with the cause of a re-raised exception (boilerpy3 wraps its parser's)."""
    out = f"{type(error).__name__}: {error}"
    if error.__cause__ is not None:
        out += f" (from {type(error.__cause__).__name__}: {error.__cause__})"
    return out[:300]


def run_peer(corpus, name, fn, pages, reps):
    """Extracts every page `reps` times; returns the outputs of the first pass and the walls."""
    for page in pages[:WARM_UP_PAGES]:  # untimed: imports, lazily built tables and caches
        try:
            fn(page["html"])
        except Exception:  # noqa: BLE001 - counted below when it matters
            pass
    outputs, walls = {}, []
    for rep in range(max(1, reps)):
        start = time.perf_counter()
        for i, page in enumerate(pages):
            t0 = time.perf_counter()
            try:
                got = fn(page["html"])
                text, title, meta = got[0], got[1], (got[2] if len(got) > 2 else {})
                error = None
            except Exception as e:  # noqa: BLE001 - a peer must not stop the run
                text, title, meta, error = "", None, {}, describe(e)
            if rep == 0:
                outputs[page["key"]] = dict(text=text or "", title=title, error=error,
                                            author=meta.get("author"), date=meta.get("date"),
                                            seconds=time.perf_counter() - t0)
            if (i + 1) % 250 == 0:
                progress(f"{corpus} {name}: {i + 1}/{len(pages)} pages"
                         + (f" (rep {rep + 1})" if reps > 1 else ""))
        walls.append(time.perf_counter() - start)
    failures = sum(1 for o in outputs.values() if o["error"])
    progress(f"{corpus} {name}: done, {len(pages) / statistics.median(walls):.1f} pages/s, "
             f"{failures} failures")
    return outputs, walls


# --------------------------------------------------------------------------------------------
# parcels.

def parcels_binary(path):
    if not path.exists():
        progress(f"{path} missing: cargo build --release")
        subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    return path


def parcels_version(binary):
    proc = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    if proc.returncode == 0 and proc.stdout.strip():
        return proc.stdout.strip().removeprefix("parcels ")
    m = re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "Cargo.toml").read_text(), re.M)
    return f"{m.group(1)} (Cargo.toml)" if m else "unknown"


def parse_records(lines):
    """parcels JSON lines → {file stem: record}. Callers split on "\\n" only: JSON writers leave
    U+2028/U+2029 unescaped in strings, where `str.splitlines` would break a record. A page that failed has a record
    `{"path", "error"}` (and `fold` from cross-extract) instead of the article."""
    out = {}
    for line in lines:
        line = line.strip()
        if line:
            record = json.loads(line)
            if record.get("path"):
                out[Path(record["path"]).name.split(".")[0]] = record
    return out


def run_parcels(binary, paths, model, threads, reps, label):
    """Times `parcels extract` over `paths`; returns ({stem: record}, walls, stderr lines)."""
    cmd = [str(binary), "extract"] + (["--model", str(model)] if model else [])
    # 2: some pages failed (listed on stderr); the batch went on.
    return run_process(cmd, paths, threads, reps, label, ok=(0, 2))


def rs_trafilatura_binary():
    """Builds the rs-trafilatura peer program when absent; returns its path."""
    if not RS_TRAFILATURA_BIN.exists():
        progress("building the rs-trafilatura peer (cargo, once)")
        subprocess.run(["cargo", "build", "--release", "--locked", "--manifest-path",
                        str(RS_TRAFILATURA_DIR / "Cargo.toml"), "--target-dir",
                        str(ROOT / "target" / "peers-rs")], check=True)
    return RS_TRAFILATURA_BIN


def rs_trafilatura_version():
    lock = (RS_TRAFILATURA_DIR / "Cargo.lock").read_text(encoding="utf-8")
    m = re.search(r'name = "rs-trafilatura"\nversion = "([^"]+)"', lock)
    return m.group(1) if m else "unknown"


def run_process(cmd, paths, threads, reps, label, ok=(0,)):
    """Times a whole extraction process `cmd` over the page files `paths`, `reps` times, with
    RAYON_NUM_THREADS=`threads` (None: all cores); returns ({stem: record} of the first run,
    walls, stderr lines of the first run). An exit status outside `ok` stops the benchmark."""
    env = dict(os.environ)
    env.pop("RAYON_NUM_THREADS", None)
    if threads:
        env["RAYON_NUM_THREADS"] = str(threads)
    walls, records, errors = [], {}, []
    for rep in range(max(1, reps)):
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            start = time.perf_counter()
            proc = subprocess.run(cmd + [str(p) for p in paths], cwd=ROOT, env=env, stdout=out,
                                  stderr=err)
            walls.append(time.perf_counter() - start)
            if proc.returncode not in ok:
                err.seek(0)
                sys.exit(f"extract_peers: {label}: {' '.join(cmd[:4])} … failed "
                         f"({proc.returncode}):\n" + err.read().decode("utf-8", "replace")[-2000:])
            if rep == 0:
                out.seek(0)
                records = parse_records(out.read().decode("utf-8").split("\n"))
                err.seek(0)
                errors = err.read().decode("utf-8", "replace").splitlines()
    done = sum(1 for r in records.values() if "main_text" in r)
    progress(f"{label}: {len(paths) / statistics.median(walls):.1f} pages/s "
             f"({'RAYON_NUM_THREADS=' + str(threads) if threads else 'all cores'}), "
             f"{len(paths) - done} failures")
    return records, walls, errors


def parcels_outputs(records, pages):
    """Records → the same output dicts as the peers (error record or absent page = failure,
    empty extraction)."""
    out = {}
    for page in pages:
        r = records.get(page["key"])
        if r is None or "main_text" not in r:
            error = (r or {}).get("error") or "no record in parcels output"
            out[page["key"]] = dict(text="", title=None, error=str(error)[:300], seconds=None,
                                    fold=(r or {}).get("fold"))
        else:
            out[page["key"]] = dict(text=r.get("main_text") or "", title=r.get("title"),
                                    author=r.get("reporter"), date=r.get("date"),
                                    error=None, seconds=None, fold=r.get("fold"))
    return out


def l3s_cv_records(args, binary):
    """The cross-validated L3S records: --l3s-cv, or target/peers/l3s-cv.jsonl (reused with
    --reuse, else made by `parcels cross-extract`)."""
    path = args.l3s_cv
    if path is None:
        path = DEFAULT_CV
        if not (args.reuse and path.is_file()):
            probe = subprocess.run([str(binary), "cross-extract", "--help"], capture_output=True)
            if probe.returncode != 0:
                sys.exit("extract_peers: this parcels has no `cross-extract` subcommand; give "
                         "--l3s-cv FILE.jsonl (or leave out L3S with --corpus dragnet)")
            path.parent.mkdir(parents=True, exist_ok=True)
            progress(f"running parcels cross-extract {CV_CONFIG} (trains one model per fold)")
            subprocess.run([str(binary), "cross-extract", CV_CONFIG, "--out", str(path)],
                           cwd=ROOT, check=True)
    with open(path, encoding="utf-8") as f:
        records = parse_records(f)
    cross_validated = bool(records) and all("fold" in r for r in records.values())
    if not cross_validated:
        progress(f"WARNING: {path} has records without `fold`: NOT cross-validated figures")
    return records, path, cross_validated


# --------------------------------------------------------------------------------------------
# Evaluation, table, files.

def evaluate(outputs, pages, has_title):
    """Corpus figures and per-page figures of one tool's outputs."""
    if pages and "page_type" in pages[0]:
        return evaluate_wcxb(outputs, pages)
    per_page, rows = {}, []
    titles = []
    for page in pages:
        o = outputs[page["key"]]
        p, r = page_scores(shingle_matching(page["gold"], o["text"]))
        rows.append((p, r))
        entry = dict(p=p, r=r, tokens=len(tokenize(o["text"])))
        if o.get("seconds") is not None:
            entry["s"] = round(o["seconds"], 5)
        if o.get("error"):
            entry["error"] = o["error"]
        if o.get("fold") is not None:
            entry["fold"] = o["fold"]
        if has_title and page["title"] and tokenize(page["title"]):
            t = title_f1(o.get("title") or "", page["title"])
            titles.append(t)
            entry["title_f1"] = t
        if has_title:
            entry["title"] = o.get("title")
        per_page[page["key"]] = entry
    figures = corpus_scores(rows)
    figures["title_f1"] = statistics.mean(titles) if titles else None
    figures["title_pages"] = len(titles)
    figures["failures"] = sum(1 for o in outputs.values() if o.get("error"))
    figures["empty_outputs"] = sum(1 for page in pages
                                   if not tokenize(outputs[page["key"]]["text"]))
    figures["mojibake_pages"] = sum(1 for page in pages
                                    if MOJIBAKE.search(outputs[page["key"]]["text"])
                                    and not MOJIBAKE.search(page["gold"]))
    figures["per_page"] = per_page
    return figures


def evaluate_wcxb(outputs, pages):
    """WCXB figures of one tool's outputs: its word-level P/R/F1 averaged over all pages and
    per page type, the with/without snippet rates, title F1 (pages with a gold title), and the
    share of pages whose gold names an author (a date) where the tool found it."""
    rows, per_page, by_type = [], {}, {}
    titles, authors, dates = [], [], []
    for page in pages:
        o = outputs[page["key"]]
        p, r, f1 = wcxb_word_scores(o["text"], page["gold"])
        entry = dict(p=round(p, 5), r=round(r, 5), f1=round(f1, 5), type=page["page_type"],
                     domain=page["domain"], tokens=len(wcxb_tokens(o["text"])))
        entry["with"] = snippet_rate(o["text"], page["with_"])
        entry["without"] = snippet_rate(o["text"], page["without"])
        if o.get("seconds") is not None:
            entry["s"] = round(o["seconds"], 5)
        if o.get("error"):
            entry["error"] = o["error"]
        if o.get("fold") is not None:
            entry["fold"] = o["fold"]
        if page["title"] and wcxb_tokens(page["title"]):
            entry["title_f1"] = title_f1(o.get("title") or "", page["title"])
            titles.append(entry["title_f1"])
        if page["author"]:
            entry["author_found"] = author_found(o.get("author"), page["author"])
            authors.append(entry["author_found"])
        if page["date"]:
            entry["date_found"] = date_found(o.get("date"), page["date"])
            dates.append(entry["date_found"])
        rows.append(entry)
        by_type.setdefault(page["page_type"], []).append(entry)
        per_page[page["key"]] = entry
    mean = lambda xs: statistics.mean(xs) if xs else None  # noqa: E731
    figures = dict(
        precision=mean([e["p"] for e in rows]), recall=mean([e["r"] for e in rows]),
        f1=mean([e["f1"] for e in rows]),
        with_rate=mean([e["with"] for e in rows]), without_rate=mean([e["without"] for e in rows]),
        per_type={t: dict(pages=len(es), f1=mean([e["f1"] for e in es]),
                          precision=mean([e["p"] for e in es]),
                          recall=mean([e["r"] for e in es]))
                  for t, es in sorted(by_type.items())},
        title_f1=mean(titles), title_pages=len(titles),
        author_found=mean([float(x) for x in authors]), author_pages=len(authors),
        date_found=mean([float(x) for x in dates]), date_pages=len(dates),
        failures=sum(1 for o in outputs.values() if o.get("error")),
        empty_outputs=sum(1 for page in pages if not wcxb_tokens(outputs[page["key"]]["text"])),
    )
    figures["per_page"] = per_page
    return figures


def fmt(x, digits=3):
    return "–" if x is None or x != x else f"{x:.{digits}f}"


def speed_cells(row, base):
    if row.get("pages_per_s") is None:
        return "–", "–"
    pps = f"{row['pages_per_s']:.1f}"
    ratio = f"{row['pages_per_s'] / base:.2f}" if base else "–"
    if row.get("pages_per_s_all") is not None:
        pps += f" · all cores {row['pages_per_s_all']:.1f}"
        if base:
            ratio += f" · {row['pages_per_s_all'] / base:.2f}"
    return pps, ratio


def markdown_table(results):
    lines = ["| corpus | tool | pages | failures | main-text P | R | F1 | title F1 | pages/s "
             "| × trafilatura |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for corpus, c in results["corpora"].items():
        if corpus == "wcxb":
            continue
        base = c["tools"].get("trafilatura", {}).get("pages_per_s")
        for name, t in c["tools"].items():
            pps, ratio = speed_cells(t, base)
            quality = t.get("precision") is not None
            lines.append("| " + " | ".join([
                corpus, t["label"], str(c["pages"]),
                str(t["failures"]) if quality else "–",
                fmt(t.get("precision")), fmt(t.get("recall")), fmt(t.get("f1")),
                fmt(t.get("title_f1")) if t.get("has_title") else "–", pps, ratio]) + " |")
    if not any(c != "wcxb" for c in results["corpora"]):
        lines = []
    if "wcxb" in results["corpora"]:
        lines += (["", ""] if lines else []) + [wcxb_tables(results["corpora"]["wcxb"])]
    return "\n".join(lines)


def wcxb_tables(c):
    """The WCXB table (its metric, title, author, date, speed) and the per-page-type F1 table."""
    base = c["tools"].get("trafilatura", {}).get("pages_per_s")
    types = [t for t in WCXB_TYPES if any(t in (x.get("per_type") or {})
                                          for x in c["tools"].values())]
    lines = ["| WCXB dev | pages | failures | P | R | F1 | with | without | title F1 | author "
             "found | date found | pages/s | × trafilatura |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for t in c["tools"].values():
        pps, ratio = speed_cells(t, base)
        quality = t.get("f1") is not None
        lines.append("| " + " | ".join([
            t["label"], str(c["pages"]), str(t["failures"]) if quality else "–",
            fmt(t.get("precision")), fmt(t.get("recall")), fmt(t.get("f1")),
            fmt(t.get("with_rate")), fmt(t.get("without_rate")),
            fmt(t.get("title_f1")) if t.get("has_title") else "–",
            fmt(t.get("author_found")) if t.get("has_meta") else "–",
            fmt(t.get("date_found")) if t.get("has_meta") else "–", pps, ratio]) + " |")
    counts = {}
    for t in c["tools"].values():
        for name, v in (t.get("per_type") or {}).items():
            counts[name] = v["pages"]
    lines += ["", "| WCXB dev F1 by page type | " + " | ".join(
                  f"{t} ({counts.get(t, 0)})" for t in types) + " |",
              "|---|" + "---:|" * len(types)]
    for t in c["tools"].values():
        if t.get("per_type"):
            lines.append("| " + t["label"] + " | " + " | ".join(
                fmt((t["per_type"].get(x) or {}).get("f1")) for x in types) + " |")
    return "\n".join(lines)


def write_atomic(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def machine():
    model = next((line.split(":", 1)[1].strip() for line in
                  Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    return dict(nproc=os.cpu_count(), cpu=model, load_average=list(os.getloadavg()),
                python=platform.python_version(), system=platform.platform())


METRIC_TEXT = (
    "**Metric** (replicated from `evaluate.py` of Zyte's article-extraction-benchmark). Text is "
    "split into tokens with the Unicode regex `\\w+`, case kept. Each page's gold and extracted "
    "texts become multisets of word 4-grams (a text of 1–3 tokens is one shingle). Per page, "
    "tp = Σ min(gold count, extracted count), fp = the extracted excess, fn = the gold excess; "
    "precision = tp/(tp+fp), recall = tp/(tp+fn). Precision is averaged over the pages with a "
    "non-empty extraction, recall over the pages with a non-empty gold, and F1 is the harmonic "
    "mean of the two means. So an empty extraction or a failure (treated as empty) costs 0 "
    "recall on its page but is left out of the precision mean; a page with empty gold counts "
    "only in the precision mean (0 if anything was extracted). **Title F1**: F1 of the bags of "
    "lower-cased `\\w+` words of the extracted title and the gold headline, averaged over the "
    "pages with a gold headline (L3S only; a missing title scores 0).")


WCXB_METRIC_TEXT = (
    "**WCXB metric** (its `evaluate.py`, re-implemented): lower-cased `\\w+` tokens as "
    "multisets; per page precision = overlap/extracted tokens, recall = overlap/gold tokens, F1 "
    "their harmonic mean (an empty extraction or a failure scores 0; a page with empty gold "
    "scores 1 when nothing is extracted); P, R and F1 are means over all pages, also per page "
    "type. *with*/*without*: share of the gold's must-contain / must-not-contain snippets found "
    "in the extraction (higher / lower is better). **Title F1** as above, over all pages. "
    "**Author found**: word-bag F1 of the extracted and the gold author ≥ 0.5, over the pages "
    "whose gold names one; **date found**: the first date written in the extracted date field "
    "(ISO, `September 4, 2025`, `4 September 2025`, `2025 Sep 4`, `9/4/2025`; relative dates "
    "are not read) equals the gold publish date, over the pages whose gold has one.")


def markdown_report(results, table):
    m, v = results["machine"], results["versions"]
    versions = ", ".join(f"{k} {val}" for k, val in v.items())
    lines = [
        "# Main-text extraction: parcels and Python peers", "",
        f"Measured {results['date']} with `{results['command']}`.", "",
        table, "",
        "pages/s: extraction only, pages already in memory, one process, one thread, median of "
        f"{results['settings']['reps']} run(s). parcels: the whole `parcels extract` process "
        "(start, model load, file reads) with RAYON_NUM_THREADS=1, then with all cores; "
        "\"× trafilatura\" divides by the `trafilatura` row, whose time includes its metadata "
        "extraction (title, date, author; parcels' includes date and bylines too)"
        + ("; `trafilatura-text` is plain `extract()` without metadata."
           if "trafilatura-text" in results["settings"]["tools"] else "."),
    ]
    for corpus, c in results["corpora"].items():
        lines.append("")
        lines.append(f"**{corpus}**: {c['pages']} pages; gold notes: "
                     + ", ".join(f"{k} {val}" for k, val in c["gold"].items()
                                 if not isinstance(val, list)) + ".")
        for name, t in c["tools"].items():
            if t.get("note"):
                lines.append(f"- {t['label']}: {t['note']}")
    if any(c != "wcxb" for c in results["corpora"]):
        lines += ["", METRIC_TEXT]
    if "wcxb" in results["corpora"]:
        lines += ["", WCXB_METRIC_TEXT]
    lines += ["",
              f"Peer input: `{results['settings']['peer_input']}` (see the script's docstring). "
              "Settings: trafilatura `bare_extraction(include_comments=False, include_tables=True, "
              "with_metadata=True)`; readability `Document().summary()` as text, `.title()`; "
              "jusText English stoplist, non-boilerplate paragraphs; boilerpy3 ArticleExtractor; "
              "resiliparse `extract_plain_text(main_content=True, comments=False)`.", "",
              f"Versions: {versions}.", "",
              f"Machine: {m['nproc']} logical CPUs ({m['cpu']}), load average at start "
              f"{' '.join(f'{x:.2f}' for x in m['load_average'])}; Python {m['python']}. "
              f"Whole run: {results['run_seconds']:.0f} s.", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------

def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--corpus", choices=CORPUS_NAMES, action="append",
                        help="corpus to run (repeatable; default: both)")
    parser.add_argument("--pages-limit", type=int, default=0,
                        help="first N pages of each corpus, in sorted order")
    parser.add_argument("--tools", default=",".join(DEFAULT_PEERS),
                        help=f"peers to run, comma-separated, or `all` (default: "
                             f"{','.join(DEFAULT_PEERS)}; also: trafilatura-text)")
    parser.add_argument("--peer-input", choices=["bytes", "text"], default="bytes")
    parser.add_argument("--parcels", type=Path, default=ROOT / "target" / "release" / "parcels",
                        help="the parcels binary")
    parser.add_argument("--model", action="append", default=[], metavar="NAME=PATH",
                        help="an extra parcels model for Dragnet quality and speed rows")
    parser.add_argument("--l3s-cv", type=Path, help="cross-validated L3S records (JSONL)")
    parser.add_argument("--l3s-cv-extra", action="append", default=[], metavar="NAME=FILE",
                        help="more cross-validated L3S records (e.g. an ablation), quality rows")
    parser.add_argument("--cv-extra", action="append", default=[], metavar="CORPUS:NAME=FILE",
                        help="cross-validated parcels records of any corpus (`parcels "
                             "cross-extract`), quality rows")
    parser.add_argument("--reuse", action="store_true",
                        help=f"reuse {DEFAULT_CV.relative_to(ROOT)} when it exists")
    parser.add_argument("--reps", type=int, default=1, help="timing repetitions (median)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.corpus = args.corpus or CORPUS_NAMES
    args.tools = (PEER_NAMES if args.tools == "all"
                  else [t.strip() for t in args.tools.split(",") if t.strip()])
    unknown = set(args.tools) - set(PEER_NAMES)
    if unknown:
        parser.error(f"unknown tools: {', '.join(sorted(unknown))}")
    models = []
    for spec in args.model:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            parser.error(f"--model wants NAME=PATH, not {spec}")
        models.append((name, Path(path) if Path(path).is_absolute() else ROOT / path))
    args.model = models
    extras = []
    for spec in [f"l3s:{x}" for x in args.l3s_cv_extra] + args.cv_extra:
        corpus, colon, rest = spec.partition(":")
        name, sep, path = rest.partition("=")
        if not colon or corpus not in CORPUS_NAMES or not sep or not name or not path:
            parser.error(f"--cv-extra wants CORPUS:NAME=FILE with CORPUS one of "
                         f"{', '.join(CORPUS_NAMES)}, not {spec}")
        extras.append((corpus, name, Path(path) if Path(path).is_absolute() else ROOT / path))
    args.cv_extra = extras
    return args


def main():
    args = parse_args()
    load_at_start = os.getloadavg()
    reexec_in_venv(args.venv.resolve())
    started = time.perf_counter()
    from importlib import metadata

    binary = parcels_binary(args.parcels)
    results = dict(
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        command="python3 benches/peers/extract_peers.py " + " ".join(sys.argv[1:]),
        settings=dict(reps=args.reps, pages_limit=args.pages_limit, peer_input=args.peer_input,
                      tools=args.tools, models={n: str(p) for n, p in args.model},
                      corpora=str(args.corpora)),
        machine=machine(),
        versions={"parcels": parcels_version(binary),
                  **{d: metadata.version(d) for d in PINS},
                  **({"rs-trafilatura": rs_trafilatura_version()}
                     if "rs-trafilatura" in args.tools else {})},
        corpora={},
    )
    results["machine"]["load_average"] = list(load_at_start)
    # The CV file first: if it has to be made or is missing, fail before the long runs.
    cv = l3s_cv_records(args, binary) if "l3s" in args.corpus else None
    peers = make_peers(args.peer_input)

    for corpus in args.corpus:
        progress(f"{corpus}: reading pages and gold")
        pages, gold_notes = CORPUS_PAGES[corpus](args.corpora, args.pages_limit)
        progress(f"{corpus}: {len(pages)} pages; gold notes "
                 + json.dumps({k: v for k, v in gold_notes.items() if not isinstance(v, list)}))
        tools = {}
        titled = corpus in ("l3s", "wcxb")
        for name in args.tools:
            if name in PROCESS_PEERS:
                continue
            fn, has_title = peers[name]
            outputs, walls = run_peer(corpus, name, fn, pages, args.reps)
            tools[name] = dict(label=name, has_title=has_title and titled,
                               has_meta=name == "trafilatura" and corpus == "wcxb",
                               pages_per_s=len(pages) / statistics.median(walls),
                               seconds=walls, **evaluate(outputs, pages, has_title))
        if "rs-trafilatura" in args.tools:
            records, walls, _ = run_process([str(rs_trafilatura_binary())],
                                            [p["path"] for p in pages], 1, args.reps,
                                            f"{corpus} rs-trafilatura")
            tools["rs-trafilatura"] = dict(
                label="rs-trafilatura", has_title=titled, has_meta=corpus == "wcxb",
                pages_per_s=len(pages) / statistics.median(walls), seconds=walls,
                note=("whole process over the page files, like parcels"
                      + ("; developed and tuned on WCXB (its README reports its figures on "
                         "this dev split), so these pages are not unseen by it"
                         if corpus == "wcxb" else "")),
                **evaluate(parcels_outputs(records, pages), pages, True))

        paths = [p["path"] for p in pages]
        for name, model in [("default", None), *args.model]:
            label = f"parcels ({name})"
            records, walls, errors = run_parcels(binary, paths, model, 1, args.reps,
                                                 f"{corpus} {label}")
            _, walls_all, _ = run_parcels(binary, paths, model, None, args.reps,
                                          f"{corpus} {label}")
            speed = dict(pages_per_s=len(pages) / statistics.median(walls),
                         pages_per_s_all=len(pages) / statistics.median(walls_all),
                         seconds=walls, seconds_all=walls_all, stderr=errors[:50])
            if name == "default" and corpus in ("dragnet", "wcxb"):
                # The default model is trained on every corpus's labels (configs/all-eras-extract.toml):
                # its quality here comes only from cross-validated records (--cv-extra).
                tools[label] = dict(label=label, has_title=False,
                                    failures=sum(1 for p in pages if "main_text" not in
                                                 records.get(p["key"], {})),
                                    note="speed only: the default model was trained on these "
                                         "pages; its quality is the site-CV row",
                                    **speed)
            elif corpus == "dragnet":
                tools[label] = dict(label=label, has_title=False, **speed,
                                    **evaluate(parcels_outputs(records, pages), pages, True))
            elif corpus == "wcxb":
                # corpora/models/parcels-17.json learned from 311 WCXB pages (labelled) and 150
                # more (its pool): these quality figures include pages it saw.
                tools[label] = dict(label=label, has_title=True, has_meta=True, **speed,
                                    note="the model may have seen some of these pages "
                                         "(parcels-17.json: 311 labelled, 150 in its pool)",
                                    **evaluate(parcels_outputs(records, pages), pages, True))
            elif name == "default":
                cv_records, cv_path, cross_validated = cv
                cv_label = "parcels (site CV)" if cross_validated else "parcels (NOT CV)"
                note = (f"quality from `{cv_path}`"
                        + ("" if cross_validated else
                           " whose records have no `fold`: not cross-validated, the model may "
                           "have been trained on these pages")
                        + "; speed of `parcels extract` with the default model")
                tools[cv_label] = dict(label=cv_label, has_title=True, note=note,
                                       cross_validated=cross_validated, **speed,
                                       **evaluate(parcels_outputs(cv_records, pages), pages, True))
            else:
                tools[label] = dict(label=label, has_title=False,
                                    failures=sum(1 for p in pages if "main_text" not in
                                                 records.get(p["key"], {})),
                                    note="speed only: the model may have seen these pages",
                                    **speed)
        for extra_corpus, name, path in args.cv_extra:
            if extra_corpus != corpus:
                continue
            with open(path, encoding="utf-8") as f:
                extra = parse_records(f)
            if not extra or not all("fold" in r for r in extra.values()):
                sys.exit(f"extract_peers: {path}: records without `fold` (not cross-validated)")
            label = f"parcels ({name}, site CV)"
            tools[label] = dict(label=label, has_title=titled, has_meta=corpus == "wcxb",
                                cross_validated=True,
                                note=f"quality from `{path}`, cross-validated by site",
                                **evaluate(parcels_outputs(extra, pages), pages, True))
        gold_pages = {p["key"]: dict(tokens=len(tokenize(p["gold"])), title=p["title"],
                                     **({"comments_cut": True} if p.get("comments_cut") else {}))
                      for p in pages}
        results["corpora"][corpus] = dict(pages=len(pages), gold=gold_notes, tools=tools,
                                          gold_pages=gold_pages)

    results["run_seconds"] = time.perf_counter() - started
    table = markdown_table(results)
    args.out.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out / "peers.md", markdown_report(results, table))
    write_atomic(args.out / "peers.json", json.dumps(results, indent=1, sort_keys=False) + "\n")
    print(table)
    progress(f"wrote {args.out / 'peers.md'} and {args.out / 'peers.json'} "
             f"in {results['run_seconds']:.0f} s")


if __name__ == "__main__":
    main()
