#!/usr/bin/env python3
"""Counts the people's labels of blocks whose whole text names a social network ("Facebook", "X",
"LinkedIn", ...), by where the block's first link leads: a share intent (sharer, intent/tweet,
share-offsite, pin/create, submit?url, ...), a profile page, an action (`#`, `javascript:`) or no
link. The guidelines label share buttons `site-content` and the site's follow links `site-nav`:
if the labels follow the link's kind, the class is in the link target, which a block's words and
looks do not show.

    python3 reports/parcels-17-both-eras/social_links.py SHEET.tsv

SHEET.tsv: `parcels corpus sheet` output (columns page, block, label, ..., links, ..., text).
"""

import collections
import csv
import re
import sys

NETWORKS = {"facebook", "x", "twitter", "linkedin", "pinterest", "reddit", "instagram", "email",
            "whatsapp", "youtube", "tiktok", "threads", "bluesky"}
SHARE = re.compile(r"share|sharer|intent|pin/create|submit\?|mailto:.*(body|subject)|sendto|send\?text", re.I)


def kind(href):
    if not href:
        return "no link"
    if SHARE.search(href):
        return "share"
    if href.startswith("#") or href.startswith("javascript"):
        return "action"
    if href.startswith("mailto:"):
        return "mailto"
    return "profile"


def main():
    csv.field_size_limit(10**9)
    counts = collections.Counter()
    with open(sys.argv[1], encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row["text"].strip().lower() in NETWORKS:
                counts[(kind(row["links"].split(" ")[0]), row["label"])] += 1
    kinds = sorted({k for k, _ in counts})
    labels = sorted({l for _, l in counts}, key=lambda l: -sum(v for (_, m), v in counts.items() if m == l))
    print("| link | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    for k in kinds:
        print(f"| {k} | " + " | ".join(str(counts[(k, l)]) for l in labels) + " |")


if __name__ == "__main__":
    main()
